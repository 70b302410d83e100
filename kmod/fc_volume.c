// SPDX-License-Identifier: GPL-2.0
/*
 * fc_volume: the data path of the fcache target, one cached origin volume
 * of a pool; the table's lifecycle and control (constructor, destructor,
 * resume and suspend, status, messages) are in fc_vtarget.c.
 *
 * map() decides what to do with every bio under pool->lock and either
 * remaps it to the flash or to the origin, queues it to the commit worker
 * (empty flush), or defers it to the pool worker (fills need process
 * context; bios touching a BUSY entry wait on pool->busy_wait).  For reads
 * and writes the decision is fc_decide() (fc_decide.c, pure C, tested on
 * the host): map_rw() gathers the facts, lets it decide and carries the
 * decision out.  map() and end_io() never sleep.
 * The worker (fc_worker) hands every deferred bio to its own work item on
 * pool->fill_wq (up to 16 run at once), which decides again with fills
 * allowed: a fill reads the origin into a buffer from pool->fill_pool and
 * writes it to the flash synchronously, then the bio is decided again
 * (now a hit).  The entry is BUSY meanwhile, so two fills of one block
 * never run together.
 *
 * A bio that spans cache blocks is cut at the block boundary with
 * dm_accept_partial_bio() (only possible in map) when a spanned block is
 * cached or the bio may be cached (a read that may be promoted, a write in
 * writeback or writethrough mode); otherwise it goes to the origin whole.
 *
 * This file is the map path (discard, the facts and the decision, map_rw(),
 * the worker); what it carries out lives below it: deferred and parked
 * bios in fc_park.c, fills in fc_fill.c, write-around and writethrough in
 * fc_wt.c, the completion (end_io) in fc_endio.c.
 *
 * Locking: pool->lock (irq-safe) for every entry and list; the worker holds
 * no lock across the fill I/O, the entry is BUSY instead.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

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

/*
 * A deliberate bug for the tests (fc_sync.sh, the crash walk): a flush that
 * flush_direct() would send on to the flash completes at once, as if the
 * flash had been flushed.
 */
static bool mutant_flush_direct_none;
module_param(mutant_flush_direct_none, bool, 0644);
MODULE_PARM_DESC(mutant_flush_direct_none, "test build: a flush sent on to the flash completes without it (a bug on purpose)");

static bool flush_direct_none(void)
{
	return READ_ONCE(mutant_flush_direct_none);
}

/*
 * The next fault_twin_write copies of mirrored writes to the twin fail
 * as if the device had (BLK_STS_IOERR), without reaching it; the next
 * bio the worker decides again after a flash error (retry_bio(), which
 * marks it FC_BF_NOFILL) waits retry_hold_ms first, one-shot, so a test
 * can let another write to its block end in between
 * (tests/guest/fc_mirror_faults.sh, case dc).
 */
static int fault_twin_write;
module_param(fault_twin_write, int, 0644);
MODULE_PARM_DESC(fault_twin_write, "test build: fail the next N twin copies of mirrored writes");
static unsigned int retry_hold_ms;
module_param(retry_hold_ms, uint, 0644);
MODULE_PARM_DESC(retry_hold_ms, "test build: hold the next retried bio in the worker this long (one-shot)");

static bool twin_write_fault(void)
{
	return fc_fault_take(&fault_twin_write);
}

static void retry_hold(struct fc_bio *fb)
{
	unsigned int ms;

	if (!(fb->flags & FC_BF_NOFILL))
		return;
	ms = xchg(&retry_hold_ms, 0);
	if (ms)
		msleep(ms);
}
#else
static inline void wt_hold(void)
{
}

static inline bool flush_direct_none(void)
{
	return false;
}

static inline bool twin_write_fault(void)
{
	return false;
}

static inline void retry_hold(struct fc_bio *fb)
{
}
#endif

/*
 * FC_DONE_AGAIN: a REQ_NOWAIT bio that only a fill, a wait, a step of
 * decide() or the origin could serve: it ends with BLK_STS_AGAIN, nothing
 * changed, and its submitter sends it again where it may block (io_uring
 * from its worker; RWF_NOWAIT's caller).  Only the flash paths below are
 * taken without blocking (nowait_ok()).
 */
enum { FC_DONE_REMAP, FC_DONE_SUBMITTED, FC_DONE_KILL, FC_DONE_AGAIN,
	/* ordered_write() to map_rw() only */
	FC_DONE_GO, FC_DONE_REDIRECT, FC_DONE_COMMIT };

static void remap_flash(struct fc_pool *pool, struct bio *bio, u32 eidx, sector_t off)
{
	bio_set_dev(bio, fc_block_bdev(pool, eidx));
	bio->bi_iter.bi_sector = fc_block_sector(pool, eidx) + off;
}

