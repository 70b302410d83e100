// SPDX-License-Identifier: GPL-2.0
/*
 * fc_pool: the fcache-pool target and the shared pool object.
 *
 * As in dm-thin, the pool object (struct fc_pool) outlives table reloads of
 * the pool device: every fcache-pool table instance (struct fc_pool_c) and
 * every volume holds a reference, counted under fc_registry_lock; the pool
 * is found by its mapped_device.  The last put commits with the CLEAN flag.
 *
 * I/O sent to the pool device itself is refused (DM_MAPIO_KILL).
 *
 * A replace (a reload with "replace 1") brings its device in at preresume
 * under the pool's replace_lock, not the registry lock: its commits write
 * every metadata page, and other pools and volumes go on meanwhile.  A
 * reload's checks take replace_lock (check_reload()).
 *
 * The commit worker (fc_commit_work) implements group commit: every queued
 * empty flush and every completed FUA write waits for one commit, which is
 * then shared by all of them.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>

#include "fc_core.h"

#define FC_TICK (HZ / 10)

struct fc_pool *fc_pool_lookup(struct mapped_device *md)
{
	struct fc_pool *pool;

	list_for_each_entry(pool, &fc_pools, list)
		if (pool->md == md)
			return pool;
	return NULL;
}

static struct fc_pool *lookup_by_flash(struct block_device *bdev)
{
	struct fc_pool *pool;

	list_for_each_entry(pool, &fc_pools, list)
		if (pool->flash == bdev || pool->leg[0].bdev == bdev || pool->leg[1].bdev == bdev)
			return pool;
	return NULL;
}

/* ---- commit worker and periodic tick ---- */

/*
 * A REQ_PREFLUSH or a REQ_FUA write of volume slot @slot after a commit
 * (or a read-only flush) that returned @r.  A failed commit leaves
 * acknowledged writes whose mapping no commit recorded: the dirty data on
 * the flash, until the writeback worker has written the volume's dirty
 * blocks back to its origin (fc_wb_work(); the in-place writes since went
 * to the origin too).  Until then its flushes fail.
 */
static int flush_result(struct fc_pool *pool, int slot, int r)
{
	u64 dirty = READ_ONCE(pool->vol[slot].dirty);

	if (!r && READ_ONCE(pool->md_mode) != FC_MD_RW && READ_ONCE(pool->md_lost) && dirty) {
		DMERR_LIMIT("flush of volume %u failed: read-only metadata, and %llu of its dirty blocks are not written back to the origin yet",
			    pool->vol[slot].id, dirty);
		return -EIO;
	}
	return r;
}

void fc_commit_work(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(ws, struct fc_pool, commit_work);
	struct bio_list flushes, fuas;
	struct bio *bio;
	bool committed = false;
	unsigned int n;
	int r;

	spin_lock_irq(&pool->lock);
	flushes = pool->flush_bios;
	fuas = pool->fua_bios;
	bio_list_init(&pool->flush_bios);
	bio_list_init(&pool->fua_bios);
	spin_unlock_irq(&pool->lock);

	/*
	 * A commit if anything changed since the last one; else only a
	 * flush of the flash, if a volume wrote to it since its last flush
	 * (fc_commit_sync()).  Read-only metadata: nothing to record, flush
	 * the flash if that is enough.
	 */
	r = READ_ONCE(pool->md_mode) == FC_MD_RW ? fc_commit_sync(pool, &committed) :
		fc_ro_flush(pool);
	if (committed)
		pool->last_commit = jiffies;
	n = bio_list_size(&flushes) + bio_list_size(&fuas);
	if (n && !committed) {
		WRITE_ONCE(pool->st_syncs, pool->st_syncs + 1);
	} else if (n) {
		/* Written by this worker only (one commit_work runs at a time). */
		WRITE_ONCE(pool->st_groups, pool->st_groups + 1);
		WRITE_ONCE(pool->st_group_bios, pool->st_group_bios + n);
		if (n > pool->st_group_max)
			WRITE_ONCE(pool->st_group_max, n);
	}

	/*
	 * REQ_PREFLUSH: the commit made the flash durable; now the origin,
	 * unless no write of this volume has reached the origin since an
	 * origin flush that completed: with every write absorbed by the
	 * flash a flush costs one commit, not a trip to the spindles too.
	 * Every write counted in ow_done completed before the flush is sent.
	 */
	while ((bio = bio_list_pop(&flushes))) {
		struct fc_bio *fb = fc_bio(bio);
		struct fc_volume *v = fb->v;

		if (flush_result(pool, v->slot, r)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			continue;
		}
		fb->ow_mark = atomic64_read(&v->ow_done);
		if (fb->ow_mark == atomic64_read(&v->ow_synced)) {
			bio_endio(bio);
			continue;
		}
		fb->kind = FC_BK_FLUSH;
		fc_stat_inc(pool, v->slot, FC_ST_FLUSHES_ORIGIN);
		bio_set_dev(bio, v->origin);
		submit_bio_noacct(bio);
	}
	/* REQ_FUA writes: their data and mapping are now durable. */
	while ((bio = bio_list_pop(&fuas))) {
		fc_bio(bio)->flags |= FC_BF_COMMITTED;
		if (flush_result(pool, fc_bio(bio)->v->slot, r))
			bio->bi_status = BLK_STS_IOERR;
		fc_bio_endio_again(bio);
	}
}

