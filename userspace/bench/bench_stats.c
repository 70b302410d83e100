// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark statistics and the text reports: latency histograms, the
 * sysbench-like interval line, the per-user-count table, the comparison
 * tables and summary lines of `compare`, and the ratios to the baseline
 * they share with results.json (bench_report.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench_int.h"

/* ----------------------------------------------------------- histogram */

static int bucket_of(uint64_t v)
{
	int m;

	if (v < 32)
		return (int)v;
	m = 63 - __builtin_clzll(v);
	return 32 + (m - 5) * 16 + (int)((v >> (m - 4)) & 15);
}

static double bucket_mid(int i)
{
	int m, sub;
	double low, width;

	if (i < 32)
		return i;
	m = (i - 32) / 16 + 5;
	sub = (i - 32) % 16;
	low = (double)(16 + sub) * (double)(1ull << (m - 4));
	width = (double)(1ull << (m - 4));
	return low + width / 2;
}

void bh_reset(struct bench_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void bh_add(struct bench_hist *h, uint64_t us)
{
	h->count++;
	h->sum_us += us;
	if (us > h->max_us)
		h->max_us = us;
	h->b[bucket_of(us)]++;
}

void bh_merge(struct bench_hist *d, const struct bench_hist *s)
{
	int i;

	d->count += s->count;
	d->sum_us += s->sum_us;
	if (s->max_us > d->max_us)
		d->max_us = s->max_us;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++)
		d->b[i] += s->b[i];
}

double bh_avg_ms(const struct bench_hist *h)
{
	return h->count ? h->sum_us / (double)h->count / 1000.0 : 0;
}

double bh_pct_ms(const struct bench_hist *h, double pct)
{
	uint64_t want, seen = 0;
	int i;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil(h->count * pct / 100.0);
	if (want < 1)
		want = 1;
	for (i = 0; i < BENCH_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want) {
			double v = bucket_mid(i);

			if (v > h->max_us)
				v = h->max_us;
			return v / 1000.0;
		}
	}
	return h->max_us / 1000.0;
}

/* ------------------------------------------------------------- text */

void bench_print_interval(FILE *f, const char *label, double t, int users,
			  double tps, const struct bench_hist *h,
			  uint64_t reads, uint64_t writes, uint64_t syncs, double dt)
{
	fprintf(f, "[ %4.0fs ] %s%susers: %d tps: %.2f lat (ms,avg): %.2f "
		"lat (ms,95%%): %.2f reads/s: %.1f writes/s: %.1f syncs/s: %.1f\n",
		t, label, *label ? " " : "", users, tps, bh_avg_ms(h),
		bh_pct_ms(h, 95), reads / dt, writes / dt, syncs / dt);
	fflush(f);
}

void bench_print_table(FILE *f, const struct bench_result *r, double rt_limit_s)
{
	int i;

	fprintf(f, "\n%s%sprofile %s, %llu pages of %u KiB, buffer pool %.1f MiB\n",
		r->config[0] ? r->config : "", r->config[0] ? ": " : "",
		r->profile ? r->profile->name : "?",
		(unsigned long long)r->npages, r->page_size / 1024, r->bp_mb);
	fprintf(f, "%6s %10s %10s %10s %10s %9s %9s %9s %9s\n", "users", "TPS",
		"avg ms", "p95 ms", "p99 ms", "reads/s", "writes/s",
		"logsync/s", "bp hit%");
	for (i = 0; i < r->nsteps; i++) {
		const struct bench_step *s = &r->step[i];
		double d = s->seconds > 0 ? s->seconds : 1;

		fprintf(f, "%6d %10.2f %10.2f %10.2f %10.2f %9.1f %9.1f %9.1f %8.1f%%\n",
			s->users, s->tps, s->avg_ms, s->p95_ms, s->p99_ms,
			s->c.dev_reads / d, s->c.dev_writes / d,
			s->c.log_writes / d,
			s->c.page_accesses ? 100.0 * s->c.bp_hits / s->c.page_accesses : 0);
	}
	if (r->max_users_under_limit)
		fprintf(f, "largest user count with average response time under "
			"%.3g s: %d\n", rt_limit_s, r->max_users_under_limit);
	else
		fprintf(f, "no user count kept the average response time under "
			"%.3g s\n", rt_limit_s);
	fprintf(f, "integrity: %llu page reads verified, %llu errors\n",
		(unsigned long long)r->pages_verified,
		(unsigned long long)r->verify_errors);
}

/*
 * A ratio needs transactions on both sides: a step without any has no TPS
 * or response time to compare, and 0x or infinity would read as a result.
 */
int bench_has_ratio(const struct bench_step *s, const struct bench_step *b)
{
	return s && b && s->c.txns && b->c.txns && s->tps > 0 && b->tps > 0 &&
	       s->avg_ms > 0 && b->avg_ms > 0;
}

enum cmp_field { CMP_TPS, CMP_AVG, CMP_P95 };

static double step_field(const struct bench_step *s, enum cmp_field fld)
{
	switch (fld) {
	case CMP_TPS:
		return s->tps;
	case CMP_AVG:
		return s->avg_ms;
	default:
		return s->p95_ms;
	}
}

