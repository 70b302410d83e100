// SPDX-License-Identifier: GPL-2.0
/*
 * fc_load: a pool's format and load (fc_meta_open()): blank devices are
 * formatted; otherwise both superblock slots and both slots of every
 * metadata page of the loaded leg are read and the in-core state rebuilt,
 * leftovers of a commit cut short recognised (include/fcache_format.h).  A
 * mirrored pool loaded with both legs also reads every page of the other
 * leg, for leftovers only (scan_other_leg()): one more read pass of one
 * leg's metadata.  The legs of a mirrored pool are matched here
 * (pick_legs()).
 *
 * Locking: loading runs in the pool constructor before the pool is visible
 * to anyone; no lock is needed, pool->lock is taken where a helper shared
 * with the run time expects it.
 */
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>

#include "fc_core.h"

#define FC_MD_BUF_PAGES 256u

/* ---- format ---- */

static int format_pool(struct fc_pool *pool)
{
	u64 l;
	unsigned int i, n;
	int r;

	get_random_bytes(pool->uuid, sizeof(pool->uuid));
	for (i = 0; i < pool->g.nr_legs; i++)
		get_random_bytes(pool->leg[i].member_uuid, 16);
	pool->events = 1;
	pool->format_time = ktime_get_real_seconds();
	/* Every logical page: slot 0 an empty page of seq 1, slot 1 zeroed. */
	for (l = 0; l < pool->g.md_pages; l += n) {
		n = min_t(u64, pool->md_buf_pages / 2, pool->g.md_pages - l);
		memset(pool->md_buf, 0, (size_t)n * 2 * FC_PAGE_SIZE);
		for (i = 0; i < n; i++) {
			void *p = fc_buf_page(pool, 2 * i);

			if (l + i == 0)
				fc_page_seal(p, FC_VT_MAGIC, fc_md_page_nr(0, 0), 1, pool->uuid);
			else
				fc_page_seal(p, FC_ME_MAGIC, fc_md_page_nr(l + i, 0), 1,
					     pool->uuid);
		}
		r = fc_md_write_all(pool, REQ_OP_WRITE, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
				 (sector_t)n * 2 * FC_PAGE_SECTORS, pool->md_buf);
		if (r)
			return r;
	}
	r = fc_flash_flush(pool);
	if (r)
		return r;
	pool->sb_flags = 0;
	/* seq 1 in both slots of every leg */
	for (i = 0; i < pool->g.nr_legs && !r; i++) {
		r = fc_write_sb_slot(pool, i, 0, 1, 1, 0);
		if (!r)
			r = fc_write_sb_slot(pool, i, 1, 1, 1, 0);
		pool->leg[i].sb_slot = 1;
	}
	pool->seq = 1;
	pool->md_seq = 1;
	bitmap_zero(pool->page_slot, pool->g.md_pages);
	return r;
}

/* ---- load ---- */

/*
 * Check slot @s of logical page @l (read at @p): 0 if valid (its seq in
 * *@seq), else a negative FC_ECHK_* code.  A valid slot above md_seq is a
 * leftover of a commit that never completed: never used, and marked for
 * rewriting by the first commit, which takes a seq above it (*@max_seen);
 * one with FC_HDR_NEEDS_CHECK records needs_check (include/fcache_format.h,
 * "Leftovers").
 */
static int verify_slot(struct fc_pool *pool, u64 l, unsigned int s, const void *p, u64 *seq,
		       u64 *max_seen)
{
	const struct fc_disk_header *h = p;
	int v = fc_page_verify(p, l ? FC_ME_MAGIC : FC_VT_MAGIC, fc_md_page_nr(l, s), pool->uuid);

	*seq = le64_to_cpu(h->seq);
	if (v || *seq <= pool->md_seq)
		return v;
	pool->leftovers++;
	__set_bit(l, pool->page_dirty);
	*max_seen = max(*max_seen, *seq);
	if (le32_to_cpu(h->flags) & FC_HDR_NEEDS_CHECK) {
		DMWARN("a failed commit recorded needs_check in metadata page %llu", l);
		pool->needs_check = true;
	}
	return 0;
}

/*
 * Choose the slot of logical page @l: the valid one with the highest seq
 * <= md_seq.  A valid slot above md_seq is a leftover of a commit that
 * never completed: never used, and marked for rewriting by the first commit
 * (include/fcache_format.h, "Leftovers").
 */
