// SPDX-License-Identifier: GPL-2.0
/*
 * The report of fcachectl check and dump: the summary, the problems and the
 * entries, as text or as JSON (schemas fcache.check and fcache.dump in
 * docs/JSON.md), the outcome that gives the exit status, and the entry
 * points fc_check_fd(), fc_repair_fd() that run the checker (fc_check.c)
 * and, for --repair, fc_check_repair.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "fc_check_int.h"
#include "fc_json.h"

static void json_sb(struct ctx *c, struct fc_json *j)
{
	char u[40];
	uint32_t fl = le32_to_cpu(c->sb.sb_flags);

	chk_hex(u, c->sb.hdr.uuid, 16);
	fj_obj(j, "superblock");
	fj_i64(j, "slot", c->sb_slot);
	fj_u64(j, "seq", c->S);
	fj_u64(j, "md_seq", c->M);
	fj_bool(j, "md_seq_feature",
		!!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_MDSEQ));
	fj_bool(j, "warm_feature",
		!!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_WARM));
	fj_bool(j, "ordered_feature",
		!!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_ORDERED));
	fj_bool(j, "ordered_log_feature",
		!!(le32_to_cpu(c->sb.incompat_features) & FC_FEAT_INCOMPAT_OLOG));
	fj_u64(j, "commit_pages", fc_sb_list_len(&c->sb));
	fj_str(j, "uuid", u);
	fj_u64(j, "block_sectors", le32_to_cpu(c->sb.block_sectors));
	fj_u64(j, "subblock_sectors", le32_to_cpu(c->sb.subblock_sectors));
	fj_u64(j, "nr_blocks", le64_to_cpu(c->sb.nr_blocks));
	fj_u64(j, "data_start", le64_to_cpu(c->sb.data_start));
	fj_u64(j, "md_pages", le64_to_cpu(c->sb.md_pages));
	fj_u64(j, "flash_sectors", le64_to_cpu(c->sb.flash_sectors));
	fj_bool(j, "clean", !!(fl & FC_SB_CLEAN));
	fj_bool(j, "needs_check", !!(fl & FC_SB_NEEDS_CHECK));
	fj_u64(j, "format_time", le64_to_cpu(c->sb.format_time));
	if (c->mirrored) {
		fj_obj(j, "mirror");
		fj_u64(j, "leg", le32_to_cpu(c->sb.member_index));
		chk_hex(u, c->sb.member_uuid, 16);
		fj_str(j, "member_uuid", u);
		chk_hex(u, c->sb.partner_uuid, 16);
		fj_str(j, "partner_uuid", u);
		fj_u64(j, "events", le64_to_cpu(c->sb.events));
		fj_u64(j, "failed_legs", le32_to_cpu(c->sb.failed_legs));
		fj_arr(j, "leg_blocks");
		fj_u64(j, NULL, le64_to_cpu(c->sb.leg_blocks[0]));
		fj_u64(j, NULL, le64_to_cpu(c->sb.leg_blocks[1]));
		fj_end(j);
		fj_arr(j, "leg_sectors");
		fj_u64(j, NULL, le64_to_cpu(c->sb.leg_sectors[0]));
		fj_u64(j, NULL, le64_to_cpu(c->sb.leg_sectors[1]));
		fj_end(j);
		fj_end(j);
	}
	fj_end(j);
}

/* "none", "leg 1", "legs 0 and 1" */
static const char *failed_str(uint32_t f)
{
	f &= 3;
	return f == 0 ? "none" : f == 1 ? "leg 0" : f == 2 ? "leg 1" : "legs 0 and 1";
}

