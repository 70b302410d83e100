/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_util: the monotonic clock, and numbers in and out: the parsers every
 * number given on a command line or in the config file goes through, and
 * byte counts written for people.
 */
#ifndef FC_UTIL_H
#define FC_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: the one clock of the tool and the benchmark. */
uint64_t fc_now_ns(void);

/* The same clock in seconds. */
static inline double fc_now(void)
{
	return fc_now_ns() / 1e9;
}

/*
 * Parsers: 0 and the value in *@v, or -1 with *@v untouched.  A number is
 * the whole of @s: no leading blank, no trailing garbage.
 */
/* Decimal digits only (no sign), up to UINT64_MAX. */
int fc_parse_u64(const char *s, uint64_t *v);
/* Digits with an optional unit: "4096", "32K", "32KiB", "1M", "2G", "8s" (sectors). */
int fc_parse_size(const char *s, uint64_t *bytes);
/* Finite decimal number (no hex, nan or inf), in [@min, @max], whole if @integer. */
int fc_parse_num(const char *s, double min, double max, int integer, double *v);

/* "1.5 GiB" */
void fc_fmt_bytes(char *buf, size_t len, double bytes);

#endif
