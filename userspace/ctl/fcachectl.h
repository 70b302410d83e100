/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcachectl internals shared by the verb files (userspace/ctl/): option
 * parsing, signals and the progress line (util.c), the view of live pools
 * and volumes built from device-mapper tables and status (live.c), what the
 * verbs share with each other (pool.c, volume.c, resolve.c, conf_*.c).
 * Errors, exit codes, numbers, the clock and devices come from lib/
 * (included here).
 */
#ifndef FCACHECTL_H
#define FCACHECTL_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "fcache_abi.h"
#include "fc_dev.h"
#include "fc_err.h"
#include "fc_util.h"
#include "tunables.h"

#ifndef FC_VERSION
#define FC_VERSION "0.1"
#endif

#define FC_DEFAULT_CONFIG "/etc/fcache/fcache.conf"
#define FC_CONF_MAX_LINE 1024	/* characters in a config line, newline excluded */
#define FC_CONF_MAX_PATH 255	/* characters in a device path of the config */

extern volatile int fc_interrupted;	/* set by SIGINT/SIGTERM handlers */

/*
 * Option parsing of the verbs (util.c): getopt_long with options and
 * operands in any order; every word after "--" is an operand.
 *
 *	struct fc_opt o;
 *	fc_opt_init(&o, argc, argv, "j", longopts, "check", "check");
 *	while ((c = fc_opt_next(&o)) != FC_OPT_END)
 *		switch (c) {
 *		case FC_OPT_OPERAND: use o.arg; break;
 *		case 'j': ...; break;
 *		default: return EXIT_USAGE;	(FC_OPT_ERROR: already said)
 *		}
 *
 * An unknown option or a missing option argument prints a usage error
 * ("WHAT: unknown option '--x'", "Try 'fcachectl VERB --help'") and
 * returns FC_OPT_ERROR.
 */
#define FC_OPT_END	(-1)
#define FC_OPT_OPERAND	1
#define FC_OPT_ERROR	(-2)
struct fc_opt {
	int argc;
	char **argv;
	char shortopts[40];		/* "-:" + the verb's short options */
	const struct option *longopts;
	const char *verb;		/* whose --help the error suggests */
	const char *what;		/* message prefix: "pool create" */
	char *arg;			/* operand, or the option's argument */
	int rest;			/* after getopt's end: next operand, else 0 */
};
void fc_opt_init(struct fc_opt *o, int argc, char **argv, const char *shortopts,
		 const struct option *longopts, const char *verb, const char *what);
int fc_opt_next(struct fc_opt *o);
/*
 * The operand o->arg into the first empty one of @ops[@n]: 0, or a usage
 * error naming it when all are taken ("WHAT: unexpected argument 'x' (one
 * @unit at a time)").
 */
int fc_opt_operand(struct fc_opt *o, const char **ops, int n, const char *unit);
/* Does volume @id labelled @label answer to @which (a number 1..: its id, else its label)? */
int fc_vol_is(unsigned int id, const char *label, const char *which);

