// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark statistics and the text reports: latency histograms, the
 * sysbench-like interval line, the per-user-count table, the comparison
 * tables and summary lines of `compare`, and the ratios to the baseline
 * they share with results.json (bench_report.c).
 */
#include <math.h>
#include <stddef.h>
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

/* Per user count: NOPM (a profile with new-order) and the p90 of each type. */
static void print_types(FILE *f, const struct bench_result *r)
{
	const struct bench_profile *p = r->profile;
	int i, t, no = bench_new_order_type(p);

	if (!p || p->ntypes < 2)
		return;
	fprintf(f, "%6s %10s  p90 ms:", "users", no >= 0 ? "NOPM" : "");
	for (t = 0; t < p->ntypes; t++)
		fprintf(f, " %12s", p->t[t].name);
	fprintf(f, "\n");
	for (i = 0; i < r->nsteps; i++) {
		const struct bench_step *s = &r->step[i];

		fprintf(f, "%6d ", s->users);
		if (no >= 0)
			fprintf(f, "%10.1f", s->nopm);
		else
			fprintf(f, "%10s", "");
		fprintf(f, "         ");
		for (t = 0; t < p->ntypes; t++)	/* "-": none of the type completed */
			if (s->c.txn_by_type[t])
				fprintf(f, " %12.2f", s->p90_type_ms[t]);
			else
				fprintf(f, " %12s", "-");
		fprintf(f, "\n");
	}
}

/* The extra steps of the search of the users under the limit. */
static void print_search(FILE *f, const struct bench_result *r, double rt_limit_s)
{
	int i;

	for (i = 0; i < r->nsearch; i++) {
		const struct bench_step *s = &r->search[i];

		fprintf(f, "search under %.3g s: %d users: TPS %.2f, avg %.2f ms, p95 %.2f ms: "
			"%s\n", rt_limit_s, s->users, s->tps, s->avg_ms, s->p95_ms,
			bench_step_under(s, rt_limit_s * 1000) ? "under" : "over");
	}
}

double bench_log_group_avg(const struct bench_counts *c)
{
	return c->log_writes ? (double)c->log_records / c->log_writes : 0;
}

const char *const bench_lat_name[BENCH_LAT_KINDS] = {
	"page read", "page write", "redo write", "fdatasync",
};

double bench_dev_latency_ms(const struct bench_counts *c, int kind)
{
	static const size_t n_off[BENCH_LAT_KINDS] = {
		offsetof(struct bench_counts, dev_reads), offsetof(struct bench_counts, dev_writes),
		offsetof(struct bench_counts, log_writes), offsetof(struct bench_counts, fsyncs),
	};
	static const size_t us_off[BENCH_LAT_KINDS] = {
		offsetof(struct bench_counts, read_us), offsetof(struct bench_counts, write_us),
		offsetof(struct bench_counts, log_us), offsetof(struct bench_counts, fsync_us),
	};
	uint64_t n, us;

	if (kind < 0 || kind >= BENCH_LAT_KINDS)
		return -1;
	n = *(const uint64_t *)((const char *)c + n_off[kind]);
	us = *(const uint64_t *)((const char *)c + us_off[kind]);
	return n ? us / 1000.0 / n : -1;
}

/*
 * The run's device latency per step: each kind of I/O from submission to
 * completion, averaged (what iostat calls await, as the application sees it).
 */
static void print_dev_latency(FILE *f, const struct bench_result *r)
{
	int i, k;

	fprintf(f, "%6s  device latency, ms (average, submission to completion):", "users");
	for (k = 0; k < BENCH_LAT_KINDS; k++)
		fprintf(f, "%s %s", k ? "," : "", bench_lat_name[k]);
	fprintf(f, "\n");
	for (i = 0; i < r->nsteps; i++) {
		fprintf(f, "%6d ", r->step[i].users);
		for (k = 0; k < BENCH_LAT_KINDS; k++) {
			double ms = bench_dev_latency_ms(&r->step[i].c, k);

			if (ms < 0)
				fprintf(f, " %12s", "-");
			else
				fprintf(f, " %12.3f", ms);
		}
		fprintf(f, "\n");
	}
}

/*
 * The device I/O per transaction, of all pages and of those outside the
 * hottest 10% (by popularity rank): the cold pages' share is what a cache
 * smaller than the datafile serves only in part, and the same figures in
 * two configurations say they ran the same load (docs/PERFORMANCE.md).
 */
