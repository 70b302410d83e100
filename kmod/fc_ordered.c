// SPDX-License-Identifier: GPL-2.0
/*
 * fc_ordered: ordered write-back's side of the map path (pool option
 * ordered 1, one flash device; docs/DESIGN.md "Ordered write-back").
 *
 * The promise: the origin alone (every flash device lost) holds the volume
 * as it was at some past flush point, plus perhaps some of the writes that
 * came after it and before the next (what a disk's volatile cache may
 * hold after a power cut).  The means:
 *  - epochs: pool->epoch counts flush points (a REQ_PREFLUSH as it is
 *    mapped, a REQ_FUA write as it ends: fc_map(), fc_end_io()); a block's
 *    dirty data carries the epoch it became dirty in (pool->ep[]).
 *  - writeback (fc_writeback.c, wb_ordered()) copies, for each volume,
 *    the blocks of its oldest epoch only, then flushes the origin and
 *    commits, then the next epoch; it closes the open epoch itself (a
 *    flush point at no request: every moment is one) when it must.
 *  - a write to a block dirty from an older epoch would change data that
 *    epoch's copy must still take to the origin: the block is copied to
 *    a free one first (fc_ord_redirect()), which becomes the block's
 *    current version; the old one stays, out of the hash, as a shadow
 *    (pool->shadow) until writeback took its epoch.  A write to a block
 *    written back but still recorded dirty waits for the commit that
 *    records it clean (after a crash the load would write its older data
 *    back over what later epochs put on the origin).
 *  - ordered_lag N bounds how far the origins lag: a flush or FUA write
 *    that would make a flush point while they lack N waits for
 *    writeback (fc_ord_lag_gate()).
 *  - writes that go to the origin directly (write-around, writethrough,
 *    blocks past the last whole one) wait until their volume has no dirty
 *    data (fc_ord_direct_waits()); discards do nothing (map_bio()).
 */
#include <linux/mempool.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "fc_core.h"

#ifdef FC_FAULT_INJECT
#include <linux/moduleparam.h>
/*
 * A deliberate bug for the crash harness (replay-guest.sh ordered=1): a
 * write to a block dirty from an older epoch goes in place, no copy; the
 * ordered walk must find torn origins.
 */
static bool mutant_ord_in_place;
module_param(mutant_ord_in_place, bool, 0644);
MODULE_PARM_DESC(mutant_ord_in_place, "test build: ordered write-back rewrites older epochs in place (a bug on purpose)");

static bool ord_in_place(void)
{
	return READ_ONCE(mutant_ord_in_place);
}

/* Another (replay-guest.sh ordered_lag=N, fc_ordered.sh): ordered_lag not enforced. */
static bool mutant_ord_no_lag;
module_param(mutant_ord_no_lag, bool, 0644);
MODULE_PARM_DESC(mutant_ord_no_lag, "test build: ordered_lag is not enforced (a bug on purpose)");

static bool ord_no_lag(void)
{
	return READ_ONCE(mutant_ord_no_lag);
}
#else
static inline bool ord_in_place(void)
{
	return false;
}

static inline bool ord_no_lag(void)
{
	return false;
}
#endif

/* Wait on ord_wait for the end of the next writeback batch (pool->lock held). */
void fc_ord_wait_locked(struct fc_pool *pool, struct bio *bio)
{
	bio_list_add(&pool->ord_wait, bio);
	pool->st_ord_waits++;
	queue_work(pool->wq, &pool->wb_work);
}

/* A writeback batch ended: the writes that waited are mapped again. */
void fc_ord_kick_locked(struct fc_pool *pool)
{
	if (bio_list_empty(&pool->ord_wait))
		return;
	bio_list_merge(&pool->deferred, &pool->ord_wait);
	bio_list_init(&pool->ord_wait);
	queue_work(pool->wq, &pool->worker);
}

/*
 * Flush points the origins lack (pool->lock held): those made since the
 * oldest epoch with dirty data began, with the FUA writes let through
 * (their flush points come at their end); 0 when nothing is dirty or
 * writeback is not ordered (the status and the stats say 0 then).
 * ord_origin_epoch is the last collection's, never later than the truth:
 * the count may err high, never low.
 */
