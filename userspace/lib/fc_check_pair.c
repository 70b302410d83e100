// SPDX-License-Identifier: GPL-2.0
/*
 * The two devices of a mirrored pool, offline: whether the kernel would
 * load them together (fc_pair_verdict(), the rules of pick_legs() in
 * kmod/fc_load.c, also used by 'pool create' before it asks the kernel),
 * and 'fcachectl check DEV1 DEV2': a check of each device and of the pair,
 * including whether two legs at the same commit hold the same committed
 * metadata (they are written identically by every commit).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "fc_check_int.h"
#include "fc_json.h"

#define PAIR_NOT_A_POOL 3	/* as check: exit 3, no fcache metadata */

static const char *const verdict_names[] = {
	[FC_PAIR_IN_SYNC] = "in_sync",
	[FC_PAIR_LAGGING] = "lagging",
	[FC_PAIR_STALE] = "stale",
	[FC_PAIR_SPLIT_BRAIN] = "split_brain",
	[FC_PAIR_FOREIGN] = "foreign",
	[FC_PAIR_SAME_LEG] = "same_leg",
	[FC_PAIR_DISAGREE] = "disagree",
	[FC_PAIR_NOT_MIRRORED] = "not_mirrored",
	[FC_PAIR_MISMATCH] = "mismatch",
};

const char *fc_pair_verdict_str(enum fc_pair_verdict v)
{
	return (unsigned int)v < sizeof(verdict_names) / sizeof(verdict_names[0]) ?
	       verdict_names[v] : "disagree";
}

static int mirrored(const struct fc_disk_superblock *sb)
{
	return !!(le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_MIRROR);
}

enum fc_pair_verdict fc_pair_verdict(const struct fc_disk_superblock *a, const char *na,
				     const struct fc_disk_superblock *b, const char *nb,
				     int *older, char *why, size_t len)
{
	const struct fc_disk_superblock *sb[2] = { a, b };
	const char *n[2] = { na, nb };
	uint32_t leg[2], failed[2];
	uint64_t ev[2], seq[2];
	char u[2][40];
	int i, stale[2];

	*older = -1;
	for (i = 0; i < 2; i++) {
		if (!mirrored(sb[i])) {
			snprintf(why, len, "%s holds a one-device pool, not a leg of a mirrored pool", n[i]);
			return FC_PAIR_NOT_MIRRORED;
		}
		leg[i] = le32_to_cpu(sb[i]->member_index);
		failed[i] = le32_to_cpu(sb[i]->failed_legs);
		ev[i] = le64_to_cpu(sb[i]->events);
		seq[i] = le64_to_cpu(sb[i]->hdr.seq);
		chk_hex(u[i], sb[i]->hdr.uuid, 16);
	}
	if (memcmp(a->hdr.uuid, b->hdr.uuid, 16)) {
		snprintf(why, len, "%s and %s are legs of different pools (uuid %s and %s)", na, nb,
			 u[0], u[1]);
		return FC_PAIR_FOREIGN;
	}
	if (leg[0] == leg[1]) {
		snprintf(why, len, "%s and %s both say they are leg %u of pool %s: one is a copy of the other",
			 na, nb, leg[0], u[0]);
		return FC_PAIR_SAME_LEG;
	}
	if (memcmp(a->partner_uuid, b->member_uuid, 16) || memcmp(b->partner_uuid, a->member_uuid, 16)) {
		snprintf(why, len, "%s and %s are legs of pool %s but not each other's partner: one of them was replaced, or belongs to a copy of the pool",
			 na, nb, u[0]);
		return FC_PAIR_FOREIGN;
	}
	/* device i records the other's leg as failed: the other is stale */
	for (i = 0; i < 2; i++)
		stale[!i] = !!(failed[i] & (1u << leg[!i]));
	if (stale[0] && stale[1]) {
		*older = ev[0] < ev[1] ? 0 : ev[1] < ev[0] ? 1 : -1;
		snprintf(why, len, "split brain: %s (leg %u, events %" PRIu64 ") and %s (leg %u, events %" PRIu64 ") each ran without the other; they do not load together: choose one and load it alone",
			 na, leg[0], ev[0], nb, leg[1], ev[1]);
		return FC_PAIR_SPLIT_BRAIN;
	}
	if (stale[0] || stale[1]) {
		i = stale[1];	/* the stale one */
		*older = i;
		snprintf(why, len, "%s is stale: %s (events %" PRIu64 ") recorded leg %u as failed and ran without it (events %" PRIu64 "); %s holds the newest data, %s must not be loaded with it",
			 n[i], n[!i], ev[!i], leg[i], ev[i], n[!i], n[i]);
		return FC_PAIR_STALE;
	}
	if (ev[0] != ev[1] || memcmp(a->leg_blocks, b->leg_blocks, sizeof(a->leg_blocks)) ||
	    memcmp(a->leg_sectors, b->leg_sectors, sizeof(a->leg_sectors)) ||
	    a->block_sectors != b->block_sectors) {
		if (ev[0] != ev[1])
			*older = ev[1] < ev[0];
		snprintf(why, len, "the superblocks of %s and %s disagree (%s): the kernel refuses them together",
			 na, nb, ev[0] != ev[1] ? "member events differ" : "geometry differs");
		return FC_PAIR_DISAGREE;
	}
	if (seq[0] != seq[1]) {
		*older = seq[1] < seq[0];
		snprintf(why, len, "%s's superblock (seq %" PRIu64 ") is behind %s's (seq %" PRIu64 "), as a crash between the two superblock writes leaves them: they load together, and the load brings %s forward",
			 n[*older], seq[*older], n[!*older], seq[!*older], n[*older]);
		return FC_PAIR_LAGGING;
	}
	snprintf(why, len, "%s (leg %u) and %s (leg %u) are in sync: pool %s, each the other's partner, events %" PRIu64 ", commit seq %" PRIu64,
		 na, leg[0], nb, leg[1], u[0], ev[0], seq[0]);
	return FC_PAIR_IN_SYNC;
}

