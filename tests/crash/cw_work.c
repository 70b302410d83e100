// SPDX-License-Identifier: GPL-2.0
/*
 * cw_work: an OLTP-like workload with a durability oracle, for replaying a
 * dm-log-writes log at every crash point (tests/crash/replay-guest.sh).
 *
 * Every 512-byte sector written holds a stamp: magic, its own sector number,
 * the sequence number of the write (or discard) that wrote it, and a payload
 * derived from both, so a sector read back is all zeroes or names exactly
 * one write whose full content is regenerated and compared.
 *
 *   cw_work init STATE ORACLE SECTORS REDO_SECTORS SEED
 *   cw_work run DEV STATE ORACLE LWNAME TXNS [--ckpt N] [--discards P]
 *                                           [--hot N] [--redo-span S] [--twice]
 *                                           [--reads N]
 *       TXNS transactions on DEV (O_DIRECT): each writes a redo record (4 KiB,
 *       sometimes 8 KiB or 1.5 KiB, sequential in the redo area at the end
 *       of DEV) with RWF_DSYNC, dirties 0..3 random 16 KiB pages and
 *       sometimes a 4 KiB block or an odd 512-byte-aligned range (1..24
 *       sectors, crossing blocks); every N transactions (default 8) a
 *       checkpoint fdatasync()s; 1 in P transactions (default 40) discards
 *       4..64 KiB.  After each RWF_DSYNC write and each fdatasync returns it
 *       adds the dm-log-writes mark "cw<n>" to LWNAME (DM_TARGET_MSG) and
 *       appends to ORACLE:  W seq start nr | D seq start nr (before issuing)
 *       The sync path (fcache's flushes and FUA writes that need no commit):
 *       --hot N draws the data pages from the first N 16 KiB pages only
 *       (rewrites of committed dirty blocks: a checkpoint then needs a
 *       flush of the flash and no commit), --redo-span S wraps the redo
 *       log within its first S sectors (RWF_DSYNC rewrites of committed
 *       dirty sub-blocks), --twice makes every checkpoint two fdatasync()s,
 *       each with its mark (the second finds nothing to do).  --reads N
 *       first reads N random 16 KiB pages a transaction (fills: with
 *       warm_restart the blocks a crash must keep current).
 *       and  M name A seq (all writes <= seq durable: fdatasync) or
 *       M name O seq (write seq durable: RWF_DSYNC).  STATE carries the
 *       sequence, redo position, mark counter and PRNG across runs.
 *   cw_work verify DEV ORACLE DMARK BMARK [--save FILE | --same FILE]
 *       DMARK: the mark whose durability claims must hold ("-": none);
 *       BMARK: no write issued after this mark can be there ("-": no bound).
 *       Each sector must hold its last durable write or a later one that
 *       covers it (zero for a discard), never older data ("stale"), never
 *       another sector's or a torn sector ("stale"), and a durable write
 *       must not be missing ("lost": zero where a durable write should be).
 *       --save keeps the image read, --same requires the image to equal a
 *       saved one (a difference counts as stale).  Prints
 *       "verify: <blocks> blocks, lost <l> stale <s> (4 KiB blocks)".
 *   cw_work verify-ordered DEV ORACLE DMARK [--bound N]
 *       The origin alone under the pool option "ordered 1" (cw_point
 *       --ordered): is DEV the volume's content at one flush point, mark k
 *       (the marks numbered 0.. in oracle order; -1: before any write), in
 *       every sector either its value at mark k (the last write with seq
 *       <= k's seq; zeroes if none) or a write issued after mark k and
 *       before mark k+1 (any after the last mark)?  Intervals of k per
 *       sector, intersected (see ord_ivals).  Discards count as writes of
 *       zeroes (run with --discards 0: a discarded sector may keep its
 *       data).  Prints "verify-ordered: consistent at mark <k> (<lag> marks
 *       behind mark DMARK)" for the largest such k (lag: DMARK's index
 *       minus k; 0 or less: up to date; DMARK "-": index -1) or
 *       "verify-ordered: torn (<n> sectors fit no single flush point)"
 *       (n: the fewest sectors any one mark leaves out), then a detail line
 *       (and on stderr the first sectors that do not fit).  --bound N: a
 *       consistent state more than N marks behind DMARK is older than the
 *       bound (one more line, exit 3).
 *   cw_work stamp FILE START NR SEQ | FILE -
 *       writes the stamps of write SEQ into sectors START..START+NR-1 of
 *       FILE (with "-", for each line "START NR SEQ" on stdin);
 *       tests/crash/host-test.sh builds images with it.
 *   run --discards 0: no discards at all.
 *
 * Exit: 0 ok, 1 lost or stale data (verify-ordered: torn), 2 usage / I/O
 * error, 3 (verify-ordered) consistent but older than the bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "crash_util.h"

#define SEC 512
#define SMAGIC 0x4b52575743524346ull	/* "FCRCWWRK" */
#define MAXW (64 * 1024)

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ a;

	h = (h ^ (b + 0x632be59bd9b4e019ull)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 29)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h ? h : 1;
}

