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

void fc_olog_sb_set_head(void *sb, const struct fc_olog_walk *w)
{
	struct fc_disk_olog_sb *s = sb;

	s->head = cpu_to_le64(w->done);
	s->head_seq = cpu_to_le64(w->done_seq);
	s->applied_epoch = cpu_to_le64(w->epoch);
	s->applied_time = cpu_to_le64(w->time);
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

void fc_olog_scan(struct fc_olog_scan *s, const struct fc_olog_io *io, const void *sb,
		  const struct fc_olog_geo *g, __u64 upto)
{
	const struct fc_disk_olog_sb *lsb = sb;
	const struct fc_disk_olog_rec *r = io->rec;
	__u64 origin_pages = le64_to_cpu(lsb->origin_pages), pos, walked = 0;
	__u32 nr;

	memset(s, 0, sizeof(*s));
	fc_olog_walk_start(&s->w, g, le64_to_cpu(lsb->head), le64_to_cpu(lsb->head_seq));
	s->stop = FC_OLOG_STOP_WHOLE;
	while ((pos = fc_olog_walk_next(&s->w)) != ~0ULL) {
		s->stop_pos = pos;
		s->stop_seq = s->w.seq;
		if (s->w.records == upto) {
			s->stop = FC_OLOG_STOP_UPTO;
			return;
		}
		s->err = io->read(io->ctx, io->rec, pos, 1);
		if (s->err) {
			s->stop = FC_OLOG_STOP_HDR_READ;
			return;
		}
		if (fc_olog_rec_check(r, g, pos, s->w.seq, lsb->hdr.uuid, origin_pages, &s->why)) {
			s->stop = FC_OLOG_STOP_RECORD;
			return;
		}
		nr = le32_to_cpu(r->nr_pages);
		if (!fc_olog_walk_fits(&s->w, nr)) {
			s->stop = FC_OLOG_STOP_HEAD;
			return;
		}
		s->err = nr ? io->read(io->ctx, io->data, pos + 1, nr) : 0;
		if (s->err) {
			s->stop = FC_OLOG_STOP_DATA_READ;
			return;
		}
		if (fc_crc32c_update(0, io->data, (size_t)nr * FC_PAGE_SIZE) !=
		    le32_to_cpu(r->data_csum)) {
			s->stop = FC_OLOG_STOP_TORN;
			return;
		}
		if (io->apply) {
			s->err = io->apply(io->ctx, r, io->data);
			if (s->err) {
				s->stop = FC_OLOG_STOP_APPLY;
				return;
			}
		}
		fc_olog_walk_take(&s->w, r);
		walked += nr;
		if (s->w.done_records == s->w.records)
			s->pages = walked;	/* up to the last flush point taken */
	}
}

bool fc_olog_scan_read_error(const struct fc_olog_scan *s)
{
	return s->stop == FC_OLOG_STOP_HDR_READ || s->stop == FC_OLOG_STOP_DATA_READ;
}

static unsigned int popcount8(__u8 m)
{
	unsigned int k = 0;

	for (; m; m &= m - 1)
		k++;
	return k;
}

/* Order of candidate indices: by origin block, then by position (epoch order). */
static bool cand_before(const struct fc_olog_cand *c, __u32 a, __u32 b)
{
	return c[a].oblock < c[b].oblock || (c[a].oblock == c[b].oblock && a < b);
}

static void sift_down(const struct fc_olog_cand *c, __u32 *x, unsigned int i, unsigned int n)
{
	unsigned int k;
	__u32 t;

	while ((k = 2 * i + 1) < n) {
		if (k + 1 < n && cand_before(c, x[k], x[k + 1]))
			k++;
		if (!cand_before(c, x[i], x[k]))
			return;
		t = x[i];
		x[i] = x[k];
		x[k] = t;
		i = k;
	}
}

/* Heapsort @x[0..@n) by cand_before() (no allocation, no libc). */
static void sort_cands(const struct fc_olog_cand *c, __u32 *x, unsigned int n)
{
	unsigned int i;
	__u32 t;

	for (i = n / 2; i-- > 0;)
		sift_down(c, x, i, n);
	for (i = n; i-- > 1;) {
		t = x[0];
		x[0] = x[i];
		x[i] = t;
		sift_down(c, x, 0, i);
	}
}

unsigned int fc_olog_plan(struct fc_olog_cand *c, unsigned int n, __u32 pages_per_sub,
			  __u32 max, __u32 *scratch, __u32 *pages)
{
	__u32 *prev = scratch, *ord = scratch + n, used = 0, used_ok = 0;
	unsigned int i, take = 0;

	/* prev[i]: the version before @c[i] of its block, or ~0 */
	for (i = 0; i < n; i++)
		ord[i] = i;
	sort_cands(c, ord, n);
	for (i = 0; i < n; i++)
		prev[ord[i]] = i && c[ord[i - 1]].oblock == c[ord[i]].oblock ? ord[i - 1] : ~0u;
	/* the pages of the newest version of each block so far, epoch by epoch */
	for (i = 0; i < n; i++) {
		if (i && c[i].epoch != c[i - 1].epoch) {
			if (used > max)
				break;
			take = i;
			used_ok = used;
		}
		c[i].mask = c[i].dirty;
		if (prev[i] != ~0u) {
			used -= popcount8(c[prev[i]].mask) * pages_per_sub;
			c[i].mask |= c[prev[i]].mask;
		}
		used += popcount8(c[i].mask) * pages_per_sub;
	}
	if (i == n && used <= max) {
		take = n;
		used_ok = used;
	}
	/* the newest version taken of each block carries the data; the older carry none */
	for (i = 0; i < take; i++)
		c[i].write = 1;
	for (i = 0; i < take; i++)
		if (prev[i] != ~0u)
			c[prev[i]].write = 0;
	for (i = 0; i < n; i++) {
		if (!c[i].write || i >= take) {
			c[i].mask = 0;
			c[i].write = 0;
		}
	}
	*pages = take ? used_ok : 0;
	return take;
}
