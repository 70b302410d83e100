// SPDX-License-Identifier: GPL-2.0
/*
 * fc_meta: pool format, load/recovery and the metadata commit, following
 * the protocol in include/fcache_format.h:
 *   1. changed logical pages go to the slot not holding their current copy,
 *      stamped seq S + 1;
 *   2. the flash is flushed (this also makes completed data writes durable);
 *   3. the superblock goes to the slot not holding the current one, with FUA;
 *   4. only then are blocks freed by this commit reused (pending list) and
 *      PDIRTY dropped from entries this commit recorded clean.
 * Loading reads both superblock slots and both slots of every metadata
 * page of the loaded leg; a mirrored pool loaded with both legs also reads
 * every page of the other leg, for leftovers only (scan_other_leg()): one
 * more read pass of one leg's metadata.
 *
 * Locking: fc_commit() holds pool->commit_lock for the whole commit and
 * takes pool->lock only to serialise pages and to apply the result; no I/O
 * under pool->lock.  Loading runs in the pool constructor before the pool is
 * visible to anyone.
 */
#include <linux/vmalloc.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>

#include "fc_core.h"

#define FC_MD_BUF_PAGES 256u

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
 * A deliberate bug for the crash harness's negative control: a commit
 * skips its flush of the flash (step 2), so its superblock can land
 * before its pages and the data they map (tests/crash, docs/TESTING.md).
 */
static bool mutant_skip_commit_flush;
module_param(mutant_skip_commit_flush, bool, 0644);
MODULE_PARM_DESC(mutant_skip_commit_flush, "test build: commits skip their flush (a bug on purpose)");

static bool skip_commit_flush(void)
{
	return READ_ONCE(mutant_skip_commit_flush);
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

static inline bool skip_commit_flush(void)
{
	return false;
}

static inline bool flush_one_leg(void)
{
	return false;
}
#endif

/* Synchronous metadata I/O on leg @leg (fault-injection point). */
static int md_io_leg(struct fc_pool *pool, unsigned int leg, blk_opf_t opf, sector_t sector,
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
static int md_write_all(struct fc_pool *pool, blk_opf_t opf, sector_t sector, sector_t count,
			void *buf)
{
	unsigned int i;
	int r;

	for_each_leg(pool, i) {
		r = md_io_leg(pool, i, opf, sector, count, buf);
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
static int flash_flush(struct fc_pool *pool)
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

static void *buf_page(struct fc_pool *pool, unsigned int i)
{
	return (u8 *)pool->md_buf + (size_t)i * FC_PAGE_SIZE;
}

/* ---- serialisation (pool->lock held) ---- */

static void ser_voltable(struct fc_pool *pool, struct fc_disk_voltable *vt)
{
	unsigned int i;

	memset(vt, 0, sizeof(*vt));
	for (i = 0; i < FC_MAX_VOLUMES && i < FC_VT_SLOTS; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (!s->id)
			continue;
		vt->vol[i].id = cpu_to_le32(s->id);
		vt->vol[i].flags = cpu_to_le32(FC_VOL_IN_USE | (s->detached ? FC_VOL_DETACHED : 0));
		vt->vol[i].origin_sectors = cpu_to_le64(s->origin_sectors);
		vt->vol[i].dirty_blocks = cpu_to_le64(s->dirty);
		memcpy(vt->vol[i].label, s->label, FC_VOLUME_LABEL_LEN);
	}
}

static void ser_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p)
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
		if (e->dirty) {
			/* Reuse before commit: pinned until recorded clean. */
			e->flags |= FC_E_PDIRTY;
			e->flags &= ~FC_E_SER_CLEAN;
			continue;
		}
not_dirty:
		if (e->flags & FC_E_PDIRTY)
			e->flags |= FC_E_SER_CLEAN;
	}
}

/*
 * After a successful commit: entries recorded clean lose PDIRTY.  In a
 * mirrored pool such an entry, still clean and idle, gives its twin back:
 * the flash no longer refers to it, and no write to it is in flight (the
 * next dirty write takes a twin again).
 */
static void apply_clean(struct fc_pool *pool, u64 l)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;

	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_entry *e = &pool->e[first + i];

		if (!(e->flags & FC_E_SER_CLEAN))
			continue;
		e->flags &= ~(FC_E_PDIRTY | FC_E_SER_CLEAN);
		if (!e->dirty && fc_entry_idle(e) && fc_twin_of(pool, first + i) != FC_NONE)
			fc_drop_twin(pool, e);
	}
}

void fc_mark_page_dirty(struct fc_pool *pool, u32 eidx)
{
	__set_bit(1 + eidx / FC_ENTRIES_PER_PAGE, pool->page_dirty);
	pool->md_gen++;
}

void fc_mark_vt_dirty(struct fc_pool *pool)
{
	__set_bit(0, pool->page_dirty);
	pool->md_gen++;
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
	sb->incompat_features = cpu_to_le32(FC_FEAT_INCOMPAT_MDSEQ | FC_FEAT_INCOMPAT_DETACH);
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

static int write_pages(struct fc_pool *pool, const u64 *pg, unsigned int n, u64 seq)
{
	struct batch_leg bl[FC_MAX_LEGS];
	struct batch_ctx c;
	unsigned int i, leg;

	batch_init(&c, bl);
	for (i = 0; i < n; i++) {
		u64 nr = fc_md_page_nr(pg[i], !test_bit(pg[i], pool->page_slot));
		void *p = buf_page(pool, i);

		fc_page_seal(p, pg[i] ? FC_ME_MAGIC : FC_VT_MAGIC, nr, seq, pool->uuid);
		/* The same page at the same place on every leg. */
		for_each_leg(pool, leg)
			batch_write(pool, &bl[leg], REQ_OP_WRITE | REQ_SYNC, nr * FC_PAGE_SECTORS, p);
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
static struct fc_disk_superblock *seal_sb(struct fc_pool *pool, unsigned int leg,
					   unsigned int slot, u64 seq, u64 md_seq, u32 flags)
{
	struct fc_disk_superblock *sb = buf_page(pool, leg);

	build_sb(pool, sb, flags, leg);
	sb->md_seq = cpu_to_le64(md_seq);
	fc_page_seal(sb, FC_SB_MAGIC, slot, seq, pool->uuid);
	return sb;
}

static int write_sb_slot(struct fc_pool *pool, unsigned int leg, unsigned int slot, u64 seq,
			 u64 md_seq, u32 flags)
{
	return md_io_leg(pool, leg, REQ_OP_WRITE | REQ_FUA | REQ_SYNC, slot * FC_PAGE_SECTORS,
			 FC_PAGE_SECTORS, seal_sb(pool, leg, slot, seq, md_seq, flags));
}

/*
 * Every present leg's superblock, written at once.  A crash between the
 * two landing leaves one leg (either) one commit behind, with that
 * commit's pages already on it (they were written and flushed on every
 * leg first): fc_meta_open() takes the leg with the higher seq.
 * @preflush: the write carries the commit's flush (one leg in service:
 * the block layer completes the flush before it writes the superblock).
 */
static int write_sb(struct fc_pool *pool, u64 seq, u64 md_seq, u32 flags, bool preflush)
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
			    seal_sb(pool, i, slot[i], seq, md_seq, flags));
		set_bit(i, &sent);
	}
	r = batch_wait(pool, bl);
	for_each_set_bit(i, &sent, FC_MAX_LEGS)
		if (!test_bit(i, &c.err_legs))
			pool->leg[i].sb_slot = slot[i];
	return r;
}

