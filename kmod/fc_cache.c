// SPDX-License-Identifier: GPL-2.0
/*
 * fc_cache: the in-core cache entries: hash table keyed by (volume slot,
 * origin block), free list, pending-free list, CLOCK eviction and the
 * per-pool / per-volume block counters.
 *
 * Locking: every function here is called with pool->lock held, except
 * fc_cache_alloc/fc_cache_free (constructor/destructor, no concurrency)
 * and the whole-array walks (fc_walk_entries(): fc_invalidate_volume here,
 * fc_vacate_failed in fc_resync.c) that take it a batch at a time.
 *
 * Mirrored pools (two legs): one free list per leg; a clean block is
 * placed on the leg with more free blocks, a twin (fc_alloc_twin(),
 * fc_mirror.c, which owns the redundancy rules) on the other leg of its
 * entry.  A twin lives as long as its entry: it is freed with it (after
 * the commit that records the entry gone when it was committed dirty, as
 * for any block: the pending list).
 *
 * RAM: struct fc_entry is 24 bytes a cache block, the hash one u32 bucket
 * per two blocks (2 bytes a block), the write counts one byte a block
 * (pool->wcount), and two bitmaps per metadata page (negligible): ~27
 * bytes per cache block, 864 MiB per TiB at 32 KiB blocks.
 * A mirrored pool adds 4 bytes a block (the twin links) and five bitmaps
 * (twin_used, unsynced, joining, twinless, resync_failed); a one-device
 * pool 4 (pool->ep, the epoch of dirty data) and a bitmap (shadow), and 8
 * more (pool->olink, the dirty lists) once ordered write-back is on.
 */
#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/sched.h>

#include "fc_core.h"

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
	pool->warm = bitmap_zalloc(nr, GFP_KERNEL);
	pool->pwarm = bitmap_zalloc(nr, GFP_KERNEL);
	pool->ser_unwarm = bitmap_zalloc(nr, GFP_KERNEL);
	if (!pool->e || !pool->wcount || !pool->buckets || !pool->page_dirty || !pool->page_slot ||
	    !pool->page_written || !pool->ghost_slots || !pool->flush_set || !pool->warm ||
	    !pool->pwarm || !pool->ser_unwarm)
		return -ENOMEM;
	if (!fc_mirrored(pool)) {
		/* Ordered write-back: one-device pools only. */
		pool->ep = vzalloc(array_size(nr, sizeof(u32)));
		pool->shadow = bitmap_zalloc(nr, GFP_KERNEL);
		if (!pool->ep || !pool->shadow)
			return -ENOMEM;
	} else {
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
	for (i = 0; i < FC_MAX_VOLUMES; i++) {
		pool->vol[i].ord_head = FC_NONE;
		pool->vol[i].ord_tail = FC_NONE;
	}
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

u32 fc_pop_free(struct fc_pool *pool, unsigned int leg)
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

/* Entry @i no longer has twin @t (not freed here). */
void fc_untwin(struct fc_pool *pool, u32 i, u32 t)
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
	fc_untwin(pool, i, t);
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
		/* Ordered write-back: a loaded shadow is in use, out of the hash. */
		if (pool->shadow && test_bit(i, pool->shadow))
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
	bitmap_free(pool->warm);
	bitmap_free(pool->pwarm);
	bitmap_free(pool->ser_unwarm);
	vfree(pool->ep);
	vfree(pool->olink);
	bitmap_free(pool->shadow);
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

void fc_hash_insert(struct fc_pool *pool, struct fc_entry *e)
{
	u32 b = hash_key(pool, e->vol, e->oblock);

	e->next = pool->buckets[b];
	pool->buckets[b] = fc_eidx(pool, e);
	e->flags |= FC_E_HASHED;
	pool->vol[e->vol].hashed++;
	fc_lone_update(pool, fc_eidx(pool, e));
}

void fc_hash_remove(struct fc_pool *pool, struct fc_entry *e)
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
	/* Ordered write-back: a shadow stays out of the hash. */
	if (!pool->shadow || !test_bit(idx, pool->shadow))
		fc_hash_insert(pool, e);
	pool->nr_used++;
	pool->vol[e->vol].cached++;
	if (e->dirty) {
		pool->nr_dirty++;
		pool->vol[e->vol].dirty++;
	}
	fc_lone_update(pool, idx);
}

