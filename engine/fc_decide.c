// SPDX-License-Identifier: GPL-2.0
/*
 * fc_decide: the data path's decision for one read or write bio, a table
 * (fc_decide_rules[] below, quoted row for row in docs/DESIGN.md, "The
 * decision table").  Pure C, see fc_decide.h for the contract (no I/O, no
 * allocation, no change to anything); the caller, map_rw() in
 * kmod/fc_volume.c, carries the decision out.
 *
 * The same bio may be decided twice: in map (facts.worker false: counted,
 * cut, streams detected, fills deferred) and again in the worker (worker
 * true: fills run, nothing counted twice), after a wait or a fill too.
 *
 * fc_decide() computes the conditions (conds()), takes the first row that
 * matches and fills the decision from it (carry()).  Before the table, in
 * map's pass of a bio with data: a stream (facts.seq) that is a small sync
 * write in writeback mode is absorbed (not SEQ, counted in write_sync_kept:
 * the redo stream), a REQ_FUA write is counted in fua, and a bio spanning
 * blocks that may be cut (CUT) is cut at the block boundary first.
 */
#include "fc_decide.h"

#define CB(c)	(1u << FC_C_##c)
#define ST(st)	FC_STAT_BIT(FC_ST_##st)
#define WHY(st)	(FC_ST_##st + 1)
#define K_R	FC_K_READ
#define K_W	FC_K_WRITE
#define K_RW	(FC_K_READ | FC_K_WRITE)

/*
 * First match wins.  why is counted too (in both passes); map: counted in
 * map's pass only.  An ALLOC, GHOST or TWIN row is a step: the caller does
 * it, records the outcome in the facts and decides again.
 */
