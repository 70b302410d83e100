// SPDX-License-Identifier: GPL-2.0
/*
 * fc_legs: the state below every other kmod file that the entries, the
 * metadata and the mirror all change: the marks a change leaves for the next
 * commit (the metadata pages and the volume table to write), an entry's
 * twinless and joining bits with their per-leg counts (the redundancy
 * invariants of fc_mirror.c's top comment), and a leg failing at run time
 * (fc_leg_error(): docs/DESIGN.md "Two-device pool").  It calls no other
 * kmod file.
 *
 * Locking: pool->lock held for all of it, except fc_leg_error_unlocked(),
 * which takes it.
 */
#include "fc_core.h"

void fc_mark_page_dirty(struct fc_pool *pool, u32 eidx)
{
	__set_bit(1 + eidx / FC_ENTRIES_PER_PAGE, pool->page_dirty);
	pool->md_gen++;
}

void fc_mark_vt_dirty(struct fc_pool *pool)
{
	__set_bit(0, pool->page_dirty);
	pool->md_gen++;
}

void fc_lone_update(struct fc_pool *pool, u32 i)
{
	struct fc_entry *e = &pool->e[i];
	unsigned int leg;
	bool lone;

	if (!pool->twinless)
		return;
	lone = (e->flags & FC_E_HASHED) && e->dirty && pool->twin[i] == FC_NONE;
	if (lone == test_bit(i, pool->twinless))
		return;
	leg = fc_block_leg(&pool->g, i);
	if (lone) {
		__set_bit(i, pool->twinless);
		pool->nr_twinless_leg[leg]++;
	} else {
		__clear_bit(i, pool->twinless);
		pool->nr_twinless_leg[leg]--;
	}
}

void fc_joining_clear(struct fc_pool *pool, u32 i)
{
	if (__test_and_clear_bit(i, pool->joining))
		pool->nr_joining_leg[fc_block_leg(&pool->g, i)]--;
}

/* ---- a leg failing at run time (mirrored pools) ---- */

bool fc_leg_error(struct fc_pool *pool, unsigned int leg)
{
	u32 bit = 1u << leg;

	if (!fc_mirrored(pool) || leg >= pool->g.nr_legs)
		return false;
	if (pool->failed_legs & bit)
		return true;
	if (pool->failed_legs)
		return false;	/* the other leg is out: this one holds the last copy */
	if (fc_leg_holds_lone(pool, leg)) {
		/*
		 * As md never fails its last in-sync member: dirty blocks on
		 * this leg have no good copy on the other one yet (a resync
		 * after a replace, or no free block for their twins).  The
		 * leg stays; only the I/O that met the error fails (a read of
		 * dirty data whose twin holds it goes there: end_flash_read()).
		 */
		DMERR_LIMIT("flash device %pg (leg %u): I/O error; kept in service, it holds the only copy of %llu dirty blocks: the I/O fails unless the block's twin holds its data",
			    pool->leg[leg].bdev, leg,
			    pool->nr_twinless_leg[leg] + pool->nr_joining_leg[leg]);
		return false;
	}
	WRITE_ONCE(pool->failed_legs, pool->failed_legs | bit);
	WRITE_ONCE(pool->peer_outdated, false);
	pool->events++;
	/* Nothing is placed on it from now on. */
	pool->nr_free -= pool->nr_free_leg[leg];
	pool->nr_free_leg[leg] = 0;
	pool->free_head[leg] = FC_NONE;
	pool->vacating = true;
	/* The superblock of the other leg records it at the next commit. */
	fc_mark_vt_dirty(pool);
	DMERR("flash device %pg (leg %u) failed: the pool runs degraded on the other; its %llu dirty blocks have one copy now",
	      pool->leg[leg].bdev, leg, pool->nr_dirty);
	if (pool->opts.val[FC_OPT_FENCE_HOLD])
		DMWARN("fence_hold: flushes and FUA writes wait until the other copy is recorded outdated (message peer_outdated)");
	fc_queue_commit(pool);
	return true;
}

bool fc_leg_error_unlocked(struct fc_pool *pool, unsigned int leg)
{
	unsigned long flags;
	bool r;

	spin_lock_irqsave(&pool->lock, flags);
	r = fc_leg_error(pool, leg);
	spin_unlock_irqrestore(&pool->lock, flags);
	return r;
}