/* The committed entries of a leg, copied by a walk. */
static void copy_cb(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg)
{
	struct fc_disk_entry *all = arg;

	if (idx < c->g.nr_blocks)
		all[idx] = *e;
}

/*
 * Legs at the same commit: the same volume table and entries.  -1 if they
 * could not be compared, 0 the same, else 1 with the first difference.
 */
static int compare_md(struct ctx *c[2], char *why, size_t len)
{
	struct fc_disk_entry *e[2];
	uint64_t n = c[0]->g.nr_blocks, i;
	int k, r = 0;

	if (!c[0]->vt_ok || !c[1]->vt_ok || c[0]->lost_pages || c[1]->lost_pages ||
	    c[1]->g.nr_blocks != n)
		return -1;
	if (memcmp(c[0]->vt.vol, c[1]->vt.vol, sizeof(c[0]->vt.vol))) {
		snprintf(why, len, "the volume tables differ");
		return 1;
	}
	for (k = 0; k < 2; k++) {
		e[k] = calloc(n + 1, sizeof(*e[k]));
		if (e[k])
			chk_walk_entries(c[k], copy_cb, e[k], 0);
	}
	if (!e[0] || !e[1]) {
		r = -1;
	} else {
		for (i = 0; i < n; i++) {
			if (!memcmp(&e[0][i], &e[1][i], sizeof(e[0][i])))
				continue;
			snprintf(why, len, "entry %" PRIu64 " differs (volume slot %u origin block %" PRIu64 " valid 0x%02x dirty 0x%02x against volume slot %u origin block %" PRIu64 " valid 0x%02x dirty 0x%02x)",
				 i, e[0][i].vol, le64_to_cpu(e[0][i].oblock), e[0][i].valid, e[0][i].dirty,
				 e[1][i].vol, le64_to_cpu(e[1][i].oblock), e[1][i].valid, e[1][i].dirty);
			r = 1;
			break;
		}
	}
	free(e[0]);
	free(e[1]);
	return r;
}

