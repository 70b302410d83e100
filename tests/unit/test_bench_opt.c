/*
 * Unit tests of userspace/bench/bench_opt.c, the offline optimum of a
 * cache on a block trace: Belady's MIN on the textbook reference strings
 * whose fault counts are known, MIN with bypass and the bounds of the
 * origin operations against an exhaustive search of every policy on small
 * random traces, hand-checked costs of writes (overwrites absorbed, what
 * is dirty at the end not counted, writebacks of neighbours merged, a
 * ring larger than the flash), a benchmark-like trace (16 KiB pages, a
 * hot set, a 4 KiB log ring) where the bound must stay under the schedule,
 * and the inputs refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "userspace/bench/bench_opt.h"
#include "unit.h"

#define PG BENCH_OPT_PAGE

static struct bench_trace_rec tr[8192];
static int ntr;

static void add(int op, uint64_t page, uint32_t pages)
{
	struct bench_trace_rec *r = &tr[ntr++];

	memset(r, 0, sizeof(*r));
	r->op = op;
	r->off = page * PG;
	r->len = pages * PG;
}

/* A trace of one-page reads of the pages in @s ("7 0 1 2 ..."). */
static void reads_of(const char *s)
{
	char *end;

	ntr = 0;
	for (;;) {
		long v = strtol(s, &end, 10);

		if (end == s)
			break;
		add(BENCH_TR_READ, v, 1);
		s = end;
	}
}

static int compute(uint64_t cap_pages, uint32_t max_io_pages, struct bench_opt *o)
{
	struct bench_opt_in in = { cap_pages * PG, max_io_pages * PG, 0 };

	return bench_opt_compute(tr, ntr, &in, o);
}

static void textbook(void)
{
	struct bench_opt o;

	/* Silberschatz, Operating System Concepts: OPT, 3 frames, 9 faults */
	reads_of("7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1");
	CHECK("MIN: textbook string, 3 frames, 9 faults",
	      !compute(3, 1, &o) && o.read_pages == 20 && o.min_hits == 11);
	CHECK("MIN with bypass is never worse", o.byp_hits >= o.min_hits);
	/* Belady's anomaly string: OPT 7 faults with 3 frames, 6 with 4 */
	reads_of("1 2 3 4 1 2 5 1 2 3 4 5");
	CHECK("MIN: 1 2 3 4 1 2 5 1 2 3 4 5, 3 frames, 7 faults",
	      !compute(3, 1, &o) && o.min_hits == 5);
	CHECK("MIN: same, 4 frames, 6 faults", !compute(4, 1, &o) && o.min_hits == 6);
	/* with bypass: 1 2 1 3 1 2 with one frame keeps 1 (3 is bypassed): hits 1, 1 */
	reads_of("1 2 1 3 1 2");
	CHECK("MIN, 1 frame: 1 2 1 3 1 2 hits only the second 1 (fill on miss)",
	      !compute(1, 1, &o) && o.min_hits == 0);
	CHECK("MIN with bypass, 1 frame: keeps 1 against 2 and 3 (two hits)",
	      o.byp_hits == 2);
	CHECK("reads cost one origin read each miss in the schedule",
	      o.s_read_ops == 6 - o.s_hits && o.s_hits == 2);
	CHECK("no writes: no writeback in either bound",
	      o.lb_writes == 0 && o.s_write_ops == 0 && o.s_end_pages == 0);
	CHECK("read-only trace: lower bound = MIN with bypass misses",
	      bench_opt_lb(&o) == 4 && bench_opt_sched(&o) == 4);
}

/* ------------------------------------------- exhaustive search (tiny) */

#define BF_PAGES 6
#define BF_LEN 12

struct bf {
	int n, cap;
	int op[BF_LEN], pg[BF_LEN];
	/* memo: read misses [bypass][i][cached], cost [i][cached][dirty]; -1 unknown */
	int miss[2][BF_LEN + 1][1 << BF_PAGES];
	int cost[BF_LEN + 1][1 << BF_PAGES][1 << BF_PAGES];
};

static struct bf B;

static int popc(int x)
{
	return __builtin_popcount(x);
}

