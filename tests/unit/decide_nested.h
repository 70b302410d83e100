/*
 * Reference for test_decide.c: fc_decide() as nested conditions, as it was
 * before the decision table (engine/fc_decide.c at commit 9fd3d3d, renamed
 * nested_decide()).  test_decide.c checks, over random facts, that the table
 * decides every field of struct fc_decision exactly as this does (and, as
 * before, as decide_ref.h's classification of the old map_rw()).
 */
#ifndef DECIDE_NESTED_H
#define DECIDE_NESTED_H
#include "engine/fc_decide.h"

static void count(struct fc_decision *d, enum fc_stat st)
{
	d->count |= FC_STAT_BIT(st);
}

/* To the origin (ORIGIN, ORIGIN_WHOLE, WRITE_AROUND), counted in @why. */
static void around(struct fc_decision *d, enum fc_action act, enum fc_stat why)
{
	d->act = act;
	d->why = why;
	count(d, why);
}

static void kill_bio(struct fc_decision *d)
{
	d->act = FC_ACT_KILL;
	d->why = FC_ST_ERRORS;
	count(d, FC_ST_ERRORS);
}

/* Read-only metadata: a write that cannot be served (ro_write()). */
static void ro_refuse(struct fc_decision *d)
{
	count(d, FC_ST_WRITE_RO_REFUSED);
	kill_bio(d);
}

static void origin_whole(const struct fc_facts *f, struct fc_decision *d, enum fc_stat why)
{
	if (f->write) {
		if (!f->worker)
			count(d, FC_ST_WRITES);
		/*
		 * Read-only metadata: ro_write()'s rule.  A bio spanning blocks
		 * comes here uncut only with nothing pending (cut_span()), or
		 * in the worker, which cannot cut it nor look across it.
		 */
		if (!f->md_rw && (f->pending_here || (f->pending && !d->cut &&
						      f->off + f->len > f->block_sectors))) {
			ro_refuse(d);
			return;
		}
		/* FUA: see write_around(); no entry here, only released blocks */
		d->fua_commit = f->fua && f->pending && f->md_rw;
	} else if (!f->worker) {
		count(d, FC_ST_READS);
	}
	around(d, FC_ACT_ORIGIN_WHOLE, why);
}

/* Write-around: the touched clean sub-blocks are dropped, the origin written. */
static void write_around(const struct fc_facts *f, struct fc_decision *d, enum fc_stat why)
{
	/*
	 * Write-around vs a flash write in flight: that write marks its
	 * sub-blocks valid and dirty when it completes, so dropping them here
	 * meanwhile would bring back, under this write's sectors of a partly
	 * written sub-block, the older data the sub-block was filled with.
	 * Wait for the entry's bios (reads too: the count does not tell them
	 * apart) before going around.
	 */
	if (f->e.present && f->e.inflight) {
		d->act = FC_ACT_WAIT;
		return;
	}
	/*
	 * Reuse before commit: the flash metadata may still map these
	 * sub-blocks as dirty (PDIRTY).  A FUA write must not complete
	 * until a commit recorded them clean, or recovery would bring
	 * the older data back over it.  The same for a block already
	 * released but still committed dirty (pending): that includes the
	 * entry itself if dropping the sub-blocks releases it, and it was
	 * PDIRTY then.
	 */
	d->fua_commit = f->fua && ((f->e.present && f->e.pdirty) || f->pending);
	around(d, FC_ACT_WRITE_AROUND, why == FC_ST_NR ? FC_ST_WRITE_AROUND_BUSY : why);
}

/* The bio needs the sub-blocks @fill of its block read from the origin first. */
static void need_fill(const struct fc_facts *f, struct fc_decision *d, __u8 fill)
{
	const struct fc_efacts *e = &f->e;

	d->fill = fill;
	if (!f->worker) {
		d->act = FC_ACT_DEFER;
		return;
	}
	/*
	 * Promotion vs a write: no fill while writes of this stripe are in
	 * flight to the origin; once the entry is BUSY new writes wait.
	 * Eviction vs in-flight I/O: no fill while the entry has I/O in flight.
	 */
	if (f->ow_busy || (e->present && (e->inflight || e->wb))) {
		if (e->present && (e->dirty & d->mask)) {
			/* dirty data involved: only the cache will do */
			d->act = FC_ACT_WAIT;
			d->wait_stripe = true;
			return;
		}
		if (f->write) {
			/* never stall a write behind a fill */
			write_around(f, d, FC_ST_WRITE_AROUND_BUSY);
			return;
		}
		/* an entry nothing was ever filled into goes (if idle) */
		d->release = e->present && !e->valid && !e->inflight && !e->wb;
		around(d, FC_ACT_ORIGIN, FC_ST_READ_AROUND_OTHER);
		return;
	}
	if (!e->present) {
		if (f->alloc == FC_STEP_NOT_TRIED) {
			d->act = FC_ACT_ALLOC;
			d->then = FC_ACT_FILL;
		} else if (f->write) {
			/* no free block (not reached: a write has its entry) */
			write_around(f, d, FC_ST_WRITE_AROUND_BUSY);
		} else {
			/* no free block */
			around(d, FC_ACT_ORIGIN, FC_ST_READ_AROUND_OTHER);
		}
		return;
	}
	d->act = FC_ACT_FILL;
}

