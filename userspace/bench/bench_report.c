// SPDX-License-Identifier: GPL-2.0
/*
 * The files of a benchmark report: results.json (schema fcache.bench in
 * docs/PERFORMANCE.md and docs/JSON.md) and chart.svg (TPS and average
 * response time versus users, one line per configuration).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_int.h"
#include "fc_json.h"

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
	fj_u64(j, "cold_dev_reads", c->cold_dev_reads);
	fj_u64(j, "cold_dev_writes", c->cold_dev_writes);
	fj_u64(j, "log_writes", c->log_writes);
	fj_u64(j, "log_records", c->log_records);
	fj_u64(j, "fsyncs", c->fsyncs);
	fj_u64(j, "cleaner_batches", c->cleaner_batches);
	fj_u64(j, "free_frame_waits", c->free_waits);
	fj_u64(j, "verify_errors", c->verify_errors);
	fj_u64(j, "read_us", c->read_us);
	fj_u64(j, "write_us", c->write_us);
	fj_u64(j, "log_write_us", c->log_us);
	fj_u64(j, "fsync_us", c->fsync_us);
	fj_u64(j, "cleaner_us", c->cleaner_us);
	fj_u64(j, "cleaner_slowest_write_us", c->cleaner_slowest_us);
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

/* @v, or null if @ok is false (a ratio without a base, a figure the profile has not). */
static void json_num_or_null(struct fc_json *j, const char *key, int ok, double v)
{
	if (ok)
		fj_dbl(j, key, v);
	else
		fj_null(j, key);
}

/* The terminal model's times: seconds, or null for the profile's per type. */
static void json_time(struct fc_json *j, const char *key, double v)
{
	json_num_or_null(j, key, v != BENCH_TIME_PROFILE, v);
}

static void json_workload(struct fc_json *j, const struct bench_opts *o,
			  const struct bench_result *r, int rounds)
{
	const struct bench_profile *p = r->profile;
	int i;

	fj_obj(j, "workload");
	fj_str(j, "profile", p ? p->name : o->profile);
	fj_str(j, "profile_description", p ? p->desc : NULL);
	if (p) {
		fj_arr(j, "transaction_types");
		for (i = 0; i < p->ntypes; i++) {
			fj_obj(j, NULL);
			fj_str(j, "name", p->t[i].name);
			fj_u64(j, "percent", p->t[i].pct);
			fj_u64(j, "page_reads", p->t[i].reads);
			fj_u64(j, "page_updates", p->t[i].updates);
			fj_u64(j, "range_scans", p->t[i].ranges);
			fj_u64(j, "range_pages", p->t[i].range_len);
			fj_dbl(j, "keying_s", bench_keying(o, &p->t[i]));
			fj_dbl(j, "think_s", bench_think_mean(o, &p->t[i]));
			fj_end(j);
		}
		fj_end(j);
	}
	fj_str(j, "distribution", o->dist_str);
	fj_u64(j, "seed", o->seed);
	fj_u64(j, "page_size", r->page_size);
	fj_u64(j, "datafile_pages", r->npages);
	fj_dbl(j, "buffer_pool_mb", r->bp_mb);
	fj_dbl(j, "warmup_s", o->warmup_s);
	fj_dbl(j, "time_s", o->time_s);
	fj_dbl(j, "rt_limit_s", o->rt_limit_s);
	/* "users" is the integer of a step: the list has a name of its own */
	fj_arr(j, "user_steps");
	for (i = 0; i < o->nsteps; i++)
		fj_u64(j, NULL, o->users[i]);
	fj_end(j);
	fj_u64(j, "rounds", rounds);
	fj_bool(j, "terminal_model", bench_terminal_model(o, p));
	json_time(j, "think_time_s", o->think_s);
	json_time(j, "keying_time_s", o->keying_s);
	fj_u64(j, "rt_search_max_steps", o->rt_search);
	fj_str(j, "log_device", o->log_dev);
	fj_bool(j, "group_commit", o->group_commit);
	fj_u64(j, "group_commit_max_records", o->group_commit ? BENCH_GROUP_MAX : 1);
	/* compare's devices (null for run) */
	fj_str(j, "origin", o->origin);
	fj_str(j, "flash", o->flash);
	fj_str(j, "flash2", o->flash2);
	fj_end(j);
}

