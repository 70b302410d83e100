// SPDX-License-Identifier: GPL-2.0
/* fc_util: the clock and the number parsers; see fc_util.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "fc_util.h"

uint64_t fc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The decimal digits at the start of @s (at least one) into *@v, *@end after them. */
static int digits(const char *s, uint64_t *v, char **end)
{
	unsigned long long x;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, end, 10);
	if (errno)
		return -1;
	*v = x;
	return 0;
}

int fc_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x;
	char *end;

	if (digits(s, &x, &end) || *end)
		return -1;
	*v = x;
	return 0;
}

int fc_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	uint64_t x, mul = 1;

	if (digits(s, &x, &end))
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K':
		mul = 1024;
		break;
	case 'M':
		mul = 1024 * 1024;
		break;
	case 'G':
		mul = 1024ull * 1024 * 1024;
		break;
	case 'S':	/* sectors */
		mul = 512;
		break;
	default:
		return -1;
	}
	if (*end) {
		end++;
		if (mul != 512 && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
			end += strlen(end);
		if (*end)
			return -1;
	}
	if (x > UINT64_MAX / mul)
		return -1;
	*bytes = x * mul;
	return 0;
}

/*
 * strtod alone takes "nan", "1e300", " 5", "0x10" and "16.9" happily, and a
 * NaN then passes every "< min" and "> max" check: each value is checked
 * here once for every caller.
 */
int fc_parse_num(const char *s, double min, double max, int integer, double *v)
{
	char *end;
	double x;

	if (!s || !*s || isspace((unsigned char)*s) || strpbrk(s, "xX"))
		return -1;
	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x) || x < min || x > max ||
	    (integer && x != floor(x)))
		return -1;
	*v = x;
	return 0;
}

void fc_fmt_bytes(char *buf, size_t len, double b)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int i = 0;

	while (b >= 1024 && i < 5) {
		b /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f %s", b, u[i]);
	else
		snprintf(buf, len, "%.1f %s", b, u[i]);
}
