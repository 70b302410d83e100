/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_parse: parsing and validation of the dm-fcache table option arguments,
 * cache mode names and messages.  Pure C (include/fcache_env.h): built into
 * the module and into the host unit tests (tests/unit/test_parse.c).
 *
 * Nothing here allocates or locks; callers own the structures.  Every
 * parser returns 0 or -EINVAL with a static, user-readable reason in *why.
 */
#ifndef FC_PARSE_H
#define FC_PARSE_H

#include "../include/fcache_env.h"
#include "../include/fcache_abi.h"
#include "../include/fcache_format.h"

/* Pool tunables, in table order of fcache_abi.h. */
enum fc_pool_opt {
	FC_OPT_WRITEBACK_HIGH,
	FC_OPT_WRITEBACK_LOW,
	FC_OPT_MAX_DIRTY_AGE,
	FC_OPT_WRITEBACK_JOBS,
	FC_OPT_COMMIT_INTERVAL,
	FC_OPT_FENCE_HOLD,
	FC_OPT_WARM_RESTART,
	FC_OPT_ORDERED,
	FC_OPT_ORDERED_LAG,
	FC_NR_POOL_OPTS
};

/*
 * A numeric option's name, range, default and the reason given when a value
 * is out of range.  fcachectl reads them too (userspace/ctl/tunables.c), so
 * the tool and the target accept the same values.
 */
struct fc_opt_desc {
	const char *name;
	__u32 min, max, def;
	const char *range;
};

/* sequential_cutoff, KiB: 0 (off) .. 4 GiB */
#define FC_SEQ_CUTOFF_MAX_KIB	4194304
/* ordered_log: the log device's path or major:minor, as a table word */
#define FC_OLOG_PATH_MAX	127
/* the cache modes FC_MODE_* of fcache_abi.h */
#define FC_NR_MODES		(FC_MODE_PASSTHROUGH + 1)

struct fc_pool_opts {
	__u32 val[FC_NR_POOL_OPTS];
	/* Options the user gave, in the order given (for the TABLE status). */
	__u8 order[FC_NR_POOL_OPTS];
	__u8 nr_given;
};

/* Volume options. */
enum fc_vol_opt {
	FC_VOPT_SEQUENTIAL_CUTOFF,
	FC_VOPT_LABEL,
	FC_VOPT_ORDERED_LOG,
	FC_NR_VOL_OPTS
};

struct fc_vol_opts {
	__u32 seq_cutoff_kib;
	char label[FC_VOLUME_LABEL_LEN + 1];
	char olog[FC_OLOG_PATH_MAX + 1];	/* ordered_log: the log device, as given */
	__u8 order[FC_NR_VOL_OPTS];
	__u8 nr_given;
};

/* Decimal unsigned 32-bit number, no sign, no trailing garbage. */
int fc_parse_u32(const char *s, __u32 *v);

/* Mode name <-> FC_MODE_*; -EINVAL for an unknown name / NULL. */
int fc_parse_mode(const char *s);
const char *fc_mode_name(int mode);

const char *fc_pool_opt_name(unsigned int opt);
/* The description of pool tunable @opt (enum fc_pool_opt), NULL past the last. */
const struct fc_opt_desc *fc_pool_opt_desc(unsigned int opt);
const char *fc_vol_opt_name(unsigned int opt);
/* sequential_cutoff's (FC_VOPT_SEQUENTIAL_CUTOFF); NULL for the label and past the last. */
const struct fc_opt_desc *fc_vol_opt_desc(unsigned int opt);

void fc_pool_opts_default(struct fc_pool_opts *o);
void fc_vol_opts_default(struct fc_vol_opts *o);

/* Set one pool tunable by name (table or message).  Checks its range only. */
int fc_pool_opt_set(struct fc_pool_opts *o, const char *key, const char *val,
		    const char **why);
/* Cross-checks (writeback_low <= writeback_high ...). */
int fc_pool_opts_check(const struct fc_pool_opts *o, const char **why);

/*
 * Parse "<#opt_args> <key> <value>..." from @argv (argc words, possibly 0).
 * On success every option given is set and recorded in order.
 */
int fc_pool_opts_parse(struct fc_pool_opts *o, unsigned int argc, char **argv,
		       const char **why);

/*
 * The flash devices of a pool table: "mirror <dev>" names the second leg
 * ("-": missing), "degraded 1" allows loading with a leg missing (as
 * mdadm --run), "replace 1" (a reload of a live degraded pool) brings a
 * new device in for the failed or missing leg: one of the two devices is
 * the leg in service, the other the new one.  Taken from the same key
 * value pairs as the tunables.
 */
struct fc_pool_legs {
	const char *mirror;	/* NULL: a one-device pool; points into argv */
	__u32 degraded;
	__u32 replace;
};

#define FC_LEG_MISSING "-"

/* fc_pool_opts_parse() that also takes the leg options into @legs. */
int fc_pool_table_parse(struct fc_pool_opts *o, struct fc_pool_legs *legs,
			unsigned int argc, char **argv, const char **why);
int fc_vol_opts_parse(struct fc_vol_opts *o, unsigned int argc, char **argv,
		      const char **why);
int fc_vol_opt_set(struct fc_vol_opts *o, const char *key, const char *val,
		   const char **why);

/* Messages. */
enum fc_msg_kind {
	FC_MSG_FLUSH,
	FC_MSG_CLEAR_STATS,
	FC_MSG_SET,		/* pool tunable or sequential_cutoff */
	FC_MSG_FORGET,		/* pool only */
	FC_MSG_INVALIDATE,	/* volume only */
	FC_MSG_DUMP,		/* pool only: internal state to the kernel log */
	FC_MSG_DETACH,		/* volume only: an orderly teardown follows */
	FC_MSG_CANCEL_DETACH,	/* volume only: it did not happen after all */
	FC_MSG_RESOLVE,		/* pool only: resolve <id> replay|discard */
	FC_MSG_STATS,		/* counters as name=value (answered) */
	FC_MSG_PEER_OUTDATED,	/* pool only: fence_hold's acknowledgements go on */
};

struct fc_msg {
	enum fc_msg_kind kind;
	const char *key;	/* FC_MSG_SET */
	const char *val;	/* FC_MSG_SET */
	__u32 id;		/* FC_MSG_FORGET, FC_MSG_RESOLVE */
	int discard;		/* FC_MSG_RESOLVE: 1 discard, 0 replay */
};

int fc_parse_pool_msg(unsigned int argc, char **argv, struct fc_msg *m,
		      const char **why);
int fc_parse_vol_msg(unsigned int argc, char **argv, struct fc_msg *m,
		     const char **why);

/* Volume ids: 1 .. 2^31-1 (0 means an empty slot on disk). */
int fc_parse_volume_id(const char *s, __u32 *id, const char **why);

#endif
