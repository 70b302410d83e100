// SPDX-License-Identifier: GPL-2.0
/*
 * The offline optimum of a cache on a block trace (bench_opt.h): what an
 * ideal cache of the same flash would have done with the request stream a
 * real one saw.  Pure: records in, figures out; no I/O, no global state
 * (tests/unit/test_bench_opt.c drives it on the host under sanitizers).
 *
 * The model (docs/PERFORMANCE.md, "The offline optimum"): the flash holds
 * cap_pages pages of 4 KiB; reads and writes cover whole pages (a partial
 * page counts as the whole page); a read request that misses costs one
 * origin read (no read-ahead); a write needs no read of the old data;
 * flushes and FUA cost the origin nothing (the cache is non-volatile); a
 * dirty page reaches the origin by a write when it leaves the cache, one
 * write carrying contiguous dirty pages of up to max_io written at most
 * merge_window requests apart; what is dirty at the end is not counted.
 *
 * Each page's data between two writes is a "version": a write creates
 * one, a read uses the current one.  A version's next use is its next
 * read; if the page is written first, it is dead.  With versions as the
 * items, Belady's MIN (evict the item used furthest in the future) gives
 * the fewest read misses (writes load their new version at no cost, the
 * same for every policy), and MIN that may also refuse the new item
 * (bypass) the fewest when a miss or a write may go around the cache.
 * Next uses are counted in requests (one backward pass), so the pages of
 * one request share them; ties go to the higher page.  A max-heap with
 * lazy deletion (an entry is live while its page is cached with that key)
 * makes a run O(n log n) in the page accesses; it is rebuilt from the
 * cached pages when stale entries outnumber them (run_min()).
 *
 * Reads plus writebacks together (the origin operations) have no exact
 * polynomial optimum (writeback-aware caching is NP-complete even with
 * unit sizes and costs: Beckmann, Gibbons, Haeupler, McGuffey, APOCS
 * 2020), so two figures bracket it, both over "gaps" (a page held from
 * one access to the next, see the section below):
 *   - a lower bound (lower_bound()): every read and writeback at its
 *     share, less the most held gaps can save, bounded class by class of
 *     saving with the flash shared ("layers", each solved exactly by the
 *     interval greedy: keep every gap, drop the one that ends last while
 *     too many are held);
 *   - an offline schedule (schedule()) that holds the gaps a weighted
 *     greedy picks, with a write-combining buffer for merged writebacks,
 *     and counts what that costs under the model's rules, so the optimum
 *     lies between the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_opt.h"

#define INF		0xffffffffu	/* no next use */
#define MAX_IDX		0x7fffffffu	/* requests and page accesses */
#define F_CACHED	1u
#define F_DIRTY		2u

struct heap {
	uint64_t *v;
	size_t n, cap;
};

struct oreq {
	uint32_t ev0, np;	/* its page accesses: ev0 .. ev0 + np - 1 */
	uint8_t w;		/* a write */
};

struct ctx {
	struct bench_opt *o;
	uint64_t cap, maxp;
	uint32_t nreq, nev, npg;
	struct oreq *rq;
	uint32_t *ev_page;	/* dense page id of each access */
	uint32_t *ev_req;	/* the request of each access */
	uint32_t *nr;		/* next read of the version after the access (request), INF */
	uint32_t *nw;		/* next write of the page after the access (request), INF */
	uint32_t *ne;		/* the page's next access (access), INF */
	uint32_t *pe;		/* the page's access before (access), INF */
	uint64_t *pgno;		/* page id -> page number */
	uint64_t *hkey;		/* page number + 1 -> id (open addressing; 0: empty) */
	uint32_t *hval;
	size_t hcap, hn;
	/* replacement state of a run */
	uint32_t *key;		/* the cached page's current key */
	uint8_t *flags;
	uint32_t *wreq;		/* the write request of a dirty page's version */
	uint32_t *slot, *pos;	/* the cached pages, densely */
	uint64_t ncached;
	struct heap h;
	/* the gaps (sweep): held, and their class, by their first access */
	uint8_t *held;
	uint16_t *cls;
	uint32_t *hpos;		/* a held gap's place in its heap (struct gheap) */
	uint8_t *veto;		/* a gap the schedule found worth nothing (schedule()) */
	uint16_t *mv;		/* the writeback share of a version (merge_shares) */
	uint32_t *ord, *rank;	/* the pages by number, and their place in that order */
	uint32_t *wo, *wl;	/* each page's writes (requests): wl[wo[p]..wo[p + 1]) */
	uint32_t window;	/* merged writebacks: pages written this many requests apart at most */
};

/* --------------------------------------------------------------- heap */

