// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the table and message parsers of engine/fc_parse.c.
 *
 * Input: one selector byte, then a line of text.  The line is split into
 * words the way dm_split_args() splits a table or message line (white
 * space separates, a backslash escapes the next character) and handed to
 * the parser the selector names, as the constructors and message handlers
 * of kmod/fc_pool.c and kmod/fc_vtarget.c do.  Invariants checked:
 *   - a failure always comes with a reason;
 *   - an accepted pool or volume table, printed the way STATUSTYPE_TABLE
 *     prints it and split again, parses to the same options (round trip);
 *   - accepted values lie in their documented ranges;
 *   - an accepted message has the right shape (argument count, key, id);
 *   - fc_parse_u32 agrees with a reference, fc_parse_mode with fc_mode_name.
 * A broken invariant aborts (a libFuzzer crash).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../engine/fc_parse.h"

#define MAX_WORDS 64
#define MAX_LINE 1024

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_parse: invariant failed at line %d: %s\n", __LINE__, #cond); \
		abort(); \
	} \
} while (0)

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* dm_split_args(): words of @line (modified in place), backslash escapes. */
static unsigned int split(char *line, char **argv)
{
	unsigned int argc = 0;
	char *in = line, *out;

	for (;;) {
		while (*in && is_space(*in))
			in++;
		if (!*in || argc == MAX_WORDS)
			return argc;
		argv[argc++] = out = in;
		while (*in && !is_space(*in)) {
			if (*in == '\\' && in[1])
				in++;
			*out++ = *in++;
		}
		if (*in)
			in++;
		*out = 0;
	}
}

static void check_why(int r, const char *why)
{
	if (r)
		CHECK(r == -EINVAL && why && *why);
}

/* Reference decimal parser: digits only, value <= 2^32 - 1. */
static int ref_u32(const char *s, __u32 *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (unsigned long long)(*s - '0');
		if (x > 0xffffffffull)
			return -1;
	}
	*v = (__u32)x;
	return 0;
}

static void pool_opts_eq(const struct fc_pool_opts *a, const struct fc_pool_opts *b)
{
	CHECK(!memcmp(a->val, b->val, sizeof(a->val)));
	CHECK(a->nr_given == b->nr_given);
	CHECK(!memcmp(a->order, b->order, a->nr_given));
}

static void fuzz_pool_table(unsigned int argc, char **argv)
{
	struct fc_pool_opts o, o2;
	char line[MAX_LINE], *argv2[MAX_WORDS];
	const char *why = NULL;
	unsigned int i, j, argc2;
	int n, r;

	fc_pool_opts_default(&o);
	r = fc_pool_opts_parse(&o, argc, argv, &why);
	check_why(r, why);
	if (r)
		return;
	CHECK(o.nr_given <= FC_NR_POOL_OPTS);
	CHECK(o.val[FC_OPT_WRITEBACK_HIGH] >= 1 && o.val[FC_OPT_WRITEBACK_HIGH] <= 100);
	CHECK(o.val[FC_OPT_WRITEBACK_LOW] <= o.val[FC_OPT_WRITEBACK_HIGH]);
	CHECK(o.val[FC_OPT_MAX_DIRTY_AGE] <= 86400);
	CHECK(o.val[FC_OPT_WRITEBACK_JOBS] >= 1 && o.val[FC_OPT_WRITEBACK_JOBS] <= 1024);
	CHECK(o.val[FC_OPT_COMMIT_INTERVAL] <= 3600000);
	for (i = 0; i < o.nr_given; i++) {
		CHECK(o.order[i] < FC_NR_POOL_OPTS);
		for (j = 0; j < i; j++)
			CHECK(o.order[i] != o.order[j]);
	}
	/* STATUSTYPE_TABLE of kmod/fc_pool.c, the option part */
	n = 0;
	if (o.nr_given) {
		n += snprintf(line + n, sizeof(line) - n, "%u", 2 * o.nr_given);
		for (i = 0; i < o.nr_given; i++)
			n += snprintf(line + n, sizeof(line) - n, " %s %u",
				      fc_pool_opt_name(o.order[i]), o.val[o.order[i]]);
	}
	CHECK(n < (int)sizeof(line));
	line[n] = 0;
	argc2 = split(line, argv2);
	fc_pool_opts_default(&o2);
	why = NULL;
	CHECK(!fc_pool_opts_parse(&o2, argc2, argv2, &why));
	pool_opts_eq(&o, &o2);
}

