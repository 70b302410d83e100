// SPDX-License-Identifier: GPL-2.0
/*
 * The rounds of `fcachectl bench compare --rounds N`: the order the
 * configurations run in, and the reduction of a configuration's N runs to
 * one result (medians of TPS and response times, with their spread).
 *
 * Pure functions: no I/O, no global state; tests/unit/test_bench_rounds.c
 * tests them on the host.
 */
#include <string.h>

#include "bench_int.h"

/* Median, min, max and spread of @n values; @v is left as it is. */
int bench_spread_of(const double *v, int n, struct bench_spread *sp)
{
	double s[BENCH_MAX_ROUNDS];
	int i, j;

	memset(sp, 0, sizeof(*sp));
	if (n < 1 || n > BENCH_MAX_ROUNDS)
		return -1;
	/* insertion sort of a copy: n is at most BENCH_MAX_ROUNDS */
	for (i = 0; i < n; i++) {
		double x = v[i];

		for (j = i; j > 0 && s[j - 1] > x; j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
	sp->n = n;
	sp->min = s[0];
	sp->max = s[n - 1];
	sp->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	sp->spread_pct = sp->median > 0 ? (sp->max - sp->min) / sp->median * 100 : 0;
	return 0;
}

/*
 * The order of the @ncfg configurations in round @round (0-based): as
 * given in even rounds, reversed in odd ones (A B C D, D C B A, A B C D,
 * ...), so that over each pair of rounds every configuration has the same
 * mean position and a drift of the machine's speed does not favour the
 * configurations that run first.
 */
void bench_round_order(int round, int ncfg, int *order)
{
	int i;

	for (i = 0; i < ncfg; i++)
		order[i] = round % 2 ? ncfg - 1 - i : i;
}

static void counts_add(struct bench_counts *d, const struct bench_counts *s)
{
	int i;

	d->txns += s->txns;
	for (i = 0; i < BENCH_MAX_TYPES; i++)
		d->txn_by_type[i] += s->txn_by_type[i];
	d->page_accesses += s->page_accesses;
	d->page_updates += s->page_updates;
	d->hot_accesses += s->hot_accesses;
	d->bp_hits += s->bp_hits;
	d->dev_reads += s->dev_reads;
	d->dev_writes += s->dev_writes;
	d->cold_dev_reads += s->cold_dev_reads;
	d->cold_dev_writes += s->cold_dev_writes;
	d->log_writes += s->log_writes;
	d->log_records += s->log_records;
	d->fsyncs += s->fsyncs;
	d->cleaner_batches += s->cleaner_batches;
	d->verify_errors += s->verify_errors;
	d->free_waits += s->free_waits;
	d->read_us += s->read_us;
	d->write_us += s->write_us;
	d->log_us += s->log_us;
	d->fsync_us += s->fsync_us;
	d->cleaner_us += s->cleaner_us;
	d->cleaner_slowest_us += s->cleaner_slowest_us;
}

const struct bench_step *bench_step_of(const struct bench_result *r, int users)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (r->step[i].users == users)
			return &r->step[i];
	return NULL;
}

static double median_of(const double *v, int n)
{
	struct bench_spread sp;

	bench_spread_of(v, n, &sp);
	return sp.median;
}

/*
 * The largest user count under the response time limit of each run (its
 * ladder and its search), and their median (rounded down: a user count);
 * the steps of the search only of a single run (the searches of several
 * runs try different counts).
 */
static void under_limit(const struct bench_result *const *run, int n,
			struct bench_result *out)
{
	double v[BENCH_MAX_ROUNDS];
	int k;

	for (k = 0; k < n; k++) {
		out->under_round[k] = run[k]->max_users_under_limit;
		v[k] = out->under_round[k];
	}
	out->max_users_under_limit = (int)median_of(v, n);
	if (n == 1) {
		out->nsearch = run[0]->nsearch;
		memcpy(out->search, run[0]->search, sizeof(out->search));
	}
}

/*
 * The backlog of the runs that measured one: the median of the dirty data
 * and of the time to write it back; that time is -1 (not done) if any
 * run's is.
 */
static void backlog_of(const struct bench_result *const *run, int n,
		       struct bench_result *out)
{
	double mib[BENCH_MAX_ROUNDS], s[BENCH_MAX_ROUNDS];
	int k, m = 0, late = 0;

	for (k = 0; k < n; k++) {
		if (!run[k]->backlog_ok)
			continue;
		mib[m] = run[k]->backlog_mib;
		s[m++] = run[k]->backlog_s;
		late |= run[k]->backlog_s < 0;
	}
	out->backlog_ok = m > 0;
	out->backlog_mib = m ? median_of(mib, m) : 0;
	out->backlog_s = !m || late ? -1 : median_of(s, m);
}

/*
 * Reduces the @n runs of one configuration (in round order) to @out: per
 * user count, TPS, average, p95 and p99 response time are the medians over
 * the runs that measured it, max_ms the largest; counts, seconds, the
 * warm-up and the integrity figures are summed; the first error is kept.
 * NOPM and the p90 of each transaction type are medians too.  The largest
 * user count under the response time limit is the median of the runs'
 * (under_limit).  The ladder is that of the run
 * with the most steps (a failed run may have stopped early).
 */
int bench_aggregate(const struct bench_result *const *run, int n,
		    struct bench_result *out)
{
	const struct bench_result *ref;
	int i, k;

	if (n < 1 || n > BENCH_MAX_ROUNDS)
		return -1;
	ref = run[0];
	for (k = 1; k < n; k++)
		if (run[k]->nsteps > ref->nsteps)
			ref = run[k];
	memset(out, 0, sizeof(*out));
	memcpy(out->config, run[0]->config, sizeof(out->config));
	memcpy(out->device, run[0]->device, sizeof(out->device));
	out->profile = run[0]->profile;
	out->npages = run[0]->npages;
	out->page_size = run[0]->page_size;
	out->bp_mb = run[0]->bp_mb;
	out->bp_frames = run[0]->bp_frames;
	out->rounds = n;
	memcpy(out->counters, run[n - 1]->counters, sizeof(out->counters));
	backlog_of(run, n, out);
	/* the origin's requests and the optimum: each round's, in order */
	out->orig = run[n - 1]->orig;
	out->norig = n;
	for (k = 0; k < n; k++)
		out->orig_round[k] = run[k]->orig;
	for (k = 0; k < n; k++) {
		counts_add(&out->warm, &run[k]->warm);
		out->warm_s += run[k]->warm_s;
		out->verify_errors += run[k]->verify_errors;
		out->pages_verified += run[k]->pages_verified;
		out->elapsed_s += run[k]->elapsed_s;
		if (!out->error[0] && run[k]->error[0])
			memcpy(out->error, run[k]->error, sizeof(out->error));
		if (!out->stopped[0] && run[k]->stopped[0])
			memcpy(out->stopped, run[k]->stopped, sizeof(out->stopped));
	}
	out->nsteps = ref->nsteps;
	for (i = 0; i < ref->nsteps; i++) {
		struct bench_step *st = &out->step[i];
		double p95[BENCH_MAX_ROUNDS], p99[BENCH_MAX_ROUNDS], nopm[BENCH_MAX_ROUNDS];
		double p90[BENCH_MAX_TYPES][BENCH_MAX_ROUNDS];
		int m = 0, t;

		st->users = ref->step[i].users;
		for (k = 0; k < n; k++) {
			const struct bench_step *s = bench_step_of(run[k], st->users);

			if (!s)
				continue;
			st->seconds += s->seconds;
			counts_add(&st->c, &s->c);
			if (s->max_ms > st->max_ms)
				st->max_ms = s->max_ms;
			st->tps_round[m] = s->tps;
			st->avg_round[m] = s->avg_ms;
			p95[m] = s->p95_ms;
			p99[m] = s->p99_ms;
			nopm[m] = s->nopm;
			for (t = 0; t < BENCH_MAX_TYPES; t++)
				p90[t][m] = s->p90_type_ms[t];
			m++;
		}
		st->nrounds = m;
		bench_spread_of(st->tps_round, m, &st->tps_sp);
		bench_spread_of(st->avg_round, m, &st->avg_sp);
		st->tps = st->tps_sp.median;
		st->avg_ms = st->avg_sp.median;
		st->p95_ms = median_of(p95, m);
		st->p99_ms = median_of(p99, m);
		st->nopm = median_of(nopm, m);
		for (t = 0; t < BENCH_MAX_TYPES; t++)
			st->p90_type_ms[t] = median_of(p90[t], m);
	}
	under_limit(run, n, out);
	return 0;
}
