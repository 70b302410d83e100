// SPDX-License-Identifier: GPL-2.0
/*
 * fcsim: replay a block trace of `fcachectl bench` (docs/PERFORMANCE.md,
 * "The trace") through fcache's own policy and count what reaches the
 * origin, by cause, beside the offline optimum of the same trace
 * (docs/PERFORMANCE.md, "Where the distance comes from").
 *
 *   make -C tests/bench fcsim
 *   tests/bench/fcsim [options] TRACE
 *
 * The data path's decisions are engine/fc_decide.c's and the policy's
 * engine/fc_policy.c's (ghost table, streams and fc_ra_blocks(), watermarks,
 * the hot rules of writeback), compiled here as in the host unit tests;
 * what is around them is a model of fc_volume.c, fc_cache.c and
 * fc_writeback.c:
 *  - one pool, one volume, writeback mode; nothing is ever in flight when
 *    a bio is decided (no waits, no races of the map with a fill), the
 *    metadata always writable, a commit instant (a block released is free
 *    at once: no pending list);
 *  - CLOCK eviction of clean idle blocks (fc_clock_evict()), the free list
 *    first in ascending order (fc_cache_build_free());
 *  - a read miss of a short stream fills its block and those after it
 *    (fc_ra_blocks() of FC_RA_BYTES and --max-sectors; --old-ra: the
 *    whole FC_RA_BYTES, as before it) with one origin read (fill_stream());
 *  - writeback as fc_wb_work() does it: a pass each second (a tick during
 *    a pass runs it again at its end), batches of up to 256 blocks
 *    collected by the cursor (cold first, hot by reference or write count
 *    passed over unless older than max_dirty_age), sorted, wholly dirty
 *    neighbours merged up to 256 KiB; a small batch ends the pass unless
 *    throttled.  A batch takes its origin writes at --wb-rate a second of
 *    trace time, one batch after the other (the module overlaps two); a
 *    write to a block during its copy makes the copy lose the race;
 *  - an origin request larger than --max-sectors or crossing a
 *    --chunk-kib boundary is split as md does (bio_split_to_limits(), then
 *    raid10's chunks): each piece is a request the origin counts.
 * The clock is the trace's submission times (HZ 250 for the stream
 * detector's window).  The writeback rate is the model's one figure not in
 * the trace: the run's own counters give it (writeback_ios over
 * writeback_us: 70 a second in the demo's traced run, whose counters the
 * model then reproduces within 2%; docs/PERFORMANCE.md).
 *
 * Each origin request is put down to a cause: a read miss sent around or
 * filled (with read-ahead or not), a write-around, a writeback, and the
 * pieces md split a request into; a write-around or a writeback is of data
 * written again later in the trace (it could have stayed dirty) or never.
 * The optimum of the same trace and flash (bench_opt.c) is printed below.
 *
 * --journal S models ordered write-back through a journal beside the origin
 * (issue 38, docs/DESIGN.md "Ordered write-back"), in place of the worker
 * above: every S seconds of trace time the volume's dirty data is cut at a
 * flush point and goes to the origin as one atomic step, first as one
 * sequential journal write (its requests as md splits a stream: C_JOURNAL),
 * then in place, sorted and merged as a batch is; once the journal is
 * durable the flash's copies are clean.  No write goes around the cache (a
 * write around it would pass the journal), and no write ever waits: the
 * writes the model must still send around (no clean block to evict) are
 * counted apart, and the model means little if there are many.  What it
 * answers is the spindle budget: origin requests a transaction and a second
 * of trace time against the defaults' on the same trace.  --log-mb L: the
 * journal is a log of L MiB that is not applied batch by batch: a block
 * stays in it (a read miss of it reads it there, one origin read as from
 * its place) until the log is full, when every block in it goes in place
 * once, sorted and merged (whole blocks), and the log starts again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/fc_decide.h"
#include "engine/fc_policy.h"
#include "include/fcache_format.h"
#include "userspace/bench/bench_opt.h"

#define HZ		250u
#define NONE		0xffffffffu
#define GHOST_SLOTS	65536u		/* FC_GHOST_SLOTS */
#define RA_BYTES	(128u << 10)	/* FC_RA_BYTES */
#define WB_MAX_BATCH	256u		/* FC_WB_MAX_BATCH */
#define WB_SCAN		65536u		/* FC_WB_SCAN */
#define WB_RUN_BYTES	(256u << 10)	/* FC_WB_RUN_BYTES */

#define E_HASHED	1u
#define E_REF		2u
#define E_WB		4u
#define E_FREE		8u

struct ent {
	uint64_t oblock;
	uint32_t next;		/* free list */
	uint32_t gen;
	uint32_t dirty_ts;	/* seconds */
	uint8_t flags, valid, dirty, wcount;
};

/* Origin requests by cause (what the breakdown prints). */
enum cause {
	C_READ_AROUND,		/* read misses sent to the origin (first touch, stream, other) */
	C_FILL,			/* read misses filled (promotion) */
	C_FILL_RA,		/* read misses of a short stream, filled with the blocks after */
	C_WFILL,		/* fills of a partly written sub-block */
	C_READ_SPLIT,		/* read pieces beyond one a request (max_sectors, chunks) */
	C_WRITE_AROUND,		/* writes sent around above writeback_high, rewritten later */
	C_WRITE_AROUND_FINAL,	/* ... of data never written again */
	C_WRITE_AROUND_OTHER,	/* ... no free block, stream */
	C_WB_REWRITTEN,		/* writebacks of data written again later in the trace */
	C_WB_FINAL,		/* writebacks of data never written again */
	C_WRITE_SPLIT,		/* write pieces beyond one a request */
	C_JOURNAL,		/* --journal: the journal's writes */
	C_NR
};

