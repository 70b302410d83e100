// SPDX-License-Identifier: GPL-2.0
/*
 * fc_commit: the metadata commit, following the protocol in
 * include/fcache_format.h:
 *   1. changed logical pages go to the slot not holding their current copy,
 *      stamped seq S + 1;
 *   2. the flash is flushed (this also makes completed data writes durable);
 *   3. the superblock goes to the slot not holding the current one, with FUA;
 *   4. only then are blocks freed by this commit reused (pending list) and
 *      PDIRTY dropped from entries this commit recorded clean.
 * Also the metadata modes on a failed write (rw -> ro -> fail) and the
 * pools remembered as failed while the module stays loaded.
 *
 * Locking: fc_commit() holds pool->commit_lock for the whole commit and
 * takes pool->lock only to serialise pages and to apply the result; no I/O
 * under pool->lock.
 */
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>

#include "fc_core.h"

#ifdef FC_FAULT_INJECT
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
static inline bool skip_commit_flush(void)
{
	return false;
}
#endif

/*
 * Metadata I/O failed: metadata mode rw -> ro.  The in-core state now
 * differs from the flash (md_lost): from here on nothing is recorded, and
 * the next load replays the flash's last committed state.  The volumes
 * keep serving what that state cannot undo (docs/DESIGN.md, "Metadata
 * modes"): reads; writes, to the origin and in place to the flash block
 * the state may name (ro_write() in fc_decide.c), except to blocks
 * released while committed dirty (unwritable_blocks); no discard.  The
 * writeback worker writes the dirty data back (marked clean in core
 * only), and a flush succeeds once its volume has none left
 * (fc_ro_flush(), fc_commit_work()).  The caller records needs_check on
 * the flash if it can (ro), or goes to fail if it cannot.
 */
void fc_meta_error(struct fc_pool *pool, int err)
{
	atomic64_inc(&pool->metadata_errors);
	WRITE_ONCE(pool->md_lost, true);
	pool->needs_check = true;
	if (pool->md_mode == FC_MD_FAIL)
		return;
	DMERR_LIMIT("metadata write failed (%d): metadata is read-only until fcachectl check --repair; the volumes keep serving reads and writes, except writes to the blocks the status counts as unwritable_blocks; flushes fail until the pool has written its %llu dirty blocks back to the origins",
		    err, READ_ONCE(pool->nr_dirty));
	WRITE_ONCE(pool->md_mode, FC_MD_RO);
}

/*
 * Pools that went to fail (needs_check could not be written anywhere on
 * their flash), remembered by uuid while the module stays loaded, so a
 * reload in this boot still comes up read-only instead of silently rw.
 * @seq: the highest superblock seq on the flash at the failure; a load that
 * finds a higher one sees a superblock written since (fcachectl check
 * --repair) and the memory no longer applies.  Across a reboot
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

bool fc_failed_before(const u8 *uuid, u64 sb_seq)
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
	void *p = fc_buf_page(pool, 0);

	spin_lock_irq(&pool->lock);
	fc_ser_voltable(pool, p);
	spin_unlock_irq(&pool->lock);
	fc_page_seal_flags(p, FC_VT_MAGIC, nr, seq, pool->uuid, FC_HDR_NEEDS_CHECK);
	if (fc_md_write_all(pool, REQ_OP_WRITE | REQ_FUA | REQ_SYNC, nr * FC_PAGE_SECTORS,
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
 * Read-only metadata: a REQ_PREFLUSH (fc_commit_work(), which also asks
 * that the flush's volume have no dirty data left if a commit failed).
 * The flash holds the last committed state and, in place, every write
 * since (ro_write()); flushing it makes those durable, unless a PDIRTY
 * sub-block was dropped since the last commit that succeeded began: then
 * the origin may hold data newer than the block the next load replays
 * over it, and no flush succeeds until fcachectl check --repair.
 */