static void fc_tick(struct work_struct *ws)
{
	struct fc_pool *pool = container_of(to_delayed_work(ws), struct fc_pool, tick);
	u32 interval = pool->opts.val[FC_OPT_COMMIT_INTERVAL];
	bool md_dirty, waiters;

	spin_lock_irq(&pool->lock);
	md_dirty = find_first_bit(pool->page_dirty, pool->g.md_pages) < pool->g.md_pages;
	waiters = !bio_list_empty(&pool->busy_wait) || !bio_list_empty(&pool->deferred);
	spin_unlock_irq(&pool->lock);

	if (interval && md_dirty && pool->md_mode == FC_MD_RW &&
	    time_after_eq(jiffies, pool->last_commit + msecs_to_jiffies(interval)))
		queue_work(pool->wq, &pool->commit_work);
	/* Dirty data with one copy while both legs serve: a twin for it. */
	if (fc_nr_twinless(pool) && fc_redundant(pool) && !pool->suspended &&
	    pool->md_mode == FC_MD_RW && time_after(jiffies, pool->last_join + HZ)) {
		pool->last_join = jiffies;
		fc_join_twins(pool);
	}
	if (READ_ONCE(pool->vacating))
		fc_vacate_failed(pool);		/* kicks the waiters itself */
	else if (waiters)
		fc_kick_waiters(pool);
	if (!pool->suspended)
		queue_work(pool->wq, &pool->wb_work);
	queue_delayed_work(pool->wq, &pool->tick, FC_TICK);
}

int fc_request_commit(struct fc_pool *pool)
{
	int r = fc_commit(pool, false);

	pool->last_commit = jiffies;
	return r;
}

/* ---- pool object lifetime ---- */

static void pool_destroy(struct fc_pool *pool)
{
	cancel_delayed_work_sync(&pool->tick);
	if (pool->wq)
		flush_workqueue(pool->wq);
	if (pool->fill_wq)
		flush_workqueue(pool->fill_wq);
	mutex_lock(&pool->wb_lock);
	mutex_unlock(&pool->wb_lock);
	/* Clean shutdown: the next load keeps the clean cached data too. */
	if (pool->e && pool->md_mode == FC_MD_RW && pool->seq)
		if (fc_commit(pool, true))
			DMERR("final commit failed: the pool will be recovered as after a crash");
	if (pool->wq)
		destroy_workqueue(pool->wq);
	if (!IS_ERR_OR_NULL(pool->kc))
		dm_kcopyd_client_destroy(pool->kc);
	if (!IS_ERR_OR_NULL(pool->io))
		dm_io_client_destroy(pool->io);
	bioset_exit(&pool->bs);
	fc_cache_free(pool);
	if (pool->fill_wq)
		destroy_workqueue(pool->fill_wq);
	mempool_destroy(pool->fill_pool);
	kvfree(pool->wb_items);
	vfree(pool->md_buf);
	kfree(pool->md_pg);
	free_percpu(pool->stats);
	kfree(pool);
}

void fc_pool_put(struct fc_pool *pool)
{
	bool last;

	mutex_lock(&fc_registry_lock);
	last = !--pool->refs;
	if (last)
		list_del(&pool->list);
	mutex_unlock(&fc_registry_lock);
	if (last)
		pool_destroy(pool);
}

/* Fill buffers: the reserve is vmalloc-backed if need be (GFP_KERNEL at create). */
static void *fill_buf_alloc(gfp_t gfp, void *size)
{
	return kvmalloc((size_t)size, gfp);
}

static void fill_buf_free(void *buf, void *size)
{
	kvfree(buf);
}