/* verbs */
int cmd_pool(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_flush(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_udev_probe(int argc, char **argv);
int cmd_complete(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_wipe(int argc, char **argv);
int cmd_ordered_log(int argc, char **argv);

/* util.c */
int fc_valid_name(const char *name);			/* usable dm name */
void fc_install_sigint(void);

/* Progress of a writeback: call with the dirty bytes left until done. */
struct fc_progress {
	double start, last_print, last_t;
	uint64_t first, last;
	double rate;
	int tty, printed;
};
void fc_progress_start(struct fc_progress *p, uint64_t left);
void fc_progress_update(struct fc_progress *p, uint64_t left);
void fc_progress_done(struct fc_progress *p, const char *msg);

/* live.c: the pools and volumes device-mapper has now. */
struct fc_pool_status {
	uint64_t block_sectors, total_blocks, used_blocks, dirty_blocks;
	char metadata_mode[8];
	int needs_check;
	uint64_t flash_read_errors, flash_write_errors, metadata_errors;
	char wb_state[16];
	uint64_t wb_inflight, commit_seq, active_volumes, registered_volumes, free_blocks;
	char redundancy[16];	/* single | mirrored | degraded */
	uint64_t lone_dirty_blocks;
	char legs[32];		/* "ok" or "ok,missing" ... */
	/* read-only metadata (docs/DESIGN.md "Metadata modes") */
	uint64_t unwritable_blocks;	/* blocks whose writes fail */
	char flushes[16];		/* ok | draining | failing */
	char acks[8];			/* open | held (fence_hold waits for peer_outdated) */
	/* ordered write-back: how far the origins lag (0 without it) */
	int have_origin;		/* the module prints fields 22 and 23 */
	uint64_t origin_behind;		/* flush points the origins lack */
	uint64_t origin_lag;		/* seconds since their oldest missing data */
};

struct fc_vol_status {
	char mode[16];
	uint64_t cached_blocks, dirty_blocks, reads, read_hits, writes, write_hits;
	uint64_t bypassed, wb_inflight, errors, promotions, writebacks, volume_id;
};

struct fc_pool {
	char name[128];
	dev_t dev;		/* the pool's dm device */
	dev_t flash;		/* its flash device */
	/* a mirrored pool ("mirror <dev>|-" in its table) */
	int nr_legs;		/* 2 for a mirrored pool, else 1 */
	dev_t flash2;		/* the second flash device, 0 if missing ("mirror -") */
	int degraded_opt;	/* the table says "degraded 1" */
	int leg_of[2];		/* leg of flash, flash2 (fc_pool_find_legs), -1 unknown */
	uint64_t sectors;
	uint32_t block_sectors;
	char table[1024];	/* table params */
	int have_status;
	struct fc_pool_status st;
};

struct fc_vol {
	char name[128];
	dev_t dev;
	dev_t pool_dev, origin;
	uint32_t id;
	char mode[16];
	char label[64];
	uint64_t sectors;
	int in_place;		/* origin is NAME-fcorig */
	char table[1024];
	int have_status;
	struct fc_vol_status st;
};

struct fc_live {
	struct fc_pool *pools;
	int npools;
	struct fc_vol *vols;
	int nvols;
};

/* Scan device-mapper: 0 or -1 (device-mapper unavailable). */
int fc_live_scan(struct fc_live *l);
void fc_live_free(struct fc_live *l);
struct fc_pool *fc_live_pool(struct fc_live *l, const char *name_or_path);
struct fc_pool *fc_live_pool_by_dev(struct fc_live *l, dev_t dev);
/* Does a volume of @l attach volume id @id of pool @p? */
int fc_live_attached(const struct fc_live *l, const struct fc_pool *p, unsigned int id);
struct fc_vol *fc_live_vol(struct fc_live *l, const char *name_or_path);
int fc_parse_pool_status(const char *s, struct fc_pool_status *st);
/* The flash devices, block size and mirror options of a pool table into @p (fc_status.c). */
void fc_parse_pool_table(struct fc_pool *p);
/*
 * A mirrored pool's devices sit on the legs their superblocks name, not in
 * table order: read them to fill p->leg_of (table order when unreadable).
 */
void fc_pool_find_legs(struct fc_pool *p);
/* Is @dev a flash device (either leg) of a live pool of @l?  That pool, or NULL. */
struct fc_pool *fc_live_pool_by_flash(struct fc_live *l, dev_t dev);
int fc_parse_vol_status(const char *s, struct fc_vol_status *st);
int fc_pool_refresh(struct fc_pool *p);
int fc_vol_refresh(struct fc_vol *v);
/* Read the volume's table again into v->table (messages change its options): 0 or -1. */
int fc_vol_reread(struct fc_vol *v);
/* Table params of a volume with another mode. */
int fc_vol_table_with_mode(const struct fc_vol *v, const char *mode, char *buf, size_t len);
/* Reload a volume's table with @params (suspend + resume). */
int fc_vol_reload(const struct fc_vol *v, const char *params);
/* Write back dirty data of a pool (vol == NULL) or a volume with a progress bar. */
int fc_flush_wait(struct fc_pool *p, struct fc_vol *v);

/* pool.c, shared with config.c */
int fc_pool_key(const char *k);
int fc_pool_tunables(const char *verb, int n, char **kv, char *opts, size_t len, int *words);
/*
 * @flash2: the second device of a mirrored pool (NULL: one device);
 * @degraded: load one leg of a mirrored pool alone ("mirror - degraded 1");
 * *@loaded (unless NULL): 1 if the pool was loaded from its devices, 0 if
 * they were formatted.
 */
int fc_pool_create(const char *name, const char *flash, const char *flash2, int degraded,
		   uint32_t bs, int bs_given, int force, const char *opts, int words, int *loaded);
/*
 * Remove the live pool @arg (no volume attached, not open).  @conf (pool
 * remove; NULL for down): the config file its line leaves, unless the pool
 * holds dirty data (or its status cannot be read): then the line stays so
 * that 'up' brings the data back, and that is said.
 */
int fc_pool_remove(const char *arg, const char *conf);
/*
 * replace_plan.c: pool replace, decided on the live pool @p (NULL: none
 * named @name): mirrored, degraded by exactly one leg failed or missing,
 * @newdev (named @newpath) not the device in service.  0 and @rp filled,
 * or -1 with the reason in @why.
 */
struct fc_replace {
	dev_t keep;		/* the device in service */
	dev_t old;		/* the failed device, still in the table; 0: missing */
	int leg;		/* the leg the new device replaces */
	int same;		/* @newdev is the failed device itself (back again) */
	char state[16];		/* "failed" or "missing" */
};
int fc_replace_plan(const struct fc_pool *p, const char *name, dev_t newdev, const char *newpath,
		    struct fc_replace *rp, char *why, size_t len);
/*
 * The table params of the reload: "@keep <bs> N mirror @newdev replace 1"
 * and every tunable of @p's table (not its mirror/degraded/replace): 0, -1.
 */
int fc_replace_table(const struct fc_pool *p, dev_t keep, dev_t newdev, char *params, size_t len);
/* replace.c: pool replace POOL NEWDEV (@conf: record in it, NULL: no) */
int fc_pool_replace(const char *pool, const char *newpath, int wait, int force, const char *conf);
/*
 * volume.c, shared with config.c; @cutoff < 0: default; @conf: record in it
 * (NULL: no); @force: an LVM PV that LVM would also see raw is warned
 * about, not refused (lvm_filter.c)
 */
/* ordered_log's device path at most (the table's word: FC_OLOG_PATH_MAX) */
#define FC_CTL_OLOG_PATH_MAX 127
int fc_enable(const char *volume, const char *pool, const char *mode, const char *name,
	      unsigned int id, int cutoff, const char *olog, const char *conf, int force);
int fc_disable(const char *volume, int no_flush, int detach_only, const char *conf);
/* Is the dm device @name an LVM logical volume (dm uuid "LVM-...")? */
int fc_is_lvm_lv(const char *name);
/* resolve.c: what the flash of pool @p says about its volumes */
struct fc_ondisk_vol;
/* The volumes of its volume table (fc_flash_volumes): count, or <0 if unreadable. */
int fc_pool_flash_volumes(struct fc_pool *p, struct fc_ondisk_vol *v, int max);
/* Dirty blocks of volume slot @slot counted on the flash (1 if that cannot be read). */
int64_t fc_pool_flash_dirty(struct fc_pool *p, unsigned int slot);
/* Its volume slots no live table of @l attaches (@dirty_only: with a dirty hint); -1. */
int fc_pool_unattached(struct fc_live *l, struct fc_pool *p, struct fc_ondisk_vol *out, int max,
		       int dirty_only);
/*
 * The start of forget and resolve (@verb): scan @l, find the pool named
 * @pool (into *@pp) and read its unattached volumes into @ov (at most 64),
 * the index of the last one answering to @which (fc_vol_is) into *@found
 * (-1: none).  Their count, or -1 said, with @l freed.
 */
int fc_pool_vol_lookup(const char *verb, struct fc_live *l, const char *pool, const char *which,
		       struct fc_pool **pp, struct fc_ondisk_vol *ov, int *found);

/* config.c: recording in the config file (@file) what enable/disable/set did */
int fc_conf_check(const char *file);	/* 0: missing or parses */
/*
 * pool create: the line of live pool @p (its devices, tunables and block
 * size from its table), appended, or in place of the pool's line if the
 * file has one; enable writes the same line when the file lacks it.
 * Another pool's line naming one of @p's devices is taken out, its
 * volume lines renamed to @p if @p was @loaded from the device, removed
 * if it was formatted.
 */
int fc_conf_record_pool(const char *file, const struct fc_pool *p, int loaded);
int fc_conf_record_enable(const char *file, const struct fc_pool *p, const char *dev,
			  unsigned int id, const char *mode, const char *name, int cutoff,
			  const char *olog);
int fc_conf_record_disable(const char *file, const char *pool, unsigned int id);
/* @id 0: the pool line, else the volume line of (@pool, @id) */
int fc_conf_record_set(const char *file, const char *pool, unsigned int id, int n, char **kv);
/*
 * pool remove, wipe: pool @pool is gone; its line and the lines of its
 * volumes leave the file (said), so that 'up' does not assemble it again
 * and udev-probe no longer hides its devices.  EXIT_OK also when the file
 * or the line is missing.
 */
int fc_conf_record_pool_gone(const char *file, const char *pool);
/* Has @file (missing: no) a line for pool @pool? */
int fc_conf_has_pool(const char *file, const char *pool);
/* pool replace: the device of pool @pool's line that is not @keep becomes @newdev */
int fc_conf_record_replace(const char *file, const char *pool, dev_t keep, dev_t newdev);
/*
 * The config file options of the verbs that record in the config file
 * (pool create/remove/replace, enable, disable, set, forget, wipe: -c FILE, --config FILE,
 * --no-persist) for their option tables; fc_opt_next_conf() (util.c) takes
 * them, fc_conf_file() gives the file to record in (NULL: --no-persist).
 */
#define FC_OPT_CONFIG		'c'
#define FC_OPT_NO_PERSIST	0x100
#define FC_CONF_LONGOPTS \
	{ "config", required_argument, NULL, FC_OPT_CONFIG }, \
	{ "no-persist", no_argument, NULL, FC_OPT_NO_PERSIST }
struct fc_conf_opt {
	const char *file;	/* -c FILE, default FC_DEFAULT_CONFIG */
	int no_persist;
};
static inline const char *fc_conf_file(const struct fc_conf_opt *co)
{
	if (co->no_persist)
		return NULL;
	return co->file ? co->file : FC_DEFAULT_CONFIG;
}
/* fc_opt_next() of a verb with FC_CONF_LONGOPTS: takes those into @co itself. */
int fc_opt_next_conf(struct fc_opt *o, struct fc_conf_opt *co);

/* show.c: show, get */
int cmd_show(int argc, char **argv);
int cmd_get(int argc, char **argv);
/* counters.c: reset-counters */
int cmd_reset_counters(int argc, char **argv);
/* forget.c */
int cmd_forget(int argc, char **argv);

/* fc_pool_create()'s @force: bits */
#define FC_CREATE_FORCE	1	/* --force: overwrite signatures, reformat a pool */
#define FC_CREATE_YES	2	/* --yes: reformatting a pool needs no question */

/*
 * reformat.c: pool create on a device holding a pool (@force: FC_CREATE_*
 * bits, @cmd: to run with --yes): --force on a pool is confirmed, a damaged
 * pool is refused without --force.  fc_create_gate() decides what it can
 * before device-mapper is asked anything; fc_pool_create() asks again.
 */
int fc_create_gate(const char *flash, int force, const char *cmd);
/*
 * "an fcache pool with 32 KiB blocks (leg 0 of a mirrored pool), 2
 * registered volumes with dirty data: id 1 'db' (12 blocks)" for the pool
 * of @bs-sector blocks on @fd (the volume table's dirty hints).
 */
void fc_describe_pool(int fd, uint32_t bs, char *buf, size_t len);
int fc_reformat_confirm(int dfd, const char *flash, uint32_t have_bs, int force, const char *cmd);
/*
 * create_plan.c: what pool create does with @n devices (@fd, named @path)
 * for pool @name, from their superblocks: a plan below; FC_PLAN_REFUSE
 * with the reason (naming the devices and what to do) in @why.
 */
enum {
	FC_PLAN_FORMAT,		/* no pool on them: format (after the blank checks) */
	FC_PLAN_LOAD,		/* a pool, or two legs that load together */
	FC_PLAN_LOAD_DEGRADED,	/* one leg alone, --degraded: "mirror - degraded 1" */
	FC_PLAN_REFORMAT,	/* --force over a pool: confirm, then format */
	FC_PLAN_REFUSE,
};
int fc_create_plan(int n, const int *fd, const char *const *path, const char *name, int degraded,
		   int force, char *why, size_t len);
/* EXIT_FAIL, said ("@verb: ..."), if @fd holds what 'check' calls a damaged pool; else 0 */
int fc_refuse_damaged(int fd, const char *flash, const char *verb);

/* confirm.c: the question before a step that destroys data */
int fc_have_tty(void);			/* stdin and stderr are terminals */
int fc_confirm(const char *question);	/* prints @question, reads "yes": 1, else 0 */
/* "fcachectl VERB ARGS... @extra" (shell-quoted; @extra before a "--") */
void fc_cmdline(char *buf, size_t len, int argc, char **argv, const char *extra);

#endif
