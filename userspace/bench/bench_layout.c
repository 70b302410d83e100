// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's datafile on the device (layout in bench_int.h): page
 * images generated from (page number, version) and checked on every read,
 * the header and the version map, `bench prepare` (lay it all out) and the
 * restore between the runs of `compare` (every page back to version 1).
 * Also the scratch header bench_mark_flash() leaves on compare's flash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_engine.h"
#include "fc_dev.h"

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

/* ---------------------------------------------------------- page images */

void bench_page_fill(void *buf, uint32_t ps, uint64_t page, uint64_t ver)
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

int bench_page_check(void *buf, uint32_t ps, uint64_t page, uint64_t ver,
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

int bench_hdr_read(int fd, struct bench_hdr *h, const char *dev)
{
	void *b = fc_io_alloc(4096);
	int ret = -1;
	ssize_t n;

	if (!b)
		return -1;
	n = pread(fd, b, 4096, 0);
	if (n < 0) {
		fc_err(BENCH_WHO, "%s: cannot read the header: %s", dev,
			strerror(errno));
		goto out;
	}
	if (n != 4096) {
		/* a short read is no error of the device: the file is too short */
		fc_err(BENCH_WHO, "%s holds no benchmark datafile (%zd bytes, shorter than its "
			"4096-byte header); run `fcachectl bench prepare %s` first", dev, n, dev);
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
	struct bench_hdr *h = fc_io_alloc(4096);
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
	struct bench_hdr *h = fc_io_alloc(1 << 20);
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

int bench_hdr_write(int fd, struct bench_hdr *h)
{
	void *b = fc_io_alloc(4096);
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

int bench_map_io(int fd, const struct bench_hdr *h, uint32_t *ver, int wr)
{
	uint64_t n = map_bytes(h->npages);
	void *b = fc_io_alloc(n);
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

int bench_open(const char *dev, int direct, int flags)
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
int bench_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe)
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
		buf[i] = fc_io_alloc(chunk);
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
				bench_page_fill((char *)buf[b] + k * ps, ps, first + k, ver);
			io_uring_prep_write(sqe, fd, buf[b], cnt * ps,
					    h->data_off + first * ps);
			io_uring_sqe_set_data64(sqe, b | (cnt * ps) << 8);
			next++;
			inflight++;
		}
		struct io_uring_cqe *cqe;

		if (io_uring_submit(&ring) < 0 || bench_wait_cqe(&ring, &cqe) < 0)
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

		if (bench_wait_cqe(&ring, &cqe) < 0)
			break;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
	}
	io_uring_queue_exit(&ring);
	for (i = 0; i < QD; i++)
		free(buf[i]);
	return ret;
}

/*
 * Every page of @h whose version in @ver is not 1 back to version 1, the
 * map all ones, the header clean with no runs; all pages sequentially when
 * more than a quarter of them changed: 0, or -1.
 */
static int restore_fd(int fd, struct bench_hdr *h, const uint32_t *ver, uint64_t *nchanged)
{
	uint64_t *pages, n = 0, i;
	uint32_t *one;
	int ret = -1;

	pages = malloc(h->npages * sizeof(*pages));
	one = malloc(h->npages * 4);
	if (!pages || !one)
		goto out;
	for (i = 0; i < h->npages; i++) {
		one[i] = 1;
		if (ver[i] != 1)
			pages[n++] = i;
	}
	h->clean = 0;
	/* many scattered pages: one sequential pass is faster on spindles */
	if (bench_hdr_write(fd, h) == 0 &&
	    write_pages(fd, h, n > h->npages / 4 ? NULL : pages, n, 1) == 0 &&
	    bench_map_io(fd, h, one, 1) == 0 && fdatasync(fd) == 0) {
		h->clean = 1;
		h->runs = 0;
		ret = bench_hdr_write(fd, h);
	}
	if (nchanged)
		*nchanged = n;
out:
	free(pages);
	free(one);
	return ret;
}

/*
 * Does @fd hold a clean datafile laid out as @want (compare's origin after an
 * earlier compare, whose last run is not restored)?  Then its map's changed
 * pages go back to version 1 (restore_fd(): what writing every page would
 * leave, at the cost of the changed ones): 1 done, 0 no such datafile,
 * -1 failed.
 */
static int reuse_clean(int fd, const struct bench_hdr *want, uint64_t *nchanged)
{
	struct bench_hdr *b = fc_io_alloc(4096), h;
	uint32_t *ver = NULL;
	int ret = 0;

	if (!b)
		return 0;
	if (pread(fd, b, 4096, 0) != 4096 || b->magic != BENCH_HDR_MAGIC ||
	    hdr_sum(b) != b->checksum || b->clean != 1 || b->page_size != want->page_size ||
	    b->npages != want->npages || b->map_off != want->map_off ||
	    b->data_off != want->data_off || b->log_off != want->log_off ||
	    b->log_size != want->log_size)
		goto out;
	h = *b;
	ver = malloc(h.npages * 4);
	if (!ver || bench_map_io(fd, &h, ver, 0) < 0)
		goto out;
	ret = restore_fd(fd, &h, ver, nchanged) == 0 ? 1 : -1;
out:
	free(ver);
	free(b);
	return ret;
}

int bench_prepare(const char *dev, double size_mb, unsigned page_kib,
		  double log_mb, int direct, int quiet, int reuse)
{
	uint64_t nchanged = 0;
	int reused = 0;
	struct bench_hdr h;
	uint64_t size, est, ps = page_kib * 1024ull, logsz;
	uint32_t *ver;
	uint64_t t0 = fc_now_ns(), i;
	struct stat st;
	int fd;

	if (page_kib < 4 || page_kib > 64 || (page_kib & (page_kib - 1))) {
		fc_err(BENCH_WHO, "--page-size must be 4, 8, 16, 32 or 64 (KiB)");
		return -1;
	}
	if (stat(dev, &st) == 0 && S_ISREG(st.st_mode) && size_mb > 0) {
		if (truncate(dev, (off_t)(size_mb * 1048576)) < 0) {
			fc_err(BENCH_WHO, "%s: %s", dev, strerror(errno));
			return -1;
		}
	} else if (stat(dev, &st) < 0 && size_mb > 0) {
		fd = open(dev, O_CREAT | O_RDWR, 0644);
		if (fd < 0 || ftruncate(fd, (off_t)(size_mb * 1048576)) < 0) {
			fc_err(BENCH_WHO, "%s: %s", dev, strerror(errno));
			return -1;
		}
		close(fd);
	}
	if (fc_path_size(dev, &size) < 0) {
		fc_err(BENCH_WHO, "%s: %s", dev, strerror(errno));
		return -1;
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
		return -1;
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
	fd = bench_open(dev, direct, O_RDWR);
	if (fd < 0)
		return -1;
	if (reuse)
		reused = reuse_clean(fd, &h, &nchanged);
	if (reused < 0) {
		fc_err(BENCH_WHO, "%s: restoring the datafile failed", dev);
		close(fd);
		return -1;
	}
	if (reused)
		goto done;
	h.clean = 0;
	if (bench_hdr_write(fd, &h) < 0 || write_pages(fd, &h, NULL, 0, 1) < 0) {
		fc_err(BENCH_WHO, "%s: writing the datafile failed", dev);
		close(fd);
		return -1;
	}
	ver = malloc(h.npages * 4);
	for (i = 0; i < h.npages; i++)
		ver[i] = 1;
	h.clean = 1;
	if (bench_map_io(fd, &h, ver, 1) < 0 || fdatasync(fd) < 0 || bench_hdr_write(fd, &h) < 0) {
		fc_err(BENCH_WHO, "%s: writing the version map failed", dev);
		free(ver);
		close(fd);
		return -1;
	}
	free(ver);
done:
	close(fd);
	if (!quiet && reused)
		printf("prepared %s: %llu pages of %u KiB (%.1f MiB datafile), "
		       "redo log %.1f MiB, by restoring the %llu pages an earlier run "
		       "changed, in %.1f s\n", dev,
		       (unsigned long long)h.npages, page_kib,
		       h.npages * (double)ps / 1048576, logsz / 1048576.0,
		       (unsigned long long)nchanged, (fc_now_ns() - t0) / 1e9);
	else if (!quiet)
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
	int fd, ret = -1;

	fd = bench_open(dev, direct, O_RDWR);
	if (fd < 0)
		return -1;
	if (bench_hdr_read(fd, &h, dev) == 0)
		ret = restore_fd(fd, &h, ver, NULL);
	close(fd);
	return ret;
}
