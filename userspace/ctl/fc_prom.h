/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_prom: the pools and volumes of a struct fc_live in the Prometheus text
 * exposition format (version 0.0.4), for `fcachectl status --prometheus`.
 *
 * Pure: it only reads the structs it is given and writes to @f, so the unit
 * tests feed it synthetic counters (tests/unit/test_prom.c).  The metric
 * names, types and labels are listed in docs/JSON.md ("Prometheus").
 *
 *   fc_prom_write(stdout, &live, &sel, fc_dev_path);
 *
 * Every family gets its HELP and TYPE lines, also when it has no sample;
 * counters end in _total; label values are escaped (backslash, double
 * quote, newline) and bytes that are not UTF-8 are written as '?'.
 */
#ifndef FC_PROM_H
#define FC_PROM_H

#include <stdio.h>
#include "fcachectl.h"

/* Which pools and volumes: all (@only 0), else @pool with its volumes or
 * @vol alone with its pool (either may be NULL: nothing, the target is gone). */
struct fc_prom_sel {
	int only;
	const struct fc_pool *pool;
	const struct fc_vol *vol;
};

/* @dev_path names a device for the "flash" and "origin" labels. */
void fc_prom_write(FILE *f, const struct fc_live *l, const struct fc_prom_sel *sel,
		   const char *(*dev_path)(dev_t dev));

/* A label value between double quotes, escaped. */
void fc_prom_label_value(FILE *f, const char *s);

#endif
