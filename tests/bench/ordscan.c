// SPDX-License-Identifier: GPL-2.0
/*
 * What collect_ordered() (kmod/fc_writeback.c) costs at a pool's size: its
 * walk over every entry for the oldest epoch's dirty blocks, once an
 * ordered batch, modelled on the host (docs/DESIGN.md, "Ordered
 * write-back").  The entry mirrors struct fc_entry's layout (24 bytes) and
 * the epoch array pool->ep[] (4 bytes an entry); 80% of the entries dirty,
 * over four volumes, epochs scattered.  The lock holds, and the copies that
 * follow, are not in it: a lower bound.
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

int main(int argc, char **argv)
{
	size_t n, i, hits;
	unsigned int r, rounds = argc > 2 ? (unsigned int)atoi(argv[2]) : 3;
	struct timespec a, b;
	struct entry *e;
	uint32_t *ep;

	if (argc < 2 || !(n = strtoull(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: ordscan ENTRIES [ROUNDS]\n");
		return 2;
	}
	e = calloc(n, sizeof(*e));
	ep = calloc(n, sizeof(*ep));
	if (!e || !ep) {
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
		printf("%zu entries (%zu + %zu bytes each): %.1f ms a walk (%zu of the oldest epoch)\n",
		       n, sizeof(*e), sizeof(*ep),
		       (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, hits);
	}
	free(e);
	free(ep);
	return 0;
}
