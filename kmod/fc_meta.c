// SPDX-License-Identifier: GPL-2.0
/*
 * fc_meta: pool format, load/recovery and the metadata commit, following
 * the protocol in include/fcache_format.h:
 *   1. changed logical pages go to the slot not holding their current copy,
 *      stamped seq S + 1;
 *   2. the flash is flushed (this also makes completed data writes durable);
 *   3. the superblock goes to the slot not holding the current one, with FUA;
 *   4. only then are blocks freed by this commit reused (pending list) and
 *      PDIRTY dropped from entries this commit recorded clean.
 *
 * Locking: fc_commit() holds pool->commit_lock for the whole commit and
 * takes pool->lock only to serialise pages and to apply the result; no I/O
 * under pool->lock.  Loading runs in the pool constructor before the pool is
 * visible to anyone.
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

int fc_sync_io(struct fc_pool *pool, struct block_device *bdev, blk_opf_t opf,
	       sector_t sector, sector_t count, void *buf)
{
	struct dm_io_region where = { .bdev = bdev, .sector = sector, .count = count };
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = is_vmalloc_addr(buf) ? DM_IO_VMA : DM_IO_KMEM,
		.mem.ptr.vma = buf,
		.client = pool->io,
	};
	unsigned long err = 0;
	int r;

	r = fc_dm_io(&req, 1, &where, &err);
	if (!r && err)
		r = -EIO;
	return r;
}

/*
 * Fault injection for the test build only (make fi-module: -DFC_FAULT_INJECT).
 * Every metadata I/O (a page or superblock write, a flush of the flash, a
 * metadata read at load, a format write) counts in md_io_count; when
 * fault_md_io is set to N > 0, the N-th metadata I/O from then on fails with
 * -EIO without being issued.  The tests walk N over every I/O of a format,
 * a load, a commit and a writeback batch (docs/TESTING.md).
 */
#ifdef FC_FAULT_INJECT
static atomic_t fault_md_io = ATOMIC_INIT(0);
static atomic_long_t md_io_count = ATOMIC_LONG_INIT(0);

static int fault_md_io_set(const char *val, const struct kernel_param *kp)
{
	int n, r = kstrtoint(val, 0, &n);

	if (r)
		return r;
	atomic_set(&fault_md_io, n);
	return 0;
}

static int fault_md_io_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fault_md_io));
}

static const struct kernel_param_ops fault_md_io_ops = {
	.set = fault_md_io_set,
	.get = fault_md_io_get,
};
module_param_cb(fault_md_io, &fault_md_io_ops, NULL, 0644);
MODULE_PARM_DESC(fault_md_io, "test build: fail the N-th metadata I/O from now");

static int md_io_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&md_io_count));
}

static const struct kernel_param_ops md_io_count_ops = { .get = md_io_count_get };
module_param_cb(md_io_count, &md_io_count_ops, NULL, 0444);
MODULE_PARM_DESC(md_io_count, "test build: metadata I/Os issued so far");

static bool md_fault(void)
{
	atomic_long_inc(&md_io_count);
	return atomic_add_unless(&fault_md_io, -1, 0) && !atomic_read(&fault_md_io);
}

/*
 * A deliberate bug for the crash harness's negative control: a commit
 * skips its flush of the flash (step 2), so its superblock can land
 * before its pages and the data they map (tests/crash, docs/TESTING.md).
 */
static bool mutant_skip_commit_flush;
module_param(mutant_skip_commit_flush, bool, 0644);
MODULE_PARM_DESC(mutant_skip_commit_flush, "test build: commits skip their flush (a bug on purpose)");

static bool skip_commit_flush(void)
{
	return READ_ONCE(mutant_skip_commit_flush);
}
#else
static inline bool md_fault(void)
{
	return false;
}

static inline bool skip_commit_flush(void)
{
	return false;
}
#endif

