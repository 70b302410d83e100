/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm-fcache internal definitions shared by the kmod/ files.
 *
 * Objects:
 *   struct fc_pool    one per flash device, shared by every table of the
 *                     pool device and by the volumes (refcounted, found in a
 *                     global registry keyed by the pool's mapped_device).
 *   struct fc_pool_c  one per fcache-pool table instance (ti->private).
 *   struct fc_volume  one per fcache table instance (ti->private).
 *   struct fc_vslot   in-core copy of a volume table slot, plus stats.
 *   struct fc_entry   one per cache block (24 bytes, see docs/DESIGN.md).
 *
 * Locking:
 *   pool->replace_lock (mutex) a replace (pool_preresume(), fc_attach_leg())
 *                             against the checks of a reload of the pool
 *                             device (pool_ctr()): they see the pool before
 *                             or after it.  Held across the replace's
 *                             commits, so never by anything else that long.
 *   fc_registry_lock (mutex)  registry list, pool refcounts, vslot
 *                             registration and activation, pool->flash and
 *                             flash2 (written under replace_lock too).
 *                             Held across I/O only by a pool's creation
 *                             (pool_create(): the load, the first commit).
 *   pool->lock (spinlock, irq-safe: end_io runs in irq context)
 *                             every fc_entry field (but see inflight:
 *                             read hits end without it), the hash, the free and
 *                             pending lists, page dirty bits, vslot block
 *                             counters, bio lists.  Never held across I/O.
 *   pool->commit_lock (mutex) serialises commits and metadata writes.
 *   pool->wb_lock (mutex)     one writeback worker at a time (it overlaps
 *                             two batches).
 * Order: replace_lock -> fc_registry_lock -> commit_lock -> pool->lock.
 */
#ifndef FC_CORE_H
#define FC_CORE_H

#include <linux/device-mapper.h>
#include <linux/dm-io.h>
#include <linux/dm-kcopyd.h>
#include <linux/bio.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <linux/mempool.h>
#include <linux/percpu.h>

#include "../include/fcache_format.h"
#include "../include/fcache_abi.h"
#include "../engine/fc_parse.h"
#include "../engine/fc_policy.h"
#include "../engine/fc_decide.h"
#include "fc_compat.h"

#define DM_MSG_PREFIX "fcache"

#define FC_NONE		0xffffffffu
#define FC_STRIPES	1024u		/* origin-write tracking stripes */
#define FC_GHOST_SLOTS	65536u
#define FC_IDLE_JIFFIES	(5 * HZ)	/* no foreground I/O this long: idle */
/* Short read streams (fc_ra_read(), fc_fill_stream()): reads this close in time */
#define FC_RA_WINDOW	HZ
#define FC_RA_BYTES	(128u << 10)	/* a stream's fill: its block and those after */
#define FC_OLINK_OFF	0xfffffffeu	/* pool->olink[i].prev: entry i not linked */
#define FC_WALK_BATCH	4096u		/* entries a whole-array walk visits per lock hold */

/* fc_entry.flags */
#define FC_E_BUSY	0x01	/* a fill is in flight: writes wait */
#define FC_E_REF	0x02	/* CLOCK reference bit */
#define FC_E_PDIRTY	0x04	/* committed (or being committed) as dirty */
#define FC_E_SER_CLEAN	0x08	/* serialised clean by the running commit */
#define FC_E_WB		0x10	/* writeback copy in flight */
#define FC_E_FREE	0x20	/* on the free list */
#define FC_E_PENDING	0x40	/* freed while PDIRTY: free after commit */
#define FC_E_HASHED	0x80	/* in the hash table */

struct fc_entry {
	u64 oblock;		/* origin block (volume-relative, in blocks) */
	u32 next;		/* hash chain / free / pending list link */
	/*
	 * Bios remapped to this block's flash.  Raised under pool->lock;
	 * lowered under it too, except by a flash read that completes without
	 * error (fc_end_io), which only decrements: anyone who waits for it
	 * to reach zero parks with fc_park_locked().
	 */
	atomic_t inflight;
	u16 gen;		/* write generation (may wrap: see fc_entry_bump) */
	u8 vol : 6;		/* volume slot (< FC_MAX_VOLUMES) */
	u8 wb_raced : 1;	/* bumped while FC_E_WB: the copy is not clean */
	u8 gen_wrapped : 1;	/* gen passed 0 with bios in flight */
	u8 flags;		/* FC_E_* */
	u8 valid;		/* sub-block bitmap */
	u8 dirty;		/* sub-block bitmap, subset of valid */
	u16 dirty_ts;		/* seconds (wrapping) when first dirtied */
};

enum fc_md_mode { FC_MD_RW, FC_MD_RO, FC_MD_FAIL };

/* Per-volume I/O counters: enum fc_stat (fc_decide.h). */
extern const char *const fc_stat_names[FC_ST_NR];

struct fc_vstats {
	u64 c[FC_ST_NR];
};

struct fc_volume;

struct fc_vslot {
	/* persistent (volume table page) */
	u32 id;
	u64 origin_sectors;
	char label[FC_VOLUME_LABEL_LEN + 1];
	bool detached;			/* FC_VOL_DETACHED (fc_registry_lock + pool->lock) */
	bool olog;			/* FC_VOL_OLOG (fc_registry_lock + pool->lock) */
	/*
	 * The suspended table whose postsuspend set detached (fc_registry_lock):
	 * the mark holds until a table of the slot resumes (cleared) or this
	 * table is destroyed (kept).  NULL: detached is final (a destructor,
	 * or as loaded from the flash).
	 */
	struct fc_volume *susp_detach;
	/* in-core */
	struct fc_volume *active;	/* resumed target (fc_registry_lock) */
	bool wb_allowed;		/* writeback may use active->origin */
	u64 cached, dirty;		/* blocks (pool->lock) */
	u64 hashed;			/* entries in the hash, fills too (pool->lock) */
	/* flush requests (fc_flush_volumes(), pool->lock) */
	u64 flush_left;			/* its blocks in pool->flush_set */
	u64 flush_errors;		/* of them, copies that failed */
	atomic_t wb_inflight;
	/* its dirty entries, oldest epoch first (pool->olink; pool->lock) */
	u32 ord_head, ord_tail;
	/*
	 * Its ordered log (fc_vlog.c): records after the log's head (writes
	 * to the origin directly wait until it moves); an epoch too large for
	 * a record goes in place, olog_inplace_ep (wb_lock).
	 */
	bool olog_pending;
	bool olog_inplace;
	u32 olog_inplace_ep;
};

/*
 * One flash device of a pool (a leg): one, or two for a mirrored pool
 * (include/fcache_format.h, docs/DESIGN.md "Two-device pool").
 */
struct fc_leg {
	struct block_device *bdev;	/* NULL: missing (loaded degraded) */
	u8 member_uuid[16];
	unsigned int sb_slot;		/* slot of its current superblock (commit_lock) */
};

struct fc_pool {
	struct list_head list;
	struct mapped_device *md;	/* the pool device (registry key) */
	/* the table's devices (fc_registry_lock, or replace_lock) */
	struct block_device *flash;	/* the first */
	struct block_device *flash2;	/* its mirror device, NULL if none or missing */
	struct fc_leg leg[FC_MAX_LEGS];	/* g.nr_legs of them */
	u32 failed_legs;		/* legs missing or failed: recorded in the superblocks */
	bool vacating;			/* a leg failed: fc_vacate_failed() has work left */
	u64 events;			/* membership changes (mirrored pools) */
	/* fence_hold: peer_outdated came since the pool last lost a copy */
	bool peer_outdated;
	int refs;			/* fc_registry_lock */

	struct fc_geometry g;
	unsigned int block_shift;	/* log2(block_sectors) */
	u8 full_mask;			/* all sub-blocks */
	u8 uuid[16];
	u64 seq;			/* last superblock seq written or seen */
	u64 md_seq;			/* metadata pages trusted up to this seq */
	u64 leftovers;			/* leftover page slots found at load */
	u32 sb_flags;
	u64 format_time;
	struct fc_pool_opts opts;

	spinlock_t lock;
	struct fc_entry *e;
	u32 *buckets;
	u32 hash_mask;
	u32 free_head[FC_MAX_LEGS];	/* one free list per leg */
	u32 pending_head;
	u64 nr_pending;			/* entries on the pending list */
	u64 nr_free, nr_dirty, nr_used;
	u64 nr_free_leg[FC_MAX_LEGS];
	/*
	 * Mirrored pools: twin[i] is entry i's twin (FC_NONE: none), a block
	 * on the other leg holding a copy of i's dirty sub-blocks; a block
	 * used as a twin has its bit in twin_used (not free, not hashed).
	 */
	u32 *twin;
	unsigned long *twin_used;
	u64 nr_twins;
	/* dirty blocks whose copies may differ (unclean load): fc_resync() */
	unsigned long *unsynced;
	u64 nr_unsynced;
	/*
	 * Twins given to blocks that were already dirty (a leg replaced, or
	 * dirty data found with one copy at load): the twin does not hold
	 * the data until fc_resync() copied it, so the flash does not record
	 * it before (fc_ser_entries()).  Each is unsynced too.
	 */
	unsigned long *joining;
	u64 nr_joining_leg[FC_MAX_LEGS];	/* by the leg of the entry's block */
	/*
	 * Dirty entries without a twin (twinless: bit set, counted by the
	 * leg of the entry's block).  With nr_unsynced, the dirty
	 * blocks with one good copy: lone_dirty_blocks in the status, and
	 * "mirrored" only when both are 0.  The tick gives each a twin
	 * (fc_join_twins()) while both legs serve.  fc_lone_update() keeps
	 * them; docs/DESIGN.md "Redundancy invariants".
	 */
	unsigned long *twinless;
	u64 nr_twinless_leg[FC_MAX_LEGS];
	/* unsynced blocks whose copy failed (fc_resync(), wb_lock): tried again later */
	unsigned long *resync_failed;
	bool resync_errors;
	unsigned long resync_retry_at;	/* jiffies */
	unsigned long last_join;	/* jiffies of the tick's last fc_join_twins() */
	int joined_leg;			/* the leg being resynced after a replace, or -1 */
	atomic_t twin_io[FC_MAX_LEGS];	/* twin copies in flight to each leg */
	u32 clock_hand;
	u32 leg_hand[FC_MAX_LEGS];	/* eviction for a twin on one leg */
	u32 wb_cursor;
	/*
	 * Flush requests (fc_flush_volumes(), docs/DESIGN.md "Flush"): the
	 * blocks dirty when a flush began that no copy has written back since
	 * (pool->lock; a set bit is always a dirty entry).  The writeback
	 * worker takes them first, at full pace; flush_wait is woken when
	 * they leave.  flush_starts counts the flushes begun (pool->lock).
	 */
	unsigned long *flush_set;
	/*
	 * Warm restart (issue 38, docs/DESIGN.md "Warm restart"; pool->lock):
	 * warm: clean blocks the next commit records FC_ENTRY_WARM (their
	 * clean data survives an unclean shutdown); pwarm: the flash may
	 * record them so (set when serialised, cleared once a commit that
	 * serialised them otherwise succeeded, ser_unwarm marking those).
	 * While pwarm, nothing may change the block's data or its origin's:
	 * a write waits on warm_wait for that commit, eviction passes the
	 * block over; a pwarm block released another way waits on the
	 * pending list (nr_warm_pending of them), and writes to its origin
	 * block wait too.  warm_feature: the superblock carries
	 * FC_FEAT_INCOMPAT_WARM (warm_restart was on once; never cleared).
	 */
	unsigned long *warm, *pwarm, *ser_unwarm;
	u32 nr_warm_pending;
	bool warm_feature, warm_trusted;
	/*
	 * Ordered write-back (docs/DESIGN.md "Ordered write-back"; pool->lock):
	 * epoch counts the flush points (a REQ_PREFLUSH mapped, a REQ_FUA
	 * write ended, or writeback closing the open epoch); ep[i] is the
	 * epoch of entry i's dirty data.  A shadow (bit in shadow, not
	 * hashed, dirty) is an older version of its block, kept until
	 * written back: with ordered on, a write to a block dirty from an
	 * older epoch goes to a copy of it (fc_ord_redirect()), and
	 * writeback copies the oldest epoch only.  ord_wait: writes that
	 * wait for a writeback batch (a redirect with no free block, a write
	 * that would go to the origin while its volume has dirty data).
	 * ord_feature: the superblock carries FC_FEAT_INCOMPAT_ORDERED.
	 * ordered_lag N: a flush point is made only while the origins lack
	 * fewer than N (fc_ord_lag_gate()); ord_points: FUA writes let
	 * through, whose flush point comes at their end.
	 */
	u32 epoch;
	u32 *ep;
	/*
	 * The dirty entries of each volume in the order of their epochs
	 * (vslot ord_head/ord_tail, doubly linked through olink; FC_OLINK_OFF
	 * in prev: not linked), allocated once ordered write-back is on or
	 * the flash says it was (8 bytes a block): an entry is appended when
	 * it becomes dirty, of the newest epoch then, and unlinked when
	 * clean.  Ordered writeback takes a volume's oldest epoch from the
	 * head, not from a walk of the entry array, once olink_ready: the
	 * load linked what it found, sorted by epoch, or the option turned
	 * on linked the dirty data from before it as one older epoch
	 * (fc_ord_index_build(), fc_ord_index_enable()).
	 */
	struct fc_olink { u32 prev, next; } *olink;
	bool olink_ready;
	unsigned long *shadow;
	u64 nr_shadows;
	bool ord_feature;
	bool ord_epoch_seen;		/* the load found a dirty entry's epoch */
	u32 ord_origin_epoch;		/* oldest epoch not on the origins (wb_lock) */
	u16 ord_origin_ts;		/* its oldest data's dirty_ts (wb_lock) */
	struct bio_list ord_wait;
	u32 ord_points;
	bool ord_wb_failed;		/* the last ordered batch failed: ordered_lag holds nothing */
	u64 st_redirects, st_ord_waits, st_epochs_written, st_lag_waits;
	u64 warm_loaded;		/* clean blocks kept by the last unclean load */
	u64 st_warm_waits;		/* writes and discards that waited on warm_wait */
	u64 flush_starts;
	u32 flush_cursor;		/* wb_lock */
	wait_queue_head_t flush_wait;
	/* each block's writes since it was last clean, at most 254 (pool->lock) */
	u8 *wcount;
	u8 wb_hot_writes;	/* fc_wb_hot_writes_next() (wb_lock) */
	unsigned long *page_dirty;	/* logical md pages changed */
	unsigned long *page_slot;	/* current slot of each page */
	/*
	 * Pages of the running commit: set under pool->lock as each is
	 * serialised (its page_dirty bit cleared), cleared under it when
	 * the commit succeeded.  A page in neither bitmap is on the flash
	 * as it is in core (fc_entry_committed()).
	 */
	unsigned long *page_written;
	/*
	 * The sync path (pool->lock; docs/DESIGN.md "Commit"): md_gen counts
	 * the changes of metadata (fc_mark_page_dirty()), md_committed the
	 * count the last successful commit covers: equal, no commit is
	 * needed.  fw_done counts the volumes' flash writes completed
	 * without REQ_FUA (atomic: a quick write counts itself without the
	 * lock, before its end_io returns), fw_synced the count the last
	 * flush of the flash covered: equal, no flash flush is needed.
	 */
	u64 md_gen, md_committed;
	atomic64_t fw_done;
	u64 fw_synced;
	u32 ow_inflight[FC_STRIPES];	/* origin writes of uncached blocks */
	u32 ow_big;			/* multi-block origin writes, discards */
	struct fc_ghost ghost;
	u32 *ghost_slots;
	struct fc_vslot vol[FC_MAX_VOLUMES];
	struct fc_vstats __percpu *stats;	/* FC_MAX_VOLUMES of them */

	/* bios waiting for the commit worker */
	struct bio_list flush_bios;	/* empty flushes: commit then origin */
	struct bio_list fua_bios;	/* completed FUA writes: commit then end */
	struct bio_list deferred;	/* to the worker: fills, retries, waits */
	struct bio_list busy_wait;	/* waiting on a BUSY entry / in-flight */
	struct bio_list warm_wait;	/* writes to pwarm blocks: after a commit */

	struct mutex replace_lock;
	struct mutex commit_lock;
	struct mutex wb_lock;
	struct dm_io_client *io;
	struct dm_kcopyd_client *kc;
	struct bio_set bs;		/* writethrough flash clones */
	struct workqueue_struct *wq;
	/*
	 * The group commit a flush or a FUA write waits for (fc_queue_commit()):
	 * its own high-priority queue, woken ahead of the load that queues it.
	 */
	struct workqueue_struct *commit_wq;
	struct work_struct commit_work;
	/*
	 * Origin flushes of the commit worker's batch in flight, plus one;
	 * oflush_work (on pool->wq) submits oflush_bios (pool->lock).
	 */
	atomic_t oflush_left;
	struct completion oflush_done;
	u64 commit_batch;
	struct work_struct oflush_work;
	struct bio_list oflush_bios;
	struct work_struct worker;
	struct work_struct wb_work;
	struct delayed_work tick;
	struct workqueue_struct *fill_wq; /* deferred bios, fills run concurrently */
	mempool_t *fill_pool;		/* block-sized fill buffers */
	void *wb_items;			/* writeback batch (wb_lock) */
	void *md_buf;			/* commit pages, commit_lock */
	u64 *md_pg;			/* their logical page numbers */
	unsigned int md_buf_pages;

	enum fc_md_mode md_mode;
	bool md_lost;			/* a commit failed: flash != in-core state */
	/*
	 * Sub-blocks that a PDIRTY entry lost (pool->lock): the origin may
	 * get data newer than the flash block that the flash's metadata
	 * still names for it.  drops_committed: the count when the last
	 * commit that succeeded began (commit_lock); it recorded all of
	 * those.  Read-only metadata: no flush succeeds once they differ
	 * (fc_ro_flush(), docs/DESIGN.md "Metadata modes").
	 */
	u64 pdirty_drops, drops_committed;
	bool ro_drained;		/* read-only: "flushes succeed again" logged */
	bool needs_check;
	bool no_new_dirty;		/* a flash write failed */
	bool suspended;
	bool ser_window;		/* multi-batch commit serialising: no allocation */
	atomic64_t flash_read_errors, flash_write_errors, metadata_errors;
	int wb_state;
	atomic_t wb_inflight;		/* entries of running batches */
	atomic_t wb_copies;		/* copies in flight (pacing) */
	wait_queue_head_t wb_slot;	/* woken when a copy ends */
	wait_queue_head_t wb_wait;
	unsigned long last_io;		/* jiffies of last foreground I/O */
	unsigned long last_commit;	/* jiffies */
	/* commit statistics: written under commit_lock, read without it */
	u64 st_commits, st_commit_pages, st_commit_ns, st_commit_max_ns;
	u64 st_groups, st_group_bios, st_group_max;
	/* the commit worker's runs that needed no commit (commit_lock) */
	u64 st_syncs;
	/*
	 * flushes done at map, no I/O; FUA writes that waited for no commit;
	 * quick writes (FC_BF_QUICK, counted at map); flushes sent on to the
	 * flash at map (FC_BK_FLUSH) (pool->lock)
	 */
	u64 st_sync_free, st_fua_direct, st_quick, st_flush_direct;
	/* writeback statistics: written under wb_lock */
	u64 st_wb_batches, st_wb_blocks, st_wb_ios, st_wb_merged, st_wb_ns, st_wb_raced;
	u64 st_wb_aged, st_wb_skipped, st_wb_hot;
};

/* Per pool table instance. */
struct fc_pool_c {
	struct dm_target *ti;
	struct fc_pool *pool;
	struct dm_dev *flash_dev;
	struct dm_dev *mirror_dev;	/* "mirror <dev>", NULL if none or "-" */
	unsigned int nr_legs;		/* 2 with "mirror" */
	u32 degraded;			/* "degraded 1" */
	u32 replace;			/* "replace 1" */
	/* "replace 1": the new device and its leg, attached at preresume */
	struct block_device *replace_bdev;
	unsigned int replace_leg;
	u32 block_sectors;
	struct fc_pool_opts opts;	/* as given in this table */
	bool flush_stop;		/* suspending: flush messages return (fc_flush_volumes()) */
};

struct fc_volume {
	struct dm_target *ti;
	struct fc_pool *pool;
	struct dm_dev *pool_dev;
	struct dm_dev *origin_dev;
	struct block_device *origin;
	struct fc_vlog *olog;		/* ordered_log: its log (fc_vlog.c), or NULL */
	u32 id;
	int slot;
	int mode;
	struct fc_vol_opts opts;
	struct fc_seq seq;		/* pool->lock */
	struct fc_ra ra;		/* pool->lock: recent reads (ra.s: kvcalloc) */
	bool active;
	bool was_active;		/* resumed at least once */
	bool detach_ok;			/* "detach" message: an orderly teardown follows */
	bool flush_stop;		/* suspending: flush messages return (fc_flush_volumes()) */
	/*
	 * Origin durability for REQ_PREFLUSH: writes of this table completed
	 * by the origin, and the count the last completed origin flush
	 * covers.  Equal: the origin holds nothing a flush must make durable.
	 */
	atomic64_t ow_done;
	atomic64_t ow_synced;
	/*
	 * The commit worker's flush of this origin (fc_commit_work(), one
	 * at a time): sent in batch oflush_batch, covering ow_done up to
	 * oflush_mark; its status once it ended.
	 */
	struct bio oflush;
	u64 oflush_batch;
	s64 oflush_mark;
	blk_status_t oflush_status;
};

/* Per-bio data (ti->per_io_data_size). */
enum fc_bio_kind {
	FC_BK_NONE,
	FC_BK_FLASH_READ,
	FC_BK_FLASH_WRITE,
	FC_BK_ORIGIN_WRITE,	/* uncached write to the origin (stripe held) */
	FC_BK_ORIGIN,		/* anything else to the origin */
	FC_BK_WT,		/* writethrough: origin first, then the flash */
	FC_BK_FLUSH,		/* a REQ_PREFLUSH sent on to the flash (flush_direct()) */
};

#define FC_BF_FUA	0x01	/* FUA write to flash: wait for commit */
#define FC_BF_COMMITTED	0x02	/* second end_io after the commit */
#define FC_BF_STREAM	0x04	/* a read miss of a short stream: its fill reads ahead */
#define FC_BF_NOFILL	0x08	/* a fill or a flash I/O of it failed: the origin */
#define FC_BF_WT_FLASH	0x10	/* writethrough: origin done, flash copy next */
#define FC_BF_TWIN_FILLED 0x20	/* a fill wrote the twin too (mirrored pools): filled_twin */
#define FC_BF_TWIN	0x40	/* a write sent to the twin too (submit_mirrored()) */
#define FC_BF_TWIN_ERR	0x80	/* ... and that copy failed */
#define FC_BF_IN_PLACE	0x100	/* writethrough in place: read-only metadata (ro_write()) */
#define FC_BF_FUA_DIRECT 0x200	/* FUA write kept on the flash: its block is committed dirty */
#define FC_BF_ORD_POINT	0x400	/* a FUA write counted in ord_points (ordered_lag) */
#define FC_BF_QUICK	0x800	/* a write to dirty sub-blocks: end_io takes no lock (fc_quick_write()) */
#define FC_BF_TWIN_READ	0x1000	/* a read its block failed: from the twin (rd_twin), once */

struct fc_bio {
	struct fc_volume *v;
	u32 eidx;
	u32 stripe;
	u16 gen;
	u16 flags;
	u8 kind;
	u8 mask;
	struct bvec_iter iter;	/* as mapped, for retries */
	blk_opf_t opf;
	u32 filled_twin;	/* FC_BF_TWIN_FILLED: the twin block the fill wrote */
	u32 rd_twin;		/* FC_BF_TWIN_READ: the twin read, or FC_NONE */
	atomic_t copies;	/* FC_BF_TWIN: copies in flight (submit_mirrored()) */
	u64 fw;			/* FC_BK_FLUSH: fw_done when it was sent */
	struct work_struct work;	/* deferred processing (fill_wq) */
};

static inline struct fc_bio *fc_bio(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct fc_bio));
}