/* The planned order of the configurations in each round. */
static void json_run_order(struct fc_json *j, const struct bench_result *r, int nr,
			   int rounds)
{
	int c, k, n = nr < BENCH_MAX_CONFIGS ? nr : BENCH_MAX_CONFIGS;

	fj_arr(j, "run_order");
	for (k = 0; k < rounds; k++) {
		int order[BENCH_MAX_CONFIGS];

		bench_round_order(k, n, order);
		fj_arr(j, NULL);
		for (c = 0; c < n; c++)
			fj_str(j, NULL, r[order[c]].config);
		fj_end(j);
	}
	fj_end(j);
}

/* The figures of a step added in schema version 2 (after "counts"). */
static void json_step_v2(struct fc_json *j, const struct bench_step *s,
			 const struct bench_ratios *q, const struct bench_profile *p)
{
	int i;

	json_num_or_null(j, "p95_ratio", q->p95_ok, q->p95);
	json_num_or_null(j, "nopm", bench_new_order_type(p) >= 0, s->nopm);
	json_num_or_null(j, "nopm_ratio", q->nopm_ok, q->nopm);
	fj_obj(j, "p90_ms_by_type");
	for (i = 0; p && i < p->ntypes; i++)	/* null: no transaction of the type */
		json_num_or_null(j, p->t[i].name, s->c.txn_by_type[i] > 0, s->p90_type_ms[i]);
	fj_end(j);
	json_num_or_null(j, "log_group_avg", s->c.log_writes > 0,
			 bench_log_group_avg(&s->c));
}

static void json_step(struct fc_json *j, const struct bench_step *s,
		      const struct bench_step *b, const struct bench_profile *p)
{
	struct bench_ratios q;

	bench_ratios_of(s, b, &q);
	fj_obj(j, NULL);
	fj_u64(j, "users", s->users);
	fj_dbl(j, "seconds", s->seconds);
	fj_dbl(j, "tps", s->tps);
	fj_dbl(j, "avg_ms", s->avg_ms);
	fj_dbl(j, "p95_ms", s->p95_ms);
	fj_dbl(j, "p99_ms", s->p99_ms);
	fj_dbl(j, "max_ms", s->max_ms);
	json_num_or_null(j, "tps_ratio", q.ok, q.tps);
	json_num_or_null(j, "avg_rt_ratio", q.ok, q.avg);
	json_spread(j, s);
	json_counts(j, "counts", &s->c, p);
	json_step_v2(j, s, &q, p);
	fj_end(j);
}

/* The users under the limit of each round, and the steps of the search. */
static void json_rt_search(struct fc_json *j, const struct bench_result *x, double limit_s)
{
	int i, n = x->rounds > 1 ? x->rounds : 1;

	fj_arr(j, "users_under_rt_limit_rounds");
	for (i = 0; i < n; i++)
		fj_u64(j, NULL, x->rounds ? x->under_round[i] : x->max_users_under_limit);
	fj_end(j);
	fj_arr(j, "rt_search_steps");
	for (i = 0; i < x->nsearch; i++) {
		const struct bench_step *s = &x->search[i];

		fj_obj(j, NULL);
		fj_u64(j, "users", s->users);
		fj_dbl(j, "seconds", s->seconds);
		fj_u64(j, "transactions", s->c.txns);
		fj_dbl(j, "tps", s->tps);
		fj_dbl(j, "avg_ms", s->avg_ms);
		fj_dbl(j, "p95_ms", s->p95_ms);
		fj_bool(j, "under_limit", bench_step_under(s, limit_s * 1000));
		fj_end(j);
	}
	fj_end(j);
}