/* Synchronous metadata I/O (fault-injection point). */
static int md_io(struct fc_pool *pool, blk_opf_t opf, sector_t sector, sector_t count,
		 void *buf)
{
	if (md_fault())
		return -EIO;
	return fc_sync_io(pool, pool->flash, opf, sector, count, buf);
}

static int flash_flush(struct fc_pool *pool)
{
	if (md_fault())
		return -EIO;
	return blkdev_issue_flush(pool->flash);
}

static void *buf_page(struct fc_pool *pool, unsigned int i)
{
	return (u8 *)pool->md_buf + (size_t)i * FC_PAGE_SIZE;
}

/* ---- serialisation (pool->lock held) ---- */

static void ser_voltable(struct fc_pool *pool, struct fc_disk_voltable *vt)
{
	unsigned int i;

	memset(vt, 0, sizeof(*vt));
	for (i = 0; i < FC_MAX_VOLUMES && i < FC_VT_SLOTS; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (!s->id)
			continue;
		vt->vol[i].id = cpu_to_le32(s->id);
		vt->vol[i].flags = cpu_to_le32(FC_VOL_IN_USE | (s->detached ? FC_VOL_DETACHED : 0));
		vt->vol[i].origin_sectors = cpu_to_le64(s->origin_sectors);
		vt->vol[i].dirty_blocks = cpu_to_le64(s->dirty);
		memcpy(vt->vol[i].label, s->label, FC_VOLUME_LABEL_LEN);
	}
}

static void ser_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_entry *e = &pool->e[first + i];
		struct fc_disk_entry *d = &p->e[i];

		if (!e->valid || (e->flags & FC_E_FREE))
			goto not_dirty;
		d->oblock = cpu_to_le64(e->oblock);
		d->vol = e->vol;
		d->valid = e->valid;
		d->dirty = e->dirty;
		if (e->dirty) {
			/* Reuse before commit: pinned until recorded clean. */
			e->flags |= FC_E_PDIRTY;
			e->flags &= ~FC_E_SER_CLEAN;
			continue;
		}
not_dirty:
		if (e->flags & FC_E_PDIRTY)
			e->flags |= FC_E_SER_CLEAN;
	}
}

/* After a successful commit: entries recorded clean lose PDIRTY. */
static void apply_clean(struct fc_pool *pool, u64 l)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;

	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_entry *e = &pool->e[first + i];

		if (e->flags & FC_E_SER_CLEAN)
			e->flags &= ~(FC_E_PDIRTY | FC_E_SER_CLEAN);
	}
}

void fc_mark_page_dirty(struct fc_pool *pool, u32 eidx)
{
	__set_bit(1 + eidx / FC_ENTRIES_PER_PAGE, pool->page_dirty);
}

void fc_mark_vt_dirty(struct fc_pool *pool)
{
	__set_bit(0, pool->page_dirty);
}

static void build_sb(struct fc_pool *pool, struct fc_disk_superblock *sb, u32 flags)
{
	memset(sb, 0, FC_PAGE_SIZE);
	sb->block_sectors = cpu_to_le32(pool->g.block_sectors);
	sb->subblock_sectors = cpu_to_le32(pool->g.subblock_sectors);
	sb->nr_blocks = cpu_to_le64(pool->g.nr_blocks);
	sb->data_start = cpu_to_le64(pool->g.data_start);
	sb->md_pages = cpu_to_le64(pool->g.md_pages);
	sb->entries_per_page = cpu_to_le32(FC_ENTRIES_PER_PAGE);
	sb->max_volumes = cpu_to_le32(FC_MAX_VOLUMES);
	sb->flash_sectors = cpu_to_le64(pool->g.flash_sectors);
	sb->sb_flags = cpu_to_le32(flags);
	sb->incompat_features = cpu_to_le32(FC_FEAT_INCOMPAT_MDSEQ | FC_FEAT_INCOMPAT_DETACH);
	sb->format_time = cpu_to_le64(pool->format_time);
}