static void print_cold(FILE *f, const struct bench_result *r)
{
	int i;

	fprintf(f, "%6s  device I/O per transaction (all pages / outside the hottest 10%%):"
		" reads, writes\n", "users");
	for (i = 0; i < r->nsteps; i++) {
		const struct bench_counts *c = &r->step[i].c;
		double t = c->txns ? (double)c->txns : 1;

		fprintf(f, "%6d  %.3f / %.3f, %.3f / %.3f\n", r->step[i].users,
			c->dev_reads / t, c->cold_dev_reads / t,
			c->dev_writes / t, c->cold_dev_writes / t);
	}
}

/*
 * The page cleaner of each step: a batch's time from its first write to
 * its fdatasync's completion, its slowest write, and how often a user
 * waited for a free frame.  Users wait for the cleaner when the buffer
 * pool has no clean frame left, so where the waits are many the batch time
 * sets the transaction rate, and the slowest write sets the batch time.
 */
static void print_cleaner(FILE *f, const struct bench_result *r)
{
	int i;

	fprintf(f, "%6s  page cleaner, ms (average a batch): batch, its slowest write;"
		" free-frame waits a transaction\n", "users");
	for (i = 0; i < r->nsteps; i++) {
		const struct bench_counts *c = &r->step[i].c;

		fprintf(f, "%6d ", r->step[i].users);
		if (c->fsyncs)
			fprintf(f, " %12.3f %12.3f", c->cleaner_us / 1000.0 / c->fsyncs,
				c->cleaner_slowest_us / 1000.0 / c->fsyncs);
		else
			fprintf(f, " %12s %12s", "-", "-");
		fprintf(f, " %12.3f\n", c->txns ? (double)c->free_waits / c->txns : 0);
	}
}

/* Did group commit make a step of @r write fewer redo writes than records? */
static bool grouped(const struct bench_result *r)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (r->step[i].c.log_records != r->step[i].c.log_writes)
			return true;
	return false;
}

/* Group commit: the redo records per write of each step, the average group. */
static void print_groups(FILE *f, const struct bench_result *r)
{
	int i;

	if (!grouped(r))
		return;
	fprintf(f, "group commit, redo records per write:");
	for (i = 0; i < r->nsteps; i++) {
		const struct bench_counts *c = &r->step[i].c;

		if (c->log_writes)
			fprintf(f, "%s %d users %.2f", i ? "," : "", r->step[i].users,
				bench_log_group_avg(c));
		else
			fprintf(f, "%s %d users -", i ? "," : "", r->step[i].users);
	}
	fprintf(f, "\n");
}

/*
 * A ratio to the baseline, "0.47x": two decimals, or for a ratio under 0.1
 * two significant digits ("0.0053x", the terminal model's -99.5%), so
 * that no ratio reads 0.00x.  Into @buf, which it returns.
 */
const char *bench_ratio_str(char *buf, size_t len, double r)
{
	int d = 2;

	if (r > 0 && r < 0.1) {
		d = (int)ceil(-log10(r)) + 1;
		if (d > 9)
			d = 9;
	}
	snprintf(buf, len, "%.*fx", d, r);
	return buf;
}

/* Does the buffer pool of @r hold the whole datafile (every page read a hit)? */
int bench_bp_covers(const struct bench_result *r)
{
	if (!r->npages)
		return 0;
	if (r->bp_frames)
		return r->bp_frames >= r->npages;
	return r->bp_mb * 1048576 >= (double)r->npages * r->page_size;
}

/* The warning of a report whose buffer pool holds the whole datafile. */
static void print_bp_covers(FILE *f, const struct bench_result *r)
{
	if (!bench_bp_covers(r))
		return;
	fprintf(f, "WARNING: the buffer pool (%.1f MiB) holds the whole datafile (%.1f MiB): once "
		"warm, every page read is a buffer pool hit and the device serves writes only; "
		"for a read cache to measure, give --buffer-pool under the datafile's size\n",
		r->bp_mb, (double)r->npages * r->page_size / 1048576);
}

