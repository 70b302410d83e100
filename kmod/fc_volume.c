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

static inline bool twin_write_fault(void)
{
	return false;
}

static inline void retry_hold(struct fc_bio *fb)
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

/* Defer @bio to the worker (lock held by the caller). */
static void defer_locked(struct fc_pool *pool, struct bio *bio)
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
static void wait_commit_locked(struct fc_pool *pool, struct bio *bio)
{
	bio->bi_status = BLK_STS_OK;
	bio_list_add(&pool->fua_bios, bio);
	queue_work(pool->wq, &pool->commit_work);
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
 * The facts about @bio of @block (pool->lock held); returns the block's
 * entry, if any.  Map's pass feeds the stream detectors.
 */
static struct fc_entry *gather_facts(struct fc_volume *v, struct bio *bio, u64 block,
				     bool worker, struct fc_facts *f)
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
	f->nofill = fc_bio(bio)->flags & FC_BF_NOFILL;
	f->off = sector & (bsz - 1);
	f->len = bio_sectors(bio);
	f->mode = v->mode;
	f->block_sectors = bsz;
	f->subblock_sectors = pool->g.subblock_sectors;

	pool->last_io = jiffies;
	e = fc_lookup(pool, v->slot, block);
	/* The stream detector sees the whole bio (a cut remainder counts again). */
	if (!worker && f->len)
		f->seq = fc_seq_check(&v->seq, sector, f->len,
				      (u64)v->opts.seq_cutoff_kib * 2);
	f->cacheable = block_cacheable(v, block);
	/*
	 * Short read streams (fc_ra_read()): every read is noted in
	 * map's pass; one that continues a stream is marked for the worker,
	 * whose fill reads ahead (fill_stream()).
	 */
	if (!worker && !f->write && f->len && f->cacheable &&
	    fc_ra_read(&v->ra, block, !read_hits(e, f), (u32)jiffies, FC_RA_WINDOW))
		fc_bio(bio)->flags |= FC_BF_STREAM;
	f->stream = fc_bio(bio)->flags & FC_BF_STREAM;
	if (!worker && !e && f->off + f->len > bsz)
		f->span_cached = span_cached(v, block, ((u64)f->off + f->len + bsz - 1) / bsz);
	f->ow_busy = origin_writes_in_flight(pool, stripe_of(v, block));
	entry_facts(f, pool, e);
	/* Read-only metadata: may the flash record older dirty data of it? */
	f->pending_here = f->write && pool->md_mode != FC_MD_RW &&
		pool->pending_head != FC_NONE && fc_pending_maps(pool, v->slot, block);
	/* The fill wrote this twin, not one the entry had before or got since. */
	f->twin_filled = (fc_bio(bio)->flags & FC_BF_TWIN_FILLED) && e &&
		fc_bio(bio)->filled_twin == fc_twin_of(pool, fc_eidx(pool, e));
	pool_facts(f, pool);
	return e;
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

static void count_stats(struct fc_pool *pool, int slot, u32 count)
{
	while (count) {
		unsigned int st = __ffs(count);

		count &= count - 1;
		fc_stat_inc(pool, slot, st);
	}
}

/*
 * FC_ACT_FLASH_READ, FC_ACT_FLASH_WRITE: to the entry's flash block.
 * Returns the block a write goes to as well (its twin), or FC_NONE.
 */
static u32 to_flash(struct fc_pool *pool, struct bio *bio, struct fc_entry *e,
		    const struct fc_decision *d)
{
	struct fc_bio *fb = fc_bio(bio);

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
	}
	fb->mask = d->fb_mask;
	atomic_inc(&e->inflight);
	e->flags |= FC_E_REF;
	fb->eidx = fc_eidx(pool, e);
	fb->gen = e->gen;
	return fb->kind == FC_BK_FLASH_WRITE ? fc_twin_of(pool, fb->eidx) : FC_NONE;
}

