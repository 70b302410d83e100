// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_mkimage: write an fcache pool image for the fcachectl check/dump tests.
 *
 *   ctl_mkimage OUT [--size MIB] [--block-sectors N] [--mdseq] [--clean] [--damage KIND]
 *
 * The image is built with engine/fc_format.c the way the pool formats and
 * commits: commit 1 formats (every metadata page written, empty), later
 * commits write each changed logical page to the slot that does not hold
 * its current copy with seq S+1, then the superblock to slot (S+1)%2.
 * Commit 2 registers three volumes and caches blocks, commit 3 changes some
 * of them (so pages live in both slots).  The expected per-volume counts
 * are printed on stdout as "volume SLOT id ID cached N dirty N".
 *
 * --mdseq writes superblocks the way the current module does: with
 * FC_FEAT_INCOMPAT_MDSEQ and md_seq = seq (the leftover kinds imply it);
 * without it the superblocks are those of an older module (M = S).
 *
 * --damage KIND then breaks one thing (re-sealing the page when the damage
 * must pass the checksum); see usage() for the kinds.
 *
 * --mirror OUT2 [--size2 MIB] builds the two legs of a mirrored pool
 * (FC_FEAT_INCOMPAT_MIRROR, docs/DESIGN.md "Two-device pool"): OUT is leg
 * 0, OUT2 leg 1, both with the whole metadata and superblocks of their own;
 * every dirty entry on leg 0 gets a twin on leg 1, a few entries live on
 * leg 1 (dirty ones with a twin on leg 0).  --pair KIND then makes the two
 * legs disagree the way a lost or swapped device leaves them, or leaves a
 * leftover on one leg only (see usage()).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../../include/fcache_format.h"

static struct fc_geometry g;
static int fd;
/* mirrored: the legs' files, which of them page and superblock writes go to */
static int nlegs = 1, fds[2], wmask = 1;
static uint8_t member[2][16];
static uint32_t failed_legs[2];
static uint64_t events[2] = { 1, 1 };
static uint8_t uuid[16];
static uint64_t S;			/* current commit seq */
static int *cur;			/* current slot of each logical page, -1 none */
static struct fc_disk_voltable vt;
static struct fc_disk_entry *ent;	/* nr_blocks rounded up to pages */
static uint8_t *changed;
static uint32_t sb_flags;
static int mdseq;			/* FC_FEAT_INCOMPAT_MDSEQ superblocks */
static int unclean;		/* --unclean: the last superblock without FC_SB_CLEAN */
static int clean;		/* --clean: no dirty block at all */

static void die(const char *m)
{
	perror(m);
	exit(1);
}

static void pwrite_leg(int leg, uint64_t nr, const void *p)
{
	if (pwrite(fds[leg], p, FC_PAGE_SIZE, (off_t)(nr * FC_PAGE_SIZE)) != FC_PAGE_SIZE)
		die("pwrite");
}

/* A metadata page goes to every leg of wmask (identical on both). */
static void pwrite_page(uint64_t nr, const void *p)
{
	int l;

	for (l = 0; l < nlegs; l++)
		if (wmask & (1 << l))
			pwrite_leg(l, nr, p);
}

static void pread_page(uint64_t nr, void *p)
{
	if (pread(fd, p, FC_PAGE_SIZE, (off_t)(nr * FC_PAGE_SIZE)) != FC_PAGE_SIZE)
		die("pread");
}

static void build_page(uint64_t l, void *page)
{
	memset(page, 0, FC_PAGE_SIZE);
	if (l == 0)
		memcpy(page, &vt, sizeof(vt));
	else
		memcpy(((struct fc_disk_mdpage *)page)->e, ent + (l - 1) * FC_ENTRIES_PER_PAGE,
		       FC_ENTRIES_PER_PAGE * sizeof(*ent));
}

