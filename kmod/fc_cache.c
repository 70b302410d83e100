// SPDX-License-Identifier: GPL-2.0
/*
 * fc_cache: the in-core cache entries: hash table keyed by (volume slot,
 * origin block), free list, pending-free list, CLOCK eviction and the
 * per-pool / per-volume block counters.
 *
 * Locking: every function here is called with pool->lock held, except
 * fc_cache_alloc/fc_cache_free (constructor/destructor, no concurrency)
 * and the whole-array walks (fc_walk_entries(): fc_invalidate_volume,
 * fc_vacate_failed, fc_join_twins) that take it a batch at a time.
 *
 * Mirrored pools (two legs): one free list per leg; a clean block is
 * placed on the leg with more free blocks, a twin (fc_alloc_twin()) on the
 * other leg of its entry.  A twin lives as long as its entry: it is freed
 * with it (after the commit that records the entry gone when it was
 * committed dirty, as for any block: the pending list).
 *
 * RAM: struct fc_entry is 24 bytes a cache block, the hash one u32 bucket
 * per two blocks (2 bytes a block), the write counts one byte a block
 * (pool->wcount), and two bitmaps per metadata page (negligible): ~27
 * bytes per cache block, 864 MiB per TiB at 32 KiB blocks.
 * A mirrored pool adds 4 bytes a block (the twin links).
 */
#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/sched.h>

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
	if (READ_ONCE(fault_twin_join) <= 0)
		return false;
	WRITE_ONCE(fault_twin_join, fault_twin_join - 1);
	return true;
}
#else
static inline bool twin_join_fault(void)
{
	return false;
}
#endif

static u32 hash_key(struct fc_pool *pool, u8 vol, u64 oblock)
{
	return (u32)hash_64(oblock ^ ((u64)vol << 56), 32) & pool->hash_mask;
}

int fc_cache_alloc(struct fc_pool *pool)
{
	u64 nr = pool->g.nr_blocks, nb;
	u32 i;

	BUILD_BUG_ON(sizeof(struct fc_entry) != 24);
	pool->block_shift = ilog2(pool->g.block_sectors);
	pool->full_mask = (u8)((1u << pool->g.nr_subblocks) - 1);
	pool->wb_hot_writes = FC_WB_HOT_WRITES;
	if (nr >= FC_NONE)
		return -EINVAL;
	pool->e = vzalloc(array_size(nr, sizeof(struct fc_entry)));
	pool->wcount = vzalloc(nr);
	nb = roundup_pow_of_two(max_t(u64, nr / 2, 16));
	pool->buckets = vmalloc(array_size(nb, sizeof(u32)));
	pool->page_dirty = bitmap_zalloc(pool->g.md_pages, GFP_KERNEL);
	pool->page_slot = bitmap_zalloc(pool->g.md_pages, GFP_KERNEL);
	pool->page_written = bitmap_zalloc(pool->g.md_pages, GFP_KERNEL);
	pool->ghost_slots = vzalloc(FC_GHOST_SLOTS * sizeof(u32));
	pool->flush_set = bitmap_zalloc(nr, GFP_KERNEL);
	if (!pool->e || !pool->wcount || !pool->buckets || !pool->page_dirty || !pool->page_slot ||
	    !pool->page_written || !pool->ghost_slots || !pool->flush_set)
		return -ENOMEM;
	if (fc_mirrored(pool)) {
		pool->twin = vmalloc(array_size(nr, sizeof(u32)));
		pool->twin_used = bitmap_zalloc(nr, GFP_KERNEL);
		pool->unsynced = bitmap_zalloc(nr, GFP_KERNEL);
		pool->joining = bitmap_zalloc(nr, GFP_KERNEL);
		pool->twinless = bitmap_zalloc(nr, GFP_KERNEL);
		pool->resync_failed = bitmap_zalloc(nr, GFP_KERNEL);
		if (!pool->twin || !pool->twin_used || !pool->unsynced || !pool->joining ||
		    !pool->twinless || !pool->resync_failed)
			return -ENOMEM;
		for (i = 0; i < nr; i++)
			pool->twin[i] = FC_NONE;
	}
	fc_ghost_init(&pool->ghost, pool->ghost_slots, FC_GHOST_SLOTS);
	pool->hash_mask = (u32)(nb - 1);
	for (i = 0; i < nb; i++)
		pool->buckets[i] = FC_NONE;
	pool->free_head[0] = FC_NONE;
	pool->free_head[1] = FC_NONE;
	pool->pending_head = FC_NONE;
	pool->leg_hand[1] = (u32)pool->g.leg_blocks[0];
	pool->joined_leg = -1;
	return 0;
}

