// SPDX-License-Identifier: GPL-2.0
/*
 * fc_volume: the data path of the fcache target, one cached origin volume
 * of a pool; the table's lifecycle and control (constructor, destructor,
 * resume and suspend, status, messages) are in fc_vtarget.c.
 *
 * map() classifies every bio under pool->lock and either remaps it to the
 * flash or to the origin, queues it to the commit worker (empty flush), or
 * defers it to the pool worker (fills need process context; bios touching
 * a BUSY entry wait on pool->busy_wait).  map() and end_io() never sleep.
 * The worker (fc_worker) hands every deferred bio to its own work item on
 * pool->fill_wq (up to 16 run at once), which runs the same classification
 * with fills allowed: a fill reads the origin into a buffer from
 * pool->fill_pool and writes it to the flash synchronously, then the bio is
 * classified again (now a hit).  The entry is BUSY meanwhile, so two fills
 * of one block never run together.
 *
 * A bio that spans cache blocks is cut at the block boundary with
 * dm_accept_partial_bio() (only possible in map) when a spanned block is
 * cached or the write will be cached; otherwise it goes to the origin whole.
 *
 * Locking: pool->lock (irq-safe) for every entry and list; the worker holds
 * no lock across the fill I/O, the entry is BUSY instead.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/delay.h>

#include "fc_core.h"

#ifdef FC_FAULT_INJECT
/*
 * Test build only (make fi-module): the next writethrough flash copy (the
 * second half, after the origin write) waits wt_hold_ms before it is
 * issued, one-shot, so a test can put another write to the same block in
 * between (tests/guest/fc_wt_race.sh).
 */
static unsigned int wt_hold_ms;
module_param(wt_hold_ms, uint, 0644);
MODULE_PARM_DESC(wt_hold_ms, "test build: hold the next writethrough flash copy this long (one-shot)");

static void wt_hold(void)
{
	unsigned int ms = xchg(&wt_hold_ms, 0);

	if (ms)
		msleep(ms);
}
#else
static inline void wt_hold(void)
{
}
#endif

enum { FC_DONE_REMAP, FC_DONE_SUBMITTED, FC_DONE_KILL };

static inline u32 stripe_of(struct fc_volume *v, u64 block)
{
	return (u32)((block ^ ((u64)v->slot << 40)) % FC_STRIPES);
}

static void remap_flash(struct fc_pool *pool, struct bio *bio, u32 eidx, sector_t off)
{
	bio_set_dev(bio, fc_block_bdev(pool, eidx));
	bio->bi_iter.bi_sector = fc_block_sector(pool, eidx) + off;
}

static void twin_end_io(struct bio *clone)
{
	struct bio *bio = clone->bi_private;

	/* Either copy failing fails the write (fc_end_io() sees one status). */
	if (clone->bi_status && !bio->bi_status)
		bio->bi_status = clone->bi_status;
	bio_put(clone);
	bio_endio(bio);
}

/*
 * Mirrored pools: the same write to the twin on the other leg.  @bio
 * (remapped to the entry's block) completes, and fc_end_io() runs, only
 * when both copies have: a dirty write is acknowledged on two devices.
 */
static void remap_twin(struct fc_pool *pool, struct bio *bio, u32 twin, sector_t off)
{
	struct bio *clone = bio_alloc_clone(fc_block_bdev(pool, twin), bio, GFP_NOIO, &pool->bs);

	clone->bi_iter.bi_sector = fc_block_sector(pool, twin) + off;
	clone->bi_end_io = twin_end_io;
	clone->bi_private = bio;
	bio_inc_remaining(bio);
	submit_bio_noacct(clone);
}

static void remap_origin(struct fc_volume *v, struct bio *bio)
{
	bio->bi_iter.bi_sector = dm_target_offset(v->ti, bio->bi_iter.bi_sector);
	bio_set_dev(bio, v->origin);
}

/* Defer @bio to the worker (lock held by the caller). */
static void defer_locked(struct fc_pool *pool, struct bio *bio)
{
	bio_list_add(&pool->deferred, bio);
	queue_work(pool->wq, &pool->worker);
}

static bool origin_writes_in_flight(struct fc_pool *pool, u32 stripe)
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
static void park_locked(struct fc_pool *pool, struct bio *bio, struct fc_entry *e, u32 stripe)
{
	bio_list_add(&pool->busy_wait, bio);
	smp_mb();	/* pairs with atomic_dec_and_test() in fc_end_io() */
	if (e && fc_entry_idle(e) &&
	    (stripe == FC_NONE || !origin_writes_in_flight(pool, stripe)))
		fc_kick_locked(pool);
}