static int pick_slot(struct fc_pool *pool, u64 l, void *s0, void *s1, int *slot,
		     u64 *max_seen)
{
	void *p[2] = { s0, s1 };
	bool ok[2];
	u64 q[2];
	int v[2], i;

	for (i = 0; i < 2; i++) {
		v[i] = verify_slot(pool, l, i, p[i], &q[i], max_seen);
		ok[i] = !v[i] && q[i] <= pool->md_seq;
	}
	if (ok[0] && (!ok[1] || q[0] >= q[1]))
		*slot = 0;
	else if (ok[1])
		*slot = 1;
	else
		return v[0] ? v[0] : FC_ECHK_CSUM;
	return 0;
}

static void load_voltable(struct fc_pool *pool, struct fc_disk_voltable *vt)
{
	unsigned int i;

	for (i = 0; i < FC_MAX_VOLUMES && i < FC_VT_SLOTS; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (!(le32_to_cpu(vt->vol[i].flags) & FC_VOL_IN_USE) || !vt->vol[i].id)
			continue;
		s->id = le32_to_cpu(vt->vol[i].id);
		s->origin_sectors = le64_to_cpu(vt->vol[i].origin_sectors);
		s->detached = !!(le32_to_cpu(vt->vol[i].flags) & FC_VOL_DETACHED);
		s->olog = !!(le32_to_cpu(vt->vol[i].flags) & FC_VOL_OLOG);
		memcpy(s->label, vt->vol[i].label, FC_VOLUME_LABEL_LEN);
		s->label[FC_VOLUME_LABEL_LEN] = 0;
	}
}

/*
 * The twin of loaded entry @idx, FC_NONE if it has none (or it was on a
 * missing leg); -EINVAL for one that cannot be (damage).
 */
static int entry_twin(struct fc_pool *pool, u32 idx, const struct fc_disk_entry *d, u8 dirty,
		      u32 *twin)
{
	u32 t;

	*twin = FC_NONE;
	if (!(d->flags & FC_ENTRY_MIRRORED) || !dirty)
		return 0;
	t = le32_to_cpu(d->twin);
	if (!fc_mirrored(pool) || t >= pool->g.nr_blocks ||
	    fc_block_leg(&pool->g, t) == fc_block_leg(&pool->g, idx))
		return -EINVAL;
	if (fc_block_bdev(pool, t))
		*twin = t;
	return 0;
}

/*
 * Mark block @b (on a leg in service) as holding one record's data or one
 * twin copy; true if something already holds it.  @claimed is NULL for
 * one device: without twins each block has only its own record.
 */
static bool claim_block(struct fc_pool *pool, unsigned long *claimed, u32 b)
{
	return claimed && b != FC_NONE && fc_block_bdev(pool, b) &&
		__test_and_set_bit(b, claimed);
}

/*
 * The twin of loaded record @d (entry @idx, dirty sub-blocks @dirty) in *@t,
 * and the blocks it holds claimed; -EINVAL (damage) if it cannot be.
 */
static int entry_blocks(struct fc_pool *pool, u32 idx, const struct fc_disk_entry *d, u8 dirty,
			unsigned long *claimed, u32 *t, char **error)
{
	if (entry_twin(pool, idx, d, dirty, t)) {
		*error = "fcache-pool: a cache entry names an impossible twin block (damaged metadata); run fcachectl check";
		return -EINVAL;
	}
	/*
	 * Every block holds one record or one twin copy, clean
	 * records included (as fcachectl check counts them): a dirty
	 * record naming as its twin a block that has a record of its
	 * own is damage even when that record is clean and dropped
	 * below, since nothing tells which of the two the block's
	 * data belongs to.  A degraded load moves an entry to its
	 * twin, so this also covers the block it moves to.
	 */
	if (claim_block(pool, claimed, idx) || claim_block(pool, claimed, *t)) {
		DMERR("cache block %u or its twin block is used twice (entry and twin, or twin of two entries)",
		      idx);
		*error = "fcache-pool: a cache block is used both by an entry and as a twin (damaged metadata); run fcachectl check";
		return -EINVAL;
	}
	return 0;
}

#ifdef FC_FAULT_INJECT
/*
 * A deliberate bug for the crash harness's negative control: a superblock
 * naming its commit's pages counts without proof that they landed.
 */
static bool mutant_trust_unproven_sb;
module_param(mutant_trust_unproven_sb, bool, 0644);
MODULE_PARM_DESC(mutant_trust_unproven_sb, "test build: one-write superblocks count unproven (a bug on purpose)");

static bool trust_unproven(void)
{
	return READ_ONCE(mutant_trust_unproven_sb);
}

/*
 * Another, for the warm-restart check (issue 38): after an unclean
 * shutdown the load keeps the clean sub-blocks its metadata names too,
 * which nothing in the running pool orders for (a reused block, a write
 * around it, a write in place since the commit): the walk must see stale
 * reads.
 */
static bool mutant_keep_clean;
module_param(mutant_keep_clean, bool, 0644);
MODULE_PARM_DESC(mutant_keep_clean, "test build: an unclean load keeps clean sub-blocks (a bug on purpose)");

