// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark statistics and reports: latency histograms, the sysbench-like
 * interval line, the per-user-count table, the comparison table, the JSON
 * results (schema in docs/PERFORMANCE.md) and the SVG chart.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bench_int.h"
#include "fc_json.h"

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

static const struct bench_step *find_step(const struct bench_result *r, int users)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (r->step[i].users == users)
			return &r->step[i];
	return NULL;
}

/*
 * A ratio needs transactions on both sides: a step without any has no TPS
 * or response time to compare, and 0x or infinity would read as a result.
 */
static bool has_ratio(const struct bench_step *s, const struct bench_step *b)
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

/* One table of @fld per user count and configuration, with ratios if @ratios. */
static void print_table(FILE *f, const struct bench_result *r, int nr, const char *title,
			enum cmp_field fld, bool ratios)
{
	const struct bench_result *base = &r[0];
	int c, i;

	fprintf(f, "\n== %s ==\n%6s", title, "users");
	for (c = 0; c < nr; c++)
		fprintf(f, " %24s", r[c].config);
	fprintf(f, "\n");
	for (i = 0; i < base->nsteps; i++) {
		const struct bench_step *b = &base->step[i];

		fprintf(f, "%6d", b->users);
		for (c = 0; c < nr; c++) {
			const struct bench_step *s = find_step(&r[c], b->users);
			char cell[64];

			if (!s)
				snprintf(cell, sizeof(cell), "-");
			else if (ratios && has_ratio(s, b))
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

	fprintf(f, "\n== %s ==\n%6s", title, "users");
	for (c = 0; c < nr; c++)
		fprintf(f, " %28s", r[c].config);
	fprintf(f, "\n");
	for (i = 0; i < base->nsteps; i++) {
		fprintf(f, "%6d", base->step[i].users);
		for (c = 0; c < nr; c++) {
			const struct bench_step *s = find_step(&r[c], base->step[i].users);
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

static int max_rounds(const struct bench_result *r, int nr)
{
	int c, n = 1;

	for (c = 0; c < nr; c++)
		if (r[c].rounds > n)
			n = r[c].rounds;
	return n;
}

void bench_print_compare(FILE *f, const struct bench_result *r, int nr)
{
	int c, rounds = max_rounds(r, nr);

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
static int heaviest(const struct bench_result *base, const struct bench_result *r,
		    double *tps, double *rt, bool *ok)
{
	int i;

	*ok = false;
	for (i = base->nsteps - 1; i >= 0; i--) {
		const struct bench_step *s = find_step(r, base->step[i].users);

		if (s) {
			*ok = has_ratio(s, &base->step[i]);
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
		bool ok;
		int u = heaviest(&r[0], &r[c], &t, &a, &ok);

		if (ok)
			fprintf(f, "summary %s: TPS %.2fx baseline, avg response time "
				"%.2fx baseline at %d users\n", r[c].config, t, a, u);
		else
			fprintf(f, "summary %s: TPS - baseline, avg response time - baseline "
				"at %d users (no transactions to compare)\n", r[c].config, u);
	}
}

/* ------------------------------------------------------------- JSON */

/*
 * "counters": the stack's counters after the last run of the configuration
 * (bench_stack_counters()), name=value pairs as an object of numbers.
 */
static void json_counters(struct fc_json *j, const char *line)
{
	char *copy = strdup(line), *tok, *sv = NULL;

	fj_obj(j, "counters");
	for (tok = copy ? strtok_r(copy, " ", &sv) : NULL; tok; tok = strtok_r(NULL, " ", &sv)) {
		char *eq = strchr(tok, '=');
		uint64_t v;

		if (!eq || eq == tok)
			continue;
		*eq = 0;
		if (!fc_parse_u64(eq + 1, &v))
			fj_u64(j, tok, v);
	}
	fj_end(j);
	free(copy);
}

static void json_counts(struct fc_json *j, const char *key,
			const struct bench_counts *c, const struct bench_profile *p)
{
	int i;

	fj_obj(j, key);
	fj_u64(j, "transactions", c->txns);
	if (p) {
		fj_obj(j, "transactions_by_type");
		for (i = 0; i < p->ntypes; i++)
			fj_u64(j, p->t[i].name, c->txn_by_type[i]);
		fj_end(j);
	}
	fj_u64(j, "page_accesses", c->page_accesses);
	fj_u64(j, "page_updates", c->page_updates);
	fj_u64(j, "hot_accesses", c->hot_accesses);
	fj_u64(j, "buffer_pool_hits", c->bp_hits);
	fj_u64(j, "dev_reads", c->dev_reads);
	fj_u64(j, "dev_writes", c->dev_writes);
	fj_u64(j, "log_writes", c->log_writes);
	fj_u64(j, "fsyncs", c->fsyncs);
	fj_u64(j, "cleaner_batches", c->cleaner_batches);
	fj_u64(j, "free_frame_waits", c->free_waits);
	fj_u64(j, "verify_errors", c->verify_errors);
	fj_end(j);
}

/*
 * The figures of each round and their spread; a result that did not go
 * through bench_aggregate counts as one round.
 */
static void json_spread(struct fc_json *j, const struct bench_step *s)
{
	struct bench_spread tps, avg;
	int i, n = s->nrounds;

	if (n) {
		tps = s->tps_sp;
		avg = s->avg_sp;
	} else {
		bench_spread_of(&s->tps, 1, &tps);
		bench_spread_of(&s->avg_ms, 1, &avg);
	}
	fj_u64(j, "rounds", n ? n : 1);
	fj_dbl(j, "tps_min", tps.min);
	fj_dbl(j, "tps_max", tps.max);
	fj_dbl(j, "tps_spread_pct", tps.spread_pct);
	fj_dbl(j, "avg_ms_min", avg.min);
	fj_dbl(j, "avg_ms_max", avg.max);
	fj_dbl(j, "avg_ms_spread_pct", avg.spread_pct);
	fj_arr(j, "tps_rounds");
	for (i = 0; i < (n ? n : 1); i++)
		fj_dbl(j, NULL, n ? s->tps_round[i] : s->tps);
	fj_end(j);
	fj_arr(j, "avg_ms_rounds");
	for (i = 0; i < (n ? n : 1); i++)
		fj_dbl(j, NULL, n ? s->avg_round[i] : s->avg_ms);
	fj_end(j);
}

int bench_write_json(const char *path, const struct bench_opts *o,
		     const struct bench_result *r, int nr, const char *chart,
		     const char *command)
{
	const struct bench_profile *p = r[0].profile;
	int c, i, k, rounds = o->rounds > 1 ? o->rounds : 1;
	struct fc_json j;
	FILE *f = fopen(path, "w");

	if (!f) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	fj_init(&j, f);
	fj_obj(&j, NULL);
	fj_schema(&j, "fcache.bench");
	fj_str(&j, "command", command);
	fj_obj(&j, "workload");
	fj_str(&j, "profile", p ? p->name : o->profile);
	fj_str(&j, "profile_description", p ? p->desc : NULL);
	if (p) {
		fj_arr(&j, "transaction_types");
		for (i = 0; i < p->ntypes; i++) {
			fj_obj(&j, NULL);
			fj_str(&j, "name", p->t[i].name);
			fj_u64(&j, "percent", p->t[i].pct);
			fj_u64(&j, "page_reads", p->t[i].reads);
			fj_u64(&j, "page_updates", p->t[i].updates);
			fj_u64(&j, "range_scans", p->t[i].ranges);
			fj_u64(&j, "range_pages", p->t[i].range_len);
			fj_end(&j);
		}
		fj_end(&j);
	}
	fj_str(&j, "distribution", o->dist_str);
	fj_u64(&j, "seed", o->seed);
	fj_u64(&j, "page_size", r[0].page_size);
	fj_u64(&j, "datafile_pages", r[0].npages);
	fj_dbl(&j, "buffer_pool_mb", r[0].bp_mb);
	fj_dbl(&j, "warmup_s", o->warmup_s);
	fj_dbl(&j, "time_s", o->time_s);
	fj_dbl(&j, "rt_limit_s", o->rt_limit_s);
	/* "users" is the integer of a step: the list has a name of its own */
	fj_arr(&j, "user_steps");
	for (i = 0; i < o->nsteps; i++)
		fj_u64(&j, NULL, o->users[i]);
	fj_end(&j);
	fj_u64(&j, "rounds", rounds);
	fj_end(&j);
	fj_str(&j, "chart", chart);
	/* the planned order of the configurations in each round */
	fj_arr(&j, "run_order");
	for (k = 0; k < rounds; k++) {
		int order[BENCH_MAX_CONFIGS], n = nr < BENCH_MAX_CONFIGS ? nr : BENCH_MAX_CONFIGS;

		bench_round_order(k, n, order);
		fj_arr(&j, NULL);
		for (c = 0; c < n; c++)
			fj_str(&j, NULL, r[order[c]].config);
		fj_end(&j);
	}
	fj_end(&j);
	fj_arr(&j, "configs");
	for (c = 0; c < nr; c++) {
		const struct bench_result *x = &r[c];

		fj_obj(&j, NULL);
		fj_str(&j, "name", x->config);
		fj_str(&j, "device", x->device);
		fj_str(&j, "interrupted", x->stopped[0] ? x->stopped : NULL);
		fj_u64(&j, "buffer_pool_frames", x->bp_frames);
		fj_obj(&j, "integrity");
		fj_u64(&j, "pages_verified", x->pages_verified);
		fj_u64(&j, "errors", x->verify_errors);
		fj_str(&j, "error", x->error[0] ? x->error : NULL);
		fj_end(&j);
		fj_u64(&j, "max_users_under_rt_limit", x->max_users_under_limit);
		fj_u64(&j, "rounds", x->rounds > 1 ? x->rounds : 1);
		json_counters(&j, x->counters);
		fj_dbl(&j, "warmup_s", x->warm_s);
		json_counts(&j, "warmup", &x->warm, p);
		fj_arr(&j, "steps");
		for (i = 0; i < x->nsteps; i++) {
			const struct bench_step *s = &x->step[i];
			const struct bench_step *b = find_step(&r[0], s->users);

			fj_obj(&j, NULL);
			fj_u64(&j, "users", s->users);
			fj_dbl(&j, "seconds", s->seconds);
			fj_dbl(&j, "tps", s->tps);
			fj_dbl(&j, "avg_ms", s->avg_ms);
			fj_dbl(&j, "p95_ms", s->p95_ms);
			fj_dbl(&j, "p99_ms", s->p99_ms);
			fj_dbl(&j, "max_ms", s->max_ms);
			if (has_ratio(s, b)) {
				fj_dbl(&j, "tps_ratio", s->tps / b->tps);
				fj_dbl(&j, "avg_rt_ratio", s->avg_ms / b->avg_ms);
			} else {
				fj_null(&j, "tps_ratio");
				fj_null(&j, "avg_rt_ratio");
			}
			json_spread(&j, s);
			json_counts(&j, "counts", &s->c, p);
			fj_end(&j);
		}
		fj_end(&j);
		fj_end(&j);
	}
	fj_end(&j);
	fj_arr(&j, "summary");
	for (c = 0; c < nr; c++) {
		double t = 0, a = 0;
		bool ok;
		int u = heaviest(&r[0], &r[c], &t, &a, &ok);

		fj_obj(&j, NULL);
		fj_str(&j, "config", r[c].config);
		fj_u64(&j, "users", u);
		if (ok) {
			fj_dbl(&j, "tps_ratio", t);
			fj_dbl(&j, "avg_rt_ratio", a);
		} else {
			fj_null(&j, "tps_ratio");
			fj_null(&j, "avg_rt_ratio");
		}
		fj_u64(&j, "rounds", r[c].rounds > 1 ? r[c].rounds : 1);
		fj_end(&j);
	}
	fj_end(&j);
	fj_end(&j);
	if (fclose(f)) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	return 0;
}



/* -------------------------------------------------------------- SVG */

static const char *colors[] = { "#555555", "#d62728", "#1f77b4", "#2ca02c",
				"#9467bd", "#ff7f0e" };

static double nice_max(double v)
{
	double e, m;

	if (v <= 0)
		return 1;
	e = pow(10, floor(log10(v)));
	m = v / e;
	m = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
	return m * e;
}

static void svg_panel(FILE *f, const struct bench_result *r, int nr, int x0,
		      const char *title, int rt)
{
	const int w = 420, h = 300, ml = 60, mt = 40, pw = w - ml - 20, ph = h - mt - 50;
	const struct bench_result *base = &r[0];
	int n = base->nsteps, c, i;
	double ymax = 0;

	for (c = 0; c < nr; c++)
		for (i = 0; i < r[c].nsteps; i++) {
			const struct bench_step *s = &r[c].step[i];
			double v = rt ? s->avg_ms : s->tps;

			if (s->nrounds > 1)
				v = rt ? s->avg_sp.max : s->tps_sp.max;
			if (v > ymax)
				ymax = v;
		}
	ymax = nice_max(ymax);
	fprintf(f, "<g transform=\"translate(%d,0)\">\n", x0);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">%s</text>\n",
		ml + pw / 2, title);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		ml, mt, pw, ph);
	for (i = 0; i <= 4; i++) {
		int y = mt + ph - ph * i / 4;

		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
			ml, y, ml + pw, y);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.4g</text>\n",
			ml - 4, y + 4, ymax * i / 4);
	}
	for (i = 0; i < n; i++) {
		int x = ml + (n > 1 ? pw * i / (n - 1) : pw / 2);

		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>\n",
			x, mt + ph + 16, base->step[i].users);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">users</text>\n",
		ml + pw / 2, mt + ph + 34);
	fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %d)\">%s</text>\n", mt + ph / 2,
		mt + ph / 2, rt ? "avg response time (ms)" : "transactions/s");
	for (c = 0; c < nr; c++) {
		const char *col = colors[c % 6];
		double py[BENCH_MAX_STEPS];
		int px[BENCH_MAX_STEPS], np = 0;

		/*
		 * The configuration's points (medians over the rounds), at the
		 * baseline's numbers of users, with a bar from the smallest to
		 * the largest round.
		 */
		for (i = 0; i < n; i++) {
			const struct bench_step *s = find_step(&r[c], base->step[i].users);

			if (!s)
				continue;
			px[np] = ml + (n > 1 ? pw * i / (n - 1) : pw / 2);
			py[np] = mt + ph - ph * (rt ? s->avg_ms : s->tps) / ymax;
			if (s->nrounds > 1) {
				const struct bench_spread *sp = rt ? &s->avg_sp : &s->tps_sp;

				fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
					"stroke=\"%s\" stroke-width=\"1\"/>\n", px[np],
					mt + ph - ph * sp->min / ymax, px[np],
					mt + ph - ph * sp->max / ymax, col);
			}
			np++;
		}
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (i = 0; i < np; i++)
			fprintf(f, "%d,%.1f ", px[i], py[i]);
		fprintf(f, "\"/>\n");
		for (i = 0; i < np; i++)
			fprintf(f, "<circle cx=\"%d\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				px[i], py[i], col);
	}
	fprintf(f, "</g>\n");
}

int bench_write_svg(const char *path, const struct bench_result *r, int nr)
{
	FILE *f = fopen(path, "w");
	int c, W = 860, H = 340 + 20 * nr;

	if (!f) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<title>fcachectl bench: TPS and average response time versus users (%s profile)",
		W, H, W, H, r[0].profile ? r[0].profile->name : "");
	if (max_rounds(r, nr) > 1)
		fprintf(f, ", medians of %d rounds, bars from the smallest to the largest round",
			max_rounds(r, nr));
	fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	svg_panel(f, r, nr, 0, "TPS versus users", 0);
	svg_panel(f, r, nr, 430, "Average response time versus users", 1);
	for (c = 0; c < nr; c++) {
		int y = 320 + 20 * c;

		fprintf(f, "<line x1=\"70\" y1=\"%d\" x2=\"100\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			y, y, colors[c % 6]);
		fprintf(f, "<text x=\"108\" y=\"%d\" font-size=\"12\">%s</text>\n", y + 4,
			r[c].config);
	}
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	return 0;
}
