/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ordered log's format (issue 38; docs/DESIGN.md "The origin's log"),
 * shared by the kernel module and fcachectl through include/fcache_env.h.
 *
 * Ordered write-back (FC_FEAT_INCOMPAT_ORDERED) keeps a volume's origin at
 * some past flush point by writing back one epoch at a time, each behind
 * an origin flush and a commit.  With a flush point per transaction that
 * is an origin round trip a transaction.  The log lets many flush points
 * reach the origin's side as one sequential write: a device of its own
 * beside the origin (an LV on the same RAID10: what survives the loss of
 * the flash), holding records of whole flush points.  The origin's image,
 * the flash lost, is then the origin with the log's complete records
 * replayed over it, in order (`fcachectl ordered-log replay`).
 *
 * Layout, in 4 KiB pages (FC_PAGE_SIZE) of the log device:
 *
 *   page 0, 1          log superblock, slot 0 and 1 (struct fc_disk_olog_sb)
 *   page 2 .. end      the record area, written as a ring
 *
 * A record is one header page (struct fc_disk_olog_rec: the origin pages
 * it carries, ascending) followed by its data pages, contiguous: it never
 * wraps.  A record goes where the previous one ended unless fewer than
 * 1 + FC_OLOG_REC_MAX pages are left before the area's end; then it goes
 * to the area's start (fc_olog_rec_place(): writer and reader apply the
 * same rule, so no record says where the next is).
 *
 * A record counts only whole: its header verifies (magic, version,
 * checksum, its own page, the log's uuid), its sequence is one past the
 * previous record's, its pages are ascending and inside the origin, and
 * its data's crc32c is the header's.  Replay walks from the superblock's
 * head (the first record not known to be on the origin in place) and
 * stops at the first record that does not count; of what it walked it
 * applies the records up to the last one flagged FC_OLOG_REC_END (a flush
 * point: the records of one flush point too large for one record are a
 * group whose earlier members lack the flag).  So the origin plus a replay
 * is always the volume at a flush point, whatever a crash cut short.
 * Stale records of an earlier lap of the ring have older sequences: the
 * first one met ends the walk.  Sequences never restart in a log's life;
 * a reformat takes a new uuid.
 *
 * The writer (the module) writes a record with REQ_FUA after every record
 * before it completed, and never into pages of records not yet applied;
 * applying (every page of the records from the head, newest version, in
 * place on the origin, then the origin's flush) ends with a superblock
 * naming the new head, written to the slot that does not hold the current
 * one with its seq one higher.  A crash during an apply replays the same
 * records again: replay is idempotent.
 */
#ifndef FCACHE_OLOG_H
#define FCACHE_OLOG_H

#include "fcache_format.h"

/* its pages: FC_LS_MAGIC (superblock), FC_LR_MAGIC (record header), fcache_format.h */
#define FC_OLOG_VERSION		1u

#define FC_OLOG_AREA_START	2u	/* first page of the record area */

/* fc_disk_olog_rec.rflags */
#define FC_OLOG_REC_END		(1u << 0)	/* ends at a flush point */

/* hdr: blocknr its slot (0, 1), seq bumped at each write, uuid the log's (new at format) */
struct fc_disk_olog_sb {
	struct fc_disk_header hdr;
	__le64 log_pages;	/* the log's size at format, 4 KiB pages */
	__le64 origin_pages;	/* the size of the origin it belongs to, 4 KiB pages */
	__u8 pool_uuid[16];	/* the pool writing it (zero: not yet used) */
	__le32 vol_id;		/* the volume's id in that pool (0: not yet used) */
	__le32 rec_max;		/* data pages a record at most: the wrap rule's */
	__le64 head;		/* page of the first record not known applied */
	__le64 head_seq;	/* that record's sequence */
	__le64 applied_epoch;	/* the flush point of the last record applied (0: none) */
	__le64 applied_time;	/* its time, ns since the epoch (0: none) */
	__le64 format_time;	/* seconds since the epoch */
	__le32 flags;		/* none defined: a log with flags is refused */
	__le32 pad;
} __attribute__((packed));

/* hdr: blocknr its own page in the log, seq the record's, uuid the log's */
struct fc_disk_olog_rec {
	struct fc_disk_header hdr;
	__le64 epoch;		/* the flush point the record's data is at (pool's epoch) */
	__le64 time;		/* when that flush point was made, ns since the epoch */
	__le32 nr_pages;	/* data pages following the header */
	__le32 rflags;		/* FC_OLOG_REC_* */
	__le32 data_csum;	/* crc32c of the nr_pages data pages */
	__le32 pad;
	__le64 page[];		/* origin page of each data page, strictly ascending */
} __attribute__((packed));

/* data pages a record carries at most: what its header page can name */
#define FC_OLOG_REC_MAX \
	((FC_PAGE_SIZE - sizeof(struct fc_disk_olog_rec)) / sizeof(__le64))
/* the smallest log: room for four records of the largest size */
#define FC_OLOG_MIN_PAGES	(FC_OLOG_AREA_START + 4 * (1 + FC_OLOG_REC_MAX))

/* The ring of a log: its record area and the wrap rule's record size. */
struct fc_olog_geo {
	__u64 start;		/* FC_OLOG_AREA_START */
	__u64 end;		/* one past the area's last page: the log's pages */
	__u32 rec_max;		/* data pages a record at most */
};

/* The geometry of a log of @log_pages pages: 0, or -EINVAL (too small). */
int fc_olog_geo_init(struct fc_olog_geo *g, __u64 log_pages);

/* The page where a record to be written at @pos (or a reader expecting one) starts. */
__u64 fc_olog_rec_place(const struct fc_olog_geo *g, __u64 pos);

/*
 * A new log's superblock in @sb (FC_PAGE_SIZE bytes): empty (head at the
 * area's start, sequence 1), for an origin of @origin_pages; @uuid new.
 */
void fc_olog_sb_init(void *sb, __u64 log_pages, __u64 origin_pages, const __u8 uuid[16],
		     __u64 now_sec);
/*
 * The head of @sb past everything walk @w found whole up to a flush point
 * (w->done: applied), and that flush point as the one applied last; the
 * caller seals and writes it to the other slot.
 */
struct fc_olog_walk;
void fc_olog_sb_set_head(void *sb, const struct fc_olog_walk *w);
/* Seal @sb for slot @slot with superblock sequence @seq. */
void fc_olog_sb_seal(void *sb, unsigned int slot, __u64 seq);
/*
 * Check slot @slot of a log device of @dev_pages (0: not known) as read:
 * 0 and @g filled, or an FC_ECHK_* code (header) or -EINVAL (fields that
 * do not agree) with a static reason in *@why.
 */
int fc_olog_sb_check(const void *sb, unsigned int slot, __u64 dev_pages,
		     struct fc_olog_geo *g, const char **why);
/*
 * The current superblock of the two slots as checked (@err0, @err1 from
 * fc_olog_sb_check(); a positive value: unreadable): the valid slot with
 * the higher seq, or -1.  Two valid slots of different logs (uuid) count
 * as none: -2.
 */
int fc_olog_sb_pick(const void *sb0, const void *sb1, int err0, int err1);

/*
 * Seal record header @rec (FC_PAGE_SIZE bytes; its page[] filled with
 * @nr_pages ascending origin pages) for page @pos of the log @uuid.
 */
void fc_olog_rec_seal(void *rec, __u64 pos, __u64 seq, const __u8 uuid[16], __u64 epoch,
		      __u64 time_ns, __u32 nr_pages, __u32 rflags, __u32 data_csum);
/*
 * Does the header read at page @pos count as record @seq of log @uuid for an
 * origin of @origin_pages (its data not yet seen)?  0, or an FC_ECHK_* code
 * or -EINVAL (sequence, size, pages) with a static reason in *@why.
 */
int fc_olog_rec_check(const void *rec, const struct fc_olog_geo *g, __u64 pos, __u64 seq,
		      const __u8 uuid[16], __u64 origin_pages, const char **why);

/*
 * A walk of the ring from the head, as replay and the module's load do it:
 * fc_olog_walk_next() says where the next header must be (or that the ring
 * is walked whole: ~0); the caller reads it, checks it with
 * fc_olog_rec_check() and its data's checksum, and, if it counts, passes
 * it to fc_olog_walk_take().  The records up to @done (the walk's
 * position after the last FC_OLOG_REC_END record) are the ones to apply.
 */
struct fc_olog_walk {
	struct fc_olog_geo g;
	__u64 pos, seq;		/* the next record's page (before the wrap rule), sequence */
	__u64 used;		/* pages of the ring walked, wrap skips included */
	__u64 records;		/* records taken */
	__u64 done, done_seq;	/* after the last record ending a flush point */
	__u64 done_records;	/* records up to it */
	__u64 done_used;	/* pages up to it */
	__u64 epoch, time;	/* that record's flush point, 0 0 if none */
};

void fc_olog_walk_start(struct fc_olog_walk *w, const struct fc_olog_geo *g, __u64 head,
			__u64 head_seq);
/* The page of the next header to read, or ~0ULL: the ring is walked whole. */
__u64 fc_olog_walk_next(const struct fc_olog_walk *w);
/*
 * Would a record of @nr_pages data pages at fc_olog_walk_next() stay clear
 * of the head?  The reader stops at one that would not (it cannot be of
 * this lap); the writer waits for an apply before writing it.
 */
bool fc_olog_walk_fits(const struct fc_olog_walk *w, __u32 nr_pages);
/* Take the record at fc_olog_walk_next() that counts (its header @rec, checked). */
void fc_olog_walk_take(struct fc_olog_walk *w, const void *rec);
/*
 * The head moved to the walk's @done (an apply of everything up to it):
 * the walk goes on from there, as if started at it.  The writer keeps a
 * walk of its own ring, taking each record it writes.
 */
void fc_olog_walk_trim(struct fc_olog_walk *w);

/*
 * The walk driven whole, for replay (fcachectl's, the module's load) and
 * show: the caller's I/O in @io.  From @sb's head (its current superblock,
 * checked, geometry @g), each record is read, checked (header, fit, data
 * checksum), given to io->apply if set (in order: a replay), and taken;
 * the scan ends at the first that does not count, at a read error, or
 * after @upto records (~0ULL: no limit).  s->w.done_records of them are
 * the ones to apply (up to the last flush point), s->pages their data
 * pages.  A read error is not the log's end (fc_olog_scan_read_error()):
 * the records past it may hold later flush points.
 */
struct fc_olog_io {
	/* read @n pages from page @page of the log into @buf: 0 or -errno */
	int (*read)(void *ctx, void *buf, __u64 page, __u64 n);
	/* write the data of record @rec in place (NULL: no replay): 0 or -errno */
	int (*apply)(void *ctx, const struct fc_disk_olog_rec *rec, const void *data);
	void *ctx;
	void *rec;		/* a header page's buffer */
	void *data;		/* FC_OLOG_REC_MAX pages' */
};

enum fc_olog_stop {
	FC_OLOG_STOP_WHOLE,	/* the ring walked whole */
	FC_OLOG_STOP_UPTO,	/* @upto records taken */
	FC_OLOG_STOP_HDR_READ,	/* a header cannot be read (err) */
	FC_OLOG_STOP_RECORD,	/* a header that does not count (why) */
	FC_OLOG_STOP_HEAD,	/* a record that would reach the head */
	FC_OLOG_STOP_DATA_READ,	/* a record's data cannot be read (err) */
	FC_OLOG_STOP_TORN,	/* a record's data fails its checksum */
	FC_OLOG_STOP_APPLY,	/* io->apply failed (err) */
};

struct fc_olog_scan {
	struct fc_olog_walk w;
	__u64 pages;		/* data pages of the records up to w.done */
	enum fc_olog_stop stop;
	__u64 stop_pos, stop_seq;	/* the record it stopped at: page, sequence */
	const char *why;	/* FC_OLOG_STOP_RECORD: the check's reason */
	int err;		/* the read's or the apply's */
};

void fc_olog_scan(struct fc_olog_scan *s, const struct fc_olog_io *io, const void *sb,
		  const struct fc_olog_geo *g, __u64 upto);
bool fc_olog_scan_read_error(const struct fc_olog_scan *s);

/*
 * The writer's plan of a record (the module's ordered writeback, unit-
 * tested on the host): @c[0..@n) are a volume's dirty versions in the
 * order of their epochs, oldest first (its dirty list; a block rewritten
 * after an older epoch has a version in each: the older ones are
 * shadows).  The record takes whole epochs from the first, as many as fit
 * in @max data pages, each block once: the newest version taken, with the
 * dirty sub-blocks of all its versions taken (@pages_per_sub pages each).
 * Returns how many candidates it takes (a prefix of whole epochs; 0: the
 * first epoch alone does not fit), sets @c[i].write and .mask on the one
 * version of each block whose data the record carries (0 on the others:
 * their data is older and goes with them), and *@pages to the record's
 * data pages.  @scratch: 2 * @n words.
 */
struct fc_olog_cand {
	__u64 oblock;		/* origin block, in cache blocks */
	__u32 epoch;
	__u8 dirty;		/* its dirty sub-blocks */
	__u8 mask;		/* out: the sub-blocks the record carries from it */
	__u8 write;		/* out: the newest version taken of its block */
	__u8 pad;
};

unsigned int fc_olog_plan(struct fc_olog_cand *c, unsigned int n, __u32 pages_per_sub,
			  __u32 max, __u32 *scratch, __u32 *pages);

#endif
