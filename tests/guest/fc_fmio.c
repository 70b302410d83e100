// SPDX-License-Identifier: GPL-2.0
/*
 * fc_fmio: the data oracle of the metadata fault matrix
 * (tests/guest/fc_faultmatrix.sh).
 *
 * The device is cut into units of 32 KiB (one cache block of 64 sectors).
 * Every 4 KiB sector of a unit written at version V holds a header (magic,
 * unit, version, sector index) and a payload derived from those, so a unit
 * read back is all zeroes (version 0), or exactly one version, or torn /
 * foreign data.  The STATE file holds, per unit, the durable version (its
 * write or a later flush completed) and a pending version (written, not yet
 * made durable: either it or the durable one may be read back).
 *
 *   fc_fmio init    STATE NUNITS
 *   fc_fmio write   DEV STATE FIRST COUNT sync|nosync
 *       writes units FIRST.. at version max(durable, pending) + 1 (O_DIRECT);
 *       sync: fdatasync() after, then the versions are durable; nosync: they
 *       are pending.  A write that fails leaves its version pending (the
 *       unit may hold either) and exits 3.
 *   fc_fmio fsync   DEV           fdatasync (a REQ_PREFLUSH); exit 0 / 3
 *   fc_fmio promote STATE         every pending version becomes durable
 *   fc_fmio verify  DEV STATE [settle]
 *       every unit must read back its durable version or its pending one;
 *       anything else is "stale" (an older version, zeroes included) or
 *       "lost" (torn, foreign or unreadable data, or a version never
 *       written).  settle: on success the version found becomes durable
 *       (what later reads must return exactly).
 *
 * The last line of verify is "fmio: units U ok O newer N older D stale S
 * lost L".  Exit: 0 ok, 1 stale/lost, 2 usage / setup error, 3 write error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC 4096u
#define UNIT 32768u
#define SPU (UNIT / SEC)
#define MAGIC 0x31584d4d46434346ull	/* "FCCFMMX1" */

struct hdr {
	uint64_t magic;
	uint64_t unit;
	uint32_t ver;
	uint32_t sec;
	uint64_t sum;
};

struct ust {
	uint32_t durable;
	uint32_t pending;
};

static uint64_t seed_of(uint64_t unit, uint32_t ver, uint32_t sec)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ unit;

	h = (h ^ (ver + 0x632be59bd9b4e019ull)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (sec + 0x85ebca77c2b2ae63ull)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static void fill(unsigned char *p, uint64_t unit, uint32_t ver)
{
	for (uint32_t s = 0; s < SPU; s++) {
		unsigned char *q = p + (size_t)s * SEC;
		uint64_t seed = seed_of(unit, ver, s);
		struct hdr h = { MAGIC, unit, ver, s, seed };

		for (uint32_t i = sizeof(h); i < SEC; i += 8) {
			uint64_t v = seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;

			memcpy(q + i, &v, 8);
		}
		memcpy(q, &h, sizeof(h));
	}
}

static int zero_sec(const unsigned char *q)
{
	for (uint32_t i = 0; i < SEC; i++)
		if (q[i])
			return 0;
	return 1;
}

/* Version held by unit @unit in @p: >= 0, or -1 torn/foreign. */
static int64_t decode(const unsigned char *p, uint64_t unit, unsigned char *want)
{
	int64_t ver = -2;

	for (uint32_t s = 0; s < SPU; s++) {
		const unsigned char *q = p + (size_t)s * SEC;
		struct hdr h;
		int64_t v;

		if (zero_sec(q)) {
			v = 0;
		} else {
			memcpy(&h, q, sizeof(h));
			if (h.magic != MAGIC || h.unit != unit || h.sec != s || !h.ver ||
			    h.sum != seed_of(unit, h.ver, s))
				return -1;
			v = h.ver;
		}
		if (ver != -2 && v != ver)
			return -1;
		ver = v;
	}
	if (ver > 0) {
		fill(want, unit, (uint32_t)ver);
		if (memcmp(want, p, UNIT))
			return -1;
	}
	return ver;
}

static void *abuf(size_t n)
{
	void *p;

	if (posix_memalign(&p, SEC, n)) {
		perror("posix_memalign");
		exit(2);
	}
	return p;
}

static struct ust *load(const char *path, uint64_t *n)
{
	FILE *f = fopen(path, "rb");
	struct ust *s;
	long sz;

	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	*n = (uint64_t)sz / sizeof(*s);
	s = calloc(*n ? *n : 1, sizeof(*s));
	if (!s || fread(s, sizeof(*s), *n, f) != *n) {
		fprintf(stderr, "%s: cannot read the state\n", path);
		exit(2);
	}
	fclose(f);
	return s;
}

static void save(const char *path, const struct ust *s, uint64_t n)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f || fwrite(s, sizeof(*s), n, f) != n || fclose(f) || rename(tmp, path)) {
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

static uint64_t num(const char *s)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 0);

	if (!*s || *e) {
		fprintf(stderr, "fmio: bad number %s\n", s);
		exit(2);
	}
	return v;
}