static bool keep_clean(void)
{
	return READ_ONCE(mutant_keep_clean);
}
#else
static inline bool trust_unproven(void)
{
	return false;
}

static inline bool keep_clean(void)
{
	return false;
}
#endif

/*
 * Record @d as entry @idx (@valid, @dirty sub-blocks) with twin @t
 * (FC_NONE: none) in core; -EINVAL if its origin block is mapped already.
 */
static int insert_entry(struct fc_pool *pool, const struct fc_disk_entry *d, u32 idx, u32 t,
			u8 valid, u8 dirty, bool was_clean, char **error)
{
	struct fc_entry *e, *dup;

	/*
	 * Ordered write-back: a shadow (an older version, dirty) is not in
	 * the hash (fc_cache_insert_loaded()); the current version of its
	 * block is.
	 */
	if (pool->ord_feature && (d->flags & FC_ENTRY_SHADOW)) {
		__set_bit(idx, pool->shadow);
		pool->nr_shadows++;
		dup = NULL;
	} else {
		dup = fc_lookup(pool, d->vol, le64_to_cpu(d->oblock));
	}
	/*
	 * Two cache blocks mapping one origin block (a block used
	 * twice was refused above): every commit is one snapshot of
	 * a state that never has them, so this is damage, and no
	 * rule can tell which copy is the newer one.  Refuse the
	 * pool rather than pick one.
	 */
	if (dup) {
		DMERR("cache blocks %u and %u both map volume slot %u block %llu",
		      idx, fc_eidx(pool, dup), d->vol, le64_to_cpu(d->oblock));
		*error = "fcache-pool: two cache blocks map the same origin block (damaged metadata); run fcachectl check";
		return -EINVAL;
	}
	e = &pool->e[idx];
	e->oblock = le64_to_cpu(d->oblock);
	e->vol = d->vol;
	e->valid = valid;
	e->dirty = dirty;
	if (dirty)
		e->flags |= FC_E_PDIRTY;
	if (t != FC_NONE) {
		pool->twin[idx] = t;
		__set_bit(t, pool->twin_used);
		pool->nr_twins++;
		/* A write in flight at a power cut may have reached one copy. */
		if (!was_clean) {
			__set_bit(idx, pool->unsynced);
			pool->nr_unsynced++;
		}
	}
	fc_cache_insert_loaded(pool, idx);
	return 0;
}

/*
 * Ordered write-back: entry @idx's dirty data is of epoch @ep; the pool's
 * epoch goes past every loaded one (they wrap: compared to the first).
 */
static void load_epoch(struct fc_pool *pool, u32 idx, u32 ep)
{
	pool->ep[idx] = ep;
	if (!pool->ord_epoch_seen || !fc_epoch_before(ep, pool->epoch))
		pool->epoch = ep + 1;
	pool->ord_epoch_seen = true;
}

static int load_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p,
			bool was_clean, unsigned long *claimed, char **error)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;
	bool changed = false;

	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_disk_entry *d = &p->e[i];
		u8 valid = d->valid & pool->full_mask, dirty = d->dirty & valid;
		u32 idx = (u32)(first + i), t;
		bool warm = false;
		int r;

		if (!valid)
			continue;
		if (d->vol >= FC_MAX_VOLUMES || !pool->vol[d->vol].id) {
			changed = true;
			continue;
		}
		r = entry_blocks(pool, idx, d, dirty, claimed, &t, error);
		if (r)
			return r;
		/*
		 * Warm restart: a clean entry recorded warm is current (its
		 * block and its origin block changed in nothing since that
		 * commit, FC_FEAT_INCOMPAT_WARM); kept, and pwarm until a
		 * commit records it otherwise.  Else the flag is dropped by
		 * the first commit.
		 */
		if (d->flags & FC_ENTRY_WARM) {
			warm = pool->warm_trusted && !dirty;
			if (!warm)
				changed = true;
		}
		/*
		 * Crash rule: after an unclean shutdown only dirty data (and
		 * warm clean data) is trusted.  Recovery only reads and
		 * decides; the result is written by the first commit before
		 * any I/O, so a crash during recovery is just another crash
		 * (idempotent).
		 */
		if (!was_clean && valid != dirty && !warm && !keep_clean()) {
			valid = dirty;
			changed = true;
			if (!valid)
				continue;
		}
		if (t == FC_NONE && (d->flags & FC_ENTRY_MIRRORED) && dirty)
			changed = true;		/* its twin was on the missing leg */
		if (!fc_block_bdev(pool, idx)) {
			/*
			 * The entry's leg is missing (loaded degraded): its
			 * clean data is gone with it, its dirty data lives on
			 * in the twin, which takes the entry's place.  Only
			 * the dirty sub-blocks are valid there: a twin holds
			 * no others (after a clean shutdown valid may have
			 * more), as fc_rescue_entry() does at run time.
			 */
			changed = true;
			if (!dirty)
				continue;
			if (t == FC_NONE) {
				*error = "fcache-pool: dirty data had its only copy on the missing flash device; load the pool with both devices";
				return -ENODATA;
			}
			valid = dirty;
			idx = t;
			t = FC_NONE;
			fc_mark_page_dirty(pool, idx);
		}
		/* Ordered write-back: a shadow is dirty, or nothing (dropped). */
		if (pool->ord_feature && (d->flags & FC_ENTRY_SHADOW) && dirty != valid) {
			changed = true;
			if (!dirty)
				continue;
			valid = dirty;
		}
		r = insert_entry(pool, d, idx, t, valid, dirty, was_clean, error);
		if (r)
			return r;
		if (pool->ord_feature && dirty)
			load_epoch(pool, idx, le32_to_cpu(d->twin));
		if (warm) {
			__set_bit(idx, pool->pwarm);
			if (fc_warm_on(pool))
				__set_bit(idx, pool->warm);
			else
				changed = true;
			if (!was_clean)
				pool->warm_loaded++;
		}
	}
	if (changed)
		__set_bit(l, pool->page_dirty);
	return 0;
}

