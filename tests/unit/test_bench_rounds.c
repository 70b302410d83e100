/*
 * Unit tests of userspace/bench/bench_rounds.c, the rounds of `fcachectl bench
 * compare --rounds N` (run order, medians and spread), and of the reports
 * built from them in userspace/bench/bench_stats.c and bench_report.c
 * (ratios of medians, the spread tables, the summary line, results.json),
 * on synthetic results.
 *
 *   test_bench_rounds [DIR]   DIR: also leave results.json and chart.svg
 *                             of a synthetic 3-round compare there (the
 *                             host bench suite checks them against the
 *                             schema with tests/host/bench_check_json.py)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userspace/bench/bench_int.h"
#include "unit.h"

#define NSTEPS 2

static const int users[NSTEPS] = { 8, 16 };

static const struct bench_profile prof = {
	"tpcc-like", "synthetic", 1, { { "t", 100, 1, 0, 0, 0, 0, 0 } },
};

/* A run of @cfg with @tps and @avg (ms) at 8 and 16 users. */
static void mk_run(struct bench_result *r, const char *cfg, const double *tps,
		   const double *avg, int nsteps)
{
	int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->config, sizeof(r->config), "%s", cfg);
	snprintf(r->device, sizeof(r->device), "/dev/synthetic");
	r->profile = &prof;
	r->npages = 1000;
	r->page_size = 16384;
	r->bp_mb = 16;
	r->bp_frames = 1024;
	r->warm_s = 5;
	r->warm.txns = 7;
	r->pages_verified = 100;
	r->nsteps = nsteps;
	for (i = 0; i < nsteps; i++) {
		struct bench_step *s = &r->step[i];

		s->users = users[i];
		s->seconds = 10;
		s->tps = tps[i];
		s->avg_ms = avg[i];
		s->p95_ms = avg[i] * 2;
		s->p99_ms = avg[i] * 3;
		s->max_ms = avg[i] * 4;
		s->c.txns = (uint64_t)(tps[i] * 10);
		s->c.txn_by_type[0] = s->c.txns;
		s->c.page_accesses = s->c.txns * 3;
		s->c.dev_reads = 11;
		if (avg[i] < 2000 && users[i] > r->max_users_under_limit)
			r->max_users_under_limit = users[i];
	}
	r->final_ver = NULL;
}

static int near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

static void test_spread(void)
{
	struct bench_spread sp;
	double odd[] = { 3, 1, 2 }, even[] = { 10, 1, 3, 2 }, one[] = { 5 };
	double zero[] = { 0, 0 }, dup[] = { 2, 7, 2 }, many[BENCH_MAX_ROUNDS + 1];
	int i;

	CHECK("spread odd: median is the middle value",
	      bench_spread_of(odd, 3, &sp) == 0 && sp.n == 3 && near(sp.median, 2) &&
	      near(sp.min, 1) && near(sp.max, 3) && near(sp.spread_pct, 100));
	CHECK("spread leaves its input as it is", odd[0] == 3 && odd[1] == 1 && odd[2] == 2);
	CHECK("spread even: median is the mean of the two middle values",
	      bench_spread_of(even, 4, &sp) == 0 && near(sp.median, 2.5) &&
	      near(sp.min, 1) && near(sp.max, 10) && near(sp.spread_pct, 360));
	CHECK("spread of one value is 0%",
	      bench_spread_of(one, 1, &sp) == 0 && near(sp.median, 5) && near(sp.min, 5) &&
	      near(sp.max, 5) && sp.spread_pct == 0);
	CHECK("spread with a median of 0 is 0%",
	      bench_spread_of(zero, 2, &sp) == 0 && sp.median == 0 && sp.spread_pct == 0);
	CHECK("spread with duplicates", bench_spread_of(dup, 3, &sp) == 0 && near(sp.median, 2));
	for (i = 0; i <= BENCH_MAX_ROUNDS; i++)
		many[i] = BENCH_MAX_ROUNDS - i;
	CHECK("spread of BENCH_MAX_ROUNDS values",
	      bench_spread_of(many, BENCH_MAX_ROUNDS, &sp) == 0 &&
	      near(sp.median, (BENCH_MAX_ROUNDS + 1) / 2.0) && near(sp.min, 1) &&
	      near(sp.max, BENCH_MAX_ROUNDS));
	CHECK("spread of more than BENCH_MAX_ROUNDS values refused",
	      bench_spread_of(many, BENCH_MAX_ROUNDS + 1, &sp) == -1 && sp.n == 0);
	CHECK("spread of no value refused", bench_spread_of(odd, 0, &sp) == -1 && sp.n == 0);
}