#ifdef FC_FAULT_INJECT
/*
 * A deliberate bug for the crash harness (replay-guest.sh ordered=1): a
 * block that becomes dirty goes to the head of its volume's dirty list,
 * not the tail, so writeback takes a later epoch first; the ordered walk
 * must find torn origins.  With it the whole-list check is off (the walk,
 * not a warning, must catch it).
 */
static bool mutant_ord_link_head;
module_param(mutant_ord_link_head, bool, 0644);
MODULE_PARM_DESC(mutant_ord_link_head, "test build: a block that becomes dirty heads its volume's dirty list (a bug on purpose)");

static bool ord_link_head(void)
{
	return READ_ONCE(mutant_ord_link_head);
}

/* The test build checks every dirty list whole before each ordered collection. */
static bool ord_index_full_check(void)
{
	return !ord_link_head();
}
#else
static inline bool ord_link_head(void)
{
	return false;
}

static inline bool ord_index_full_check(void)
{
	return false;
}
#endif

/*
 * Ordered write-back's dirty-block lists (pool->olink, vslot
 * ord_head/ord_tail; fc_ordered.c builds them, docs/DESIGN.md "Ordered
 * write-back"): each volume's dirty entries in the order of their epochs.
 * fc_olink_tail(): entry @i became dirty, of the newest epoch of its
 * volume's list.
 */
void fc_olink_tail(struct fc_pool *pool, u32 i)
{
	struct fc_vslot *s = &pool->vol[pool->e[i].vol];

	pool->olink[i].next = FC_NONE;
	pool->olink[i].prev = s->ord_tail;
	if (s->ord_tail == FC_NONE)
		s->ord_head = i;
	else
		pool->olink[s->ord_tail].next = i;
	s->ord_tail = i;
}

/* Entry @i goes first: older than every linked one. */
void fc_olink_head(struct fc_pool *pool, u32 i)
{
	struct fc_vslot *s = &pool->vol[pool->e[i].vol];

	pool->olink[i].prev = FC_NONE;
	pool->olink[i].next = s->ord_head;
	if (s->ord_head == FC_NONE)
		s->ord_tail = i;
	else
		pool->olink[s->ord_head].prev = i;
	s->ord_head = i;
}

/* fc_entry_set(): entry @i became dirty. */
static void olink_dirty(struct fc_pool *pool, u32 i)
{
	if (!pool->olink)
		return;
	if (ord_link_head())
		fc_olink_head(pool, i);
	else
		fc_olink_tail(pool, i);
}

/* fc_entry_set(): entry @i is clean again (linked or, before the lists were whole, not). */
static void olink_clean(struct fc_pool *pool, u32 i)
{
	struct fc_vslot *s;
	struct fc_olink *l;

	if (!pool->olink || pool->olink[i].prev == FC_OLINK_OFF)
		return;
	s = &pool->vol[pool->e[i].vol];
	l = &pool->olink[i];
	if (l->prev == FC_NONE)
		s->ord_head = l->next;
	else
		pool->olink[l->prev].next = l->next;
	if (l->next == FC_NONE)
		s->ord_tail = l->prev;
	else
		pool->olink[l->next].prev = l->prev;
	l->prev = FC_OLINK_OFF;
	l->next = FC_NONE;
}

