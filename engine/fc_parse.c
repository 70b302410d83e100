// SPDX-License-Identifier: GPL-2.0
/*
 * fc_parse: option, mode and message parsing for dm-fcache.  Pure C built
 * through include/fcache_env.h (see fc_parse.h); no locking, no allocation.
 */
#include "fc_parse.h"

static const struct fc_opt_desc pool_opts[FC_NR_POOL_OPTS] = {
	[FC_OPT_WRITEBACK_HIGH] = { "writeback_high", 1, 100,
		FC_DEFAULT_WRITEBACK_HIGH, "writeback_high must be 1..100 (percent)" },
	[FC_OPT_WRITEBACK_LOW] = { "writeback_low", 0, 100,
		FC_DEFAULT_WRITEBACK_LOW, "writeback_low must be 0..100 (percent)" },
	[FC_OPT_MAX_DIRTY_AGE] = { "max_dirty_age", 0, 86400,
		FC_DEFAULT_MAX_DIRTY_AGE, "max_dirty_age must be 0..86400 (seconds, 0 = off)" },
	[FC_OPT_WRITEBACK_JOBS] = { "writeback_jobs", 1, 1024,
		FC_DEFAULT_WRITEBACK_JOBS, "writeback_jobs must be 1..1024" },
	[FC_OPT_COMMIT_INTERVAL] = { "commit_interval", 0, 3600000,
		FC_DEFAULT_COMMIT_INTERVAL, "commit_interval must be 0..3600000 (ms)" },
	[FC_OPT_FENCE_HOLD] = { "fence_hold", 0, 1,
		FC_DEFAULT_FENCE_HOLD, "fence_hold must be 0..1 (1: on one copy, flushes wait for peer_outdated)" },
	[FC_OPT_WARM_RESTART] = { "warm_restart", 0, 1,
		FC_DEFAULT_WARM_RESTART, "warm_restart must be 0..1 (1: clean blocks survive an unclean shutdown)" },
	[FC_OPT_ORDERED] = { "ordered", 0, 1,
		FC_DEFAULT_ORDERED, "ordered must be 0..1 (1: the origin alone always holds a past flush point)" },
	[FC_OPT_ORDERED_LAG] = { "ordered_lag", 0, FC_ORDERED_LAG_MAX,
		FC_DEFAULT_ORDERED_LAG, "ordered_lag must be 0..1000000 (flush points the origin may lag, 0 = no bound)" },
};

static const struct fc_opt_desc seq_cutoff_desc = {
	"sequential_cutoff", 0, FC_SEQ_CUTOFF_MAX_KIB, FC_DEFAULT_SEQ_CUTOFF_KIB,
	"sequential_cutoff must be 0..4194304 (KiB, 0 = off)"
};

static const char *const vol_opt_names[FC_NR_VOL_OPTS] = {
	[FC_VOPT_SEQUENTIAL_CUTOFF] = "sequential_cutoff",
	[FC_VOPT_LABEL] = "label",
	[FC_VOPT_ORDERED_LOG] = "ordered_log",
};

static const char *const mode_names[] = {
	[FC_MODE_WRITEBACK] = "writeback",
	[FC_MODE_WRITETHROUGH] = "writethrough",
	[FC_MODE_WRITEAROUND] = "writearound",
	[FC_MODE_PASSTHROUGH] = "passthrough",
};

int fc_parse_u32(const char *s, __u32 *v)
{
	__u64 x = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		x = x * 10 + (__u64)(*s - '0');
		if (x > 0xffffffffull)
			return -EINVAL;
	}
	*v = (__u32)x;
	return 0;
}