/*
 * Superblock @seq, trusting pages up to @md_seq (equal to @seq after a
 * complete commit, the last complete one's after a failed page batch:
 * include/fcache_format.h, "Leftovers"), into the slot that does NOT hold
 * the current superblock: a torn write must leave the current one intact.
 * (Seqs can jump past leftovers at load, so @seq % 2 is not that slot.)
 */
static int write_sb_slot(struct fc_pool *pool, unsigned int slot, u64 seq, u64 md_seq,
			 u32 flags)
{
	struct fc_disk_superblock *sb = buf_page(pool, 0);

	build_sb(pool, sb, flags);
	sb->md_seq = cpu_to_le64(md_seq);
	fc_page_seal(sb, FC_SB_MAGIC, slot, seq, pool->uuid);
	return md_io(pool, REQ_OP_WRITE | REQ_FUA | REQ_SYNC, slot * FC_PAGE_SECTORS,
		     FC_PAGE_SECTORS, sb);
}

static int write_sb(struct fc_pool *pool, u64 seq, u64 md_seq, u32 flags)
{
	unsigned int slot = !pool->sb_slot;
	int r = write_sb_slot(pool, slot, seq, md_seq, flags);

	if (!r)
		pool->sb_slot = slot;
	return r;
}

/*
 * Metadata I/O failed: metadata mode rw -> ro.  The in-core state now
 * differs from the flash (md_lost): from here on nothing is recorded, so
 * nothing may change what the flash or the origin holds: writes, discards
 * and flushes fail, writeback stops (docs/DESIGN.md, "Metadata modes").
 * The caller records needs_check on the flash if it can (ro), or goes to
 * fail if it cannot.
 */
void fc_meta_error(struct fc_pool *pool, int err)
{
	atomic64_inc(&pool->metadata_errors);
	WRITE_ONCE(pool->md_lost, true);
	pool->needs_check = true;
	if (pool->md_mode == FC_MD_FAIL)
		return;
	DMERR_LIMIT("metadata write failed (%d): pool is read-only, run fcachectl check", err);
	WRITE_ONCE(pool->md_mode, FC_MD_RO);
}

/* Write one batch of serialised pages (async, waits for all). */
struct batch_ctx {
	atomic_t count;
	int err;
	struct completion done;
};

static void batch_endio(unsigned long error, void *context)
{
	struct batch_ctx *c = context;

	if (error)
		c->err = -EIO;
	if (atomic_dec_and_test(&c->count))
		complete(&c->done);
}

static int write_pages(struct fc_pool *pool, const u64 *pg, unsigned int n, u64 seq)
{
	struct batch_ctx c;
	unsigned int i;

	atomic_set(&c.count, n + 1);
	c.err = 0;
	init_completion(&c.done);
	for (i = 0; i < n; i++) {
		unsigned int s = !test_bit(pg[i], pool->page_slot);
		u64 nr = fc_md_page_nr(pg[i], s);
		void *p = buf_page(pool, i);
		struct dm_io_region where = {
			.bdev = pool->flash, .sector = nr * FC_PAGE_SECTORS,
			.count = FC_PAGE_SECTORS,
		};
		struct dm_io_request req = {
			.bi_opf = REQ_OP_WRITE | REQ_SYNC,
			.mem.type = DM_IO_VMA, .mem.ptr.vma = p,
			.notify.fn = batch_endio, .notify.context = &c,
			.client = pool->io,
		};

		fc_page_seal(p, pg[i] ? FC_ME_MAGIC : FC_VT_MAGIC, nr, seq, pool->uuid);
		if (md_fault() || fc_dm_io(&req, 1, &where, NULL))
			batch_endio(1, &c);
	}
	batch_endio(0, &c);
	wait_for_completion_io(&c.done);
	return c.err;
}

