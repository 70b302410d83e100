// SPDX-License-Identifier: GPL-2.0
/*
 * lw_replay: read a dm-log-writes log and replay it onto a device.
 *
 * Log layout (drivers/md/dm-log-writes.c, Linux 6.1; all little endian):
 *   unit = the log's sectorsize (the logical block size of the logged
 *   device, from the super).  Unit 0: struct log_write_super {u64 magic
 *   0x6a736677736872, u64 version 1, u64 nr_entries, u32 sectorsize}.
 *   From unit 1 on, entries in log order: one unit holding struct
 *   log_write_entry {u64 sector, u64 nr_sectors, u64 flags, u64 data_len}
 *   (sector and nr_sectors in units of sectorsize), for a MARK the name
 *   (data_len bytes, no NUL) right after the 32-byte entry in the same
 *   unit; then, unless the entry is a DISCARD, nr_sectors units of data.
 *   Flags: FLUSH 1, FUA 2, DISCARD 4, MARK 8, METADATA 16.
 *   A write is logged when it completes; a completed write without
 *   FLUSH/FUA is held back and logged just before the next FLUSH entry
 *   (a FLUSH entry is logged when the flush completes); a FUA write and a
 *   mark are logged at once.  nr_entries in the super is updated after each
 *   FUA or MARK entry and at table teardown.
 *
 * Crash points: every FLUSH or FUA entry k.  Replaying 0..k is a state the
 * device may be in after a power cut right after k; a volatile write cache
 * may also have persisted any subset of the writes logged after k up to the
 * next crash point (and torn one of them at sector granularity).
 *
 *   lw_replay [-i INDEX] list LOG           every entry: idx sector nr flags [name]
 *   lw_replay [-i INDEX] points LOG         crash points and marks:
 *                                           "idx FLUSH|FUA|FLUSH+FUA" / "idx MARK name"
 *   lw_replay index LOG INDEX               save the parsed entry table (speeds
 *                                           up later calls on the same log)
 *   lw_replay [-i INDEX] replay LOG DEV [--from J] --to K [--subset SEED [--tear]]
 *             [--discard zero|blkdiscard] [--buffered]
 *       writes entries J..K (J defaults to 0; DEV must already hold 0..J-1)
 *       onto DEV.  --subset: then also a random subset (PRNG seeded by SEED)
 *       of the writes logged after K, before the next crash point; --tear:
 *       one multi-sector write of that window is torn (a random proper
 *       subset of its sectors is written).  Discards become zero writes
 *       (default) or BLKDISCARD.  O_DIRECT unless --buffered (falls back
 *       to buffered I/O where O_DIRECT is refused); fsync at the end.
 *       Prints on stdout: "replayed <n> entries <J>..<K> subset <a>/<w>
 *       torn <idx|-> next <next crash point|end> dmark <name|-> bmark
 *       <name|-> last <idx>": dmark is the last mark before the next crash
 *       point after K (whatever the workload knew durable at that mark was
 *       made durable by crash points <= K), bmark the first mark after the
 *       last entry written (no write in the replayed state was issued after
 *       it).  --marks PREFIX: only marks whose name starts with PREFIX.
 *   lw_replay [-i INDEX] at LOG K [--marks PREFIX]
 *       prints the same "next .. dmark .. bmark .. last K" for the prefix 0..K
 *       without writing anything.
 *
 * Exit: 0 ok, 1 bad log, 2 usage / I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "crash_util.h"

#define LW_MAGIC	0x6a736677736872ull
#define LW_VERSION	1ull
#define F_FLUSH		1ull
#define F_FUA		2ull
#define F_DISCARD	4ull
#define F_MARK		8ull
#define F_METADATA	16ull
#define NAME_MAX_LEN	512
#define IDX_MAGIC	0x3158444957ull	/* "WIDX1" */
#define BUF_BYTES	(1u << 20)