u32 fc_ord_behind(struct fc_pool *pool)
{
	s32 d;

	if (!pool->nr_dirty || !fc_wb_ordered(pool))
		return 0;
	d = (s32)(pool->epoch + pool->ord_points - READ_ONCE(pool->ord_origin_epoch));
	return d > 0 ? (u32)d : 0;
}

/* Ordered write-back: seconds the origins lag (their oldest missing data); else 0. */
unsigned int fc_ord_origin_lag(struct fc_pool *pool)
{
	if (!fc_wb_ordered(pool) || !READ_ONCE(pool->nr_dirty))
		return 0;
	return (u16)((u16)(jiffies / HZ) - READ_ONCE(pool->ord_origin_ts));
}

/*
 * ordered_lag N (pool->lock held): may @bio, a REQ_PREFLUSH or a REQ_FUA
 * write, make a flush point now?  Not while the origins lack N of them:
 * it waits on ord_wait (1; -EAGAIN instead if @nowait) and writeback,
 * at full pace while something waits there, brings the origins closer;
 * each ordered batch that ends lets it try again.  A FUA write let
 * through counts in ord_points until its end makes its flush point
 * (fc_end_io()); a flush makes its own at once (map_flush()).
 */
int fc_ord_lag_gate(struct fc_pool *pool, struct bio *bio, struct fc_bio *fb, bool nowait)
{
	u32 n = READ_ONCE(pool->opts.val[FC_OPT_ORDERED_LAG]);

	if (!n || !fc_ordered(pool) || (fb->flags & FC_BF_ORD_POINT))
		return 0;
	/* Writeback cannot bring the origins closer: holding would hang. */
	if (READ_ONCE(pool->md_mode) != FC_MD_RW || READ_ONCE(pool->ord_wb_failed))
		return 0;
	if (fc_ord_behind(pool) >= n && !ord_no_lag()) {
		if (nowait)
			return -EAGAIN;
		bio_list_add(&pool->ord_wait, bio);
		pool->st_lag_waits++;
		queue_work(pool->wq, &pool->wb_work);
		return 1;
	}
	if (!(fb->opf & REQ_PREFLUSH)) {
		fb->flags |= FC_BF_ORD_POINT;
		pool->ord_points++;
	}
	return 0;
}

/*
 * What a write to entry @e needs before it may change the block
 * (pool->lock held; ordered on).  @worker: process context.
 */
enum fc_ord fc_ord_write(struct fc_pool *pool, struct fc_entry *e, bool worker)
{
	u32 i = fc_eidx(pool, e);

	if (!e->dirty)
		return (e->flags & FC_E_PDIRTY) ? FC_ORD_COMMIT : FC_ORD_GO;
	if (pool->ep[i] == pool->epoch || ord_in_place())
		return FC_ORD_GO;
	if (!fc_entry_idle(e))
		return FC_ORD_PARK;
	return worker ? FC_ORD_REDIRECT : FC_ORD_DEFER;
}


/*
 * A write to block @ei, dirty from an older epoch (the worker, no lock
 * held): copy the block to a free one, which takes its place in the hash
 * as the current version, of this epoch; @ei stays as a shadow.  Both
 * are BUSY meanwhile (reads and writes of the block wait).  Returns 0
 * (map @bio again), -EAGAIN (no block free: @bio waits on ord_wait) or
 * -EIO (the copy failed; the block is as it was).
 */