#ifdef FC_FAULT_INJECT
/*
 * Test build (make fi-module): a hook's count of faults still asked for
 * (a module parameter); true, one fewer, if any is.
 */
static inline bool fc_fault_take(int *left)
{
	if (READ_ONCE(*left) <= 0)
		return false;
	WRITE_ONCE(*left, *left - 1);
	return true;
}
#endif

/* fc_main.c */
extern struct mutex fc_registry_lock;
extern struct list_head fc_pools;
void *fc_ctr_alloc(struct dm_target *ti, unsigned int argc, unsigned int min_args,
		   size_t size, char *usage, char *nomem);

/* fc_legs.c: below every other kmod file (its top comment) */
void fc_mark_page_dirty(struct fc_pool *pool, u32 eidx);
void fc_mark_vt_dirty(struct fc_pool *pool);
/* Entry @idx's twinless bit and counts, from its state. */
void fc_lone_update(struct fc_pool *pool, u32 idx);
/* Entry @idx's twin holds the data now, or is gone: no longer joining. */
void fc_joining_clear(struct fc_pool *pool, u32 idx);
/*
 * A flash device failing at run time (docs/DESIGN.md "Two-device pool"):
 * an I/O error on leg @leg fails the leg if the other one is in service
 * and @leg holds no dirty block's only good copy; true if the error is
 * absorbed so (the leg is failed, now or before), false if not.
 */
