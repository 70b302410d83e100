// SPDX-License-Identifier: GPL-2.0
/*
 * fc_writeback: copies dirty sub-blocks from the flash to the origins.
 *
 * One writeback worker at a time (pool->wb_lock); it keeps two batches
 * going, the next one's copies starting while the last copies of the one
 * before finish (fc_wb_work()), and the pacing limit counts the copies of
 * both (pool->wb_copies).  A batch is collected by a cursor
 * scan of the entry array under pool->lock, then sorted by (volume, origin
 * block) so each origin sees ascending LBAs, and copied with dm-kcopyd, one
 * job per contiguous run of dirty sub-blocks, all jobs in flight together
 * (at most the pacing limit from fc_wb_decide() in flight, the rest waiting
 * in LBA order).  Wholly dirty blocks that follow each other on the origin
 * (a redo log, a table written in order) go as one origin write of up to
 * FC_WB_RUN_BYTES instead (merge_run()): the flash blocks are read into a
 * buffer, then written with one bio; on spindles a write of a whole run
 * costs about what one block's does.  When every copy is done
 * the origins are flushed, and only then are sub-blocks marked clean, then
 * the batch ends with a commit.
 *
 * Races (docs/DESIGN.md):
 *  - Writeback vs a new write: only idle entries (no I/O in flight) are
 *    taken; their generation is snapshotted and sub-blocks are marked clean
 *    only if it is unchanged when the copy and the origin flush are done.
 *    A block that lost the race keeps its dirty bits, and its age counts
 *    from the batch's start (everything older reached the origin).
 *  - Two batches in flight: the collect skips entries of the other one
 *    (FC_E_WB), and each batch flushes the origins after its own copies.
 *  - Discard / eviction vs writeback: FC_E_WB pins the entry (discard waits,
 *    CLOCK skips it) until the batch ends.
 *  - Writeback durability: the origin is flushed before marking clean.
 *  - Suspend: a volume's postsuspend clears vslot->wb_allowed under
 *    pool->lock and waits for vslot->wb_inflight to drop to zero; a batch
 *    starts no copy for a volume without wb_allowed, nor once the pool is
 *    suspended (stop_copying()), so that wait is for the copies in flight.
 *
 * Flush (fc_flush_volumes(), docs/DESIGN.md "Flush"): a flush message
 * marks the blocks dirty now in pool->flush_set and waits, interruptibly
 * and without doing any I/O itself, until none is left; the worker takes
 * the marked blocks first, at full pace (collect_flush()).  A copy takes a
 * block out of the set when it reached the origin and was flushed there,
 * even if the block was rewritten meanwhile (what was written before the
 * copy began is on the origin), unless a flush began after the copy
 * began (flush_starts): that flush waits for a later copy.
 * So a flush ends however many batches it takes and whatever is written
 * during it.  A presuspend of the table the message came through ends the
 * wait (-EAGAIN); the marks stay, and the worker goes on after the resume.
 *
 * Resync (mirrored pools, fc_resync()): after an unclean shutdown a dirty
 * block's two copies may differ where a write was in flight at the power
 * cut (either version is right for a write no flush covered, but the two
 * must agree before one of them is all that is left), and a twin given to
 * data already dirty (joining) holds nothing until copied.  A slice of at
 * most a second before each writeback run makes each such block
 * (pool->unsynced) BUSY when idle, so reads and writes wait, and copies its
 * dirty sub-blocks from the entry's block to its twin (fc_resync();
 * docs/DESIGN.md "Redundancy invariants").
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/sched/mm.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/jiffies.h>

#include "fc_core.h"
#include "../include/fcache_olog.h"

#define FC_WB_MAX_BATCH	256u
static_assert(FC_VLOG_CANDS <= FC_WB_MAX_BATCH);
#define FC_WB_SCAN	65536u
#define FC_WB_RUN_BYTES	(256u << 10)	/* largest merged origin write */

struct wb_item {
	u64 oblock;
	u32 eidx;
	u16 gen;
	u8 vol;
	u8 mask;		/* dirty sub-blocks copied */
	int err;
	bool flash_err;		/* the read of its flash block failed: that leg fails */
	bool skipped;		/* rewritten before its copy began: not copied */
	atomic_t jobs;
	struct wb_batch *batch;
	struct wb_run *run;	/* merge_run(): the run it is read in */
};

struct wb_batch {
	struct fc_pool *pool;
	struct wb_item *items;
	unsigned int n;
	u16 start_ts;		/* seconds (wrapping) when its copies began */
	u64 flush_starts;	/* pool->flush_starts before its copies began */
	u64 t0;
	atomic_t count;		/* copies in flight + 1 */
	struct completion done;
	struct list_head runs;	/* merged runs, freed when the batch ends */
};

/* Wholly dirty blocks, consecutive on the origin, copied with one write. */
struct wb_run {
	struct list_head list;
	struct wb_item *it;	/* items[0..n) of the sorted batch */
	unsigned int n;
	void *buf;		/* n blocks */
	atomic_t reads;		/* flash reads in flight + 1 */
	struct completion read;
	int err;
};

static int item_cmp(const void *a, const void *b)
{
	const struct wb_item *x = a, *y = b;

	if (x->vol != y->vol)
		return x->vol < y->vol ? -1 : 1;
	if (x->oblock != y->oblock)
		return x->oblock < y->oblock ? -1 : 1;
	return 0;
}

static void end_copy(struct wb_batch *b)
{
	struct fc_pool *pool = b->pool;

	/* Pacing is per pool: the copies of two overlapping batches count. */
	atomic_dec(&pool->wb_copies);
	wake_up(&pool->wb_slot);
	if (atomic_dec_and_test(&b->count))
		complete(&b->done);
}

static void copy_done(int read_err, unsigned long write_err, void *context)
{
	struct wb_item *it = context;

	if (read_err || write_err)
		it->err = -EIO;
	if (read_err)
		it->flash_err = true;
	end_copy(it->batch);
}

