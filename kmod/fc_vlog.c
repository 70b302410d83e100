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
 * records of this one.
 *
 * Preresume (the slot quiesced: no table of it live) walks the log again:
 * records a crash or a failed batch left are replayed onto the origin (the
 * walk of engine/fc_olog.c, the same as fcachectl's replay), the origin
 * flushed, the volume's versions of the epochs up to the flush point
 * reached counted written back and its clean blocks dropped (the origin
 * changed under them), committed, and only then the head moved past them.
 * The pool's epoch goes past the log's newest, so no later record carries
 * an epoch the log has seen.  Then the writer starts at the head.
 *
 * The writer (ordered write-back, fc_writeback.c wb_log()): a record of
 * whole epochs (fc_olog_plan()), FUA, after the previous record's batch
 * ended; then the batch's copies in place, the origin's flush, the clean
 * marks.  The head stays behind (the records are applied: a replay writes
 * the same bytes) until the ring is half full, a direct write to the
 * origin waits for it, or the volume suspends: then one superblock moves
 * it past every record.  A failed record or batch stops the writer until
 * the next resume, which replays what it left.
 */
#include <linux/blkdev.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "fc_core.h"
#include "../include/fcache_olog.h"

#ifdef FC_FAULT_INJECT
#include <linux/moduleparam.h>
/*
 * A deliberate bug for tests/guest/fc_vlog.sh (mutant=olog_no_record):
 * records are not written, their batches go in place all the same; the
 * origin plus a replay of its log must then be found torn.
 */
static bool mutant_olog_no_record;
module_param(mutant_olog_no_record, bool, 0644);
MODULE_PARM_DESC(mutant_olog_no_record, "test build: ordered log records are not written (a bug on purpose)");

static bool olog_no_record(void)
{
	return READ_ONCE(mutant_olog_no_record);
}
#else
static inline bool olog_no_record(void)
{
	return false;
}
#endif

/* Log opens, binds and replays, one at a time: two tables never bind one log. */
static DEFINE_MUTEX(fc_vlog_lock);

struct vlog_ord {
	u64 oblock;
	u32 k;			/* its candidate */
};

struct fc_vlog {
	struct dm_dev *dev;
	struct fc_olog_geo g;
	int slot;		/* of the current superblock */
	u8 *sb;			/* both slots as read; the current one first once picked */
	u8 *rec;		/* a record header (walks) */
	u8 *buf;		/* a record: its header, then FC_OLOG_REC_MAX data pages */
	struct fc_volume *v;
	/*
	 * The writer (wb_lock; ready also under pool->lock): its walk of the
	 * ring, from the head to where the next record goes.
	 */
	bool ready;
	struct fc_olog_walk w;
	struct fc_olog_cand cand[FC_VLOG_CANDS];
	u32 cidx[FC_VLOG_CANDS];	/* the entry of each candidate */
	u32 scratch[2 * FC_VLOG_CANDS];
	struct vlog_ord ord[FC_VLOG_CANDS];
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
		.rec = l->rec, .data = l->buf + FC_PAGE_SIZE,
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
 * The log's records up to epoch @ep are on the origin (replayed, or
 * applied before the head last moved), fc_registry_lock held, the slot
 * inactive: the volume's versions of those epochs still dirty (a crash
 * before the commit that marks a batch clean, a batch that failed) are
 * written back, the older ones superseded in the log are released;
 * logged again they would roll their blocks back under a later flush
 * point.  With @drop also the volume's clean blocks (the replay wrote the
 * origin under them).  The pool's epoch goes past @ep.  Committed if
 * anything changed.
 */
