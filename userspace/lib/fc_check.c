// SPDX-License-Identifier: GPL-2.0
/*
 * Offline metadata reader and checker (fcachectl check / dump).
 *
 * Selection follows the recovery rules of include/fcache_format.h: the valid
 * superblock slot with the highest seq S and its md_seq M (M = S for a pool
 * without FC_FEAT_INCOMPAT_MDSEQ); for every logical metadata page the
 * valid slot (checksum, magic, version, own location, pool uuid) with the
 * highest seq <= M.  A valid slot above M is a leftover of a commit that
 * never completed: never used, only a warning (and a needs_check record if
 * its header says so).  A page whose two slots are all zeros was never
 * written and counts as empty.  A bad slot next to a good one is what an
 * interrupted commit leaves behind and is only a warning; a page with no
 * usable slot, and any inconsistency between the chosen pages, is damage.
 * The same holds for the superblock: an unusable slot next to a valid one
 * is what a torn superblock write leaves (the kernel loads the valid one
 * and its next commit overwrites the other), a warning.  Neither slot
 * valid is damage, unless nothing on the device carries an fcache magic:
 * then it is not a pool at all (FC_CHECK_NOT_A_POOL).
 *
 * Tests on the chosen metadata: superblock geometry against itself and the
 * device size, volume table (ids nonzero and unique, sizes), every entry
 * (sub-block bits in range, dirty a subset of valid, its volume slot in use,
 * its origin block inside the volume, free entries without dirty bits,
 * entries past the last block free) and overlaps (two entries mapping the
 * same volume slot and origin block).
 *
 * fc_repair_fd() runs the same check and, when it finds no error, zeroes
 * the leftovers and the unusable copies next to good ones and writes a
 * superblock without needs_check.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fcache_format.h"
#include "fc_check.h"
#include "fc_dev.h"
#include "fc_json.h"

#define MAX_MSGS 200	/* problems kept for printing; all are counted */
#define MAX_PER_KIND 10

struct problem {
	int error;		/* 1 error, 0 warning */
	char kind[24];
	char msg[200];
};

struct volinfo {
	uint64_t cached, dirty_blocks, dirty_sub;
};

struct emap {
	uint64_t oblock;
	uint32_t idx;
	uint8_t vol;
};

/* An unusable copy of a page whose other copy is used. */
struct stale {
	uint64_t page;		/* logical page */
	int slot;
};

/* A valid page slot above md_seq. */
struct leftover {
	uint64_t page;		/* logical page */
	uint64_t seq;
	uint32_t hdr_flags;
	int slot;
};

struct ctx {
	int fd;
	const char *name;
	uint64_t dev_sectors;
	int errors, warnings;
	struct problem msgs[MAX_MSGS];
	int nmsgs;
	/* superblock */
	int sb_slot;
	int sb_err[2];
	uint64_t sb_seq[2];
	struct fc_disk_superblock sb;
	struct fc_geometry g;
	uint64_t S, M;
	uint64_t max_seq;	/* highest seq of any valid slot, superblock or page */
	/* leftovers (valid page slots above M), each counted once */
	struct leftover *lo;
	size_t nlo, lo_cap;
	int lo_needs_check;	/* a leftover carries FC_HDR_NEEDS_CHECK */
	/* unusable copies next to a used one, each counted once */
	struct stale *st;
	size_t nst, st_cap;
	int sb_other_bad;	/* the superblock slot not in use is unusable or foreign */
	int stale_seen;		/* a page copy next to the used one is unusable */
	int not_a_pool;		/* no fcache magic anywhere it would be */
	/* volume table */
	int vt_ok;
	int vt_slot;
	struct fc_disk_voltable vt;
	struct volinfo vi[FC_VT_SLOTS];
	/* entries */
	struct emap *map;
	uint64_t nmap;
	uint64_t used, dirty, lost_pages;
	void *page;
};

static void problem(struct ctx *c, int error, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct ctx *c, int error, const char *kind, const char *fmt, ...)
{
	va_list ap;
	struct problem *p;
	int i, same;

	if (error)
		c->errors++;
	else
		c->warnings++;
	if (c->nmsgs >= MAX_MSGS)
		return;
	for (i = 0, same = 0; i < c->nmsgs; i++)
		same += !strcmp(c->msgs[i].kind, kind);
	if (same >= MAX_PER_KIND)
		return;
	p = &c->msgs[c->nmsgs++];
	p->error = error;
	snprintf(p->kind, sizeof(p->kind), "%s", kind);
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
}

