// SPDX-License-Identifier: GPL-2.0
/*
 * How far a cache is from the limit, in the report of compare and of
 * `bench optimum`: the origin's requests a transaction (from the counters
 * bench_run read, struct bench_origin), the offline optimum of the trace
 * (bench_opt.c), and their ratio.  Pure: results in, text out
 * (tests/unit/test_bench_rounds.c checks the lines and the medians).
 */
#include <string.h>

#include "bench_int.h"

double bench_origin_per_txn(const struct bench_origin *g, int what)
{
	double ops;

	if (!g->ok || !g->txns)
		return -1;
	switch (what) {
	case BENCH_ORIG_READS:
		ops = g->run.reads;
		break;
	case BENCH_ORIG_WRITES:
		ops = g->run.writes;
		break;
	case BENCH_ORIG_BACKLOG:
		if (!g->backlog_ok)
			return -1;
		ops = g->backlog.reads + g->backlog.writes;
		break;
	case BENCH_ORIG_RUN:
		ops = g->run.reads + g->run.writes;
		break;
	case BENCH_ORIG_ALL:
		ops = g->run.reads + g->run.writes;
		if (g->backlog_ok)
			ops += g->backlog.reads + g->backlog.writes;
		break;
	case BENCH_ORIG_MEMBERS:
		if (!g->members)
			return -1;
		ops = g->run_members.reads + g->run_members.writes;
		break;
	default:
		return -1;
	}
	return ops / g->txns;
}

double bench_opt_per_txn(const struct bench_opt *o, double ops)
{
	return o->commits ? ops / o->commits : -1;
}

double bench_origin_distance(const struct bench_origin *g)
{
	double lb, cache;

	if (!g->opt_ok)
		return -1;
	lb = bench_opt_per_txn(&g->opt, bench_opt_lb(&g->opt));
	cache = bench_origin_per_txn(g, BENCH_ORIG_RUN);
	return lb > 0 && cache >= 0 ? cache / lb : -1;
}

/* "64 MiB", "1.5 GiB" */
static void size_str(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, len, "%.3g GiB", bytes / 1073741824.0);
	else
		snprintf(buf, len, "%.4g MiB", bytes / 1048576.0);
}

/* A per-transaction figure, or "-". */
static const char *num(char *buf, size_t len, double v, const char *fmt)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

void bench_print_origin(FILE *f, const char *cfg, const struct bench_origin *g)
{
	char a[32], b[32], fl[32], hit[32];
	const struct bench_opt *o = &g->opt;

	if (g->ok) {
		fprintf(f, "%s origin requests per transaction: %.3f (reads %.3f, writes %.3f), "
			"and the backlog's %s", cfg, bench_origin_per_txn(g, BENCH_ORIG_RUN),
			bench_origin_per_txn(g, BENCH_ORIG_READS),
			bench_origin_per_txn(g, BENCH_ORIG_WRITES),
			num(a, sizeof(a), bench_origin_per_txn(g, BENCH_ORIG_BACKLOG), "%.3f"));
		if (g->members)
			fprintf(f, "; its %d members %.3f", g->members,
				bench_origin_per_txn(g, BENCH_ORIG_MEMBERS));
		fprintf(f, "; %llu transactions\n", (unsigned long long)g->txns);
	}
	if (!g->opt_ok)
		return;
	size_str(o->cap_pages * BENCH_OPT_PAGE, fl, sizeof(fl));
	num(hit, sizeof(hit), g->read_hit >= 0 ? 100 * g->read_hit : -1, "%.1f%%");
	fprintf(f, "%s offline optimum of its trace (%s, %llu records, %.1f MB, computed in "
		"%.1f s; %s of flash): read hit ratio %.1f%% (fill on miss) / %.1f%% (with "
		"bypass), the cache's %s; origin operations per transaction at least %.3f "
		"(reads %.3f, writebacks %.3f), an offline schedule %.3f (reads %.3f, writebacks "
		"%.3f); %s %s during the run (%s the bound)\n", cfg, g->trace,
		(unsigned long long)o->records, g->trace_bytes / 1e6, g->opt_s, fl,
		100 * bench_opt_ratio(o, o->min_hits), 100 * bench_opt_ratio(o, o->byp_hits), hit,
		bench_opt_per_txn(o, bench_opt_lb(o)), bench_opt_per_txn(o, o->lb_reads),
		bench_opt_per_txn(o, o->lb_writes), bench_opt_per_txn(o, bench_opt_sched(o)),
		bench_opt_per_txn(o, o->s_read_ops), bench_opt_per_txn(o, o->s_write_ops), cfg,
		num(a, sizeof(a), bench_origin_per_txn(g, BENCH_ORIG_RUN), "%.3f"),
		num(b, sizeof(b), bench_origin_distance(g), "%.2fx"));
}

