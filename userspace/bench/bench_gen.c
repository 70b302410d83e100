// SPDX-License-Identifier: GPL-2.0
/*
 * The OLTP transaction engine of `fcachectl bench` (layout in bench_int.h).
 *
 * One thread, one io_uring.  Every user is a small state machine; a user
 * has at most one I/O in flight, so 128 users cost 128 outstanding I/Os and
 * no threads.  A transaction reads its pages one after the other through
 * an in-process buffer pool (frames hold only page number and version: the
 * page images are generated from them), updates some of them in memory
 * (version + 1, frame dirty), and commits by writing a redo record to the
 * log region with RWF_DSYNC.  A page cleaner flushes dirty frames oldest
 * first in batches, then fdatasyncs the batch, as InnoDB's page cleaner
 * does.  Read-only transactions write no redo.
 *
 * Integrity: disk_ver[page] is the version the device must return for a
 * page that is not in the buffer pool (a page is only read when it is not
 * resident, and a resident page is never evicted with a write in flight),
 * so every read is checked exactly: magic, checksum, page number, version.
 *
 * The frame lists: a frame is on exactly one of free / lru (clean, idle) /
 * flush (dirty, not being written) or on none (being read or written).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/fs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_int.h"
#include "fc_dev.h"

#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif

/* ---------------------------------------------------------------- utils */

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

static uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static void *xalloc_aligned(size_t n)
{
	void *p;

	if (posix_memalign(&p, 4096, n))
		return NULL;
	memset(p, 0, n);
	return p;
}

/* ---------------------------------------------------------- page images */

static void page_fill(void *buf, uint32_t ps, uint64_t page, uint64_t ver)
{
	struct bench_page_hdr *h = buf;
	uint64_t *w = buf;
	uint64_t x = (page * 0x9e3779b97f4a7c15ull) ^ (ver * 0xc2b2ae3d27d4eb4full);
	size_t i, n = ps / 8;

	for (i = sizeof(*h) / 8; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		w[i] = x;
	}
	h->magic = BENCH_PAGE_MAGIC;
	h->page = page;
	h->version = ver;
	h->checksum = 0;
	h->checksum = hash_words(w, n);
}