static void run_read_put(struct wb_run *run)
{
	if (atomic_dec_and_test(&run->reads))
		complete(&run->read);
}

/* One flash read of a run: an error is its item's block's leg. */
static void run_read_done(unsigned long error, void *context)
{
	struct wb_item *it = context;
	struct wb_run *run = it->run;

	if (error) {
		it->flash_err = true;
		run->err = -EIO;
	}
	run_read_put(run);
}

static void run_write_done(unsigned long error, void *context)
{
	struct wb_run *run = context;
	unsigned int k;

	if (error || run->err)
		for (k = 0; k < run->n; k++)
			run->it[k].err = -EIO;
	end_copy(run->it[0].batch);
}

/* How many items from @it on (at most @n) make one run for merge_run(). */
static unsigned int run_length(struct fc_pool *pool, struct wb_item *it, unsigned int n)
{
	unsigned int max = FC_WB_RUN_BYTES >> (pool->block_shift + SECTOR_SHIFT), k;

	if (it[0].mask != pool->full_mask)
		return 1;
	for (k = 1; k < min(n, max); k++)
		if (it[k].vol != it[0].vol || it[k].oblock != it[0].oblock + k ||
		    it[k].mask != pool->full_mask)
			break;
	return k;
}

/*
 * Copy @n wholly dirty blocks, consecutive on the origin, with one origin
 * write: read them all from the flash into one buffer, then write it.
 * Counts as one copy for the pacing (the caller raised the counts).  False
 * if no buffer could be had: the caller copies block by block.
 */
static bool merge_run(struct fc_pool *pool, struct wb_batch *b, struct wb_item *it,
		      unsigned int n, struct block_device *origin)
{
	sector_t bs = pool->g.block_sectors;
	struct dm_io_request req = { .mem.type = DM_IO_VMA, .client = pool->io };
	struct dm_io_region where;
	unsigned int noio, k;
	struct wb_run *run;

	run = kzalloc(sizeof(*run), GFP_NOIO);
	if (!run)
		return false;
	noio = memalloc_noio_save();
	run->buf = vmalloc(array_size(n, bs << SECTOR_SHIFT));
	memalloc_noio_restore(noio);
	if (!run->buf) {
		kfree(run);
		return false;
	}
	run->it = it;
	run->n = n;
	atomic_set(&run->reads, n + 1);
	init_completion(&run->read);
	list_add(&run->list, &b->runs);

	req.bi_opf = REQ_OP_READ;
	req.notify.fn = run_read_done;
	where.count = bs;
	for (k = 0; k < n; k++) {
		it[k].run = run;
		req.notify.context = &it[k];
		where.bdev = fc_block_bdev(pool, it[k].eidx);
		where.sector = fc_block_sector(pool, it[k].eidx);
		req.mem.ptr.vma = run->buf + ((size_t)k * bs << SECTOR_SHIFT);
		if (fc_dm_io(&req, 1, &where, NULL)) {
			/* not submitted: no device error, the copy just fails */
			run->err = -EIO;
			run_read_put(run);
		}
	}
	if (!atomic_dec_and_test(&run->reads))
		wait_for_completion_io(&run->read);

	req.bi_opf = REQ_OP_WRITE;
	req.mem.ptr.vma = run->buf;
	req.notify.fn = run_write_done;
	req.notify.context = run;
	where.bdev = origin;
	where.sector = it[0].oblock << pool->block_shift;
	where.count = n * bs;
	if (run->err || fc_dm_io(&req, 1, &where, NULL))
		run_write_done(1, run);
	return true;
}

static bool aged(struct fc_pool *pool, struct fc_entry *e, u32 max_age)
{
	u16 now = (u16)(jiffies / HZ);

	return max_age && (u16)(now - e->dirty_ts) >= min_t(u32, max_age, 32767);
}

/* Put entry @e (idle, dirty) in a batch as @it (pool->lock held). */
static void take(struct fc_pool *pool, struct fc_entry *e, struct wb_item *it)
{
	e->flags |= FC_E_WB;
	e->wb_raced = 0;
	atomic_inc(&pool->vol[e->vol].wb_inflight);
	it->oblock = e->oblock;
	it->eidx = fc_eidx(pool, e);
	it->gen = e->gen;
	it->vol = e->vol;
	it->mask = e->dirty;
	it->err = 0;
	it->flash_err = false;
	it->skipped = false;
}

/* An entry writeback may copy now (pool->lock held). */
static bool may_copy(struct fc_pool *pool, struct fc_entry *e)
{
	struct fc_vslot *s = &pool->vol[e->vol];

	/* On a failed leg: its twin takes its place first (fc_vacate_failed()). */
	return e->dirty && fc_entry_idle(e) && !fc_block_failed(pool, fc_eidx(pool, e)) &&
		s->wb_allowed && s->active;
}

/*
 * Collect up to @max blocks that a flush waits for (pool->flush_set), from
 * where the last call stopped; at most FC_WALK_BATCH marked blocks looked at.
 */
static unsigned int collect_flush(struct fc_pool *pool, struct wb_item *items, unsigned int max)
{
	unsigned long nr = pool->g.nr_blocks, i = pool->flush_cursor;
	unsigned int n = 0, seen = 0;
	bool wrapped = false;

	spin_lock_irq(&pool->lock);
	while (n < max && seen < FC_WALK_BATCH) {
		i = find_next_bit(pool->flush_set, nr, i);
		if (i >= nr) {
			if (wrapped)
				break;
			wrapped = true;
			i = 0;
			continue;
		}
		if (wrapped && i >= pool->flush_cursor)
			break;
		seen++;
		if (may_copy(pool, &pool->e[i]))
			take(pool, &pool->e[i], &items[n++]);
		else if (fc_flush_lost(pool, i))
			wake_up_all(&pool->flush_wait);
		i++;
	}
	pool->flush_cursor = i < nr ? i : 0;
	spin_unlock_irq(&pool->lock);
	return n;
}