/*
 * Read both slots of metadata pages @l onward of @leg into md_buf, as many
 * pages as it holds (*@n), for load_pool() and scan_other_leg().
 */
static int read_page_pairs(struct fc_pool *pool, unsigned int leg, u64 l, unsigned int *n)
{
	*n = min_t(u64, pool->md_buf_pages / 2, pool->g.md_pages - l);
	return fc_md_io_leg(pool, leg, REQ_OP_READ, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
			 (sector_t)*n * 2 * FC_PAGE_SECTORS, pool->md_buf);
}

/*
 * Load every metadata page.  @max_seen: the highest seq found on the flash
 * so far (the superblocks'); raised by every leftover page.
 */
static int load_pool(struct fc_pool *pool, unsigned int leg, u64 *max_seen, char **error)
{
	bool was_clean = pool->sb_flags & FC_SB_CLEAN;
	unsigned long *claimed;
	u64 l;
	unsigned int i, n;
	int r = 0, slot;

	claimed = fc_mirrored(pool) ? bitmap_zalloc((unsigned int)pool->g.nr_blocks, GFP_KERNEL) :
		NULL;
	if (fc_mirrored(pool) && !claimed) {
		*error = "fcache-pool: out of memory for the cache entries";
		return -ENOMEM;
	}
	for (l = 0; l < pool->g.md_pages; l += n) {
		r = read_page_pairs(pool, leg, l, &n);
		if (r) {
			*error = "fcache-pool: cannot read the pool metadata (I/O error)";
			goto out;
		}
		for (i = 0; i < n; i++) {
			void *p;

			if (pick_slot(pool, l + i, fc_buf_page(pool, 2 * i),
				      fc_buf_page(pool, 2 * i + 1), &slot, max_seen)) {
				*error = "fcache-pool: a metadata page is damaged in both slots; run fcachectl check";
				r = -EINVAL;
				goto out;
			}
			if (slot)
				__set_bit(l + i, pool->page_slot);
			p = fc_buf_page(pool, 2 * i + slot);
			if (l + i == 0) {
				load_voltable(pool, p);
			} else {
				r = load_entries(pool, l + i, p, was_clean, claimed, error);
				if (r)
					goto out;
			}
		}
	}
out:
	bitmap_free(claimed);
	return r;
}

/*
 * A pair load reads the metadata of one leg only (@leg is the other one).
 * A commit cut short can have left a page on that other leg alone (its
 * copy on the loaded leg and both superblocks never landed): unless it is
 * seen here, the next commit reuses its seq without rewriting it, and it
 * looks committed on that leg from then on (trusted when the leg is loaded
 * alone).  So both slots of every page of the other leg are read too (one
 * more read pass of one leg's metadata at load, chunked as load_pool())
 * and every leftover found is handled as one on the loaded leg
 * (verify_slot()).  Nothing else is taken from them: the legs' committed
 * pages are the same.
 */