static struct fc_pool *pool_create(struct mapped_device *md, struct block_device *flash,
				   struct block_device *flash2, unsigned int nr_legs,
				   u32 block_sectors, const struct fc_pool_opts *opts,
				   char **error)
{
	struct fc_pool *pool;
	unsigned int i;
	int r;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool) {
		*error = "fcache-pool: out of memory";
		return ERR_PTR(-ENOMEM);
	}
	pool->md = md;
	pool->flash = flash;
	pool->flash2 = flash2;
	/* fc_meta_open() puts each device on the leg its superblock names. */
	pool->leg[0].bdev = flash;
	pool->leg[1].bdev = flash2;
	pool->refs = 1;
	pool->opts = *opts;
	spin_lock_init(&pool->lock);
	mutex_init(&pool->replace_lock);
	mutex_init(&pool->commit_lock);
	mutex_init(&pool->wb_lock);
	bio_list_init(&pool->flush_bios);
	bio_list_init(&pool->fua_bios);
	bio_list_init(&pool->deferred);
	bio_list_init(&pool->busy_wait);
	init_waitqueue_head(&pool->wb_wait);
	init_waitqueue_head(&pool->wb_slot);
	init_waitqueue_head(&pool->flush_wait);
	atomic_set(&pool->wb_copies, 0);
	INIT_WORK(&pool->commit_work, fc_commit_work);
	/* Not committed until the first commit (before any I/O) says so. */
	pool->md_gen = 1;
	INIT_WORK(&pool->worker, fc_worker);
	INIT_WORK(&pool->wb_work, fc_wb_work);
	INIT_DELAYED_WORK(&pool->tick, fc_tick);
	for (i = 0; i < FC_MAX_VOLUMES; i++)
		atomic_set(&pool->vol[i].wb_inflight, 0);
	pool->last_io = jiffies;
	pool->stats = __alloc_percpu(sizeof(struct fc_vstats) * FC_MAX_VOLUMES,
				     __alignof__(struct fc_vstats));
	if (!pool->stats) {
		kfree(pool);
		*error = "fcache-pool: out of memory";
		return ERR_PTR(-ENOMEM);
	}
	pool->last_commit = jiffies;

	pool->io = dm_io_client_create();
	if (IS_ERR(pool->io)) {
		r = PTR_ERR(pool->io);
		*error = "fcache-pool: cannot create a dm-io client";
		goto bad;
	}
	pool->kc = dm_kcopyd_client_create(NULL);
	if (IS_ERR(pool->kc)) {
		r = PTR_ERR(pool->kc);
		*error = "fcache-pool: cannot create a dm-kcopyd client";
		goto bad;
	}
	/* Clones, two at once for a mirrored write (submit_mirrored()). */
	r = bioset_init(&pool->bs, 64, 0, BIOSET_NEED_RESCUER);
	if (r) {
		*error = "fcache-pool: cannot create a bio set";
		goto bad;
	}
	pool->wq = alloc_workqueue("fcache-pool", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!pool->wq) {
		r = -ENOMEM;
		*error = "fcache-pool: cannot create a workqueue";
		goto bad;
	}
	pool->fill_wq = alloc_workqueue("fcache-fill", WQ_MEM_RECLAIM | WQ_UNBOUND, 16);
	pool->fill_pool = mempool_create(4, fill_buf_alloc, fill_buf_free,
					 (void *)((size_t)block_sectors << SECTOR_SHIFT));
	pool->wb_items = fc_wb_alloc_items();
	if (!pool->fill_wq || !pool->fill_pool || !pool->wb_items) {
		r = -ENOMEM;
		*error = "fcache-pool: out of memory";
		goto bad;
	}
	r = fc_meta_open(pool, block_sectors, nr_legs, error);
	if (r)
		goto bad;
	/*
	 * The first commit clears CLEAN, persists recovery and overwrites
	 * every leftover page before any I/O.  A pool that needs a check
	 * stays read-only and writes nothing.
	 */
	r = pool->md_mode == FC_MD_RW ? fc_commit(pool, false) : 0;
	if (r) {
		*error = "fcache-pool: the first metadata commit failed (I/O error)";
		goto bad;
	}
	queue_delayed_work(pool->wq, &pool->tick, FC_TICK);
	return pool;
bad:
	pool->seq = 0;	/* no final commit of a half-built pool */
	pool_destroy(pool);
	return ERR_PTR(r);
}

/* ---- the fcache-pool target ---- */

static void pool_dtr(struct dm_target *ti)
{
	struct fc_pool_c *pc = ti->private;

	if (pc->pool)
		fc_pool_put(pc->pool);
	if (pc->flash_dev)
		dm_put_device(ti, pc->flash_dev);
	if (pc->mirror_dev)
		dm_put_device(ti, pc->mirror_dev);
	kfree(pc);
}

/* Open the second leg named by "mirror <dev>" ("-": missing, degraded). */
static int open_mirror(struct dm_target *ti, struct fc_pool_c *pc, const char *name)
{
	int r;

	pc->nr_legs = name ? 2 : 1;
	if (!name || !strcmp(name, FC_LEG_MISSING))
		return 0;
	r = dm_get_device(ti, name, FMODE_READ | FMODE_WRITE, &pc->mirror_dev);
	if (r) {
		ti->error = "fcache-pool: cannot open the mirror flash device";
		return r;
	}
	if (pc->mirror_dev->bdev == pc->flash_dev->bdev) {
		ti->error = "fcache-pool: mirror names the same device as the flash device";
		return -EINVAL;
	}
	return 0;
}

