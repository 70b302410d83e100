// SPDX-License-Identifier: GPL-2.0
/*
 * fc_vlog: a volume's ordered log (volume option ordered_log <dev>; issue
 * 38, include/fcache_olog.h, docs/DESIGN.md "The origin's log").
 *
 * The constructor opens the log and checks it: a log (either superblock
 * slot), formatted for an origin of this origin's size, and either new or
 * bound to this volume of this pool; anything else is refused with the
 * reason and nothing written.  A new log is bound (the pool's uuid and the
 * volume's id in a superblock written to the other slot, one sequence
 * higher), so that no other volume or pool can take it while it may hold
 * records of this one.  Records a crash left unapplied are replayed onto
 * the origin (the walk of engine/fc_olog.c, the same as fcachectl's
 * replay), the origin flushed, the volume's clean blocks dropped (the
 * origin changed under them) and the drop committed, then the head moved
 * past them: after that the origin alone holds the volume at the log's
 * last flush point.  A
 * table of a volume that is live (a reload) only checks: the live table
 * owns the log.  A walk that ends on a read error is refused, as the tool
 * refuses it: the records past it may hold later flush points.
 *
 * The writer (ordered writeback's records, the reads through the log and
 * the apply) is not built yet: until it is, a bound log gains no records.
 */
#include <linux/blkdev.h>
#include <linux/vmalloc.h>

#include "fc_core.h"
#include "../include/fcache_olog.h"

/* Log opens, binds and replays, one at a time: two tables never bind one log. */
static DEFINE_MUTEX(fc_vlog_lock);

struct fc_vlog {
	struct dm_dev *dev;
	struct fc_olog_geo g;
	int slot;		/* of the current superblock */
	u8 *sb;			/* both slots as read; the current one first once picked */
	u8 *rec;		/* a record header */
	u8 *data;		/* a record's data (during the constructor only) */
	struct fc_volume *v;
};

static sector_t page_sector(u64 page)
{
	return (sector_t)page * FC_PAGE_SECTORS;
}

/* fc_olog_io.read: pages of the log. */
static int vlog_read(void *ctx, void *buf, __u64 page, __u64 n)
{
	struct fc_vlog *l = ctx;

	return fc_sync_io(l->v->pool, l->dev->bdev, REQ_OP_READ, page_sector(page),
			  page_sector(n), buf);
}

/* fc_olog_io.apply: a record's data in place on the origin, a run of consecutive pages a write. */
static int vlog_apply(void *ctx, const struct fc_disk_olog_rec *r, const void *data)
{
	struct fc_vlog *l = ctx;
	u32 nr = le32_to_cpu(r->nr_pages), i, j;
	int err;

	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && le64_to_cpu(r->page[j]) == le64_to_cpu(r->page[i]) + (j - i);
		     j++)
			;
		err = fc_sync_io(l->v->pool, l->v->origin, REQ_OP_WRITE,
				 page_sector(le64_to_cpu(r->page[i])), page_sector(j - i),
				 (u8 *)data + (size_t)i * FC_PAGE_SIZE);
		if (err)
			return err;
	}
	return 0;
}

static struct fc_disk_olog_sb *vlog_sb(struct fc_vlog *l)
{
	return (struct fc_disk_olog_sb *)l->sb;
}

/* Write the current superblock to the other slot, one sequence higher, FUA. */
static int vlog_write_sb(struct fc_vlog *l)
{
	struct fc_disk_olog_sb *sb = vlog_sb(l);
	int slot = !l->slot, err;

	fc_olog_sb_seal(sb, slot, le64_to_cpu(sb->hdr.seq) + 1);
	err = fc_sync_io(l->v->pool, l->dev->bdev, REQ_OP_WRITE | REQ_FUA | REQ_SYNC,
			 page_sector(slot), FC_PAGE_SECTORS, sb);
	if (!err)
		l->slot = slot;
	return err;
}

/* Read and pick the current superblock into l->sb: 0, or -errno with *@error said. */
static int vlog_read_sb(struct fc_vlog *l, char **error)
{
	u64 dev_pages = bdev_nr_sectors(l->dev->bdev) / FC_PAGE_SECTORS;
	const char *why[2] = { NULL, NULL };
	struct fc_olog_geo g[2];
	int err[2], i, pick;

	for (i = 0; i < 2; i++) {
		u8 *s = l->sb + i * FC_PAGE_SIZE;

		err[i] = vlog_read(l, s, i, 1) ? 1 : fc_olog_sb_check(s, i, dev_pages, &g[i], &why[i]);
		if (err[i] > 0)
			why[i] = "cannot be read";
	}
	if ((err[0] == FC_ECHK_ZERO || err[0] == FC_ECHK_MAGIC) &&
	    (err[1] == FC_ECHK_ZERO || err[1] == FC_ECHK_MAGIC)) {
		*error = "fcache: the ordered_log device holds no ordered log (fcachectl ordered-log format)";
		return -EINVAL;
	}
	pick = fc_olog_sb_pick(l->sb, l->sb + FC_PAGE_SIZE, err[0], err[1]);
	if (pick < 0) {
		DMERR("ordered log %s: damaged: superblock slot 0: %s; slot 1: %s", l->dev->name,
		      pick == -2 ? "of another log" : why[0], pick == -2 ? "of another log" : why[1]);
		*error = "fcache: the ordered log is damaged (both superblock slots; see dmesg)";
		return -EINVAL;
	}
	if (pick)
		memcpy(l->sb, l->sb + FC_PAGE_SIZE, FC_PAGE_SIZE);
	l->slot = pick;
	l->g = g[pick];
	return 0;
}