bool fc_leg_error(struct fc_pool *pool, unsigned int leg);
/* The same from process context, without pool->lock. */
bool fc_leg_error_unlocked(struct fc_pool *pool, unsigned int leg);

/* fc_mdio.c: the metadata's I/O and serialisation */
bool fc_entry_committed(struct fc_pool *pool, u32 eidx);
int fc_sync_io(struct fc_pool *pool, struct block_device *bdev, blk_opf_t opf,
	       sector_t sector, sector_t count, void *buf);
/* For fc_commit.c and fc_load.c. */
int fc_md_io_leg(struct fc_pool *pool, unsigned int leg, blk_opf_t opf, sector_t sector,
		 sector_t count, void *buf);
int fc_md_write_all(struct fc_pool *pool, blk_opf_t opf, sector_t sector, sector_t count,
		    void *buf);
int fc_flash_flush(struct fc_pool *pool);
void *fc_buf_page(struct fc_pool *pool, unsigned int i);
void fc_ser_voltable(struct fc_pool *pool, struct fc_disk_voltable *vt);
void fc_ser_entries(struct fc_pool *pool, u64 l, struct fc_disk_mdpage *p);
int fc_write_pages(struct fc_pool *pool, const u64 *pg, unsigned int n, u64 seq, bool flush);
int fc_write_sb_slot(struct fc_pool *pool, unsigned int leg, unsigned int slot, u64 seq,
		     u64 md_seq, u32 flags);