/* Superblock @seq trusting pages up to @md_seq (with --mdseq) into @slot. */
static void write_sb_md(uint64_t seq, uint64_t md_seq, int slot)
{
	struct fc_disk_superblock *sb = calloc(1, FC_PAGE_SIZE);
	int l;

	for (l = 0; l < nlegs; l++) {
	if (!(wmask & (1 << l)))
		continue;
	memset(sb, 0, FC_PAGE_SIZE);

	sb->block_sectors = cpu_to_le32(g.block_sectors);
	sb->subblock_sectors = cpu_to_le32(g.subblock_sectors);
	sb->nr_blocks = cpu_to_le64(g.nr_blocks);
	sb->data_start = cpu_to_le64(g.data_start);
	sb->md_pages = cpu_to_le64(g.md_pages);
	sb->entries_per_page = cpu_to_le32(FC_ENTRIES_PER_PAGE);
	sb->max_volumes = cpu_to_le32(FC_MAX_VOLUMES);
	sb->flash_sectors = cpu_to_le64(g.flash_sectors);
	sb->sb_flags = cpu_to_le32(sb_flags);
	sb->format_time = cpu_to_le64(1700000000);
	if (mdseq) {
		sb->incompat_features = cpu_to_le32(FC_FEAT_INCOMPAT_MDSEQ);
		sb->md_seq = cpu_to_le64(md_seq);
	}
	if (nlegs > 1) {
		sb->incompat_features |= cpu_to_le32(FC_FEAT_INCOMPAT_MIRROR);
		sb->flash_sectors = cpu_to_le64(g.leg_sectors[l]);
		memcpy(sb->member_uuid, member[l], 16);
		memcpy(sb->partner_uuid, member[!l], 16);
		sb->member_index = cpu_to_le32(l);
		sb->failed_legs = cpu_to_le32(failed_legs[l]);
		sb->events = cpu_to_le64(events[l]);
		sb->leg_blocks[0] = cpu_to_le64(g.leg_blocks[0]);
		sb->leg_blocks[1] = cpu_to_le64(g.leg_blocks[1]);
		sb->leg_sectors[0] = cpu_to_le64(g.leg_sectors[0]);
		sb->leg_sectors[1] = cpu_to_le64(g.leg_sectors[1]);
	}
	fc_page_seal(sb, FC_SB_MAGIC, slot, seq, uuid);
	pwrite_leg(l, slot, sb);
	}
	free(sb);
}

static void write_sb(uint64_t seq, int slot)
{
	write_sb_md(seq, seq, slot);
}

/* The pages of commit S + 1: every changed page (all pages when @all). */
static void commit_pages(int all)
{
	uint8_t page[FC_PAGE_SIZE];
	uint64_t l;
	int s;

	for (l = 0; l < g.md_pages; l++) {
		if (!all && !changed[l])
			continue;
		s = cur[l] == 0 ? 1 : 0;
		build_page(l, page);
		fc_page_seal(page, l ? FC_ME_MAGIC : FC_VT_MAGIC, fc_md_page_nr(l, s), S + 1, uuid);
		pwrite_page(fc_md_page_nr(l, s), page);
		cur[l] = s;
		changed[l] = 0;
	}
}

/* One commit of every changed page (all pages when @all). */
static void commit(int all)
{
	commit_pages(all);
	S++;
	write_sb(S, (int)(S % 2));
}

static void touch_entry(uint64_t idx)
{
	changed[1 + idx / FC_ENTRIES_PER_PAGE] = 1;
}

static void set_entry(uint64_t idx, uint8_t vol, uint64_t ob, uint8_t valid, uint8_t dirty)
{
	ent[idx].oblock = cpu_to_le64(ob);
	ent[idx].vol = vol;
	ent[idx].valid = valid;
	ent[idx].dirty = dirty;
	ent[idx].flags = 0;
	touch_entry(idx);
}

static void add_volume(int slot, uint32_t id, const char *label, uint64_t sectors)
{
	struct fc_disk_volume *v = &vt.vol[slot];

	v->id = cpu_to_le32(id);
	v->flags = cpu_to_le32(FC_VOL_IN_USE);
	v->origin_sectors = cpu_to_le64(sectors);
	strncpy((char *)v->label, label, FC_VOLUME_LABEL_LEN);
	changed[0] = 1;
}