/*
 * Metadata I/O failed: metadata mode rw -> ro.  The in-core state now
 * differs from the flash (md_lost): from here on nothing is recorded, and
 * the next load replays the flash's last committed state.  The volumes
 * keep serving what that state cannot undo (docs/DESIGN.md, "Metadata
 * modes"): reads; writes, to the origin and in place to the flash block
 * the state may name (ro_write() in fc_decide.c), except to blocks
 * released while committed dirty (unwritable_blocks); no discard.  The
 * writeback worker writes the dirty data back (marked clean in core
 * only), and a flush succeeds once its volume has none left
 * (fc_ro_flush(), fc_commit_work()).  The caller records needs_check on
 * the flash if it can (ro), or goes to fail if it cannot.
 */
void fc_meta_error(struct fc_pool *pool, int err)
{
	atomic64_inc(&pool->metadata_errors);
	WRITE_ONCE(pool->md_lost, true);
	pool->needs_check = true;
	if (pool->md_mode == FC_MD_FAIL)
		return;
	DMERR_LIMIT("metadata write failed (%d): metadata is read-only until fcachectl check --repair; the volumes keep serving reads and writes, except writes to the blocks the status counts as unwritable_blocks; flushes fail until the pool has written its %llu dirty blocks back to the origins",
		    err, READ_ONCE(pool->nr_dirty));
	WRITE_ONCE(pool->md_mode, FC_MD_RO);
}

/*
 * Pools that went to fail (needs_check could not be written anywhere on
 * their flash), remembered by uuid while the module stays loaded, so a
 * reload in this boot still comes up read-only instead of silently rw.
 * @seq: the highest superblock seq on the flash at the failure; a load that
 * finds a higher one sees a superblock written since (fcachectl check
 * --repair) and the memory no longer applies.  Across a reboot
 * nothing remembers: then the flash holds the last committed state, which
 * every completed flush is part of, since nothing is acknowledged after
 * the failure (docs/DESIGN.md, "Metadata modes").
 */
#define FC_FAILED_POOLS 16
static struct {
	u8 uuid[16];
	u64 seq;
} fc_failed[FC_FAILED_POOLS];
static unsigned int fc_failed_next;
static DEFINE_SPINLOCK(fc_failed_lock);

static void remember_failed(struct fc_pool *pool)
{
	unsigned int i;

	spin_lock(&fc_failed_lock);
	for (i = 0; i < FC_FAILED_POOLS; i++)
		if (!memcmp(fc_failed[i].uuid, pool->uuid, 16))
			break;
	if (i == FC_FAILED_POOLS)
		i = fc_failed_next++ % FC_FAILED_POOLS;
	memcpy(fc_failed[i].uuid, pool->uuid, 16);
	fc_failed[i].seq = pool->seq;
	spin_unlock(&fc_failed_lock);
}

static bool failed_before(const u8 *uuid, u64 sb_seq)
{
	bool r = false;
	unsigned int i;

	spin_lock(&fc_failed_lock);
	for (i = 0; i < FC_FAILED_POOLS; i++)
		if (!memcmp(fc_failed[i].uuid, uuid, 16) && sb_seq <= fc_failed[i].seq)
			r = true;
	spin_unlock(&fc_failed_lock);
	return r;
}

/*
 * The superblock write of commit @seq failed: record needs_check in a
 * leftover page instead (include/fcache_format.h): the volume table's
 * slot that does not hold its current copy, stamped @seq > md_seq with
 * FC_HDR_NEEDS_CHECK.  Being a leftover, its content is never used.
 */
static int write_needs_check_page(struct fc_pool *pool, u64 seq)
{
	unsigned int s = !test_bit(0, pool->page_slot);
	u64 nr = fc_md_page_nr(0, s);
	void *p = buf_page(pool, 0);

	spin_lock_irq(&pool->lock);
	ser_voltable(pool, p);
	spin_unlock_irq(&pool->lock);
	fc_page_seal_flags(p, FC_VT_MAGIC, nr, seq, pool->uuid, FC_HDR_NEEDS_CHECK);
	if (md_write_all(pool, REQ_OP_WRITE | REQ_FUA | REQ_SYNC, nr * FC_PAGE_SECTORS,
			 FC_PAGE_SECTORS, p))
		return -EIO;
	return 0;
}

/* A commit that succeeded (commit_lock held): the "stats" message's figures. */
static void commit_stats(struct fc_pool *pool, u64 pages, u64 ns)
{
	WRITE_ONCE(pool->st_commits, pool->st_commits + 1);
	WRITE_ONCE(pool->st_commit_pages, pool->st_commit_pages + pages);
	WRITE_ONCE(pool->st_commit_ns, pool->st_commit_ns + ns);
	if (ns > pool->st_commit_max_ns)
		WRITE_ONCE(pool->st_commit_max_ns, ns);
}

/*
 * Read-only metadata: a REQ_PREFLUSH (fc_commit_work(), which also asks
 * that the flush's volume have no dirty data left if a commit failed).
 * The flash holds the last committed state and, in place, every write
 * since (ro_write()); flushing it makes those durable, unless a PDIRTY
 * sub-block was dropped since the last commit that succeeded began: then
 * the origin may hold data newer than the block the next load replays
 * over it, and no flush succeeds until fcachectl check --repair.
 */