/* 0 good; else fills @msg. */
static int page_check(void *buf, uint32_t ps, uint64_t page, uint64_t ver,
		      char *msg, size_t len)
{
	struct bench_page_hdr *h = buf;
	uint64_t sum = h->checksum, got;

	h->checksum = 0;
	got = hash_words(buf, ps / 8);
	h->checksum = sum;
	if (h->magic != BENCH_PAGE_MAGIC) {
		snprintf(msg, len, "page %llu: no page header (magic %#llx): "
			 "garbage or zeros where a page should be",
			 (unsigned long long)page, (unsigned long long)h->magic);
		return -1;
	}
	if (got != sum) {
		snprintf(msg, len, "page %llu: checksum mismatch (torn or "
			 "corrupted page)", (unsigned long long)page);
		return -1;
	}
	if (h->page != page) {
		snprintf(msg, len, "page %llu: found page %llu in its place "
			 "(misdirected write or read)", (unsigned long long)page,
			 (unsigned long long)h->page);
		return -1;
	}
	if (h->version != ver) {
		snprintf(msg, len, "page %llu: %s version %llu, expected %llu",
			 (unsigned long long)page,
			 h->version < ver ? "STALE" : "unexpected",
			 (unsigned long long)h->version, (unsigned long long)ver);
		return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- header */

static uint64_t hdr_sum(const struct bench_hdr *h)
{
	struct bench_hdr c = *h;

	c.checksum = 0;
	return hash_words((const uint64_t *)&c, sizeof(c) / 8);
}

static int hdr_read(int fd, struct bench_hdr *h, const char *dev)
{
	void *b = xalloc_aligned(4096);
	int ret = -1;

	if (!b)
		return -1;
	if (pread(fd, b, 4096, 0) != 4096) {
		fc_err(BENCH_WHO, "%s: cannot read the header: %s", dev,
			strerror(errno));
		goto out;
	}
	memcpy(h, b, sizeof(*h));
	if (h->magic != BENCH_HDR_MAGIC || hdr_sum(h) != h->checksum ||
	    !h->page_size || !h->npages) {
		fc_err(BENCH_WHO, "%s holds no benchmark datafile; run "
			"`fcachectl bench prepare %s` first", dev, dev);
		goto out;
	}
	ret = 0;
out:
	free(b);
	return ret;
}

int bench_own_header(int fd)
{
	struct bench_hdr *h = xalloc_aligned(4096);
	int ours;

	if (!h)
		return 0;
	ours = pread(fd, h, 4096, 0) == 4096 &&
	       (h->magic == BENCH_HDR_MAGIC || h->magic == BENCH_FLASH_MAGIC) &&
	       hdr_sum(h) == h->checksum;
	free(h);
	return ours;
}

int bench_mark_flash(const char *flash)
{
	struct bench_hdr *h = xalloc_aligned(1 << 20);
	int fd = open(flash, O_WRONLY | O_DIRECT), ret = -1;

	if (h && fd >= 0) {
		h->magic = BENCH_FLASH_MAGIC;
		h->checksum = hdr_sum(h);
		if (pwrite(fd, h, 1 << 20, 0) == 1 << 20 && fdatasync(fd) == 0)
			ret = 0;
	}
	if (ret)
		fc_err(BENCH_WHO, "warning: cannot mark %s as the benchmark's flash (%s); "
			"the next compare may need --force", flash, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(h);
	return ret;
}

static int hdr_write(int fd, struct bench_hdr *h)
{
	void *b = xalloc_aligned(4096);
	int ret = 0;

	if (!b)
		return -1;
	h->checksum = hdr_sum(h);
	memcpy(b, h, sizeof(*h));
	if (pwrite(fd, b, 4096, 0) != 4096 || fdatasync(fd) < 0)
		ret = -1;
	free(b);
	return ret;
}

static uint64_t map_bytes(uint64_t npages)
{
	return (npages * 4 + 4095) & ~4095ull;
}

static int map_io(int fd, const struct bench_hdr *h, uint32_t *ver, int wr)
{
	uint64_t n = map_bytes(h->npages);
	void *b = xalloc_aligned(n);
	ssize_t r;

	if (!b)
		return -1;
	if (wr) {
		memcpy(b, ver, h->npages * 4);
		r = pwrite(fd, b, n, h->map_off);
	} else {
		r = pread(fd, b, n, h->map_off);
		memcpy(ver, b, h->npages * 4);
	}
	free(b);
	return r == (ssize_t)n ? 0 : -1;
}

static int open_dev(const char *dev, int direct, int flags)
{
	int fd = open(dev, flags | (direct ? O_DIRECT : 0));

	if (fd < 0 && direct && errno == EINVAL) {
		fc_err(BENCH_WHO, "%s does not support O_DIRECT; use "
			"--no-direct for a file on such a filesystem", dev);
		return -1;
	}
	if (fd < 0)
		fc_err(BENCH_WHO, "cannot open %s: %s", dev, strerror(errno));
	return fd;
}

/*
 * Wait for a completion; a signal (SIGINT/SIGTERM asking the run to stop)
 * is no error here: giving up would leave writes in flight behind a version
 * map that does not know them.
 */
static int wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
{
	int r;

	do
		r = io_uring_wait_cqe(ring, cqe);
	while (r == -EINTR);
	return r;
}

/* Write page images (@pages NULL: all pages, in 1 MiB chunks) of @ver. */
static int write_pages(int fd, const struct bench_hdr *h, const uint64_t *pages,
		       uint64_t n, uint64_t ver)
{
	struct io_uring ring;
	enum { QD = 32 };
	uint32_t ps = h->page_size;
	uint64_t per = pages ? 1 : (1u << 20) / ps;
	uint64_t chunk = per * ps, next = 0, done = 0, total;
	void *buf[QD];
	int inflight = 0, i, ret = -1, freeb[QD], nfree = QD;

	if (!per)
		per = 1, chunk = ps;
	total = pages ? n : (h->npages + per - 1) / per;
	if (io_uring_queue_init(2 * QD, &ring, 0) < 0) {
		fc_err(BENCH_WHO, "io_uring is not available");
		return -1;
	}
	for (i = 0; i < QD; i++) {
		buf[i] = xalloc_aligned(chunk);
		freeb[i] = i;
	}
	while (done < total) {
		while (next < total && nfree) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			int b = freeb[--nfree];
			uint64_t first = pages ? pages[next] : next * per;
			uint64_t cnt = pages ? 1 : per, k;

			if (first + cnt > h->npages)
				cnt = h->npages - first;
			for (k = 0; k < cnt; k++)
				page_fill((char *)buf[b] + k * ps, ps, first + k, ver);
			io_uring_prep_write(sqe, fd, buf[b], cnt * ps,
					    h->data_off + first * ps);
			io_uring_sqe_set_data64(sqe, b | (cnt * ps) << 8);
			next++;
			inflight++;
		}
		struct io_uring_cqe *cqe;

		if (io_uring_submit(&ring) < 0 || wait_cqe(&ring, &cqe) < 0)
			goto out;
		uint64_t d = io_uring_cqe_get_data64(cqe);

		if (cqe->res < 0 || (uint64_t)cqe->res != d >> 8) {
			fc_err(BENCH_WHO, "write failed: %s",
				cqe->res < 0 ? strerror(-cqe->res) : "short write");
			io_uring_cqe_seen(&ring, cqe);
			goto out;
		}
		freeb[nfree++] = d & 0xff;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
		done++;
	}
	ret = 0;
out:
	while (inflight > 0) {
		struct io_uring_cqe *cqe;

		if (wait_cqe(&ring, &cqe) < 0)
			break;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
	}
	io_uring_queue_exit(&ring);
	for (i = 0; i < QD; i++)
		free(buf[i]);
	return ret;
}

int bench_prepare(const char *dev, double size_mb, unsigned page_kib,
		  double log_mb, int direct, int quiet)
{
	struct bench_hdr h;
	uint64_t size, est, ps = page_kib * 1024ull, logsz;
	uint32_t *ver;
	uint64_t t0 = fc_now_ns(), i;
	struct stat st;
	int fd;

	if (page_kib < 4 || page_kib > 64 || (page_kib & (page_kib - 1))) {
		fc_err(BENCH_WHO, "--page-size must be 4, 8, 16, 32 or 64 (KiB)");
		return 2;
	}
	if (stat(dev, &st) == 0 && S_ISREG(st.st_mode) && size_mb > 0) {
		if (truncate(dev, (off_t)(size_mb * 1048576)) < 0) {
			fc_err(BENCH_WHO, "%s: %s", dev, strerror(errno));
			return 1;
		}
	} else if (stat(dev, &st) < 0 && size_mb > 0) {
		fd = open(dev, O_CREAT | O_RDWR, 0644);
		if (fd < 0 || ftruncate(fd, (off_t)(size_mb * 1048576)) < 0) {
			fc_err(BENCH_WHO, "%s: %s", dev, strerror(errno));
			return 1;
		}
		close(fd);
	}
	if (fc_path_size(dev, &size) < 0) {
		fc_err(BENCH_WHO, "%s: %s", dev, strerror(errno));
		return 1;
	}
	if (size_mb > 0 && size_mb * 1048576 < size)
		size = (uint64_t)(size_mb * 1048576);
	logsz = log_mb > 0 ? (uint64_t)(log_mb * 1048576) : size / 16;
	if (logsz > (64ull << 20))
		logsz = 64ull << 20;
	logsz &= ~4095ull;
	if (logsz < 16 * BENCH_LOG_REC)
		logsz = 16 * BENCH_LOG_REC;
	if (size < logsz + (2ull << 20) + 16 * ps) {
		fc_err(BENCH_WHO, "%s is too small (%llu bytes)", dev,
			(unsigned long long)size);
		return 1;
	}
	memset(&h, 0, sizeof(h));
	h.magic = BENCH_HDR_MAGIC;
	h.page_size = ps;
	h.map_off = 4096;
	est = (size - logsz - (1ull << 20)) / ps;
	h.data_off = (4096 + map_bytes(est) + (1ull << 20) - 1) & ~((1ull << 20) - 1);
	h.npages = (size - logsz - h.data_off) / ps;
	h.log_off = h.data_off + h.npages * ps;
	h.log_size = logsz;
	fd = open_dev(dev, direct, O_RDWR);
	if (fd < 0)
		return 1;
	h.clean = 0;
	if (hdr_write(fd, &h) < 0 || write_pages(fd, &h, NULL, 0, 1) < 0) {
		fc_err(BENCH_WHO, "%s: writing the datafile failed", dev);
		close(fd);
		return 1;
	}
	ver = malloc(h.npages * 4);
	for (i = 0; i < h.npages; i++)
		ver[i] = 1;
	h.clean = 1;
	if (map_io(fd, &h, ver, 1) < 0 || fdatasync(fd) < 0 || hdr_write(fd, &h) < 0) {
		fc_err(BENCH_WHO, "%s: writing the version map failed", dev);
		free(ver);
		close(fd);
		return 1;
	}
	free(ver);
	close(fd);
	if (!quiet)
		printf("prepared %s: %llu pages of %u KiB (%.1f MiB datafile), "
		       "redo log %.1f MiB, in %.1f s\n", dev,
		       (unsigned long long)h.npages, page_kib,
		       h.npages * (double)ps / 1048576, logsz / 1048576.0,
		       (fc_now_ns() - t0) / 1e9);
	return 0;
}

/*
 * Restore the prepared state (every page at version 1) by rewriting only
 * the pages whose version is not 1 in @ver (the final versions of a run),
 * or all pages sequentially when more than a quarter of them changed.
 */
int bench_restore(const char *dev, const uint32_t *ver, int direct)
{
	struct bench_hdr h;
	uint64_t *pages, n = 0, i;
	uint32_t *one;
	int fd, ret = -1;

	fd = open_dev(dev, direct, O_RDWR);
	if (fd < 0)
		return -1;
	if (hdr_read(fd, &h, dev) < 0)
		goto out;
	pages = malloc(h.npages * sizeof(*pages));
	one = malloc(h.npages * 4);
	for (i = 0; i < h.npages; i++) {
		one[i] = 1;
		if (ver[i] != 1)
			pages[n++] = i;
	}
	h.clean = 0;
	/* many scattered pages: one sequential pass is faster on spindles */
	if (hdr_write(fd, &h) == 0 &&
	    write_pages(fd, &h, n > h.npages / 4 ? NULL : pages, n, 1) == 0 &&
	    map_io(fd, &h, one, 1) == 0 && fdatasync(fd) == 0) {
		h.clean = 1;
		h.runs = 0;
		ret = hdr_write(fd, &h);
	}
	free(pages);
	free(one);
out:
	close(fd);
	return ret;
}

/* ------------------------------------------------------------- profiles */

static const struct bench_profile profiles[] = {
	{ "tpcc", "TPC-C transaction mix (new-order 45%, payment 43%, "
	  "order-status, delivery, stock-level 4% each), page read:write ~1.9:1",
	  5, {
		{ "new_order", 45, 11, 6, 0, 0 },
		{ "payment", 43, 4, 3, 0, 0 },
		{ "order_status", 4, 3, 0, 1, 3 },
		{ "delivery", 4, 10, 6, 0, 0 },
		{ "stock_level", 4, 2, 0, 2, 9 },
	} },
	{ "read-write", "sysbench oltp_read_write-like: 10 point selects, "
	  "4 range selects, 2 updates, 1 delete, 1 insert",
	  1, { { "oltp_read_write", 100, 14, 4, 4, 2 } } },
	{ "read-only", "sysbench oltp_read_only-like: 10 point selects, "
	  "4 range selects", 1, { { "oltp_read_only", 100, 10, 0, 4, 2 } } },
};

const struct bench_profile *bench_profile_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

/* --------------------------------------------------------------- engine */

enum { FR_FREE, FR_READING, FR_CLEAN, FR_DIRTY };
enum { L_NONE, L_FREE, L_LRU, L_FLUSH };
enum { U_IDLE, U_RUN, U_WAIT_READ, U_WAIT_PAGE, U_WAIT_FRAME, U_WAIT_LOG };
enum { K_READ = 1, K_LOG, K_CWRITE, K_CSYNC };

#define MAX_ACC 64
#define NIL (-1)

struct frame {
	uint64_t page;
	uint32_t version;
	uint32_t write_ver;
	uint8_t state, list, writing;
	int32_t prev, next;	/* list links */
	int32_t hnext;		/* hash chain */
	int32_t waiters;	/* users waiting for this page's read */
};

struct flist { int32_t head, tail; uint64_t n; };

struct user {
	int state;
	int type;
	int nacc, idx, nupd;
	uint64_t acc[MAX_ACC];	/* page | update flag (bit 63) */
	uint64_t t0;
	uint64_t rng;
	int frame;		/* frame this user reads into */
	int wnext;		/* next user on a wait list */
	int own_read;		/* the current access missed */
	void *buf, *logbuf;
};

struct engine {
	const struct bench_opts *o;
	const struct bench_profile *p;
	struct bench_result *r;
	struct bench_hdr h;
	int fd;
	struct io_uring ring;
	uint32_t *disk_ver;
	struct frame *fr;
	uint64_t nframes;
	int32_t *hash;
	uint64_t hmask;
	struct flist free_l, lru, flush;
	uint64_t ndirty;
	struct user *u;
	int nusers, active, stopping;
	int fwait_head, fwait_tail;	/* users waiting for a free frame */
	/* cleaner */
	int c_busy, c_pending, c_syncing, c_n;
	int32_t *c_frames;
	void *c_buf;
	uint64_t c_last;
	/* distribution */
	double zeta_n, zeta2, z_alpha, z_eta, par_k;
	uint64_t hot_n, perm_a, perm_b;
	uint64_t log_next, log_recs;
	/* measurement */
	struct bench_counts *cur;	/* counters of the current phase */
	struct bench_hist *hcur;
	uint64_t phase_end;
	struct bench_counts ic;		/* current interval */
	struct bench_counts unmeasured;
	struct bench_hist ih;
	uint64_t t_start;
	int64_t force_page;		/* inject hook: next access */
	int failed;
	uint64_t inflight;
	uint64_t inject_at;
	int *ready;		/* users with a new transaction to start */
	unsigned r_head, r_tail;
	int r_n;
};

static void l_del(struct engine *e, struct flist *l, int32_t i)
{
	struct frame *f = &e->fr[i];

	if (f->prev != NIL)
		e->fr[f->prev].next = f->next;
	else
		l->head = f->next;
	if (f->next != NIL)
		e->fr[f->next].prev = f->prev;
	else
		l->tail = f->prev;
	f->prev = f->next = NIL;
	f->list = L_NONE;
	l->n--;
}

static void l_add(struct engine *e, struct flist *l, int32_t i, int id)
{
	struct frame *f = &e->fr[i];

	f->prev = l->tail;
	f->next = NIL;
	if (l->tail != NIL)
		e->fr[l->tail].next = i;
	else
		l->head = i;
	l->tail = i;
	f->list = id;
	l->n++;
}

static uint64_t hslot(struct engine *e, uint64_t page)
{
	return (page * 0x9e3779b97f4a7c15ull >> 20) & e->hmask;
}

static int32_t h_find(struct engine *e, uint64_t page)
{
	int32_t i = e->hash[hslot(e, page)];

	while (i != NIL && e->fr[i].page != page)
		i = e->fr[i].hnext;
	return i;
}

static void h_del(struct engine *e, int32_t f)
{
	int32_t *pp = &e->hash[hslot(e, e->fr[f].page)];

	while (*pp != f)
		pp = &e->fr[*pp].hnext;
	*pp = e->fr[f].hnext;
}

static int32_t frame_alloc(struct engine *e, uint64_t page)
{
	int32_t f;
	uint64_t s;

	if (e->free_l.head != NIL) {
		f = e->free_l.head;
		l_del(e, &e->free_l, f);
	} else if (e->lru.head != NIL) {
		f = e->lru.head;
		l_del(e, &e->lru, f);
		h_del(e, f);
	} else {
		return NIL;
	}
	e->fr[f].page = page;
	e->fr[f].state = FR_READING;
	e->fr[f].waiters = NIL;
	s = hslot(e, page);
	e->fr[f].hnext = e->hash[s];
	e->hash[s] = f;
	return f;
}

static struct io_uring_sqe *get_sqe(struct engine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (!sqe) {
		io_uring_submit(&e->ring);
		sqe = io_uring_get_sqe(&e->ring);
	}
	e->inflight++;
	return sqe;
}

static void fail(struct engine *e, const char *fmt, const char *what)
{
	if (!e->failed)
		snprintf(e->r->error, sizeof(e->r->error), fmt, what);
	e->failed = 1;
}

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

static uint64_t rank_page(struct engine *e, uint64_t rank)
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

static void dist_init(struct engine *e)
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
}

static void txn_new(struct engine *e, struct user *u)
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
		uint64_t rank = draw_rank(e, &u->rng), pg = rank_page(e, rank);

		if (e->force_page >= 0 && i == 0) {
			pg = e->force_page;
			e->force_page = -1;
		}
		if (rank < e->hot_n)
			e->cur->hot_accesses++;
		u->acc[u->nacc++] = pg | (i < t->updates ? 1ull << 63 : 0);
	}
	for (i = 0; i < t->ranges; i++) {
		uint64_t rank = draw_rank(e, &u->rng), pg = rank_page(e, rank);

		if (rank < e->hot_n)
			e->cur->hot_accesses += t->range_len;
		for (k = 0; k < t->range_len && u->nacc < MAX_ACC; k++)
			u->acc[u->nacc++] = (pg + k) % e->h.npages;
	}
	u->idx = 0;
	u->nupd = 0;
	u->t0 = fc_now_ns();
	u->state = U_RUN;
}