int fc_write_sb(struct fc_pool *pool, u64 seq, u64 md_seq, u32 flags, bool preflush);
int fc_write_commit(struct fc_pool *pool, const u64 *pg, unsigned int n, u64 seq, u32 flags);

/* fc_commit.c: the metadata commit */
int fc_commit(struct fc_pool *pool, bool clean);
/* Read-only metadata: flush the flash for a REQ_PREFLUSH, or -EIO. */
int fc_ro_flush(struct fc_pool *pool);
/* REQ_PREFLUSH in the commit worker: a commit if one is needed (@committed) */
int fc_commit_sync(struct fc_pool *pool, bool *committed);
/* A commit now, outside the worker; the commit interval counts from here. */
int fc_request_commit(struct fc_pool *pool);
void fc_meta_error(struct fc_pool *pool, int err);
/* Did the pool @uuid go to fail in this boot, at a superblock seq >= @sb_seq? */
bool fc_failed_before(const u8 *uuid, u64 sb_seq);

/* fc_load.c: format and load */
int fc_meta_open(struct fc_pool *pool, u32 block_sectors, unsigned int nr_legs, char **error);

/* fc_cache.c */
int fc_cache_alloc(struct fc_pool *pool);
void fc_cache_free(struct fc_pool *pool);
struct fc_entry *fc_lookup(struct fc_pool *pool, u8 vol, u64 oblock);
struct fc_entry *fc_alloc_entry(struct fc_pool *pool, u8 vol, u64 oblock);
/*
 * Free @e's twin now.  Only when the flash does not refer to it (the entry
 * is not committed dirty) and no write to it is in flight.
 */
