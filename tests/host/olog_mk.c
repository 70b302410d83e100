/*
 * olog_mk: write records into an ordered log image, as the module's writer
 * would (include/fcache_olog.h), for tests/host/ctl_olog.sh, and the image
 * the origin must hold once `fcachectl ordered-log replay` applied them.
 *
 *   olog_mk LOG ORIGIN_IN EXPECT_OUT NRECORDS SEED [group] [tear K | tearhdr K]
 *
 * The log must hold no records from its head (replayed before: refused
 * otherwise).  Records carry 1..max random origin pages, ascending, each
 * page stamped "olog seed S rec R page P"; every record ends a flush point
 * (FC_OLOG_REC_END) but with "group", where records come in groups of one
 * to three and only a group's last one has the flag.  "tear K" flips a byte
 * of record K's data after writing (K counted from 0), "tearhdr K" one of
 * its header: replay must stop there and apply only the flush points
 * before K's group.  A ring without room ends the writing early.
 * EXPECT_OUT is ORIGIN_IN with what replay must apply, computed from what
 * was written, not from a walk.  Prints: records W, applied A, epoch E,
 * pages P (the data pages of the A records).
 */
#include "fcache_olog.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long rnd_state;

static unsigned int rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rnd_state >> 33);
}

static void *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;

	if (!f || fseek(f, 0, SEEK_END) || (*len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	buf = malloc(*len ? *len : 1);
	if (!buf || fread(buf, 1, *len, f) != (size_t)*len)
		return NULL;
	fclose(f);
	return buf;
}

static int spill(const char *path, const void *buf, long len)
{
	FILE *f = fopen(path, "wb");

	return !f || fwrite(buf, 1, len, f) != (size_t)len || fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	__u8 *log, *orig, *pending, *sbp;
	struct fc_disk_olog_sb *sb;
	struct fc_olog_walk w;
	struct fc_olog_geo g;
	long log_len, orig_len;
	long nrec, tear = -1, k, applied = 0;
	int hdr_tear = 0, group = 0, left_in_group = 0, slot, i;
	__u64 origin_pages, pos, epoch = 0, ep_applied = 0, base_ns, pages = 0, pages_applied = 0;
	const char *why;

	if (argc < 6)
		return fprintf(stderr, "usage: olog_mk LOG ORIGIN_IN EXPECT_OUT NRECORDS SEED "
			       "[group] [tear K | tearhdr K]\n"), 2;
	nrec = atol(argv[4]);
	rnd_state = strtoull(argv[5], NULL, 0);
	for (i = 6; i < argc; i++) {
		if (!strcmp(argv[i], "group")) {
			group = 1;
		} else if (i + 1 < argc && (!strcmp(argv[i], "tear") || !strcmp(argv[i], "tearhdr"))) {
			hdr_tear = !strcmp(argv[i], "tearhdr");
			tear = atol(argv[++i]);
		} else {
			return fprintf(stderr, "olog_mk: unknown argument '%s'\n", argv[i]), 2;
		}
	}
	log = slurp(argv[1], &log_len);
	orig = slurp(argv[2], &orig_len);
	if (!log || !orig)
		return fprintf(stderr, "olog_mk: cannot read the images\n"), 2;
	slot = fc_olog_sb_pick(log, log + FC_PAGE_SIZE,
			       fc_olog_sb_check(log, 0, 0, &g, &why),
			       fc_olog_sb_check(log + FC_PAGE_SIZE, 1, 0, &g, &why));
	if (slot < 0)
		return fprintf(stderr, "olog_mk: no log superblock\n"), 2;
	sbp = log + slot * FC_PAGE_SIZE;
	sb = (struct fc_disk_olog_sb *)sbp;
	fc_olog_sb_check(sbp, slot, 0, &g, &why);
	origin_pages = le64_to_cpu(sb->origin_pages);
	if ((__u64)orig_len != origin_pages * FC_PAGE_SIZE)
		return fprintf(stderr, "olog_mk: the origin image is not the log's size\n"), 2;
	fc_olog_walk_start(&w, &g, le64_to_cpu(sb->head), le64_to_cpu(sb->head_seq));
	pos = fc_olog_walk_next(&w);
	if (pos != ~0ULL && !fc_olog_rec_check(log + pos * FC_PAGE_SIZE, &g, pos, w.seq,
					       sb->hdr.uuid, origin_pages, &why))
		return fprintf(stderr, "olog_mk: the log holds records: replay them first\n"), 2;
	/* the group being written, kept apart until its last record lands in orig */
	pending = malloc((size_t)orig_len);
	if (!pending)
		return 2;
	memcpy(pending, orig, orig_len);
	base_ns = ((__u64)time(NULL) - 3600) * 1000000000ULL;
	for (k = 0; k < nrec; k++) {
		struct fc_disk_olog_rec *r;
		__u32 nr = 1 + rnd() % (origin_pages < 60 ? (__u32)origin_pages : 60u), crc = 0, n;
		__u64 p, step;
		int end;

		if (k % 7 == 3)		/* now and then a record as large as they come */
			nr = FC_OLOG_REC_MAX < origin_pages ? FC_OLOG_REC_MAX : (__u32)origin_pages;
		if (group && !left_in_group)
			left_in_group = 1 + rnd() % 3;
		end = !group || left_in_group == 1;
		pos = fc_olog_walk_next(&w);
		if (pos == ~0ULL || !fc_olog_walk_fits(&w, nr))
			break;
		r = (struct fc_disk_olog_rec *)(log + pos * FC_PAGE_SIZE);
		step = origin_pages / nr;
		p = rnd() % (origin_pages - (nr - 1) * step);
		for (n = 0; n < nr; n++, p += step - (step > 1 && rnd() % 2)) {
			__u8 *d = log + (pos + 1 + n) * FC_PAGE_SIZE;

			r->page[n] = cpu_to_le64(p);
			for (i = 0; i < (int)FC_PAGE_SIZE; i += 64)
				snprintf((char *)d + i, 64, "olog seed %s rec %ld page %llu.%d", argv[5],
					 k, (unsigned long long)p, i);
			crc = fc_crc32c_update(crc, d, FC_PAGE_SIZE);
			memcpy(pending + p * FC_PAGE_SIZE, d, FC_PAGE_SIZE);
		}
		epoch += 1 + rnd() % 3;
		fc_olog_rec_seal(r, pos, w.seq, sb->hdr.uuid, epoch, base_ns + epoch * 1000000ULL,
				 nr, end ? FC_OLOG_REC_END : 0, crc);
		fc_olog_walk_take(&w, r);
		pages += nr;
		if (tear == k) {
			log[(hdr_tear ? pos : pos + 1 + nr / 2) * FC_PAGE_SIZE + 200] ^= 0x40;
			tear = -2;	/* nothing after it is applied */
		}
		if (end && tear != -2) {
			memcpy(orig, pending, orig_len);
			applied = k + 1;
			ep_applied = epoch;
			pages_applied = pages;
		}
		if (group)
			left_in_group--;
	}
	if (spill(argv[1], log, log_len) || spill(argv[3], orig, orig_len))
		return fprintf(stderr, "olog_mk: cannot write the images\n"), 2;
	printf("records %ld, applied %ld, epoch %llu, pages %llu\n", k, applied,
	       (unsigned long long)ep_applied, (unsigned long long)pages_applied);
	free(log);
	free(orig);
	free(pending);
	return 0;
}