/* Re-seal the current copy of logical page @l after editing it with @edit. */
static void edit_current(uint64_t l, void (*edit)(void *page))
{
	uint8_t page[FC_PAGE_SIZE];
	uint64_t nr = fc_md_page_nr(l, cur[l]);
	struct fc_disk_header *h = (void *)page;

	pread_page(nr, page);
	edit(page);
	fc_page_seal(page, le32_to_cpu(h->magic), nr, le64_to_cpu(h->seq), uuid);
	pwrite_page(nr, page);
}

/*
 * A page of a commit that never completed: logical page @l, sealed with
 * @seq and header flags @hflags, in the slot that does not hold its current
 * copy.  Its content differs from the committed one (entries lose their
 * dirty bits, the volume table loses volume slot 2), so a checker that
 * used it would report other counts or unused-volume errors.
 */
static void write_leftover(uint64_t l, uint64_t seq, uint32_t hflags)
{
	uint8_t page[FC_PAGE_SIZE];
	uint64_t nr = fc_md_page_nr(l, !cur[l]);
	unsigned int i;

	build_page(l, page);
	if (l) {
		struct fc_disk_mdpage *m = (void *)page;

		for (i = 0; i < FC_ENTRIES_PER_PAGE; i++)
			m->e[i].dirty = 0;
	} else {
		memset(&((struct fc_disk_voltable *)page)->vol[2], 0,
		       sizeof(struct fc_disk_volume));
	}
	fc_page_seal_flags(page, l ? FC_ME_MAGIC : FC_VT_MAGIC, nr, seq, uuid, hflags);
	pwrite_page(nr, page);
}

/*
 * --pair leftover-leg1: commit 5 cut short by a power cut after leg 1's
 * copy of one page landed, before leg 0's and before either superblock.
 * The page holds cache block LO_BLOCK (on leg 1, free in commit 4) as a
 * dirty record of volume slot 2's origin block LO_OBLOCK; the block's data
 * on leg 1 is LO_BYTE, a marker no origin holds.  A module that trusts the
 * page serves the marker for that origin block.
 */
#define LO_BLOCK	(g.leg_blocks[0] + 100)
#define LO_OBLOCK	2000u
#define LO_BYTE		0xa5

static void write_leftover_leg1(void)
{
	uint64_t x = LO_BLOCK, l = 1 + x / FC_ENTRIES_PER_PAGE;
	uint64_t nr = fc_md_page_nr(l, cur[l] == 0 ? 1 : 0);
	struct fc_disk_entry save = ent[x];
	size_t len = (size_t)g.block_sectors << 9;
	uint8_t page[FC_PAGE_SIZE], *data = malloc(len);

	if (!data)
		die("malloc");
	set_entry(x, 2, LO_OBLOCK, (uint8_t)(0xff >> (8 - g.nr_subblocks)),
		  (uint8_t)(0xff >> (8 - g.nr_subblocks)));
	build_page(l, page);
	fc_page_seal(page, FC_ME_MAGIC, nr, S + 1, uuid);
	pwrite_leg(1, nr, page);
	ent[x] = save;
	changed[l] = 0;
	memset(data, LO_BYTE, len);
	if (pwrite(fds[1], data, len, (off_t)(fc_block_leg_sector(&g, x) << 9)) != (ssize_t)len)
		die("pwrite");
	free(data);
}

/*
 * --damage cut-commit: a one-write commit S + 1 (FC_FEAT_INCOMPAT_PAGELIST)
 * cut by a power cut: its superblock, naming the volume table and the
 * entry page of cache block CUT_BLOCK, landed, and so did that entry page,
 * which maps origin block LO_OBLOCK of volume slot 2 dirty to CUT_BLOCK
 * (free in commit S, holding LO_BYTE bytes); the volume table's copy did
 * not.  Recovery must use superblock S: a module that trusts the unproven
 * superblock serves the marker for that origin block.  Block 700 lies
 * past the blocks commit 2 fills; an image too small for it (the fuzz
 * corpus's 1 MiB) takes block 1, which commit 3 freed.
 */
#define CUT_BLOCK	(g.nr_blocks > 700 ? 700u : 1u)

