/*
 * Unit tests of engine/fc_decide.c: the data path's decision, row by row of
 * the table in docs/DESIGN.md ("Data path (map)"), the differences between
 * map's pass and the worker's, the counters, the two-step decisions
 * (ghost table, allocation), writes with read-only metadata (issue 32
 * item 7), and a comparison with decide_ref.h (the
 * classification as map_rw() did it before fc_decide.c) over random facts.
 */
#include "engine/fc_decide.h"
#include "decide_ref.h"
#include "decide_nested.h"
#include "unit.h"
#include <stdlib.h>

#define BSZ	64u	/* sectors a block: 32 KiB */
#define SUB	8u	/* sectors a sub-block: 8 sub-blocks */
#define FULL	0xffu

static const char *const act_names[] = {
	[FC_ACT_FLASH_READ] = "flash_read", [FC_ACT_FLASH_WRITE] = "flash_write",
	[FC_ACT_WT] = "writethrough", [FC_ACT_WRITE_AROUND] = "write_around",
	[FC_ACT_ORIGIN_WHOLE] = "origin_whole", [FC_ACT_ORIGIN] = "origin",
	[FC_ACT_WAIT] = "wait", [FC_ACT_DEFER] = "defer", [FC_ACT_FILL] = "fill",
	[FC_ACT_KILL] = "kill", [FC_ACT_GHOST] = "ghost", [FC_ACT_ALLOC] = "alloc",
	[FC_ACT_TWIN] = "twin",
};

/* A 4 KiB read or write at the start of a cacheable block, writeback mode. */
static struct fc_facts base(bool write)
{
	struct fc_facts f;

	memset(&f, 0, sizeof(f));
	f.write = write;
	f.off = 0;
	f.len = SUB;
	f.cacheable = true;
	f.mode = FC_MODE_WRITEBACK;
	f.md_rw = true;
	f.nr_dirty = 0;
	f.nr_blocks = 1000;
	f.wb_high = 80;
	f.block_sectors = BSZ;
	f.subblock_sectors = SUB;
	return f;
}

static void entry(struct fc_facts *f, __u8 valid, __u8 dirty)
{
	f->e.present = true;
	f->e.valid = valid;
	f->e.dirty = dirty;
}

/*
 * Every decision is also made by nested_decide() (decide_nested.h, the
 * nested conditions the table replaced): every field must be the same.
 */
static unsigned long nested_differ, row_reached[256];

static void decide_both(const struct fc_facts *f, struct fc_decision *d)
{
	struct fc_decision n;

	fc_decide(f, d);
	nested_decide(f, &n);
	if ((d->act != n.act || d->then != n.then || d->why != n.why || d->count != n.count ||
	     d->cut != n.cut || d->fua_commit != n.fua_commit || d->fua_direct != n.fua_direct || d->wait_stripe != n.wait_stripe ||
	     d->release != n.release || d->in_place != n.in_place || d->mask != n.mask ||
	     d->fb_mask != n.fb_mask || d->fill != n.fill) && nested_differ++ < 5)
		printf("  row %u differs from the nested conditions: act %d (%d) count %#x (%#x) fill %#x (%#x) fua %d (%d) mask %#x (%#x) fb %#x (%#x)\n",
		       d->row + 1, d->act, n.act, d->count, n.count, d->fill, n.fill,
		       d->fua_commit, n.fua_commit, d->mask, n.mask, d->fb_mask, n.fb_mask);
	row_reached[d->row]++;
}

/* What the caller's answers to the steps were, and how often it was asked. */
struct run {
	struct fc_decision d;
	bool cut;		/* by any of the decisions */
	int ghost_asks, alloc_asks, twin_asks, decisions;
};

/*
 * Decide as map_rw() does: cut, then the steps with the answers given
 * (an allocated entry is empty and idle), each followed by a new decision.
 */
static struct run run3(struct fc_facts f, bool ghost_ans, bool alloc_ans, bool twin_ans)
{
	struct run r;

	memset(&r, 0, sizeof(r));
	for (;;) {
		decide_both(&f, &r.d);
		r.decisions++;
		if (r.d.cut) {
			f.len = f.block_sectors - f.off;
			r.cut = true;
		}
		if (r.d.act == FC_ACT_GHOST) {
			r.ghost_asks++;
			if (f.ghost != FC_STEP_NOT_TRIED)
				break;	/* asked twice: fails the checks below */
			f.ghost = ghost_ans ? FC_STEP_YES : FC_STEP_NO;
		} else if (r.d.act == FC_ACT_ALLOC) {
			r.alloc_asks++;
			if (f.alloc != FC_STEP_NOT_TRIED)
				break;
			f.alloc = alloc_ans ? FC_STEP_YES : FC_STEP_NO;
			memset(&f.e, 0, sizeof(f.e));
			f.e.present = alloc_ans;
		} else if (r.d.act == FC_ACT_TWIN) {
			r.twin_asks++;
			if (f.twin != FC_STEP_NOT_TRIED)
				break;
			f.twin = twin_ans ? FC_STEP_YES : FC_STEP_NO;
			f.e.twin = twin_ans;
		} else {
			break;
		}
	}
	return r;
}

static struct run run(struct fc_facts f, bool ghost_ans, bool alloc_ans)
{
	return run3(f, ghost_ans, alloc_ans, true);
}

static struct run run1(struct fc_facts f)
{
	return run(f, true, true);
}

static bool counted(const struct fc_decision *d, __u32 bits)
{
	return d->count == bits;
}

#define B(st) FC_STAT_BIT(FC_ST_##st)