static void stamp(unsigned char *p, uint64_t sector, uint64_t seq)
{
	uint64_t h[4] = { SMAGIC, sector, seq, mix(sector, seq) }, x = h[3];
	size_t i;

	memcpy(p, h, sizeof(h));
	for (i = sizeof(h); i < SEC; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

/* ---- state ---------------------------------------------------------- */

struct state {
	uint64_t sectors, redo, seq, redo_pos, marks, rng;
};

static void load_state(const char *p, struct state *s)
{
	FILE *f = fopen(p, "r");

	if (!f || fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
			 &s->sectors, &s->redo, &s->seq, &s->redo_pos, &s->marks, &s->rng) != 6)
		die(2, "cannot read state %s", p);
	fclose(f);
}

static void save_state(const char *p, const struct state *s)
{
	FILE *f = fopen(p, "w");

	if (!f || fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			  s->sectors, s->redo, s->seq, s->redo_pos, s->marks, s->rng) < 0 || fclose(f))
		die(2, "cannot write state %s", p);
}

static uint64_t rnd(struct state *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

/* ---- run -------------------------------------------------------------- */

struct run {
	struct state *s;
	int fd, ctl;
	FILE *oracle;
	const char *lw;
	unsigned char *buf;
	uint64_t data_sectors;	/* [0, data_sectors): data pages; then the redo area */
	uint64_t writes, dsyncs, fsyncs, discards;
	int nodiscard;
};

static void orc(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void orc(struct run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(r->oracle, fmt, ap);
	va_end(ap);
	if (fflush(r->oracle))
		die(2, "oracle write: %s", strerror(errno));
}

static void mark(struct run *r, char kind, uint64_t seq)
{
	char name[32];
	union {
		struct dm_ioctl io;
		unsigned char b[4096];
	} u;
	struct dm_target_msg *m;

	snprintf(name, sizeof(name), "cw%" PRIu64, ++r->s->marks);
	if (r->lw[0] != '-') {
		memset(&u, 0, sizeof(u));
		u.io.version[0] = DM_VERSION_MAJOR;
		u.io.version[1] = 0;
		u.io.version[2] = 0;
		u.io.data_size = sizeof(u);
		u.io.data_start = sizeof(struct dm_ioctl);
		snprintf(u.io.name, sizeof(u.io.name), "%s", r->lw);
		m = (struct dm_target_msg *)(u.b + sizeof(struct dm_ioctl));
		m->sector = 0;
		snprintf(m->message, sizeof(u) - sizeof(struct dm_ioctl) - sizeof(*m), "mark %s", name);
		if (ioctl(r->ctl, DM_TARGET_MSG, &u))
			die(2, "mark %s on %s: %s", name, r->lw, strerror(errno));
	}
	orc(r, "M %s %c %" PRIu64 "\n", name, kind, seq);
}

/* one write of nr sectors at start; flags 0 or RWF_DSYNC */
static uint64_t wr(struct run *r, uint64_t start, uint64_t nr, int flags)
{
	uint64_t seq = ++r->s->seq, i;
	struct iovec iov;
	ssize_t n;

	if (nr * SEC > MAXW || start + nr > r->s->sectors)
		die(2, "internal: write %" PRIu64 "+%" PRIu64, start, nr);
	for (i = 0; i < nr; i++)
		stamp(r->buf + i * SEC, start + i, seq);
	orc(r, "W %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", seq, start, nr);
	iov.iov_base = r->buf;
	iov.iov_len = nr * SEC;
	n = pwritev2(r->fd, &iov, 1, (off_t)(start * SEC), flags);
	if (n != (ssize_t)(nr * SEC))
		die(2, "write %" PRIu64 "+%" PRIu64 " (seq %" PRIu64 "): %s", start, nr, seq,
		    n < 0 ? strerror(errno) : "short");
	r->writes++;
	return seq;
}

static void discard(struct run *r, uint64_t start, uint64_t nr)
{
	uint64_t seq = ++r->s->seq, rg[2] = { start * SEC, nr * SEC };

	orc(r, "D %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", seq, start, nr);
	if (ioctl(r->fd, BLKDISCARD, rg)) {
		if (errno != EOPNOTSUPP && errno != EINVAL)
			die(2, "discard %" PRIu64 "+%" PRIu64 ": %s", start, nr, strerror(errno));
		/* no discard here: the D record only makes zeroes acceptable */
		fprintf(stderr, "cw_work: discard refused (%s): no more discards\n", strerror(errno));
		r->nodiscard = 1;
		return;
	}
	r->discards++;
}

static int cmd_run(int argc, char **argv)
{
	const char *dev = argv[0], *stp = argv[1], *orp = argv[2];
	uint64_t txns = num(argv[4]), ckpt = 8, pdisc = 40, t, k, n, st, redo_base;
	uint64_t hot = 0, span = 0, reads = 0, pages, redo_end;
	struct state s;
	struct run r;
	int a, twice = 0;

	for (a = 5; a < argc; a++) {
		if (!strcmp(argv[a], "--ckpt") && a + 1 < argc)
			ckpt = num(argv[++a]);
		else if (!strcmp(argv[a], "--discards") && a + 1 < argc)
			pdisc = num(argv[++a]);
		else if (!strcmp(argv[a], "--hot") && a + 1 < argc)
			hot = num(argv[++a]);
		else if (!strcmp(argv[a], "--redo-span") && a + 1 < argc)
			span = num(argv[++a]);
		else if (!strcmp(argv[a], "--twice"))
			twice = 1;
		else if (!strcmp(argv[a], "--reads") && a + 1 < argc)
			reads = num(argv[++a]);
		else
			die(2, "run: unknown argument %s", argv[a]);
	}
	if (!ckpt)
		ckpt = 1;
	load_state(stp, &s);
	memset(&r, 0, sizeof(r));
	r.s = &s;
	r.lw = argv[3];
	r.buf = abuf(MAXW);
	r.data_sectors = s.sectors - s.redo;
	r.fd = open(dev, O_RDWR | O_DIRECT);
	if (r.fd < 0)
		die(2, "%s: %s", dev, strerror(errno));
	if (r.lw[0] != '-') {
		r.ctl = open("/dev/mapper/control", O_RDWR);
		if (r.ctl < 0)
			die(2, "/dev/mapper/control: %s", strerror(errno));
	}
	r.oracle = fopen(orp, "a");
	if (!r.oracle)
		die(2, "%s: %s", orp, strerror(errno));
	redo_base = r.data_sectors;
	pages = r.data_sectors / 32;
	if (hot && hot < pages)
		pages = hot;
	redo_end = span && span < s.redo ? span : s.redo;
	for (t = 0; t < txns; t++) {
		uint64_t redo_nr, sq;

		/* pages read (any of the data area: a miss fills the cache) */
		for (k = 0; k < reads; k++) {
			st = (rnd(&s) % (r.data_sectors / 32)) * 32;
			if (pread(r.fd, r.buf, 32 * SEC, (off_t)(st * SEC)) != 32 * SEC)
				die(2, "read at sector %" PRIu64 ": %s", st, strerror(errno));
		}
		/* dirty data pages: aligned 16 KiB, written without a sync */
		n = rnd(&s) % 4;
		for (k = 0; k < n; k++) {
			st = (rnd(&s) % pages) * 32;
			wr(&r, st, 32, 0);
		}
		switch (rnd(&s) % 4) {
		case 0:	/* a 4 KiB block */
			st = (rnd(&s) % (r.data_sectors / 8)) * 8;
			wr(&r, st, 8, 0);
			break;
		case 1:	/* an odd 512-byte aligned range, may cross blocks */
			n = 1 + rnd(&s) % 24;
			st = rnd(&s) % (r.data_sectors - n);
			wr(&r, st, n, 0);
			break;
		default:
			break;
		}
		if (pdisc && rnd(&s) % pdisc == 0 && !r.nodiscard) {
			n = 8 * (1 + rnd(&s) % 16);
			st = (rnd(&s) % ((r.data_sectors - n) / 8)) * 8;
			discard(&r, st, n);
		}
		/* the redo record: sequential, RWF_DSYNC (REQ_FUA), then a mark */
		switch (rnd(&s) % 8) {
		case 0:
			redo_nr = 16;
			break;
		case 1:
			redo_nr = 3;
			break;
		default:
			redo_nr = 8;
			break;
		}
		if (s.redo_pos + redo_nr > redo_end)
			s.redo_pos = 0;
		sq = wr(&r, redo_base + s.redo_pos, redo_nr, RWF_DSYNC);
		s.redo_pos += redo_nr;
		r.dsyncs++;
		mark(&r, 'O', sq);
		/* checkpoint: fdatasync the batch, then a mark */
		if ((t + 1) % ckpt == 0) {
			if (fdatasync(r.fd))
				die(2, "fdatasync: %s", strerror(errno));
			r.fsyncs++;
			mark(&r, 'A', s.seq);
			if (twice) {
				if (fdatasync(r.fd))
					die(2, "fdatasync: %s", strerror(errno));
				r.fsyncs++;
				mark(&r, 'A', s.seq);
			}
		}
	}
	if (fdatasync(r.fd))
		die(2, "fdatasync: %s", strerror(errno));
	r.fsyncs++;
	mark(&r, 'A', s.seq);
	close(r.fd);
	fclose(r.oracle);
	save_state(stp, &s);
	printf("# cw_work run: %" PRIu64 " txns, %" PRIu64 " writes (%" PRIu64 " RWF_DSYNC), %" PRIu64 " fdatasync, %" PRIu64 " discards; seq %" PRIu64 ", marks %" PRIu64 "\n",
	       txns, r.writes, r.dsyncs, r.fsyncs, r.discards, s.seq, s.marks);
	return 0;
}

/* ---- verify ----------------------------------------------------------- */

struct op {
	uint64_t start, nr;
	char type;		/* 'W' or 'D' */
};

/*
 * cw_point's shared image: with "--save -" the volume's image is read
 * straight into this MAP_SHARED buffer (and *verify_shm_saved set), with
 * "--same -" the origin is compared against it: no 2 x 6 MiB through a
 * file per crash point, which under TCG costs as much as the reads.
 */
static unsigned char *verify_shm;
static uint64_t verify_shm_len, *verify_shm_saved;


/* The first @bytes of @dev (open as @fd, closed here) into @img, a MiB a read. */
static void read_image(int fd, const char *dev, unsigned char *img, uint64_t bytes)
{
	uint64_t st;

	for (st = 0; st < bytes;) {
		size_t chunk = bytes - st > (1u << 20) ? (1u << 20) : bytes - st;
		ssize_t n = pread(fd, img + st, chunk, (off_t)st);

		if (n <= 0)
			die(2, "read %s at %" PRIu64 ": %s", dev, st, n < 0 ? strerror(errno) : "EOF");
		st += (uint64_t)n;
	}
	close(fd);
}
/*
 * A discard of sector s issued after its durable write d (seq), before the
 * bound: the sector's contents are then undefined (REQ_OP_DISCARD), so
 * zero or an older write of this same sector is allowed, never another
 * sector's data or a torn sector.  (fcache drops its cached copies, dirty
 * ones too, when the discard arrives; until the origin's own discard is
 * durable, the origin may still hold an older write.)
 */
static int discarded_since(const struct op *ops, uint64_t nops, uint64_t s, uint64_t d,
			   uint64_t bound)
{
	uint64_t j;

	for (j = d; j < bound && j < nops; j++)
		if (ops[j].type == 'D' && s >= ops[j].start && s < ops[j].start + ops[j].nr)
			return 1;
	return 0;
}

static int cmd_verify(int argc, char **argv)
{
	const char *dev = argv[0], *orp = argv[1], *dmark = argv[2], *bmark = argv[3];
	const char *save = NULL, *same = NULL;
	uint64_t nops = 0, cap = 1024, seq, st, nr, x = 0, bound = UINT64_MAX, sectors, i, s;
	uint64_t *durable, *lastw, nlost = 0, nstale = 0, ndiff = 0, blocks, shown = 0;
	unsigned char *lostb, *staleb, *img, *want, *ref = NULL;
	struct op *ops = malloc(cap * sizeof(*ops));
	char line[256], kind, name[64], t;
	int found_d = dmark[0] == '-', found_b = bmark[0] == '-', fd, a;
	FILE *f;
	struct {
		uint64_t seq;
	} *olist = NULL;
	uint64_t no = 0;

	for (a = 4; a < argc; a++) {
		if (!strcmp(argv[a], "--save") && a + 1 < argc)
			save = argv[++a];
		else if (!strcmp(argv[a], "--same") && a + 1 < argc)
			same = argv[++a];
		else
			die(2, "verify: unknown argument %s", argv[a]);
	}
	f = fopen(orp, "r");
	if (!f || !ops)
		die(2, "%s: %s", orp, strerror(errno));
	olist = malloc(sizeof(*olist) * 65536);
	if (!olist)
		die(2, "out of memory");
	/* pass 1: the ops, the durable horizon x (A marks) and the O marks up to DMARK */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%c %" SCNu64 " %" SCNu64 " %" SCNu64, &t, &seq, &st, &nr) == 4 &&
		    (t == 'W' || t == 'D')) {
			if (seq != nops + 1)
				die(2, "oracle: seq %" PRIu64 " out of order", seq);
			if (nops == cap) {
				cap *= 2;
				ops = realloc(ops, cap * sizeof(*ops));
				if (!ops)
					die(2, "out of memory");
			}
			ops[nops].start = st;
			ops[nops].nr = nr;
			ops[nops].type = t;
			nops++;
		} else if (sscanf(line, "M %63s %c %" SCNu64, name, &kind, &seq) == 3) {
			if (!found_d) {
				if (kind == 'A' && seq > x)
					x = seq;
				else if (kind == 'O' && no < 65536)
					olist[no++].seq = seq;
				if (!strcmp(name, dmark))
					found_d = 1;
			}
			if (!found_b && !strcmp(name, bmark)) {
				found_b = 1;
				bound = seq;
			}
		} else {
			die(2, "oracle: bad line %s", line);
		}
	}
	fclose(f);
	if (!found_d || !found_b)
		die(2, "mark %s not in the oracle", found_d ? bmark : dmark);
	if (dmark[0] == '-') {
		x = 0;
		no = 0;
	}
	if (bound == UINT64_MAX)
		bound = nops;
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(2, "%s: %s", dev, strerror(errno));
	{
		off_t end = lseek(fd, 0, SEEK_END);

		if (end <= 0)
			die(2, "%s: cannot tell its size", dev);
		sectors = (uint64_t)end / SEC;
	}
	durable = calloc(sectors, sizeof(*durable));
	lastw = calloc(sectors, sizeof(*lastw));
	blocks = (sectors + 7) / 8;
	lostb = calloc(blocks, 1);
	staleb = calloc(blocks, 1);
	if (save && !strcmp(save, "-")) {
		if (!verify_shm || sectors * SEC > verify_shm_len)
			die(2, "verify: --save - without a large enough shared image");
		img = verify_shm;
	} else if (posix_memalign((void **)&img, 4096, sectors * SEC)) {
		die(2, "out of memory");
	}
	want = abuf(SEC);
	if (!durable || !lastw || !lostb || !staleb)
		die(2, "out of memory");
	/* durable[s]: the last op <= x covering s, raised by the O marks */
	for (i = 0; i < nops && i < x; i++)
		for (s = ops[i].start; s < ops[i].start + ops[i].nr && s < sectors; s++)
			durable[s] = i + 1;
	for (i = 0; i < no; i++) {
		const struct op *o = &ops[olist[i].seq - 1];

		for (s = o->start; s < o->start + o->nr && s < sectors; s++)
			if (durable[s] < olist[i].seq)
				durable[s] = olist[i].seq;
	}
	read_image(fd, dev, img, sectors * SEC);
	if (same && !strcmp(same, "-")) {
		if (!verify_shm || !verify_shm_saved || !*verify_shm_saved || sectors * SEC > verify_shm_len)
			die(2, "verify: --same - without a saved shared image");
		ref = verify_shm;
	} else if (same) {
		size_t len;

		f = fopen(same, "rb");
		ref = malloc(sectors * SEC);
		if (!f || !ref || (len = fread(ref, 1, sectors * SEC, f)) != sectors * SEC)
			die(2, "cannot read %s", same);
		fclose(f);
	}
	/* the origin after the flush equals what the volume returned (which
	 * passed this same check): nothing more to look at */
	if (ref && !memcmp(ref, img, sectors * SEC)) {
		printf("verify: %" PRIu64 " blocks, lost 0 stale 0 (4 KiB blocks; identical to the volume's image)\n",
		       blocks);
		return 0;
	}
	for (s = 0; s < sectors; s++) {
		const unsigned char *p = img + s * SEC;
		uint64_t h[4], d = durable[s], v;
		const char *why = NULL;
		int lost = 0;

		memcpy(h, p, sizeof(h));
		if (h[0] == SMAGIC) {
			v = h[2];
			stamp(want, s, v);
			if (h[1] != s)
				why = "another sector's data";
			else if (memcmp(want, p, SEC))
				why = "torn or corrupt sector";
			else if (v == 0 || v > nops || ops[v - 1].type != 'W' ||
				 s < ops[v - 1].start || s >= ops[v - 1].start + ops[v - 1].nr)
				why = "a write that never covered it";
			else if (v > bound)
				why = "a write issued after the bounding mark";
			else if (v < d && !discarded_since(ops, nops, s, d, bound))
				why = "older than its durable write";
		} else {
			for (i = 0; i < SEC && !p[i]; i++)
				;
			if (i < SEC) {
				why = "neither zero nor a stamped sector";
				v = 0;
			} else {
				/* zero: fine if nothing durable, or a discard at or after it */
				v = 0;
				if (d && ops[d - 1].type != 'D' && !discarded_since(ops, nops, s, d, bound)) {
					lost = 1;
					why = "zero: its durable write is lost";
				}
			}
		}
		if (!why && ref && memcmp(ref + s * SEC, p, SEC))
			why = "differs from the image read through the volume";
		if (why) {
			if (lost)
				lostb[s / 8] = 1;
			else
				staleb[s / 8] = 1;
			if (shown++ < 12)
				fprintf(stderr, "verify: sector %" PRIu64 " (block %" PRIu64 "): %s (found seq %" PRIu64 ", durable %" PRIu64 " %c, bound %" PRIu64 ")\n",
					s, s / 8, why, v, d, d ? ops[d - 1].type : '-', bound);
			if (ref && !lost && !strcmp(why, "differs from the image read through the volume"))
				ndiff++;
		}
	}
	for (i = 0; i < blocks; i++) {
		nlost += lostb[i];
		nstale += staleb[i];
	}
	if (save && img == verify_shm) {
		*verify_shm_saved = 1;
	} else if (save) {
		f = fopen(save, "wb");
		if (!f || fwrite(img, SEC, sectors, f) != sectors || fclose(f))
			die(2, "cannot write %s", save);
	}
	printf("verify: %" PRIu64 " blocks, lost %" PRIu64 " stale %" PRIu64 " (4 KiB blocks; %" PRIu64 " sectors differ from the volume's image; durable horizon %" PRIu64 " + %" PRIu64 " dsync, bound %" PRIu64 " of %" PRIu64 " ops)\n",
	       blocks, nlost, nstale, ndiff, x, no, bound, nops);
	return nlost || nstale ? 1 : 0;
}