static void kick_free_waiters(struct engine *e);
static void user_step(struct engine *e, int ui);

static void submit_log(struct engine *e, int ui)
{
	struct user *u = &e->u[ui];
	struct io_uring_sqe *sqe;
	uint64_t lsn = e->log_next++, *w = u->logbuf;
	int i;

	w[0] = BENCH_LOG_MAGIC;
	w[1] = lsn;
	w[2] = ui;
	w[3] = u->type;
	w[4] = u->nacc;
	for (i = 0; i < u->nacc; i++)
		w[5 + i] = u->acc[i];
	sqe = get_sqe(e);
	io_uring_prep_write(sqe, e->fd, u->logbuf, BENCH_LOG_REC,
			    e->h.log_off + (lsn % e->log_recs) * BENCH_LOG_REC);
	sqe->rw_flags = RWF_DSYNC;
	io_uring_sqe_set_data64(sqe, (uint64_t)K_LOG << 32 | ui);
	u->state = U_WAIT_LOG;
}

static void txn_commit(struct engine *e, int ui)
{
	struct user *u = &e->u[ui];
	uint64_t now = fc_now_ns(), us = (now - u->t0) / 1000;

	if (now <= e->phase_end) {
		e->cur->txns++;
		e->cur->txn_by_type[u->type]++;
		bh_add(e->hcur, us);
		e->ic.txns++;
		bh_add(&e->ih, us);
		if (u->nupd) {	/* its redo record was written with RWF_DSYNC */
			e->cur->log_writes++;
			e->ic.log_writes++;
		}
	}
	if (e->stopping || ui >= e->active) {
		u->state = U_IDLE;
		return;
	}
	txn_new(e, u);
	e->ready[e->r_tail++ % e->nusers] = ui;
	e->r_n++;
}