const struct fc_rule fc_decide_rules[] = {
	/*
	 * origin_whole: streams and uncached pass-through I/O spanning blocks,
	 * and blocks past the volume's last whole block, go to the origin
	 * whole.  Read-only metadata: ro_write's rule below.  A bio spanning
	 * blocks comes here uncut only with nothing pending (CUT), or in the
	 * worker, which cannot cut it nor look across it.  FUA: see
	 * write_around; no entry here, only released blocks.
	 */
	{ K_W, FC_ACT_KILL, .when = CB(SPAN) | CB(RO_PENDING), .unless = CB(CUT),
	  .why = WHY(ERRORS), .map = ST(WRITES), .count = ST(WRITE_RO_REFUSED),
	  .flags = FC_RF_WHOLE },
	{ K_R, FC_ACT_ORIGIN_WHOLE, .when = CB(SPAN) | CB(SEQ), .unless = CB(CUT),
	  .why = WHY(READ_AROUND_SEQ), .map = ST(READS) | ST(BYPASSED), .flags = FC_RF_WHOLE },
	{ K_W, FC_ACT_ORIGIN_WHOLE, .when = CB(SPAN) | CB(SEQ), .unless = CB(CUT),
	  .why = WHY(WRITE_AROUND_SEQ), .map = ST(WRITES) | ST(BYPASSED), .fua = FC_FUA_WHOLE,
	  .flags = FC_RF_WHOLE },
	{ K_R, FC_ACT_ORIGIN_WHOLE, .when = CB(SPAN), .unless = CB(CUT),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS), .flags = FC_RF_WHOLE },
	{ K_W, FC_ACT_ORIGIN_WHOLE, .when = CB(SPAN), .unless = CB(CUT),
	  .why = WHY(WRITE_AROUND_OTHER), .map = ST(WRITES), .fua = FC_FUA_WHOLE,
	  .flags = FC_RF_WHOLE },
	{ K_W, FC_ACT_KILL, .when = CB(RO_PENDING), .unless = CB(CACHEABLE) | CB(ENTRY),
	  .why = WHY(ERRORS), .map = ST(WRITES), .count = ST(WRITE_RO_REFUSED),
	  .flags = FC_RF_WHOLE },
	{ K_R, FC_ACT_ORIGIN_WHOLE, .unless = CB(CACHEABLE) | CB(ENTRY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS), .flags = FC_RF_WHOLE },
	{ K_W, FC_ACT_ORIGIN_WHOLE, .unless = CB(CACHEABLE) | CB(ENTRY),
	  .why = WHY(WRITE_AROUND_OTHER), .map = ST(WRITES), .fua = FC_FUA_WHOLE,
	  .flags = FC_RF_WHOLE },
	/* promotion vs a write: a fill in flight; counted when decided again */
	{ K_RW, FC_ACT_WAIT, .when = CB(BUSY) },
	/*
	 * Reads.  need_fill (the rows with a fill): dirty sub-blocks are read
	 * from the flash, the invalid ones filled first; a read miss is
	 * admitted on its second touch (ghost table) unless cached already,
	 * in the worker, or continuing a short stream (its fill reads ahead).
	 * Promotion vs a write: no fill while writes of this stripe are in
	 * flight to the origin; once the entry is BUSY new writes wait.
	 * Eviction vs in-flight I/O: no fill while the entry has I/O in
	 * flight.  Dirty data involved: only the cache will do (wait).  An
	 * entry nothing was ever filled into goes (if idle).
	 */
	{ K_R, FC_ACT_FILL, .when = CB(ALLOC_YES), .map = ST(READS), .fill = FC_FILL_TOUCHED },
	[FC_ROW_READ_HIT] =	/* fc_decide_read_hit() */
	{ K_R, FC_ACT_FLASH_READ, .when = CB(HIT), .map = ST(READS) | ST(READ_HITS) },
	{ K_R, FC_ACT_KILL, .when = CB(NOFILL) | CB(DIRTY), .why = WHY(ERRORS), .map = ST(READS) },
	{ K_R, FC_ACT_ORIGIN, .when = CB(NOFILL), .why = WHY(READ_AROUND_OTHER), .map = ST(READS) },
	{ K_R, FC_ACT_ORIGIN, .when = CB(SEQ), .unless = CB(DIRTY),
	  .why = WHY(READ_AROUND_SEQ), .map = ST(READS) | ST(BYPASSED) },
	{ K_R, FC_ACT_ORIGIN, .when = CB(PASSTHROUGH), .unless = CB(DIRTY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS) },
	{ K_R, FC_ACT_ORIGIN, .unless = CB(MD_RW) | CB(DIRTY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS) },
	{ K_R, FC_ACT_ORIGIN, .when = CB(NO_NEW_DIRTY), .unless = CB(DIRTY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS) },
	{ K_R, FC_ACT_ORIGIN, .unless = CB(CACHEABLE) | CB(DIRTY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS) },
	{ K_R, FC_ACT_GHOST,
	  .unless = CB(ENTRY) | CB(WORKER) | CB(STREAM) | CB(GHOST_YES) | CB(GHOST_NO),
	  .map = ST(READS) },
	{ K_R, FC_ACT_ORIGIN, .when = CB(GHOST_NO), .unless = CB(ENTRY) | CB(WORKER) | CB(STREAM),
	  .why = WHY(READ_AROUND_COLD), .map = ST(READS) },
	{ K_R, FC_ACT_DEFER, .unless = CB(WORKER), .map = ST(READS), .fill = FC_FILL_INVALID },
	{ K_R, FC_ACT_WAIT, .when = CB(FILL_BUSY) | CB(DIRTY), .map = ST(READS), .fill = FC_FILL_INVALID,
	  .flags = FC_RF_STRIPE },
	{ K_R, FC_ACT_ORIGIN, .when = CB(FILL_BUSY) | CB(EMPTY), .unless = CB(INFLIGHT) | CB(COPYING),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS), .fill = FC_FILL_INVALID,
	  .flags = FC_RF_RELEASE },
	{ K_R, FC_ACT_ORIGIN, .when = CB(FILL_BUSY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS), .fill = FC_FILL_INVALID },
	{ K_R, FC_ACT_ALLOC, .then = FC_ACT_FILL, .unless = CB(ENTRY) | CB(ALLOC_YES) | CB(ALLOC_NO),
	  .map = ST(READS), .fill = FC_FILL_INVALID },
	{ K_R, FC_ACT_ORIGIN, .unless = CB(ENTRY),
	  .why = WHY(READ_AROUND_OTHER), .map = ST(READS), .fill = FC_FILL_INVALID },
	{ K_R, FC_ACT_FILL, .map = ST(READS), .fill = FC_FILL_INVALID },
	/*
	 * ro_write: a write while the metadata is read-only (a commit failed,
	 * or the pool was loaded with needs_check; docs/DESIGN.md "Metadata
	 * modes").  Nothing can be recorded any more, so the next load
	 * replays the flash's last committed state, and every block it
	 * records as dirty belongs to an entry that stays hashed or pending in
	 * core (FC_E_PDIRTY: never evicted, never reused).  A write is served
	 * where that state cannot bring older data back over it:
	 *  - no entry: the origin alone; the flash records no dirty data for
	 *    the block (its clean records are dropped by that load, which is
	 *    unclean);
	 *  - an entry: the origin and, in place, the entry's own block, which
	 *    the last commit may name for the block's dirty data (WT,
	 *    in_place): whichever of the two the next load reads holds the new
	 *    data.  The entry's bits stay as they are; dirty data is written
	 *    back by fc_wb_work(), which then lets flushes succeed
	 *    (fc_ro_flush());
	 *  - refused (EIO, write_ro_refused): a block released while committed
	 *    dirty may be this block's (pending_here: its flash block is out
	 *    of use), the entry has a twin (a mirrored pool: the twin would
	 *    need the write too), or a failed flash write left dirty data it
	 *    touches.
	 * One at a time (see write_through), and never beside a copy.  No
	 * commit follows, none is waited for: REQ_FUA stays on both writes.
	 */
	{ K_W, FC_ACT_KILL, .when = CB(RO_PENDING),
	  .why = WHY(ERRORS), .map = ST(WRITES), .count = ST(WRITE_RO_REFUSED) },
	{ K_W, FC_ACT_KILL, .when = CB(TWIN), .unless = CB(MD_RW),
	  .why = WHY(ERRORS), .map = ST(WRITES), .count = ST(WRITE_RO_REFUSED) },
	{ K_W, FC_ACT_KILL, .when = CB(NOFILL) | CB(DIRTY), .unless = CB(MD_RW),
	  .why = WHY(ERRORS), .map = ST(WRITES), .count = ST(WRITE_RO_REFUSED) },
	{ K_W, FC_ACT_WAIT, .when = CB(INFLIGHT), .unless = CB(MD_RW), .map = ST(WRITES) },
	{ K_W, FC_ACT_WAIT, .when = CB(COPYING), .unless = CB(MD_RW), .map = ST(WRITES) },
	{ K_W, FC_ACT_WRITE_AROUND, .unless = CB(MD_RW) | CB(ENTRY),
	  .why = WHY(WRITE_AROUND_OTHER), .map = ST(WRITES) },
	{ K_W, FC_ACT_WRITE_AROUND, .when = CB(NOFILL), .unless = CB(MD_RW),
	  .why = WHY(WRITE_AROUND_OTHER), .map = ST(WRITES) },
	{ K_W, FC_ACT_WT, .unless = CB(MD_RW), .map = ST(WRITES) | ST(WRITE_HITS),
	  .flags = FC_RF_IN_PLACE },
	/*
	 * flash_write: the writeback path, also any write touching dirty
	 * sub-blocks.  Mirrored pools: dirty data has a twin on the other leg
	 * (every dirty entry has one while both legs are present); no block
	 * for it: write-around unless dirty data is touched.  Partial writes:
	 * a partly covered invalid sub-block is filled first.  With a twin, a
	 * partly covered clean one too: the twin holds only dirty sub-blocks,
	 * and this one turns dirty (do_fill() writes both copies;
	 * FC_BF_TWIN_FILLED: once).  A fill that cannot start: never stall a
	 * write behind a fill (write-around), unless dirty data is involved
	 * (wait).  FUA: stripped on the flash; completion waits for a commit.
	 * Outside writeback mode (a mode change with dirty data left, the
	 * passthrough of fcachectl disable), dirty data touched by a write
	 * being copied to the origin: wait for the copy.  The write would
	 * keep the block dirty past a flush that began before it, and the
	 * flush that a disable waits for before the cache leaves the path
	 * must leave no dirty data behind (writeback mode makes new dirty
	 * data at any time anyway; no wait there).
	 */
	{ K_W, FC_ACT_WAIT, .when = CB(DIRTY) | CB(COPYING), .unless = CB(WB_MODE),
	  .map = ST(WRITES) },
	{ K_W, FC_ACT_ALLOC, .then = FC_ACT_FLASH_WRITE, .when = CB(TO_FLASH),
	  .unless = CB(ENTRY) | CB(ALLOC_YES) | CB(ALLOC_NO), .map = ST(WRITES) },
	{ K_W, FC_ACT_WRITE_AROUND, .when = CB(TO_FLASH), .unless = CB(ENTRY),
	  .why = WHY(WRITE_AROUND_BUSY), .map = ST(WRITES), .fua = FC_FUA_REUSE },
	{ K_W, FC_ACT_TWIN, .when = CB(TO_FLASH) | CB(REDUNDANT), .unless = CB(TWIN) | CB(TWIN_TRIED),
	  .map = ST(WRITES), .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_WAIT, .when = CB(TO_FLASH) | CB(REDUNDANT) | CB(INFLIGHT),
	  .unless = CB(TWIN) | CB(DIRTY), .map = ST(WRITES), .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_WRITE_AROUND, .when = CB(TO_FLASH) | CB(REDUNDANT), .unless = CB(TWIN) | CB(DIRTY),
	  .why = WHY(WRITE_AROUND_BUSY), .map = ST(WRITES), .fua = FC_FUA_REUSE,
	  .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_KILL, .when = CB(TO_FLASH) | CB(WFILL) | CB(NOFILL),
	  .why = WHY(ERRORS), .map = ST(WRITES), .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_DEFER, .when = CB(TO_FLASH) | CB(WFILL), .unless = CB(WORKER),
	  .map = ST(WRITES), .fill = FC_FILL_PARTIAL, .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_WAIT, .when = CB(TO_FLASH) | CB(WFILL) | CB(FILL_BUSY) | CB(DIRTY),
	  .map = ST(WRITES), .fill = FC_FILL_PARTIAL,
	  .flags = FC_RF_STRIPE | FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_WAIT, .when = CB(TO_FLASH) | CB(WFILL) | CB(FILL_BUSY) | CB(INFLIGHT),
	  .map = ST(WRITES), .fill = FC_FILL_PARTIAL, .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_WRITE_AROUND, .when = CB(TO_FLASH) | CB(WFILL) | CB(FILL_BUSY),
	  .why = WHY(WRITE_AROUND_BUSY), .map = ST(WRITES), .fill = FC_FILL_PARTIAL,
	  .fua = FC_FUA_REUSE,
	  .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_FILL, .when = CB(TO_FLASH) | CB(WFILL), .map = ST(WRITES), .fill = FC_FILL_PARTIAL,
	  .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	{ K_W, FC_ACT_FLASH_WRITE, .when = CB(TO_FLASH), .map = ST(WRITES), .fua = FC_FUA_DIRECT,
	  .flags = FC_RF_HIT | FC_RF_SYNC_HIGH },
	/*
	 * write_through: its mode, or writeback in a pool that keeps one copy.
	 * Writethrough vs another bio on the block: one at a time.  The flash
	 * copy is a second step, so two overlapping writes in flight could
	 * reach the origin in one order and the flash in the other, leaving
	 * the older data valid on the flash over the newer on the origin.
	 * Waiting for the entry to go idle also means no other write can bump
	 * the generation while this one is in flight except through the dirty
	 * path (a block left dirty by a mode change): see gen_wrapped.  Valid
	 * after the flash copy: the touched sub-blocks it covers whole.  No
	 * free block: write-around.
	 */
	{ K_W, FC_ACT_WAIT, .when = CB(WT) | CB(INFLIGHT), .map = ST(WRITES) },
	{ K_W, FC_ACT_ALLOC, .then = FC_ACT_WT, .when = CB(WT),
	  .unless = CB(ENTRY) | CB(ALLOC_YES) | CB(ALLOC_NO), .map = ST(WRITES) },
	{ K_W, FC_ACT_WT, .when = CB(WT) | CB(ENTRY), .map = ST(WRITES), .fua = FC_FUA_REUSE,
	  .flags = FC_RF_HIT },
	/*
	 * write_around: the touched clean sub-blocks are dropped, the origin
	 * written.  Write-around vs a flash write in flight: that write marks
	 * its sub-blocks valid and dirty when it completes, so dropping them
	 * here meanwhile would bring back, under this write's sectors of a
	 * partly written sub-block, the older data the sub-block was filled
	 * with.  Wait for the entry's bios (reads too: the count does not tell
	 * them apart) before going around.  Reuse before commit (FUA_REUSE):
	 * the flash metadata may still map these sub-blocks as dirty (PDIRTY).
	 * A FUA write must not complete until a commit recorded them clean, or
	 * recovery would bring the older data back over it.  The same for a
	 * block already released but still committed dirty (pending): that
	 * includes the entry itself if dropping the sub-blocks releases it,
	 * and it was PDIRTY then.  Why a write in writeback mode goes around:
	 * a stream, above writeback_high (wb_other not set, no entry, and
	 * fc_wb_admit_new() says no), or anything else (wb_other).
	 */
	{ K_W, FC_ACT_WAIT, .when = CB(WB_MODE) | CB(INFLIGHT), .map = ST(WRITES) | ST(BYPASSED) },
	{ K_W, FC_ACT_WAIT, .when = CB(INFLIGHT), .map = ST(WRITES) },
	{ K_W, FC_ACT_WRITE_AROUND, .when = CB(SEQ), .unless = CB(WB_OTHER),
	  .why = WHY(WRITE_AROUND_SEQ), .map = ST(WRITES) | ST(BYPASSED), .fua = FC_FUA_REUSE },
	{ K_W, FC_ACT_WRITE_AROUND, .unless = CB(WB_OTHER),
	  .why = WHY(WRITE_AROUND_HIGH), .map = ST(WRITES) | ST(BYPASSED), .fua = FC_FUA_REUSE },
	{ K_W, FC_ACT_WRITE_AROUND, .when = CB(WB_MODE),
	  .why = WHY(WRITE_AROUND_OTHER), .map = ST(WRITES) | ST(BYPASSED), .fua = FC_FUA_REUSE },
	{ K_W, FC_ACT_WRITE_AROUND,
	  .why = WHY(WRITE_AROUND_OTHER), .map = ST(WRITES), .fua = FC_FUA_REUSE },
};