void fc_drop_twin(struct fc_pool *pool, struct fc_entry *e);
void fc_entry_set(struct fc_pool *pool, struct fc_entry *e, u8 valid, u8 dirty);
/* For fc_mirror.c (pool->lock held). */
u32 fc_pop_free(struct fc_pool *pool, unsigned int leg);
struct fc_entry *fc_clock_evict(struct fc_pool *pool, u32 lo, u32 hi, u32 *hand);
void fc_hash_insert(struct fc_pool *pool, struct fc_entry *e);
void fc_hash_remove(struct fc_pool *pool, struct fc_entry *e);
/* Entry @i no longer has twin @t (not freed here). */
void fc_untwin(struct fc_pool *pool, u32 i, u32 t);

/* fc_mirror.c: the two-device pool's redundancy (its top comment) */
/* Give @e a twin on the other leg if it has none; false if none free. */
bool fc_alloc_twin(struct fc_pool *pool, struct fc_entry *e);
/* "replace 1": @bdev becomes leg @leg of a degraded pool (pool_preresume()). */
int fc_attach_leg(struct fc_pool *pool, unsigned int leg, struct block_device *bdev,
		  const char **why);
enum fc_rescue {
	FC_RESCUE_DONE,		/* moved to its twin, or dropped */
	FC_RESCUE_LATER,	/* not idle, or a commit is serialising */
	FC_RESCUE_LOST,		/* dirty with no copy elsewhere: left, its I/O fails */
};
/* An entry whose block is on a failed leg: its twin takes its place. */
enum fc_rescue fc_rescue_entry(struct fc_pool *pool, struct fc_entry *e);
/*
 * Process context: a twin for every dirty entry without one (joining);
 * returns how many are still without one.
 */
