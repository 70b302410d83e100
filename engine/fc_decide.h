/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_decide: what the data path does with one read or write bio, decided
 * from facts: the bio, the entry of its cache block, the volume and the
 * pool (docs/DESIGN.md, "Data path (map)"), by a table of rows
 * (fc_decide_rules[], "The decision table").  Pure C
 * (include/fcache_env.h), unit-tested on the host (tests/unit/test_decide.c).
 *
 * Contract: fc_decide() never does I/O, never allocates, never sleeps and
 * changes nothing: the same facts give the same decision.  The caller
 * (map_rw() in kmod/fc_volume.c) gathers the facts under pool->lock and carries
 * the decision out under the same hold.  Two facts can only be known after
 * a side effect; the decision then asks for it (FC_ACT_GHOST, FC_ACT_ALLOC,
 * FC_ACT_TWIN), the caller does it, records the outcome in the facts and
 * decides again.  Each is asked for at most once (the fact is no longer
 * FC_STEP_NOT_TRIED the second time): a read may need the ghost table or
 * an entry, a write an entry and then its twin.
 */
#ifndef FC_DECIDE_H
#define FC_DECIDE_H

#include "../include/fcache_env.h"
#include "../include/fcache_abi.h"
#include "../include/fcache_format.h"
#include "fc_policy.h"

/*
 * Per-volume I/O counters, per-cpu (fc_stat_inc()): cheap enough to stay
 * on.  The first eight are the fields of the volume's status line; all of
 * them are in the "stats" message's answer, named by fc_stat_names[]
 * (docs/TABLES.md, "Counters").  A decision names the ones its bio counts.
 */
enum fc_stat {
	FC_ST_READS, FC_ST_READ_HITS, FC_ST_WRITES, FC_ST_WRITE_HITS,
	FC_ST_BYPASSED, FC_ST_ERRORS, FC_ST_PROMOTIONS, FC_ST_WRITEBACKS,
	FC_ST_READ_AROUND_SEQ,		/* read misses sent around: stream */
	FC_ST_READ_AROUND_COLD,		/* ... first touch (ghost table) */
	FC_ST_READ_AROUND_OTHER,	/* ... mode, ro, busy entry, retry */
	FC_ST_WRITE_ALLOCS,		/* writes that took a new block */
	FC_ST_WRITE_AROUND_SEQ,		/* writes sent around: stream */
	FC_ST_WRITE_AROUND_HIGH,	/* ... pool above writeback_high */
	FC_ST_WRITE_AROUND_BUSY,	/* ... fill in flight, no free block */
	FC_ST_WRITE_AROUND_OTHER,	/* ... mode, ro, failed flash, past end */
	FC_ST_WRITE_SYNC_KEPT,		/* small sync writes of a stream, absorbed */
	FC_ST_WRITE_SYNC_HIGH,		/* ... allocated above writeback_high */
	FC_ST_FUA,			/* REQ_FUA writes */
	FC_ST_FLUSHES,			/* REQ_PREFLUSH bios */
	FC_ST_FLUSHES_ORIGIN,		/* ... sent on to the origin */
	FC_ST_READ_AHEAD,		/* blocks filled ahead of a short read stream */
	FC_ST_WRITE_RO_REFUSED,		/* writes refused: read-only metadata (ro_write) */
	FC_ST_NR
};

#define FC_STAT_BIT(st)	(1u << (st))

/* Outcome of a step the decision asked for. */
enum fc_step {
	FC_STEP_NOT_TRIED,
	FC_STEP_YES,		/* ghost: second touch, admit; alloc, twin: got a block */
	FC_STEP_NO,		/* ghost: first touch; alloc, twin: no free block */
};