/* Run the users queued ready (each until it waits for I/O or commits). */
static void run_ready(struct engine *e)
{
	int n = e->r_n;

	while (n-- > 0 && !e->failed) {
		int ui = e->ready[e->r_head++ % e->nusers];

		e->r_n--;
		if (e->u[ui].state == U_RUN)
			user_step(e, ui);
	}
}

static void dirty_frame(struct engine *e, int32_t f)
{
	struct frame *fr = &e->fr[f];

	fr->version++;
	if (fr->state != FR_DIRTY) {
		if (fr->list == L_LRU)
			l_del(e, &e->lru, f);
		fr->state = FR_DIRTY;
		e->ndirty++;
		if (!fr->writing)
			l_add(e, &e->flush, f, L_FLUSH);
	}
}

static void user_step(struct engine *e, int ui)
{
	struct user *u = &e->u[ui];

	while (u->idx < u->nacc && !e->failed) {
		uint64_t a = u->acc[u->idx], pg = a & ~(1ull << 63);
		int32_t f = h_find(e, pg);

		if (f != NIL && e->fr[f].state == FR_READING) {
			u->wnext = e->fr[f].waiters;
			e->fr[f].waiters = ui;
			u->state = U_WAIT_PAGE;
			return;
		}
		if (f == NIL) {
			struct io_uring_sqe *sqe;

			f = frame_alloc(e, pg);
			if (f == NIL) {
				u->wnext = NIL;
				if (e->fwait_tail != NIL)
					e->u[e->fwait_tail].wnext = ui;
				else
					e->fwait_head = ui;
				e->fwait_tail = ui;
				u->state = U_WAIT_FRAME;
				e->cur->free_waits++;
				return;
			}
			u->frame = f;
			u->own_read = 1;
			sqe = get_sqe(e);
			io_uring_prep_read(sqe, e->fd, u->buf, e->h.page_size,
					   e->h.data_off + pg * e->h.page_size);
			io_uring_sqe_set_data64(sqe, (uint64_t)K_READ << 32 | ui);
			u->state = U_WAIT_READ;
			return;
		}
		/* resident */
		e->cur->page_accesses++;
		if (!u->own_read)
			e->cur->bp_hits++;
		u->own_read = 0;
		if (e->fr[f].list == L_LRU) {	/* touch: move to MRU end */
			l_del(e, &e->lru, f);
			l_add(e, &e->lru, f, L_LRU);
		}
		if (a >> 63) {
			dirty_frame(e, f);
			e->cur->page_updates++;
			u->nupd++;
		}
		u->idx++;
	}
	if (e->failed)
		return;
	if (u->nupd)
		submit_log(e, ui);
	else
		txn_commit(e, ui);
}