int fc_ro_flush(struct fc_pool *pool)
{
	u64 drops;
	int r;

	mutex_lock(&pool->commit_lock);
	spin_lock_irq(&pool->lock);
	drops = pool->pdirty_drops;
	spin_unlock_irq(&pool->lock);
	r = drops != pool->drops_committed ? -EIO : flash_flush(pool);
	mutex_unlock(&pool->commit_lock);
	return r;
}

/* The flash holds every volume flash write counted up to @fw (a flush covered them). */
static void flash_synced(struct fc_pool *pool, u64 fw)
{
	spin_lock_irq(&pool->lock);
	if (fw > pool->fw_synced)
		pool->fw_synced = fw;
	spin_unlock_irq(&pool->lock);
}

/*
 * One commit.  @clean: record a clean shutdown (last put of the pool).
 * @committed (if given): set when pages or a superblock were written; a
 * call that found nothing to record only flushed the flash, and only if
 * a volume's flash write completed since its last flush (fw_done).
 * Returns 0 or a negative errno (then the pool is ro or fail).
 */
static int do_commit(struct fc_pool *pool, bool clean, bool *committed)
{
	u64 *pg = pool->md_pg;
	unsigned long *written;
	u64 seq, l = 0, t0, pages = 0, drops, gen = 0, fw;
	unsigned int n;
	u32 flags;
	bool any = false, first = true, nothing, sb_flush;
	int r = 0;

	mutex_lock(&pool->commit_lock);
	t0 = ktime_get_ns();
	if (pool->md_mode != FC_MD_RW) {
		/*
		 * Nothing can be recorded any more.  If a commit failed in
		 * this activation, the flash may record a state other than
		 * the one acknowledged: every flush fails.  A pool loaded
		 * read-only (needs_check) holds exactly what its flash
		 * records, and writes fail: a flush only flushes.
		 */
		r = READ_ONCE(pool->md_lost) ? -EIO : flash_flush(pool);
		mutex_unlock(&pool->commit_lock);
		return r;
	}
	seq = pool->seq + 1;
	/* Every drop so far marked its page: this commit records it (fc_ro_flush()). */
	spin_lock_irq(&pool->lock);
	drops = pool->pdirty_drops;
	spin_unlock_irq(&pool->lock);
	/* Pages written by this commit, to flip their slots after (no allocation). */
	written = pool->page_written;
	bitmap_zero(written, pool->g.md_pages);
	for (;;) {
		n = 0;
		spin_lock_irq(&pool->lock);
		while (n < pool->md_buf_pages) {
			l = find_next_bit(pool->page_dirty, pool->g.md_pages, l);
			if (l >= pool->g.md_pages)
				break;
			__clear_bit(l, pool->page_dirty);
			__set_bit(l, written);
			if (l)
				ser_entries(pool, l, buf_page(pool, n));
			else
				ser_voltable(pool, buf_page(pool, n));
			pg[n++] = l++;
		}
		/*
		 * A commit serialised in several batches is not one snapshot:
		 * an entry released after its page went out and a new entry
		 * for the same origin block serialised in a later batch would
		 * both map it on the flash.  New entries are refused (I/O goes
		 * around the cache) until the last batch is serialised.
		 */
		pool->ser_window = n == pool->md_buf_pages;
		/*
		 * Every change counted by now is in this commit: its page
		 * was serialised here or, still marked, lies above the scan
		 * and a later batch takes it.  Not so for a change made
		 * after this batch (its page may lie below the scan).
		 */
		if (first)
			gen = pool->md_gen;
		first = false;
		spin_unlock_irq(&pool->lock);
		if (!n)
			break;
		any = true;
		pages += n;
		r = write_pages(pool, pg, n, seq);
		if (r)
			goto fail_pages;
	}
	/*
	 * Step 2: flush the flash: pages and every completed data write.
	 * With one leg in service (!fc_redundant(): one device, or a degraded
	 * pool), the superblock's write carries the flush (REQ_PREFLUSH), one
	 * round trip instead of two.  With two, every
	 * leg's flush completes before either superblock names the twin
	 * copies written to the other.
	 */
	flags = (clean ? FC_SB_CLEAN : 0) | (pool->needs_check ? FC_SB_NEEDS_CHECK : 0);
	nothing = !any && flags == pool->sb_flags;
	sb_flush = !nothing && !fc_redundant(pool) && !skip_commit_flush();
	/* Read before the flush is sent: it covers every write counted. */
	spin_lock_irq(&pool->lock);
	fw = pool->fw_done;
	spin_unlock_irq(&pool->lock);
	/*
	 * Nothing to record and no flash write since the last flush: no I/O
	 * at all.  Else the flush goes to every leg in service at once.
	 */
	if (!sb_flush && !skip_commit_flush() && !(nothing && fw == READ_ONCE(pool->fw_synced))) {
		r = flash_flush(pool);
		if (r)
			goto fail_pages;
		flash_synced(pool, fw);
	}
	if (nothing)
		goto out;	/* nothing changed: the flush was all we needed */
	/* Step 3: the superblock makes seq S + 1 current. */
	for (;;) {
		u32 failed = READ_ONCE(pool->failed_legs);

		r = write_sb(pool, seq, seq, flags, sb_flush);
		if (r)
			goto fail_sb;
		if (sb_flush)
			flash_synced(pool, fw);
		if (READ_ONCE(pool->failed_legs) == failed)
			break;
		/*
		 * A leg failed during this commit, after the superblock
		 * was built: the leg in service must name it before anyone
		 * counts on this commit (a load with both devices would
		 * otherwise trust the failed one's metadata).
		 */
		pool->seq = seq++;
	}
	pool->seq = seq;
	pool->md_seq = seq;
	pool->sb_flags = flags;
	/* Step 4: flip slots, drop PDIRTY of entries recorded clean, reuse frees. */
	spin_lock_irq(&pool->lock);
	for (l = find_first_bit(written, pool->g.md_pages); l < pool->g.md_pages;
	     l = find_next_bit(written, pool->g.md_pages, l + 1)) {
		__change_bit(l, pool->page_slot);
		/* On the flash now (fc_entry_committed()). */
		__clear_bit(l, written);
		if (l)
			apply_clean(pool, l);
	}
	fc_release_pending(pool);
	spin_unlock_irq(&pool->lock);
	commit_stats(pool, pages, ktime_get_ns() - t0);
	if (committed)
		*committed = true;
out:
	pool->drops_committed = drops;
	/* Every change up to gen is on the flash: a REQ_PREFLUSH may skip the worker. */
	spin_lock_irq(&pool->lock);
	pool->md_committed = gen;
	spin_unlock_irq(&pool->lock);
	mutex_unlock(&pool->commit_lock);
	return 0;

fail_sb:
	fc_meta_error(pool, r);
	goto record;
fail_pages:
	spin_lock_irq(&pool->lock);
	pool->ser_window = false;
	spin_unlock_irq(&pool->lock);
	fc_meta_error(pool, r);
	/*
	 * Never publish a seq whose pages did not all land: superblock S + 1
	 * records needs_check but keeps md_seq, so the pages of this commit
	 * that did land are leftovers (never trusted, rewritten by the first
	 * commit after the next load).
	 */
	if (!write_sb(pool, seq, pool->md_seq, FC_SB_NEEDS_CHECK, false)) {
		pool->seq = seq;
		pool->sb_flags = FC_SB_NEEDS_CHECK;
		goto out_err;
	}
record:
	/*
	 * No superblock can be written: record needs_check in a leftover
	 * page, else nothing on the flash says so (fail).
	 */
	if (write_needs_check_page(pool, seq)) {
		DMERR("cannot record needs_check on the flash: no metadata write succeeds; the pool loads read-only until the module is unloaded");
		WRITE_ONCE(pool->md_mode, FC_MD_FAIL);
		remember_failed(pool);
	}
out_err:
	mutex_unlock(&pool->commit_lock);
	return r;
}

