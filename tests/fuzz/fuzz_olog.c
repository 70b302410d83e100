// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the ordered log of engine/fc_olog.c.
 *
 * The input drives a writer: byte 0 the ring's size, then for each record
 * two bytes (its data pages, its flags), the records laid out by the
 * writer's own walk as the module lays them (fc_olog_walk_next(),
 * fc_olog_walk_fits(), fc_olog_rec_seal()), with an apply (the head moved
 * to the walk's done) whenever the ring is full; then the rest of the
 * input damages the image: (page, offset, xor) triples, some re-sealing
 * the header they hit.  Replay's walk (fc_olog_rec_check(), the data's
 * checksum, fc_olog_walk_fits(), fc_olog_walk_take()) then runs over the
 * image.  Invariants:
 *   - the walk takes a prefix of the records written since the head, each
 *     at the page and with the sequence the writer gave it, and stops at
 *     the first damaged one at the latest;
 *   - it never walks more than the ring, and what it applies (done) ends
 *     at a record flagged as a flush point;
 *   - an undamaged image is walked to the writer's last record;
 *   - the superblock check accepts the writer's superblock and refuses it
 *     at the other slot; fc_olog_plan() on candidates from the input takes
 *     whole epochs within its page budget, each block once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../include/fcache_olog.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_olog: invariant failed at line %d: %s\n", __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#define MAX_RECS	256
#define ORIGIN_PAGES	4096u

