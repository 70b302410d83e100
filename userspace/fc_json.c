// SPDX-License-Identifier: GPL-2.0
/* fc_json: tiny streaming JSON writer; see fc_json.h. */
#include <math.h>
#include <inttypes.h>
#include "fc_json.h"

void fj_init(struct fc_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->count[0] = 0;
}

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
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
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
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

void fj_dbl(struct fc_json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);
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