static const char *const cause_name[C_NR] = {
	"read misses sent around (first touch, stream)",
	"read misses filled",
	"read misses filled with read-ahead",
	"fills under partial writes",
	"read requests split (max_sectors, chunks)",
	"write-arounds above high, rewritten later",
	"write-arounds above high, never rewritten",
	"write-arounds, other (no free block, stream)",
	"writebacks of data rewritten later",
	"writebacks of data never rewritten",
	"write requests split (max_sectors, chunks)",
	"journal writes (--journal)",
};

struct opts {
	uint32_t high, low, max_age, jobs;
	uint32_t block_kib;
	uint64_t flash_mb;
	double wb_rate;		/* origin writes a second for writeback */
	uint32_t max_sectors, chunk_kib;
	uint32_t ra_kib;	/* read-ahead of a short stream (FC_RA_BYTES) */
	uint32_t hot_writes;	/* FC_WB_HOT_WRITES */
	bool no_ghost;		/* every read miss admitted */
	bool old_ra;		/* main's read-ahead before fc_ra_blocks() */
	bool no_opt;
	double journal_s;	/* --journal: a batch every S seconds */
	uint64_t log_mb;	/* --log-mb: applied when this full, not each batch */
};

struct sim {
	struct opts o;
	struct fc_geometry g;
	uint32_t nr;		/* cache blocks */
	struct ent *e;
	uint32_t *map;		/* origin block -> entry, NONE */
	uint64_t nblocks_dev;
	uint32_t free_head, nr_free, hand, wb_cursor;
	uint64_t nr_dirty;
	struct fc_ghost ghost;
	uint32_t *ghost_slots;
	struct fc_seq seq;
	struct fc_ra ra;
	struct fc_ra_slot *ra_slots;
	uint8_t hot_writes;
	/* the trace position, for "written again later" */
	size_t idx;
	uint32_t *last_write;	/* origin block -> index of its last write in the trace */
	/* writeback state */
	struct {
		bool running, pending;
		double end, loop_start;
		uint32_t n;
		uint32_t *eidx, *gen;
		uint8_t *mask;
		enum fc_wb_state st;
	} wb;
	double next_tick;
	/* counts */
	uint64_t st[FC_ST_NR];
	uint64_t cause[C_NR];
	uint64_t wb_batches, wb_blocks, wb_ios, wb_merged, wb_raced, wb_hot, wb_aged;
	uint64_t txns, max_dirty_seen;
	double t_span;		/* seconds of trace time */
	uint64_t dirty_sum, dirty_samples, throttled_samples;
	/* --journal */
	double next_cut;
	uint64_t j_batches, j_blocks, j_sectors, j_max_blocks;
	uint8_t *in_log;	/* --log-mb: origin block -> in the log */
	uint64_t *log_list, log_n, log_sectors, log_applies, log_applied;
	uint64_t log_reads;	/* origin reads of blocks whose newest data is in the log */
};

static void die(const char *m)
{
	fprintf(stderr, "fcsim: %s\n", m);
	exit(2);
}

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);

	if (!p)
		die("out of memory");
	return p;
}

/* Requests an origin I/O of @sectors at @sector makes after md's splits. */
static uint32_t pieces(const struct sim *s, uint64_t sector, uint64_t sectors)
{
	uint64_t chunk = (uint64_t)s->o.chunk_kib * 2, ms = s->o.max_sectors;
	uint32_t n = 0;

	while (sectors) {
		uint64_t len = ms && sectors > ms ? ms : sectors;
		uint64_t off = sector, left = len;

		/* each piece of the first split is split at the chunks */
		while (left) {
			uint64_t in = chunk ? chunk - off % chunk : left;

			if (in > left)
				in = left;
			n++;
			off += in;
			left -= in;
		}
		sector += len;
		sectors -= len;
	}
	return n;
}

static void origin_io(struct sim *s, enum cause c, bool write, uint64_t sector,
		      uint64_t sectors)
{
	uint32_t n = pieces(s, sector, sectors);
	uint64_t b;

	s->cause[c]++;
	/* --log-mb: reads that would need the log (its index): how often */
	if (!write && s->in_log && c != C_JOURNAL) {
		for (b = sector / s->g.block_sectors;
		     b < s->nblocks_dev && b * s->g.block_sectors < sector + sectors; b++)
			if (s->in_log[b]) {
				s->log_reads++;
				break;
			}
	}
	if (n > 1)
		s->cause[write ? C_WRITE_SPLIT : C_READ_SPLIT] += n - 1;
}

/* The trace @path (bench_opt.h's format, this machine's byte order). */
static struct bench_trace_rec *read_trace(const char *path, struct bench_trace_hdr *h, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct bench_trace_rec *rec;
	long sz;

	if (!f || fread(h, sizeof(*h), 1, f) != 1 || h->magic != BENCH_TRACE_MAGIC ||
	    h->rec_size != sizeof(*rec) || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 ||
	    fseek(f, sizeof(*h), SEEK_SET))
		die("cannot read the trace (not a trace of fcachectl bench of this version?)");
	*n = ((size_t)sz - sizeof(*h)) / sizeof(*rec);
	rec = xcalloc(*n, sizeof(*rec));
	if (fread(rec, sizeof(*rec), *n, f) != *n)
		die("short read of the trace");
	fclose(f);
	return rec;
}