void bench_print_table(FILE *f, const struct bench_result *r, double rt_limit_s)
{
	int i;

	fprintf(f, "\n%s%sprofile %s, %llu pages of %u KiB, buffer pool %.1f MiB\n",
		r->config[0] ? r->config : "", r->config[0] ? ": " : "",
		r->profile ? r->profile->name : "?",
		(unsigned long long)r->npages, r->page_size / 1024, r->bp_mb);
	print_bp_covers(f, r);
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
	print_types(f, r);
	print_dev_latency(f, r);
	print_cold(f, r);
	print_cleaner(f, r);
	print_groups(f, r);
	print_search(f, r, rt_limit_s);
	if (r->max_users_under_limit)
		fprintf(f, "largest user count with average response time under "
			"%.3g s: %d%s\n", rt_limit_s, r->max_users_under_limit,
			bench_under_capped(r) ? " (the ladder's largest: more users may be served)" : "");
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

void bench_ratios_of(const struct bench_step *s, const struct bench_step *b,
		     struct bench_ratios *q)
{
	memset(q, 0, sizeof(*q));
	q->ok = bench_has_ratio(s, b);
	if (!q->ok)
		return;
	q->tps = s->tps / b->tps;
	q->avg = s->avg_ms / b->avg_ms;
	q->p95_ok = b->p95_ms > 0;
	q->p95 = q->p95_ok ? s->p95_ms / b->p95_ms : 0;
	q->nopm_ok = s->nopm > 0 && b->nopm > 0;
	q->nopm = q->nopm_ok ? s->nopm / b->nopm : 0;
}

int bench_under_capped(const struct bench_result *r)
{
	int i, top = 0;

	for (i = 0; i < r->nsteps; i++)
		if (r->step[i].users > top)
			top = r->step[i].users;
	return top > 0 && r->max_users_under_limit == top;
}

int bench_under_ratio(const struct bench_result *base, const struct bench_result *r,
		      double *ratio)
{
	if (base->max_users_under_limit <= 0)
		return 0;
	*ratio = (double)r->max_users_under_limit / base->max_users_under_limit;
	return 1;
}

enum cmp_field { CMP_TPS, CMP_AVG, CMP_P95, CMP_NOPM, CMP_GROUP };

static double step_field(const struct bench_step *s, enum cmp_field fld)
{
	switch (fld) {
	case CMP_TPS:
		return s->tps;
	case CMP_AVG:
		return s->avg_ms;
	case CMP_NOPM:
		return s->nopm;
	case CMP_GROUP:
		return bench_log_group_avg(&s->c);
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
	char rb[32];
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
			else if (ratios && bench_has_ratio(s, b) && step_field(b, fld) > 0)
				snprintf(cell, sizeof(cell), "%.2f (%s)", step_field(s, fld),
					 bench_ratio_str(rb, sizeof(rb),
							 step_field(s, fld) / step_field(b, fld)));
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

/*
 * The writeback backlog each cache left at the end of its run (medians
 * with rounds), and how long writing it back to the origin took.
 */
static void print_backlog(FILE *f, const struct bench_result *r, int nr)
{
	int c, any = 0;

	for (c = 0; c < nr; c++)
		any |= r[c].backlog_ok;
	if (!any)
		return;
	fprintf(f, "\n== writeback backlog left at the end of the run, and the time to write it back ==\n");
	for (c = 0; c < nr; c++) {
		if (!r[c].backlog_ok)
			continue;
		if (r[c].backlog_s >= 0)
			fprintf(f, "%-24s %9.1f MiB %9.1f s\n", r[c].config, r[c].backlog_mib,
				r[c].backlog_s);
		else
			fprintf(f, "%-24s %9.1f MiB  not done in %d s\n", r[c].config,
				r[c].backlog_mib, BENCH_BACKLOG_MAX_S);
	}
}

/* The p90 response time of each transaction type at the heaviest user count of the baseline. */
/* Device latency of each kind at the heaviest user count, with the ratio to the baseline's. */
static void print_dev_latency_cmp(FILE *f, const struct bench_result *r, int nr)
{
	const struct bench_result *base = &r[0];
	const struct bench_step *b = base->nsteps ? &base->step[base->nsteps - 1] : NULL;
	int c, k, u = b ? b->users : 0;

	if (!b)
		return;
	b = bench_step_of(base, u);
	fprintf(f, "\n== device latency at %d users, ms, average (ratio to baseline) ==\n%-14s",
		u, "I/O");
	for (c = 0; c < nr; c++)
		fprintf(f, " %24s", r[c].config);
	fprintf(f, "\n");
	for (k = 0; k < BENCH_LAT_KINDS; k++) {
		double bm = bench_dev_latency_ms(&b->c, k);
		char rb[32];

		fprintf(f, "%-14s", bench_lat_name[k]);
		for (c = 0; c < nr; c++) {
			const struct bench_step *s = bench_step_of(&r[c], u);
			double ms = s ? bench_dev_latency_ms(&s->c, k) : -1;
			char cell[64];

			if (ms < 0)
				snprintf(cell, sizeof(cell), "-");
			else if (bm > 0)
				snprintf(cell, sizeof(cell), "%.3f (%s)", ms,
					 bench_ratio_str(rb, sizeof(rb), ms / bm));
			else
				snprintf(cell, sizeof(cell), "%.3f (-)", ms);
			fprintf(f, " %24s", cell);
		}
		fprintf(f, "\n");
	}
}

static void print_p90_types(FILE *f, const struct bench_result *r, int nr)
{
	const struct bench_result *base = &r[0];
	const struct bench_profile *p = base->profile;
	const struct bench_step *b = base->nsteps ? &base->step[base->nsteps - 1] : NULL;
	int c, t, u = b ? b->users : 0;
	char title[128], rb[32];

	if (!p || p->ntypes < 2 || !b)
		return;
	b = bench_step_of(base, u);	/* the first step of that count, as the ratios */
	snprintf(title, sizeof(title), "p90 response time by transaction type at %d users, ms "
		 "(ratio to baseline)", u);
	fprintf(f, "\n== %s ==\n%-14s", title, "type");
	for (c = 0; c < nr; c++)
		fprintf(f, " %24s", r[c].config);
	fprintf(f, "\n");
	for (t = 0; t < p->ntypes; t++) {
		fprintf(f, "%-14s", p->t[t].name);
		for (c = 0; c < nr; c++) {
			const struct bench_step *s = bench_step_of(&r[c], u);
			char cell[64];

			if (!s || !s->c.txn_by_type[t])
				snprintf(cell, sizeof(cell), "-");
			else if (b->c.txn_by_type[t] && b->p90_type_ms[t] > 0)
				snprintf(cell, sizeof(cell), "%.2f (%s)", s->p90_type_ms[t],
					 bench_ratio_str(rb, sizeof(rb),
							 s->p90_type_ms[t] / b->p90_type_ms[t]));
			else
				snprintf(cell, sizeof(cell), "%.2f (-)", s->p90_type_ms[t]);
			fprintf(f, " %24s", cell);
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

/* The value of the first "@name=N" word of @counters: 0, or -1 (none, or not a number). */
static int counter_of(const char *counters, const char *name, uint64_t *v)
{
	size_t len = strlen(name);
	const char *p = counters;

	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, name, len) && p[len] == '=') {
			char *end;

			p += len + 1;
			if (*p < '0' || *p > '9')
				return -1;
			*v = strtoull(p, &end, 10);
			return *end && *end != ' ' ? -1 : 0;
		}
		p = strchr(p, ' ');
	}
	return -1;
}

int bench_read_hit_ratio(const char *counters, uint64_t *hits, uint64_t *reads,
			 double *ratio)
{
	uint64_t misses;

	if (!counters || counter_of(counters, "read_hits", hits))
		return -1;
	if (counter_of(counters, "reads", reads)) {
		if (counter_of(counters, "read_misses", &misses) || *hits > UINT64_MAX - misses)
			return -1;
		*reads = *hits + misses;
	}
	if (!*reads || *hits > *reads)
		return -1;
	*ratio = (double)*hits / (double)*reads;
	return 0;
}

/* A line per cache whose counters give a read hit ratio; nothing if none does. */
static void print_hit_ratios(FILE *f, const struct bench_result *r, int nr)
{
	uint64_t h, n;
	double q;
	int c, any = 0;

	for (c = 0; c < nr; c++) {
		if (bench_read_hit_ratio(r[c].counters, &h, &n, &q))
			continue;
		if (!any++)
			fprintf(f, "\n== read hit ratio of the cache (its counters after its last "
				"run: warm-up and every step) ==\n");
		fprintf(f, "%-24s %5.1f%% (%llu of %llu reads)\n", r[c].config, 100 * q,
			(unsigned long long)h, (unsigned long long)n);
	}
}

void bench_print_compare(FILE *f, const struct bench_result *r, int nr)
{
	int c, rounds = bench_max_rounds(r, nr);

	if (bench_bp_covers(&r[0])) {
		fputc('\n', f);
		print_bp_covers(f, &r[0]);
	}
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
	fprintf(f, "\n== largest user count with average response time under the limit "
		"(ratio to baseline) ==\n");

	for (c = 0; c < nr; c++) {
		const char *cap = bench_under_capped(&r[c]) ? " at least: the ladder's largest" : "";
		char rb[32];
		double q;

		if (bench_under_ratio(&r[0], &r[c], &q))
			fprintf(f, "%-24s %d (%s)%s\n", r[c].config, r[c].max_users_under_limit,
				bench_ratio_str(rb, sizeof(rb), q), cap);
		else
			fprintf(f, "%-24s %d (-)%s\n", r[c].config, r[c].max_users_under_limit, cap);
	}
	print_table(f, r, nr, "p95 response time, ms (ratio to baseline)", CMP_P95, true);
	if (bench_new_order_type(r[0].profile) >= 0)
		print_table(f, r, nr, "NOPM: new-order transactions per minute (ratio to "
			    "baseline)", CMP_NOPM, true);
	print_p90_types(f, r, nr);
	print_dev_latency_cmp(f, r, nr);
	print_backlog(f, r, nr);
	for (c = 0; c < nr && !grouped(&r[c]); c++)
		;
	if (c < nr)
		print_table(f, r, nr, "group commit: redo records per write", CMP_GROUP, false);
	print_hit_ratios(f, r, nr);
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

		char rt[32], ra[32];

		if (ok)
			fprintf(f, "summary %s: TPS %s baseline, avg response time "
				"%s baseline at %d users\n", r[c].config,
				bench_ratio_str(rt, sizeof(rt), t), bench_ratio_str(ra, sizeof(ra), a), u);
		else
			fprintf(f, "summary %s: TPS - baseline, avg response time - baseline "
				"at %d users (no transactions to compare)\n", r[c].config, u);
	}
}

void bench_print_summary_terminals(FILE *f, const struct bench_result *r, int nr,
				   double rt_limit_s)
{
	int c;

	for (c = 0; c < nr; c++) {
		double t = 0, a = 0, q = 0;
		int ok, uok = bench_under_ratio(&r[0], &r[c], &q);
		char ratios[96], under[32], rt[32], ra[32];

		bench_heaviest(&r[0], &r[c], &t, &a, &ok);
		if (ok)
			snprintf(ratios, sizeof(ratios), "TPS %s baseline, avg response time "
				 "%s baseline", bench_ratio_str(rt, sizeof(rt), t),
				 bench_ratio_str(ra, sizeof(ra), a));
		else
			snprintf(ratios, sizeof(ratios), "TPS - baseline, avg response time - "
				 "baseline");
		if (uok)
			bench_ratio_str(under, sizeof(under), q);
		else
			snprintf(under, sizeof(under), "-");
		fprintf(f, "summary terminals %s: %s, users under %.3g s %d (%s baseline)\n",
			r[c].config, ratios, rt_limit_s, r[c].max_users_under_limit, under);
	}
}

int bench_price_of(const struct bench_opts *o, const struct bench_result *r, int users,
		   double *amount, double *per_tps)
{
	const struct bench_step *s = bench_step_of(r, users);
	int k;

	for (k = 0; k < o->nprice; k++)
		if (!strcmp(o->price_cfg[k], r->config)) {
			*amount = o->price[k];
			*per_tps = s && s->tps > 0 ? o->price[k] / s->tps : 0;
			return 1;
		}
	return 0;
}

void bench_print_prices(FILE *f, const struct bench_opts *o, const struct bench_result *r,
			int nr)
{
	int c, ok, u;
	double t, a;

	if (!o->nprice || !nr)
		return;
	u = bench_heaviest(&r[0], &r[0], &t, &a, &ok);
	fprintf(f, "== price per TPS at %d users (--price) ==\n", u);
	for (c = 0; c < nr; c++) {
		const struct bench_step *s = bench_step_of(&r[c], u);
		double amount, per;

		if (!bench_price_of(o, &r[c], u, &amount, &per))
			fprintf(f, "%-24s not priced\n", r[c].config);
		else if (per > 0)
			fprintf(f, "%-24s %.6g / %.2f TPS = %.6g per TPS\n", r[c].config, amount,
				s->tps, per);
		else
			fprintf(f, "%-24s %.6g, no TPS at %d users\n", r[c].config, amount, u);
	}
	fprintf(f, "\n");
}