static void kick_free_waiters(struct engine *e)
{
	while (e->fwait_head != NIL &&
	       (e->free_l.head != NIL || e->lru.head != NIL) && !e->failed) {
		int ui = e->fwait_head;

		e->fwait_head = e->u[ui].wnext;
		if (e->fwait_head == NIL)
			e->fwait_tail = NIL;
		e->u[ui].state = U_RUN;
		user_step(e, ui);
	}
}

static void read_done(struct engine *e, int ui, int res)
{
	struct user *u = &e->u[ui];
	int32_t f = u->frame, w;
	struct frame *fr = &e->fr[f];
	char msg[400];

	e->cur->dev_reads++;
	e->ic.dev_reads++;
	e->r->pages_verified++;
	if (res != (int)e->h.page_size) {
		snprintf(msg, sizeof(msg), "read of page %llu failed: %s",
			 (unsigned long long)fr->page,
			 res < 0 ? strerror(-res) : "short read");
		fail(e, "%s", msg);
		return;
	}
	if (page_check(u->buf, e->h.page_size, fr->page, e->disk_ver[fr->page],
		       msg, sizeof(msg))) {
		e->cur->verify_errors++;
		e->r->verify_errors++;
		fail(e, "INTEGRITY FAILURE: %s", msg);
		return;
	}
	fr->state = FR_CLEAN;
	fr->version = e->disk_ver[fr->page];
	l_add(e, &e->lru, f, L_LRU);
	w = fr->waiters;
	fr->waiters = NIL;
	u->state = U_RUN;
	user_step(e, ui);
	while (w != NIL) {
		int nx = e->u[w].wnext;

		e->u[w].state = U_RUN;
		user_step(e, w);
		w = nx;
	}
}