/*
 * Mirrored pools: a write goes to the entry's block and to its twin on the
 * other leg as two clones of @bio, and @bio itself is never submitted: it
 * ends once, when both copies have (fb->copies), and then fc_end_io()
 * settles it.  So a dirty write is acknowledged on two devices, or on the
 * one in service if the other failed meanwhile.
 *
 * The count is ours.  Counting the twin with bio_inc_remaining() on @bio,
 * as this did before, borrowed the block layer's own count of @bio, which
 * its chained completion leaves at 0, not 1: a write retried after that
 * completion (retry_bio(): a copy failed on a leg that holds the only copy
 * of other dirty blocks) and mirrored again (another write made its block
 * dirty meanwhile) took it from 0 to 1, so its first copy to end ended
 * @bio, which was then submitted, or ended again, by the second.
 *
 * Each copy's status is written by its own completion only, and read
 * after the count's last decrement (a full barrier): the entry's block's
 * in @bio->bi_status, the twin's in FC_BF_TWIN_ERR.
 */
static void copy_done(struct bio *bio)
{
	if (atomic_dec_and_test(&fc_bio(bio)->copies))
		bio_endio(bio);
}

static void block_copy_end_io(struct bio *clone)
{
	struct bio *bio = clone->bi_private;

	if (clone->bi_status)
		bio->bi_status = clone->bi_status;
	bio_put(clone);
	copy_done(bio);
}

static void twin_copy_end_io(struct bio *clone)
{
	struct bio *bio = clone->bi_private;
	struct fc_bio *fb = fc_bio(bio);
	struct fc_pool *pool = fb->v->pool;

	if (clone->bi_status)
		fb->flags |= FC_BF_TWIN_ERR;
	/* fc_attach_leg() waits for none to be in flight to a failed leg. */
	atomic_dec(&pool->twin_io[!fc_block_leg(&pool->g, fb->eidx)]);
	bio_put(clone);
	copy_done(bio);
}

static struct bio *copy_of(struct fc_pool *pool, struct bio *bio, struct block_device *bdev,
			   sector_t sector, bio_end_io_t *end_io)
{
	struct bio *clone = bio_alloc_clone(bdev, bio, GFP_NOIO, &pool->bs);

	clone->bi_iter.bi_sector = sector;
	clone->bi_end_io = end_io;
	clone->bi_private = bio;
	return clone;
}

/*
 * @bio, remapped to the entry's block (remap_flash()), and the same write
 * to twin @twin (above).  False if the twin's leg failed since the
 * decision (the sweep drops the twin): @bio goes to its block alone.
 */
static bool submit_mirrored(struct fc_pool *pool, struct bio *bio, u32 twin, sector_t off)
{
	struct fc_bio *fb = fc_bio(bio);
	struct bio *copy;

	if (fc_block_failed(pool, twin))
		return false;
	fb->flags |= FC_BF_TWIN;
	atomic_set(&fb->copies, 2);
	atomic_inc(&pool->twin_io[fc_block_leg(&pool->g, twin)]);
	/*
	 * Two clones from one bio_set in one submission: its rescuer
	 * (BIOSET_NEED_RESCUER) submits the first if the second must wait.
	 */
	submit_bio_noacct(copy_of(pool, bio, bio->bi_bdev, bio->bi_iter.bi_sector,
				  block_copy_end_io));
	copy = copy_of(pool, bio, fc_block_bdev(pool, twin), fc_block_sector(pool, twin) + off,
		       twin_copy_end_io);
	if (twin_write_fault())
		bio_io_error(copy);
	else
		submit_bio_noacct(copy);
	return true;
}

static void remap_origin(struct fc_volume *v, struct bio *bio)
{
	bio->bi_iter.bi_sector = dm_target_offset(v->ti, bio->bi_iter.bi_sector);
	bio_set_dev(bio, v->origin);
}

/* ---- discard ---- */

static int warm_wait(struct fc_volume *v, struct bio *bio, struct fc_facts *f, bool worker,
		     bool nowait);

/*
 * Discard: invalidate fully covered sub-blocks and pass down.  Discard vs
 * writeback / in-flight I/O: an entry with I/O or a copy in flight makes
 * the discard wait; the generation bump stops a writeback that completes
 * later from marking anything clean.  A block kept warm (or its origin
 * block, released warm) makes it wait for a commit (warm_wait()).
 */
/*
 * Warm restart: does a discard of blocks [@first, @last] wait for a commit
 * (pool->lock held)?  Every warm block of the range is unwarmed at once,
 * so one commit serves them all.
 */
static bool discard_warm(struct fc_pool *pool, u8 slot, u64 first, u64 last)
{
	bool wait = false;
	u64 b;

	for (b = first; b <= last; b++) {
		if (!pool->vol[slot].cached && !pool->nr_warm_pending)
			break;
		if (fc_warm_write_waits(pool, fc_lookup(pool, slot, b), slot, b))
			wait = true;
	}
	return wait;
}

static int map_discard(struct fc_volume *v, struct bio *bio)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	sector_t start = dm_target_offset(v->ti, bio->bi_iter.bi_sector);
	sector_t end = start + bio_sectors(bio);
	u64 bsz = pool->g.block_sectors, b, first = start >> pool->block_shift;
	u64 last = (end - 1) >> pool->block_shift;
	unsigned long flags;
	int r;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->warm_feature && discard_warm(pool, v->slot, first, last)) {
		r = warm_wait(v, bio, NULL, true, false);
		spin_unlock_irqrestore(&pool->lock, flags);
		if (r == FC_DONE_SUBMITTED)
			fc_queue_commit(pool);
		return r;
	}
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
			fc_park_locked(pool, bio, e, FC_NONE);
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