int fc_commit(struct fc_pool *pool, bool clean)
{
	return do_commit(pool, clean, NULL);
}

/* The commit worker's (fc_commit_work()): did it record anything? */
int fc_commit_sync(struct fc_pool *pool, bool *committed)
{
	*committed = false;
	return do_commit(pool, false, committed);
}

/* ---- format ---- */

static int format_pool(struct fc_pool *pool)
{
	u64 l;
	unsigned int i, n;
	int r;

	get_random_bytes(pool->uuid, sizeof(pool->uuid));
	for (i = 0; i < pool->g.nr_legs; i++)
		get_random_bytes(pool->leg[i].member_uuid, 16);
	pool->events = 1;
	pool->format_time = ktime_get_real_seconds();
	/* Every logical page: slot 0 an empty page of seq 1, slot 1 zeroed. */
	for (l = 0; l < pool->g.md_pages; l += n) {
		n = min_t(u64, pool->md_buf_pages / 2, pool->g.md_pages - l);
		memset(pool->md_buf, 0, (size_t)n * 2 * FC_PAGE_SIZE);
		for (i = 0; i < n; i++) {
			void *p = buf_page(pool, 2 * i);

			if (l + i == 0)
				fc_page_seal(p, FC_VT_MAGIC, fc_md_page_nr(0, 0), 1, pool->uuid);
			else
				fc_page_seal(p, FC_ME_MAGIC, fc_md_page_nr(l + i, 0), 1,
					     pool->uuid);
		}
		r = md_write_all(pool, REQ_OP_WRITE, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
				 (sector_t)n * 2 * FC_PAGE_SECTORS, pool->md_buf);
		if (r)
			return r;
	}
	r = flash_flush(pool);
	if (r)
		return r;
	pool->sb_flags = 0;
	/* seq 1 in both slots of every leg */
	for (i = 0; i < pool->g.nr_legs && !r; i++) {
		r = write_sb_slot(pool, i, 0, 1, 1, 0);
		if (!r)
			r = write_sb_slot(pool, i, 1, 1, 1, 0);
		pool->leg[i].sb_slot = 1;
	}
	pool->seq = 1;
	pool->md_seq = 1;
	bitmap_zero(pool->page_slot, pool->g.md_pages);
	return r;
}

/* ---- load ---- */

/*
 * Check slot @s of logical page @l (read at @p): 0 if valid (its seq in
 * *@seq), else a negative FC_ECHK_* code.  A valid slot above md_seq is a
 * leftover of a commit that never completed: never used, and marked for
 * rewriting by the first commit, which takes a seq above it (*@max_seen);
 * one with FC_HDR_NEEDS_CHECK records needs_check (include/fcache_format.h,
 * "Leftovers").
 */
static int verify_slot(struct fc_pool *pool, u64 l, unsigned int s, const void *p, u64 *seq,
		       u64 *max_seen)
{
	const struct fc_disk_header *h = p;
	int v = fc_page_verify(p, l ? FC_ME_MAGIC : FC_VT_MAGIC, fc_md_page_nr(l, s), pool->uuid);

	*seq = le64_to_cpu(h->seq);
	if (v || *seq <= pool->md_seq)
		return v;
	pool->leftovers++;
	__set_bit(l, pool->page_dirty);
	*max_seen = max(*max_seen, *seq);
	if (le32_to_cpu(h->flags) & FC_HDR_NEEDS_CHECK) {
		DMWARN("a failed commit recorded needs_check in metadata page %llu", l);
		pool->needs_check = true;
	}
	return 0;
}

/*
 * Choose the slot of logical page @l: the valid one with the highest seq
 * <= md_seq.  A valid slot above md_seq is a leftover of a commit that
 * never completed: never used, and marked for rewriting by the first commit
 * (include/fcache_format.h, "Leftovers").
 */
static int pick_slot(struct fc_pool *pool, u64 l, void *s0, void *s1, int *slot,
		     u64 *max_seen)
{
	void *p[2] = { s0, s1 };
	bool ok[2];
	u64 q[2];
	int v[2], i;

	for (i = 0; i < 2; i++) {
		v[i] = verify_slot(pool, l, i, p[i], &q[i], max_seen);
		ok[i] = !v[i] && q[i] <= pool->md_seq;
	}
	if (ok[0] && (!ok[1] || q[0] >= q[1]))
		*slot = 0;
	else if (ok[1])
		*slot = 1;
	else
		return v[0] ? v[0] : FC_ECHK_CSUM;
	return 0;
}

static void load_voltable(struct fc_pool *pool, struct fc_disk_voltable *vt)
{
	unsigned int i;

	for (i = 0; i < FC_MAX_VOLUMES && i < FC_VT_SLOTS; i++) {
		struct fc_vslot *s = &pool->vol[i];

		if (!(le32_to_cpu(vt->vol[i].flags) & FC_VOL_IN_USE) || !vt->vol[i].id)
			continue;
		s->id = le32_to_cpu(vt->vol[i].id);
		s->origin_sectors = le64_to_cpu(vt->vol[i].origin_sectors);
		s->detached = !!(le32_to_cpu(vt->vol[i].flags) & FC_VOL_DETACHED);
		memcpy(s->label, vt->vol[i].label, FC_VOLUME_LABEL_LEN);
		s->label[FC_VOLUME_LABEL_LEN] = 0;
	}
}