void fc_defer_bio(struct fc_pool *pool, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	defer_locked(pool, bio);
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

/* ---- discard ---- */

/*
 * Discard: invalidate fully covered sub-blocks and pass down.  Discard vs
 * writeback / in-flight I/O: an entry with I/O or a copy in flight makes
 * the discard wait; the generation bump stops a writeback that completes
 * later from marking anything clean.
 */
static int map_discard(struct fc_volume *v, struct bio *bio)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	sector_t start = dm_target_offset(v->ti, bio->bi_iter.bi_sector);
	sector_t end = start + bio_sectors(bio);
	u64 bsz = pool->g.block_sectors, b, first = start >> pool->block_shift;
	u64 last = (end - 1) >> pool->block_shift;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	for (b = first; b <= last && pool->vol[v->slot].cached; b++) {
		struct fc_entry *e = fc_lookup(pool, v->slot, b);
		sector_t bs = b << pool->block_shift, s0, s1, sub = pool->g.subblock_sectors;
		u8 m;

		if (!e)
			continue;
		s0 = max(start, bs);
		s1 = min(end, bs + bsz);
		s0 = round_up(s0 - bs, sub);
		s1 = round_down(s1 - bs, sub);
		if (s1 <= s0)
			continue;
		m = fc_subblock_mask(s0, s1 - s0, sub);
		if (!((e->valid | e->dirty) & m))
			continue;
		if (!fc_entry_idle(e)) {
			park_locked(pool, bio, e, FC_NONE);
			spin_unlock_irqrestore(&pool->lock, flags);
			return FC_DONE_SUBMITTED;
		}
		fc_entry_bump(e);
		fc_entry_set(pool, e, e->valid & ~m, e->dirty & ~m);
		if (!e->valid)
			fc_entry_release(pool, e);
	}
	fb->kind = FC_BK_ORIGIN_WRITE;
	fb->stripe = FC_NONE;
	pool->ow_big++;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!bdev_max_discard_sectors(v->origin)) {
		fb->kind = FC_BK_ORIGIN;
		spin_lock_irqsave(&pool->lock, flags);
		pool->ow_big--;
		spin_unlock_irqrestore(&pool->lock, flags);
		bio_endio(bio);
		return FC_DONE_SUBMITTED;
	}
	remap_origin(v, bio);
	return FC_DONE_REMAP;
}

/* ---- reads and writes ---- */

static bool block_cacheable(struct fc_volume *v, u64 block)
{
	return ((block + 1) << v->pool->block_shift) <= v->ti->len;
}

/*
 * Does [block b, b + n) hold any entry of this volume, a fill in flight
 * (BUSY, nothing valid yet) included?  Promotion vs a write: a write that
 * spans a block being filled must be cut so that its part on that block
 * waits for the fill; sent to the origin whole, it would land beside a
 * fill that already read the older data and then marks it valid.
 */
static bool span_cached(struct fc_volume *v, u64 b, u64 n)
{
	struct fc_pool *pool = v->pool;

	if (!pool->vol[v->slot].hashed)
		return false;
	for (; n--; b++)
		if (fc_lookup(pool, v->slot, b))
			return true;
	return false;
}

static int do_fill(struct fc_volume *v, struct fc_entry *e, u64 block, u8 fill);

/*
 * Writes a database waits for, no larger than one cache block: @opf
 * REQ_SYNC (O_DIRECT, fsync writeback) or REQ_FUA (O_DSYNC): a sequential
 * stream of them is a redo log, absorbed by the flash (sent around the
 * cache, each would wait for a spindle).  With REQ_FUA the writer waits
 * for this very write to be durable: absorbed above writeback_high too, up
 * to the hard limit (fc_wb_admit_new()).
 */
static bool small_write_with(struct fc_pool *pool, struct bio *bio, blk_opf_t opf)
{
	return op_is_write(bio_op(bio)) && (bio->bi_opf & opf) &&
		bio_sectors(bio) <= pool->g.block_sectors;
}

/*
 * Why a write in writeback mode may not take a new dirty block: an
 * FC_ST_WRITE_AROUND_* counter, or FC_ST_NR when it may.
 */