int fc_parse_mode(const char *s)
{
	unsigned int i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < FC_NR_MODES; i++)
		if (!strcmp(s, mode_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *fc_mode_name(int mode)
{
	if (mode < 0 || mode > FC_MODE_PASSTHROUGH)
		return "unknown";
	return mode_names[mode];
}

const char *fc_pool_opt_name(unsigned int opt)
{
	return opt < FC_NR_POOL_OPTS ? pool_opts[opt].name : NULL;
}

const struct fc_opt_desc *fc_pool_opt_desc(unsigned int opt)
{
	return opt < FC_NR_POOL_OPTS ? &pool_opts[opt] : NULL;
}

const struct fc_opt_desc *fc_vol_opt_desc(unsigned int opt)
{
	return opt == FC_VOPT_SEQUENTIAL_CUTOFF ? &seq_cutoff_desc : NULL;
}

const char *fc_vol_opt_name(unsigned int opt)
{
	return opt < FC_NR_VOL_OPTS ? vol_opt_names[opt] : NULL;
}

void fc_pool_opts_default(struct fc_pool_opts *o)
{
	unsigned int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < FC_NR_POOL_OPTS; i++)
		o->val[i] = pool_opts[i].def;
}

void fc_vol_opts_default(struct fc_vol_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seq_cutoff_kib = seq_cutoff_desc.def;
}

static void record_given(__u8 *order, __u8 *nr, unsigned int max, unsigned int opt)
{
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (order[i] == opt)
			return;
	if (*nr < max)
		order[(*nr)++] = (__u8)opt;
}

int fc_pool_opt_set(struct fc_pool_opts *o, const char *key, const char *val,
		    const char **why)
{
	unsigned int i;
	__u32 v;

	for (i = 0; i < FC_NR_POOL_OPTS; i++) {
		if (strcmp(key, pool_opts[i].name))
			continue;
		if (fc_parse_u32(val, &v) || v < pool_opts[i].min || v > pool_opts[i].max) {
			*why = pool_opts[i].range;
			return -EINVAL;
		}
		o->val[i] = v;
		record_given(o->order, &o->nr_given, FC_NR_POOL_OPTS, i);
		return 0;
	}
	*why = "unknown pool option (writeback_high, writeback_low, max_dirty_age, writeback_jobs, commit_interval)";
	return -EINVAL;
}

int fc_pool_opts_check(const struct fc_pool_opts *o, const char **why)
{
	if (o->val[FC_OPT_WRITEBACK_LOW] > o->val[FC_OPT_WRITEBACK_HIGH]) {
		*why = "writeback_low must not exceed writeback_high";
		return -EINVAL;
	}
	return 0;
}

/* Common "<#opt_args> <key> <value>..." walker. */
static int opts_walk(void *o, unsigned int argc, char **argv, const char **why,
		     int (*set)(void *o, const char *k, const char *v, const char **why))
{
	__u32 n, i;
	int r;

	if (!argc)
		return 0;
	if (fc_parse_u32(argv[0], &n)) {
		*why = "#opt_args is not a number";
		return -EINVAL;
	}
	if (n != argc - 1) {
		*why = "#opt_args does not match the number of option words";
		return -EINVAL;
	}
	if (n % 2) {
		*why = "options are key value pairs: #opt_args must be even";
		return -EINVAL;
	}
	for (i = 1; i < argc; i += 2) {
		r = set(o, argv[i], argv[i + 1], why);
		if (r)
			return r;
	}
	return 0;
}

static int pool_set_cb(void *o, const char *k, const char *v, const char **why)
{
	return fc_pool_opt_set(o, k, v, why);
}

int fc_pool_opts_parse(struct fc_pool_opts *o, unsigned int argc, char **argv,
		       const char **why)
{
	int r = opts_walk(o, argc, argv, why, pool_set_cb);

	return r ? r : fc_pool_opts_check(o, why);
}

struct table_ctx {
	struct fc_pool_opts *o;
	struct fc_pool_legs *legs;
};

static int table_set_cb(void *p, const char *k, const char *v, const char **why)
{
	struct table_ctx *c = p;

	if (!strcmp(k, "mirror")) {
		if (c->legs->mirror) {
			*why = "mirror given twice (a pool has at most two flash devices)";
			return -EINVAL;
		}
		c->legs->mirror = v;
		return 0;
	}
	if (!strcmp(k, "degraded")) {
		if (fc_parse_u32(v, &c->legs->degraded) || c->legs->degraded > 1) {
			*why = "degraded must be 0 or 1";
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(k, "replace")) {
		if (fc_parse_u32(v, &c->legs->replace) || c->legs->replace > 1) {
			*why = "replace must be 0 or 1";
			return -EINVAL;
		}
		return 0;
	}
	return fc_pool_opt_set(c->o, k, v, why);
}

int fc_pool_table_parse(struct fc_pool_opts *o, struct fc_pool_legs *legs,
			unsigned int argc, char **argv, const char **why)
{
	struct table_ctx c = { .o = o, .legs = legs };
	int r;

	legs->mirror = NULL;
	legs->degraded = 0;
	legs->replace = 0;
	r = opts_walk(&c, argc, argv, why, table_set_cb);
	if (r)
		return r;
	if (legs->replace && (!legs->mirror || !strcmp(legs->mirror, FC_LEG_MISSING))) {
		*why = "replace 1 needs both devices: the one in service and the new one (mirror <dev>)";
		return -EINVAL;
	}
	if (legs->replace && legs->degraded) {
		*why = "replace 1 and degraded 1 exclude each other";
		return -EINVAL;
	}
	if (legs->degraded && !legs->mirror) {
		*why = "degraded applies to a mirrored pool (mirror <dev|->)";
		return -EINVAL;
	}
	if (legs->mirror && !strcmp(legs->mirror, FC_LEG_MISSING) && !legs->degraded) {
		*why = "mirror - (a missing leg) needs degraded 1";
		return -EINVAL;
	}
	if (legs->mirror && o->val[FC_OPT_ORDERED]) {
		*why = "ordered 1 needs a one-device pool (not with mirror)";
		return -EINVAL;
	}
	return fc_pool_opts_check(o, why);
}

/*
 * A table word of 1..@max characters: the table status prints it as one
 * word, so white space, control characters and the backslash (dm_split_args()
 * takes it as an escape) would not read back the same.
 */
static bool word_ok(const char *val, size_t max)
{
	size_t len = strlen(val), i;

	if (!len || len > max)
		return false;
	for (i = 0; i < len; i++)
		if (val[i] <= ' ' || val[i] >= 0x7f || val[i] == '\\')
			return false;
	return true;
}

int fc_vol_opt_set(struct fc_vol_opts *o, const char *key, const char *val,
		   const char **why)
{
	__u32 v;

	if (!strcmp(key, "sequential_cutoff")) {
		if (fc_parse_u32(val, &v) || v > seq_cutoff_desc.max) {
			*why = seq_cutoff_desc.range;
			return -EINVAL;
		}
		o->seq_cutoff_kib = v;
		record_given(o->order, &o->nr_given, FC_NR_VOL_OPTS, FC_VOPT_SEQUENTIAL_CUTOFF);
		return 0;
	}
	if (!strcmp(key, "label")) {
		if (!word_ok(val, FC_VOLUME_LABEL_LEN)) {
			*why = "label must be 1..40 printable characters, without spaces or backslashes";
			return -EINVAL;
		}
		memset(o->label, 0, sizeof(o->label));
		memcpy(o->label, val, strlen(val));
		record_given(o->order, &o->nr_given, FC_NR_VOL_OPTS, FC_VOPT_LABEL);
		return 0;
	}
	if (!strcmp(key, "ordered_log")) {
		if (!word_ok(val, FC_OLOG_PATH_MAX)) {
			*why = "ordered_log must be a device (a path or major:minor, 1..127 printable characters, without spaces or backslashes)";
			return -EINVAL;
		}
		memset(o->olog, 0, sizeof(o->olog));
		memcpy(o->olog, val, strlen(val));
		record_given(o->order, &o->nr_given, FC_NR_VOL_OPTS, FC_VOPT_ORDERED_LOG);
		return 0;
	}
	*why = "unknown volume option (sequential_cutoff, label, ordered_log)";
	return -EINVAL;
}

static int vol_set_cb(void *o, const char *k, const char *v, const char **why)
{
	return fc_vol_opt_set(o, k, v, why);
}

int fc_vol_opts_parse(struct fc_vol_opts *o, unsigned int argc, char **argv,
		      const char **why)
{
	return opts_walk(o, argc, argv, why, vol_set_cb);
}

int fc_parse_volume_id(const char *s, __u32 *id, const char **why)
{
	if (fc_parse_u32(s, id) || !*id || *id > 0x7fffffffu) {
		*why = "volume_id must be a number 1..2147483647";
		return -EINVAL;
	}
	return 0;
}

/* Messages that take no arguments, per target; a NULL name ends a list. */
struct fc_bare_msg {
	const char *name;
	enum fc_msg_kind kind;
};

static const struct fc_bare_msg pool_bare_msgs[] = {
	{ "flush", FC_MSG_FLUSH },
	{ "clear_stats", FC_MSG_CLEAR_STATS },
	{ "dump", FC_MSG_DUMP },
	{ "stats", FC_MSG_STATS },
	{ "peer_outdated", FC_MSG_PEER_OUTDATED },
	{ NULL },
};

static const struct fc_bare_msg vol_bare_msgs[] = {
	{ "flush", FC_MSG_FLUSH },
	{ "clear_stats", FC_MSG_CLEAR_STATS },
	{ "invalidate", FC_MSG_INVALIDATE },
	{ "detach", FC_MSG_DETACH },
	{ "cancel_detach", FC_MSG_CANCEL_DETACH },
	{ "stats", FC_MSG_STATS },
	{ NULL },
};

/*
 * The start of both message parsers: clear @m, refuse an empty message and
 * parse the messages of @bare.  Returns -EINVAL for an empty message, 0 or
 * -EINVAL for one of @bare, 1 for any other (the caller parses the rest).
 */
static int parse_bare_msg(unsigned int argc, char **argv, const struct fc_bare_msg *bare,
			  struct fc_msg *m, const char **why)
{
	memset(m, 0, sizeof(*m));
	if (!argc) {
		*why = "empty message";
		return -EINVAL;
	}
	for (; bare->name; bare++) {
		if (strcmp(argv[0], bare->name))
			continue;
		m->kind = bare->kind;
		if (argc != 1) {
			*why = "this message takes no arguments";
			return -EINVAL;
		}
		return 0;
	}
	return 1;
}

/* A "<key> <value>" message, its value checked by the caller. */
static int set_msg(char **argv, struct fc_msg *m)
{
	m->kind = FC_MSG_SET;
	m->key = argv[0];
	m->val = argv[1];
	return 0;
}

int fc_parse_pool_msg(unsigned int argc, char **argv, struct fc_msg *m,
		      const char **why)
{
	unsigned int i;
	int r;

	r = parse_bare_msg(argc, argv, pool_bare_msgs, m, why);
	if (r <= 0)
		return r;
	if (!strcmp(argv[0], "forget")) {
		m->kind = FC_MSG_FORGET;
		if (argc != 2) {
			*why = "usage: forget <volume_id>";
			return -EINVAL;
		}
		return fc_parse_volume_id(argv[1], &m->id, why);
	}
	if (!strcmp(argv[0], "resolve")) {
		m->kind = FC_MSG_RESOLVE;
		if (argc != 3 || (strcmp(argv[2], "replay") && strcmp(argv[2], "discard"))) {
			*why = "usage: resolve <volume_id> replay|discard";
			return -EINVAL;
		}
		m->discard = !strcmp(argv[2], "discard");
		return fc_parse_volume_id(argv[1], &m->id, why);
	}
	for (i = 0; i < FC_NR_POOL_OPTS; i++) {
		if (strcmp(argv[0], pool_opts[i].name))
			continue;
		if (argc != 2) {
			*why = "usage: <tunable> <value>";
			return -EINVAL;
		}
		return set_msg(argv, m);
	}
	*why = "unknown pool message (flush, clear_stats, stats, forget, resolve, peer_outdated, or a tunable)";
	return -EINVAL;
}

int fc_parse_vol_msg(unsigned int argc, char **argv, struct fc_msg *m,
		     const char **why)
{
	__u32 v;
	int r;

	r = parse_bare_msg(argc, argv, vol_bare_msgs, m, why);
	if (r <= 0)
		return r;
	if (!strcmp(argv[0], "sequential_cutoff")) {
		if (argc != 2 || fc_parse_u32(argv[1], &v) || v > FC_SEQ_CUTOFF_MAX_KIB) {
			*why = "usage: sequential_cutoff <KiB 0..4194304>";
			return -EINVAL;
		}
		return set_msg(argv, m);
	}
	*why = "unknown volume message (flush, clear_stats, stats, invalidate, detach, cancel_detach, sequential_cutoff)";
	return -EINVAL;
}
