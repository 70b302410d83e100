// SPDX-License-Identifier: GPL-2.0
/*
 * Offline metadata reader and checker (fcachectl check / dump): reading
 * the metadata recovery would use, and every test on it.
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
 * and its next commit overwrites the other), a warning; so is a superblock
 * naming pages of its one-write commit that did not land (the commit was
 * cut: the other slot is used, FC_FEAT_INCOMPAT_PAGELIST).  Neither slot
 * valid is damage, unless nothing on the device carries an fcache magic:
 * then it is not a pool at all (FC_CHECK_NOT_A_POOL).
 *
 * Tests on the chosen metadata: superblock geometry against itself and the
 * device size, volume table (ids nonzero and unique, sizes), every entry
 * (sub-block bits in range, dirty a subset of valid, its volume slot in use,
 * its origin block inside the volume, free entries without dirty bits,
 * entries past the last block free), overlaps (two entries mapping the
 * same volume slot and origin block) and, in a mirrored pool, twins (on
 * the other leg, inside the pool, not an entry in use, twin of one entry).
 *
 * The files of the checker are listed in fc_check_int.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fc_check_int.h"
#include "fc_dev.h"

void chk_problem(struct ctx *c, int error, const char *kind, const char *fmt, ...)
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

int chk_read_page(struct ctx *c, uint64_t nr, void *buf)
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
		if (chk_read_page(c, p, c->page))
			break;
		m = le32_to_cpu(h->magic);
		if (m == FC_SB_MAGIC || m == FC_VT_MAGIC || m == FC_ME_MAGIC) {
			*nr = p;
			return 1;
		}
	}
	return 0;
}

/*
 * A device shorter than the two superblock slots holds no pool: not a pool
 * (exit 3), unless it begins with an fcache superblock, which makes it a
 * pool cut short (an image copied or truncated short): damaged.  Said in
 * those words, not as a read past the end.  -1 (no superblock).
 */
static int chk_too_small(struct ctx *c)
{
	const struct fc_disk_header *h = c->page;
	ssize_t n;

	memset(c->page, 0, FC_PAGE_SIZE);
	n = pread(c->fd, c->page, c->dev_bytes < FC_PAGE_SIZE ? c->dev_bytes : FC_PAGE_SIZE, 0);
	if (n < 0) {
		chk_problem(c, 1, "io", "cannot read superblock slot 0: %s", strerror(errno));
		return -1;
	}
	if ((size_t)n >= offsetof(struct fc_disk_header, magic) + sizeof(h->magic) &&
	    le32_to_cpu(h->magic) == FC_SB_MAGIC) {
		chk_problem(c, 1, "superblock",
			"%s is %" PRIu64 " bytes, cut short: it begins with an fcache superblock, but the two superblock slots of a pool alone take %u bytes (an image copied or truncated short?)",
			c->name, c->dev_bytes, 2 * FC_PAGE_SIZE);
		return -1;
	}
	c->not_a_pool = 1;
	chk_problem(c, 1, "superblock",
		"%s is %" PRIu64 " bytes: too small to hold an fcache pool (its two superblock slots alone take %u bytes): not an fcache pool",
		c->name, c->dev_bytes, 2 * FC_PAGE_SIZE);
	return -1;
}

/*
 * FC_FEAT_INCOMPAT_PAGELIST: the first page superblock @sb names whose
 * commit copy is not on the device (unreadable, or no slot stamped with
 * the superblock's seq), + 1; 0 if every one landed.
 */
static uint64_t sb_unproven(struct ctx *c, const struct fc_disk_superblock *sb)
{
	uint32_t i, n = fc_sb_list_len(sb);
	void *p[2] = { fc_io_alloc(FC_PAGE_SIZE), fc_io_alloc(FC_PAGE_SIZE) };
	uint64_t miss = 0;

	for (i = 0; i < n && !miss; i++) {
		uint64_t l = fc_sb_list_page(sb, i);

		if (l >= le64_to_cpu(sb->md_pages))
			break;	/* the geometry test refuses the superblock */
		if (!p[0] || !p[1] || chk_read_page(c, fc_md_page_nr(l, 0), p[0]) ||
		    chk_read_page(c, fc_md_page_nr(l, 1), p[1]) ||
		    !fc_sb_page_landed(sb, l, p[0], p[1]))
			miss = l + 1;
	}
	free(p[0]);
	free(p[1]);
	return miss;
}