static uint32_t now_s(double t)
{
	return (uint32_t)t;
}

/* ------------------------------------------------------ entries, CLOCK */

static void push_free(struct sim *s, uint32_t i)
{
	s->e[i].flags = E_FREE;
	s->e[i].wcount = 0;
	s->e[i].next = s->free_head;
	s->free_head = i;
	s->nr_free++;
}

static uint32_t pop_free(struct sim *s)
{
	uint32_t i = s->free_head;

	if (i == NONE)
		return i;
	s->free_head = s->e[i].next;
	s->nr_free--;
	s->e[i].flags = 0;
	return i;
}

static void entry_set(struct sim *s, struct ent *e, uint8_t valid, uint8_t dirty, double t)
{
	dirty &= valid;
	if (!e->dirty && dirty) {
		s->nr_dirty++;
		e->dirty_ts = now_s(t);
	} else if (e->dirty && !dirty) {
		s->nr_dirty--;
		e->wcount = 0;
	}
	e->valid = valid;
	e->dirty = dirty;
}

static void release(struct sim *s, struct ent *e, double t)
{
	entry_set(s, e, 0, 0, t);
	s->map[e->oblock] = NONE;
	e->flags &= ~(E_HASHED | E_REF);
	e->gen++;
	push_free(s, (uint32_t)(e - s->e));
}

static bool evictable(const struct ent *e)
{
	return (e->flags & E_HASHED) && !(e->flags & E_WB) && !e->dirty;
}

static bool clock_evict(struct sim *s, double t)
{
	uint32_t scanned, lim = 2 * (s->nr < 4096 ? s->nr : 4096);

	for (scanned = 0; scanned < lim; scanned++) {
		struct ent *e = &s->e[s->hand];

		if (++s->hand >= s->nr)
			s->hand = 0;
		if (!evictable(e))
			continue;
		if ((e->flags & E_REF) && e->valid) {
			e->flags &= ~E_REF;
			continue;
		}
		release(s, e, t);
		return true;
	}
	return false;
}

static struct ent *alloc_entry(struct sim *s, uint64_t oblock, double t)
{
	uint32_t i = pop_free(s);
	struct ent *e;

	if (i == NONE) {
		if (!clock_evict(s, t))
			return NULL;
		i = pop_free(s);
		if (i == NONE)
			return NULL;
	}
	e = &s->e[i];
	e->oblock = oblock;
	e->valid = 0;
	e->dirty = 0;
	e->flags = E_HASHED;
	s->map[oblock] = i;
	return e;
}

static struct ent *lookup(struct sim *s, uint64_t oblock)
{
	return s->map[oblock] == NONE ? NULL : &s->e[s->map[oblock]];
}

/* ------------------------------------------------------------ writeback */

static bool aged(const struct sim *s, const struct ent *e, double t)
{
	return s->o.max_age && now_s(t) - e->dirty_ts >= s->o.max_age;
}

static bool may_copy(const struct ent *e)
{
	return e->dirty && !(e->flags & E_WB);
}

/* collect() of fc_writeback.c */
static uint32_t collect(struct sim *s, uint32_t *items, uint32_t max, bool only_aged,
			bool cold_first, uint32_t hot_max, bool urgent, double t)
{
	uint32_t n = 0, scanned, hot = 0, hot_count = 0, lim = s->nr < WB_SCAN ? s->nr : WB_SCAN;

	for (scanned = 0; scanned < lim && n < max; scanned++) {
		struct ent *e = &s->e[s->wb_cursor];
		bool old, hot_w;

		if (++s->wb_cursor >= s->nr)
			s->wb_cursor = 0;
		if (!may_copy(e))
			continue;
		old = (only_aged || cold_first) && aged(s, e, t);
		if (only_aged && !old)
			continue;
		hot_w = cold_first && e->wcount >= s->hot_writes;
		if (cold_first && ((e->flags & E_REF) || hot_w)) {
			if (!old) {
				e->flags &= ~E_REF;
				hot_count += hot_w;
				continue;
			}
			if (hot >= hot_max)
				continue;
			hot++;
		}
		items[n++] = (uint32_t)(e - s->e);
	}
	s->wb_aged += hot;
	s->wb_hot += hot_count;
	if (cold_first) {
		s->hot_writes = fc_wb_hot_writes_next(n, max, hot_count, urgent);
		if (s->hot_writes == FC_WB_HOT_WRITES)
			s->hot_writes = s->o.hot_writes;
	}
	return n;
}

static struct sim *sort_sim;

static int item_cmp(const void *a, const void *b)
{
	uint64_t x = sort_sim->e[*(const uint32_t *)a].oblock;
	uint64_t y = sort_sim->e[*(const uint32_t *)b].oblock;

	return x < y ? -1 : x > y;
}

static void wb_cause(struct sim *s, uint64_t oblock, bool write, uint64_t sector,
		     uint64_t sectors)
{
	origin_io(s, s->last_write[oblock] > s->idx ? C_WB_REWRITTEN : C_WB_FINAL, write,
		  sector, sectors);
}