/* The fewest read misses from access @i on, cache @cached (every policy tried). */
static int bf_miss(int byp, int i, int cached)
{
	int *m = &B.miss[byp][i][cached], p, v, best, cost, x;

	if (i == B.n)
		return 0;
	if (*m >= 0)
		return *m;
	p = 1 << B.pg[i];
	cost = B.op[i] == BENCH_TR_READ;
	if (cached & p) {
		best = bf_miss(byp, i + 1, cached);
	} else {
		best = 1 << 20;
		if (byp)
			best = cost + bf_miss(byp, i + 1, cached);
		if (popc(cached) < B.cap) {
			x = cost + bf_miss(byp, i + 1, cached | p);
			best = x < best ? x : best;
		} else {
			for (v = 0; v < BF_PAGES; v++) {
				if (!(cached & 1 << v))
					continue;
				x = cost + bf_miss(byp, i + 1, (cached & ~(1 << v)) | p);
				best = x < best ? x : best;
			}
		}
	}
	*m = best;
	return best;
}

/*
 * The fewest origin operations from request @i on (one-page requests, no
 * merging): a read miss 1, a write around the cache 1, a dirty eviction 1,
 * a page dirty at the end nothing; a write to a cached page makes it dirty.
 */
static int bf_cost(int i, int cached, int dirty)
{
	int *m = &B.cost[i][cached][dirty], p, v, best, x, w;

	if (i == B.n)
		return 0;
	if (*m >= 0)
		return *m;
	p = 1 << B.pg[i];
	w = B.op[i] != BENCH_TR_READ;
	if (cached & p) {
		best = bf_cost(i + 1, cached, w ? dirty | p : dirty);
	} else {
		best = 1 + bf_cost(i + 1, cached, dirty);	/* around the cache */
		if (popc(cached) < B.cap) {
			x = !w + bf_cost(i + 1, cached | p, w ? dirty | p : dirty);
			best = x < best ? x : best;
		} else {
			for (v = 0; v < BF_PAGES; v++) {
				int nd = dirty & ~(1 << v);

				if (!(cached & 1 << v))
					continue;
				x = !w + !!(dirty & 1 << v) +
				    bf_cost(i + 1, (cached & ~(1 << v)) | p, w ? nd | p : nd);
				best = x < best ? x : best;
			}
		}
	}
	*m = best;
	return best;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void property(void)
{
	int t, ok_min = 1, ok_byp = 1, ok_lb = 1, ok_ub = 1, ok_order = 1, tight = 0;
	double worst_gap = 0;

	for (t = 0; t < 3000; t++) {
		struct bench_opt o;
		int i, npages = 2 + rnd() % (BF_PAGES - 1), opt;
		int wpct = t % 3 == 0 ? 0 : 10 + rnd() % 50;

		B.n = 4 + rnd() % (BF_LEN - 3);
		B.cap = 1 + rnd() % 4;
		ntr = 0;
		for (i = 0; i < B.n; i++) {
			B.pg[i] = rnd() % npages;
			B.op[i] = (int)(rnd() % 100) < wpct ? (rnd() % 2 ? BENCH_TR_WRITE : BENCH_TR_SYNC)
							    : BENCH_TR_READ;
			add(B.op[i], B.pg[i] * 3, 1);	/* apart: no merging */
			if (rnd() % 4 == 0)
				add(BENCH_TR_FLUSH, 0, 0);
		}
		memset(B.miss, 0xff, sizeof(B.miss));
		memset(B.cost, 0xff, sizeof(B.cost));
		if (compute(B.cap, 1, &o)) {
			ok_min = 0;
			break;
		}
		if (o.read_pages - o.min_hits != (uint64_t)bf_miss(0, 0, 0))
			ok_min = 0;
		if (o.read_pages - o.byp_hits != (uint64_t)bf_miss(1, 0, 0))
			ok_byp = 0;
		opt = bf_cost(0, 0, 0);
		if (bench_opt_lb(&o) > opt + 1e-9)
			ok_lb = 0;
		if (bench_opt_sched(&o) < (uint64_t)opt)
			ok_ub = 0;
		if (o.min_hits > o.byp_hits || o.s_hits > o.byp_hits)
			ok_order = 0;
		tight += bench_opt_lb(&o) == opt && bench_opt_sched(&o) == (uint64_t)opt;
		if (opt && (bench_opt_sched(&o) - opt) / (double)opt > worst_gap)
			worst_gap = (bench_opt_sched(&o) - opt) / (double)opt;
	}
	CHECK("property: MIN (fill on miss) = the fewest read misses of every policy, 3000 traces",
	      ok_min);
	CHECK("property: MIN with bypass = the fewest read misses when a miss or write may go around",
	      ok_byp);
	CHECK("property: the lower bound never exceeds the optimum of origin operations", ok_lb);
	CHECK("property: the schedule never beats the optimum (its costs are the model's)", ok_ub);
	CHECK("property: MIN <= MIN with bypass, schedule's hits <= MIN with bypass", ok_order);
	printf("# property: both bounds equal the optimum on %d of 3000 traces; the schedule's "
	       "worst excess %.0f%%\n", tight, worst_gap * 100);
	CHECK("property: the bounds are tight on most traces", tight > 2000);
}

/* ------------------------------------------------- writes, by hand */

static void writes(void)
{
	struct bench_opt o;
	int i, k;

	/* one page of flash: W a, W a, R a: the overwrite and the read are free */
	ntr = 0;
	add(BENCH_TR_WRITE, 10, 1);
	add(BENCH_TR_FLUSH, 0, 0);
	add(BENCH_TR_SYNC, 10, 1);
	add(BENCH_TR_READ, 10, 1);
	add(BENCH_TR_COMMIT, 0, 0);
	CHECK("W a, W a, R a: no origin operation (dirty at the end not counted), the read hits",
	      !compute(1, 64, &o) && o.min_hits == 1 && o.byp_hits == 1 && o.s_hits == 1 &&
	      bench_opt_lb(&o) == 0 && bench_opt_sched(&o) == 0 && o.s_end_pages == 1);
	CHECK("counts: 1 read, 1 write, 1 sync write, 1 flush, 1 commit",
	      o.reads == 1 && o.writes == 1 && o.sync_writes == 1 && o.flushes == 1 &&
	      o.commits == 1 && o.records == 5 && o.written == 1 && o.pages == 1);
	CHECK("both versions held: the first until overwritten, the second to the end",
	      o.versions == 2 && o.held == 2);

	/* one page: W a, W b, W a (a, b neighbours): b must leave, a is held */
	ntr = 0;
	add(BENCH_TR_WRITE, 20, 1);
	add(BENCH_TR_WRITE, 21, 1);
	add(BENCH_TR_WRITE, 20, 1);
	CHECK("W a, W b, W a, 1 page: the schedule writes b around (1)",
	      !compute(1, 64, &o) && bench_opt_sched(&o) == 1 && o.s_write_ops == 1 &&
	      o.s_end_pages == 1);
	CHECK("... the bound lets b share a write with its neighbour a (1/2)",
	      bench_opt_lb(&o) == 0.5);
	CHECK("... without merging (4 KiB writes) the bound is 1", !compute(1, 1, &o) &&
	      bench_opt_lb(&o) == 1 && bench_opt_sched(&o) == 1);

	/* a ring of 8 records rewritten 4 times */
	ntr = 0;
	for (k = 0; k < 4; k++)
		for (i = 0; i < 8; i++)
			add(BENCH_TR_SYNC, 5000 + i, 1);
	CHECK("a ring larger than the flash (4 of 8 pages): bound <= schedule <= all written",
	      !compute(4, 1, &o) && o.versions == 32 && bench_opt_lb(&o) <= bench_opt_sched(&o) &&
	      bench_opt_sched(&o) <= 32 && bench_opt_lb(&o) >= 12);
	CHECK("... a ring that fits costs nothing", !compute(8, 1, &o) && o.held == 32 &&
	      bench_opt_lb(&o) == 0 && bench_opt_sched(&o) == 0);
	/* a log of 2048 records, 3 rounds, through 1024 pages: merged writebacks */
	ntr = 0;
	for (k = 0; k < 3; k++)
		for (i = 0; i < 2048; i++)
			add(BENCH_TR_SYNC, 100000 + i, 1);
	CHECK("a log ring twice the flash: written back merged, 64 records a write",
	      !compute(1024, 64, &o) && bench_opt_lb(&o) <= bench_opt_sched(&o) &&
	      o.s_write_ops <= 3 * 2048 / 64 + 2 && o.s_write_ops >= 2048 / 64);
	CHECK("... not merged: one write a record", !compute(1024, 1, &o) &&
	      bench_opt_lb(&o) <= bench_opt_sched(&o) && o.s_write_ops >= 2048);

	/* 16 KiB pages: a miss is one origin read */
	ntr = 0;
	add(BENCH_TR_READ, 0, 4);
	add(BENCH_TR_WRITE, 0, 4);
	add(BENCH_TR_READ, 8, 4);
	add(BENCH_TR_READ, 0, 4);
	CHECK("16 KiB pages, 4 pages of flash: 2 reads, the written page held to the end",
	      !compute(4, 64, &o) && o.max_read_pages == 4 && o.s_read_ops == 2 &&
	      bench_opt_sched(&o) == 2 && o.s_hits == 4 && bench_opt_lb(&o) == 2);
	CHECK("... hit ratio per 4 KiB page: 4 of 12", bench_opt_ratio(&o, o.byp_hits) == 4 / 12.0);
	/* a partial page counts as the whole page */
	ntr = 0;
	add(BENCH_TR_READ, 0, 1);
	tr[0].off = 512;
	tr[0].len = 4096;
	CHECK("an unaligned 4 KiB read covers 2 pages", !compute(4, 64, &o) && o.read_pages == 2);
}

/* ------------------------------------ a benchmark-like trace, at scale */

static struct bench_trace_rec *big;

static size_t bench_like(size_t ntx, uint64_t npages, uint64_t ring)
{
	size_t n = 0, t;
	uint64_t lsn = 0, log0 = npages * 4 + 256;

	big = malloc(ntx * 16 * sizeof(*big));
	for (t = 0; t < ntx; t++) {
		int i;

		for (i = 0; i < 8; i++) {
			/* 95% of the accesses to 10% of the pages */
			uint64_t p = rnd() % 100 < 95 ? rnd() % (npages / 10) : rnd() % npages;
			int w = i < 4 && rnd() % 2;
			struct bench_trace_rec *r = &big[n++];

			memset(r, 0, sizeof(*r));
			r->op = w ? BENCH_TR_WRITE : BENCH_TR_READ;
			r->off = (p * 7919 % npages) * 4 * PG;
			r->len = 4 * PG;
		}
		memset(&big[n], 0, sizeof(big[n]));
		big[n].op = BENCH_TR_SYNC;
		big[n].off = (log0 + lsn++ % ring) * PG;
		big[n++].len = PG;
		memset(&big[n], 0, sizeof(big[n]));
		big[n++].op = t % 64 ? BENCH_TR_COMMIT : BENCH_TR_FLUSH;
	}
	return n;
}

static void at_scale(void)
{
	struct bench_opt o;
	struct bench_opt_in in = { 4096ull * PG, BENCH_OPT_MAX_IO, 0 };
	size_t n = bench_like(50000, 16384, 1024);
	struct timespec a, b;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = bench_opt_compute(big, n, &in, &o);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK("benchmark-like trace (16 KiB pages, hot set, 4 KiB log ring) computes", !rc);
	printf("# %zu records, %llu page accesses: %.2f s (sanitizers on); MIN %.1f%%, bypass "
	       "%.1f%%, schedule %.1f%%; ops: bound %.0f, schedule %llu\n", n,
	       (unsigned long long)(o.read_pages + o.write_pages),
	       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
	       100 * bench_opt_ratio(&o, o.min_hits), 100 * bench_opt_ratio(&o, o.byp_hits),
	       100 * bench_opt_ratio(&o, o.s_hits), bench_opt_lb(&o),
	       (unsigned long long)bench_opt_sched(&o));
	CHECK("... MIN <= MIN with bypass, the schedule's hits <= MIN with bypass",
	      o.min_hits <= o.byp_hits && o.s_hits <= o.byp_hits);
	CHECK("... the lower bound <= the schedule", bench_opt_lb(&o) <= bench_opt_sched(&o));
	CHECK("... reads: the bound is at least the bypass misses over 4 pages",
	      bench_opt_lb(&o) >= (o.read_pages - o.byp_hits) / 4.0 - 1e-6 &&
	      o.max_read_pages == 4);
	CHECK("... counts", o.commits + o.flushes == 50000 && o.sync_writes == 50000);
	free(big);
}

static void refused(void)
{
	struct bench_opt o;
	struct bench_opt_in in = { PG - 1, BENCH_OPT_MAX_IO, 0 };

	reads_of("1 2 3");
	errno = 0;
	CHECK("a flash under 4 KiB is refused (EINVAL)",
	      bench_opt_compute(tr, ntr, &in, &o) == -1 && errno == EINVAL);
	in.flash_bytes = PG;
	in.max_io = 1000;
	errno = 0;
	CHECK("a max_io not of whole pages is refused (EINVAL)",
	      bench_opt_compute(tr, ntr, &in, &o) == -1 && errno == EINVAL);
	in.max_io = 8 << 20;
	errno = 0;
	CHECK("a max_io over 4 MiB is refused (EINVAL)",
	      bench_opt_compute(tr, ntr, &in, &o) == -1 && errno == EINVAL);
	in.max_io = PG;
	CHECK("an empty trace gives zeros", !bench_opt_compute(tr, 0, &in, &o) &&
	      o.read_pages == 0 && bench_opt_ratio(&o, 0) == -1 && bench_opt_lb(&o) == 0);
}

int main(void)
{
	textbook();
	property();
	writes();
	at_scale();
	refused();
	return unit_failed;
}