/* The entry's facts (fc_decide.h: all zero without one). */
static void entry_facts(struct fc_facts *f, struct fc_pool *pool, struct fc_entry *e)
{
	memset(&f->e, 0, sizeof(f->e));
	if (!e)
		return;
	f->e.present = true;
	f->e.busy = e->flags & FC_E_BUSY;
	f->e.wb = e->flags & FC_E_WB;
	f->e.pdirty = e->flags & FC_E_PDIRTY;
	f->e.committed = fc_entry_committed(pool, fc_eidx(pool, e));
	f->e.twin = fc_twin_of(pool, fc_eidx(pool, e)) != FC_NONE;
	f->e.inflight = atomic_read(&e->inflight);
	f->e.valid = e->valid;
	f->e.dirty = e->dirty;
}

static void pool_facts(struct fc_facts *f, struct fc_pool *pool)
{
	f->md_rw = pool->md_mode == FC_MD_RW;
	f->no_new_dirty = pool->no_new_dirty;
	f->pending = pool->pending_head != FC_NONE;
	f->redundant = fc_redundant(pool);
	f->one_copy = fc_mirrored(pool) && !f->redundant;
	f->nr_dirty = fc_dirty_load(pool);
	f->nr_blocks = fc_blocks_in_service(pool);
	f->wb_high = pool->opts.val[FC_OPT_WRITEBACK_HIGH];
}

/* Does a read of @f's sectors (cut at the block's end) hit the entry @e? */
static bool read_hits(const struct fc_entry *e, const struct fc_facts *f)
{
	u8 m;

	if (!e)
		return false;
	m = fc_subblock_mask(f->off, min(f->len, f->block_sectors - f->off),
			     f->subblock_sectors);
	return (e->valid & m) == m;
}

/*
 * The facts about @bio of @block a read hit is decided from (pool->lock
 * held; fc_decide_read_hit()): the bio's, and of its entry, returned if
 * any, whether present, BUSY and which sub-blocks are valid.  Map's pass
 * feeds the stream detectors here, hit or not.
 */
static struct fc_entry *bio_facts(struct fc_volume *v, struct bio *bio, struct fc_bio *fb,
				  u64 block, bool worker, struct fc_facts *f)
{
	struct fc_pool *pool = v->pool;
	sector_t sector = dm_target_offset(v->ti, bio->bi_iter.bi_sector);
	u32 bsz = pool->g.block_sectors;
	struct fc_entry *e;

	memset(f, 0, sizeof(*f));
	f->worker = worker;
	f->write = op_is_write(bio_op(bio));
	f->fua = !!(bio->bi_opf & REQ_FUA);
	f->sync = small_write_with(pool, bio, REQ_SYNC | REQ_FUA);
	f->urgent = small_write_with(pool, bio, REQ_FUA);
	f->nofill = fb->flags & FC_BF_NOFILL;
	f->off = sector & (bsz - 1);
	f->len = bio_sectors(bio);
	f->mode = v->mode;
	f->block_sectors = bsz;
	f->subblock_sectors = pool->g.subblock_sectors;

	pool->last_io = jiffies;
	e = fc_lookup(pool, v->slot, block);
	if (e) {
		f->e.present = true;
		f->e.busy = e->flags & FC_E_BUSY;
		f->e.valid = e->valid;
	}
	/* The stream detector sees the whole bio (a cut remainder counts again). */
	if (!worker && f->len)
		f->seq = fc_seq_check(&v->seq, sector, f->len,
				      (u64)v->opts.seq_cutoff_kib * 2);
	f->cacheable = block_cacheable(v, block);
	/*
	 * Short read streams (fc_ra_read()): every read is noted in
	 * map's pass; one that continues a stream is marked for the worker,
	 * whose fill reads ahead (fc_fill_stream()).
	 */
	if (!worker && !f->write && f->len && f->cacheable &&
	    fc_ra_read(&v->ra, block, !read_hits(e, f), (u32)jiffies, FC_RA_WINDOW))
		fb->flags |= FC_BF_STREAM;
	f->stream = fb->flags & FC_BF_STREAM;
	return e;
}

/*
 * Every other fact fc_decide() reads (pool->lock held), after bio_facts():
 * the spanned blocks, the stripe, the whole entry, the pool's.
 */
static void other_facts(struct fc_volume *v, struct fc_bio *fb, u64 block, struct fc_entry *e,
			struct fc_facts *f)
{
	struct fc_pool *pool = v->pool;
	u32 bsz = f->block_sectors;

	if (!f->worker && !e && f->off + f->len > bsz)
		f->span_cached = span_cached(v, block, ((u64)f->off + f->len + bsz - 1) / bsz);
	f->ow_busy = fc_origin_writes_in_flight(pool, stripe_of(v, block));
	entry_facts(f, pool, e);
	/* Read-only metadata: may the flash record older dirty data of it? */
	f->pending_here = f->write && pool->md_mode != FC_MD_RW &&
		pool->pending_head != FC_NONE && fc_pending_maps(pool, v->slot, block);
	/* The fill wrote this twin, not one the entry had before or got since. */
	f->twin_filled = (fb->flags & FC_BF_TWIN_FILLED) && e &&
		fb->filled_twin == fc_twin_of(pool, fc_eidx(pool, e));
	pool_facts(f, pool);
}