/* A reload of a live pool device names the same devices. */
static bool same_legs(struct fc_pool *pool, struct fc_pool_c *pc)
{
	return pool->flash == pc->flash_dev->bdev && pool->g.nr_legs == pc->nr_legs &&
		pool->flash2 == (pc->mirror_dev ? pc->mirror_dev->bdev : NULL);
}

/*
 * "replace 1" on a reload of a live pool: one of the table's two devices
 * is the leg in service, the other one comes in for the failed (or
 * missing) leg at preresume (fc_attach_leg()).  A pool no longer
 * degraded with the same devices: a plain reload (the table was reloaded
 * again after its replace).  replace_lock held.
 */
static int check_replace(struct fc_pool *pool, struct fc_pool_c *pc, char **error)
{
	struct block_device *a = pc->flash_dev->bdev, *b = pc->mirror_dev->bdev, *keep;
	unsigned int m;

	if (!fc_mirrored(pool)) {
		*error = "fcache-pool: replace applies to a mirrored pool";
		return -EINVAL;
	}
	if (!pool->failed_legs && same_legs(pool, pc))
		return 0;
	if (pool->failed_legs != 1 && pool->failed_legs != 2) {
		*error = "fcache-pool: replace: the pool is not degraded, no device to replace";
		return -EINVAL;
	}
	m = pool->failed_legs == 2;
	keep = pool->leg[!m].bdev;
	if (keep != a && keep != b) {
		*error = "fcache-pool: replace: neither device is the pool's device in service";
		return -EINVAL;
	}
	pc->replace_bdev = keep == a ? b : a;
	pc->replace_leg = m;
	if (bdev_nr_sectors(pc->replace_bdev) < pool->g.leg_sectors[m]) {
		*error = "fcache-pool: replace: the new device is smaller than the leg it replaces";
		pc->replace_bdev = NULL;
		return -EINVAL;
	}
	return 0;
}

/*
 * A reload of the live pool device of @pool (held by @pc): the same
 * devices and block size, or a replace.  Under replace_lock: a replace
 * running at preresume (pool_preresume()) changes the legs and the
 * devices, and this sees the pool before or after it, never in between.
 */
static int check_reload(struct fc_pool *pool, struct fc_pool_c *pc, char **error)
{
	int r = 0;

	mutex_lock(&pool->replace_lock);
	if (pc->replace) {
		r = check_replace(pool, pc, error);
	} else if (!same_legs(pool, pc)) {
		*error = "fcache-pool: this pool device already uses other flash devices";
		r = -EINVAL;
	}
	if (!r && pool->g.block_sectors != pc->block_sectors) {
		*error = "fcache-pool: block_size differs from the pool's superblock";
		r = -EINVAL;
	}
	mutex_unlock(&pool->replace_lock);
	return r;
}

/* fcache-pool <flash_dev> <block_size> [<#opt_args> <opt_arg>...] */
static int pool_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct mapped_device *md = dm_table_get_md(ti->table);
	struct fc_pool_legs legs;
	struct fc_pool_c *pc;
	struct fc_pool *pool;
	bool reload = false;
	const char *why;
	int r;

	pc = fc_ctr_alloc(ti, argc, 2, sizeof(*pc),
			  "fcache-pool: usage: <flash_dev> <block_size> [<#opt_args> <opt_arg>...]",
			  "fcache-pool: out of memory");
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	pc->ti = ti;
	fc_pool_opts_default(&pc->opts);
	if (fc_parse_u32(argv[1], &pc->block_sectors) ||
	    !is_power_of_2(pc->block_sectors) || pc->block_sectors < FC_MIN_BLOCK_SECTORS ||
	    pc->block_sectors > FC_MAX_BLOCK_SECTORS) {
		ti->error = "fcache-pool: block_size must be a power of two, 8..2048 sectors (4 KiB..1 MiB)";
		r = -EINVAL;
		goto bad;
	}
	if (fc_pool_table_parse(&pc->opts, &legs, argc - 2, argv + 2, &why)) {
		ti->error = (char *)why;
		r = -EINVAL;
		goto bad;
	}
	pc->degraded = legs.degraded;
	pc->replace = legs.replace;
	r = dm_get_device(ti, argv[0], FMODE_READ | FMODE_WRITE, &pc->flash_dev);
	if (r) {
		ti->error = "fcache-pool: cannot open the flash device";
		goto bad;
	}
	r = open_mirror(ti, pc, legs.mirror);
	if (r)
		goto bad;
	if (ti->len != bdev_nr_sectors(pc->flash_dev->bdev)) {
		ti->error = "fcache-pool: the target length must equal the flash device's size";
		r = -EINVAL;
		goto bad;
	}

	mutex_lock(&fc_registry_lock);
	pool = fc_pool_lookup(md);
	if (pool) {
		/* A reload of a live pool device: held, then checked. */
		pool->refs++;
		pc->pool = pool;
		reload = true;
	} else if (pc->replace) {
		ti->error = "fcache-pool: replace 1 brings a device into a live degraded pool; load it with mirror - degraded 1 first";
		r = -EINVAL;
	} else if (lookup_by_flash(pc->flash_dev->bdev) ||
		   (pc->mirror_dev && lookup_by_flash(pc->mirror_dev->bdev))) {
		ti->error = "fcache-pool: the flash device is already used by another pool device";
		r = -EBUSY;
	} else {
		pool = pool_create(md, pc->flash_dev->bdev,
				   pc->mirror_dev ? pc->mirror_dev->bdev : NULL, pc->nr_legs,
				   pc->block_sectors, &pc->opts, &ti->error);
		if (IS_ERR(pool)) {
			r = PTR_ERR(pool);
		} else {
			list_add(&pool->list, &fc_pools);
			pc->pool = pool;
		}
	}
	mutex_unlock(&fc_registry_lock);
	if (!r && reload)
		r = check_reload(pool, pc, &ti->error);
	if (r)
		goto bad;
	ti->num_flush_bios = 0;
	ti->num_discard_bios = 0;
	return 0;
