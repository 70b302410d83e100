// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal model of `fcachectl bench` (keying and think times of each
 * user) and the search of the largest user count whose average response
 * time stays under --rt-limit.
 *
 * Pure functions: no I/O, no global state; tests/unit/test_bench_model.c
 * tests them on the host.
 */
#include <math.h>
#include <string.h>

#include "bench_int.h"

double bench_exp_sample(double mean, double u)
{
	double x;

	if (!(mean > 0) || !(u >= 0) || u >= 1)
		return 0;
	x = -mean * log1p(-u);	/* 1 - u in (0, 1]: finite, >= 0 */
	return x < BENCH_THINK_CAP * mean ? x : BENCH_THINK_CAP * mean;
}

double bench_think_mean(const struct bench_opts *o, const struct bench_txn_type *t)
{
	return o->think_s == BENCH_TIME_PROFILE ? t->think_s : o->think_s;
}

double bench_keying(const struct bench_opts *o, const struct bench_txn_type *t)
{
	return o->keying_s == BENCH_TIME_PROFILE ? t->keying_s : o->keying_s;
}

int bench_terminal_model(const struct bench_opts *o, const struct bench_profile *p)
{
	int i;

	for (i = 0; p && i < p->ntypes; i++)
		if (bench_think_mean(o, &p->t[i]) > 0 || bench_keying(o, &p->t[i]) > 0)
			return 1;
	return 0;
}

int bench_profile_has_times(const struct bench_profile *p)
{
	int i;

	for (i = 0; p && i < p->ntypes; i++)
		if (p->t[i].think_s > 0 || p->t[i].keying_s > 0)
			return 1;
	return 0;
}

int bench_new_order_type(const struct bench_profile *p)
{
	int i;

	for (i = 0; p && i < p->ntypes; i++)
		if (!strcmp(p->t[i].name, "new_order"))
			return i;
	return -1;
}

/* ------------------------------------------- users under the limit */

int bench_step_under(const struct bench_step *s, double limit_ms)
{
	return s->c.txns > 0 && s->avg_ms < limit_ms;
}

/*
 * lo: the largest user count of the ladder under the limit (0: none);
 * hi: the smallest user count above lo that is not (0: none, nothing to
 * search).
 */
void bench_rt_search_init(struct bench_rt_search *s, const struct bench_step *st, int n,
			  double limit_ms, int max_steps)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->limit_ms = limit_ms;
	s->left = max_steps;
	for (i = 0; i < n; i++)
		if (bench_step_under(&st[i], limit_ms) && st[i].users > s->lo)
			s->lo = st[i].users;
	for (i = 0; i < n; i++)
		if (!bench_step_under(&st[i], limit_ms) && st[i].users > s->lo &&
		    (!s->hi || st[i].users < s->hi))
			s->hi = st[i].users;
}

int bench_rt_search_next(const struct bench_rt_search *s)
{
	if (!s->hi || s->left <= 0 || s->hi - s->lo <= 1)
		return 0;
	return s->lo + (s->hi - s->lo) / 2;
}

void bench_rt_search_done(struct bench_rt_search *s, const struct bench_step *st)
{
	s->left--;
	s->steps++;
	if (bench_step_under(st, s->limit_ms))
		s->lo = st->users;
	else
		s->hi = st->users;
}