/*
 * Collect up to @max idle dirty entries.
 * @only_aged: take only entries older than max_dirty_age.
 * @cold_first: the cursor is a second-chance hand for dirty blocks: a dirty
 * block referenced since the hand last passed (FC_E_REF, set by every hit)
 * loses the bit and is skipped this time.  Hot blocks of an OLTP load are
 * rewritten again and again; copying them spends origin bandwidth on data
 * that is dirty again a moment later, while cold dirty blocks pin flash
 * that reads could use.  (The eviction hand clears REF on clean blocks
 * only, so the two hands never fight over a block.)  A block written in
 * bursts can pass the REF test and still be overtaken by its next burst
 * during the copy (a circular redo log): written pool->wb_hot_writes times
 * since it was last clean, it is hot too (fc_wb_hot_writes_next()).  A hot
 * block whose data is older than max_dirty_age is taken anyway, at most
 * @hot_max of them.
 * @urgent: the flash is needed (at or above writeback_high).
 */
static unsigned int collect(struct fc_pool *pool, struct wb_item *items, unsigned int max,
			    bool only_aged, bool cold_first, unsigned int hot_max,
			    bool urgent)
{
	u32 max_age = pool->opts.val[FC_OPT_MAX_DIRTY_AGE];
	u64 nr = pool->g.nr_blocks;
	unsigned int n = 0, scanned, hot = 0, hot_count = 0;
	u8 hot_writes = pool->wb_hot_writes;
	bool old, hot_w;

	spin_lock_irq(&pool->lock);
	for (scanned = 0; scanned < min_t(u64, nr, FC_WB_SCAN) && n < max; scanned++) {
		struct fc_entry *e = &pool->e[pool->wb_cursor];

		if (++pool->wb_cursor >= nr)
			pool->wb_cursor = 0;
		if (!may_copy(pool, e))
			continue;
		old = (only_aged || cold_first) && aged(pool, e, max_age);
		if (only_aged && !old)
			continue;
		hot_w = cold_first && pool->wcount[fc_eidx(pool, e)] >= hot_writes;
		if (cold_first && ((e->flags & FC_E_REF) || hot_w)) {
			if (!old) {
				e->flags &= ~FC_E_REF;
				hot_count += hot_w;
				continue;
			}
			/* Hot data past max_dirty_age: at most @hot_max of the batch. */
			if (hot >= hot_max)
				continue;
			hot++;
		}
		take(pool, e, &items[n++]);
	}
	spin_unlock_irq(&pool->lock);
	WRITE_ONCE(pool->st_wb_aged, pool->st_wb_aged + hot);
	WRITE_ONCE(pool->st_wb_hot, pool->st_wb_hot + hot_count);
	if (cold_first)
		pool->wb_hot_writes = fc_wb_hot_writes_next(n, max, hot_count, urgent);
	return n;
}

/* Wait until fewer than @limit copies of the pool are in flight, take one. */
static void take_slot(struct fc_pool *pool, struct wb_batch *b, unsigned int limit)
{
	wait_event(pool->wb_slot, atomic_read(&pool->wb_copies) < limit);
	atomic_inc(&pool->wb_copies);
	atomic_inc(&b->count);
}

/*
 * Start no more copies of @it: its volume is being suspended (its
 * postsuspend waits for the batch) or the pool is.  Left dirty, as a
 * block rewritten before its copy began is, unless a flush waits for it.
 */
static bool stop_copying(struct fc_pool *pool, struct wb_item *it)
{
	return READ_ONCE(pool->suspended) || !READ_ONCE(pool->vol[it->vol].wb_allowed);
}

/*
 * Rewritten since it was collected (the wait for a slot can be long): this
 * copy could not make the block clean, so it would spend an origin write
 * for nothing.  But a flush waiting for the block takes the copy (what was
 * written before it began reaches the origin): a block rewritten all the
 * time would otherwise never be copied.
 */
static bool skip_rewritten(struct fc_pool *pool, struct wb_item *it)
{
	return READ_ONCE(pool->e[it->eidx].gen) != it->gen &&
		!test_bit(it->eidx, pool->flush_set);
}

/*
 * Sort the batch and start its copies, at most @limit of the pool's copies
 * in flight, in LBA order.  Returns when the last one is issued; the copies
 * of the previous batch may still be running (end_batch() waits).
 */
