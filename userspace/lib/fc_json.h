/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_json: a tiny streaming JSON writer (used by fcachectl and the bench).
 *
 *   struct fc_json j;
 *   fj_init(&j, stdout);
 *   fj_obj(&j, NULL);            top level object
 *     fj_str(&j, "name", "p0");
 *     fj_u64(&j, "blocks", 123);
 *     fj_arr(&j, "volumes");
 *       fj_obj(&j, NULL); ... fj_end(&j);
 *     fj_end(&j);
 *   fj_end(&j);                  closes the object, prints a newline at depth 0
 *
 * @key is the member name inside an object and must be NULL inside an array
 * or at the top level.  Strings are escaped; integers are printed exactly
 * (never through a double); doubles with as many digits as it takes to read
 * back the same value, and null when they are not finite.
 *
 * Every document fcachectl prints starts with fj_schema(): "schema" names
 * its shape, "schema_version" is bumped when a key changes meaning or type
 * or goes away (adding keys keeps the version); docs/JSON.md describes them.
 */
#ifndef FC_JSON_H
#define FC_JSON_H

#include <stdint.h>
#include <stdio.h>

#define FJ_MAX_DEPTH 32
#define FJ_SCHEMA_VERSION 1	/* of the fcachectl schemas but fcache.bench (docs/JSON.md) */

struct fc_json {
	FILE *f;
	int depth;
	int count[FJ_MAX_DEPTH];	/* members written at each depth */
	char close[FJ_MAX_DEPTH];	/* '}' or ']' */
};

void fj_init(struct fc_json *j, FILE *f);
void fj_obj(struct fc_json *j, const char *key);
void fj_arr(struct fc_json *j, const char *key);
void fj_end(struct fc_json *j);
void fj_str(struct fc_json *j, const char *key, const char *val);	/* NULL -> null */
void fj_u64(struct fc_json *j, const char *key, uint64_t val);
void fj_i64(struct fc_json *j, const char *key, int64_t val);
void fj_dbl(struct fc_json *j, const char *key, double val);
void fj_bool(struct fc_json *j, const char *key, int val);
void fj_null(struct fc_json *j, const char *key);
/* Length of the valid UTF-8 sequence at @p (1..4), 0 if it is not one. */
int fj_utf8_len(const unsigned char *p);
/* "schema": @name ("fcache.status"), "schema_version": FJ_SCHEMA_VERSION */
void fj_schema(struct fc_json *j, const char *name);
/* The same with a version of the schema's own (fcache.bench: 2) */
void fj_schema_version(struct fc_json *j, const char *name, unsigned version);

#endif