const unsigned int fc_decide_nr_rules = ARRAY_SIZE(fc_decide_rules);

/* What a write in the flash path must fill first (WFILL). */
static __u8 write_fill(const struct fc_facts *f, __u8 partial)
{
	__u8 fill = partial & ~f->e.valid;

	if (f->e.twin && !f->twin_filled)
		fill |= partial & ~f->e.dirty;
	return fill;
}

/* CUT: map's pass of a bio spanning blocks may cut it at the boundary. */
static bool may_cut(const struct fc_facts *f, bool seq)
{
	return !f->worker &&
		(f->e.present || f->span_cached || (f->write && !f->md_rw && f->pending) ||
		 (!seq && f->mode != FC_MODE_PASSTHROUGH &&
		  (!f->write || f->mode == FC_MODE_WRITEBACK || f->mode == FC_MODE_WRITETHROUGH)));
}

#define SET(c, cond)	((cond) ? CB(c) : 0)

/* The conditions of fc_decide.h, FC_DECIDE_CONDS(). */
static __u32 conds(const struct fc_facts *f, bool seq, bool span, bool cut, __u8 mask,
		   __u8 partial)
{
	const struct fc_efacts *e = &f->e;
	bool entry = e->present, wb_other, to_flash;

	wb_other = f->mode != FC_MODE_WRITEBACK || !f->md_rw || f->no_new_dirty ||
		f->nofill || !f->cacheable || f->one_copy;
	to_flash = (entry && (e->dirty & mask)) ||
		(!wb_other && !seq &&
		 (entry || fc_wb_admit_new(f->nr_dirty, f->nr_blocks, f->wb_high, f->urgent)));
	return SET(WORKER, f->worker) | SET(SEQ, seq) | SET(SPAN, span) | SET(CUT, cut) |
		SET(CACHEABLE, f->cacheable) | SET(ENTRY, entry) |
		SET(BUSY, entry && e->busy) |
		SET(HIT, entry && (e->valid & mask) == mask) |
		SET(DIRTY, entry && (e->dirty & mask)) |
		SET(EMPTY, entry && !e->valid) |
		SET(INFLIGHT, entry && e->inflight) |
		SET(COPYING, entry && e->wb) |
		SET(FILL_BUSY, f->ow_busy || (entry && (e->inflight || e->wb))) |
		SET(NOFILL, f->nofill) | SET(STREAM, f->stream) | SET(MD_RW, f->md_rw) |
		SET(RO_PENDING, !f->md_rw && (f->pending_here || (f->pending && span && !cut))) |
		SET(PASSTHROUGH, f->mode == FC_MODE_PASSTHROUGH) |
		SET(WB_MODE, f->mode == FC_MODE_WRITEBACK) |
		SET(NO_NEW_DIRTY, f->no_new_dirty) |
		SET(WB_OTHER, wb_other) | SET(TO_FLASH, to_flash) |
		SET(WT, (f->mode == FC_MODE_WRITETHROUGH ||
			 (f->mode == FC_MODE_WRITEBACK && f->one_copy)) &&
		    f->md_rw && !f->no_new_dirty && !seq && !f->nofill && f->cacheable &&
		    !(entry && e->wb)) |
		SET(WFILL, write_fill(f, partial)) |
		SET(REDUNDANT, f->redundant) | SET(TWIN, entry && e->twin) |
		SET(TWIN_TRIED, f->twin != FC_STEP_NOT_TRIED) |
		SET(GHOST_YES, f->ghost == FC_STEP_YES) | SET(GHOST_NO, f->ghost == FC_STEP_NO) |
		SET(ALLOC_YES, f->alloc == FC_STEP_YES) | SET(ALLOC_NO, f->alloc == FC_STEP_NO);
}