/*
 * Pools that went to fail (needs_check could not be written anywhere on
 * their flash), remembered by uuid while the module stays loaded, so a
 * reload in this boot still comes up read-only instead of silently rw.
 * @seq: the highest superblock seq on the flash at the failure; a load that
 * finds a higher one sees a superblock written since (fcachectl check
 * --clear-needs-check) and the memory no longer applies.  Across a reboot
 * nothing remembers: then the flash holds the last committed state, which
 * every completed flush is part of, since nothing is acknowledged after
 * the failure (docs/DESIGN.md, "Metadata modes").
 */
#define FC_FAILED_POOLS 16
static struct {
	u8 uuid[16];
	u64 seq;
} fc_failed[FC_FAILED_POOLS];
static unsigned int fc_failed_next;
static DEFINE_SPINLOCK(fc_failed_lock);

static void remember_failed(struct fc_pool *pool)
{
	unsigned int i;

	spin_lock(&fc_failed_lock);
	for (i = 0; i < FC_FAILED_POOLS; i++)
		if (!memcmp(fc_failed[i].uuid, pool->uuid, 16))
			break;
	if (i == FC_FAILED_POOLS)
		i = fc_failed_next++ % FC_FAILED_POOLS;
	memcpy(fc_failed[i].uuid, pool->uuid, 16);
	fc_failed[i].seq = pool->seq;
	spin_unlock(&fc_failed_lock);
}

static bool failed_before(const u8 *uuid, u64 sb_seq)
{
	bool r = false;
	unsigned int i;

	spin_lock(&fc_failed_lock);
	for (i = 0; i < FC_FAILED_POOLS; i++)
		if (!memcmp(fc_failed[i].uuid, uuid, 16) && sb_seq <= fc_failed[i].seq)
			r = true;
	spin_unlock(&fc_failed_lock);
	return r;
}

/*
 * The superblock write of commit @seq failed: record needs_check in a
 * leftover page instead (include/fcache_format.h): the volume table's
 * slot that does not hold its current copy, stamped @seq > md_seq with
 * FC_HDR_NEEDS_CHECK.  Being a leftover, its content is never used.
 */
static int write_needs_check_page(struct fc_pool *pool, u64 seq)
{
	unsigned int s = !test_bit(0, pool->page_slot);
	u64 nr = fc_md_page_nr(0, s);
	void *p = buf_page(pool, 0);

	spin_lock_irq(&pool->lock);
	ser_voltable(pool, p);
	spin_unlock_irq(&pool->lock);
	fc_page_seal_flags(p, FC_VT_MAGIC, nr, seq, pool->uuid, FC_HDR_NEEDS_CHECK);
	if (md_io(pool, REQ_OP_WRITE | REQ_FUA | REQ_SYNC, nr * FC_PAGE_SECTORS,
		  FC_PAGE_SECTORS, p))
		return -EIO;
	return 0;
}

/* A commit that succeeded (commit_lock held): the "stats" message's figures. */
static void commit_stats(struct fc_pool *pool, u64 pages, u64 ns)
{
	WRITE_ONCE(pool->st_commits, pool->st_commits + 1);
	WRITE_ONCE(pool->st_commit_pages, pool->st_commit_pages + pages);
	WRITE_ONCE(pool->st_commit_ns, pool->st_commit_ns + ns);
	if (ns > pool->st_commit_max_ns)
		WRITE_ONCE(pool->st_commit_max_ns, ns);
}

/*
 * One commit.  @clean: record a clean shutdown (last put of the pool).
 * Returns 0 or a negative errno (then the pool is ro or fail).
 */
