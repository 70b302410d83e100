// SPDX-License-Identifier: GPL-2.0
/*
 * fc_wt: the writes that reach the origin: write-around (the touched clean
 * sub-blocks dropped, the origin written) and writethrough (the origin
 * first, then the same data to the flash from the worker; the sub-blocks
 * valid only if both succeed), with the failure of a writethrough in place.
 *
 * Locking: pool->lock held by the callers of fc_write_around(),
 * fc_start_wt() and fc_wt_in_place_failed(); the flash copy's completion
 * (wt_flash_done()) takes it.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "fc_core.h"

/*
 * Write-around: drop the touched clean sub-blocks, write the origin.  The
 * entry has nothing in flight (write-around vs a flash write in flight:
 * write_around() in fc_decide.c, which also decides the FUA rule of reuse
 * before commit).
 */
void fc_write_around(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
		     u64 block, const struct fc_decision *d)
{
	struct fc_pool *pool = v->pool;
	u32 stripe;

	if (d->fua_commit)
		fb->flags |= FC_BF_FUA;
	if (e) {
		fc_entry_bump(e);
		fc_entry_set(pool, e, e->valid & ~d->mask, e->dirty);
		if (!e->valid && !(e->flags & FC_E_WB))
			fc_entry_release(pool, e);
	}
	stripe = stripe_of(v, block);
	pool->ow_inflight[stripe]++;
	fb->stripe = stripe;
	fb->kind = FC_BK_ORIGIN_WRITE;
}

/*
 * Writethrough: the origin first, then the same data to the flash from
 * the worker; the sub-blocks become valid only if both succeed and no
 * other write came in between (generation).  Meanwhile they are
 * invalid, so reads go to the origin, and the pinned entry (in-flight)
 * keeps fills and eviction away.  One at a time: see write_through() in
 * fc_decide.c.
 */
void fc_start_wt(struct fc_pool *pool, struct fc_bio *fb, struct fc_entry *e,
		 const struct fc_decision *d)
{
	/* Reuse before commit: see write_around() in fc_decide.c. */
	if (d->fua_commit)
		fb->flags |= FC_BF_FUA;
	fc_entry_bump(e);
	/* Nothing in flight: no generation snapshot is live. */
	e->gen_wrapped = 0;
	fb->mask = d->fb_mask;
	/*
	 * In place (read-only metadata, ro_write() in fc_decide.c): the
	 * sub-blocks keep their state, and the entry's block gets the data
	 * too (fc_wt_submit_flash()); reads meanwhile are concurrent with the
	 * write.  Only a failure drops anything (fc_wt_in_place_failed()).
	 */
	if (d->in_place)
		fb->flags |= FC_BF_IN_PLACE;
	else
		fc_entry_set(pool, e, e->valid & ~d->mask, e->dirty);
	atomic_inc(&e->inflight);
	fb->eidx = fc_eidx(pool, e);
	fb->gen = e->gen;
	fb->kind = FC_BK_WT;
}

/*
 * A writethrough in place failed on the origin or the flash (pool->lock
 * held): the origin and the entry's block may now differ under the
 * touched sub-blocks.  The clean ones are dropped (reads go to the origin;
 * on a PDIRTY entry that stops read-only flushes: fc_entry_set()), the
 * dirty ones stay (the flash holds the only copy), and the write fails.
 */
void fc_wt_in_place_failed(struct fc_pool *pool, struct fc_bio *fb, struct fc_entry *e)
{
	fc_entry_bump(e);
	fc_entry_set(pool, e, e->valid & ~(fb->mask & ~e->dirty), e->dirty);
	fc_stat_inc(pool, fb->v->slot, FC_ST_ERRORS);
}

static void wt_flash_done(struct bio *clone)
{
	struct bio *bio = clone->bi_private;
	struct fc_bio *fb = fc_bio(bio);
	struct fc_pool *pool = fb->v->pool;
	struct fc_entry *e = &pool->e[fb->eidx];
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	atomic_dec(&e->inflight);
	if (fb->flags & FC_BF_IN_PLACE) {
		if (clone->bi_status) {
			atomic64_inc(&pool->flash_write_errors);
			DMERR_LIMIT("volume %u block %llu: read-only metadata: the flash write of a write failed: I/O error",
				    fb->v->id, e->oblock);
			fc_wt_in_place_failed(pool, fb, e);
			bio->bi_status = BLK_STS_IOERR;
		}
	} else if (clone->bi_status) {
		atomic64_inc(&pool->flash_write_errors);
		DMERR_LIMIT("writethrough: flash write failed; the data is on the origin");
		/* Mirrored: the leg goes out of service (its clean blocks with it). */
		fc_leg_error(pool, fc_block_leg(&pool->g, fb->eidx));
	} else if (e->gen == fb->gen && !e->gen_wrapped) {
		fc_entry_set(pool, e, e->valid | fb->mask, e->dirty);
	}
	fc_kick_locked(pool);
	bio_put(clone);
	if (fb->flags & FC_BF_FUA) {
		/* The commit worker completes it (write_around() in fc_decide.c). */
		fc_wait_commit_locked(pool, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	fb->flags |= FC_BF_COMMITTED;
	fc_bio_endio_again(bio);
}

/* Writethrough, second half: the origin write succeeded, copy to the flash. */
void fc_wt_submit_flash(struct fc_volume *v, struct bio *bio)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	sector_t sector = dm_target_offset(v->ti, fb->iter.bi_sector);
	struct bio *clone;

	clone = bio_alloc_clone(fc_block_bdev(pool, fb->eidx), bio, GFP_NOIO, &pool->bs);
	clone->bi_iter = fb->iter;
	clone->bi_iter.bi_sector = fc_block_sector(pool, fb->eidx) +
		(sector & (pool->g.block_sectors - 1));
	/* In place: this block may be what the next load replays (ro_write()). */
	clone->bi_opf = REQ_OP_WRITE |
		(fb->flags & FC_BF_IN_PLACE ? fb->opf & REQ_FUA : 0);
	clone->bi_end_io = wt_flash_done;
	clone->bi_private = bio;
	submit_bio_noacct(clone);
}
