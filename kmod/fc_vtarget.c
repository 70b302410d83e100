// SPDX-License-Identifier: GPL-2.0
/*
 * fc_vtarget: the fcache target's table lifecycle and control, one cached
 * origin volume of a pool; the data path (map, end_io, fills, writethrough,
 * the worker) is in fc_volume.c and the files below it.
 *
 * The constructor opens the pool and origin devices, takes a reference on
 * the pool and registers the volume in a slot of the pool's volume table
 * (register_slot(), under fc_registry_lock).  Preresume makes the table the
 * slot's active one; postsuspend and the destructor deactivate it, after
 * the slot's writeback copies in flight have ended.  A table that was
 * active and is suspended without fcachectl's "detach" message marks its
 * slot detached on the flash at postsuspend, before any table that
 * replaces it can be live (suspend_detach()); a table of the slot that
 * resumes clears the mark again (resume_attach()); the old table's
 * destructor, run by dm only after the new table is live, makes it final
 * (settle_detach()).  The next table checks it (check_detached()).
 * Also here: status, messages, iterate_devices, io_hints and the target
 * type, fc_volume_target.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/delay.h>

#include "fc_core.h"

#ifdef FC_FAULT_INJECT
/*
 * Test build only (make fi-module): the next destructor of a table that
 * was active waits dtr_hold_ms before doing its work, one-shot.  dm's
 * resume destroys the old table after the new one is live, so this holds
 * that window open for a power cut (tests/guest/fc_detach_cut.sh).
 */
static unsigned int dtr_hold_ms;
module_param(dtr_hold_ms, uint, 0644);
MODULE_PARM_DESC(dtr_hold_ms, "test build: hold the next destructor of an active table this long (one-shot)");

static void dtr_hold(void)
{
	unsigned int ms = xchg(&dtr_hold_ms, 0);

	if (ms)
		msleep(ms);
}
#else
static inline void dtr_hold(void)
{
}
#endif

/* ---- constructor / destructor ---- */

/*
 * Slot @i is FC_VOL_DETACHED: its last table was torn down at run time by
 * something other than fcachectl (an LVM command that replaced the table,
 * dmsetup remove), or the power failed while it was suspended, so its
 * origin may since have been written directly.  Dirty data would be
 * replayed over those writes: refused until "resolve".  Clean data may be
 * stale: dropped, and the flag cleared.  A mark made by a table that is
 * still suspended (s->susp_detach) is left to preresume (resume_attach()).
 * Called with fc_registry_lock held by the constructor and preresume of a
 * new table.
 */
static int check_detached(struct fc_pool *pool, int i, char **error)
{
	struct fc_vslot *s = &pool->vol[i];
	u64 dirty;

	if (!s->detached || s->susp_detach)
		return 0;
	spin_lock_irq(&pool->lock);
	dirty = s->dirty;
	spin_unlock_irq(&pool->lock);
	if (dirty) {
		DMERR("volume %u: its cache was detached at run time with dirty data (%llu blocks; or the power failed while it was suspended); its origin may hold newer writes; choose with `fcachectl resolve POOL %u --replay|--discard` (pool message: resolve %u replay|discard)",
		      s->id, dirty, s->id, s->id);
		*error = "fcache: the volume's cache was detached at run time with dirty data; its origin may hold newer writes; choose with fcachectl resolve --replay|--discard";
		return -EBUSY;
	}
	if (pool->md_mode != FC_MD_RW) {
		*error = "fcache: the volume was detached at run time and the pool's metadata is read-only: its clean data cannot be dropped";
		return -EROFS;
	}
	fc_invalidate_volume(pool, i, false);
	spin_lock_irq(&pool->lock);
	s->detached = false;
	fc_mark_vt_dirty(pool);
	spin_unlock_irq(&pool->lock);
	DMINFO("volume %u was detached at run time without dirty data: its clean cached data is dropped (the origin may have changed)",
	       s->id);
	return 0;
}

/*
 * Mark @v's slot detached in core (fc_registry_lock held) unless another
 * table of the slot is active or it is marked already; the caller commits.
 * True if it set the mark, with the slot's dirty blocks in @dirty.
 */
