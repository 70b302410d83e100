/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block trace of a benchmark run and the offline optimum of a cache on
 * it (`fcachectl bench run --trace FILE`, `compare --trace CONFIGS`,
 * `bench optimum TRACE`; docs/PERFORMANCE.md, "The offline optimum").
 *
 *   bench_trace.c  the trace file (written by the engine, read back) and
 *                  the I/O counters of the origin device (sysfs)
 *   bench_opt.c    the optimum of a trace (pure: records in, figures out;
 *                  tests/unit/test_bench_opt.c)
 *
 * A trace file is a struct bench_trace_hdr followed by records of struct
 * bench_trace_rec, in the order the engine submitted them, in the byte
 * order of the machine that wrote it (the magic tells).  One record per I/O
 * the benchmark issues to the datafile's device (what the cache sees; the
 * redo log on a --log-dev is not in it) and one per committed transaction.
 */
#ifndef FC_BENCH_OPT_H
#define FC_BENCH_OPT_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_TRACE_MAGIC	0x314352544346ull	/* "FCTRC1" */
#define BENCH_TRACE_VERSION	1

/* struct bench_trace_rec.op */
enum {
	BENCH_TR_READ = 'R',	/* a page read */
	BENCH_TR_WRITE = 'W',	/* a page cleaner's write */
	BENCH_TR_SYNC = 'S',	/* a redo write with RWF_DSYNC (the volume sees REQ_FUA) */
	BENCH_TR_FLUSH = 'F',	/* fdatasync (the volume sees an empty REQ_PREFLUSH) */
	BENCH_TR_COMMIT = 'C',	/* a transaction committed (no I/O) */
};
#define BENCH_TR_CLEANER	0xffff	/* .user of the page cleaner's I/O */
#define BENCH_TR_UNMEASURED	0xff	/* .phase after the last step */

struct bench_trace_rec {
	uint64_t t_ns;		/* submission, ns from the start of the trace */
	uint64_t off;		/* bytes from the start of the device (0: F, C) */
	uint32_t len;		/* bytes (0: F, C) */
	uint32_t txn;		/* the transaction (1, 2, ...); 0: the page cleaner's */
	uint8_t op;		/* BENCH_TR_* */
	uint8_t phase;		/* 0 warm-up, k: the k-th measured step, BENCH_TR_UNMEASURED */
	uint16_t user;		/* the user, or BENCH_TR_CLEANER */
	uint32_t reserved;
};

struct bench_trace_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t rec_size;	/* sizeof(struct bench_trace_rec) */
	uint64_t dev_bytes;	/* size of the traced device */
	uint64_t flash_bytes;	/* the cache's flash (0: not known, e.g. `run`) */
	uint32_t page_size;	/* the datafile's page */
	uint32_t flags;		/* BENCH_TRACE_F_* */
	uint64_t records;	/* written at the end (0: the trace was not closed) */
	uint64_t txns;		/* commits, written at the end */
	char label[64];		/* the configuration (compare) or "run" */
	uint64_t reserved;
};
_Static_assert(sizeof(struct bench_trace_hdr) == 128, "trace header: 128 bytes");
_Static_assert(sizeof(struct bench_trace_rec) == 32, "trace record: 32 bytes");
#define BENCH_TRACE_F_GROUP_COMMIT	1u	/* --group-commit on */

/* ------------------------------------------------------- the optimum */

#define BENCH_OPT_PAGE		4096u		/* the ideal cache's unit */
#define BENCH_OPT_MAX_IO	(256u << 10)	/* default largest merged writeback (fcache's) */
#define BENCH_OPT_MAX_IO_LIMIT	(4u << 20)	/* the largest accepted */
#define BENCH_OPT_MERGE_WINDOW	1024u		/* requests (docs/PERFORMANCE.md) */

struct bench_opt_in {
	uint64_t flash_bytes;	/* capacity: flash_bytes / BENCH_OPT_PAGE pages, at least 1 */
	uint32_t max_io;	/* bytes: largest origin write merging contiguous dirty pages */
	/* merged writebacks join pages written at most this many requests apart (0: the default) */
	uint32_t merge_window;
};