/* ---- verify-ordered ------------------------------------------------------ */

/*
 * The origin alone under the pool option "ordered 1": is the image the
 * volume's content at one flush point (an oracle mark), plus any subset of
 * the writes issued after that mark and before the next one?  Marks are
 * numbered 0..M-1 in oracle order, k = -1 is the initial state (all zero);
 * q[k] is mark k's seq (every op <= q[k] had completed when mark k was
 * taken: cw_work is one sequential writer), q[-1] = 0.  j(w) is the first
 * mark with q >= w (M if none): a write w is in the window after mark
 * j(w) - 1.  Sector s, covered by ops o_1 < ... < o_n (W, or D taken as a
 * write of zeroes), holding value v (a stamp's seq, 0 for zeroes):
 *   v = o_i:  value at mark k for j(o_i) <= k < j(o_{i+1}), and a write of
 *             the window of k = j(o_i) - 1: k in [j(o_i) - 1, j(o_{i+1}) - 1]
 *             (j(o_{n+1}) = M);
 *   v = 0:    also the initial state: k in [-1, j(o_1) - 1];
 *   anything else (another sector's stamp, a torn sector, a write that
 *   never covered s): no k.
 * Each sector adds its (merged) intervals to a difference array over k;
 * the k that every sector accepts are those whose count is the number of
 * sectors.  Unmerged, a sector with several equal values (zero after
 * discards) would count twice: ord_ivals merges.
 */