static void test_order(void)
{
	int o[BENCH_MAX_CONFIGS], pos[BENCH_MAX_CONFIGS], n, k, i, perm = 1, balanced = 1;

	bench_round_order(0, 4, o);
	CHECK("order round 1: as given", o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
	bench_round_order(1, 4, o);
	CHECK("order round 2: reversed", o[0] == 3 && o[1] == 2 && o[2] == 1 && o[3] == 0);
	bench_round_order(2, 4, o);
	CHECK("order round 3: as given again", o[0] == 0 && o[3] == 3);
	for (n = 1; n <= BENCH_MAX_CONFIGS; n++) {
		memset(pos, 0, sizeof(pos));
		for (k = 0; k < 6; k++) {
			int seen = 0;

			bench_round_order(k, n, o);
			for (i = 0; i < n; i++) {
				if (o[i] < 0 || o[i] >= n || (seen & (1 << o[i])))
					perm = 0;
				seen |= 1 << o[i];
				pos[o[i]] += i;
			}
		}
		/* over pairs of rounds every configuration has the same mean position */
		for (i = 0; i < n; i++)
			if (pos[i] != pos[0])
				balanced = 0;
	}
	CHECK("order: every round runs every configuration once", perm);
	CHECK("order: positions balance over pairs of rounds", balanced);
}

/* baseline and fcache-writeback, three rounds each, and their aggregates */
/*
 * The origin's requests of round @k (issue 33): the baseline 3 a
 * transaction; fcache 0.8, 0.9, 0.85 (medians 0.85) against an optimum of
 * 0.5, 0.52, 0.51 (schedule 0.6), read hit ratios 90, 91, 90.5% (fill on
 * miss), one more point with bypass, the cache's 80, 82, 81%.
 */
static void mk_origin(struct bench_origin *b, struct bench_origin *g, int k)
{
	static const uint64_t reads[3] = { 500, 600, 550 }, hits[3] = { 3600, 3640, 3620 };
	static const double lbr[3] = { 400, 420, 410 }, hit[3] = { 0.80, 0.82, 0.81 };
	struct bench_opt *o = &g->opt;

	memset(b, 0, sizeof(*b));
	b->ok = 1;
	b->txns = 500;
	b->run.reads = 1000;
	b->run.writes = 500;
	b->read_hit = -1;
	memset(g, 0, sizeof(*g));
	g->ok = 1;
	g->txns = 1000;
	g->run.reads = reads[k];
	g->run.writes = 300;
	g->members = 4;
	g->run_members.reads = reads[k];
	g->run_members.writes = 600;
	g->backlog_ok = 1;
	g->backlog.writes = 20;
	g->read_hit = hit[k];
	g->opt_ok = 1;
	snprintf(g->trace, sizeof(g->trace), "trace-fcache-writeback-%d.fct", k + 1);
	g->trace_bytes = 640000;
	g->opt_s = 0.5;
	o->records = 20000;
	o->commits = 1000;
	o->cap_pages = 16384;
	o->max_io_pages = 64;
	o->read_pages = 4000;
	o->min_hits = hits[k];
	o->byp_hits = hits[k] + 40;
	o->s_hits = hits[k];
	o->lb_reads = lbr[k];
	o->lb_writes = 100;
	o->s_read_ops = 450;
	o->s_write_ops = 150;
}

static struct bench_result base_run[3], fc_run[3], agg[2];

static void mk_compare(void)
{
	/* at 16 users: medians 100 / 300 TPS, 2100 / 525 ms; one fcache outlier */
	static const double btps[3][NSTEPS] = { { 50, 100 }, { 55, 90 }, { 45, 110 } };
	static const double bavg[3][NSTEPS] = { { 1500, 2100 }, { 1900, 1800 }, { 2500, 2500 } };
	static const double ftps[3][NSTEPS] = { { 200, 300 }, { 210, 280 }, { 190, 1000 } };
	static const double favg[3][NSTEPS] = { { 30, 525 }, { 32, 550 }, { 31, 10 } };

	/* the backlog fcache left: medians 50 MiB, 10 s */
	static const double fmib[3] = { 40, 60, 50 }, fsec[3] = { 8, 12, 10 };
	const struct bench_result *b[3], *f[3];
	int k;

	for (k = 0; k < 3; k++) {
		mk_run(&base_run[k], "baseline", btps[k], bavg[k], NSTEPS);
		mk_run(&fc_run[k], "fcache-writeback", ftps[k], favg[k], NSTEPS);
		/* page reads: 4 ms on the bare disk, 0.2 ms through the cache; no writes */
		for (int i = 0; i < NSTEPS; i++) {
			base_run[k].step[i].c.read_us = 11 * 4000;
			fc_run[k].step[i].c.read_us = 11 * 200;
			/* the page cleaner: batches of 40 ms, the slowest write 30 ms */
			base_run[k].step[i].c.cleaner_us = 40000;
			base_run[k].step[i].c.cleaner_slowest_us = 30000;
		}
		fc_run[k].backlog_ok = 1;
		fc_run[k].backlog_mib = fmib[k];
		fc_run[k].backlog_s = fsec[k];
		mk_origin(&base_run[k].orig, &fc_run[k].orig, k);
		b[k] = &base_run[k];
		f[k] = &fc_run[k];
	}
	bench_aggregate(b, 3, &agg[0]);
	bench_aggregate(f, 3, &agg[1]);
}

static void test_aggregate(void)
{
	const struct bench_result *p[3] = { &fc_run[0], &fc_run[1], &fc_run[2] };
	const struct bench_step *s = &agg[1].step[1];
	struct bench_result *one = calloc(1, sizeof(*one)), *x = calloc(1, sizeof(*x));
	struct bench_result *part = calloc(1, sizeof(*part));
	static const double t[NSTEPS] = { 1, 2 }, a[NSTEPS] = { 3, 4 };

	CHECK("aggregate: medians, not means",
	      near(s->tps, 300) && near(s->avg_ms, 525) && near(agg[0].step[1].tps, 100));
	CHECK("aggregate: min..max and spread",
	      near(s->tps_sp.min, 280) && near(s->tps_sp.max, 1000) &&
	      near(s->tps_sp.spread_pct, 240) && s->tps_sp.n == 3);
	CHECK("aggregate: figures of each round in round order",
	      s->nrounds == 3 && near(s->tps_round[0], 300) && near(s->tps_round[1], 280) &&
	      near(s->tps_round[2], 1000) && near(s->avg_round[2], 10));
	CHECK("aggregate: p95 and p99 are medians, max the largest",
	      near(s->p95_ms, 1050) && near(s->p99_ms, 1575) && near(s->max_ms, 2200) &&
	      s->p95_ms <= s->p99_ms);
	CHECK("aggregate: counts, seconds, warm-up and integrity summed",
	      s->c.txns == 15800 && s->c.txn_by_type[0] == 15800 && s->c.dev_reads == 33 &&
	      near(s->seconds, 30) && agg[1].warm.txns == 21 && near(agg[1].warm_s, 15) &&
	      agg[1].pages_verified == 300 && agg[1].rounds == 3);
	CHECK("aggregate: names and device kept",
	      !strcmp(agg[1].config, "fcache-writeback") && agg[1].profile == &prof &&
	      agg[1].npages == 1000 && agg[1].bp_frames == 1024 && !agg[1].final_ver);
	/* round 2 has 16 users under 2 s, the median does not */
	CHECK("aggregate: users under the limit: the median of the rounds'",
	      agg[0].max_users_under_limit == 8 && agg[1].max_users_under_limit == 16);
	CHECK("aggregate: backlog: medians of the dirty data and of the time",
	      agg[1].backlog_ok && near(agg[1].backlog_mib, 50) && near(agg[1].backlog_s, 10));
	CHECK("aggregate: no backlog for the baseline", !agg[0].backlog_ok);
	{
		struct bench_result *late = calloc(3, sizeof(*late));
		const struct bench_result *q[2] = { &late[0], &late[1] };

		if (late) {
			late[0] = fc_run[0];
			late[1] = fc_run[1];
			late[1].backlog_s = -1;
		}
		CHECK("aggregate: backlog not written back in one round: not done",
		      late && bench_aggregate(q, 2, &late[2]) == 0 && late[2].backlog_ok &&
		      near(late[2].backlog_mib, 50) && late[2].backlog_s < 0);
		free(late);
	}
	CHECK("aggregate: no run or too many refused",
	      bench_aggregate(p, 0, x) == -1 &&
	      bench_aggregate(p, BENCH_MAX_ROUNDS + 1, x) == -1);

	/* a single run is passed through */
	mk_run(one, "baseline", t, a, NSTEPS);
	one->max_users_under_limit = 4;
	p[0] = one;
	CHECK("aggregate of one run keeps its figures",
	      bench_aggregate(p, 1, x) == 0 && x->rounds == 1 && x->step[1].nrounds == 1 &&
	      near(x->step[1].tps, 2) && near(x->step[1].avg_ms, 4) &&
	      x->step[1].tps_sp.spread_pct == 0 && x->max_users_under_limit == 4);

	/* a failed run that stopped after the first user count */
	mk_run(part, "baseline", t, a, 1);
	snprintf(part->error, sizeof(part->error), "INTEGRITY FAILURE: page 7");
	p[0] = &base_run[0];
	p[1] = part;
	p[2] = &base_run[1];
	CHECK("aggregate: ladder of the longest run, a step over the runs that have it",
	      bench_aggregate(p, 3, x) == 0 && x->nsteps == 2 && x->step[0].nrounds == 3 &&
	      x->step[1].nrounds == 2 && near(x->step[1].tps, 95) && near(x->step[0].tps, 50));
	CHECK("aggregate: the first error is kept",
	      !strcmp(x->error, "INTEGRITY FAILURE: page 7"));
	free(one);
	free(x);
	free(part);
}

/* What @fn prints, in a malloc'ed string. */
#define CAPTURE(buf, call) do { \
	size_t _len; \
	FILE *f = open_memstream(&(buf), &_len); \
	call; \
	fclose(f); \
} while (0)