int fc_ord_redirect(struct fc_volume *v, struct bio *bio, u32 ei)
{
	struct fc_pool *pool = v->pool;
	struct fc_entry *e = &pool->e[ei], *n;
	bool locked = false;
	void *buf;
	u32 ni;
	int r;

	spin_lock_irq(&pool->lock);
	/* Still the block's current version, and still to be copied? */
	if (!(e->flags & FC_E_HASHED) || fc_ord_write(pool, e, true) != FC_ORD_REDIRECT) {
		spin_unlock_irq(&pool->lock);
		return 0;
	}
	ni = fc_take_block(pool);
	if (ni == FC_NONE) {
		fc_ord_wait_locked(pool, bio);
		spin_unlock_irq(&pool->lock);
		return -EAGAIN;
	}
	n = &pool->e[ni];
	n->flags = FC_E_BUSY;
	n->vol = e->vol;
	n->oblock = e->oblock;
	n->valid = 0;
	n->dirty = 0;
	atomic_set(&n->inflight, 0);
	e->flags |= FC_E_BUSY;
	spin_unlock_irq(&pool->lock);

	buf = mempool_alloc(pool->fill_pool, GFP_NOIO);
	r = fc_sync_io(pool, fc_block_bdev(pool, ei), REQ_OP_READ, fc_block_sector(pool, ei),
		       pool->g.block_sectors, buf);
	if (!r)
		r = fc_sync_io(pool, fc_block_bdev(pool, ni), REQ_OP_WRITE,
			       fc_block_sector(pool, ni), pool->g.block_sectors, buf);
	mempool_free(buf, pool->fill_pool);

	/*
	 * A commit serialising in several lock holds (ser_window) must see
	 * the two records before the swap or after it, never one of each:
	 * two current records of one block would not load.
	 */
	spin_lock_irq(&pool->lock);
	if (pool->ser_window && !r) {
		spin_unlock_irq(&pool->lock);
		mutex_lock(&pool->commit_lock);
		locked = true;
		spin_lock_irq(&pool->lock);
	}
	e->flags &= ~FC_E_BUSY;
	n->flags = 0;
	if (r) {
		fc_put_block(pool, ni);
	} else {
		fc_hash_remove(pool, e);
		e->flags &= ~FC_E_REF;
		__set_bit(ei, pool->shadow);
		pool->nr_shadows++;
		fc_mark_page_dirty(pool, ei);
		pool->ep[ni] = pool->epoch;
		fc_hash_insert(pool, n);
		fc_entry_set(pool, n, e->valid, e->dirty);
		pool->st_redirects++;
	}
	fc_kick_locked(pool);
	spin_unlock_irq(&pool->lock);
	if (locked)
		mutex_unlock(&pool->commit_lock);
	if (r)
		DMERR_LIMIT("volume %u block %llu: ordered write-back could not copy the block for a write (flash I/O error %d): I/O error",
			    v->id, e->oblock, r);
	return r ? -EIO : 0;
}

/*
 * Ordered write-back: does a write decided to go to the origin directly
 * (@act) wait (pool->lock held)?  While its volume has dirty data (shadows
 * too), it would reach the origin before data of older epochs; while its
 * ordered log holds records past the head, a replay would write older
 * data over it.
 */
bool fc_ord_direct_waits(struct fc_pool *pool, struct fc_volume *v, enum fc_action act)
{
	if (act != FC_ACT_WRITE_AROUND && act != FC_ACT_ORIGIN_WHOLE && act != FC_ACT_WT &&
	    act != FC_ACT_ORIGIN)
		return false;
	return pool->vol[v->slot].dirty != 0 || READ_ONCE(pool->vol[v->slot].olog_pending);
}

static struct fc_olink *olink_alloc(struct fc_pool *pool)
{
	u32 nr = (u32)pool->g.nr_blocks, i;
	struct fc_olink *l = vmalloc(array_size(nr, sizeof(*l)));

	if (!l)
		return NULL;
	for (i = 0; i < nr; i++) {
		l[i].prev = FC_OLINK_OFF;
		l[i].next = FC_NONE;
	}
	return l;
}

static bool loaded_dirty(struct fc_pool *pool, u32 i)
{
	return pool->e[i].dirty && !(pool->e[i].flags & FC_E_FREE);
}

