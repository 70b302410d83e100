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
#include "unit.h"

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
		fc_decide(&f, &r.d);
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
		f.e.dirty = (__u8)(rnd(2) ? 0 : rnd(256)) & f.e.valid;
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
	     a == FC_ACT_ORIGIN_WHOLE) && d->fua_commit != o->fua)
		return false;
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

int main(void)
{
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
	return unit_failed;
}
