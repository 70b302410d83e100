// SPDX-License-Identifier: GPL-2.0
/*
 * fc_crashio: a verifying writer and checker for power-cut tests.
 *
 * Every 4 KiB block written holds a header (magic, block number, epoch seed,
 * generation) and a payload derived from those, so a block read back is
 * either all zeroes or names exactly one (seed, generation) whose full
 * content can be regenerated and compared byte for byte.
 *
 *   fc_crashio init  STATE NBLOCKS
 *   fc_crashio write DEV NBLOCKS SEED K LOG
 *       pwrite runs of 1..4 blocks at PRNG(SEED) positions, O_DIRECT; every
 *       K writes end a batch made durable by fdatasync() (a REQ_PREFLUSH) or,
 *       every other batch, by writing its last run with RWF_DSYNC (REQ_FUA);
 *       then append "F <n>" to LOG with O_SYNC: <n> writes are durable.
 *       Runs until killed.
 *   fc_crashio check DEV NBLOCKS STATE SEED K LOG
 *       W = last logged count.  Each block must hold exactly: its generation
 *       as of write W (if written in this epoch by then), or any later one
 *       up to write W+K (the writes that may have been issued after the last
 *       logged flush), or its STATE baseline if not written by W.  On success
 *       STATE becomes what was found (the baseline of the next epoch).
 *   fc_crashio exact DEV NBLOCKS STATE
 *       every block holds exactly its STATE baseline.
 *   fc_crashio corrupt DEV NBLOCKS STATE
 *       (negative control) flip a byte in the first written block
 *
 * Exit: 0 ok, 1 data mismatch, 2 usage / I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define BLK 4096
#define MAGIC 0x3148534152434346ull	/* "FCCRASH1" */
#define MAX_RUN 4

struct hdr {
	uint64_t magic;
	uint64_t block;
	uint32_t seed;
	uint32_t gen;
	uint64_t sum;
};

struct st {
	uint32_t seed;
	uint32_t gen;
};

static uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ a;

	h = (h ^ (b + 0x632be59bd9b4e019ull)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (c + 0x85ebca77c2b2ae63ull)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h ? h : 1;
}

static void fill(unsigned char *p, uint64_t block, uint32_t seed, uint32_t gen)
{
	struct hdr h = { MAGIC, block, seed, gen, 0 };
	uint64_t s = mix(block, seed, gen), v;
	size_t i;

	for (i = sizeof(h); i < BLK; i += 8) {
		v = xs(&s);
		memcpy(p + i, &v, 8);
	}
	h.sum = mix(block, seed, gen) ^ 0x5555aaaa5555aaaaull;
	memcpy(p, &h, sizeof(h));
}

static void *abuf(size_t n)
{
	void *p;

	if (posix_memalign(&p, BLK, n)) {
		perror("posix_memalign");
		exit(2);
	}
	return p;
}

static int is_zero(const unsigned char *p)
{
	size_t i;

	for (i = 0; i < BLK; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The PRNG write sequence of one epoch: run i covers [b, b + len). */
struct seq {
	uint64_t s;
	uint64_t n;
};

static void seq_init(struct seq *q, uint32_t seed, uint64_t nblocks)
{
	q->s = mix(seed, 0x1234, 0x5678);
	q->n = nblocks;
}

static void seq_next(struct seq *q, uint64_t *b, unsigned int *len)
{
	uint64_t r = xs(&q->s);

	*b = (r >> 8) % q->n;
	*len = 1 + (unsigned int)(r & 3);
	if (*b + *len > q->n)
		*len = (unsigned int)(q->n - *b);
}

static struct st *load_state(const char *path, uint64_t n)
{
	struct st *s = calloc(n, sizeof(*s));
	FILE *f;

	if (!s) {
		perror("calloc");
		exit(2);
	}
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	if (fread(s, sizeof(*s), n, f) != n) {
		fprintf(stderr, "%s: short state file\n", path);
		exit(2);
	}
	fclose(f);
	return s;
}

static void save_state(const char *path, const struct st *s, uint64_t n)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f || fwrite(s, sizeof(*s), n, f) != n || fflush(f) || fsync(fileno(f)) ||
	    fclose(f) || rename(tmp, path)) {
		perror(path);
		exit(2);
	}
}

static int open_dev(const char *dev, int flags)
{
	int fd = open(dev, flags | O_DIRECT);

	if (fd < 0) {
		perror(dev);
		exit(2);
	}
	return fd;
}

