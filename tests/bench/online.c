// SPDX-License-Identifier: GPL-2.0
/*
 * online: the read hit ratio that classic online replacement policies
 * reach on a block trace of `fcachectl bench`, beside Belady's MIN of the
 * same trace and flash (userspace/bench/bench_opt.c).  MIN knows the
 * future; no cache does.  The distance between MIN and the best of these
 * policies is the part of the offline optimum's distance that an online
 * cache cannot be expected to close (docs/PERFORMANCE.md, "The offline
 * optimum").
 *
 * The model is MIN's (bench_opt.c): the flash holds flash / 4 KiB pages;
 * a read request's pages that are not cached are read from the origin and
 * cached (fill on miss); a write caches its pages at no cost; flushes and
 * FUA cost nothing; dirty data is not distinguished (MIN does not either).
 * A read request with any page missing is one origin read.  The policies:
 *   LRU    least recently used
 *   CLOCK  second chance, one reference bit
 *   2Q     Johnson and Shasha (VLDB 1994), full version: a FIFO of pages
 *          seen once (Kin 25%), a ghost FIFO of pages evicted from it
 *          (Kout 50%), and an LRU of pages seen again
 *   ARC    Megiddo and Modha (FAST 2003): recency and frequency lists and
 *          their ghosts, the split between them adapted on ghost hits
 * Each written from the papers' descriptions.
 *
 *   make -C tests/bench online
 *   tests/bench/online [--flash-size MB] TRACE
 *   tests/bench/online --self-test
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/bench/bench_opt.h"

#define NIL		UINT32_MAX

/* ------------------------------------------------------ linked lists */

/* Doubly linked lists over page ids; a page is on one list at a time. */
struct lists {
	uint32_t *prev, *next;
	uint8_t *on;		/* the list a page is on, 0: none */
};

struct dl {
	uint32_t head, tail;	/* head: most recent */
	uint64_t n;
	uint8_t tag;
};

static void dl_init(struct dl *l, uint8_t tag)
{
	l->head = l->tail = NIL;
	l->n = 0;
	l->tag = tag;
}

static void dl_push(struct lists *s, struct dl *l, uint32_t p)
{
	s->prev[p] = NIL;
	s->next[p] = l->head;
	if (l->head != NIL)
		s->prev[l->head] = p;
	else
		l->tail = p;
	l->head = p;
	s->on[p] = l->tag;
	l->n++;
}

static void dl_del(struct lists *s, struct dl *l, uint32_t p)
{
	if (s->prev[p] != NIL)
		s->next[s->prev[p]] = s->next[p];
	else
		l->head = s->next[p];
	if (s->next[p] != NIL)
		s->prev[s->next[p]] = s->prev[p];
	else
		l->tail = s->prev[p];
	s->on[p] = 0;
	l->n--;
}

/* Page @p, on @from, to the head of @to (the same list: made most recent). */
static void dl_move(struct lists *s, struct dl *from, struct dl *to, uint32_t p)
{
	dl_del(s, from, p);
	dl_push(s, to, p);
}

/* The least recent page of @l, taken off it. */
static uint32_t dl_pop(struct lists *s, struct dl *l)
{
	uint32_t p = l->tail;

	if (p != NIL)
		dl_del(s, l, p);
	return p;
}

/* ------------------------------------------------------------ policies */

enum { P_LRU, P_CLOCK, P_2Q, P_ARC, NR_POLICIES };
static const char *const policy_name[NR_POLICIES] = { "LRU", "CLOCK", "2Q", "ARC" };

struct cache {
	int policy;
	uint64_t cap;
	struct lists s;
	struct dl a, b, ga, gb;	/* LRU: a; 2Q: a = A1in, ga = A1out, b = Am; ARC: T1, T2, B1, B2 */
	/* CLOCK */
	uint32_t *ring, hand;
	uint64_t used;
	uint8_t *ref;
	uint32_t *slot;		/* CLOCK: the page's ring slot, NIL: not cached */
	double p;		/* ARC: the target size of T1 */
};

enum { T_A = 1, T_B, T_GA, T_GB };

