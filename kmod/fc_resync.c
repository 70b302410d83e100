// SPDX-License-Identifier: GPL-2.0
/*
 * fc_resync: the mirror's two walks that restart parked bios when they let
 * an entry go (fc_kick_locked(), fc_park.c): the vacating of a failed leg
 * (fc_vacate_failed(), the tick: each entry rescued onto its twin by
 * fc_rescue_entry()) and the resync that copies the dirty data of joining
 * and unsynced entries to their twins (fc_resync(), run by the writeback
 * worker).  The invariants they keep are fc_mirror.c's (its top comment).
 *
 * Locking: the vacating walk takes pool->lock a batch at a time;
 * fc_resync() runs under wb_lock and takes pool->lock around each block's
 * state change, never across its I/O.
 */
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/jiffies.h>

#include "fc_core.h"

/* ---- vacating a failed leg ---- */

struct vacate_walk {
	bool left;	/* an entry was busy: the tick walks again */
	bool lost;	/* dirty data with no copy on the leg in service */
};

static bool vacate_one(struct fc_pool *pool, u32 idx, void *arg)
{
	struct vacate_walk *w = arg;
	struct fc_entry *e = &pool->e[idx];
	u32 t = fc_twin_of(pool, idx);

	if (!(e->flags & FC_E_HASHED))
		return true;
	if (t != FC_NONE && fc_block_failed(pool, t)) {
		fc_untwin(pool, idx, t);
		fc_mark_page_dirty(pool, idx);
	}
	if (!fc_block_failed(pool, idx))
		return true;
	switch (fc_rescue_entry(pool, e)) {
	case FC_RESCUE_LATER:
		w->left = true;
		break;
	case FC_RESCUE_LOST:
		w->lost = true;
		break;
	default:
		break;
	}
	return true;
}

/*
 * After a leg failed: drop every twin on it (their entries' dirty data now
 * has one copy) and rescue every entry on it (fc_walk_entries()).  Entries
 * busy now are left for the next call (the tick calls this while
 * pool->vacating); bios waiting for one are kicked after.  Only the tick
 * calls it, and no second failure can set pool->vacating meanwhile
 * (fc_leg_error() keeps the last leg), so the walk's verdict is final.
 */
void fc_vacate_failed(struct fc_pool *pool)
{
	struct vacate_walk w = { };

	fc_walk_entries(pool, vacate_one, &w);
	spin_lock_irq(&pool->lock);
	pool->vacating = w.left;
	fc_kick_locked(pool);
	spin_unlock_irq(&pool->lock);
	if (w.lost)
		DMERR_LIMIT("dirty data with no second copy was on the failed flash device: its reads fail");
	fc_queue_commit(pool);
}

/* ---- resync: the twins agree with their entries ---- */

/*
 * Copy the dirty sub-blocks @mask of block @from to block @to.  On an
 * error, *@bad is the block whose I/O failed (@from: a read, @to: a write).
 */
static int copy_blocks(struct fc_pool *pool, u32 from, u32 to, u8 mask, void *buf, u32 *bad)
{
	u32 sub = pool->g.subblock_sectors, i = 0, j;
	int r;

	while (i < pool->g.nr_subblocks) {
		if (!(mask & (1u << i))) {
			i++;
			continue;
		}
		for (j = i; j < pool->g.nr_subblocks && (mask & (1u << j)); j++)
			;
		*bad = from;
		r = fc_sync_io(pool, fc_block_bdev(pool, from), REQ_OP_READ,
			       fc_block_sector(pool, from) + i * sub, (j - i) * sub, buf);
		if (!r) {
			*bad = to;
			r = fc_sync_io(pool, fc_block_bdev(pool, to), REQ_OP_WRITE,
				       fc_block_sector(pool, to) + i * sub, (j - i) * sub, buf);
		}
		if (r)
			return r;
		i = j;
	}
	return 0;
}

/* Blocks whose resync copy failed are tried again after this long. */
#define FC_RESYNC_RETRY	(5 * HZ)

/*
 * The next unsynced block to copy at or after @i, made BUSY (pool->lock
 * held); @nr if none.  Blocks clean since, or without a twin, leave the
 * set; busy ones and ones whose copy failed lately are passed over.
 */