/*
 * The twin of loaded entry @idx, FC_NONE if it has none (or it was on a
 * missing leg); -EINVAL for one that cannot be (damage).
 */
static int entry_twin(struct fc_pool *pool, u32 idx, const struct fc_disk_entry *d, u8 dirty,
		      u32 *twin)
{
	u32 t;

	*twin = FC_NONE;
	if (!(d->flags & FC_ENTRY_MIRRORED) || !dirty)
		return 0;
	t = le32_to_cpu(d->twin);
	if (!fc_mirrored(pool) || t >= pool->g.nr_blocks ||
	    fc_block_leg(&pool->g, t) == fc_block_leg(&pool->g, idx))
		return -EINVAL;
	if (fc_block_bdev(pool, t))
		*twin = t;
	return 0;
}

/*
 * Mark block @b (on a leg in service) as holding one record's data or one
 * twin copy; true if something already holds it.  @claimed is NULL for
 * one device: without twins each block has only its own record.
 */
static bool claim_block(struct fc_pool *pool, unsigned long *claimed, u32 b)
{
	return claimed && b != FC_NONE && fc_block_bdev(pool, b) &&
		__test_and_set_bit(b, claimed);
}

static int load_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p,
			bool was_clean, unsigned long *claimed, char **error)
{
	u64 first = (l - 1) * FC_ENTRIES_PER_PAGE;
	unsigned int i;
	bool changed = false;

	for (i = 0; i < FC_ENTRIES_PER_PAGE && first + i < pool->g.nr_blocks; i++) {
		struct fc_disk_entry *d = &p->e[i];
		struct fc_entry *e, *dup;
		u8 valid = d->valid & pool->full_mask, dirty = d->dirty & valid;
		u32 idx = (u32)(first + i), t;

		if (!valid)
			continue;
		if (d->vol >= FC_MAX_VOLUMES || !pool->vol[d->vol].id) {
			changed = true;
			continue;
		}
		if (entry_twin(pool, idx, d, dirty, &t)) {
			*error = "fcache-pool: a cache entry names an impossible twin block (damaged metadata); run fcachectl check";
			return -EINVAL;
		}
		/*
		 * Every block holds one record or one twin copy, clean
		 * records included (as fcachectl check counts them): a dirty
		 * record naming as its twin a block that has a record of its
		 * own is damage even when that record is clean and dropped
		 * below, since nothing tells which of the two the block's
		 * data belongs to.  A degraded load moves an entry to its
		 * twin, so this also covers the block it moves to.
		 */
		if (claim_block(pool, claimed, idx) || claim_block(pool, claimed, t)) {
			DMERR("cache block %u or its twin block is used twice (entry and twin, or twin of two entries)",
			      idx);
			*error = "fcache-pool: a cache block is used both by an entry and as a twin (damaged metadata); run fcachectl check";
			return -EINVAL;
		}
		/*
		 * Crash rule: after an unclean shutdown only dirty data is
		 * trusted.  Recovery only reads and decides; the result is
		 * written by the first commit before any I/O, so a crash
		 * during recovery is just another crash (idempotent).
		 */
		if (!was_clean && valid != dirty) {
			valid = dirty;
			changed = true;
			if (!valid)
				continue;
		}
		if (t == FC_NONE && (d->flags & FC_ENTRY_MIRRORED) && dirty)
			changed = true;		/* its twin was on the missing leg */
		if (!fc_block_bdev(pool, idx)) {
			/*
			 * The entry's leg is missing (loaded degraded): its
			 * clean data is gone with it, its dirty data lives on
			 * in the twin, which takes the entry's place.  Only
			 * the dirty sub-blocks are valid there: a twin holds
			 * no others (after a clean shutdown valid may have
			 * more), as fc_rescue_entry() does at run time.
			 */
			changed = true;
			if (!dirty)
				continue;
			if (t == FC_NONE) {
				*error = "fcache-pool: dirty data had its only copy on the missing flash device; load the pool with both devices";
				return -ENODATA;
			}
			valid = dirty;
			idx = t;
			t = FC_NONE;
			fc_mark_page_dirty(pool, idx);
		}
		/*
		 * Two cache blocks mapping one origin block (a block used
		 * twice was refused above): every commit is one snapshot of
		 * a state that never has them, so this is damage, and no
		 * rule can tell which copy is the newer one.  Refuse the
		 * pool rather than pick one.
		 */
		dup = fc_lookup(pool, d->vol, le64_to_cpu(d->oblock));
		if (dup) {
			DMERR("cache blocks %u and %u both map volume slot %u block %llu",
			      idx, fc_eidx(pool, dup), d->vol, le64_to_cpu(d->oblock));
			*error = "fcache-pool: two cache blocks map the same origin block (damaged metadata); run fcachectl check";
			return -EINVAL;
		}
		e = &pool->e[idx];
		e->oblock = le64_to_cpu(d->oblock);
		e->vol = d->vol;
		e->valid = valid;
		e->dirty = dirty;
		if (dirty)
			e->flags |= FC_E_PDIRTY;
		if (t != FC_NONE) {
			pool->twin[idx] = t;
			__set_bit(t, pool->twin_used);
			pool->nr_twins++;
			/* A write in flight at a power cut may have reached one copy. */
			if (!was_clean) {
				__set_bit(idx, pool->unsynced);
				pool->nr_unsynced++;
			}
		}
		fc_cache_insert_loaded(pool, idx);
	}
	if (changed)
		__set_bit(l, pool->page_dirty);
	return 0;
}

/*
 * Read both slots of metadata pages @l onward of @leg into md_buf, as many
 * pages as it holds (*@n), for load_pool() and scan_other_leg().
 */
static int read_page_pairs(struct fc_pool *pool, unsigned int leg, u64 l, unsigned int *n)
{
	*n = min_t(u64, pool->md_buf_pages / 2, pool->g.md_pages - l);
	return md_io_leg(pool, leg, REQ_OP_READ, fc_md_page_nr(l, 0) * FC_PAGE_SECTORS,
			 (sector_t)*n * 2 * FC_PAGE_SECTORS, pool->md_buf);
}

/*
 * Load every metadata page.  @max_seen: the highest seq found on the flash
 * so far (the superblocks'); raised by every leftover page.
 */