static void test_reads(void)
{
	struct fc_facts f = base(false);
	struct run r;

	entry(&f, FULL, 0);
	r = run1(f);
	CHECK("read hit: flash", r.d.act == FC_ACT_FLASH_READ && r.d.fb_mask == 0x01 &&
	      counted(&r.d, B(READS) | B(READ_HITS)));
	f.worker = true;
	r = run1(f);
	CHECK("read hit in the worker: not counted again", r.d.act == FC_ACT_FLASH_READ &&
	      counted(&r.d, 0));

	/* miss, admitted: second touch (map), fill (worker), then a hit */
	f = base(false);
	r = run(f, true, true);
	CHECK("read miss admitted: ghost asked, deferred for a fill",
	      r.d.act == FC_ACT_DEFER && r.d.fill == 0x01 && r.ghost_asks == 1 &&
	      r.alloc_asks == 0 && counted(&r.d, B(READS)));
	f.worker = true;
	r = run(f, true, true);
	CHECK("read miss in the worker: no ghost, allocated, filled",
	      r.d.act == FC_ACT_FILL && r.d.fill == 0x01 && r.ghost_asks == 0 &&
	      r.alloc_asks == 1 && counted(&r.d, 0));
	r = run(f, true, false);
	CHECK("read miss in the worker, no free block: origin (around_other)",
	      r.d.act == FC_ACT_ORIGIN && r.d.why == FC_ST_READ_AROUND_OTHER &&
	      counted(&r.d, B(READ_AROUND_OTHER)));
	entry(&f, 0x01, 0);
	r = run1(f);
	CHECK("after the fill: a hit", r.d.act == FC_ACT_FLASH_READ);

	/* miss, not admitted: first touch */
	f = base(false);
	r = run(f, false, true);
	CHECK("read miss first touch: origin (around_cold)", r.d.act == FC_ACT_ORIGIN &&
	      r.d.why == FC_ST_READ_AROUND_COLD && r.ghost_asks == 1 &&
	      counted(&r.d, B(READS) | B(READ_AROUND_COLD)));
	entry(&f, 0x02, 0);
	r = run(f, false, true);
	CHECK("read miss of a cached block: no ghost, deferred", r.d.act == FC_ACT_DEFER &&
	      r.ghost_asks == 0 && r.d.fill == 0x01);

	/* partly dirty, partly invalid: fill the invalid ones, then a hit */
	f = base(false);
	f.len = 2 * SUB;
	entry(&f, 0x01, 0x01);
	r = run1(f);
	CHECK("read of dirty + invalid: defer, fill the invalid", r.d.act == FC_ACT_DEFER &&
	      r.d.fill == 0x02 && r.ghost_asks == 0);
	f.mode = FC_MODE_PASSTHROUGH;
	r = run1(f);
	CHECK("read of dirty + invalid, passthrough: still filled", r.d.act == FC_ACT_DEFER &&
	      r.d.fill == 0x02);
	f.worker = true;
	r = run1(f);
	CHECK("... in the worker: fill", r.d.act == FC_ACT_FILL && r.d.fill == 0x02);
	f.ow_busy = true;
	r = run1(f);
	CHECK("... origin writes in flight: wait for the stripe too",
	      r.d.act == FC_ACT_WAIT && r.d.wait_stripe);
	f.ow_busy = false;
	f.e.inflight = true;
	r = run1(f);
	CHECK("... entry in flight: wait", r.d.act == FC_ACT_WAIT && r.d.wait_stripe);

	/* retries and failed fills (FC_BF_NOFILL) */
	f = base(false);
	f.nofill = true;
	entry(&f, 0x02, 0);
	r = run1(f);
	CHECK("nofill read miss: origin", r.d.act == FC_ACT_ORIGIN &&
	      counted(&r.d, B(READS) | B(READ_AROUND_OTHER)));
	entry(&f, 0x01, 0x01);
	f.len = 2 * SUB;
	r = run1(f);
	CHECK("nofill read of dirty data: kill (errors)", r.d.act == FC_ACT_KILL &&
	      counted(&r.d, B(READS) | B(ERRORS)));
	f.len = SUB;
	r = run1(f);
	CHECK("nofill read, all valid: still a hit", r.d.act == FC_ACT_FLASH_READ);
}

static void test_read_origin(void)
{
	struct fc_facts f = base(false);
	struct run r;
	int mode;

	f.seq = true;
	r = run1(f);
	CHECK("stream read: origin (bypassed, around_seq)", r.d.act == FC_ACT_ORIGIN &&
	      r.ghost_asks == 0 && counted(&r.d, B(READS) | B(BYPASSED) | B(READ_AROUND_SEQ)));
	f.stream = true;
	r = run1(f);
	CHECK("long stream read of a short stream: still origin", r.d.act == FC_ACT_ORIGIN);
	f = base(false);
	f.stream = true;
	r = run(f, false, true);
	CHECK("short stream miss: admitted without the ghost table (fill in the worker)",
	      r.d.act == FC_ACT_DEFER && r.ghost_asks == 0 && counted(&r.d, B(READS)));
	for (mode = 0; mode < 4; mode++) {
		f = base(false);
		f.mode = mode;
		r = run(f, true, true);
		CHECK(mode == FC_MODE_PASSTHROUGH ? "read miss passthrough: origin" :
		      "read miss other modes: promoted",
		      mode == FC_MODE_PASSTHROUGH ?
		      r.d.act == FC_ACT_ORIGIN && r.d.why == FC_ST_READ_AROUND_OTHER :
		      r.d.act == FC_ACT_DEFER);
	}
	f = base(false);
	f.md_rw = false;
	r = run1(f);
	CHECK("read miss, metadata ro: origin", r.d.act == FC_ACT_ORIGIN &&
	      r.d.why == FC_ST_READ_AROUND_OTHER);
	f = base(false);
	f.no_new_dirty = true;
	r = run1(f);
	CHECK("read miss, failed flash: origin", r.d.act == FC_ACT_ORIGIN);
	f = base(false);
	f.worker = true;
	f.ow_busy = true;
	entry(&f, 0, 0);
	r = run1(f);
	CHECK("worker read, fill cannot start: origin, empty entry released",
	      r.d.act == FC_ACT_ORIGIN && r.d.release && counted(&r.d, B(READ_AROUND_OTHER)));
	f.e.wb = true;
	r = run1(f);
	CHECK("... entry under writeback: not released", r.d.act == FC_ACT_ORIGIN && !r.d.release);
	f.e.wb = false;
	f.e.valid = 0x02;
	r = run1(f);
	CHECK("... entry with valid data: not released", r.d.act == FC_ACT_ORIGIN && !r.d.release);
}