static void test_reports(void)
{
	struct bench_result *raw = calloc(2, sizeof(*raw)), *one = calloc(2, sizeof(*one));
	const struct bench_result *p[1];
	char *txt, *sum, *a, *b;
	int c;

	CAPTURE(txt, bench_print_compare(f, agg, 2));
	CHECK("report: TPS table of medians with ratios of medians",
	      strstr(txt, "== TPS (ratio to baseline) ==\n") &&
	      strstr(txt, "\n    16           100.00 (1.00x)           300.00 (3.00x)\n"));
	CHECK("report: response time table of medians",
	      strstr(txt, "\n    16          2100.00 (1.00x)           525.00 (0.25x)\n"));
	CHECK("report: says the figures are medians of 3 rounds",
	      strstr(txt, "figures: medians of 3 rounds per configuration"));
	CHECK("report: TPS spread table",
	      strstr(txt, "== TPS over 3 rounds: min..max (spread: max-min, % of the "
		     "median) ==\n") &&
	      strstr(txt, "\n    16        90.00..110.00 (20.0%)     280.00..1000.00 (240.0%)\n"));
	CHECK("report: response time spread table",
	      strstr(txt, "== average response time over 3 rounds, ms: min..max (spread) ==\n") &&
	      strstr(txt, "\n     8     1500.00..2500.00 (52.6%)          30.00..32.00 (6.5%)\n"));
	CHECK("report: users under the limit: the median of the rounds', with its ratio",
	      strstr(txt, "\nbaseline                 8 (1.00x)\nfcache-writeback         16 (2.00x)"));
	/* fcache's 16 is the ladder's top (8, 16): a lower bound, said so */
	CHECK("report: users under the limit at the ladder's top: marked a lower bound",
	      strstr(txt, "\nbaseline                 8 (1.00x)\nfcache-writeback         16 (2.00x)"
		     " at least: the ladder's largest\n"));
	CHECK("capped: the ladder's top count only",
	      bench_under_capped(&agg[1]) && !bench_under_capped(&agg[0]));
	CHECK("report: p95 table with ratios at every user count",
	      strstr(txt, "== p95 response time, ms (ratio to baseline) ==\n") &&
	      strstr(txt, "\n     8          3800.00 (1.00x)           62.00 (0.016x)\n") &&
	      strstr(txt, "\n    16          4200.00 (1.00x)          1050.00 (0.25x)\n"));
	CHECK("report: no NOPM table without a new-order type", !strstr(txt, "NOPM"));
	CHECK("report: device latency at the heaviest count, with ratios; none written: -",
	      strstr(txt, "\n== device latency at 16 users, ms, average (ratio to baseline) ==\n") &&
	      strstr(txt, "\npage read                 4.000 (1.00x)           0.200 (0.050x)\n") &&
	      strstr(txt, "\npage write                            -                        -\n"));
	CHECK("latency: sums over counts; none: -1",
	      near(bench_dev_latency_ms(&agg[1].step[1].c, BENCH_LAT_READ), 0.2) &&
	      bench_dev_latency_ms(&agg[1].step[1].c, BENCH_LAT_WRITE) < 0 &&
	      bench_dev_latency_ms(&agg[1].step[1].c, BENCH_LAT_KINDS) < 0);
	CHECK("report: the backlog table, the caches only",
	      strstr(txt, "\n== writeback backlog left at the end of the run, and the time to "
		     "write it back ==\nfcache-writeback              50.0 MiB      10.0 s\n") &&
	      !strstr(txt, "\nbaseline                      0.0 MiB"));
	free(txt);
	CAPTURE(sum, bench_print_summary(f, agg, 2));
	CHECK("summary lines from the medians",
	      !strcmp(sum, "summary baseline: TPS 1.00x baseline, avg response time 1.00x "
		      "baseline at 16 users\nsummary fcache-writeback: TPS 3.00x baseline, "
		      "avg response time 0.25x baseline at 16 users\n"));
	free(sum);
	CAPTURE(sum, bench_print_summary_terminals(f, agg, 2, 2));
	CHECK("summary terminals lines: ratios and users under the limit",
	      !strcmp(sum, "summary terminals baseline: TPS 1.00x baseline, avg response time "
		      "1.00x baseline, users under 2 s 8 (1.00x baseline)\nsummary terminals "
		      "fcache-writeback: TPS 3.00x baseline, avg response time 0.25x baseline, "
		      "users under 2 s 16 (2.00x baseline)\n"));
	free(sum);

	/* one round: the same report as before rounds existed */
	raw[0] = base_run[2];
	raw[1] = fc_run[2];
	for (c = 0; c < 2; c++) {
		p[0] = &raw[c];
		bench_aggregate(p, 1, &one[c]);
	}
	CAPTURE(a, bench_print_compare(f, raw, 2));
	CAPTURE(b, bench_print_compare(f, one, 2));
	CHECK("one round: report unchanged", !strcmp(a, b));
	CHECK("one round: no spread table", !strstr(b, "min..max") && !strstr(b, "medians"));
	free(a);
	free(b);
	CAPTURE(a, bench_print_summary(f, raw, 2));
	CAPTURE(b, bench_print_summary(f, one, 2));
	CHECK("one round: summary unchanged", !strcmp(a, b));
	free(a);
	free(b);
	free(raw);
	free(one);
}