static void json_volumes(struct ctx *c, struct fc_json *j)
{
	unsigned int i;
	char lab[FC_VOLUME_LABEL_LEN + 1];

	fj_arr(j, "volumes");
	for (i = 0; c->vt_ok && i < FC_VT_SLOTS; i++) {
		const struct fc_disk_volume *v = &c->vt.vol[i];

		if (!chk_vol_in_use(c, i))
			continue;
		chk_label(lab, v);
		fj_obj(j, NULL);
		fj_u64(j, "slot", i);
		fj_u64(j, "id", le32_to_cpu(v->id));
		fj_str(j, "label", lab);
		fj_u64(j, "origin_sectors", le64_to_cpu(v->origin_sectors));
		fj_u64(j, "dirty_blocks_hint", le64_to_cpu(v->dirty_blocks));
		fj_bool(j, "detached", !!(le32_to_cpu(v->flags) & FC_VOL_DETACHED));
		fj_u64(j, "cached_blocks", c->vi[i].cached);
		fj_u64(j, "dirty_blocks", c->vi[i].dirty_blocks);
		fj_u64(j, "dirty_bytes", c->vi[i].dirty_sub * c->g.subblock_sectors * 512);
		fj_end(j);
	}
	fj_end(j);
}

static void json_leftovers(struct ctx *c, struct fc_json *j)
{
	size_t i;

	fj_u64(j, "leftovers", c->lo.n);
	fj_arr(j, "leftover_slots");
	for (i = 0; i < c->lo.n; i++) {
		fj_obj(j, NULL);
		fj_u64(j, "page", c->lo.v[i].page);
		fj_u64(j, "slot", (uint64_t)c->lo.v[i].slot);
		fj_u64(j, "seq", c->lo.v[i].seq);
		fj_bool(j, "needs_check", !!(c->lo.v[i].hdr_flags & FC_HDR_NEEDS_CHECK));
		fj_end(j);
	}
	fj_end(j);
}

static void json_problems(struct ctx *c, struct fc_json *j)
{
	int i;

	fj_arr(j, "problems");
	for (i = 0; i < c->nmsgs; i++) {
		fj_obj(j, NULL);
		fj_str(j, "severity", c->msgs[i].error ? "error" : "warning");
		fj_str(j, "kind", c->msgs[i].kind);
		fj_str(j, "message", c->msgs[i].msg);
		fj_end(j);
	}
	fj_end(j);
}

static void text_problems(struct ctx *c, FILE *out)
{
	int i;

	for (i = 0; i < c->nmsgs; i++)
		fprintf(out, "%s: %s\n", c->msgs[i].error ? "error" : "warning", c->msgs[i].msg);
	if (c->errors + c->warnings > c->nmsgs)
		fprintf(out, "... and %d more problems\n", c->errors + c->warnings - c->nmsgs);
}

static void text_summary(struct ctx *c, FILE *out)
{
	char u[40];
	unsigned int i;
	uint32_t fl = le32_to_cpu(c->sb.sb_flags);
	char lab[FC_VOLUME_LABEL_LEN + 1];

	chk_hex(u, c->sb.hdr.uuid, 16);
	fprintf(out, "pool %s: uuid %s, seq %" PRIu64 " (superblock slot %d), md_seq %" PRIu64 ", %s%s\n",
		c->name, u, c->S, c->sb_slot, c->M,
		fl & FC_SB_CLEAN ? "shut down cleanly" : "not shut down cleanly",
		(fl & FC_SB_NEEDS_CHECK) || c->lo_needs_check ? ", needs_check" : "");
	fprintf(out, "  block %u sectors (%u KiB), sub-block %u sectors, %" PRIu64 " blocks, data at sector %" PRIu64 ", %" PRIu64 " metadata pages\n",
		c->g.block_sectors, c->g.block_sectors / 2, c->g.subblock_sectors, c->g.nr_blocks,
		c->g.data_start, c->g.md_pages);
	fprintf(out, "  %" PRIu64 " blocks in use, %" PRIu64 " dirty\n", c->used, c->dirty);
	if (c->mirrored) {
		char p[40], m[40];
		unsigned int me = le32_to_cpu(c->sb.member_index);

		chk_hex(m, c->sb.member_uuid, 16);
		chk_hex(p, c->sb.partner_uuid, 16);
		fprintf(out, "  mirrored pool: this device is leg %u (member %s), its partner is leg %u (member %s)\n",
			me, m, !me, p);
		fprintf(out, "  events %" PRIu64 ", failed legs: %s; leg 0: %" PRIu64 " blocks, leg 1: %" PRIu64 " blocks\n",
			le64_to_cpu(c->sb.events), failed_str(le32_to_cpu(c->sb.failed_legs)),
			le64_to_cpu(c->sb.leg_blocks[0]), le64_to_cpu(c->sb.leg_blocks[1]));
		fprintf(out, "  dirty blocks: %" PRIu64 " with a twin on the other leg, %" PRIu64 " with one copy only\n",
			c->mirrored_dirty, c->lone_dirty);
	}
	if (c->lo.n)
		fprintf(out, "  %zu leftover page slots above md_seq (harmless: never used, overwritten by the next commit)\n",
			c->lo.n);
	if (!c->vt_ok) {
		fprintf(out, "  volume table unreadable\n");
		return;
	}
	for (i = 0; i < FC_VT_SLOTS; i++) {
		const struct fc_disk_volume *v = &c->vt.vol[i];

		if (!chk_vol_in_use(c, i))
			continue;
		chk_label(lab, v);
		fprintf(out, "  volume slot %u: id %u, label '%s', %" PRIu64 " sectors, %" PRIu64 " cached blocks, %" PRIu64 " dirty blocks (%" PRIu64 " KiB dirty)\n",
			i, le32_to_cpu(v->id), lab, le64_to_cpu(v->origin_sectors), c->vi[i].cached,
			c->vi[i].dirty_blocks, c->vi[i].dirty_sub * c->g.subblock_sectors / 2);
		if (le32_to_cpu(v->flags) & FC_VOL_DETACHED)
			fprintf(out, "    detached at run time (not by fcachectl): a new table is refused while it has dirty data; fcachectl resolve --replay|--discard\n");
	}
}