bad:
	pool_dtr(ti);
	return r;
}

static int pool_map(struct dm_target *ti, struct bio *bio)
{
	DMERR_LIMIT("I/O to a pool device is refused; use an fcache volume");
	return DM_MAPIO_KILL;
}

static int pool_preresume(struct dm_target *ti)
{
	struct fc_pool_c *pc = ti->private;
	struct fc_pool *pool = pc->pool;
	const char *why = NULL;
	int r;

	/* The table being resumed brings its tunables. */
	pool->opts = pc->opts;
	if (!pc->replace_bdev)
		return 0;
	/*
	 * Not under fc_registry_lock: the attach's last commit writes every
	 * metadata page to both devices (minutes on a large pool), and every
	 * other pool and volume would wait for it.  Nothing that lock guards
	 * changes here but flash and flash2, at the end; this table holds
	 * the pool; volumes of the pool come and go meanwhile as they do
	 * during any commit, and those that commit wait for commit_lock.  A
	 * reload of this pool waits for replace_lock (check_reload()).
	 */
	mutex_lock(&pool->replace_lock);
	r = fc_attach_leg(pool, pc->replace_leg, pc->replace_bdev, &why);
	if (!r) {
		/* A later reload names these two devices. */
		mutex_lock(&fc_registry_lock);
		pool->flash = pc->flash_dev->bdev;
		pool->flash2 = pc->mirror_dev->bdev;
		mutex_unlock(&fc_registry_lock);
	}
	mutex_unlock(&pool->replace_lock);
	pc->replace_bdev = NULL;
	if (r)
		DMERR("%s (%d)", why, r);
	return r;
}

static void pool_resume(struct dm_target *ti)
{
	struct fc_pool_c *pc = ti->private;

	pc->pool->suspended = false;
	fc_flush_stop(pc->pool, &pc->flush_stop, false);
}

/*
 * A flush message through this table waits holding the table (dm's SRCU),
 * which the suspend waits for next: end the wait now.  The blocks it
 * waited for are written back after the resume.
 */
static void pool_presuspend(struct dm_target *ti)
{
	struct fc_pool_c *pc = ti->private;

	fc_flush_stop(pc->pool, &pc->flush_stop, true);
}

static void pool_presuspend_undo(struct dm_target *ti)
{
	struct fc_pool_c *pc = ti->private;

	fc_flush_stop(pc->pool, &pc->flush_stop, false);
}

static void pool_postsuspend(struct dm_target *ti)
{
	struct fc_pool_c *pc = ti->private;
	struct fc_pool *pool = pc->pool;

	pool->suspended = true;
	/* Let a running writeback batch finish, then commit. */
	mutex_lock(&pool->wb_lock);
	mutex_unlock(&pool->wb_lock);
	fc_request_commit(pool);
}