static enum fc_stat wb_refusal(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
			       u64 block, bool seq_bypass, bool urgent)
{
	struct fc_pool *pool = v->pool;

	if (v->mode != FC_MODE_WRITEBACK || pool->md_mode != FC_MD_RW ||
	    pool->no_new_dirty || (fb->flags & FC_BF_NOFILL) || !block_cacheable(v, block))
		return FC_ST_WRITE_AROUND_OTHER;
	if (seq_bypass)
		return FC_ST_WRITE_AROUND_SEQ;
	if (!e && !fc_wb_admit_new(pool->nr_dirty, pool->g.nr_blocks,
				   pool->opts.val[FC_OPT_WRITEBACK_HIGH], urgent))
		return FC_ST_WRITE_AROUND_HIGH;
	return FC_ST_NR;
}

/*
 * Classify and map one bio (already within one block, or going to the
 * origin whole).  @worker: process context, fills allowed.
 */
static int map_rw(struct fc_volume *v, struct bio *bio, bool worker)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	sector_t sector = dm_target_offset(v->ti, bio->bi_iter.bi_sector);
	u32 bsz = pool->g.block_sectors, sub = pool->g.subblock_sectors;
	u64 block = sector >> pool->block_shift;
	u32 off = sector & (bsz - 1), len = bio_sectors(bio);
	bool write = op_is_write(bio_op(bio)), seq_bypass = false, admit;
	bool sync = small_write_with(pool, bio, REQ_SYNC | REQ_FUA);
	bool urgent = small_write_with(pool, bio, REQ_FUA);
	enum fc_stat around = FC_ST_NR;	/* why it goes to the origin */
	unsigned long flags;
	struct fc_entry *e;
	u8 mask, partial, fill;
	u32 stripe, wait_stripe, twin;
	int r;