struct dump_arg {
	FILE *out;
	struct fc_json *j;
};

static void dump_cb(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg)
{
	struct dump_arg *d = arg;

	if (!e->valid && !e->dirty)
		return;
	(void)c;
	if (d->j) {
		fj_obj(d->j, NULL);
		fj_u64(d->j, "block", idx);
		fj_u64(d->j, "volume_slot", e->vol);
		fj_u64(d->j, "oblock", le64_to_cpu(e->oblock));
		fj_u64(d->j, "valid", e->valid);
		fj_u64(d->j, "dirty", e->dirty);
		fj_u64(d->j, "flags", e->flags);
		if (e->flags & FC_ENTRY_MIRRORED)
			fj_u64(d->j, "twin", le32_to_cpu(e->twin));
		fj_end(d->j);
	} else if (e->flags & FC_ENTRY_MIRRORED) {
		fprintf(d->out, "  %10" PRIu64 " %5u %14" PRIu64 "   0x%02x  0x%02x  twin %u\n", idx, e->vol,
			le64_to_cpu(e->oblock), e->valid, e->dirty, le32_to_cpu(e->twin));
	} else {
		fprintf(d->out, "  %10" PRIu64 " %5u %14" PRIu64 "   0x%02x  0x%02x\n", idx, e->vol,
			le64_to_cpu(e->oblock), e->valid, e->dirty);
	}
}

static const char *const outcome_names[] = {
	[FC_CHECK_CLEAN] = "clean",
	[FC_CHECK_LEFTOVERS] = "leftovers",
	[FC_CHECK_DAMAGED] = "damaged",
	[FC_CHECK_NOT_A_POOL] = "not_a_pool",
};

const char *fc_check_outcome_str(enum fc_check_outcome o)
{
	return (unsigned int)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ?
	       outcome_names[o] : "damaged";
}

enum fc_check_outcome chk_outcome(const struct ctx *c)
{
	if (c->not_a_pool)
		return FC_CHECK_NOT_A_POOL;
	if (c->errors)
		return FC_CHECK_DAMAGED;
	if (c->lo.n || c->st.n || c->stale_seen || c->sb_other_bad)
		return FC_CHECK_LEFTOVERS;
	return FC_CHECK_CLEAN;
}