static void pool_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result, unsigned int maxlen)
{
	static const char *const md_modes[] = { "rw", "ro", "fail" };
	struct fc_pool_c *pc = ti->private;
	struct fc_pool *pool = pc->pool;
	unsigned int sz = 0, i, active = 0, registered = 0;
	u64 used, dirty, nfree, lone, unwritable = 0;
	const char *flushes = "ok";

	switch (type) {
	case STATUSTYPE_INFO:
		mutex_lock(&fc_registry_lock);
		for (i = 0; i < FC_MAX_VOLUMES; i++) {
			registered += !!pool->vol[i].id;
			active += !!pool->vol[i].active;
		}
		mutex_unlock(&fc_registry_lock);
		spin_lock_irq(&pool->lock);
		used = pool->nr_used;
		dirty = pool->nr_dirty;
		nfree = pool->nr_free;
		lone = fc_lone_dirty(pool);
		/* Read-only metadata: see ro_write() (fc_decide.c) and fc_ro_flush(). */
		if (pool->md_mode != FC_MD_RW) {
			unwritable = pool->nr_pending + pool->nr_twins;
			if (pool->pdirty_drops != READ_ONCE(pool->drops_committed))
				flushes = "failing";
			else if (pool->md_lost && dirty)
				flushes = "draining";
		}
		spin_unlock_irq(&pool->lock);
		DMEMIT("%u %llu %llu %llu %s %u %lld %lld %lld %s %d %llu %u %u %llu",
		       pool->g.block_sectors, pool->g.nr_blocks, used, dirty,
		       md_modes[pool->md_mode], pool->needs_check ? 1 : 0,
		       atomic64_read(&pool->flash_read_errors),
		       atomic64_read(&pool->flash_write_errors),
		       atomic64_read(&pool->metadata_errors),
		       fc_wb_state_name(pool->wb_state), atomic_read(&pool->wb_inflight),
		       pool->seq, active, registered, nfree);
		/*
		 * Redundancy, then the dirty blocks with one copy only (all
		 * of them unless mirrored with both legs), then each leg's
		 * state (docs/TABLES.md).
		 */
		DMEMIT(" %s %llu ", !fc_mirrored(pool) ? "single" :
		       fc_redundant(pool) && !lone ? "mirrored" : "degraded",
		       fc_redundant(pool) ? lone : dirty);
		for (i = 0; i < pool->g.nr_legs; i++)
			DMEMIT("%s%s", i ? "," : "", !pool->leg[i].bdev ? "missing" :
			       fc_leg_failed(pool, i) ? "failed" :
			       READ_ONCE(pool->joined_leg) == (int)i &&
			       fc_nr_joining(pool) ? "resync" : "ok");
		/* Read-only metadata: what cannot be written, whether flushes work. */
		DMEMIT(" %llu %s", unwritable, flushes);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %u", pc->flash_dev->name, pc->block_sectors);
		if (pc->opts.nr_given || pc->nr_legs > 1) {
			DMEMIT(" %u", 2 * pc->opts.nr_given + (pc->nr_legs > 1 ? 2 : 0) +
			       (pc->degraded ? 2 : 0));
			if (pc->nr_legs > 1)
				DMEMIT(" mirror %s", pc->mirror_dev ? pc->mirror_dev->name :
				       FC_LEG_MISSING);
			if (pc->degraded)
				DMEMIT(" degraded 1");
			for (i = 0; i < pc->opts.nr_given; i++)
				DMEMIT(" %s %u", fc_pool_opt_name(pc->opts.order[i]),
				       pc->opts.val[pc->opts.order[i]]);
		}
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}
}

static int forget_volume(struct fc_pool *pool, u32 id, char *result, unsigned int maxlen)
{
	unsigned int i;
	int r = -ENOENT;

	mutex_lock(&fc_registry_lock);
	for (i = 0; i < FC_MAX_VOLUMES; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (s->id != id)
			continue;
		if (pool->md_mode != FC_MD_RW) {
			DMWARN("forget %u: the pool's metadata is read-only", id);
			r = -EROFS;
			break;
		}
		if (s->active) {
			DMWARN("forget %u: the volume is active; remove it first", id);
			r = -EBUSY;
			break;
		}
		/* Inactive (fc_registry_lock held): its counters cannot grow. */
		if (READ_ONCE(s->dirty)) {
			DMWARN("forget %u: the volume has dirty data; activate and flush it first", id);
			r = -EBUSY;
			break;
		}
		fc_invalidate_volume(pool, i, true);
		spin_lock_irq(&pool->lock);
		if (s->cached) {
			spin_unlock_irq(&pool->lock);
			r = -EBUSY;
			break;
		}
		s->id = 0;
		s->origin_sectors = 0;
		memset(s->label, 0, sizeof(s->label));
		fc_mark_vt_dirty(pool);
		spin_unlock_irq(&pool->lock);
		r = 0;
		break;
	}
	mutex_unlock(&fc_registry_lock);
	if (!r)
		r = fc_request_commit(pool);
	return r;
}

/*
 * resolve <id> replay|discard: the admin's decision for a volume detached
 * at run time (FC_VOL_DETACHED).  replay: the pool's dirty data is newer
 * than the origin (nothing wrote the origin since): keep it, clear the
 * flag, the next table replays it.  discard: the origin is authoritative:
 * drop every block of the volume, dirty ones too, and clear the flag.
 */