/*
 * A superblock naming its commit's pages counts only if they all landed
 * (include/fcache_format.h, "One-write commits"): else the slot used is
 * the other one, as recovery does.  0, or -1 if neither can be used.
 */
static int prove_superblock(struct ctx *c, struct fc_disk_superblock **sb, int *best)
{
	uint64_t miss = sb_unproven(c, sb[*best]);
	int o = !*best;

	if (!miss)
		return 0;
	if (c->sb_err[o] || memcmp(sb[o]->hdr.uuid, sb[*best]->hdr.uuid, 16) ||
	    c->sb_seq[o] >= c->sb_seq[*best] || sb_unproven(c, sb[o])) {
		chk_problem(c, 1, "superblock",
			"superblock slot %d (seq %" PRIu64 ") names metadata page %" PRIu64
			", which did not land (its commit never completed), and slot %d cannot be used in its place",
			*best, c->sb_seq[*best], miss - 1, o);
		return -1;
	}
	chk_problem(c, 0, "superblock_slot",
		"superblock slot %d (seq %" PRIu64 ") names metadata page %" PRIu64
		", which did not land: the power went before that commit completed; slot %d (seq %" PRIu64
		") is used, as recovery does, and the next commit overwrites slot %d",
		*best, c->sb_seq[*best], miss - 1, o, c->sb_seq[o], *best);
	c->sb_other_bad = 1;
	*best = o;
	return 0;
}