/* The decision row @r makes (d->cut is set already). */
static void carry(const struct fc_facts *f, const struct fc_rule *r, __u8 mask, __u8 partial,
		  struct fc_decision *d)
{
	const struct fc_efacts *e = &f->e;

	d->act = r->act;
	d->then = r->then;
	d->count |= r->count | (f->worker ? 0 : r->map);
	if (r->why) {
		d->why = r->why - 1;
		d->count |= FC_STAT_BIT(d->why);
	}
	if ((r->flags & FC_RF_HIT) && f->alloc == FC_STEP_YES)
		d->count |= ST(WRITE_ALLOCS);
	else if ((r->flags & FC_RF_HIT) && !f->worker)
		d->count |= ST(WRITE_HITS);
	if ((r->flags & FC_RF_SYNC_HIGH) && f->alloc == FC_STEP_YES &&
	    fc_wb_above_high(f->nr_dirty, f->nr_blocks, f->wb_high))
		d->count |= ST(WRITE_SYNC_HIGH);
	if (!(r->flags & FC_RF_WHOLE))
		d->mask = mask;
	d->wait_stripe = r->flags & FC_RF_STRIPE;
	d->release = r->flags & FC_RF_RELEASE;
	d->in_place = r->flags & FC_RF_IN_PLACE;