struct ent {
	uint64_t sector;	/* in log units (sectorsize) */
	uint64_t nr;		/* in log units */
	uint64_t flags;
	uint64_t pos;		/* byte offset of the entry's unit in the log */
	char name[48];		/* mark name (truncated for display) */
};

struct lw {
	int fd;
	uint32_t ss;		/* sectorsize */
	uint64_t n;
	struct ent *e;
};

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void pread_full(int fd, void *buf, size_t len, uint64_t off, const char *what)
{
	size_t done = 0;
	ssize_t r;

	while (done < len) {
		r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0)
			die(2, "read %s at %" PRIu64 ": %s", what, off + done, strerror(errno));
		if (r == 0)
			die(1, "read %s at %" PRIu64 ": past the end of the log", what, off + done);
		done += (size_t)r;
	}
}

static void pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	while (done < len) {
		r = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
		if (r <= 0)
			die(2, "write at %" PRIu64 ": %s", off + done, r < 0 ? strerror(errno) : "no progress");
		done += (size_t)r;
	}
}

static void read_super(struct lw *l)
{
	unsigned char *b = abuf(4096);
	uint64_t magic, version;

	/* 4096 bytes: a multiple of any logical block size (O_DIRECT) */
	if (pread(l->fd, b, 4096, 0) < 28)
		die(1, "cannot read the log super: %s", strerror(errno));
	magic = le64(b);
	version = le64(b + 8);
	l->n = le64(b + 16);
	l->ss = le32(b + 24);
	if (magic != LW_MAGIC)
		die(1, "not a dm-log-writes log (magic %#" PRIx64 ")", magic);
	if (version != LW_VERSION)
		die(1, "log version %" PRIu64 " (this tool reads %llu)", version, LW_VERSION);
	if (l->ss < 512 || l->ss > 4096 || (l->ss & (l->ss - 1)))
		die(1, "bad sectorsize %u", l->ss);
	free(b);
}

/* Walk the entry headers (the kernel's next_sector arithmetic). */
static void parse(struct lw *l)
{
	unsigned char *b = abuf(4096);
	uint64_t i, unit = 1, dlen;
	struct ent *e;

	l->e = calloc(l->n ? l->n : 1, sizeof(*l->e));
	if (!l->e)
		die(2, "out of memory");
	for (i = 0; i < l->n; i++) {
		e = &l->e[i];
		e->pos = unit * l->ss;
		pread_full(l->fd, b, l->ss, e->pos, "entry");
		e->sector = le64(b);
		e->nr = le64(b + 8);
		e->flags = le64(b + 16);
		dlen = le64(b + 24);
		if (e->flags & ~(F_FLUSH | F_FUA | F_DISCARD | F_MARK | F_METADATA))
			die(1, "entry %" PRIu64 " at unit %" PRIu64 ": unknown flags %#" PRIx64, i, unit, e->flags);
		if (e->flags & F_MARK) {
			if (dlen > l->ss - 32)
				die(1, "entry %" PRIu64 ": mark name of %" PRIu64 " bytes", i, dlen);
			memcpy(e->name, b + 32, dlen < sizeof(e->name) - 1 ? dlen : sizeof(e->name) - 1);
		} else if (dlen) {
			die(1, "entry %" PRIu64 ": inline data without a mark (unsupported)", i);
		}
		unit++;
		if (!(e->flags & F_DISCARD))
			unit += e->nr;
	}
	free(b);
}

static void save_index(const struct lw *l, const char *path)
{
	FILE *f = fopen(path, "wb");
	uint64_t hdr[3] = { IDX_MAGIC, l->n, l->ss };

	if (!f || fwrite(hdr, sizeof(hdr), 1, f) != 1 ||
	    (l->n && fwrite(l->e, sizeof(*l->e), l->n, f) != l->n) || fclose(f))
		die(2, "write index %s: %s", path, strerror(errno));
}

