/*
 * Unit tests of engine/fc_olog.c: the ordered log's superblock, record
 * headers and the walk of its ring, against a log kept in memory by a
 * writer written here from the format's rules (include/fcache_olog.h).
 */
#include "include/fcache_olog.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>

static const __u8 uuid[16] = { 0xa1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const __u8 uuid2[16] = { 0xb2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

#define ORIGIN_PAGES	4096u

/* A log in memory: its pages, and what the origin holds after each flush point. */
struct mlog {
	__u64 pages;
	__u8 *buf;
	struct fc_olog_walk w;		/* the writer's own walk of its ring */
	__u32 fill;			/* the value the next data page is filled with */
};

static __u8 *pg(struct mlog *m, __u64 p)
{
	return m->buf + p * FC_PAGE_SIZE;
}

static void mlog_init(struct mlog *m, __u64 pages)
{
	struct fc_olog_geo g;

	m->pages = pages;
	m->buf = calloc(pages, FC_PAGE_SIZE);
	m->fill = 1;
	if (!m->buf || fc_olog_geo_init(&g, pages))
		abort();
	fc_olog_sb_init(pg(m, 0), pages, ORIGIN_PAGES, uuid, 1000);
	fc_olog_sb_seal(pg(m, 0), 0, 1);
	fc_olog_walk_start(&m->w, &g, FC_OLOG_AREA_START, 1);
}

/* Write a record of @nr pages starting at origin page @first, every @step-th: its place. */
static __u64 mlog_write(struct mlog *m, __u32 nr, __u64 first, __u64 step, __u32 rflags,
			__u64 epoch)
{
	struct fc_disk_olog_rec *r;
	__u64 pos = fc_olog_walk_next(&m->w);
	__u32 i, crc = 0;

	if (pos == ~0ULL || !fc_olog_walk_fits(&m->w, nr))
		return ~0ULL;
	r = (struct fc_disk_olog_rec *)pg(m, pos);
	for (i = 0; i < nr; i++) {
		r->page[i] = cpu_to_le64(first + i * step);
		memset(pg(m, pos + 1 + i), (int)(m->fill++ & 0xff), FC_PAGE_SIZE);
		crc = fc_crc32c_update(crc, pg(m, pos + 1 + i), FC_PAGE_SIZE);
	}
	fc_olog_rec_seal(r, pos, m->w.seq, uuid, epoch, epoch * 1000, nr, rflags, crc);
	fc_olog_walk_take(&m->w, r);
	return pos;
}

/* Replay's walk of @m from @head: the records that count, as fcachectl walks them. */
static void mlog_walk(struct mlog *m, __u64 head, __u64 head_seq, struct fc_olog_walk *w)
{
	struct fc_olog_geo g;
	const char *why;
	__u64 pos;

	fc_olog_geo_init(&g, m->pages);
	fc_olog_walk_start(w, &g, head, head_seq);
	while ((pos = fc_olog_walk_next(w)) != ~0ULL) {
		const struct fc_disk_olog_rec *r = (void *)pg(m, pos);
		__u32 i, nr, crc = 0;

		if (fc_olog_rec_check(r, &g, pos, w->seq, uuid, ORIGIN_PAGES, &why))
			break;
		nr = le32_to_cpu(r->nr_pages);
		if (!fc_olog_walk_fits(w, nr))
			break;
		for (i = 0; i < nr; i++)
			crc = fc_crc32c_update(crc, pg(m, pos + 1 + i), FC_PAGE_SIZE);
		if (crc != le32_to_cpu(r->data_csum))
			break;
		fc_olog_walk_take(w, r);
	}
}

static void test_crc_steps(void)
{
	static __u8 buf[10000];
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (__u8)(i * 7 + 3);
	CHECK("crc32c in steps is crc32c of the whole",
	      fc_crc32c_update(fc_crc32c_update(0, buf, 4096), buf + 4096, sizeof(buf) - 4096) ==
	      fc_crc32c(buf, sizeof(buf)));
	CHECK("crc32c step of nothing keeps the value", fc_crc32c_update(0x1234, buf, 0) == 0x1234);
}

static void test_sb(void)
{
	static __u8 s0[FC_PAGE_SIZE], s1[FC_PAGE_SIZE];
	struct fc_disk_olog_sb *sb = (void *)s0;
	struct fc_olog_geo g;
	const char *why;

	CHECK("sb: the header's room", sizeof(struct fc_disk_olog_rec) == 96 &&
	      FC_OLOG_REC_MAX == 500);
	CHECK("sb: a log too small refused", fc_olog_geo_init(&g, FC_OLOG_MIN_PAGES - 1) == -EINVAL);
	CHECK("sb: the least log", fc_olog_geo_init(&g, FC_OLOG_MIN_PAGES) == 0);
	CHECK("sb: zero slot", fc_olog_sb_check(s0, 0, 0, &g, &why) == FC_ECHK_ZERO);
	fc_olog_sb_init(s0, 65536, ORIGIN_PAGES, uuid, 1000);
	fc_olog_sb_seal(s0, 0, 5);
	CHECK("sb: sealed slot 0 checks", fc_olog_sb_check(s0, 0, 65536, &g, &why) == 0 &&
	      g.start == 2 && g.end == 65536 && g.rec_max == FC_OLOG_REC_MAX);
	CHECK("sb: at slot 1 it is misplaced",
	      fc_olog_sb_check(s0, 1, 65536, &g, &why) == FC_ECHK_BLOCKNR);
	CHECK("sb: a device smaller than the log",
	      fc_olog_sb_check(s0, 0, 65535, &g, &why) == -EINVAL && strstr(why, "shrank"));
	fc_olog_rec_seal(s1, 0, 1, uuid, 1, 1, 0, FC_OLOG_REC_END, 0);
	CHECK("sb: a record header is not a superblock",
	      fc_olog_sb_check(s1, 0, 0, &g, &why) == FC_ECHK_MAGIC);
	fc_page_seal(s1, FC_SB_MAGIC, 0, 1, uuid);
	CHECK("sb: a pool's superblock is not a log's",
	      fc_olog_sb_check(s1, 0, 0, &g, &why) == FC_ECHK_MAGIC);
	memcpy(s1, s0, FC_PAGE_SIZE);
	fc_olog_sb_seal(s1, 1, 6);
	CHECK("sb: the higher seq picked", fc_olog_sb_pick(s0, s1, 0, 0) == 1);
	CHECK("sb: the only good slot picked", fc_olog_sb_pick(s0, s1, 0, FC_ECHK_CSUM) == 0 &&
	      fc_olog_sb_pick(s0, s1, FC_ECHK_ZERO, 0) == 1 &&
	      fc_olog_sb_pick(s0, s1, FC_ECHK_ZERO, 5) == -1);
	memcpy(((struct fc_disk_olog_sb *)s1)->hdr.uuid, uuid2, 16);
	fc_olog_sb_seal(s1, 1, 6);
	CHECK("sb: two logs' slots are none", fc_olog_sb_pick(s0, s1, 0, 0) == -2);
	sb->head = cpu_to_le64(65536 - 10);
	fc_olog_sb_seal(s0, 0, 5);
	CHECK("sb: a head where no record goes refused",
	      fc_olog_sb_check(s0, 0, 0, &g, &why) == -EINVAL && strstr(why, "head"));
	sb->head = cpu_to_le64(2);
	sb->flags = cpu_to_le32(1);
	fc_olog_sb_seal(s0, 0, 5);
	CHECK("sb: unknown flags refused", fc_olog_sb_check(s0, 0, 0, &g, &why) == -EINVAL);
	sb->flags = 0;
	fc_olog_sb_seal(s0, 0, 5);
	s0[200] ^= 4;
	CHECK("sb: a flipped bit fails the checksum",
	      fc_olog_sb_check(s0, 0, 0, &g, &why) == FC_ECHK_CSUM);
	s0[200] ^= 4;
	sb->hdr.version = cpu_to_le32(FC_OLOG_VERSION + 1);
	sb->hdr.csum = cpu_to_le32(fc_crc32c(s0 + 4, FC_PAGE_SIZE - 4) ^ FC_LS_CSUM_XOR);
	CHECK("sb: a newer version refused",
	      fc_olog_sb_check(s0, 0, 0, &g, &why) == FC_ECHK_VERSION);
}

/* Records: what counts and what does not. */
static void test_records(void)
{
	struct mlog m;
	struct fc_olog_walk w;
	struct fc_disk_olog_rec *r;
	struct fc_olog_geo g;
	const char *why;
	__u64 p1, p2, p3;

	mlog_init(&m, 8192);
	fc_olog_geo_init(&g, m.pages);
	p1 = mlog_write(&m, 3, 10, 1, FC_OLOG_REC_END, 7);
	p2 = mlog_write(&m, 500, 0, 2, 0, 9);
	p3 = mlog_write(&m, 1, 4000, 1, FC_OLOG_REC_END, 9);
	CHECK("rec: records follow each other", p1 == 2 && p2 == 6 && p3 == 507);
	mlog_walk(&m, 2, 1, &w);
	CHECK("rec: all three counted, the flush point the last's",
	      w.records == 3 && w.done_records == 3 && w.epoch == 9 && w.time == 9000 &&
	      w.done == 509 && w.done_seq == 4);
	r = (void *)pg(&m, p3);
	CHECK("rec: expected elsewhere: misplaced",
	      fc_olog_rec_check(r, &g, p3 + 1, 3, uuid, ORIGIN_PAGES, &why) == FC_ECHK_BLOCKNR);
	CHECK("rec: another log's", fc_olog_rec_check(r, &g, p3, 3, uuid2, ORIGIN_PAGES, &why) ==
	      FC_ECHK_UUID);
	CHECK("rec: an earlier lap's sequence",
	      fc_olog_rec_check(r, &g, p3, 4, uuid, ORIGIN_PAGES, &why) == -EINVAL &&
	      strstr(why, "lap"));
	CHECK("rec: a later sequence than the one expected",
	      fc_olog_rec_check(r, &g, p3, 2, uuid, ORIGIN_PAGES, &why) == -EINVAL);
	CHECK("rec: a page past the origin",
	      fc_olog_rec_check(r, &g, p3, 3, uuid, 4000, &why) == -EINVAL && strstr(why, "past"));
	/* the group's second member torn: the first is walked, not applied */
	pg(&m, p3 + 1)[100] ^= 1;
	mlog_walk(&m, 2, 1, &w);
	CHECK("rec: torn data ends the walk; a group without its end is not applied",
	      w.records == 2 && w.done_records == 1 && w.epoch == 7 && w.done == 6 &&
	      w.done_seq == 2);
	pg(&m, p3 + 1)[100] ^= 1;
	r = (void *)pg(&m, p2);
	r->page[5] = r->page[4];
	fc_olog_rec_seal(r, p2, 2, uuid, 9, 9000, 500, 0, le32_to_cpu(r->data_csum));
	CHECK("rec: pages not ascending", fc_olog_rec_check(r, &g, p2, 2, uuid, ORIGIN_PAGES,
							 &why) == -EINVAL &&
	      strstr(why, "ascending"));
	r->page[5] = cpu_to_le64(10);
	fc_olog_rec_seal(r, p2, 2, uuid, 9, 9000, 500, 1u << 3, le32_to_cpu(r->data_csum));
	CHECK("rec: unknown flags", fc_olog_rec_check(r, &g, p2, 2, uuid, ORIGIN_PAGES, &why) ==
	      -EINVAL);
	free(m.buf);
}

/* The ring: wraps, stays clear of the head, and a trimmed walk goes on. */
static void test_ring(void)
{
	struct mlog m;
	struct fc_olog_walk w;
	__u64 pos, n = 0, wrapped = 0, last = 0, epoch = 0;
	__u64 head = FC_OLOG_AREA_START, head_seq = 1;
	__u64 live_pos[64], live_len[64];
	int bad = 0, overlap = 0, round, nlive = 0, most = 0, i;

	mlog_init(&m, FC_OLOG_MIN_PAGES + 700);
	for (round = 0; round < 200; round++) {
		__u32 nr = (__u32)((round * 37) % 480) + 1;

		pos = mlog_write(&m, nr, (__u64)round, 3, FC_OLOG_REC_END, ++epoch);
		if (pos == ~0ULL) {
			/* full: apply all, move the head as the module does */
			mlog_walk(&m, head, head_seq, &w);
			if (w.done_seq != m.w.seq || w.done != m.w.pos)
				bad++;
			head = w.done;
			head_seq = w.done_seq;
			nlive = 0;
			fc_olog_walk_trim(&m.w);
			if (m.w.used || m.w.records)
				bad++;
			pos = mlog_write(&m, nr, (__u64)round, 3, FC_OLOG_REC_END, epoch);
			if (pos == ~0ULL)
				bad++;
		}
		if (pos + 1 + nr > m.pages)
			bad++;
		/* counted independently of the walk: no page of a record not applied reused */
		for (i = 0; i < nlive; i++)
			if (pos < live_pos[i] + live_len[i] && live_pos[i] < pos + 1 + nr)
				overlap++;
		if (nlive < 64) {
			live_pos[nlive] = pos;
			live_len[nlive++] = 1 + nr;
		}
		most = nlive > most ? nlive : most;
		if (pos < last)
			wrapped++;
		last = pos;
		n++;
		/* the walk from the head finds every record since, the newest last */
		mlog_walk(&m, head, head_seq, &w);
		if (w.done_seq != m.w.seq || w.epoch != epoch || w.used != m.w.used)
			bad++;
	}
	CHECK("ring: 200 records written, the ring wrapped", n == 200 && wrapped >= 5);
	CHECK("ring: no record past the end; every walk ends at the writer's last", bad == 0);
	CHECK("ring: no record over one not applied", overlap == 0 && most >= 4);
	/*
	 * Records of the lap before stay beyond the writer's position: the walk
	 * does not take them (their sequences are older).
	 */
	mlog_walk(&m, head, head_seq, &w);
	CHECK("ring: the walk stops at the lap before", w.seq == m.w.seq && w.records == m.w.records);
	/* a full ring: the writer has no room, the walk ends at the head */
	while (mlog_write(&m, 200, 0, 1, FC_OLOG_REC_END, ++epoch) != ~0ULL)
		;
	CHECK("ring: full, a one-page record still fits or not, never over the head",
	      m.w.used <= m.w.g.end - m.w.g.start);
	mlog_walk(&m, head, head_seq, &w);
	CHECK("ring: a full ring walked whole", w.done_seq == m.w.seq && w.used == m.w.used);
	free(m.buf);
}

/* Is @c[i] the last version of its block in @c[0..@end)?  Its dirty sub-blocks and theirs. */
static int newest(const struct fc_olog_cand *c, unsigned int i, unsigned int end, __u8 *mask)
{
	unsigned int j;

	for (j = i + 1; j < end; j++)
		if (c[j].oblock == c[i].oblock)
			return 0;
	*mask = 0;
	for (j = 0; j <= i; j++)
		if (c[j].oblock == c[i].oblock)
			*mask |= c[j].dirty;
	return 1;
}

/* The plan against a reference written the obvious way (quadratic). */
static unsigned int plan_ref(const struct fc_olog_cand *c, unsigned int n, __u32 pps, __u32 max,
			     __u32 *pages, __u8 *write, __u8 *mask)
{
	unsigned int end, i, best = 0;
	__u32 used, best_used = 0;
	__u8 m;

	for (end = 1; end <= n; end++) {
		if (end < n && c[end].epoch == c[end - 1].epoch)
			continue;	/* not the end of an epoch */
		used = 0;
		for (i = 0; i < end; i++)
			if (newest(c, i, end, &m))
				used += (__u32)__builtin_popcount(m) * pps;
		if (used > max)
			break;
		best = end;
		best_used = used;
	}
	for (i = 0; i < n; i++) {
		write[i] = i < best && newest(c, i, best, &mask[i]);
		if (!write[i])
			mask[i] = 0;
	}
	*pages = best_used;
	return best;
}

static void test_plan(void)
{
	struct fc_olog_cand c[64];
	__u32 scratch[128], pages, rp;
	__u8 w[64], m[64];
	unsigned int i, n, t, rt, bad = 0, cut = 0, full = 0, none = 0, dup = 0;
	int round;

	/* epochs 1, 1, 2, 3: block 5 rewritten in epoch 3 with one more sub-block */
	memset(c, 0, sizeof(c));
	c[0] = (struct fc_olog_cand){ .oblock = 5, .epoch = 1, .dirty = 0x03 };
	c[1] = (struct fc_olog_cand){ .oblock = 9, .epoch = 1, .dirty = 0x01 };
	c[2] = (struct fc_olog_cand){ .oblock = 2, .epoch = 2, .dirty = 0xff };
	c[3] = (struct fc_olog_cand){ .oblock = 5, .epoch = 3, .dirty = 0x04 };
	t = fc_olog_plan(c, 4, 1, 100, scratch, &pages);
	CHECK("plan: all epochs fit: all taken, the shadow carries nothing, the newest its union",
	      t == 4 && pages == 3 + 1 + 8 && !c[0].write && !c[0].mask && c[3].write &&
	      c[3].mask == 0x07 && c[1].write && c[2].write && c[2].mask == 0xff);
	t = fc_olog_plan(c, 4, 1, 11, scratch, &pages);
	CHECK("plan: the last epoch does not fit: the two before, the shadow then carries its data",
	      t == 3 && pages == 2 + 1 + 8 && c[0].write && c[0].mask == 0x03 && !c[3].write);
	t = fc_olog_plan(c, 4, 2, 5, scratch, &pages);
	CHECK("plan: the first epoch alone too large: nothing", t == 0 && pages == 0 &&
	      !c[0].write && !c[1].write);
	for (round = 0; round < 2000; round++) {
		unsigned long long r = 0x9e3779b97f4a7c15ULL * (round + 1);
		__u32 ep = 1;

		n = 1 + (unsigned int)(r % 60);
		for (i = 0; i < n; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((r >> 60) < 6)
				ep++;
			c[i].oblock = (r >> 20) % (round % 3 ? 12 : 200);
			c[i].epoch = ep;
			c[i].dirty = (__u8)((r >> 40) | 1);
			c[i].write = (__u8)(r >> 50);	/* garbage in: the plan sets it */
			c[i].mask = (__u8)(r >> 52);
		}
		rt = plan_ref(c, n, 2, (__u32)(r >> 33) % 120, &rp, w, m);
		t = fc_olog_plan(c, n, 2, (__u32)(r >> 33) % 120, scratch, &pages);
		if (t != rt || pages != rp)
			bad++;
		for (i = 0; i < n; i++)
			if (c[i].write != w[i] || c[i].mask != m[i])
				bad++;
		cut += t && t < n;
		full += t == n;
		none += !t;
		for (i = 0; i < t; i++)
			dup += !c[i].write;
	}
	CHECK("plan: 2000 random lists: the same plan as the reference", bad == 0);
	CHECK("plan: ... with cuts, whole lists, nothing and superseded versions among them",
	      cut > 100 && full > 100 && none > 50 && dup > 100);
}

int main(void)
{
	test_crc_steps();
	test_sb();
	test_records();
	test_ring();
	test_plan();
	return unit_failed;
}