static void write_cut_commit(void)
{
	uint64_t x = CUT_BLOCK, l = 1 + x / FC_ENTRIES_PER_PAGE, list[2] = { 0, l };
	uint64_t nr = fc_md_page_nr(l, cur[l] == 0 ? 1 : 0);
	struct fc_disk_entry save = ent[x];
	size_t len = (size_t)g.block_sectors << 9;
	uint8_t page[FC_PAGE_SIZE], *data = malloc(len);
	struct fc_disk_superblock *sb = (void *)page;
	int slot = (int)((S + 1) % 2);

	if (!data || x >= g.nr_blocks || ent[x].valid)
		die("cut-commit");
	set_entry(x, 2, LO_OBLOCK, (uint8_t)(0xff >> (8 - g.nr_subblocks)),
		  (uint8_t)(0xff >> (8 - g.nr_subblocks)));
	build_page(l, page);
	fc_page_seal(page, FC_ME_MAGIC, nr, S + 1, uuid);
	pwrite_page(nr, page);
	ent[x] = save;
	changed[l] = 0;
	memset(data, LO_BYTE, len);
	if (pwrite(fd, data, len, (off_t)(fc_block_leg_sector(&g, x) << 9)) != (ssize_t)len)
		die("pwrite");
	free(data);
	/* the superblock as write_sb() makes it, naming pages 0 and l */
	write_sb(S + 1, slot);
	pread_page((uint64_t)slot, page);
	sb->incompat_features |= cpu_to_le32(FC_FEAT_INCOMPAT_PAGELIST);
	fc_sb_set_list(sb, list, 2);
	fc_page_seal(page, FC_SB_MAGIC, (uint64_t)slot, S + 1, uuid);
	pwrite_page((uint64_t)slot, page);
}

static void flip_byte(uint64_t nr, unsigned int off)
{
	uint8_t page[FC_PAGE_SIZE];

	pread_page(nr, page);
	page[off] ^= 0x5a;
	pwrite_page(nr, page);
}

static void ed_overlap(void *p)
{
	struct fc_disk_mdpage *m = p;

	m->e[10].vol = m->e[3].vol;
	m->e[10].oblock = m->e[3].oblock;
	m->e[10].valid = 1;
	m->e[10].dirty = 0;
}

static void ed_oob(void *p)
{
	((struct fc_disk_mdpage *)p)->e[5].oblock = cpu_to_le64(1ull << 40);
}

static void ed_unused(void *p)
{
	((struct fc_disk_mdpage *)p)->e[6].vol = 7;
}

static void ed_dirty(void *p)
{
	struct fc_disk_mdpage *m = p;

	m->e[7].valid = 0x03;
	m->e[7].dirty = 0x0f;
}

static void ed_twin_leg(void *p)
{
	struct fc_disk_mdpage *m = p;
	unsigned int i;

	/* the first mirrored entry gets a twin on its own leg (leg 0) */
	for (i = 0; i < FC_ENTRIES_PER_PAGE; i++)
		if (m->e[i].flags & FC_ENTRY_MIRRORED) {
			m->e[i].twin = cpu_to_le32(750);
			return;
		}
}

static void ed_twin_oob(void *p)
{
	struct fc_disk_mdpage *m = p;
	unsigned int i;

	for (i = 0; i < FC_ENTRIES_PER_PAGE; i++)
		if (m->e[i].flags & FC_ENTRY_MIRRORED) {
			m->e[i].twin = cpu_to_le32((uint32_t)g.nr_blocks + 7);
			return;
		}
}

static void ed_twin_twice(void *p)
{
	struct fc_disk_mdpage *m = p;
	unsigned int i, first = FC_ENTRIES_PER_PAGE;

	/* the second mirrored entry takes the twin of the first */
	for (i = 0; i < FC_ENTRIES_PER_PAGE; i++) {
		if (!(m->e[i].flags & FC_ENTRY_MIRRORED))
			continue;
		if (first == FC_ENTRIES_PER_PAGE) {
			first = i;
			continue;
		}
		m->e[i].twin = m->e[first].twin;
		return;
	}
}

