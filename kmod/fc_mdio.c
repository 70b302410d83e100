// SPDX-License-Identifier: GPL-2.0
/*
 * fc_mdio: the metadata's I/O, below the commit (fc_commit.c) and the load
 * (fc_load.c): synchronous I/O on a leg (with the test build's fault hooks),
 * the flush of every leg, the serialisation of in-core state into metadata
 * pages and superblocks, and the parallel page and superblock writes of a
 * commit (the protocol in include/fcache_format.h).  Also the marks a change
 * leaves for the next commit's look-up (fc_entry_committed()).
 *
 * Locking: the serialisation runs under pool->lock (ser_*(), build_sb());
 * the writes run under pool->commit_lock, never under pool->lock.  A write
 * that fails on a leg fails the leg (fc_leg_error_unlocked()).
 */
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>

#include "fc_core.h"


int fc_sync_io(struct fc_pool *pool, struct block_device *bdev, blk_opf_t opf,
	       sector_t sector, sector_t count, void *buf)
{
	struct dm_io_region where = { .bdev = bdev, .sector = sector, .count = count };
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = is_vmalloc_addr(buf) ? DM_IO_VMA : DM_IO_KMEM,
		.mem.ptr.vma = buf,
		.client = pool->io,
	};
	unsigned long err = 0;
	int r;

	r = fc_dm_io(&req, 1, &where, &err);
	if (!r && err)
		r = -EIO;
	return r;
}

/*
 * Fault injection for the test build only (make fi-module: -DFC_FAULT_INJECT).
 * Every metadata I/O (a page or superblock write, a flush of the flash, a
 * metadata read at load, a format write) counts in md_io_count; when
 * fault_md_io is set to N > 0, the N-th metadata I/O from then on fails with
 * -EIO without being issued.  The tests walk N over every I/O of a format,
 * a load, a commit and a writeback batch (docs/TESTING.md).
 */
#ifdef FC_FAULT_INJECT
static atomic_t fault_md_io = ATOMIC_INIT(0);
static atomic_long_t md_io_count = ATOMIC_LONG_INIT(0);

static int fault_md_io_set(const char *val, const struct kernel_param *kp)
{
	int n, r = kstrtoint(val, 0, &n);

	if (r)
		return r;
	atomic_set(&fault_md_io, n);
	return 0;
}

static int fault_md_io_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fault_md_io));
}

static const struct kernel_param_ops fault_md_io_ops = {
	.set = fault_md_io_set,
	.get = fault_md_io_get,
};
module_param_cb(fault_md_io, &fault_md_io_ops, NULL, 0644);
MODULE_PARM_DESC(fault_md_io, "test build: fail the N-th metadata I/O from now");

static int md_io_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&md_io_count));
}

static const struct kernel_param_ops md_io_count_ops = { .get = md_io_count_get };
module_param_cb(md_io_count, &md_io_count_ops, NULL, 0444);
MODULE_PARM_DESC(md_io_count, "test build: metadata I/Os issued so far");

static bool md_fault(void)
{
	atomic_long_inc(&md_io_count);
	return atomic_add_unless(&fault_md_io, -1, 0) && !atomic_read(&fault_md_io);
}

/*
 * Another, for mirrored pools: a commit flushes the first flash device
 * only, so the second one's superblock (FUA) can land before its pages
 * and the twin copies they name.  The crash walk cannot see it while both
 * legs share one log-writes device (docs/TESTING.md).
 */
static bool mutant_flush_one_leg;
module_param(mutant_flush_one_leg, bool, 0644);
MODULE_PARM_DESC(mutant_flush_one_leg, "test build: commits flush the first flash device only (a bug on purpose)");

static bool flush_one_leg(void)
{
	return READ_ONCE(mutant_flush_one_leg);
}
#else
static inline bool md_fault(void)
{
	return false;
}

static inline bool flush_one_leg(void)
{
	return false;
}
#endif

/* Synchronous metadata I/O on leg @leg (fault-injection point). */
int fc_md_io_leg(struct fc_pool *pool, unsigned int leg, blk_opf_t opf, sector_t sector,
		 sector_t count, void *buf)
{
	if (md_fault())
		return -EIO;
	return fc_sync_io(pool, pool->leg[leg].bdev, opf, sector, count, buf);
}