static int vlog_settle(struct fc_vlog *l, u32 ep, bool drop)
{
	struct fc_pool *pool = l->v->pool;
	struct fc_vslot *s;
	u64 done = 0;
	u32 i, next;
	int slot;

	for (slot = 0; slot < FC_MAX_VOLUMES; slot++)
		if (pool->vol[slot].id == l->v->id)
			break;
	if (slot == FC_MAX_VOLUMES || pool->vol[slot].active)
		return 0;
	s = &pool->vol[slot];
	spin_lock_irq(&pool->lock);
	if (fc_epoch_before(pool->epoch, ep + 1))
		pool->epoch = ep + 1;
	for (i = pool->olink_ready ? s->ord_head : FC_NONE; i != FC_NONE; i = next) {
		struct fc_entry *e = &pool->e[i];

		next = pool->olink[i].next;
		if (fc_epoch_before(ep, pool->ep[i]))
			break;
		fc_entry_set(pool, e, e->valid, 0);
		if (pool->shadow && test_bit(i, pool->shadow))
			fc_shadow_release(pool, e);
		done++;
	}
	spin_unlock_irq(&pool->lock);
	if (done)
		DMINFO("volume %u: ordered log: %llu blocks of flush points up to %u on the origin counted written back",
		       l->v->id, done, ep);
	if (drop)
		fc_invalidate_volume(pool, slot, false);
	return done || drop ? fc_request_commit(pool) : 0;
}

/*
 * Replay the records a crash left: onto the origin, its flush, the
 * volume's blocks settled, then the head past them (a crash before that
 * replays the same bytes again).
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
	err = vlog_settle(l, (u32)first->w.epoch, true);
	if (err) {
		*error = "fcache: the ordered log is replayed, but the volume's blocks it wrote back could not be committed";
		return err;
	}
	fc_olog_sb_set_head(sb, &first->w);
	err = vlog_write_sb(l);
	if (err) {
		*error = "fcache: the origin holds the ordered log's records, but moving the log's head failed";
		return err;
	}
	DMINFO("volume %u: ordered log %s: %llu records (%llu pages) replayed onto the origin, which holds the volume at flush point %llu",
	       v->id, l->dev->name, first->w.done_records, first->pages, first->w.epoch);
	return 0;
}

/* Check and bind (fc_vlog_lock held). */
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
	if (live || !vlog_unbound(sb))
		return 0;
	memcpy(sb->pool_uuid, v->pool->uuid, sizeof(sb->pool_uuid));
	sb->vol_id = cpu_to_le32(v->id);
	err = vlog_write_sb(l);
	if (err) {
		*error = "fcache: binding the ordered log to the volume failed (a write error)";
		return err;
	}
	DMINFO("volume %u: ordered log %s bound to it", v->id, l->dev->name);
	return 0;
}

/*
 * Preresume (fc_registry_lock held; no table of the slot live, so nothing
 * writes the log or the origin): replay what the log holds, settle the
 * volume's blocks, start the writer at the head.  0, or -errno said in
 * *@error.
 */
int fc_vlog_resume(struct fc_volume *v, char **error)
{
	struct fc_vlog *l = v->olog;
	struct fc_disk_olog_sb *sb = vlog_sb(l);
	struct fc_olog_scan s;
	int err;

	mutex_lock(&fc_vlog_lock);
	l->ready = false;
	/* again: a table live since the constructor may have moved the head */
	err = vlog_read_sb(l, error);
	if (!err)
		err = vlog_check_owner(l, error);
	if (!err)
		err = vlog_scan(l, &s, false, ~0ULL, error);
	if (!err && s.w.done_records)
		err = vlog_replay(l, &s, error);
	else if (!err && sb->applied_time)
		err = vlog_settle(l, (u32)le64_to_cpu(sb->applied_epoch), false);
	if (!err) {
		fc_olog_walk_start(&l->w, &l->g, le64_to_cpu(sb->head), le64_to_cpu(sb->head_seq));
		WRITE_ONCE(v->pool->vol[v->slot].olog_pending, false);
		WRITE_ONCE(l->ready, true);
	}
	mutex_unlock(&fc_vlog_lock);
	return err;
}