/* May a read miss become a fill (or must it go to the origin)? */
static bool read_admitted(const struct fc_facts *f, struct fc_decision *d, bool seq)
{
	if (f->mode == FC_MODE_PASSTHROUGH || !f->md_rw || f->no_new_dirty ||
	    seq || !f->cacheable) {
		if (seq && !f->worker) {
			count(d, FC_ST_BYPASSED);
			around(d, FC_ACT_ORIGIN, FC_ST_READ_AROUND_SEQ);
		} else {
			around(d, FC_ACT_ORIGIN, FC_ST_READ_AROUND_OTHER);
		}
		return false;
	}
	/*
	 * Second touch (ghost table), unless cached already or in the worker,
	 * or the miss continues a short stream (its fill reads ahead).
	 */
	if (f->e.present || f->worker || f->stream || f->ghost == FC_STEP_YES)
		return true;
	if (f->ghost == FC_STEP_NOT_TRIED)
		d->act = FC_ACT_GHOST;
	else
		around(d, FC_ACT_ORIGIN, FC_ST_READ_AROUND_COLD);
	return false;
}

static void decide_read(const struct fc_facts *f, struct fc_decision *d, bool seq)
{
	const struct fc_efacts *e = &f->e;
	bool dirty = e->present && (e->dirty & d->mask);

	if (!f->worker)
		count(d, FC_ST_READS);
	if (f->alloc == FC_STEP_YES) {
		/* allocated for this read's fill (need_fill()), even of nothing */
		d->act = FC_ACT_FILL;
		d->fill = d->mask;
		return;
	}
	if (e->present && (e->valid & d->mask) == d->mask) {
		if (!f->worker)
			count(d, FC_ST_READ_HITS);
		d->act = FC_ACT_FLASH_READ;
		d->fb_mask = d->mask;
		return;
	}
	if (f->nofill) {
		if (dirty)
			kill_bio(d);	/* the only copy is unreadable */
		else
			around(d, FC_ACT_ORIGIN, FC_ST_READ_AROUND_OTHER);
		return;
	}
	/* dirty sub-blocks are read from the flash, the invalid ones filled */
	if (dirty || read_admitted(f, d, seq))
		need_fill(f, d, d->mask & ~e->valid);
}

/*
 * Why a write in writeback mode may not take a new dirty block: an
 * FC_ST_WRITE_AROUND_* counter, or FC_ST_NR when it may.
 */
static enum fc_stat wb_refusal(const struct fc_facts *f, bool seq)
{
	if (f->mode != FC_MODE_WRITEBACK || !f->md_rw || f->no_new_dirty ||
	    f->nofill || !f->cacheable || f->one_copy)
		return FC_ST_WRITE_AROUND_OTHER;
	if (seq)
		return FC_ST_WRITE_AROUND_SEQ;
	if (!f->e.present && !fc_wb_admit_new(f->nr_dirty, f->nr_blocks, f->wb_high, f->urgent))
		return FC_ST_WRITE_AROUND_HIGH;
	return FC_ST_NR;
}

