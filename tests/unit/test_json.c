// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer of fcachectl (userspace/lib/fc_json.c): integers exact,
 * doubles read back as the same value, strings escaped and valid UTF-8,
 * the schema members every document starts with.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "fc_json.h"

static char *buf;
static size_t len;
static FILE *f;
static struct fc_json j;

static void begin(void)
{
	f = open_memstream(&buf, &len);
	if (!f)
		exit(1);
	fj_init(&j, f);
	fj_obj(&j, NULL);
}

static int ends(const char *want)
{
	int ok;

	fj_end(&j);
	fclose(f);
	ok = !strcmp(buf, want);
	if (!ok)
		printf("  got: %s", buf);
	free(buf);
	return ok;
}

static int dbl_roundtrip(double v)
{
	char *end;
	double back;
	int ok;

	f = open_memstream(&buf, &len);
	fj_init(&j, f);
	fj_arr(&j, NULL);
	fj_dbl(&j, NULL, v);
	fj_end(&j);
	fclose(f);
	back = strtod(buf + 1, &end);
	ok = back == v && *end == ']';
	free(buf);
	return ok;
}

int main(void)
{
	begin();
	fj_schema(&j, "fcache.test");
	CHECK("json: schema and schema_version", ends("{\"schema\":\"fcache.test\",\"schema_version\":1}\n"));

	begin();
	fj_u64(&j, "a", UINT64_MAX);
	fj_u64(&j, "b", 9007199254740993ULL);
	fj_i64(&j, "c", INT64_MIN);
	CHECK("json: integers exact",
	      ends("{\"a\":18446744073709551615,\"b\":9007199254740993,\"c\":-9223372036854775808}\n"));

	begin();
	fj_dbl(&j, "a", 0.1);
	fj_dbl(&j, "b", 0.5);
	fj_dbl(&j, "c", 1.0 / 0.0);
	fj_dbl(&j, "d", 123456.75);
	CHECK("json: short doubles stay short, infinity is null",
	      ends("{\"a\":0.1,\"b\":0.5,\"c\":null,\"d\":123456.75}\n"));
	CHECK("json: doubles read back as the same value",
	      dbl_roundtrip(1.0 / 3) && dbl_roundtrip(2.0 / 3 * 1e300) && dbl_roundtrip(5e-324) &&
	      dbl_roundtrip(123456789.123456789) && dbl_roundtrip(-0.000123456789012345678));

	begin();
	fj_str(&j, "s", "q\"b\\n\n\t\x01\x7f");
	CHECK("json: escapes", ends("{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f\"}\n"));

	begin();
	fj_str(&j, "s", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xff|\xc3|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|");
	CHECK("json: UTF-8 kept, other bytes become U+FFFD",
	      ends("{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\\ufffd|\\ufffd|\\ufffd\\ufffd|"
		   "\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd|\"}\n"));

	begin();
	fj_str(&j, "n", NULL);
	fj_arr(&j, "a");
	fj_obj(&j, NULL);
	fj_end(&j);
	fj_bool(&j, NULL, 1);
	fj_end(&j);
	CHECK("json: nesting, null, bool", ends("{\"n\":null,\"a\":[{},true]}\n"));
	return unit_failed;
}