static void push_free(struct fc_pool *pool, u32 i)
{
	unsigned int leg = fc_block_leg(&pool->g, i);

	if (fc_leg_failed(pool, leg)) {
		/* A failed leg's blocks are never used again. */
		pool->e[i].flags = 0;
		return;
	}
	pool->e[i].flags = FC_E_FREE;
	pool->wcount[i] = 0;
	pool->e[i].next = pool->free_head[leg];
	pool->free_head[leg] = i;
	pool->nr_free++;
	pool->nr_free_leg[leg]++;
}

static u32 pop_free(struct fc_pool *pool, unsigned int leg)
{
	u32 i = pool->free_head[leg];

	if (i == FC_NONE)
		return i;
	pool->free_head[leg] = pool->e[i].next;
	pool->nr_free--;
	pool->nr_free_leg[leg]--;
	pool->e[i].flags = 0;
	return i;
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
		pool->nr_twinless++;
		pool->nr_twinless_leg[leg]++;
	} else {
		__clear_bit(i, pool->twinless);
		pool->nr_twinless--;
		pool->nr_twinless_leg[leg]--;
	}
}

void fc_joining_clear(struct fc_pool *pool, u32 i)
{
	if (__test_and_clear_bit(i, pool->joining)) {
		pool->nr_joining--;
		pool->nr_joining_leg[fc_block_leg(&pool->g, i)]--;
	}
}

/* Entry @i no longer has twin @t (not freed here). */
static void untwin(struct fc_pool *pool, u32 i, u32 t)
{
	pool->twin[i] = FC_NONE;
	__clear_bit(t, pool->twin_used);
	pool->nr_twins--;
	fc_joining_clear(pool, i);
	if (__test_and_clear_bit(i, pool->unsynced))
		pool->nr_unsynced--;
	fc_lone_update(pool, i);
}

void fc_drop_twin(struct fc_pool *pool, struct fc_entry *e)
{
	u32 i = fc_eidx(pool, e), t = fc_twin_of(pool, i);

	if (t == FC_NONE)
		return;
	untwin(pool, i, t);
	push_free(pool, t);
}

/* An entry (and its twin) goes back to the free lists. */
static void free_entry(struct fc_pool *pool, struct fc_entry *e)
{
	push_free(pool, fc_eidx(pool, e));
	fc_drop_twin(pool, e);
}

/*
 * After format or load: every entry not loaded goes to its leg's free
 * list, except twins and the blocks of a missing leg.
 */
void fc_cache_build_free(struct fc_pool *pool)
{
	u32 i;

	/* Ascending order: first allocations are at the start of the flash. */
	pool->free_head[0] = FC_NONE;
	pool->free_head[1] = FC_NONE;
	pool->nr_free = 0;
	pool->nr_free_leg[0] = 0;
	pool->nr_free_leg[1] = 0;
	for (i = (u32)pool->g.nr_blocks; i-- > 0;) {
		if (pool->e[i].flags & FC_E_HASHED)
			continue;
		if (pool->twin_used && test_bit(i, pool->twin_used))
			continue;
		if (!fc_block_bdev(pool, i)) {
			pool->e[i].flags = 0;
			continue;
		}
		push_free(pool, i);
	}
}