static int heap_push(struct heap *h, uint64_t x)
{
	size_t i;

	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 1024;
		uint64_t *nv = realloc(h->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		h->v = nv;
		h->cap = nc;
	}
	i = h->n++;
	while (i > 0 && h->v[(i - 1) / 2] < x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
	return 0;
}

static void heap_pop(struct heap *h)
{
	uint64_t last = h->v[--h->n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->v[c + 1] > h->v[c])
			c++;
		if (last >= h->v[c])
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

/* ------------------------------------------------- page numbers to ids */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int hash_grow(struct ctx *c)
{
	size_t oc = c->hcap, nc = oc ? oc * 2 : 1 << 16, i;
	uint64_t *ok = c->hkey, *nk = calloc(nc, sizeof(*nk));
	uint32_t *ov = c->hval, *nv = malloc(nc * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	c->hkey = nk;
	c->hval = nv;
	c->hcap = nc;
	for (i = 0; i < oc; i++) {
		size_t j;

		if (!ok[i])
			continue;
		j = mix(ok[i] - 1) & (nc - 1);
		while (nk[j])
			j = (j + 1) & (nc - 1);
		nk[j] = ok[i];
		nv[j] = ov[i];
	}
	free(ok);
	free(ov);
	return 0;
}

/* The id of page @pg, a new one the first time: 0, or -1 (no memory). */
static int page_id(struct ctx *c, uint64_t pg, uint32_t *id)
{
	size_t i;

	if ((c->hn + 1) * 2 > c->hcap && hash_grow(c))
		return -1;
	i = mix(pg) & (c->hcap - 1);
	while (c->hkey[i]) {
		if (c->hkey[i] == pg + 1) {
			*id = c->hval[i];
			return 0;
		}
		i = (i + 1) & (c->hcap - 1);
	}
	c->hkey[i] = pg + 1;
	c->hval[i] = c->npg;
	c->pgno[c->npg] = pg;
	c->hn++;
	*id = c->npg++;
	return 0;
}

/* ---------------------------------------------------- the requests */

static int is_data(const struct bench_trace_rec *r)
{
	return r->len && (r->op == BENCH_TR_READ || r->op == BENCH_TR_WRITE ||
			  r->op == BENCH_TR_SYNC);
}

static uint64_t rec_pages(const struct bench_trace_rec *r)
{
	return (r->off + r->len - 1) / BENCH_OPT_PAGE - r->off / BENCH_OPT_PAGE + 1;
}

/*
 * Count the records, then lay out the requests and their page accesses:
 * 0, -1 (no memory) or -2 (too many).
 */
static int build(struct ctx *c, const struct bench_trace_rec *rec, size_t n)
{
	struct bench_opt *o = c->o;
	uint64_t nreq = 0, nev = 0;
	size_t i;
	uint32_t r = 0, e = 0;

	for (i = 0; i < n; i++) {
		const struct bench_trace_rec *x = &rec[i];

		switch (x->op) {
		case BENCH_TR_READ:
			o->reads++;
			break;
		case BENCH_TR_WRITE:
			o->writes++;
			break;
		case BENCH_TR_SYNC:
			o->sync_writes++;
			break;
		case BENCH_TR_FLUSH:
			o->flushes++;
			break;
		case BENCH_TR_COMMIT:
			o->commits++;
			break;
		}
		if (!is_data(x))
			continue;
		nreq++;
		nev += rec_pages(x);
	}
	if (nreq > MAX_IDX || nev > MAX_IDX)
		return -2;
	c->nreq = nreq;
	c->nev = nev;
	c->rq = malloc((nreq + 1) * sizeof(*c->rq));
	c->ev_page = malloc((nev + 1) * sizeof(uint32_t));
	c->ev_req = malloc((nev + 1) * sizeof(uint32_t));
	c->nr = malloc((nev + 1) * sizeof(uint32_t));
	c->nw = malloc((nev + 1) * sizeof(uint32_t));
	c->ne = malloc((nev + 1) * sizeof(uint32_t));
	c->pe = malloc((nev + 1) * sizeof(uint32_t));
	c->pgno = malloc((nev + 1) * sizeof(uint64_t));
	if (!c->rq || !c->ev_page || !c->ev_req || !c->nr || !c->nw || !c->ne || !c->pe ||
	    !c->pgno)
		return -1;
	for (i = 0; i < n; i++) {
		const struct bench_trace_rec *x = &rec[i];
		uint64_t pg, np;

		if (!is_data(x))
			continue;
		np = rec_pages(x);
		c->rq[r].ev0 = e;
		c->rq[r].np = np;
		c->rq[r].w = x->op != BENCH_TR_READ;
		if (c->rq[r].w)
			o->write_pages += np;
		else
			o->read_pages += np;
		if (!c->rq[r].w && np > o->max_read_pages)
			o->max_read_pages = np;
		for (pg = x->off / BENCH_OPT_PAGE; np--; pg++) {
			c->ev_req[e] = r;
			if (page_id(c, pg, &c->ev_page[e++]))
				return -1;
		}
		r++;
	}
	o->pages = c->npg;
	return 0;
}

/*
 * One backward pass: for each access, the next read of the version it
 * leaves (INF if the page is written first, or never read again), the
 * page's next write and its next access.  Counts the pages written.
 */
static int next_uses(struct ctx *c)
{
	uint32_t *nxt = malloc((c->npg + 1) * sizeof(uint32_t));
	uint32_t *nxtw = malloc((c->npg + 1) * sizeof(uint32_t));
	uint32_t *nxte = malloc((c->npg + 1) * sizeof(uint32_t));
	uint8_t *isw = calloc(c->npg + 1, 1);
	uint32_t r, p;

	if (!nxt || !nxtw || !nxte || !isw) {
		free(nxt);
		free(nxtw);
		free(nxte);
		free(isw);
		return -1;
	}
	memset(nxt, 0xff, (c->npg + 1) * sizeof(uint32_t));
	memset(nxtw, 0xff, (c->npg + 1) * sizeof(uint32_t));
	memset(nxte, 0xff, (c->npg + 1) * sizeof(uint32_t));
	for (r = c->nreq; r-- > 0;) {
		const struct oreq *q = &c->rq[r];
		uint32_t e;

		for (e = q->ev0; e < q->ev0 + q->np; e++) {
			p = c->ev_page[e];
			c->nr[e] = nxt[p] != INF && !isw[p] ? nxt[p] : INF;
			c->nw[e] = nxtw[p];
			c->ne[e] = nxte[p];
			c->pe[e] = INF;
			if (nxte[p] != INF)
				c->pe[nxte[p]] = e;
			nxte[p] = e;
			nxt[p] = r;
			isw[p] = q->w;
			if (q->w)
				nxtw[p] = r;
		}
	}
	for (p = 0; p < c->npg; p++)
		if (nxtw[p] != INF)
			c->o->written++;
	free(nxt);
	free(nxtw);
	free(nxte);
	free(isw);
	return 0;
}

/* ------------------------------------------------- the cache of a run */

static void cache_reset(struct ctx *c)
{
	memset(c->flags, 0, c->npg + 1);
	c->ncached = 0;
	c->h.n = 0;
}

static int live(const struct ctx *c, uint64_t x)
{
	uint32_t p = (uint32_t)x;

	return (c->flags[p] & F_CACHED) && c->key[p] == (uint32_t)(x >> 32);
}

/* The cached page that goes first (key << 32 | page): there is one (ncached > 0). */
static uint64_t top(struct ctx *c)
{
	while (!live(c, c->h.v[0]))
		heap_pop(&c->h);
	return c->h.v[0];
}

/* Drop the stale entries: the heap again holds one entry per cached page. */
static int compact(struct ctx *c)
{
	uint64_t i;

	c->h.n = 0;
	for (i = 0; i < c->ncached; i++) {
		uint32_t p = c->slot[i];

		if (heap_push(&c->h, (uint64_t)c->key[p] << 32 | p))
			return -1;
	}
	return 0;
}

static int set_key(struct ctx *c, uint32_t p, uint32_t k)
{
	c->key[p] = k;
	if (c->h.n > 4 * c->cap + 1024 && compact(c))
		return -1;
	return heap_push(&c->h, (uint64_t)k << 32 | p);
}

static int insert(struct ctx *c, uint32_t p, uint32_t k)
{
	c->flags[p] = F_CACHED;
	c->slot[c->ncached] = p;
	c->pos[p] = c->ncached++;
	return set_key(c, p, k);
}

static void evict(struct ctx *c, uint32_t p)
{
	uint32_t last = c->slot[--c->ncached];

	c->slot[c->pos[p]] = last;
	c->pos[last] = c->pos[p];
	c->flags[p] = 0;
}

/*
 * Belady's MIN over the page accesses: a page missing is cached, the one
 * whose version is used furthest in the future (or never) evicted; with
 * @bypass the new one is not cached when it is that one.  Read hits into *@hits.
 */
static int run_min(struct ctx *c, int bypass, uint64_t *hits)
{
	uint32_t r, e;

	cache_reset(c);
	*hits = 0;
	for (r = 0; r < c->nreq; r++) {
		const struct oreq *q = &c->rq[r];

		for (e = q->ev0; e < q->ev0 + q->np; e++) {
			uint32_t p = c->ev_page[e], k = c->nr[e];

			if (c->flags[p] & F_CACHED) {
				*hits += !q->w;
				if (set_key(c, p, k))
					return -1;
				continue;
			}
			if (c->ncached >= c->cap) {
				uint64_t t = top(c);

				if (bypass && t < ((uint64_t)k << 32 | p))
					continue;
				evict(c, (uint32_t)t);
			}
			if (insert(c, p, k))
				return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------ merged writebacks */

static int cmp_pg(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The pages in the order of their numbers (c->ord, c->rank), and for each
 * version (by its write access, c->mv) the most pages an origin write may
 * carry it with: merged writebacks carry dirty pages only, so the
 * contiguous pages around it written before its overwrite (or the end),
 * at most max_io.
 */
/* Has page @q (an id) a write in requests @lo..@hi (its writes: c->wl[c->wo[q]..c->wo[q + 1])) ? */
static int written_in(const struct ctx *c, uint32_t q, uint32_t lo, uint32_t hi)
{
	uint32_t a = c->wo[q], b = c->wo[q + 1];

	while (a < b) {		/* the first write at or after lo */
		uint32_t m = a + (b - a) / 2;

		if (c->wl[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < c->wo[q + 1] && c->wl[a] <= hi;
}

static int merge_shares(struct ctx *c)
{
	uint64_t (*pp)[2] = malloc((c->npg + 1) * sizeof(*pp));
	uint32_t r, e, p, i, n = 0;

	c->wo = calloc(c->npg + 2, sizeof(uint32_t));
	if (!pp || !c->wo) {
		free(pp);
		return -1;
	}
	for (p = 0; p < c->npg; p++) {
		pp[p][0] = c->pgno[p];
		pp[p][1] = p;
	}
	qsort(pp, c->npg, sizeof(*pp), cmp_pg);
	for (i = 0; i < c->npg; i++) {
		c->ord[i] = pp[i][1];
		c->rank[pp[i][1]] = i;
	}
	free(pp);
	/* each page's writes, in request order */
	for (r = 0; r < c->nreq; r++)
		if (c->rq[r].w)
			for (e = c->rq[r].ev0; e < c->rq[r].ev0 + c->rq[r].np; e++)
				c->wo[c->ev_page[e] + 2]++, n++;
	for (p = 0; p < c->npg; p++)
		c->wo[p + 2] += c->wo[p + 1];
	c->wl = malloc((n + 1) * sizeof(uint32_t));
	if (!c->wl)
		return -1;
	for (r = 0; r < c->nreq; r++)
		if (c->rq[r].w)
			for (e = c->rq[r].ev0; e < c->rq[r].ev0 + c->rq[r].np; e++)
				c->wl[c->wo[c->ev_page[e] + 1]++] = r;
	for (r = 0; r < c->nreq; r++) {
		uint32_t lo = r > c->window ? r - c->window : 0;

		if (!c->rq[r].w)
			continue;
		for (e = c->rq[r].ev0; e < c->rq[r].ev0 + c->rq[r].np; e++) {
			uint32_t d = c->nw[e] == INF ? c->nreq : c->nw[e], m = 1, j, hi;

			hi = d - 1 < r + c->window ? d - 1 : r + c->window;
			i = c->rank[c->ev_page[e]];
			for (j = i + 1; j < c->npg && m < c->maxp &&
			     c->pgno[c->ord[j]] == c->pgno[c->ord[j - 1]] + 1 &&
			     written_in(c, c->ord[j], lo, hi); j++)
				m++;
			for (j = i; j > 0 && m < c->maxp &&
			     c->pgno[c->ord[j - 1]] + 1 == c->pgno[c->ord[j]] &&
			     written_in(c, c->ord[j - 1], lo, hi); j--)
				m++;
			c->mv[e] = m;
		}
	}
	return 0;
}

/* ------------------------------------------ gaps held: bound and schedule */

/*
 * A gap starts at each page access and ends at the page's next access, or
 * at the end of the trace.  Holding the page through it takes a page of
 * flash and saves:
 *   - if it ends at a read: that read's share of its origin read, 1/np
 *     of a request of np pages;
 *   - if it is the last gap of a written (dirty) version, ending at its
 *     overwrite or at the end (where what is dirty is not counted): its
 *     writeback, whose share is 1/m (c->mv).
 * The gaps whose share rounds up to 2^-j make class j: rounded up, so that
 * the bound may overstate what a held gap saves, never understate it.
 */
#define GAP_NONE	0xffffu
#define NCLS		33

/*
 * The gaps held now, a max-heap per class by their end (then their first
 * access), indexed (c->hpos: a gap's place in its heap) so that a gap
 * leaves it when it ends: no stale entries, at most cap + 1 in all.
 */
struct gheap {
	uint32_t *v;
	uint32_t n, cap;
};

struct sweep {
	struct gheap far[NCLS];
	uint64_t total;
};

/* The class of a share of 1/@k (k >= 1). */
static uint16_t class_of(uint32_t k)
{
	uint16_t j = 0;

	while (k >>= 1)
		j++;
	return j;
}

/* What a gap of class @k saves: 2^-k. */
static double class_saves(uint16_t k)
{
	return 1.0 / (double)(1ull << k);
}

/*
 * The class of the gap from access @s of a page whose current version was
 * written with share 1/@m (0: never written), or GAP_NONE: worth nothing
 * (to an overwrite of data never written, or a clean page's last gap).
 */
static uint16_t gap_class(const struct ctx *c, uint32_t s, uint32_t m)
{
	uint32_t end = c->ne[s];

	if (end != INF && !c->rq[c->ev_req[end]].w)
		return class_of(c->rq[c->ev_req[end]].np);
	return m ? class_of(m) : GAP_NONE;
}

static uint64_t gap_key(const struct ctx *c, uint32_t s)
{
	return (uint64_t)(c->ne[s] == INF ? c->nev : c->ne[s]) << 32 | s;
}

static void gh_set(struct ctx *c, struct gheap *h, uint32_t i, uint32_t s)
{
	h->v[i] = s;
	c->hpos[s] = i;
}

static void gh_up(struct ctx *c, struct gheap *h, uint32_t i)
{
	uint32_t s = h->v[i];
	uint64_t k = gap_key(c, s);

	while (i > 0 && gap_key(c, h->v[(i - 1) / 2]) < k) {
		gh_set(c, h, i, h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	gh_set(c, h, i, s);
}

static void gh_down(struct ctx *c, struct gheap *h, uint32_t i)
{
	uint32_t s = h->v[i], ch;
	uint64_t k = gap_key(c, s);

	while ((ch = 2 * i + 1) < h->n) {
		if (ch + 1 < h->n && gap_key(c, h->v[ch + 1]) > gap_key(c, h->v[ch]))
			ch++;
		if (k >= gap_key(c, h->v[ch]))
			break;
		gh_set(c, h, i, h->v[ch]);
		i = ch;
	}
	gh_set(c, h, i, s);
}

static int gh_push(struct ctx *c, struct gheap *h, uint32_t s)
{
	if (h->n == h->cap) {
		uint32_t nc = h->cap ? h->cap * 2 : 256, *nv = realloc(h->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		h->v = nv;
		h->cap = nc;
	}
	h->v[h->n] = s;
	gh_up(c, h, h->n++);
	return 0;
}

static void gh_del(struct ctx *c, struct gheap *h, uint32_t s)
{
	uint32_t i = c->hpos[s], last = h->v[--h->n];

	if (i == h->n)
		return;
	gh_set(c, h, i, last);
	gh_up(c, h, i);
	gh_down(c, h, c->hpos[last]);
}

/* c->held[] of a gap: not held, held and not over yet, held to its end */
enum { G_DROPPED, G_HOLDING, G_HELD };

/* Gap @s, held now, is over (@to G_HELD) or dropped (@to G_DROPPED). */
static void unhold(struct ctx *c, struct sweep *w, uint32_t s, uint8_t to)
{
	gh_del(c, &w->far[c->cls[s]], s);
	c->held[s] = to;
	w->total--;
}

/*
 * The class to drop a gap of, among those up to @top: by the gap that
 * ends last (@weighted 0), or that holds a page longest for what it saves,
 * (end - @now) / saving (@weighted 1).
 */
static int victim_class(struct ctx *c, struct sweep *w, int weighted, int top, uint32_t now)
{
	double worst = -1;
	int j, best = -1;

	for (j = 0; j <= top; j++) {
		double v;

		if (!w->far[j].n)
			continue;
		v = (double)(gap_key(c, w->far[j].v[0]) >> 32);
		if (weighted)
			v = (v - now) / class_saves(j);
		if (v > worst) {
			worst = v;
			best = j;
		}
	}
	return best;
}

/* The class of every gap (c->cls), those c->veto marks worth nothing. */
static void classify(struct ctx *c)
{
	uint32_t r, s, *cm = c->wreq;	/* share of the page's current version */

	memset(cm, 0, (c->npg + 1) * sizeof(uint32_t));
	for (r = 0; r < c->nreq; r++) {
		const struct oreq *q = &c->rq[r];

		for (s = q->ev0; s < q->ev0 + q->np; s++) {
			uint32_t p = c->ev_page[s];

			if (q->w)
				cm[p] = c->mv[s];
			c->cls[s] = c->veto[s] ? GAP_NONE : gap_class(c, s, cm[p]);
		}
	}
}

/*
 * Which gaps of the classes up to @top to hold (c->held, by their first
 * access), at most @cap at once.  @weighted 0: as if all saved the same;
 * then keeping every gap and, while too many are held, dropping the one
 * that ends last holds the most gaps (optimal for intervals).  @weighted
 * 1 (the schedule): dropping the one that holds a page longest for what
 * it saves.
 */
static int sweep(struct ctx *c, int weighted, int top, uint64_t cap)
{
	struct sweep w;
	uint32_t s;
	int k, ret = -1;

	memset(&w, 0, sizeof(w));
	for (s = 0; s < c->nev; s++) {
		uint16_t g = c->cls[s];
		uint32_t p = c->pe[s];

		if (p != INF && c->held[p] == G_HOLDING)	/* the gap ending here */
			unhold(c, &w, p, G_HELD);
		c->held[s] = G_DROPPED;
		if (g == GAP_NONE || g > top)
			continue;
		c->held[s] = G_HOLDING;
		w.total++;
		if (gh_push(c, &w.far[g], s))
			goto out;
		while (w.total > cap) {
			k = victim_class(c, &w, weighted, top, s);
			unhold(c, &w, w.far[k].v[0], G_DROPPED);
		}
	}
	ret = 0;
out:
	for (k = 0; k < NCLS; k++)
		free(w.far[k].v);
	return ret;
}

/*
 * The lower bound: every read and every version's writeback at its share,
 * less what held gaps can save at most.  A gap of class j saves w_j =
 * 2^-j, the sum of the steps w_k - w_next(k) over the classes k present
 * from j down; so whatever a cache holds saves at most the sum over k of
 * that step times the most gaps of the classes up to k held at once in
 * the flash, which the unweighted sweep finds (one sweep per class
 * present: "layers").  Each layer's saving is split between reads and
 * writebacks by the gaps it held.
 */
static int lower_bound(struct ctx *c)
{
	struct bench_opt *o = c->o;
	uint64_t present = 0;
	uint32_t r, e;
	int k, next;

	classify(c);
	for (r = 0; r < c->nreq; r++) {
		const struct oreq *q = &c->rq[r];

		for (e = q->ev0; e < q->ev0 + q->np; e++) {
			if (!q->w) {
				o->lb_reads += 1.0 / q->np;
			} else {
				o->lb_writes += 1.0 / c->mv[e];
				o->versions++;
			}
			if (c->cls[e] != GAP_NONE)
				present |= 1ull << c->cls[e];
		}
	}
	for (k = 0; k < NCLS; k++) {
		double step;

		if (!(present & 1ull << k))
			continue;
		for (next = k + 1; next < NCLS && !(present & 1ull << next); next++)
			;
		step = class_saves(k) - (next < NCLS ? class_saves(next) : 0);
		if (sweep(c, 0, k, c->cap))
			return -1;
		for (e = 0; e < c->nev; e++) {
			if (!c->held[e])
				continue;
			if (c->ne[e] != INF && !c->rq[c->ev_req[c->ne[e]]].w)
				o->lb_reads -= step;
			else
				o->lb_writes -= step;
		}
	}
	/* the held versions of the last layer (every class in it) */
	for (e = 0; e < c->nev; e++)
		o->held += c->held[e] && !(c->ne[e] != INF && !c->rq[c->ev_req[c->ne[e]]].w);
	/* what held gaps save is rounded up: never below nothing */
	o->lb_reads = o->lb_reads < 1e-9 ? 0 : o->lb_reads;
	o->lb_writes = o->lb_writes < 1e-9 ? 0 : o->lb_writes;
	return 0;
}

/*
 * The schedule's write-combining buffer: dirty pages leaving the held set
 * wait in up to wb_cap pages of the flash (kept out of the sweep's
 * capacity) so that neighbours leave by one origin write: a run of
 * max_io is written at once, and over wb_cap the run of the page that
 * waited longest.  A page in it is still in the flash: read, it hits.
 */
struct wbuf {
	uint32_t *fifo;		/* pages in the order they came (stale ones skipped) */
	uint64_t head, tail, n, cap;
	struct bench_opt *o;	/* the schedule's figures */
};

#define F_BUF	4u

/* The run of buffered pages around @p (in c->ord): its first rank and length. */
static uint32_t buf_run(const struct ctx *c, uint32_t p, uint32_t *first)
{
	uint32_t i = c->rank[p], j = i, len = 1;

	while (j > 0 && len < c->maxp && (c->flags[c->ord[j - 1]] & F_BUF) &&
	       c->pgno[c->ord[j - 1]] + 1 == c->pgno[c->ord[j]]) {
		j--;
		len++;
	}
	*first = j;
	for (i = i + 1; i < c->npg && len < c->maxp && (c->flags[c->ord[i]] & F_BUF) &&
	     c->pgno[c->ord[i]] == c->pgno[c->ord[i - 1]] + 1; i++)
		len++;
	return len;
}

/* Write the run around @p to the origin: one operation. */
static void buf_flush(struct ctx *c, struct wbuf *b, uint32_t p)
{
	uint32_t first, len = buf_run(c, p, &first), i;

	for (i = first; i < first + len; i++)
		c->flags[c->ord[i]] &= ~F_BUF;
	b->n -= len;
	b->o->s_write_ops++;
}

static void buf_take(struct ctx *c, struct wbuf *b, uint32_t p)
{
	c->flags[p] &= ~F_BUF;
	b->n--;
}

/* The dirty pages @lv[0..m) leave the held set at one request. */
static void buf_add(struct ctx *c, struct wbuf *b, const uint32_t *lv, uint32_t m)
{
	uint32_t i, first;

	for (i = 0; i < m; i++) {
		c->flags[lv[i]] |= F_BUF;
		b->fifo[b->tail++ % (b->cap + c->maxp + c->npg + 1)] = lv[i];
		b->n++;
	}
	for (i = 0; i < m; i++)
		if ((c->flags[lv[i]] & F_BUF) && buf_run(c, lv[i], &first) >= c->maxp)
			buf_flush(c, b, lv[i]);
	while (b->n > b->cap) {
		uint32_t p = b->fifo[b->head++ % (b->cap + c->maxp + c->npg + 1)];

		if (c->flags[p] & F_BUF)
			buf_flush(c, b, p);
	}
}

/*
 * One schedule: hold the gaps the shared sweep chose, and count what that
 * costs by the model's rules: a read request with a page neither held
 * nor buffered is one origin read; a dirty page leaves the held set (at
 * an access that starts a gap not held) into the buffer; what is dirty at
 * the end is not counted.  Gaps held for nothing (to the overwrite or the
 * end of a version already written back) get c->veto.
 */
static int schedule_once(struct ctx *c, uint32_t *lv, uint32_t *la, struct wbuf *b,
			 struct bench_opt *o)
{
	uint32_t r, e;
	uint8_t *st = c->flags;		/* F_CACHED: held now; F_DIRTY; F_BUF */
	size_t p;

	classify(c);
	if (sweep(c, 1, NCLS - 1, c->cap - b->cap))
		return -1;
	memset(st, 0, c->npg + 1);
	memset(la, 0xff, (c->npg + 1) * sizeof(uint32_t));
	b->head = b->tail = b->n = 0;
	b->o = o;
	for (r = 0; r < c->nreq; r++) {
		const struct oreq *q = &c->rq[r];
		uint32_t m = 0;
		int missed = 0;

		for (e = q->ev0; e < q->ev0 + q->np; e++) {
			uint32_t pg = c->ev_page[e];

			if (q->w && la[pg] != INF && c->held[la[pg]] && !(st[pg] & F_DIRTY))
				c->veto[la[pg]] = 1;
			la[pg] = e;
			if (st[pg] & F_BUF) {	/* in the flash, dirty */
				buf_take(c, b, pg);
				st[pg] |= F_CACHED | F_DIRTY;
			}
			if (q->w)
				st[pg] |= F_DIRTY;
			else if (st[pg] & F_CACHED)
				o->s_hits++;
			else
				missed = 1;
			if (c->held[e]) {
				st[pg] |= F_CACHED;
				continue;
			}
			if (st[pg] & F_DIRTY)
				lv[m++] = pg;
			st[pg] = 0;
		}
		o->s_read_ops += missed;
		buf_add(c, b, lv, m);
	}
	for (p = 0; p < c->npg; p++) {
		if ((st[p] & F_BUF) || (st[p] & (F_CACHED | F_DIRTY)) == (F_CACHED | F_DIRTY))
			o->s_end_pages++;
		else if (la[p] != INF && c->held[la[p]])
			c->veto[la[p]] = 1;	/* held to the end, clean */
	}
	return 0;
}

#define SCHED_PASSES 3

/*
 * The schedule of the fewest origin operations among SCHED_PASSES: each
 * pass sweeps again without the gaps the one before held for nothing.
 */
static int schedule(struct ctx *c, uint32_t *lv)
{
	struct bench_opt *o = c->o, t;
	struct wbuf b = { 0 };
	uint32_t *la = malloc((c->npg + 1) * sizeof(uint32_t));
	int i, ret = -1;

	/* the buffer: two merged writes, if the flash is large enough */
	b.cap = c->cap >= 16 * c->maxp ? 2 * c->maxp : 0;
	b.fifo = malloc((b.cap + c->maxp + c->npg + 1) * sizeof(uint32_t));
	if (!la || !b.fifo)
		goto out;
	memset(c->veto, 0, c->nev + 1);
	for (i = 0; i < SCHED_PASSES; i++) {
		memset(&t, 0, sizeof(t));
		if (schedule_once(c, lv, la, &b, &t))
			goto out;
		if (!i || bench_opt_sched(&t) < bench_opt_sched(o)) {
			o->s_hits = t.s_hits;
			o->s_read_ops = t.s_read_ops;
			o->s_write_ops = t.s_write_ops;
			o->s_end_pages = t.s_end_pages;
		}
	}
	ret = 0;
out:
	free(la);
	free(b.fifo);
	return ret;
}

/* ------------------------------------------------------------- entry */

static void ctx_free(struct ctx *c)
{
	free(c->rq);
	free(c->ev_page);
	free(c->ev_req);
	free(c->nr);
	free(c->nw);
	free(c->ne);
	free(c->pe);
	free(c->hpos);
	free(c->held);
	free(c->cls);
	free(c->veto);
	free(c->mv);
	free(c->ord);
	free(c->rank);
	free(c->wo);
	free(c->wl);
	free(c->pgno);
	free(c->hkey);
	free(c->hval);
	free(c->key);
	free(c->flags);
	free(c->wreq);
	free(c->slot);
	free(c->pos);
	free(c->h.v);
}

int bench_opt_compute(const struct bench_trace_rec *rec, size_t n,
		      const struct bench_opt_in *in, struct bench_opt *out)
{
	struct ctx c;
	uint32_t *lv = NULL;
	int ret = -1, b;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	if (in->flash_bytes < BENCH_OPT_PAGE || !in->max_io || in->max_io % BENCH_OPT_PAGE ||
	    in->max_io > BENCH_OPT_MAX_IO_LIMIT) {
		errno = EINVAL;
		return -1;
	}
	c.o = out;
	c.cap = in->flash_bytes / BENCH_OPT_PAGE;
	c.maxp = in->max_io / BENCH_OPT_PAGE;
	c.window = in->merge_window ? in->merge_window : BENCH_OPT_MERGE_WINDOW;
	out->records = n;
	out->cap_pages = c.cap;
	out->max_io_pages = c.maxp;
	b = build(&c, rec, n);
	if (b == -2) {
		ctx_free(&c);
		errno = EINVAL;
		return -1;
	}
	if (b || next_uses(&c))
		goto out;
	c.key = malloc((c.npg + 1) * sizeof(uint32_t));
	c.flags = malloc(c.npg + 1);
	c.wreq = malloc((c.npg + 1) * sizeof(uint32_t));
	c.slot = malloc((c.npg + 1) * sizeof(uint32_t));
	c.pos = malloc((c.npg + 1) * sizeof(uint32_t));
	c.held = malloc(c.nev + 1);
	c.cls = malloc((c.nev + 1) * sizeof(uint16_t));
	c.hpos = malloc((c.nev + 1) * sizeof(uint32_t));
	c.veto = calloc(c.nev + 1, 1);
	c.mv = malloc((c.nev + 1) * sizeof(uint16_t));
	c.ord = malloc((c.npg + 1) * sizeof(uint32_t));
	c.rank = malloc((c.npg + 1) * sizeof(uint32_t));
	lv = malloc((c.nev + 1) * sizeof(*lv));
	if (!c.key || !c.flags || !c.wreq || !c.slot || !c.pos || !c.held || !c.cls || !c.hpos ||
	    !c.veto || !c.mv || !c.ord || !c.rank || !lv)
		goto out;
	if (run_min(&c, 0, &out->min_hits) || run_min(&c, 1, &out->byp_hits) ||
	    merge_shares(&c) || lower_bound(&c) || schedule(&c, lv))
		goto out;
	ret = 0;
out:
	free(lv);
	ctx_free(&c);
	if (ret)
		errno = ENOMEM;
	return ret;
}

double bench_opt_lb(const struct bench_opt *o)
{
	return o->lb_reads + o->lb_writes;
}

uint64_t bench_opt_sched(const struct bench_opt *o)
{
	return o->s_read_ops + o->s_write_ops;
}

double bench_opt_ratio(const struct bench_opt *o, uint64_t hits)
{
	return o->read_pages ? (double)hits / o->read_pages : -1;
}