static bool set_detached(struct fc_volume *v, u64 *dirty)
{
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];

	if (s->id != v->id || s->active || s->detached)
		return false;
	spin_lock_irq(&pool->lock);
	s->detached = true;
	*dirty = s->dirty;
	fc_mark_vt_dirty(pool);
	spin_unlock_irq(&pool->lock);
	return true;
}

/*
 * Postsuspend of a table that was active (deactivated), without
 * fcachectl's "detach" message: the table may be about to be replaced by
 * one that writes the origin directly (an LVM command or a dmsetup reload
 * swapping in linear, dmsetup remove), and dm destroys the old table only
 * after the new one is live.  So the detach is recorded now, by the commit
 * postsuspend makes anyway, before any replacing table can be live.  The
 * mark is provisional (s->susp_detach): a table of the slot that resumes
 * clears it.  Returns true if it set the mark (@dirty: dirty blocks).
 */
static bool suspend_detach(struct fc_volume *v, u64 *dirty)
{
	struct fc_vslot *s = &v->pool->vol[v->slot];
	bool marked = false;

	if (!v->was_active || v->detach_ok)
		return false;
	mutex_lock(&fc_registry_lock);
	if (set_detached(v, dirty)) {
		s->susp_detach = v;
		marked = true;
	}
	mutex_unlock(&fc_registry_lock);
	return marked;
}

/*
 * Preresume (fc_registry_lock held): a table of the slot resumes, so the
 * mark a suspended table of the slot made (suspend_detach()) is cleared.
 * True if the clear must reach the flash before the table is live: only
 * with dirty data (a leftover mark after a power cut would refuse the
 * volume until "resolve"; with clean data only, it costs the clean blocks
 * at the next table, and the next commit records the clear anyway).
 */
static bool resume_attach(struct fc_volume *v)
{
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];
	bool commit = false;

	if (s->detached && s->susp_detach) {
		spin_lock_irq(&pool->lock);
		s->detached = false;
		commit = s->dirty && pool->md_mode == FC_MD_RW;
		fc_mark_vt_dirty(pool);
		spin_unlock_irq(&pool->lock);
	}
	s->susp_detach = NULL;
	return commit;
}

/*
 * The destructor of a table that was active.  A mark its postsuspend (or
 * "cancel_detach") made, with no table of the slot resumed since, is final
 * now; it is on the flash already.  Without one, the detach is recorded
 * here as a last resort, unless fcachectl announced the teardown or
 * another table of the slot took over.  A crash runs no destructor: a mark
 * already on the flash stays, none is added.
 */
static void settle_detach(struct fc_volume *v)
{
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];
	bool commit = false, final = false;
	u64 dirty = 0;

	mutex_lock(&fc_registry_lock);
	if (s->susp_detach == v) {
		s->susp_detach = NULL;
		final = s->detached && s->id == v->id && !s->active;
		dirty = READ_ONCE(s->dirty);
	} else if (!v->detach_ok) {
		commit = set_detached(v, &dirty);
	}
	mutex_unlock(&fc_registry_lock);
	if (!commit && !final)
		return;
	DMWARN("volume %u: its table was torn down at run time without fcachectl (an LVM command? dmsetup remove?): marked detached%s, %llu dirty blocks kept in the pool; a new table is refused while it has dirty data until `fcachectl resolve`",
	       v->id, final ? " (recorded when it was suspended)" : "", dirty);
	if (commit && fc_commit(pool, false))
		DMERR("volume %u: could not record the detach on the flash", v->id);
}

/*
 * Slot @i writes back through an ordered log (FC_VOL_OLOG) and @v's table
 * has none (fc_registry_lock held): refused while the slot has dirty data.
 * Its origin may be behind records of the log that a replay applies, and
 * its versions of the epochs those records hold count as written back only
 * when the log is walked at resume; written back in place they could roll
 * blocks back under later flush points.
 */
