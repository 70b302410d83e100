// SPDX-License-Identifier: GPL-2.0
/*
 * fc_park: the bios the map path cannot finish now.  Deferred bios
 * (pool->deferred) wait for the worker (fc_worker(), fc_volume.c): fills and
 * the decisions taken again after an error; parked bios (pool->busy_wait)
 * wait for a BUSY or in-flight entry, or for origin writes of their stripe,
 * and go back to the worker when fc_kick_locked() merges them in.  FUA
 * writes whose data is written wait for the commit worker
 * (fc_wait_commit_locked()).
 *
 * Locking: pool->lock held by the caller, except fc_defer_bio() and
 * fc_kick_waiters(), which take it.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "fc_core.h"

/* Defer @bio to the worker (lock held by the caller). */
void fc_defer_locked(struct fc_pool *pool, struct bio *bio)
{
	bio_list_add(&pool->deferred, bio);
	queue_work(pool->wq, &pool->worker);
}

/*
 * A FUA write whose data is written (pool->lock held): it completes again
 * after the next commit (fc_commit_work(), fc_bio_endio_again()), which
 * sets an error only if the commit failed.  The block layer's status of
 * this first completion must not come back with it: it may be an error
 * fc_end_io() settled (a mirrored copy on a leg that failed, the other
 * copy written), and the second completion would return it.
 */
void fc_wait_commit_locked(struct fc_pool *pool, struct bio *bio)
{
	bio->bi_status = BLK_STS_OK;
	bio_list_add(&pool->fua_bios, bio);
	fc_queue_commit(pool);
}

bool fc_origin_writes_in_flight(struct fc_pool *pool, u32 stripe)
{
	return pool->ow_inflight[stripe] || pool->ow_big;
}

/*
 * Park @bio on busy_wait until entry @e (if any) is idle; @stripe: the
 * origin-write stripe the bio also waits for (FC_NONE: none).  Read hits
 * complete without pool->lock (fc_end_io): such a reader decrements the
 * in-flight count and then looks at busy_wait, so look at the count again
 * after queueing.  The full barriers here and in atomic_dec_and_test() mean
 * that at least one side sees the other; kick only when nothing else keeps
 * the bio waiting, or the worker would spin.
 */
void fc_park_locked(struct fc_pool *pool, struct bio *bio, struct fc_entry *e, u32 stripe)
{
	bio_list_add(&pool->busy_wait, bio);
	smp_mb();	/* pairs with atomic_dec_and_test() in fc_end_io() */
	if (e && fc_entry_idle(e) &&
	    (stripe == FC_NONE || !fc_origin_writes_in_flight(pool, stripe)))
		fc_kick_locked(pool);
}

void fc_defer_bio(struct fc_pool *pool, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	fc_defer_locked(pool, bio);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * Re-map every waiting bio (an entry went idle, a fill or a copy ended).
 * Always queues the worker when anything is deferred: a merge without a
 * queue_work() would strand bios until the next deferral.
 */
void fc_kick_locked(struct fc_pool *pool)
{
	bio_list_merge(&pool->deferred, &pool->busy_wait);
	bio_list_init(&pool->busy_wait);
	if (!bio_list_empty(&pool->deferred))
		queue_work(pool->wq, &pool->worker);
}

void fc_kick_waiters(struct fc_pool *pool)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
}