/*
 * The read hit ratio of a stack's counters: fcache's volume and
 * dm-writecache count reads, dm-cache read misses; the report's section
 * appears only when a configuration has one.
 */
/* Issue 33: the origin's requests and the optimum in the reports. */
static void test_limit(void)
{
	const struct bench_origin *g = &agg[1].orig_round[0];
	char *txt, line[640];

	CHECK("limit: each round's origin figures kept in order",
	      agg[1].norig == 3 && agg[1].orig_round[2].run.reads == 550 &&
	      agg[0].orig_round[1].txns == 500);
	CHECK("limit: requests a transaction, during the run and with the backlog",
	      bench_origin_per_txn(g, BENCH_ORIG_RUN) == 0.8 &&
	      fabs(bench_origin_per_txn(g, BENCH_ORIG_ALL) - 0.82) < 1e-12 &&
	      bench_origin_per_txn(g, BENCH_ORIG_BACKLOG) == 0.02 &&
	      bench_origin_per_txn(g, BENCH_ORIG_MEMBERS) == 1.1 &&
	      bench_origin_per_txn(&agg[0].orig_round[0], BENCH_ORIG_BACKLOG) == -1);
	CHECK("limit: the distance is the cache's requests over the bound",
	      fabs(bench_origin_distance(g) - 1.6) < 1e-12 &&
	      bench_origin_distance(&agg[0].orig_round[0]) == -1);
	CHECK("limit: medians of the rounds",
	      fabs(bench_limit_median(&agg[1], BENCH_LIM_RUN) - 0.85) < 1e-12 &&
	      fabs(bench_limit_median(&agg[1], BENCH_LIM_LB) - 0.51) < 1e-12 &&
	      fabs(bench_limit_median(&agg[1], BENCH_LIM_DISTANCE) - 0.85 / 0.51) < 1e-12 &&
	      fabs(bench_limit_median(&agg[1], BENCH_LIM_FILL) - 0.905) < 1e-12 &&
	      bench_limit_median(&agg[0], BENCH_LIM_LB) == -1 &&
	      bench_limit_median(&agg[0], BENCH_LIM_RUN) == 3);
	bench_line_optimum(line, sizeof(line), &agg[1]);
	CHECK("limit: the offline optimum line",
	      !strcmp(line, "offline optimum (Belady MIN, 64 MiB flash) of fcache-writeback's "
		      "trace: read hit ratio 90.5% (fill on miss) / 91.5% (with bypass), "
		      "fcache-writeback 81.0%; least origin ops per txn 0.510 (a schedule "
		      "reaches 0.600); fcache-writeback 0.850 (distance 1.67x) (medians of "
		      "the rounds)"));
	CAPTURE(txt, bench_print_limit(f, agg, 2));
	CHECK("limit: the table and the optimum line in the comparison",
	      strstr(txt, "\nbaseline                    2.000    1.000    3.000        -        -"
		     "        -         -\n") &&
	      strstr(txt, "\nfcache-writeback            0.550    0.300    0.850    0.020    1.150"
		     "    0.510     1.67x\n") &&
	      strstr(txt, line));
	free(txt);
	CAPTURE(txt, bench_print_origin(f, "fcache-writeback", g));
	CHECK("limit: the lines of one run",
	      strstr(txt, "fcache-writeback origin requests per transaction: 0.800 (reads 0.500, "
		     "writes 0.300), and the backlog's 0.020; its 4 members 1.100; 1000 "
		     "transactions\n") &&
	      strstr(txt, "least 0.500 (reads 0.400, writebacks 0.100), an offline schedule "
		     "0.600 (reads 0.450, writebacks 0.150); fcache-writeback 0.800 during "
		     "the run (1.60x the bound)\n"));
	free(txt);
}