static void test_span(void)
{
	struct fc_facts f = base(false);
	struct run r;

	/* 16 KiB from the last 4 KiB of a block */
	f.off = BSZ - SUB;
	f.len = 4 * SUB;
	r = run(f, true, true);
	CHECK("spanning read, nothing cached: cut (may be promoted)",
	      r.cut && r.d.act == FC_ACT_DEFER && r.d.mask == 0x80);
	f.seq = true;
	r = run1(f);
	CHECK("spanning stream read: origin whole (bypassed, around_seq)",
	      !r.cut && r.d.act == FC_ACT_ORIGIN_WHOLE &&
	      counted(&r.d, B(READS) | B(BYPASSED) | B(READ_AROUND_SEQ)));
	f.span_cached = true;
	r = run1(f);
	CHECK("spanning stream read, a spanned block cached: cut",
	      r.cut && r.d.act == FC_ACT_ORIGIN);
	f.span_cached = false;
	entry(&f, FULL, 0);
	r = run1(f);
	CHECK("spanning stream read, first block cached: cut, hit",
	      r.cut && r.d.act == FC_ACT_FLASH_READ && r.d.fb_mask == 0x80);
	f = base(false);
	f.off = BSZ - SUB;
	f.len = 4 * SUB;
	f.mode = FC_MODE_PASSTHROUGH;
	r = run1(f);
	CHECK("spanning passthrough read: origin whole (around_other)",
	      r.d.act == FC_ACT_ORIGIN_WHOLE && counted(&r.d, B(READS) | B(READ_AROUND_OTHER)));
	f = base(true);
	f.off = BSZ - SUB;
	f.len = 4 * SUB;
	f.mode = FC_MODE_WRITEAROUND;
	r = run1(f);
	CHECK("spanning write, writearound: origin whole, ow_big (around_other)",
	      r.d.act == FC_ACT_ORIGIN_WHOLE && counted(&r.d, B(WRITES) | B(WRITE_AROUND_OTHER)));
	f.mode = FC_MODE_WRITETHROUGH;
	r = run1(f);
	CHECK("spanning write, writethrough: cut", r.cut && r.d.act == FC_ACT_WT);
	f.mode = FC_MODE_WRITEBACK;
	f.worker = true;
	r = run1(f);
	CHECK("spanning bio in the worker: never cut, origin whole, not counted",
	      !r.cut && r.d.act == FC_ACT_ORIGIN_WHOLE &&
	      counted(&r.d, B(WRITE_AROUND_OTHER)));
	f = base(true);
	f.cacheable = false;
	f.fua = true;
	r = run1(f);
	CHECK("write past the last whole block: origin whole (around_other)",
	      r.d.act == FC_ACT_ORIGIN_WHOLE && !r.d.fua_commit &&
	      counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_AROUND_OTHER)));
	f.pending = true;
	r = run1(f);
	CHECK("... FUA with released blocks awaiting a commit: waits for it",
	      r.d.act == FC_ACT_ORIGIN_WHOLE && r.d.fua_commit);
	entry(&f, FULL, 0);
	r = run1(f);
	CHECK("... past the end but cached: not whole", r.d.act != FC_ACT_ORIGIN_WHOLE);
}

static void test_writeback(void)
{
	struct fc_facts f = base(true);
	struct run r;

	entry(&f, FULL, 0);
	r = run1(f);
	CHECK("write, writeback, cached: flash (write_hits)", r.d.act == FC_ACT_FLASH_WRITE &&
	      r.d.fb_mask == 0x01 && !r.d.fua_commit && counted(&r.d, B(WRITES) | B(WRITE_HITS)));
	f = base(true);
	r = run(f, true, true);
	CHECK("write, writeback, free block: allocated, flash (write_allocs)",
	      r.d.act == FC_ACT_FLASH_WRITE && r.alloc_asks == 1 && r.decisions == 2 &&
	      counted(&r.d, B(WRITES) | B(WRITE_ALLOCS)));
	r = run(f, true, false);
	CHECK("write, writeback, no free block: write-around (around_busy), no bypassed",
	      r.d.act == FC_ACT_WRITE_AROUND && r.d.why == FC_ST_WRITE_AROUND_BUSY &&
	      r.alloc_asks == 1 && counted(&r.d, B(WRITES) | B(WRITE_AROUND_BUSY)));
	f.worker = true;
	r = run(f, true, true);
	CHECK("... in the worker: allocs counted, writes not",
	      r.d.act == FC_ACT_FLASH_WRITE && counted(&r.d, B(WRITE_ALLOCS)));
	entry(&f, FULL, 0);
	r = run1(f);
	CHECK("... hit in the worker: nothing counted", counted(&r.d, 0));

	/* partial write of an invalid sub-block */
	f = base(true);
	f.off = 2;
	f.len = 4;
	r = run(f, true, true);
	CHECK("partial write, new block: allocated, fill first (deferred)",
	      r.d.act == FC_ACT_DEFER && r.d.fill == 0x01 &&
	      counted(&r.d, B(WRITES) | B(WRITE_ALLOCS)));
	entry(&f, 0, 0);
	f.worker = true;
	r = run1(f);
	CHECK("... in the worker: fill", r.d.act == FC_ACT_FILL && r.d.fill == 0x01);
	f.ow_busy = true;
	r = run1(f);
	CHECK("... fill cannot start: write-around (around_busy), never stalled",
	      r.d.act == FC_ACT_WRITE_AROUND && counted(&r.d, B(WRITE_AROUND_BUSY)));
	f.e.inflight = true;
	r = run1(f);
	CHECK("... entry in flight: wait, not for the stripe",
	      r.d.act == FC_ACT_WAIT && !r.d.wait_stripe);
	f = base(true);
	f.off = 2;
	f.len = 4;
	f.nofill = true;
	entry(&f, 0, 0x00);
	f.e.dirty = 0;
	f.e.valid = 0x02;
	f.e.dirty = 0x02;
	f.len = 12;
	r = run1(f);
	CHECK("partial write on dirty data, fill failed: kill",
	      r.d.act == FC_ACT_KILL && counted(&r.d, B(WRITES) | B(WRITE_HITS) | B(ERRORS)));
	f = base(true);
	f.off = 2;
	f.len = 4;
	f.nofill = true;
	entry(&f, 0, 0);
	r = run1(f);
	CHECK("partial write, fill failed, nothing dirty: write-around (around_other)",
	      r.d.act == FC_ACT_WRITE_AROUND &&
	      counted(&r.d, B(WRITES) | B(BYPASSED) | B(WRITE_AROUND_OTHER)));
	f = base(true);
	f.off = 0;
	f.len = 2 * SUB;
	entry(&f, 0, 0);
	r = run1(f);
	CHECK("whole sub-blocks: no fill", r.d.act == FC_ACT_FLASH_WRITE && r.d.fb_mask == 0x03);
	f.fua = true;
	r = run1(f);
	CHECK("REQ_FUA write to the flash: stripped, completion waits for a commit (fua)",
	      r.d.act == FC_ACT_FLASH_WRITE && r.d.fua_commit &&
	      counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_HITS)));
	f.worker = true;
	r = run1(f);
	CHECK("... in the worker: fua not counted again", r.d.fua_commit && counted(&r.d, 0));
	/* the sync path: FUA to sub-blocks the flash records as dirty here */
	f.worker = false;
	entry(&f, 0x03, 0x03);
	f.e.committed = true;
	r = run1(f);
	CHECK("REQ_FUA write to committed dirty sub-blocks: FUA kept, no commit (fua_direct)",
	      r.d.act == FC_ACT_FLASH_WRITE && r.d.fua_direct && !r.d.fua_commit &&
	      r.d.fb_mask == 0x03 && counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_HITS)));
	entry(&f, 0x03, 0x01);
	f.e.committed = true;
	r = run1(f);
	CHECK("... one touched sub-block clean: waits for a commit",
	      r.d.act == FC_ACT_FLASH_WRITE && !r.d.fua_direct && r.d.fua_commit);
	entry(&f, 0x03, 0x03);
	f.e.committed = false;
	r = run1(f);
	CHECK("... dirty but not committed (its page changed or is being written): waits",
	      r.d.act == FC_ACT_FLASH_WRITE && !r.d.fua_direct && r.d.fua_commit);
	f.fua = false;
	f.e.committed = true;
	r = run1(f);
	CHECK("... no FUA: neither", r.d.act == FC_ACT_FLASH_WRITE && !r.d.fua_direct && !r.d.fua_commit);
}