/* Use the index only if it was made from a log with the same super. */
static int load_index(struct lw *l, const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t hdr[3];

	if (!f)
		return 0;
	if (fread(hdr, sizeof(hdr), 1, f) != 1 || hdr[0] != IDX_MAGIC || hdr[1] != l->n || hdr[2] != l->ss) {
		fclose(f);
		return 0;
	}
	l->e = calloc(l->n ? l->n : 1, sizeof(*l->e));
	if (!l->e)
		die(2, "out of memory");
	if (l->n && fread(l->e, sizeof(*l->e), l->n, f) != l->n)
		die(2, "short index %s", path);
	fclose(f);
	return 1;
}

static void open_log(struct lw *l, const char *path, const char *index)
{
	/* O_DIRECT keeps a big log out of the page cache (all reads are
	 * whole, aligned log units); files on tmpfs refuse it */
	l->fd = open(path, O_RDONLY | O_DIRECT);
	if (l->fd < 0 && errno == EINVAL)
		l->fd = open(path, O_RDONLY);
	if (l->fd < 0)
		die(2, "%s: %s", path, strerror(errno));
	read_super(l);
	if (!index || !load_index(l, index)) {
		parse(l);
		if (index)
			save_index(l, index);
	}
}

static const char *flagstr(uint64_t f, char *buf)
{
	buf[0] = 0;
	if (f & F_FLUSH)
		strcat(buf, "FLUSH+");
	if (f & F_FUA)
		strcat(buf, "FUA+");
	if (f & F_DISCARD)
		strcat(buf, "DISCARD+");
	if (f & F_MARK)
		strcat(buf, "MARK+");
	if (f & F_METADATA)
		strcat(buf, "META+");
	if (buf[0])
		buf[strlen(buf) - 1] = 0;
	else
		strcpy(buf, "WRITE");
	return buf;
}

static int is_point(const struct ent *e)
{
	return (e->flags & (F_FLUSH | F_FUA)) != 0;
}

static int is_write(const struct ent *e)
{
	return !(e->flags & F_MARK) && e->nr > 0;
}

static int cmd_list(const struct lw *l)
{
	char fb[64];
	uint64_t i;

	printf("# log: %" PRIu64 " entries, sectorsize %u\n", l->n, l->ss);
	for (i = 0; i < l->n; i++) {
		const struct ent *e = &l->e[i];

		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %s%s%s\n", i, e->sector, e->nr,
		       flagstr(e->flags, fb), e->flags & F_MARK ? " " : "", e->flags & F_MARK ? e->name : "");
	}
	return 0;
}

static int cmd_points(const struct lw *l)
{
	char fb[64];
	uint64_t i;

	for (i = 0; i < l->n; i++) {
		const struct ent *e = &l->e[i];

		if (e->flags & F_MARK)
			printf("%" PRIu64 " MARK %s\n", i, e->name);
		else if (is_point(e))
			printf("%" PRIu64 " %s\n", i, flagstr(e->flags & (F_FLUSH | F_FUA), fb));
	}
	return 0;
}

struct target {
	int fd;
	int blkdiscard;
	unsigned char *buf;
	unsigned char *zero;
};

/* Write sectors [first, first + cnt) of entry e (cnt may be partial: tearing). */
static void apply_range(const struct lw *l, struct target *t, const struct ent *e,
			uint64_t first, uint64_t cnt)
{
	uint64_t per = BUF_BYTES / l->ss, c;

	if (e->flags & F_DISCARD) {
		if (t->blkdiscard) {
			uint64_t r[2] = { (e->sector + first) * l->ss, cnt * l->ss };

			if (ioctl(t->fd, BLKDISCARD, r))
				die(2, "BLKDISCARD: %s", strerror(errno));
			return;
		}
		while (cnt) {
			c = cnt < per ? cnt : per;
			pwrite_full(t->fd, t->zero, c * l->ss, (e->sector + first) * l->ss);
			first += c;
			cnt -= c;
		}
		return;
	}
	while (cnt) {
		c = cnt < per ? cnt : per;
		pread_full(l->fd, t->buf, c * l->ss, e->pos + (1 + first) * l->ss, "data");
		pwrite_full(t->fd, t->buf, c * l->ss, (e->sector + first) * l->ss);
		first += c;
		cnt -= c;
	}
}

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void print_marks(const struct lw *l, uint64_t next, uint64_t last, const char *pfx);