static void test_hit_ratio(void)
{
	struct bench_result *r = calloc(3, sizeof(*r));
	uint64_t h = 0, n = 0;
	double q = -1;
	char *txt;

	CHECK("hit ratio: fcache's volume (read_hits / reads, the volume's before the pool's)",
	      !bench_read_hit_ratio("reads=200 read_hits=150 writes=9 reads=7 read_hits=1",
				    &h, &n, &q) && h == 150 && n == 200 && q == 0.75);
	CHECK("hit ratio: dm-cache (read_hits / (read_hits + read_misses))",
	      !bench_read_hit_ratio("read_hits=30 read_misses=10 write_hits=4", &h, &n, &q) &&
	      h == 30 && n == 40 && q == 0.75);
	CHECK("hit ratio: dm-writecache (reads, read_hits)",
	      !bench_read_hit_ratio("error=0 blocks=10 reads=8 read_hits=0", &h, &n, &q) &&
	      h == 0 && n == 8 && q == 0);
	CHECK("hit ratio: none without reads",
	      bench_read_hit_ratio("reads=0 read_hits=0", &h, &n, &q) &&
	      bench_read_hit_ratio("read_hits=0 read_misses=0", &h, &n, &q));
	CHECK("hit ratio: none without the counters, or with bad ones",
	      bench_read_hit_ratio("", &h, &n, &q) && bench_read_hit_ratio(NULL, &h, &n, &q) &&
	      bench_read_hit_ratio("reads=5", &h, &n, &q) &&
	      bench_read_hit_ratio("xread_hits=1 reads=2", &h, &n, &q) &&
	      bench_read_hit_ratio("read_hits=1x reads=2", &h, &n, &q) &&
	      bench_read_hit_ratio("read_hits=-1 reads=2", &h, &n, &q) &&
	      bench_read_hit_ratio("read_hits=3 reads=2", &h, &n, &q) &&
	      bench_read_hit_ratio("read_hits=18446744073709551615 read_misses=1", &h, &n, &q));
	r[0] = agg[0];
	r[1] = agg[1];
	r[2] = agg[1];
	snprintf(r[1].config, sizeof(r[1].config), "fcache-mirrored");
	snprintf(r[1].counters, sizeof(r[1].counters), "reads=1000 read_hits=843 writes=5");
	snprintf(r[2].config, sizeof(r[2].config), "dm-cache-raid1");
	snprintf(r[2].counters, sizeof(r[2].counters), "read_hits=1 read_misses=3");
	CAPTURE(txt, bench_print_compare(f, r, 3));
	CHECK("report: a read hit ratio line per cache with counters, none for the baseline",
	      strstr(txt, "\n== read hit ratio of the cache (its counters after its last run: "
		     "warm-up and every step) ==\nfcache-mirrored           84.3% (843 of 1000 "
		     "reads)\ndm-cache-raid1            25.0% (1 of 4 reads)\n"));
	free(txt);
	CAPTURE(txt, bench_print_compare(f, agg, 2));
	CHECK("report: no read hit ratio section without counters", !strstr(txt, "read hit"));
	free(txt);
	free(r);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 20);

	if (f) {
		if (fread(s, 1, (1 << 20) - 1, f) == 0)
			s[0] = 0;
		fclose(f);
	}
	return s;
}

/*
 * A step that completed no transaction (a stalled device) has no ratio: "-"
 * in the tables and the summary, null in results.json; never 0x or inf.
 */