int fc_ro_flush(struct fc_pool *pool)
{
	u64 drops;
	int r;

	mutex_lock(&pool->commit_lock);
	spin_lock_irq(&pool->lock);
	drops = pool->pdirty_drops;
	spin_unlock_irq(&pool->lock);
	r = drops != pool->drops_committed ? -EIO : fc_flash_flush(pool);
	mutex_unlock(&pool->commit_lock);
	return r;
}

/* The flash holds every volume flash write counted up to @fw (a flush covered them). */
static void flash_synced(struct fc_pool *pool, u64 fw)
{
	spin_lock_irq(&pool->lock);
	fc_flash_synced_locked(pool, fw);
	spin_unlock_irq(&pool->lock);
}

/*
 * After a successful commit: entries recorded clean lose PDIRTY, those
 * recorded not warm lose pwarm.  In a
 * mirrored pool such an entry, still clean and idle, gives its twin back:
 * the flash no longer refers to it, and no write to it is in flight (the
 * next dirty write takes a twin again).
 */
static void apply_clean(struct fc_pool *pool, u64 l)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;

	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_entry *e = &pool->e[first + i];

		/* recorded not warm: its data and origin may change again */
		if (__test_and_clear_bit(first + i, pool->ser_unwarm))
			__clear_bit(first + i, pool->pwarm);
		if (!(e->flags & FC_E_SER_CLEAN))
			continue;
		e->flags &= ~(FC_E_PDIRTY | FC_E_SER_CLEAN);
		if (!e->dirty && fc_entry_idle(e) && fc_twin_of(pool, first + i) != FC_NONE)
			fc_drop_twin(pool, e);
	}
}

static int commit_sb(struct fc_pool *pool, u64 *seq, u32 flags, bool sb_flush, u64 fw);

/* Superblock @seq, recording @flags, landed with every page it trusts. */
static void commit_current(struct fc_pool *pool, u64 seq, u32 flags)
{
	pool->seq = seq;
	pool->md_seq = seq;
	pool->sb_flags = flags;
}

/*
 * Step 1: every marked page, serialised under pool->lock a buffer at a
 * time, to the slot not holding its current copy (@written: the pages
 * written).  *@gen: the metadata generation this commit records; *@pages,
 * *@any: what it wrote.  @flush: the pages carry the commit's flush
 * (fc_write_pages(): each batch's first page on each leg, and REQ_FUA on
 * every page).  0 or the error of a page batch.
 */
static int commit_pages(struct fc_pool *pool, unsigned long *written, u64 seq, u64 *gen,
			u64 *pages, bool *any, bool flush, const u32 *sb_flags, bool *onewrote)
{
	u64 *pg = pool->md_pg;
	u64 l = 0;
	unsigned int n;
	bool first = true;
	int r;

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
				fc_ser_entries(pool, l, fc_buf_page(pool, n));
			else
				fc_ser_voltable(pool, fc_buf_page(pool, n));
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
		/*
		 * Every change counted by now is in this commit: its page
		 * was serialised here or, still marked, lies above the scan
		 * and a later batch takes it.  Not so for a change made
		 * after this batch (its page may lie below the scan).
		 */
		if (first)
			*gen = pool->md_gen;
		first = false;
		spin_unlock_irq(&pool->lock);
		if (!n)
			break;
		/*
		 * The whole commit in the first batch, one leg in service
		 * (@sb_flags given): pages and superblock in one round trip.
		 */
		if (sb_flags && *pages == 0 && n < pool->md_buf_pages && n <= FC_SB_LIST_MAX) {
			*onewrote = true;
			*any = true;
			*pages = n;
			return fc_write_commit(pool, pg, n, seq, *sb_flags);
		}
		r = fc_write_pages(pool, pg, n, seq, flush);
		if (r)
			return r;
		*any = true;
		*pages += n;
	}
	return 0;
}

/*
 * A one-write commit's superblock landed with its pages (seq @seq): it is
 * current.  A leg failed meanwhile: the leg in service must name it
 * before anyone counts on this commit (commit_sb()).
 */
static int commit_written(struct fc_pool *pool, u64 *seq, u32 flags, u32 failed, u64 fw)
{
	flash_synced(pool, fw);
	if (READ_ONCE(pool->failed_legs) != failed) {
		pool->seq = (*seq)++;
		return commit_sb(pool, seq, flags, true, fw);
	}
	commit_current(pool, *seq, flags);
	return 0;
}