again:
	wait_stripe = FC_NONE;
	spin_lock_irqsave(&pool->lock, flags);
	pool->last_io = jiffies;
	e = fc_lookup(pool, v->slot, block);
	/* The stream detector sees the whole bio (a cut remainder counts again). */
	if (!worker && len) {
		seq_bypass = fc_seq_check(&v->seq, sector, len,
					  (u64)v->opts.seq_cutoff_kib * 2);
		if (seq_bypass && sync && v->mode == FC_MODE_WRITEBACK) {
			/* the redo stream: absorbed (small_write_with()) */
			seq_bypass = false;
			fc_stat_inc(pool, v->slot, FC_ST_WRITE_SYNC_KEPT);
		}
		if (write && (bio->bi_opf & REQ_FUA))
			fc_stat_inc(pool, v->slot, FC_ST_FUA);
	}
	if (off + len > bsz) {
		u64 n = ((u64)off + len + bsz - 1) / bsz;

		if (!worker && (e || span_cached(v, block, n) ||
				(!seq_bypass && v->mode != FC_MODE_PASSTHROUGH &&
				 (!write || v->mode == FC_MODE_WRITEBACK ||
				  v->mode == FC_MODE_WRITETHROUGH)))) {
			dm_accept_partial_bio(bio, bsz - off);
			len = bsz - off;
		} else {
			/* Streams and uncached pass-through I/O go to the origin whole. */
			if (seq_bypass && !worker)
				fc_stat_inc(pool, v->slot, FC_ST_BYPASSED);
			around = seq_bypass ? (write ? FC_ST_WRITE_AROUND_SEQ : FC_ST_READ_AROUND_SEQ) :
				(write ? FC_ST_WRITE_AROUND_OTHER : FC_ST_READ_AROUND_OTHER);
			goto origin_whole;
		}
	}
	/* As cut: a retry or the writethrough flash copy starts from here. */
	fb->iter = bio->bi_iter;
	if (!block_cacheable(v, block) && !e) {
		around = write ? FC_ST_WRITE_AROUND_OTHER : FC_ST_READ_AROUND_OTHER;
		goto origin_whole;
	}
	mask = fc_subblock_mask(off, len, sub);
	partial = fc_subblock_partial(off, len, sub);

	/* Promotion vs a write: a BUSY entry (fill in flight) makes us wait. */
	if (e && (e->flags & FC_E_BUSY))
		goto wait;

	if (!write) {
		if (!worker)
			fc_stat_inc(pool, v->slot, FC_ST_READS);
		if (e && (e->valid & mask) == mask) {
			if (!worker)
				fc_stat_inc(pool, v->slot, FC_ST_READ_HITS);
			goto to_flash;
		}
		around = FC_ST_READ_AROUND_OTHER;
		if (fb->flags & FC_BF_NOFILL) {
			if (e && (e->dirty & mask))
				goto kill;	/* the only copy is unreadable */
			goto to_origin;
		}
		if (e && (e->dirty & mask)) {
			fill = mask & ~e->valid;
			goto need_fill;
		}
		if (v->mode == FC_MODE_PASSTHROUGH || pool->md_mode != FC_MD_RW ||
		    pool->no_new_dirty || seq_bypass || !block_cacheable(v, block)) {
			if (seq_bypass && !worker) {
				fc_stat_inc(pool, v->slot, FC_ST_BYPASSED);
				around = FC_ST_READ_AROUND_SEQ;
			}
			goto to_origin;
		}
		admit = e || worker || fc_ghost_admit(&pool->ghost,
						       (block << 6) | v->slot);
		if (!admit) {
			around = FC_ST_READ_AROUND_COLD;
			goto to_origin;
		}
		fill = mask & ~(e ? e->valid : 0);
		goto need_fill;
	}

	/* Writes. */
	if (!worker)
		fc_stat_inc(pool, v->slot, FC_ST_WRITES);
	around = wb_refusal(v, fb, e, block, seq_bypass, urgent);
	if ((e && (e->dirty & mask)) || around == FC_ST_NR) {
		/* Writeback path (also any write touching dirty sub-blocks). */
		if (!e) {
			e = fc_alloc_entry(pool, v->slot, block);
			if (!e) {
				around = FC_ST_WRITE_AROUND_BUSY;
				goto write_around;
			}
			fc_stat_inc(pool, v->slot, FC_ST_WRITE_ALLOCS);
			if (fc_wb_above_high(pool->nr_dirty, pool->g.nr_blocks,
					     pool->opts.val[FC_OPT_WRITEBACK_HIGH]))
				fc_stat_inc(pool, v->slot, FC_ST_WRITE_SYNC_HIGH);
		} else if (!worker) {
			fc_stat_inc(pool, v->slot, FC_ST_WRITE_HITS);
		}
		/*
		 * Mirrored pools: dirty data has a twin on the other leg
		 * (every dirty entry has one while both legs are present).
		 */
		if (fc_redundant(pool) && !fc_alloc_twin(pool, e) && !(e->dirty & mask)) {
			around = FC_ST_WRITE_AROUND_BUSY;
			goto write_around;
		}
		/*
		 * Partial writes: a partly covered invalid sub-block is filled
		 * first.  With a twin, a partly covered clean one too: the
		 * twin holds only dirty sub-blocks, and this one turns dirty
		 * (do_fill() writes both copies; FC_BF_TWIN_FILLED: once).
		 */
		fill = partial & ~e->valid;
		if (fc_twin_of(pool, fc_eidx(pool, e)) != FC_NONE && !(fb->flags & FC_BF_TWIN_FILLED))
			fill |= partial & ~e->dirty;
		if (fill) {
			if (fb->flags & FC_BF_NOFILL)
				goto kill;
			goto need_fill;
		}
		/* Writeback vs a new write: bump the generation at map too. */
		fc_entry_bump(e);
		fb->mask = mask;
		if (bio->bi_opf & REQ_FUA) {
			/* FUA: strip it on the flash; completion waits for a commit. */
			bio->bi_opf &= ~REQ_FUA;
			fb->flags |= FC_BF_FUA;
		}
		fb->kind = FC_BK_FLASH_WRITE;
		goto to_flash_kind;
	}
	/*
	 * Writethrough: the origin first, then the same data to the flash from
	 * the worker; the sub-blocks become valid only if both succeed and no
	 * other write came in between (generation).  Meanwhile they are
	 * invalid, so reads go to the origin, and the pinned entry (in-flight)
	 * keeps fills and eviction away.
	 */
	if (v->mode == FC_MODE_WRITETHROUGH && pool->md_mode == FC_MD_RW &&
	    !pool->no_new_dirty && !seq_bypass && !(fb->flags & FC_BF_NOFILL) &&
	    block_cacheable(v, block) && !(e && (e->flags & FC_E_WB))) {
		/*
		 * Writethrough vs another bio on the block: one at a time.
		 * The flash copy is a second step, so two overlapping writes
		 * in flight could reach the origin in one order and the flash
		 * in the other, leaving the older data valid on the flash over
		 * the newer on the origin.  Waiting for the entry to go idle
		 * also means no other write can bump the generation while
		 * this one is in flight except through the dirty path (a
		 * block left dirty by a mode change): see gen_wrapped.
		 */
		if (e && atomic_read(&e->inflight))
			goto wait;
		if (!e) {
			e = fc_alloc_entry(pool, v->slot, block);
			if (e)
				fc_stat_inc(pool, v->slot, FC_ST_WRITE_ALLOCS);
		} else if (!worker) {
			fc_stat_inc(pool, v->slot, FC_ST_WRITE_HITS);
		}
		if (e) {
			/* Reuse before commit: see write_around below. */
			if ((bio->bi_opf & REQ_FUA) &&
			    ((e->flags & FC_E_PDIRTY) || pool->pending_head != FC_NONE))
				fb->flags |= FC_BF_FUA;
			fc_entry_bump(e);
			/* Nothing in flight: no generation snapshot is live. */
			e->gen_wrapped = 0;
			fb->mask = (mask & ~partial) | (partial & e->valid);
			fc_entry_set(pool, e, e->valid & ~mask, e->dirty);
			atomic_inc(&e->inflight);
			fb->eidx = fc_eidx(pool, e);
			fb->gen = e->gen;
			fb->kind = FC_BK_WT;
			spin_unlock_irqrestore(&pool->lock, flags);
			remap_origin(v, bio);
			return FC_DONE_REMAP;
		}
	}
	if (!worker && v->mode == FC_MODE_WRITEBACK)
		fc_stat_inc(pool, v->slot, FC_ST_BYPASSED);