static void test_dirty_any_mode(void)
{
	struct fc_facts f;
	struct run r;
	int mode;

	for (mode = 0; mode < 4; mode++) {
		f = base(true);
		f.mode = mode;
		entry(&f, 0x01, 0x01);
		r = run1(f);
		CHECK("write on dirty sub-blocks, any mode: flash", r.d.act == FC_ACT_FLASH_WRITE);
		f = base(false);
		f.mode = mode;
		entry(&f, 0x01, 0x01);
		r = run1(f);
		CHECK("read of dirty sub-blocks, any mode: flash", r.d.act == FC_ACT_FLASH_READ);
	}
	f = base(true);
	f.md_rw = false;
	entry(&f, 0x01, 0x01);
	r = run1(f);
	CHECK("write on dirty data, metadata ro: the origin and the flash in place",
	      r.d.act == FC_ACT_WT && r.d.in_place);
}

/* Read-only metadata (issue 32 item 7, ro_write()): every write served but these. */
static void test_read_only(void)
{
	struct fc_facts f = base(true);
	struct run r;
	int mode;

	f.md_rw = false;
	f.fua = true;
	f.pending = true;
	r = run(f, true, true);
	CHECK("ro write, no entry: the origin, no allocation, FUA kept, no commit",
	      r.d.act == FC_ACT_WRITE_AROUND && r.alloc_asks == 0 && !r.d.fua_commit &&
	      counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_AROUND_OTHER)));
	for (mode = 0; mode < 4; mode++) {
		f = base(true);
		f.md_rw = false;
		f.mode = mode;
		f.fua = true;
		f.off = 2;
		f.len = 12;
		entry(&f, 0x01, mode & 1 ? 0x01 : 0);
		f.e.pdirty = mode >= 2;
		r = run1(f);
		CHECK("ro write, an entry (any mode, clean or dirty, partial): WT in place, no fill",
		      r.d.act == FC_ACT_WT && r.d.in_place && r.d.mask == 0x03 &&
		      r.d.fb_mask == 0x03 && !r.d.fua_commit && r.d.fill == 0 &&
		      counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_HITS)));
	}
	f.e.inflight = true;
	r = run1(f);
	CHECK("ro write, entry in flight: one at a time (wait)", r.d.act == FC_ACT_WAIT);
	f.e.inflight = false;
	f.e.wb = true;
	r = run1(f);
	CHECK("ro write, writeback copy in flight: wait", r.d.act == FC_ACT_WAIT);
	f.e.wb = false;
	f.worker = true;
	r = run1(f);
	CHECK("... in the worker: nothing counted again", r.d.act == FC_ACT_WT && counted(&r.d, 0));
	f = base(true);
	f.md_rw = false;
	f.pending_here = true;
	r = run1(f);
	CHECK("ro write of a block released while committed dirty: refused (EIO)",
	      r.d.act == FC_ACT_KILL &&
	      counted(&r.d, B(WRITES) | B(WRITE_RO_REFUSED) | B(ERRORS)));
	f.pending_here = false;
	entry(&f, FULL, FULL);
	f.e.twin = true;
	r = run1(f);
	CHECK("ro write, entry with a twin: refused", r.d.act == FC_ACT_KILL);
	f.e.twin = false;
	f.nofill = true;
	r = run1(f);
	CHECK("ro write after a failed flash write, on dirty data: refused",
	      r.d.act == FC_ACT_KILL);
	f.e.dirty = 0;
	r = run1(f);
	CHECK("... on clean data: the origin", r.d.act == FC_ACT_WRITE_AROUND);

	/* bios spanning blocks */
	f = base(true);
	f.md_rw = false;
	f.mode = FC_MODE_WRITEAROUND;
	f.off = BSZ - SUB;
	f.len = 4 * SUB;
	f.fua = true;
	r = run1(f);
	CHECK("ro spanning write, nothing cached or pending: origin whole, FUA kept",
	      !r.cut && r.d.act == FC_ACT_ORIGIN_WHOLE && !r.d.fua_commit);
	f.pending = true;
	r = run1(f);
	CHECK("... blocks pending: cut, each block looked up", r.cut &&
	      r.d.act == FC_ACT_WRITE_AROUND);
	f.worker = true;
	r = run1(f);
	CHECK("... in the worker (cannot cut): refused", !r.cut && r.d.act == FC_ACT_KILL);
	f = base(true);
	f.md_rw = false;
	f.cacheable = false;
	f.pending_here = true;
	r = run1(f);
	CHECK("ro write past the last whole block, pending: refused", r.d.act == FC_ACT_KILL);
	f = base(false);
	f.md_rw = false;
	f.pending_here = true;
	entry(&f, FULL, FULL);
	r = run1(f);
	CHECK("ro read: unchanged (a hit)", r.d.act == FC_ACT_FLASH_READ);
}

static void test_writethrough(void)
{
	struct fc_facts f = base(true);
	struct run r;

	f.mode = FC_MODE_WRITETHROUGH;
	r = run(f, true, true);
	CHECK("writethrough, new block: allocated, origin then flash (write_allocs)",
	      r.d.act == FC_ACT_WT && r.d.mask == 0x01 && r.d.fb_mask == 0x01 &&
	      counted(&r.d, B(WRITES) | B(WRITE_ALLOCS)));
	r = run(f, true, false);
	CHECK("writethrough, no free block: write-around (around_other, no bypassed)",
	      r.d.act == FC_ACT_WRITE_AROUND && r.d.why == FC_ST_WRITE_AROUND_OTHER &&
	      counted(&r.d, B(WRITES) | B(WRITE_AROUND_OTHER)));
	f.off = 2;
	f.len = 12;
	entry(&f, 0x02, 0);
	r = run1(f);
	CHECK("writethrough, partial sub-blocks: valid after only if valid before",
	      r.d.act == FC_ACT_WT && r.d.mask == 0x03 && r.d.fb_mask == 0x02 &&
	      counted(&r.d, B(WRITES) | B(WRITE_HITS)));
	f.e.inflight = true;
	r = run1(f);
	CHECK("writethrough, entry in flight: one at a time (wait)", r.d.act == FC_ACT_WAIT);
	f.e.inflight = false;
	f.e.wb = true;
	r = run1(f);
	CHECK("writethrough, writeback copy in flight: write-around",
	      r.d.act == FC_ACT_WRITE_AROUND && r.d.why == FC_ST_WRITE_AROUND_OTHER);
	f.e.wb = false;
	f.fua = true;
	r = run1(f);
	CHECK("writethrough FUA, nothing committed dirty: no commit wait",
	      r.d.act == FC_ACT_WT && !r.d.fua_commit);
	f.e.pdirty = true;
	r = run1(f);
	CHECK("writethrough FUA over a PDIRTY entry: waits for a commit", r.d.fua_commit);
	f.e.pdirty = false;
	f.pending = true;
	r = run1(f);
	CHECK("writethrough FUA, released blocks pending: waits for a commit", r.d.fua_commit);
	f = base(true);
	f.mode = FC_MODE_WRITETHROUGH;
	f.seq = true;
	r = run1(f);
	CHECK("writethrough stream: write-around, not bypassed (writeback only)",
	      r.d.act == FC_ACT_WRITE_AROUND && r.d.why == FC_ST_WRITE_AROUND_OTHER &&
	      counted(&r.d, B(WRITES) | B(WRITE_AROUND_OTHER)));
}