/*
 * Cut a bio that spans blocks at its first block's end (map only: dm core
 * sends the rest as a new bio); @f then describes the part that is left.
 */
static void cut_at_block(struct bio *bio, struct fc_facts *f)
{
	dm_accept_partial_bio(bio, f->block_sectors - f->off);
	f->len = f->block_sectors - f->off;
}

/*
 * Decide (pool->lock held), making the cut the decision wants and doing
 * the steps it asks for, each followed by a new decision (fc_decide.h).
 * Returns the block's entry: @e, or the one just allocated.
 */
static struct fc_entry *decide(struct fc_volume *v, struct bio *bio, u64 block,
			       struct fc_facts *f, struct fc_entry *e, struct fc_decision *d)
{
	struct fc_pool *pool = v->pool;

	/* Only map cuts: a bio reaches the worker cut unless no block was cached. */
	WARN_ON_ONCE(f->worker && e && f->off + f->len > f->block_sectors);
	for (;;) {
		fc_decide(f, d);
		if (d->cut)
			cut_at_block(bio, f);
		if (d->act == FC_ACT_GHOST) {
			f->ghost = fc_ghost_admit(&pool->ghost, (block << 6) | v->slot) ?
				FC_STEP_YES : FC_STEP_NO;
		} else if (d->act == FC_ACT_ALLOC) {
			e = fc_alloc_entry(pool, v->slot, block);
			f->alloc = e ? FC_STEP_YES : FC_STEP_NO;
			entry_facts(f, pool, e);
			pool_facts(f, pool);
		} else if (d->act == FC_ACT_TWIN) {
			f->twin = fc_alloc_twin(pool, e) ? FC_STEP_YES : FC_STEP_NO;
			entry_facts(f, pool, e);
			pool_facts(f, pool);
		} else {
			return e;
		}
	}
}

/*
 * A REQ_NOWAIT bio (map's pass): served only by a remap to the flash that
 * needs no step first, uncut, and one copy (a mirrored write allocates
 * two clones, which may wait for the bio_set's reserve).  Anything else
 * (fills, waits, the origin, whose queue may be full: a spindle's is a
 * few requests deep) is refused before anything changed.  The flash is
 * not asked to be non-blocking (map_done() drops REQ_NOWAIT): its
 * BLK_STS_AGAIN would read as an error of the leg.  A flash device's
 * queue is deep and brd's never waits; dm-linear passes the flag on.
 */
static bool nowait_ok(const struct fc_facts *f, const struct fc_decision *d)
{
	return !d->cut && (d->act == FC_ACT_FLASH_READ ||
			   (d->act == FC_ACT_FLASH_WRITE && !f->e.twin));
}

static void count_stats(struct fc_pool *pool, int slot, u32 count)
{
	while (count) {
		unsigned int st = __ffs(count);

		count &= count - 1;
		fc_stat_inc(pool, slot, st);
	}
}

/*
 * A write whose end_io needs no pool->lock (FC_BF_QUICK, fc_end_io()):
 * every sub-block it touches is dirty already, so valid, and its end
 * changes no bit of the entry; no REQ_FUA (no commit waited for, no flush
 * point at its end); one copy (no twin to settle); no copy of the block
 * running (FC_E_WB; none starts while the write is in flight:
 * fc_entry_idle()); not an ordered pool (epochs, redirects).  Whatever
 * else changes an entry's bits (a discard, write-around, writethrough,
 * an invalidation, an eviction, a move to the twin) waits for the entry
 * to be idle first, so the bits stay as seen here until the write ends.
 */
static bool quick_write(struct fc_pool *pool, const struct fc_bio *fb, const struct fc_entry *e,
			u32 twin)
{
	return !(fb->opf & REQ_FUA) && twin == FC_NONE && (e->dirty & fb->mask) == fb->mask &&
	       !(e->flags & FC_E_WB) && !fc_wb_ordered(pool);
}

/*
 * FC_ACT_FLASH_READ, FC_ACT_FLASH_WRITE: to the entry's flash block.
 * Returns the block a write goes to as well (its twin), or FC_NONE.
 */