/* --price: the amount and the price per TPS at the summary's user count, or nulls. */
static void json_price(struct fc_json *j, const struct bench_opts *o,
		       const struct bench_result *x, const struct bench_result *base)
{
	double amount = 0, per = 0, t, a;
	int ok, u = bench_heaviest(base, base, &t, &a, &ok);
	int priced = bench_price_of(o, x, u, &amount, &per);

	json_num_or_null(j, "price", priced, amount);
	json_num_or_null(j, "price_per_tps", priced && per > 0, per);
}

/* A figure of bench_limit.c: the number, or null if it is not there (< 0). */
static void json_fig(struct fc_json *j, const char *key, double v)
{
	json_num_or_null(j, key, v >= 0, v);
}

/* A count, or null if it was not measured. */
static void json_count(struct fc_json *j, const char *key, int ok, uint64_t v)
{
	if (ok)
		fj_u64(j, key, v);
	else
		fj_null(j, key);
}

/* The optimum of one traced run (configs[].origin_io.by_round[].optimum). */
static void json_opt_round(struct fc_json *j, const struct bench_origin *g)
{
	const struct bench_opt *o = &g->opt;

	fj_obj(j, "optimum");
	fj_u64(j, "trace_records", o->records);
	fj_u64(j, "trace_bytes", g->trace_bytes);
	fj_dbl(j, "seconds", g->opt_s);
	fj_u64(j, "flash_bytes", o->cap_pages * BENCH_OPT_PAGE);
	fj_u64(j, "max_io_bytes", (uint64_t)o->max_io_pages * BENCH_OPT_PAGE);
	fj_u64(j, "merge_window_requests", BENCH_OPT_MERGE_WINDOW);
	fj_u64(j, "transactions", o->commits);
	fj_u64(j, "read_pages", o->read_pages);
	json_fig(j, "read_hit_ratio_fill", bench_opt_ratio(o, o->min_hits));
	json_fig(j, "read_hit_ratio_bypass", bench_opt_ratio(o, o->byp_hits));
	json_fig(j, "read_hit_ratio_schedule", bench_opt_ratio(o, o->s_hits));
	json_fig(j, "cache_read_hit_ratio", g->read_hit);
	json_fig(j, "ops_per_txn_bound", bench_opt_per_txn(o, bench_opt_lb(o)));
	json_fig(j, "ops_per_txn_schedule", bench_opt_per_txn(o, bench_opt_sched(o)));
	fj_u64(j, "schedule_read_ops", o->s_read_ops);
	fj_u64(j, "schedule_write_ops", o->s_write_ops);
	fj_u64(j, "schedule_dirty_pages_end", o->s_end_pages);
	json_fig(j, "distance", bench_origin_distance(g));
	fj_end(j);
}

/*
 * configs[].origin_io: the origin's requests a transaction and the offline
 * optimum of the traces (medians of the rounds), and each round's figures;
 * null with neither the origin's counters (run, an origin that is a file)
 * nor a trace.
 */
