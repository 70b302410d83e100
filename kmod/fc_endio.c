// SPDX-License-Identifier: GPL-2.0
/*
 * fc_endio: the data path's completion: the target's end_io method
 * (fc_end_io()) settles the entry of every remapped bio (in-flight counts,
 * dirty and valid bits, a mirrored write's two copies), fails or retries it
 * after an error (a leg error, a copy on a failed leg: retry_bio() hands it
 * back to the worker), holds a FUA write for the commit worker, and kicks
 * the parked bios an idle entry releases; also whether a REQ_PREFLUSH needs
 * any I/O (fc_sync_free()).
 *
 * Locking: pool->lock (irq-safe) around each entry's settling; a read hit
 * and a quick write (FC_BF_QUICK) end without it (the write's fw_done, its
 * in-flight count, then busy_wait: fc_park_locked()).
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "fc_core.h"

/*
 * May a REQ_PREFLUSH of @v complete at once, with no I/O (pool->lock
 * held)?  Only if the last commit that succeeded covers every change of
 * metadata (md_gen: a commit running now does not count until it ends),
 * the last flush of the flash every volume flash write completed without
 * REQ_FUA (fw_done), and the last origin flush of this table every write
 * its origin completed (ow_done, as fc_commit_work() decides it).  Each
 * count moves before the write it counts is acknowledged, under
 * pool->lock (the origin's: before end_io takes it), so a write that
 * completed before this flush was sent is seen here.
 */
bool fc_sync_free(struct fc_pool *pool, struct fc_volume *v)
{
	return fc_sync_flash_only(pool, v) && atomic64_read(&pool->fw_done) == pool->fw_synced;
}

/*
 * fc_sync_free() but for the flash's cache: every metadata change
 * committed, no origin write of this table since its last flush, rw mode
 * (pool->lock held).  A REQ_PREFLUSH then needs at most a flush of the
 * flash (flush_direct() in fc_volume.c).
 */
bool fc_sync_flash_only(struct fc_pool *pool, struct fc_volume *v)
{
	return READ_ONCE(pool->md_mode) == FC_MD_RW && pool->md_gen == pool->md_committed &&
		atomic64_read(&v->ow_done) == atomic64_read(&v->ow_synced);
}

#ifdef FC_FAULT_INJECT
/*
 * A deliberate bug for the tests (fc_sync.sh, the crash walk): a quick
 * write is not counted for the next REQ_PREFLUSH, which may then complete
 * without flushing the flash that holds it.
 */
static bool mutant_quick_unsynced;
module_param(mutant_quick_unsynced, bool, 0644);
MODULE_PARM_DESC(mutant_quick_unsynced, "test build: a quick write is not counted for the next flush (a bug on purpose)");

static bool quick_unsynced(void)
{
	return READ_ONCE(mutant_quick_unsynced);
}
#else
static bool quick_unsynced(void)
{
	return false;
}
#endif

/*
 * Restore a bio as mapped and hand it to the worker (retry after an
 * error); @flags: FC_BF_NOFILL keeps it away from the cache.
 */
static int retry_bio(struct fc_pool *pool, struct bio *bio, u16 flags)
{
	struct fc_bio *fb = fc_bio(bio);

	bio->bi_iter = fb->iter;
	bio->bi_opf = fb->opf;
	bio->bi_status = BLK_STS_OK;
	fb->kind = FC_BK_NONE;
	/* a FUA write's ordered_lag count goes back: its retry is gated again */
	if (fb->flags & FC_BF_ORD_POINT)
		pool->ord_points--;
	fb->flags = flags;
	fc_defer_locked(pool, bio);
	return DM_ENDIO_INCOMPLETE;
}

/*
 * A mirrored write (pool->lock held): both copies have ended.  A failed
 * copy whose leg fc_leg_error() fails leaves the write resting on the
 * other copy, which succeeded: the write succeeds (the entry's block on
 * a failed leg moves to its twin before any other I/O uses it:
 * fc_rescue_entry()).  Else either failure fails the write.
 */
static void settle_twin_write(struct fc_pool *pool, struct fc_bio *fb, blk_status_t *error)
{
	unsigned int leg = fc_block_leg(&pool->g, fb->eidx);
	bool twin_err = fb->flags & FC_BF_TWIN_ERR;

	fb->flags &= ~(FC_BF_TWIN | FC_BF_TWIN_ERR);
	if (twin_err && !fc_leg_error(pool, !leg)) {
		if (!*error)
			*error = BLK_STS_IOERR;
		return;
	}
	if (twin_err)
		atomic64_inc(&pool->flash_write_errors);
	if (*error && !twin_err && fc_leg_error(pool, leg)) {
		atomic64_inc(&pool->flash_write_errors);
		*error = BLK_STS_OK;
	}
}