/* start_batch(): the batch's origin writes; returns how many. */
static uint32_t start_batch(struct sim *s, uint32_t n)
{
	uint32_t bs = s->g.block_sectors, sub = s->g.subblock_sectors;
	uint32_t full = (1u << s->g.nr_subblocks) - 1, maxrun = WB_RUN_BYTES / (bs * 512u);
	uint32_t k, ios = 0, *it = s->wb.eidx;

	sort_sim = s;
	qsort(it, n, sizeof(*it), item_cmp);
	for (k = 0; k < n; k++) {
		struct ent *e = &s->e[it[k]];

		e->flags |= E_WB;
		s->wb.gen[k] = e->gen;
		s->wb.mask[k] = e->dirty;
	}
	for (k = 0; k < n; k++) {
		struct ent *e = &s->e[it[k]];
		uint32_t m = 1, i, j;

		if (s->wb.mask[k] == full) {
			while (m < maxrun && k + m < n && s->wb.mask[k + m] == full &&
			       s->e[it[k + m]].oblock == e->oblock + m)
				m++;
		}
		if (m > 1) {
			/* a merged run is one origin write; its cause is its first block's */
			wb_cause(s, e->oblock, true, e->oblock * bs, (uint64_t)m * bs);
			s->wb_merged += m;
			s->wb_ios++;
			ios++;
			k += m - 1;
			continue;
		}
		for (i = 0; i < s->g.nr_subblocks;) {
			if (!(s->wb.mask[k] & (1u << i))) {
				i++;
				continue;
			}
			for (j = i; j < s->g.nr_subblocks && (s->wb.mask[k] & (1u << j)); j++)
				;
			wb_cause(s, e->oblock, true, e->oblock * bs + i * sub, (j - i) * sub);
			s->wb_ios++;
			ios++;
			i = j;
		}
	}
	return ios;
}

static void end_batch(struct sim *s, double t)
{
	uint32_t k;

	for (k = 0; k < s->wb.n; k++) {
		struct ent *e = &s->e[s->wb.eidx[k]];

		e->flags &= ~E_WB;
		if (e->gen == s->wb.gen[k]) {
			entry_set(s, e, e->valid, e->dirty & ~s->wb.mask[k], t);
			s->st[FC_ST_WRITEBACKS]++;
		} else {
			e->dirty_ts = now_s(s->wb.loop_start);
			s->wb_raced++;
		}
	}
	s->wb.running = false;
}

static struct fc_wb_input wb_input(const struct sim *s)
{
	struct fc_wb_input in = {
		.dirty = s->nr_dirty, .total = s->nr, .high = s->o.high, .low = s->o.low,
		.idle = false, .aged = s->o.max_age != 0, .flushing = false, .jobs = s->o.jobs,
	};
	return in;
}

/*
 * One step of fc_wb_work() at @t: collect and start a batch (it ends at
 * s->wb.end), or go idle until the next tick.  @first: the tick's pass.
 */
static void wb_step(struct sim *s, double t, bool first)
{
	struct fc_wb_input in = wb_input(s);
	uint32_t max, n, ios;
	enum fc_wb_state st = fc_wb_decide(&in, &max);

	if (first)
		s->wb.loop_start = t;
	if (!max || t >= s->wb.loop_start + 1.0)
		return;
	n = collect(s, s->wb.eidx, WB_MAX_BATCH, in.dirty * 100 < in.total * in.low, true,
		    fc_wb_hot_quota(in.dirty, in.total, in.low, WB_MAX_BATCH),
		    st == FC_WB_THROTTLED, t);
	if (!n)
		return;
	ios = start_batch(s, n);
	s->wb_batches++;
	s->wb_blocks += n;
	s->wb.n = n;
	s->wb.st = st;
	s->wb.running = true;
	s->wb.end = t + ios / s->o.wb_rate;
}

/*
 * Run the writeback worker's events up to time @t, in time order: the
 * tick each second queues the worker (once: a tick during its pass makes
 * it run again when the pass ends), and the end of a batch lets the pass
 * go on.
 */