static void fuzz_vol_table(unsigned int argc, char **argv)
{
	struct fc_vol_opts o, o2;
	char line[MAX_LINE], *argv2[MAX_WORDS];
	const char *why = NULL;
	unsigned int i, argc2;
	size_t len;
	int n, r;

	fc_vol_opts_default(&o);
	r = fc_vol_opts_parse(&o, argc, argv, &why);
	check_why(r, why);
	if (r)
		return;
	CHECK(o.nr_given <= FC_NR_VOL_OPTS);
	CHECK(o.seq_cutoff_kib <= 4194304);
	CHECK(o.label[FC_VOLUME_LABEL_LEN] == 0);
	len = strlen(o.label);
	for (i = 0; i < o.nr_given; i++) {
		CHECK(o.order[i] < FC_NR_VOL_OPTS);
		if (o.order[i] == FC_VOPT_LABEL)
			CHECK(len >= 1 && len <= FC_VOLUME_LABEL_LEN);
		if (o.order[i] == FC_VOPT_ORDERED_LOG)
			CHECK(strlen(o.olog) >= 1 && strlen(o.olog) <= FC_OLOG_PATH_MAX);
	}
	/* STATUSTYPE_TABLE of kmod/fc_vtarget.c, the option part */
	n = 0;
	if (o.nr_given) {
		n += snprintf(line + n, sizeof(line) - n, "%u", 2 * o.nr_given);
		for (i = 0; i < o.nr_given; i++) {
			if (o.order[i] == FC_VOPT_LABEL)
				n += snprintf(line + n, sizeof(line) - n, " label %s", o.label);
			else if (o.order[i] == FC_VOPT_ORDERED_LOG)
				n += snprintf(line + n, sizeof(line) - n, " ordered_log %s", o.olog);
			else
				n += snprintf(line + n, sizeof(line) - n, " sequential_cutoff %u",
					      o.seq_cutoff_kib);
		}
	}
	CHECK(n < (int)sizeof(line));
	line[n] = 0;
	argc2 = split(line, argv2);
	fc_vol_opts_default(&o2);
	why = NULL;
	r = fc_vol_opts_parse(&o2, argc2, argv2, &why);
	if (r)
		fprintf(stderr, "fuzz_parse: table '%s' does not parse again: %s\n", line, why);
	CHECK(!r);
	CHECK(o.seq_cutoff_kib == o2.seq_cutoff_kib);
	CHECK(!memcmp(o.label, o2.label, sizeof(o.label)));
	CHECK(!memcmp(o.olog, o2.olog, sizeof(o.olog)));
	CHECK(o.nr_given == o2.nr_given && !memcmp(o.order, o2.order, o.nr_given));
}