static int check_olog(struct fc_pool *pool, int i, struct fc_volume *v, char **error)
{
	if (!pool->vol[i].olog || v->opts.olog[0] || !READ_ONCE(pool->vol[i].dirty))
		return 0;
	DMERR("volume %u writes back through its ordered log and has %llu dirty blocks: load its table with ordered_log, or flush the volume with its log first",
	      v->id, READ_ONCE(pool->vol[i].dirty));
	*error = "fcache: the volume writes back through its ordered log and has dirty data: its table needs ordered_log";
	return -EINVAL;
}

static int register_slot(struct fc_volume *v, char **error)
{
	struct fc_pool *pool = v->pool;
	sector_t size = bdev_nr_sectors(v->origin);
	int i, r, free_slot = -1;

	for (i = 0; i < FC_MAX_VOLUMES; i++) {
		if (pool->vol[i].id == v->id)
			break;
		if (!pool->vol[i].id && free_slot < 0)
			free_slot = i;
	}
	if (i < FC_MAX_VOLUMES && !pool->vol[i].active) {
		r = check_detached(pool, i, error);
		if (r)
			return r;
	}
	if (i == FC_MAX_VOLUMES) {
		if (free_slot < 0) {
			*error = "fcache: the pool already has 63 volumes; forget one first";
			return -ENOSPC;
		}
		i = free_slot;
		spin_lock_irq(&pool->lock);
		pool->vol[i].id = v->id;
		pool->vol[i].detached = false;
		pool->vol[i].olog = false;
		pool->vol[i].susp_detach = NULL;
		pool->vol[i].origin_sectors = size;
		memset(pool->vol[i].label, 0, sizeof(pool->vol[i].label));
		fc_mark_vt_dirty(pool);
		spin_unlock_irq(&pool->lock);
	} else if (pool->vol[i].origin_sectors != size) {
		/*
		 * A table with another origin size must not misplace dirty
		 * data: refused while the volume has any.
		 */
		if (pool->vol[i].active) {
			/* Never touch the slot of a live volume from a new table. */
			*error = "fcache: the volume is active with an origin of another size; refusing";
			return -EBUSY;
		}
		/* Inactive (fc_registry_lock held): its counters cannot grow. */
		if (READ_ONCE(pool->vol[i].dirty)) {
			DMERR("volume %u has dirty data for an origin of %llu sectors, this origin has %llu",
			      v->id, pool->vol[i].origin_sectors, (u64)size);
			*error = "fcache: the volume has dirty data for an origin of another size; refusing";
			return -EINVAL;
		}
		/* No dirty data: forget the clean blocks of the old origin. */
		fc_invalidate_volume(pool, i, false);
		spin_lock_irq(&pool->lock);
		pool->vol[i].origin_sectors = size;
		fc_mark_vt_dirty(pool);
		spin_unlock_irq(&pool->lock);
	}
	r = check_olog(pool, i, v, error);
	if (r)
		return r;
	if (v->opts.label[0] && strncmp(pool->vol[i].label, v->opts.label, FC_VOLUME_LABEL_LEN)) {
		spin_lock_irq(&pool->lock);
		memcpy(pool->vol[i].label, v->opts.label, sizeof(pool->vol[i].label));
		fc_mark_vt_dirty(pool);
		spin_unlock_irq(&pool->lock);
	}
	v->slot = i;
	return 0;
}

static void deactivate(struct fc_volume *v)
{
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];

	mutex_lock(&fc_registry_lock);
	spin_lock_irq(&pool->lock);
	if (s->active == v)
		s->wb_allowed = false;
	spin_unlock_irq(&pool->lock);
	mutex_unlock(&fc_registry_lock);
	/* Suspend quiesces: no writeback copy of this volume in flight after. */
	fc_wb_wait_slot(pool, v->slot);
	mutex_lock(&fc_registry_lock);
	spin_lock_irq(&pool->lock);
	if (s->active == v) {
		s->active = NULL;
		/* the volume table's dirty count for tools, with the next commit */
		fc_mark_vt_dirty(pool);
	}
	spin_unlock_irq(&pool->lock);
	v->active = false;
	mutex_unlock(&fc_registry_lock);
}