static void json_origin(struct fc_json *j, const struct bench_result *x)
{
	int k, any = 0, opt = 0;

	for (k = 0; k < x->norig; k++) {
		any |= x->orig_round[k].ok || x->orig_round[k].opt_ok;
		opt |= x->orig_round[k].opt_ok;
	}
	if (!any) {
		fj_null(j, "origin_io");
		return;
	}
	fj_obj(j, "origin_io");
	json_fig(j, "ops_per_txn", bench_limit_median(x, BENCH_LIM_RUN));
	json_fig(j, "backlog_ops_per_txn", bench_limit_median(x, BENCH_LIM_BACKLOG));
	json_fig(j, "member_ops_per_txn", bench_limit_median(x, BENCH_LIM_MEMBERS));
	if (opt) {
		uint64_t flash = 0;

		for (k = 0; k < x->norig && !flash; k++)
			if (x->orig_round[k].opt_ok)
				flash = x->orig_round[k].opt.cap_pages * BENCH_OPT_PAGE;
		fj_obj(j, "optimum");
		fj_u64(j, "flash_bytes", flash);
		json_fig(j, "read_hit_ratio_fill", bench_limit_median(x, BENCH_LIM_FILL));
		json_fig(j, "read_hit_ratio_bypass", bench_limit_median(x, BENCH_LIM_BYPASS));
		json_fig(j, "cache_read_hit_ratio", bench_limit_median(x, BENCH_LIM_HIT));
		json_fig(j, "ops_per_txn_bound", bench_limit_median(x, BENCH_LIM_LB));
		json_fig(j, "ops_per_txn_schedule", bench_limit_median(x, BENCH_LIM_SCHED));
		json_fig(j, "distance", bench_limit_median(x, BENCH_LIM_DISTANCE));
		fj_end(j);
	} else {
		fj_null(j, "optimum");
	}
	fj_arr(j, "by_round");
	for (k = 0; k < x->norig; k++) {
		const struct bench_origin *g = &x->orig_round[k];

		fj_obj(j, NULL);
		fj_u64(j, "transactions", g->txns);
		json_count(j, "reads", g->ok, g->run.reads);
		json_count(j, "writes", g->ok, g->run.writes);
		json_count(j, "backlog_reads", g->backlog_ok, g->backlog.reads);
		json_count(j, "backlog_writes", g->backlog_ok, g->backlog.writes);
		fj_u64(j, "members", g->members);
		json_count(j, "member_reads", g->ok && g->members, g->run_members.reads);
		json_count(j, "member_writes", g->ok && g->members, g->run_members.writes);
		json_fig(j, "ops_per_txn", bench_origin_per_txn(g, BENCH_ORIG_RUN));
		fj_str(j, "trace", g->trace[0] ? g->trace : NULL);
		if (g->opt_ok)
			json_opt_round(j, g);
		else
			fj_null(j, "optimum");
		fj_end(j);
	}
	fj_end(j);
	fj_end(j);
}

static void json_config(struct fc_json *j, const struct bench_opts *o,
			const struct bench_result *x, const struct bench_result *base)
{
	const struct bench_profile *p = base->profile;
	int i;

	fj_obj(j, NULL);
	fj_str(j, "name", x->config);
	fj_str(j, "device", x->device);
	fj_str(j, "interrupted", x->stopped[0] ? x->stopped : NULL);
	fj_u64(j, "buffer_pool_frames", x->bp_frames);
	fj_obj(j, "integrity");
	fj_u64(j, "pages_verified", x->pages_verified);
	fj_u64(j, "errors", x->verify_errors);
	fj_str(j, "error", x->error[0] ? x->error : NULL);
	fj_end(j);
	fj_u64(j, "max_users_under_rt_limit", x->max_users_under_limit);
	fj_u64(j, "rounds", x->rounds > 1 ? x->rounds : 1);
	json_rt_search(j, x, o->rt_limit_s);
	json_price(j, o, x, base);
	json_counters(j, x->counters);
	if (x->backlog_ok) {
		fj_obj(j, "backlog");
		fj_dbl(j, "dirty_mib", x->backlog_mib);
		if (x->backlog_s >= 0)
			fj_dbl(j, "writeback_s", x->backlog_s);
		else
			fj_null(j, "writeback_s");
		fj_end(j);
	} else {
		fj_null(j, "backlog");
	}
	json_origin(j, x);
	fj_dbl(j, "warmup_s", x->warm_s);
	json_counts(j, "warmup", &x->warm, p);
	fj_arr(j, "steps");
	for (i = 0; i < x->nsteps; i++)
		json_step(j, &x->step[i], bench_step_of(base, x->step[i].users), p);
	fj_end(j);
	fj_end(j);
}