static const __u8 uuid[16] = { 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/*
 * Data pages stay zero unless damaged: the crc32c of n zero pages is
 * computed once (a run would otherwise spend its time in checksums of
 * megabytes, a few runs a second); a record with a damaged page is
 * checksummed for real.
 */
static __u32 zero_crc[FC_OLOG_REC_MAX + 1];
static __u8 *log_buf;

static void zero_crc_init(void)
{
	static __u8 zero[FC_PAGE_SIZE];
	unsigned int i;

	if (zero_crc[1])
		return;
	for (i = 1; i <= FC_OLOG_REC_MAX; i++)
		zero_crc[i] = fc_crc32c_update(zero_crc[i - 1], zero, FC_PAGE_SIZE);
}

#define MAX_DAMAGE	160
static __u64 damaged_page[MAX_DAMAGE];
static unsigned int ndamaged;

static bool page_damaged(__u64 first, __u32 n)
{
	unsigned int i;

	for (i = 0; i < ndamaged; i++)
		if (damaged_page[i] >= first && damaged_page[i] < first + n)
			return true;
	return false;
}

struct written {
	__u64 pos, seq;
};

static void plan(const uint8_t *d, size_t n)
{
	struct fc_olog_cand c[48];
	__u32 scratch[96], pages, max = n ? d[0] : 0, ep = 1;
	unsigned int i, k = 0, t, j;

	for (i = 1; i + 1 < n && k < 48; i += 2, k++) {
		ep += d[i] >> 7;
		c[k].oblock = d[i] & 15;
		c[k].epoch = ep;
		c[k].dirty = d[i + 1] | 1;
		c[k].write = d[i + 1] >> 4;
	}
	t = fc_olog_plan(c, k, 1, max, scratch, &pages);
	CHECK(t <= k && pages <= max);
	CHECK(t == 0 || t == k || c[t].epoch != c[t - 1].epoch);
	for (i = 0; i < t; i++) {
		CHECK(!c[i].write || (c[i].mask & c[i].dirty) == c[i].dirty);
		for (j = i + 1; j < t; j++)
			CHECK(!(c[i].write && c[j].write && c[i].oblock == c[j].oblock));
	}
	for (i = t; i < k; i++)
		CHECK(!c[i].write && !c[i].mask);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct written w[MAX_RECS];
	struct fc_olog_walk wr, rd;
	struct fc_olog_geo g;
	__u64 pages = FC_OLOG_MIN_PAGES + (size ? data[0] : 0) * 8u, pos, head = 2, head_seq = 1;
	size_t i = 1;
	unsigned int nw = 0, k, first = 0, nrec, last_end = 0;
	int damaged = 0;
	const char *why;
	__u8 *log;

	zero_crc_init();
	plan(data, size);
	if (fc_olog_geo_init(&g, pages))
		return 0;
	/* one buffer for every run, zero but where the last run wrote (cleaned below) */
	if (!log_buf)
		log_buf = calloc(FC_OLOG_MIN_PAGES + 255 * 8, FC_PAGE_SIZE);
	log = log_buf;
	if (!log)
		return 0;
	ndamaged = 0;
	fc_olog_sb_init(log, pages, ORIGIN_PAGES, uuid, 1);
	fc_olog_sb_seal(log, 0, 1);
	CHECK(!fc_olog_sb_check(log, 0, pages, &g, &why));
	CHECK(fc_olog_sb_check(log, 1, pages, &g, &why) == FC_ECHK_BLOCKNR);
	fc_olog_walk_start(&wr, &g, head, head_seq);
	nrec = size > 1 ? data[1] % 64 : 0;
	for (i = 2; nw < nrec && i + 1 < size && nw < MAX_RECS; i += 2) {
		struct fc_disk_olog_rec *r;
		__u32 nr = data[i] % (FC_OLOG_REC_MAX + 1), p, crc = 0;

		if (data[i] & 0x80)
			nr = FC_OLOG_REC_MAX - data[i] % 8;
		if (!fc_olog_walk_fits(&wr, nr)) {
			/* full: apply up to done, as the module does */
			head = wr.done;
			head_seq = wr.done_seq;
			fc_olog_walk_trim(&wr);
			while (first < nw && w[first].seq < head_seq)
				first++;
			if (!fc_olog_walk_fits(&wr, nr))
				nr = 0;
			if (!fc_olog_walk_fits(&wr, nr))
				break;
		}
		pos = fc_olog_walk_next(&wr);
		CHECK(pos != ~0ULL && pos + 1 + nr <= pages);
		r = (struct fc_disk_olog_rec *)(log + pos * FC_PAGE_SIZE);
		for (p = 0; p < nr; p++)
			r->page[p] = cpu_to_le64(p * 3 + (data[i + 1] & 3));
		crc = zero_crc[nr];
		fc_olog_rec_seal(r, pos, wr.seq, uuid, wr.seq, wr.seq,
				 nr, data[i + 1] & 0x10 ? 0 : FC_OLOG_REC_END, crc);
		w[nw].pos = pos;
		w[nw].seq = wr.seq;
		nw++;
		fc_olog_walk_take(&wr, r);
	}
	/* damage: (page, offset, xor) triples on pages of the records since the head */
	ndamaged = 0;
	for (; i + 3 < size && first < nw && ndamaged < MAX_DAMAGE; i += 4) {
		k = first + data[i] % (nw - first);
		pos = w[k].pos + (data[i + 1] & 1);
		if (pos >= pages || !data[i + 3])
			continue;
		log[pos * FC_PAGE_SIZE + (data[i + 2] * 16u + 4) % FC_PAGE_SIZE] ^= data[i + 3];
		if (ndamaged < MAX_DAMAGE)
			damaged_page[ndamaged++] = pos;
		if ((data[i + 1] & 2) && pos == w[k].pos) {
			/* a header with wrong fields but a good checksum */
			struct fc_disk_olog_rec *r = (void *)(log + pos * FC_PAGE_SIZE);

			fc_page_seal_version(r, FC_LR_MAGIC, FC_OLOG_VERSION, le64_to_cpu(r->hdr.blocknr),
					     le64_to_cpu(r->hdr.seq), r->hdr.uuid, 0);
		}
		damaged = 1;
	}
	/* replay's walk */
	fc_olog_walk_start(&rd, &g, head, head_seq);
	k = first;
	while ((pos = fc_olog_walk_next(&rd)) != ~0ULL) {
		const struct fc_disk_olog_rec *r = (const void *)(log + pos * FC_PAGE_SIZE);
		__u32 nr, p, crc = 0;

		if (fc_olog_rec_check(r, &g, pos, rd.seq, uuid, ORIGIN_PAGES, &why)) {
			CHECK(why && *why);
			break;
		}
		nr = le32_to_cpu(r->nr_pages);
		if (!fc_olog_walk_fits(&rd, nr))
			break;
		CHECK(pos + 1 + nr <= pages);
		if (!page_damaged(pos + 1, nr))
			crc = zero_crc[nr];
		for (p = 0; p < nr && page_damaged(pos + 1, nr); p++)
			crc = fc_crc32c_update(crc, log + (pos + 1 + p) * FC_PAGE_SIZE, FC_PAGE_SIZE);
		if (crc != le32_to_cpu(r->data_csum))
			break;
		/* a record taken is the writer's, in order, and not one damaged before it */
		CHECK(k < nw && w[k].pos == pos && w[k].seq == rd.seq);
		fc_olog_walk_take(&rd, r);
		CHECK(rd.used <= g.end - g.start);
		k++;
		if (le32_to_cpu(r->rflags) & FC_OLOG_REC_END)
			last_end = k;
	}
	if (!damaged)
		CHECK(k == nw && rd.seq == wr.seq && rd.used == wr.used);
	/* what replay applies ends at the last flush point it took */
	CHECK(rd.done_records == (last_end ? last_end - first : 0));
	for (k = 0; k < nw; k++)
		memset(log + w[k].pos * FC_PAGE_SIZE, 0, FC_PAGE_SIZE);
	for (k = 0; k < ndamaged; k++)
		memset(log + damaged_page[k] * FC_PAGE_SIZE, 0, FC_PAGE_SIZE);
	return 0;
}