static void test_zero_txn(const char *dir)
{
	static const double btps[NSTEPS] = { 50, 100 }, bavg[NSTEPS] = { 1500, 2100 };
	static const double ztps[NSTEPS] = { 200, 0 }, zavg[NSTEPS] = { 30, 0 };
	struct bench_opts o = { .profile = "tpcc-like", .nsteps = NSTEPS, .time_s = 10,
				.rt_limit_s = 2, .rounds = 1 };
	struct bench_result *r = calloc(2, sizeof(*r));
	char path[4096], *txt, *sum, *j;

	mk_run(&r[0], "baseline", btps, bavg, NSTEPS);
	mk_run(&r[1], "fcache-writeback", ztps, zavg, NSTEPS);
	memcpy(o.users, users, sizeof(users));
	CAPTURE(txt, bench_print_compare(f, r, 2));
	CHECK("zero transactions: '-' for the ratios of that step only",
	      strstr(txt, "\n    16           100.00 (1.00x)                 0.00 (-)\n") &&
	      strstr(txt, "\n     8            50.00 (1.00x)           200.00 (4.00x)\n") &&
	      !strstr(txt, "0.00x") && !strstr(txt, "inf"));
	free(txt);
	CAPTURE(sum, bench_print_summary(f, r, 2));
	CHECK("zero transactions: summary without ratios",
	      strstr(sum, "\nsummary fcache-writeback: TPS - baseline, avg response time - "
		     "baseline at 16 users (no transactions to compare)\n"));
	free(sum);
	snprintf(path, sizeof(path), "%s/zero.json", dir);
	CHECK("zero transactions: json written",
	      bench_write_json(path, &o, r, 2, NULL, "synthetic") == 0);
	j = slurp(path);
	CHECK("zero transactions: json ratios null",
	      strstr(j, "\"max_ms\":0,\"tps_ratio\":null,\"avg_rt_ratio\":null,") &&
	      strstr(j, "{\"config\":\"fcache-writeback\",\"users\":16,\"tps_ratio\":null,"
		     "\"avg_rt_ratio\":null,"));
	free(j);
	unlink(path);
	/* the baseline without transactions: no ratio for anyone at 16 users */
	mk_run(&r[0], "baseline", ztps, zavg, NSTEPS);
	mk_run(&r[1], "fcache-writeback", btps, bavg, NSTEPS);
	CAPTURE(sum, bench_print_summary(f, r, 2));
	CHECK("zero transactions in the baseline: no ratio",
	      !strstr(sum, "x baseline") && !strstr(sum, "inf"));
	free(sum);
	free(r);
}

static void test_json(const char *dir)
{
	struct bench_opts o = { .profile = "tpcc-like", .nsteps = NSTEPS, .time_s = 10,
				.warmup_s = 5, .rt_limit_s = 2, .rounds = 3 };
	char path[4096], svg[4096];
	char *j, *v;

	memcpy(o.users, users, sizeof(users));
	snprintf(o.dist_str, sizeof(o.dist_str), "uniform");
	snprintf(path, sizeof(path), "%s/results.json", dir);
	snprintf(svg, sizeof(svg), "%s/chart.svg", dir);
	CHECK("json: written", bench_write_json(path, &o, agg, 2, "chart.svg", "synthetic") == 0);
	j = slurp(path);
	CHECK("json: rounds and the run order",
	      strstr(j, "\"user_steps\":[8,16],\"rounds\":3,\"terminal_model\":false,"
		     "\"think_time_s\":0,\"keying_time_s\":0,\"rt_search_max_steps\":0,"
		     "\"log_device\":null,\"group_commit\":false,"
		     "\"group_commit_max_records\":1,\"origin\":null,\"flash\":null,"
		     "\"flash2\":null}") &&
	      strstr(j, "\"run_order\":[[\"baseline\",\"fcache-writeback\"],"
		     "[\"fcache-writeback\",\"baseline\"],[\"baseline\",\"fcache-writeback\"]]"));
	CHECK("json: step of medians, ratios of medians, spread and rounds",
	      strstr(j, "{\"users\":16,\"seconds\":30,\"tps\":300,\"avg_ms\":525,\"p95_ms\":1050,"
		     "\"p99_ms\":1575,\"max_ms\":2200,\"tps_ratio\":3,\"avg_rt_ratio\":0.25,"
		     "\"rounds\":3,\"tps_min\":280,\"tps_max\":1000,\"tps_spread_pct\":240,"
		     "\"avg_ms_min\":10,\"avg_ms_max\":550,"
		     "\"avg_ms_spread_pct\":102.85714285714285,\"tps_rounds\":[300,280,1000],"
		     "\"avg_ms_rounds\":[525,550,10],\"counts\":{"));
	CHECK("json: summary from the medians",
	      strstr(j, "{\"config\":\"fcache-writeback\",\"users\":16,\"tps_ratio\":3,"
		     "\"avg_rt_ratio\":0.25,\"rounds\":3,\"users_under_rt_limit\":16,"
		     "\"users_under_rt_limit_ratio\":2,\"ratios\":[{\"users\":8,\"tps_ratio\":4,"
		     "\"avg_rt_ratio\":0.01631578947368421,\"p95_ratio\":0.01631578947368421,\"nopm_ratio\":null},"));
	CHECK("json: device latency and page cleaner sums in the counts",
	      strstr(j, "\"verify_errors\":0,\"read_us\":132000,\"write_us\":0,"
		     "\"log_write_us\":0,\"fsync_us\":0,\"cleaner_us\":120000,"
		     "\"cleaner_slowest_write_us\":90000}"));
	CHECK("json: backlog of the cache, null for the baseline",
	      strstr(j, "\"backlog\":{\"dirty_mib\":50,\"writeback_s\":10}") &&
	      strstr(j, "\"backlog\":null"));
	CHECK("json: schema version 2", strstr(j, "\"schema\":\"fcache.bench\",\"schema_version\":2,"));
	CHECK("json: users under the limit of each round",
	      strstr(j, "\"max_users_under_rt_limit\":8,\"rounds\":3,"
		     "\"users_under_rt_limit_rounds\":[8,16,0],\"rt_search_steps\":[],"));
	CHECK("json: a step's p95 ratio, NOPM null without new-order, p90 by type",
	      strstr(j, "\"p95_ratio\":0.25,\"nopm\":null,\"nopm_ratio\":null,"
		     "\"p90_ms_by_type\":{\"t\":0},\"log_group_avg\":null}"));
	CHECK("json: no sweep", strstr(j, "\"sweep\":null}"));
	CHECK("json: configuration rounds",
	      strstr(j, "\"max_users_under_rt_limit\":16,\"rounds\":3,"));
	free(j);
	CHECK("svg: written", bench_write_svg(svg, agg, 2) == 0);
	v = slurp(svg);
	CHECK("svg: says medians, with a min..max bar per point",
	      strstr(v, "medians of 3 rounds") && strstr(v, "<line x1=\"") &&
	      strstr(v, "stroke-width=\"1\"/>"));
	free(v);
}