int fc_commit(struct fc_pool *pool, bool clean)
{
	u64 *pg = pool->md_pg;
	unsigned long *written;
	u64 seq, l = 0, t0, pages = 0;
	unsigned int n;
	u32 flags;
	bool any = false;
	int r = 0;

	mutex_lock(&pool->commit_lock);
	t0 = ktime_get_ns();
	if (pool->md_mode != FC_MD_RW) {
		/*
		 * Nothing can be recorded any more.  If a commit failed in
		 * this activation, the flash may record a state other than
		 * the one acknowledged: every flush fails.  A pool loaded
		 * read-only (needs_check) holds exactly what its flash
		 * records, and writes fail: a flush only flushes.
		 */
		r = READ_ONCE(pool->md_lost) ? -EIO : flash_flush(pool);
		mutex_unlock(&pool->commit_lock);
		return r;
	}
	seq = pool->seq + 1;
	/* Pages written by this commit, to flip their slots after (no allocation). */
	written = pool->page_written;
	bitmap_zero(written, pool->g.md_pages);
	for (;;) {
		n = 0;
		spin_lock_irq(&pool->lock);
		while (n < pool->md_buf_pages) {
			l = find_next_bit(pool->page_dirty, pool->g.md_pages, l);
			if (l >= pool->g.md_pages)
				break;
			__clear_bit(l, pool->page_dirty);
			__set_bit(l, written);
			if (l)
				ser_entries(pool, l, buf_page(pool, n));
			else
				ser_voltable(pool, buf_page(pool, n));
			pg[n++] = l++;
		}
		/*
		 * A commit serialised in several batches is not one snapshot:
		 * an entry released after its page went out and a new entry
		 * for the same origin block serialised in a later batch would
		 * both map it on the flash.  New entries are refused (I/O goes
		 * around the cache) until the last batch is serialised.
		 */
		pool->ser_window = n == pool->md_buf_pages;
		spin_unlock_irq(&pool->lock);
		if (!n)
			break;
		any = true;
		pages += n;
		r = write_pages(pool, pg, n, seq);
		if (r)
			goto fail_pages;
	}
	/* Step 2: flush the flash: pages and every completed data write. */
	r = skip_commit_flush() ? 0 : flash_flush(pool);
	if (r)
		goto fail_pages;
	flags = (clean ? FC_SB_CLEAN : 0) | (pool->needs_check ? FC_SB_NEEDS_CHECK : 0);
	if (!any && flags == pool->sb_flags)
		goto out;	/* nothing changed: the flush was all we needed */
	/* Step 3: the superblock makes seq S + 1 current. */
	r = write_sb(pool, seq, seq, flags);
	if (r)
		goto fail_sb;
	pool->seq = seq;
	pool->md_seq = seq;
	pool->sb_flags = flags;
	/* Step 4: flip slots, drop PDIRTY of entries recorded clean, reuse frees. */
	spin_lock_irq(&pool->lock);
	for (l = find_first_bit(written, pool->g.md_pages); l < pool->g.md_pages;
	     l = find_next_bit(written, pool->g.md_pages, l + 1)) {
		__change_bit(l, pool->page_slot);
		if (l)
			apply_clean(pool, l);
	}
	fc_release_pending(pool);
	spin_unlock_irq(&pool->lock);
out:
	commit_stats(pool, pages, ktime_get_ns() - t0);
	mutex_unlock(&pool->commit_lock);
	return 0;

fail_sb:
	fc_meta_error(pool, r);
	goto record;
fail_pages:
	spin_lock_irq(&pool->lock);
	pool->ser_window = false;
	spin_unlock_irq(&pool->lock);
	fc_meta_error(pool, r);
	/*
	 * Never publish a seq whose pages did not all land: superblock S + 1
	 * records needs_check but keeps md_seq, so the pages of this commit
	 * that did land are leftovers (never trusted, rewritten by the first
	 * commit after the next load).
	 */
	if (!write_sb(pool, seq, pool->md_seq, FC_SB_NEEDS_CHECK)) {
		pool->seq = seq;
		pool->sb_flags = FC_SB_NEEDS_CHECK;
		goto out_err;
	}
record:
	/*
	 * No superblock can be written: record needs_check in a leftover
	 * page, else nothing on the flash says so (fail).
	 */
	if (write_needs_check_page(pool, seq)) {
		DMERR("cannot record needs_check on the flash: no metadata write succeeds; the pool loads read-only until the module is unloaded");
		WRITE_ONCE(pool->md_mode, FC_MD_FAIL);
		remember_failed(pool);
	}
out_err:
	mutex_unlock(&pool->commit_lock);
	return r;
}