/* Start a cleaner batch if one is due. */
static void cleaner_maybe_start(struct engine *e, uint64_t now, int force)
{
	uint64_t due = (uint64_t)(e->o->cleaner_interval_s * 1e9);
	int n = 0;

	if (e->c_busy || !e->flush.n)
		return;
	if (!force && e->fwait_head == NIL && e->ndirty < e->nframes / 4 &&
	    now - e->c_last < due)
		return;
	while (n < e->o->cleaner_batch && e->flush.head != NIL) {
		int32_t f = e->flush.head;
		struct frame *fr = &e->fr[f];
		struct io_uring_sqe *sqe;
		void *b = (char *)e->c_buf + (size_t)n * e->h.page_size;

		l_del(e, &e->flush, f);
		fr->writing = 1;
		fr->write_ver = fr->version;
		page_fill(b, e->h.page_size, fr->page, fr->version);
		sqe = get_sqe(e);
		io_uring_prep_write(sqe, e->fd, b, e->h.page_size,
				    e->h.data_off + fr->page * e->h.page_size);
		io_uring_sqe_set_data64(sqe, (uint64_t)K_CWRITE << 32 | n);
		e->c_frames[n++] = f;
	}
	e->c_busy = 1;
	e->c_n = n;
	e->c_pending = n;
	e->c_syncing = 0;
	e->c_last = now;
	e->cur->cleaner_batches++;
}

static void cleaner_write_done(struct engine *e, int res)
{
	struct io_uring_sqe *sqe;

	if (res != (int)e->h.page_size) {
		fail(e, "page cleaner write failed: %s",
		     res < 0 ? strerror(-res) : "short write");
		return;
	}
	e->cur->dev_writes++;
	e->ic.dev_writes++;
	if (--e->c_pending)
		return;
	sqe = get_sqe(e);
	io_uring_prep_fsync(sqe, e->fd, IORING_FSYNC_DATASYNC);
	io_uring_sqe_set_data64(sqe, (uint64_t)K_CSYNC << 32);
	e->c_syncing = 1;
}

static void cleaner_sync_done(struct engine *e, int res)
{
	int i;

	if (res < 0) {
		fail(e, "page cleaner fdatasync failed: %s", strerror(-res));
		return;
	}
	e->cur->fsyncs++;
	e->ic.fsyncs++;
	for (i = 0; i < e->c_n; i++) {
		int32_t f = e->c_frames[i];
		struct frame *fr = &e->fr[f];

		fr->writing = 0;
		e->disk_ver[fr->page] = fr->write_ver;
		if (fr->version == fr->write_ver) {
			fr->state = FR_CLEAN;
			e->ndirty--;
			l_add(e, &e->lru, f, L_LRU);
		} else {
			l_add(e, &e->flush, f, L_FLUSH);
		}
	}
	e->c_busy = 0;
	e->c_syncing = 0;
}

static void handle_cqe(struct engine *e, struct io_uring_cqe *cqe)
{
	uint64_t d = io_uring_cqe_get_data64(cqe);
	int kind = d >> 32, idx = d & 0xffffffff, res = cqe->res;

	e->inflight--;
	switch (kind) {
	case K_READ:
		read_done(e, idx, res);
		break;
	case K_LOG:
		if (res != BENCH_LOG_REC) {
			fail(e, "redo log write failed: %s",
			     res < 0 ? strerror(-res) : "short write");
			break;
		}
		txn_commit(e, idx);
		break;
	case K_CWRITE:
		cleaner_write_done(e, res);
		break;
	case K_CSYNC:
		cleaner_sync_done(e, res);
		break;
	}
}

/* Test hook: write an older version of a page behind the engine's back. */
static void inject_stale(struct engine *e)
{
	uint64_t r, pg = 0, best = ~0ull;
	void *b = xalloc_aligned(e->h.page_size);
	uint32_t v;

	for (r = 0; r < e->h.npages; r++) {
		pg = rank_page(e, r);
		if (h_find(e, pg) != NIL)
			continue;
		if (e->disk_ver[pg] >= 2)
			break;
		if (best == ~0ull)
			best = pg;
	}
	if (r == e->h.npages)
		pg = best;
	if (pg == ~0ull || !b) {
		free(b);
		return;
	}
	v = e->disk_ver[pg];
	page_fill(b, e->h.page_size, pg, v - 1);
	if (pwrite(e->fd, b, e->h.page_size, e->h.data_off + pg * e->h.page_size) < 0)
		fc_err(BENCH_WHO, "inject: %s", strerror(errno));
	fdatasync(e->fd);
	fc_err(BENCH_WHO, "test hook: wrote version %u of page %llu "
		"(expected %u) behind the generator's back", v - 1,
		(unsigned long long)pg, v);
	e->force_page = pg;
	free(b);
}

/* Has a signal asked the run to stop?  (Draining users does not look.) */
static int stop_requested(const struct engine *e)
{
	return e->o->stop && *e->o->stop;
}