int fc_check_pair_fd(int fd0, const char *name0, int fd1, const char *name1, int json, FILE *out,
		     const char **outcome)
{
	struct ctx *c[2];
	const char *name[2] = { name0, name1 }, *oc;
	enum fc_check_outcome o[2];
	enum fc_pair_verdict v = FC_PAIR_IN_SYNC;
	char why[640] = "", diff[320] = "";
	int ok[2], k, older = -1, have_verdict = 0, same = -1, rc;
	struct fc_json j;

	c[0] = chk_open(fd0, name0);
	c[1] = chk_open(fd1, name1);
	if (!c[0] || !c[1]) {
		if (c[0])
			chk_close(c[0]);
		if (c[1])
			chk_close(c[1]);
		if (outcome)
			*outcome = "damaged";
		return 1;
	}
	for (k = 0; k < 2; k++) {
		ok[k] = chk_all(c[k]);
		o[k] = chk_outcome(c[k]);
	}
	if (o[0] == FC_CHECK_NOT_A_POOL || o[1] == FC_CHECK_NOT_A_POOL) {
		k = o[0] != FC_CHECK_NOT_A_POOL;
		oc = "not_a_pool";
		snprintf(why, sizeof(why), "%s holds no fcache metadata: it is not a leg of a pool (a blank device joins a mirrored pool only by replacing a leg)",
			 name[k]);
	} else if (!ok[0] || !ok[1]) {
		k = !ok[0] ? 0 : 1;
		oc = "damaged";
		snprintf(why, sizeof(why), "%s has no usable superblock: the pair cannot be compared", name[k]);
	} else {
		have_verdict = 1;
		v = fc_pair_verdict(&c[0]->sb, name0, &c[1]->sb, name1, &older, why, sizeof(why));
		if (v == FC_PAIR_IN_SYNC) {
			same = compare_md(c, diff, sizeof(diff));
			if (same == 1) {
				v = FC_PAIR_MISMATCH;
				snprintf(why, sizeof(why), "%s and %s are at the same commit (seq %" PRIu64 ") but their committed metadata differs: %s; damage, the kernel would trust one leg's copy",
					 name0, name1, c[0]->S, diff);
			}
		}
		oc = fc_pair_verdict_str(v);
		if ((v == FC_PAIR_IN_SYNC || v == FC_PAIR_LAGGING) &&
		    (o[0] == FC_CHECK_DAMAGED || o[1] == FC_CHECK_DAMAGED))
			oc = "damaged";
	}
	if (!strcmp(oc, "not_a_pool"))
		rc = PAIR_NOT_A_POOL;
	else
		rc = strcmp(oc, "in_sync") && strcmp(oc, "lagging") ? 1 : 0;
	if (outcome)
		*outcome = oc;

	if (json) {
		fj_init(&j, out);
		fj_obj(&j, NULL);
		fj_schema(&j, "fcache.check-pair");
		fj_str(&j, "outcome", oc);
		fj_bool(&j, "clean", rc == 0);
		fj_str(&j, "message", why);
		if (have_verdict)
			fj_str(&j, "verdict", fc_pair_verdict_str(v));
		else
			fj_null(&j, "verdict");
		if (older >= 0)
			fj_str(&j, "older_device", name[older]);
		else
			fj_null(&j, "older_device");
		if (same >= 0)
			fj_bool(&j, "metadata_agrees", same == 0);
		else
			fj_null(&j, "metadata_agrees");
		fj_arr(&j, "legs");
		for (k = 0; k < 2; k++) {
			fj_obj(&j, NULL);
			chk_report_json(c[k], ok[k], FC_OUT_CHECK, &j);
			fj_end(&j);
		}
		fj_end(&j);
		fj_end(&j);
	} else {
		for (k = 0; k < 2; k++) {
			fprintf(out, "== %s\n", name[k]);
			chk_report_text(c[k], ok[k], FC_OUT_CHECK, out);
		}
		fprintf(out, "== the pair\n%s\n", why);
		if (same == 0)
			fprintf(out, "their committed metadata (volume table, every entry) is the same\n");
		fprintf(out, "pair: %s%s\n", oc,
			rc == 0 ? " (the two load together)" :
			rc == PAIR_NOT_A_POOL ? " (not a pair of legs)" :
			!strcmp(oc, "damaged") || !strcmp(oc, "mismatch") ? " (damaged metadata)" :
			" (the kernel refuses the two together)");
		if (have_verdict && (v == FC_PAIR_STALE || v == FC_PAIR_SPLIT_BRAIN) && older >= 0)
			fprintf(out, "to run the pool on %s alone (its dirty data then has one copy): fcachectl pool create NAME %s --degraded\n",
				name[!older], name[!older]);
	}
	chk_close(c[0]);
	chk_close(c[1]);
	return rc;
}