/* ---- format ---- */

static int format_pool(struct fc_pool *pool)
{
	u64 l;
	unsigned int i, n;
	int r;

	get_random_bytes(pool->uuid, sizeof(pool->uuid));
	pool->format_time = ktime_get_real_seconds();
	/* Every logical page: slot 0 an empty page of seq 1, slot 1 zeroed. */
	for (l = 0; l < pool->g.md_pages; l += n) {
		n = min_t(u64, pool->md_buf_pages / 2, pool->g.md_pages - l);
		memset(pool->md_buf, 0, (size_t)n * 2 * FC_PAGE_SIZE);
		for (i = 0; i < n; i++) {
			void *p = buf_page(pool, 2 * i);

			if (l + i == 0)
				fc_page_seal(p, FC_VT_MAGIC, fc_md_page_nr(0, 0), 1, pool->uuid);
			else
				fc_page_seal(p, FC_ME_MAGIC, fc_md_page_nr(l + i, 0), 1,
					     pool->uuid);
		}
		r = md_io(pool, REQ_OP_WRITE, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
			  (sector_t)n * 2 * FC_PAGE_SECTORS, pool->md_buf);
		if (r)
			return r;
	}
	r = flash_flush(pool);
	if (r)
		return r;
	pool->sb_flags = 0;
	/* seq 1 in both slots */
	r = write_sb_slot(pool, 0, 1, 1, 0);
	if (!r)
		r = write_sb_slot(pool, 1, 1, 1, 0);
	pool->sb_slot = 1;
	pool->seq = 1;
	pool->md_seq = 1;
	bitmap_zero(pool->page_slot, pool->g.md_pages);
	return r;
}

/* ---- load ---- */

/*
 * Choose the slot of logical page @l: the valid one with the highest seq
 * <= md_seq.  A valid slot above md_seq is a leftover of a commit that
 * never completed: never used, and marked for rewriting by the first commit
 * (include/fcache_format.h, "Leftovers").
 */
static int pick_slot(struct fc_pool *pool, u64 l, void *s0, void *s1, int *slot,
		     u64 *max_seen)
{
	u32 magic = l ? FC_ME_MAGIC : FC_VT_MAGIC;
	void *p[2] = { s0, s1 };
	bool ok[2];
	u64 q[2];
	int v[2], i;

	for (i = 0; i < 2; i++) {
		const struct fc_disk_header *h = p[i];

		v[i] = fc_page_verify(p[i], magic, fc_md_page_nr(l, i), pool->uuid);
		q[i] = le64_to_cpu(h->seq);
		ok[i] = !v[i] && q[i] <= pool->md_seq;
		if (v[i] || q[i] <= pool->md_seq)
			continue;
		pool->leftovers++;
		__set_bit(l, pool->page_dirty);
		*max_seen = max(*max_seen, q[i]);
		if (le32_to_cpu(h->flags) & FC_HDR_NEEDS_CHECK) {
			DMWARN("a failed commit recorded needs_check in metadata page %llu", l);
			pool->needs_check = true;
		}
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
		memcpy(s->label, vt->vol[i].label, FC_VOLUME_LABEL_LEN);
		s->label[FC_VOLUME_LABEL_LEN] = 0;
	}
}