static int cmd_write(const char *dev, const char *state, uint64_t first, uint64_t count,
		     int sync)
{
	uint64_t n, u;
	struct ust *s = load(state, &n);
	unsigned char *buf = abuf(UNIT);
	int fd = open_dev(dev, O_RDWR), rc = 0;

	if (first + count > n) {
		fprintf(stderr, "fmio: units %" PRIu64 "+%" PRIu64 " beyond %" PRIu64 "\n",
			first, count, n);
		return 2;
	}
	for (u = first; u < first + count; u++) {
		uint32_t v = (s[u].durable > s[u].pending ? s[u].durable : s[u].pending) + 1;

		fill(buf, u, v);
		s[u].pending = v;
		if (pwrite(fd, buf, UNIT, (off_t)(u * UNIT)) != (ssize_t)UNIT) {
			fprintf(stderr, "fmio: write unit %" PRIu64 ": %s\n", u, strerror(errno));
			rc = 3;
			count = u + 1 - first;
			break;
		}
	}
	if (!rc && sync && fdatasync(fd)) {
		fprintf(stderr, "fmio: fdatasync: %s\n", strerror(errno));
		rc = 3;
	}
	if (!rc && sync)
		for (u = first; u < first + count; u++) {
			s[u].durable = s[u].pending;
			s[u].pending = 0;
		}
	close(fd);
	save(state, s, n);
	return rc;
}

static int cmd_fsync(const char *dev)
{
	int fd = open_dev(dev, O_RDWR);

	if (fdatasync(fd)) {
		fprintf(stderr, "fmio: fdatasync %s: %s\n", dev, strerror(errno));
		return 3;
	}
	close(fd);
	return 0;
}

static int cmd_promote(const char *state)
{
	uint64_t n, u;
	struct ust *s = load(state, &n);

	for (u = 0; u < n; u++)
		if (s[u].pending) {
			s[u].durable = s[u].pending;
			s[u].pending = 0;
		}
	save(state, s, n);
	return 0;
}

static int cmd_verify(const char *dev, const char *state, int settle)
{
	uint64_t n, u, ok = 0, newer = 0, older = 0, stale = 0, lost = 0;
	struct ust *s = load(state, &n);
	unsigned char *buf = abuf(UNIT), *want = abuf(UNIT);
	int fd = open_dev(dev, O_RDONLY);
	int64_t *found = calloc(n ? n : 1, sizeof(*found));

	if (!found)
		return 2;
	for (u = 0; u < n; u++) {
		ssize_t got = pread(fd, buf, UNIT, (off_t)(u * UNIT));
		int64_t v;
		const char *what = NULL;

		if (got != (ssize_t)UNIT) {
			v = -1;
			what = got < 0 ? strerror(errno) : "short read";
		} else {
			v = decode(buf, u, want);
		}
		found[u] = v;
		if (v == s[u].durable && !s[u].pending) {
			ok++;
			continue;
		}
		if (s[u].pending && v == s[u].pending) {
			newer++;
			continue;
		}
		if (s[u].pending && v == s[u].durable) {
			older++;
			continue;
		}
		if (v >= 0 && v < s[u].durable)
			stale++;
		else
			lost++;
		if (stale + lost <= 12)
			fprintf(stderr, "fmio: %s unit %" PRIu64 ": %s%s%" PRId64 ", expected %u%s%.0u\n",
				dev, u, what ? what : "", what ? ", " : "found version ", v,
				s[u].durable, s[u].pending ? " or " : "", s[u].pending);
	}
	close(fd);
	printf("fmio: units %" PRIu64 " ok %" PRIu64 " newer %" PRIu64 " older %" PRIu64
	       " stale %" PRIu64 " lost %" PRIu64 "\n", n, ok, newer, older, stale, lost);
	if (stale || lost)
		return 1;
	if (settle) {
		for (u = 0; u < n; u++) {
			s[u].durable = (uint32_t)found[u];
			s[u].pending = 0;
		}
		save(state, s, n);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "init")) {
		uint64_t n = num(argv[3]);
		struct ust *s = calloc(n, sizeof(*s));

		if (!s)
			return 2;
		save(argv[2], s, n);
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "write") &&
	    (!strcmp(argv[6], "sync") || !strcmp(argv[6], "nosync")))
		return cmd_write(argv[2], argv[3], num(argv[4]), num(argv[5]),
				 !strcmp(argv[6], "sync"));
	if (argc == 3 && !strcmp(argv[1], "fsync"))
		return cmd_fsync(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "promote"))
		return cmd_promote(argv[2]);
	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "settle"))) &&
	    !strcmp(argv[1], "verify"))
		return cmd_verify(argv[2], argv[3], argc == 5);
	fprintf(stderr, "usage: fc_fmio init|write|fsync|promote|verify ... (see the source)\n");
	return 2;
}