	if (r->fill == FC_FILL_TOUCHED)
		d->fill = mask;
	else if (r->fill == FC_FILL_INVALID)
		d->fill = mask & ~e->valid;
	else if (r->fill == FC_FILL_PARTIAL)
		d->fill = write_fill(f, partial);

	if (r->fua == FC_FUA_DIRECT)
		d->fua_direct = f->fua && e->committed && (e->dirty & mask) == mask;
	if (r->fua == FC_FUA_DIRECT)
		d->fua_commit = f->fua && !d->fua_direct;
	else if (r->fua == FC_FUA_REUSE)
		d->fua_commit = f->fua && ((e->present && e->pdirty) || f->pending);
	else if (r->fua == FC_FUA_WHOLE)
		d->fua_commit = f->fua && f->pending && f->md_rw;

	/* the sub-blocks a flash bio covers; WT: those it makes valid */
	if (r->act == FC_ACT_FLASH_READ || r->act == FC_ACT_FLASH_WRITE ||
	    (r->act == FC_ACT_WT && d->in_place))
		d->fb_mask = mask;
	else if (r->act == FC_ACT_WT)
		d->fb_mask = (mask & ~partial) | (partial & e->valid);
}

void fc_decide(const struct fc_facts *f, struct fc_decision *d)
{
	__u32 len = f->len, c, kind = f->write ? FC_K_WRITE : FC_K_READ;
	__u8 mask = 0, partial = 0;
	bool seq = false, span;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->why = FC_ST_NR;
	if (!f->worker && len) {
		seq = f->seq;
		if (seq && f->sync && f->mode == FC_MODE_WRITEBACK) {
			/* the redo stream: absorbed (small_write_with()) */
			seq = false;
			d->count |= ST(WRITE_SYNC_KEPT);
		}
		if (f->write && f->fua)
			d->count |= ST(FUA);
	}
	span = f->off + len > f->block_sectors;
	if (span && may_cut(f, seq)) {
		d->cut = true;
		len = f->block_sectors - f->off;
	}
	if (!span || d->cut) {
		mask = fc_subblock_mask(f->off, len, f->subblock_sectors);
		partial = fc_subblock_partial(f->off, len, f->subblock_sectors);
	}
	c = conds(f, seq, span, d->cut, mask, partial);
	for (i = 0; i < fc_decide_nr_rules; i++) {
		const struct fc_rule *r = &fc_decide_rules[i];

		if ((r->kind & kind) && (c & r->when) == r->when && !(c & r->unless)) {
			d->row = i;
			carry(f, r, mask, partial, d);
			return;
		}
	}
	/* Not reached: the last row of each kind matches anything (test_decide.c). */
	d->act = FC_ACT_KILL;
	d->why = FC_ST_ERRORS;
}

bool fc_decide_read_hit(const struct fc_facts *f, struct fc_decision *d)
{
	__u8 mask;

	/*
	 * Every row above FC_ROW_READ_HIT wants SPAN, no ENTRY, BUSY or
	 * ALLOC_YES; sync is a write's (counted as write_sync_kept).
	 */
	if (f->worker || f->write || f->sync || !f->len || f->off + f->len > f->block_sectors ||
	    !f->e.present || f->e.busy || f->alloc == FC_STEP_YES)
		return false;
	mask = fc_subblock_mask(f->off, f->len, f->subblock_sectors);
	if ((f->e.valid & mask) != mask)
		return false;
	memset(d, 0, sizeof(*d));
	d->why = FC_ST_NR;
	d->row = FC_ROW_READ_HIT;
	carry(f, &fc_decide_rules[FC_ROW_READ_HIT], mask, 0, d);
	return true;
}