u64 fc_join_twins(struct fc_pool *pool);

/* fc_resync.c: the walks of fc_mirror.c that kick parked bios */
/* Process context: rescue every entry of a failed leg, drop twins on it. */
void fc_vacate_failed(struct fc_pool *pool);
/* A slice of resync (wb_lock held), before writeback (fc_wb_work()). */
void fc_resync(struct fc_pool *pool);

/* fc_cache.c */
void fc_entry_release(struct fc_pool *pool, struct fc_entry *e);
void fc_cache_insert_loaded(struct fc_pool *pool, u32 idx);
void fc_cache_build_free(struct fc_pool *pool);
void fc_release_pending(struct fc_pool *pool);
/* A pending entry maps block @oblock of volume slot @vol (pool->lock held). */
bool fc_pending_maps(struct fc_pool *pool, u8 vol, u64 oblock);
bool fc_warm_write_waits(struct fc_pool *pool, struct fc_entry *e, u8 vol, u64 oblock);
/* Ordered write-back: shadow @e was written back (pool->lock held): free it. */
void fc_shadow_release(struct fc_pool *pool, struct fc_entry *e);
/* A free block taken off the free lists, not hashed (FC_NONE: none). */
u32 fc_take_block(struct fc_pool *pool);
void fc_put_block(struct fc_pool *pool, u32 i);

/* fc_ordered.c: ordered write-back's side of the map path */
enum fc_ord {
	FC_ORD_GO,		/* the write may go on as decided */
	FC_ORD_PARK,		/* wait for the entry to be idle */
	FC_ORD_DEFER,		/* to the worker, which copies the block */
	FC_ORD_REDIRECT,	/* (worker) copy the block: fc_ord_redirect() */
	FC_ORD_COMMIT,		/* wait for the commit that records it clean */
};
enum fc_ord fc_ord_write(struct fc_pool *pool, struct fc_entry *e, bool worker);
int fc_ord_redirect(struct fc_volume *v, struct bio *bio, u32 ei);
/* A write to the origin directly must wait: its volume has dirty data. */
bool fc_ord_direct_waits(struct fc_pool *pool, struct fc_volume *v, enum fc_action act);
void fc_ord_wait_locked(struct fc_pool *pool, struct bio *bio);
void fc_ord_kick_locked(struct fc_pool *pool);
u32 fc_ord_behind(struct fc_pool *pool);
unsigned int fc_ord_origin_lag(struct fc_pool *pool);
int fc_ord_lag_gate(struct fc_pool *pool, struct bio *bio, struct fc_bio *fb, bool nowait);
/*
 * fc_vlog.c: a volume's ordered log (ordered_log <dev>): opened, checked
 * and bound (constructor), replayed (preresume), and the writer's side of
 * ordered write-back through it (fc_writeback.c wb_log()).
 */
struct fc_vlog;
struct fc_olog_cand;
#define FC_VLOG_CANDS	256u	/* candidates of a record: at most FC_WB_MAX_BATCH */
int fc_vlog_open(struct fc_volume *v, struct dm_target *ti, struct fc_vlog **out);
void fc_vlog_put(struct dm_target *ti, struct fc_vlog *l);
const char *fc_vlog_name(const struct fc_vlog *l);
int fc_vlog_resume(struct fc_volume *v, char **error);
void fc_vlog_suspend(struct fc_volume *v);
bool fc_vlog_ready(const struct fc_vlog *l);
bool fc_vlog_pending(const struct fc_vlog *l);
bool fc_vlog_half_full(const struct fc_vlog *l);
struct fc_olog_cand *fc_vlog_cands(struct fc_vlog *l, u32 **cidx, u32 **scratch);
int fc_vlog_write(struct fc_vlog *l, unsigned int n, u32 epoch);
int fc_vlog_catch_up(struct fc_vlog *l);
void fc_vlog_stop(struct fc_vlog *l, const char *what, int err);
/* The per-volume lists of dirty entries by epoch: built (fc_ordered.c) */
int fc_ord_index_build(struct fc_pool *pool);
int fc_ord_index_enable(struct fc_pool *pool);
/* and kept (fc_cache.c, pool->lock held) */
void fc_olink_tail(struct fc_pool *pool, u32 i);
void fc_olink_head(struct fc_pool *pool, u32 i);
void fc_ord_index_check(struct fc_pool *pool);
/* Every entry under pool->lock, a batch per lock hold; may sleep. */
void fc_walk_entries(struct fc_pool *pool,
		     bool (*visit)(struct fc_pool *pool, u32 idx, void *arg), void *arg);
/* Takes pool->lock itself (in batches); may sleep. */
void fc_invalidate_volume(struct fc_pool *pool, u8 vol, bool drop_all);
/* No bio on the entry's flash, no fill and no writeback copy running. */
static inline bool fc_entry_idle(struct fc_entry *e)
{
	return !atomic_read(&e->inflight) && !(e->flags & (FC_E_BUSY | FC_E_WB));
}

/*
 * A write, discard or invalidation changed the entry: bump its generation.
 * Writeback vs a new write: a copy in flight (FC_E_WB) must not mark the
 * block clean when it ends.  The 16-bit generation alone could wrap back to
 * the copy's snapshot (65,536 bumps during one copy); wb_raced cannot.
 * A writethrough write compares its snapshot when its flash copy ends;
 * it is in flight from the snapshot on, so a wrap back to the snapshot
 * passes 0 with inflight raised and sets gen_wrapped, which only a new
 * writethrough write clears, when nothing is in flight.
 */