write_around:
	/*
	 * Write-around vs a flash write in flight: that write marks its
	 * sub-blocks valid and dirty when it completes, so dropping them here
	 * meanwhile would bring back, under this write's sectors of a partly
	 * written sub-block, the older data the sub-block was filled with.
	 * Wait for the entry's bios (reads too: the count does not tell them
	 * apart) before going around.
	 */
	if (e && atomic_read(&e->inflight))
		goto wait;
	/* Write-around: drop the touched clean sub-blocks, write the origin. */
	if (e) {
		/*
		 * Reuse before commit: the flash metadata may still map these
		 * sub-blocks as dirty (PDIRTY).  A FUA write must not complete
		 * until a commit recorded them clean, or recovery would bring
		 * the older data back over it.
		 */
		if ((bio->bi_opf & REQ_FUA) && (e->flags & FC_E_PDIRTY))
			fb->flags |= FC_BF_FUA;
		fc_entry_bump(e);
		fc_entry_set(pool, e, e->valid & ~mask, e->dirty);
		if (!e->valid && !(e->flags & FC_E_WB))
			fc_entry_release(pool, e);
	}
	/* The same for a block already released but still committed dirty. */
	if ((bio->bi_opf & REQ_FUA) && pool->pending_head != FC_NONE)
		fb->flags |= FC_BF_FUA;
	stripe = stripe_of(v, block);
	pool->ow_inflight[stripe]++;
	fb->stripe = stripe;
	fb->kind = FC_BK_ORIGIN_WRITE;
	fc_stat_inc(pool, v->slot, around == FC_ST_NR ? FC_ST_WRITE_AROUND_BUSY : around);
	spin_unlock_irqrestore(&pool->lock, flags);
	remap_origin(v, bio);
	return FC_DONE_REMAP;

to_flash:
	fb->kind = FC_BK_FLASH_READ;
	fb->mask = mask;
to_flash_kind:
	atomic_inc(&e->inflight);
	e->flags |= FC_E_REF;
	fb->eidx = fc_eidx(pool, e);
	fb->gen = e->gen;
	twin = fb->kind == FC_BK_FLASH_WRITE ? fc_twin_of(pool, fb->eidx) : FC_NONE;
	spin_unlock_irqrestore(&pool->lock, flags);
	remap_flash(pool, bio, fb->eidx, off);
	if (twin != FC_NONE)
		remap_twin(pool, bio, twin, off);
	return FC_DONE_REMAP;

origin_whole:
	if (write) {
		/* Write-around of uncached blocks: tracked for fills (pool-wide). */
		if (!worker)
			fc_stat_inc(pool, v->slot, FC_ST_WRITES);
		fc_stat_inc(pool, v->slot, around);
		if ((bio->bi_opf & REQ_FUA) && pool->pending_head != FC_NONE)
			fb->flags |= FC_BF_FUA;
		pool->ow_big++;
		fb->stripe = FC_NONE;
		fb->kind = FC_BK_ORIGIN_WRITE;
		spin_unlock_irqrestore(&pool->lock, flags);
		remap_origin(v, bio);
		return FC_DONE_REMAP;
	}
	if (!worker)
		fc_stat_inc(pool, v->slot, FC_ST_READS);
