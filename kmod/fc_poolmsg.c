// SPDX-License-Identifier: GPL-2.0
/*
 * fc_poolmsg: the fcache-pool target's messages (fc_pool_message(), parsed by
 * fc_parse_pool_msg() in engine/fc_parse.c): flush, clear_stats, stats, set,
 * forget and resolve of a volume slot, dump; and the per-volume counters
 * every status and message reads (fc_stat_read(), fc_stats_clear()).
 *
 * Locking: messages run in process context; forget and resolve hold
 * fc_registry_lock (no volume comes or goes) and take pool->lock around
 * their changes, dump takes pool->lock; the counters are per-CPU, read and
 * cleared without a lock.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>

#include "fc_core.h"

/*
 * The slot of volume @id for a message that changes an inactive volume
 * (fc_registry_lock held): its index, or -ENOENT, -EROFS (metadata
 * read-only) or -EBUSY (active; @active says why, after "@verb <id>: ").
 */
static int inactive_slot(struct fc_pool *pool, u32 id, const char *verb, const char *active)
{
	unsigned int i;

	for (i = 0; i < FC_MAX_VOLUMES; i++) {
		if (pool->vol[i].id != id)
			continue;
		if (pool->md_mode != FC_MD_RW) {
			DMWARN("%s %u: the pool's metadata is read-only", verb, id);
			return -EROFS;
		}
		if (pool->vol[i].active) {
			DMWARN("%s %u: %s", verb, id, active);
			return -EBUSY;
		}
		return i;
	}
	return -ENOENT;
}

static int forget_volume(struct fc_pool *pool, u32 id)
{
	struct fc_vslot *s;
	int i, r;

	mutex_lock(&fc_registry_lock);
	r = i = inactive_slot(pool, id, "forget", "the volume is active; remove it first");
	if (i < 0)
		goto out;
	s = &pool->vol[i];
	/* Inactive (fc_registry_lock held): its counters cannot grow. */
	if (READ_ONCE(s->dirty)) {
		DMWARN("forget %u: the volume has dirty data; activate and flush it first", id);
		r = -EBUSY;
		goto out;
	}
	fc_invalidate_volume(pool, i, true);
	spin_lock_irq(&pool->lock);
	r = 0;
	if (s->cached) {
		r = -EBUSY;
	} else {
		s->id = 0;
		s->olog = false;
		s->origin_sectors = 0;
		memset(s->label, 0, sizeof(s->label));
		fc_mark_vt_dirty(pool);
	}
	spin_unlock_irq(&pool->lock);
out:
	mutex_unlock(&fc_registry_lock);
	if (!r)
		r = fc_request_commit(pool);
	return r;
}

/*
 * resolve <id> replay|discard: the admin's decision for a volume detached
 * at run time (FC_VOL_DETACHED).  replay: the pool's dirty data is newer
 * than the origin (nothing wrote the origin since): keep it, clear the
 * flag, the next table replays it.  discard: the origin is authoritative:
 * drop every block of the volume, dirty ones too, and clear the flag.
 */
static int resolve_volume(struct fc_pool *pool, u32 id, int discard)
{
	struct fc_vslot *s;
	u64 left = 0;
	int i, r;

	mutex_lock(&fc_registry_lock);
	r = i = inactive_slot(pool, id, "resolve", "the volume is attached; nothing to resolve");
	if (i < 0)
		goto out;
	s = &pool->vol[i];
	/* Inactive (fc_registry_lock held): nothing adds blocks meanwhile. */
	if (discard)
		fc_invalidate_volume(pool, i, true);
	spin_lock_irq(&pool->lock);
	if (discard)
		left = s->cached;
	if (!left) {
		if (s->detached || discard)
			DMINFO("resolve %u: %s", id, discard ?
			       "the origin is authoritative: the volume's cached and dirty data is dropped" :
			       "the pool's dirty data will be replayed by the next table");
		s->detached = false;
		fc_mark_vt_dirty(pool);
	}
	spin_unlock_irq(&pool->lock);
	r = left ? -EBUSY : 0;
out:
	mutex_unlock(&fc_registry_lock);
	if (r == -ENOENT)
		DMWARN("resolve %u: no such volume in the pool", id);
	if (!r)
		r = fc_request_commit(pool);
	return r;
}

/*
 * peer_outdated: user space has recorded the pool's other copy outdated
 * (docs/CLUSTER.md): with fence_hold, the flushes and FUA writes held
 * since the pool lost that copy are acknowledged now, and later ones at
 * once, until the pool loses a copy again.  Not degraded: nothing to do.
 */
static int release_held(struct fc_pool *pool)
{
	bool held;

	spin_lock_irq(&pool->lock);
	held = fc_acks_held(pool);
	if (pool->failed_legs)
		WRITE_ONCE(pool->peer_outdated, true);
	spin_unlock_irq(&pool->lock);
	if (held)
		DMINFO("message peer_outdated: the other copy is recorded outdated; held flushes and FUA writes go on");
	fc_kick_held(pool);
	return 0;
}