/* The first leg in service from @i on (g.nr_legs: none). */
static unsigned int next_leg(struct fc_pool *pool, unsigned int i)
{
	while (i < pool->g.nr_legs && (!pool->leg[i].bdev || fc_leg_failed(pool, i)))
		i++;
	return i;
}

/*
 * The legs metadata goes to: all in service (present, not failed).  An
 * I/O error on one of two fails that leg (fc_leg_error()) and the step
 * goes on with the other; on the last one it is the commit's error.
 */
#define for_each_leg(pool, i) \
	for ((i) = next_leg(pool, 0); (i) < (pool)->g.nr_legs; (i) = next_leg(pool, (i) + 1))

/* The same metadata write on every present leg. */
int fc_md_write_all(struct fc_pool *pool, blk_opf_t opf, sector_t sector, sector_t count,
		    void *buf)
{
	unsigned int i;
	int r;

	for_each_leg(pool, i) {
		r = fc_md_io_leg(pool, i, opf, sector, count, buf);
		if (r && !fc_leg_error_unlocked(pool, i))
			return r;
	}
	return 0;
}

/*
 * Flush every present leg: their pages and every completed data write.
 * One dm-io request with a region per leg, so the legs flush at once and
 * the error bits say which one failed.
 */
int fc_flash_flush(struct fc_pool *pool)
{
	struct dm_io_region where[FC_MAX_LEGS];
	struct dm_io_request req = {
		.bi_opf = REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC,
		.mem.type = DM_IO_KMEM, .mem.ptr.addr = NULL,
		.client = pool->io,
	};
	unsigned int i, n = 0, leg[FC_MAX_LEGS];
	unsigned long err = 0, faulted = 0;

	for_each_leg(pool, i) {
		if (i && flush_one_leg())
			continue;
		if (md_fault()) {
			set_bit(i, &faulted);
			continue;
		}
		where[n] = (struct dm_io_region){ .bdev = pool->leg[i].bdev };
		leg[n++] = i;
	}
	if (n && fc_dm_io(&req, n, where, &err) && !err)
		err = (1UL << n) - 1;
	for (i = 0; i < n; i++)
		if (test_bit(i, &err))
			set_bit(leg[i], &faulted);
	for_each_set_bit(i, &faulted, FC_MAX_LEGS)
		if (!fc_leg_error_unlocked(pool, i))
			return -EIO;
	return 0;
}

void *fc_buf_page(struct fc_pool *pool, unsigned int i)
{
	return (u8 *)pool->md_buf + (size_t)i * FC_PAGE_SIZE;
}

/* ---- serialisation (pool->lock held) ---- */

void fc_ser_voltable(struct fc_pool *pool, struct fc_disk_voltable *vt)
{
	unsigned int i;

	memset(vt, 0, sizeof(*vt));
	for (i = 0; i < FC_MAX_VOLUMES && i < FC_VT_SLOTS; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (!s->id)
			continue;
		vt->vol[i].id = cpu_to_le32(s->id);
		vt->vol[i].flags = cpu_to_le32(FC_VOL_IN_USE | (s->detached ? FC_VOL_DETACHED : 0) |
					       (s->olog ? FC_VOL_OLOG : 0));
		vt->vol[i].origin_sectors = cpu_to_le64(s->origin_sectors);
		vt->vol[i].dirty_blocks = cpu_to_le64(s->dirty);
		memcpy(vt->vol[i].label, s->label, FC_VOLUME_LABEL_LEN);
	}
}

void fc_ser_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_entry *e = &pool->e[first + i];
		struct fc_disk_entry *d = &p->e[i];

		if (!e->valid || (e->flags & FC_E_FREE))
			goto not_dirty;
		d->oblock = cpu_to_le64(e->oblock);
		d->vol = e->vol;
		d->valid = e->valid;
		d->dirty = e->dirty;
		/* A joining twin is named once it holds the data (fc_resync()). */
		if (e->dirty && fc_twin_of(pool, first + i) != FC_NONE &&
		    !test_bit(first + i, pool->joining)) {
			d->flags = FC_ENTRY_MIRRORED;
			d->twin = cpu_to_le32(pool->twin[first + i]);
		}
		/* Ordered write-back: the epoch of dirty data, which version. */
		if (e->dirty && pool->ord_feature) {
			d->twin = cpu_to_le32(pool->ep[first + i]);
			if (test_bit(first + i, pool->shadow))
				d->flags |= FC_ENTRY_SHADOW;
		}
		if (e->dirty) {
			/* Reuse before commit: pinned until recorded clean. */
			e->flags |= FC_E_PDIRTY;
			e->flags &= ~FC_E_SER_CLEAN;
			goto warm;
		}
		if (test_bit(first + i, pool->warm) && pool->warm_feature)
			d->flags |= FC_ENTRY_WARM;