struct ordctx {
	const struct op *ops;
	uint64_t nops, *q, nq;		/* marks' seqs, non-decreasing */
	uint64_t *first, *list;		/* per sector: its ops' seqs, list[first[s]..first[s+1]) */
};

/* the first mark with q >= w, or nq */
static int64_t ord_j(const struct ordctx *c, uint64_t w)
{
	uint64_t lo = 0, hi = c->nq;

	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;

		if (c->q[m] >= w)
			hi = m;
		else
			lo = m + 1;
	}
	return (int64_t)lo;
}

/*
 * The marks k at which sector s holding value v (valid: a stamp that names
 * a write of s, or zeroes) fits, as merged ascending intervals [lo, hi]
 * into lo[] / hi[] (room for n + 1); returns how many.
 */
static int ord_ivals(const struct ordctx *c, uint64_t s, uint64_t v, int64_t *lo, int64_t *hi)
{
	uint64_t a = c->first[s], b = c->first[s + 1], i;
	int64_t m = (int64_t)c->nq, l, h;
	int n = 0;

	for (i = a; i <= b; i++) {
		if (i == a) {		/* the initial state */
			if (v)
				continue;
			l = -1;
		} else {
			const struct op *o = &c->ops[c->list[i - 1] - 1];

			if (o->type == 'D' ? v != 0 : v != c->list[i - 1])
				continue;
			l = ord_j(c, c->list[i - 1]) - 1;
		}
		h = i < b ? ord_j(c, c->list[i]) - 1 : m - 1;
		if (n && l <= hi[n - 1] + 1) {
			if (h > hi[n - 1])
				hi[n - 1] = h;
		} else {
			lo[n] = l;
			hi[n] = h;
			n++;
		}
	}
	return n;
}