struct dump_walk {
	u64 busy, wb, infl, pend;
};

static bool dump_one(struct fc_pool *pool, u32 idx, void *arg)
{
	struct dump_walk *w = arg;
	struct fc_entry *e = &pool->e[idx];

	w->busy += !!(e->flags & FC_E_BUSY);
	w->wb += !!(e->flags & FC_E_WB);
	w->infl += !!atomic_read(&e->inflight);
	w->pend += !!(e->flags & FC_E_PENDING);
	return true;
}

/*
 * Diagnostics for developers: counts of everything that can hold a bio.
 * The entry counts are summed a batch per lock hold (fc_walk_entries(): no
 * whole-array walk with interrupts off), so they are not one snapshot.
 */
static void pool_dump(struct fc_pool *pool)
{
	struct dump_walk w = { };
	unsigned int deferred, waiting, flushes, fuas, i;
	u64 ow = 0;

	fc_walk_entries(pool, dump_one, &w);
	spin_lock_irq(&pool->lock);
	for (i = 0; i < FC_STRIPES; i++)
		ow += pool->ow_inflight[i];
	deferred = bio_list_size(&pool->deferred);
	waiting = bio_list_size(&pool->busy_wait);
	flushes = bio_list_size(&pool->flush_bios);
	fuas = bio_list_size(&pool->fua_bios);
	DMINFO("dump: free %llu used %llu dirty %llu pending %llu busy %llu wb %llu inflight %llu",
	       pool->nr_free, pool->nr_used, pool->nr_dirty, w.pend, w.busy, w.wb, w.infl);
	DMINFO("dump: ow %llu ow_big %u deferred %u busy_wait %u flush %u fua %u",
	       ow, pool->ow_big, deferred, waiting, flushes, fuas);
	DMINFO("dump: md %d ser_window %d no_new_dirty %d suspended %d wb_state %d seq %llu vacating %d",
	       pool->md_mode, pool->ser_window, pool->no_new_dirty, pool->suspended,
	       pool->wb_state, pool->seq, pool->vacating);
	spin_unlock_irq(&pool->lock);
}

const char *const fc_stat_names[FC_ST_NR] = {
	[FC_ST_READS] = "reads",
	[FC_ST_READ_HITS] = "read_hits",
	[FC_ST_WRITES] = "writes",
	[FC_ST_WRITE_HITS] = "write_hits",
	[FC_ST_BYPASSED] = "bypassed",
	[FC_ST_ERRORS] = "errors",
	[FC_ST_PROMOTIONS] = "promotions",
	[FC_ST_WRITEBACKS] = "writebacks",
	[FC_ST_READ_AROUND_SEQ] = "read_around_seq",
	[FC_ST_READ_AROUND_COLD] = "read_around_cold",
	[FC_ST_READ_AROUND_OTHER] = "read_around_other",
	[FC_ST_WRITE_ALLOCS] = "write_allocs",
	[FC_ST_WRITE_AROUND_SEQ] = "write_around_seq",
	[FC_ST_WRITE_AROUND_HIGH] = "write_around_high",
	[FC_ST_WRITE_AROUND_BUSY] = "write_around_busy",
	[FC_ST_WRITE_AROUND_OTHER] = "write_around_other",
	[FC_ST_WRITE_SYNC_KEPT] = "write_sync_kept",
	[FC_ST_WRITE_SYNC_HIGH] = "write_sync_high",
	[FC_ST_FUA] = "fua",
	[FC_ST_FLUSHES] = "flushes",
	[FC_ST_FLUSHES_ORIGIN] = "flushes_origin",
	[FC_ST_READ_AHEAD] = "read_ahead",
	[FC_ST_WRITE_RO_REFUSED] = "write_ro_refused",
};

/*
 * The table being resumed, or a set message, brings the tunables; ordered
 * 1 first needs the dirty blocks' lists (fc_ord_index_enable(): -ENOMEM,
 * nothing changed, if they cannot be had).
 */
int fc_pool_set_opts(struct fc_pool *pool, const struct fc_pool_opts *o)
{
	if (o->val[FC_OPT_ORDERED] && fc_ord_index_enable(pool))
		return -ENOMEM;
	spin_lock_irq(&pool->lock);
	pool->opts = *o;
	/* Ordered write-back: the superblocks say so from the next commit on. */
	if (fc_ordered(pool))
		pool->ord_feature = true;
	spin_unlock_irq(&pool->lock);
	return 0;
}

u64 fc_stat_read(struct fc_pool *pool, int slot, enum fc_stat st)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(pool->stats + slot, cpu)->c[st]);
	return sum;
}

/*
 * The clear_stats message, and a slot reused: zero its counters.  An
 * increment racing with this on another CPU may survive it.
 */
void fc_stats_clear(struct fc_pool *pool, int slot)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(pool->stats + slot, cpu), 0, sizeof(struct fc_vstats));
}