static int cmd_write(const char *dev, uint64_t n, uint32_t seed, unsigned int k,
		     const char *log)
{
	unsigned char *buf = abuf((size_t)BLK * MAX_RUN);
	uint32_t *gen = calloc(n, sizeof(*gen));
	int fd = open_dev(dev, O_RDWR);
	int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_SYNC, 0644);
	uint64_t writes = 0, b, batches = 0;
	unsigned int len, i, j;
	struct iovec iov;
	struct seq q;
	int fua;
	char line[64];

	if (lfd < 0 || !gen) {
		perror(log);
		return 2;
	}
	seq_init(&q, seed, n);
	printf("# crashio write %s seed %u k %u\n", dev, seed, k);
	fflush(stdout);
	for (;;) {
		fua = batches & 1;
		for (j = 0; j < k; j++) {
			seq_next(&q, &b, &len);
			for (i = 0; i < len; i++)
				fill(buf + (size_t)i * BLK, b + i, seed, ++gen[b + i]);
			iov.iov_base = buf;
			iov.iov_len = (size_t)len * BLK;
			if (pwritev2(fd, &iov, 1, (off_t)(b * BLK),
				     fua && j == k - 1 ? RWF_DSYNC : 0) != (ssize_t)len * BLK) {
				fprintf(stderr, "crashio: write block %" PRIu64 ": %s\n", b, strerror(errno));
				return 2;
			}
			writes++;
		}
		if (!fua && fdatasync(fd)) {
			fprintf(stderr, "crashio: fdatasync: %s\n", strerror(errno));
			return 2;
		}
		snprintf(line, sizeof(line), "F %" PRIu64 "\n", writes);
		if (write(lfd, line, strlen(line)) != (ssize_t)strlen(line)) {
			perror("log");
			return 2;
		}
		if (++batches % 100 == 0) {
			printf("# crashio %" PRIu64 " writes durable\n", writes);
			fflush(stdout);
		}
	}
}

static uint64_t last_logged(const char *log)
{
	FILE *f = fopen(log, "r");
	char line[128];
	uint64_t w = 0, v;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "F %" SCNu64, &v) == 1 && v > w)
			w = v;
	fclose(f);
	return w;
}

/* Read every block; decode (seed, gen) or report corruption. */
static int read_all(const char *dev, uint64_t n, struct st *found)
{
	const size_t chunk = 256;
	unsigned char *buf = abuf(chunk * BLK), *want = abuf(BLK);
	int fd = open_dev(dev, O_RDONLY), bad = 0;
	uint64_t b, c;
	ssize_t got;
	struct hdr h;

	for (b = 0; b < n; b += c) {
		c = n - b < chunk ? n - b : chunk;
		got = pread(fd, buf, c * BLK, (off_t)(b * BLK));
		if (got != (ssize_t)(c * BLK)) {
			fprintf(stderr, "crashio: read block %" PRIu64 ": %s\n", b,
				got < 0 ? strerror(errno) : "short read");
			return -1;
		}
		for (uint64_t i = 0; i < c; i++) {
			unsigned char *p = buf + i * BLK;

			found[b + i].seed = 0;
			found[b + i].gen = 0;
			if (is_zero(p))
				continue;
			memcpy(&h, p, sizeof(h));
			if (h.magic != MAGIC || h.block != b + i || !h.gen) {
				if (bad++ < 20)
					fprintf(stderr, "crashio: block %" PRIu64 ": no valid header (magic %#" PRIx64 " block %" PRIu64 ")\n",
						b + i, h.magic, h.block);
				found[b + i].gen = UINT32_MAX;
				continue;
			}
			fill(want, b + i, h.seed, h.gen);
			if (memcmp(want, p, BLK)) {
				if (bad++ < 20)
					fprintf(stderr, "crashio: block %" PRIu64 ": content differs from seed %u gen %u\n",
						b + i, h.seed, h.gen);
				found[b + i].gen = UINT32_MAX;
				continue;
			}
			found[b + i].seed = h.seed;
			found[b + i].gen = h.gen;
		}
	}
	close(fd);
	return bad;
}