static const char *stop_name(const struct engine *e)
{
	int sig = e->o->stop ? *e->o->stop : 0;

	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/*
 * Run the event loop until @until (ns) or a stop request or, with @drain,
 * until all users idle.
 */
static void loop(struct engine *e, uint64_t until, int drain, uint64_t *next_iv,
		 double *iv_t0, const char *label)
{
	struct __kernel_timespec ts = { 0, 5 * 1000 * 1000 };
	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		uint64_t now = fc_now_ns();
		int i, busy = 0;

		if (e->failed)
			return;
		if (e->inject_at && now >= e->inject_at) {
			e->inject_at = 0;
			inject_stale(e);
		}
		if (drain) {
			for (i = 0; i < e->nusers; i++)
				if (e->u[i].state != U_IDLE)
					busy = 1;
			if (!busy)
				return;
		} else if (now >= until || stop_requested(e)) {
			return;
		}
		if (next_iv && now >= *next_iv) {
			double dt = (now - (uint64_t)(*iv_t0 * 1e9)) / 1e9;

			if (!e->o->quiet)
				bench_print_interval(e->o->out, label,
					(now - e->t_start) / 1e9, e->active,
					e->ic.txns / dt, &e->ih, e->ic.dev_reads,
					e->ic.dev_writes,
					e->ic.log_writes + e->ic.fsyncs, dt);
			memset(&e->ic, 0, sizeof(e->ic));
			bh_reset(&e->ih);
			*iv_t0 = now / 1e9;
			*next_iv = now + (uint64_t)(e->o->interval_s * 1e9);
		}
		run_ready(e);
		cleaner_maybe_start(e, now, 0);
		io_uring_submit(&e->ring);
		if (e->r_n) {
			if (io_uring_peek_cqe(&e->ring, &cqe) < 0)
				continue;
		} else if (io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts) < 0) {
			continue;
		}
		io_uring_for_each_cqe(&e->ring, head, cqe) {
			handle_cqe(e, cqe);
			n++;
		}
		io_uring_cq_advance(&e->ring, n);
		kick_free_waiters(e);
		if (e->fwait_head != NIL)
			cleaner_maybe_start(e, now, 1);
	}
}

static void phase_start(struct engine *e, int users)
{
	int i;

	e->active = users;
	e->stopping = 0;
	for (i = 0; i < users; i++)
		if (e->u[i].state == U_IDLE) {
			txn_new(e, &e->u[i]);
			e->ready[e->r_tail++ % e->nusers] = i;
			e->r_n++;
		}
}

static void checkpoint(struct engine *e)
{
	e->stopping = 1;
	while (!e->failed && (e->flush.n || e->c_busy)) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		cleaner_maybe_start(e, fc_now_ns(), 1);
		io_uring_submit(&e->ring);
		if (wait_cqe(&e->ring, &cqe) < 0)
			break;
		io_uring_for_each_cqe(&e->ring, head, cqe) {
			handle_cqe(e, cqe);
			n++;
		}
		io_uring_cq_advance(&e->ring, n);
	}
}

static void step_finish(struct bench_step *s)
{
	s->tps = s->seconds > 0 ? s->c.txns / s->seconds : 0;
	s->avg_ms = bh_avg_ms(&s->lat);
	s->p95_ms = bh_pct_ms(&s->lat, 95);
	s->p99_ms = bh_pct_ms(&s->lat, 99);
	s->max_ms = s->lat.max_us / 1000.0;
}

