// SPDX-License-Identifier: GPL-2.0
/*
 * fc_fill: fills, FC_ACT_FILL of the map path in the worker (docs/DESIGN.md,
 * "The decision table"): the origin's data of a BUSY entry read into a buffer
 * from pool->fill_pool and written to its flash block (and twin), then the
 * entry settled; and the stream fill, one origin request for the blocks a
 * sequential read is about to reach (fc_fill_stream()).
 *
 * Locking: no lock across the fill I/O (process context, on pool->fill_wq):
 * the entry is BUSY instead; pool->lock around each state change.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "fc_core.h"

/*
 * A fill's flash write on @leg failed with @r: counted, and the leg failed
 * (a mirrored pool).  -EAGAIN when it was: decide again (the entry moves or
 * loses its twin); else @r.
 */
static int fill_write_failed(struct fc_pool *pool, unsigned int leg, int r)
{
	DMERR_LIMIT("fill: flash write failed (%d)", r);
	atomic64_inc(&pool->flash_write_errors);
	return fc_leg_error_unlocked(pool, leg) ? -EAGAIN : r;
}

/* Copy the sub-blocks @fill of @block from the origin to @e's flash block. */
static int do_fill(struct fc_volume *v, struct fc_entry *e, u64 block, u8 fill)
{
	struct fc_pool *pool = v->pool;
	u32 sub = pool->g.subblock_sectors, i = 0, j;
	u32 eidx = fc_eidx(pool, e), twin = fc_twin_of(pool, eidx);	/* BUSY: stable */
	void *buf = mempool_alloc(pool->fill_pool, GFP_NOIO);
	unsigned int leg;
	int r = 0;

	while (i < pool->g.nr_subblocks) {
		if (!(fill & (1u << i))) {
			i++;
			continue;
		}
		for (j = i; j < pool->g.nr_subblocks && (fill & (1u << j)); j++)
			;
		r = fc_sync_io(pool, v->origin, REQ_OP_READ,
			       (block << pool->block_shift) + i * sub, (j - i) * sub,
			       buf);
		if (r) {
			DMERR_LIMIT("fill: origin read failed (%d)", r);
			break;
		}
		r = fc_sync_io(pool, fc_block_bdev(pool, eidx), REQ_OP_WRITE,
			       fc_block_sector(pool, eidx) + i * sub, (j - i) * sub,
			       buf);
		leg = fc_block_leg(&pool->g, eidx);
		/* Mirrored: a write is about to make these sub-blocks dirty. */
		if (!r && twin != FC_NONE && !fc_block_failed(pool, twin)) {
			r = fc_sync_io(pool, fc_block_bdev(pool, twin), REQ_OP_WRITE,
				       fc_block_sector(pool, twin) + i * sub, (j - i) * sub,
				       buf);
			leg = !leg;
		}
		if (r) {
			r = fill_write_failed(pool, leg, r);
			break;
		}
		i = j;
	}
	mempool_free(buf, pool->fill_pool);
	return r;
}

/*
 * FC_ACT_FILL, without pool->lock: fill the sub-blocks @fill of the BUSY
 * entry @e, then settle it: @fill valid, or the bio keeps away from the
 * cache from now on (FC_BF_NOFILL).
 */