static void fc_dtr(struct dm_target *ti)
{
	struct fc_volume *v = ti->private;

	if (v->was_active)
		dtr_hold();
	if (v->active)
		deactivate(v);
	if (v->pool && v->was_active)
		settle_detach(v);
	fc_vlog_put(ti, v->olog);
	if (v->origin_dev)
		dm_put_device(ti, v->origin_dev);
	if (v->pool)
		fc_pool_put(v->pool);
	if (v->pool_dev)
		dm_put_device(ti, v->pool_dev);
	kvfree(v->ra.s);
	kfree(v);
}

/* fcache <pool_dev> <origin_dev> <volume_id> <mode> [<#opt_args> <opt_arg>...] */
static int fc_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct mapped_device *pool_md;
	struct fc_volume *v;
	const char *why;
	int r;

	v = fc_ctr_alloc(ti, argc, 4, sizeof(*v),
			 "fcache: usage: <pool_dev> <origin_dev> <volume_id> <mode> [<#opt_args> <opt_arg>...]",
			 "fcache: out of memory");
	if (IS_ERR(v))
		return PTR_ERR(v);
	v->ti = ti;
	/* Writes done through an earlier table: the first flush goes on. */
	atomic64_set(&v->ow_done, 1);
	atomic64_set(&v->ow_synced, 0);
	fc_vol_opts_default(&v->opts);
	fc_seq_init(&v->seq);
	fc_ra_init(&v->ra, kvcalloc(FC_RA_SLOTS, sizeof(*v->ra.s), GFP_KERNEL));
	if (!v->ra.s) {
		ti->error = "fcache: out of memory";
		r = -ENOMEM;
		goto bad;
	}
	if (fc_parse_volume_id(argv[2], &v->id, &why)) {
		ti->error = (char *)why;
		r = -EINVAL;
		goto bad;
	}
	v->mode = fc_parse_mode(argv[3]);
	if (v->mode < 0) {
		ti->error = "fcache: mode must be writeback, writethrough, writearound or passthrough";
		r = -EINVAL;
		goto bad;
	}
	if (fc_vol_opts_parse(&v->opts, argc - 4, argv + 4, &why)) {
		ti->error = (char *)why;
		r = -EINVAL;
		goto bad;
	}
	r = dm_get_device(ti, argv[0], FMODE_READ | FMODE_WRITE, &v->pool_dev);
	if (r) {
		ti->error = "fcache: cannot open the pool device";
		goto bad;
	}
	pool_md = dm_get_md(v->pool_dev->bdev->bd_dev);
	if (!pool_md) {
		ti->error = "fcache: pool_dev is not a device-mapper device";
		r = -EINVAL;
		goto bad;
	}
	mutex_lock(&fc_registry_lock);
	v->pool = fc_pool_lookup(pool_md);
	if (v->pool)
		v->pool->refs++;
	mutex_unlock(&fc_registry_lock);
	dm_put(pool_md);
	if (!v->pool) {
		ti->error = "fcache: pool_dev is not an fcache-pool device";
		r = -EINVAL;
		goto bad;
	}
	r = dm_get_device(ti, argv[1], FMODE_READ | FMODE_WRITE, &v->origin_dev);
	if (r) {
		ti->error = "fcache: cannot open the origin device";
		goto bad;
	}
	v->origin = v->origin_dev->bdev;
	if (v->origin == v->pool->leg[0].bdev || v->origin == v->pool->leg[1].bdev ||
	    v->origin == v->pool->flash || v->origin == v->pool_dev->bdev) {
		ti->error = "fcache: the origin cannot be the pool or its flash device";
		r = -EINVAL;
		goto bad;
	}
	if (ti->len > bdev_nr_sectors(v->origin)) {
		ti->error = "fcache: the target is longer than the origin device";
		r = -EINVAL;
		goto bad;
	}
	if (v->opts.olog[0]) {
		r = fc_vlog_open(v, ti, &v->olog);
		if (r)
			goto bad;
	}
	mutex_lock(&fc_registry_lock);
	r = register_slot(v, &ti->error);
	mutex_unlock(&fc_registry_lock);
	if (r)
		goto bad;

	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->discards_supported = true;
	ti->per_io_data_size = sizeof(struct fc_bio);
	return 0;
bad:
	fc_dtr(ti);
	return r;
}

