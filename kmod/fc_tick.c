// SPDX-License-Identifier: GPL-2.0
/*
 * fc_tick: the pool's two workers besides the map path's and writeback's.
 * The commit worker (fc_commit_work()) implements group commit: every
 * queued empty flush and every completed FUA write waits for one commit,
 * which is then shared by all of them; a flush also flushes the origin,
 * at the same time as the commit, if a write reached it since its last
 * flush.  The tick (fc_tick(), every
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

/* The commit worker's flush of @v's origin ended (no lock). */
static void oflush_endio(struct bio *bio)
{
	struct fc_volume *v = bio->bi_private;
	struct fc_pool *pool = v->pool;
	s64 old = atomic64_read(&v->ow_synced);

	v->oflush_status = bio->bi_status;
	/* The origin now holds every write counted before it was sent. */
	while (!bio->bi_status && old < v->oflush_mark &&
	       !atomic64_try_cmpxchg(&v->ow_synced, &old, v->oflush_mark))
		;
	if (atomic_dec_and_test(&pool->oflush_left))
		complete(&pool->oflush_done);
}

/*
 * The origin flushes of a commit worker's batch, submitted from pool->wq
 * (unbound): a stacked origin may finish a flush in work queued on the
 * submitting CPU (md does, on its bound md_wq, twice), and on the commit
 * worker's CPU that work would wait for the commit to end (the worker
 * has the higher priority, and on a RAM-fast flash it never sleeps):
 * the two would run one after the other again.
 */
void fc_oflush_work(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(ws, struct fc_pool, oflush_work);
	struct bio_list bios;
	struct bio *bio;

	spin_lock_irq(&pool->lock);
	bios = pool->oflush_bios;
	bio_list_init(&pool->oflush_bios);
	spin_unlock_irq(&pool->lock);
	while ((bio = bio_list_pop(&bios)))
		submit_bio(bio);
}

/*
 * Send the origin flushes the REQ_PREFLUSH bios @flushes need, one per
 * volume, before the commit, so that the two run at once: a flush waits
 * for the slower of the commit and the origin's flush, not their sum
 * (fc_oflush_work() submits them).
 * The order between the two does not matter: each makes durable what
 * completed before the REQ_PREFLUSH was sent (every write counted in
 * ow_done by then), and neither is acknowledged before both ended.
 * Writeback, which does need its copies on the origin before the commit
 * that records them clean, flushes the origin itself (flush_origins()).
 * A volume needs none if no write of its table reached the origin since
 * an origin flush that completed: with every write absorbed by the flash,
 * a flush costs one commit, not a trip to the spindles too.
 */
static void send_origin_flushes(struct fc_pool *pool, struct bio_list *flushes)
{
	struct bio_list bios = BIO_EMPTY_LIST;
	u64 batch = ++pool->commit_batch;
	struct bio *bio;

	atomic_set(&pool->oflush_left, 1);
	reinit_completion(&pool->oflush_done);
	bio_list_for_each(bio, flushes) {
		struct fc_volume *v = fc_bio(bio)->v;
		s64 mark = atomic64_read(&v->ow_done);

		if (v->oflush_batch == batch)
			continue;
		if (mark == atomic64_read(&v->ow_synced))
			continue;
		v->oflush_batch = batch;
		v->oflush_mark = mark;
		v->oflush_status = BLK_STS_OK;
		bio_init(&v->oflush, v->origin, NULL, 0, REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC);
		v->oflush.bi_end_io = oflush_endio;
		v->oflush.bi_private = v;
		atomic_inc(&pool->oflush_left);
		bio_list_add(&bios, &v->oflush);
	}
	if (!bio_list_empty(&bios)) {
		spin_lock_irq(&pool->lock);
		bio_list_merge(&pool->oflush_bios, &bios);
		spin_unlock_irq(&pool->lock);
		queue_work(pool->wq, &pool->oflush_work);
	}
	/* With none sent, oflush_done is complete at once. */
	if (atomic_dec_and_test(&pool->oflush_left))
		complete(&pool->oflush_done);
}

/*
 * fence_hold may have stopped holding (peer_outdated, fence_hold 0, a table
 * without it): the commit worker for the flushes and FUA writes it held.
 */
void fc_kick_held(struct fc_pool *pool)
{
	bool any;

	spin_lock_irq(&pool->lock);
	any = !bio_list_empty(&pool->flush_bios) || !bio_list_empty(&pool->fua_bios);
	spin_unlock_irq(&pool->lock);
	if (any)
		fc_queue_commit(pool);
}

void fc_commit_work(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(ws, struct fc_pool, commit_work);
	struct bio_list flushes, fuas, warms;
	struct bio *bio;
	bool committed = false;
	unsigned int n;
	int r;

	spin_lock_irq(&pool->lock);
	if (fc_acks_held(pool)) {
		/*
		 * fence_hold: the flushes and FUA writes stay queued; the
		 * peer_outdated message (or fence_hold 0) runs this again.
		 */
		spin_unlock_irq(&pool->lock);
		return;
	}
	flushes = pool->flush_bios;
	fuas = pool->fua_bios;
	warms = pool->warm_wait;
	bio_list_init(&pool->flush_bios);
	bio_list_init(&pool->fua_bios);
	bio_list_init(&pool->warm_wait);
	spin_unlock_irq(&pool->lock);

	send_origin_flushes(pool, &flushes);
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
	/*
	 * fence_hold: a copy was lost during this commit (its writes to
	 * that leg failed; the leg in service recorded it): what it made
	 * durable is on one copy, and nothing is acknowledged before
	 * peer_outdated.  The bios go back to wait; the run that follows
	 * the message commits again if need be and ends them.
	 */
	if (fc_acks_held(pool)) {
		wait_for_completion_io(&pool->oflush_done);
		spin_lock_irq(&pool->lock);
		bio_list_merge_head(&pool->fua_bios, &fuas);
		bio_list_merge_head(&pool->flush_bios, &flushes);
		bio_list_merge_head(&pool->warm_wait, &warms);
		spin_unlock_irq(&pool->lock);
		return;
	}
	/*
	 * Writes that waited for a block to be recorded not warm (queued
	 * before this commit serialised anything, so it recorded them):
	 * mapped again; after a failure they fail there (read-only).
	 */
	if (!bio_list_empty(&warms)) {
		spin_lock_irq(&pool->lock);
		bio_list_merge(&pool->deferred, &warms);
		queue_work(pool->wq, &pool->worker);
		spin_unlock_irq(&pool->lock);
	}
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
	/* REQ_FUA writes: their data and mapping are now durable. */
	while ((bio = bio_list_pop(&fuas))) {
		fc_bio(bio)->flags |= FC_BF_COMMITTED;
		if (flush_result(pool, fc_bio(bio)->v->slot, r))
			bio->bi_status = BLK_STS_IOERR;
		fc_bio_endio_again(bio);
	}
	/* REQ_PREFLUSH: the commit made the flash durable; now the origin's. */
	wait_for_completion_io(&pool->oflush_done);
	while ((bio = bio_list_pop(&flushes))) {
		struct fc_volume *v = fc_bio(bio)->v;

		if (flush_result(pool, v->slot, r)) {
			bio->bi_status = BLK_STS_IOERR;
		} else if (v->oflush_batch == pool->commit_batch) {
			fc_stat_inc(pool, v->slot, FC_ST_FLUSHES_ORIGIN);
			bio->bi_status = v->oflush_status;
		}
		bio_endio(bio);
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
	/* Ordered write-back: what waits for writeback tries again (fc_ordered.c). */
	fc_ord_kick_locked(pool);
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