static int load_pool(struct fc_pool *pool, unsigned int leg, u64 *max_seen, char **error)
{
	bool was_clean = pool->sb_flags & FC_SB_CLEAN;
	unsigned long *claimed;
	u64 l;
	unsigned int i, n;
	int r = 0, slot;

	claimed = fc_mirrored(pool) ? bitmap_zalloc((unsigned int)pool->g.nr_blocks, GFP_KERNEL) :
		NULL;
	if (fc_mirrored(pool) && !claimed) {
		*error = "fcache-pool: out of memory for the cache entries";
		return -ENOMEM;
	}
	for (l = 0; l < pool->g.md_pages; l += n) {
		r = read_page_pairs(pool, leg, l, &n);
		if (r) {
			*error = "fcache-pool: cannot read the pool metadata (I/O error)";
			goto out;
		}
		for (i = 0; i < n; i++) {
			void *p;

			if (pick_slot(pool, l + i, buf_page(pool, 2 * i),
				      buf_page(pool, 2 * i + 1), &slot, max_seen)) {
				*error = "fcache-pool: a metadata page is damaged in both slots; run fcachectl check";
				r = -EINVAL;
				goto out;
			}
			if (slot)
				__set_bit(l + i, pool->page_slot);
			p = buf_page(pool, 2 * i + slot);
			if (l + i == 0) {
				load_voltable(pool, p);
			} else {
				r = load_entries(pool, l + i, p, was_clean, claimed, error);
				if (r)
					goto out;
			}
		}
	}
out:
	bitmap_free(claimed);
	return r;
}

/*
 * A pair load reads the metadata of one leg only (@leg is the other one).
 * A commit cut short can have left a page on that other leg alone (its
 * copy on the loaded leg and both superblocks never landed): unless it is
 * seen here, the next commit reuses its seq without rewriting it, and it
 * looks committed on that leg from then on (trusted when the leg is loaded
 * alone).  So both slots of every page of the other leg are read too (one
 * more read pass of one leg's metadata at load, chunked as load_pool())
 * and every leftover found is handled as one on the loaded leg
 * (verify_slot()).  Nothing else is taken from them: the legs' committed
 * pages are the same.
 */
static int scan_other_leg(struct fc_pool *pool, unsigned int leg, u64 *max_seen, char **error)
{
	u64 l, q, before = pool->leftovers;
	unsigned int i, s, n;
	int r;

	for (l = 0; l < pool->g.md_pages; l += n) {
		r = read_page_pairs(pool, leg, l, &n);
		if (r) {
			*error = "fcache-pool: cannot read the metadata of the second flash device (I/O error)";
			return r;
		}
		for (i = 0; i < n; i++)
			for (s = 0; s < 2; s++)
				verify_slot(pool, l + i, s, buf_page(pool, 2 * i + s), &q, max_seen);
	}
	if (pool->leftovers != before)
		DMINFO("mirrored pool: %llu leftover page slots on leg %u (rewritten by the first commit)",
		       pool->leftovers - before, leg);
	return 0;
}

/* What a leg's two superblock slots hold. */
struct leg_sb {
	void *buf;			/* both slots, 2 pages */
	struct fc_disk_superblock *sb;	/* the current one, NULL if none */
	int v[2];
	u64 q[2];
	bool blank;
	bool present;
	unsigned int slot;
};

static int read_leg_sb(struct fc_pool *pool, unsigned int leg, struct leg_sb *ls, char **error)
{
	struct fc_disk_superblock *sb0, *sb1;
	int r;

	ls->present = true;
	r = md_io_leg(pool, leg, REQ_OP_READ, 0, 2 * FC_PAGE_SECTORS, ls->buf);
	if (r) {
		*error = "fcache-pool: cannot read the flash device's first 8 KiB (I/O error)";
		return r;
	}
	sb0 = ls->buf;
	sb1 = (void *)((u8 *)ls->buf + FC_PAGE_SIZE);
	ls->v[0] = fc_page_verify(sb0, FC_SB_MAGIC, 0, NULL);
	ls->v[1] = fc_page_verify(sb1, FC_SB_MAGIC, 1, NULL);
	ls->blank = ls->v[0] == FC_ECHK_ZERO && ls->v[1] != 0;
	if (ls->blank)
		return 0;
	if (ls->v[0] && ls->v[1]) {
		if (ls->v[0] == FC_ECHK_MAGIC && ls->v[1] == FC_ECHK_MAGIC)
			*error = "fcache-pool: the flash device holds other data (no fcache superblock, first 4 KiB not zero); wipe it to format";
		else
			*error = "fcache-pool: the fcache superblock is damaged in both slots; run fcachectl check";
		return -EINVAL;
	}
	ls->q[0] = le64_to_cpu(sb0->hdr.seq);
	ls->q[1] = le64_to_cpu(sb1->hdr.seq);
	if (!ls->v[0] && !ls->v[1] && memcmp(sb0->hdr.uuid, sb1->hdr.uuid, 16))
		ls->sb = ls->q[0] >= ls->q[1] ? sb0 : sb1;
	else if (!ls->v[0] && (ls->v[1] || ls->q[0] >= ls->q[1]))
		ls->sb = sb0;
	else
		ls->sb = sb1;
	ls->slot = ls->sb == sb1;
	return 0;
}

static bool sb_mirrored(const struct fc_disk_superblock *sb)
{
	return le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_MIRROR;
}

static u32 sb_leg(const struct fc_disk_superblock *sb)
{
	return le32_to_cpu(sb->member_index);
}

/* A blank pool: format every leg. */
static int format_new(struct fc_pool *pool, u32 block_sectors, unsigned int nr_legs,
		      char **error)
{
	u64 sectors[FC_MAX_LEGS] = { 0, 0 };
	unsigned int i;
	int r;

	for (i = 0; i < nr_legs; i++) {
		if (!pool->leg[i].bdev) {
			*error = "fcache-pool: a new mirrored pool needs both flash devices (no 'mirror -')";
			return -EINVAL;
		}
		sectors[i] = bdev_nr_sectors(pool->leg[i].bdev);
	}
	if (fc_geometry_compute_legs(&pool->g, sectors, nr_legs, block_sectors)) {
		*error = "fcache-pool: the flash device is too small for this block size";
		return -EINVAL;
	}
	r = fc_cache_alloc(pool);
	if (r) {
		*error = "fcache-pool: out of memory for the cache entries";
		return r;
	}
	fc_cache_build_free(pool);
	r = format_pool(pool);
	if (r) {
		*error = "fcache-pool: formatting the flash device failed (I/O error)";
		return r;
	}
	DMINFO("formatted a new pool: %llu blocks of %u sectors%s",
	       pool->g.nr_blocks, block_sectors, nr_legs > 1 ? " on two mirrored devices" : "");
	return 0;
}