static int fc_preresume(struct dm_target *ti)
{
	struct fc_volume *v = ti->private;
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];
	u64 dirty;
	char *why = NULL;
	bool commit = false;
	int r = 0;

	mutex_lock(&fc_registry_lock);
	if (s->id != v->id) {
		DMERR("volume %u was forgotten by its pool; load the table again", v->id);
		r = -EINVAL;
	} else if (s->active && s->active != v) {
		DMERR("volume %u is already active on another device", v->id);
		r = -EBUSY;
	} else if (!s->active && check_detached(pool, v->slot, &why)) {
		/* detached after this table was loaded */
		DMERR("volume %u: %s", v->id, why);
		r = -EBUSY;
	} else if (!s->active && !v->olog && check_olog(pool, v->slot, v, &why)) {
		/* its log came into use after this table was loaded */
		r = -EINVAL;
	} else if (v->olog && !s->active) {
		/* its ordered log: replayed if need be, its writer started (fc_vlog.c) */
		r = fc_vlog_resume(v, &why);
		if (r)
			DMERR("volume %u: %s", v->id, why);
	}
	if (!r) {
		commit = resume_attach(v);
		/*
		 * FC_VOL_OLOG as the table says (without a log: no dirty data,
		 * above, so every record the log may still hold is on the
		 * origin: nothing for direct writes to wait for).
		 */
		if (!s->active && !v->olog)
			WRITE_ONCE(s->olog_pending, false);
		if (!s->active && s->olog != !!v->olog) {
			spin_lock_irq(&pool->lock);
			s->olog = !!v->olog;
			fc_mark_vt_dirty(pool);
			spin_unlock_irq(&pool->lock);
			commit = true;
		}
		spin_lock_irq(&pool->lock);
		s->active = v;
		s->wb_allowed = true;
		v->flush_stop = false;	/* as fc_flush_stop() */
		spin_unlock_irq(&pool->lock);
		v->active = true;
		v->was_active = true;
		v->detach_ok = false;
	}
	mutex_unlock(&fc_registry_lock);
	if (r)
		return r;
	/* the volume is attached again: on the flash before it is live */
	if (commit && fc_request_commit(pool))
		DMERR("volume %u: could not record on the flash that it is attached again; after a power cut it would count as detached",
		      v->id);
	/*
	 * Leaving writeback: no writeback here, the device is suspended until
	 * preresume returns and a writeback to slow spindles can take minutes.
	 * Every mode honours dirty data (reads of it come from the flash,
	 * writes to it stay in the flash), so the switch is safe at once;
	 * the data is written back with I/O flowing: by a flush message
	 * (fcachectl set mode= and disable send one right after the switch)
	 * or by the background writeback.
	 */
	dirty = READ_ONCE(s->dirty);
	if (v->mode != FC_MODE_WRITEBACK && dirty)
		DMINFO("volume %u: %s mode with %llu dirty blocks; they stay cached until written back (dmsetup message <device> 0 flush)",
		       v->id, fc_mode_name(v->mode), dirty);
	return 0;
}

/* As the pool's (pool_presuspend()): a flush message through this table returns. */
static void fc_presuspend(struct dm_target *ti)
{
	struct fc_volume *v = ti->private;

	fc_flush_stop(v->pool, &v->flush_stop, true);
}

static void fc_presuspend_undo(struct dm_target *ti)
{
	struct fc_volume *v = ti->private;

	fc_flush_stop(v->pool, &v->flush_stop, false);
}

/*
 * Deactivate, record the detach unless fcachectl announced the teardown
 * (suspend_detach()), and commit: the volume table's counts, the mark, and
 * the data and mapping of every write this table completed, durable before
 * any table that replaces this one can be live.  No writeback copy of the
 * slot runs after deactivate() and none starts (wb_allowed).
 */