/* Sort keys: the oldest epoch first, then the entry's index. */
static int key_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Age of loaded dirty entry @i: flush points since its epoch (the load's epoch is past all). */
static u32 age(struct fc_pool *pool, u32 i)
{
	return pool->epoch - pool->ep[i];
}

/*
 * Link the @n loaded dirty entries, their ages at most @oldest, oldest
 * epoch first and in array order within an epoch.  When the ages take
 * fewer values than there are entries: a count a value, then one pass
 * (linear; 4 bytes a value and 4 an entry while it runs); else a sort of
 * 8-byte keys (age, index).
 */
static int link_by_age(struct fc_pool *pool, u64 n, u32 oldest)
{
	u32 nr = (u32)pool->g.nr_blocks, i, b, c, *pos, *order;
	u64 k, *keys;

	if ((u64)oldest < n) {
		pos = kvcalloc((size_t)oldest + 1, sizeof(*pos), GFP_KERNEL);
		order = kvmalloc_array(n, sizeof(*order), GFP_KERNEL);
		if (!pos || !order) {
			kvfree(pos);
			kvfree(order);
			return -ENOMEM;
		}
		for (i = 0; i < nr; i++)
			if (loaded_dirty(pool, i))
				pos[oldest - age(pool, i)]++;
		for (b = 0, c = 0; b <= oldest; b++) {
			u32 cnt = pos[b];

			pos[b] = c;
			c += cnt;
		}
		for (i = 0; i < nr; i++)
			if (loaded_dirty(pool, i))
				order[pos[oldest - age(pool, i)]++] = i;
		for (k = 0; k < n; k++)
			fc_olink_tail(pool, order[k]);
		kvfree(pos);
		kvfree(order);
		return 0;
	}
	keys = kvmalloc_array(n, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	for (i = 0, k = 0; i < nr; i++)
		if (loaded_dirty(pool, i))
			keys[k++] = ((u64)~age(pool, i) << 32) | i;
	sort(keys, n, sizeof(*keys), key_cmp, NULL);
	for (k = 0; k < n; k++)
		fc_olink_tail(pool, (u32)keys[k]);
	kvfree(keys);
	return 0;
}

/*
 * After a load or a format (no I/O yet, no lock needed): for a pool whose
 * flash carries the ordered feature or whose table turns the option on,
 * the lists, every dirty entry linked, oldest epoch first.  The pool's
 * epoch is past every loaded one, so its distance to an entry's epoch
 * orders them (epochs wrap).  Without the feature no epoch was loaded:
 * every dirty entry is of epoch 0, the open one, in array order.
 */
int fc_ord_index_build(struct fc_pool *pool)
{
	u32 nr = (u32)pool->g.nr_blocks, i, oldest = 0;
	u64 n = 0;
	int r;

	if (!pool->ep || (!pool->ord_feature && !fc_ordered(pool)))
		return 0;
	pool->olink = olink_alloc(pool);
	if (!pool->olink)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (!loaded_dirty(pool, i))
			continue;
		n++;
		oldest = max(oldest, age(pool, i));
	}
	if (n) {
		r = link_by_age(pool, n, oldest);
		if (r)
			return r;
	}
	pool->olink_ready = true;
	return 0;
}

/* fc_ord_index_enable()'s walk: dirty data from before the lists, epoch *@arg. */
static bool link_before(struct fc_pool *pool, u32 i, void *arg)
{
	if (loaded_dirty(pool, i) && pool->olink[i].prev == FC_OLINK_OFF) {
		pool->ep[i] = *(u32 *)arg;
		fc_olink_head(pool, i);
	}
	return true;
}

/*
 * ordered 1 set on a running pool that has no lists yet (process context,
 * before the option takes effect): allocate them; from then on every entry
 * that becomes dirty is linked at its list's tail, in a new epoch (the
 * open one is closed here).  The dirty data from before, written back in
 * no order so far, is linked at the heads as one epoch older than all of
 * that (fc_walk_entries()).  Ordered writeback waits for the lists
 * (olink_ready); until that data reached the origin, the origin holds no
 * flush point (it did not before either).  0, or -ENOMEM.
 */
int fc_ord_index_enable(struct fc_pool *pool)
{
	struct fc_olink *l;
	u32 old;

	if (!pool->ep || READ_ONCE(pool->olink))
		return 0;
	l = olink_alloc(pool);
	if (!l)
		return -ENOMEM;
	spin_lock_irq(&pool->lock);
	if (pool->olink) {
		spin_unlock_irq(&pool->lock);
		vfree(l);
		return 0;
	}
	pool->olink = l;
	old = pool->epoch++;
	spin_unlock_irq(&pool->lock);
	fc_walk_entries(pool, link_before, &old);
	spin_lock_irq(&pool->lock);
	pool->olink_ready = true;
	spin_unlock_irq(&pool->lock);
	queue_work(pool->wq, &pool->wb_work);
	return 0;
}