static void wb_advance(struct sim *s, double t)
{
	for (;;) {
		if (s->next_tick <= t && (!s->wb.running || s->next_tick < s->wb.end)) {
			double tt = s->next_tick;

			s->next_tick += 1.0;
			if (s->wb.running)
				s->wb.pending = true;
			else
				wb_step(s, tt, true);
			continue;
		}
		if (s->wb.running && s->wb.end <= t) {
			double te = s->wb.end;
			uint32_t n = s->wb.n;
			enum fc_wb_state st = s->wb.st;

			end_batch(s, te);
			/* a small batch waits for the next tick (fc_wb_work()) */
			if (!(n < WB_MAX_BATCH / 8 && st != FC_WB_THROTTLED))
				wb_step(s, te, false);
			if (!s->wb.running && s->wb.pending) {
				s->wb.pending = false;
				wb_step(s, te, true);
			}
			continue;
		}
		break;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --log-mb: the log is full: every block in it goes in place once. */
static void log_apply(struct sim *s)
{
	uint32_t bs = s->g.block_sectors, maxrun = WB_RUN_BYTES / (bs * 512u);
	uint64_t k, m;

	qsort(s->log_list, s->log_n, sizeof(*s->log_list), u64_cmp);
	for (k = 0; k < s->log_n; k += m) {
		for (m = 1; m < maxrun && k + m < s->log_n &&
		     s->log_list[k + m] == s->log_list[k] + m; m++)
			;
		wb_cause(s, s->log_list[k], true, s->log_list[k] * bs, m * bs);
		s->wb_ios++;
	}
	for (k = 0; k < s->log_n; k++)
		s->in_log[s->log_list[k]] = 0;
	s->log_applies++;
	s->log_applied += s->log_n;
	s->log_n = 0;
	s->log_sectors = 0;
}

/* --log-mb: a batch's blocks (entry indexes @it) join the log */
static void log_add(struct sim *s, const uint32_t *it, uint32_t n, uint64_t jsec)
{
	uint32_t k;

	if (s->log_sectors + jsec > s->o.log_mb * 2048)
		log_apply(s);
	for (k = 0; k < n; k++) {
		uint64_t b = s->e[it[k]].oblock;

		if (!s->in_log[b]) {
			s->in_log[b] = 1;
			s->log_list[s->log_n++] = b;
		}
	}
	s->log_sectors += jsec;
}

/*
 * --journal: one batch at a flush point.  Every dirty block goes to the
 * journal (its dirty sub-blocks, one sequential stream), then in place as
 * start_batch() sends a batch; all of it is clean once the journal is.
 */
static void journal_batch(struct sim *s, double t)
{
	uint32_t i, n = 0, *it = s->wb.eidx;
	uint64_t jsec = 0;

	for (i = 0; i < s->nr; i++) {
		struct ent *e = &s->e[i];

		if (!(e->flags & E_HASHED) || !e->dirty)
			continue;
		it[n++] = i;
		jsec += (uint64_t)__builtin_popcount(e->dirty) * s->g.subblock_sectors;
	}
	if (!n)
		return;
	s->j_batches++;
	s->j_blocks += n;
	s->j_sectors += jsec;
	if (n > s->j_max_blocks)
		s->j_max_blocks = n;
	/* the journal: a stream from sector 0 of its region, plus its header */
	origin_io(s, C_JOURNAL, true, 0, jsec + 8);
	/* in the log, or in place as a batch goes (start_batch()); then all clean */
	if (s->o.log_mb)
		log_add(s, it, n, jsec);
	else
		start_batch(s, n);
	for (i = 0; i < n; i++) {
		struct ent *e = &s->e[it[i]];

		e->flags &= ~E_WB;
		entry_set(s, e, e->valid, 0, t);
		s->st[FC_ST_WRITEBACKS]++;
	}
}

static void journal_advance(struct sim *s, double t)
{
	while (t >= s->next_cut) {
		journal_batch(s, s->next_cut);
		s->next_cut += s->o.journal_s;
	}
}

/* ---------------------------------------------------------- the data path */

static void facts_of(struct sim *s, struct fc_facts *f, struct ent *e)
{
	memset(&f->e, 0, sizeof(f->e));
	if (e) {
		f->e.present = true;
		f->e.wb = e->flags & E_WB;
		f->e.valid = e->valid;
		f->e.dirty = e->dirty;
	}
	f->nr_dirty = s->nr_dirty;
	f->nr_blocks = s->nr;
}

/* fill_stream(): @e just allocated for a read miss of a short stream. */
static void fill_stream(struct sim *s, struct ent *e, uint64_t block, double t)
{
	uint32_t bs = s->g.block_sectors, n = 1, k, max;
	struct ent *ra[64];

	if (s->o.old_ra)	/* before fc_ra_blocks(): FC_RA_BYTES whatever the origin takes */
		max = s->o.ra_kib * 2 / bs ? s->o.ra_kib * 2 / bs : 1;
	else
		max = fc_ra_blocks(bs, s->o.ra_kib * 2, s->o.max_sectors);
	if (max > 64)
		max = 64;
	ra[0] = e;
	for (k = 1; k < max && block + k < s->nblocks_dev; k++) {
		struct ent *x;

		ra[k] = NULL;
		if (lookup(s, block + k))
			continue;
		x = alloc_entry(s, block + k, t);
		if (!x)
			break;
		ra[k] = x;
		n = k + 1;
	}
	origin_io(s, C_FILL_RA, false, block * bs, (uint64_t)n * bs);
	for (k = 0; k < n; k++) {
		if (!ra[k])
			continue;
		entry_set(s, ra[k], (1u << s->g.nr_subblocks) - 1, 0, t);
		s->st[k ? FC_ST_READ_AHEAD : FC_ST_PROMOTIONS]++;
	}
}

static void fill(struct sim *s, struct ent *e, uint64_t block, uint8_t mask, bool write,
		 double t)
{
	uint32_t bs = s->g.block_sectors, sub = s->g.subblock_sectors, i = 0, j;

	while (i < s->g.nr_subblocks) {
		if (!(mask & (1u << i))) {
			i++;
			continue;
		}
		for (j = i; j < s->g.nr_subblocks && (mask & (1u << j)); j++)
			;
		origin_io(s, write ? C_WFILL : C_FILL, false, block * bs + i * sub, (j - i) * sub);
		i = j;
	}
	entry_set(s, e, e->valid | mask, e->dirty, t);
	s->st[FC_ST_PROMOTIONS]++;
}

static void count(struct sim *s, uint32_t c)
{
	unsigned int i;

	for (i = 0; i < FC_ST_NR; i++)
		if (c & FC_STAT_BIT(i))
			s->st[i]++;
}

/* One read or write of @sectors at @sector (within one block: the trace's are). */
static void do_bio(struct sim *s, bool write, bool fua, uint64_t sector, uint32_t sectors,
		   double t)
{
	uint32_t bs = s->g.block_sectors;
	uint64_t block = sector / bs;
	struct fc_facts f;
	struct fc_decision d;
	struct ent *e = lookup(s, block);
	bool stream = false, worker = false;

	if (block >= s->nblocks_dev)
		return;
	memset(&f, 0, sizeof(f));
	f.write = write;
	f.fua = fua;
	f.sync = write && sectors <= bs;		/* O_DIRECT writes: REQ_SYNC */
	f.urgent = write && fua && sectors <= bs;
	f.off = (uint32_t)(sector % bs);
	f.len = sectors;
	f.mode = FC_MODE_WRITEBACK;
	f.md_rw = true;
	f.block_sectors = bs;
	f.subblock_sectors = s->g.subblock_sectors;
	f.wb_high = s->o.journal_s > 0 ? 101 : s->o.high;
	f.seq = fc_seq_check(&s->seq, sector, sectors, 1024 * 2);
	if (s->o.journal_s > 0 && write)
		f.seq = false;	/* ordered: a stream's writes are cached too */
	f.cacheable = (block + 1) * bs <= s->nblocks_dev * bs;
	if (!write) {
		uint8_t m = fc_subblock_mask(f.off, f.len, f.subblock_sectors);
		bool hit = e && (e->valid & m) == m;

		stream = fc_ra_read(&s->ra, block, !hit, (uint32_t)(t * HZ), HZ);
	}
	f.stream = stream;
again:
	f.worker = worker;
	facts_of(s, &f, e);
	for (;;) {
		fc_decide(&f, &d);
		if (d.act == FC_ACT_GHOST) {
			f.ghost = s->o.no_ghost || fc_ghost_admit(&s->ghost, (block << 6) | 0) ?
				FC_STEP_YES : FC_STEP_NO;
		} else if (d.act == FC_ACT_ALLOC) {
			e = alloc_entry(s, block, t);
			f.alloc = e ? FC_STEP_YES : FC_STEP_NO;
			facts_of(s, &f, e);
		} else {
			break;
		}
	}
	if (!worker)
		count(s, d.count);
	switch (d.act) {
	case FC_ACT_FLASH_READ:
		e->flags |= E_REF;
		return;
	case FC_ACT_FLASH_WRITE:
		e->gen++;
		if (e->wcount < FC_WB_HOT_OFF - 1)
			e->wcount++;
		e->flags |= E_REF;
		entry_set(s, e, e->valid | d.fb_mask, e->dirty | d.fb_mask, t);
		return;
	case FC_ACT_WRITE_AROUND:
		origin_io(s, d.why != FC_ST_WRITE_AROUND_HIGH ? C_WRITE_AROUND_OTHER :
			  s->last_write[block] > s->idx ? C_WRITE_AROUND : C_WRITE_AROUND_FINAL,
			  true, sector, sectors);
		if (e) {
			e->gen++;
			entry_set(s, e, e->valid & ~d.mask, e->dirty, t);
			if (!e->valid && !(e->flags & E_WB))
				release(s, e, t);
		}
		return;
	case FC_ACT_ORIGIN_WHOLE:
	case FC_ACT_ORIGIN:
		if (write)
			origin_io(s, C_WRITE_AROUND_OTHER, true, sector, sectors);
		else
			origin_io(s, C_READ_AROUND, false, sector, sectors);
		if (d.release && e)
			release(s, e, t);
		return;
	case FC_ACT_DEFER:
		worker = true;
		goto again;
	case FC_ACT_FILL:
		if (!write && f.alloc == FC_STEP_YES && stream)
			fill_stream(s, e, block, t);
		else
			fill(s, e, block, d.fill, write, t);
		f.alloc = FC_STEP_NOT_TRIED;
		goto again;
	default:
		die("unexpected decision (wait, kill, twin) in the model");
	}
}

/* --------------------------------------------------------------- report */

static void report(struct sim *s, const struct bench_opt *o, bool have_opt)
{
	static const char *const st_names[FC_ST_NR] = {
		"reads", "read_hits", "writes", "write_hits", "bypassed", "errors",
		"promotions", "writebacks", "read_around_seq", "read_around_cold",
		"read_around_other", "write_allocs", "write_around_seq", "write_around_high",
		"write_around_busy", "write_around_other", "write_sync_kept",
		"write_sync_high", "fua", "flushes", "flushes_origin", "read_ahead",
		"write_ro_refused",
	};
	double tx = s->txns ? (double)s->txns : 1;
	uint64_t rd = 0, wr = 0;
	unsigned int i;

	printf("counters:");
	for (i = 0; i < FC_ST_NR; i++)
		if (s->st[i])
			printf(" %s=%llu", st_names[i], (unsigned long long)s->st[i]);
	printf(" writeback_batches=%llu writeback_blocks=%llu writeback_ios=%llu writeback_merged=%llu writeback_raced=%llu writeback_aged=%llu writeback_hot=%llu\n",
	       (unsigned long long)s->wb_batches, (unsigned long long)s->wb_blocks,
	       (unsigned long long)s->wb_ios, (unsigned long long)s->wb_merged,
	       (unsigned long long)s->wb_raced, (unsigned long long)s->wb_aged,
	       (unsigned long long)s->wb_hot);
	printf("read hit ratio %.1f%%; dirty at the end %llu of %u blocks (%.0f%% on average, above writeback_high %.0f%% of the time)\n",
	       s->st[FC_ST_READS] ? 100.0 * s->st[FC_ST_READ_HITS] / s->st[FC_ST_READS] : 0,
	       (unsigned long long)s->nr_dirty, s->nr,
	       s->dirty_samples ? 100.0 * s->dirty_sum / s->dirty_samples / s->nr : 0,
	       s->dirty_samples ? 100.0 * s->throttled_samples / s->dirty_samples : 0);
	for (i = 0; i < C_WRITE_AROUND; i++)
		rd += s->cause[i];
	for (; i < C_NR; i++)
		wr += s->cause[i];
	printf("origin requests: %llu (reads %llu, writes %llu), %.3f per transaction (reads %.3f, writes %.3f); %llu transactions\n",
	       (unsigned long long)(rd + wr), (unsigned long long)rd, (unsigned long long)wr,
	       (rd + wr) / tx, rd / tx, wr / tx, (unsigned long long)s->txns);
	if (s->o.journal_s > 0)
		printf("journal: a batch every %.1f s: %llu batches, %llu blocks (%.0f a batch, at most %llu of %u), %.1f MiB journalled; origin writes %.1f a second of trace time\n",
		       s->o.journal_s, (unsigned long long)s->j_batches,
		       (unsigned long long)s->j_blocks,
		       s->j_batches ? (double)s->j_blocks / s->j_batches : 0,
		       (unsigned long long)s->j_max_blocks, s->nr, s->j_sectors / 2048.0,
		       s->t_span > 0 ? wr / s->t_span : 0);
	if (s->o.log_mb)
		printf("log: %llu MiB, applied %llu times (%llu blocks in place), %llu blocks in it at the end (%.1f MiB of it used); %llu origin reads of blocks in it (%.3f per transaction, %.1f a second)\n",
		       (unsigned long long)s->o.log_mb, (unsigned long long)s->log_applies,
		       (unsigned long long)s->log_applied, (unsigned long long)s->log_n,
		       s->log_sectors / 2048.0, (unsigned long long)s->log_reads,
		       s->log_reads / tx, s->t_span > 0 ? s->log_reads / s->t_span : 0);
	printf("%-48s %9s %9s\n", "cause", "requests", "per txn");
	for (i = 0; i < C_NR; i++)
		printf("%-48s %9llu %9.3f\n", cause_name[i], (unsigned long long)s->cause[i],
		       s->cause[i] / tx);
	if (!have_opt)
		return;
	printf("offline optimum (bench_opt.c, same trace and flash): read hit ratio %.1f%%; origin ops per txn at least %.3f (reads %.3f, writebacks %.3f), a schedule %.3f (reads %.3f, writebacks %.3f, %llu pages dirty at the end)\n",
	       100.0 * bench_opt_ratio(o, o->min_hits), bench_opt_lb(o) / tx, o->lb_reads / tx,
	       o->lb_writes / tx, bench_opt_sched(o) / tx, o->s_read_ops / tx,
	       o->s_write_ops / tx, (unsigned long long)o->s_end_pages);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fcsim [--high PCT] [--low PCT] [--max-age S] [--jobs N] [--block-kib K]\n"
		"             [--flash-size MB] [--wb-rate OPS] [--max-sectors N] [--chunk-kib K]\n"
		"             [--ra-kib K] [--old-ra] [--hot-writes N] [--no-ghost] [--no-optimum]\n"
		"             [--journal S [--log-mb L]]\n"
		"             TRACE\n"
		"defaults: the pool's (writeback_high 80, low 50, max_dirty_age 60, 32 jobs),\n"
		"16 KiB blocks, the trace's flash, 70 writeback writes a second, the demo's\n"
		"origin (255 sectors a request, 512 KiB chunks), FC_RA_BYTES (128 KiB),\n"
		"FC_WB_HOT_WRITES (8)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "high", 1, 0, 'h' }, { "low", 1, 0, 'l' }, { "max-age", 1, 0, 'a' },
		{ "jobs", 1, 0, 'j' }, { "block-kib", 1, 0, 'b' }, { "flash-size", 1, 0, 'f' },
		{ "wb-rate", 1, 0, 'r' }, { "max-sectors", 1, 0, 'm' }, { "chunk-kib", 1, 0, 'c' },
		{ "no-optimum", 0, 0, 'n' }, { "ra-kib", 1, 0, 'A' }, { "hot-writes", 1, 0, 'H' },
		{ "no-ghost", 0, 0, 'G' }, { "old-ra", 0, 0, 'O' }, { "journal", 1, 0, 'J' },
		{ "log-mb", 1, 0, 'L' },
		{ 0, 0, 0, 0 },
	};
	struct sim *s = xcalloc(1, sizeof(*s));
	struct bench_trace_hdr h;
	struct bench_trace_rec *rec;
	struct bench_opt o;
	size_t n, i;
	uint64_t flash;
	bool have_opt = false;
	int c;

	s->o = (struct opts){ .high = FC_DEFAULT_WRITEBACK_HIGH, .low = FC_DEFAULT_WRITEBACK_LOW,
			      .max_age = FC_DEFAULT_MAX_DIRTY_AGE,
			      .jobs = FC_DEFAULT_WRITEBACK_JOBS, .block_kib = 16,
			      .wb_rate = 70, .max_sectors = 255, .chunk_kib = 512,
			      .ra_kib = RA_BYTES >> 10, .hot_writes = FC_WB_HOT_WRITES };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'h': s->o.high = (uint32_t)atoi(optarg); break;
		case 'l': s->o.low = (uint32_t)atoi(optarg); break;
		case 'a': s->o.max_age = (uint32_t)atoi(optarg); break;
		case 'j': s->o.jobs = (uint32_t)atoi(optarg); break;
		case 'b': s->o.block_kib = (uint32_t)atoi(optarg); break;
		case 'f': s->o.flash_mb = strtoull(optarg, NULL, 0); break;
		case 'r': s->o.wb_rate = atof(optarg); break;
		case 'm': s->o.max_sectors = (uint32_t)atoi(optarg); break;
		case 'c': s->o.chunk_kib = (uint32_t)atoi(optarg); break;
		case 'n': s->o.no_opt = true; break;
		case 'A': s->o.ra_kib = (uint32_t)atoi(optarg); break;
		case 'H': s->o.hot_writes = (uint32_t)atoi(optarg); break;
		case 'G': s->o.no_ghost = true; break;
		case 'O': s->o.old_ra = true; break;
		case 'J': s->o.journal_s = atof(optarg); break;
		case 'L': s->o.log_mb = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind + 1 != argc || s->o.wb_rate <= 0 || s->o.journal_s < 0 ||
	    (s->o.log_mb && s->o.journal_s <= 0))
		usage();
	rec = read_trace(argv[optind], &h, &n);
	flash = s->o.flash_mb ? s->o.flash_mb << 20 : h.flash_bytes;
	if (!flash)
		die("the trace has no flash size: give --flash-size MB");
	if (fc_geometry_compute(&s->g, flash >> 9, s->o.block_kib * 2))
		die("no pool of that block size fits the flash");
	s->nr = (uint32_t)s->g.nr_blocks;
	s->nblocks_dev = h.dev_bytes / (s->g.block_sectors * 512u);
	s->e = xcalloc(s->nr, sizeof(*s->e));
	s->map = xcalloc(s->nblocks_dev, sizeof(*s->map));
	s->last_write = xcalloc(s->nblocks_dev, sizeof(*s->last_write));
	if (s->o.log_mb) {
		s->in_log = xcalloc(s->nblocks_dev, 1);
		s->log_list = xcalloc(s->nblocks_dev, sizeof(*s->log_list));
	}
	memset(s->map, 0xff, s->nblocks_dev * sizeof(*s->map));
	s->free_head = NONE;
	for (i = s->nr; i-- > 0;)
		push_free(s, (uint32_t)i);
	s->ghost_slots = xcalloc(GHOST_SLOTS, sizeof(uint32_t));
	fc_ghost_init(&s->ghost, s->ghost_slots, GHOST_SLOTS);
	fc_seq_init(&s->seq);
	s->ra_slots = xcalloc(FC_RA_SLOTS, sizeof(*s->ra_slots));
	fc_ra_init(&s->ra, s->ra_slots);
	s->hot_writes = (uint8_t)s->o.hot_writes;
	s->wb.eidx = xcalloc(s->nr > WB_MAX_BATCH ? s->nr : WB_MAX_BATCH, sizeof(uint32_t));
	s->wb.gen = xcalloc(s->nr > WB_MAX_BATCH ? s->nr : WB_MAX_BATCH, sizeof(uint32_t));
	s->wb.mask = xcalloc(s->nr > WB_MAX_BATCH ? s->nr : WB_MAX_BATCH, 1);
	for (i = 0; i < n; i++) {
		const struct bench_trace_rec *r = &rec[i];
		uint64_t b = r->off / (s->g.block_sectors * 512u), e;

		if (r->op != BENCH_TR_WRITE && r->op != BENCH_TR_SYNC)
			continue;
		for (e = (r->off + r->len - 1) / (s->g.block_sectors * 512u);
		     b <= e && b < s->nblocks_dev; b++)
			s->last_write[b] = (uint32_t)i + 1;
	}
	s->next_tick = n ? rec[0].t_ns / 1e9 + 1.0 : 0;
	s->next_cut = n ? rec[0].t_ns / 1e9 + s->o.journal_s : 0;
	for (i = 0; i < n; i++) {
		const struct bench_trace_rec *r = &rec[i];
		double t = r->t_ns / 1e9;
		uint64_t sec = r->off >> 9;
		uint32_t len = r->len >> 9, bs = s->g.block_sectors;

		s->idx = i + 1;
		if (s->o.journal_s > 0)
			journal_advance(s, t);
		else
			wb_advance(s, t);
		switch (r->op) {
		case BENCH_TR_COMMIT:
			s->txns++;
			s->dirty_sum += s->nr_dirty;
			s->dirty_samples++;
			s->throttled_samples += fc_wb_above_high(s->nr_dirty, s->nr, s->o.high);
			continue;
		case BENCH_TR_FLUSH:
			s->st[FC_ST_FLUSHES]++;
			continue;
		case BENCH_TR_READ:
		case BENCH_TR_WRITE:
		case BENCH_TR_SYNC:
			break;
		default:
			continue;
		}
		/* cut at block boundaries as map does */
		while (len) {
			uint32_t in = bs - (uint32_t)(sec % bs);

			if (in > len)
				in = len;
			do_bio(s, r->op != BENCH_TR_READ, r->op == BENCH_TR_SYNC, sec, in, t);
			sec += in;
			len -= in;
		}
	}
	if (!s->o.no_opt) {
		struct bench_opt_in in = { flash, BENCH_OPT_MAX_IO, 0 };

		have_opt = bench_opt_compute(rec, n, &in, &o) == 0;
	}
	s->t_span = n ? (rec[n - 1].t_ns - rec[0].t_ns) / 1e9 : 0;
	report(s, &o, have_opt);
	free(rec);
	return 0;
}