int chk_read_superblock(struct ctx *c)
{
	struct fc_disk_superblock *sb[2];
	char seqs[48] = "";
	const char *why;
	int s, best = -1;

	if (c->size_known && c->dev_bytes < 2 * FC_PAGE_SIZE)
		return chk_too_small(c);

	for (s = 0; s < 2; s++) {
		sb[s] = fc_io_alloc(FC_PAGE_SIZE);
		if (!sb[s] || chk_read_page(c, s, sb[s])) {
			chk_problem(c, 1, "io", "cannot read superblock slot %d: %s", s, strerror(errno));
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
	/*
	 * mkswap over a pool: not a torn write, and the slot left is stale
	 * (a swap area that never held a pool has no valid slot: below)
	 */
	s = fc_sb_swap_slot(sb[0], sb[1], c->sb_err[0], c->sb_err[1]);
	if (s >= 0) {
		chk_problem(c, 1, "superblock",
			"superblock slot %d ends with mkswap's signature: the device was made swap over the pool, which is not loaded (the other slot holds the commit before the last one)",
			s);
		free(sb[0]);
		free(sb[1]);
		return -1;
	}
	if (best < 0) {
		uint64_t md = 0;

		if (c->sb_err[0] <= 0 && c->sb_err[1] <= 0 &&
		    (c->sb_err[0] == FC_ECHK_ZERO || c->sb_err[0] == FC_ECHK_MAGIC) &&
		    (c->sb_err[1] == FC_ECHK_ZERO || c->sb_err[1] == FC_ECHK_MAGIC) &&
		    !find_md_magic(c, &md)) {
			c->not_a_pool = 1;
			chk_problem(c, 1, "superblock",
				"%s holds no fcache metadata (no fcache superblock in either slot, no fcache magic in the metadata pages after them): not an fcache pool, or never formatted",
				c->name);
		} else if (md) {
			chk_problem(c, 1, "superblock",
				"no fcache superblock in either slot, but flash page %" PRIu64
				" is fcache metadata: the superblocks of a pool were overwritten",
				md);
		} else {
			chk_problem(c, 1, "superblock", "no valid superblock: slot 0: %s, slot 1: %s",
				c->sb_err[0] < 0 ? fc_echk_str(c->sb_err[0]) : "unreadable",
				c->sb_err[1] < 0 ? fc_echk_str(c->sb_err[1]) : "unreadable");
		}
		free(sb[0]);
		free(sb[1]);
		return -1;
	}
	if (prove_superblock(c, sb, &best)) {
		free(sb[0]);
		free(sb[1]);
		return -1;
	}
	c->sb_slot = best;
	memcpy(c->sb_page, sb[best], FC_PAGE_SIZE);
	c->S = c->sb_seq[best];
	s = !best;
	if (c->sb_err[s] == FC_ECHK_ZERO) {
		/* a pool that has committed once has only one slot written */
	} else if (c->sb_err[s] < 0) {
		/* what a torn superblock write leaves; the next commit overwrites it */
		c->sb_other_bad = 1;
		if (c->sb_err[s] != FC_ECHK_MAGIC && c->sb_seq[s] > c->S)
			snprintf(seqs, sizeof(seqs), "; its header says seq %" PRIu64, c->sb_seq[s]);
		chk_problem(c, 0, "superblock_slot",
			"superblock slot %d is not usable (%s%s), as a superblock write that never completed leaves it; slot %d (seq %" PRIu64 ") is used, as recovery does, and the next commit overwrites slot %d",
			s, fc_echk_str(c->sb_err[s]), seqs, best, c->S, s);
	} else if (c->sb_err[s] == 0 && !c->sb_other_bad) {
		if (memcmp(sb[s]->hdr.uuid, c->sb.hdr.uuid, 16)) {
			c->sb_other_bad = 1;
			chk_problem(c, 0, "superblock_slot",
				"superblock slot %d belongs to an older pool (other uuid)", s);
		}
		/* equal seqs: a fresh format writes seq 1 to both slots */
	}
	free(sb[0]);
	free(sb[1]);
	if (fc_sb_check_geometry(&c->sb, c->dev_sectors, &c->g, &why)) {
		chk_problem(c, 1, "geometry", "superblock slot %d: %s", best, why);
		return -1;
	}
	c->M = fc_sb_md_seq(&c->sb);
	c->mirrored = !!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_MIRROR);
	c->ordered = !!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_ORDERED);
	if (c->mirrored) {
		uint32_t failed = le32_to_cpu(c->sb.failed_legs);

		if (failed & ~3u)
			chk_problem(c, 0, "mirror", "failed_legs 0x%x names legs a pool does not have",
				failed);
		if (failed & (1u << le32_to_cpu(c->sb.member_index)))
			chk_problem(c, 0, "mirror",
				"the superblock of leg %u records that leg itself as failed",
				le32_to_cpu(c->sb.member_index));
		if (!memcmp(c->sb.member_uuid, c->sb.partner_uuid, 16))
			chk_problem(c, 1, "mirror", "the member uuid and the partner uuid are the same");
	}
	if (le32_to_cpu(c->sb.sb_flags) & ~(FC_SB_CLEAN | FC_SB_NEEDS_CHECK))
		chk_problem(c, 0, "superblock", "unknown superblock flags 0x%x",
			le32_to_cpu(c->sb.sb_flags));
	if (le32_to_cpu(c->sb.sb_flags) & FC_SB_NEEDS_CHECK)
		chk_problem(c, 0, "needs_check",
			"the pool recorded an error (needs_check is set in the superblock): it loads read-only until 'fcachectl check --repair'");
	return 0;
}

/*
 * Note slot @s of logical page @l in @list (@what: its name for a message):
 * the new note, or NULL if it was noted before or there is no memory (said).
 */
static struct slot_note *note_slot(struct ctx *c, struct slot_list *list, uint64_t l, int s,
				   const char *what)
{
	struct slot_note *v;
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->v[i].page == l && list->v[i].slot == s)
			return NULL;
	if (list->n == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 16;

		v = realloc(list->v, cap * sizeof(*v));
		if (!v) {
			chk_problem(c, 1, "io", "out of memory for %s", what);
			return NULL;
		}
		list->v = v;
		list->cap = cap;
	}
	v = &list->v[list->n++];
	memset(v, 0, sizeof(*v));
	v->page = l;
	v->slot = s;
	return v;
}