/* The ratios to the baseline at every user count of the baseline's ladder. */
static void json_ratios(struct fc_json *j, const struct bench_result *base,
			const struct bench_result *x)
{
	int i;

	fj_arr(j, "ratios");
	for (i = 0; i < base->nsteps; i++) {
		const struct bench_step *b = &base->step[i], *s = bench_step_of(x, b->users);
		struct bench_ratios q;

		if (!s || bench_step_of(base, b->users) != b)	/* none, or a repeated count */
			continue;
		bench_ratios_of(s, b, &q);
		fj_obj(j, NULL);
		fj_u64(j, "users", b->users);
		json_num_or_null(j, "tps_ratio", q.ok, q.tps);
		json_num_or_null(j, "avg_rt_ratio", q.ok, q.avg);
		json_num_or_null(j, "p95_ratio", q.p95_ok, q.p95);
		json_num_or_null(j, "nopm_ratio", q.nopm_ok, q.nopm);
		fj_end(j);
	}
	fj_end(j);
}

static void json_summary(struct fc_json *j, const struct bench_result *r, int nr)
{
	int c;

	fj_arr(j, "summary");
	for (c = 0; c < nr; c++) {
		double t = 0, a = 0, ur = 0;
		int ok, u = bench_heaviest(&r[0], &r[c], &t, &a, &ok);
		int uok = bench_under_ratio(&r[0], &r[c], &ur);

		fj_obj(j, NULL);
		fj_str(j, "config", r[c].config);
		fj_u64(j, "users", u);
		json_num_or_null(j, "tps_ratio", ok, t);
		json_num_or_null(j, "avg_rt_ratio", ok, a);
		fj_u64(j, "rounds", r[c].rounds > 1 ? r[c].rounds : 1);
		fj_u64(j, "users_under_rt_limit", r[c].max_users_under_limit);
		json_num_or_null(j, "users_under_rt_limit_ratio", uok, ur);
		json_ratios(j, &r[0], &r[c]);
		fj_end(j);
	}
	fj_end(j);
}

/*
 * --buffer-pool-sweep: the TPS of every configuration at each size at the
 * sweep's user count, with its ratio to the baseline at that size, where
 * each size's results.json is, and the advice; null without a sweep.
 */
static void json_sweep(struct fc_json *j, const struct bench_sweep *sw)
{
	int k, c, u;
	struct bench_advice a;

	if (!sw) {
		fj_null(j, "sweep");
		return;
	}
	u = bench_sweep_users(sw);
	fj_obj(j, "sweep");
	fj_u64(j, "users", u);
	fj_arr(j, "points");
	for (k = 0; k < sw->n; k++) {
		char sz[32], path[64];
		double bt = 0, t = 0;
		int bok = bench_sweep_tps(sw, k, "baseline", u, &bt);

		bench_sweep_size(sw->mb[k], sz, sizeof(sz));
		snprintf(path, sizeof(path), "bp-%s/results.json", sz);
		fj_obj(j, NULL);
		fj_dbl(j, "buffer_pool_mb", sw->mb[k]);
		fj_dbl(j, "buffer_pool_mb_used", sw->nr[k] ? sw->r[k][0].bp_mb : 0);
		fj_str(j, "results", path);
		fj_arr(j, "configs");
		for (c = 0; c < sw->nr[0]; c++) {
			const char *cfg = sw->r[0][c].config;
			int ok = bench_sweep_tps(sw, k, cfg, u, &t);

			fj_obj(j, NULL);
			fj_str(j, "name", cfg);
			json_num_or_null(j, "tps", ok, t);
			json_num_or_null(j, "tps_ratio", ok && bok, bok ? t / bt : 0);
			fj_end(j);
		}
		fj_end(j);
		fj_end(j);
	}
	fj_end(j);
	bench_sweep_advice(sw, &a);
	fj_obj(j, "advice");
	fj_str(j, "kind", a.kind == BENCH_ADVICE_FLASH ? "fast flash" :
		  a.kind == BENCH_ADVICE_MEMORY ? "more memory" : NULL);
	fj_str(j, "config", a.config);
	json_num_or_null(j, "buffer_pool_mb", a.kind != BENCH_ADVICE_NONE, a.mb);
	json_num_or_null(j, "ratio", a.kind != BENCH_ADVICE_NONE, a.ratio);
	fj_str(j, "text", a.text);
	fj_end(j);
	fj_end(j);
}

