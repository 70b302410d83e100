/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcache on-flash format, shared by the kernel module (kmod/) and the
 * userspace tools (fcachectl check/dump).  Everything here is plain C that
 * builds in both worlds through include/fcache_env.h.
 *
 * Layout of the flash device, in 4 KiB metadata pages (FC_PAGE_SIZE):
 *
 *   page 0             superblock, slot 0
 *   page 1             superblock, slot 1
 *   page 2 + 2*L + s   logical metadata page L, slot s (s = 0 or 1)
 *                      L = 0 is the volume table, L = 1..md_pages-1 hold
 *                      the cache block entries (FC_ENTRIES_PER_PAGE each)
 *   data_start ...     the cache blocks, data_start aligned to block size
 *
 * Every page starts with struct fc_disk_header: checksum, magic, version,
 * its own page number, the commit sequence that wrote it and the pool uuid.
 *
 * Commit protocol (never overwrite live metadata in place):
 *   1. every logical page changed since the last commit is written to the
 *      slot that does NOT hold its current copy, stamped seq = S + 1;
 *   2. the flash device's cache is flushed (REQ_PREFLUSH), which also makes
 *      every data write completed before the commit durable;
 *   3. the superblock is written, seq S + 1, with REQ_FUA, to the slot that
 *      does not hold the current superblock (on a pool with one device in
 *      service, steps 2 and 3 are one REQ_PREFLUSH | REQ_FUA write: the
 *      block layer completes the flush before the write starts; with two,
 *      both devices' flushes complete before either superblock is written:
 *      steps 1 and 2 are one, the pages written with REQ_FUA and each
 *      device's first page with REQ_PREFLUSH too);
 *   4. only then are blocks freed by this commit reused.
 * Recovery picks the valid superblock slot with the highest seq (S).  The
 * superblock also names md_seq (M <= S): the last commit whose pages all
 * landed.  For every logical page recovery takes the valid slot with the
 * highest seq <= M.  A torn page fails its checksum and the other slot wins.
 *
 * Leftovers (FC_FEAT_INCOMPAT_MDSEQ, format 1 + feature bit):
 *   a valid page slot with seq > M was written by a commit whose superblock
 *   never landed (power cut, failed superblock write) or whose page batch
 *   failed.  It is never trusted, and it must never become trusted later,
 *   when the superblock seq has moved past it: so recovery marks every such
 *   page changed, and the first commit after a load (which writes to the
 *   slot not holding the current copy, i.e. over the leftover) rewrites it
 *   before any superblock with a higher seq is written.  That commit also
 *   takes seq = (highest seq found anywhere on the flash) + 1.  In a
 *   mirrored pool loaded with both legs, "anywhere" is both legs: a commit
 *   cut short may leave a page on one leg only.  Leftovers
 *   are harmless: fcachectl check reports them as such.
 *   A page whose header has FC_HDR_NEEDS_CHECK is a leftover written on
 *   purpose after a superblock write failed: it records needs_check where
 *   the superblock could not.
 *   After a failed page batch the kernel writes superblock S + 1 with
 *   FC_SB_NEEDS_CHECK and md_seq unchanged (M), so the half-written commit
 *   is never published.
 *   A pool without the feature bit (written by an older module) is read
 *   with M = S; the first commit sets the bit, after which an older module
 *   refuses the pool ("superblock uses features this version does not
 *   know").
 *
 * needs_check: a pool whose superblock (or a leftover page) says
 * needs_check loads read-only (writes, discards and flushes fail, reads are
 * served) until `fcachectl check --clear-needs-check` has checked it and
 * written a superblock without the flag.
 *
 * Crash rule: after an unclean shutdown (FC_SB_CLEAN not set) only dirty
 * sub-blocks are trusted; clean cached data is dropped, because a clean
 * sub-block may have been overwritten in place by a write that was never
 * flushed.  After a clean shutdown everything is kept.
 *
 * Detached volumes (FC_FEAT_INCOMPAT_DETACH): see FC_VOL_DETACHED.  An
 * older module would ignore the flag and replay the dirty data over newer
 * writes, so every superblock this module writes carries the feature bit.
 *
 * Mirrored pools (FC_FEAT_INCOMPAT_MIRROR, docs/DESIGN.md "Two-device
 * pool"): two flash devices ("legs"), each a full image of the layout
 * above up to data_start (both superblock slots, both slots of every
 * metadata page, written identically by every commit), followed by its own
 * data area.  Cache block numbers are global: blocks 0 .. leg_blocks[0]-1
 * live on leg 0, the next leg_blocks[1] on leg 1 (fc_block_leg()).  A clean
 * block has one copy; an entry with FC_ENTRY_MIRRORED has a twin, the cache
 * block number in fc_disk_entry.twin, always on the other leg, holding a
 * second copy of its dirty sub-blocks (a twin's own entry stays free on
 * the flash: recovery marks it used).  Each superblock names the device
 * (member_uuid, member_index), its partner and an event count bumped at
 * every membership change (a leg lost): a device whose events are lower
 * than its partner's, or whose partner is not the other device, is stale
 * or foreign and is refused.  Both legs' superblocks are written after
 * both legs' pages and both flushes, so legs with equal events hold the
 * same committed pages; one whose superblock lags by a commit (a crash
 * between the two superblock writes) is brought forward at load.
 * A one-device pool never sets the bit, so older modules load it; they
 * refuse a mirrored pool.
 *
 * One-write commits (FC_FEAT_INCOMPAT_PAGELIST): with one device in
 * service, steps 1 to 3 above are one round trip: the pages and the
 * superblock are written at once, every write with REQ_FUA, the first
 * page with REQ_PREFLUSH too.  The superblock names the logical pages its
 * commit wrote (list_pages of them, ascending, as __le32 at
 * FC_SB_LIST_OFFSET); a commit writing no page, or more than
 * FC_SB_LIST_MAX, or on two devices, keeps the sequence above and names
 * none.  A superblock that names pages counts only if, for each of them,
 * one slot is a valid page stamped with the superblock's seq and without
 * FC_HDR_NEEDS_CHECK: else the power went before the commit completed
 * (the superblock landed, a page did not), recovery uses the other
 * superblock slot (the commit before, complete: its pages are never
 * overwritten while a newer superblock is unproven), and the pages of the
 * cut commit that did land are leftovers under it.  The first page's
 * flush makes the commit's data durable before the page can land, so a
 * proven superblock never names data that was lost.  Every superblock
 * this module writes carries the bit (it can be one-write at any commit);
 * an older module refuses the pool.
 *
 * Warm restart (FC_FEAT_INCOMPAT_WARM, docs/DESIGN.md "Warm restart"): an
 * entry with FC_ENTRY_WARM (clean, one-device pools only) keeps its valid
 * sub-blocks after an unclean shutdown.  The module that records the flag
 * changes nothing of the block's data, nor of its origin block's, and
 * reuses the block for nothing else, until a commit recorded the entry
 * without it: so a WARM entry on the flash is current whenever the flash
 * is.  The bit is set from the first commit of a pool with warm_restart
 * on and stays; an older module refuses the pool (it would change warm
 * blocks with no such order).  A load trusts the flag only with the bit
 * in a one-device pool.
 *
 * Ordered write-back (FC_FEAT_INCOMPAT_ORDERED, docs/DESIGN.md "Ordered
 * write-back"; one-device pools only): an entry's twin field holds the
 * epoch of its dirty data (the number of flush points before it), and an
 * entry with FC_ENTRY_SHADOW is an older version of its origin block,
 * dirty, kept until it is written back: the current version is the one
 * without the flag (at most one per origin block), and every shadow of a
 * block has an older epoch than it.  Writeback copies epoch after epoch,
 * an origin flush and a commit between two, so the origin alone always
 * holds the volume as it was at some flush point.  The bit is set from the
 * first commit of a pool with ordered on and stays; an older module
 * refuses the pool (it would read shadows as duplicate mappings).
 */
#ifndef FCACHE_FORMAT_H
#define FCACHE_FORMAT_H

#include "fcache_env.h"

#define FC_PAGE_SIZE		4096u
#define FC_PAGE_SECTORS		8u
#define FC_FORMAT_VERSION	1u

#define FC_SB_MAGIC		0x42534346u	/* "FCSB" */
#define FC_VT_MAGIC		0x54564346u	/* "FCVT" */
#define FC_ME_MAGIC		0x454d4346u	/* "FCME" */
#define FC_LS_MAGIC		0x534c4346u	/* "FCLS": ordered log superblock (fcache_olog.h) */
#define FC_LR_MAGIC		0x524c4346u	/* "FCLR": ordered log record header */

/* Each block type salts its checksum so a page of one type never passes as another. */
#define FC_SB_CSUM_XOR		0x5b1c0a7eu
#define FC_VT_CSUM_XOR		0x7a1b2c3du
#define FC_ME_CSUM_XOR		0x3e5d6f70u
#define FC_LS_CSUM_XOR		0x4c0a5e11u
#define FC_LR_CSUM_XOR		0x6d2f1c37u

#define FC_MIN_BLOCK_SECTORS	8u	/* 4 KiB */
#define FC_MAX_BLOCK_SECTORS	2048u	/* 1 MiB */
#define FC_DEFAULT_BLOCK_SECTORS 64u	/* 32 KiB: see docs/DESIGN.md */
#define FC_MAX_SUBBLOCKS	8u	/* valid/dirty bitmaps are one byte */
#define FC_MIN_SUBBLOCK_SECTORS	8u	/* 4 KiB */

#define FC_MAX_VOLUMES		63u
#define FC_VOLUME_LABEL_LEN	40u

/* superblock flags */
#define FC_SB_CLEAN		(1u << 0)	/* shut down cleanly: clean data valid */
#define FC_SB_NEEDS_CHECK	(1u << 1)	/* an error was seen: run fcachectl check */

/* incompat feature bits: a module that does not know one refuses the pool */
#define FC_FEAT_INCOMPAT_MIRROR	(1u << 0)	/* two flash devices, dirty data on both */
#define FC_FEAT_INCOMPAT_MDSEQ	(1u << 1)	/* md_seq + leftover rule, above */
#define FC_FEAT_INCOMPAT_DETACH	(1u << 2)	/* FC_VOL_DETACHED, below */
#define FC_FEAT_INCOMPAT_PAGELIST (1u << 3)	/* one-write commits, above */
#define FC_FEAT_INCOMPAT_WARM	(1u << 4)	/* FC_ENTRY_WARM, above */
#define FC_FEAT_INCOMPAT_ORDERED (1u << 5)	/* epochs and FC_ENTRY_SHADOW, above */
#define FC_FEAT_INCOMPAT_OLOG	(1u << 6)	/* FC_VOL_OLOG, below */
#define FC_FEAT_INCOMPAT_KNOWN	(FC_FEAT_INCOMPAT_MIRROR | FC_FEAT_INCOMPAT_MDSEQ | \
				 FC_FEAT_INCOMPAT_DETACH | FC_FEAT_INCOMPAT_PAGELIST | \
				 FC_FEAT_INCOMPAT_WARM | FC_FEAT_INCOMPAT_ORDERED | \
				 FC_FEAT_INCOMPAT_OLOG)

#define FC_MAX_LEGS		2u	/* flash devices of a pool */

/* fc_disk_header.flags */
#define FC_HDR_NEEDS_CHECK	(1u << 0)	/* leftover recording needs_check */

/* volume table entry flags */
#define FC_VOL_IN_USE		(1u << 0)
/*
 * FC_VOL_DETACHED (FC_FEAT_INCOMPAT_DETACH): the volume's last table was
 * torn down at run time by something other than fcachectl's own detach
 * (an LVM command replacing the table, dmsetup remove): its origin may
 * since have been written directly.  A new table for the slot is refused
 * while it holds dirty data (replaying it could overwrite newer writes);
 * clean data is dropped.  The pool message "resolve <id> replay|discard"
 * clears the flag.  It is recorded when such a table is suspended
 * (postsuspend), before a replacing table can be live, and cleared when a
 * table of the volume resumes: a power cut while a volume is suspended
 * leaves it set (the safe side); a crash of a live volume never sets it.
 */
#define FC_VOL_DETACHED		(1u << 1)
/*
 * FC_VOL_OLOG (FC_FEAT_INCOMPAT_OLOG, set while a slot has it): the
 * volume writes back through its ordered log (table option ordered_log,
 * include/fcache_olog.h), so its origin may be behind records a replay of
 * that log applies; its dirty versions of epochs the log holds count as
 * written back only when the log is walked at resume.  A table without
 * the log is refused while the slot holds dirty data; with none the flag
 * is cleared.  A module that does not know the feature refuses the pool.
 */
#define FC_VOL_OLOG		(1u << 2)

/* cache entry flags */
#define FC_ENTRY_MIRRORED	(1u << 0)	/* twin holds a copy of the dirty sub-blocks */
#define FC_ENTRY_WARM		(1u << 1)	/* clean, kept after an unclean shutdown */
#define FC_ENTRY_SHADOW		(1u << 2)	/* an older version, dirty (ordered pools) */

struct fc_disk_header {
	__le32 csum;		/* crc32c of bytes 4..4095 of the page, xor salt */
	__le32 magic;
	__le32 version;
	__le32 flags;		/* FC_HDR_*, 0 on a normal page */
	__le64 blocknr;		/* this page's own page number on the flash */
	__le64 seq;		/* commit sequence that wrote this page */
	__u8 uuid[16];		/* pool uuid, set at format */
	__u8 pad[16];
} __attribute__((packed));	/* 64 bytes */

struct fc_disk_superblock {
	struct fc_disk_header hdr;
	__le32 block_sectors;	/* cache block size, 512-byte sectors */
	__le32 subblock_sectors; /* valid/dirty granularity */
	__le64 nr_blocks;	/* cache blocks in the data area */
	__le64 data_start;	/* first data sector, block aligned */
	__le64 md_pages;	/* logical metadata pages, volume table included */
	__le32 entries_per_page;
	__le32 max_volumes;
	__le64 flash_sectors;	/* flash size when formatted */
	__le32 sb_flags;	/* FC_SB_* */
	__le32 compat_features;
	__le32 incompat_features;
	__le32 pad0;
	__le64 format_time;	/* seconds since the epoch */
	__u8 mirror_uuid[16];	/* reserved, zero */
	__le64 md_seq;		/* FC_FEAT_INCOMPAT_MDSEQ: pages trusted up to this seq */
	/* FC_FEAT_INCOMPAT_MIRROR only (zero otherwise): */
	__u8 member_uuid[16];	/* this device */
	__u8 partner_uuid[16];	/* the other leg */
	__le32 member_index;	/* this device's leg: 0 or 1 */
	__le32 failed_legs;	/* bitmap of legs recorded failed or missing */
	__le64 events;		/* bumped at every membership change */
	__le64 leg_blocks[FC_MAX_LEGS];	/* cache blocks in each leg's data area */
	__le64 leg_sectors[FC_MAX_LEGS];	/* each leg's size at format */
	/* FC_FEAT_INCOMPAT_PAGELIST: */
	__le32 list_pages;	/* pages named at FC_SB_LIST_OFFSET, 0: none */
} __attribute__((packed));

/* FC_FEAT_INCOMPAT_PAGELIST: where the superblock's page list starts, its room */
#define FC_SB_LIST_OFFSET	1024u
#define FC_SB_LIST_MAX		((FC_PAGE_SIZE - FC_SB_LIST_OFFSET) / 4u)

struct fc_disk_volume {
	__le32 id;		/* user's volume id, nonzero when in use */
	__le32 flags;		/* FC_VOL_* */
	__le64 origin_sectors;	/* origin size registered by the volume */
	__le64 dirty_blocks;	/* hint for tools; recovery recounts */
	__u8 label[FC_VOLUME_LABEL_LEN]; /* origin device name, NUL padded */
} __attribute__((packed));	/* 64 bytes */

#define FC_VT_SLOTS \
	((FC_PAGE_SIZE - sizeof(struct fc_disk_header)) / sizeof(struct fc_disk_volume))

struct fc_disk_voltable {
	struct fc_disk_header hdr;
	struct fc_disk_volume vol[FC_VT_SLOTS];
} __attribute__((packed));

struct fc_disk_entry {
	__le64 oblock;		/* origin block number (in cache blocks) */
	__u8 vol;		/* volume table slot */
	__u8 valid;		/* sub-block bitmap: data present */
	__u8 dirty;		/* sub-block bitmap: newer than origin (subset of valid) */
	__u8 flags;		/* FC_ENTRY_* */
	__le32 twin;		/* FC_ENTRY_MIRRORED: the twin's cache block; ordered: epoch */
} __attribute__((packed));	/* 16 bytes; valid == 0 means free */

#define FC_ENTRIES_PER_PAGE \
	((FC_PAGE_SIZE - sizeof(struct fc_disk_header)) / sizeof(struct fc_disk_entry))

struct fc_disk_mdpage {
	struct fc_disk_header hdr;
	struct fc_disk_entry e[FC_ENTRIES_PER_PAGE];
} __attribute__((packed));

/* Geometry derived from the flash size and block size. */
struct fc_geometry {
	__u32 block_sectors;
	__u32 subblock_sectors;
	__u32 nr_subblocks;
	__u64 flash_sectors;
	__u64 nr_blocks;
	__u64 md_pages;		/* logical, volume table included */
	__u64 data_start;	/* sectors */
	/* legs: 1, or 2 for a mirrored pool (nr_blocks is their sum) */
	__u32 nr_legs;
	__u64 leg_blocks[FC_MAX_LEGS];
	__u64 leg_sectors[FC_MAX_LEGS];	/* leg_sectors[0] == flash_sectors */
};

/* The leg holding cache block @b, and its sector offset on that leg. */
static inline unsigned int fc_block_leg(const struct fc_geometry *g, __u64 b)
{
	return b >= g->leg_blocks[0];
}

static inline __u64 fc_block_leg_sector(const struct fc_geometry *g, __u64 b)
{
	if (b >= g->leg_blocks[0])
		b -= g->leg_blocks[0];
	return g->data_start + b * g->block_sectors;
}

/* Physical page number of logical metadata page @l, slot @s. */
static inline __u64 fc_md_page_nr(__u64 l, unsigned int s)
{
	return 2 + 2 * l + s;
}

/* ---- fc_format.c: pure functions, kernel and userspace ---- */

/* Fill @g for a flash of @flash_sectors with @block_sectors blocks; 0 or -EINVAL. */
int fc_geometry_compute(struct fc_geometry *g, __u64 flash_sectors, __u32 block_sectors);
/*
 * The same for a mirrored pool over legs of @leg_sectors[0..1]: one
 * metadata area sized for both legs' blocks at the head of each leg, the
 * data areas after it.  0 or -EINVAL.
 */
int fc_geometry_compute_legs(struct fc_geometry *g, const __u64 *leg_sectors,
			     unsigned int nr_legs, __u32 block_sectors);

/* Standard CRC32C (Castagnoli) of @len bytes. */
__u32 fc_crc32c(const void *buf, size_t len);
/* The same in steps: fc_crc32c(A + B) is fc_crc32c_update(fc_crc32c(A), B); start at 0. */
__u32 fc_crc32c_update(__u32 crc, const void *buf, size_t len);

/* Seal a page: set header fields and checksum. @page is FC_PAGE_SIZE bytes. */
void fc_page_seal(void *page, __u32 magic, __u64 blocknr, __u64 seq, const __u8 uuid[16]);
/* The same with header flags (FC_HDR_*). */
void fc_page_seal_flags(void *page, __u32 magic, __u64 blocknr, __u64 seq,
			const __u8 uuid[16], __u32 hdr_flags);
/* The same for a format of its own version (the ordered log's, fcache_olog.h). */
void fc_page_seal_version(void *page, __u32 magic, __u32 version, __u64 blocknr, __u64 seq,
			  const __u8 uuid[16], __u32 hdr_flags);

/* The superblock's md_seq (its seq for a pool without FC_FEAT_INCOMPAT_MDSEQ). */
__u64 fc_sb_md_seq(const struct fc_disk_superblock *sb);

/*
 * FC_FEAT_INCOMPAT_PAGELIST: name the logical pages @pg[0..@n) (ascending,
 * @n <= FC_SB_LIST_MAX) in @sb, a FC_PAGE_SIZE buffer, before sealing it.
 */
void fc_sb_set_list(struct fc_disk_superblock *sb, const __u64 *pg, unsigned int n);
/* The pages the superblock names (0 without FC_FEAT_INCOMPAT_PAGELIST), the @i-th. */
__u32 fc_sb_list_len(const struct fc_disk_superblock *sb);
__u64 fc_sb_list_page(const struct fc_disk_superblock *sb, __u32 i);
/*
 * Did named page @l of the superblock's commit land: is one of its slots
 * @s0, @s1 (FC_PAGE_SIZE each, as read) valid and stamped with the
 * superblock's seq, not a needs_check record?
 */
bool fc_sb_page_landed(const struct fc_disk_superblock *sb, __u64 l, const void *s0,
		       const void *s1);

/*
 * Check a page.  Returns 0 if magic, version, checksum, own location and uuid
 * (when @uuid is non-NULL) are right, else a negative FC_ECHK_* code.
 */
int fc_page_verify(const void *page, __u32 magic, __u64 blocknr, const __u8 *uuid);
/* The same for a format of its own @version. */
int fc_page_verify_version(const void *page, __u32 magic, __u32 version, __u64 blocknr,
			   const __u8 *uuid);

#define FC_ECHK_MAGIC	(-1)
#define FC_ECHK_VERSION	(-2)
#define FC_ECHK_CSUM	(-3)
#define FC_ECHK_BLOCKNR	(-4)
#define FC_ECHK_UUID	(-5)
#define FC_ECHK_ZERO	(-6)	/* the page is all zeros (never written) */

const char *fc_echk_str(int err);

/* Does @page hold only zero bytes? */
bool fc_page_is_zero(const void *page);

/*
 * Does @page end with mkswap's signature ("SWAPSPACE2", or the old
 * "SWAP-SPACE", in its last 10 bytes)?  mkswap writes it at the end of a
 * device's first 4 KiB and zeroes the first 1 KiB: over a pool, superblock
 * slot 0, which then fails fc_page_verify() as a torn superblock write
 * would, and slot 1 holds the commit before the last.  A slot that fails
 * and carries the signature is a swap area, never a torn write: neither
 * the kernel nor fcachectl loads the commit before (docs/DESIGN.md,
 * "Recovery").
 */
bool fc_page_is_swap(const void *page);

/*
 * The two superblock slots of one device as read and what fc_page_verify()
 * said of each (a positive @err: the slot could not be read; its buffer is
 * not looked at): the slot made swap over a pool (it fails verification and
 * carries mkswap's signature while the other slot is a valid superblock),
 * or -1.  A swap area that never held a pool has no valid slot and is
 * not one.  The kernel refuses such a device and fcachectl check calls it
 * damaged, by this one rule.
 */
int fc_sb_swap_slot(const void *sb0, const void *sb1, int err0, int err1);

/*
 * Validate a superblock's fields against each other and against the
 * device size (pass 0 for @dev_sectors to skip that test); on success fill
 * @g.  Returns 0 or -EINVAL with a static reason in *@why.
 */
int fc_sb_check_geometry(const struct fc_disk_superblock *sb, __u64 dev_sectors,
			 struct fc_geometry *g, const char **why);

/* Sub-block mask covering sectors [@off, @off + @len) of a block. */
__u8 fc_subblock_mask(__u32 off, __u32 len, __u32 subblock_sectors);

/* Sub-blocks only partly covered by [@off, @off + @len). */
__u8 fc_subblock_partial(__u32 off, __u32 len, __u32 subblock_sectors);

#endif