to_origin:
	fc_stat_inc(pool, v->slot, around == FC_ST_NR ? FC_ST_READ_AROUND_OTHER : around);
	fb->kind = FC_BK_ORIGIN;
	spin_unlock_irqrestore(&pool->lock, flags);
	remap_origin(v, bio);
	return FC_DONE_REMAP;

kill:
	spin_unlock_irqrestore(&pool->lock, flags);
	fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
	return FC_DONE_KILL;

wait:
	park_locked(pool, bio, e, wait_stripe);
	spin_unlock_irqrestore(&pool->lock, flags);
	return FC_DONE_SUBMITTED;

need_fill:
	if (!worker) {
		defer_locked(pool, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		return FC_DONE_SUBMITTED;
	}
	/*
	 * Promotion vs a write: no fill while writes of this stripe are in
	 * flight to the origin; once the entry is BUSY new writes wait.
	 * Eviction vs in-flight I/O: no fill while the entry has I/O in flight.
	 */
	if (origin_writes_in_flight(pool, stripe_of(v, block)) ||
	    (e && (atomic_read(&e->inflight) || (e->flags & FC_E_WB)))) {
		if (e && (e->dirty & mask)) {
			/* dirty data involved: only the cache will do */
			wait_stripe = stripe_of(v, block);
			goto wait;
		}
		if (write) {
			around = FC_ST_WRITE_AROUND_BUSY;
			goto write_around;	/* never stall a write behind a fill */
		}
		if (e && !e->valid && !atomic_read(&e->inflight) && !(e->flags & FC_E_WB))
			fc_entry_release(pool, e);
		goto to_origin;
	}
	if (!e) {
		e = fc_alloc_entry(pool, v->slot, block);
		if (!e) {
			around = write ? FC_ST_WRITE_AROUND_BUSY : FC_ST_READ_AROUND_OTHER;
			if (write)
				goto write_around;
			goto to_origin;
		}
	}
	e->flags |= FC_E_BUSY;
	spin_unlock_irqrestore(&pool->lock, flags);

	r = do_fill(v, e, block, fill);

	spin_lock_irqsave(&pool->lock, flags);
	e->flags &= ~FC_E_BUSY;
	if (!r) {
		fc_entry_set(pool, e, e->valid | fill, e->dirty);
		fc_stat_inc(pool, v->slot, FC_ST_PROMOTIONS);
		if (fc_twin_of(pool, fc_eidx(pool, e)) != FC_NONE)
			fb->flags |= FC_BF_TWIN_FILLED;
	} else {
		fb->flags |= FC_BF_NOFILL;
		if (!e->valid && !atomic_read(&e->inflight))
			fc_entry_release(pool, e);
	}
	/* Bios that waited on the BUSY entry: the worker must run again. */
	fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	goto again;
}