/* the value sector s of the image holds: 0 zeroes, a write's seq, or -1 (fits nothing) */
static int64_t ord_value(const struct ordctx *c, const unsigned char *p, uint64_t s, unsigned char *want)
{
	uint64_t h[4], i;

	memcpy(h, p, sizeof(h));
	if (h[0] != SMAGIC) {
		for (i = 0; i < SEC && !p[i]; i++)
			;
		return i < SEC ? -1 : 0;
	}
	if (h[1] != s || h[2] == 0 || h[2] > c->nops || c->ops[h[2] - 1].type != 'W' ||
	    s < c->ops[h[2] - 1].start || s >= c->ops[h[2] - 1].start + c->ops[h[2] - 1].nr)
		return -1;
	stamp(want, s, h[2]);
	return memcmp(want, p, SEC) ? -1 : (int64_t)h[2];
}

static int cmd_verify_ordered(int argc, char **argv)
{
	const char *dev = argv[0], *orp = argv[1], *dmark = argv[2];
	uint64_t cap = 1024, qcap = 1024, seq, st, nr, sectors, s, i, maxn = 0, nwin = 0, nbad = 0;
	uint64_t bound = UINT64_MAX, shown = 0;
	int64_t dm = -1, k, best, v, *lo, *hi, *cnt, run, m;
	struct ordctx c;
	struct op *ops = malloc(cap * sizeof(*ops));
	char (*names)[64] = malloc(qcap * sizeof(*names));
	char line[256], kind, name[64], t;
	unsigned char *img, *want;
	int fd, a, n;
	FILE *f;

	memset(&c, 0, sizeof(c));
	c.q = malloc(qcap * sizeof(*c.q));
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "--bound") && a + 1 < argc)
			bound = num(argv[++a]);
		else
			die(2, "verify-ordered: unknown argument %s", argv[a]);
	}
	f = fopen(orp, "r");
	if (!f || !ops || !names || !c.q)
		die(2, "%s: %s", orp, f ? "out of memory" : strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%c %" SCNu64 " %" SCNu64 " %" SCNu64, &t, &seq, &st, &nr) == 4 &&
		    (t == 'W' || t == 'D')) {
			if (seq != c.nops + 1)
				die(2, "oracle: seq %" PRIu64 " out of order", seq);
			if (c.nops == cap) {
				cap *= 2;
				ops = realloc(ops, cap * sizeof(*ops));
				if (!ops)
					die(2, "out of memory");
			}
			ops[c.nops].start = st;
			ops[c.nops].nr = nr;
			ops[c.nops].type = t;
			c.nops++;
		} else if (sscanf(line, "M %63s %c %" SCNu64, name, &kind, &seq) == 3) {
			if (c.nq && seq < c.q[c.nq - 1])
				die(2, "oracle: mark %s (seq %" PRIu64 ") before its predecessor's seq %" PRIu64
				    ": not one sequential writer", name, seq, c.q[c.nq - 1]);
			if (seq > c.nops)
				die(2, "oracle: mark %s names seq %" PRIu64 ", not issued yet", name, seq);
			if (c.nq == qcap) {
				qcap *= 2;
				c.q = realloc(c.q, qcap * sizeof(*c.q));
				names = realloc(names, qcap * sizeof(*names));
				if (!c.q || !names)
					die(2, "out of memory");
			}
			if (!strcmp(name, dmark))
				dm = (int64_t)c.nq;
			snprintf(names[c.nq], sizeof(names[0]), "%s", name);
			c.q[c.nq++] = seq;
		} else {
			die(2, "oracle: bad line %s", line);
		}
	}
	fclose(f);
	c.ops = ops;
	if (dm < 0 && strcmp(dmark, "-"))
		die(2, "mark %s not in the oracle", dmark);
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 && errno == EINVAL)	/* a file on tmpfs (the host test) */
		fd = open(dev, O_RDONLY);
	if (fd < 0)
		die(2, "%s: %s", dev, strerror(errno));
	{
		off_t end = lseek(fd, 0, SEEK_END);

		if (end <= 0)
			die(2, "%s: cannot tell its size", dev);
		sectors = (uint64_t)end / SEC;
	}
	img = abuf(sectors * SEC);
	want = abuf(SEC);
	read_image(fd, dev, img, sectors * SEC);
	/* per sector, the seqs of the ops covering it, ascending */
	c.first = calloc(sectors + 2, sizeof(*c.first));
	if (!c.first)
		die(2, "out of memory");
	for (i = 0; i < c.nops; i++)
		for (s = ops[i].start; s < ops[i].start + ops[i].nr && s < sectors; s++)
			c.first[s + 2]++;
	for (s = 0; s < sectors; s++) {
		if (c.first[s + 2] > maxn)
			maxn = c.first[s + 2];
		c.first[s + 2] += c.first[s + 1];
	}
	c.list = malloc((c.first[sectors + 1] + 1) * sizeof(*c.list));
	lo = malloc((maxn + 1) * sizeof(*lo));
	hi = malloc((maxn + 1) * sizeof(*hi));
	cnt = calloc(c.nq + 2, sizeof(*cnt));
	if (!c.list || !lo || !hi || !cnt)
		die(2, "out of memory");
	for (i = 0; i < c.nops; i++)
		for (s = ops[i].start; s < ops[i].start + ops[i].nr && s < sectors; s++)
			c.list[c.first[s + 1]++] = i + 1;
	/* now first[s]..first[s + 1] is sector s's list; cnt[k + 1]: a difference array */
	for (s = 0; s < sectors; s++) {
		v = ord_value(&c, img + s * SEC, s, want);
		if (v < 0) {
			nbad++;
			continue;
		}
		n = ord_ivals(&c, s, (uint64_t)v, lo, hi);
		for (a = 0; a < n; a++) {
			cnt[lo[a] + 1]++;
			cnt[hi[a] + 2]--;
		}
	}
	best = -2;
	m = -1;
	for (k = -1, run = 0; k < (int64_t)c.nq; k++) {
		run += cnt[k + 1];
		if (best == -2 || run >= m) {	/* the latest of the best */
			m = run;
			best = k;
		}
	}
	/* the sectors that do not fit the best mark; those in its window */
	for (s = 0; s < sectors; s++) {
		int fits = 0;

		n = 0;
		v = ord_value(&c, img + s * SEC, s, want);
		if (v >= 0) {
			n = ord_ivals(&c, s, (uint64_t)v, lo, hi);
			for (a = 0; a < n; a++)
				fits |= lo[a] <= best && best <= hi[a];
		}
		if (fits && v > 0 && (best < 0 || (uint64_t)v > c.q[best]))
			nwin++;
		if (!fits && (uint64_t)m < sectors && shown++ < 8) {
			int64_t b0 = (int64_t)c.first[s], b1 = (int64_t)c.first[s + 1], at = 0, x;

			for (x = b0; x < b1 && best >= 0 && c.list[x] <= c.q[best]; x++)
				at = ops[c.list[x] - 1].type == 'W' ? (int64_t)c.list[x] : 0;
			if (v < 0)
				fprintf(stderr, "verify-ordered: sector %" PRIu64 " holds no write of it (foreign or torn), fits no mark", s);
			else if (v)
				fprintf(stderr, "verify-ordered: sector %" PRIu64 " holds seq %" PRId64 ", fits marks", s, v);
			else
				fprintf(stderr, "verify-ordered: sector %" PRIu64 " holds zeroes, fits marks", s);
			for (a = 0; a < n; a++)
				fprintf(stderr, " %" PRId64 "..%" PRId64, lo[a], hi[a]);
			fprintf(stderr, "; at mark %" PRId64 " it holds %" PRId64 " (window to seq %" PRIu64 ")\n",
				best, at, best + 1 < (int64_t)c.nq ? c.q[best + 1] : c.nops);
		}
	}
	if ((uint64_t)m < sectors) {
		printf("verify-ordered: torn (%" PRIu64 " sectors fit no single flush point)\n", sectors - (uint64_t)m);
		printf("verify-ordered: %" PRIu64 " sectors, %" PRIu64 " unstamped or foreign; the best mark %" PRId64
		       " (%s) fits all but %" PRIu64 "; %" PRIu64 " marks, %" PRIu64 " ops\n",
		       sectors, nbad, best, best >= 0 ? names[best] : "initial", sectors - (uint64_t)m, c.nq, c.nops);
		return 1;
	}
	printf("verify-ordered: consistent at mark %" PRId64 " (%" PRId64 " marks behind mark %s)\n", best,
	       dm - best, dmark);
	printf("verify-ordered: mark %" PRId64 " is %s (seq %" PRIu64 "); %" PRIu64 " sectors, %" PRIu64
	       " of them hold writes of the window after it; %" PRIu64 " marks, %" PRIu64 " ops\n",
	       best, best >= 0 ? names[best] : "the initial state", best >= 0 ? c.q[best] : 0, sectors, nwin,
	       c.nq, c.nops);
	if (bound != UINT64_MAX && dm - best > (int64_t)bound) {
		printf("verify-ordered: older than the bound (%" PRId64 " marks behind, bound %" PRIu64 ")\n",
		       dm - best, bound);
		return 3;
	}
	return 0;
}

