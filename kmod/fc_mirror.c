// SPDX-License-Identifier: GPL-2.0
/*
 * fc_mirror: the two-device pool's redundancy (docs/DESIGN.md "Two-device
 * pool", "Redundancy invariants"): twins, the join, the rescue of a failed
 * leg's entries onto their twins, and a new device attached as a leg
 * (fc_attach_leg()).  The per-leg lone counts and a leg failing at run time
 * (fc_leg_error()) are in fc_legs.c, below every file that changes them; the
 * walks that need the map path's kick (the vacating of a failed leg, the
 * resync that makes twins agree) in fc_resync.c.
 *
 * A dirty entry's data is on its own block; in a mirrored pool with both
 * legs in service it has a twin, a block on the other leg holding a copy
 * of its dirty sub-blocks.  The invariants, each kept here:
 *  1. twinless: a hashed dirty entry without a twin has its bit in
 *     pool->twinless, counted in nr_twinless_leg[leg of
 *     its block] (fc_lone_update(), called wherever an entry's dirty bits,
 *     twin or hash membership change).  joining: a twin given to data
 *     already dirty holds nothing until fc_resync() copied it; counted per
 *     leg of the entry's block (fc_joining_clear()).  Both, and unsynced
 *     blocks, are dirty blocks with one good copy: lone_dirty_blocks, and
 *     the pool says "mirrored" only when there is none.
 *  2. While both legs serve, the tick gives each twinless entry a twin
 *     (fc_join_twins()), retried until none is left.
 *  3. A leg whose block holds the only good copy of a dirty block (a
 *     twinless or joining entry on it) is never failed: the I/O that met
 *     the error fails alone (md never fails its last in-sync member).
 *  4. The resync copies one block at a time; a failed copy blames the leg
 *     of the I/O that failed (rule 3 decides), the block waits
 *     FC_RESYNC_RETRY; busy blocks are passed over; a slice is at most a
 *     second, then writeback runs (fc_wb_work()).
 *  5. A rescue never moves an entry onto a joining twin: the entry is
 *     LOST and its I/O fails.
 *
 * Locking: pool->lock for every field above (fc_leg_error(), fc_lone_update(),
 * fc_alloc_twin(), fc_rescue_entry() are called with it held); the walks
 * (fc_vacate_failed(), fc_join_twins()) take it a batch at a time; fc_resync()
 * runs under wb_lock and takes pool->lock around each block's state change,
 * never across its I/O.
 */
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/jiffies.h>

#include "fc_core.h"

#ifdef FC_FAULT_INJECT
/*
 * Test build only (make fi-module): the next fault_twin_join twins asked
 * for dirty entries (a join: after a replace, or the tick's retry) are
 * refused as if no block were free or a commit were serialising, so a
 * test can watch dirty data wait for its second copy
 * (tests/guest/fc_mirror_faults.sh).
 */
static int fault_twin_join;
module_param(fault_twin_join, int, 0644);
MODULE_PARM_DESC(fault_twin_join, "test build: refuse the next N twins asked for dirty entries");

static bool twin_join_fault(void)
{
	return fc_fault_take(&fault_twin_join);
}

/*
 * And while fault_twin_join_odd is set, the joins pass over the dirty
 * entries of odd origin blocks (the walk goes on past them): a pool whose
 * device holds both dirty blocks with a twin and dirty blocks with one
 * copy, chosen.
 */
static bool fault_twin_join_odd;
module_param(fault_twin_join_odd, bool, 0644);
MODULE_PARM_DESC(fault_twin_join_odd, "test build: joins pass over the dirty entries of odd origin blocks");

static bool twin_join_skip(struct fc_entry *e)
{
	return READ_ONCE(fault_twin_join_odd) && (e->oblock & 1);
}
#else
static inline bool twin_join_fault(void)
{
	return false;
}

static inline bool twin_join_skip(struct fc_entry *e)
{
	return false;
}
#endif