static int scan_other_leg(struct fc_pool *pool, unsigned int leg, u64 *max_seen, char **error)
{
	u64 l, q, before = pool->leftovers;
	unsigned int i, s, n;
	int r;

	for (l = 0; l < pool->g.md_pages; l += n) {
		r = read_page_pairs(pool, leg, l, &n);
		if (r) {
			*error = "fcache-pool: cannot read the metadata of the second flash device (I/O error)";
			return r;
		}
		for (i = 0; i < n; i++)
			for (s = 0; s < 2; s++)
				verify_slot(pool, l + i, s, fc_buf_page(pool, 2 * i + s), &q, max_seen);
	}
	if (pool->leftovers != before)
		DMINFO("mirrored pool: %llu leftover page slots on leg %u (rewritten by the first commit)",
		       pool->leftovers - before, leg);
	return 0;
}

/* What a leg's two superblock slots hold. */
struct leg_sb {
	void *buf;			/* both slots, 2 pages */
	struct fc_disk_superblock *sb;	/* the current one, NULL if none */
	int v[2];
	u64 q[2];
	bool blank;
	bool present;
	unsigned int slot;
};

/*
 * Did every page superblock @sb names land on leg @leg?  0 if so, else
 * the first missing page + 1; a negative errno if a read failed.  Reads
 * page pairs into buffer pages 4 and 5 (the superblocks use 0 to 3).
 */
static s64 sb_unproven(struct fc_pool *pool, unsigned int leg,
		       const struct fc_disk_superblock *sb)
{
	u32 i, n = fc_sb_list_len(sb);
	u64 md_pages = le64_to_cpu(sb->md_pages);
	void *p = fc_buf_page(pool, 4);
	int r;

	for (i = 0; i < n; i++) {
		u64 l = fc_sb_list_page(sb, i);

		/* A page past the metadata: fc_sb_check_geometry() refuses the superblock. */
		if (l >= md_pages)
			return 0;
		r = fc_md_io_leg(pool, leg, REQ_OP_READ, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
				 2 * FC_PAGE_SECTORS, p);
		if (r)
			return r;
		if (!fc_sb_page_landed(sb, l, p, fc_buf_page(pool, 5)))
			return l + 1;
	}
	return 0;
}

/*
 * A one-write commit's superblock counts only if every page it names
 * landed (include/fcache_format.h, "One-write commits"): else the power
 * went mid-commit, and the other slot, the commit before it, is current.
 */
static int prove_sb(struct fc_pool *pool, unsigned int leg, struct leg_sb *ls, char **error)
{
	unsigned int o = !ls->slot;
	struct fc_disk_superblock *other = (void *)((u8 *)ls->buf + o * FC_PAGE_SIZE);
	s64 miss = trust_unproven() ? 0 : sb_unproven(pool, leg, ls->sb);

	if (!miss)
		return 0;
	if (miss < 0) {
		*error = "fcache-pool: cannot read the pool metadata (I/O error)";
		return miss;
	}
	if (ls->v[o] || memcmp(other->hdr.uuid, ls->sb->hdr.uuid, 16) || ls->q[o] >= ls->q[!o] ||
	    sb_unproven(pool, leg, other)) {
		*error = "fcache-pool: the last commit did not complete and the superblock before it is not usable; run fcachectl check";
		return -EINVAL;
	}
	DMWARN("the last commit (seq %llu) did not complete: its superblock landed before metadata page %lld; loading the commit before it (seq %llu)",
	       ls->q[!o], miss - 1, ls->q[o]);
	ls->sb = other;
	ls->slot = o;
	return 0;
}

static int read_leg_sb(struct fc_pool *pool, unsigned int leg, struct leg_sb *ls, char **error)
{
	struct fc_disk_superblock *sb0, *sb1;
	int r;

	ls->present = true;
	r = fc_md_io_leg(pool, leg, REQ_OP_READ, 0, 2 * FC_PAGE_SECTORS, ls->buf);
	if (r) {
		*error = "fcache-pool: cannot read the flash device's first 8 KiB (I/O error)";
		return r;
	}
	sb0 = ls->buf;
	sb1 = (void *)((u8 *)ls->buf + FC_PAGE_SIZE);
	ls->v[0] = fc_page_verify(sb0, FC_SB_MAGIC, 0, NULL);
	ls->v[1] = fc_page_verify(sb1, FC_SB_MAGIC, 1, NULL);
	/*
	 * mkswap over a pool: slot 0 fails as a torn write would, and slot 1
	 * is the commit before the last one.  Loading it would serve what
	 * that commit recorded to a device now meant to be swap.
	 */
	if (fc_sb_swap_slot(sb0, sb1, ls->v[0], ls->v[1]) >= 0) {
		*error = "fcache-pool: the flash device is a swap area (mkswap's signature in its first 4 KiB): not loaded as a pool; see fcachectl check";
		return -EINVAL;
	}
	ls->blank = ls->v[0] == FC_ECHK_ZERO && ls->v[1] != 0;
	if (ls->blank)
		return 0;
	if (ls->v[0] && ls->v[1]) {
		if (ls->v[0] == FC_ECHK_MAGIC && ls->v[1] == FC_ECHK_MAGIC)
			*error = "fcache-pool: the flash device holds other data (no fcache superblock, first 4 KiB not zero); wipe it to format";
		else
			*error = "fcache-pool: the fcache superblock is damaged in both slots; run fcachectl check";
		return -EINVAL;
	}
	ls->q[0] = le64_to_cpu(sb0->hdr.seq);
	ls->q[1] = le64_to_cpu(sb1->hdr.seq);
	if (!ls->v[0] && !ls->v[1] && memcmp(sb0->hdr.uuid, sb1->hdr.uuid, 16))
		ls->sb = ls->q[0] >= ls->q[1] ? sb0 : sb1;
	else if (!ls->v[0] && (ls->v[1] || ls->q[0] >= ls->q[1]))
		ls->sb = sb0;
	else
		ls->sb = sb1;
	ls->slot = ls->sb == sb1;
	return prove_sb(pool, leg, ls, error);
}