/*
 * cw_work stamp FILE START NR SEQ, or FILE - (lines "START NR SEQ" on
 * stdin): stamped sectors into FILE (the host test builds images with it)
 */
static int cmd_stamp(int argc, char **argv)
{
	uint64_t st, nr, seq, i;
	unsigned char *b = abuf(SEC);
	int fd = open(argv[0], O_WRONLY | O_CREAT, 0644), one = argc == 4;
	char line[128];

	if (fd < 0)
		die(2, "%s: %s", argv[0], strerror(errno));
	if (!one && strcmp(argv[1], "-"))
		die(2, "stamp: FILE START NR SEQ, or FILE -");
	while (one || fgets(line, sizeof(line), stdin)) {
		if (one) {
			st = num(argv[1]);
			nr = num(argv[2]);
			seq = num(argv[3]);
		} else if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, &st, &nr, &seq) != 3) {
			die(2, "stamp: bad line %s", line);
		}
		for (i = 0; i < nr; i++) {
			stamp(b, st + i, seq);
			if (pwrite(fd, b, SEC, (off_t)((st + i) * SEC)) != SEC)
				die(2, "%s: %s", argv[0], strerror(errno));
		}
		if (one)
			break;
	}
	return close(fd) ? 2 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 7 && !strcmp(argv[1], "init")) {
		struct state s = { num(argv[4]), num(argv[5]), 0, 0, 0, num(argv[6]) * 2654435761u + 7 };
		FILE *f = fopen(argv[3], "w");

		if (!f || fclose(f))
			die(2, "%s: %s", argv[3], strerror(errno));
		if (s.redo >= s.sectors / 2 || s.redo < 64)
			die(2, "init: bad redo size");
		save_state(argv[2], &s);
		return 0;
	}
	if (argc >= 7 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (argc >= 6 && !strcmp(argv[1], "verify"))
		return cmd_verify(argc - 2, argv + 2);
	if (argc >= 5 && !strcmp(argv[1], "verify-ordered"))
		return cmd_verify_ordered(argc - 2, argv + 2);
	if ((argc == 6 || argc == 4) && !strcmp(argv[1], "stamp"))
		return cmd_stamp(argc - 2, argv + 2);
	fprintf(stderr, "usage: cw_work init STATE ORACLE SECTORS REDO_SECTORS SEED\n"
		"       cw_work run DEV STATE ORACLE LWNAME TXNS [--ckpt N] [--discards P]\n"
		"       cw_work verify DEV ORACLE DMARK BMARK [--save FILE | --same FILE]\n"
		"       cw_work verify-ordered DEV ORACLE DMARK [--bound N]\n"
		"       cw_work stamp FILE START NR SEQ | FILE -\n");
	return 2;
}