static int cache_init(struct cache *c, int policy, uint64_t cap, uint32_t npages)
{
	memset(c, 0, sizeof(*c));
	c->policy = policy;
	c->cap = cap;
	c->s.prev = malloc(npages * sizeof(uint32_t));
	c->s.next = malloc(npages * sizeof(uint32_t));
	c->s.on = calloc(npages, 1);
	c->ring = malloc(cap * sizeof(uint32_t));
	c->ref = calloc(npages, 1);
	c->slot = malloc(npages * sizeof(uint32_t));
	if (!c->s.prev || !c->s.next || !c->s.on || !c->ring || !c->ref || !c->slot)
		return -1;
	memset(c->slot, 0xff, npages * sizeof(uint32_t));
	dl_init(&c->a, T_A);
	dl_init(&c->b, T_B);
	dl_init(&c->ga, T_GA);
	dl_init(&c->gb, T_GB);
	return 0;
}

static void cache_free(struct cache *c)
{
	free(c->s.prev);
	free(c->s.next);
	free(c->s.on);
	free(c->ring);
	free(c->ref);
	free(c->slot);
}

static int lru_access(struct cache *c, uint32_t x)
{
	int hit = c->s.on[x] == T_A;

	if (hit)
		dl_del(&c->s, &c->a, x);
	else if (c->a.n == c->cap)
		dl_pop(&c->s, &c->a);
	dl_push(&c->s, &c->a, x);
	return hit;
}

static int clock_access(struct cache *c, uint32_t x)
{
	if (c->slot[x] != NIL) {
		c->ref[x] = 1;
		return 1;
	}
	if (c->used < c->cap) {
		c->slot[x] = c->used;
		c->ring[c->used++] = x;
		return 0;
	}
	for (;;) {
		uint32_t v = c->ring[c->hand];

		if (!c->ref[v])
			break;
		c->ref[v] = 0;
		c->hand = (c->hand + 1) % c->cap;
	}
	c->slot[c->ring[c->hand]] = NIL;
	c->ring[c->hand] = x;
	c->slot[x] = c->hand;
	c->ref[x] = 0;
	c->hand = (c->hand + 1) % c->cap;
	return 0;
}

/* 2Q: Kin a quarter of the cache, Kout ghosts for half of it (the paper's). */
static int twoq_access(struct cache *c, uint32_t x)
{
	uint64_t kin = c->cap / 4 ? c->cap / 4 : 1, kout = c->cap / 2 ? c->cap / 2 : 1;

	switch (c->s.on[x]) {
	case T_B:
		dl_move(&c->s, &c->b, &c->b, x);
		return 1;
	case T_A:
		return 1;	/* a second touch inside A1in is a correlated one */
	}
	/* a miss: make room */
	if (c->a.n + c->b.n >= c->cap) {
		if (c->a.n > kin || !c->b.n) {
			uint32_t y = dl_pop(&c->s, &c->a);

			dl_push(&c->s, &c->ga, y);
			if (c->ga.n > kout)
				dl_pop(&c->s, &c->ga);
		} else {
			dl_pop(&c->s, &c->b);
		}
	}
	if (c->s.on[x] == T_GA) {
		dl_move(&c->s, &c->ga, &c->b, x);
	} else {
		dl_push(&c->s, &c->a, x);
	}
	return 0;
}

/* ARC's REPLACE: a page of T1 or T2 to its ghost list. */
static void arc_replace(struct cache *c, int in_b2)
{
	if (c->a.n && (c->a.n > c->p || (in_b2 && c->a.n == (uint64_t)c->p)))
		dl_push(&c->s, &c->ga, dl_pop(&c->s, &c->a));
	else if (c->b.n)
		dl_push(&c->s, &c->gb, dl_pop(&c->s, &c->b));
	else
		dl_push(&c->s, &c->ga, dl_pop(&c->s, &c->a));
}