/* The pool's "stats" message: commit and writeback counters, name=value. */
static int pool_stats(struct fc_pool *pool, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;
	u32 behind;

	spin_lock_irq(&pool->lock);
	behind = fc_ord_behind(pool);
	spin_unlock_irq(&pool->lock);
	DMEMIT("commits=%llu commit_pages=%llu commit_us=%llu commit_max_us=%llu",
	       READ_ONCE(pool->st_commits), READ_ONCE(pool->st_commit_pages),
	       div_u64(READ_ONCE(pool->st_commit_ns), NSEC_PER_USEC),
	       div_u64(READ_ONCE(pool->st_commit_max_ns), NSEC_PER_USEC));
	DMEMIT(" group_commits=%llu group_bios=%llu group_max=%llu",
	       READ_ONCE(pool->st_groups), READ_ONCE(pool->st_group_bios),
	       READ_ONCE(pool->st_group_max));
	DMEMIT(" syncs=%llu sync_free=%llu fua_direct=%llu quick_writes=%llu flush_direct=%llu",
	       READ_ONCE(pool->st_syncs), READ_ONCE(pool->st_sync_free),
	       READ_ONCE(pool->st_fua_direct), READ_ONCE(pool->st_quick),
	       READ_ONCE(pool->st_flush_direct));
	DMEMIT(" writeback_batches=%llu writeback_blocks=%llu writeback_ios=%llu writeback_merged=%llu writeback_us=%llu",
	       READ_ONCE(pool->st_wb_batches), READ_ONCE(pool->st_wb_blocks),
	       READ_ONCE(pool->st_wb_ios), READ_ONCE(pool->st_wb_merged),
	       div_u64(READ_ONCE(pool->st_wb_ns), NSEC_PER_USEC));
	DMEMIT(" writeback_raced=%llu writeback_aged=%llu writeback_skipped=%llu",
	       READ_ONCE(pool->st_wb_raced), READ_ONCE(pool->st_wb_aged),
	       READ_ONCE(pool->st_wb_skipped));
	DMEMIT(" writeback_hot=%llu", READ_ONCE(pool->st_wb_hot));
	DMEMIT(" warm_blocks=%u warm_loaded=%llu warm_waits=%llu",
	       bitmap_weight(pool->pwarm, (unsigned int)pool->g.nr_blocks),
	       READ_ONCE(pool->warm_loaded), READ_ONCE(pool->st_warm_waits));
	DMEMIT(" epoch=%u origin_epoch=%u origin_lag=%u shadow_blocks=%llu redirects=%llu ordered_waits=%llu epochs_written=%llu",
	       READ_ONCE(pool->epoch), READ_ONCE(pool->ord_origin_epoch), fc_ord_origin_lag(pool),
	       READ_ONCE(pool->nr_shadows), READ_ONCE(pool->st_redirects),
	       READ_ONCE(pool->st_ord_waits), READ_ONCE(pool->st_epochs_written));
	DMEMIT(" origin_behind=%u lag_waits=%llu", behind, READ_ONCE(pool->st_lag_waits));
	return 1;
}

int fc_pool_message(struct dm_target *ti, unsigned int argc, char **argv,
		    char *result, unsigned int maxlen)
{
	struct fc_pool_c *pc = ti->private;
	struct fc_pool *pool = pc->pool;
	struct fc_pool_opts o;
	struct fc_msg m;
	const char *why;
	unsigned int i;

	if (fc_parse_pool_msg(argc, argv, &m, &why)) {
		DMWARN("pool message refused: %s", why);
		return -EINVAL;
	}
	switch (m.kind) {
	case FC_MSG_FLUSH:
		return fc_flush_volumes(pool, -1, &pc->flush_stop);
	case FC_MSG_CLEAR_STATS:
		for (i = 0; i < FC_MAX_VOLUMES; i++)
			fc_stats_clear(pool, i);
		return 0;
	case FC_MSG_STATS:
		return pool_stats(pool, result, maxlen);
	case FC_MSG_SET:
		o = pc->opts;
		if (fc_pool_opt_set(&o, m.key, m.val, &why) || fc_pool_opts_check(&o, &why)) {
			DMWARN("pool message refused: %s", why);
			return -EINVAL;
		}
		if (o.val[FC_OPT_ORDERED] && fc_mirrored(pool)) {
			DMWARN("pool message refused: ordered 1 needs a one-device pool");
			return -EINVAL;
		}
		if (fc_pool_set_opts(pool, &o)) {
			DMWARN("pool message refused: ordered 1: out of memory for the dirty blocks' lists (8 bytes a cache block)");
			return -ENOMEM;
		}
		pc->opts = o;
		queue_work(pool->wq, &pool->wb_work);
		/* fence_hold 0 lets held flushes go */
		fc_kick_held(pool);
		return 0;
	case FC_MSG_FORGET:
		return forget_volume(pool, m.id);
	case FC_MSG_RESOLVE:
		return resolve_volume(pool, m.id, m.discard);
	case FC_MSG_DUMP:
		pool_dump(pool);
		return 0;
	case FC_MSG_PEER_OUTDATED:
		return release_held(pool);
	default:
		return -EINVAL;
	}
}