static u32 to_flash(struct fc_pool *pool, struct bio *bio, struct fc_bio *fb, struct fc_entry *e,
		    const struct fc_decision *d)
{
	u32 twin;

	if (d->act == FC_ACT_FLASH_WRITE) {
		/* Writeback vs a new write: bump the generation at map too. */
		fc_entry_bump(e);
		fc_count_write(pool, e);
		if (d->fua_commit) {
			/* FUA: strip it on the flash; completion waits for a commit. */
			bio->bi_opf &= ~REQ_FUA;
			fb->flags |= FC_BF_FUA;
		} else if (d->fua_direct) {
			/* Committed dirty already: FUA on the flash (both copies) is all. */
			fb->flags |= FC_BF_FUA_DIRECT;
		}
		fb->kind = FC_BK_FLASH_WRITE;
	} else {
		fb->kind = FC_BK_FLASH_READ;
		/* Its block failed it (end_flash_read()): the twin, if still good. */
		fb->rd_twin = FC_NONE;
		if (unlikely(fb->flags & FC_BF_TWIN_READ) && !(d->fb_mask & ~e->dirty) &&
		    fc_twin_good(pool, fc_eidx(pool, e)))
			fb->rd_twin = fc_twin_of(pool, fc_eidx(pool, e));
	}
	fb->mask = d->fb_mask;
	atomic_inc(&e->inflight);
	e->flags |= FC_E_REF;
	fb->eidx = fc_eidx(pool, e);
	fb->gen = e->gen;
	if (fb->kind != FC_BK_FLASH_WRITE)
		return FC_NONE;
	twin = fc_twin_of(pool, fb->eidx);
	if (quick_write(pool, fb, e, twin)) {
		fb->flags |= FC_BF_QUICK;
		pool->st_quick++;
	}
	return twin;
}

static void origin_whole(struct fc_pool *pool, struct fc_bio *fb, bool write,
			 const struct fc_decision *d)
{
	if (!write) {
		fb->kind = FC_BK_ORIGIN;
		return;
	}
	/* Write-around of uncached blocks: tracked for fills (pool-wide). */
	if (d->fua_commit)
		fb->flags |= FC_BF_FUA;
	pool->ow_big++;
	fb->stripe = FC_NONE;
	fb->kind = FC_BK_ORIGIN_WRITE;
}

/*
 * Decision @d for @bio (block @block, entry @e) carried out, FC_ACT_FILL
 * aside (pool->lock held); *@twin: the twin a flash write also goes to.
 */
static int carry_out(struct fc_volume *v, struct bio *bio, struct fc_bio *fb, struct fc_entry *e,
		     u64 block, const struct fc_facts *f, const struct fc_decision *d, u32 *twin)
{
	struct fc_pool *pool = v->pool;
	int done;

	done = FC_DONE_REMAP;
	switch (d->act) {
	case FC_ACT_FLASH_READ:
	case FC_ACT_FLASH_WRITE:
		*twin = to_flash(pool, bio, fb, e, d);
		break;
	case FC_ACT_WT:
		fc_start_wt(pool, fb, e, d);
		break;
	case FC_ACT_WRITE_AROUND:
		fc_write_around(v, fb, e, block, d);
		break;
	case FC_ACT_ORIGIN_WHOLE:
		origin_whole(pool, fb, f->write, d);
		break;
	case FC_ACT_ORIGIN:
		if (d->release)
			fc_entry_release(pool, e);
		fb->kind = FC_BK_ORIGIN;
		break;
	case FC_ACT_WAIT:
		fc_park_locked(pool, bio, e, d->wait_stripe ? stripe_of(v, block) : FC_NONE);
		done = FC_DONE_SUBMITTED;
		break;
	case FC_ACT_DEFER:
		fc_defer_locked(pool, bio);
		done = FC_DONE_SUBMITTED;
		break;
	case FC_ACT_KILL:
	default:	/* the steps (GHOST, ALLOC, TWIN) end in decide() */
		done = FC_DONE_KILL;
		break;
	}
	return done;
}

/* After carry_out(), without pool->lock: remap @bio as decided, or say @done. */
static int map_done(struct fc_volume *v, struct bio *bio, struct fc_bio *fb, u64 block,
		    const struct fc_facts *f, const struct fc_decision *d, u32 twin, int done)
{
	struct fc_pool *pool = v->pool;

	if (d->count & FC_STAT_BIT(FC_ST_WRITE_RO_REFUSED))
		DMERR_LIMIT("volume %u block %llu: write refused: the pool's metadata is read-only and the flash may still hold older dirty data of this block; it is writable again after fcachectl check --repair",
			    v->id, block);
	if (done != FC_DONE_REMAP)
		return done;
	if (d->act == FC_ACT_FLASH_READ || d->act == FC_ACT_FLASH_WRITE) {
		bio->bi_opf &= ~REQ_NOWAIT;
		remap_flash(pool, bio, d->act == FC_ACT_FLASH_READ ? fc_read_block(fb) : fb->eidx,
			    f->off);
		if (twin != FC_NONE && submit_mirrored(pool, bio, twin, f->off))
			return FC_DONE_SUBMITTED;
	} else {
		remap_origin(v, bio);
	}
	return FC_DONE_REMAP;
}

/*
 * Warm restart: does a write wait for a commit (pool->lock held)?  Its
 * block's entry @e may be recorded warm, or a block of the span it writes
 * (one that goes to the origin whole may span several) may have been
 * released warm since the last commit.
 */
static bool warm_span_waits(struct fc_pool *pool, struct fc_entry *e, u8 slot, u64 block,
			    const struct fc_facts *f)
{
	u64 n = DIV_ROUND_UP((u64)f->off + f->len, f->block_sectors), i;
	bool wait = e && fc_warm_write_waits(pool, e, slot, block);

	for (i = 0; i < n && pool->nr_warm_pending && !wait; i++)
		wait = fc_warm_write_waits(pool, NULL, slot, block + i);
	return wait;
}

