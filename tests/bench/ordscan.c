// SPDX-License-Identifier: GPL-2.0
/*
 * What ordered write-back's collection of the oldest epoch's dirty blocks
 * costs at a pool's size, modelled on the host (docs/DESIGN.md, "Ordered
 * write-back"): "walk", the walk over every entry that collect_ordered()
 * (kmod/fc_writeback.c) made once a batch before the dirty lists; "lists",
 * what it does now (the lists' heads, a batch of at most 256 blocks);
 * "build", what a load does once (fc_ord_index_build(): the dirty blocks
 * ordered by epoch, by counting when the epochs take fewer values than
 * there are dirty blocks, as here, else by sorting; both timed).  The entry mirrors struct fc_entry's layout
 * (24 bytes), the epoch array pool->ep[] (4 bytes an entry) and the lists'
 * links (8); 80% of the entries dirty, over four volumes, epochs
 * scattered.  The lock holds, and the copies that follow, are not in it.
 *
 *   make -C tests/bench ordscan; tests/bench/ordscan ENTRIES [ROUNDS]
 *   (1 TiB of flash at 16 KiB blocks: 67108864 entries)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct entry {			/* struct fc_entry */
	uint64_t oblock;
	uint32_t next;
	int inflight;
	uint16_t gen;
	uint8_t vol : 6, wb_raced : 1, gen_wrapped : 1;
	uint8_t flags, valid, dirty;
	uint16_t dirty_ts;
};

struct link {			/* struct fc_olink */
	uint32_t prev, next;
};

#define NONE 0xffffffffu
#define BATCH 256u		/* FC_WB_MAX_BATCH */

static double ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void link_tail(struct link *l, const struct entry *e, uint32_t x, uint32_t *head,
		      uint32_t *tail)
{
	uint32_t v = e[x].vol;

	l[x].next = NONE;
	l[x].prev = tail[v];
	if (tail[v] == NONE)
		head[v] = x;
	else
		l[tail[v]].next = x;
	tail[v] = x;
}

static void *alloc(size_t n)
{
	void *p = calloc(n, 1);

	if (!p) {
		fprintf(stderr, "ordscan: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * fc_ord_index_build() (link_by_age()): every dirty entry linked, oldest
 * epoch first; by counting when the ages take fewer values than there are
 * dirty entries (@count), else by sorting 8-byte keys.
 */
static void build(const struct entry *e, const uint32_t *ep, struct link *l, size_t n,
		  uint32_t epoch, uint32_t *head, uint32_t *tail, int count)
{
	size_t i, k = 0, d = 0;
	uint32_t oldest = 0;

	for (i = 0; i < 64; i++)
		head[i] = tail[i] = NONE;
	for (i = 0; i < n; i++)
		if (e[i].dirty && !(e[i].flags & 1)) {
			d++;
			if (epoch - ep[i] > oldest)
				oldest = epoch - ep[i];
		}
	if (count && oldest < d) {
		uint32_t *pos = alloc(((size_t)oldest + 1) * sizeof(*pos));
		uint32_t *order = alloc(d * sizeof(*order)), c = 0, b;

		for (i = 0; i < n; i++)
			if (e[i].dirty && !(e[i].flags & 1))
				pos[oldest - (epoch - ep[i])]++;
		for (b = 0; b <= oldest; b++) {
			uint32_t cnt = pos[b];

			pos[b] = c;
			c += cnt;
		}
		for (i = 0; i < n; i++)
			if (e[i].dirty && !(e[i].flags & 1))
				order[pos[oldest - (epoch - ep[i])]++] = (uint32_t)i;
		for (k = 0; k < d; k++)
			link_tail(l, e, order[k], head, tail);
		free(pos);
		free(order);
		return;
	}
	{
		uint64_t *keys = alloc(d * sizeof(*keys));

		for (i = 0; i < n; i++)
			if (e[i].dirty && !(e[i].flags & 1))
				keys[k++] = ((uint64_t)(uint32_t)~(epoch - ep[i]) << 32) | i;
		qsort(keys, k, sizeof(*keys), key_cmp);
		for (i = 0; i < k; i++)
			link_tail(l, e, (uint32_t)keys[i], head, tail);
		free(keys);
	}
}

int main(int argc, char **argv)
{
	size_t n, i, hits;
	unsigned int r, rounds = argc > 2 ? (unsigned int)atoi(argv[2]) : 3;
	struct timespec a, b;
	uint32_t *ep, head[64], tail[64];
	struct entry *e;
	struct link *l;

	if (argc < 2 || !(n = strtoull(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: ordscan ENTRIES [ROUNDS]\n");
		return 2;
	}
	e = calloc(n, sizeof(*e));
	ep = calloc(n, sizeof(*ep));
	l = calloc(n, sizeof(*l));
	if (!e || !ep || !l) {
		fprintf(stderr, "ordscan: %zu entries: out of memory\n", n);
		return 1;
	}
	for (i = 0; i < n; i++) {
		e[i].dirty = i % 5 ? 0xf : 0;
		e[i].vol = i & 3;
		ep[i] = (uint32_t)(i * 2654435761u) >> 20;
	}
	for (r = 0; r < rounds; r++) {
		uint32_t min[64] = { 0 };
		uint64_t seen = 0;

		hits = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < n; i++) {
			unsigned int v = e[i].vol;

			if (!e[i].dirty || (e[i].flags & 1))
				continue;
			if (!(seen & (1ull << v)) || (int32_t)(ep[i] - min[v]) < 0) {
				seen |= 1ull << v;
				min[v] = ep[i];
				hits = 0;
			}
			if (ep[i] == min[v])
				hits++;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%zu entries (%zu + %zu bytes each): walk %.1f ms a batch (%zu of the oldest epoch)\n",
		       n, sizeof(*e), sizeof(*ep), ms(&a, &b), hits);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	build(e, ep, l, n, 1u << 12, head, tail, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%zu entries: build by sorting %.0f ms once a load (+%zu bytes an entry)\n", n,
	       ms(&a, &b), sizeof(*l));
	clock_gettime(CLOCK_MONOTONIC, &a);
	build(e, ep, l, n, 1u << 12, head, tail, 1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%zu entries: build by counting %.0f ms once a load (epochs of 4096 values)\n", n,
	       ms(&a, &b));
	for (r = 0; r < rounds; r++) {
		unsigned int v, taken = 0;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (v = 0; v < 64; v++) {
			uint32_t i = head[v], min;

			if (i == NONE)
				continue;
			for (min = ep[i]; i != NONE && taken < BATCH && ep[i] == min; i = l[i].next)
				if (e[i].dirty && !(e[i].flags & 1))
					taken++;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%zu entries: lists %.4f ms a batch (%u blocks taken)\n", n, ms(&a, &b), taken);
	}
	free(e);
	free(ep);
	free(l);
	return 0;
}