/*
 * --buffer-pool-sweep on synthetic results: 3 configurations at 3 sizes;
 * the TPS at the heaviest count (16 users) sets the table and the advice.
 */
static struct bench_result sweep_r[3][3];

static void mk_sweep(struct bench_sweep *sw, const double tps16[3][3])
{
	static const char *const cfg[3] = { "baseline", "fcache-writeback", "dm-writecache" };
	static const double mb[3] = { 64, 256, 1024 };
	int k, c;

	memset(sw, 0, sizeof(*sw));
	for (k = 0; k < 3; k++) {
		for (c = 0; c < 3; c++) {
			double tps[NSTEPS] = { tps16[k][c] / 2, tps16[k][c] }, avg[NSTEPS] = { 10, 20 };

			mk_run(&sweep_r[k][c], cfg[c], tps, avg, NSTEPS);
			sweep_r[k][c].bp_mb = mb[k];
		}
		sw->mb[k] = mb[k];
		sw->r[k] = sweep_r[k];
		sw->nr[k] = 3;
	}
	sw->n = 3;
}

static void test_sweep(const char *dir)
{
	/* rows: 64M, 256M, 1G; columns: baseline, fcache-writeback, dm-writecache */
	static const double flash[3][3] = { { 100, 310, 250 }, { 150, 330, 400 },
					    { 200, 340, 420 } };
	static const double memory[3][3] = { { 100, 120, 110 }, { 300, 310, 320 },
					     { 600, 500, 580 } };
	struct bench_opts o = { .profile = "tpcc-like", .nsteps = NSTEPS, .time_s = 10,
				.rt_limit_s = 2, .rounds = 1, .bp_mb = 64 };
	struct bench_sweep sw;
	struct bench_advice a;
	char path[4096], sz[32], *txt, *j;

	bench_sweep_size(1024, sz, sizeof(sz));
	CHECK("sweep: 1024 MB is 1G", !strcmp(sz, "1G"));
	bench_sweep_size(64, sz, sizeof(sz));
	CHECK("sweep: 64 MB is 64M", !strcmp(sz, "64M"));
	bench_sweep_size(1536, sz, sizeof(sz));
	CHECK("sweep: 1536 MB is 1536M (G only for a whole number)", !strcmp(sz, "1536M"));
	bench_sweep_size(0.5, sz, sizeof(sz));
	CHECK("sweep: 0.5 MB is 0.5M", !strcmp(sz, "0.5M"));

	mk_sweep(&sw, flash);
	CHECK("sweep: the table's user count is the heaviest", bench_sweep_users(&sw) == 16);
	bench_sweep_advice(&sw, &a);
	CHECK("sweep: flash at the smallest size beats the baseline at the largest",
	      a.kind == BENCH_ADVICE_FLASH && a.mb == 64 && !strcmp(a.config, "fcache-writeback") &&
	      a.ratio > 1.549 && a.ratio < 1.551);
	CHECK("sweep: the advice line",
	      !strcmp(a.text, "advice: fast flash: fcache-writeback at 64M buffer pool gives "
		      "1.55x the TPS of baseline at 1G buffer pool (16 users)"));
	CAPTURE(txt, bench_print_sweep(f, &sw));
	CHECK("sweep: table header and rows",
	      strstr(txt, "== buffer pool sweep: TPS at 16 users (ratio to baseline at the "
		     "same buffer pool) ==\n") &&
	      strstr(txt, "\n               64M               100.00       310.00 (3.10x)"
		     "       250.00 (2.50x)\n") &&
	      strstr(txt, "\n                1G               200.00       340.00 (1.70x)"
		     "       420.00 (2.10x)\n") &&
	      strstr(txt, "\nadvice: fast flash: fcache-writeback at 64M"));
	free(txt);
	/* the best configuration changes with the size: the smallest size that reaches */
	sweep_r[0][1].step[1].tps = 150;
	sweep_r[0][2].step[1].tps = 150;
	bench_sweep_advice(&sw, &a);
	CHECK("sweep: the smallest size where a cached configuration reaches memory",
	      a.kind == BENCH_ADVICE_FLASH && a.mb == 256 && !strcmp(a.config, "dm-writecache") &&
	      a.ratio == 2);
	snprintf(path, sizeof(path), "%s/sweep", dir);
	mkdir(path, 0755);
	mk_sweep(&sw, flash);
	snprintf(path, sizeof(path), "%s/sweep/sweep.svg", dir);
	CHECK("sweep: chart written", bench_write_sweep_svg(path, &sw) == 0);
	j = slurp(path);
	/* x: 64M, 256M, 1G evenly over 500 px from 70; y: 0..500 TPS over 260 px from 50 */
	CHECK("sweep: chart axes, a line per configuration, the advice",
	      j && strstr(j, "<title>fcachectl bench: TPS at 16 users versus buffer pool size</title>") &&
	      strstr(j, ">64M</text>") && strstr(j, ">256M</text>") && strstr(j, ">1G</text>") &&
	      strstr(j, "points=\"70,258.0 320,232.0 570,206.0 \"") &&
	      strstr(j, "points=\"70,148.8 320,138.4 570,133.2 \"") &&
	      strstr(j, ">dm-writecache</text>") &&
	      strstr(j, ">advice: fast flash: fcache-writeback at 64M buffer pool gives 1.55x"));
	free(j);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sweep/results.json", dir);
	o.sweep = &sw;
	memcpy(o.users, users, sizeof(users));
	snprintf(o.dist_str, sizeof(o.dist_str), "uniform");
	CHECK("sweep: json written", bench_write_json(path, &o, sweep_r[0], 3, NULL, "synthetic") == 0);
	j = slurp(path);
	CHECK("sweep: json points and advice",
	      strstr(j, "\"sweep\":{\"users\":16,\"points\":[{\"buffer_pool_mb\":64,"
		     "\"buffer_pool_mb_used\":64,\"results\":\"bp-64M/results.json\","
		     "\"configs\":[{\"name\":\"baseline\",\"tps\":100,\"tps_ratio\":1},"
		     "{\"name\":\"fcache-writeback\",\"tps\":310,\"tps_ratio\":3.1},") &&
	      strstr(j, "\"advice\":{\"kind\":\"fast flash\",\"config\":\"fcache-writeback\","
		     "\"buffer_pool_mb\":64,\"ratio\":1.55,\"text\":\"advice: fast flash: "));
	free(j);
	/* memory wins: no cached figure reaches the baseline at 1G (600) */
	mk_sweep(&sw, memory);
	bench_sweep_advice(&sw, &a);
	CHECK("sweep: more memory when no cached figure reaches it",
	      a.kind == BENCH_ADVICE_MEMORY && a.mb == 1024 && !strcmp(a.config, "dm-writecache") &&
	      !strcmp(a.text, "advice: more memory: baseline at 1G buffer pool gives 1.03x the "
		      "TPS of dm-writecache at 1G buffer pool, the best cached figure measured "
		      "(16 users)"));
	snprintf(path, sizeof(path), "%s/sweep/memory.json", dir);
	CHECK("sweep: json written (memory)",
	      bench_write_json(path, &o, sweep_r[0], 3, NULL, "synthetic") == 0);
	/* no baseline figure at the largest size, no cached configuration */
	sweep_r[2][0].step[1].c.txns = 0;
	bench_sweep_advice(&sw, &a);
	CHECK("sweep: no advice without the baseline at the largest size",
	      a.kind == BENCH_ADVICE_NONE && strstr(a.text, "advice: none (no baseline TPS"));
	CAPTURE(txt, bench_print_sweep(f, &sw));
	CHECK("sweep: '-' where no TPS was measured",
	      strstr(txt, "\n                1G                    -           500.00 (-)"));
	free(txt);
	/* group commit: a table of the redo records per write, only when grouped */
	CAPTURE(txt, bench_print_compare(f, sweep_r[0], 3));
	CHECK("group commit: no table without groups", !strstr(txt, "group commit"));
	free(txt);
	sweep_r[0][1].step[1].c.log_records = 30;
	sweep_r[0][1].step[1].c.log_writes = 10;
	sweep_r[0][0].step[1].c.log_records = sweep_r[0][0].step[1].c.log_writes = 5;
	CAPTURE(txt, bench_print_compare(f, sweep_r[0], 3));
	CHECK("group commit: records per write per configuration",
	      strstr(txt, "\n== group commit: redo records per write ==\n") &&
	      strstr(txt, "\n    16                     1.00                     3.00"
		     "                     0.00\n"));
	free(txt);
	sw.nr[0] = 1;
	bench_sweep_advice(&sw, &a);
	CHECK("sweep: no advice without a cached configuration",
	      a.kind == BENCH_ADVICE_NONE && strstr(a.text, "no cached configuration"));
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/fc-unit-rounds.XXXXXX";
	const char *dir = argc > 1 ? argv[1] : mkdtemp(tmp);
	char path[4096];

	test_spread();
	test_order();
	mk_compare();
	test_aggregate();
	test_reports();
	test_limit();
	test_hit_ratio();
	CHECK("json: a directory for it", dir != NULL);
	if (dir) {
		test_json(dir);
		test_zero_txn(dir);
		test_sweep(dir);
	}
	if (argc < 2 && dir) {
		snprintf(path, sizeof(path), "%s/results.json", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/chart.svg", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/sweep/results.json", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/sweep/memory.json", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/sweep", dir);
		rmdir(path);
		rmdir(dir);
	}
	return unit_failed;
}
