// SPDX-License-Identifier: GPL-2.0
/*
 * The ordered log's format (include/fcache_olog.h): its superblock, its
 * record headers and the walk of its ring.  Pure logic shared by
 * dm-fcache and fcachectl; no I/O, no allocation.
 */
#include "../include/fcache_olog.h"

/* fc_page_verify() with the log's version; a header with flags is of a later one. */
static int olog_verify(const void *page, __u32 magic, __u64 blocknr, const __u8 *uuid)
{
	const struct fc_disk_header *h = page;
	int err = fc_page_verify_version(page, magic, FC_OLOG_VERSION, blocknr, uuid);

	return !err && h->flags ? FC_ECHK_VERSION : err;
}

int fc_olog_geo_init(struct fc_olog_geo *g, __u64 log_pages)
{
	if (log_pages < FC_OLOG_MIN_PAGES)
		return -EINVAL;
	g->start = FC_OLOG_AREA_START;
	g->end = log_pages;
	g->rec_max = FC_OLOG_REC_MAX;
	return 0;
}

__u64 fc_olog_rec_place(const struct fc_olog_geo *g, __u64 pos)
{
	if (pos < g->start || pos + 1 + g->rec_max > g->end)
		return g->start;
	return pos;
}

void fc_olog_sb_init(void *sb, __u64 log_pages, __u64 origin_pages, const __u8 uuid[16],
		     __u64 now_sec)
{
	struct fc_disk_olog_sb *s = sb;

	memset(sb, 0, FC_PAGE_SIZE);
	memcpy(s->hdr.uuid, uuid, sizeof(s->hdr.uuid));
	s->log_pages = cpu_to_le64(log_pages);
	s->origin_pages = cpu_to_le64(origin_pages);
	s->rec_max = cpu_to_le32(FC_OLOG_REC_MAX);
	s->head = cpu_to_le64(FC_OLOG_AREA_START);
	s->head_seq = cpu_to_le64(1);
	s->format_time = cpu_to_le64(now_sec);
}

void fc_olog_sb_seal(void *sb, unsigned int slot, __u64 seq)
{
	struct fc_disk_olog_sb *s = sb;

	fc_page_seal_version(sb, FC_LS_MAGIC, FC_OLOG_VERSION, slot, seq, s->hdr.uuid, 0);
}

int fc_olog_sb_check(const void *sb, unsigned int slot, __u64 dev_pages,
		     struct fc_olog_geo *g, const char **why)
{
	const struct fc_disk_olog_sb *s = sb;
	__u64 pages = le64_to_cpu(s->log_pages), head = le64_to_cpu(s->head);
	int err = olog_verify(sb, FC_LS_MAGIC, slot, NULL);

	if (err) {
		*why = fc_echk_str(err);
		return err;
	}
	*why = NULL;
	if (fc_olog_geo_init(g, pages))
		*why = "log smaller than the least a log takes";
	else if (dev_pages && pages > dev_pages)
		*why = "log larger than its device (the device shrank?)";
	else if (le32_to_cpu(s->rec_max) != FC_OLOG_REC_MAX)
		*why = "record size this version does not know";
	else if (s->flags)
		*why = "log flags this version does not know";
	else if (!s->origin_pages)
		*why = "no origin size";
	else if (head != fc_olog_rec_place(g, head))
		*why = "head outside the record area";
	else if (!s->head_seq)
		*why = "head sequence 0";
	return *why ? -EINVAL : 0;
}

int fc_olog_sb_pick(const void *sb0, const void *sb1, int err0, int err1)
{
	const struct fc_disk_olog_sb *a = sb0, *b = sb1;

	if (err0)
		return err1 ? -1 : 1;
	if (err1)
		return 0;
	if (memcmp(a->hdr.uuid, b->hdr.uuid, sizeof(a->hdr.uuid)))
		return -2;
	return le64_to_cpu(b->hdr.seq) > le64_to_cpu(a->hdr.seq);
}