static int cmd_replay(const struct lw *l, const char *dev, int argc, char **argv)
{
	uint64_t from = 0, to = UINT64_MAX, seed = 0, i, next, last, nw = 0, nsub = 0;
	int subset = 0, tear = 0, buffered = 0, blkdiscard = 0, fd;
	int64_t torn = -1;
	const char *mpfx = "";
	struct target t;
	int a;

	for (a = 0; a < argc; a++) {
		if (!strcmp(argv[a], "--from") && a + 1 < argc)
			from = num(argv[++a]);
		else if (!strcmp(argv[a], "--to") && a + 1 < argc)
			to = num(argv[++a]);
		else if (!strcmp(argv[a], "--subset") && a + 1 < argc) {
			subset = 1;
			seed = num(argv[++a]);
		} else if (!strcmp(argv[a], "--tear"))
			tear = 1;
		else if (!strcmp(argv[a], "--marks") && a + 1 < argc)
			mpfx = argv[++a];
		else if (!strcmp(argv[a], "--buffered"))
			buffered = 1;
		else if (!strcmp(argv[a], "--discard") && a + 1 < argc) {
			a++;
			if (!strcmp(argv[a], "blkdiscard"))
				blkdiscard = 1;
			else if (strcmp(argv[a], "zero"))
				die(2, "--discard zero|blkdiscard");
		} else
			die(2, "replay: unknown argument %s", argv[a]);
	}
	if (to == UINT64_MAX)
		die(2, "replay: --to K is required");
	if (to >= l->n || from > to + 1)
		die(2, "replay: entries %" PRIu64 "..%" PRIu64 " outside 0..%" PRIu64, from, to,
		    l->n ? l->n - 1 : 0);
	if (tear && !subset)
		die(2, "replay: --tear needs --subset");

	fd = -1;
	if (!buffered) {
		fd = open(dev, O_WRONLY | O_DIRECT);
		if (fd < 0 && errno != EINVAL)
			die(2, "%s: %s", dev, strerror(errno));
	}
	if (fd < 0)
		fd = open(dev, O_WRONLY);
	if (fd < 0)
		die(2, "%s: %s", dev, strerror(errno));
	t.fd = fd;
	t.blkdiscard = blkdiscard;
	t.buf = abuf(BUF_BYTES);
	t.zero = abuf(BUF_BYTES);

	last = to;
	for (i = from; i <= to; i++)
		if (is_write(&l->e[i]))
			apply_range(l, &t, &l->e[i], 0, l->e[i].nr);

	for (next = to + 1; next < l->n && !is_point(&l->e[next]); next++)
		;
	if (subset) {
		uint64_t cand = 0, pick;

		rng = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
		if (!rng)
			rng = 1;
		if (tear) {
			for (i = to + 1; i < next; i++)
				if (is_write(&l->e[i]) && l->e[i].nr > 1)
					cand++;
			if (cand) {
				pick = rnd() % cand;
				for (i = to + 1; i < next; i++)
					if (is_write(&l->e[i]) && l->e[i].nr > 1 && !pick--) {
						torn = (int64_t)i;
						break;
					}
			}
		}
		for (i = to + 1; i < next; i++) {
			const struct ent *e = &l->e[i];

			if (!is_write(e))
				continue;
			nw++;
			if ((int64_t)i == torn) {
				/* a random proper, non-empty subset of its sectors */
				uint64_t s, keep = 1 + rnd() % (e->nr - 1), left = e->nr;

				for (s = 0; s < e->nr; s++, left--) {
					if (keep && rnd() % left < keep) {
						apply_range(l, &t, e, s, 1);
						keep--;
					}
				}
				nsub++;
				last = i;
			} else if (rnd() & 1) {
				apply_range(l, &t, e, 0, e->nr);
				nsub++;
				last = i;
			}
		}
	}
	if (fsync(fd))
		die(2, "fsync %s: %s", dev, strerror(errno));
	close(fd);

	printf("replayed %" PRIu64 " entries %" PRIu64 "..%" PRIu64 " subset %" PRIu64 "/%" PRIu64,
	       to + 1 - from, from, to, nsub, nw);
	if (torn >= 0)
		printf(" torn %" PRId64, torn);
	else
		printf(" torn -");
	print_marks(l, next, last, mpfx);
	return 0;
}

