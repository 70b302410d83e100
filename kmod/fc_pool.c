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
 * The pool's commit worker and tick are in fc_tick.c, its messages in
 * fc_poolmsg.c.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>

#include "fc_core.h"

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

/* ---- pool object lifetime ---- */

static void pool_destroy(struct fc_pool *pool)
{
	cancel_delayed_work_sync(&pool->tick);
	if (pool->commit_wq)
		flush_workqueue(pool->commit_wq);
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
	/* No volume is left: nothing queues a commit from pool->wq now. */
	if (pool->commit_wq)
		destroy_workqueue(pool->commit_wq);
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
	bio_list_init(&pool->ord_wait);
	init_waitqueue_head(&pool->wb_wait);
	init_waitqueue_head(&pool->wb_slot);
	init_waitqueue_head(&pool->flush_wait);
	atomic_set(&pool->wb_copies, 0);
	INIT_WORK(&pool->commit_work, fc_commit_work);
	init_completion(&pool->oflush_done);
	INIT_WORK(&pool->oflush_work, fc_oflush_work);
	bio_list_init(&pool->oflush_bios);
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
	/*
	 * Bound and high-priority: the worker runs next on the CPU whose
	 * flush or FUA completion queued it, ahead of the load there (a
	 * waiter sleeps meanwhile); one commit_work runs at a time anyway.
	 */
	pool->commit_wq = alloc_workqueue("fcache-commit", WQ_MEM_RECLAIM | WQ_HIGHPRI, 1);
	pool->fill_wq = alloc_workqueue("fcache-fill", WQ_MEM_RECLAIM | WQ_UNBOUND, 16);
	pool->fill_pool = mempool_create(4, fill_buf_alloc, fill_buf_free,
					 (void *)((size_t)block_sectors << SECTOR_SHIFT));
	pool->wb_items = fc_wb_alloc_items();
	if (!pool->commit_wq || !pool->fill_wq || !pool->fill_pool || !pool->wb_items) {
		r = -ENOMEM;
		*error = "fcache-pool: out of memory";
		goto bad;
	}
	r = fc_meta_open(pool, block_sectors, nr_legs, error);
	/* Ordered write-back: the superblocks say so from the first commit. */
	if (!r && fc_ordered(pool))
		pool->ord_feature = true;
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
	if (fc_pool_set_opts(pool, &pc->opts)) {
		DMERR("ordered 1: out of memory for the dirty blocks' lists (8 bytes a cache block)");
		return -ENOMEM;
	}
	if (fc_acks_held(pool))
		DMWARN("fence_hold: the pool runs on one copy; flushes and FUA writes wait until the other copy is recorded outdated (message peer_outdated)");
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
	/* a table without fence_hold lets held flushes go */
	fc_kick_held(pc->pool);
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
	u32 behind;

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
		behind = fc_ord_behind(pool);
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
		DMEMIT(" %llu %s %s", unwritable, flushes, fc_acks_held(pool) ? "held" : "open");
		/* Ordered write-back: how far the origins lag (0 without it). */
		DMEMIT(" %u %u", behind, fc_ord_origin_lag(pool));
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
	.message = fc_pool_message,
	.iterate_devices = pool_iterate_devices,
};