void fc_fill_entry(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
		   u64 block, u8 fill)
{
	struct fc_pool *pool = v->pool;
	int r = do_fill(v, e, block, fill);
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	e->flags &= ~FC_E_BUSY;
	if (!r) {
		fc_entry_set(pool, e, e->valid | fill, e->dirty);
		/* read in for a read, nothing else in flight: warm restart keeps it */
		if (fc_warm_on(pool) && !op_is_write(fb->opf) && !e->dirty &&
		    !atomic_read(&e->inflight)) {
			__set_bit(fc_eidx(pool, e), pool->warm);
			pool->warm_feature = true;	/* the superblocks say so from now on */
		}
		fc_stat_inc(pool, v->slot, FC_ST_PROMOTIONS);
		fb->filled_twin = fc_twin_of(pool, fc_eidx(pool, e));
		if (fb->filled_twin != FC_NONE)
			fb->flags |= FC_BF_TWIN_FILLED;
	} else {
		if (r != -EAGAIN)
			fb->flags |= FC_BF_NOFILL;
		if (!e->valid && !atomic_read(&e->inflight))
			fc_entry_release(pool, e);
	}
	/* Bios that waited on the BUSY entry: the worker must run again. */
	fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * FC_ACT_FILL of a read miss that continues a short stream (FC_BF_STREAM:
 * the two blocks before it were read lately, as an index range scan reads),
 * without pool->lock.  @e was just allocated for the bio (BUSY, nothing
 * valid).  The blocks after it, up to FC_RA_BYTES in all, what the origin
 * takes in one request (fc_ra_blocks(): a read split in two would cost a
 * second seek) and the end of the volume, are given entries too if they have none and no origin write
 * of theirs is in flight (the same rule as any fill: promotion vs a
 * write); new writes to them wait while they are BUSY.  A block that has
 * an entry (a scan passes cached pages: a database's hot pages lie among
 * its cold ones) or an origin write in flight is skipped, not a reason to
 * stop: the one origin request reads it with the others (on spindles it
 * costs what one block's read does) and its part of the buffer is dropped,
 * so the flash's copy, dirty or not, is never touched.  The blocks given
 * entries are written to the flash and made valid and clean.  Not
 * referenced, CLOCK takes them first if the stream does not come.
 * False: nothing done (no buffer), the caller fills as usual.
 */
bool fc_fill_stream(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e, u64 block)
{
	struct fc_pool *pool = v->pool;
	sector_t bs = pool->g.block_sectors;
	unsigned int max = fc_ra_blocks(bs, FC_RA_BYTES >> SECTOR_SHIFT,
					queue_max_sectors(bdev_get_queue(v->origin)));
	struct fc_entry *ra[FC_RA_BYTES / (FC_MIN_BLOCK_SECTORS << SECTOR_SHIFT)];
	unsigned int n = 1, k, done = 0, noio;
	unsigned long flags;
	void *buf;
	int r;

	noio = memalloc_noio_save();
	buf = vmalloc(array_size(max, bs << SECTOR_SHIFT));
	memalloc_noio_restore(noio);
	if (!buf)
		return false;
	ra[0] = e;
	spin_lock_irqsave(&pool->lock, flags);
	for (k = 1; k < max && block_cacheable(v, block + k); k++) {
		u64 b = block + k;
		struct fc_entry *x;

		ra[k] = NULL;
		if (fc_lookup(pool, v->slot, b) || fc_origin_writes_in_flight(pool, stripe_of(v, b)))
			continue;	/* read with the others, not installed */
		x = fc_alloc_entry(pool, v->slot, b);
		if (!x)
			break;
		x->flags |= FC_E_BUSY;
		ra[k] = x;
		n = k + 1;
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	r = fc_sync_io(pool, v->origin, REQ_OP_READ, block << pool->block_shift, n * bs, buf);
	if (r)
		DMERR_LIMIT("fill: origin read failed (%d)", r);
	for (k = 0; k < n && !r; k++) {
		u32 idx;

		if (!ra[k]) {
			done++;
			continue;
		}
		idx = fc_eidx(pool, ra[k]);
		r = fc_sync_io(pool, fc_block_bdev(pool, idx), REQ_OP_WRITE,
			       fc_block_sector(pool, idx), bs, buf + ((size_t)k * bs << SECTOR_SHIFT));
		if (r) {
			r = fill_write_failed(pool, fc_block_leg(&pool->g, idx), r);
			break;
		}
		done++;
	}
	vfree(buf);

	spin_lock_irqsave(&pool->lock, flags);
	for (k = 0; k < n; k++) {
		struct fc_entry *x = ra[k];

		if (!x)
			continue;
		x->flags &= ~FC_E_BUSY;
		if (k < done) {
			/* BUSY since its allocation: nothing dirty came in */
			fc_entry_set(pool, x, pool->full_mask, 0);
			if (fc_warm_on(pool) && !atomic_read(&x->inflight)) {
				__set_bit(fc_eidx(pool, x), pool->warm);
				pool->warm_feature = true;
			}
			fc_stat_inc(pool, v->slot, k ? FC_ST_READ_AHEAD : FC_ST_PROMOTIONS);
		} else if (!x->valid && !atomic_read(&x->inflight)) {
			fc_entry_release(pool, x);
		}
	}
	if (!done && r != -EAGAIN)
		fb->flags |= FC_BF_NOFILL;
	fc_kick_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	return true;
}