static bool sb_mirrored(const struct fc_disk_superblock *sb)
{
	return le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_MIRROR;
}

static u32 sb_leg(const struct fc_disk_superblock *sb)
{
	return le32_to_cpu(sb->member_index);
}

/* A blank pool: format every leg. */
static int format_new(struct fc_pool *pool, u32 block_sectors, unsigned int nr_legs,
		      char **error)
{
	u64 sectors[FC_MAX_LEGS] = { 0, 0 };
	unsigned int i;
	int r;

	for (i = 0; i < nr_legs; i++) {
		if (!pool->leg[i].bdev) {
			*error = "fcache-pool: a new mirrored pool needs both flash devices (no 'mirror -')";
			return -EINVAL;
		}
		sectors[i] = bdev_nr_sectors(pool->leg[i].bdev);
	}
	if (fc_geometry_compute_legs(&pool->g, sectors, nr_legs, block_sectors)) {
		*error = "fcache-pool: the flash device is too small for this block size";
		return -EINVAL;
	}
	r = fc_cache_alloc(pool);
	if (r) {
		*error = "fcache-pool: out of memory for the cache entries";
		return r;
	}
	fc_cache_build_free(pool);
	r = format_pool(pool);
	if (r) {
		*error = "fcache-pool: formatting the flash device failed (I/O error)";
		return r;
	}
	DMINFO("formatted a new pool: %llu blocks of %u sectors%s",
	       pool->g.nr_blocks, block_sectors, nr_legs > 1 ? " on two mirrored devices" : "");
	return 0;
}

/*
 * A mirrored pool: put each present device on the leg its superblock
 * names, and check that the two belong together (docs/DESIGN.md,
 * "Two-device pool").  Returns the leg whose metadata is loaded.
 */
static int pick_legs(struct fc_pool *pool, struct leg_sb *ls, char **error)
{
	struct fc_disk_superblock *a, *b;
	struct block_device *bdev[FC_MAX_LEGS] = { NULL, NULL };
	struct leg_sb tmp[FC_MAX_LEGS];
	unsigned int i, m;

	for (i = 0; i < FC_MAX_LEGS; i++) {
		if (!ls[i].present)
			continue;
		if (ls[i].blank) {
			*error = "fcache-pool: one device is blank but the other holds a mirrored pool; a new device joins only by replacing a leg";
			return -EINVAL;
		}
		if (!sb_mirrored(ls[i].sb)) {
			*error = "fcache-pool: a device holds a one-device pool; remove 'mirror' from the table";
			return -EINVAL;
		}
	}
	/* Each device on the leg its superblock names: the table's order does not matter. */
	memset(tmp, 0, sizeof(tmp));
	for (i = 0; i < FC_MAX_LEGS; i++) {
		if (!ls[i].present)
			continue;
		m = sb_leg(ls[i].sb);
		if (bdev[m]) {
			*error = "fcache-pool: both devices say they are the same leg of a pool (a copy of one device?)";
			return -EINVAL;
		}
		bdev[m] = pool->leg[i].bdev;
		tmp[m] = ls[i];
	}
	for (i = 0; i < FC_MAX_LEGS; i++) {
		pool->leg[i].bdev = bdev[i];
		ls[i] = tmp[i];
	}
	if (!ls[0].present || !ls[1].present) {
		m = ls[0].present ? 1 : 0;	/* the missing leg */
		memcpy(pool->leg[m].member_uuid, ls[!m].sb->partner_uuid, 16);
		memcpy(pool->leg[!m].member_uuid, ls[!m].sb->member_uuid, 16);
		return !m;
	}
	a = ls[0].sb;
	b = ls[1].sb;
	if (memcmp(a->hdr.uuid, b->hdr.uuid, 16) || memcmp(a->partner_uuid, b->member_uuid, 16) ||
	    memcmp(b->partner_uuid, a->member_uuid, 16)) {
		*error = "fcache-pool: the two devices are not legs of the same pool (a foreign or replaced device)";
		return -EINVAL;
	}
	if ((le32_to_cpu(a->failed_legs) & 2) && (le32_to_cpu(b->failed_legs) & 1)) {
		*error = "fcache-pool: each device ran without the other (split brain); load one with mirror - degraded 1";
		return -EINVAL;
	}
	if (le32_to_cpu(a->failed_legs) & 2 || le32_to_cpu(b->failed_legs) & 1) {
		*error = "fcache-pool: one device is stale: the pool ran without it; load the other with mirror - degraded 1";
		return -EINVAL;
	}
	if (le64_to_cpu(a->events) != le64_to_cpu(b->events) ||
	    memcmp(a->leg_blocks, b->leg_blocks, sizeof(a->leg_blocks)) ||
	    memcmp(a->leg_sectors, b->leg_sectors, sizeof(a->leg_sectors)) ||
	    a->block_sectors != b->block_sectors) {
		*error = "fcache-pool: the two devices' superblocks disagree (events or geometry); run fcachectl check on each";
		return -EINVAL;
	}
	for (i = 0; i < FC_MAX_LEGS; i++)
		memcpy(pool->leg[i].member_uuid, ls[i].sb->member_uuid, 16);
	/* A crash between the two superblock writes: the later commit wins. */
	return le64_to_cpu(b->hdr.seq) > le64_to_cpu(a->hdr.seq);
}

