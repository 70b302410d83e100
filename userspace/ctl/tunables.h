/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings 'fcachectl set' changes, in one table: the pool tunables
 * (writeback_high ...) and the volume settings (mode, sequential_cutoff),
 * each with its range or words, default, unit and a one-line description.
 * Names, ranges and defaults come from the kernel's parser (engine/fc_parse.c,
 * compiled in), so the tool accepts what the target accepts.  The key
 * checks of pool create, set and the config file, the key lists of
 * show/get, the --help lines and the shell completion's word lists
 * ('fcachectl __complete bash') are all made from it.  Pure: no
 * device-mapper, so the unit tests link it (with engine/fc_parse.c).
 */
#ifndef FC_TUNABLES_H
#define FC_TUNABLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fc_tun_kind { FC_TUN_POOL, FC_TUN_VOL };

struct fc_tunable {
	const char *name;
	enum fc_tun_kind kind;
	int is_mode;		/* a mode word (fc_mode_words()), else a number min..max */
	uint32_t min, max, def;	/* is_mode: def is an FC_MODE_* */
	const char *unit;	/* "%", "s", "ms", "KiB" or "" */
	const char *range;	/* "writeback_high must be 1..100 (percent)" (the kernel's words) */
	const char *desc;	/* one line */
};

/* Every setting: the pool's in table order, then the volume's; a NULL name ends it. */
const struct fc_tunable *fc_tunables(void);
/* The setting @name of @kind, or NULL. */
const struct fc_tunable *fc_tunable(enum fc_tun_kind kind, const char *name);
/* "writeback", "writethrough", "writearound", "passthrough", NULL */
const char *const *fc_mode_words(void);
int fc_valid_mode(const char *mode);

/*
 * Check "@key=@val" as a setting of @kind: 0, the setting in *@t and a
 * number's value in *@num (either may be NULL), or -1
 * with the reason in @why ("unknown pool tunable 'x' (writeback_high, ...)",
 * "bad value for writeback_jobs: '0': writeback_jobs must be 1..1024").
 */
int fc_tunable_check(enum fc_tun_kind kind, const char *key, const char *val,
		     const struct fc_tunable **t, uint32_t *num, char *why, size_t len);

/*
 * The pool tunables "KEY=VALUE" @kv[@n] over the option words of a live
 * pool's table @base ("4 writeback_high 70 mirror 8:32", as after its
 * flash and block size; NULL: over the defaults), taken and checked
 * together as the target takes them (engine/fc_parse.c: fc_pool_opt_set,
 * then fc_pool_opts_check, the cross-checks of a table or a message): 0,
 * or -1 with the reason in @why, naming the pair and where each value
 * comes from ("writeback_low must not exceed writeback_high (writeback_low
 * 50, the default; writeback_high 40)").  pool create, the config file and
 * set check their pairs with it: what it takes, the kernel takes.
 */
int fc_pool_tunables_check(const char *base, int n, char *const *kv, char *why, size_t len);

/* The names of @kind joined by @sep ("writeback_high, writeback_low, ..."). */
const char *fc_tunable_names(enum fc_tun_kind kind, const char *sep, char *buf, size_t len);
/*
 * The mode words joined: ", " and " or " before the last ("writeback, ... or
 * passthrough"); with @enable only those enable takes (not passthrough).
 */
const char *fc_mode_list(char *buf, size_t len, int enable);
/* A mode enable takes: every mode but passthrough, which disable uses. */
int fc_enable_mode(const char *mode);

/*
 * Print @text, a verb's usage, replacing each line "@WHAT" by lines made
 * from the table: @pool-tunables, @volume-settings (name, range, default,
 * description), @enable-modes, @enable-cutoff (enable's --mode and
 * --sequential-cutoff), @show-pool, @show-volume, @get-pool, @get-volume.
 */
void fc_tunables_help(FILE *f, const char *text);

/*
 * The word lists of completion/fcachectl, as bash assignments between the
 * marker lines (fcachectl __complete bash; a host test compares).
 */
void fc_tunables_bash(FILE *f);

/* The keys 'get' knows besides the settings. */
extern const char *const fc_show_pool_fixed[];	/* flash, block_sectors */
extern const char *const fc_show_vol_fixed[];	/* pool, origin, id, label, in_place */

#endif