static void start_batch(struct fc_pool *pool, struct wb_batch *b, struct wb_item *items,
			unsigned int n, unsigned int limit)
{
	u32 sub = pool->g.subblock_sectors;
	unsigned int k, i, j, m;

	sort(items, n, sizeof(*items), item_cmp, NULL);
	WRITE_ONCE(pool->st_wb_batches, pool->st_wb_batches + 1);
	WRITE_ONCE(pool->st_wb_blocks, pool->st_wb_blocks + n);
	b->pool = pool;
	b->items = items;
	b->n = n;
	b->start_ts = (u16)(jiffies / HZ);
	b->t0 = ktime_get_ns();
	/* Its copies read the flash after every flush begun so far (end_batch()). */
	spin_lock_irq(&pool->lock);
	b->flush_starts = pool->flush_starts;
	spin_unlock_irq(&pool->lock);
	atomic_set(&b->count, 1);
	init_completion(&b->done);
	INIT_LIST_HEAD(&b->runs);
	limit = max(limit, 1u);
	atomic_add(n, &pool->wb_inflight);
	for (k = 0; k < n; k++)
		items[k].batch = b;
	for (k = 0; k < n; k++) {
		struct wb_item *it = &items[k];
		struct block_device *origin = pool->vol[it->vol].active->origin;

		if (stop_copying(pool, it)) {
			it->skipped = true;
			continue;
		}
		m = run_length(pool, it, n - k);
		if (m > 1) {
			/* A run counts as one copy. */
			take_slot(pool, b, limit);
			if (merge_run(pool, b, it, m, origin)) {
				WRITE_ONCE(pool->st_wb_ios, pool->st_wb_ios + 1);
				WRITE_ONCE(pool->st_wb_merged, pool->st_wb_merged + m);
				k += m - 1;
				continue;
			}
			atomic_dec(&pool->wb_copies);
			atomic_dec(&b->count);
		}
		for (i = 0; i < pool->g.nr_subblocks;) {
			struct dm_io_region from, to;

			if (!(it->mask & (1u << i))) {
				i++;
				continue;
			}
			for (j = i; j < pool->g.nr_subblocks && (it->mask & (1u << j)); j++)
				;
			from.bdev = fc_block_bdev(pool, it->eidx);
			from.sector = fc_block_sector(pool, it->eidx) + i * sub;
			from.count = (j - i) * sub;
			to.bdev = origin;
			to.sector = (it->oblock << pool->block_shift) + i * sub;
			to.count = from.count;
			take_slot(pool, b, limit);
			/* The block stays dirty, with its age. */
			if (skip_rewritten(pool, it) || stop_copying(pool, it)) {
				it->skipped = true;
				end_copy(b);
				break;
			}
			WRITE_ONCE(pool->st_wb_ios, pool->st_wb_ios + 1);
			dm_kcopyd_copy(pool->kc, &from, 1, &to, 0, copy_done, it);
			i = j;
		}
	}
}

/*
 * The copy of @it ended and a flush waits for its block (pool->lock held):
 * true if the block leaves the flush set.  It does once its copy reached
 * the origin, rewritten or not, unless it was rewritten and a flush began
 * after the copy began (@too_late); a block rewritten before its copy
 * began was skipped.  A failed copy leaves too, counted as the volume's
 * flush error, unless its flash read failed on a leg of a mirrored pool
 * that still has the other (@absorbed): the twin is copied instead.
 */
static bool flush_copied(struct fc_pool *pool, struct wb_item *it, bool too_late,
			 bool absorbed, int flush_err)
{
	struct fc_vslot *s = &pool->vol[it->vol];

	if (it->skipped || too_late || absorbed)
		return false;
	if (it->err || flush_err)
		s->flush_errors++;
	__clear_bit(it->eidx, pool->flush_set);
	s->flush_left--;
	return true;
}

/* Wait for every copy of batch @b, and free its runs. */
static void copies_done(struct fc_pool *pool, struct wb_batch *b)
{
	struct wb_run *run, *tmp;

	if (!atomic_dec_and_test(&b->count))
		wait_for_completion_io(&b->done);
	atomic_sub(b->n, &pool->wb_inflight);
	list_for_each_entry_safe(run, tmp, &b->runs, list) {
		vfree(run->buf);
		kfree(run);
	}
}

/* Flush the origin of every volume in batch @b; @flush_err[vol]: its result. */
static void flush_origins(struct fc_pool *pool, struct wb_batch *b, int *flush_err)
{
	bool flushed[FC_MAX_VOLUMES] = { false };
	unsigned int k;

	for (k = 0; k < b->n; k++) {
		u8 vol = b->items[k].vol;

		if (flushed[vol])
			continue;
		flushed[vol] = true;
		flush_err[vol] = blkdev_issue_flush(pool->vol[vol].active->origin);
	}
}

/*
 * Wait for the batch's copies, flush the origins, mark clean.  Returns the
 * number of failures.
 */
static int end_batch(struct fc_pool *pool, struct wb_batch *b)
{
	int flush_err[FC_MAX_VOLUMES] = { 0 };
	struct wb_item *items = b->items;
	unsigned int k, n = b->n, failed = 0, raced = 0, skipped = 0;
	bool flush_woken = false, absorbed, later_flush;

	copies_done(pool, b);
	/* Writeback durability: flush each origin before marking anything clean. */
	flush_origins(pool, b, flush_err);

	WRITE_ONCE(pool->st_wb_ns, pool->st_wb_ns + ktime_get_ns() - b->t0);

	spin_lock_irq(&pool->lock);
	later_flush = pool->flush_starts != b->flush_starts;
	for (k = 0; k < n; k++) {
		struct wb_item *it = &items[k];
		struct fc_entry *e = &pool->e[it->eidx];
		struct fc_vslot *s = &pool->vol[it->vol];
		bool rewritten = e->gen != it->gen || e->wb_raced;

		e->flags &= ~FC_E_WB;
		/*
		 * A flash read error fails the block's leg of a mirrored pool,
		 * as any I/O error on a leg does (fc_leg_error(); nothing for
		 * one device): the tick then moves the entry to its twin and
		 * the next batch copies from there.  Without this the copy
		 * would be retried on the failed leg every batch.
		 */
		absorbed = it->flash_err && fc_leg_error(pool, fc_block_leg(&pool->g, it->eidx));
		if (test_bit(it->eidx, pool->flush_set))
			flush_woken |= flush_copied(pool, it, rewritten && later_flush,
						    absorbed, flush_err[it->vol]);
		if (it->skipped) {
			/* Not (wholly) copied: dirty as it was, age and all. */
			skipped++;
		} else if (it->err || flush_err[it->vol]) {
			/* A failed writeback keeps the block dirty. */
			failed++;
			fc_stat_inc(pool, it->vol, FC_ST_ERRORS);
		} else if (!rewritten) {
			/*
			 * Writeback vs a new write: clean only if nobody wrote
			 * since.  After a failed commit (read-only metadata,
			 * md_lost) in core only: the flash may go on naming
			 * the block dirty, which the next load replays; that
			 * block holds what the origin now does (ro_write()).
			 */
			fc_entry_set(pool, e, e->valid, e->dirty & ~it->mask);
			fc_stat_inc(pool, it->vol, FC_ST_WRITEBACKS);
			/* Ordered write-back: an older version on the origin now goes. */
			if (!e->dirty && pool->shadow && test_bit(it->eidx, pool->shadow))
				fc_shadow_release(pool, e);
		} else if (rewritten) {
			/*
			 * Rewritten during the copy: what was written before
			 * the copy began is on the origin now (copied, then
			 * flushed), so the block's oldest unwritten data is
			 * no older than the batch.  Without this a hot block
			 * dirty for longer than max_dirty_age would be copied
			 * on every pass of the hand and lose the race every
			 * time, taking the origin time cold blocks need.
			 */
			e->dirty_ts = b->start_ts;
			raced++;
		}
		atomic_dec(&s->wb_inflight);
	}
	fc_kick_locked(pool);
	spin_unlock_irq(&pool->lock);
	WRITE_ONCE(pool->st_wb_raced, pool->st_wb_raced + raced);
	WRITE_ONCE(pool->st_wb_skipped, pool->st_wb_skipped + skipped);
	wake_up_all(&pool->wb_wait);
	if (flush_woken)
		wake_up_all(&pool->flush_wait);
	if (failed)
		DMERR_LIMIT("writeback: %u blocks failed and stay dirty", failed);
	return failed;
}

