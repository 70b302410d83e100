// SPDX-License-Identifier: GPL-2.0
/*
 * fc_tick: the pool's two workers besides the map path's and writeback's.
 * The commit worker (fc_commit_work()) implements group commit: every
 * queued empty flush and every completed FUA write waits for one commit,
 * which is then shared by all of them; a flush then goes on to the origin
 * if a write reached it since its last flush.  The tick (fc_tick(), every
 * FC_TICK) asks for a commit when the commit interval is up, gives twinless
 * dirty data a twin, vacates a failed leg, kicks parked bios and wakes
 * writeback.
 *
 * Locking: the commit worker runs on pool->commit_wq (high priority), the
 * tick on pool->wq, one at a time each; they take pool->lock
 * only to take the queued bios and to read what changed, and commit under
 * pool->commit_lock (fc_commit_sync()).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>

#include "fc_core.h"

/*
 * A REQ_PREFLUSH or a REQ_FUA write of volume slot @slot after a commit
 * (or a read-only flush) that returned @r.  A failed commit leaves
 * acknowledged writes whose mapping no commit recorded: the dirty data on
 * the flash, until the writeback worker has written the volume's dirty
 * blocks back to its origin (fc_wb_work(); the in-place writes since went
 * to the origin too).  Until then its flushes fail.
 */
static int flush_result(struct fc_pool *pool, int slot, int r)
{
	u64 dirty = READ_ONCE(pool->vol[slot].dirty);

	if (!r && READ_ONCE(pool->md_mode) != FC_MD_RW && READ_ONCE(pool->md_lost) && dirty) {
		DMERR_LIMIT("flush of volume %u failed: read-only metadata, and %llu of its dirty blocks are not written back to the origin yet",
			    pool->vol[slot].id, dirty);
		return -EIO;
	}
	return r;
}

void fc_commit_work(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(ws, struct fc_pool, commit_work);
	struct bio_list flushes, fuas;
	struct bio *bio;
	bool committed = false;
	unsigned int n;
	int r;

	spin_lock_irq(&pool->lock);
	flushes = pool->flush_bios;
	fuas = pool->fua_bios;
	bio_list_init(&pool->flush_bios);
	bio_list_init(&pool->fua_bios);
	spin_unlock_irq(&pool->lock);

	/*
	 * A commit if anything changed since the last one; else only a
	 * flush of the flash, if a volume wrote to it since its last flush
	 * (fc_commit_sync()).  Read-only metadata: nothing to record, flush
	 * the flash if that is enough.
	 */
	r = READ_ONCE(pool->md_mode) == FC_MD_RW ? fc_commit_sync(pool, &committed) :
		fc_ro_flush(pool);
	if (committed)
		pool->last_commit = jiffies;
	n = bio_list_size(&flushes) + bio_list_size(&fuas);
	if (n && !committed) {
		WRITE_ONCE(pool->st_syncs, pool->st_syncs + 1);
	} else if (n) {
		/* Written by this worker only (one commit_work runs at a time). */
		WRITE_ONCE(pool->st_groups, pool->st_groups + 1);
		WRITE_ONCE(pool->st_group_bios, pool->st_group_bios + n);
		if (n > pool->st_group_max)
			WRITE_ONCE(pool->st_group_max, n);
	}

	/*
	 * REQ_PREFLUSH: the commit made the flash durable; now the origin,
	 * unless no write of this volume has reached the origin since an
	 * origin flush that completed: with every write absorbed by the
	 * flash a flush costs one commit, not a trip to the spindles too.
	 * Every write counted in ow_done completed before the flush is sent.
	 */
	while ((bio = bio_list_pop(&flushes))) {
		struct fc_bio *fb = fc_bio(bio);
		struct fc_volume *v = fb->v;

		if (flush_result(pool, v->slot, r)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			continue;
		}
		fb->ow_mark = atomic64_read(&v->ow_done);
		if (fb->ow_mark == atomic64_read(&v->ow_synced)) {
			bio_endio(bio);
			continue;
		}
		fb->kind = FC_BK_FLUSH;
		fc_stat_inc(pool, v->slot, FC_ST_FLUSHES_ORIGIN);
		bio_set_dev(bio, v->origin);
		submit_bio_noacct(bio);
	}
	/* REQ_FUA writes: their data and mapping are now durable. */
	while ((bio = bio_list_pop(&fuas))) {
		fc_bio(bio)->flags |= FC_BF_COMMITTED;
		if (flush_result(pool, fc_bio(bio)->v->slot, r))
			bio->bi_status = BLK_STS_IOERR;
		fc_bio_endio_again(bio);
	}
}

void fc_tick(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(to_delayed_work(ws), struct fc_pool, tick);
	u32 interval = pool->opts.val[FC_OPT_COMMIT_INTERVAL];
	bool md_dirty, waiters;

	spin_lock_irq(&pool->lock);
	md_dirty = find_first_bit(pool->page_dirty, pool->g.md_pages) < pool->g.md_pages;
	waiters = !bio_list_empty(&pool->busy_wait) || !bio_list_empty(&pool->deferred);
	spin_unlock_irq(&pool->lock);

	if (interval && md_dirty && pool->md_mode == FC_MD_RW &&
	    time_after_eq(jiffies, pool->last_commit + msecs_to_jiffies(interval)))
		fc_queue_commit(pool);
	/* Dirty data with one copy while both legs serve: a twin for it. */
	if (fc_nr_twinless(pool) && fc_redundant(pool) && !pool->suspended &&
	    pool->md_mode == FC_MD_RW && time_after(jiffies, pool->last_join + HZ)) {
		pool->last_join = jiffies;
		fc_join_twins(pool);
	}
	if (READ_ONCE(pool->vacating))
		fc_vacate_failed(pool);		/* kicks the waiters itself */
	else if (waiters)
		fc_kick_waiters(pool);
	if (!pool->suspended)
		queue_work(pool->wq, &pool->wb_work);
	queue_delayed_work(pool->wq, &pool->tick, FC_TICK);
}