void fc_cache_free(struct fc_pool *pool)
{
	vfree(pool->twin);
	bitmap_free(pool->twin_used);
	bitmap_free(pool->unsynced);
	bitmap_free(pool->joining);
	bitmap_free(pool->twinless);
	bitmap_free(pool->resync_failed);
	vfree(pool->e);
	vfree(pool->wcount);
	vfree(pool->buckets);
	bitmap_free(pool->page_dirty);
	bitmap_free(pool->page_slot);
	bitmap_free(pool->page_written);
	vfree(pool->ghost_slots);
	bitmap_free(pool->flush_set);
}

struct fc_entry *fc_lookup(struct fc_pool *pool, u8 vol, u64 oblock)
{
	u32 i = pool->buckets[hash_key(pool, vol, oblock)];

	while (i != FC_NONE) {
		struct fc_entry *e = &pool->e[i];

		if (e->oblock == oblock && e->vol == vol)
			return e;
		i = e->next;
	}
	return NULL;
}

static void hash_insert(struct fc_pool *pool, struct fc_entry *e)
{
	u32 b = hash_key(pool, e->vol, e->oblock);

	e->next = pool->buckets[b];
	pool->buckets[b] = fc_eidx(pool, e);
	e->flags |= FC_E_HASHED;
	pool->vol[e->vol].hashed++;
	fc_lone_update(pool, fc_eidx(pool, e));
}

static void hash_remove(struct fc_pool *pool, struct fc_entry *e)
{
	u32 *p = &pool->buckets[hash_key(pool, e->vol, e->oblock)];
	u32 idx = fc_eidx(pool, e);

	while (*p != FC_NONE) {
		if (*p == idx) {
			*p = e->next;
			break;
		}
		p = &pool->e[*p].next;
	}
	e->next = FC_NONE;
	e->flags &= ~FC_E_HASHED;
	pool->vol[e->vol].hashed--;
	fc_lone_update(pool, idx);
}

/* Used by recovery: @idx already holds its loaded state. */
void fc_cache_insert_loaded(struct fc_pool *pool, u32 idx)
{
	struct fc_entry *e = &pool->e[idx];

	/* The age of loaded dirty data is unknown: it counts from the load. */
	e->dirty_ts = (u16)(jiffies / HZ);
	hash_insert(pool, e);
	pool->nr_used++;
	pool->vol[e->vol].cached++;
	if (e->dirty) {
		pool->nr_dirty++;
		pool->vol[e->vol].dirty++;
	}
	fc_lone_update(pool, idx);
}

/* Set an entry's bitmaps, keeping every counter and the page dirty bit right. */
void fc_entry_set(struct fc_pool *pool, struct fc_entry *e, u8 valid, u8 dirty)
{
	struct fc_vslot *s = &pool->vol[e->vol];

	dirty &= valid;
	if (valid == e->valid && dirty == e->dirty)
		return;
	if (!e->valid && valid) {
		pool->nr_used++;
		s->cached++;
	} else if (e->valid && !valid) {
		pool->nr_used--;
		s->cached--;
	}
	if (!e->dirty && dirty) {
		pool->nr_dirty++;
		s->dirty++;
		e->dirty_ts = (u16)(jiffies / HZ);
	} else if (e->dirty && !dirty) {
		pool->nr_dirty--;
		s->dirty--;
		pool->wcount[fc_eidx(pool, e)] = 0;
		/* Clean (written back, discarded, dropped): no flush waits for it. */
		if (__test_and_clear_bit(fc_eidx(pool, e), pool->flush_set)) {
			s->flush_left--;
			wake_up_all(&pool->flush_wait);
		}
	}
	e->valid = valid;
	e->dirty = dirty;
	fc_lone_update(pool, fc_eidx(pool, e));
	fc_mark_page_dirty(pool, fc_eidx(pool, e));
}

static bool evictable(struct fc_entry *e)
{
	return (e->flags & FC_E_HASHED) && fc_entry_idle(e) && !e->dirty &&
		!(e->flags & (FC_E_PDIRTY | FC_E_PENDING));
}

/*
 * Drop an entry from the hash.  The caller checked it is idle (no in-flight
 * I/O, not BUSY, not under writeback: "eviction vs in-flight I/O").
 * Reuse before commit: an entry still committed as dirty (PDIRTY) goes to
 * the pending list and is only reused after a commit recorded it clean.
 */