/*
 * Warm restart: a write to a block the flash may record warm (or to the
 * origin block of one released since the last commit) waits on warm_wait
 * for the commit that records otherwise (pool->lock held; the caller
 * queues that commit on FC_DONE_SUBMITTED).  Cut at the block first, as
 * decide() would: the worker never cuts.  Read-only metadata records
 * nothing: the write fails.
 */
static int warm_wait(struct fc_volume *v, struct bio *bio, struct fc_facts *f, bool worker,
		     bool nowait)
{
	struct fc_pool *pool = v->pool;

	if (nowait)
		return FC_DONE_AGAIN;
	if (READ_ONCE(pool->md_mode) != FC_MD_RW) {
		DMERR_LIMIT("volume %u: a write to a block kept for a warm restart refused: the pool's metadata is read-only (run fcachectl check --repair)",
			    v->id);
		fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
		return FC_DONE_KILL;
	}
	if (f && !worker && f->off + f->len > f->block_sectors)
		cut_at_block(bio, f);
	bio_list_add(&pool->warm_wait, bio);
	WRITE_ONCE(pool->st_warm_waits, pool->st_warm_waits + 1);
	return FC_DONE_SUBMITTED;
}

/*
 * Ordered write-back: a write to entry @e (pool->lock held), per
 * fc_ord_write().  FC_DONE_GO: go on with the map; FC_DONE_REDIRECT: copy
 * the block (the caller, without the lock); FC_DONE_COMMIT: queued on
 * warm_wait, the caller queues the commit.  Cut at the block first, as
 * decide() would (the worker never cuts).
 */
static int ordered_write(struct fc_volume *v, struct bio *bio, struct fc_entry *e,
			 struct fc_facts *f, bool worker, bool nowait)
{
	struct fc_pool *pool = v->pool;
	enum fc_ord o = fc_ord_write(pool, e, worker);

	if (o == FC_ORD_GO)
		return FC_DONE_GO;
	if (nowait)
		return FC_DONE_AGAIN;
	if (!worker && f->off + f->len > f->block_sectors)
		cut_at_block(bio, f);
	switch (o) {
	case FC_ORD_PARK:
		/* Under writeback: the batch's end maps it again, not every completion. */
		if (e->flags & FC_E_WB)
			fc_ord_wait_locked(pool, bio);
		else
			fc_park_locked(pool, bio, e, FC_NONE);
		return FC_DONE_SUBMITTED;
	case FC_ORD_DEFER:
		fc_defer_locked(pool, bio);
		return FC_DONE_SUBMITTED;
	case FC_ORD_COMMIT:
		if (READ_ONCE(pool->md_mode) != FC_MD_RW) {
			DMERR_LIMIT("volume %u: a write refused: ordered write-back needs a commit first and the pool's metadata is read-only (run fcachectl check --repair)",
				    v->id);
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
			return FC_DONE_KILL;
		}
		bio_list_add(&pool->warm_wait, bio);
		pool->st_ord_waits++;
		return FC_DONE_COMMIT;
	default:
		return FC_DONE_REDIRECT;
	}
}

/*
 * Map one bio (already within one block, or going to the origin whole):
 * gather the facts under pool->lock, decide (fc_decide.c), carry the
 * decision out.  @worker: process context, fills allowed; after a fill
 * the bio is decided again.
 */