static void test_write_around(void)
{
	struct fc_facts f;
	struct run r;

	f = base(true);
	f.mode = FC_MODE_WRITEAROUND;
	entry(&f, 0x03, 0);
	r = run1(f);
	CHECK("writearound: drop touched clean sub-blocks, origin (around_other)",
	      r.d.act == FC_ACT_WRITE_AROUND && r.d.mask == 0x01 &&
	      counted(&r.d, B(WRITES) | B(WRITE_AROUND_OTHER)));
	f.mode = FC_MODE_PASSTHROUGH;
	r = run1(f);
	CHECK("passthrough: the same", r.d.act == FC_ACT_WRITE_AROUND);
	f.e.inflight = true;
	r = run1(f);
	CHECK("write-around, a flash write in flight: wait", r.d.act == FC_ACT_WAIT &&
	      !r.d.wait_stripe && counted(&r.d, B(WRITES)));
	f.e.inflight = false;
	f.fua = true;
	r = run1(f);
	CHECK("write-around FUA, nothing committed dirty: FUA only", !r.d.fua_commit &&
	      counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_AROUND_OTHER)));
	f.e.pdirty = true;
	r = run1(f);
	CHECK("write-around FUA over a PDIRTY entry: waits for a commit", r.d.fua_commit);
	f.e.pdirty = false;
	f.pending = true;
	r = run1(f);
	CHECK("write-around FUA, released blocks pending: waits for a commit", r.d.fua_commit);
	f.fua = false;
	r = run1(f);
	CHECK("write-around without FUA: never waits for a commit", !r.d.fua_commit);

	/* bypass: a stream in writeback mode */
	f = base(true);
	f.seq = true;
	r = run1(f);
	CHECK("stream write, writeback: write-around (bypassed, around_seq)",
	      r.d.act == FC_ACT_WRITE_AROUND &&
	      counted(&r.d, B(WRITES) | B(BYPASSED) | B(WRITE_AROUND_SEQ)));
	f.sync = true;
	r = run1(f);
	CHECK("small sync write of a stream, writeback: absorbed (sync_kept)",
	      r.d.act == FC_ACT_FLASH_WRITE &&
	      counted(&r.d, B(WRITES) | B(WRITE_SYNC_KEPT) | B(WRITE_ALLOCS)));
	f.mode = FC_MODE_WRITETHROUGH;
	r = run1(f);
	CHECK("small sync write of a stream, writethrough: not kept",
	      r.d.act == FC_ACT_WRITE_AROUND && !(r.d.count & B(WRITE_SYNC_KEPT)));
	f = base(true);
	f.no_new_dirty = true;
	r = run1(f);
	CHECK("write, failed flash: write-around (bypassed, around_other)",
	      r.d.act == FC_ACT_WRITE_AROUND &&
	      counted(&r.d, B(WRITES) | B(BYPASSED) | B(WRITE_AROUND_OTHER)));
	f.worker = true;
	r = run1(f);
	CHECK("... in the worker: only the around counter", counted(&r.d, B(WRITE_AROUND_OTHER)));
}

static void test_high(void)
{
	struct fc_facts f = base(true);
	struct run r;

	f.nr_dirty = 800;
	r = run1(f);
	CHECK("write above writeback_high, not cached: write-around (bypassed, around_high)",
	      r.d.act == FC_ACT_WRITE_AROUND && r.alloc_asks == 0 &&
	      counted(&r.d, B(WRITES) | B(BYPASSED) | B(WRITE_AROUND_HIGH)));
	entry(&f, 0, 0);
	r = run1(f);
	CHECK("... cached: flash", r.d.act == FC_ACT_FLASH_WRITE);
	f = base(true);
	f.nr_dirty = 800;
	f.fua = true;
	f.urgent = true;
	r = run1(f);
	CHECK("small FUA write above writeback_high: absorbed (sync_high)",
	      r.d.act == FC_ACT_FLASH_WRITE && r.d.fua_commit &&
	      counted(&r.d, B(WRITES) | B(FUA) | B(WRITE_ALLOCS) | B(WRITE_SYNC_HIGH)));
	f.nr_dirty = 900;
	r = run1(f);
	CHECK("... at the hard limit: write-around (around_high)",
	      r.d.act == FC_ACT_WRITE_AROUND && r.d.why == FC_ST_WRITE_AROUND_HIGH);
	f.nr_dirty = 799;
	r = run1(f);
	CHECK("FUA write below writeback_high: no sync_high", r.d.act == FC_ACT_FLASH_WRITE &&
	      !(r.d.count & B(WRITE_SYNC_HIGH)) && r.d.fua_commit);
}

static void test_mirrored(void)
{
	struct fc_facts f = base(true);
	struct run r;

	f.redundant = true;
	r = run3(f, true, true, true);
	CHECK("mirrored write, new block: entry, then its twin, then flash",
	      r.d.act == FC_ACT_FLASH_WRITE && r.alloc_asks == 1 && r.twin_asks == 1 &&
	      r.decisions == 3 && counted(&r.d, B(WRITES) | B(WRITE_ALLOCS)));
	r = run3(f, true, true, false);
	CHECK("mirrored write, no block for the twin: write-around (around_busy)",
	      r.d.act == FC_ACT_WRITE_AROUND &&
	      counted(&r.d, B(WRITES) | B(WRITE_ALLOCS) | B(WRITE_AROUND_BUSY)));
	entry(&f, 0x01, 0x01);
	r = run3(f, true, true, false);
	CHECK("... on dirty data: the flash all the same", r.d.act == FC_ACT_FLASH_WRITE);
	f.e.twin = true;
	r = run3(f, true, true, false);
	CHECK("... entry with a twin: not asked again", r.twin_asks == 0 &&
	      r.d.act == FC_ACT_FLASH_WRITE);
	f.off = 2;
	f.len = 4;
	f.e.valid = FULL;
	f.e.dirty = 0;
	r = run1(f);
	CHECK("partial write of a clean sub-block with a twin: fill it (both copies)",
	      r.d.act == FC_ACT_DEFER && r.d.fill == 0x01);
	f.twin_filled = true;
	r = run1(f);
	CHECK("... once: after the fill, flash", r.d.act == FC_ACT_FLASH_WRITE);
	f.redundant = false;
	f.twin_filled = false;
	f.e.twin = false;
	r = run1(f);
	CHECK("... without a twin: no fill of valid data", r.d.act == FC_ACT_FLASH_WRITE);

	/* one leg in service: no new dirty data (docs/DESIGN.md, "Two-device pool") */
	f = base(true);
	f.one_copy = true;
	r = run3(f, true, true, true);
	CHECK("degraded mirrored pool, writeback, new block: written through, not dirty",
	      r.d.act == FC_ACT_WT && r.twin_asks == 0 && !(r.d.count & B(BYPASSED)));
	entry(&f, 0x01, 0x00);
	r = run3(f, true, true, true);
	CHECK("... a clean cached block: written through", r.d.act == FC_ACT_WT);
	entry(&f, 0x01, 0x01);
	r = run3(f, true, true, true);
	CHECK("... its dirty data: the flash (its one copy, drained by writeback)",
	      r.d.act == FC_ACT_FLASH_WRITE && r.twin_asks == 0);
}