void fc_entry_release(struct fc_pool *pool, struct fc_entry *e)
{
	fc_entry_set(pool, e, 0, 0);
	hash_remove(pool, e);
	e->flags &= ~(FC_E_REF | FC_E_SER_CLEAN);
	fc_entry_bump(e);
	if (e->flags & FC_E_PDIRTY) {
		e->flags |= FC_E_PENDING;
		e->next = pool->pending_head;
		pool->pending_head = fc_eidx(pool, e);
		return;
	}
	free_entry(pool, e);
}

/* After a commit: pending entries no longer PDIRTY become free. */
void fc_release_pending(struct fc_pool *pool)
{
	u32 i = pool->pending_head, keep = FC_NONE;

	while (i != FC_NONE) {
		struct fc_entry *e = &pool->e[i];
		u32 next = e->next;

		if (e->flags & FC_E_PDIRTY) {
			e->next = keep;
			keep = i;
		} else {
			free_entry(pool, e);
		}
		i = next;
	}
	pool->pending_head = keep;
}

/*
 * CLOCK over blocks [@lo, @hi) with hand *@hand: a referenced entry gets
 * a second chance; bounded scan.
 */
static struct fc_entry *clock_evict(struct fc_pool *pool, u32 lo, u32 hi, u32 *hand)
{
	u32 scanned;

	if (*hand < lo || *hand >= hi)
		*hand = lo;
	for (scanned = 0; scanned < 2 * min_t(u32, hi - lo, 4096); scanned++) {
		struct fc_entry *e = &pool->e[*hand];

		if (++*hand >= hi)
			*hand = lo;
		if (!evictable(e))
			continue;
		if ((e->flags & FC_E_REF) && e->valid) {
			e->flags &= ~FC_E_REF;
			continue;
		}
		fc_entry_release(pool, e);
		if (e->flags & FC_E_FREE)
			return e;
	}
	return NULL;
}

/* A free block: on the leg with more free blocks (clean data uses both legs). */
static u32 take_free(struct fc_pool *pool)
{
	unsigned int leg = pool->nr_free_leg[1] > pool->nr_free_leg[0];
	u32 i = pop_free(pool, leg);

	return i != FC_NONE ? i : pop_free(pool, !leg);
}

/* A new entry for (vol, oblock), hashed, valid = 0; NULL if none free. */
struct fc_entry *fc_alloc_entry(struct fc_pool *pool, u8 vol, u64 oblock)
{
	struct fc_entry *e;
	u32 i;

	if (pool->ser_window)
		return NULL;	/* see fc_commit(): no duplicate mappings */
	i = take_free(pool);
	if (i == FC_NONE) {
		if (!clock_evict(pool, 0, (u32)pool->g.nr_blocks, &pool->clock_hand))
			return NULL;
		i = take_free(pool);
		if (i == FC_NONE)
			return NULL;
	}
	e = &pool->e[i];
	e->oblock = oblock;
	e->vol = vol;
	e->valid = 0;
	e->dirty = 0;
	atomic_set(&e->inflight, 0);
	hash_insert(pool, e);
	return e;
}

bool fc_alloc_twin(struct fc_pool *pool, struct fc_entry *e)
{
	u32 idx = fc_eidx(pool, e), t, lo, hi;
	unsigned int leg = !fc_block_leg(&pool->g, idx);

	if (pool->twin[idx] != FC_NONE)
		return true;
	if (pool->ser_window || !fc_redundant(pool) || (e->dirty && twin_join_fault()))
		return false;
	t = pop_free(pool, leg);
	if (t == FC_NONE) {
		lo = leg ? (u32)pool->g.leg_blocks[0] : 0;
		hi = lo + (u32)pool->g.leg_blocks[leg];
		if (!clock_evict(pool, lo, hi, &pool->leg_hand[leg]))
			return false;
		t = pop_free(pool, leg);
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
		pool->nr_joining++;
		pool->nr_joining_leg[fc_block_leg(&pool->g, idx)]++;
		if (!__test_and_set_bit(idx, pool->unsynced))
			pool->nr_unsynced++;
	}
	fc_lone_update(pool, idx);
	return true;
}