/* Set an entry's bitmaps, keeping every counter and the page dirty bit right. */
void fc_entry_set(struct fc_pool *pool, struct fc_entry *e, u8 valid, u8 dirty)
{
	struct fc_vslot *s = &pool->vol[e->vol];

	dirty &= valid;
	if (valid == e->valid && dirty == e->dirty)
		return;
	/*
	 * A sub-block the flash may still record as dirty leaves the cache:
	 * the origin can get newer data than that record's block holds, so
	 * until a commit records the drop no flush may succeed read-only
	 * (fc_ro_flush()).
	 */
	if ((e->flags & FC_E_PDIRTY) && (e->valid & ~valid))
		pool->pdirty_drops++;
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
		olink_dirty(pool, fc_eidx(pool, e));
	} else if (e->dirty && !dirty) {
		pool->nr_dirty--;
		s->dirty--;
		pool->wcount[fc_eidx(pool, e)] = 0;
		olink_clean(pool, fc_eidx(pool, e));
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
static void release_unhashed(struct fc_pool *pool, struct fc_entry *e);

void fc_entry_release(struct fc_pool *pool, struct fc_entry *e)
{
	fc_hash_remove(pool, e);
	release_unhashed(pool, e);
}

/*
 * Ordered write-back: shadow @e is on the origin now.  Its record may
 * still say dirty (PDIRTY): then it waits on the pending list for the
 * commit that records it free, as a released dirty block does.
 */
void fc_shadow_release(struct fc_pool *pool, struct fc_entry *e)
{
	u32 idx = fc_eidx(pool, e);

	__clear_bit(idx, pool->shadow);
	pool->nr_shadows--;
	fc_mark_page_dirty(pool, idx);
	release_unhashed(pool, e);
}

/* fc_entry_release() of an entry out of the hash already. */
static void release_unhashed(struct fc_pool *pool, struct fc_entry *e)
{
	u32 idx = fc_eidx(pool, e);
	bool pwarm = fc_unwarm(pool, idx);

	fc_entry_set(pool, e, 0, 0);
	e->flags &= ~(FC_E_REF | FC_E_SER_CLEAN);
	fc_entry_bump(e);
	/*
	 * Warm restart: a block the flash may still record warm is not
	 * reused, and writes to its origin block wait (fc_warm_write_waits()),
	 * until a commit recorded it free.
	 */
	if (pwarm)
		pool->nr_warm_pending++;
	if ((e->flags & FC_E_PDIRTY) || pwarm) {
		e->flags |= FC_E_PENDING;
		e->next = pool->pending_head;
		pool->pending_head = fc_eidx(pool, e);
		pool->nr_pending++;
		return;
	}
	free_entry(pool, e);
}

/*
 * Read-only metadata: the pending list holds the blocks the flash may
 * still record as dirty data of an origin block that has no entry any
 * more (ro_write() in fc_decide.c).  A list walk: it holds what was
 * released since the last commit (commit_interval, 1 s by default) and
 * grows no more once no commit succeeds.
 */
bool fc_pending_maps(struct fc_pool *pool, u8 vol, u64 oblock)
{
	u32 i;

	for (i = pool->pending_head; i != FC_NONE; i = pool->e[i].next)
		if (pool->e[i].oblock == oblock && pool->e[i].vol == vol)
			return true;
	return false;
}

#ifdef FC_FAULT_INJECT
/*
 * A deliberate bug for the crash harness (replay-guest.sh warm=1): writes
 * to warm blocks and their origin blocks go on at once, and eviction
 * takes warm blocks: the walk must see stale reads.
 */
static bool mutant_warm_no_wait;
module_param(mutant_warm_no_wait, bool, 0644);
MODULE_PARM_DESC(mutant_warm_no_wait, "test build: nothing waits for a warm block's commit (a bug on purpose)");

static bool warm_no_wait(void)
{
	return READ_ONCE(mutant_warm_no_wait);
}
#else
static inline bool warm_no_wait(void)
{
	return false;
}
#endif

/*
 * Warm restart: does a write to (@vol, @oblock) wait for a commit (pool->lock
 * held)?  Yes if its entry @e (NULL: none) may be recorded warm on the
 * flash, or a block released since the last commit that may be maps it.
 */
bool fc_warm_write_waits(struct fc_pool *pool, struct fc_entry *e, u8 vol, u64 oblock)
{
	u32 i;

	if (e)
		return fc_unwarm(pool, fc_eidx(pool, e)) && !warm_no_wait();
	if (!pool->nr_warm_pending || warm_no_wait())
		return false;
	for (i = pool->pending_head; i != FC_NONE; i = pool->e[i].next)
		if (test_bit(i, pool->pwarm) && pool->e[i].oblock == oblock &&
		    pool->e[i].vol == vol)
			return true;
	return false;
}

/* After a commit: pending entries no longer PDIRTY nor pwarm become free. */
void fc_release_pending(struct fc_pool *pool)
{
	u32 i = pool->pending_head, keep = FC_NONE;

	pool->nr_warm_pending = 0;
	while (i != FC_NONE) {
		struct fc_entry *e = &pool->e[i];
		u32 next = e->next;

		if ((e->flags & FC_E_PDIRTY) || test_bit(i, pool->pwarm)) {
			if (test_bit(i, pool->pwarm))
				pool->nr_warm_pending++;
			e->next = keep;
			keep = i;
		} else {
			free_entry(pool, e);
			pool->nr_pending--;
		}
		i = next;
	}
	pool->pending_head = keep;
}

/*
 * CLOCK over blocks [@lo, @hi) with hand *@hand: a referenced entry gets
 * a second chance; bounded scan.
 */
struct fc_entry *fc_clock_evict(struct fc_pool *pool, u32 lo, u32 hi, u32 *hand)
{
	bool unwarmed = false;
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
		/*
		 * Warm restart: a block the flash may record warm is passed
		 * over until a commit records it otherwise (the next lap
		 * takes it); released now, it would hold writes to its
		 * origin block back until then.
		 */
		if (fc_unwarm(pool, (u32)(e - pool->e)) && !warm_no_wait()) {
			unwarmed = true;
			continue;
		}
		fc_entry_release(pool, e);
		if (e->flags & FC_E_FREE)
			return e;
	}
	if (unwarmed)
		fc_queue_commit(pool);
	return NULL;
}