/* Writeback path (also any write touching dirty sub-blocks). */
static void flash_write(const struct fc_facts *f, struct fc_decision *d, __u8 partial)
{
	const struct fc_efacts *e = &f->e;
	__u8 fill;

	/*
	 * Outside writeback mode, dirty data being copied: wait for the copy,
	 * or the block stays dirty past the flush a disable waits for.
	 */
	if (e->present && (e->dirty & d->mask) && e->wb && f->mode != FC_MODE_WRITEBACK) {
		d->act = FC_ACT_WAIT;
		return;
	}
	if (!e->present) {
		if (f->alloc == FC_STEP_NOT_TRIED) {
			d->act = FC_ACT_ALLOC;
			d->then = FC_ACT_FLASH_WRITE;
		} else {
			write_around(f, d, FC_ST_WRITE_AROUND_BUSY);	/* no free block */
		}
		return;
	}
	if (f->alloc == FC_STEP_YES) {
		count(d, FC_ST_WRITE_ALLOCS);
		if (fc_wb_above_high(f->nr_dirty, f->nr_blocks, f->wb_high))
			count(d, FC_ST_WRITE_SYNC_HIGH);
	} else if (!f->worker) {
		count(d, FC_ST_WRITE_HITS);
	}
	/*
	 * Mirrored pools: dirty data has a twin on the other leg
	 * (every dirty entry has one while both legs are present).
	 */
	if (f->redundant && !e->twin) {
		if (f->twin == FC_STEP_NOT_TRIED) {
			d->act = FC_ACT_TWIN;
			return;
		}
		if (!(e->dirty & d->mask)) {
			write_around(f, d, FC_ST_WRITE_AROUND_BUSY);	/* no free block */
			return;
		}
	}
	/*
	 * Partial writes: a partly covered invalid sub-block is filled
	 * first.  With a twin, a partly covered clean one too: the
	 * twin holds only dirty sub-blocks, and this one turns dirty
	 * (do_fill() writes both copies; FC_BF_TWIN_FILLED: once).
	 */
	fill = partial & ~e->valid;
	if (e->twin && !f->twin_filled)
		fill |= partial & ~e->dirty;
	if (fill) {
		if (f->nofill)
			kill_bio(d);
		else
			need_fill(f, d, fill);
		return;
	}
	d->act = FC_ACT_FLASH_WRITE;
	d->fb_mask = d->mask;
	/*
	 * FUA: stripped on the flash; completion waits for a commit.  Unless
	 * the flash already records every touched sub-block as dirty in
	 * this block (e->committed): then REQ_FUA stays on the flash write,
	 * and its completion is the whole wait (fua_direct).
	 */
	d->fua_direct = f->fua && e->committed && (e->dirty & d->mask) == d->mask;
	d->fua_commit = f->fua && !d->fua_direct;
}

/* Writethrough: its mode, or writeback in a pool that keeps one copy. */
static bool wt_allowed(const struct fc_facts *f, bool seq)
{
	return (f->mode == FC_MODE_WRITETHROUGH ||
		(f->mode == FC_MODE_WRITEBACK && f->one_copy)) && f->md_rw && !f->no_new_dirty &&
		!seq && !f->nofill && f->cacheable && !(f->e.present && f->e.wb);
}

/* Writethrough (wt_allowed()); false: no free block, write around. */
static bool write_through(const struct fc_facts *f, struct fc_decision *d, __u8 partial)
{
	const struct fc_efacts *e = &f->e;

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
	if (e->present && e->inflight) {
		d->act = FC_ACT_WAIT;
		return true;
	}
	if (!e->present) {
		if (f->alloc != FC_STEP_NOT_TRIED)
			return false;
		d->act = FC_ACT_ALLOC;
		d->then = FC_ACT_WT;
		return true;
	}
	if (f->alloc == FC_STEP_YES)
		count(d, FC_ST_WRITE_ALLOCS);
	else if (!f->worker)
		count(d, FC_ST_WRITE_HITS);
	/* Reuse before commit: see write_around(). */
	d->fua_commit = f->fua && (e->pdirty || f->pending);
	/* valid after the flash copy: the touched sub-blocks it covers whole */
	d->fb_mask = (d->mask & ~partial) | (partial & e->valid);
	d->act = FC_ACT_WT;
	return true;
}

/*
 * A write while the metadata is read-only (a commit failed, or the pool
 * was loaded with needs_check; docs/DESIGN.md "Metadata modes").  Nothing
 * can be recorded any more, so the next load replays the flash's last
 * committed state, and every block it records as dirty belongs to an entry
 * that stays hashed or pending in core (FC_E_PDIRTY: never evicted, never
 * reused).  A write is served where that state cannot bring older data
 * back over it:
 *  - no entry: the origin alone; the flash records no dirty data for the
 *    block (its clean records are dropped by that load, which is unclean);
 *  - an entry: the origin and, in place, the entry's own block, which the
 *    last commit may name for the block's dirty data (WT, in_place):
 *    whichever of the two the next load reads holds the new data.  The
 *    entry's bits stay as they are; dirty data is written back by
 *    fc_wb_work(), which then lets flushes succeed (fc_ro_flush());
 *  - refused (EIO, write_ro_refused): a block released while committed
 *    dirty may be this block's (pending_here: its flash block is out of
 *    use), the entry has a twin (a mirrored pool: the twin would need the
 *    write too), or a failed flash write left dirty data it touches.
 * No commit follows, none is waited for: REQ_FUA stays on both writes.
 */