/* Records after the head (the writer's, wb_lock or the slot quiesced). */
bool fc_vlog_pending(const struct fc_vlog *l)
{
	return l->w.records != 0;
}

bool fc_vlog_ready(const struct fc_vlog *l)
{
	return READ_ONCE(l->ready);
}

/*
 * The head past every record (each one's batch ended: on the origin and
 * flushed), in a superblock written FUA: 0, or -errno (the writer stops).
 */
int fc_vlog_catch_up(struct fc_vlog *l)
{
	struct fc_disk_olog_sb *sb = vlog_sb(l);
	int err;

	if (!fc_vlog_pending(l))
		return 0;
	fc_olog_sb_set_head(sb, &l->w);
	err = vlog_write_sb(l);
	if (err) {
		fc_vlog_stop(l, "moving the head failed", err);
		return err;
	}
	fc_olog_walk_trim(&l->w);
	return 0;
}

/* The writer stops until the next resume; @what: why, said (NULL: a suspend, nothing to say). */
void fc_vlog_stop(struct fc_vlog *l, const char *what, int err)
{
	if (!READ_ONCE(l->ready))
		return;
	WRITE_ONCE(l->ready, false);
	if (what)
		DMERR("volume %u: ordered log %s: %s (%d): ordered write-back of the volume stops until it resumes again (its resume replays the log)",
		      l->v->id, l->dev->name, what, err);
}

/* Postsuspend, after the slot's writeback ended: the head past every record. */
void fc_vlog_suspend(struct fc_volume *v)
{
	struct fc_vlog *l = v->olog;

	if (!l)
		return;
	if (fc_vlog_ready(l) && !fc_vlog_catch_up(l))
		WRITE_ONCE(v->pool->vol[v->slot].olog_pending, false);
	WRITE_ONCE(l->ready, false);
}

struct fc_olog_cand *fc_vlog_cands(struct fc_vlog *l, u32 **cidx, u32 **scratch)
{
	*cidx = l->cidx;
	*scratch = l->scratch;
	return l->cand;
}

static int ord_cmp(const void *a, const void *b)
{
	const struct vlog_ord *x = a, *y = b;

	return x->oblock < y->oblock ? -1 : x->oblock > y->oblock;
}

/*
 * Read from the flash the data of the candidates the plan writes (the
 * first @n), their origin pages ascending, into the record: its data
 * pages (returned), l->buf's header naming them.  -errno on a read error.
 */
static long vlog_gather(struct fc_vlog *l, unsigned int n)
{
	struct fc_pool *pool = l->v->pool;
	struct fc_disk_olog_rec *r = (void *)l->buf;
	u32 bpages = pool->g.block_sectors / FC_PAGE_SECTORS, sub = pool->g.subblock_sectors;
	u32 pps = sub / FC_PAGE_SECTORS, m = 0, k, j, t, nr = 0;
	u64 origin_pages = le64_to_cpu(vlog_sb(l)->origin_pages), q;
	int err;

	for (k = 0; k < n; k++)
		if (l->cand[k].write && l->cand[k].mask)
			l->ord[m++] = (struct vlog_ord){ .oblock = l->cand[k].oblock, .k = k };
	sort(l->ord, m, sizeof(l->ord[0]), ord_cmp, NULL);
	for (k = 0; k < m; k++) {
		const struct fc_olog_cand *c = &l->cand[l->ord[k].k];
		u32 eidx = l->cidx[l->ord[k].k];

		for (j = 0; j < pool->g.nr_subblocks; j = t) {
			if (!(c->mask & (1u << j))) {
				t = j + 1;
				continue;
			}
			for (t = j; t < pool->g.nr_subblocks && (c->mask & (1u << t)); t++)
				;
			/* the plan counted them; past the origin: not a block of it */
			if (nr + (t - j) * pps > l->g.rec_max ||
			    c->oblock * bpages + (u64)t * pps > origin_pages)
				return -EINVAL;
			for (q = 0; q < (u64)(t - j) * pps; q++)
				r->page[nr + q] = cpu_to_le64(c->oblock * bpages + (u64)j * pps + q);
			err = fc_sync_io(pool, fc_block_bdev(pool, eidx), REQ_OP_READ,
					 fc_block_sector(pool, eidx) + (sector_t)j * sub,
					 (sector_t)(t - j) * sub, l->buf + (1 + (size_t)nr) * FC_PAGE_SIZE);
			if (err)
				return err;
			nr += (t - j) * pps;
		}
	}
	return nr;
}