/* The title of a comparison table and its header line: a column per configuration. */
static void table_head(FILE *f, const struct bench_result *r, int nr, const char *title,
		       int width)
{
	int c;

	fprintf(f, "\n== %s ==\n%6s", title, "users");
	for (c = 0; c < nr; c++)
		fprintf(f, " %*s", width, r[c].config);
	fprintf(f, "\n");
}

/* One table of @fld per user count and configuration, with ratios if @ratios. */
static void print_table(FILE *f, const struct bench_result *r, int nr, const char *title,
			enum cmp_field fld, bool ratios)
{
	const struct bench_result *base = &r[0];
	int c, i;

	table_head(f, r, nr, title, 24);
	for (i = 0; i < base->nsteps; i++) {
		const struct bench_step *b = &base->step[i];

		fprintf(f, "%6d", b->users);
		for (c = 0; c < nr; c++) {
			const struct bench_step *s = bench_step_of(&r[c], b->users);
			char cell[64];

			if (!s)
				snprintf(cell, sizeof(cell), "-");
			else if (ratios && bench_has_ratio(s, b))
				snprintf(cell, sizeof(cell), "%.2f (%.2fx)", step_field(s, fld),
					 step_field(s, fld) / step_field(b, fld));
			else if (ratios)
				snprintf(cell, sizeof(cell), "%.2f (-)", step_field(s, fld));
			else
				snprintf(cell, sizeof(cell), "%.2f", step_field(s, fld));
			fprintf(f, " %24s", cell);
		}
		fprintf(f, "\n");
	}
}

/* min..max of @fld over the rounds, and the spread in % of the median */
static void print_spread(FILE *f, const struct bench_result *r, int nr, const char *title,
			 enum cmp_field fld)
{
	const struct bench_result *base = &r[0];
	int c, i;

	table_head(f, r, nr, title, 28);
	for (i = 0; i < base->nsteps; i++) {
		fprintf(f, "%6d", base->step[i].users);
		for (c = 0; c < nr; c++) {
			const struct bench_step *s = bench_step_of(&r[c], base->step[i].users);
			const struct bench_spread *sp;
			char cell[96];

			sp = !s ? NULL : fld == CMP_TPS ? &s->tps_sp : &s->avg_sp;
			if (!sp || !sp->n)
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), "%.2f..%.2f (%.1f%%)", sp->min,
					 sp->max, sp->spread_pct);
			fprintf(f, " %28s", cell);
		}
		fprintf(f, "\n");
	}
}

int bench_max_rounds(const struct bench_result *r, int nr)
{
	int c, n = 1;

	for (c = 0; c < nr; c++)
		if (r[c].rounds > n)
			n = r[c].rounds;
	return n;
}

void bench_print_compare(FILE *f, const struct bench_result *r, int nr)
{
	int c, rounds = bench_max_rounds(r, nr);

	if (rounds > 1)
		fprintf(f, "\nfigures: medians of %d rounds per configuration (the order of the "
			"configurations alternates between rounds); ratios are ratios of the "
			"medians\n", rounds);
	print_table(f, r, nr, "TPS (ratio to baseline)", CMP_TPS, true);
	print_table(f, r, nr, "average response time, ms (ratio to baseline)", CMP_AVG, true);
	if (rounds > 1) {
		char t[128];

		snprintf(t, sizeof(t), "TPS over %d rounds: min..max (spread: max-min, %% of "
			 "the median)", rounds);
		print_spread(f, r, nr, t, CMP_TPS);
		snprintf(t, sizeof(t), "average response time over %d rounds, ms: min..max "
			 "(spread)", rounds);
		print_spread(f, r, nr, t, CMP_AVG);
	}
	fprintf(f, "\n== largest user count with average response time under the limit ==\n");
	for (c = 0; c < nr; c++)
		fprintf(f, "%-24s %d\n", r[c].config, r[c].max_users_under_limit);
	print_table(f, r, nr, "p95 response time, ms", CMP_P95, false);
	fprintf(f, "\n");
}

/*
 * Ratios at the heaviest user count both runs have: the user count, and
 * whether there are ratios (not if either step completed no transaction).
 */
int bench_heaviest(const struct bench_result *base, const struct bench_result *r,
		   double *tps, double *rt, int *ok)
{
	int i;

	*ok = 0;
	for (i = base->nsteps - 1; i >= 0; i--) {
		const struct bench_step *s = bench_step_of(r, base->step[i].users);

		if (s) {
			*ok = bench_has_ratio(s, &base->step[i]);
			if (*ok) {
				*tps = s->tps / base->step[i].tps;
				*rt = s->avg_ms / base->step[i].avg_ms;
			}
			return base->step[i].users;
		}
	}
	return 0;
}

void bench_print_summary(FILE *f, const struct bench_result *r, int nr)
{
	int c;

	for (c = 0; c < nr; c++) {
		double t = 0, a = 0;
		int ok, u = bench_heaviest(&r[0], &r[c], &t, &a, &ok);

		if (ok)
			fprintf(f, "summary %s: TPS %.2fx baseline, avg response time "
				"%.2fx baseline at %d users\n", r[c].config, t, a, u);
		else
			fprintf(f, "summary %s: TPS - baseline, avg response time - baseline "
				"at %d users (no transactions to compare)\n", r[c].config, u);
	}
}