not_dirty:
		if (e->flags & FC_E_PDIRTY)
			e->flags |= FC_E_SER_CLEAN;
warm:
		/* Warm restart: as PDIRTY, set now, cleared once recorded otherwise. */
		if (d->flags & FC_ENTRY_WARM) {
			__set_bit(first + i, pool->pwarm);
			__clear_bit(first + i, pool->ser_unwarm);
		} else if (test_bit(first + i, pool->pwarm)) {
			__set_bit(first + i, pool->ser_unwarm);
		}
	}
}

/*
 * Does the flash record entry @eidx as it is in core (pool->lock held)?
 * Its page and the volume table's (a leg failure, a detach mark) are
 * neither changed since the last commit that succeeded nor being written
 * by a running one.  A REQ_FUA write to its dirty sub-blocks then needs
 * no commit (fc_decide(), fua_direct).
 */
bool fc_entry_committed(struct fc_pool *pool, u32 eidx)
{
	u64 l = 1 + eidx / FC_ENTRIES_PER_PAGE;

	return READ_ONCE(pool->md_mode) == FC_MD_RW &&
		!test_bit(l, pool->page_dirty) && !test_bit(l, pool->page_written) &&
		!test_bit(0, pool->page_dirty) && !test_bit(0, pool->page_written);
}

/* Does a volume slot write back through an ordered log (FC_VOL_OLOG)? */
static bool any_olog(struct fc_pool *pool)
{
	unsigned int i;

	for (i = 0; i < FC_MAX_VOLUMES; i++)
		if (pool->vol[i].id && pool->vol[i].olog)
			return true;
	return false;
}

static void build_sb(struct fc_pool *pool, struct fc_disk_superblock *sb, u32 flags,
		     unsigned int leg)
{
	unsigned int i;

	memset(sb, 0, FC_PAGE_SIZE);
	sb->block_sectors = cpu_to_le32(pool->g.block_sectors);
	sb->subblock_sectors = cpu_to_le32(pool->g.subblock_sectors);
	sb->nr_blocks = cpu_to_le64(pool->g.nr_blocks);
	sb->data_start = cpu_to_le64(pool->g.data_start);
	sb->md_pages = cpu_to_le64(pool->g.md_pages);
	sb->entries_per_page = cpu_to_le32(FC_ENTRIES_PER_PAGE);
	sb->max_volumes = cpu_to_le32(FC_MAX_VOLUMES);
	sb->flash_sectors = cpu_to_le64(pool->g.leg_sectors[leg]);
	sb->sb_flags = cpu_to_le32(flags);
	sb->incompat_features = cpu_to_le32(FC_FEAT_INCOMPAT_MDSEQ | FC_FEAT_INCOMPAT_DETACH |
					    FC_FEAT_INCOMPAT_PAGELIST |
					    (pool->warm_feature ? FC_FEAT_INCOMPAT_WARM : 0) |
					    (pool->ord_feature ? FC_FEAT_INCOMPAT_ORDERED : 0) |
					    (any_olog(pool) ? FC_FEAT_INCOMPAT_OLOG : 0));
	sb->format_time = cpu_to_le64(pool->format_time);
	if (!fc_mirrored(pool))
		return;
	sb->incompat_features |= cpu_to_le32(FC_FEAT_INCOMPAT_MIRROR);
	memcpy(sb->member_uuid, pool->leg[leg].member_uuid, 16);
	memcpy(sb->partner_uuid, pool->leg[!leg].member_uuid, 16);
	sb->member_index = cpu_to_le32(leg);
	sb->failed_legs = cpu_to_le32(pool->failed_legs);
	sb->events = cpu_to_le64(pool->events);
	for (i = 0; i < FC_MAX_LEGS; i++) {
		sb->leg_blocks[i] = cpu_to_le64(pool->g.leg_blocks[i]);
		sb->leg_sectors[i] = cpu_to_le64(pool->g.leg_sectors[i]);
	}
}

/*
 * Metadata writes in parallel: one dm-io request per (page, leg), one
 * completion for all; the legs whose writes failed are failed in turn
 * (fc_leg_error()), and only the last leg's failure is an error.
 */
