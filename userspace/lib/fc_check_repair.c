// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl check --repair (alias --clear-needs-check), after a check that
 * found no error: zero every leftover page slot (seq above md_seq) and
 * every unusable copy next to a used one, then write a superblock without
 * needs_check into the slot not in use, syncing after each step; and what
 * it did, for the report.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fc_check_int.h"
#include "fc_dev.h"
#include "fc_json.h"


static int write_page(struct ctx *c, uint64_t nr, const void *buf)
{
	ssize_t n = pwrite(c->fd, buf, FC_PAGE_SIZE, (off_t)(nr * FC_PAGE_SIZE));

	if (n != FC_PAGE_SIZE) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * Zero every leftover slot and every unusable copy next to a used one, then
 * write superblock N = (highest seq found on the flash) + 1 with md_seq N and neither needs_check nor clean, into the
 * slot that does not hold the superblock in use (include/fcache_format.h:
 * a torn write must leave the current one readable).  The caller has
 * checked the pool: no error.
 */
int chk_repair(struct ctx *c, struct repair *r)
{
	struct fc_disk_superblock *sb;
	void *page = fc_io_alloc(FC_PAGE_SIZE);
	uint64_t n, nr;
	size_t i;
	int slot;

	if (!page) {
		snprintf(r->failed, sizeof(r->failed), "out of memory");
		return -1;
	}
	if (c->max_seq >= UINT64_MAX - 2) {
		snprintf(r->failed, sizeof(r->failed),
			 "the sequence numbers are exhausted (%" PRIu64 ")", c->max_seq);
		goto fail;
	}
	memset(page, 0, FC_PAGE_SIZE);
	for (i = 0; i < c->lo.n; i++) {
		nr = fc_md_page_nr(c->lo.v[i].page, (unsigned int)c->lo.v[i].slot);
		if (write_page(c, nr, page)) {
			snprintf(r->failed, sizeof(r->failed),
				 "cannot zero leftover flash page %" PRIu64 ": %s", nr, strerror(errno));
			goto fail;
		}
		r->zeroed++;
	}
	for (i = 0; i < c->st.n; i++) {
		nr = fc_md_page_nr(c->st.v[i].page, (unsigned int)c->st.v[i].slot);
		if (write_page(c, nr, page)) {
			snprintf(r->failed, sizeof(r->failed),
				 "cannot zero the unusable copy in flash page %" PRIu64 ": %s", nr,
				 strerror(errno));
			goto fail;
		}
		r->zeroed_stale++;
	}
	if ((c->lo.n || c->st.n) && fdatasync(c->fd)) {
		snprintf(r->failed, sizeof(r->failed), "cannot sync the zeroed leftovers: %s",
			 strerror(errno));
		goto fail;
	}

	n = c->max_seq + 1;
	slot = !c->sb_slot;
	sb = page;
	memcpy(sb, &c->sb, sizeof(*sb));
	sb->md_seq = cpu_to_le64(n);
	sb->list_pages = 0;	/* this superblock names no page of its own */
	sb->incompat_features = cpu_to_le32(le32_to_cpu(sb->incompat_features) |
					    FC_FEAT_INCOMPAT_MDSEQ);
	sb->sb_flags = cpu_to_le32(le32_to_cpu(sb->sb_flags) &
				   ~(FC_SB_NEEDS_CHECK | FC_SB_CLEAN));
	fc_page_seal(sb, FC_SB_MAGIC, slot, n, c->sb.hdr.uuid);
	if (write_page(c, slot, sb) || fdatasync(c->fd)) {
		snprintf(r->failed, sizeof(r->failed),
			 "cannot write the superblock (slot %d): %s; the one in slot %d is still used",
			 slot, strerror(errno), c->sb_slot);
		goto fail;
	}
	r->seq = n;
	r->slot = slot;
	r->done = 1;
	free(page);
	return 0;
fail:
	free(page);
	return -1;
}

void chk_repair_json(struct ctx *c, struct repair *r, struct fc_json *j)
{
	fj_obj(j, "clear_needs_check");
	fj_bool(j, "done", r->done);
	if (c->not_a_pool)
		fj_str(j, "refused", "not an fcache pool; nothing was written");
	else if (c->errors && !r->failed[0])
		fj_str(j, "refused", "the check found errors; nothing was written");
	if (r->failed[0])
		fj_str(j, "error", r->failed);
	fj_bool(j, "needs_check_was_set", r->had_needs_check);
	fj_u64(j, "zeroed_leftovers", r->zeroed);
	fj_u64(j, "zeroed_unusable_copies", r->zeroed_stale);
	if (r->done) {
		fj_u64(j, "superblock_seq", r->seq);
		fj_u64(j, "superblock_slot", (uint64_t)r->slot);
	}
	fj_end(j);
}

void chk_repair_text(struct ctx *c, struct repair *r, FILE *out)
{
	if (r->zeroed_stale)
		fprintf(out, "%s: zeroed %zu unusable page copies next to used ones\n", c->name,
			r->zeroed_stale);
	if (r->failed[0])
		fprintf(out, "%s: clearing needs_check FAILED: %s (zeroed %zu leftover page slots first)\n",
			c->name, r->failed, r->zeroed);
	else if (c->not_a_pool)
		fprintf(out, "%s: not an fcache pool: nothing to repair, nothing was written\n",
			c->name);
	else if (!r->done)
		fprintf(out, "%s: not clearing needs_check: the check found %d errors; nothing was written\n",
			c->name, c->errors);
	else
		fprintf(out, "%s: %s; zeroed %zu leftover page slots; superblock seq %" PRIu64 " (slot %d)\n",
			c->name, r->had_needs_check ? "cleared needs_check" :
			"needs_check was not set (superblock rewritten anyway)",
			r->zeroed, r->seq, r->slot);
}