/*
 * Writethrough: the origin first, then the same data to the flash from
 * the worker; the sub-blocks become valid only if both succeed and no
 * other write came in between (generation).  Meanwhile they are
 * invalid, so reads go to the origin, and the pinned entry (in-flight)
 * keeps fills and eviction away.  One at a time: see write_through() in
 * fc_decide.c.
 */
static void start_wt(struct fc_pool *pool, struct fc_bio *fb, struct fc_entry *e,
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
	 * too (wt_submit_flash()); reads meanwhile are concurrent with the
	 * write.  Only a failure drops anything (wt_in_place_failed()).
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
 * Write-around: drop the touched clean sub-blocks, write the origin.  The
 * entry has nothing in flight (write-around vs a flash write in flight:
 * write_around() in fc_decide.c, which also decides the FUA rule of reuse
 * before commit).
 */
static void write_around(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
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
 * A fill's flash write on @leg failed with @r: counted, and the leg failed
 * (a mirrored pool).  -EAGAIN when it was: decide again (the entry moves or
 * loses its twin); else @r.
 */
static int fill_write_failed(struct fc_pool *pool, unsigned int leg, int r)
{
	DMERR_LIMIT("fill: flash write failed (%d)", r);
	atomic64_inc(&pool->flash_write_errors);
	return fc_leg_error_unlocked(pool, leg) ? -EAGAIN : r;
}

/* Copy the sub-blocks @fill of @block from the origin to @e's flash block. */
static int do_fill(struct fc_volume *v, struct fc_entry *e, u64 block, u8 fill)
{
	struct fc_pool *pool = v->pool;
	u32 sub = pool->g.subblock_sectors, i = 0, j;
	u32 eidx = fc_eidx(pool, e), twin = fc_twin_of(pool, eidx);	/* BUSY: stable */
	void *buf = mempool_alloc(pool->fill_pool, GFP_NOIO);
	unsigned int leg;
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
		leg = fc_block_leg(&pool->g, eidx);
		/* Mirrored: a write is about to make these sub-blocks dirty. */
		if (!r && twin != FC_NONE && !fc_block_failed(pool, twin)) {
			r = fc_sync_io(pool, fc_block_bdev(pool, twin), REQ_OP_WRITE,
				       fc_block_sector(pool, twin) + i * sub, (j - i) * sub,
				       buf);
			leg = !leg;
		}
		if (r) {
			r = fill_write_failed(pool, leg, r);
			break;
		}
		i = j;
	}
	mempool_free(buf, pool->fill_pool);
	return r;
}

/*
 * FC_ACT_FILL, without pool->lock: fill the sub-blocks @fill of the BUSY
 * entry @e, then settle it: @fill valid, or the bio keeps away from the
 * cache from now on (FC_BF_NOFILL).
 */
static void fill_entry(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
		       u64 block, u8 fill)
{
	struct fc_pool *pool = v->pool;
	int r = do_fill(v, e, block, fill);
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	e->flags &= ~FC_E_BUSY;
	if (!r) {
		fc_entry_set(pool, e, e->valid | fill, e->dirty);
		fc_stat_inc(pool, v->slot, FC_ST_PROMOTIONS);
		fb->filled_twin = fc_twin_of(pool, fc_eidx(pool, e));
		if (fb->filled_twin != FC_NONE)
			fb->flags |= FC_BF_TWIN_FILLED;
	} else {
		if (r != -EAGAIN)
			fb->flags |= FC_BF_NOFILL;
		if (!e->valid && !atomic_read(&e->inflight))
			fc_entry_release(pool, e);
	}
	/* Bios that waited on the BUSY entry: the worker must run again. */
	fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * FC_ACT_FILL of a read miss that continues a short stream (FC_BF_STREAM:
 * the two blocks before it were read lately, as an index range scan reads),
 * without pool->lock.  @e was just allocated for the bio (BUSY, nothing
 * valid).  The blocks after it, up to FC_RA_BYTES in all, what the origin
 * takes in one request (fc_ra_blocks(): a read split in two would cost a
 * second seek) and the end of the volume, are given entries too if they have none and no origin write
 * of theirs is in flight (the same rule as any fill: promotion vs a
 * write); new writes to them wait while they are BUSY.  A block that has
 * an entry (a scan passes cached pages: a database's hot pages lie among
 * its cold ones) or an origin write in flight is skipped, not a reason to
 * stop: the one origin request reads it with the others (on spindles it
 * costs what one block's read does) and its part of the buffer is dropped,
 * so the flash's copy, dirty or not, is never touched.  The blocks given
 * entries are written to the flash and made valid and clean.  Not
 * referenced, CLOCK takes them first if the stream does not come.
 * False: nothing done (no buffer), the caller fills as usual.
 */
static bool fill_stream(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e, u64 block)
{
	struct fc_pool *pool = v->pool;
	sector_t bs = pool->g.block_sectors;
	unsigned int max = fc_ra_blocks(bs, FC_RA_BYTES >> SECTOR_SHIFT,
					queue_max_sectors(bdev_get_queue(v->origin)));
	struct fc_entry *ra[FC_RA_BYTES / (FC_MIN_BLOCK_SECTORS << SECTOR_SHIFT)];
	unsigned int n = 1, k, done = 0, noio;
	unsigned long flags;
	void *buf;
	int r;

	noio = memalloc_noio_save();
	buf = vmalloc(array_size(max, bs << SECTOR_SHIFT));
	memalloc_noio_restore(noio);
	if (!buf)
		return false;
	ra[0] = e;
	spin_lock_irqsave(&pool->lock, flags);
	for (k = 1; k < max && block_cacheable(v, block + k); k++) {
		u64 b = block + k;
		struct fc_entry *x;

		ra[k] = NULL;
		if (fc_lookup(pool, v->slot, b) || origin_writes_in_flight(pool, stripe_of(v, b)))
			continue;	/* read with the others, not installed */
		x = fc_alloc_entry(pool, v->slot, b);
		if (!x)
			break;
		x->flags |= FC_E_BUSY;
		ra[k] = x;
		n = k + 1;
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	r = fc_sync_io(pool, v->origin, REQ_OP_READ, block << pool->block_shift, n * bs, buf);
	if (r)
		DMERR_LIMIT("fill: origin read failed (%d)", r);
	for (k = 0; k < n && !r; k++) {
		u32 idx;

		if (!ra[k]) {
			done++;
			continue;
		}
		idx = fc_eidx(pool, ra[k]);
		r = fc_sync_io(pool, fc_block_bdev(pool, idx), REQ_OP_WRITE,
			       fc_block_sector(pool, idx), bs, buf + ((size_t)k * bs << SECTOR_SHIFT));
		if (r) {
			r = fill_write_failed(pool, fc_block_leg(&pool->g, idx), r);
			break;
		}
		done++;
	}
	vfree(buf);

	spin_lock_irqsave(&pool->lock, flags);
	for (k = 0; k < n; k++) {
		struct fc_entry *x = ra[k];

		if (!x)
			continue;
		x->flags &= ~FC_E_BUSY;
		if (k < done) {
			/* BUSY since its allocation: nothing dirty came in */
			fc_entry_set(pool, x, pool->full_mask, 0);
			fc_stat_inc(pool, v->slot, k ? FC_ST_READ_AHEAD : FC_ST_PROMOTIONS);
		} else if (!x->valid && !atomic_read(&x->inflight)) {
			fc_entry_release(pool, x);
		}
	}
	if (!done && r != -EAGAIN)
		fb->flags |= FC_BF_NOFILL;
	fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	return true;
}

/*
 * Map one bio (already within one block, or going to the origin whole):
 * gather the facts under pool->lock, decide (fc_decide.c), carry the
 * decision out.  @worker: process context, fills allowed; after a fill
 * the bio is decided again.
 */
static int map_rw(struct fc_volume *v, struct bio *bio, bool worker)
{
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	u64 block = dm_target_offset(v->ti, bio->bi_iter.bi_sector) >> pool->block_shift;
	struct fc_decision d;
	struct fc_facts f;
	unsigned long flags;
	struct fc_entry *e;
	u32 twin = FC_NONE;
	int done;

again:
	spin_lock_irqsave(&pool->lock, flags);
	e = gather_facts(v, bio, block, worker, &f);
	if (e && fc_block_failed(pool, fc_eidx(pool, e))) {
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
			park_locked(pool, bio, NULL, FC_NONE);
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
	e = decide(v, bio, block, &f, e, &d);
	/* As cut: a retry or the writethrough flash copy starts from here. */
	fb->iter = bio->bi_iter;
	count_stats(pool, v->slot, d.count);
	done = FC_DONE_REMAP;
	switch (d.act) {
	case FC_ACT_FLASH_READ:
	case FC_ACT_FLASH_WRITE:
		twin = to_flash(pool, bio, e, &d);
		break;
	case FC_ACT_WT:
		start_wt(pool, fb, e, &d);
		break;
	case FC_ACT_WRITE_AROUND:
		write_around(v, fb, e, block, &d);
		break;
	case FC_ACT_ORIGIN_WHOLE:
		origin_whole(pool, fb, f.write, &d);
		break;
	case FC_ACT_ORIGIN:
		if (d.release)
			fc_entry_release(pool, e);
		fb->kind = FC_BK_ORIGIN;
		break;
	case FC_ACT_WAIT:
		park_locked(pool, bio, e, d.wait_stripe ? stripe_of(v, block) : FC_NONE);
		done = FC_DONE_SUBMITTED;
		break;
	case FC_ACT_DEFER:
		defer_locked(pool, bio);
		done = FC_DONE_SUBMITTED;
		break;
	case FC_ACT_FILL:
		e->flags |= FC_E_BUSY;
		spin_unlock_irqrestore(&pool->lock, flags);
		/* a new entry for a read of a short stream: fill it and read ahead */
		if (f.write || f.alloc != FC_STEP_YES || !(fb->flags & FC_BF_STREAM) ||
		    !fill_stream(v, fb, e, block))
			fill_entry(v, fb, e, block, d.fill);
		goto again;
	case FC_ACT_KILL:
	default:	/* the steps (GHOST, ALLOC, TWIN) end in decide() */
		done = FC_DONE_KILL;
		break;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (d.count & FC_STAT_BIT(FC_ST_WRITE_RO_REFUSED))
		DMERR_LIMIT("volume %u block %llu: write refused: the pool's metadata is read-only and the flash may still hold older dirty data of this block; it is writable again after fcachectl check --repair",
			    v->id, block);
	if (done != FC_DONE_REMAP)
		return done;
	if (d.act == FC_ACT_FLASH_READ || d.act == FC_ACT_FLASH_WRITE) {
		remap_flash(pool, bio, fb->eidx, f.off);
		if (twin != FC_NONE && submit_mirrored(pool, bio, twin, f.off))
			return FC_DONE_SUBMITTED;
	} else {
		remap_origin(v, bio);
	}
	return FC_DONE_REMAP;
}

/*
 * A writethrough in place failed on the origin or the flash (pool->lock
 * held): the origin and the entry's block may now differ under the
 * touched sub-blocks.  The clean ones are dropped (reads go to the origin;
 * on a PDIRTY entry that stops read-only flushes: fc_entry_set()), the
 * dirty ones stay (the flash holds the only copy), and the write fails.
 */
static void wt_in_place_failed(struct fc_pool *pool, struct fc_bio *fb, struct fc_entry *e)
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
			wt_in_place_failed(pool, fb, e);
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
		wait_commit_locked(pool, bio);
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
	/* In place: this block may be what the next load replays (ro_write()). */
	clone->bi_opf = REQ_OP_WRITE |
		(fb->flags & FC_BF_IN_PLACE ? fb->opf & REQ_FUA : 0);
	clone->bi_end_io = wt_flash_done;
	clone->bi_private = bio;
	submit_bio_noacct(clone);
}

static int map_bio(struct fc_volume *v, struct bio *bio, bool worker)
{
	if (bio_op(bio) == REQ_OP_DISCARD) {
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
		return map_discard(v, bio);
	}
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
	retry_hold(fb);
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
static bool sync_free(struct fc_pool *pool, struct fc_volume *v)
{
	return READ_ONCE(pool->md_mode) == FC_MD_RW && pool->md_gen == pool->md_committed &&
		pool->fw_done == pool->fw_synced &&
		atomic64_read(&v->ow_done) == atomic64_read(&v->ow_synced);
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
		 * the origin, in every mode.  Unless nothing it must make
		 * durable is volatile: every write acknowledged so far is
		 * counted by now (end_io runs before the acknowledgement),
		 * and sync_free() says all of them are on stable media.
		 */
		fc_stat_inc(pool, v->slot, FC_ST_FLUSHES);
		spin_lock_irqsave(&pool->lock, flags);
		if (sync_free(pool, v)) {
			pool->st_sync_free++;
			spin_unlock_irqrestore(&pool->lock, flags);
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
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

/*
 * Restore a bio as mapped and hand it to the worker (retry after an
 * error); @flags: FC_BF_NOFILL keeps it away from the cache.
 */
static int retry_bio(struct fc_pool *pool, struct bio *bio, u8 flags)
{
	struct fc_bio *fb = fc_bio(bio);

	bio->bi_iter = fb->iter;
	bio->bi_opf = fb->opf;
	bio->bi_status = BLK_STS_OK;
	fb->kind = FC_BK_NONE;
	fb->flags = flags;
	defer_locked(pool, bio);
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

int fc_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct fc_volume *v = ti->private;
	struct fc_pool *pool = v->pool;
	struct fc_bio *fb = fc_bio(bio);
	int r = DM_ENDIO_DONE;
	struct fc_entry *e;
	unsigned long flags;
	bool kick = false, direct;

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
		if (fc_leg_error(pool, fc_block_leg(&pool->g, fb->eidx)) &&
		    (!(e->dirty & fb->mask) || fc_twin_of(pool, fb->eidx) != FC_NONE)) {
			/*
			 * Mirrored, its leg failed: again, from the twin or
			 * the origin (the entry moves or goes first).  Dirty
			 * data without a twin was lost with the leg: below.
			 */
			r = retry_bio(pool, bio, 0);
			break;
		}
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
		r = retry_bio(pool, bio, FC_BF_NOFILL);
		break;
	case FC_BK_FLASH_WRITE:
		e = &pool->e[fb->eidx];
		kick = atomic_dec_and_test(&e->inflight);
		/* Writeback vs a new write: bump the generation at completion. */
		fc_entry_bump(e);
		/* Both copies written, neither failed: a FUA_DIRECT write is durable. */
		direct = (fb->flags & FC_BF_FUA_DIRECT) && !*error && !(fb->flags & FC_BF_TWIN_ERR);
		if (fb->flags & FC_BF_TWIN)
			settle_twin_write(pool, fb, error);
		if (!*error) {
			fc_entry_set(pool, e, e->valid | fb->mask, e->dirty | fb->mask);
			if (direct) {
				pool->st_fua_direct++;
				break;
			}
			/* The next REQ_PREFLUSH flushes the flash (sync_free()). */
			pool->fw_done++;
			/*
			 * A FUA write waits for a commit; so does a FUA_DIRECT
			 * one whose other copy failed: the commit records the
			 * failed leg before the write is acknowledged.
			 */
			if (fb->flags & (FC_BF_FUA | FC_BF_FUA_DIRECT)) {
				wait_commit_locked(pool, bio);
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
		r = retry_bio(pool, bio, FC_BF_NOFILL);
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
			wait_commit_locked(pool, bio);
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
			if (fb->flags & FC_BF_IN_PLACE)
				wt_in_place_failed(pool, fb, e);
			else
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