struct batch_ctx {
	atomic_t count;
	unsigned long err_legs;		/* legs with a failed write */
	struct completion done;
};

struct batch_leg {
	struct batch_ctx *c;
	unsigned int leg;
};

static void batch_endio(unsigned long error, void *context)
{
	struct batch_leg *bl = context;
	struct batch_ctx *c = bl->c;

	if (error)
		set_bit(bl->leg, &c->err_legs);
	if (atomic_dec_and_test(&c->count))
		complete(&c->done);
}

static void batch_init(struct batch_ctx *c, struct batch_leg *bl)
{
	unsigned int i;

	atomic_set(&c->count, 1);
	c->err_legs = 0;
	init_completion(&c->done);
	for (i = 0; i < FC_MAX_LEGS; i++) {
		bl[i].c = c;
		bl[i].leg = i;
	}
}

/* Write @buf to @sector of leg @leg, counted in @bl's batch. */
static void batch_write(struct fc_pool *pool, struct batch_leg *bl, blk_opf_t opf,
			sector_t sector, void *buf)
{
	struct dm_io_region where = {
		.bdev = pool->leg[bl->leg].bdev, .sector = sector, .count = FC_PAGE_SECTORS,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_VMA, .mem.ptr.vma = buf,
		.notify.fn = batch_endio, .notify.context = bl,
		.client = pool->io,
	};

	atomic_inc(&bl->c->count);
	if (md_fault() || fc_dm_io(&req, 1, &where, NULL))
		batch_endio(1, bl);
}

/* Wait for the batch; 0 unless the last leg in service failed. */
static int batch_wait(struct fc_pool *pool, struct batch_leg *bl)
{
	struct batch_ctx *c = bl[0].c;
	unsigned int i;

	batch_endio(0, &bl[0]);
	wait_for_completion_io(&c->done);
	for_each_set_bit(i, &c->err_legs, FC_MAX_LEGS)
		if (!fc_leg_error_unlocked(pool, i))
			return -EIO;
	return 0;
}

/*
 * Seal buffer page @i, logical page @pg[@i] of commit @seq, for the slot
 * not holding its current copy; the sector of that slot.
 */
static sector_t seal_page(struct fc_pool *pool, const u64 *pg, unsigned int i, u64 seq)
{
	u64 nr = fc_md_page_nr(pg[i], !test_bit(pg[i], pool->page_slot));

	fc_page_seal(fc_buf_page(pool, i), pg[i] ? FC_ME_MAGIC : FC_VT_MAGIC, nr, seq,
		     pool->uuid);
	return nr * FC_PAGE_SECTORS;
}

/*
 * Pages @pg[0..@n) of commit @seq, to the slot not holding each one's
 * current copy, on every leg at once.  @flush (a pool with two legs in
 * service): every page carries REQ_FUA, and each leg's first page also
 * REQ_PREFLUSH, which makes durable every data write completed before it
 * was sent: when the batch has completed, pages and data are on stable
 * media on both legs, and the superblocks may follow at once (one round
 * trip less than the pages, a flush of both legs, then the superblocks).
 */
int fc_write_pages(struct fc_pool *pool, const u64 *pg, unsigned int n, u64 seq, bool flush)
{
	struct batch_leg bl[FC_MAX_LEGS];
	blk_opf_t opf = REQ_OP_WRITE | REQ_SYNC | (flush ? REQ_FUA : 0);
	struct batch_ctx c;
	unsigned int i, leg;

	batch_init(&c, bl);
	for (i = 0; i < n; i++) {
		sector_t sector = seal_page(pool, pg, i, seq);

		/* The same page at the same place on every leg. */
		for_each_leg(pool, leg) {
			bool pf = flush && !i && !(leg && flush_one_leg());

			batch_write(pool, &bl[leg], opf | (pf ? REQ_PREFLUSH : 0), sector,
				    fc_buf_page(pool, i));
		}
	}
	return batch_wait(pool, bl);
}

/*
 * Superblock @seq, trusting pages up to @md_seq (equal to @seq after a
 * complete commit, the last complete one's after a failed page batch:
 * include/fcache_format.h, "Leftovers"), into the slot that does NOT hold
 * the current superblock: a torn write must leave the current one intact.
 * (Seqs can jump past leftovers at load, so @seq % 2 is not that slot.)
 */