/*
 * Write the record of the plan's first @n candidates (whole epochs, the
 * last @epoch), REQ_FUA, where the writer's walk says; the head is moved
 * first if the ring has no room (every record before is applied).  0, or
 * -errno: the writer stops.
 */
int fc_vlog_write(struct fc_vlog *l, unsigned int n, u32 epoch)
{
	struct fc_disk_olog_rec *r = (void *)l->buf;
	long nr = vlog_gather(l, n);
	u64 pos;
	u32 crc;
	int err;

	if (nr < 0) {
		fc_vlog_stop(l, "reading a record's data from the flash failed", (int)nr);
		return (int)nr;
	}
	if (!fc_olog_walk_fits(&l->w, (u32)nr)) {
		err = fc_vlog_catch_up(l);
		if (err)
			return err;
	}
	pos = fc_olog_walk_next(&l->w);
	if (pos == ~0ULL || !fc_olog_walk_fits(&l->w, (u32)nr)) {
		fc_vlog_stop(l, "no room for a record in an empty ring", -ENOSPC);
		return -ENOSPC;
	}
	crc = fc_crc32c_update(0, l->buf + FC_PAGE_SIZE, (size_t)nr * FC_PAGE_SIZE);
	fc_olog_rec_seal(r, pos, l->w.seq, vlog_sb(l)->hdr.uuid, epoch, ktime_get_real_ns(),
			 (u32)nr, FC_OLOG_REC_END, crc);
	err = olog_no_record() ? 0 :
		fc_sync_io(l->v->pool, l->dev->bdev, REQ_OP_WRITE | REQ_FUA | REQ_SYNC,
			   page_sector(pos), page_sector(1 + nr), l->buf);
	if (err) {
		fc_vlog_stop(l, "writing a record failed", err);
		return err;
	}
	fc_olog_walk_take(&l->w, r);
	return 0;
}

/* Is the writer's ring over half full? */
bool fc_vlog_half_full(const struct fc_vlog *l)
{
	return l->w.used * 2 > l->g.end - l->g.start;
}

void fc_vlog_put(struct dm_target *ti, struct fc_vlog *l)
{
	if (!l)
		return;
	if (l->dev)
		dm_put_device(ti, l->dev);
	vfree(l->buf);
	kfree(l->rec);
	kfree(l->sb);
	kvfree(l);
}

int fc_vlog_open(struct fc_volume *v, struct dm_target *ti, struct fc_vlog **out)
{
	struct fc_pool *pool = v->pool;
	struct fc_vlog *l;
	struct block_device *b;
	unsigned int i;
	bool live;
	int err;

	l = kvzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		goto nomem;
	*out = l;
	l->v = v;
	l->sb = kmalloc(2 * FC_PAGE_SIZE, GFP_KERNEL);
	l->rec = kmalloc(FC_PAGE_SIZE, GFP_KERNEL);
	l->buf = vmalloc((1 + FC_OLOG_REC_MAX) * FC_PAGE_SIZE);
	if (!l->sb || !l->rec || !l->buf)
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
	return err;
nomem:
	ti->error = "fcache: out of memory";
	return -ENOMEM;
}

const char *fc_vlog_name(const struct fc_vlog *l)
{
	return l->dev->name;
}