static int load_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p,
			bool was_clean)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;
	bool changed = false;

	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_disk_entry *d = &p->e[i];
		struct fc_entry *e = &pool->e[first + i], *dup;
		u8 valid = d->valid & pool->full_mask, dirty = d->dirty & valid;

		if (!valid)
			continue;
		if (d->vol >= FC_MAX_VOLUMES || !pool->vol[d->vol].id) {
			changed = true;
			continue;
		}
		/*
		 * Crash rule: after an unclean shutdown only dirty data is
		 * trusted.  Recovery only reads and decides; the result is
		 * written by the first commit before any I/O, so a crash
		 * during recovery is just another crash (idempotent).
		 */
		if (!was_clean && valid != dirty) {
			valid = dirty;
			changed = true;
			if (!valid)
				continue;
		}
		/*
		 * Two cache blocks mapping one origin block: every commit is
		 * one snapshot of a state that never has two, so this is
		 * damage, and no rule can tell which copy is the newer one.
		 * Refuse the pool rather than pick one.
		 */
		dup = fc_lookup(pool, d->vol, le64_to_cpu(d->oblock));
		if (dup) {
			DMERR("cache blocks %llu and %u both map volume slot %u block %llu",
			      first + i, fc_eidx(pool, dup), d->vol, le64_to_cpu(d->oblock));
			return -EINVAL;
		}
		e->oblock = le64_to_cpu(d->oblock);
		e->vol = d->vol;
		e->valid = valid;
		e->dirty = dirty;
		if (dirty)
			e->flags |= FC_E_PDIRTY;
		fc_cache_insert_loaded(pool, first + i);
	}
	if (changed)
		__set_bit(l, pool->page_dirty);
	return 0;
}

/*
 * Load every metadata page.  @max_seen: the highest seq found on the flash
 * so far (the superblocks'); raised by every leftover page.
 */
static int load_pool(struct fc_pool *pool, u64 *max_seen, char **error)
{
	bool was_clean = pool->sb_flags & FC_SB_CLEAN;
	u64 l;
	unsigned int i, n;
	int r, slot;

	for (l = 0; l < pool->g.md_pages; l += n) {
		n = min_t(u64, pool->md_buf_pages / 2, pool->g.md_pages - l);
		r = md_io(pool, REQ_OP_READ, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
			  (sector_t)n * 2 * FC_PAGE_SECTORS, pool->md_buf);
		if (r) {
			*error = "fcache-pool: cannot read the pool metadata (I/O error)";
			return r;
		}
		for (i = 0; i < n; i++) {
			void *p;

			if (pick_slot(pool, l + i, buf_page(pool, 2 * i),
				      buf_page(pool, 2 * i + 1), &slot, max_seen)) {
				*error = "fcache-pool: a metadata page is damaged in both slots; run fcachectl check";
				return -EINVAL;
			}
			if (slot)
				__set_bit(l + i, pool->page_slot);
			p = buf_page(pool, 2 * i + slot);
			if (l + i == 0) {
				load_voltable(pool, p);
			} else if (load_entries(pool, l + i, p, was_clean)) {
				*error = "fcache-pool: two cache blocks map the same origin block (damaged metadata); run fcachectl check";
				return -EINVAL;
			}
		}
	}
	return 0;
}

/*
 * Read the superblock: format a blank device, load a pool, or refuse.
 * Fills pool->g and every in-core structure (via fc_cache_alloc).
 */