/* Record leftover slot @s of logical page @l (once, however often it is read). */
static void note_leftover(struct ctx *c, uint64_t l, int s, const void *page, const char *what)
{
	const struct fc_disk_header *h = page;
	struct slot_note *lo = note_slot(c, &c->lo, l, s, "the leftover list");

	if (!lo)
		return;
	lo->seq = hdr_seq(page);
	lo->hdr_flags = le32_to_cpu(h->flags);
	chk_problem(c, 0, "leftover",
		"%s slot %d (flash page %" PRIu64 "): leftover seq %" PRIu64 " above md_seq %" PRIu64
		" of a commit that never completed; never used, harmless",
		what, s, fc_md_page_nr(l, s), lo->seq, c->M);
	if (lo->hdr_flags & FC_HDR_NEEDS_CHECK) {
		c->lo_needs_check = 1;
		chk_problem(c, 0, "needs_check",
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
		if (chk_read_page(c, fc_md_page_nr(l, s), c->page)) {
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
		chk_problem(c, 1, magic == FC_VT_MAGIC ? "volume_table" : "entry_page",
			"%s has no usable copy (slot 0: %s; slot 1: %s)", what, why[0], why[1]);
		return -1;
	}
	s = !best;
	if (err[s] && err[s] != FC_ECHK_ZERO && err[s] != 2) {
		chk_problem(c, 0, "stale_slot", "%s slot %d is not usable (%s); slot %d is used",
			what, s, why[s], best);
		c->stale_seen = 1;
		if (err[s] < 0)	/* read, but not valid: --repair zeroes it */
			note_slot(c, &c->st, l, s, "the list of unusable copies");
	}
	return best;
}

void chk_voltable(struct ctx *c)
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
		if (fl & ~(FC_VOL_IN_USE | FC_VOL_DETACHED | FC_VOL_OLOG))
			chk_problem(c, 0, "volume_table", "volume slot %u has unknown flags 0x%x", i, fl);
		if (!le32_to_cpu(v->id))
			chk_problem(c, 1, "volume_table", "volume slot %u is in use with id 0", i);
		if (!le64_to_cpu(v->origin_sectors))
			chk_problem(c, 1, "volume_table", "volume slot %u (id %u) has size 0", i,
				le32_to_cpu(v->id));
		for (j = 0; j < i; j++)
			if ((le32_to_cpu(c->vt.vol[j].flags) & FC_VOL_IN_USE) &&
			    c->vt.vol[j].id == v->id && v->id)
				chk_problem(c, 1, "volume_table", "volume slots %u and %u both have id %u",
					j, i, le32_to_cpu(v->id));
	}
}

int chk_vol_in_use(struct ctx *c, unsigned int slot)
{
	return slot < FC_VT_SLOTS && (le32_to_cpu(c->vt.vol[slot].flags) & FC_VOL_IN_USE);
}