static int read_page(struct ctx *c, uint64_t nr, void *buf)
{
	ssize_t n;

	if ((nr + 1) * FC_PAGE_SECTORS > c->dev_sectors) {
		errno = ENOSPC;
		return -1;
	}
	n = pread(c->fd, buf, FC_PAGE_SIZE, (off_t)(nr * FC_PAGE_SIZE));
	if (n != FC_PAGE_SIZE) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* Page buffers are aligned for O_DIRECT reads. */
static void *page_alloc(void)
{
	void *p = NULL;

	if (posix_memalign(&p, FC_PAGE_SIZE, FC_PAGE_SIZE))
		return NULL;
	return p;
}

static uint64_t hdr_seq(const void *page)
{
	return le64_to_cpu(((const struct fc_disk_header *)page)->seq);
}

/*
 * Without a superblock: does one of the first metadata page slots (volume
 * table, first entry pages) carry an fcache magic?  Its flash page number
 * into *@nr.
 */
static int find_md_magic(struct ctx *c, uint64_t *nr)
{
	const struct fc_disk_header *h = c->page;
	uint64_t p;
	uint32_t m;

	for (p = fc_md_page_nr(0, 0); p < fc_md_page_nr(4, 0); p++) {
		if (read_page(c, p, c->page))
			break;
		m = le32_to_cpu(h->magic);
		if (m == FC_SB_MAGIC || m == FC_VT_MAGIC || m == FC_ME_MAGIC) {
			*nr = p;
			return 1;
		}
	}
	return 0;
}

static int read_superblock(struct ctx *c)
{
	struct fc_disk_superblock *sb[2];
	char seqs[48] = "";
	const char *why;
	int s, best = -1;

	for (s = 0; s < 2; s++) {
		sb[s] = page_alloc();
		if (!sb[s] || read_page(c, s, sb[s])) {
			problem(c, 1, "io", "cannot read superblock slot %d: %s", s, strerror(errno));
			c->sb_err[s] = 1;
			continue;
		}
		c->sb_err[s] = fc_page_verify(sb[s], FC_SB_MAGIC, s, NULL);
		c->sb_seq[s] = hdr_seq(sb[s]);
		if (!c->sb_err[s] && c->sb_seq[s] > c->max_seq)
			c->max_seq = c->sb_seq[s];
		if (!c->sb_err[s] && (best < 0 || c->sb_seq[s] > c->sb_seq[best]))
			best = s;
	}
	if (best < 0) {
		uint64_t md = 0;

		if (c->sb_err[0] <= 0 && c->sb_err[1] <= 0 &&
		    (c->sb_err[0] == FC_ECHK_ZERO || c->sb_err[0] == FC_ECHK_MAGIC) &&
		    (c->sb_err[1] == FC_ECHK_ZERO || c->sb_err[1] == FC_ECHK_MAGIC) &&
		    !find_md_magic(c, &md)) {
			c->not_a_pool = 1;
			problem(c, 1, "superblock",
				"%s holds no fcache metadata (no fcache superblock in either slot, no fcache magic in the metadata pages after them): not an fcache pool, or never formatted",
				c->name);
		} else if (md) {
			problem(c, 1, "superblock",
				"no fcache superblock in either slot, but flash page %" PRIu64
				" is fcache metadata: the superblocks of a pool were overwritten",
				md);
		} else {
			problem(c, 1, "superblock", "no valid superblock: slot 0: %s, slot 1: %s",
				c->sb_err[0] < 0 ? fc_echk_str(c->sb_err[0]) : "unreadable",
				c->sb_err[1] < 0 ? fc_echk_str(c->sb_err[1]) : "unreadable");
		}
		free(sb[0]);
		free(sb[1]);
		return -1;
	}
	c->sb_slot = best;
	memcpy(&c->sb, sb[best], sizeof(c->sb));
	c->S = c->sb_seq[best];
	s = !best;
	if (c->sb_err[s] == FC_ECHK_ZERO) {
		/* a pool that has committed once has only one slot written */
	} else if (c->sb_err[s] < 0) {
		/* what a torn superblock write leaves; the next commit overwrites it */
		c->sb_other_bad = 1;
		if (c->sb_err[s] != FC_ECHK_MAGIC && c->sb_seq[s] > c->S)
			snprintf(seqs, sizeof(seqs), "; its header says seq %" PRIu64, c->sb_seq[s]);
		problem(c, 0, "superblock_slot",
			"superblock slot %d is not usable (%s%s), as a superblock write that never completed leaves it; slot %d (seq %" PRIu64 ") is used, as recovery does, and the next commit overwrites slot %d",
			s, fc_echk_str(c->sb_err[s]), seqs, best, c->S, s);
	} else if (c->sb_err[s] == 0) {
		if (memcmp(sb[s]->hdr.uuid, c->sb.hdr.uuid, 16)) {
			c->sb_other_bad = 1;
			problem(c, 0, "superblock_slot",
				"superblock slot %d belongs to an older pool (other uuid)", s);
		}
		/* equal seqs: a fresh format writes seq 1 to both slots */
	}
	free(sb[0]);
	free(sb[1]);
	if (fc_sb_check_geometry(&c->sb, c->dev_sectors, &c->g, &why)) {
		problem(c, 1, "geometry", "superblock slot %d: %s", best, why);
		return -1;
	}
	c->M = fc_sb_md_seq(&c->sb);
	if (le32_to_cpu(c->sb.sb_flags) & ~(FC_SB_CLEAN | FC_SB_NEEDS_CHECK))
		problem(c, 0, "superblock", "unknown superblock flags 0x%x",
			le32_to_cpu(c->sb.sb_flags));
	if (le32_to_cpu(c->sb.sb_flags) & FC_SB_NEEDS_CHECK)
		problem(c, 0, "needs_check",
			"the pool recorded an error (needs_check is set in the superblock): it loads read-only until 'fcachectl check --repair'");
	return 0;
}

/* Record the unusable slot @s of logical page @l (once, however often it is read). */
static void note_stale(struct ctx *c, uint64_t l, int s)
{
	struct stale *st;
	size_t i;

	for (i = 0; i < c->nst; i++)
		if (c->st[i].page == l && c->st[i].slot == s)
			return;
	if (c->nst == c->st_cap) {
		size_t cap = c->st_cap ? 2 * c->st_cap : 16;

		st = realloc(c->st, cap * sizeof(*st));
		if (!st) {
			problem(c, 1, "io", "out of memory for the list of unusable copies");
			return;
		}
		c->st = st;
		c->st_cap = cap;
	}
	c->st[c->nst].page = l;
	c->st[c->nst].slot = s;
	c->nst++;
}

/* Record leftover slot @s of logical page @l (once, however often it is read). */
static void note_leftover(struct ctx *c, uint64_t l, int s, const void *page, const char *what)
{
	const struct fc_disk_header *h = page;
	struct leftover *lo;
	size_t i;

	for (i = 0; i < c->nlo; i++)
		if (c->lo[i].page == l && c->lo[i].slot == s)
			return;
	if (c->nlo == c->lo_cap) {
		size_t cap = c->lo_cap ? 2 * c->lo_cap : 16;

		lo = realloc(c->lo, cap * sizeof(*lo));
		if (!lo) {
			problem(c, 1, "io", "out of memory for the leftover list");
			return;
		}
		c->lo = lo;
		c->lo_cap = cap;
	}
	lo = &c->lo[c->nlo++];
	lo->page = l;
	lo->slot = s;
	lo->seq = hdr_seq(page);
	lo->hdr_flags = le32_to_cpu(h->flags);
	problem(c, 0, "leftover",
		"%s slot %d (flash page %" PRIu64 "): leftover seq %" PRIu64 " above md_seq %" PRIu64
		" of a commit that never completed; never used, harmless",
		what, s, fc_md_page_nr(l, s), lo->seq, c->M);
	if (lo->hdr_flags & FC_HDR_NEEDS_CHECK) {
		c->lo_needs_check = 1;
		problem(c, 0, "needs_check",
			"%s slot %d: the kernel recorded needs_check in this leftover (a superblock write failed): the pool loads read-only until 'fcachectl check --repair'",
			what, s);
	}
}

/*
 * Choose the slot of logical page @l (magic @magic) into @out.
 * Returns the slot, -1 if neither is usable (damage), -2 if never written.
 */
static int choose_page(struct ctx *c, uint64_t l, uint32_t magic, void *out, const char *what)
{
	int s, err[2], best = -1;
	uint64_t seq[2] = { 0, 0 };
	char why[2][96];

	for (s = 0; s < 2; s++) {
		if (read_page(c, fc_md_page_nr(l, s), c->page)) {
			err[s] = 1;
			snprintf(why[s], sizeof(why[s]), "unreadable: %s", strerror(errno));
			continue;
		}
		err[s] = fc_page_verify(c->page, magic, fc_md_page_nr(l, s), c->sb.hdr.uuid);
		seq[s] = hdr_seq(c->page);
		if (!err[s] && seq[s] > c->max_seq)
			c->max_seq = seq[s];
		if (!err[s] && seq[s] > c->M) {
			err[s] = 2;
			snprintf(why[s], sizeof(why[s]),
				 "leftover, seq %" PRIu64 " above the superblock's md_seq %" PRIu64,
				 seq[s], c->M);
			note_leftover(c, l, s, c->page, what);
		} else if (err[s]) {
			snprintf(why[s], sizeof(why[s]), "%s", fc_echk_str(err[s]));
		}
		if (!err[s] && (best < 0 || seq[s] > seq[best])) {
			best = s;
			memcpy(out, c->page, FC_PAGE_SIZE);
		}
	}
	if (best < 0) {
		if (err[0] == FC_ECHK_ZERO && err[1] == FC_ECHK_ZERO)
			return -2;
		problem(c, 1, magic == FC_VT_MAGIC ? "volume_table" : "entry_page",
			"%s has no usable copy (slot 0: %s; slot 1: %s)", what, why[0], why[1]);
		return -1;
	}
	s = !best;
	if (err[s] && err[s] != FC_ECHK_ZERO && err[s] != 2) {
		problem(c, 0, "stale_slot", "%s slot %d is not usable (%s); slot %d is used",
			what, s, why[s], best);
		c->stale_seen = 1;
		if (err[s] < 0)	/* read, but not valid: --repair zeroes it */
			note_stale(c, l, s);
	}
	return best;
}

static void check_voltable(struct ctx *c)
{
	unsigned int i, j;
	int r;

	r = choose_page(c, 0, FC_VT_MAGIC, &c->vt, "volume table");
	if (r == -2) {
		memset(&c->vt, 0, sizeof(c->vt));
		c->vt_ok = 1;
		c->vt_slot = -1;
		return;
	}
	if (r < 0)
		return;
	c->vt_ok = 1;
	c->vt_slot = r;
	for (i = 0; i < FC_VT_SLOTS; i++) {
		const struct fc_disk_volume *v = &c->vt.vol[i];
		uint32_t fl = le32_to_cpu(v->flags);

		if (!(fl & FC_VOL_IN_USE))
			continue;
		if (fl & ~(FC_VOL_IN_USE | FC_VOL_DETACHED))
			problem(c, 0, "volume_table", "volume slot %u has unknown flags 0x%x", i, fl);
		if (!le32_to_cpu(v->id))
			problem(c, 1, "volume_table", "volume slot %u is in use with id 0", i);
		if (!le64_to_cpu(v->origin_sectors))
			problem(c, 1, "volume_table", "volume slot %u (id %u) has size 0", i,
				le32_to_cpu(v->id));
		for (j = 0; j < i; j++)
			if ((le32_to_cpu(c->vt.vol[j].flags) & FC_VOL_IN_USE) &&
			    c->vt.vol[j].id == v->id && v->id)
				problem(c, 1, "volume_table", "volume slots %u and %u both have id %u",
					j, i, le32_to_cpu(v->id));
	}
}

static int vol_in_use(struct ctx *c, unsigned int slot)
{
	return slot < FC_VT_SLOTS && (le32_to_cpu(c->vt.vol[slot].flags) & FC_VOL_IN_USE);
}

static void check_entry(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e)
{
	uint8_t allsub = (uint8_t)((1u << c->g.nr_subblocks) - 1);
	uint64_t ob = le64_to_cpu(e->oblock), osz;

	if (idx >= c->g.nr_blocks) {
		if (e->valid || e->dirty)
			problem(c, 1, "out_of_bounds", "entry %" PRIu64 " lies past the last cache block (%" PRIu64 ") but is in use",
				idx, c->g.nr_blocks);
		return;
	}
	if (!e->valid) {
		if (e->dirty)
			problem(c, 1, "dirty_not_valid", "free entry %" PRIu64 " has dirty bits 0x%02x", idx, e->dirty);
		return;
	}
	c->used++;
	if (e->dirty)
		c->dirty++;
	if (e->valid & ~allsub)
		problem(c, 1, "entry", "entry %" PRIu64 " has valid bits 0x%02x beyond its %u sub-blocks",
			idx, e->valid, c->g.nr_subblocks);
	if (e->dirty & ~e->valid)
		problem(c, 1, "dirty_not_valid", "entry %" PRIu64 ": dirty 0x%02x is not a subset of valid 0x%02x",
			idx, e->dirty, e->valid);
	if (e->flags & ~FC_ENTRY_MIRRORED)
		problem(c, 0, "entry", "entry %" PRIu64 " has unknown flags 0x%02x", idx, e->flags);
	if (!c->vt_ok)
		return;
	if (!vol_in_use(c, e->vol)) {
		problem(c, 1, "unused_volume", "entry %" PRIu64 " references volume slot %u, which is not in use",
			idx, e->vol);
		return;
	}
	osz = le64_to_cpu(c->vt.vol[e->vol].origin_sectors);
	if (ob >= osz / c->g.block_sectors + !!(osz % c->g.block_sectors))
		problem(c, 1, "out_of_bounds", "entry %" PRIu64 " maps origin block %" PRIu64
			" beyond the end of volume slot %u (%" PRIu64 " sectors)", idx, ob, e->vol, osz);
	c->vi[e->vol].cached++;
	if (e->dirty) {
		c->vi[e->vol].dirty_blocks++;
		c->vi[e->vol].dirty_sub += (uint64_t)__builtin_popcount(e->dirty);
	}
	c->map[c->nmap].oblock = ob;
	c->map[c->nmap].vol = e->vol;
	c->map[c->nmap].idx = (uint32_t)idx;
	c->nmap++;
}

static int cmp_emap(const void *a, const void *b)
{
	const struct emap *x = a, *y = b;

	if (x->vol != y->vol)
		return x->vol < y->vol ? -1 : 1;
	if (x->oblock != y->oblock)
		return x->oblock < y->oblock ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef void (*entry_fn)(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg);

/* Walk the chosen entry pages; calls @fn for each entry of a usable page. */
static void walk_entries(struct ctx *c, entry_fn fn, void *arg, int report)
{
	struct fc_disk_mdpage *mp = page_alloc();
	uint64_t l, j;
	char what[48];
	int r, nerr = c->errors, nwarn = c->warnings, nmsgs = c->nmsgs;

	if (!mp)
		return;
	for (l = 1; l < c->g.md_pages; l++) {
		snprintf(what, sizeof(what), "entry page %" PRIu64, l);
		r = choose_page(c, l, FC_ME_MAGIC, mp, what);
		if (r == -1)
			c->lost_pages++;
		if (r < 0)
			continue;
		for (j = 0; j < FC_ENTRIES_PER_PAGE; j++)
			fn(c, (l - 1) * FC_ENTRIES_PER_PAGE + j, &mp->e[j], arg);
	}
	if (!report) {	/* second walk (dump): do not count page problems twice */
		c->errors = nerr;
		c->warnings = nwarn;
		c->nmsgs = nmsgs;
	}
	free(mp);
}

static void check_cb(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg)
{
	(void)arg;
	check_entry(c, idx, e);
}

static void check_overlaps(struct ctx *c)
{
	uint64_t i;

	qsort(c->map, c->nmap, sizeof(*c->map), cmp_emap);
	for (i = 1; i < c->nmap; i++)
		if (c->map[i].vol == c->map[i - 1].vol && c->map[i].oblock == c->map[i - 1].oblock)
			problem(c, 1, "overlap",
				"entries %u and %u both map volume slot %u origin block %" PRIu64
				" (the kernel refuses to load such a pool)",
				c->map[i - 1].idx, c->map[i].idx, c->map[i].vol, c->map[i].oblock);
}

static void hex(char *out, const uint8_t *u, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", u[i]);
}

static void label_str(char *out, const struct fc_disk_volume *v)
{
	int i;

	for (i = 0; i < (int)FC_VOLUME_LABEL_LEN && v->label[i]; i++)
		out[i] = (v->label[i] >= 0x20 && v->label[i] < 0x7f) ? (char)v->label[i] : '?';
	out[i] = 0;
}

/* ---- output ---- */

static void json_sb(struct ctx *c, struct fc_json *j)
{
	char u[40];
	uint32_t fl = le32_to_cpu(c->sb.sb_flags);

	hex(u, c->sb.hdr.uuid, 16);
	fj_obj(j, "superblock");
	fj_i64(j, "slot", c->sb_slot);
	fj_u64(j, "seq", c->S);
	fj_u64(j, "md_seq", c->M);
	fj_bool(j, "md_seq_feature",
		!!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_MDSEQ));
	fj_str(j, "uuid", u);
	fj_u64(j, "block_sectors", le32_to_cpu(c->sb.block_sectors));
	fj_u64(j, "subblock_sectors", le32_to_cpu(c->sb.subblock_sectors));
	fj_u64(j, "nr_blocks", le64_to_cpu(c->sb.nr_blocks));
	fj_u64(j, "data_start", le64_to_cpu(c->sb.data_start));
	fj_u64(j, "md_pages", le64_to_cpu(c->sb.md_pages));
	fj_u64(j, "flash_sectors", le64_to_cpu(c->sb.flash_sectors));
	fj_bool(j, "clean", !!(fl & FC_SB_CLEAN));
	fj_bool(j, "needs_check", !!(fl & FC_SB_NEEDS_CHECK));
	fj_u64(j, "format_time", le64_to_cpu(c->sb.format_time));
	fj_end(j);
}

static void json_volumes(struct ctx *c, struct fc_json *j)
{
	unsigned int i;
	char lab[FC_VOLUME_LABEL_LEN + 1];

	fj_arr(j, "volumes");
	for (i = 0; c->vt_ok && i < FC_VT_SLOTS; i++) {
		const struct fc_disk_volume *v = &c->vt.vol[i];

		if (!vol_in_use(c, i))
			continue;
		label_str(lab, v);
		fj_obj(j, NULL);
		fj_u64(j, "slot", i);
		fj_u64(j, "id", le32_to_cpu(v->id));
		fj_str(j, "label", lab);
		fj_u64(j, "origin_sectors", le64_to_cpu(v->origin_sectors));
		fj_u64(j, "dirty_blocks_hint", le64_to_cpu(v->dirty_blocks));
		fj_bool(j, "detached", !!(le32_to_cpu(v->flags) & FC_VOL_DETACHED));
		fj_u64(j, "cached_blocks", c->vi[i].cached);
		fj_u64(j, "dirty_blocks", c->vi[i].dirty_blocks);
		fj_u64(j, "dirty_bytes", c->vi[i].dirty_sub * c->g.subblock_sectors * 512);
		fj_end(j);
	}
	fj_end(j);
}

static void json_leftovers(struct ctx *c, struct fc_json *j)
{
	size_t i;

	fj_u64(j, "leftovers", c->nlo);
	fj_arr(j, "leftover_slots");
	for (i = 0; i < c->nlo; i++) {
		fj_obj(j, NULL);
		fj_u64(j, "page", c->lo[i].page);
		fj_u64(j, "slot", (uint64_t)c->lo[i].slot);
		fj_u64(j, "seq", c->lo[i].seq);
		fj_bool(j, "needs_check", !!(c->lo[i].hdr_flags & FC_HDR_NEEDS_CHECK));
		fj_end(j);
	}
	fj_end(j);
}

static void json_problems(struct ctx *c, struct fc_json *j)
{
	int i;

	fj_arr(j, "problems");
	for (i = 0; i < c->nmsgs; i++) {
		fj_obj(j, NULL);
		fj_str(j, "severity", c->msgs[i].error ? "error" : "warning");
		fj_str(j, "kind", c->msgs[i].kind);
		fj_str(j, "message", c->msgs[i].msg);
		fj_end(j);
	}
	fj_end(j);
}

static void text_problems(struct ctx *c, FILE *out)
{
	int i;

	for (i = 0; i < c->nmsgs; i++)
		fprintf(out, "%s: %s\n", c->msgs[i].error ? "error" : "warning", c->msgs[i].msg);
	if (c->errors + c->warnings > c->nmsgs)
		fprintf(out, "... and %d more problems\n", c->errors + c->warnings - c->nmsgs);
}

static void text_summary(struct ctx *c, FILE *out)
{
	char u[40];
	unsigned int i;
	uint32_t fl = le32_to_cpu(c->sb.sb_flags);
	char lab[FC_VOLUME_LABEL_LEN + 1];

	hex(u, c->sb.hdr.uuid, 16);
	fprintf(out, "pool %s: uuid %s, seq %" PRIu64 " (superblock slot %d), md_seq %" PRIu64 ", %s%s\n",
		c->name, u, c->S, c->sb_slot, c->M,
		fl & FC_SB_CLEAN ? "shut down cleanly" : "not shut down cleanly",
		(fl & FC_SB_NEEDS_CHECK) || c->lo_needs_check ? ", needs_check" : "");
	fprintf(out, "  block %u sectors (%u KiB), sub-block %u sectors, %" PRIu64 " blocks, data at sector %" PRIu64 ", %" PRIu64 " metadata pages\n",
		c->g.block_sectors, c->g.block_sectors / 2, c->g.subblock_sectors, c->g.nr_blocks,
		c->g.data_start, c->g.md_pages);
	fprintf(out, "  %" PRIu64 " blocks in use, %" PRIu64 " dirty\n", c->used, c->dirty);
	if (c->nlo)
		fprintf(out, "  %zu leftover page slots above md_seq (harmless: never used, overwritten by the next commit)\n",
			c->nlo);
	if (!c->vt_ok) {
		fprintf(out, "  volume table unreadable\n");
		return;
	}
	for (i = 0; i < FC_VT_SLOTS; i++) {
		const struct fc_disk_volume *v = &c->vt.vol[i];

		if (!vol_in_use(c, i))
			continue;
		label_str(lab, v);
		fprintf(out, "  volume slot %u: id %u, label '%s', %" PRIu64 " sectors, %" PRIu64 " cached blocks, %" PRIu64 " dirty blocks (%" PRIu64 " KiB dirty)\n",
			i, le32_to_cpu(v->id), lab, le64_to_cpu(v->origin_sectors), c->vi[i].cached,
			c->vi[i].dirty_blocks, c->vi[i].dirty_sub * c->g.subblock_sectors / 2);
		if (le32_to_cpu(v->flags) & FC_VOL_DETACHED)
			fprintf(out, "    detached at run time (not by fcachectl): a new table is refused while it has dirty data; fcachectl resolve --replay|--discard\n");
	}
}

struct dump_arg {
	FILE *out;
	struct fc_json *j;
};

static void dump_cb(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg)
{
	struct dump_arg *d = arg;

	if (!e->valid && !e->dirty)
		return;
	(void)c;
	if (d->j) {
		fj_obj(d->j, NULL);
		fj_u64(d->j, "block", idx);
		fj_u64(d->j, "volume_slot", e->vol);
		fj_u64(d->j, "oblock", le64_to_cpu(e->oblock));
		fj_u64(d->j, "valid", e->valid);
		fj_u64(d->j, "dirty", e->dirty);
		fj_u64(d->j, "flags", e->flags);
		fj_end(d->j);
	} else {
		fprintf(d->out, "  %10" PRIu64 " %5u %14" PRIu64 "   0x%02x  0x%02x\n", idx, e->vol,
			le64_to_cpu(e->oblock), e->valid, e->dirty);
	}
}

/* A checking context for @fd: device size known, page buffer allocated. */
static struct ctx *ctx_open(int fd, const char *name)
{
	struct ctx *c = calloc(1, sizeof(*c));
	uint64_t b = 0;

	if (!c)
		return NULL;
	c->fd = fd;
	c->name = name;
	c->page = page_alloc();
	if (!c->page) {
		free(c);
		return NULL;
	}
	if (!fc_dev_size(fd, &b))
		c->dev_sectors = b / 512;
	return c;
}

static void ctx_close(struct ctx *c)
{
	free(c->st);
	free(c->lo);
	free(c->map);
	free(c->page);
	free(c);
}

/* What --repair (--clear-needs-check) did (or why it did nothing). */
struct repair {
	int done;
	int had_needs_check;
	size_t zeroed;		/* leftover slots */
	size_t zeroed_stale;	/* unusable copies next to used ones */
	uint64_t seq;
	int slot;
	char failed[160];	/* set when a write failed */
};

static int write_page(struct ctx *c, uint64_t nr, const void *buf)
{
	ssize_t n = pwrite(c->fd, buf, FC_PAGE_SIZE, (off_t)(nr * FC_PAGE_SIZE));

	if (n != FC_PAGE_SIZE) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Zero every leftover slot and every unusable copy next to a used one, then
 * write superblock N = (highest seq found on the flash) + 1 with md_seq N and neither needs_check nor clean, into the
 * slot that does not hold the superblock in use (include/fcache_format.h:
 * a torn write must leave the current one readable).  The caller has
 * checked the pool: no error.
 */
static int clear_needs_check(struct ctx *c, struct repair *r)
{
	struct fc_disk_superblock *sb;
	void *page = page_alloc();
	uint64_t n, nr;
	size_t i;
	int slot;

	if (!page) {
		snprintf(r->failed, sizeof(r->failed), "out of memory");
		return -1;
	}
	if (c->max_seq >= UINT64_MAX - 2) {
		snprintf(r->failed, sizeof(r->failed),
			 "the sequence numbers are exhausted (%" PRIu64 ")", c->max_seq);
		goto fail;
	}
	memset(page, 0, FC_PAGE_SIZE);
	for (i = 0; i < c->nlo; i++) {
		nr = fc_md_page_nr(c->lo[i].page, (unsigned int)c->lo[i].slot);
		if (write_page(c, nr, page)) {
			snprintf(r->failed, sizeof(r->failed),
				 "cannot zero leftover flash page %" PRIu64 ": %s", nr, strerror(errno));
			goto fail;
		}
		r->zeroed++;
	}
	for (i = 0; i < c->nst; i++) {
		nr = fc_md_page_nr(c->st[i].page, (unsigned int)c->st[i].slot);
		if (write_page(c, nr, page)) {
			snprintf(r->failed, sizeof(r->failed),
				 "cannot zero the unusable copy in flash page %" PRIu64 ": %s", nr,
				 strerror(errno));
			goto fail;
		}
		r->zeroed_stale++;
	}
	if ((c->nlo || c->nst) && fdatasync(c->fd)) {
		snprintf(r->failed, sizeof(r->failed), "cannot sync the zeroed leftovers: %s",
			 strerror(errno));
		goto fail;
	}

	n = c->max_seq + 1;
	slot = !c->sb_slot;
	sb = page;
	memcpy(sb, &c->sb, sizeof(*sb));
	sb->md_seq = cpu_to_le64(n);
	sb->incompat_features = cpu_to_le32(le32_to_cpu(sb->incompat_features) |
					    FC_FEAT_INCOMPAT_MDSEQ);
	sb->sb_flags = cpu_to_le32(le32_to_cpu(sb->sb_flags) &
				   ~(FC_SB_NEEDS_CHECK | FC_SB_CLEAN));
	fc_page_seal(sb, FC_SB_MAGIC, slot, n, c->sb.hdr.uuid);
	if (write_page(c, slot, sb) || fdatasync(c->fd)) {
		snprintf(r->failed, sizeof(r->failed),
			 "cannot write the superblock (slot %d): %s; the one in slot %d is still used",
			 slot, strerror(errno), c->sb_slot);
		goto fail;
	}
	r->seq = n;
	r->slot = slot;
	r->done = 1;
	free(page);
	return 0;
fail:
	free(page);
	return -1;
}

static void json_repair(struct ctx *c, struct repair *r, struct fc_json *j)
{
	fj_obj(j, "clear_needs_check");
	fj_bool(j, "done", r->done);
	if (c->not_a_pool)
		fj_str(j, "refused", "not an fcache pool; nothing was written");
	else if (c->errors && !r->failed[0])
		fj_str(j, "refused", "the check found errors; nothing was written");
	if (r->failed[0])
		fj_str(j, "error", r->failed);
	fj_bool(j, "needs_check_was_set", r->had_needs_check);
	fj_u64(j, "zeroed_leftovers", r->zeroed);
	fj_u64(j, "zeroed_unusable_copies", r->zeroed_stale);
	if (r->done) {
		fj_u64(j, "superblock_seq", r->seq);
		fj_u64(j, "superblock_slot", (uint64_t)r->slot);
	}
	fj_end(j);
}

static void text_repair(struct ctx *c, struct repair *r, FILE *out)
{
	if (r->zeroed_stale)
		fprintf(out, "%s: zeroed %zu unusable page copies next to used ones\n", c->name,
			r->zeroed_stale);
	if (r->failed[0])
		fprintf(out, "%s: clearing needs_check FAILED: %s (zeroed %zu leftover page slots first)\n",
			c->name, r->failed, r->zeroed);
	else if (c->not_a_pool)
		fprintf(out, "%s: not an fcache pool: nothing to repair, nothing was written\n",
			c->name);
	else if (!r->done)
		fprintf(out, "%s: not clearing needs_check: the check found %d errors; nothing was written\n",
			c->name, c->errors);
	else
		fprintf(out, "%s: %s; zeroed %zu leftover page slots; superblock seq %" PRIu64 " (slot %d)\n",
			c->name, r->had_needs_check ? "cleared needs_check" :
			"needs_check was not set (superblock rewritten anyway)",
			r->zeroed, r->seq, r->slot);
}

static const char *const outcome_names[] = {
	[FC_CHECK_CLEAN] = "clean",
	[FC_CHECK_LEFTOVERS] = "leftovers",
	[FC_CHECK_DAMAGED] = "damaged",
	[FC_CHECK_NOT_A_POOL] = "not_a_pool",
};

const char *fc_check_outcome_str(enum fc_check_outcome o)
{
	return (unsigned int)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ?
	       outcome_names[o] : "damaged";
}

static enum fc_check_outcome outcome(const struct ctx *c)
{
	if (c->not_a_pool)
		return FC_CHECK_NOT_A_POOL;
	if (c->errors)
		return FC_CHECK_DAMAGED;
	if (c->nlo || c->nst || c->stale_seen || c->sb_other_bad)
		return FC_CHECK_LEFTOVERS;
	return FC_CHECK_CLEAN;
}

static int run(int fd, const char *name, enum fc_check_out what, int json, FILE *out,
	       struct repair *rep, enum fc_check_outcome *res)
{
	struct ctx *c = ctx_open(fd, name);
	enum fc_check_outcome oc;
	struct fc_json j;
	struct dump_arg d;
	int ok_sb, rc;

	if (res)
		*res = FC_CHECK_DAMAGED;
	if (!c)
		return 1;
	ok_sb = !read_superblock(c);
	if (ok_sb) {
		c->map = calloc(c->g.nr_blocks + 1, sizeof(*c->map));
		if (!c->map) {
			problem(c, 1, "io", "out of memory for %" PRIu64 " entries", c->g.nr_blocks);
			ok_sb = 0;
		}
	}
	if (ok_sb) {
		check_voltable(c);
		walk_entries(c, check_cb, NULL, 1);
		check_overlaps(c);
		if (c->vt_ok) {
			unsigned int i;

			for (i = 0; i < FC_VT_SLOTS; i++)
				if (vol_in_use(c, i) && !c->lost_pages &&
				    le64_to_cpu(c->vt.vol[i].dirty_blocks) != c->vi[i].dirty_blocks)
					problem(c, 0, "dirty_hint",
						"volume slot %u: dirty hint %" PRIu64 ", counted %" PRIu64 " (recovery recounts)",
						i, le64_to_cpu(c->vt.vol[i].dirty_blocks), c->vi[i].dirty_blocks);
		}
	}
	rc = c->errors ? 1 : 0;
	oc = outcome(c);
	if (res)
		*res = oc;
	if (rep && ok_sb)
		rep->had_needs_check = (le32_to_cpu(c->sb.sb_flags) & FC_SB_NEEDS_CHECK) ||
				       c->lo_needs_check;
	if (rep && ok_sb && !rc && clear_needs_check(c, rep))
		rc = 2;

	if (json) {
		fj_init(&j, out);
		fj_obj(&j, NULL);
		fj_schema(&j, what == FC_OUT_DUMP ? "fcache.dump" : "fcache.check");
		fj_str(&j, "device", name);
		fj_bool(&j, "clean", !c->errors);
		fj_i64(&j, "errors", c->errors);
		fj_i64(&j, "warnings", c->warnings);
		fj_str(&j, "outcome", fc_check_outcome_str(oc));
		json_problems(c, &j);
		if (ok_sb) {
			json_sb(c, &j);
			fj_bool(&j, "needs_check",
				(le32_to_cpu(c->sb.sb_flags) & FC_SB_NEEDS_CHECK) || c->lo_needs_check);
			json_leftovers(c, &j);
			fj_u64(&j, "used_blocks", c->used);
			fj_u64(&j, "dirty_blocks", c->dirty);
			fj_u64(&j, "lost_pages", c->lost_pages);
			json_volumes(c, &j);
			if (what == FC_OUT_DUMP) {
				d.out = out;
				d.j = &j;
				fj_arr(&j, "entries");
				walk_entries(c, dump_cb, &d, 0);
				fj_end(&j);
			}
		}
		if (rep)
			json_repair(c, rep, &j);
		fj_end(&j);
	} else {
		if (ok_sb)
			text_summary(c, out);
		if (ok_sb && what == FC_OUT_DUMP) {
			d.out = out;
			d.j = NULL;
			fprintf(out, "entries (in use):\n       block  slot         oblock  valid  dirty\n");
			walk_entries(c, dump_cb, &d, 0);
		}
		text_problems(c, out);
		if (what == FC_OUT_CHECK && oc == FC_CHECK_NOT_A_POOL)
			fprintf(out, "%s: not an fcache pool: the device holds no fcache metadata\n",
				name);
		else if (what == FC_OUT_CHECK && oc == FC_CHECK_LEFTOVERS)
			fprintf(out, "%s: metadata clean (%d errors, %d warnings), with harmless leftovers of interrupted commits ('fcachectl check --repair' drops them)\n",
				name, c->errors, c->warnings);
		else if (what == FC_OUT_CHECK)
			fprintf(out, "%s: %s (%d errors, %d warnings)\n", name,
				c->errors ? "metadata DAMAGED" : "metadata clean", c->errors, c->warnings);
		if (rep)
			text_repair(c, rep, out);
	}
	ctx_close(c);
	return rc;
}

int fc_check_fd_outcome(int fd, const char *name, enum fc_check_out what, int json, FILE *out,
			enum fc_check_outcome *outcome)
{
	return run(fd, name, what, json, out, NULL, outcome);
}

int fc_check_fd(int fd, const char *name, enum fc_check_out what, int json, FILE *out)
{
	return run(fd, name, what, json, out, NULL, NULL);
}

int fc_repair_fd(int fd, const char *name, int json, FILE *out, enum fc_check_outcome *outcome)
{
	struct repair r;

	memset(&r, 0, sizeof(r));
	return run(fd, name, FC_OUT_CHECK, json, out, &r, outcome);
}

int fc_clear_needs_check_fd(int fd, const char *name, int json, FILE *out)
{
	return fc_repair_fd(fd, name, json, out, NULL);
}

int fc_read_voltable(int fd, struct fc_disk_superblock *sb, struct fc_disk_voltable *vt)
{
	struct ctx *c = ctx_open(fd, "flash");
	int rc = 0;

	if (!c)
		return -1;
	if (read_superblock(c)) {
		rc = -1;
	} else {
		check_voltable(c);
		if (!c->vt_ok)
			rc = -2;
		if (sb)
			memcpy(sb, &c->sb, sizeof(*sb));
		if (vt)
			memcpy(vt, &c->vt, sizeof(*vt));
	}
	ctx_close(c);
	return rc;
}

int fc_probe_pool(int fd, uint32_t *block_sectors)
{
	struct fc_disk_superblock sb;

	if (fc_read_voltable(fd, &sb, NULL) == -1)
		return 0;
	*block_sectors = le32_to_cpu(sb.block_sectors);
	return 1;
}

uint64_t fc_pool_blocks(uint64_t sectors, uint32_t block_sectors)
{
	struct fc_geometry g;

	return fc_geometry_compute(&g, sectors, block_sectors) ? 0 : g.nr_blocks;
}

int fc_flash_volumes(int fd, struct fc_ondisk_vol *out, int max)
{
	struct fc_disk_voltable *vt = malloc(sizeof(*vt));
	unsigned int i;
	int n = 0, r;

	if (!vt)
		return -1;
	r = fc_read_voltable(fd, NULL, vt);
	if (r) {
		free(vt);
		return r;
	}
	for (i = 0; i < FC_VT_SLOTS && n < max; i++) {
		const struct fc_disk_volume *v = &vt->vol[i];

		if (!(le32_to_cpu(v->flags) & FC_VOL_IN_USE))
			continue;
		out[n].slot = i;
		out[n].id = le32_to_cpu(v->id);
		out[n].origin_sectors = le64_to_cpu(v->origin_sectors);
		out[n].dirty_hint = le64_to_cpu(v->dirty_blocks);
		out[n].detached = !!(le32_to_cpu(v->flags) & FC_VOL_DETACHED);
		label_str(out[n].label, v);
		n++;
	}
	free(vt);
	return n;
}

struct count_arg {
	unsigned int slot;
	uint64_t n;
};

static void count_cb(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg)
{
	struct count_arg *a = arg;

	if (idx < c->g.nr_blocks && e->valid && e->dirty && e->vol == a->slot)
		a->n++;
}

int64_t fc_flash_dirty_blocks(int fd, unsigned int slot)
{
	struct ctx *c = ctx_open(fd, "flash");
	struct count_arg a = { slot, 0 };
	int64_t r = -1;

	if (!c)
		return -1;
	if (!read_superblock(c)) {
		walk_entries(c, count_cb, &a, 0);
		r = c->lost_pages ? -1 : (int64_t)a.n;
	}
	ctx_close(c);
	return r;
}