int fc_meta_open(struct fc_pool *pool, u32 block_sectors, sector_t dev_sectors,
		 char **error)
{
	struct fc_disk_superblock *sb0, *sb1, *sb;
	const char *why;
	int v0, v1, r;
	u64 q0, q1, max_seen;
	bool blank;

	pool->md_buf_pages = FC_MD_BUF_PAGES;
	pool->md_buf = vmalloc(FC_MD_BUF_PAGES * FC_PAGE_SIZE);
	pool->md_pg = kcalloc(FC_MD_BUF_PAGES, sizeof(u64), GFP_KERNEL);
	if (!pool->md_buf || !pool->md_pg) {
		*error = "fcache-pool: out of memory";
		return -ENOMEM;
	}
	sb0 = buf_page(pool, 0);
	sb1 = buf_page(pool, 1);
	r = md_io(pool, REQ_OP_READ, 0, 2 * FC_PAGE_SECTORS, pool->md_buf);
	if (r) {
		*error = "fcache-pool: cannot read the flash device's first 8 KiB (I/O error)";
		return r;
	}
	v0 = fc_page_verify(sb0, FC_SB_MAGIC, 0, NULL);
	v1 = fc_page_verify(sb1, FC_SB_MAGIC, 1, NULL);
	blank = v0 == FC_ECHK_ZERO && v1 != 0;

	if (blank) {
		if (fc_geometry_compute(&pool->g, dev_sectors, block_sectors)) {
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
		DMINFO("formatted a new pool: %llu blocks of %u sectors",
		       pool->g.nr_blocks, block_sectors);
		return 0;
	}

	if (v0 && v1) {
		if (v0 == FC_ECHK_MAGIC && v1 == FC_ECHK_MAGIC)
			*error = "fcache-pool: the flash device holds other data (no fcache superblock, first 4 KiB not zero); wipe it to format";
		else
			*error = "fcache-pool: the fcache superblock is damaged in both slots; run fcachectl check";
		return -EINVAL;
	}
	q0 = le64_to_cpu(sb0->hdr.seq);
	q1 = le64_to_cpu(sb1->hdr.seq);
	if (!v0 && !v1 && memcmp(sb0->hdr.uuid, sb1->hdr.uuid, 16))
		sb = q0 >= q1 ? sb0 : sb1;
	else if (!v0 && (v1 || q0 >= q1))
		sb = sb0;
	else
		sb = sb1;
	pool->sb_slot = sb == sb1;

	if (fc_sb_check_geometry(sb, dev_sectors, &pool->g, &why)) {
		*error = (char *)why;
		return -EINVAL;
	}
	if (pool->g.block_sectors != block_sectors) {
		*error = "fcache-pool: block_size differs from the pool's superblock";
		return -EINVAL;
	}
	memcpy(pool->uuid, sb->hdr.uuid, 16);
	pool->seq = le64_to_cpu(sb->hdr.seq);
	pool->md_seq = fc_sb_md_seq(sb);
	pool->sb_flags = le32_to_cpu(sb->sb_flags);
	pool->format_time = le64_to_cpu(sb->format_time);
	pool->needs_check = pool->sb_flags & FC_SB_NEEDS_CHECK;
	if (failed_before(pool->uuid, pool->seq)) {
		DMWARN("this pool failed earlier in this boot without recording it on the flash");
		pool->needs_check = true;
	}
	/* The other superblock slot, if valid, counts as seen too. */
	max_seen = max(pool->seq, v0 ? 0 : q0);
	max_seen = max(max_seen, v1 ? 0 : q1);

	r = fc_cache_alloc(pool);
	if (r) {
		*error = "fcache-pool: out of memory for the cache entries";
		return r;
	}
	r = load_pool(pool, &max_seen, error);
	if (r)
		return r;
	fc_cache_build_free(pool);
	/*
	 * The next commit moves past every seq on the flash, and rewrites
	 * every page that has a leftover (pick_slot() marked them) before its
	 * superblock can make that seq current.
	 */
	pool->seq = max_seen;
	/* Rewrite the volume table (dirty counts) with the first commit. */
	fc_mark_vt_dirty(pool);
	DMINFO("loaded pool: seq %llu, %s shutdown, %llu blocks used, %llu dirty, %llu leftover pages",
	       pool->md_seq, (pool->sb_flags & FC_SB_CLEAN) ? "clean" : "unclean",
	       pool->nr_used, pool->nr_dirty, pool->leftovers);
	if (pool->needs_check) {
		/* As dm-cache: read-only until fcachectl check clears the flag. */
		DMWARN("the pool needs a check: loaded read-only; run fcachectl check --clear-needs-check on its flash device");
		pool->md_mode = FC_MD_RO;
	}
	return 0;
}