/* Copy the sub-blocks @fill of @block from the origin to @e's flash block. */
static int do_fill(struct fc_volume *v, struct fc_entry *e, u64 block, u8 fill)
{
	struct fc_pool *pool = v->pool;
	u32 sub = pool->g.subblock_sectors, i = 0, j;
	u32 eidx = fc_eidx(pool, e), twin = fc_twin_of(pool, eidx);	/* BUSY: stable */
	void *buf = mempool_alloc(pool->fill_pool, GFP_NOIO);
	int r = 0;

	while (i < pool->g.nr_subblocks) {
		if (!(fill & (1u << i))) {
			i++;
			continue;
		}
		for (j = i; j < pool->g.nr_subblocks && (fill & (1u << j)); j++)
			;
		r = fc_sync_io(pool, v->origin, REQ_OP_READ,
			       (block << pool->block_shift) + i * sub, (j - i) * sub,
			       buf);
		if (r) {
			DMERR_LIMIT("fill: origin read failed (%d)", r);
			break;
		}
		r = fc_sync_io(pool, fc_block_bdev(pool, eidx), REQ_OP_WRITE,
			       fc_block_sector(pool, eidx) + i * sub, (j - i) * sub,
			       buf);
		/* Mirrored: a write is about to make these sub-blocks dirty. */
		if (!r && twin != FC_NONE)
			r = fc_sync_io(pool, fc_block_bdev(pool, twin), REQ_OP_WRITE,
				       fc_block_sector(pool, twin) + i * sub, (j - i) * sub,
				       buf);
		if (r) {
			DMERR_LIMIT("fill: flash write failed (%d)", r);
			atomic64_inc(&pool->flash_write_errors);
			break;
		}
		i = j;
	}
	mempool_free(buf, pool->fill_pool);
	return r;
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
	if (clone->bi_status) {
		atomic64_inc(&pool->flash_write_errors);
		DMERR_LIMIT("writethrough: flash write failed; the data is on the origin");
	} else if (e->gen == fb->gen && !e->gen_wrapped) {
		fc_entry_set(pool, e, e->valid | fb->mask, e->dirty);
	}
	fc_kick_locked(pool);
	bio_put(clone);
	if (fb->flags & FC_BF_FUA) {
		/* The commit worker completes it (see write_around). */
		bio_list_add(&pool->fua_bios, bio);
		queue_work(pool->wq, &pool->commit_work);
		spin_unlock_irqrestore(&pool->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	fb->flags |= FC_BF_COMMITTED;
	fc_bio_endio_again(bio);
}

/* Writethrough, second half: the origin write succeeded, copy to the flash. */
static void wt_submit_flash(struct fc_volume *v, struct bio *bio)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	sector_t sector = dm_target_offset(v->ti, fb->iter.bi_sector);
	struct bio *clone;

	clone = bio_alloc_clone(fc_block_bdev(pool, fb->eidx), bio, GFP_NOIO, &pool->bs);
	clone->bi_iter = fb->iter;
	clone->bi_iter.bi_sector = fc_block_sector(pool, fb->eidx) +
		(sector & (pool->g.block_sectors - 1));
	clone->bi_opf = REQ_OP_WRITE;
	clone->bi_end_io = wt_flash_done;
	clone->bi_private = bio;
	submit_bio_noacct(clone);
}

static int map_bio(struct fc_volume *v, struct bio *bio, bool worker)
{
	/*
	 * Metadata ro/fail (fc_meta_error()): nothing can be recorded, so no
	 * write may change what the flash or the origin holds.  Reads go on.
	 */
	if (op_is_write(bio_op(bio)) && READ_ONCE(v->pool->md_mode) != FC_MD_RW) {
		DMERR_LIMIT("volume %u: write refused: the pool's metadata is read-only (run fcachectl check)",
			    v->id);
		fc_stat_inc(v->pool, v->slot, FC_ST_ERRORS);
		return FC_DONE_KILL;
	}
	if (bio_op(bio) == REQ_OP_DISCARD)
		return map_discard(v, bio);
	return map_rw(v, bio, worker);
}

static void fc_bio_work(struct work_struct *ws)
{
	struct fc_bio *fb = container_of(ws, struct fc_bio, work);
	struct bio *bio = dm_bio_from_per_bio_data(fb, sizeof(struct fc_bio));

	if (fb->flags & FC_BF_WT_FLASH) {
		wt_hold();
		wt_submit_flash(fb->v, bio);
		return;
	}
	switch (map_bio(fb->v, bio, true)) {
	case FC_DONE_REMAP:
		submit_bio_noacct(bio);
		break;
	case FC_DONE_KILL:
		bio_io_error(bio);
		break;
	default:
		break;
	}
}

void fc_worker(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(ws, struct fc_pool, worker);
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&pool->lock);
	list = pool->deferred;
	bio_list_init(&pool->deferred);
	spin_unlock_irq(&pool->lock);

	while ((bio = bio_list_pop(&list))) {
		struct fc_bio *fb = fc_bio(bio);

		/* Initialised in fc_map(); may still be running: requeue is fine. */
		queue_work(pool->fill_wq, &fb->work);
	}
}