static void test_busy(void)
{
	struct fc_facts f = base(true);
	struct run r;

	entry(&f, 0, 0);
	f.e.busy = true;
	f.fua = true;
	r = run1(f);
	CHECK("entry BUSY (fill in flight): write waits, FUA counted once",
	      r.d.act == FC_ACT_WAIT && !r.d.wait_stripe && counted(&r.d, B(FUA)));
	f = base(false);
	entry(&f, FULL, 0);
	f.e.busy = true;
	r = run1(f);
	CHECK("entry BUSY: read waits, counted later", r.d.act == FC_ACT_WAIT && counted(&r.d, 0));
}

/* ---- fc_decide() against decide_ref.h ---- */

static __u64 rng = 88172645463325252ull;

static __u32 rnd(__u32 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (__u32)(rng % n);
}

static struct fc_facts random_facts(void)
{
	static const __u32 offs[] = { 0, 1, 7, 8, 12, 32, 56, 63 };
	static const __u32 lens[] = { 0, 1, 4, 7, 8, 9, 16, 24, 56, 64, 65, 200 };
	static const __u64 dirty[] = { 0, 500, 799, 800, 850, 899, 900, 1000 };
	static const __u32 high[] = { 80, 50, 100 };
	struct fc_facts f = base(rnd(2));

	f.worker = rnd(2);
	f.fua = rnd(2);
	f.sync = rnd(2);
	f.urgent = rnd(2);
	f.nofill = rnd(4) == 0;
	f.seq = rnd(3) == 0;
	f.stream = rnd(4) == 0;
	f.twin_filled = rnd(4) == 0;
	f.off = offs[rnd(8)];
	f.len = lens[rnd(12)];
	f.cacheable = rnd(5) != 0;
	f.span_cached = rnd(2);
	f.ow_busy = rnd(3) == 0;
	if (rnd(3)) {
		f.e.present = true;
		f.e.busy = rnd(6) == 0;
		f.e.wb = rnd(4) == 0;
		f.e.pdirty = rnd(3) == 0;
		f.e.inflight = rnd(3) == 0;
		f.e.twin = rnd(2);
		f.e.valid = rnd(2) ? FULL : (__u8)rnd(256);
		f.e.dirty = (__u8)(rnd(2) ? 0 : rnd(3) ? rnd(256) : FULL) & f.e.valid;
		f.e.committed = rnd(2);
	}
	f.mode = (int)rnd(4);
	f.md_rw = rnd(6) != 0;
	f.no_new_dirty = rnd(6) == 0;
	f.pending = rnd(3) == 0;
	f.pending_here = f.pending && rnd(3) == 0;
	f.redundant = rnd(3) == 0;
	f.one_copy = !f.redundant && rnd(3) == 0;
	f.nr_dirty = dirty[rnd(8)];
	f.wb_high = high[rnd(3)];
	return f;
}

static bool same(const struct run *r, const struct ref_out *o)
{
	const struct fc_decision *d = &r->d;
	enum fc_action a = d->act;

	if (a != o->act || d->count != o->count || r->cut != o->cut ||
	    r->ghost_asks != o->ghost_asked || r->alloc_asks != o->alloc_asked ||
	    r->twin_asks != o->twin_asked)
		return false;
	if ((a == FC_ACT_FLASH_WRITE || a == FC_ACT_WT || a == FC_ACT_WRITE_AROUND ||
	     a == FC_ACT_ORIGIN_WHOLE) && (d->fua_commit || d->fua_direct) != o->fua)
		return false;	/* map_rw() predates fua_direct: FUA honoured either way */
	if ((a == FC_ACT_WT || a == FC_ACT_WRITE_AROUND) && d->mask != o->mask)
		return false;
	if (a == FC_ACT_WT && d->in_place != o->in_place)
		return false;
	if ((a == FC_ACT_FLASH_READ || a == FC_ACT_FLASH_WRITE || a == FC_ACT_WT) &&
	    d->fb_mask != o->fb_mask)
		return false;
	if ((a == FC_ACT_FILL || a == FC_ACT_DEFER) && d->fill != o->fill)
		return false;
	if (a == FC_ACT_WAIT && d->wait_stripe != o->wait_stripe)
		return false;
	if (a == FC_ACT_ORIGIN && d->release != o->release)
		return false;
	return a != FC_ACT_ORIGIN_WHOLE || d->why != FC_ST_NR;
}

static void test_against_reference(void)
{
	__u32 acts = 0, stats = 0, i, bad = 0, no_entry = 0;

	for (i = 0; i < 2000000; i++) {
		struct fc_facts f = random_facts();
		bool ghost_ans = rnd(2), alloc_ans = rnd(4) != 0, twin_ans = rnd(3) != 0;
		struct run r = run3(f, ghost_ans, alloc_ans, twin_ans);
		struct ref_out o;

		ref_map(&f, ghost_ans, alloc_ans, twin_ans, &o);
		acts |= 1u << r.d.act;
		/* map_rw() uses the entry of these without looking */
		if ((r.d.act == FC_ACT_FLASH_READ || r.d.act == FC_ACT_FLASH_WRITE ||
		     r.d.act == FC_ACT_WT || r.d.act == FC_ACT_FILL || r.d.release) &&
		    !f.e.present && !(r.alloc_asks && alloc_ans))
			no_entry++;
		stats |= r.d.count;
		if (!same(&r, &o) && bad++ < 5)
			printf("  differs: %s (ref %s) count %#x (ref %#x) w%d wr%d mode %d off %u len %u e%d v%#x d%#x\n",
			       act_names[r.d.act], act_names[o.act], r.d.count, o.count,
			       f.worker, f.write, f.mode, f.off, f.len, f.e.present,
			       f.e.valid, f.e.dirty);
	}
	CHECK("2000000 random facts: fc_decide() decides as map_rw() did", bad == 0);
	CHECK("... flash, writethrough, fill and release always have an entry", no_entry == 0);
	CHECK("... every final action was reached",
	      acts == (1u << (FC_ACT_KILL + 1)) - 1);
	CHECK("... every map-time counter was counted",
	      stats == (B(READS) | B(READ_HITS) | B(WRITES) | B(WRITE_HITS) | B(BYPASSED) |
			B(ERRORS) | B(READ_AROUND_SEQ) | B(READ_AROUND_COLD) |
			B(READ_AROUND_OTHER) | B(WRITE_ALLOCS) | B(WRITE_AROUND_SEQ) |
			B(WRITE_AROUND_HIGH) | B(WRITE_AROUND_BUSY) | B(WRITE_AROUND_OTHER) |
			B(WRITE_SYNC_KEPT) | B(WRITE_SYNC_HIGH) | B(FUA) |
			B(WRITE_RO_REFUSED)));
}