/*
 * Step 2 unless the superblock's write carries it (@sb_flush): flush the
 * flash; *@fw: the volume flash writes the flush covers.  0 or its error.
 */
static int commit_flush(struct fc_pool *pool, bool nothing, bool sb_flush, u64 *fw)
{
	int r;

	/* Read before the flush is sent: it covers every write counted. */
	*fw = atomic64_read(&pool->fw_done);
	/*
	 * Nothing to record and no flash write since the last flush: no I/O
	 * at all.  Else the flush goes to every leg in service at once.
	 */
	if (!sb_flush && !skip_commit_flush() && !(nothing && *fw == READ_ONCE(pool->fw_synced))) {
		r = fc_flash_flush(pool);
		if (r)
			return r;
		flash_synced(pool, *fw);
	}
	return 0;
}

/*
 * Step 3: the superblock makes *@seq current (written again, one seq
 * further, while a leg fails meanwhile).  0, or the error of the write
 * (then *@seq is the seq it failed at).
 */
static int commit_sb(struct fc_pool *pool, u64 *seq, u32 flags, bool sb_flush, u64 fw)
{
	int r;

	for (;;) {
		u32 failed = READ_ONCE(pool->failed_legs);

		r = fc_write_sb(pool, *seq, *seq, flags, sb_flush);
		if (r)
			return r;
		if (sb_flush)
			flash_synced(pool, fw);
		if (READ_ONCE(pool->failed_legs) == failed)
			break;
		/*
		 * A leg failed during this commit, after the superblock
		 * was built: the leg in service must name it before anyone
		 * counts on this commit (a load with both devices would
		 * otherwise trust the failed one's metadata).
		 */
		pool->seq = (*seq)++;
	}
	commit_current(pool, *seq, flags);
	return 0;
}

/* Step 4, after the superblock: the pages @written are the current copies. */
static void commit_apply(struct fc_pool *pool, unsigned long *written)
{
	u64 l;

	spin_lock_irq(&pool->lock);
	for (l = find_first_bit(written, pool->g.md_pages); l < pool->g.md_pages;
	     l = find_next_bit(written, pool->g.md_pages, l + 1)) {
		__change_bit(l, pool->page_slot);
		/* On the flash now (fc_entry_committed()). */
		__clear_bit(l, written);
		if (l)
			apply_clean(pool, l);
	}
	fc_release_pending(pool);
	spin_unlock_irq(&pool->lock);
}

/*
 * A page batch of commit @seq failed (@r): true if a superblock recording
 * needs_check could be written.
 */
static bool pages_failed(struct fc_pool *pool, u64 seq, int r)
{
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
	if (!fc_write_sb(pool, seq, pool->md_seq, FC_SB_NEEDS_CHECK, false)) {
		pool->seq = seq;
		pool->sb_flags = FC_SB_NEEDS_CHECK;
		return true;
	}
	return false;
}

/*
 * No superblock can be written: record needs_check in a leftover
 * page, else nothing on the flash says so (fail).
 */
static void record_needs_check(struct fc_pool *pool, u64 seq)
{
	if (write_needs_check_page(pool, seq)) {
		DMERR("cannot record needs_check on the flash: no metadata write succeeds; the pool loads read-only until the module is unloaded");
		WRITE_ONCE(pool->md_mode, FC_MD_FAIL);
		remember_failed(pool);
	}
}

/*
 * One commit.  @clean: record a clean shutdown (last put of the pool).
 * @committed (if given): set when pages or a superblock were written; a
 * call that found nothing to record only flushed the flash, and only if
 * a volume's flash write completed since its last flush (fw_done).
 * Returns 0 or a negative errno (then the pool is ro or fail).
 */