static void fc_postsuspend(struct dm_target *ti)
{
	struct fc_volume *v = ti->private;
	bool marked;
	u64 dirty = 0;

	deactivate(v);
	fc_vlog_suspend(v);
	marked = suspend_detach(v, &dirty);
	if (fc_request_commit(v->pool) && marked)
		DMERR("volume %u: suspended, but the detach could not be recorded on the flash: if its table is replaced, its %llu dirty blocks may later be replayed over newer origin writes",
		      v->id, dirty);
	else if (marked && dirty)
		DMINFO("volume %u: suspended with %llu dirty blocks, recorded as detached until a table of the volume resumes (a power cut before that leaves it detached: `fcachectl resolve` then decides)",
		       v->id, dirty);
}

static void fc_status(struct dm_target *ti, status_type_t type,
		      unsigned int status_flags, char *result, unsigned int maxlen)
{
	struct fc_volume *v = ti->private;
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];
	unsigned int sz = 0, i;
	u64 cached, dirty;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irq(&pool->lock);
		cached = s->cached;
		dirty = s->dirty;
		spin_unlock_irq(&pool->lock);
		DMEMIT("%s %llu %llu %llu %llu %llu %llu %llu %d %llu %llu %llu %u",
		       fc_mode_name(v->mode), cached, dirty,
		       fc_stat_read(pool, v->slot, FC_ST_READS),
		       fc_stat_read(pool, v->slot, FC_ST_READ_HITS),
		       fc_stat_read(pool, v->slot, FC_ST_WRITES),
		       fc_stat_read(pool, v->slot, FC_ST_WRITE_HITS),
		       fc_stat_read(pool, v->slot, FC_ST_BYPASSED), atomic_read(&s->wb_inflight),
		       fc_stat_read(pool, v->slot, FC_ST_ERRORS),
		       fc_stat_read(pool, v->slot, FC_ST_PROMOTIONS),
		       fc_stat_read(pool, v->slot, FC_ST_WRITEBACKS), v->id);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %s %u %s", v->pool_dev->name, v->origin_dev->name, v->id,
		       fc_mode_name(v->mode));
		if (v->opts.nr_given) {
			DMEMIT(" %u", 2 * v->opts.nr_given);
			for (i = 0; i < v->opts.nr_given; i++) {
				if (v->opts.order[i] == FC_VOPT_LABEL)
					DMEMIT(" label %s", v->opts.label);
				else if (v->opts.order[i] == FC_VOPT_ORDERED_LOG)
					DMEMIT(" ordered_log %s", fc_vlog_name(v->olog));
				else
					DMEMIT(" sequential_cutoff %u", v->opts.seq_cutoff_kib);
			}
		}
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}
}

/* The "stats" message: every counter as name=value (docs/TABLES.md, "Counters"). */
static int vol_stats(struct fc_volume *v, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;
	int i;

	for (i = 0; i < FC_ST_NR; i++)
		DMEMIT("%s%s=%llu", i ? " " : "", fc_stat_names[i],
		       fc_stat_read(v->pool, v->slot, i));
	return 1;
}

/*
 * "detach" / "cancel_detach" sent to a table that is suspended after it
 * was active: its mark follows v->detach_ok (none for an orderly teardown,
 * one otherwise, as postsuspend would have made), recorded at once.
 */
static int msg_detach(struct fc_volume *v)
{
	struct fc_pool *pool = v->pool;
	struct fc_vslot *s = &pool->vol[v->slot];
	bool commit = false;
	u64 dirty;

	mutex_lock(&fc_registry_lock);
	if (!v->active && v->was_active) {
		if (!v->detach_ok && set_detached(v, &dirty)) {
			s->susp_detach = v;
			commit = true;
		} else if (v->detach_ok && s->susp_detach == v && s->detached) {
			spin_lock_irq(&pool->lock);
			s->detached = false;
			fc_mark_vt_dirty(pool);
			spin_unlock_irq(&pool->lock);
			s->susp_detach = NULL;
			commit = true;
		}
	}
	mutex_unlock(&fc_registry_lock);
	return commit ? fc_request_commit(pool) : 0;
}