void fc_olog_rec_seal(void *rec, __u64 pos, __u64 seq, const __u8 uuid[16], __u64 epoch,
		      __u64 time_ns, __u32 nr_pages, __u32 rflags, __u32 data_csum)
{
	struct fc_disk_olog_rec *r = rec;
	size_t used = sizeof(*r) + (size_t)nr_pages * sizeof(r->page[0]);

	r->epoch = cpu_to_le64(epoch);
	r->time = cpu_to_le64(time_ns);
	r->nr_pages = cpu_to_le32(nr_pages);
	r->rflags = cpu_to_le32(rflags);
	r->data_csum = cpu_to_le32(data_csum);
	r->pad = 0;
	if (used < FC_PAGE_SIZE)
		memset((__u8 *)rec + used, 0, FC_PAGE_SIZE - used);
	fc_page_seal_version(rec, FC_LR_MAGIC, FC_OLOG_VERSION, pos, seq, uuid, 0);
}

int fc_olog_rec_check(const void *rec, const struct fc_olog_geo *g, __u64 pos, __u64 seq,
		      const __u8 uuid[16], __u64 origin_pages, const char **why)
{
	const struct fc_disk_olog_rec *r = rec;
	__u32 i, nr = le32_to_cpu(r->nr_pages);
	int err = olog_verify(rec, FC_LR_MAGIC, pos, uuid);

	if (err) {
		*why = fc_echk_str(err);
		return err;
	}
	if (le64_to_cpu(r->hdr.seq) != seq) {
		*why = "not the next sequence (a record of an earlier lap)";
		return -EINVAL;
	}
	if (nr > g->rec_max || pos + 1 + nr > g->end) {
		*why = "more pages than a record holds";
		return -EINVAL;
	}
	if (le32_to_cpu(r->rflags) & ~FC_OLOG_REC_END) {
		*why = "record flags this version does not know";
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		__u64 p = le64_to_cpu(r->page[i]);

		if (p >= origin_pages || (i && p <= le64_to_cpu(r->page[i - 1]))) {
			*why = p >= origin_pages ? "page past the origin's end"
						 : "pages not ascending";
			return -EINVAL;
		}
	}
	*why = NULL;
	return 0;
}

void fc_olog_walk_start(struct fc_olog_walk *w, const struct fc_olog_geo *g, __u64 head,
			__u64 head_seq)
{
	memset(w, 0, sizeof(*w));
	w->g = *g;
	w->pos = fc_olog_rec_place(g, head);
	w->seq = head_seq;
	w->done = w->pos;
	w->done_seq = head_seq;
}

bool fc_olog_walk_fits(const struct fc_olog_walk *w, __u32 nr_pages)
{
	return nr_pages <= w->g.rec_max && w->used + 1 + nr_pages <= w->g.end - w->g.start;
}

__u64 fc_olog_walk_next(const struct fc_olog_walk *w)
{
	return fc_olog_walk_fits(w, 0) ? w->pos : ~0ULL;
}

/*
 * The walk's position is always a record's place: the pages a wrap skips
 * count as walked as soon as the record before them is taken (no record
 * can use them before the head has passed them).
 */
void fc_olog_walk_take(struct fc_olog_walk *w, const void *rec)
{
	const struct fc_disk_olog_rec *r = rec;
	__u64 end = w->pos + 1 + le32_to_cpu(r->nr_pages), next = fc_olog_rec_place(&w->g, end);

	w->used += (next == end ? end : w->g.end) - w->pos;
	w->pos = next;
	w->seq++;
	w->records++;
	if (le32_to_cpu(r->rflags) & FC_OLOG_REC_END) {
		w->done = w->pos;
		w->done_seq = w->seq;
		w->done_records = w->records;
		w->done_used = w->used;
		w->epoch = le64_to_cpu(r->epoch);
		w->time = le64_to_cpu(r->time);
	}
}

void fc_olog_walk_trim(struct fc_olog_walk *w)
{
	w->used -= w->done_used;
	w->records -= w->done_records;
	w->done_used = 0;
	w->done_records = 0;
}