int bench_write_json(const char *path, const struct bench_opts *o,
		     const struct bench_result *r, int nr, const char *chart,
		     const char *command)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	return bench_write_json_file(f, path, o, r, nr, chart, command);
}

int bench_write_json_file(FILE *f, const char *path, const struct bench_opts *o,
			  const struct bench_result *r, int nr, const char *chart,
			  const char *command)
{
	int c, rounds = o->rounds > 1 ? o->rounds : 1;
	struct fc_json j;

	fj_init(&j, f);
	fj_obj(&j, NULL);
	fj_schema_version(&j, "fcache.bench", BENCH_SCHEMA_VERSION);
	fj_str(&j, "command", command);
	json_workload(&j, o, &r[0], rounds);
	fj_str(&j, "chart", chart);
	json_run_order(&j, r, nr, rounds);
	fj_arr(&j, "configs");
	for (c = 0; c < nr; c++)
		json_config(&j, o, &r[c], &r[0]);
	fj_end(&j);
	json_summary(&j, r, nr);
	json_sweep(&j, o->sweep);
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

/*
 * A chart's y axis: linear from 0 to the top tick, the ticks nice numbers
 * (1, 2, 2.5 or 5 times a power of ten) chosen to bring the top closest
 * to the data's maximum; or logarithmic (response times spanning more
 * than BENCH_LOG_SPAN times: a cache's line would lie flat on zero), a
 * tick at each power of ten (with 2 and 5 within a single decade).
 */
#define BENCH_LOG_SPAN 20
#define AXIS_MAX_TICKS 16
struct axis {
	int log;
	double lo, hi;			/* the bottom and the top */
	double tick[AXIS_MAX_TICKS];
	int nt;
};

static void axis_linear(struct axis *a, double max)
{
	static const double m[] = { 1, 2, 2.5, 5 };
	double best = 0, step = 1, e, st;
	int k, d, n, i;

	memset(a, 0, sizeof(*a));
	if (!(max > 0))
		max = 1;
	e = floor(log10(max / 8));
	for (d = 0; d < 3; d++)
		for (k = 0; k < 4; k++) {
			st = m[k] * pow(10, e + d);
			n = (int)ceil(max / st - 1e-9);
			if (n < 3 || n > 8)
				continue;
			/* the lowest top, then the fewer ticks */
			if (!best || n * st < best - 1e-9 * best) {
				best = n * st;
				step = st;
			}
		}
	if (!best) {
		step = max / 4;
		best = max;
	}
	a->hi = best;
	n = (int)(best / step + 0.5);
	for (i = 0; i <= n && i < AXIS_MAX_TICKS; i++)
		a->tick[a->nt++] = step * i;
}

static void axis_log(struct axis *a, double min, double max)
{
	int e0, e1, e, k;

	memset(a, 0, sizeof(*a));
	a->log = 1;
	if (min < 0.001)
		min = 0.001;
	e0 = (int)floor(log10(min) + 1e-9);
	e1 = (int)ceil(log10(max) - 1e-9);
	if (e1 <= e0)
		e1 = e0 + 1;
	if (e1 - e0 > AXIS_MAX_TICKS - 1)
		e0 = e1 - (AXIS_MAX_TICKS - 1);
	a->lo = pow(10, e0);
	a->hi = pow(10, e1);
	for (e = e0; e <= e1; e++) {
		a->tick[a->nt++] = pow(10, e);
		/* one decade: 2 and 5 too */
		for (k = 0; e1 - e0 == 1 && e < e1 && k < 2; k++)
			a->tick[a->nt++] = (k ? 5 : 2) * pow(10, e);
	}
}

/* The axis of values from @min to @max (the positive ones: @min > 0), log for a response time spanning > 20x. */
static void axis_of(struct axis *a, double min, double max, int rt)
{
	if (rt && min > 0 && max / min > BENCH_LOG_SPAN)
		axis_log(a, min, max);
	else
		axis_linear(a, max);
}

/* Where @v lies on @a: 0 at the bottom, 1 at the top. */
static double axis_frac(const struct axis *a, double v)
{
	if (a->log) {
		if (v <= a->lo)
			return 0;
		return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	}
	return a->hi > 0 ? v / a->hi : 0;
}

/* A tick label with no exponent: 0.005, 0.25, 750, 2500, 40k, 12.5k, 1.5M. */
static void tick_label(char *buf, size_t len, double v)
{
	size_t n;

	if (v >= 1e6) {
		snprintf(buf, len, "%.4gM", v / 1e6);
	} else if (v >= 1e4) {
		snprintf(buf, len, "%.4gk", v / 1e3);
	} else if (v >= 1 || v <= 0) {
		snprintf(buf, len, "%.4g", v);
	} else {
		/* 0.001 .. 0.75: the digits it needs, no trailing zeros */
		snprintf(buf, len, "%.3f", v);
		n = strlen(buf);
		while (n > 1 && buf[n - 1] == '0')
			buf[--n] = 0;
	}
}

/* A plot's frame at (@ml, @mt), @pw x @ph, with a labelled grid line at each tick of @a. */
static void svg_frame(FILE *f, int ml, int mt, int pw, int ph, const struct axis *a)
{
	char lab[32];
	int i;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\"/>\n",
		ml, mt, pw, ph);
	for (i = 0; i < a->nt; i++) {
		double y = mt + ph - ph * axis_frac(a, a->tick[i]);

		tick_label(lab, sizeof(lab), a->tick[i]);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			ml, y, ml + pw, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
			ml - 4, y + 4, lab);
	}
}