static void ro_write(const struct fc_facts *f, struct fc_decision *d)
{
	const struct fc_efacts *e = &f->e;

	if (f->pending_here ||
	    (e->present && (e->twin || (f->nofill && (e->dirty & d->mask))))) {
		ro_refuse(d);
		return;
	}
	/* One at a time (see write_through()), and never beside a copy. */
	if (e->present && (e->inflight || e->wb)) {
		d->act = FC_ACT_WAIT;
		return;
	}
	if (!e->present || f->nofill) {
		around(d, FC_ACT_WRITE_AROUND, FC_ST_WRITE_AROUND_OTHER);
		return;
	}
	if (!f->worker)
		count(d, FC_ST_WRITE_HITS);
	d->act = FC_ACT_WT;
	d->in_place = true;
	d->fb_mask = d->mask;
}

static void decide_write(const struct fc_facts *f, struct fc_decision *d, bool seq,
			 __u8 partial)
{
	enum fc_stat why;

	if (!f->worker)
		count(d, FC_ST_WRITES);
	if (!f->md_rw) {
		ro_write(f, d);
		return;
	}
	why = wb_refusal(f, seq);
	if ((f->e.present && (f->e.dirty & d->mask)) || why == FC_ST_NR) {
		flash_write(f, d, partial);
		return;
	}
	if (wt_allowed(f, seq) && write_through(f, d, partial))
		return;
	if (!f->worker && f->mode == FC_MODE_WRITEBACK)
		count(d, FC_ST_BYPASSED);
	write_around(f, d, why);
}

/*
 * Map's pass of a bio spanning blocks: cut at the block boundary (true) or
 * go to the origin whole.  Cut when a spanned block is cached (a part may
 * be a hit, or wait for a fill: see span_cached() in fc_volume.c) or the
 * bio may be cached: a read that may be promoted, a write in writeback or
 * writethrough mode.
 */
static bool cut_span(const struct fc_facts *f, bool seq)
{
	if (f->worker)
		return false;
	if (f->e.present || f->span_cached)
		return true;
	/* Read-only metadata: pending blocks are looked up block by block. */
	if (f->write && !f->md_rw && f->pending)
		return true;
	return !seq && f->mode != FC_MODE_PASSTHROUGH &&
		(!f->write || f->mode == FC_MODE_WRITEBACK || f->mode == FC_MODE_WRITETHROUGH);
}

static void nested_decide(const struct fc_facts *f, struct fc_decision *d)
{
	__u32 len = f->len;
	bool seq = false;
	__u8 partial;

	memset(d, 0, sizeof(*d));
	d->why = FC_ST_NR;
	if (!f->worker && len) {
		seq = f->seq;
		if (seq && f->sync && f->mode == FC_MODE_WRITEBACK) {
			/* the redo stream: absorbed (small_write_with()) */
			seq = false;
			count(d, FC_ST_WRITE_SYNC_KEPT);
		}
		if (f->write && f->fua)
			count(d, FC_ST_FUA);
	}
	if (f->off + len > f->block_sectors) {
		if (!cut_span(f, seq)) {
			/* Streams and uncached pass-through I/O go to the origin whole. */
			if (seq && !f->worker)
				count(d, FC_ST_BYPASSED);
			origin_whole(f, d, seq ?
				     (f->write ? FC_ST_WRITE_AROUND_SEQ : FC_ST_READ_AROUND_SEQ) :
				     (f->write ? FC_ST_WRITE_AROUND_OTHER : FC_ST_READ_AROUND_OTHER));
			return;
		}
		d->cut = true;
		len = f->block_sectors - f->off;
	}
	if (!f->cacheable && !f->e.present) {
		origin_whole(f, d, f->write ? FC_ST_WRITE_AROUND_OTHER : FC_ST_READ_AROUND_OTHER);
		return;
	}
	d->mask = fc_subblock_mask(f->off, len, f->subblock_sectors);
	partial = fc_subblock_partial(f->off, len, f->subblock_sectors);

	/* Promotion vs a write: a BUSY entry (fill in flight) makes us wait. */
	if (f->e.present && f->e.busy) {
		d->act = FC_ACT_WAIT;
		return;
	}
	if (f->write)
		decide_write(f, d, seq, partial);
	else
		decide_read(f, d, seq);
}

#endif