static int map_rw(struct fc_volume *v, struct bio *bio, struct fc_bio *fb, bool worker)
{
	struct fc_pool *pool = v->pool;
	u64 block = dm_target_offset(v->ti, bio->bi_iter.bi_sector) >> pool->block_shift;
	bool nowait = !worker && (bio->bi_opf & REQ_NOWAIT);
	struct fc_decision d;
	struct fc_facts f;
	unsigned long flags;
	struct fc_entry *e;
	u32 twin = FC_NONE;
	int done, r;

again:
	spin_lock_irqsave(&pool->lock, flags);
	e = bio_facts(v, bio, fb, block, worker, &f);
	if (e && fc_block_failed(pool, fc_eidx(pool, e))) {
		if (nowait) {
			spin_unlock_irqrestore(&pool->lock, flags);
			return FC_DONE_AGAIN;
		}
		/* Its leg failed: the twin takes its place first. */
		switch (fc_rescue_entry(pool, e)) {
		case FC_RESCUE_DONE:
			spin_unlock_irqrestore(&pool->lock, flags);
			goto again;
		case FC_RESCUE_LATER:
			/*
			 * The tick kicks it (fc_vacate_failed() runs from it
			 * too).  Parked before decide() could cut it: cut it
			 * here as decide() would (its block is cached), for
			 * the worker never cuts and sends a bio that spans
			 * blocks to the origin whole, past this entry's dirty
			 * data (a read would return the origin's older data,
			 * a write would leave the older dirty data cached).
			 */
			if (!worker && f.off + f.len > f.block_sectors)
				cut_at_block(bio, &f);
			fc_park_locked(pool, bio, NULL, FC_NONE);
			spin_unlock_irqrestore(&pool->lock, flags);
			return FC_DONE_SUBMITTED;
		default:
			/*
			 * Dirty data lost with the leg (no good copy on the
			 * other): every I/O of the block fails, a write too,
			 * for nothing could hold it (the leg is out of use).
			 */
			spin_unlock_irqrestore(&pool->lock, flags);
			DMERR_LIMIT("volume %u block %llu: its dirty data was lost with a failed flash device: I/O error",
				    v->id, block);
			fc_stat_inc(pool, v->slot, FC_ST_ERRORS);
			return FC_DONE_KILL;
		}
	}
	if (f.write && pool->warm_feature && warm_span_waits(pool, e, v->slot, block, &f)) {
		done = warm_wait(v, bio, &f, worker, nowait);
		spin_unlock_irqrestore(&pool->lock, flags);
		if (done == FC_DONE_SUBMITTED)
			fc_queue_commit(pool);
		return done;
	}
	if (f.write && e && fc_ordered(pool)) {
		done = ordered_write(v, bio, e, &f, worker, nowait);
		if (done != FC_DONE_GO) {
			spin_unlock_irqrestore(&pool->lock, flags);
			if (done == FC_DONE_COMMIT) {
				fc_queue_commit(pool);
				return FC_DONE_SUBMITTED;
			}
			if (done != FC_DONE_REDIRECT)
				return done;
			r = fc_ord_redirect(v, bio, fc_eidx(pool, e));
			if (!r)
				goto again;
			return r == -EAGAIN ? FC_DONE_SUBMITTED : FC_DONE_KILL;
		}
	}
	/* A read hit is decided from bio_facts() alone; else every fact. */
	if (f.write || !fc_decide_read_hit(&f, &d)) {
		other_facts(v, fb, block, e, &f);
		/*
		 * Ordered write-back: a stream's writes are cached too (cut at
		 * blocks): around the cache they would wait for the volume's
		 * dirty data to drain (fc_ord_direct_waits()).
		 */
		if (f.write && fc_wb_ordered(pool))
			f.seq = false;
		if (!nowait) {
			e = decide(v, bio, block, &f, e, &d);
		} else {
			/* decide()'s first pass, with no cut or step */
			fc_decide(&f, &d);
			if (!nowait_ok(&f, &d)) {
				spin_unlock_irqrestore(&pool->lock, flags);
				return FC_DONE_AGAIN;
			}
		}
	}
	/* Ordered write-back: to the origin only once the volume has no dirty data. */
	if (f.write && fc_wb_ordered(pool) && fc_ord_direct_waits(pool, v, d.act)) {
		if (nowait) {
			spin_unlock_irqrestore(&pool->lock, flags);
			return FC_DONE_AGAIN;
		}
		fc_ord_wait_locked(pool, bio);
		spin_unlock_irqrestore(&pool->lock, flags);
		return FC_DONE_SUBMITTED;
	}
	/*
	 * ordered_lag: a REQ_FUA write makes a flush point as it ends; not
	 * while the origins lack too many (it waits cut, as decided: the
	 * worker cannot cut).
	 */
	if (unlikely(f.fua) && f.write) {
		int g = fc_ord_lag_gate(pool, bio, fb, nowait);

		if (g) {
			spin_unlock_irqrestore(&pool->lock, flags);
			return g < 0 ? FC_DONE_AGAIN : FC_DONE_SUBMITTED;
		}
	}
	/* As cut: a retry or the writethrough flash copy starts from here. */
	fb->iter = bio->bi_iter;
	count_stats(pool, v->slot, d.count);
	if (d.act == FC_ACT_FILL) {
		e->flags |= FC_E_BUSY;
		spin_unlock_irqrestore(&pool->lock, flags);
		/* a new entry for a read of a short stream: fill it and read ahead */
		if (f.write || f.alloc != FC_STEP_YES || !(fb->flags & FC_BF_STREAM) ||
		    !fc_fill_stream(v, fb, e, block))
			fc_fill_entry(v, fb, e, block, d.fill);
		goto again;
	}
	done = carry_out(v, bio, fb, e, block, &f, &d, &twin);
	spin_unlock_irqrestore(&pool->lock, flags);
	return map_done(v, bio, fb, block, &f, &d, twin, done);
}

/*
 * A REQ_PREFLUSH that needs a flush of the flash and nothing else (pool->lock
 * held): every metadata change is committed (a commit running now has not
 * ended: it does not count), no write of this table reached the origin
 * since its last flush, and the pool is one device in rw mode.  It goes on
 * to the flash as it is, with no trip through the commit worker; its end
 * moves fw_synced (fc_end_io()).  A mirrored pool's flush needs both legs
 * (the worker's).
 */
static bool flush_direct(struct fc_pool *pool, struct fc_volume *v)
{
	return !fc_mirrored(pool) && fc_sync_flash_only(pool, v);
}

/*
 * REQ_PREFLUSH (always empty here: num_flush_bios = 1): group commit,
 * which flushes the flash, then the flush goes on to the origin, in every
 * mode.  Unless nothing it must make durable is volatile: every write
 * acknowledged so far is counted by now (end_io runs before the
 * acknowledgement), and fc_sync_free() says all of them are on stable
 * media; or only the flash's cache holds some (flush_direct()): then it
 * goes on to the flash (FC_DONE_REMAP).  From fc_map(), or the worker for
 * a flush that waited for ordered write-back's lag bound.
 */