/*
 * Visit every entry of the array with pool->lock held, FC_WALK_BATCH
 * entries per hold, rescheduling between holds, so interrupts are never
 * off for a whole-array walk.  @visit(pool, idx, arg) returns false to end
 * the walk.  The entries are seen a batch at a time, not as one snapshot.
 * Process context, without pool->lock.
 */
void fc_walk_entries(struct fc_pool *pool,
		     bool (*visit)(struct fc_pool *pool, u32 idx, void *arg), void *arg)
{
	u64 i = 0, end;
	bool more = true;

	while (more && i < pool->g.nr_blocks) {
		end = min_t(u64, i + FC_WALK_BATCH, pool->g.nr_blocks);
		spin_lock_irq(&pool->lock);
		for (; more && i < end; i++)
			more = visit(pool, (u32)i, arg);
		spin_unlock_irq(&pool->lock);
		cond_resched();
	}
}

struct invalidate_walk {
	u8 vol;
	bool drop_all;
};

static bool invalidate_one(struct fc_pool *pool, u32 idx, void *arg)
{
	struct invalidate_walk *w = arg;
	struct fc_entry *e = &pool->e[idx];

	if (!(e->flags & FC_E_HASHED) || e->vol != w->vol || !fc_entry_idle(e))
		return true;
	if (e->dirty && !w->drop_all)
		fc_entry_set(pool, e, e->dirty, e->dirty);
	else
		fc_entry_release(pool, e);
	return true;
}

/*
 * Drop clean data of volume slot @vol; with @drop_all drop dirty data too
 * (forget of a slot known to hold none).  Entries with I/O in flight are
 * left alone.
 *
 * Called without pool->lock, in process context (fc_walk_entries()).
 * Each entry is judged under the lock when the walk reaches it; for an
 * active volume, blocks cached behind the walk meanwhile are kept (they
 * are newer than the request).  Callers that need the slot to end empty
 * (forget, a new origin size) hold fc_registry_lock with the slot
 * inactive: nothing caches blocks of an inactive slot.
 */
void fc_invalidate_volume(struct fc_pool *pool, u8 vol, bool drop_all)
{
	struct invalidate_walk w = { .vol = vol, .drop_all = drop_all };

	fc_walk_entries(pool, invalidate_one, &w);
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
		 * leg stays; only the I/O that met the error fails.
		 */
		DMERR_LIMIT("flash device %pg (leg %u): I/O error; kept in service, it holds the only copy of %llu dirty blocks: the I/O fails",
			    pool->leg[leg].bdev, leg,
			    pool->nr_twinless_leg[leg] + pool->nr_joining_leg[leg]);
		return false;
	}
	WRITE_ONCE(pool->failed_legs, pool->failed_legs | bit);
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
	queue_work(pool->wq, &pool->commit_work);
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

/*
 * @e (pool->lock held) has its block on a failed leg.  Its clean data is
 * gone with the leg; its dirty data lives on in its twin, on the leg in
 * service, which takes the entry's place, as a degraded load does
 * (fc_meta.c, load_entries()).  The flash records the move at the next
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
	untwin(pool, i, t);
	/* A flush waiting for the block waits for its twin now. */
	if (__test_and_clear_bit(i, pool->flush_set))
		__set_bit(t, pool->flush_set);
	/* Only the dirty sub-blocks have a second copy. */
	fc_entry_set(pool, e, e->dirty, e->dirty);
	hash_remove(pool, e);
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
	hash_insert(pool, n);
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
		untwin(pool, idx, t);
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
	queue_work(pool->wq, &pool->commit_work);
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
	left = fc_redundant(pool) ? pool->nr_twinless : 0;
	spin_unlock_irq(&pool->lock);
	if (given)
		DMINFO("mirrored pool: %llu dirty blocks get their second copy now (resync)%s",
		       given, left ? "; others wait for a free block or the end of a commit (retried)" : "");
	return left;
}