static struct fc_disk_superblock *seal_sb(struct fc_pool *pool, void *buf, unsigned int leg,
					   unsigned int slot, u64 seq, u64 md_seq, u32 flags,
					   const u64 *pg, unsigned int n)
{
	struct fc_disk_superblock *sb = buf;

	build_sb(pool, sb, flags, leg);
	sb->md_seq = cpu_to_le64(md_seq);
	fc_sb_set_list(sb, pg, n);
	fc_page_seal(sb, FC_SB_MAGIC, slot, seq, pool->uuid);
	return sb;
}

int fc_write_sb_slot(struct fc_pool *pool, unsigned int leg, unsigned int slot, u64 seq,
		     u64 md_seq, u32 flags)
{
	return fc_md_io_leg(pool, leg, REQ_OP_WRITE | REQ_FUA | REQ_SYNC, slot * FC_PAGE_SECTORS,
			 FC_PAGE_SECTORS, seal_sb(pool, fc_buf_page(pool, leg), leg, slot, seq,
						  md_seq, flags, NULL, 0));
}

/*
 * A one-write commit (include/fcache_format.h, "One-write commits"), one
 * leg in service: pages @pg[0..@n) of commit @seq, serialised in buffer
 * pages 0..@n-1, and the superblock naming them, built in buffer page @n,
 * written at once, every write REQ_FUA and the first page's REQ_PREFLUSH
 * too (it makes durable every data write completed before it was sent).
 * A superblock that lands before a page is not proven, and recovery
 * uses the other slot.  0 or the error of the batch (the superblock may
 * have landed: a later superblock, or a leftover, must take a higher seq).
 */
int fc_write_commit(struct fc_pool *pool, const u64 *pg, unsigned int n, u64 seq, u32 flags)
{
	blk_opf_t opf = REQ_OP_WRITE | REQ_SYNC | REQ_FUA;
	struct batch_leg bl[FC_MAX_LEGS];
	unsigned int i, leg = next_leg(pool, 0), slot;
	struct batch_ctx c;
	int r;

	if (WARN_ON_ONCE(!n || n > FC_SB_LIST_MAX || n >= pool->md_buf_pages ||
			 leg >= pool->g.nr_legs || next_leg(pool, leg + 1) < pool->g.nr_legs))
		return -EIO;
	slot = !pool->leg[leg].sb_slot;
	batch_init(&c, bl);
	for (i = 0; i < n; i++)
		batch_write(pool, &bl[leg], opf | (i ? 0 : REQ_PREFLUSH), seal_page(pool, pg, i, seq),
			    fc_buf_page(pool, i));
	batch_write(pool, &bl[leg], opf, slot * FC_PAGE_SECTORS,
		    seal_sb(pool, fc_buf_page(pool, n), leg, slot, seq, seq, flags, pg, n));
	r = batch_wait(pool, bl);
	if (!r && !test_bit(leg, &c.err_legs))
		pool->leg[leg].sb_slot = slot;
	return r;
}

/*
 * Every present leg's superblock, written at once.  A crash between the
 * two landing leaves one leg (either) one commit behind, with that
 * commit's pages already on it (they were written and flushed on every
 * leg first): fc_meta_open() takes the leg with the higher seq.
 * @preflush: the write carries the commit's flush (one leg in service:
 * the block layer completes the flush before it writes the superblock).
 */
int fc_write_sb(struct fc_pool *pool, u64 seq, u64 md_seq, u32 flags, bool preflush)
{
	blk_opf_t opf = REQ_OP_WRITE | REQ_FUA | REQ_SYNC | (preflush ? REQ_PREFLUSH : 0);
	struct batch_leg bl[FC_MAX_LEGS];
	unsigned int i, slot[FC_MAX_LEGS];
	unsigned long sent = 0;
	struct batch_ctx c;
	int r;

	batch_init(&c, bl);
	for_each_leg(pool, i) {
		slot[i] = !pool->leg[i].sb_slot;
		batch_write(pool, &bl[i], opf, slot[i] * FC_PAGE_SECTORS,
			    seal_sb(pool, fc_buf_page(pool, i), i, slot[i], seq, md_seq, flags,
				    NULL, 0));
		set_bit(i, &sent);
	}
	r = batch_wait(pool, bl);
	for_each_set_bit(i, &sent, FC_MAX_LEGS)
		if (!test_bit(i, &c.err_legs))
			pool->leg[i].sb_slot = slot[i];
	return r;
}