static int resolve_volume(struct fc_pool *pool, u32 id, int discard)
{
	unsigned int i;
	u64 left = 0;
	int r = -ENOENT;

	mutex_lock(&fc_registry_lock);
	for (i = 0; i < FC_MAX_VOLUMES; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (s->id != id)
			continue;
		if (pool->md_mode != FC_MD_RW) {
			DMWARN("resolve %u: the pool's metadata is read-only", id);
			r = -EROFS;
			break;
		}
		if (s->active) {
			DMWARN("resolve %u: the volume is attached; nothing to resolve", id);
			r = -EBUSY;
			break;
		}
		/* Inactive (fc_registry_lock held): nothing adds blocks meanwhile. */
		if (discard)
			fc_invalidate_volume(pool, i, true);
		spin_lock_irq(&pool->lock);
		if (discard)
			left = s->cached;
		if (!left) {
			if (s->detached || discard)
				DMINFO("resolve %u: %s", id, discard ?
				       "the origin is authoritative: the volume's cached and dirty data is dropped" :
				       "the pool's dirty data will be replayed by the next table");
			s->detached = false;
			fc_mark_vt_dirty(pool);
		}
		spin_unlock_irq(&pool->lock);
		r = left ? -EBUSY : 0;
		break;
	}
	mutex_unlock(&fc_registry_lock);
	if (r == -ENOENT)
		DMWARN("resolve %u: no such volume in the pool", id);
	if (!r)
		r = fc_request_commit(pool);
	return r;
}

struct dump_walk {
	u64 busy, wb, infl, pend;
};

static bool dump_one(struct fc_pool *pool, u32 idx, void *arg)
{
	struct dump_walk *w = arg;
	struct fc_entry *e = &pool->e[idx];

	w->busy += !!(e->flags & FC_E_BUSY);
	w->wb += !!(e->flags & FC_E_WB);
	w->infl += !!atomic_read(&e->inflight);
	w->pend += !!(e->flags & FC_E_PENDING);
	return true;
}

/*
 * Diagnostics for developers: counts of everything that can hold a bio.
 * The entry counts are summed a batch per lock hold (fc_walk_entries(): no
 * whole-array walk with interrupts off), so they are not one snapshot.
 */
static void pool_dump(struct fc_pool *pool)
{
	struct dump_walk w = { };
	unsigned int deferred, waiting, flushes, fuas, i;
	u64 ow = 0;

	fc_walk_entries(pool, dump_one, &w);
	spin_lock_irq(&pool->lock);
	for (i = 0; i < FC_STRIPES; i++)
		ow += pool->ow_inflight[i];
	deferred = bio_list_size(&pool->deferred);
	waiting = bio_list_size(&pool->busy_wait);
	flushes = bio_list_size(&pool->flush_bios);
	fuas = bio_list_size(&pool->fua_bios);
	DMINFO("dump: free %llu used %llu dirty %llu pending %llu busy %llu wb %llu inflight %llu",
	       pool->nr_free, pool->nr_used, pool->nr_dirty, w.pend, w.busy, w.wb, w.infl);
	DMINFO("dump: ow %llu ow_big %u deferred %u busy_wait %u flush %u fua %u",
	       ow, pool->ow_big, deferred, waiting, flushes, fuas);
	DMINFO("dump: md %d ser_window %d no_new_dirty %d suspended %d wb_state %d seq %llu vacating %d",
	       pool->md_mode, pool->ser_window, pool->no_new_dirty, pool->suspended,
	       pool->wb_state, pool->seq, pool->vacating);
	spin_unlock_irq(&pool->lock);
}

const char *const fc_stat_names[FC_ST_NR] = {
	[FC_ST_READS] = "reads",
	[FC_ST_READ_HITS] = "read_hits",
	[FC_ST_WRITES] = "writes",
	[FC_ST_WRITE_HITS] = "write_hits",
	[FC_ST_BYPASSED] = "bypassed",
	[FC_ST_ERRORS] = "errors",
	[FC_ST_PROMOTIONS] = "promotions",
	[FC_ST_WRITEBACKS] = "writebacks",
	[FC_ST_READ_AROUND_SEQ] = "read_around_seq",
	[FC_ST_READ_AROUND_COLD] = "read_around_cold",
	[FC_ST_READ_AROUND_OTHER] = "read_around_other",
	[FC_ST_WRITE_ALLOCS] = "write_allocs",
	[FC_ST_WRITE_AROUND_SEQ] = "write_around_seq",
	[FC_ST_WRITE_AROUND_HIGH] = "write_around_high",
	[FC_ST_WRITE_AROUND_BUSY] = "write_around_busy",
	[FC_ST_WRITE_AROUND_OTHER] = "write_around_other",
	[FC_ST_WRITE_SYNC_KEPT] = "write_sync_kept",
	[FC_ST_WRITE_SYNC_HIGH] = "write_sync_high",
	[FC_ST_FUA] = "fua",
	[FC_ST_FLUSHES] = "flushes",
	[FC_ST_FLUSHES_ORIGIN] = "flushes_origin",
	[FC_ST_READ_AHEAD] = "read_ahead",
	[FC_ST_WRITE_RO_REFUSED] = "write_ro_refused",
};

u64 fc_stat_read(struct fc_pool *pool, int slot, enum fc_stat st)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(pool->stats + slot, cpu)->c[st]);
	return sum;
}

/*
 * The clear_stats message, and a slot reused: zero its counters.  An
 * increment racing with this on another CPU may survive it.
 */