/*
 * Each present leg's superblock against its device, the loaded leg's
 * (@auth) last: pool->g is its.  *@max_seen: the highest valid slot's seq.
 */
static int legs_geometry(struct fc_pool *pool, struct leg_sb *ls, unsigned int nr_legs,
			 unsigned int auth, u32 block_sectors, u64 *max_seen, char **error)
{
	struct fc_disk_superblock *sb = ls[auth].sb;
	const char *why;
	unsigned int i;

	for (i = 0; i < nr_legs; i++) {
		if (!ls[i].present)
			continue;
		if (fc_sb_check_geometry(ls[i].sb, bdev_nr_sectors(pool->leg[i].bdev),
					 &pool->g, &why)) {
			*error = (char *)why;
			return -EINVAL;
		}
		pool->leg[i].sb_slot = ls[i].slot;
		/* Every valid superblock slot counts as seen. */
		*max_seen = max(*max_seen, ls[i].v[0] ? 0 : ls[i].q[0]);
		*max_seen = max(*max_seen, ls[i].v[1] ? 0 : ls[i].q[1]);
	}
	/* The loaded leg's geometry last: pool->g is its. */
	if (fc_sb_check_geometry(sb, bdev_nr_sectors(pool->leg[auth].bdev), &pool->g, &why)) {
		*error = (char *)why;
		return -EINVAL;
	}
	if (pool->g.block_sectors != block_sectors) {
		*error = "fcache-pool: block_size differs from the pool's superblock";
		return -EINVAL;
	}
	return 0;
}

/* The pool's state from the loaded leg's superblock @sb. */
static void load_sb(struct fc_pool *pool, const struct fc_disk_superblock *sb)
{
	unsigned int i;

	memcpy(pool->uuid, sb->hdr.uuid, 16);
	pool->seq = le64_to_cpu(sb->hdr.seq);
	pool->md_seq = fc_sb_md_seq(sb);
	pool->sb_flags = le32_to_cpu(sb->sb_flags);
	pool->format_time = le64_to_cpu(sb->format_time);
	pool->needs_check = pool->sb_flags & FC_SB_NEEDS_CHECK;
	/* Warm restart: the bit stays; the flag is trusted on one device only. */
	if (le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_WARM) {
		pool->warm_feature = true;
		pool->warm_trusted = !sb_mirrored(sb);
	}
	/* Ordered write-back: epochs and shadows in the entries (one device). */
	if (le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_ORDERED)
		pool->ord_feature = !sb_mirrored(sb);
	pool->events = le64_to_cpu(sb->events);
	pool->failed_legs = le32_to_cpu(sb->failed_legs);
	for (i = 0; i < pool->g.nr_legs; i++) {
		if (pool->leg[i].bdev || (pool->failed_legs & (1u << i)))
			continue;
		/* Newly without this leg: recorded by the first commit. */
		pool->failed_legs |= 1u << i;
		pool->events++;
		DMWARN("mirrored pool loaded degraded: leg %u is missing", i);
	}
	if (fc_failed_before(pool->uuid, pool->seq)) {
		DMWARN("this pool failed earlier in this boot without recording it on the flash");
		pool->needs_check = true;
	}
}