/* The median of the figure @fig of @r's rounds (-1 in a round: left out); -1: none. */
static double med(const struct bench_result *r, double (*fig)(const struct bench_origin *))
{
	double v[BENCH_MAX_ROUNDS];
	struct bench_spread sp;
	int k, n = 0;

	for (k = 0; k < r->norig; k++) {
		double x = fig(&r->orig_round[k]);

		if (x >= 0)
			v[n++] = x;
	}
	if (!n || bench_spread_of(v, n, &sp))
		return -1;
	return sp.median;
}

static double f_reads(const struct bench_origin *g)
{
	return bench_origin_per_txn(g, BENCH_ORIG_READS);
}

static double f_writes(const struct bench_origin *g)
{
	return bench_origin_per_txn(g, BENCH_ORIG_WRITES);
}

static double f_backlog(const struct bench_origin *g)
{
	return bench_origin_per_txn(g, BENCH_ORIG_BACKLOG);
}

static double f_run(const struct bench_origin *g)
{
	return bench_origin_per_txn(g, BENCH_ORIG_RUN);
}

static double f_all(const struct bench_origin *g)
{
	return bench_origin_per_txn(g, BENCH_ORIG_ALL);
}

static double f_members(const struct bench_origin *g)
{
	return bench_origin_per_txn(g, BENCH_ORIG_MEMBERS);
}

static double f_lb(const struct bench_origin *g)
{
	return g->opt_ok ? bench_opt_per_txn(&g->opt, bench_opt_lb(&g->opt)) : -1;
}

static double f_sched(const struct bench_origin *g)
{
	return g->opt_ok ? bench_opt_per_txn(&g->opt, bench_opt_sched(&g->opt)) : -1;
}

static double f_fill(const struct bench_origin *g)
{
	return g->opt_ok ? bench_opt_ratio(&g->opt, g->opt.min_hits) : -1;
}

static double f_bypass(const struct bench_origin *g)
{
	return g->opt_ok ? bench_opt_ratio(&g->opt, g->opt.byp_hits) : -1;
}

static double f_hit(const struct bench_origin *g)
{
	return g->opt_ok ? g->read_hit : -1;
}

double bench_limit_median(const struct bench_result *r, int what)
{
	static double (*const fig[])(const struct bench_origin *) = {
		[BENCH_LIM_READS] = f_reads, [BENCH_LIM_WRITES] = f_writes,
		[BENCH_LIM_BACKLOG] = f_backlog, [BENCH_LIM_RUN] = f_run, [BENCH_LIM_ALL] = f_all,
		[BENCH_LIM_MEMBERS] = f_members, [BENCH_LIM_LB] = f_lb,
		[BENCH_LIM_SCHED] = f_sched, [BENCH_LIM_FILL] = f_fill,
		[BENCH_LIM_BYPASS] = f_bypass, [BENCH_LIM_HIT] = f_hit,
		[BENCH_LIM_DISTANCE] = bench_origin_distance,
	};

	if (what < 0 || what >= BENCH_LIM_KINDS)
		return -1;
	return med(r, fig[what]);
}

/* The flash of @r's traces (the first traced round's), 0: none. */
static uint64_t traced_flash(const struct bench_result *r)
{
	int k;

	for (k = 0; k < r->norig; k++)
		if (r->orig_round[k].opt_ok)
			return r->orig_round[k].opt.cap_pages * BENCH_OPT_PAGE;
	return 0;
}

void bench_line_optimum(char *buf, size_t len, const struct bench_result *r)
{
	char fl[32], hit[32], ops[32], dist[32];
	int k, n = 0;

	for (k = 0; k < r->norig; k++)
		n += r->orig_round[k].opt_ok;
	size_str(traced_flash(r), fl, sizeof(fl));
	num(hit, sizeof(hit), 100 * bench_limit_median(r, BENCH_LIM_HIT), "%.1f%%");
	num(ops, sizeof(ops), bench_limit_median(r, BENCH_LIM_RUN), "%.3f");
	num(dist, sizeof(dist), bench_limit_median(r, BENCH_LIM_DISTANCE), "%.2fx");
	snprintf(buf, len, "offline optimum (Belady MIN, %s flash) of %s's trace: read hit "
		 "ratio %.1f%% (fill on miss) / %.1f%% (with bypass), %s %s; least origin ops "
		 "per txn %.3f (a schedule reaches %.3f); %s %s (distance %s)%s", fl, r->config,
		 100 * bench_limit_median(r, BENCH_LIM_FILL),
		 100 * bench_limit_median(r, BENCH_LIM_BYPASS), r->config, hit,
		 bench_limit_median(r, BENCH_LIM_LB), bench_limit_median(r, BENCH_LIM_SCHED),
		 r->config, ops, dist, n > 1 ? " (medians of the rounds)" : "");
}