static u64 resync_next(struct fc_pool *pool, u64 i)
{
	u64 nr = pool->g.nr_blocks;
	struct fc_entry *e;

	/*
	 * A leg failed: fc_vacate_failed() settles every twin (fc_untwin()
	 * clears the bits).  A joining twin's entry keeps its bit so that a
	 * rescue finds it LOST, never moved to a twin that holds nothing.
	 */
	if (!fc_redundant(pool))
		return nr;
	for (;; i++) {
		i = find_next_bit(pool->unsynced, nr, i);
		if (i >= nr)
			return nr;
		e = &pool->e[i];
		if (!e->dirty || pool->twin[i] == FC_NONE) {
			/* Clean since, or no second copy: nothing to agree on. */
			__clear_bit(i, pool->unsynced);
			pool->nr_unsynced--;
			fc_joining_clear(pool, (u32)i);
			continue;
		}
		if (test_bit(i, pool->resync_failed) || !fc_entry_idle(e))
			continue;
		e->flags |= FC_E_BUSY;
		return i;
	}
}

/*
 * Resync blocks for up to a second (wb_lock held; see the top comment):
 * one pass over the unsynced set, passing over busy blocks (the next call
 * takes them).  A failed copy fails the leg of the I/O that failed
 * when the other leg holds every dirty block (fc_leg_error()); else only
 * that block waits, its one good copy in service, and is tried again
 * FC_RESYNC_RETRY later.
 */
void fc_resync(struct fc_pool *pool)
{
	unsigned long start = jiffies;
	u64 nr = pool->g.nr_blocks, i = 0;
	struct fc_entry *e;
	void *buf = NULL;
	u32 twin, bad;
	u8 mask;
	int r;

	spin_lock_irq(&pool->lock);
	if (pool->resync_errors && time_after_eq(jiffies, pool->resync_retry_at)) {
		bitmap_zero(pool->resync_failed, nr);
		pool->resync_errors = false;
	}
	spin_unlock_irq(&pool->lock);
	while (!pool->suspended && time_before(jiffies, start + HZ)) {
		spin_lock_irq(&pool->lock);
		i = resync_next(pool, i);
		if (i >= nr) {
			spin_unlock_irq(&pool->lock);
			break;
		}
		e = &pool->e[i];
		twin = pool->twin[i];
		mask = e->dirty;
		spin_unlock_irq(&pool->lock);

		if (!buf)
			buf = mempool_alloc(pool->fill_pool, GFP_NOIO);
		r = copy_blocks(pool, (u32)i, twin, mask, buf, &bad);

		spin_lock_irq(&pool->lock);
		e->flags &= ~FC_E_BUSY;
		if (!r && test_bit(i, pool->unsynced)) {
			__clear_bit(i, pool->unsynced);
			pool->nr_unsynced--;
			/* The copy is volatile until the next flush (sync_free()). */
			atomic64_inc(&pool->fw_done);
			/* A joining twin holds the data now: the flash may name it. */
			if (test_bit(i, pool->joining)) {
				fc_joining_clear(pool, (u32)i);
				fc_mark_page_dirty(pool, (u32)i);
			}
			if (!fc_nr_joining(pool))
				pool->joined_leg = -1;
		} else if (r) {
			__set_bit(i, pool->resync_failed);
			if (!pool->resync_errors)
				pool->resync_retry_at = jiffies + FC_RESYNC_RETRY;
			pool->resync_errors = true;
		}
		fc_kick_locked(pool);
		spin_unlock_irq(&pool->lock);
		if (r) {
			atomic64_inc(bad == twin ? &pool->flash_write_errors :
				     &pool->flash_read_errors);
			DMERR_LIMIT("resync of a dirty block's second copy failed (%d, %s of leg %u)",
				    r, bad == twin ? "a write" : "a read",
				    fc_block_leg(&pool->g, bad));
			if (fc_leg_error_unlocked(pool, fc_block_leg(&pool->g, bad)))
				break;	/* that leg is out: fc_vacate_failed() */
		}
		i++;
	}
	if (buf)
		mempool_free(buf, pool->fill_pool);
}