static inline void fc_entry_bump(struct fc_entry *e)
{
	if (!++e->gen && atomic_read(&e->inflight))
		e->gen_wrapped = 1;
	if (e->flags & FC_E_WB)
		e->wb_raced = 1;
}

static inline u32 fc_eidx(struct fc_pool *pool, struct fc_entry *e)
{
	return (u32)(e - pool->e);
}

/* A write to @e's block (pool->wcount, fc_wb_hot_writes_next()). */
static inline void fc_count_write(struct fc_pool *pool, struct fc_entry *e)
{
	u8 *c = &pool->wcount[fc_eidx(pool, e)];

	if (*c < FC_WB_HOT_OFF - 1)
		(*c)++;
}

/* The sector of cache block @eidx on its leg (fc_block_bdev()). */
static inline sector_t fc_block_sector(struct fc_pool *pool, u32 eidx)
{
	return fc_block_leg_sector(&pool->g, eidx);
}

static inline struct block_device *fc_block_bdev(struct fc_pool *pool, u32 eidx)
{
	return pool->leg[fc_block_leg(&pool->g, eidx)].bdev;
}

static inline bool fc_mirrored(struct fc_pool *pool)
{
	return pool->g.nr_legs > 1;
}

/* Mirrored with both legs: dirty data gets a twin. */
static inline bool fc_redundant(struct fc_pool *pool)
{
	return fc_mirrored(pool) && !pool->failed_legs;
}

/*
 * fence_hold (two hosts, docs/CLUSTER.md): while the pool runs on one
 * copy, nothing is acknowledged as durable (a REQ_PREFLUSH, a REQ_FUA
 * write) until user space has recorded the other copy outdated and said
 * so (message peer_outdated): a host that starts on that copy after this
 * one's death must be refused, and the record must come first.
 */
static inline bool fc_acks_held(struct fc_pool *pool)
{
	return READ_ONCE(pool->opts.val[FC_OPT_FENCE_HOLD]) && READ_ONCE(pool->failed_legs) &&
		!READ_ONCE(pool->peer_outdated);
}

/*
 * Warm restart (docs/DESIGN.md "Warm restart"): a block read in by a fill
 * is marked warm on a one-device pool with warm_restart 1 (pool->lock).
 */
static inline bool fc_warm_on(struct fc_pool *pool)
{
	return READ_ONCE(pool->opts.val[FC_OPT_WARM_RESTART]) && !fc_mirrored(pool);
}

/*
 * Block @eidx is not to be recorded warm any more (pool->lock held); true
 * while the flash may still record it so (a commit must first say
 * otherwise: its data and its origin block's must not change until then).
 */
static inline bool fc_unwarm(struct fc_pool *pool, u32 eidx)
{
	if (__test_and_clear_bit(eidx, pool->warm))
		fc_mark_page_dirty(pool, eidx);
	return test_bit(eidx, pool->pwarm);
}

/* Ordered write-back is on (a one-device pool with ordered 1). */
static inline bool fc_ordered(struct fc_pool *pool)
{
	return READ_ONCE(pool->opts.val[FC_OPT_ORDERED]) && !fc_mirrored(pool);
}

/*
 * Writeback goes epoch by epoch: ordered on, or shadows left from when it
 * was (their versions must reach the origin in order).
 */
static inline bool fc_wb_ordered(struct fc_pool *pool)
{
	return fc_ordered(pool) || READ_ONCE(pool->nr_shadows);
}

/* Epoch @a before epoch @b (they wrap). */
static inline bool fc_epoch_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool fc_leg_failed(struct fc_pool *pool, unsigned int leg)
{
	return READ_ONCE(pool->failed_legs) & (1u << leg);
}

/* Block @eidx is on a failed (or missing) leg. */
static inline bool fc_block_failed(struct fc_pool *pool, u32 eidx)
{
	return unlikely(READ_ONCE(pool->failed_legs)) &&
		fc_leg_failed(pool, fc_block_leg(&pool->g, eidx));
}

/*
 * Dirty blocks on @leg whose only good copy is there (pool->lock): no twin,
 * or a twin still being filled (joining).  Such a leg is never failed.
 */
static inline bool fc_leg_holds_lone(struct fc_pool *pool, unsigned int leg)
{
	return pool->nr_twinless_leg[leg] || pool->nr_joining_leg[leg];
}

/* Twins being filled (joining), on both legs; lockless callers get an estimate. */
static inline u64 fc_nr_joining(struct fc_pool *pool)
{
	return READ_ONCE(pool->nr_joining_leg[0]) + READ_ONCE(pool->nr_joining_leg[1]);
}

/* Dirty entries without a twin, on both legs (as fc_nr_joining()). */
static inline u64 fc_nr_twinless(struct fc_pool *pool)
{
	return READ_ONCE(pool->nr_twinless_leg[0]) + READ_ONCE(pool->nr_twinless_leg[1]);
}

/* Dirty blocks with one good copy, redundant pools (status lone_dirty_blocks). */
static inline u64 fc_lone_dirty(struct fc_pool *pool)
{
	return fc_nr_twinless(pool) + pool->nr_unsynced;
}

static inline u32 fc_twin_of(struct fc_pool *pool, u32 eidx)
{
	return pool->twin ? pool->twin[eidx] : FC_NONE;
}

/*
 * Entry @eidx's twin holds a good copy of its dirty sub-blocks (pool->lock):
 * one, copied (not joining, not unsynced), on a leg in service.
 */
static inline bool fc_twin_good(struct fc_pool *pool, u32 eidx)
{
	u32 t = fc_twin_of(pool, eidx);

	return t != FC_NONE && !test_bit(eidx, pool->unsynced) &&
		!test_bit(eidx, pool->joining) && !fc_block_failed(pool, t);
}

/* The block a flash read of @fb goes to: its entry's, or the twin's. */
static inline u32 fc_read_block(const struct fc_bio *fb)
{
	return (fb->flags & FC_BF_TWIN_READ) && fb->rd_twin != FC_NONE ? fb->rd_twin : fb->eidx;
}

