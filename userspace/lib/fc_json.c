// SPDX-License-Identifier: GPL-2.0
/* fc_json: tiny streaming JSON writer; see fc_json.h. */
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include "fc_json.h"

void fj_init(struct fc_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
}

int fj_utf8_len(const unsigned char *p)
{
	unsigned int c = p[0], n, i, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	cp = c & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, above U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (*p) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
				break;
			}
			n = fj_utf8_len(p);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		p++;
	}
	fputc('"', f);
}

/* Separator and key before a value. */
static void member(struct fc_json *j, const char *key)
{
	if (j->count[j->depth]++)
		fputc(',', j->f);
	if (key) {
		put_string(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct fc_json *j, const char *key, char o, char c)
{
	member(j, key);
	fputc(o, j->f);
	if (j->depth + 1 < FJ_MAX_DEPTH) {
		j->depth++;
		j->count[j->depth] = 0;
		j->close[j->depth] = c;
	}
}

void fj_obj(struct fc_json *j, const char *key)
{
	open_(j, key, '{', '}');
}

void fj_arr(struct fc_json *j, const char *key)
{
	open_(j, key, '[', ']');
}

void fj_end(struct fc_json *j)
{
	if (j->depth <= 0)
		return;
	fputc(j->close[j->depth], j->f);
	j->depth--;
	if (!j->depth) {
		fputc('\n', j->f);
		j->count[0] = 0;
	}
}

void fj_str(struct fc_json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		put_string(j->f, val);
	else
		fputs("null", j->f);
}

void fj_u64(struct fc_json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void fj_i64(struct fc_json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, val);
}

/*
 * The shortest of %.15g, %.16g and %.17g that reads back as the same double:
 * no digit of the value is lost, and 0.1 stays "0.1".
 */
void fj_dbl(struct fc_json *j, const char *key, double val)
{
	char buf[40];
	int prec;

	member(j, key);
	if (!isfinite(val)) {
		fputs("null", j->f);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, val);
		if (strtod(buf, NULL) == val)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", val);
	fputs(buf, j->f);
}

void fj_schema(struct fc_json *j, const char *name)
{
	fj_schema_version(j, name, FJ_SCHEMA_VERSION);
}

void fj_schema_version(struct fc_json *j, const char *name, unsigned version)
{
	fj_str(j, "schema", name);
	fj_u64(j, "schema_version", version);
}

void fj_bool(struct fc_json *j, const char *key, int val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void fj_null(struct fc_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}