/*
 * The end of a batch: commit the clean state.  After a failed commit
 * (read-only metadata) nothing can be recorded: the batch only frees the
 * volumes' flushes (fc_commit_work()), and says so once when the last
 * dirty block is written back.
 */
static int wb_commit(struct fc_pool *pool)
{
	u64 dirty;

	if (READ_ONCE(pool->md_mode) == FC_MD_RW)
		return fc_request_commit(pool);
	dirty = READ_ONCE(pool->nr_dirty);
	if (dirty || pool->ro_drained)
		return 0;
	pool->ro_drained = true;
	if (READ_ONCE(pool->pdirty_drops) != READ_ONCE(pool->drops_committed))
		DMERR("read-only metadata: every dirty block is written back to the origins, but flushes still fail: data the flash records as dirty left the cache after the last commit; run fcachectl check --repair");
	else
		DMWARN("read-only metadata: every dirty block is written back to the origins: flushes succeed again; run fcachectl check --repair to make the metadata writable");
	return 0;
}

/*
 * Ordered write-back (docs/DESIGN.md "Ordered write-back"): collect, for
 * each volume, idle dirty blocks of its oldest epoch only (at most @max in
 * all), from the head of the volume's dirty list (pool->olink, oldest
 * epoch first): the work is the batch's, not the entry array's, and at
 * most FC_WALK_BATCH entries a volume are looked at (for the oldest data's
 * age too, ord_origin_ts).  When a volume's oldest epoch is the open one
 * it is closed (a flush point at no request) if @close: writeback is due;
 * else that volume waits.
 */
static unsigned int collect_ordered(struct fc_pool *pool, struct wb_item *items,
				    unsigned int max, bool close)
{
	u16 now = (u16)(jiffies / HZ), ts = now;
	unsigned int vol, n = 0, seen;
	bool any = false, take_ok;
	u32 oldest, min, i;

	spin_lock_irq(&pool->lock);
	fc_ord_index_check(pool);
	oldest = pool->epoch;
	for (vol = 0; vol < FC_MAX_VOLUMES; vol++) {
		struct fc_vslot *s = &pool->vol[vol];

		i = s->ord_head;
		if (i == FC_NONE) {
			s->olog_inplace = false;
			continue;
		}
		min = pool->ep[i];
		if (fc_epoch_before(min, oldest))
			oldest = min;
		take_ok = s->wb_allowed && s->active && (close || min != pool->epoch);
		/*
		 * A volume with an ordered log goes through it (wb_log()),
		 * but for an epoch too large for a record: in place here.
		 */
		if (s->active && s->active->olog) {
			if (s->olog_inplace && min != s->olog_inplace_ep)
				s->olog_inplace = false;
			take_ok = take_ok && s->olog_inplace && fc_vlog_ready(s->active->olog);
		}
		for (seen = 0; i != FC_NONE && seen < FC_WALK_BATCH; i = pool->olink[i].next, seen++) {
			struct fc_entry *e = &pool->e[i];

			if (pool->ep[i] != min)
				break;
			if (WARN_ON_ONCE(!e->dirty || e->vol != vol))
				break;
			/* The oldest data of the epochs not on the origins: the lag in seconds. */
			if (!any || (s16)(e->dirty_ts - ts) < 0)
				ts = e->dirty_ts;
			any = true;
			if (!take_ok || n >= max || !may_copy(pool, e))
				continue;
			/* The open epoch: closed, a flush point at no request. */
			if (min == pool->epoch)
				pool->epoch++;
			take(pool, e, &items[n++]);
		}
	}
	WRITE_ONCE(pool->ord_origin_ts, ts);
	WRITE_ONCE(pool->ord_origin_epoch, oldest);
	spin_unlock_irq(&pool->lock);
	return n;
}

/*
 * Move the head of volume slot @s's ordered log past every record (its
 * batches ended), the slot held active meanwhile (deactivate() waits for
 * wb_inflight); then the writes waiting to reach its origin directly go.
 */
static void log_catch_up(struct fc_pool *pool, struct fc_vslot *s)
{
	struct fc_vlog *l = NULL;

	spin_lock_irq(&pool->lock);
	if (s->wb_allowed && s->active && s->active->olog) {
		l = s->active->olog;
		atomic_inc(&s->wb_inflight);
	}
	spin_unlock_irq(&pool->lock);
	if (!l)
		return;
	if (fc_vlog_ready(l) && !fc_vlog_catch_up(l)) {
		spin_lock_irq(&pool->lock);
		WRITE_ONCE(s->olog_pending, false);
		fc_ord_kick_locked(pool);
		spin_unlock_irq(&pool->lock);
	}
	atomic_dec(&s->wb_inflight);
	wake_up_all(&pool->wb_wait);
}