/* A pool loaded: say so, read-only if it needs a check. */
static void report_loaded(struct fc_pool *pool)
{
	DMINFO("loaded pool: seq %llu, %s shutdown, %llu blocks used, %llu dirty, %llu leftover pages",
	       pool->md_seq, (pool->sb_flags & FC_SB_CLEAN) ? "clean" : "unclean",
	       pool->nr_used, pool->nr_dirty, pool->leftovers);
	if (pool->warm_loaded)
		DMINFO("warm restart: %llu clean blocks kept after the unclean shutdown",
		       pool->warm_loaded);
	if (pool->nr_shadows)
		DMINFO("ordered write-back: %llu older versions of blocks to write back first (epoch %u)",
		       pool->nr_shadows, pool->epoch);
	if (pool->nr_unsynced)
		DMINFO("mirrored pool: %llu dirty blocks to resync (their copies may differ after the unclean shutdown)",
		       pool->nr_unsynced);
	if (pool->needs_check) {
		/* As dm-cache: read-only until fcachectl check clears the flag. */
		DMWARN("the pool needs a check: loaded read-only; run fcachectl check --repair on its flash device");
		pool->md_mode = FC_MD_RO;
	}
}

/*
 * Read the superblocks: format blank devices, load a pool, or refuse.
 * @nr_legs: devices in the table (pool->leg[i].bdev, NULL for a missing
 * one).  Fills pool->g and every in-core structure (via fc_cache_alloc).
 */
int fc_meta_open(struct fc_pool *pool, u32 block_sectors, unsigned int nr_legs, char **error)
{
	struct leg_sb ls[FC_MAX_LEGS];
	struct fc_disk_superblock *sb;
	unsigned int i, auth = 0;
	u64 max_seen = 0;
	bool blank = true;
	int r;

	memset(ls, 0, sizeof(ls));
	pool->md_buf_pages = FC_MD_BUF_PAGES;
	pool->md_buf = vmalloc(FC_MD_BUF_PAGES * FC_PAGE_SIZE);
	pool->md_pg = kcalloc(FC_MD_BUF_PAGES, sizeof(u64), GFP_KERNEL);
	if (!pool->md_buf || !pool->md_pg) {
		*error = "fcache-pool: out of memory";
		return -ENOMEM;
	}
	/* The superblocks of leg i in md_buf pages 2i, 2i + 1. */
	for (i = 0; i < nr_legs; i++) {
		ls[i].buf = fc_buf_page(pool, 2 * i);
		if (!pool->leg[i].bdev)
			continue;
		r = read_leg_sb(pool, i, &ls[i], error);
		if (r)
			return r;
		blank &= ls[i].blank;
	}
	pool->g.nr_legs = nr_legs;
	if (blank) {
		r = format_new(pool, block_sectors, nr_legs, error);
		return r ?: fc_ord_index_build(pool);
	}
	if (nr_legs == 1 && sb_mirrored(ls[0].sb)) {
		*error = "fcache-pool: the flash device is one leg of a mirrored pool; add mirror <other device>, or mirror - degraded 1 to run without it";
		return -EINVAL;
	}
	if (nr_legs > 1) {
		r = pick_legs(pool, ls, error);
		if (r < 0)
			return r;
		auth = r;
	}
	sb = ls[auth].sb;
	r = legs_geometry(pool, ls, nr_legs, auth, block_sectors, &max_seen, error);
	if (r)
		return r;
	load_sb(pool, sb);
	max_seen = max(max_seen, pool->seq);

	r = fc_cache_alloc(pool);
	if (r) {
		*error = "fcache-pool: out of memory for the cache entries";
		return r;
	}
	r = load_pool(pool, auth, &max_seen, error);
	if (!r && fc_mirrored(pool) && pool->leg[!auth].bdev)
		r = scan_other_leg(pool, !auth, &max_seen, error);
	if (r)
		return r;
	fc_cache_build_free(pool);
	r = fc_ord_index_build(pool);
	if (r) {
		*error = "fcache-pool: out of memory for the dirty blocks' lists (ordered write-back, 8 bytes a cache block)";
		return r;
	}
	/* Dirty data with one copy while both legs serve (a replace cut short). */
	if (fc_redundant(pool))
		fc_join_twins(pool);
	/*
	 * The next commit moves past every seq on the flash, and rewrites
	 * every page that has a leftover on either leg (verify_slot() marked
	 * them) before its superblock can make that seq current.
	 */
	pool->seq = max_seen;
	/* Rewrite the volume table (dirty counts) with the first commit. */
	fc_mark_vt_dirty(pool);
	report_loaded(pool);
	return 0;
}