static void fuzz_pool_msg(unsigned int argc, char **argv)
{
	struct fc_pool_opts o;
	struct fc_msg m;
	const char *why = NULL;
	__u32 id;
	int r;

	r = fc_parse_pool_msg(argc, argv, &m, &why);
	check_why(r, why);
	if (r)
		return;
	switch (m.kind) {
	case FC_MSG_FLUSH:
	case FC_MSG_CLEAR_STATS:
	case FC_MSG_DUMP:
	case FC_MSG_STATS:
	case FC_MSG_PEER_OUTDATED:
		CHECK(argc == 1);
		break;
	case FC_MSG_FORGET:
		CHECK(argc == 2 && !strcmp(argv[0], "forget"));
		CHECK(!fc_parse_volume_id(argv[1], &id, &why) && id == m.id);
		CHECK(m.id >= 1 && m.id <= 0x7fffffffu);
		break;
	case FC_MSG_RESOLVE:
		CHECK(argc == 3 && !strcmp(argv[0], "resolve"));
		CHECK(!fc_parse_volume_id(argv[1], &id, &why) && id == m.id);
		CHECK(m.id >= 1 && m.id <= 0x7fffffffu);
		CHECK(m.discard == !strcmp(argv[2], "discard"));
		CHECK(m.discard || !strcmp(argv[2], "replay"));
		break;
	case FC_MSG_SET:
		CHECK(argc == 2 && m.key == argv[0] && m.val == argv[1]);
		/* what the pool's message handler does next */
		fc_pool_opts_default(&o);
		why = NULL;
		r = fc_pool_opt_set(&o, m.key, m.val, &why);
		check_why(r, why);
		if (!r) {
			why = NULL;
			check_why(fc_pool_opts_check(&o, &why), why);
		}
		break;
	default:
		CHECK(0);
	}
}

static void fuzz_vol_msg(unsigned int argc, char **argv)
{
	struct fc_vol_opts o;
	struct fc_msg m;
	const char *why = NULL;
	int r;

	r = fc_parse_vol_msg(argc, argv, &m, &why);
	check_why(r, why);
	if (r)
		return;
	switch (m.kind) {
	case FC_MSG_FLUSH:
	case FC_MSG_CLEAR_STATS:
	case FC_MSG_INVALIDATE:
	case FC_MSG_DETACH:
	case FC_MSG_CANCEL_DETACH:
	case FC_MSG_STATS:
		CHECK(argc == 1);
		break;
	case FC_MSG_SET:
		CHECK(argc == 2 && m.key == argv[0] && m.val == argv[1]);
		fc_vol_opts_default(&o);
		why = NULL;
		CHECK(!fc_vol_opt_set(&o, m.key, m.val, &why));
		break;
	default:
		CHECK(0);
	}
}

/* Pool and volume table heads (kmod/fc_pool.c, kmod/fc_vtarget.c ctrs). */
static void fuzz_words(unsigned int argc, char **argv)
{
	char buf[16];
	const char *why = NULL;
	unsigned int i;
	__u32 v, ref;
	int mode, r;

	for (i = 0; i < argc; i++) {
		r = fc_parse_u32(argv[i], &v);
		CHECK(!r == !ref_u32(argv[i], &ref));
		if (!r) {
			CHECK(v == ref);
			snprintf(buf, sizeof(buf), "%u", v);
			CHECK(!fc_parse_u32(buf, &ref) && ref == v);
		}
		mode = fc_parse_mode(argv[i]);
		CHECK(mode == -EINVAL || (mode >= 0 && mode <= FC_MODE_PASSTHROUGH));
		if (mode >= 0)
			CHECK(!strcmp(fc_mode_name(mode), argv[i]));
		why = NULL;
		r = fc_parse_volume_id(argv[i], &v, &why);
		check_why(r, why);
		if (!r)
			CHECK(v >= 1 && v <= 0x7fffffffu);
	}
	CHECK(!strcmp(fc_mode_name(-1), "unknown"));
	CHECK(fc_pool_opt_name(FC_NR_POOL_OPTS) == NULL);
	CHECK(fc_vol_opt_name(FC_NR_VOL_OPTS) == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[MAX_LINE], *argv[MAX_WORDS];
	unsigned int argc;

	if (size < 1 || size >= MAX_LINE)
		return 0;
	memcpy(line, data + 1, size - 1);
	line[size - 1] = 0;
	argc = split(line, argv);
	switch (data[0] % 5) {
	case 0:
		fuzz_pool_table(argc, argv);
		break;
	case 1:
		fuzz_vol_table(argc, argv);
		break;
	case 2:
		fuzz_pool_msg(argc, argv);
		break;
	case 3:
		fuzz_vol_msg(argc, argv);
		break;
	default:
		fuzz_words(argc, argv);
		break;
	}
	return 0;
}