/* Is the log new (bound to no volume)? */
static bool vlog_unbound(const struct fc_disk_olog_sb *sb)
{
	return !le32_to_cpu(sb->vol_id) && !memchr_inv(sb->pool_uuid, 0, sizeof(sb->pool_uuid));
}

/* The log's identity against this origin, pool and volume: 0, or -EINVAL said. */
static int vlog_check_owner(struct fc_vlog *l, char **error)
{
	struct fc_disk_olog_sb *sb = vlog_sb(l);
	struct fc_volume *v = l->v;
	u64 origin_pages = bdev_nr_sectors(v->origin) / FC_PAGE_SECTORS;

	if (le64_to_cpu(sb->origin_pages) != origin_pages) {
		DMERR("ordered log %s: formatted for an origin of %llu KiB, this origin is %llu KiB",
		      l->dev->name, le64_to_cpu(sb->origin_pages) * 4, origin_pages * 4);
		*error = "fcache: the ordered log belongs to an origin of another size";
		return -EINVAL;
	}
	if (vlog_unbound(sb))
		return 0;
	if (memcmp(sb->pool_uuid, v->pool->uuid, sizeof(sb->pool_uuid))) {
		DMERR("ordered log %s: written by volume %u of pool %pU, not by this pool",
		      l->dev->name, le32_to_cpu(sb->vol_id), sb->pool_uuid);
		*error = "fcache: the ordered log belongs to another pool (after losing that pool's flash: fcachectl ordered-log replay, then format)";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->vol_id) != v->id) {
		DMERR("ordered log %s: bound to volume %u of this pool, not %u", l->dev->name,
		      le32_to_cpu(sb->vol_id), v->id);
		*error = "fcache: the ordered log belongs to another volume of this pool";
		return -EINVAL;
	}
	return 0;
}

/*
 * Walk the ring (@apply: replay onto the origin, up to @upto records);
 * @s filled.  0, or -errno with *@error said: a read error is refused.
 */
static int vlog_scan(struct fc_vlog *l, struct fc_olog_scan *s, bool apply, u64 upto,
		     char **error)
{
	const struct fc_olog_io io = {
		.read = vlog_read, .apply = apply ? vlog_apply : NULL, .ctx = l,
		.rec = l->rec, .data = l->data,
	};

	fc_olog_scan(s, &io, l->sb, &l->g, upto);
	if (fc_olog_scan_read_error(s)) {
		DMERR("ordered log %s: record %llu at page %llu cannot be read (%d): the records past it may hold later flush points",
		      l->dev->name, s->stop_seq, s->stop_pos, s->err);
		*error = "fcache: the ordered log cannot be read whole (see dmesg)";
		return -EIO;
	}
	if (s->stop == FC_OLOG_STOP_APPLY) {
		DMERR("ordered log %s: writing record %llu onto the origin failed (%d)",
		      l->dev->name, s->stop_seq, s->err);
		*error = "fcache: replaying the ordered log onto the origin failed (see dmesg)";
		return s->err;
	}
	return 0;
}

/*
 * The replay wrote the origin under the volume's clean blocks: dropped,
 * and the drop committed before the log's head moves past the records
 * (after a crash in between the replay runs again, and so does this).
 * The volume is not live (fc_registry_lock held: none becomes live).
 */
static int vlog_drop_clean(struct fc_vlog *l)
{
	struct fc_pool *pool = l->v->pool;
	int i, err = 0;

	mutex_lock(&fc_registry_lock);
	for (i = 0; i < FC_MAX_VOLUMES; i++)
		if (pool->vol[i].id == l->v->id)
			break;
	if (i < FC_MAX_VOLUMES && !pool->vol[i].active) {
		fc_invalidate_volume(pool, i, false);
		err = fc_request_commit(pool);
	}
	mutex_unlock(&fc_registry_lock);
	return err;
}

/*
 * Replay the records a crash left: onto the origin, its flush, then the
 * head past them (a crash before that replays the same bytes again).
 */