void chk_report_json(struct ctx *c, int ok_sb, enum fc_check_out what, struct fc_json *j)
{
	struct dump_arg d;

	fj_str(j, "device", c->name);
	fj_bool(j, "clean", !c->errors);
	fj_i64(j, "errors", c->errors);
	fj_i64(j, "warnings", c->warnings);
	fj_str(j, "outcome", fc_check_outcome_str(chk_outcome(c)));
	json_problems(c, j);
	if (!ok_sb)
		return;
	json_sb(c, j);
	fj_bool(j, "needs_check", (le32_to_cpu(c->sb.sb_flags) & FC_SB_NEEDS_CHECK) || c->lo_needs_check);
	json_leftovers(c, j);
	fj_u64(j, "used_blocks", c->used);
	fj_u64(j, "dirty_blocks", c->dirty);
	if (c->mirrored) {
		fj_u64(j, "mirrored_dirty_blocks", c->mirrored_dirty);
		fj_u64(j, "lone_dirty_blocks", c->lone_dirty);
	}
	fj_u64(j, "lost_pages", c->lost_pages);
	json_volumes(c, j);
	if (what == FC_OUT_DUMP) {
		d.out = NULL;
		d.j = j;
		fj_arr(j, "entries");
		chk_walk_entries(c, dump_cb, &d, 0);
		fj_end(j);
	}
}

void chk_report_text(struct ctx *c, int ok_sb, enum fc_check_out what, FILE *out)
{
	enum fc_check_outcome oc = chk_outcome(c);
	const char *name = c->name;
	struct dump_arg d;

	if (ok_sb)
		text_summary(c, out);
	if (ok_sb && what == FC_OUT_DUMP) {
		d.out = out;
		d.j = NULL;
		fprintf(out, "entries (in use):\n       block  slot         oblock  valid  dirty\n");
		chk_walk_entries(c, dump_cb, &d, 0);
	}
	text_problems(c, out);
	if (what == FC_OUT_CHECK && oc == FC_CHECK_NOT_A_POOL)
		fprintf(out, "%s: not an fcache pool: the device holds no fcache metadata\n",
			name);
	else if (what == FC_OUT_CHECK && oc == FC_CHECK_LEFTOVERS)
		fprintf(out, "%s: metadata clean (%d errors, %d warnings), with harmless leftovers of interrupted commits ('fcachectl check --repair' drops them)\n",
			name, c->errors, c->warnings);
	else if (what == FC_OUT_CHECK)
		fprintf(out, "%s: %s (%d errors, %d warnings)\n", name,
			c->errors ? "metadata DAMAGED" : "metadata clean", c->errors, c->warnings);
}

static int run(int fd, const char *name, enum fc_check_out what, int json, FILE *out,
	       struct repair *rep, enum fc_check_outcome *res)
{
	struct ctx *c = chk_open(fd, name);
	struct fc_json j;
	int ok_sb, rc;

	if (res)
		*res = FC_CHECK_DAMAGED;
	if (!c)
		return 1;
	ok_sb = chk_all(c);
	rc = c->errors ? 1 : 0;
	if (res)
		*res = chk_outcome(c);
	if (rep && ok_sb)
		rep->had_needs_check = (le32_to_cpu(c->sb.sb_flags) & FC_SB_NEEDS_CHECK) ||
				       c->lo_needs_check;
	if (rep && ok_sb && !rc && chk_repair(c, rep))
		rc = 2;

	if (json) {
		fj_init(&j, out);
		fj_obj(&j, NULL);
		fj_schema(&j, what == FC_OUT_DUMP ? "fcache.dump" : "fcache.check");
		chk_report_json(c, ok_sb, what, &j);
		if (rep)
			chk_repair_json(c, rep, &j);
		fj_end(&j);
	} else {
		chk_report_text(c, ok_sb, what, out);
		if (rep)
			chk_repair_text(c, rep, out);
	}
	chk_close(c);
	return rc;
}

int fc_check_fd_outcome(int fd, const char *name, enum fc_check_out what, int json, FILE *out,
			enum fc_check_outcome *outcome)
{
	return run(fd, name, what, json, out, NULL, outcome);
}

int fc_check_fd(int fd, const char *name, enum fc_check_out what, int json, FILE *out)
{
	return run(fd, name, what, json, out, NULL, NULL);
}

int fc_repair_fd(int fd, const char *name, int json, FILE *out, enum fc_check_outcome *outcome)
{
	struct repair r;

	memset(&r, 0, sizeof(r));
	return run(fd, name, FC_OUT_CHECK, json, out, &r, outcome);
}

int fc_clear_needs_check_fd(int fd, const char *name, int json, FILE *out)
{
	return fc_repair_fd(fd, name, json, out, NULL);
}