/*
 * A log batch's copies and origin flush ended (wb_log()): all or nothing.
 * Every copy landed: the blocks are clean, and the older versions the
 * record superseded (shadows, among the first @taken candidates) go.  A
 * failure leaves everything dirty (the log's writer stops: the volume's
 * next resume replays the record); a flush waiting for them returns its
 * error.  Returns 0 if every copy landed, -EAGAIN if some were not made
 * (the volume is being suspended), -EIO on a copy or flush error.
 */
static int end_log_batch(struct fc_pool *pool, struct wb_batch *b, struct fc_vlog *l,
			 unsigned int taken)
{
	int flush_err[FC_MAX_VOLUMES] = { 0 }, err = 0;
	struct fc_olog_cand *c;
	unsigned int k, failed = 0;
	bool flush_woken = false;
	u32 *cidx, *scratch;

	c = fc_vlog_cands(l, &cidx, &scratch);
	copies_done(pool, b);
	flush_origins(pool, b, flush_err);
	WRITE_ONCE(pool->st_wb_ns, pool->st_wb_ns + ktime_get_ns() - b->t0);
	spin_lock_irq(&pool->lock);
	for (k = 0; k < b->n; k++) {
		if (b->items[k].err || flush_err[b->items[k].vol])
			err = -EIO;
		else if (b->items[k].skipped && !err)
			err = -EAGAIN;
	}
	failed = err != 0;
	for (k = 0; k < b->n; k++) {
		struct wb_item *it = &b->items[k];
		struct fc_entry *e = &pool->e[it->eidx];

		e->flags &= ~FC_E_WB;
		if (test_bit(it->eidx, pool->flush_set))
			flush_woken |= flush_copied(pool, it, false, false,
						    failed && !it->err ? -EIO : flush_err[it->vol]);
		if (failed) {
			if (it->err || flush_err[it->vol])
				fc_stat_inc(pool, it->vol, FC_ST_ERRORS);
		} else {
			fc_entry_set(pool, e, e->valid, e->dirty & ~it->mask);
			fc_stat_inc(pool, it->vol, FC_ST_WRITEBACKS);
			if (!e->dirty && pool->shadow && test_bit(it->eidx, pool->shadow))
				fc_shadow_release(pool, e);
		}
		atomic_dec(&pool->vol[it->vol].wb_inflight);
	}
	for (k = 0; k < taken; k++) {
		u32 i = cidx[k];
		struct fc_entry *e = &pool->e[i];
		struct fc_vslot *s = &pool->vol[e->vol];

		/* superseded in the record: a shadow (the newer version is the block's) */
		if (c[k].write || WARN_ON_ONCE(!pool->shadow || !test_bit(i, pool->shadow)))
			continue;
		if (test_bit(i, pool->flush_set)) {
			__clear_bit(i, pool->flush_set);
			s->flush_left--;
			if (failed)
				s->flush_errors++;
			flush_woken = true;
		}
		if (!failed) {
			fc_entry_set(pool, e, e->valid, 0);
			fc_shadow_release(pool, e);
		}
	}
	fc_kick_locked(pool);
	spin_unlock_irq(&pool->lock);
	wake_up_all(&pool->wb_wait);
	if (flush_woken)
		wake_up_all(&pool->flush_wait);
	return err;
}

/*
 * Ordered write-back through volume slot @vol's ordered log (fc_vlog.c):
 * from the head of its dirty list, whole epochs (the open one closed if
 * @close), as many as one record holds (fc_olog_plan(): each block once,
 * its newest version); the record written FUA; then the batch's copies
 * in place, the origin's flush and the clean marks, committed.  The
 * origin plus a replay of the log is the volume at the record's flush
 * point whatever a crash cuts short.  An epoch too large for a record is
 * written in place by collect_ordered() (olog_inplace), after the head
 * moved past every record: a replay must never write older data over it.
 * Returns 1 if a batch ended, 0 if there was nothing to do, -1 on a
 * failure (the log's writer stops).
 */
