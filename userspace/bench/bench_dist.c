// SPDX-License-Identifier: GPL-2.0
/*
 * What the users of `fcachectl bench` do: the profiles (transaction mixes:
 * how many page reads, updates and range scans each transaction type
 * makes) and the access distributions (--dist: zipf, pareto, hotset,
 * uniform) that pick the pages, by popularity rank, then scattered over the
 * datafile by a fixed permutation so the hot pages are not neighbours.
 * The random numbers are splitmix64, seeded per user from --seed.
 */
#include <math.h>
#include <string.h>

#include "bench_engine.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rnd01(uint64_t *s)
{
	return (splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

double bench_rnd01(uint64_t *s)
{
	return rnd01(s);
}

/* ------------------------------------------------------------- profiles */

static const struct bench_profile profiles[] = {
	/*
	 * Not TPC-C: page counts in TPC-C's mix.  Keying and think times
	 * (--terminals) are TPC-C's minimum keying times and mean think times
	 * per transaction type (TPC-C 5.2.5.7).
	 */
	{ "tpcc-like", "TPC-C-like page-count mix, not TPC-C (new-order 45%, "
	  "payment 43%, order-status, delivery, stock-level 4% each), page "
	  "read:write ~1.9:1",
	  5, {
		{ "new_order", 45, 11, 6, 0, 0, 18, 12 },
		{ "payment", 43, 4, 3, 0, 0, 3, 12 },
		{ "order_status", 4, 3, 0, 1, 3, 2, 10 },
		{ "delivery", 4, 10, 6, 0, 0, 2, 5 },
		{ "stock_level", 4, 2, 0, 2, 9, 2, 5 },
	} },
	{ "read-write", "sysbench oltp_read_write-like: 10 point selects, "
	  "4 range selects, 2 updates, 1 delete, 1 insert",
	  1, { { "oltp_read_write", 100, 14, 4, 4, 2, 0, 0 } } },
	{ "read-only", "sysbench oltp_read_only-like: 10 point selects, "
	  "4 range selects", 1, { { "oltp_read_only", 100, 10, 0, 4, 2, 0, 0 } } },
};

const struct bench_profile *bench_profile_find(const char *name)
{
	size_t i;

	if (!strcmp(name, BENCH_PROFILE_ALIAS))	/* the old name of tpcc-like */
		name = profiles[0].name;
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

/* ---------------------------------------------------------- distribution */

/* Page for a skewed draw: rank 0 is the hottest; scattered over the file. */
static uint64_t draw_rank(struct engine *e, uint64_t *rng)
{
	uint64_t n = e->h.npages, r;
	double u = rnd01(rng);

	switch (e->o->dist) {
	case DIST_ZIPF: {
		double uz = u * e->zeta_n;

		if (uz < 1.0)
			r = 0;
		else if (uz < 1.0 + pow(0.5, e->o->dist_a))
			r = 1;
		else
			r = (uint64_t)(n * pow(e->z_eta * u - e->z_eta + 1, e->z_alpha));
		break;
	}
	case DIST_PARETO:
		r = (uint64_t)(n * pow(u, e->par_k));
		break;
	case DIST_HOTSET: {
		uint64_t hot = (uint64_t)(n * e->o->dist_b / 100.0);

		if (hot < 1)
			hot = 1;
		if (rnd01(rng) * 100.0 < e->o->dist_a)
			r = (uint64_t)(u * hot);
		else
			r = hot + (uint64_t)(u * (n - hot));
		break;
	}
	default:
		r = (uint64_t)(u * n);
	}
	return r >= n ? n - 1 : r;
}

uint64_t bench_rank_page(struct engine *e, uint64_t rank)
{
	return (rank * e->perm_a + e->perm_b) % e->h.npages;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* a^-1 mod n for gcd(a, n) == 1 (extended Euclid); n < 2^62, pages */
static uint64_t inv_mod(uint64_t a, uint64_t n)
{
	int64_t t = 0, nt = 1, r = (int64_t)n, nr = (int64_t)(a % n);

	if (n == 1)
		return 0;
	while (nr) {
		int64_t q = r / nr, x;

		x = t - q * nt;
		t = nt;
		nt = x;
		x = r - q * nr;
		r = nr;
		nr = x;
	}
	return t < 0 ? (uint64_t)(t + (int64_t)n) : (uint64_t)t;
}

/* Is @pg one of the hottest 10% of pages (rank < hot_n)? bench_rank_page^-1 */
int bench_page_hot(const struct engine *e, uint64_t pg)
{
	uint64_t n = e->h.npages, d = (pg % n + n - e->perm_b % n) % n;

	return (uint64_t)((unsigned __int128)d * e->perm_inv % n) < e->hot_n;
}

void bench_dist_init(struct engine *e)
{
	uint64_t n = e->h.npages, i, lim = n < (1u << 22) ? n : (1u << 22);
	double th = e->o->dist_a, z = 0;

	if (e->o->dist == DIST_ZIPF) {
		for (i = 1; i <= lim; i++)
			z += pow((double)i, -th);
		if (n > lim)	/* integral approximation of the tail */
			z += (pow((double)n, 1 - th) - pow((double)lim, 1 - th)) / (1 - th);
		e->zeta_n = z;
		e->zeta2 = 1 + pow(0.5, th);
		e->z_alpha = 1.0 / (1.0 - th);
		e->z_eta = (1 - pow(2.0 / n, 1 - th)) / (1 - e->zeta2 / e->zeta_n);
	}
	if (e->o->dist == DIST_PARETO)
		e->par_k = log(e->o->dist_a) / log(1 - e->o->dist_a);
	e->hot_n = n / 10 ? n / 10 : 1;
	e->perm_a = 2654435761ull % n;
	if (!e->perm_a)
		e->perm_a = 1;
	while (gcd(e->perm_a, n) != 1)
		e->perm_a++;
	e->perm_b = (e->o->seed * 7919) % n;
	e->perm_inv = inv_mod(e->perm_a, n);
}

void bench_txn_draw(struct engine *e, struct user *u)
{
	const struct bench_profile *p = e->p;
	unsigned pick = splitmix(&u->rng) % 100, acc = 0;
	const struct bench_txn_type *t;
	unsigned i, k;
	int ty;

	for (ty = 0; ty < p->ntypes - 1; ty++) {
		acc += p->t[ty].pct;
		if (pick < acc)
			break;
	}
	t = &p->t[ty];
	u->type = ty;
	u->nacc = 0;
	for (i = 0; i < t->reads && u->nacc < MAX_ACC; i++) {
		uint64_t rank = draw_rank(e, &u->rng), pg = bench_rank_page(e, rank);

		if (e->force_page >= 0 && i == 0) {
			pg = e->force_page;
			e->force_page = -1;
		}
		if (rank < e->hot_n)
			e->cur->hot_accesses++;
		u->acc[u->nacc++] = pg | (i < t->updates ? 1ull << 63 : 0);
	}
	for (i = 0; i < t->ranges; i++) {
		uint64_t rank = draw_rank(e, &u->rng), pg = bench_rank_page(e, rank);

		if (rank < e->hot_n)
			e->cur->hot_accesses += t->range_len;
		for (k = 0; k < t->range_len && u->nacc < MAX_ACC; k++)
			u->acc[u->nacc++] = (pg + k) % e->h.npages;
	}
}