bool fc_alloc_twin(struct fc_pool *pool, struct fc_entry *e)
{
	u32 idx = fc_eidx(pool, e), t, lo, hi;
	unsigned int leg = !fc_block_leg(&pool->g, idx);

	if (pool->twin[idx] != FC_NONE)
		return true;
	if (pool->ser_window || !fc_redundant(pool) || (e->dirty && twin_join_fault()))
		return false;
	t = fc_pop_free(pool, leg);
	if (t == FC_NONE) {
		lo = leg ? (u32)pool->g.leg_blocks[0] : 0;
		hi = lo + (u32)pool->g.leg_blocks[leg];
		if (!fc_clock_evict(pool, lo, hi, &pool->leg_hand[leg]))
			return false;
		t = fc_pop_free(pool, leg);
		if (t == FC_NONE)
			return false;
	}
	__set_bit(t, pool->twin_used);
	pool->twin[idx] = t;
	pool->nr_twins++;
	fc_mark_page_dirty(pool, idx);
	if (e->dirty) {
		/*
		 * Already dirty (a replaced leg, or one copy found at load):
		 * the twin holds nothing yet.  fc_resync() copies the dirty
		 * sub-blocks; until then the flash does not name the twin,
		 * and the entry's leg holds its only copy (fc_leg_error()).
		 */
		__set_bit(idx, pool->joining);
		pool->nr_joining_leg[fc_block_leg(&pool->g, idx)]++;
		if (!__test_and_set_bit(idx, pool->unsynced))
			pool->nr_unsynced++;
	}
	fc_lone_update(pool, idx);
	return true;
}

/*
 * @e (pool->lock held) has its block on a failed leg.  Its clean data is
 * gone with the leg; its dirty data lives on in its twin, on the leg in
 * service, which takes the entry's place, as a degraded load does
 * (fc_load.c, load_entries()).  The flash records the move at the next
 * commit; until then it records the entry with that twin, which a load
 * without the failed leg (the other leg's superblock names it failed)
 * moves the same way.
 *
 * Not while a commit serialises in batches (ser_window): the entry's page
 * and its twin's could land in different batches and the commit would
 * record neither.  The moved entry keeps FC_E_PDIRTY: the flash still
 * names its block as the twin of a dirty entry, so it must not be reused
 * before a commit has recorded it.
 */
enum fc_rescue fc_rescue_entry(struct fc_pool *pool, struct fc_entry *e)
{
	u32 i = fc_eidx(pool, e), t = fc_twin_of(pool, i);
	struct fc_entry *n;

	if (!fc_entry_idle(e) || pool->ser_window)
		return FC_RESCUE_LATER;
	if (!e->dirty) {
		fc_entry_release(pool, e);
		return FC_RESCUE_DONE;
	}
	/* A twin still being filled (joining) holds no copy yet. */
	if (t == FC_NONE || test_bit(i, pool->joining))
		return FC_RESCUE_LOST;
	fc_untwin(pool, i, t);
	/* A flush waiting for the block waits for its twin now. */
	if (__test_and_clear_bit(i, pool->flush_set))
		__set_bit(t, pool->flush_set);
	/* Only the dirty sub-blocks have a second copy. */
	fc_entry_set(pool, e, e->dirty, e->dirty);
	fc_hash_remove(pool, e);
	n = &pool->e[t];
	n->oblock = e->oblock;
	n->vol = e->vol;
	n->valid = e->valid;
	n->dirty = e->dirty;
	n->dirty_ts = e->dirty_ts;
	n->gen = e->gen + 1;
	pool->wcount[t] = pool->wcount[fc_eidx(pool, e)];
	n->wb_raced = 0;
	n->gen_wrapped = 0;
	n->flags = e->flags & (FC_E_PDIRTY | FC_E_REF);
	atomic_set(&n->inflight, 0);
	fc_hash_insert(pool, n);
	fc_mark_page_dirty(pool, t);
	/* The counters moved with it: the old block just goes out of use. */
	e->valid = 0;
	e->dirty = 0;
	e->flags = 0;
	fc_entry_bump(e);
	/*
	 * Both halves of the move go in one commit.  fc_entry_set() above
	 * marked the old entry's page only if valid changed, which it does
	 * not for an entry all dirty; its page would keep naming the entry
	 * with its twin beside the twin's own entry, two mappings of one
	 * origin block that a load of the leg in service refuses.
	 */
	fc_mark_page_dirty(pool, i);
	return FC_RESCUE_DONE;
}

/*
 * A twin for every dirty entry that has none (the twinless bitmap), while
 * both legs are in service: after a replace (fc_attach_leg()), at load
 * when a crash came during one, and from the tick while any is left (no
 * free block on the other leg, or a commit serialising in batches refused
 * it: fc_alloc_twin()).  fc_alloc_twin() marks each joining; fc_resync()
 * fills them.  The walk ends when a leg fails meanwhile.  Returns the
 * number of entries still without a twin.
 */