static void ed_twin_single(void *p)
{
	struct fc_disk_mdpage *m = p;

	/* entry 4 is dirty: marked mirrored in a one-device pool */
	m->e[4].flags = FC_ENTRY_MIRRORED;
	m->e[4].twin = cpu_to_le32(9);
}

static void ed_mismatch(void *p)
{
	struct fc_disk_mdpage *m = p;

	m->e[2].dirty ^= 0x01;
	m->e[2].valid |= 0x01;
}

static void ed_dupid(void *p)
{
	struct fc_disk_voltable *v = p;

	v->vol[2].id = v->vol[0].id;
}

static void ed_vol_unused(void *p)
{
	/* drop volume slot 1 from the table: its entries become orphans */
	memset(&((struct fc_disk_voltable *)p)->vol[1], 0, sizeof(struct fc_disk_volume));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ctl_mkimage OUT [--size MIB] [--block-sectors N] [--mdseq] [--unclean] [--clean]\n"
		"                   [--damage KIND]\n"
		"kinds (damage): sb-current sb-both sb-geometry vt vt-dupid vt-dropvol\n"
		"                entry-page seq-above overlap oob unused-vol dirty-not-valid\n"
		"                mdseq-above cut-commit-bad\n"
		"kinds (harmless, check must pass): stale-slot torn needs-check\n"
		"                leftover leftover-nc failed-commit cut-commit (these imply --mdseq)\n"
		"  leftover       pages 1, 2 at seq S+1 above md_seq S of superblock S+1\n"
		"  leftover-nc    the volume table at seq S+1 with FC_HDR_NEEDS_CHECK,\n"
		"                 superblock S (a superblock write that failed)\n"
		"  failed-commit  as leftover, the superblock with needs_check (a failed\n"
		"                 page batch)\n"
		"  mdseq-above    superblock md_seq above its seq\n"
		"  cut-commit     a one-write commit S+1 cut short: its superblock and one of\n"
		"                 the two pages it names landed (origin block 2000 of volume\n"
		"                 id 5 dirty in cache block 700, 0xa5 bytes); -bad: and\n"
		"                 superblock S is damaged\n"
		"mirrored: --mirror OUT2 [--size2 MIB] (OUT is leg 0, OUT2 leg 1)\n"
		"  --damage twin-leg|twin-oob|twin-used|twin-twice  a twin on the entry's own\n"
		"                 leg, past the last block, also an entry in use, shared\n"
		"  --damage twin-single  (one device) a dirty entry marked mirrored\n"
		"  --unclean      an unclean shutdown (before any damage or --pair)\n"
		"  --clean        every block written back: no dirty block\n"
		"  --pair stale   leg 0 ran without leg 1 (failed_legs, events 2, a commit)\n"
		"  --pair split   each leg ran without the other\n"
		"  --pair foreign leg 1 names another partner (a replaced leg 0)\n"
		"  --pair lag     leg 1's superblock one commit behind (harmless)\n"
		"  --pair mismatch  same commit, an entry of leg 1 differs\n"
		"  --pair leftover-leg1  a commit cut short: one page at seq S+1 on leg 1\n"
		"                 only (block leg_blocks[0]+100 maps volume slot 2 block\n"
		"                 2000 dirty, its data all 0xa5), no superblock (harmless)\n"
		"  --pair leftover-leg1-reused  then commit S+1 of the volume table alone on\n"
		"                 both legs: leg 1's leftover now looks committed (mismatch)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t mib = 64, idx, n, i;
	uint32_t bs = FC_DEFAULT_BLOCK_SECTORS;
	const char *damage = NULL, *out, *out2 = NULL, *pair = NULL;
	uint64_t mib2 = 0;
	uint64_t vcached[3] = { 0 }, vdirty[3] = { 0 };
	int a;

	if (argc < 2)
		usage();
	out = argv[1];
	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--size") && a + 1 < argc)
			mib = strtoull(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--block-sectors") && a + 1 < argc)
			bs = (uint32_t)strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--damage") && a + 1 < argc)
			damage = argv[++a];
		else if (!strcmp(argv[a], "--mdseq"))
			mdseq = 1;
		else if (!strcmp(argv[a], "--clean"))
			clean = 1;
		else if (!strcmp(argv[a], "--unclean"))
			unclean = 1;
		else if (!strcmp(argv[a], "--mirror") && a + 1 < argc)
			out2 = argv[++a];
		else if (!strcmp(argv[a], "--size2") && a + 1 < argc)
			mib2 = strtoull(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--pair") && a + 1 < argc)
			pair = argv[++a];
		else
			usage();
	}
	if (damage && (!strncmp(damage, "leftover", 8) || !strcmp(damage, "failed-commit") ||
		       !strncmp(damage, "cut-commit", 10) ||
		       !strcmp(damage, "mdseq-above")))
		mdseq = 1;
	if (pair && !out2)
		usage();
	if (out2) {
		uint64_t legs[2] = { mib * 2048, (mib2 ? mib2 : mib) * 2048 };

		nlegs = 2;
		wmask = 3;
		mdseq = 1;
		if (fc_geometry_compute_legs(&g, legs, 2, bs) || g.leg_blocks[0] < 800 ||
		    g.leg_blocks[1] < 1700)
			usage();
		fds[1] = open(out2, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fds[1] < 0 || ftruncate(fds[1], (off_t)(legs[1] << 9)))
			die(out2);
		for (i = 0; i < 16; i++) {
			member[0][i] = (uint8_t)(0xa0 + 3 * i);
			member[1][i] = (uint8_t)(0x50 + 5 * i);
		}
	} else if (fc_geometry_compute(&g, mib * 2048, bs)) {
		usage();
	}
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(mib << 20)))
		die(out);
	fds[0] = fd;
	for (i = 0; i < 16; i++)
		uuid[i] = (uint8_t)(0x10 + 7 * i);
	cur = malloc(g.md_pages * sizeof(*cur));
	changed = calloc(g.md_pages, 1);
	n = (g.md_pages - 1) * FC_ENTRIES_PER_PAGE;
	ent = calloc(n, sizeof(*ent));
	for (i = 0; i < g.md_pages; i++)
		cur[i] = -1;

	/* commit 1: format */
	commit(1);

	/* commit 2: three volumes, blocks spread over the pages */
	/* 32768, 8192 and 2048 blocks whatever the block size */
	add_volume(0, 1, "vg0-db", 32768ull * bs);
	add_volume(1, 2, "sdb", 8192ull * bs);
	add_volume(2, 5, "vg0-log", 2048ull * bs);
	for (idx = 0; idx < g.nr_blocks && idx < 600; idx++) {
		int v = (int)(idx % 3);
		uint64_t vblocks = le64_to_cpu(vt.vol[v].origin_sectors) / g.block_sectors;

		/* distinct origin blocks per volume, the last block of each included */
		set_entry(idx, (uint8_t)v, idx < 3 ? vblocks - 1 : (idx / 3 * 5) % (vblocks - 1),
			  (uint8_t)(0xff >> (8 - g.nr_subblocks)),
			  (idx % 4 == 0 || (v == 0 && idx % 7 == 0)) ? 0x01 : 0);
	}
	commit(0);

	/* commit 3: clean some, dirty others, free a few */
	for (idx = 0; idx < g.nr_blocks && idx < 600; idx += 5) {
		ent[idx].dirty = idx % 10 ? 0x03 & ent[idx].valid : 0;
		touch_entry(idx);
	}
	for (idx = 1; idx < g.nr_blocks && idx < 600; idx += 50)
		set_entry(idx, 0, 0, 0, 0);
	/* --clean: everything written back (a pool wipe takes without --force-dirty) */
	for (idx = 0; clean && idx < g.nr_blocks && idx < 600; idx++)
		if (ent[idx].dirty) {
			ent[idx].dirty = 0;
			touch_entry(idx);
		}
	sb_flags = FC_SB_CLEAN;
	commit(0);

	/* expected counts */
	for (idx = 0; idx < n; idx++) {
		if (!ent[idx].valid)
			continue;
		vcached[ent[idx].vol]++;
		if (ent[idx].dirty)
			vdirty[ent[idx].vol]++;
	}
	if (nlegs > 1) {
		/*
		 * Entries on leg 1 (vol 0, origin blocks 20000..), the first two
		 * dirty with twins on leg 0; every dirty entry of leg 0 gets a
		 * twin on leg 1, from its block 1000 on.
		 */
		uint64_t b1 = g.leg_blocks[0];

		for (i = 0; i < 8; i++)
			set_entry(b1 + 10 + i, 0, 20000 + i, (uint8_t)(0xff >> (8 - g.nr_subblocks)),
				  i < 2 ? 0x01 : 0);
		for (i = 0; i < 2; i++) {
			ent[b1 + 10 + i].flags = FC_ENTRY_MIRRORED;
			ent[b1 + 10 + i].twin = cpu_to_le32(700 + (uint32_t)i);
			vcached[0]++;
			vdirty[0]++;
		}
		for (i = 2; i < 8; i++)
			vcached[0]++;
		for (idx = 0; idx < 600; idx++) {
			if (!ent[idx].dirty)
				continue;
			ent[idx].flags = FC_ENTRY_MIRRORED;
			ent[idx].twin = cpu_to_le32((uint32_t)(b1 + 1000 + idx));
			touch_entry(idx);
		}
	}
	for (i = 0; i < 3; i++)
		vt.vol[i].dirty_blocks = cpu_to_le64(vdirty[i]);
	changed[0] = 1;
	commit(0);	/* commit 4: dirty hints in the volume table */
	if (unclean) {
		/* a power cut: the next load trusts only the dirty records */
		sb_flags &= ~FC_SB_CLEAN;
		commit(0);
	}

	if (!pair) {
	} else if (!strcmp(pair, "stale") || !strcmp(pair, "split")) {
		/* commit 5 on leg 0 alone, which records leg 1 as failed */
		wmask = 1;
		failed_legs[0] = 2;
		events[0] = 2;
		changed[0] = 1;
		commit(0);
		if (!strcmp(pair, "split")) {
			/* and leg 1, alone too, its own commit 5 */
			wmask = 2;
			failed_legs[1] = 1;
			events[1] = 2;
			S--;
			cur[0] = !cur[0];
			changed[0] = 1;
			commit(0);
		}
		wmask = 3;
	} else if (!strcmp(pair, "foreign")) {
		/* leg 1 names another partner, as after leg 0 was replaced */
		member[0][0] ^= 0xff;
		wmask = 2;
		write_sb(S, (int)(S % 2));
		member[0][0] ^= 0xff;
		wmask = 3;
	} else if (!strcmp(pair, "lag")) {
		/* commit 5: pages on both, the superblock of leg 0 only */
		changed[0] = 1;
		commit_pages(0);
		S++;
		wmask = 1;
		write_sb(S, (int)(S % 2));
		wmask = 3;
	} else if (!strncmp(pair, "leftover-leg1", 13)) {
		write_leftover_leg1();
		if (!strcmp(pair, "leftover-leg1-reused")) {
			/* what the module before issue 32 item 3 did next */
			changed[0] = 1;
			commit(0);
		} else if (strcmp(pair, "leftover-leg1")) {
			usage();
		}
	} else if (!strcmp(pair, "mismatch")) {
		wmask = 2;
		edit_current(1, ed_mismatch);
		wmask = 3;
	} else {
		usage();
	}

	if (!damage) {
	} else if (!strcmp(damage, "sb-current")) {
		flip_byte(S % 2, 200);
	} else if (!strcmp(damage, "sb-both")) {
		flip_byte(0, 100);
		flip_byte(1, 100);
	} else if (!strcmp(damage, "sb-geometry")) {
		g.nr_blocks += 1;
		write_sb(S, (int)(S % 2));
		flip_byte((S + 1) % 2, 300);
	} else if (!strcmp(damage, "vt")) {
		flip_byte(fc_md_page_nr(0, 0), 500);
		flip_byte(fc_md_page_nr(0, 1), 500);
	} else if (!strcmp(damage, "vt-dupid")) {
		edit_current(0, ed_dupid);
	} else if (!strcmp(damage, "vt-dropvol")) {
		edit_current(0, ed_vol_unused);
	} else if (!strcmp(damage, "entry-page")) {
		flip_byte(fc_md_page_nr(1, 0), 1000);
		flip_byte(fc_md_page_nr(1, 1), 1000);
	} else if (!strcmp(damage, "seq-above")) {
		uint8_t page[FC_PAGE_SIZE];
		int s;

		for (s = 0; s < 2; s++) {
			pread_page(fc_md_page_nr(2, s), page);
			fc_page_seal(page, FC_ME_MAGIC, fc_md_page_nr(2, s), S + 3 + s, uuid);
			pwrite_page(fc_md_page_nr(2, s), page);
		}
	} else if (!strcmp(damage, "overlap")) {
		edit_current(1, ed_overlap);
	} else if (!strcmp(damage, "oob")) {
		edit_current(1, ed_oob);
	} else if (!strcmp(damage, "unused-vol")) {
		edit_current(1, ed_unused);
	} else if (!strcmp(damage, "dirty-not-valid")) {
		edit_current(2, ed_dirty);
	} else if (!strcmp(damage, "stale-slot")) {
		flip_byte(fc_md_page_nr(1, !cur[1]), 2000);
	} else if (!strcmp(damage, "torn")) {
		/* commit 5 interrupted: pages written, superblock never */
		uint8_t page[FC_PAGE_SIZE];

		ent[0].dirty = 0;
		build_page(1, page);
		fc_page_seal(page, FC_ME_MAGIC, fc_md_page_nr(1, !cur[1]), S + 1, uuid);
		pwrite_page(fc_md_page_nr(1, !cur[1]), page);
		vdirty[0] = vdirty[0];	/* recovery keeps the committed state */
	} else if (!strcmp(damage, "needs-check")) {
		sb_flags |= FC_SB_NEEDS_CHECK;
		write_sb(S, (int)(S % 2));
	} else if (!strcmp(damage, "leftover") || !strcmp(damage, "failed-commit")) {
		/* commit 5: pages 1 and 2 landed, the rest of the batch did not */
		write_leftover(1, S + 1, 0);
		write_leftover(2, S + 1, 0);
		if (!strcmp(damage, "failed-commit"))
			sb_flags |= FC_SB_NEEDS_CHECK;
		write_sb_md(S + 1, S, (int)((S + 1) % 2));
		S++;
	} else if (!strcmp(damage, "leftover-nc")) {
		/* commit 5: the superblock write failed; needs_check goes to a page */
		write_leftover(0, S + 1, FC_HDR_NEEDS_CHECK);
	} else if (!strcmp(damage, "cut-commit") || !strcmp(damage, "cut-commit-bad")) {
		write_cut_commit();
		/* -bad: the superblock before it is unusable too */
		if (!strcmp(damage, "cut-commit-bad"))
			flip_byte(S % 2, 300);
	} else if (!strcmp(damage, "mdseq-above")) {
		write_sb_md(S, S + 1, (int)(S % 2));
	} else if (!strcmp(damage, "twin-leg") && nlegs > 1) {
		edit_current(1, ed_twin_leg);
	} else if (!strcmp(damage, "twin-oob") && nlegs > 1) {
		edit_current(1, ed_twin_oob);
	} else if (!strcmp(damage, "twin-used") && nlegs > 1) {
		/* the twin of leg 1's entry (block 700 of leg 0) becomes an entry */
		set_entry(700, 1, 7000, 1, 0);
		commit(0);
	} else if (!strcmp(damage, "twin-twice") && nlegs > 1) {
		edit_current(1, ed_twin_twice);
	} else if (!strcmp(damage, "twin-single") && nlegs == 1) {
		edit_current(1, ed_twin_single);
	} else {
		usage();
	}
	for (i = 0; i < 3; i++)
		printf("volume %" PRIu64 " id %u cached %" PRIu64 " dirty %" PRIu64 "\n", i,
		       le32_to_cpu(vt.vol[i].id), vcached[i], vdirty[i]);
	printf("seq %" PRIu64 "\n", S);
	close(fd);
	if (nlegs > 1)
		close(fds[1]);
	return 0;
}
