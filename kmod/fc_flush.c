// SPDX-License-Identifier: GPL-2.0
/*
 * fc_flush: the flush message of a volume or of the pool
 * (fc_flush_volumes(), docs/DESIGN.md "Flush"): it marks the blocks dirty
 * now in pool->flush_set and waits, interruptibly and without doing any I/O
 * itself, until the writeback worker (fc_writeback.c, collect_flush()) has
 * copied every one of them to the origin and flushed it there; a presuspend
 * of the table the message came through ends the wait (fc_flush_stop()).
 *
 * The flush set's helpers for the writeback worker are here too
 * (fc_flush_pending(), fc_flush_lost()).
 *
 * Locking: the marks and the per-volume counts under pool->lock; the wait
 * on pool->flush_wait holds no lock.
 */
#include <linux/slab.h>
#include <linux/sched/mm.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>

#include "fc_core.h"

/*
 * A marked block on a failed leg with no copy on the other (no twin, or a
 * twin not filled yet): never copied, it would hold its flush for ever.
 * It leaves the set as a failed copy does (pool->lock held).
 */
bool fc_flush_lost(struct fc_pool *pool, u32 i)
{
	struct fc_vslot *s = &pool->vol[pool->e[i].vol];

	if (!fc_block_failed(pool, i) ||
	    (fc_twin_of(pool, i) != FC_NONE && !test_bit(i, pool->joining)))
		return false;
	__clear_bit(i, pool->flush_set);
	s->flush_left--;
	s->flush_errors++;
	return true;
}

/* Some active volume has blocks a flush waits for (pool->lock held). */
bool fc_flush_pending(struct fc_pool *pool)
{
	unsigned int i;

	for (i = 0; i < FC_MAX_VOLUMES; i++)
		if (pool->vol[i].flush_left && pool->vol[i].wb_allowed && pool->vol[i].active)
			return true;
	return false;
}

/* Presuspend (@on) of a table, or its resume: see fc_flush_volumes(). */
void fc_flush_stop(struct fc_pool *pool, bool *stop, bool on)
{
	spin_lock_irq(&pool->lock);
	*stop = on;
	spin_unlock_irq(&pool->lock);
	if (on)
		wake_up_all(&pool->flush_wait);
}

struct flush_mark {
	int slot;		/* < 0: every volume with writeback allowed */
	u64 vols;		/* the slots it marked blocks of, or asked for */
};

/* Mark a dirty block the flush waits for (pool->lock held). */
static bool mark_one(struct fc_pool *pool, u32 idx, void *arg)
{
	struct flush_mark *fm = arg;
	struct fc_entry *e = &pool->e[idx];
	struct fc_vslot *s = &pool->vol[e->vol];

	if (!e->dirty || (fm->slot >= 0 ? e->vol != fm->slot : !(s->wb_allowed && s->active)))
		return true;
	fm->vols |= BIT_ULL(e->vol);
	if (!__test_and_set_bit(idx, pool->flush_set))
		s->flush_left++;
	return true;
}

/*
 * 0 while the flush waits, 1 when none of its volumes has a block left,
 * else why it ends (pool->lock not held).
 */
static int flush_state(struct fc_pool *pool, u64 vols, u64 errors, bool *stop)
{
	struct fc_vslot *s;
	bool left = false, gone = false;
	unsigned int i;
	u64 e = 0;
	int r;

	if (READ_ONCE(pool->md_mode) != FC_MD_RW)
		return -EROFS;
	spin_lock_irq(&pool->lock);
	for (i = 0; i < FC_MAX_VOLUMES; i++) {
		if (!(vols & BIT_ULL(i)))
			continue;
		s = &pool->vol[i];
		e += s->flush_errors;
		left |= !!s->flush_left;
		/* A volume suspended or removed: its origin is out of reach. */
		gone |= s->flush_left && !(s->wb_allowed && s->active);
	}
	r = *stop ? -EAGAIN : e != errors ? -EIO : gone ? -ENODEV : !left;
	spin_unlock_irq(&pool->lock);
	return r;
}

int fc_flush_volumes(struct fc_pool *pool, int slot, bool *stop)
{
	struct flush_mark fm = { .slot = slot };
	u64 errors = 0;
	unsigned int i;
	long t;
	int r;

	if (READ_ONCE(pool->md_mode) != FC_MD_RW) {
		DMERR("flush: the pool's metadata is read-only: dirty data cannot be marked clean (run fcachectl check)");
		return -EROFS;
	}
	spin_lock_irq(&pool->lock);
	if (*stop) {
		spin_unlock_irq(&pool->lock);
		return -EAGAIN;
	}
	/* Copies that began before this point do not count for it (end_batch()). */
	pool->flush_starts++;
	if (slot >= 0)
		fm.vols = BIT_ULL(slot);
	spin_unlock_irq(&pool->lock);

	/* A block cleaned before the walk reaches it is on the origin already. */
	fc_walk_entries(pool, mark_one, &fm);
	spin_lock_irq(&pool->lock);
	for (i = 0; i < FC_MAX_VOLUMES; i++)
		if (fm.vols & BIT_ULL(i))
			errors += pool->vol[i].flush_errors;
	spin_unlock_irq(&pool->lock);
	queue_work(pool->wq, &pool->wb_work);

	/*
	 * No I/O here, no lock held: the worker copies, and wakes us.  The
	 * timeout only looks again at what wakes nobody (metadata mode).
	 */
	do {
		t = wait_event_interruptible_timeout(pool->flush_wait,
						     (r = flush_state(pool, fm.vols, errors, stop)),
						     HZ);
	} while (!t);
	/*
	 * -ERESTARTSYS, not -EINTR: io_uring's task_work (TIF_NOTIFY_SIGNAL)
	 * wakes an interruptible sleep too, with no signal for the caller;
	 * the syscall is then restarted and the flush sent again (it marks
	 * what is dirty then, and waits).  A signal whose handler does not
	 * restart still returns EINTR, a fatal one still ends the caller.
	 */
	if (t < 0)
		return -ERESTARTSYS;
	switch (r) {
	case 1:
		/* Record the clean state (the worker's commit may be running). */
		return fc_request_commit(pool);
	case -EAGAIN:
		DMINFO("flush: interrupted by a suspend; the blocks it waited for are written back after the resume");
		break;
	case -ENODEV:
		DMWARN("flush: a volume was suspended or removed during the flush; its blocks are written back once it is active again");
		break;
	case -EIO:
		DMERR("flush: writeback failed; the blocks stay dirty (see the volumes' error counters)");
		break;
	case -EROFS:
		DMERR("flush: the pool's metadata went read-only: dirty data cannot be marked clean (run fcachectl check)");
		break;
	}
	return r;
}
