/*
 * Unit tests of userspace/bench/bench_model.c: the think-time sampler and
 * the keying / think times of the terminal model of `fcachectl bench`,
 * and the search of the largest user count under --rt-limit.
 */
#include <math.h>
#include <string.h>

#include "userspace/bench/bench_int.h"
#include "unit.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static uint64_t lcg = 12345;

static double uniform(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (lcg >> 11) * (1.0 / 9007199254740992.0);
}

static void test_sampler(void)
{
	double sum = 0, max = 0, x;
	int i, n = 200000, bad = 0;

	for (i = 0; i < n; i++) {
		x = bench_exp_sample(2.0, uniform());
		if (!(x >= 0) || x > 20.0)
			bad = 1;
		sum += x;
		if (x > max)
			max = x;
	}
	CHECK("think time: never negative nor above 10 means", !bad);
	/* the cap at 10 means takes e^-10 * 10 of the mean: 0.05% */
	CHECK("think time: mean of the exponential (2 s, +-2%)", near(sum / n, 2.0, 0.04));
	CHECK("think time: the tail is drawn (max above 5 means)", max > 10.0);
	CHECK("think time: median is ln 2 times the mean",
	      near(bench_exp_sample(2.0, 0.5), 2.0 * log(2), 1e-12));
	CHECK("think time: u 0 gives 0", bench_exp_sample(2.0, 0) == 0);
	CHECK("think time: capped at 10 means",
	      bench_exp_sample(2.0, 1 - 1e-15) == 20.0);
	CHECK("think time: mean 0, negative or NaN gives 0",
	      bench_exp_sample(0, 0.7) == 0 && bench_exp_sample(-1, 0.7) == 0 &&
	      bench_exp_sample(NAN, 0.7) == 0);
	CHECK("think time: u out of [0, 1) gives 0",
	      bench_exp_sample(1, 1) == 0 && bench_exp_sample(1, -0.1) == 0 &&
	      bench_exp_sample(1, NAN) == 0);
}

static const struct bench_profile tpcc = {
	"tpcc-like", "synthetic", 2, {
		{ "new_order", 50, 1, 0, 0, 0, 18, 12 },
		{ "payment", 50, 1, 0, 0, 0, 3, 12 },
	},
};
static const struct bench_profile sysb = {
	"read-only", "synthetic", 1, { { "oltp_read_only", 100, 1, 0, 0, 0, 0, 0 } },
};

static void test_times(void)
{
	struct bench_opts o;

	memset(&o, 0, sizeof(o));
	CHECK("times: closed loop by default",
	      !bench_terminal_model(&o, &tpcc) && !bench_terminal_model(&o, &sysb));
	o.think_s = o.keying_s = BENCH_TIME_PROFILE;
	CHECK("times: tpcc gives each type its own",
	      bench_think_mean(&o, &tpcc.t[0]) == 12 && bench_keying(&o, &tpcc.t[0]) == 18 &&
	      bench_keying(&o, &tpcc.t[1]) == 3 && bench_terminal_model(&o, &tpcc));
	CHECK("times: a profile without times has none to give",
	      bench_profile_has_times(&tpcc) && !bench_profile_has_times(&sysb) &&
	      !bench_terminal_model(&o, &sysb));
	o.think_s = 0.5;
	o.keying_s = 0;
	CHECK("times: seconds override the profile's",
	      bench_think_mean(&o, &tpcc.t[0]) == 0.5 && bench_keying(&o, &tpcc.t[1]) == 0 &&
	      bench_terminal_model(&o, &sysb));
	CHECK("times: NOPM counts the new_order type",
	      bench_new_order_type(&tpcc) == 0 && bench_new_order_type(&sysb) == -1);
}

/* A ladder step of @users with @avg ms (0 transactions if @avg < 0). */
static struct bench_step mk(int users, double avg)
{
	struct bench_step s;

