/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_policy: cache admission and writeback pacing decisions.  Pure C
 * (include/fcache_env.h), unit-tested on the host (tests/unit/test_policy.c).
 *
 * Contract: the policy never does I/O, never allocates and never sleeps.
 * The caller serialises calls on one object (dm-fcache holds pool->lock).
 */
#ifndef FC_POLICY_H
#define FC_POLICY_H

#include "../include/fcache_env.h"

/*
 * Ghost table: a read miss is admitted on its second touch.  One u32
 * fingerprint per slot; a slot is overwritten by newer keys, which makes the
 * "window" the last ~nr_slots distinct misses.
 */
struct fc_ghost {
	__u32 *slot;
	__u32 mask;		/* nr_slots - 1, nr_slots a power of two */
};

/* @slots must hold mask + 1 entries, zeroed. */
void fc_ghost_init(struct fc_ghost *g, __u32 *slots, __u32 nr_slots);
/* True if @key was seen recently (and forget it), else remember it. */
bool fc_ghost_admit(struct fc_ghost *g, __u64 key);

/* Sequential stream detector: several concurrent streams per volume. */
#define FC_SEQ_STREAMS 8

struct fc_seq {
	struct {
		__u64 next;	/* sector following the stream's last I/O */
		__u64 len;	/* sectors seen contiguously */
		__u32 used;	/* LRU stamp */
	} s[FC_SEQ_STREAMS];
	__u32 tick;
};

void fc_seq_init(struct fc_seq *d);
/*
 * Account an I/O of @sectors at @sector; returns true when it belongs to a
 * stream longer than @cutoff sectors (0: never), i.e. it should bypass.
 */
bool fc_seq_check(struct fc_seq *d, __u64 sector, __u32 sectors, __u64 cutoff);

/*
 * Short read streams: an index range scan reads a few consecutive pages one
 * after the other, each once the one before has completed, with other
 * users' I/O in between, too far apart for fc_seq.  A table of recent
 * reads, hits and misses, direct mapped by a hash of the block, a
 * fingerprint and the tick of the read per slot: a miss of block B is
 * part of a stream when B - 1 and B - 2 were read within @window ticks
 * (hits count: a scan's pages already cached must not break the run).
 * Two predecessors, not one: a random miss whose neighbour happened to be
 * read lately must not read ahead.  The table must hold the reads of a
 * window (at a few thousand a second, FC_RA_SLOTS keeps a scan's last two
 * for about a second).
 */
#define FC_RA_SLOTS 4096u

struct fc_ra_slot {
	__u32 fp;		/* fingerprint of the block; 0: empty */
	__u32 when;		/* tick of the read */
};

struct fc_ra {
	struct fc_ra_slot *s;	/* FC_RA_SLOTS, zeroed */
};

void fc_ra_init(struct fc_ra *r, struct fc_ra_slot *slots);
/* Record a read of @block at @now; true if it is a @miss continuing a stream. */
bool fc_ra_read(struct fc_ra *r, __u64 block, bool miss, __u32 now, __u32 window);

/*
 * How many blocks a stream's fill reads (fc_fill_stream(): the missed block
 * and those after it), all with one origin request: @ra_sectors' worth
 * (FC_RA_BYTES), but never more than the origin takes in one request
 * (@max_sectors, its queue's max_sectors; 0: no limit).  A larger read is
 * split into two requests, and on spindles each is a seek: the blocks past
 * the limit would cost as much as the fill itself, and are left for the
 * stream's next miss.  At least 1, the missed block itself.
 */
__u32 fc_ra_blocks(__u32 block_sectors, __u32 ra_sectors, __u32 max_sectors);

/* Writeback pacing. */
enum fc_wb_state {
	FC_WB_IDLE,		/* below low and nothing aged: nothing to do */
	FC_WB_BACKGROUND,	/* between watermarks (or idle/aged below low) */
	FC_WB_ACTIVE,		/* at or above high: full speed */
	FC_WB_THROTTLED,	/* above high and writes going around the cache */
};

struct fc_wb_input {
	__u64 dirty, total;	/* blocks */
	__u32 high, low;	/* percent */
	bool idle;		/* no foreground I/O for a while */
	bool aged;		/* some dirty block is older than max_dirty_age */
	bool flushing;		/* a flush message wants everything written */
	__u32 jobs;		/* writeback_jobs */
};

/* Returns the state and sets *@max_inflight (0 when nothing to do). */
enum fc_wb_state fc_wb_decide(const struct fc_wb_input *in, __u32 *max_inflight);

/* Is the pool at or above the high watermark (new writes go around)? */
bool fc_wb_above_high(__u64 dirty, __u64 total, __u32 high);

/*
 * May a write take a new dirty block?  Below @high percent dirty: yes.  At
 * or above it only an @urgent one (a REQ_FUA write of one block or less:
 * a redo record written with O_DSYNC, whose writer waits for it), up to
 * the hard limit halfway from @high to 100% (90% at the default 80): sent
 * around the cache it would wait for a spindle.
 */
__u32 fc_wb_hard_limit(__u32 high);
bool fc_wb_admit_new(__u64 dirty, __u64 total, __u32 high, bool urgent);

/*
 * How many blocks of a writeback batch of @batch may be hot blocks (hit
 * since the hand last passed) taken only because their data is older than
 * max_dirty_age.  Below @low percent dirty that is the only writeback under
 * load: all of them.  At or above it freeing flash comes first: a quarter
 * (at least one), cold dirty blocks the rest.
 */
__u32 fc_wb_hot_quota(__u64 dirty, __u64 total, __u32 low, __u32 batch);

/*
 * Hot by write count.  A dirty block written FC_WB_HOT_WRITES times or more
 * since it was last clean is hot: written in bursts, such as the blocks of
 * a circular redo log (four 4 KiB records fill a 16 KiB block, and the log
 * comes round again seconds later), it can look cold to the hand's
 * reference bit, yet its copy would most often be overtaken by the next
 * round (writeback_raced).  Writeback passes such blocks over; they reach
 * the origin through max_dirty_age, at most a quarter of a batch, like the
 * blocks the reference bit finds hot.
 *
 * fc_wb_hot_writes_next(): the count at which a block is hot for the next
 * batch, from this one: @n blocks taken of @max, @hot passed over for their
 * count.  When the flash is needed (@urgent: at or above writeback_high), a
 * batch that came up short because of the rule (n < max / 4, more passed
 * over than taken) turns it off for the next batch (255, past any count a
 * block keeps), so writeback never stalls on it; otherwise the default.
 */
#define FC_WB_HOT_WRITES	8u
#define FC_WB_HOT_OFF		255u
__u8 fc_wb_hot_writes_next(__u32 n, __u32 max, __u32 hot, bool urgent);

const char *fc_wb_state_name(enum fc_wb_state s);

#endif