void bench_print_limit(FILE *f, const struct bench_result *r, int nr)
{
	char l[640], a[6][32];
	int c, any = 0;

	for (c = 0; c < nr; c++)
		any |= bench_limit_median(&r[c], BENCH_LIM_RUN) >= 0;
	if (any)
		fprintf(f, "\n== origin requests per transaction (warm-up to the last page write; "
		"the backlog written back after it apart%s) ==\n%-24s %8s %8s %8s %8s %8s %8s "
		"%9s\n", bench_max_rounds(r, nr) > 1 ? "; medians of the rounds" : "", "config",
		"reads", "writes", "total", "backlog", "members", "optimum", "distance");
	for (c = 0; c < nr; c++) {
		if (bench_limit_median(&r[c], BENCH_LIM_RUN) < 0)
			continue;
		fprintf(f, "%-24s %8s %8s %8.3f %8s %8s %8s %9s\n", r[c].config,
			num(a[0], 32, bench_limit_median(&r[c], BENCH_LIM_READS), "%.3f"),
			num(a[1], 32, bench_limit_median(&r[c], BENCH_LIM_WRITES), "%.3f"),
			bench_limit_median(&r[c], BENCH_LIM_RUN),
			num(a[2], 32, bench_limit_median(&r[c], BENCH_LIM_BACKLOG), "%.3f"),
			num(a[3], 32, bench_limit_median(&r[c], BENCH_LIM_MEMBERS), "%.3f"),
			num(a[4], 32, bench_limit_median(&r[c], BENCH_LIM_LB), "%.3f"),
			num(a[5], 32, bench_limit_median(&r[c], BENCH_LIM_DISTANCE), "%.2fx"));
	}
	for (c = 0; c < nr; c++) {
		if (bench_limit_median(&r[c], BENCH_LIM_LB) < 0)
			continue;
		if (!any++)
			fprintf(f, "\n");
		bench_line_optimum(l, sizeof(l), &r[c]);
		fprintf(f, "%s\n", l);
	}
}

void bench_print_opt(FILE *f, const char *path, const struct bench_trace_hdr *h,
		     const struct bench_opt *o, double secs)
{
	char fl[32];

	size_str(o->cap_pages * BENCH_OPT_PAGE, fl, sizeof(fl));
	fprintf(f, "trace %s: %s, %llu records: %llu reads, %llu writes, %llu synchronous "
		"writes, %llu flushes, %llu commits\n", path, h->label,
		(unsigned long long)o->records, (unsigned long long)o->reads,
		(unsigned long long)o->writes, (unsigned long long)o->sync_writes,
		(unsigned long long)o->flushes, (unsigned long long)o->commits);
	fprintf(f, "ideal cache: %s of flash (%llu pages of 4 KiB), writebacks merged up to "
		"%u KiB; %llu pages touched, %llu written\n", fl, (unsigned long long)o->cap_pages,
		o->max_io_pages * 4, (unsigned long long)o->pages, (unsigned long long)o->written);
	fprintf(f, "read hit ratio of the %llu pages read: Belady MIN %.2f%% (fill on miss), "
		"%.2f%% (with bypass); the offline schedule %.2f%%\n",
		(unsigned long long)o->read_pages, 100 * bench_opt_ratio(o, o->min_hits),
		100 * bench_opt_ratio(o, o->byp_hits), 100 * bench_opt_ratio(o, o->s_hits));
	fprintf(f, "origin operations (what is dirty at the end not counted): at least %.1f "
		"(reads %.1f, writebacks %.1f; the bound holds %llu of the %llu page versions "
		"written until they are overwritten or the end), an offline schedule %llu "
		"(reads %llu, writebacks %llu; %llu pages dirty at the end)\n", bench_opt_lb(o),
		o->lb_reads, o->lb_writes, (unsigned long long)o->held,
		(unsigned long long)o->versions, (unsigned long long)bench_opt_sched(o),
		(unsigned long long)o->s_read_ops, (unsigned long long)o->s_write_ops,
		(unsigned long long)o->s_end_pages);
	if (o->commits)
		fprintf(f, "offline optimum (Belady MIN, %s flash): read hit ratio %.1f%% (fill "
			"on miss) / %.1f%% (with bypass); least origin ops per txn %.3f (a "
			"schedule reaches %.3f)\n", fl, 100 * bench_opt_ratio(o, o->min_hits),
			100 * bench_opt_ratio(o, o->byp_hits), bench_opt_per_txn(o, bench_opt_lb(o)),
			bench_opt_per_txn(o, bench_opt_sched(o)));
	fprintf(f, "computed in %.2f s\n", secs);
}