int bench_run(const char *dev, const struct bench_opts *o, struct bench_result *r)
{
	struct engine *e = calloc(1, sizeof(*e));
	uint64_t i, bp_frames, min_frames, hsz, t_run;
	struct bench_hist *warm_h = NULL;
	const char *label = o->label ? o->label : "";
	int maxu = 0, s, ret = 1;
	uint64_t next_iv;
	double iv_t0;

	if (!e)
		return 1;
	e->o = o;
	e->r = r;
	e->p = bench_profile_find(o->profile);
	r->profile = e->p;
	snprintf(r->device, sizeof(r->device), "%s", dev);
	e->fwait_head = e->fwait_tail = NIL;
	e->force_page = -1;
	for (s = 0; s < o->nsteps; s++)
		if (o->users[s] > maxu)
			maxu = o->users[s];
	e->fd = open_dev(dev, o->direct, O_RDWR);
	if (e->fd < 0)
		goto out_free;
	if (hdr_read(e->fd, &e->h, dev) < 0)
		goto out_close;
	if (!e->h.clean) {
		fc_err(BENCH_WHO, "%s: the datafile was not closed cleanly "
			"(a run failed or was killed); run `fcachectl bench "
			"prepare %s` again", dev, dev);
		goto out_close;
	}
	r->npages = e->h.npages;
	r->page_size = e->h.page_size;
	e->disk_ver = malloc(e->h.npages * 4);
	if (!e->disk_ver || map_io(e->fd, &e->h, e->disk_ver, 0) < 0) {
		fc_err(BENCH_WHO, "%s: cannot read the version map", dev);
		goto out_close;
	}
	e->h.clean = 0;
	if (hdr_write(e->fd, &e->h) < 0) {
		fc_err(BENCH_WHO, "%s: cannot write the header: %s", dev,
			strerror(errno));
		goto out_close;
	}
	/* buffer pool */
	bp_frames = (uint64_t)(o->bp_mb * 1048576 / e->h.page_size);
	min_frames = 2 * (uint64_t)maxu + 64;
	e->nframes = bp_frames > min_frames ? bp_frames : min_frames;
	if (e->nframes > e->h.npages + min_frames)
		e->nframes = e->h.npages + min_frames;
	r->bp_frames = e->nframes;
	r->bp_mb = e->nframes * (double)e->h.page_size / 1048576;
	e->fr = calloc(e->nframes, sizeof(*e->fr));
	for (hsz = 1; hsz < 2 * e->nframes; hsz <<= 1)
		;
	e->hmask = hsz - 1;
	e->hash = malloc(hsz * sizeof(*e->hash));
	for (i = 0; i < hsz; i++)
		e->hash[i] = NIL;
	e->free_l.head = e->free_l.tail = e->lru.head = e->lru.tail = NIL;
	e->flush.head = e->flush.tail = NIL;
	for (i = 0; i < e->nframes; i++) {
		e->fr[i].prev = e->fr[i].next = NIL;
		e->fr[i].hnext = NIL;
		l_add(e, &e->free_l, i, L_FREE);
	}
	e->c_frames = malloc(o->cleaner_batch * sizeof(int32_t));
	e->c_buf = xalloc_aligned((size_t)o->cleaner_batch * e->h.page_size);
	e->nusers = maxu;
	e->u = calloc(maxu, sizeof(*e->u));
	e->ready = calloc(maxu, sizeof(int));
	for (s = 0; s < maxu; s++) {
		e->u[s].buf = xalloc_aligned(e->h.page_size);
		e->u[s].logbuf = xalloc_aligned(BENCH_LOG_REC);
		e->u[s].rng = o->seed * 1000003 + s;
		e->u[s].state = U_IDLE;
	}
	e->log_recs = e->h.log_size / BENCH_LOG_REC;
	dist_init(e);
	if (io_uring_queue_init(512, &e->ring, 0) < 0) {
		fc_err(BENCH_WHO, "io_uring is not available on this kernel");
		goto out_close;
	}
	warm_h = calloc(1, sizeof(*warm_h));
	e->t_start = fc_now_ns();
	if (o->inject_stale_s >= 0)
		e->inject_at = e->t_start + (uint64_t)(o->inject_stale_s * 1e9);
	t_run = e->t_start;
	iv_t0 = e->t_start / 1e9;
	next_iv = e->t_start + (uint64_t)(o->interval_s * 1e9);

	/* warm-up at the heaviest user count */
	if (o->warmup_s > 0) {
		e->cur = &r->warm;
		e->hcur = warm_h;
		e->phase_end = e->t_start + (uint64_t)(o->warmup_s * 1e9);
		phase_start(e, maxu);
		loop(e, e->phase_end, 0, &next_iv, &iv_t0, label);
		if (fc_now_ns() < e->phase_end && !e->failed)
			snprintf(r->stopped, sizeof(r->stopped), "stopped by %s in the "
				 "warm-up; no step measured", stop_name(e));
		e->stopping = 1;
		loop(e, 0, 1, NULL, NULL, label);
		r->warm_s = o->warmup_s;
	}
	for (s = 0; s < o->nsteps && !e->failed && !stop_requested(e); s++) {
		struct bench_step *st = &r->step[s];
		uint64_t t0 = fc_now_ns();

		st->users = o->users[s];
		e->cur = &st->c;
		e->hcur = &st->lat;
		memset(&e->ic, 0, sizeof(e->ic));
		bh_reset(&e->ih);
		iv_t0 = t0 / 1e9;
		next_iv = t0 + (uint64_t)(o->interval_s * 1e9);
		e->phase_end = t0 + (uint64_t)(o->time_s * 1e9);
		phase_start(e, st->users);
		loop(e, e->phase_end, 0, &next_iv, &iv_t0, label);
		st->seconds = (e->phase_end - t0) / 1e9;
		e->stopping = 1;
		if (fc_now_ns() < e->phase_end && !e->failed) {
			/* a shorter step is not comparable to the others: left out */
			snprintf(r->stopped, sizeof(r->stopped), "stopped by %s %.1f s into "
				 "the %d-user step, which is left out", stop_name(e),
				 (fc_now_ns() - t0) / 1e9, st->users);
			loop(e, 0, 1, NULL, NULL, label);
			memset(st, 0, sizeof(*st));
			break;
		}
		loop(e, 0, 1, NULL, NULL, label);
		step_finish(st);
		r->nsteps = s + 1;
	}
	if (stop_requested(e) && !r->stopped[0] && !e->failed && s < o->nsteps) {
		if (s)
			snprintf(r->stopped, sizeof(r->stopped), "stopped by %s after the "
				 "%d-user step", stop_name(e), o->users[s - 1]);
		else
			snprintf(r->stopped, sizeof(r->stopped), "stopped by %s after the "
				 "warm-up; no step measured", stop_name(e));
	}
	if (!e->failed) {
		e->cur = &e->unmeasured;	/* final checkpoint I/O */
		checkpoint(e);
	}
	r->elapsed_s = (fc_now_ns() - t_run) / 1e9;
	if (e->failed) {
		fc_err(BENCH_WHO, "%s: %s", dev, r->error);
		/* let in-flight I/O finish before the buffers go away */
		io_uring_submit(&e->ring);
		while (e->inflight > 0) {
			struct __kernel_timespec ts = { 10, 0 };
			struct io_uring_cqe *cqe;

			int rc = io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts);

			if (rc == -EINTR)
				continue;
			if (rc < 0)
				break;
			io_uring_cqe_seen(&e->ring, cqe);
			e->inflight--;
		}
		io_uring_queue_exit(&e->ring);
		goto out_close;
	}
	io_uring_queue_exit(&e->ring);
	if (map_io(e->fd, &e->h, e->disk_ver, 1) < 0 || fdatasync(e->fd) < 0) {
		fc_err(BENCH_WHO, "%s: cannot write the version map", dev);
		goto out_close;
	}
	e->h.clean = 1;
	e->h.runs++;
	if (hdr_write(e->fd, &e->h) < 0)
		goto out_close;
	r->final_ver = e->disk_ver;
	e->disk_ver = NULL;
	for (s = 0; s < r->nsteps; s++)
		if (r->step[s].avg_ms < o->rt_limit_s * 1000 &&
		    r->step[s].users > r->max_users_under_limit)
			r->max_users_under_limit = r->step[s].users;
	ret = r->stopped[0] ? BENCH_RUN_STOPPED : 0;
out_close:
	close(e->fd);
out_free:
	if (e->u)
		for (s = 0; s < e->nusers; s++) {
			free(e->u[s].buf);
			free(e->u[s].logbuf);
		}
	free(e->u);
	free(e->ready);
	free(e->fr);
	free(e->hash);
	free(e->c_frames);
	free(e->c_buf);
	free(e->disk_ver);
	free(warm_h);
	free(e);
	return ret;
}