static int cmd_check(const char *dev, uint64_t n, const char *state, uint32_t seed,
		     unsigned int k, const char *log)
{
	struct st *base = load_state(state, n), *found = calloc(n, sizeof(*found));
	uint32_t *gf = calloc(n, sizeof(*gf)), *gm = calloc(n, sizeof(*gm));
	uint64_t w = last_logged(log), i, b, exact = 0, window = 0, bad = 0;
	unsigned int len, j;
	struct seq q;
	int r;

	if (!found || !gf || !gm)
		return 2;
	seq_init(&q, seed, n);
	for (i = 0; i < w + k; i++) {
		seq_next(&q, &b, &len);
		for (j = 0; j < len; j++) {
			if (i < w)
				gf[b + j]++;
			gm[b + j]++;
		}
	}
	r = read_all(dev, n, found);
	if (r < 0)
		return 2;
	bad = (uint64_t)r;
	for (b = 0; b < n; b++) {
		struct st f = found[b];
		int ok;

		if (f.gen == UINT32_MAX)
			continue;	/* counted by read_all */
		if (gf[b])
			ok = f.seed == seed && f.gen >= gf[b] && f.gen <= gm[b];
		else if (gm[b])
			ok = (f.seed == base[b].seed && f.gen == base[b].gen) ||
			     (f.seed == seed && f.gen >= 1 && f.gen <= gm[b]);
		else
			ok = f.seed == base[b].seed && f.gen == base[b].gen;
		if (!ok) {
			if (bad < 20)
				fprintf(stderr, "crashio: block %" PRIu64 ": found seed %u gen %u; durable gen %u, newest issued %u, baseline seed %u gen %u\n",
					b, f.seed, f.gen, gf[b], gm[b], base[b].seed, base[b].gen);
			bad++;
			continue;
		}
		if (gf[b] && f.gen == gf[b] && gf[b] == gm[b])
			exact++;
		if (gm[b] != gf[b] || (!gf[b] && gm[b]))
			window++;
	}
	printf("# crashio check: %" PRIu64 " blocks, %" PRIu64 " durable writes logged, %" PRIu64 " blocks pinned exactly, %" PRIu64 " in the post-flush window, %" PRIu64 " bad\n",
	       n, w, exact, window, bad);
	if (bad)
		return 1;
	save_state(state, found, n);
	return 0;
}

static int cmd_exact(const char *dev, uint64_t n, const char *state)
{
	struct st *base = load_state(state, n), *found = calloc(n, sizeof(*found));
	uint64_t b, bad, written = 0;
	int r;

	if (!found)
		return 2;
	r = read_all(dev, n, found);
	if (r < 0)
		return 2;
	bad = (uint64_t)r;
	for (b = 0; b < n; b++) {
		if (found[b].gen == UINT32_MAX)
			continue;
		written += base[b].gen != 0;
		if (found[b].seed != base[b].seed || found[b].gen != base[b].gen) {
			if (bad < 20)
				fprintf(stderr, "crashio: block %" PRIu64 ": found seed %u gen %u, expected seed %u gen %u\n",
					b, found[b].seed, found[b].gen, base[b].seed, base[b].gen);
			bad++;
		}
	}
	printf("# crashio exact: %" PRIu64 " blocks (%" PRIu64 " written), %" PRIu64 " bad\n", n, written, bad);
	return bad ? 1 : 0;
}

static int cmd_corrupt(const char *dev, uint64_t n, const char *state)
{
	struct st *base = load_state(state, n);
	unsigned char *buf = abuf(BLK);
	int fd = open_dev(dev, O_RDWR);
	uint64_t b;

	for (b = 0; b < n && !base[b].gen; b++)
		;
	if (b == n)
		return 2;
	if (pread(fd, buf, BLK, (off_t)(b * BLK)) != BLK)
		return 2;
	buf[BLK - 1] ^= 0x5a;
	if (pwrite(fd, buf, BLK, (off_t)(b * BLK)) != BLK || fsync(fd))
		return 2;
	printf("# crashio corrupted block %" PRIu64 "\n", b);
	return 0;
}

static uint64_t num(const char *s)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 0);

	if (!*s || *e) {
		fprintf(stderr, "crashio: bad number %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "init")) {
		uint64_t n = num(argv[3]);
		struct st *s = calloc(n, sizeof(*s));

		if (!s)
			return 2;
		save_state(argv[2], s, n);
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2], num(argv[3]), (uint32_t)num(argv[4]),
				 (unsigned int)num(argv[5]), argv[6]);
	if (argc == 8 && !strcmp(argv[1], "check"))
		return cmd_check(argv[2], num(argv[3]), argv[4], (uint32_t)num(argv[5]),
				 (unsigned int)num(argv[6]), argv[7]);
	if (argc == 5 && !strcmp(argv[1], "exact"))
		return cmd_exact(argv[2], num(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "corrupt"))
		return cmd_corrupt(argv[2], num(argv[3]), argv[4]);
	fprintf(stderr, "usage: fc_crashio init|write|check|exact|corrupt ... (see the source)\n");
	return 2;
}