	memset(&s, 0, sizeof(s));
	s.users = users;
	s.avg_ms = avg < 0 ? 0 : avg;
	s.c.txns = avg < 0 ? 0 : 100;
	return s;
}

/*
 * Run the search against a system whose average response time is
 * @ms_per_user * users: the answer must be the largest count under 2000 ms
 * when the bound allows, and never one measured over the limit.
 */
static int search(const struct bench_step *ladder, int n, int max, double ms_per_user,
		  int *steps)
{
	struct bench_rt_search s;
	int u;

	bench_rt_search_init(&s, ladder, n, 2000, max);
	while ((u = bench_rt_search_next(&s))) {
		struct bench_step st = mk(u, ms_per_user * u);

		bench_rt_search_done(&s, &st);
	}
	*steps = s.steps;
	return s.lo;
}

static void test_search(void)
{
	struct bench_step l[5];
	struct bench_rt_search s;
	int steps, i, ok = 1;

	/* 31.25 ms per user: 63 users give 1968.75 ms, 64 give 2000 (not under) */
	for (i = 0; i < 5; i++)
		l[i] = mk(8 << i, 31.25 * (8 << i));
	CHECK("search: between the ladder's 32 and 64, exact with enough steps",
	      search(l, 5, 8, 31.25, &steps) == 63 && steps == 5);
	CHECK("search: bounded number of extra steps",
	      search(l, 5, 3, 31.25, &steps) == 60 && steps == 3);
	CHECK("search: no extra step allowed gives the ladder's answer",
	      search(l, 5, 0, 31.25, &steps) == 32 && steps == 0);
	/* all under the limit: nothing to search */
	for (i = 0; i < 5; i++)
		l[i] = mk(8 << i, 1.0 * (8 << i));
	CHECK("search: all under: the largest count, no step",
	      search(l, 5, 8, 1, &steps) == 128 && steps == 0);
	/* all over: search between 0 and the smallest count */
	for (i = 0; i < 5; i++)
		l[i] = mk(8 << i, 400.0 * (8 << i));
	CHECK("search: all over: below the smallest count",
	      search(l, 5, 8, 400, &steps) == 4 && steps == 3);
	for (i = 0; i < 5; i++)
		l[i] = mk(8 << i, 31.25 * (8 << i));
	bench_rt_search_init(&s, l, 5, 2000, 8);
	CHECK("search: the first extra step halves the gap",
	      s.lo == 32 && s.hi == 64 && bench_rt_search_next(&s) == 48);
	/* a step without transactions is not under the limit */
	l[0] = mk(8, -1);
	l[1] = mk(16, 10);
	bench_rt_search_init(&s, l, 2, 2000, 8);
	CHECK("search: a step without transactions is over the limit",
	      s.lo == 16 && s.hi == 0 && !bench_rt_search_next(&s));
	bench_rt_search_init(&s, l, 1, 2000, 8);
	CHECK("search: only a step without transactions",
	      s.lo == 0 && s.hi == 8 && bench_rt_search_next(&s) == 4);
	/* gaps of one user: nothing between them */
	l[0] = mk(8, 100);
	l[1] = mk(9, 3000);
	bench_rt_search_init(&s, l, 2, 2000, 8);
	CHECK("search: adjacent counts, no step", s.lo == 8 && !bench_rt_search_next(&s));
	/* never an answer measured over the limit, whatever the slope */
	for (i = 1; i < 200 && ok; i++) {
		int j, r;

		for (j = 0; j < 5; j++)
			l[j] = mk(8 << j, i * (8 << j));
		r = search(l, 5, 8, i, &steps);
		ok = steps <= 8 && (r == 0 || i * r < 2000) && (r == 128 || i * (r + 1) >= 2000 ||
								steps == 8);
	}
	CHECK("search: answers under the limit, the next count over it", ok);
}

int main(void)
{
	test_sampler();
	test_times();
	test_search();
	return unit_failed;
}