static int wb_log(struct fc_pool *pool, unsigned int vol, struct wb_item *items,
		  unsigned int max, bool close)
{
	u32 pps = pool->g.subblock_sectors / FC_PAGE_SECTORS, *cidx, *scratch, i, pages, last;
	struct fc_vslot *s = &pool->vol[vol];
	unsigned int n = 0, taken = 0, k, m = 0, epochs = 0;
	bool busy = false, inplace = false;
	struct fc_olog_cand *c;
	struct fc_vlog *l;
	struct wb_batch b;
	int err;

	spin_lock_irq(&pool->lock);
	l = s->active ? s->active->olog : NULL;
	if (!l || !s->wb_allowed || !fc_vlog_ready(l) || s->olog_inplace) {
		spin_unlock_irq(&pool->lock);
		return 0;
	}
	c = fc_vlog_cands(l, &cidx, &scratch);
	for (i = s->ord_head; i != FC_NONE && n < FC_VLOG_CANDS; i = pool->olink[i].next) {
		struct fc_entry *e = &pool->e[i];

		if (pool->ep[i] == pool->epoch && !close)
			break;
		if (!may_copy(pool, e)) {
			busy = true;
			break;
		}
		c[n].oblock = e->oblock;
		c[n].epoch = pool->ep[i];
		c[n].dirty = e->dirty;
		c[n].mask = 0;
		c[n].write = 0;
		cidx[n++] = i;
	}
	/* Whole epochs: the last one looked at may go on. */
	if (n && i != FC_NONE && pool->ep[i] == c[n - 1].epoch) {
		last = c[n - 1].epoch;
		while (n && c[n - 1].epoch == last)
			n--;
		inplace = !n && !busy;
	}
	if (n) {
		taken = fc_olog_plan(c, n, pps, FC_OLOG_REC_MAX, scratch, &pages);
		inplace = !taken;
	}
	if (inplace) {
		s->olog_inplace = true;
		s->olog_inplace_ep = pool->ep[s->ord_head];
	}
	for (k = 0; k < taken; k++) {
		if (!k || c[k].epoch != c[k - 1].epoch)
			epochs++;
		if (!c[k].write)
			continue;
		take(pool, &pool->e[cidx[k]], &items[m]);
		items[m++].mask = c[k].mask;
	}
	/* The open epoch, taken: closed (a flush point at no request). */
	if (taken && c[taken - 1].epoch == pool->epoch)
		pool->epoch++;
	spin_unlock_irq(&pool->lock);
	if (!taken) {
		/* no dirty data left, or an epoch to write in place: the head first */
		if ((inplace || !READ_ONCE(s->dirty)) && fc_vlog_pending(l))
			log_catch_up(pool, s);
		return 0;
	}
	if (fc_vlog_write(l, taken, c[taken - 1].epoch)) {
		spin_lock_irq(&pool->lock);
		for (k = 0; k < m; k++) {
			pool->e[items[k].eidx].flags &= ~FC_E_WB;
			atomic_dec(&s->wb_inflight);
		}
		fc_kick_locked(pool);
		spin_unlock_irq(&pool->lock);
		wake_up_all(&pool->wb_wait);
		return -1;
	}
	WRITE_ONCE(s->olog_pending, true);
	start_batch(pool, &b, items, m, max);
	err = end_log_batch(pool, &b, l, taken);
	if (err) {
		/* the resume after a suspend (-EAGAIN) replays the record */
		fc_vlog_stop(l, err == -EAGAIN ? NULL :
			     "a batch's copies to the origin or its flush failed", err);
		return -1;
	}
	if (wb_commit(pool))
		return -1;
	WRITE_ONCE(pool->st_epochs_written, pool->st_epochs_written + epochs);
	if (fc_vlog_half_full(l))
		log_catch_up(pool, s);
	return 1;
}

/*
 * Ordered write-back: batches of one epoch per volume, each ended (copies,
 * origin flush, clean marks) and committed before the next begins: a
 * commit between two epochs, for after a crash the load would write an
 * epoch's blocks recorded dirty again over a later epoch's.  Read-only
 * metadata records nothing: no writeback (the origins stay as they are).
 */
static void wb_ordered(struct fc_pool *pool, struct wb_item *items, unsigned int max,
		       bool close)
{
	unsigned long start = jiffies;
	unsigned int n, vol, logged;
	struct wb_batch b;

	if (READ_ONCE(pool->md_mode) != FC_MD_RW)
		return;
	while (!pool->suspended && time_before(jiffies, start + HZ)) {
		/* the volumes with an ordered log: a batch each */
		for (vol = 0, logged = 0; vol < FC_MAX_VOLUMES; vol++)
			if (wb_log(pool, vol, items, max, close) > 0)
				logged++;
		n = collect_ordered(pool, items, FC_WB_MAX_BATCH, close);
		if (!n && logged) {
			spin_lock_irq(&pool->lock);
			fc_ord_kick_locked(pool);
			spin_unlock_irq(&pool->lock);
			continue;
		}
		if (!n)
			break;
		start_batch(pool, &b, items, n, max);
		if (end_batch(pool, &b) || wb_commit(pool)) {
			/*
			 * The origin (or the commit) fails: the origins cannot
			 * come closer, so ordered_lag holds no flush back
			 * (fc_ord_lag_gate()) until a batch succeeds; the
			 * tick maps again the flushes it held.
			 */
			if (!pool->ord_wb_failed && READ_ONCE(pool->opts.val[FC_OPT_ORDERED_LAG]))
				DMERR("ordered write-back: writeback to the origin fails; ordered_lag holds no flush back until it succeeds (the origin lags without bound)");
			WRITE_ONCE(pool->ord_wb_failed, true);
			break;
		}
		WRITE_ONCE(pool->ord_wb_failed, false);
		WRITE_ONCE(pool->st_epochs_written, pool->st_epochs_written + 1);
		/*
		 * Progress: the writes that waited go again.  Only then (and
		 * from the tick): a run that copied nothing kicking them would
		 * queue itself again through them, a busy loop.
		 */
		spin_lock_irq(&pool->lock);
		fc_ord_kick_locked(pool);
		spin_unlock_irq(&pool->lock);
	}
}

/* The writeback policy's input (fc_wb_decide()); *@flushing: a flush waits. */
static void wb_input(struct fc_pool *pool, struct fc_wb_input *in, bool drain, bool *flushing)
{
	spin_lock_irq(&pool->lock);
	in->dirty = fc_dirty_load(pool);
	*flushing = fc_flush_pending(pool);
	spin_unlock_irq(&pool->lock);
	in->total = fc_blocks_in_service(pool);
	in->high = pool->opts.val[FC_OPT_WRITEBACK_HIGH];
	/*
	 * A mirrored pool without one of its legs: every dirty block has
	 * one copy left; write them all back (background pace) whatever
	 * writeback_low says.
	 */
	in->low = fc_mirrored(pool) && !fc_redundant(pool) ? 0 :
		pool->opts.val[FC_OPT_WRITEBACK_LOW];
	in->idle = drain || time_after(jiffies, pool->last_io + FC_IDLE_JIFFIES);
	in->aged = pool->opts.val[FC_OPT_MAX_DIRTY_AGE] != 0;
	in->flushing = *flushing || drain;
	in->jobs = pool->opts.val[FC_OPT_WRITEBACK_JOBS];
}