/*
 * fc_decide_read_hit(), the hot path's shortcut: wherever it decides, it
 * decides exactly as fc_decide() (every field, the row too), and it
 * decides every read hit of map's pass that is not cut (nor empty).
 */
static void test_read_hit_shortcut(void)
{
	unsigned long taken = 0, bad = 0, missed = 0, i;
	struct fc_facts f = base(false);
	struct fc_decision d, s;

	entry(&f, FULL, 0);
	CHECK("shortcut: a 4 KiB read of a cached block",
	      fc_decide_read_hit(&f, &s) && s.act == FC_ACT_FLASH_READ && s.fb_mask == 0x01 &&
	      s.count == (B(READS) | B(READ_HITS)));
	f.e.busy = true;
	CHECK("... not of a BUSY one", !fc_decide_read_hit(&f, &s));
	f.e.busy = false;
	f.e.valid = 0xfe;
	CHECK("... nor of an invalid sub-block", !fc_decide_read_hit(&f, &s));
	CHECK("... its row is the read hit's",
	      fc_decide_rules[FC_ROW_READ_HIT].act == FC_ACT_FLASH_READ &&
	      fc_decide_rules[FC_ROW_READ_HIT].kind == FC_K_READ &&
	      fc_decide_rules[FC_ROW_READ_HIT].when == (1u << FC_C_HIT) &&
	      !fc_decide_rules[FC_ROW_READ_HIT].unless);
	for (i = 0; i < 2000000; i++) {
		f = random_facts();
		f.alloc = (enum fc_step)rnd(3);
		f.ghost = (enum fc_step)rnd(3);
		f.twin = (enum fc_step)rnd(3);
		fc_decide(&f, &d);
		if (!fc_decide_read_hit(&f, &s)) {
			/* sync: a write's fact (small_write_with()) */
			if (d.row == FC_ROW_READ_HIT && !f.worker && !d.cut && f.len && !f.sync &&
			    missed++ < 5)
				printf("  a read hit not taken: off %u len %u v%#x\n", f.off, f.len, f.e.valid);
			continue;
		}
		taken++;
		if (memcmp(&d, &s, sizeof(d)) && bad++ < 5)
			printf("  differs: %s (fc_decide: %s, row %u) count %#x (%#x) w%d off %u len %u v%#x\n",
			       act_names[s.act], act_names[d.act], d.row + 1, s.count, d.count,
			       f.write, f.off, f.len, f.e.valid);
	}
	CHECK("2000000 random facts: the shortcut decides as fc_decide() wherever it decides",
	      bad == 0 && taken > 10000);
	CHECK("... and it decides every uncut read hit of map's pass", missed == 0);
}

/* ---- the table, row by row ---- */

/* The conditions of fc_decide.h (enum fc_cond) as docs/DESIGN.md names them. */
static const char *const cond_names[FC_C_NR][2] = {
	[FC_C_WORKER] = { "worker", "the worker's pass (else map's)" },
	[FC_C_SEQ] = { "seq", "map's pass, a stream past `sequential_cutoff`, not a small sync write in writeback mode (`write_sync_kept`)" },
	[FC_C_SPAN] = { "span", "the bio spans two blocks" },
	[FC_C_CUT] = { "cut", "map's pass may cut it at the block boundary: a spanned block is cached, or the bio may be cached (a read that may be promoted, not seq or pass-through; a write in writeback or writethrough mode), or a write over read-only metadata while released blocks are pending" },
	[FC_C_CACHEABLE] = { "cacheable", "the block is wholly inside the volume" },
	[FC_C_ENTRY] = { "entry", "the block has an entry" },
	[FC_C_BUSY] = { "busy", "the entry is BUSY: a fill in flight" },
	[FC_C_HIT] = { "hit", "every touched sub-block is valid" },
	[FC_C_DIRTY] = { "dirty", "a touched sub-block is dirty" },
	[FC_C_EMPTY] = { "empty", "the entry has no valid sub-block" },
	[FC_C_INFLIGHT] = { "inflight", "the entry has bios in flight" },
	[FC_C_COPYING] = { "copying", "the entry has a writeback copy in flight" },
	[FC_C_FILL_BUSY] = { "fill_busy", "a fill cannot start: origin writes in flight on the stripe, or inflight, or copying" },
	[FC_C_NOFILL] = { "nofill", "a fill or the flash failed this bio (`FC_BF_NOFILL`)" },
	[FC_C_STREAM] = { "stream", "a read miss continuing a short stream (`FC_BF_STREAM`)" },
	[FC_C_MD_RW] = { "md_rw", "metadata mode rw" },
	[FC_C_RO_PENDING] = { "ro_pending", "not md_rw, and a block released while committed dirty may be this one's (`pending_here`; any pending one for a bio that spans and is not cut)" },
	[FC_C_PASSTHROUGH] = { "passthrough", "pass-through mode" },
	[FC_C_WB_MODE] = { "wb_mode", "writeback mode" },
	[FC_C_NO_NEW_DIRTY] = { "no_new_dirty", "a flash write failed: no new dirty data" },
	[FC_C_WB_OTHER] = { "wb_other", "writeback takes no new dirty data, whatever the block: not writeback mode, not md_rw, no_new_dirty, nofill, not cacheable, or a mirrored pool with one leg" },
	[FC_C_TO_FLASH] = { "to_flash", "the write goes to the flash: dirty, or writeback takes it (not wb_other, not seq, and an entry or `fc_wb_admit_new()`: below `writeback_high`, or a small FUA write below the hard limit)" },
	[FC_C_WT] = { "wt", "writethrough takes it: writethrough mode, or writeback with one leg; md_rw, cacheable, not no_new_dirty, seq, nofill or copying" },
	[FC_C_WFILL] = { "wfill", "a partly covered sub-block must be filled first: invalid, or clean in an entry with a twin, once (`FC_BF_TWIN_FILLED`)" },
	[FC_C_REDUNDANT] = { "redundant", "a mirrored pool with both legs: dirty data gets a twin" },
	[FC_C_TWIN] = { "twin", "the entry has a twin" },
	[FC_C_TWIN_TRIED] = { "twin_tried", "the twin step was done (`fc_alloc_twin()`)" },
	[FC_C_GHOST_YES] = { "ghost_yes", "the ghost table said: second touch" },
	[FC_C_GHOST_NO] = { "ghost_no", "the ghost table said: first touch" },
	[FC_C_ALLOC_YES] = { "alloc_yes", "the alloc step got an entry" },
	[FC_C_ALLOC_NO] = { "alloc_no", "the alloc step found no free block" },
};

