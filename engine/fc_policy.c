// SPDX-License-Identifier: GPL-2.0
/*
 * fc_policy: ghost-table admission, sequential stream detection and
 * writeback pacing.  Pure C, see fc_policy.h for the contract (no I/O, no
 * allocation, caller serialises).
 */
#include "fc_policy.h"

static __u64 mix64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

void fc_ghost_init(struct fc_ghost *g, __u32 *slots, __u32 nr_slots)
{
	g->slot = slots;
	g->mask = nr_slots - 1;
}

bool fc_ghost_admit(struct fc_ghost *g, __u64 key)
{
	__u64 h = mix64(key);
	__u32 idx = (__u32)h & g->mask;
	__u32 fp = (__u32)(h >> 32) | 1;	/* never 0: 0 is an empty slot */

	if (g->slot[idx] == fp) {
		g->slot[idx] = 0;
		return true;
	}
	g->slot[idx] = fp;
	return false;
}

void fc_ra_init(struct fc_ra *r, struct fc_ra_slot *slots)
{
	r->s = slots;
}

/* @block's slot, and its fingerprint there in *@fp (never 0: an empty slot). */
static struct fc_ra_slot *ra_slot(const struct fc_ra *r, __u64 block, __u32 *fp)
{
	__u64 h = mix64(block);

	*fp = (__u32)(h >> 32) | 1;
	return &r->s[h & (FC_RA_SLOTS - 1)];
}

static bool ra_recent(const struct fc_ra *r, __u64 block, __u32 now, __u32 window)
{
	__u32 fp;
	const struct fc_ra_slot *s = ra_slot(r, block, &fp);

	return s->fp == fp && (__u32)(now - s->when) <= window;
}

bool fc_ra_read(struct fc_ra *r, __u64 block, bool miss, __u32 now, __u32 window)
{
	__u32 fp;
	struct fc_ra_slot *s = ra_slot(r, block, &fp);
	bool stream = miss && block >= 2 && ra_recent(r, block - 1, now, window) &&
		ra_recent(r, block - 2, now, window);

	s->fp = fp;
	s->when = now;
	return stream;
}

__u32 fc_ra_blocks(__u32 block_sectors, __u32 ra_sectors, __u32 max_sectors)
{
	__u32 n = ra_sectors / block_sectors;

	if (max_sectors && n > max_sectors / block_sectors)
		n = max_sectors / block_sectors;
	return n ? n : 1;
}

void fc_seq_init(struct fc_seq *d)
{
	memset(d, 0, sizeof(*d));
}

bool fc_seq_check(struct fc_seq *d, __u64 sector, __u32 sectors, __u64 cutoff)
{
	unsigned int i, lru = 0;

	d->tick++;
	for (i = 0; i < FC_SEQ_STREAMS; i++) {
		if (d->s[i].len && d->s[i].next == sector) {
			d->s[i].next = sector + sectors;
			d->s[i].len += sectors;
			d->s[i].used = d->tick;
			return cutoff && d->s[i].len > cutoff;
		}
		if (d->s[i].used < d->s[lru].used)
			lru = i;
	}
	d->s[lru].next = sector + sectors;
	d->s[lru].len = sectors;
	d->s[lru].used = d->tick;
	return cutoff && sectors > cutoff;
}

bool fc_wb_above_high(__u64 dirty, __u64 total, __u32 high)
{
	return total && dirty * 100 >= total * high;
}

__u32 fc_wb_hard_limit(__u32 high)
{
	return high >= 100 ? 100 : high + (100 - high + 1) / 2;
}

bool fc_wb_admit_new(__u64 dirty, __u64 total, __u32 high, bool urgent)
{
	if (!fc_wb_above_high(dirty, total, high))
		return true;
	return urgent && !fc_wb_above_high(dirty, total, fc_wb_hard_limit(high));
}

enum fc_wb_state fc_wb_decide(const struct fc_wb_input *in, __u32 *max_inflight)
{
	__u32 jobs = in->jobs ? in->jobs : 1;
	__u32 half = jobs / 2 ? jobs / 2 : 1;	/* background pace */

	*max_inflight = 0;
	if (!in->dirty || !in->total)
		return FC_WB_IDLE;
	if (in->flushing || fc_wb_above_high(in->dirty, in->total, in->high)) {
		*max_inflight = jobs;
		return fc_wb_above_high(in->dirty, in->total, in->high) ?
			FC_WB_THROTTLED : FC_WB_ACTIVE;
	}
	if (in->dirty * 100 >= in->total * in->low) {
		*max_inflight = half;
		return FC_WB_BACKGROUND;
	}
	/* Below low: only when idle, or for aged data. */
	if (in->idle) {
		*max_inflight = jobs;
		return FC_WB_BACKGROUND;
	}
	if (in->aged) {
		*max_inflight = half;
		return FC_WB_BACKGROUND;
	}
	return FC_WB_IDLE;
}

__u32 fc_wb_hot_quota(__u64 dirty, __u64 total, __u32 low, __u32 batch)
{
	if (!fc_wb_above_high(dirty, total, low))
		return batch;
	return batch / 4 ? batch / 4 : 1;
}

__u8 fc_wb_hot_writes_next(__u32 n, __u32 max, __u32 hot, bool urgent)
{
	if (urgent && n < max / 4 && hot > n)
		return FC_WB_HOT_OFF;
	return FC_WB_HOT_WRITES;
}

const char *fc_wb_state_name(enum fc_wb_state s)
{
	switch (s) {
	case FC_WB_IDLE:
		return "idle";
	case FC_WB_BACKGROUND:
		return "background";
	case FC_WB_ACTIVE:
		return "active";
	case FC_WB_THROTTLED:
		return "throttled";
	}
	return "idle";
}