static int vlog_replay(struct fc_vlog *l, const struct fc_olog_scan *first, char **error)
{
	struct fc_disk_olog_sb *sb = vlog_sb(l);
	struct fc_volume *v = l->v;
	struct fc_olog_scan s;
	int err;

	err = vlog_scan(l, &s, true, first->w.done_records, error);
	if (err)
		return err;
	if (s.w.done_records != first->w.done_records || s.w.done != first->w.done) {
		*error = "fcache: the ordered log changed under its replay";
		return -EIO;
	}
	err = blkdev_issue_flush(v->origin);
	if (err) {
		*error = "fcache: flushing the origin after the ordered log's replay failed";
		return err;
	}
	err = vlog_drop_clean(l);
	if (err) {
		*error = "fcache: the ordered log is replayed, but dropping the volume's clean blocks it made stale could not be committed";
		return err;
	}
	sb->head = cpu_to_le64(first->w.done);
	sb->head_seq = cpu_to_le64(first->w.done_seq);
	sb->applied_epoch = cpu_to_le64(first->w.epoch);
	sb->applied_time = cpu_to_le64(first->w.time);
	err = vlog_write_sb(l);
	if (err) {
		*error = "fcache: the origin holds the ordered log's records, but moving the log's head failed";
		return err;
	}
	DMINFO("volume %u: ordered log %s: %llu records (%llu pages) replayed onto the origin, which holds the volume at flush point %llu",
	       v->id, l->dev->name, first->w.done_records, first->pages, first->w.epoch);
	return 0;
}

/* Check, bind and replay (fc_vlog_lock held). */
static int vlog_setup(struct fc_vlog *l, bool live, char **error)
{
	struct fc_disk_olog_sb *sb = vlog_sb(l);
	struct fc_volume *v = l->v;
	struct fc_olog_scan s;
	int err;

	err = vlog_read_sb(l, error);
	if (!err)
		err = vlog_check_owner(l, error);
	if (!err)
		err = vlog_scan(l, &s, false, ~0ULL, error);
	if (err)
		return err;
	if (s.w.done_records && vlog_unbound(sb)) {
		DMERR("ordered log %s: %llu records not applied, written by no volume", l->dev->name,
		      s.w.done_records);
		*error = "fcache: the ordered log holds records of no volume (fcachectl ordered-log replay, then format)";
		return -EINVAL;
	}
	/* A reload: the live table owns the log, its records and its head. */
	if (live)
		return 0;
	if (vlog_unbound(sb)) {
		memcpy(sb->pool_uuid, v->pool->uuid, sizeof(sb->pool_uuid));
		sb->vol_id = cpu_to_le32(v->id);
		err = vlog_write_sb(l);
		if (err) {
			*error = "fcache: binding the ordered log to the volume failed (a write error)";
			return err;
		}
		DMINFO("volume %u: ordered log %s bound to it", v->id, l->dev->name);
	}
	if (s.w.done_records)
		return vlog_replay(l, &s, error);
	return 0;
}

void fc_vlog_put(struct dm_target *ti, struct fc_vlog *l)
{
	if (!l)
		return;
	if (l->dev)
		dm_put_device(ti, l->dev);
	vfree(l->data);
	kfree(l->rec);
	kfree(l->sb);
	kfree(l);
}

int fc_vlog_open(struct fc_volume *v, struct dm_target *ti, struct fc_vlog **out)
{
	struct fc_pool *pool = v->pool;
	struct fc_vlog *l;
	struct block_device *b;
	unsigned int i;
	bool live;
	int err;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		goto nomem;
	*out = l;
	l->v = v;
	l->sb = kmalloc(2 * FC_PAGE_SIZE, GFP_KERNEL);
	l->rec = kmalloc(FC_PAGE_SIZE, GFP_KERNEL);
	l->data = vmalloc(FC_OLOG_REC_MAX * FC_PAGE_SIZE);
	if (!l->sb || !l->rec || !l->data)
		goto nomem;
	err = dm_get_device(ti, v->opts.olog, FMODE_READ | FMODE_WRITE, &l->dev);
	if (err) {
		ti->error = "fcache: cannot open the ordered_log device";
		return err;
	}
	b = l->dev->bdev;
	for (i = 0; i < pool->g.nr_legs; i++)
		if (b == pool->leg[i].bdev)
			break;
	if (i < pool->g.nr_legs || b == pool->flash || b == v->pool_dev->bdev || b == v->origin) {
		ti->error = "fcache: the ordered log cannot be the origin, the pool or its flash";
		return -EINVAL;
	}
	mutex_lock(&fc_registry_lock);
	for (i = 0, live = false; i < FC_MAX_VOLUMES; i++)
		if (pool->vol[i].id == v->id && pool->vol[i].active)
			live = true;
	mutex_unlock(&fc_registry_lock);
	mutex_lock(&fc_vlog_lock);
	err = vlog_setup(l, live, &ti->error);
	mutex_unlock(&fc_vlog_lock);
	/* the data buffer serves the constructor's walk only */
	vfree(l->data);
	l->data = NULL;
	return err;
nomem:
	ti->error = "fcache: out of memory";
	return -ENOMEM;
}

const char *fc_vlog_name(const struct fc_vlog *l)
{
	return l->dev->name;
}
