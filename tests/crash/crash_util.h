/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the replay tools (lw_replay, cw_work, and cw_point, which includes
 * both) share: fatal errors, aligned buffers, strict number parsing.
 */
#ifndef CRASH_UTIL_H
#define CRASH_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "<program>: message" on stderr, exit rc */
static void die(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(rc);
}

/* n zeroed bytes, 4 KiB aligned (O_DIRECT) */
static void *abuf(size_t n)
{
	void *p;

	if (posix_memalign(&p, 4096, n))
		die(2, "out of memory");
	memset(p, 0, n);
	return p;
}

/* a whole number (decimal, 0x hex or 0 octal), or die */
static uint64_t num(const char *s)
{
	char *e;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &e, 0);
	if (!*s || *e || errno)
		die(2, "bad number '%s'", s);
	return v;
}

#endif