static const char *const stat_names[FC_ST_NR] = {
	[FC_ST_READS] = "reads", [FC_ST_READ_HITS] = "read_hits", [FC_ST_WRITES] = "writes",
	[FC_ST_WRITE_HITS] = "write_hits", [FC_ST_BYPASSED] = "bypassed",
	[FC_ST_ERRORS] = "errors", [FC_ST_READ_AROUND_SEQ] = "read_around_seq",
	[FC_ST_READ_AROUND_COLD] = "read_around_cold",
	[FC_ST_READ_AROUND_OTHER] = "read_around_other", [FC_ST_WRITE_ALLOCS] = "write_allocs",
	[FC_ST_WRITE_AROUND_SEQ] = "write_around_seq",
	[FC_ST_WRITE_AROUND_HIGH] = "write_around_high",
	[FC_ST_WRITE_AROUND_BUSY] = "write_around_busy",
	[FC_ST_WRITE_AROUND_OTHER] = "write_around_other",
	[FC_ST_WRITE_SYNC_HIGH] = "write_sync_high", [FC_ST_WRITE_RO_REFUSED] = "write_ro_refused",
};

static void print_conds(__u32 bits)
{
	const char *sep = "";
	int i;

	for (i = 0; i < FC_C_NR; i++)
		if (bits & (1u << i)) {
			printf("%s%s", sep, cond_names[i][0]);
			sep = ", ";
		}
}

static void print_stats(__u32 bits, const char **sep)
{
	int i;

	for (i = 0; i < FC_ST_NR; i++)
		if (bits & FC_STAT_BIT(i)) {
			printf("%s%s", *sep, stat_names[i] ? stat_names[i] : "?");
			*sep = ", ";
		}
}

/* docs/DESIGN.md's decision table, from fc_decide_rules[] (--table). */
static void print_table(void)
{
	static const char *const fills[] = { "", "fill the touched sub-blocks",
		"fill the touched invalid ones", "fill those wfill names" };
	static const char *const fuas[] = { "", "fua_direct if REQ_FUA to committed dirty sub-blocks, else fua_commit if REQ_FUA",
		"fua_commit if REQ_FUA and (PDIRTY entry or pending)",
		"fua_commit if REQ_FUA, pending and md_rw" };
	unsigned int i;
	int c;

	printf("| condition | meaning |\n| --- | --- |\n");
	for (c = 0; c < FC_C_NR; c++)
		printf("| %s | %s |\n", cond_names[c][0], cond_names[c][1]);
	printf("\n| # | bio | when | unless | action | why | counts | carries |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (i = 0; i < fc_decide_nr_rules; i++) {
		const struct fc_rule *r = &fc_decide_rules[i];
		const char *sep = "";

		printf("| %u | %s | ", i + 1, r->kind == FC_K_READ ? "read" :
		       r->kind == FC_K_WRITE ? "write" : "any");
		print_conds(r->when);
		printf(" | ");
		print_conds(r->unless);
		printf(" | %s", act_names[r->act]);
		if (r->act == FC_ACT_ALLOC)
			printf(", then %s", act_names[r->then]);
		printf(" | %s | ", r->why ? stat_names[r->why - 1] : "");
		print_stats(r->map, &sep);
		if (*sep)
			printf(" (map)");
		if (r->count) {
			printf("%s", *sep ? "; " : "");
			sep = "";
			print_stats(r->count, &sep);
		}
		if (r->flags & FC_RF_HIT)
			printf("; write_allocs or write_hits");
		if (r->flags & FC_RF_SYNC_HIGH)
			printf(", write_sync_high");
		sep = "";
		printf(" | ");
		if (r->fill) {
			printf("%s", fills[r->fill]);
			sep = ", ";
		}
		if (r->fua) {
			printf("%s%s", sep, fuas[r->fua]);
			sep = ", ";
		}
		if (r->flags & FC_RF_WHOLE) {
			printf("%suncut, no mask", sep);
			sep = ", ";
		}
		if (r->flags & FC_RF_STRIPE) {
			printf("%swait_stripe", sep);
			sep = ", ";
		}
		if (r->flags & FC_RF_RELEASE) {
			printf("%srelease", sep);
			sep = ", ";
		}
		if (r->flags & FC_RF_IN_PLACE)
			printf("%sin_place", sep);
		printf(" |\n");
	}
}

/* Every row is reached by the random facts, and decides as the nested conditions did. */
static void test_rows(void)
{
	unsigned int i, any = 0;
	char name[160];

	CHECK("the conditions fit the rows' 32-bit masks", FC_C_NR <= 32);
	CHECK("every decision of these tests: the table decides as the nested conditions did",
	      nested_differ == 0);
	for (i = 0; i < fc_decide_nr_rules; i++) {
		const struct fc_rule *r = &fc_decide_rules[i];

		snprintf(name, sizeof(name), "row %u (%s, %s): reached (%lu decisions)", i + 1,
			 r->kind == FC_K_READ ? "read" : r->kind == FC_K_WRITE ? "write" : "any",
			 act_names[r->act], row_reached[i]);
		CHECK(name, row_reached[i] > 0);
	}
	for (i = 0; i < fc_decide_nr_rules; i++)
		if (!fc_decide_rules[i].when && !fc_decide_rules[i].unless)
			any |= fc_decide_rules[i].kind;
	CHECK("a row for reads and one for writes match anything (fc_decide() never falls through)",
	      any == (FC_K_READ | FC_K_WRITE));
	CHECK("no more rows than fc_decision.row holds", fc_decide_nr_rules <= 256);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--table")) {
		print_table();
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: test_decide [--table]\n");
		return 2;
	}
	test_reads();
	test_read_origin();
	test_span();
	test_writeback();
	test_dirty_any_mode();
	test_read_only();
	test_writethrough();
	test_write_around();
	test_high();
	test_mirrored();
	test_busy();
	test_against_reference();
	test_read_hit_shortcut();
	test_rows();
	return unit_failed;
}