/* A flash read that failed (pool->lock held): retried, or it fails. */
static int end_flash_read(struct fc_pool *pool, struct fc_volume *v, struct bio *bio, bool *kick)
{
	struct fc_bio *fb = fc_bio(bio);
	struct fc_entry *e = &pool->e[fb->eidx];
	u32 blk = fc_read_block(fb);

	*kick = atomic_dec_and_test(&e->inflight);
	atomic64_inc(&pool->flash_read_errors);
	if (fc_leg_error(pool, fc_block_leg(&pool->g, blk)) && blk == fb->eidx &&
	    (!(e->dirty & fb->mask) || fc_twin_of(pool, fb->eidx) != FC_NONE)) {
		/*
		 * Mirrored, its leg failed: again, from the twin or
		 * the origin (the entry moves or goes first).  Dirty
		 * data without a twin was lost with the leg: below.
		 */
		return retry_bio(pool, bio, 0);
	}
	/*
	 * Mirrored, the leg kept in service (it holds the only copy of other
	 * dirty blocks: rule 3 of fc_mirror.c), or an error the leg's
	 * failure did not explain: the twin holds a good copy of every
	 * sub-block read (all dirty), so read them there, once.
	 */
	if (!(fb->flags & FC_BF_TWIN_READ) && (e->dirty & fb->mask) == fb->mask &&
	    fc_twin_good(pool, fb->eidx))
		return retry_bio(pool, bio, FC_BF_TWIN_READ);
	if (e->dirty & fb->mask) {
		/* Flash read error on dirty data: the only copy (or both failed). */
		DMERR_LIMIT("flash read error on dirty data (volume %u block %llu)",
			    v->id, e->oblock);
		fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		return DM_ENDIO_DONE;
	}
	/* Clean: invalidate and retry from the origin. */
	fc_entry_bump(e);
	fc_entry_set(pool, e, e->valid & ~fb->mask, e->dirty);
	return retry_bio(pool, bio, FC_BF_NOFILL);
}

/* A flash write ended (pool->lock held): its sub-blocks valid and dirty, or not. */
static int end_flash_write(struct fc_pool *pool, struct fc_volume *v, struct bio *bio,
			   blk_status_t *error, bool *kick)
{
	struct fc_bio *fb = fc_bio(bio);
	struct fc_entry *e = &pool->e[fb->eidx];
	bool direct;

	*kick = atomic_dec_and_test(&e->inflight);
	/* Writeback vs a new write: bump the generation at completion. */
	fc_entry_bump(e);
	/*
	 * Both copies written, neither failed: a FUA_DIRECT write is
	 * durable.  Held by fence_hold (one copy), it waits for the commit
	 * worker as a FUA write does.
	 */
	direct = (fb->flags & FC_BF_FUA_DIRECT) && !*error && !(fb->flags & FC_BF_TWIN_ERR) &&
		 !fc_acks_held(pool);
	if (fb->flags & FC_BF_TWIN)
		settle_twin_write(pool, fb, error);
	if (!*error) {
		/* Ordered write-back: dirty data carries the epoch it began in. */
		if (pool->ep && !e->dirty)
			pool->ep[fb->eidx] = pool->epoch;
		fc_entry_set(pool, e, e->valid | fb->mask, e->dirty | fb->mask);
		if (direct) {
			pool->st_fua_direct++;
			return DM_ENDIO_DONE;
		}
		/* The next REQ_PREFLUSH flushes the flash (fc_sync_free()). */
		atomic64_inc(&pool->fw_done);
		/*
		 * A FUA write waits for a commit; so does a FUA_DIRECT
		 * one whose other copy failed: the commit records the
		 * failed leg before the write is acknowledged.
		 */
		if (fb->flags & (FC_BF_FUA | FC_BF_FUA_DIRECT)) {
			fc_wait_commit_locked(pool, bio);
			return DM_ENDIO_INCOMPLETE;
		}
		return DM_ENDIO_DONE;
	}
	atomic64_inc(&pool->flash_write_errors);
	pool->no_new_dirty = true;
	DMERR_LIMIT("flash write error: the pool stops caching new dirty data");
	if (e->dirty & fb->mask) {
		/* Older dirty data of these sub-blocks may be damaged. */
		fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		return DM_ENDIO_DONE;
	}
	/* No dirty data at risk: drop the sub-blocks, retry on the origin. */
	fc_entry_set(pool, e, e->valid & ~fb->mask, e->dirty);
	return retry_bio(pool, bio, FC_BF_NOFILL);
}