static void check_entry(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e)
{
	uint8_t allsub = (uint8_t)((1u << c->g.nr_subblocks) - 1);
	uint64_t ob = le64_to_cpu(e->oblock), osz;

	if (idx >= c->g.nr_blocks) {
		if (e->valid || e->dirty)
			chk_problem(c, 1, "out_of_bounds", "entry %" PRIu64 " lies past the last cache block (%" PRIu64 ") but is in use",
				idx, c->g.nr_blocks);
		return;
	}
	if (!e->valid) {
		if (e->dirty)
			chk_problem(c, 1, "dirty_not_valid", "free entry %" PRIu64 " has dirty bits 0x%02x", idx, e->dirty);
		return;
	}
	c->used++;
	if (e->dirty)
		c->dirty++;
	c->usedmap[idx / 8] |= (uint8_t)(1u << (idx % 8));
	if ((e->flags & FC_ENTRY_MIRRORED) && !c->mirrored) {
		chk_problem(c, 1, "twin", "entry %" PRIu64 " is marked mirrored (twin %u) but the pool has one flash device",
			idx, le32_to_cpu(e->twin));
	} else if ((e->flags & FC_ENTRY_MIRRORED) && !e->dirty) {
		chk_problem(c, 0, "twin", "entry %" PRIu64 " is clean but marked mirrored (twin %u): recovery ignores the twin",
			idx, le32_to_cpu(e->twin));
	} else if (e->flags & FC_ENTRY_MIRRORED) {
		c->twins[c->ntwins].idx = (uint32_t)idx;
		c->twins[c->ntwins].twin = le32_to_cpu(e->twin);
		c->ntwins++;
		c->mirrored_dirty++;
	} else if (e->dirty) {
		c->lone_dirty++;
	}
	if (e->valid & ~allsub)
		chk_problem(c, 1, "entry", "entry %" PRIu64 " has valid bits 0x%02x beyond its %u sub-blocks",
			idx, e->valid, c->g.nr_subblocks);
	if (e->dirty & ~e->valid)
		chk_problem(c, 1, "dirty_not_valid", "entry %" PRIu64 ": dirty 0x%02x is not a subset of valid 0x%02x",
			idx, e->dirty, e->valid);
	if (e->flags & ~(FC_ENTRY_MIRRORED | FC_ENTRY_WARM | FC_ENTRY_SHADOW))
		chk_problem(c, 0, "entry", "entry %" PRIu64 " has unknown flags 0x%02x", idx, e->flags);
	/*
	 * Ordered write-back: a shadow is an older version of its block,
	 * dirty; the current one is the entry without the flag.
	 */
	if ((e->flags & FC_ENTRY_SHADOW) && (!c->ordered || c->mirrored)) {
		chk_problem(c, 1, "entry", "entry %" PRIu64 " is marked an older version (shadow) but the pool does not use ordered write-back",
			idx);
	} else if ((e->flags & FC_ENTRY_SHADOW) && !e->dirty) {
		chk_problem(c, 0, "entry", "entry %" PRIu64 " is an older version (shadow) with no dirty data: recovery drops it",
			idx);
	}
	if (e->flags & FC_ENTRY_SHADOW) {
		c->shadows++;
		if (c->vt_ok && chk_vol_in_use(c, e->vol)) {
			c->vi[e->vol].cached++;
			if (e->dirty) {
				c->vi[e->vol].dirty_blocks++;
				c->vi[e->vol].dirty_sub += (uint64_t)__builtin_popcount(e->dirty);
			}
		}
		return;
	}
	if (!c->vt_ok)
		return;
	if (!chk_vol_in_use(c, e->vol)) {
		chk_problem(c, 1, "unused_volume", "entry %" PRIu64 " references volume slot %u, which is not in use",
			idx, e->vol);
		return;
	}
	osz = le64_to_cpu(c->vt.vol[e->vol].origin_sectors);
	if (ob >= osz / c->g.block_sectors + !!(osz % c->g.block_sectors))
		chk_problem(c, 1, "out_of_bounds", "entry %" PRIu64 " maps origin block %" PRIu64
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

void chk_walk_entries(struct ctx *c, entry_fn fn, void *arg, int report)
{
	struct fc_disk_mdpage *mp = fc_io_alloc(FC_PAGE_SIZE);
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
			chk_problem(c, 1, "overlap",
				"entries %u and %u both map volume slot %u origin block %" PRIu64
				" (the kernel refuses to load such a pool)",
				c->map[i - 1].idx, c->map[i].idx, c->map[i].vol, c->map[i].oblock);
}

static int cmp_twin(const void *a, const void *b)
{
	const struct twin_note *x = a, *y = b;

	if (x->twin != y->twin)
		return x->twin < y->twin ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Each twin (docs/DESIGN.md, "Two-device pool"): a block on the other leg,
 * inside the pool, whose own entry is free, the twin of one entry only.
 * The kernel refuses a pool that breaks any of these: damage.
 */
static void check_twins(struct ctx *c)
{
	uint64_t i;

	for (i = 0; i < c->ntwins; i++) {
		const struct twin_note *t = &c->twins[i];

		if (t->twin >= c->g.nr_blocks) {
			chk_problem(c, 1, "twin", "entry %u names twin block %u, past the last cache block (%" PRIu64 ")",
				t->idx, t->twin, c->g.nr_blocks);
			continue;
		}
		if (fc_block_leg(&c->g, t->twin) == fc_block_leg(&c->g, t->idx))
			chk_problem(c, 1, "twin", "entry %u and its twin block %u are both on leg %u: a twin is always on the other flash device",
				t->idx, t->twin, fc_block_leg(&c->g, t->idx));
		if (c->usedmap[t->twin / 8] & (1u << (t->twin % 8)))
			chk_problem(c, 1, "twin", "twin block %u of entry %u is also an entry in use (one block used twice)",
				t->twin, t->idx);
	}
	qsort(c->twins, c->ntwins, sizeof(*c->twins), cmp_twin);
	for (i = 1; i < c->ntwins; i++)
		if (c->twins[i].twin == c->twins[i - 1].twin && c->twins[i].twin < c->g.nr_blocks)
			chk_problem(c, 1, "twin", "block %u is the twin of two entries (%u and %u)",
				c->twins[i].twin, c->twins[i - 1].idx, c->twins[i].idx);
}

void chk_hex(char *out, const uint8_t *u, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", u[i]);
}

void chk_label(char *out, const struct fc_disk_volume *v)
{
	int i;

	for (i = 0; i < (int)FC_VOLUME_LABEL_LEN && v->label[i]; i++)
		out[i] = (v->label[i] >= 0x20 && v->label[i] < 0x7f) ? (char)v->label[i] : '?';
	out[i] = 0;
}

/* A checking context for @fd: device size known, page buffer allocated. */
struct ctx *chk_open(int fd, const char *name)
{
	struct ctx *c = calloc(1, sizeof(*c));
	uint64_t b = 0;

	if (!c)
		return NULL;
	c->fd = fd;
	c->name = name;
	c->page = fc_io_alloc(FC_PAGE_SIZE);
	if (!c->page) {
		free(c);
		return NULL;
	}
	if (!fc_dev_size(fd, &b)) {
		c->dev_sectors = b / 512;
		c->dev_bytes = b;
		c->size_known = 1;
	}
	return c;
}

void chk_close(struct ctx *c)
{
	free(c->st.v);
	free(c->lo.v);
	free(c->map);
	free(c->twins);
	free(c->usedmap);
	free(c->page);
	free(c);
}

int chk_all(struct ctx *c)
{
	unsigned int i;

	if (chk_read_superblock(c))
		return 0;
	c->map = calloc(c->g.nr_blocks + 1, sizeof(*c->map));
	c->twins = calloc(c->g.nr_blocks + 1, sizeof(*c->twins));
	c->usedmap = calloc(c->g.nr_blocks / 8 + 1, 1);
	if (!c->map || !c->twins || !c->usedmap) {
		chk_problem(c, 1, "io", "out of memory for %" PRIu64 " entries", c->g.nr_blocks);
		return 0;
	}
	chk_voltable(c);
	chk_walk_entries(c, check_cb, NULL, 1);
	check_overlaps(c);
	check_twins(c);
	for (i = 0; c->vt_ok && i < FC_VT_SLOTS; i++)
		if (chk_vol_in_use(c, i) && !c->lost_pages &&
		    le64_to_cpu(c->vt.vol[i].dirty_blocks) != c->vi[i].dirty_blocks)
			chk_problem(c, 0, "dirty_hint",
				    "volume slot %u: dirty hint %" PRIu64 ", counted %" PRIu64 " (recovery recounts)",
				    i, le64_to_cpu(c->vt.vol[i].dirty_blocks), c->vi[i].dirty_blocks);
	return 1;
}