struct bench_opt {
	/* the trace */
	uint64_t records;	/* records given */
	uint64_t reads, writes, sync_writes, flushes, commits;	/* requests by kind */
	uint64_t read_pages, write_pages;	/* 4 KiB pages they cover */
	uint64_t pages;		/* distinct pages touched */
	uint64_t written;	/* distinct pages written */
	uint64_t cap_pages;	/* the ideal cache's capacity */
	uint32_t max_read_pages;	/* the largest read request, pages */
	uint32_t max_io_pages;
	/* read hits (pages) of the optimal replacement, every page fetched on a miss cached */
	uint64_t min_hits;
	/* ... and when a miss or a write may go around the cache (bypass) */
	uint64_t byp_hits;
	/*
	 * A lower bound of the origin operations of any cache of cap_pages
	 * (docs/PERFORMANCE.md): reads and writebacks (what is dirty at the
	 * end is not counted).
	 */
	double lb_reads, lb_writes;
	uint64_t versions;	/* page versions written */
	uint64_t held;		/* of them, held in the bound until overwritten or the end */
	/* an offline schedule that reaches the model's costs (an upper bound of the optimum) */
	uint64_t s_hits;	/* read hits, pages */
	uint64_t s_read_ops;	/* origin reads: read requests with a page missing */
	uint64_t s_write_ops;	/* origin writes: writebacks, merged */
	uint64_t s_end_pages;	/* pages dirty at the end (not counted) */
};

/*
 * The optimum of @n records @rec under @in into @out: 0, or -1 with errno
 * (EINVAL: no capacity, @in->max_io not a multiple of 4 KiB or above 4 MiB, or more than
 * 2^31 requests or page accesses; ENOMEM).
 */
int bench_opt_compute(const struct bench_trace_rec *rec, size_t n,
		      const struct bench_opt_in *in, struct bench_opt *out);
/* Origin operations of the lower bound, and of the schedule. */
double bench_opt_lb(const struct bench_opt *o);
uint64_t bench_opt_sched(const struct bench_opt *o);
/* Read hit ratio (0..1) of @hits over o->read_pages; -1 without reads. */
double bench_opt_ratio(const struct bench_opt *o, uint64_t hits);

/* ------------------------------------------------ the trace file (I/O) */

struct bench_trace;	/* a trace being written (bench_trace.c) */

/* Create @path (truncated) with @h's fields: the handle, or NULL (said). */
struct bench_trace *bench_trace_open(const char *path, const struct bench_trace_hdr *h);
/* Append a record (buffered); an error shows at bench_trace_close. */
void bench_trace_add(struct bench_trace *t, const struct bench_trace_rec *r);
/* Write the counts into the header and close: 0, or -1 (said). */
int bench_trace_close(struct bench_trace *t);
/*
 * Read the trace @path: its header into @h and its records into *@rec
 * (malloc, *@n of them): 0, or -1 (said: not a trace, another byte order
 * or version, truncated, no memory).
 */
int bench_trace_read(const char *path, struct bench_trace_hdr *h,
		     struct bench_trace_rec **rec, size_t *n);

/*
 * Read the trace @path and compute its optimum into @o, the ideal cache
 * holding @flash_bytes (0: the trace's) with writebacks of up to @max_io;
 * the header into @h, the time taken into *@secs.  0, or -1 (said).
 */
int bench_trace_optimum(const char *path, uint64_t flash_bytes, uint32_t max_io,
			struct bench_trace_hdr *h, struct bench_opt *o, double *secs);

/* I/O completed by a block device (its sysfs stat), for origin operations. */
struct bench_devio {
	uint64_t reads, writes;		/* requests completed (flushes not included) */
	uint64_t rd_sectors, wr_sectors;
};
/*
 * The counters of block device @dev and the sum of its members' (the md
 * spindles: /sys/dev/block/M:m/slaves/; *@nslaves of them, 0 if none):
 * 0, or -1 (not a block device, no stat).
 */
int bench_devio_read(const char *dev, struct bench_devio *io, struct bench_devio *slaves,
		     int *nslaves);
/* @d = @a - @b, counter by counter. */
void bench_devio_sub(struct bench_devio *d, const struct bench_devio *a,
		     const struct bench_devio *b);

#endif