static int do_commit(struct fc_pool *pool, bool clean, bool *committed)
{
	unsigned long *written;
	u64 seq, t0, pages = 0, drops, gen = 0, fw;
	u32 flags, failed;
	bool any = false, nothing, sb_flush, pflush, onewrite, onewrote = false;
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
		r = READ_ONCE(pool->md_lost) ? -EIO : fc_flash_flush(pool);
		mutex_unlock(&pool->commit_lock);
		return r;
	}
	seq = pool->seq + 1;
	/* Every drop so far marked its page: this commit records it (fc_ro_flush()). */
	spin_lock_irq(&pool->lock);
	drops = pool->pdirty_drops;
	/*
	 * Two legs in service: the pages carry the flush of both legs, so
	 * it covers every volume flash write counted now.
	 */
	pflush = fc_redundant(pool) && !skip_commit_flush();
	/* One leg in service: a commit that fits one batch is one round trip. */
	onewrite = !fc_redundant(pool) && !skip_commit_flush();
	fw = atomic64_read(&pool->fw_done);
	failed = pool->failed_legs;
	spin_unlock_irq(&pool->lock);
	flags = (clean ? FC_SB_CLEAN : 0) | (pool->needs_check ? FC_SB_NEEDS_CHECK : 0);
	/* Pages written by this commit, to flip their slots after (no allocation). */
	written = pool->page_written;
	bitmap_zero(written, pool->g.md_pages);
	r = commit_pages(pool, written, seq, &gen, &pages, &any, pflush,
			 onewrite ? &flags : NULL, &onewrote);
	if (r) {
		/* Its superblock may have landed: what records the failure goes above it. */
		if (onewrote)
			seq++;
		goto fail_pages;
	}
	if (onewrote) {
		r = commit_written(pool, &seq, flags, failed, fw);
		if (r)
			goto fail_sb;
		goto applied;
	}
	/*
	 * Step 2: flush the flash: pages and every completed data write.
	 * With one leg in service (!fc_redundant(): one device, or a degraded
	 * pool), the superblock's write carries the flush (REQ_PREFLUSH), one
	 * round trip instead of two.  With two, every leg's flush completes
	 * before either superblock names the twin copies written to the
	 * other: the pages carried it (@pflush), or, with no page to write,
	 * an empty flush of both legs goes first.
	 */
	nothing = !any && flags == pool->sb_flags;
	sb_flush = !nothing && !fc_redundant(pool) && !skip_commit_flush();
	if (pflush && any) {
		flash_synced(pool, fw);
	} else {
		r = commit_flush(pool, nothing, sb_flush, &fw);
		if (r)
			goto fail_pages;
	}
	if (nothing)
		goto out;	/* nothing changed: the flush was all we needed */
	/* Step 3: the superblock makes seq S + 1 current. */
	r = commit_sb(pool, &seq, flags, sb_flush, fw);
	if (r)
		goto fail_sb;
applied:
	/* Step 4: flip slots, drop PDIRTY of entries recorded clean, reuse frees. */
	commit_apply(pool, written);
	commit_stats(pool, pages, ktime_get_ns() - t0);
	if (committed)
		*committed = true;
out:
	pool->drops_committed = drops;
	/* Every change up to gen is on the flash: a REQ_PREFLUSH may skip the worker. */
	spin_lock_irq(&pool->lock);
	pool->md_committed = gen;
	spin_unlock_irq(&pool->lock);
	mutex_unlock(&pool->commit_lock);
	return 0;

fail_sb:
	fc_meta_error(pool, r);
	goto record;
fail_pages:
	if (pages_failed(pool, seq, r))
		goto out_err;
record:
	record_needs_check(pool, seq);
out_err:
	mutex_unlock(&pool->commit_lock);
	return r;
}

int fc_commit(struct fc_pool *pool, bool clean)
{
	return do_commit(pool, clean, NULL);
}

/* The commit worker's (fc_commit_work()): did it record anything? */
int fc_commit_sync(struct fc_pool *pool, bool *committed)
{
	*committed = false;
	return do_commit(pool, false, committed);
}

int fc_request_commit(struct fc_pool *pool)
{
	int r = fc_commit(pool, false);

	pool->last_commit = jiffies;
	return r;
}