/* The next batch's blocks into @it; how many. */
static unsigned int collect_batch(struct fc_pool *pool, struct wb_item *it, bool flushing,
				  const struct fc_wb_input *in, enum fc_wb_state st)
{
	unsigned int n;

	/*
	 * Below low and not idle: only data older than max_dirty_age.
	 * Above low, freeing flash for new data comes first: hot blocks
	 * past max_dirty_age (rewritten every few seconds, so a copy
	 * often loses the race) get a quarter of each batch, cold
	 * dirty blocks the rest.  A flush's blocks come before all.
	 */
	n = flushing ? collect_flush(pool, it, FC_WB_MAX_BATCH) : 0;
	if (!n)
		n = collect(pool, it, FC_WB_MAX_BATCH,
			    !in->idle && in->dirty * 100 < in->total * in->low, !in->idle,
			    fc_wb_hot_quota(in->dirty, in->total, in->low, FC_WB_MAX_BATCH),
			    st == FC_WB_THROTTLED);
	return n;
}

/*
 * Background writeback.  Batches overlap: the next batch is collected and
 * its copies started while the previous batch's last copies finish, so the
 * origins never wait for a batch's slowest copy, its origin flush and its
 * commit (the collect skips entries of the running batch: FC_E_WB).
 * After a failed commit (read-only metadata, md_lost) every dirty block is
 * written back at full pace, whatever the watermarks say: until its volume
 * has none left, a flush cannot succeed (fc_commit_work()).  A pool loaded
 * read-only (needs_check) has its dirty data committed: no writeback.
 */
void fc_wb_work(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(ws, struct fc_pool, wb_work);
	struct wb_item *items = pool->wb_items;
	struct wb_batch batch[2], *prev = NULL;
	struct fc_wb_input in;
	unsigned long start = jiffies;
	enum fc_wb_state st;
	unsigned int n, cur = 0;
	bool more, flushing, drain = READ_ONCE(pool->md_lost);
	u32 max;

	if (pool->suspended || (READ_ONCE(pool->md_mode) != FC_MD_RW && !drain) ||
	    !mutex_trylock(&pool->wb_lock))
		return;
	/*
	 * Both copies of every dirty block agree: a slice of resync, then
	 * writeback (which reads the entry's own block, never the twin).
	 */
	if (READ_ONCE(pool->nr_unsynced) && !drain)
		fc_resync(pool);
	wb_input(pool, &in, drain, &flushing);
	st = fc_wb_decide(&in, &max);
	pool->wb_state = st;
	if (fc_wb_ordered(pool)) {
		/*
		 * The dirty blocks' lists come with the option, before it
		 * takes effect (fc_ord_index_enable()); their walk of the
		 * array queues us again when it ends.
		 */
		if (!READ_ONCE(pool->olink_ready)) {
			mutex_unlock(&pool->wb_lock);
			return;
		}
		/* Writes wait for it (ord_wait): at full pace. */
		if (READ_ONCE(pool->ord_wait.head))
			max = max_t(u32, max, in.jobs);
		/* Closed epochs go at a background pace at least: their rewrites copy blocks. */
		if (!max && in.dirty)
			max = max_t(u32, in.jobs / 2, 1);
		if (max)
			wb_ordered(pool, items, max, !in.idle ? in.dirty * 100 >= in.total * in.low ||
				   in.flushing || READ_ONCE(pool->ord_wait.head) : true);
		pool->wb_state = st;
		mutex_unlock(&pool->wb_lock);
		return;
	}
	/*
	 * Ordered write-back turned off: a log's records go behind its head
	 * before anything reaches the origin out of their order.
	 */
	for (n = 0; n < FC_MAX_VOLUMES; n++)
		if (READ_ONCE(pool->vol[n].olog_pending))
			log_catch_up(pool, &pool->vol[n]);
	/* Batches back to back for up to a second, then let the tick requeue us. */
	while (max && !pool->suspended && time_before(jiffies, start + HZ)) {
		struct wb_item *it = items + cur * FC_WB_MAX_BATCH;

		n = collect_batch(pool, it, flushing, &in, st);
		if (n)
			start_batch(pool, &batch[cur], it, n, max);
		more = true;
		if (prev) {
			if (end_batch(pool, prev) || wb_commit(pool))
				more = false;
			prev = NULL;
		}
		if (!n) {
			if (st != FC_WB_THROTTLED)
				pool->wb_state = FC_WB_IDLE;
			break;
		}
		prev = &batch[cur];
		cur ^= 1;
		/*
		 * A small batch (cold data trickling in, the rest hot): wait for
		 * the next tick rather than pay an origin flush and a commit for
		 * every few blocks.
		 */
		if (!more || (n < FC_WB_MAX_BATCH / 8 && st != FC_WB_THROTTLED && !in.flushing))
			break;
		spin_lock_irq(&pool->lock);
		in.dirty = fc_dirty_load(pool);
		flushing = fc_flush_pending(pool);
		spin_unlock_irq(&pool->lock);
		in.flushing = flushing || drain;
		in.idle = drain || time_after(jiffies, pool->last_io + FC_IDLE_JIFFIES);
		st = fc_wb_decide(&in, &max);
		pool->wb_state = st;
	}
	if (prev && !end_batch(pool, prev))
		wb_commit(pool);
	mutex_unlock(&pool->wb_lock);
	/* Budget used up with work left: go on now rather than at the next tick. */
	if (max && !pool->suspended && !time_before(jiffies, start + HZ))
		queue_work(pool->wq, &pool->wb_work);
}

/* Two batches: fc_wb_work() overlaps them. */
void *fc_wb_alloc_items(void)
{
	return kvmalloc_array(2 * FC_WB_MAX_BATCH, sizeof(struct wb_item), GFP_KERNEL);
}

void fc_wb_wait_slot(struct fc_pool *pool, int slot)
{
	wait_event(pool->wb_wait, !atomic_read(&pool->vol[slot].wb_inflight));
}