static int map_flush(struct fc_volume *v, struct bio *bio)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	/* ordered_lag: no new flush point while the origins lack too many. */
	if (unlikely(fc_ord_lag_gate(pool, bio, fb, false))) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return FC_DONE_SUBMITTED;
	}
	/* A flush point: later writes are of a new epoch (fc_ordered.c). */
	pool->epoch++;
	if (fc_acks_held(pool)) {
		/* the worker waits for the peer's record */
	} else if (fc_sync_free(pool, v)) {
		pool->st_sync_free++;
		spin_unlock_irqrestore(&pool->lock, flags);
		bio_endio(bio);
		return FC_DONE_SUBMITTED;
	} else if (flush_direct(pool, v)) {
		/* Read before it is sent: it covers every write counted. */
		fb->fw = atomic64_read(&pool->fw_done);
		fb->kind = FC_BK_FLUSH;
		pool->st_flush_direct++;
		if (unlikely(flush_direct_none())) {
			pool->fw_synced = fb->fw;
			spin_unlock_irqrestore(&pool->lock, flags);
			bio_endio(bio);
			return FC_DONE_SUBMITTED;
		}
		spin_unlock_irqrestore(&pool->lock, flags);
		bio_set_dev(bio, pool->leg[0].bdev);
		return FC_DONE_REMAP;
	}
	bio_list_add(&pool->flush_bios, bio);
	spin_unlock_irqrestore(&pool->lock, flags);
	fc_queue_commit(pool);
	return FC_DONE_SUBMITTED;
}

static int map_bio(struct fc_volume *v, struct bio *bio, struct fc_bio *fb, bool worker)
{
	if (bio_op(bio) == REQ_OP_DISCARD) {
		if (!worker && (bio->bi_opf & REQ_NOWAIT))
			return FC_DONE_AGAIN;	/* it may park, and goes to the origin */
		/*
		 * Metadata ro/fail: a discard would drop data the flash may
		 * still record as dirty, and no commit can record the drop.
		 * Reads and writes go on (ro_write() in fc_decide.c).
		 */
		if (READ_ONCE(v->pool->md_mode) != FC_MD_RW) {
			DMERR_LIMIT("volume %u: discard refused: the pool's metadata is read-only (run fcachectl check --repair)",
				    v->id);
			fc_stat_inc(v->pool, v->slot, FC_ST_ERRORS);
			return FC_DONE_KILL;
		}
		/*
		 * Ordered write-back: a discard would drop dirty data an older
		 * epoch must still take to the origin, or reach the origin
		 * before it.  It does nothing (what a discarded range reads
		 * back is not defined).
		 */
		if (fc_wb_ordered(v->pool)) {
			bio_endio(bio);
			return FC_DONE_SUBMITTED;
		}
		return map_discard(v, bio);
	}
	return map_rw(v, bio, fb, worker);
}

static void fc_bio_work(struct work_struct *ws)
{
	struct fc_bio *fb = container_of(ws, struct fc_bio, work);
	struct bio *bio = dm_bio_from_per_bio_data(fb, sizeof(struct fc_bio));

	if (fb->flags & FC_BF_WT_FLASH) {
		wt_hold();
		fc_wt_submit_flash(fb->v, bio);
		return;
	}
	if (fb->opf & REQ_PREFLUSH) {
		/* it waited for ordered_lag */
		if (map_flush(fb->v, bio) == FC_DONE_REMAP)
			submit_bio_noacct(bio);
		return;
	}
	retry_hold(fb);
	switch (map_bio(fb->v, bio, fb, true)) {
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

	memset(fb, 0, sizeof(*fb));
	INIT_WORK(&fb->work, fc_bio_work);
	fb->v = v;
	fb->iter = bio->bi_iter;
	/* A retry runs in the worker, where blocking is allowed. */
	fb->opf = bio->bi_opf & ~REQ_NOWAIT;

	if (bio->bi_opf & REQ_PREFLUSH) {
		fc_stat_inc(pool, v->slot, FC_ST_FLUSHES);
		if (map_flush(v, bio) == FC_DONE_REMAP)
			return DM_MAPIO_REMAPPED;
		return DM_MAPIO_SUBMITTED;
	}
	switch (map_bio(v, bio, fb, false)) {
	case FC_DONE_REMAP:
		return DM_MAPIO_REMAPPED;
	case FC_DONE_KILL:
		/* no end_io follows: a FUA write's ordered_lag count goes now */
		if (unlikely(fb->flags & FC_BF_ORD_POINT)) {
			unsigned long flags;

			spin_lock_irqsave(&pool->lock, flags);
			pool->ord_points--;
			spin_unlock_irqrestore(&pool->lock, flags);
		}
		return DM_MAPIO_KILL;
	case FC_DONE_AGAIN:
		bio_wouldblock_error(bio);
		return DM_MAPIO_SUBMITTED;
	default:
		return DM_MAPIO_SUBMITTED;
	}
}