/*
 * A mirrored pool: put each present device on the leg its superblock
 * names, and check that the two belong together (docs/DESIGN.md,
 * "Two-device pool").  Returns the leg whose metadata is loaded.
 */
static int pick_legs(struct fc_pool *pool, struct leg_sb *ls, char **error)
{
	struct fc_disk_superblock *a, *b;
	struct block_device *bdev[FC_MAX_LEGS] = { NULL, NULL };
	struct leg_sb tmp[FC_MAX_LEGS];
	unsigned int i, m;

	for (i = 0; i < FC_MAX_LEGS; i++) {
		if (!ls[i].present)
			continue;
		if (ls[i].blank) {
			*error = "fcache-pool: one device is blank but the other holds a mirrored pool; a new device joins only by replacing a leg";
			return -EINVAL;
		}
		if (!sb_mirrored(ls[i].sb)) {
			*error = "fcache-pool: a device holds a one-device pool; remove 'mirror' from the table";
			return -EINVAL;
		}
	}
	/* Each device on the leg its superblock names: the table's order does not matter. */
	memset(tmp, 0, sizeof(tmp));
	for (i = 0; i < FC_MAX_LEGS; i++) {
		if (!ls[i].present)
			continue;
		m = sb_leg(ls[i].sb);
		if (bdev[m]) {
			*error = "fcache-pool: both devices say they are the same leg of a pool (a copy of one device?)";
			return -EINVAL;
		}
		bdev[m] = pool->leg[i].bdev;
		tmp[m] = ls[i];
	}
	for (i = 0; i < FC_MAX_LEGS; i++) {
		pool->leg[i].bdev = bdev[i];
		ls[i] = tmp[i];
	}
	if (!ls[0].present || !ls[1].present) {
		m = ls[0].present ? 1 : 0;	/* the missing leg */
		memcpy(pool->leg[m].member_uuid, ls[!m].sb->partner_uuid, 16);
		memcpy(pool->leg[!m].member_uuid, ls[!m].sb->member_uuid, 16);
		return !m;
	}
	a = ls[0].sb;
	b = ls[1].sb;
	if (memcmp(a->hdr.uuid, b->hdr.uuid, 16) || memcmp(a->partner_uuid, b->member_uuid, 16) ||
	    memcmp(b->partner_uuid, a->member_uuid, 16)) {
		*error = "fcache-pool: the two devices are not legs of the same pool (a foreign or replaced device)";
		return -EINVAL;
	}
	if ((le32_to_cpu(a->failed_legs) & 2) && (le32_to_cpu(b->failed_legs) & 1)) {
		*error = "fcache-pool: each device ran without the other (split brain); load one with mirror - degraded 1";
		return -EINVAL;
	}
	if (le32_to_cpu(a->failed_legs) & 2 || le32_to_cpu(b->failed_legs) & 1) {
		*error = "fcache-pool: one device is stale: the pool ran without it; load the other with mirror - degraded 1";
		return -EINVAL;
	}
	if (le64_to_cpu(a->events) != le64_to_cpu(b->events) ||
	    memcmp(a->leg_blocks, b->leg_blocks, sizeof(a->leg_blocks)) ||
	    memcmp(a->leg_sectors, b->leg_sectors, sizeof(a->leg_sectors)) ||
	    a->block_sectors != b->block_sectors) {
		*error = "fcache-pool: the two devices' superblocks disagree (events or geometry); run fcachectl check on each";
		return -EINVAL;
	}
	for (i = 0; i < FC_MAX_LEGS; i++)
		memcpy(pool->leg[i].member_uuid, ls[i].sb->member_uuid, 16);
	/* A crash between the two superblock writes: the later commit wins. */
	return le64_to_cpu(b->hdr.seq) > le64_to_cpu(a->hdr.seq);
}

/*
 * Read the superblocks: format blank devices, load a pool, or refuse.
 * @nr_legs: devices in the table (pool->leg[i].bdev, NULL for a missing
 * one).  Fills pool->g and every in-core structure (via fc_cache_alloc).
 */
