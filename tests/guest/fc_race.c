// SPDX-License-Identifier: GPL-2.0
/*
 * fc_race: O_DIRECT helpers for tests/guest/fc_recovery.sh.
 *
 *   fc_race fill DEV VOLNAME ROUNDS BLOCK_BYTES MAX_DELAY_US
 *     Promotion vs a write (issue 8 hole 4).  Round r uses cache block
 *     B = 2r + 1 of DEV (a write-around volume):
 *       message "invalidate" to VOLNAME (the volume caches nothing; sent
 *       with the DM_TARGET_MSG ioctl: a dmsetup exec a round is slow on TCG);
 *       write version v over blocks B-1 and B (goes around the cache);
 *       read 4 KiB of B (the ghost table sees B, the next read promotes);
 *       then, released together by a barrier, thread R reads 4 KiB of B
 *       (the fill) while thread W sleeps d us (d walks 0..MAX_DELAY_US over
 *       the rounds) and writes version v + 1 over blocks B-1 and B (64 KiB
 *       at 32 KiB blocks: its first block is uncached);
 *       finally 4 KiB of B are read again: anything but v + 1 is a stale
 *       round (the fill installed the older data over the acknowledged
 *       write).
 *     Prints "rounds N stale S bad-first-reads F" and exits 0 when S == 0
 *     and F == 0, 2 when S > 0, 1 on an I/O error or F > 0.
 *
 *   fc_race discard DEV OFFSET LENGTH [nosync]
 *     BLKDISCARD of LENGTH bytes at byte OFFSET, then fsync (unless
 *     nosync).  Unlike
 *     blkdiscard(8) it reads nothing first (blkdiscard probes the device
 *     for signatures, and on a cache those reads promote blocks).
 *     Exit 0, 1 if the discard fails, 3 if only the fsync fails.
 *
 *   fc_race rewrite DEV OFFSET COUNT FILE_C FILE_B
 *     COUNT 4 KiB O_DIRECT writes at byte OFFSET: the first COUNT-1 with
 *     the first 4 KiB of FILE_C (from 4 threads), then, once they all
 *     completed, the last with the first 4 KiB of FILE_B.
 *     Prints "writes N seconds T".  Exit 0, or 1 on any error.
 *
 * Every block of the fill test carries its version in every 8-byte word
 * (and the word's index), so a torn or mixed block is caught as well as a
 * stale one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>

static int fd;
static size_t bsz;
static pthread_barrier_t bar;

struct job {
	off_t off;
	size_t len;
	void *buf;
	unsigned int delay_us;
	ssize_t r;
	int err;
	int write;
};

static void fill_version(void *buf, size_t len, uint64_t v)
{
	uint64_t *p = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		p[i] = v * 0x100000001ull ^ (i << 48);
}

static void *run_job(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(&bar);
	if (j->delay_us)
		usleep(j->delay_us);
	if (j->write)
		j->r = pwrite(fd, j->buf, j->len, j->off);
	else
		j->r = pread(fd, j->buf, j->len, j->off);
	j->err = errno;
	return NULL;
}

/* dmsetup message NAME 0 MSG, without the exec. */
static int dm_message(const char *name, const char *msg)
{
	static char buf[16384] __attribute__((aligned(8)));
	struct dm_ioctl *dmi = (struct dm_ioctl *)buf;
	struct dm_target_msg *m = (struct dm_target_msg *)(buf + sizeof(*dmi));
	int cfd, r;

	memset(buf, 0, sizeof(buf));
	dmi->version[0] = DM_VERSION_MAJOR;
	dmi->data_size = sizeof(buf);
	dmi->data_start = sizeof(*dmi);
	snprintf(dmi->name, sizeof(dmi->name), "%s", name);
	m->sector = 0;
	snprintf(m->message, sizeof(buf) - sizeof(*dmi) - sizeof(*m), "%s", msg);
	cfd = open("/dev/mapper/control", O_RDWR);
	if (cfd < 0)
		return -1;
	r = ioctl(cfd, DM_TARGET_MSG, dmi);
	close(cfd);
	return r;
}

static int io(int write, void *buf, size_t len, off_t off)
{
	ssize_t r = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);

	if (r != (ssize_t)len) {
		fprintf(stderr, "fc_race: %s %zu at %lld: %s\n", write ? "write" : "read",
			len, (long long)off, r < 0 ? strerror(errno) : "short");
		return -1;
	}
	return 0;
}

