// SPDX-License-Identifier: GPL-2.0
/*
 * What the verbs ask the checker about a flash device: does it hold a
 * pool (and its block size), the volume table and the volumes recovery
 * would see, the dirty blocks of one volume counted from the entries, the
 * cache blocks a pool of some size would have.
 */
#include <stdlib.h>
#include <string.h>
#include "fc_check_int.h"

int fc_read_voltable(int fd, struct fc_disk_superblock *sb, struct fc_disk_voltable *vt)
{
	struct ctx *c = chk_open(fd, "flash");
	int rc = 0;

	if (!c)
		return -1;
	if (chk_read_superblock(c)) {
		rc = -1;
	} else {
		chk_voltable(c);
		if (!c->vt_ok)
			rc = -2;
		if (sb)
			memcpy(sb, &c->sb, sizeof(*sb));
		if (vt)
			memcpy(vt, &c->vt, sizeof(*vt));
	}
	chk_close(c);
	return rc;
}

int fc_probe_pool(int fd, uint32_t *block_sectors)
{
	struct fc_disk_superblock sb;

	if (fc_read_voltable(fd, &sb, NULL) == -1)
		return 0;
	*block_sectors = le32_to_cpu(sb.block_sectors);
	return 1;
}

int fc_probe_leg(int fd, struct fc_leg_info *li)
{
	struct fc_disk_superblock sb;

	memset(li, 0, sizeof(*li));
	if (fc_read_voltable(fd, &sb, NULL) == -1)
		return 0;
	if (!(le32_to_cpu(sb.incompat_features) & FC_FEAT_INCOMPAT_MIRROR))
		return 1;
	li->mirrored = 1;
	li->leg = le32_to_cpu(sb.member_index);
	li->failed_legs = le32_to_cpu(sb.failed_legs);
	li->events = le64_to_cpu(sb.events);
	li->leg_sectors[0] = le64_to_cpu(sb.leg_sectors[0]);
	li->leg_sectors[1] = le64_to_cpu(sb.leg_sectors[1]);
	return 1;
}

int fc_pair_verdict_fd(int fd0, const char *name0, int fd1, const char *name1, int *older,
		       char *why, size_t len)
{
	struct fc_disk_superblock a, b;

	if (fc_read_voltable(fd0, &a, NULL) == -1 || fc_read_voltable(fd1, &b, NULL) == -1)
		return -1;
	return (int)fc_pair_verdict(&a, name0, &b, name1, older, why, len);
}

int fc_probe_damaged(int fd, char *why, size_t len)
{
	struct ctx *c = chk_open(fd, "flash");
	int r = 0, i;

	if (!c)
		return -1;
	if (chk_read_superblock(c) && !c->not_a_pool) {
		r = 1;
		snprintf(why, len, "no usable superblock");
		for (i = 0; i < c->nmsgs; i++)	/* the verdict, after any read errors */
			if (!strcmp(c->msgs[i].kind, "superblock"))
				snprintf(why, len, "%s", c->msgs[i].msg);
	}
	chk_close(c);
	return r;
}

uint64_t fc_metadata_bytes(int fd)
{
	struct fc_disk_superblock sb;

	if (fc_read_voltable(fd, &sb, NULL) != -1)
		return le64_to_cpu(sb.data_start) * 512;
	/* what check reads without a superblock (fc_check.c, find_md_magic) */
	return fc_md_page_nr(4, 0) * (uint64_t)FC_PAGE_SIZE;
}

uint64_t fc_pool_blocks(uint64_t sectors, uint32_t block_sectors)
{
	struct fc_geometry g;

	return fc_geometry_compute(&g, sectors, block_sectors) ? 0 : g.nr_blocks;
}

int fc_flash_volumes(int fd, struct fc_ondisk_vol *out, int max)
{
	struct fc_disk_voltable *vt = malloc(sizeof(*vt));
	unsigned int i;
	int n = 0, r;

	if (!vt)
		return -1;
	r = fc_read_voltable(fd, NULL, vt);
	if (r) {
		free(vt);
		return r;
	}
	for (i = 0; i < FC_VT_SLOTS && n < max; i++) {
		const struct fc_disk_volume *v = &vt->vol[i];

		if (!(le32_to_cpu(v->flags) & FC_VOL_IN_USE))
			continue;
		out[n].slot = i;
		out[n].id = le32_to_cpu(v->id);
		out[n].origin_sectors = le64_to_cpu(v->origin_sectors);
		out[n].dirty_hint = le64_to_cpu(v->dirty_blocks);
		out[n].detached = !!(le32_to_cpu(v->flags) & FC_VOL_DETACHED);
		chk_label(out[n].label, v);
		n++;
	}
	free(vt);
	return n;
}

struct count_arg {
	unsigned int slot;
	uint64_t n;
};

static void count_cb(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg)
{
	struct count_arg *a = arg;

	if (idx < c->g.nr_blocks && e->valid && e->dirty && e->vol == a->slot)
		a->n++;
}

int64_t fc_flash_dirty_blocks(int fd, unsigned int slot)
{
	struct ctx *c = chk_open(fd, "flash");
	struct count_arg a = { slot, 0 };
	int64_t r = -1;

	if (!c)
		return -1;
	if (!chk_read_superblock(c)) {
		chk_walk_entries(c, count_cb, &a, 0);
		r = c->lost_pages ? -1 : (int64_t)a.n;
	}
	chk_close(c);
	return r;
}