int fc_meta_open(struct fc_pool *pool, u32 block_sectors, unsigned int nr_legs, char **error)
{
	struct leg_sb ls[FC_MAX_LEGS];
	struct fc_disk_superblock *sb;
	const char *why;
	unsigned int i, auth = 0;
	u64 max_seen = 0;
	bool blank = true;
	int r;

	memset(ls, 0, sizeof(ls));
	pool->md_buf_pages = FC_MD_BUF_PAGES;
	pool->md_buf = vmalloc(FC_MD_BUF_PAGES * FC_PAGE_SIZE);
	pool->md_pg = kcalloc(FC_MD_BUF_PAGES, sizeof(u64), GFP_KERNEL);
	if (!pool->md_buf || !pool->md_pg) {
		*error = "fcache-pool: out of memory";
		return -ENOMEM;
	}
	/* The superblocks of leg i in md_buf pages 2i, 2i + 1. */
	for (i = 0; i < nr_legs; i++) {
		ls[i].buf = buf_page(pool, 2 * i);
		if (!pool->leg[i].bdev)
			continue;
		r = read_leg_sb(pool, i, &ls[i], error);
		if (r)
			return r;
		blank &= ls[i].blank;
	}
	pool->g.nr_legs = nr_legs;
	if (blank)
		return format_new(pool, block_sectors, nr_legs, error);
	if (nr_legs == 1 && sb_mirrored(ls[0].sb)) {
		*error = "fcache-pool: the flash device is one leg of a mirrored pool; add mirror <other device>, or mirror - degraded 1 to run without it";
		return -EINVAL;
	}
	if (nr_legs > 1) {
		r = pick_legs(pool, ls, error);
		if (r < 0)
			return r;
		auth = r;
	}
	sb = ls[auth].sb;
	for (i = 0; i < nr_legs; i++) {
		if (!ls[i].present)
			continue;
		if (fc_sb_check_geometry(ls[i].sb, bdev_nr_sectors(pool->leg[i].bdev),
					 &pool->g, &why)) {
			*error = (char *)why;
			return -EINVAL;
		}
		pool->leg[i].sb_slot = ls[i].slot;
		/* Every valid superblock slot counts as seen. */
		max_seen = max(max_seen, ls[i].v[0] ? 0 : ls[i].q[0]);
		max_seen = max(max_seen, ls[i].v[1] ? 0 : ls[i].q[1]);
	}
	/* The loaded leg's geometry last: pool->g is its. */
	if (fc_sb_check_geometry(sb, bdev_nr_sectors(pool->leg[auth].bdev), &pool->g, &why)) {
		*error = (char *)why;
		return -EINVAL;
	}
	if (pool->g.block_sectors != block_sectors) {
		*error = "fcache-pool: block_size differs from the pool's superblock";
		return -EINVAL;
	}
	memcpy(pool->uuid, sb->hdr.uuid, 16);
	pool->seq = le64_to_cpu(sb->hdr.seq);
	pool->md_seq = fc_sb_md_seq(sb);
	pool->sb_flags = le32_to_cpu(sb->sb_flags);
	pool->format_time = le64_to_cpu(sb->format_time);
	pool->needs_check = pool->sb_flags & FC_SB_NEEDS_CHECK;
	pool->events = le64_to_cpu(sb->events);
	pool->failed_legs = le32_to_cpu(sb->failed_legs);
	for (i = 0; i < pool->g.nr_legs; i++) {
		if (pool->leg[i].bdev || (pool->failed_legs & (1u << i)))
			continue;
		/* Newly without this leg: recorded by the first commit. */
		pool->failed_legs |= 1u << i;
		pool->events++;
		DMWARN("mirrored pool loaded degraded: leg %u is missing", i);
	}
	if (failed_before(pool->uuid, pool->seq)) {
		DMWARN("this pool failed earlier in this boot without recording it on the flash");
		pool->needs_check = true;
	}
	max_seen = max(max_seen, pool->seq);

	r = fc_cache_alloc(pool);
	if (r) {
		*error = "fcache-pool: out of memory for the cache entries";
		return r;
	}
	r = load_pool(pool, auth, &max_seen, error);
	if (!r && fc_mirrored(pool) && pool->leg[!auth].bdev)
		r = scan_other_leg(pool, !auth, &max_seen, error);
	if (r)
		return r;
	fc_cache_build_free(pool);
	/* Dirty data with one copy while both legs serve (a replace cut short). */
	if (fc_redundant(pool))
		fc_join_twins(pool);
	/*
	 * The next commit moves past every seq on the flash, and rewrites
	 * every page that has a leftover on either leg (verify_slot() marked
	 * them) before its superblock can make that seq current.
	 */
	pool->seq = max_seen;
	/* Rewrite the volume table (dirty counts) with the first commit. */
	fc_mark_vt_dirty(pool);
	DMINFO("loaded pool: seq %llu, %s shutdown, %llu blocks used, %llu dirty, %llu leftover pages",
	       pool->md_seq, (pool->sb_flags & FC_SB_CLEAN) ? "clean" : "unclean",
	       pool->nr_used, pool->nr_dirty, pool->leftovers);
	if (pool->nr_unsynced)
		DMINFO("mirrored pool: %llu dirty blocks to resync (their copies may differ after the unclean shutdown)",
		       pool->nr_unsynced);
	if (pool->needs_check) {
		/* As dm-cache: read-only until fcachectl check clears the flag. */
		DMWARN("the pool needs a check: loaded read-only; run fcachectl check --repair on its flash device");
		pool->md_mode = FC_MD_RO;
	}
	return 0;
}

/*
 * "replace 1" (pool_preresume()): @bdev becomes leg @m of a pool degraded
 * by that leg (docs/DESIGN.md "Replace").  Only when nothing is left on
 * the failed leg: no entry, no twin, no pending block, no twin copy in
 * flight to the old device.  Then, under commit_lock: the new device is
 * the leg (a new member uuid, events + 1), its blocks are free, every
 * metadata page is marked for the next commit (the new device gets all of
 * them), every dirty entry gets a twin on it (joining: the flash names it
 * once fc_resync() has copied the data), and a commit writes it all to
 * both devices with superblocks naming each other.  A crash before that
 * commit ends leaves the old superblocks: the new device is foreign to
 * the pool and the other one still names the leg failed.
 */
int fc_attach_leg(struct fc_pool *pool, unsigned int m, struct block_device *bdev,
		  const char **why)
{
	u32 lo = m ? (u32)pool->g.leg_blocks[0] : 0, hi = lo + (u32)pool->g.leg_blocks[m];
	u32 i, head = FC_NONE;
	u8 uuid[16];
	u64 n = 0;
	int r;

	/* Pending blocks of the failed leg go out of use at a commit. */
	r = fc_commit(pool, false);
	if (r) {
		*why = "replace: the commit before it failed";
		return r;
	}
	get_random_bytes(uuid, sizeof(uuid));
	mutex_lock(&pool->commit_lock);
	spin_lock_irq(&pool->lock);
	r = -EBUSY;
	if (pool->failed_legs != (1u << m)) {
		*why = "replace: the pool is no longer degraded by that device";
		goto out;
	}
	if (pool->vacating || atomic_read(&pool->twin_io[m])) {
		*why = "replace: the failed device is still being vacated; try again";
		goto out;
	}
	for (i = pool->pending_head; i != FC_NONE; i = pool->e[i].next) {
		if (fc_block_leg(&pool->g, i) == m) {
			*why = "replace: blocks of the failed device wait for a commit; try again";
			goto out;
		}
	}
	/* Nothing uses a failed leg's blocks: none changes under us. */
	for (i = hi; i-- > lo;) {
		if ((pool->e[i].flags & FC_E_HASHED) || test_bit(i, pool->twin_used)) {
			*why = "replace: dirty data with no second copy is still on the failed device (fcachectl check)";
			r = -EIO;
			goto out;
		}
		pool->e[i].flags = FC_E_FREE;
		pool->e[i].next = head;
		head = i;
		n++;
	}
	pool->leg[m].bdev = bdev;
	memcpy(pool->leg[m].member_uuid, uuid, 16);
	pool->leg[m].sb_slot = 1;
	pool->free_head[m] = head;
	pool->nr_free_leg[m] = n;
	pool->nr_free += n;
	pool->events++;
	pool->joined_leg = m;
	WRITE_ONCE(pool->failed_legs, 0);
	bitmap_fill(pool->page_dirty, pool->g.md_pages);
	pool->md_gen++;
	r = 0;
out:
	spin_unlock_irq(&pool->lock);
	mutex_unlock(&pool->commit_lock);
	if (r)
		return r;
	DMINFO("replace: %pg is leg %u now; the dirty data is copied to it (resync)", bdev, m);
	fc_join_twins(pool);
	r = fc_commit(pool, false);
	if (r)
		*why = "replace: the first commit on both devices failed";
	return r;
}