/*
 * The blocks of the legs in service: the watermarks' whole (a failed
 * leg's blocks hold nothing any more).
 */
static inline u64 fc_blocks_in_service(struct fc_pool *pool)
{
	u32 failed = READ_ONCE(pool->failed_legs);
	u64 n = 0;
	unsigned int i;

	if (likely(!failed))
		return pool->g.nr_blocks;
	for (i = 0; i < pool->g.nr_legs; i++)
		if (!(failed & (1u << i)))
			n += pool->g.leg_blocks[i];
	return n;
}

/*
 * Blocks dirty data holds (pool->lock): the watermarks count these.  In a
 * mirrored pool a dirty block takes two (its twin), so writeback starts
 * and writes go around at the same share of the flash as with one device.
 */
static inline u64 fc_dirty_load(struct fc_pool *pool)
{
	return pool->nr_dirty + pool->nr_twins;
}

/* The data path (fc_volume.c and the files below): a block's stripe. */
static inline u32 stripe_of(struct fc_volume *v, u64 block)
{
	return (u32)((block ^ ((u64)v->slot << 40)) % FC_STRIPES);
}

/* Lies block @block of the volume wholly within the table? */
static inline bool block_cacheable(struct fc_volume *v, u64 block)
{
	return ((block + 1) << v->pool->block_shift) <= v->ti->len;
}

/* fc_park.c: deferred and parked bios (pool->lock held, but fc_defer_bio(), fc_kick_waiters()) */
void fc_defer_bio(struct fc_pool *pool, struct bio *bio);
void fc_kick_waiters(struct fc_pool *pool);
void fc_kick_locked(struct fc_pool *pool);
void fc_defer_locked(struct fc_pool *pool, struct bio *bio);
void fc_wait_commit_locked(struct fc_pool *pool, struct bio *bio);
bool fc_origin_writes_in_flight(struct fc_pool *pool, u32 stripe);
void fc_park_locked(struct fc_pool *pool, struct bio *bio, struct fc_entry *e, u32 stripe);

/* fc_fill.c: fills */
void fc_fill_entry(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
		   u64 block, u8 fill);
bool fc_fill_stream(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e, u64 block);

/* fc_wt.c: writethrough and write-around */
void fc_write_around(struct fc_volume *v, struct fc_bio *fb, struct fc_entry *e,
		     u64 block, const struct fc_decision *d);
void fc_start_wt(struct fc_pool *pool, struct fc_bio *fb, struct fc_entry *e,
		 const struct fc_decision *d);
void fc_wt_in_place_failed(struct fc_pool *pool, struct fc_bio *fb, struct fc_entry *e);
void fc_wt_submit_flash(struct fc_volume *v, struct bio *bio);

/* fc_endio.c: completion */
/* The target's end_io method: settle the entry, retry or hold the bio. */
int fc_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error);
bool fc_sync_flash_only(struct fc_pool *pool, struct fc_volume *v);
bool fc_sync_free(struct fc_pool *pool, struct fc_volume *v);

/*
 * The flash holds every volume flash write counted up to @fw: a flush
 * sent after fw_done read @fw completed (pool->lock held).
 */
static inline void fc_flash_synced_locked(struct fc_pool *pool, u64 fw)
{
	if (fw > pool->fw_synced)
		pool->fw_synced = fw;
}

/* fc_volume.c: the map path */
void fc_worker(struct work_struct *ws);
/* The target's map method: classify @bio and remap, defer or park it. */
int fc_map(struct dm_target *ti, struct bio *bio);

/* fc_vtarget.c */
extern struct target_type fc_volume_target;

/* fc_pool.c */
extern struct target_type fc_pool_target;
struct fc_pool *fc_pool_lookup(struct mapped_device *md);
/* The tunables @o in force (a table resumed, a set message). */
int fc_pool_set_opts(struct fc_pool *pool, const struct fc_pool_opts *o);
void fc_pool_put(struct fc_pool *pool);

/* fc_tick.c: the commit worker and the tick */
#define FC_TICK (HZ / 10)
void fc_commit_work(struct work_struct *ws);
void fc_oflush_work(struct work_struct *ws);

/* Ask the commit worker for a group commit (any context). */
static inline void fc_queue_commit(struct fc_pool *pool)
{
	queue_work(pool->commit_wq, &pool->commit_work);
}
void fc_tick(struct work_struct *ws);
void fc_kick_held(struct fc_pool *pool);

/* fc_poolmsg.c: the pool's messages and the volumes' counters */
int fc_pool_message(struct dm_target *ti, unsigned int argc, char **argv,
		    char *result, unsigned int maxlen);
void fc_stats_clear(struct fc_pool *pool, int slot);
u64 fc_stat_read(struct fc_pool *pool, int slot, enum fc_stat st);

/* Count one event of volume slot @slot (any context, no lock). */
static inline void fc_stat_inc(struct fc_pool *pool, int slot, enum fc_stat st)
{
	this_cpu_inc(pool->stats[slot].c[st]);
}

/* fc_flush.c: the flush message */
/*
 * The flush message of a volume (slot @slot) or of the pool (@slot < 0:
 * every active volume): waits until what was dirty when it began is on
 * the origins.  *@stop set (the presuspend of the table the message came
 * through, then woken on pool->flush_wait) ends the wait with -EAGAIN.
 */
int fc_flush_volumes(struct fc_pool *pool, int slot, bool *stop);
/* Presuspend of a table: its flush messages return now. */
void fc_flush_stop(struct fc_pool *pool, bool *stop, bool on);
/* For fc_writeback.c (pool->lock held): the flush set. */
bool fc_flush_lost(struct fc_pool *pool, u32 i);
bool fc_flush_pending(struct fc_pool *pool);

/* fc_writeback.c */
void fc_wb_work(struct work_struct *ws);
void fc_wb_wait_slot(struct fc_pool *pool, int slot);
void *fc_wb_alloc_items(void);

#endif
