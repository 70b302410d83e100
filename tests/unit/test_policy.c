/* Unit tests of engine/fc_policy.c: admission, sequential detection, pacing. */
#include "engine/fc_policy.h"
#include "unit.h"
#include <stdlib.h>

static void test_ghost(void)
{
	static __u32 slots[1024];
	struct fc_ghost g;
	int i, admitted = 0;

	fc_ghost_init(&g, slots, 1024);
	CHECK("first touch not admitted", !fc_ghost_admit(&g, 42));
	CHECK("second touch admitted", fc_ghost_admit(&g, 42));
	CHECK("admission forgets", !fc_ghost_admit(&g, 42));
	for (i = 0; i < 100000; i++)
		admitted += fc_ghost_admit(&g, 1000000 + (__u64)i);
	CHECK("one-touch scan rarely admitted", admitted < 100);
}

static void test_seq(void)
{
	struct fc_seq d;
	int i, bypass = 0;

	fc_seq_init(&d);
	for (i = 0; i < 16; i++)
		bypass |= fc_seq_check(&d, (__u64)i * 128, 128, 2048);
	CHECK("short stream cached", !bypass);
	CHECK("long stream bypassed", fc_seq_check(&d, 16 * 128, 128, 2048));
	CHECK("random io not bypassed", !fc_seq_check(&d, 999999, 32, 2048));
	CHECK("cutoff 0 never bypasses", !fc_seq_check(&d, 17 * 128, 128, 0));
	fc_seq_init(&d);
	/* Two interleaved streams are both detected. */
	for (i = 0; i < 40; i++) {
		fc_seq_check(&d, (__u64)i * 64, 64, 1024);
		bypass = fc_seq_check(&d, 1000000 + (__u64)i * 64, 64, 1024);
	}
	CHECK("interleaved streams detected", bypass);
}

/* A fresh read-miss table. */
static void ra_reset(struct fc_ra *r)
{
	static struct fc_ra_slot slots[FC_RA_SLOTS];

	memset(slots, 0, sizeof(slots));
	fc_ra_init(r, slots);
}

static void test_ra(void)
{
	struct fc_ra r;
	int i, streams = 0;

	ra_reset(&r);
	CHECK("first miss of a scan", !fc_ra_read(&r, 100, true, 0, 10));
	CHECK("second miss of a scan", !fc_ra_read(&r, 101, true, 1, 10));
	CHECK("third miss: a stream", fc_ra_read(&r, 102, true, 2, 10));
	CHECK("fourth miss: still one", fc_ra_read(&r, 103, true, 3, 10));
	/* too far apart in time */
	ra_reset(&r);
	fc_ra_read(&r, 200, true, 0, 10);
	fc_ra_read(&r, 201, true, 5, 10);
	CHECK("predecessors past the window", !fc_ra_read(&r, 202, true, 15, 10));
	/* the clock wraps */
	ra_reset(&r);
	fc_ra_read(&r, 300, true, 0xfffffffeu, 10);
	fc_ra_read(&r, 301, true, 0xffffffffu, 10);
	CHECK("window across the tick wrap", fc_ra_read(&r, 302, true, 3, 10));
	/* one neighbour only: not a stream */
	ra_reset(&r);
	fc_ra_read(&r, 400, true, 0, 10);
	CHECK("one predecessor is not a stream", !fc_ra_read(&r, 401, true, 0, 10));
	CHECK("a gap is not a stream", !fc_ra_read(&r, 403, true, 0, 10));
	CHECK("blocks 0 and 1 never underflow", !fc_ra_read(&r, 0, true, 0, 10) && !fc_ra_read(&r, 1, true, 0, 10));
	/* Random misses (here 1 in 64 of the blocks a window) rarely read ahead. */
	ra_reset(&r);
	srand(7);
	for (i = 0; i < 100000; i++)
		streams += fc_ra_read(&r, (__u64)rand() % 32768, true, (__u32)i, 512);
	CHECK("random misses rarely a stream", streams < 100);
	/* Interleaved with random misses, scans are still found. */
	ra_reset(&r);
	for (i = 0, streams = 0; i < 1000; i++) {
		fc_ra_read(&r, 1000000 + (__u64)rand() % 32768, true, (__u32)i, 512);
		fc_ra_read(&r, 1000000 + (__u64)rand() % 32768, true, (__u32)i, 512);
		streams += fc_ra_read(&r, (__u64)i, true, (__u32)i, 512);
	}
	CHECK("scan among random misses found", streams > 900);
	/* Hits count as reads of the run, but never read ahead themselves. */
	ra_reset(&r);
	fc_ra_read(&r, 500, false, 0, 10);
	fc_ra_read(&r, 501, false, 0, 10);
	CHECK("a hit does not read ahead", !fc_ra_read(&r, 502, false, 0, 10));
	CHECK("a miss after two hits: a stream", fc_ra_read(&r, 503, true, 0, 10));
	fc_ra_read(&r, 600, true, 0, 10);
	fc_ra_read(&r, 601, false, 0, 10);
	CHECK("a miss after a miss and a hit: a stream", fc_ra_read(&r, 602, true, 0, 10));
	/* Random reads of a hot tenth (hit) and misses elsewhere. */
	ra_reset(&r);
	for (i = 0, streams = 0; i < 100000; i++) {
		__u64 b = (__u64)rand() % 32768;

		streams += fc_ra_read(&r, b, b % 10 != 0, (__u32)i, 512);
	}
	CHECK("random reads rarely a stream", streams < 100);
}