static int do_fill(const char *dev, const char *vol, int rounds, unsigned int max_delay)
{
	void *wbuf, *rbuf, *cbuf, *w2buf;
	int r, stale = 0, bad_rounds = 0;

	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	if (posix_memalign(&wbuf, 4096, 2 * bsz) || posix_memalign(&w2buf, 4096, 2 * bsz) ||
	    posix_memalign(&rbuf, 4096, 4096) || posix_memalign(&cbuf, 4096, 4096))
		return 1;
	for (r = 0; r < rounds; r++) {
		off_t b = 2 * (off_t)r + 1;
		uint64_t v = 1000 + 2 * (uint64_t)r;
		struct job jr = { .off = b * bsz, .len = 4096, .buf = rbuf, .write = 0 };
		struct job jw = { .off = (b - 1) * bsz, .len = 2 * bsz, .buf = w2buf, .write = 1 };
		pthread_t tr, tw;

		if (dm_message(vol, "invalidate")) {
			fprintf(stderr, "fc_race: round %d: message %s 0 invalidate: %s\n", r, vol,
				strerror(errno));
			return 1;
		}
		fill_version(wbuf, 2 * bsz, v);
		fill_version(w2buf, 2 * bsz, v + 1);
		if (io(1, wbuf, 2 * bsz, (b - 1) * bsz) || io(0, cbuf, 4096, b * bsz))
			return 1;
		if (memcmp(cbuf, (char *)wbuf + bsz, 4096)) {
			fprintf(stderr, "fc_race: round %d: the first read of block %lld does not return the version just written\n",
				r, (long long)b);
			bad_rounds++;
		}
		jw.delay_us = max_delay ? (unsigned int)((r * 7919u) % (max_delay + 1)) : 0;
		pthread_barrier_init(&bar, NULL, 2);
		pthread_create(&tr, NULL, run_job, &jr);
		pthread_create(&tw, NULL, run_job, &jw);
		pthread_join(tr, NULL);
		pthread_join(tw, NULL);
		pthread_barrier_destroy(&bar);
		if (jr.r != 4096 || jw.r != (ssize_t)(2 * bsz)) {
			fprintf(stderr, "fc_race: round %d: racing I/O failed (read %zd write %zd: %s)\n",
				r, jr.r, jw.r, strerror(jr.r < 0 ? jr.err : jw.err));
			return 1;
		}
		if (io(0, cbuf, 4096, b * bsz))
			return 1;
		if (memcmp(cbuf, (char *)w2buf + bsz, 4096)) {
			stale++;
			fprintf(stderr, "fc_race: round %d: block %lld reads %s after the write of version %llu (write delay %u us)\n",
				r, (long long)b,
				!memcmp(cbuf, (char *)wbuf + bsz, 4096) ? "the OLDER version" : "garbage",
				(unsigned long long)(v + 1), jw.delay_us);
		}
	}
	printf("rounds %d stale %d bad-first-reads %d\n", rounds, stale, bad_rounds);
	close(fd);
	return stale ? 2 : bad_rounds ? 1 : 0;
}

static int load4k(const char *path, void *buf)
{
	int f = open(path, O_RDONLY);
	ssize_t r;

	if (f < 0) {
		perror(path);
		return -1;
	}
	r = read(f, buf, 4096);
	close(f);
	if (r != 4096) {
		fprintf(stderr, "fc_race: %s: short\n", path);
		return -1;
	}
	return 0;
}

struct rw_job {
	void *buf;
	off_t off;
	long n;
	int failed;
};

static void *rewrite_job(void *arg)
{
	struct rw_job *j = arg;
	long i;

	for (i = 0; i < j->n; i++)
		if (io(1, j->buf, 4096, j->off)) {
			j->failed = 1;
			break;
		}
	return NULL;
}

#define RW_THREADS 4

static int do_rewrite(const char *dev, off_t off, long count, const char *fc, const char *fb)
{
	struct rw_job jobs[RW_THREADS];
	pthread_t t[RW_THREADS];
	void *c, *b;
	struct timespec t0, t1;
	long done = 0;
	int i, failed = 0;

	if (posix_memalign(&c, 4096, 4096) || posix_memalign(&b, 4096, 4096))
		return 1;
	if (load4k(fc, c) || load4k(fb, b))
		return 1;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	if (count < 1)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < RW_THREADS; i++) {
		jobs[i].buf = c;
		jobs[i].off = off;
		jobs[i].n = (count - 1) / RW_THREADS + (i < (count - 1) % RW_THREADS);
		jobs[i].failed = 0;
		done += jobs[i].n;
		pthread_create(&t[i], NULL, rewrite_job, &jobs[i]);
	}
	for (i = 0; i < RW_THREADS; i++) {
		pthread_join(t[i], NULL);
		failed |= jobs[i].failed;
	}
	/* all COUNT - 1 completed: B is the last write */
	if (failed || done != count - 1 || io(1, b, 4096, off))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("writes %ld seconds %.2f\n", count,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	close(fd);
	return 0;
}

static int do_discard(const char *dev, uint64_t off, uint64_t len, int sync)
{
	uint64_t range[2] = { off, len };
	int f = open(dev, O_RDWR | O_DIRECT);

	if (f < 0) {
		perror(dev);
		return 1;
	}
	if (ioctl(f, BLKDISCARD, range)) {
		perror("BLKDISCARD");
		return 1;
	}
	if (sync && fsync(f)) {
		perror("fsync");
		return 3;
	}
	close(f);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "nosync"))) &&
	    !strcmp(argv[1], "discard"))
		return do_discard(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
				  argc == 5);
	if (argc == 7 && !strcmp(argv[1], "fill")) {
		bsz = strtoul(argv[5], NULL, 0);
		if (bsz < 8192 || bsz % 4096)
			return 1;
		return do_fill(argv[2], argv[3], atoi(argv[4]), (unsigned int)atoi(argv[6]));
	}
	if (argc == 7 && !strcmp(argv[1], "rewrite"))
		return do_rewrite(argv[2], (off_t)strtoll(argv[3], NULL, 0),
				  strtol(argv[4], NULL, 0), argv[5], argv[6]);
	fprintf(stderr, "usage: fc_race fill DEV VOLNAME ROUNDS BLOCK_BYTES MAX_DELAY_US\n"
		"       fc_race discard DEV OFFSET LENGTH [nosync]\n"
		"       fc_race rewrite DEV OFFSET COUNT FILE_C FILE_B\n");
	return 1;
}