static int fc_message(struct dm_target *ti, unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	struct fc_volume *v = ti->private;
	struct fc_pool *pool = v->pool;
	struct fc_msg m;
	const char *why;

	if (fc_parse_vol_msg(argc, argv, &m, &why)) {
		DMWARN("volume message refused: %s", why);
		return -EINVAL;
	}
	switch (m.kind) {
	case FC_MSG_FLUSH:
		if (!v->active) {
			DMWARN("flush: volume %u is not active", v->id);
			return -EINVAL;
		}
		return fc_flush_volumes(pool, v->slot, &v->flush_stop);
	case FC_MSG_CLEAR_STATS:
		fc_stats_clear(pool, v->slot);
		return 0;
	case FC_MSG_STATS:
		return vol_stats(v, result, maxlen);
	case FC_MSG_SET:
		if (fc_vol_opt_set(&v->opts, m.key, m.val, &why)) {
			DMWARN("volume message refused: %s", why);
			return -EINVAL;
		}
		return 0;
	case FC_MSG_DETACH:
		/* fcachectl's down/disable: the teardown that follows is orderly */
		v->detach_ok = true;
		return msg_detach(v);
	case FC_MSG_CANCEL_DETACH:
		v->detach_ok = false;
		return msg_detach(v);
	case FC_MSG_INVALIDATE:
		if (pool->md_mode != FC_MD_RW) {
			DMWARN("invalidate: the pool's metadata is read-only");
			return -EROFS;
		}
		fc_invalidate_volume(pool, v->slot, false);
		return fc_request_commit(pool);
	default:
		return -EINVAL;
	}
}

static int fc_iterate_devices(struct dm_target *ti, iterate_devices_callout_fn fn,
			      void *data)
{
	struct fc_volume *v = ti->private;

	return fn(ti, v->origin_dev, 0, ti->len, data);
}

static void fc_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct fc_volume *v = ti->private;
	unsigned int i, sb_bytes;

	/* Bios are remapped to the flash too: honour its sector size (every leg's). */
	for (i = 0; i < v->pool->g.nr_legs; i++)
		if (v->pool->leg[i].bdev)
			limits->logical_block_size =
				max_t(unsigned int, limits->logical_block_size,
				      bdev_logical_block_size(v->pool->leg[i].bdev));
	/*
	 * A write that covers part of a sub-block the cache does not hold
	 * reads the rest from the origin first: the sub-block is this
	 * device's read-modify-write unit, so say so (mkfs.xfs sizes its
	 * sectors and log writes by it, databases their direct I/O).  Past a
	 * page, filesystems could not use it as a sector: the rest goes in
	 * io_min.
	 */
	sb_bytes = v->pool->g.subblock_sectors << SECTOR_SHIFT;
	limits->physical_block_size = max3(limits->physical_block_size,
					   limits->logical_block_size,
					   min_t(unsigned int, sb_bytes, PAGE_SIZE));
	limits->io_min = max3(limits->io_min, limits->physical_block_size, sb_bytes);
	if (!limits->max_discard_sectors) {
		/* Discards still invalidate cached data even if the origin ignores them. */
		limits->max_discard_sectors = UINT_MAX >> SECTOR_SHIFT;
		limits->max_hw_discard_sectors = limits->max_discard_sectors;
		limits->discard_granularity = v->pool->g.subblock_sectors << SECTOR_SHIFT;
	}
	/* map_discard() looks up every block under pool->lock: bound the work. */
	limits->max_discard_sectors = min_t(unsigned int, limits->max_discard_sectors,
					    65536u << v->pool->block_shift);
	limits->max_hw_discard_sectors = min(limits->max_hw_discard_sectors,
					     limits->max_discard_sectors);
}

struct target_type fc_volume_target = {
	.name = FC_VOLUME_TARGET,
	.version = {1, 1, 0},
	/* REQ_NOWAIT: see FC_DONE_AGAIN in fc_volume.c */
	.features = DM_TARGET_NOWAIT,
	.module = THIS_MODULE,
	.ctr = fc_ctr,
	.dtr = fc_dtr,
	.map = fc_map,
	.end_io = fc_end_io,
	.preresume = fc_preresume,
	.presuspend = fc_presuspend,
	.presuspend_undo = fc_presuspend_undo,
	.postsuspend = fc_postsuspend,
	.status = fc_status,
	.message = fc_message,
	.iterate_devices = fc_iterate_devices,
	.io_hints = fc_io_hints,
};