/* A writethrough's origin write ended (pool->lock held): the flash copy next. */
static int end_wt(struct fc_pool *pool, struct fc_volume *v, struct bio *bio,
		  blk_status_t *error, bool *kick)
{
	struct fc_bio *fb = fc_bio(bio);
	struct fc_entry *e;

	if (*error) {
		e = &pool->e[fb->eidx];
		*kick = atomic_dec_and_test(&e->inflight);
		if (fb->flags & FC_BF_IN_PLACE)
			fc_wt_in_place_failed(pool, fb, e);
		else
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		return DM_ENDIO_DONE;
	}
	fb->flags |= FC_BF_WT_FLASH;
	fc_defer_locked(pool, bio);
	return DM_ENDIO_INCOMPLETE;
}

int fc_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct fc_volume *v = ti->private;
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	int r = DM_ENDIO_DONE;
	struct fc_entry *e;
	unsigned long flags;
	bool kick = false;

	if (fb->flags & FC_BF_COMMITTED)
		return DM_ENDIO_DONE;	/* second pass of a FUA write */

	/* A write done by the origin: the next REQ_PREFLUSH must go there. */
	if (op_is_write(bio_op(bio)) && bio->bi_bdev == v->origin)
		atomic64_inc(&v->ow_done);

	if (!*error && (fb->kind == FC_BK_FLASH_READ || (fb->flags & FC_BF_QUICK))) {
		/*
		 * A read hit, or a write to sub-blocks dirty already (map's
		 * quick_write(): nothing of the entry changes): the hot path,
		 * no pool->lock.  The write is counted for the next
		 * REQ_PREFLUSH before it is acknowledged (fc_sync_free()).
		 * Who waits for the entry to go idle parked first
		 * (fc_park_locked()).
		 */
		if ((fb->flags & FC_BF_QUICK) && !quick_unsynced())
			atomic64_inc(&pool->fw_done);
		e = &pool->e[fb->eidx];
		if (atomic_dec_and_test(&e->inflight) &&
		    READ_ONCE(pool->busy_wait.head))
			fc_kick_waiters(pool);
		return DM_ENDIO_DONE;
	}

	spin_lock_irqsave(&pool->lock, flags);
	switch (fb->kind) {
	case FC_BK_FLASH_READ:
		r = end_flash_read(pool, v, bio, &kick);
		break;
	case FC_BK_FLASH_WRITE:
		r = end_flash_write(pool, v, bio, error, &kick);
		break;
	case FC_BK_ORIGIN_WRITE:
		if (fb->stripe == FC_NONE)
			pool->ow_big--;
		else
			pool->ow_inflight[fb->stripe]--;
		kick = true;
		if (*error) {
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		} else if (fb->flags & FC_BF_FUA) {
			fc_wait_commit_locked(pool, bio);
			r = DM_ENDIO_INCOMPLETE;
		}
		break;
	case FC_BK_ORIGIN:
		if (*error)
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		break;
	case FC_BK_WT:
		r = end_wt(pool, v, bio, error, &kick);
		break;
	case FC_BK_FLUSH:
		/* A flush sent on to the flash (flush_direct()) covers fb->fw. */
		if (!*error) {
			fc_flash_synced_locked(pool, fb->fw);
			break;
		}
		/*
		 * Failed: the commit worker flushes again and settles a
		 * failure as it does its own (it waits as a FUA write does:
		 * the origin needed no flush when this one was sent).
		 */
		atomic64_inc(&pool->flash_write_errors);
		fb->kind = FC_BK_NONE;
		fc_wait_commit_locked(pool, bio);
		r = DM_ENDIO_INCOMPLETE;
		break;
	default:
		break;
	}
	/* A REQ_FUA write ended (its data of the epoch before): a flush point. */
	if ((fb->opf & REQ_FUA) && op_is_write(bio_op(bio))) {
		pool->epoch++;
		/* Its ordered_lag count (a retry gave it back: retry_bio()). */
		if (fb->flags & FC_BF_ORD_POINT) {
			fb->flags &= ~FC_BF_ORD_POINT;
			pool->ord_points--;
		}
	}
	if (kick)
		fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	return r;
}