/* A free block: on the leg with more free blocks (clean data uses both legs). */
static u32 take_free(struct fc_pool *pool)
{
	unsigned int leg = pool->nr_free_leg[1] > pool->nr_free_leg[0];
	u32 i = fc_pop_free(pool, leg);

	return i != FC_NONE ? i : fc_pop_free(pool, !leg);
}

/* A free block, or a clean one evicted; FC_NONE if none (pool->lock held). */
u32 fc_take_block(struct fc_pool *pool)
{
	u32 i = take_free(pool);

	if (i != FC_NONE)
		return i;
	if (!fc_clock_evict(pool, 0, (u32)pool->g.nr_blocks, &pool->clock_hand))
		return FC_NONE;
	return take_free(pool);
}

/* Block @i, taken by fc_take_block() and not used, goes back (pool->lock held). */
void fc_put_block(struct fc_pool *pool, u32 i)
{
	push_free(pool, i);
}

/* A new entry for (vol, oblock), hashed, valid = 0; NULL if none free. */
struct fc_entry *fc_alloc_entry(struct fc_pool *pool, u8 vol, u64 oblock)
{
	struct fc_entry *e;
	u32 i;

	if (pool->ser_window)
		return NULL;	/* see fc_commit(): no duplicate mappings */
	i = fc_take_block(pool);
	if (i == FC_NONE)
		return NULL;
	e = &pool->e[i];
	e->oblock = oblock;
	e->vol = vol;
	e->valid = 0;
	e->dirty = 0;
	atomic_set(&e->inflight, 0);
	fc_hash_insert(pool, e);
	return e;
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

	if (e->vol != w->vol || !fc_entry_idle(e))
		return true;
	/* Ordered write-back: a shadow goes only with everything else. */
	if (!(e->flags & FC_E_HASHED)) {
		if (pool->shadow && test_bit(idx, pool->shadow) && w->drop_all)
			fc_shadow_release(pool, e);
		return true;
	}
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

/*
 * The test build, before each ordered collection (pool->lock held): every
 * list whole.  Each entry dirty, of its list's volume, linked both ways,
 * epochs never going back; as many entries as the volume has dirty.  A
 * list that disagrees would let writeback take a later epoch first: a
 * torn origin.
 */
void fc_ord_index_check(struct fc_pool *pool)
{
	unsigned int vol;

	if (!ord_index_full_check() || !pool->olink_ready)
		return;
	for (vol = 0; vol < FC_MAX_VOLUMES; vol++) {
		struct fc_vslot *s = &pool->vol[vol];
		u32 i = s->ord_head, prev = FC_NONE;
		u64 n = 0;

		for (; i != FC_NONE && n <= s->dirty; prev = i, i = pool->olink[i].next, n++) {
			struct fc_entry *e = &pool->e[i];

			if (WARN_ONCE(!e->dirty || e->vol != vol || (e->flags & FC_E_FREE) ||
				      pool->olink[i].prev != prev ||
				      (prev != FC_NONE && fc_epoch_before(pool->ep[i], pool->ep[prev])),
				      "fcache: volume slot %u: dirty list broken at entry %u (dirty %u vol %u flags %#x epoch %u, before it %u)",
				      vol, i, e->dirty, e->vol, e->flags, pool->ep[i],
				      prev == FC_NONE ? 0 : pool->ep[prev]))
				return;
		}
		WARN_ONCE(n != s->dirty || s->ord_tail != prev,
			  "fcache: volume slot %u: %llu entries in its dirty list, %llu dirty", vol, n,
			  s->dirty);
	}
}