static int arc_access(struct cache *c, uint32_t x)
{
	double d;

	switch (c->s.on[x]) {
	case T_A:
		dl_move(&c->s, &c->a, &c->b, x);
		return 1;
	case T_B:
		dl_move(&c->s, &c->b, &c->b, x);
		return 1;
	case T_GA:
		d = c->ga.n >= c->gb.n ? 1 : (double)c->gb.n / c->ga.n;
		c->p = c->p + d < c->cap ? c->p + d : c->cap;
		arc_replace(c, 0);
		dl_move(&c->s, &c->ga, &c->b, x);
		return 0;
	case T_GB:
		d = c->gb.n >= c->ga.n ? 1 : (double)c->ga.n / c->gb.n;
		c->p = c->p > d ? c->p - d : 0;
		arc_replace(c, 1);
		dl_move(&c->s, &c->gb, &c->b, x);
		return 0;
	}
	/* in no list */
	if (c->a.n + c->ga.n == c->cap) {
		if (c->a.n < c->cap) {
			dl_pop(&c->s, &c->ga);
			arc_replace(c, 0);
		} else {
			dl_pop(&c->s, &c->a);
		}
	} else if (c->a.n + c->ga.n < c->cap &&
		   c->a.n + c->b.n + c->ga.n + c->gb.n >= c->cap) {
		if (c->a.n + c->b.n + c->ga.n + c->gb.n == 2 * c->cap)
			dl_pop(&c->s, &c->gb);
		arc_replace(c, 0);
	}
	dl_push(&c->s, &c->a, x);
	return 0;
}

/* Access page @x: 1 if it was cached.  Afterwards it is. */
static int cache_access(struct cache *c, uint32_t x)
{
	switch (c->policy) {
	case P_LRU:
		return lru_access(c, x);
	case P_CLOCK:
		return clock_access(c, x);
	case P_2Q:
		return twoq_access(c, x);
	default:
		return arc_access(c, x);
	}
}

/* ------------------------------------------------------------ a run */

struct result {
	uint64_t read_pages, hits, read_reqs, miss_reqs;
};

/* Pages are indexed by their number: the trace covers one device. */
static int run(int policy, uint64_t cap, const struct bench_trace_rec *rec, size_t n,
	       uint32_t npages, struct result *res)
{
	struct cache c;
	size_t i;

	memset(res, 0, sizeof(*res));
	if (cache_init(&c, policy, cap, npages)) {
		cache_free(&c);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct bench_trace_rec *r = &rec[i];
		int rd = r->op == BENCH_TR_READ, missed = 0;
		uint64_t pg, last;

		if (!r->len || (!rd && r->op != BENCH_TR_WRITE && r->op != BENCH_TR_SYNC))
			continue;
		last = (r->off + r->len - 1) / BENCH_OPT_PAGE;
		for (pg = r->off / BENCH_OPT_PAGE; pg <= last && pg < npages; pg++) {
			int hit = cache_access(&c, pg);

			if (rd) {
				res->read_pages++;
				res->hits += hit;
				missed |= !hit;
			}
		}
		if (rd) {
			res->read_reqs++;
			res->miss_reqs += missed;
		}
	}
	cache_free(&c);
	return 0;
}

/* ---------------------------------------------------------- self-test */

static struct bench_trace_rec rd(uint64_t page)
{
	struct bench_trace_rec r = { .off = page * BENCH_OPT_PAGE, .len = BENCH_OPT_PAGE,
				     .op = BENCH_TR_READ };
	return r;
}

static int expect(const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return 0;
	fprintf(stderr, "self-test: %s: %llu hits, %llu expected\n", what,
		(unsigned long long)got, (unsigned long long)want);
	return 1;
}

/*
 * Known answers: a loop over the cache's size hits on every pass after
 * the first for every policy; a loop one page larger never hits in LRU
 * and CLOCK; a scan of pages seen once does not push a page read twice
 * out of 2Q or ARC, as it does out of LRU.
 */