static void test_pacing(void)
{
	struct fc_wb_input in = { .dirty = 0, .total = 1000, .high = 80, .low = 50,
				  .jobs = 32 };
	__u32 max;

	CHECK("nothing dirty idle", fc_wb_decide(&in, &max) == FC_WB_IDLE && max == 0);
	in.dirty = 100;
	CHECK("below low busy idle", fc_wb_decide(&in, &max) == FC_WB_IDLE && max == 0);
	in.aged = true;
	CHECK("below low aged writes back", fc_wb_decide(&in, &max) == FC_WB_BACKGROUND && max == 16);
	in.aged = false;
	in.idle = true;
	CHECK("below low idle full speed", fc_wb_decide(&in, &max) == FC_WB_BACKGROUND && max == 32);
	in.idle = false;
	in.dirty = 600;
	CHECK("between watermarks background", fc_wb_decide(&in, &max) == FC_WB_BACKGROUND && max == 16);
	in.dirty = 800;
	CHECK("at high throttled", fc_wb_decide(&in, &max) == FC_WB_THROTTLED && max == 32);
	CHECK("above high detected", fc_wb_above_high(800, 1000, 80) && !fc_wb_above_high(799, 1000, 80));
	CHECK("hard limit halfway", fc_wb_hard_limit(80) == 90 && fc_wb_hard_limit(50) == 75 &&
	      fc_wb_hard_limit(99) == 100 && fc_wb_hard_limit(100) == 100 && fc_wb_hard_limit(1) == 51);
	CHECK("below high any write allocates", fc_wb_admit_new(799, 1000, 80, false) &&
	      fc_wb_admit_new(799, 1000, 80, true));
	CHECK("above high other writes go around", !fc_wb_admit_new(800, 1000, 80, false) &&
	      !fc_wb_admit_new(899, 1000, 80, false));
	CHECK("above high sync writes absorbed", fc_wb_admit_new(800, 1000, 80, true) &&
	      fc_wb_admit_new(899, 1000, 80, true));
	CHECK("at the hard limit nothing allocates", !fc_wb_admit_new(900, 1000, 80, true) &&
	      !fc_wb_admit_new(1000, 1000, 80, true));
	CHECK("high 100: never refused below full", fc_wb_admit_new(999, 1000, 100, false) &&
	      !fc_wb_admit_new(1000, 1000, 100, true));
	CHECK("empty pool refuses nothing", fc_wb_admit_new(0, 0, 80, false));
	CHECK("below low aged hot blocks fill the batch", fc_wb_hot_quota(499, 1000, 50, 256) == 256 &&
	      fc_wb_hot_quota(0, 1000, 50, 256) == 256);
	CHECK("at or above low a quarter", fc_wb_hot_quota(500, 1000, 50, 256) == 64 &&
	      fc_wb_hot_quota(1000, 1000, 50, 256) == 64);
	CHECK("quota never 0", fc_wb_hot_quota(900, 1000, 50, 3) == 1 &&
	      fc_wb_hot_quota(900, 1000, 0, 1) == 1);
	CHECK("low 100 or empty pool: all", fc_wb_hot_quota(999, 1000, 100, 256) == 256 &&
	      fc_wb_hot_quota(0, 0, 50, 256) == 256);
	CHECK("hot by writes: the default", fc_wb_hot_writes_next(256, 256, 900, true) == FC_WB_HOT_WRITES &&
	      fc_wb_hot_writes_next(100, 256, 50, true) == FC_WB_HOT_WRITES);
	CHECK("urgent short batch of hot blocks turns it off",
	      fc_wb_hot_writes_next(10, 256, 500, true) == FC_WB_HOT_OFF &&
	      fc_wb_hot_writes_next(0, 256, 1, true) == FC_WB_HOT_OFF);
	CHECK("short for other reasons: stays", fc_wb_hot_writes_next(10, 256, 10, true) == FC_WB_HOT_WRITES &&
	      fc_wb_hot_writes_next(0, 256, 0, true) == FC_WB_HOT_WRITES);
	CHECK("below high a short batch only waits", fc_wb_hot_writes_next(0, 256, 500, false) == FC_WB_HOT_WRITES);
	CHECK("off is past any count a block keeps", FC_WB_HOT_OFF == 255 && FC_WB_HOT_WRITES < FC_WB_HOT_OFF);
	in.dirty = 10;
	in.flushing = true;
	CHECK("flush full speed", fc_wb_decide(&in, &max) == FC_WB_ACTIVE && max == 32);
	CHECK("state names", !strcmp(fc_wb_state_name(FC_WB_THROTTLED), "throttled"));
}