int fc_map(struct dm_target *ti, struct bio *bio)
{
	struct fc_volume *v = ti->private;
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	unsigned long flags;

	memset(fb, 0, sizeof(*fb));
	INIT_WORK(&fb->work, fc_bio_work);
	fb->v = v;
	fb->iter = bio->bi_iter;
	fb->opf = bio->bi_opf;

	if (bio->bi_opf & REQ_PREFLUSH) {
		/*
		 * REQ_PREFLUSH (always empty here: num_flush_bios = 1): group
		 * commit, which flushes the flash, then the flush goes on to
		 * the origin, in every mode.
		 */
		fc_stat_inc(pool, v->slot, FC_ST_FLUSHES);
		spin_lock_irqsave(&pool->lock, flags);
		bio_list_add(&pool->flush_bios, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		queue_work(pool->wq, &pool->commit_work);
		return DM_MAPIO_SUBMITTED;
	}
	switch (map_bio(v, bio, false)) {
	case FC_DONE_REMAP:
		return DM_MAPIO_REMAPPED;
	case FC_DONE_KILL:
		return DM_MAPIO_KILL;
	default:
		return DM_MAPIO_SUBMITTED;
	}
}

/* Restore a bio as mapped and hand it to the worker (retry after an error). */
static int retry_bio(struct fc_pool *pool, struct bio *bio)
{
	struct fc_bio *fb = fc_bio(bio);

	bio->bi_iter = fb->iter;
	bio->bi_opf = fb->opf;
	bio->bi_status = BLK_STS_OK;
	fb->kind = FC_BK_NONE;
	fb->flags = FC_BF_NOFILL | FC_BF_RETRY;
	defer_locked(pool, bio);
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

	if (fb->kind == FC_BK_FLUSH) {
		s64 old = atomic64_read(&v->ow_synced);

		/* The origin now holds every write counted before it was sent. */
		while (!*error && old < fb->ow_mark &&
		       !atomic64_try_cmpxchg(&v->ow_synced, &old, fb->ow_mark))
			;
		return DM_ENDIO_DONE;
	}
	/* A write done by the origin: the next REQ_PREFLUSH must go there. */
	if (op_is_write(bio_op(bio)) && bio->bi_bdev == v->origin)
		atomic64_inc(&v->ow_done);

	if (fb->kind == FC_BK_FLASH_READ && !*error) {
		/*
		 * A read hit: the hot path, no pool->lock.  Who waits for the
		 * entry to go idle parked first (park_locked()).
		 */
		e = &pool->e[fb->eidx];
		if (atomic_dec_and_test(&e->inflight) &&
		    READ_ONCE(pool->busy_wait.head))
			fc_kick_waiters(pool);
		return DM_ENDIO_DONE;
	}

	spin_lock_irqsave(&pool->lock, flags);
	switch (fb->kind) {
	case FC_BK_FLASH_READ:
		e = &pool->e[fb->eidx];
		kick = atomic_dec_and_test(&e->inflight);
		atomic64_inc(&pool->flash_read_errors);
		if (e->dirty & fb->mask) {
			/* Flash read error on dirty data: the only copy. */
			DMERR_LIMIT("flash read error on dirty data (volume %u block %llu)",
				    v->id, e->oblock);
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
			break;
		}
		/* Clean: invalidate and retry from the origin. */
		fc_entry_bump(e);
		fc_entry_set(pool, e, e->valid & ~fb->mask, e->dirty);
		r = retry_bio(pool, bio);
		break;
	case FC_BK_FLASH_WRITE:
		e = &pool->e[fb->eidx];
		kick = atomic_dec_and_test(&e->inflight);
		/* Writeback vs a new write: bump the generation at completion. */
		fc_entry_bump(e);
		if (!*error) {
			fc_entry_set(pool, e, e->valid | fb->mask, e->dirty | fb->mask);
			if (fb->flags & FC_BF_FUA) {
				bio_list_add(&pool->fua_bios, bio);
				queue_work(pool->wq, &pool->commit_work);
				r = DM_ENDIO_INCOMPLETE;
			}
			break;
		}
		atomic64_inc(&pool->flash_write_errors);
		pool->no_new_dirty = true;
		DMERR_LIMIT("flash write error: the pool stops caching new dirty data");
		if (e->dirty & fb->mask) {
			/* Older dirty data of these sub-blocks may be damaged. */
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
			break;
		}
		/* No dirty data at risk: drop the sub-blocks, retry on the origin. */
		fc_entry_set(pool, e, e->valid & ~fb->mask, e->dirty);
		r = retry_bio(pool, bio);
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
			bio_list_add(&pool->fua_bios, bio);
			queue_work(pool->wq, &pool->commit_work);
			r = DM_ENDIO_INCOMPLETE;
		}
		break;
	case FC_BK_ORIGIN:
		if (*error)
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		break;
	case FC_BK_WT:
		if (*error) {
			e = &pool->e[fb->eidx];
			kick = atomic_dec_and_test(&e->inflight);
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
			break;
		}
		fb->flags |= FC_BF_WT_FLASH;
		defer_locked(pool, bio);
		r = DM_ENDIO_INCOMPLETE;
		break;
	default:
		break;
	}
	if (kick)
		fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	return r;
}
