/*
 * Unit tests of userspace/bench/bench_dist.c: the permutation that scatters
 * pages by popularity rank over the datafile is a bijection, and
 * bench_page_hot() (its inverse, used to count the device I/O of cold
 * pages) says hot exactly for the pages of the hottest 10% of ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "userspace/bench/bench_engine.h"
#include "unit.h"

static void check_pages(uint64_t n, uint64_t seed)
{
	struct bench_opts o;
	struct engine e;
	unsigned char *seen = calloc(n, 1);
	uint64_t r, pg, hot = 0;
	int bijection = 1, agree = 1;
	char name[120];

	memset(&o, 0, sizeof(o));
	memset(&e, 0, sizeof(e));
	o.dist = DIST_HOTSET;
	o.dist_a = 95;
	o.dist_b = 10;
	o.seed = seed;
	e.o = &o;
	e.h.npages = n;
	bench_dist_init(&e);
	for (r = 0; r < n; r++) {
		pg = bench_rank_page(&e, r);
		if (pg >= n || seen[pg]++)
			bijection = 0;
		if (bench_page_hot(&e, pg) != (r < e.hot_n))
			agree = 0;
	}
	for (pg = 0; pg < n; pg++)
		hot += bench_page_hot(&e, pg);
	snprintf(name, sizeof(name), "%llu pages, seed %llu: ranks -> pages is a bijection",
		 (unsigned long long)n, (unsigned long long)seed);
	CHECK(name, bijection);
	snprintf(name, sizeof(name), "%llu pages, seed %llu: hot exactly for ranks < n / 10",
		 (unsigned long long)n, (unsigned long long)seed);
	CHECK(name, agree && hot == e.hot_n);
	free(seen);
}

int main(void)
{
	check_pages(1, 42);
	check_pages(7, 1);
	check_pages(15872, 42);		/* the demo's datafile */
	check_pages(15872, 0);
	check_pages(65536, 42);
	check_pages(1000003, 5);	/* a prime number of pages */
	return unit_failed;
}