/* The block's entry; all zero when there is none. */
struct fc_efacts {
	bool present;
	bool busy;		/* FC_E_BUSY: a fill in flight */
	bool wb;		/* FC_E_WB: a writeback copy in flight */
	bool pdirty;		/* FC_E_PDIRTY: committed (or being committed) dirty */
	/*
	 * The flash records the entry as it is in core: no change since the
	 * last commit that succeeded, none being written (fc_entry_committed())
	 */
	bool committed;
	bool twin;		/* mirrored pools: has a twin on the other leg */
	/*
	 * Bios on its flash.  A read hit lowers the count without pool->lock,
	 * so a snapshot may say busy when it is no longer (the bio then waits
	 * and fc_park_locked() kicks it), never idle when it is not.
	 */
	bool inflight;
	__u8 valid, dirty;	/* sub-block bitmaps */
};

struct fc_facts {
	/* the bio */
	bool worker;		/* the worker's pass: process context, fills allowed */
	bool write;
	bool fua;		/* REQ_FUA */
	bool sync;		/* REQ_SYNC or REQ_FUA write of one block or less */
	bool urgent;		/* REQ_FUA write of one block or less */
	bool nofill;		/* FC_BF_NOFILL: a fill or the flash failed it */
	bool seq;		/* fc_seq_check(): part of a stream (map's pass, len > 0) */
	bool stream;		/* FC_BF_STREAM: a read miss of a short stream (fc_ra_read()) */
	bool twin_filled;	/* FC_BF_TWIN_FILLED: a fill wrote the twin too */
	__u32 off, len;		/* sectors: offset in the block, length (may span) */
	/* its first block */
	bool cacheable;		/* wholly inside the volume */
	/* a spanned block has an entry (read by map's pass of a spanning bio, no entry) */
	bool span_cached;
	bool ow_busy;		/* origin writes in flight on its stripe, or a big one */
	struct fc_efacts e;
	/* the volume and the pool */
	int mode;		/* FC_MODE_* */
	bool md_rw;		/* metadata mode rw */
	bool no_new_dirty;	/* a flash write failed */
	bool pending;		/* released blocks still committed dirty wait for a commit */
	/*
	 * Read-only metadata, a write: one of them belongs to this block (the
	 * flash may still record it as the block's dirty data).  Looked up
	 * only then; the block's alone (map cuts such a write at the block's
	 * end: CUT).  Implies pending.
	 */
	bool pending_here;
	bool redundant;		/* mirrored, both legs present: dirty data gets a twin */
	/*
	 * Mirrored with one leg in service: no new dirty data (it would
	 * have one copy); a write that would make some is written through.
	 */
	bool one_copy;
	__u64 nr_dirty, nr_blocks;
	__u32 wb_high;		/* writeback_high, percent */
	__u32 block_sectors, subblock_sectors;
	/* outcomes of the steps asked for */
	enum fc_step ghost, alloc, twin;
};

enum fc_action {
	FC_ACT_FLASH_READ,	/* remap to the entry's flash: read hit */
	FC_ACT_FLASH_WRITE,	/* remap to the entry's flash: the write makes it dirty */
	FC_ACT_WT,		/* writethrough: origin now, the flash copy after it (or in_place) */
	FC_ACT_WRITE_AROUND,	/* drop the touched sub-blocks, write the origin */
	FC_ACT_ORIGIN_WHOLE,	/* to the origin uncut (a write there holds ow_big) */
	FC_ACT_ORIGIN,		/* a read to the origin */
	FC_ACT_WAIT,		/* park until the entry (and stripe) is idle, then again */
	FC_ACT_DEFER,		/* to the worker: a fill needs process context */
	FC_ACT_FILL,		/* fill the sub-blocks @fill (entry BUSY), then again */
	FC_ACT_KILL,		/* fail the bio: the only copy of its data is unreadable */
	/* steps: do it, record the outcome in the facts, decide again */
	FC_ACT_GHOST,		/* ask the ghost table: facts.ghost */
	FC_ACT_ALLOC,		/* allocate an entry for the block: facts.alloc */
	FC_ACT_TWIN,		/* give the entry a twin (fc_alloc_twin()): facts.twin */
};