/* The y of @v in a panel whose plot starts at @mt, @ph high. */
static double svg_y(const struct axis *a, int mt, int ph, double v)
{
	return mt + ph - ph * axis_frac(a, v);
}

static void svg_panel(FILE *f, const struct bench_result *r, int nr, int x0,
		      const char *title, int rt)
{
	const int w = 420, h = 300, ml = 64, mt = 40, pw = w - ml - 20, ph = h - mt - 50;
	const struct bench_result *base = &r[0];
	int n = base->nsteps, c, i;
	double ymax = 0, ymin = 0;
	struct axis ax;

	for (c = 0; c < nr; c++)
		for (i = 0; i < r[c].nsteps; i++) {
			const struct bench_step *s = &r[c].step[i];
			double v = rt ? s->avg_ms : s->tps, lo = v;

			if (s->nrounds > 1) {
				v = rt ? s->avg_sp.max : s->tps_sp.max;
				lo = rt ? s->avg_sp.min : s->tps_sp.min;
			}
			if (v > ymax)
				ymax = v;
			if (lo > 0 && (!ymin || lo < ymin))
				ymin = lo;
		}
	axis_of(&ax, ymin, ymax, rt);
	fprintf(f, "<g transform=\"translate(%d,0)\">\n", x0);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">%s</text>\n",
		ml + pw / 2, title);
	svg_frame(f, ml, mt, pw, ph, &ax);
	for (i = 0; i < n; i++) {
		int x = ml + (n > 1 ? pw * i / (n - 1) : pw / 2);

		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>\n",
			x, mt + ph + 16, base->step[i].users);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">users</text>\n",
		ml + pw / 2, mt + ph + 34);
	fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %d)\">%s</text>\n", mt + ph / 2,
		mt + ph / 2, rt ? (ax.log ? "avg response time (ms, log scale)" :
				   "avg response time (ms)") : "transactions/s");
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
			const struct bench_step *s = bench_step_of(&r[c], base->step[i].users);

			if (!s)
				continue;
			px[np] = ml + (n > 1 ? pw * i / (n - 1) : pw / 2);
			py[np] = svg_y(&ax, mt, ph, rt ? s->avg_ms : s->tps);
			if (s->nrounds > 1) {
				const struct bench_spread *sp = rt ? &s->avg_sp : &s->tps_sp;

				fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
					"stroke=\"%s\" stroke-width=\"1\"/>\n", px[np],
					svg_y(&ax, mt, ph, sp->min), px[np],
					svg_y(&ax, mt, ph, sp->max), col);
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