/*
 * A stream's fill (fc_ra_blocks()): the read-ahead's bytes, no more than the
 * origin takes in one request, at least the missed block (issue 33: a
 * 128 KiB fill on an md RAID10 of null_blk spindles, 255 sectors a
 * request, was two reads, each a seek).
 */
static void test_ra_blocks(void)
{
	__u32 bs, max, n;

	CHECK("no limit: 128 KiB of 16 KiB blocks", fc_ra_blocks(32, 256, 0) == 8);
	CHECK("an origin taking 512 KiB: 128 KiB", fc_ra_blocks(32, 256, 1024) == 8);
	CHECK("exactly 128 KiB a request: 128 KiB", fc_ra_blocks(32, 256, 256) == 8);
	CHECK("255 sectors a request: 7 blocks of 16 KiB", fc_ra_blocks(32, 256, 255) == 7);
	CHECK("255 sectors a request: 3 blocks of 32 KiB", fc_ra_blocks(64, 256, 255) == 3);
	CHECK("a request smaller than a block: the block", fc_ra_blocks(64, 256, 8) == 1);
	CHECK("read-ahead smaller than a block: the block", fc_ra_blocks(512, 256, 0) == 1);
	/* every block size and limit: one request, as much as fits */
	for (bs = 8; bs <= 1024; bs *= 2)
		for (max = 1; max <= 4096; max++) {
			n = fc_ra_blocks(bs, 256, max);
			if (n < 1 || (n > 1 && n * bs > max) ||
			    (n * bs < 256 && (n + 1) * bs <= 256 && (n + 1) * bs <= max)) {
				CHECK("one request, as much as fits", false);
				return;
			}
		}
	CHECK("one request, as much as fits", true);
}

int main(void)
{
	test_ghost();
	test_seq();
	test_ra();
	test_ra_blocks();
	test_pacing();
	return unit_failed;
}