struct fc_decision {
	enum fc_action act;
	enum fc_action then;	/* FC_ACT_ALLOC: what the entry is for */
	enum fc_stat why;	/* ORIGIN*, WRITE_AROUND: the around counter; KILL: errors */
	__u32 count;		/* FC_STAT_BIT()s of every counter the bio counts, why too */
	bool cut;		/* cut the bio at the block boundary first */
	/*
	 * FC_BF_FUA: completion waits for a commit.  FLASH_WRITE: REQ_FUA is
	 * stripped; elsewhere it stays on the origin write.
	 */
	bool fua_commit;
	/*
	 * FLASH_WRITE of REQ_FUA to sub-blocks the flash records as dirty in
	 * this very block: REQ_FUA kept on the flash write, no commit waited
	 * for (FC_BF_FUA_DIRECT).
	 */
	bool fua_direct;
	bool wait_stripe;	/* WAIT: for origin writes of the block's stripe too */
	bool release;		/* ORIGIN: release the entry (empty and idle) */
	/*
	 * WT in place (read-only metadata, ro_write): no sub-block is
	 * dropped first or made valid after; the flash copy keeps REQ_FUA.
	 */
	bool in_place;
	__u8 mask;		/* touched sub-blocks (after the cut) */
	__u8 fb_mask;		/* FLASH_*: @mask; WT: the sub-blocks it makes valid */
	__u8 fill;		/* FILL, DEFER: the sub-blocks to fill */
	__u8 row;		/* the row of fc_decide_rules[] that decided */
};

/*
 * The decision table (fc_decide.c, quoted row for row in docs/DESIGN.md,
 * "The decision table", and checked against it by tests/host/decide_table.sh).
 * Each row names the conditions that must hold (when) and those that must
 * not (unless), for a read, a write or both; the first row that matches
 * decides.  The conditions, computed from the facts before the table is
 * read (fc_decide.c, conds()); each is a fact or one expression of them.
 * tests/unit/test_decide.c names them for docs/DESIGN.md.
 */
enum fc_cond {
	FC_C_WORKER,		/* the worker's pass */
	FC_C_SEQ,		/* map's pass, a stream (not a small sync write in writeback) */
	FC_C_SPAN,		/* spans two blocks */
	FC_C_CUT,		/* may be cut at the block boundary (may_cut()) */
	FC_C_CACHEABLE,		/* the block is wholly inside the volume */
	FC_C_ENTRY,		/* the block has an entry */
	FC_C_BUSY,		/* ... BUSY: a fill in flight */
	FC_C_HIT,		/* every touched sub-block is valid */
	FC_C_DIRTY,		/* a touched sub-block is dirty */
	FC_C_EMPTY,		/* the entry has no valid sub-block */
	FC_C_INFLIGHT,		/* the entry has bios in flight */
	FC_C_COPYING,		/* the entry has a writeback copy in flight */
	FC_C_FILL_BUSY,		/* ow_busy, INFLIGHT or COPYING: a fill cannot start */
	FC_C_NOFILL,		/* FC_BF_NOFILL */
	FC_C_STREAM,		/* FC_BF_STREAM */
	FC_C_MD_RW,		/* metadata mode rw */
	FC_C_RO_PENDING,	/* not MD_RW, pending_here (or pending, SPAN, not CUT) */
	FC_C_PASSTHROUGH,	/* pass-through mode */
	FC_C_WB_MODE,		/* writeback mode */
	FC_C_NO_NEW_DIRTY,	/* a flash write failed */
	FC_C_WB_OTHER,		/* writeback takes no new dirty data, whatever the block */
	FC_C_TO_FLASH,		/* DIRTY, or writeback takes the write */
	FC_C_WT,		/* writethrough may take the write */
	FC_C_WFILL,		/* a write must fill partly covered sub-blocks first */
	FC_C_REDUNDANT,		/* mirrored, both legs: dirty data gets a twin */
	FC_C_TWIN,		/* the entry has a twin */
	FC_C_TWIN_TRIED,	/* the TWIN step was done */
	FC_C_GHOST_YES,		/* the ghost table said: second touch */
	FC_C_GHOST_NO,		/* ... first touch */
	FC_C_ALLOC_YES,		/* the ALLOC step got an entry */
	FC_C_ALLOC_NO,		/* ... no free block */
	FC_C_NR
};