static int self_test(void)
{
	enum { CAP = 64, PASSES = 10 };
	struct bench_trace_rec t[(CAP + 1) * PASSES + 1024];
	struct result r;
	char what[64];
	int p, bad = 0;
	size_t n, i;

	for (p = 0; p < NR_POLICIES; p++) {
		for (n = 0, i = 0; i < (size_t)CAP * PASSES; i++)
			t[n++] = rd(i % CAP);
		if (run(p, CAP, t, n, 4096, &r))
			return 1;
		snprintf(what, sizeof(what), "%s, a loop of the cache's size", policy_name[p]);
		bad += expect(what, r.hits, (uint64_t)CAP * (PASSES - 1));
		bad += expect("read pages", r.read_pages, n);
	}
	for (p = P_LRU; p <= P_CLOCK; p++) {
		for (n = 0, i = 0; i < (size_t)(CAP + 1) * PASSES; i++)
			t[n++] = rd(i % (CAP + 1));
		if (run(p, CAP, t, n, 4096, &r))
			return 1;
		snprintf(what, sizeof(what), "%s, a loop one page larger", policy_name[p]);
		bad += expect(what, r.hits, 0);
	}
	/*
	 * Page 0 made frequent (ARC: read twice in a row, to T2; 2Q: read
	 * again after it left A1in for the ghosts, to Am), then a scan of
	 * twice the cache, then page 0 again.
	 */
	for (p = 0; p < NR_POLICIES; p++) {
		uint64_t want = p == P_2Q || p == P_ARC;
		struct result r0;

		n = 0;
		if (p == P_2Q) {
			for (i = 0; i < CAP; i++)
				t[n++] = rd(3000 + i);
			t[n++] = rd(0);
			for (i = 1; i <= CAP; i++)
				t[n++] = rd(1000 + i);
		} else {
			t[n++] = rd(0);
		}
		t[n++] = rd(0);
		if (run(p, CAP, t, n, 4096, &r0))
			return 1;
		for (i = 1; i <= 2 * CAP; i++)
			t[n++] = rd(2000 + i);
		t[n++] = rd(0);
		if (run(p, CAP, t, n, 4096, &r))
			return 1;
		snprintf(what, sizeof(what), "%s, a page read again after a scan", policy_name[p]);
		bad += expect(what, r.hits - r0.hits, want);
	}
	if (!bad)
		printf("self-test: passed\n");
	return bad != 0;
}

/* ---------------------------------------------------------------- main */

static void usage(void)
{
	fprintf(stderr, "usage: online [--flash-size MB] TRACE\n       online --self-test\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "flash-size", required_argument, NULL, 'f' },
		{ "self-test", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opt_in in = { 0, BENCH_OPT_MAX_IO, 0 };
	struct bench_trace_hdr h;
	struct bench_trace_rec *rec;
	struct bench_opt o;
	struct result r;
	uint64_t flash = 0, cap, npages;
	size_t n;
	double tx;
	int c, p;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			flash = strtoull(optarg, NULL, 10) << 20;
			break;
		case 't':
			return self_test();
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (bench_trace_read(argv[optind], &h, &rec, &n))
		return 1;
	if (!flash)
		flash = h.flash_bytes;
	if (!flash) {
		fprintf(stderr, "online: the trace has no flash size: give --flash-size MB\n");
		return 2;
	}
	cap = flash / BENCH_OPT_PAGE;
	npages = (h.dev_bytes + BENCH_OPT_PAGE - 1) / BENCH_OPT_PAGE;
	if (!cap || !npages || npages >= NIL) {
		fprintf(stderr, "online: no flash, no device, or a device too large\n");
		return 2;
	}
	in.flash_bytes = flash;
	if (bench_opt_compute(rec, n, &in, &o)) {
		fprintf(stderr, "online: the optimum: %s\n", strerror(errno));
		return 1;
	}
	tx = o.commits ? (double)o.commits : 1;
	printf("trace %s: %llu requests, %llu transactions, flash %llu MiB (%llu pages of 4 KiB)\n",
	       argv[optind], (unsigned long long)n, (unsigned long long)o.commits,
	       (unsigned long long)(flash >> 20), (unsigned long long)cap);
	printf("%-22s %14s %22s\n", "policy", "read hit ratio", "origin reads per txn");
	printf("%-22s %13.1f%% %22s\n", "MIN (offline)", 100.0 * bench_opt_ratio(&o, o.min_hits),
	       "");
	printf("%-22s %13.1f%% %22s\n", "MIN with bypass", 100.0 * bench_opt_ratio(&o, o.byp_hits),
	       "");
	printf("%-22s %14s %22.3f\n", "the bound's reads", "", o.lb_reads / tx);
	for (p = 0; p < NR_POLICIES; p++) {
		if (run(p, cap, rec, n, npages, &r)) {
			fprintf(stderr, "online: no memory\n");
			return 1;
		}
		printf("%-22s %13.1f%% %22.3f\n", policy_name[p],
		       r.read_pages ? 100.0 * r.hits / r.read_pages : 0.0, r.miss_reqs / tx);
	}
	free(rec);
	return 0;
}