void fc_stats_clear(struct fc_pool *pool, int slot)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(pool->stats + slot, cpu), 0, sizeof(struct fc_vstats));
}

/* The pool's "stats" message: commit and writeback counters, name=value. */
static int pool_stats(struct fc_pool *pool, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;

	DMEMIT("commits=%llu commit_pages=%llu commit_us=%llu commit_max_us=%llu",
	       READ_ONCE(pool->st_commits), READ_ONCE(pool->st_commit_pages),
	       div_u64(READ_ONCE(pool->st_commit_ns), NSEC_PER_USEC),
	       div_u64(READ_ONCE(pool->st_commit_max_ns), NSEC_PER_USEC));
	DMEMIT(" group_commits=%llu group_bios=%llu group_max=%llu",
	       READ_ONCE(pool->st_groups), READ_ONCE(pool->st_group_bios),
	       READ_ONCE(pool->st_group_max));
	DMEMIT(" syncs=%llu sync_free=%llu fua_direct=%llu",
	       READ_ONCE(pool->st_syncs), READ_ONCE(pool->st_sync_free),
	       READ_ONCE(pool->st_fua_direct));
	DMEMIT(" writeback_batches=%llu writeback_blocks=%llu writeback_ios=%llu writeback_merged=%llu writeback_us=%llu",
	       READ_ONCE(pool->st_wb_batches), READ_ONCE(pool->st_wb_blocks),
	       READ_ONCE(pool->st_wb_ios), READ_ONCE(pool->st_wb_merged),
	       div_u64(READ_ONCE(pool->st_wb_ns), NSEC_PER_USEC));
	DMEMIT(" writeback_raced=%llu writeback_aged=%llu writeback_skipped=%llu",
	       READ_ONCE(pool->st_wb_raced), READ_ONCE(pool->st_wb_aged),
	       READ_ONCE(pool->st_wb_skipped));
	DMEMIT(" writeback_hot=%llu", READ_ONCE(pool->st_wb_hot));
	return 1;
}

static int pool_message(struct dm_target *ti, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct fc_pool_c *pc = ti->private;
	struct fc_pool *pool = pc->pool;
	struct fc_pool_opts o;
	struct fc_msg m;
	const char *why;
	unsigned int i;

	if (fc_parse_pool_msg(argc, argv, &m, &why)) {
		DMWARN("pool message refused: %s", why);
		return -EINVAL;
	}
	switch (m.kind) {
	case FC_MSG_FLUSH:
		return fc_flush_volumes(pool, -1, &pc->flush_stop);
	case FC_MSG_CLEAR_STATS:
		for (i = 0; i < FC_MAX_VOLUMES; i++)
			fc_stats_clear(pool, i);
		return 0;
	case FC_MSG_STATS:
		return pool_stats(pool, result, maxlen);
	case FC_MSG_SET:
		o = pc->opts;
		if (fc_pool_opt_set(&o, m.key, m.val, &why) || fc_pool_opts_check(&o, &why)) {
			DMWARN("pool message refused: %s", why);
			return -EINVAL;
		}
		pc->opts = o;
		pool->opts = o;
		queue_work(pool->wq, &pool->wb_work);
		return 0;
	case FC_MSG_FORGET:
		return forget_volume(pool, m.id, result, maxlen);
	case FC_MSG_RESOLVE:
		return resolve_volume(pool, m.id, m.discard);
	case FC_MSG_DUMP:
		pool_dump(pool);
		return 0;
	default:
		return -EINVAL;
	}
}

static int pool_iterate_devices(struct dm_target *ti, iterate_devices_callout_fn fn,
				void *data)
{
	struct fc_pool_c *pc = ti->private;

	int r = fn(ti, pc->flash_dev, 0, ti->len, data);

	if (!r && pc->mirror_dev)
		r = fn(ti, pc->mirror_dev, 0, bdev_nr_sectors(pc->mirror_dev->bdev), data);
	return r;
}

struct target_type fc_pool_target = {
	.name = FC_POOL_TARGET,
	.version = {1, 2, 0},
	.module = THIS_MODULE,
	/*
	 * As thin-pool: alone in its table, and never replaced by another
	 * target type while the device exists (volumes hold the pool object
	 * through this device); a read-only pool table makes no sense.
	 */
	.features = DM_TARGET_SINGLETON | DM_TARGET_IMMUTABLE |
		    DM_TARGET_ALWAYS_WRITEABLE,
	.ctr = pool_ctr,
	.dtr = pool_dtr,
	.map = pool_map,
	.presuspend = pool_presuspend,
	.presuspend_undo = pool_presuspend_undo,
	.postsuspend = pool_postsuspend,
	.preresume = pool_preresume,
	.resume = pool_resume,
	.status = pool_status,
	.message = pool_message,
	.iterate_devices = pool_iterate_devices,
};