/*
 * The buffer pool sweep as a chart: TPS at the sweep's user count against
 * the buffer pool size (one point per size, evenly spaced), a line per
 * configuration, the advice as the caption.
 */
int bench_write_sweep_svg(const char *path, const struct bench_sweep *sw)
{
	const int W = 620, ml = 70, mt = 50, pw = 500, ph = 260;
	int users = bench_sweep_users(sw), n = sw->n, nc = n ? sw->nr[0] : 0;
	struct bench_advice a;
	struct axis ax;
	double ymax = 0, t;
	int c, k, H = mt + ph + 70 + 20 * nc;
	FILE *f;
	char sz[32];

	for (k = 0; k < n; k++)
		for (c = 0; c < nc; c++)
			if (bench_sweep_tps(sw, k, sw->r[0][c].config, users, &t) && t > ymax)
				ymax = t;
	axis_linear(&ax, ymax);
	bench_sweep_advice(sw, &a);
	f = fopen(path, "w");
	if (!f) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<title>fcachectl bench: TPS at %d users versus buffer pool size</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", W, H, W, H, users);
	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">"
		"More memory or fast flash? TPS at %d users versus buffer pool</text>\n",
		ml + pw / 2, users);
	svg_frame(f, ml, mt, pw, ph, &ax);
	for (k = 0; k < n; k++) {
		bench_sweep_size(sw->mb[k], sz, sizeof(sz));
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
			ml + (n > 1 ? pw * k / (n - 1) : pw / 2), mt + ph + 16, sz);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">buffer pool</text>\n",
		ml + pw / 2, mt + ph + 34);
	fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %d)\">transactions/s</text>\n", mt + ph / 2, mt + ph / 2);
	for (c = 0; c < nc; c++) {
		const char *cfg = sw->r[0][c].config, *col = colors[c % 6];
		int y = mt + ph + 56 + 20 * c;

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (k = 0; k < n; k++)
			if (bench_sweep_tps(sw, k, cfg, users, &t))
				fprintf(f, "%d,%.1f ", ml + (n > 1 ? pw * k / (n - 1) : pw / 2),
					svg_y(&ax, mt, ph, t));
		fprintf(f, "\"/>\n");
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			ml, y, ml + 30, y, col);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", ml + 38, y + 4, cfg);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">", 10, H - 8);
	for (const char *p = a.text; *p; p++)
		if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '&')
			fputs("&amp;", f);
		else
			fputc(*p, f);
	fprintf(f, "</text>\n</svg>\n");
	if (fclose(f)) {
		fc_err(path, "%s", strerror(errno));
		return -1;
	}
	return 0;
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
	if (bench_max_rounds(r, nr) > 1)
		fprintf(f, ", medians of %d rounds, bars from the smallest to the largest round",
			bench_max_rounds(r, nr));
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