/*
 * " next <n|end> dmark <name|-> bmark <name|-> last <idx>" for a state made
 * of entries 0..last, where next is the first crash point after the last
 * crash point replayed; only marks whose name starts with pfx count.
 */
static void print_marks(const struct lw *l, uint64_t next, uint64_t last, const char *pfx)
{
	int64_t dmark = -1, bmark = -1;
	size_t pl = strlen(pfx);
	uint64_t i;

	for (i = 0; i < next && i < l->n; i++)
		if ((l->e[i].flags & F_MARK) && !strncmp(l->e[i].name, pfx, pl))
			dmark = (int64_t)i;
	for (i = last + 1; i < l->n; i++)
		if ((l->e[i].flags & F_MARK) && !strncmp(l->e[i].name, pfx, pl)) {
			bmark = (int64_t)i;
			break;
		}
	if (next < l->n)
		printf(" next %" PRIu64, next);
	else
		printf(" next end");
	printf(" dmark %s bmark %s last %" PRIu64 "\n", dmark >= 0 ? l->e[dmark].name : "-",
	       bmark >= 0 ? l->e[bmark].name : "-", last);
}

/* lw_replay at LOG K [--marks PFX]: the marks of the prefix 0..K */
static int cmd_at(const struct lw *l, int argc, char **argv)
{
	uint64_t k = num(argv[0]), next;
	const char *pfx = "";

	if (argc == 3 && !strcmp(argv[1], "--marks"))
		pfx = argv[2];
	else if (argc != 1)
		die(2, "at: LOG K [--marks PREFIX]");
	if (k >= l->n)
		die(2, "at: entry %" PRIu64 " outside the log", k);
	for (next = k + 1; next < l->n && !is_point(&l->e[next]); next++)
		;
	printf("at %" PRIu64, k);
	print_marks(l, next, k, pfx);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: lw_replay [-i INDEX] list|points LOG\n"
		"       lw_replay index LOG INDEX\n"
		"       lw_replay [-i INDEX] replay LOG DEV [--from J] --to K [--subset SEED [--tear]]\n"
		"                 [--discard zero|blkdiscard] [--buffered] [--marks PREFIX]\n"
		"       lw_replay [-i INDEX] at LOG K [--marks PREFIX]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *index = NULL;
	struct lw l;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "-i")) {
		index = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "index")) {
		if (argc != 4)
			usage();
		unlink(argv[3]);
		open_log(&l, argv[2], argv[3]);
		printf("%" PRIu64 " entries\n", l.n);
		return 0;
	}
	open_log(&l, argv[2], index);
	if (!strcmp(argv[1], "list") && argc == 3)
		return cmd_list(&l);
	if (!strcmp(argv[1], "points") && argc == 3)
		return cmd_points(&l);
	if (!strcmp(argv[1], "at") && argc >= 4)
		return cmd_at(&l, argc - 3, argv + 3);
	if (!strcmp(argv[1], "replay") && argc >= 4)
		return cmd_replay(&l, argv[3], argc - 4, argv + 4);
	usage();
	return 2;
}