/* Which bios a row is for. */
#define FC_K_READ	1
#define FC_K_WRITE	2

/* The sub-blocks FILL and DEFER fill (also carried by the rows a fill led to). */
enum fc_fill_rule {
	FC_FILL_NONE,
	FC_FILL_TOUCHED,	/* every touched sub-block (a read's new entry) */
	FC_FILL_INVALID,	/* the touched invalid ones (a read) */
	FC_FILL_PARTIAL,	/* the partly covered ones WFILL names (a write) */
};

/* When FC_BF_FUA completion waits for a commit (fua_commit). */
enum fc_fua_rule {
	FC_FUA_NONE,
	/*
	 * A REQ_FUA write to the flash: stripped there and waits for a commit,
	 * unless every touched sub-block is dirty in an entry the flash records
	 * as it is (e->committed): then FUA stays on the flash write and its
	 * completion is the whole wait (fua_direct).
	 */
	FC_FUA_DIRECT,
	FC_FUA_REUSE,		/* ... over a PDIRTY entry, or with released blocks pending */
	FC_FUA_WHOLE,		/* ... with released blocks pending, metadata rw */
};

/* Row flags (FC_RF_*). */
#define FC_RF_WHOLE	0x01	/* the bio taken whole: no sub-block mask */
#define FC_RF_STRIPE	0x02	/* WAIT: for the stripe's origin writes too */
#define FC_RF_RELEASE	0x04	/* ORIGIN: release the entry */
#define FC_RF_IN_PLACE	0x08	/* WT: in place (read-only metadata) */
#define FC_RF_HIT	0x10	/* count write_allocs if allocated, else write_hits (map) */
#define FC_RF_SYNC_HIGH	0x20	/* count write_sync_high if allocated above writeback_high */

struct fc_rule {
	__u8 kind;		/* FC_K_READ, FC_K_WRITE or both */
	__u8 act;		/* enum fc_action */
	__u8 then;		/* ALLOC: the action the entry is for */
	__u8 why;		/* enum fc_stat + 1, counted (and d->why); 0: none */
	__u8 fill;		/* enum fc_fill_rule */
	__u8 fua;		/* enum fc_fua_rule */
	__u8 flags;		/* FC_RF_* */
	__u32 when, unless;	/* FC_C_* bits */
	__u32 map;		/* FC_STAT_BIT()s counted in map's pass only */
	__u32 count;		/* FC_STAT_BIT()s counted in both passes */
};

extern const struct fc_rule fc_decide_rules[];
extern const unsigned int fc_decide_nr_rules;

void fc_decide(const struct fc_facts *f, struct fc_decision *d);

/*
 * The row of the plain read hit, and its shortcut for the hot path: map's
 * pass of a read within one block whose entry is present, not BUSY, and
 * holds every touched sub-block valid is decided by that row whatever the
 * other facts say (no row above it can match: each wants SPAN, no entry,
 * BUSY or ALLOC_YES; test_decide.c checks it against fc_decide() over
 * random facts).  Reads only worker, write, off, len, block_sectors,
 * subblock_sectors, alloc and e.present, e.busy, e.valid: true and *@d as
 * fc_decide() would make it, or false (then gather every fact and decide).
 */
#define FC_ROW_READ_HIT	10
bool fc_decide_read_hit(const struct fc_facts *f, struct fc_decision *d);

#endif
