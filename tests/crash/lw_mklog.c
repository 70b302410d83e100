// SPDX-License-Identifier: GPL-2.0
/*
 * lw_mklog: synthetic dm-log-writes logs for the host test of lw_replay,
 * written from an in-memory model of the device (not from lw_replay's code).
 *
 *   lw_mklog gen LOG SEED NENTRIES DEV_UNITS SECTORSIZE EXPDIR
 *       A random log: writes of 1..8 units (each unit stamped with its entry
 *       index and unit number), discards, empty FLUSH entries, FUA writes,
 *       marks "m<idx>".  Writes EXPDIR/points (what `lw_replay points` must
 *       print) and EXPDIR/img.<k>, the device image after entries 0..k, for
 *       every crash point k.
 *   lw_mklog checksub LOG SECTORSIZE K IMG OUT
 *       OUT was made from IMG (= state at crash point K) by writing a subset
 *       of the writes after K: every unit of OUT must equal IMG's, or be the
 *       intact data of a write entry between K and the next crash point that
 *       covers it, or zero where such a discard covers it.  Prints how many
 *       units changed.  Exit 0 ok, 1 mismatch.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC 0x6a736677736872ull

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* unit data of entry e at device unit u */
static void stamp(unsigned char *p, unsigned ss, uint64_t e, uint64_t u)
{
	uint64_t x = (e * 0x9e3779b97f4a7c15ull) ^ (u * 0xbf58476d1ce4e5b9ull) ^ 0x1234567ull;

	put64(p, 0x4b4c4d4e ^ 0xffull << 56);
	put64(p + 8, e);
	put64(p + 16, u);
	for (unsigned i = 24; i + 8 <= ss; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put64(p + i, x);
	}
}

static void die(const char *m)
{
	perror(m);
	exit(2);
}

static int gen(const char *log, uint64_t seed, uint64_t n, uint64_t units, unsigned ss, const char *dir)
{
	unsigned char *img = calloc(units, ss), *u = calloc(1, ss);
	FILE *f = fopen(log, "wb"), *pf;
	char path[4096];
	uint64_t i, pos = 1;

	if (!img || !u || !f)
		die(log);
	snprintf(path, sizeof(path), "%s/points", dir);
	pf = fopen(path, "w");
	if (!pf)
		die(path);
	rs = seed * 2654435761u + 1;
	/* super */
	memset(u, 0, ss);
	put64(u, MAGIC);
	put64(u + 8, 1);
	put64(u + 16, n);
	u[24] = (unsigned char)ss;
	u[25] = (unsigned char)(ss >> 8);
	fwrite(u, ss, 1, f);
	for (i = 0; i < n; i++) {
		uint64_t r = rnd() % 100, flags = 0, sec = 0, nr = 0, j;
		char name[64] = "";

		if (r < 62) {
			nr = 1 + rnd() % 8;
		} else if (r < 70) {
			nr = 1 + rnd() % 8;
			flags = 4;	/* discard */
		} else if (r < 82) {
			flags = 1;	/* empty flush */
		} else if (r < 92) {
			nr = 1 + rnd() % 4;
			flags = 2;	/* FUA write */
		} else {
			flags = 8;
			snprintf(name, sizeof(name), "m%" PRIu64, i);
		}
		if (nr) {
			if (nr > units)
				nr = units;
			sec = rnd() % (units - nr + 1);
		}
		memset(u, 0, ss);
		put64(u, sec);
		put64(u + 8, nr);
		put64(u + 16, flags);
		put64(u + 24, strlen(name));
		memcpy(u + 32, name, strlen(name));
		fwrite(u, ss, 1, f);
		pos++;
		for (j = 0; j < nr; j++) {
			if (flags & 4) {
				memset(img + (sec + j) * ss, 0, ss);
				continue;
			}
			stamp(u, ss, i, sec + j);
			fwrite(u, ss, 1, f);
			memcpy(img + (sec + j) * ss, u, ss);
			pos++;
		}
		if (flags & 8)
			fprintf(pf, "%" PRIu64 " MARK %s\n", i, name);
		if (flags & 3) {
			FILE *g;

			fprintf(pf, "%" PRIu64 " %s\n", i, flags & 1 ? "FLUSH" : "FUA");
			snprintf(path, sizeof(path), "%s/img.%" PRIu64, dir, i);
			g = fopen(path, "wb");
			if (!g || fwrite(img, ss, units, g) != units || fclose(g))
				die(path);
		}
	}
	/* the zero image (before entry 0) for the replays that start from it */
	snprintf(path, sizeof(path), "%s/zero", dir);
	memset(img, 0, units * ss);
	pf = freopen(path, "wb", pf);
	if (!pf || fwrite(img, ss, units, pf) != units || fclose(pf))
		die(path);
	if (fclose(f))
		die(log);
	printf("%" PRIu64 " entries, %" PRIu64 " log units\n", n, pos);
	return 0;
}

static unsigned char *slurp(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	unsigned char *b;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die(p);
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		die(p);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static int checksub(const char *log, unsigned ss, uint64_t k, const char *imgp, const char *outp)
{
	size_t ll, il, ol;
	unsigned char *lg = slurp(log, &ll), *img = slurp(imgp, &il), *out = slurp(outp, &ol);
	unsigned char *want = malloc(ss), *zero = calloc(1, ss);
	uint64_t n = get64(lg + 16), i, pos = 1, units = il / ss, u, changed = 0, bad = 0;
	uint64_t *epos = calloc(n, sizeof(*epos)), next = n;

	if (il != ol || !epos || !want)
		return 2;
	for (i = 0; i < n; i++) {
		const unsigned char *e = lg + pos * ss;

		epos[i] = pos;
		pos++;
		if (!(get64(e + 16) & 4))
			pos += get64(e + 8);
		if (i > k && next == n && (get64(e + 16) & 3))
			next = i;
	}
	for (u = 0; u < units; u++) {
		const unsigned char *o = out + u * ss;
		int ok = 0;

		if (!memcmp(o, img + u * ss, ss))
			continue;
		changed++;
		for (i = k + 1; i < next && !ok; i++) {
			const unsigned char *e = lg + epos[i] * ss;
			uint64_t sec = get64(e), nr = get64(e + 8), fl = get64(e + 16);

			if ((fl & 8) || u < sec || u >= sec + nr)
				continue;
			if (fl & 4) {
				ok = !memcmp(o, zero, ss);
			} else {
				stamp(want, ss, i, u);
				ok = !memcmp(o, want, ss);
			}
		}
		if (!ok) {
			bad++;
			fprintf(stderr, "checksub: unit %" PRIu64 " neither the crash point's data nor a write of the window (%" PRIu64 "..%" PRIu64 ")\n",
				u, k + 1, next);
		}
	}
	printf("changed %" PRIu64 " bad %" PRIu64 "\n", changed, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoull(argv[3], 0, 0), strtoull(argv[4], 0, 0),
			   strtoull(argv[5], 0, 0), (unsigned)strtoul(argv[6], 0, 0), argv[7]);
	if (argc == 7 && !strcmp(argv[1], "checksub"))
		return checksub(argv[2], (unsigned)strtoul(argv[3], 0, 0), strtoull(argv[4], 0, 0),
				argv[5], argv[6]);
	fprintf(stderr, "usage: lw_mklog gen LOG SEED N UNITS SS EXPDIR | checksub LOG SS K IMG OUT\n");
	return 2;
}