u64 fc_join_twins(struct fc_pool *pool)
{
	u64 nr = pool->g.nr_blocks, i = 0, given = 0, left;
	unsigned int n;
	bool stop = false;

	if (!pool->twinless)
		return 0;
	while (!stop && i < nr) {
		spin_lock_irq(&pool->lock);
		for (n = 0; n < FC_WALK_BATCH; n++) {
			stop = !fc_redundant(pool);
			if (stop)
				break;
			i = find_next_bit(pool->twinless, nr, i);
			if (i >= nr)
				break;
			if (twin_join_skip(&pool->e[i])) {
				i++;
				continue;
			}
			/* No free block, or a commit serialising: the tick retries. */
			stop = !fc_alloc_twin(pool, &pool->e[i]);
			if (stop)
				break;
			given++;
			i++;
		}
		spin_unlock_irq(&pool->lock);
		cond_resched();
	}
	spin_lock_irq(&pool->lock);
	left = fc_redundant(pool) ? fc_nr_twinless(pool) : 0;
	spin_unlock_irq(&pool->lock);
	if (given)
		DMINFO("mirrored pool: %llu dirty blocks get their second copy now (resync)%s",
		       given, left ? "; others wait for a free block or the end of a commit (retried)" : "");
	return left;
}

/*
 * "replace 1" (pool_preresume()): @bdev becomes leg @m of a pool degraded
 * by that leg (docs/DESIGN.md "Replace").  Only when nothing is left on
 * the failed leg: no entry, no twin, no pending block, no twin copy in
 * flight to the old device.  Then, under commit_lock: the new device is
 * the leg (a new member uuid, events + 1), its blocks are free, every
 * metadata page is marked for the next commit (the new device gets all of
 * them), every dirty entry gets a twin on it (joining: the flash names it
 * once fc_resync() has copied the data), and a commit writes it all to
 * both devices with superblocks naming each other.  A crash before that
 * commit ends leaves the old superblocks: the new device is foreign to
 * the pool and the other one still names the leg failed.
 */
int fc_attach_leg(struct fc_pool *pool, unsigned int m, struct block_device *bdev,
		  const char **why)
{
	u32 lo = m ? (u32)pool->g.leg_blocks[0] : 0, hi = lo + (u32)pool->g.leg_blocks[m];
	u32 i, head = FC_NONE;
	u8 uuid[16];
	u64 n = 0;
	int r;

	/* Pending blocks of the failed leg go out of use at a commit. */
	r = fc_commit(pool, false);
	if (r) {
		*why = "replace: the commit before it failed";
		return r;
	}
	get_random_bytes(uuid, sizeof(uuid));
	mutex_lock(&pool->commit_lock);
	spin_lock_irq(&pool->lock);
	r = -EBUSY;
	if (pool->failed_legs != (1u << m)) {
		*why = "replace: the pool is no longer degraded by that device";
		goto out;
	}
	if (pool->vacating || atomic_read(&pool->twin_io[m])) {
		*why = "replace: the failed device is still being vacated; try again";
		goto out;
	}
	for (i = pool->pending_head; i != FC_NONE; i = pool->e[i].next) {
		if (fc_block_leg(&pool->g, i) == m) {
			*why = "replace: blocks of the failed device wait for a commit; try again";
			goto out;
		}
	}
	/* Nothing uses a failed leg's blocks: none changes under us. */
	for (i = hi; i-- > lo;) {
		if ((pool->e[i].flags & FC_E_HASHED) || test_bit(i, pool->twin_used)) {
			*why = "replace: dirty data with no second copy is still on the failed device (fcachectl check)";
			r = -EIO;
			goto out;
		}
		pool->e[i].flags = FC_E_FREE;
		pool->e[i].next = head;
		head = i;
		n++;
	}
	pool->leg[m].bdev = bdev;
	memcpy(pool->leg[m].member_uuid, uuid, 16);
	pool->leg[m].sb_slot = 1;
	pool->free_head[m] = head;
	pool->nr_free_leg[m] = n;
	pool->nr_free += n;
	pool->events++;
	pool->joined_leg = m;
	WRITE_ONCE(pool->failed_legs, 0);
	/* fence_hold: the next loss of a copy holds again */
	WRITE_ONCE(pool->peer_outdated, false);
	bitmap_fill(pool->page_dirty, pool->g.md_pages);
	pool->md_gen++;
	r = 0;
out:
	spin_unlock_irq(&pool->lock);
	mutex_unlock(&pool->commit_lock);
	if (r)
		return r;
	DMINFO("replace: %pg is leg %u now; the dirty data is copied to it (resync)", bdev, m);
	fc_join_twins(pool);
	r = fc_commit(pool, false);
	if (r)
		*why = "replace: the first commit on both devices failed";
	return r;
}
