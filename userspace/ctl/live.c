// SPDX-License-Identifier: GPL-2.0
/*
 * The live view: which dm devices are fcache pools and volumes, parsed from
 * their tables and status lines (include/fcache_abi.h), plus the operations
 * shared by several verbs (mode reload, flush with progress).
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_check.h"

int fc_parse_vol_status(const char *s, struct fc_vol_status *st)
{
	int n;

	memset(st, 0, sizeof(*st));
	n = sscanf(s, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   st->mode, &st->cached_blocks, &st->dirty_blocks, &st->reads, &st->read_hits,
		   &st->writes, &st->write_hits, &st->bypassed, &st->wb_inflight, &st->errors,
		   &st->promotions, &st->writebacks, &st->volume_id);
	return n >= FC_VOLUME_STATUS_FIELDS ? 0 : -1;
}

/*
 * The one target line of @name's status (@status) or table, of type @type
 * unless NULL; free it with fc_dm_free_targets(t, 1).  NULL: no such line.
 */
static struct fc_dm_target *one_line(const char *name, int status, const char *type)
{
	struct fc_dm_target *t;
	int n;

	if (status ? fc_dm_status(name, &t, &n) : fc_dm_table(name, &t, &n))
		return NULL;
	if (n == 1 && (!type || !strcmp(t[0].type, type)))
		return t;
	fc_dm_free_targets(t, n);
	return NULL;
}

static int one_target(const char *name, const char *type, char *params, size_t len,
		      uint64_t *sectors)
{
	struct fc_dm_target *t = one_line(name, 0, type);

	if (!t)
		return 0;
	snprintf(params, len, "%s", t->params);
	*sectors = t->length;
	fc_dm_free_targets(t, 1);
	return 1;
}

int fc_vol_reread(struct fc_vol *v)
{
	return one_target(v->name, FC_VOLUME_TARGET, v->table, sizeof(v->table), &v->sectors) ? 0 : -1;
}

int fc_pool_refresh(struct fc_pool *p)
{
	struct fc_dm_target *t = one_line(p->name, 1, NULL);

	p->have_status = t && !fc_parse_pool_status(t->params, &p->st);
	if (t)
		fc_dm_free_targets(t, 1);
	return p->have_status ? 0 : -1;
}

int fc_vol_refresh(struct fc_vol *v)
{
	struct fc_dm_target *t = one_line(v->name, 1, NULL);

	v->have_status = t && !fc_parse_vol_status(t->params, &v->st);
	if (t)
		fc_dm_free_targets(t, 1);
	return v->have_status ? 0 : -1;
}

void fc_pool_find_legs(struct fc_pool *p)
{
	struct fc_leg_info li;
	dev_t d[2] = { p->flash, p->flash2 };
	int k, fd, leg[2] = { -1, -1 };

	if (p->nr_legs < 2)
		return;
	for (k = 0; k < 2; k++) {
		if (!d[k])
			continue;
		fd = open(fc_dev_path(d[k]), O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fc_probe_leg(fd, &li) && li.mirrored && li.leg < 2)
			leg[k] = (int)li.leg;
		close(fd);
	}
	/* the missing device: the other leg */
	if (leg[0] >= 0 && leg[1] < 0)
		leg[1] = !leg[0];
	if (leg[1] >= 0 && leg[0] < 0)
		leg[0] = !leg[1];
	if (leg[0] >= 0 && leg[0] != leg[1]) {
		p->leg_of[0] = leg[0];
		p->leg_of[1] = leg[1];
	}
}

struct fc_pool *fc_live_pool_by_flash(struct fc_live *l, dev_t dev)
{
	int i;

	for (i = 0; i < l->npools; i++)
		if (l->pools[i].flash == dev || (l->pools[i].flash2 && l->pools[i].flash2 == dev))
			return &l->pools[i];
	return NULL;
}

static void parse_vol(struct fc_vol *v)
{
	char pool[64], origin[64], *lab;
	unsigned int id = 0;
	size_t i;

	if (sscanf(v->table, "%63s %63s %u %15s", pool, origin, &id, v->mode) == 4) {
		fc_parse_devstr(pool, &v->pool_dev);
		fc_parse_devstr(origin, &v->origin);
		v->id = id;
	}
	lab = strstr(v->table, " label ");
	if (lab) {
		lab += 7;
		for (i = 0; i + 1 < sizeof(v->label) && lab[i] && lab[i] != ' '; i++)
			v->label[i] = lab[i];
		v->label[i] = 0;
	}
}

int fc_live_scan(struct fc_live *l)
{
	char **names, buf[1024], oname[128];
	struct fc_dm_info info;
	uint64_t sectors;
	int n, i;

	memset(l, 0, sizeof(*l));
	if (fc_dm_list(&names, &n))
		return -1;
	l->pools = calloc(n + 1, sizeof(*l->pools));
	l->vols = calloc(n + 1, sizeof(*l->vols));
	if (!l->pools || !l->vols) {
		fc_dm_free_names(names, n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (fc_dm_info(names[i], &info) || !info.exists || !info.live_table)
			continue;
		if (one_target(names[i], FC_POOL_TARGET, buf, sizeof(buf), &sectors)) {
			struct fc_pool *p = &l->pools[l->npools++];

			snprintf(p->name, sizeof(p->name), "%s", names[i]);
			snprintf(p->table, sizeof(p->table), "%s", buf);
			p->dev = makedev(info.major, info.minor);
			p->sectors = sectors;
			fc_parse_pool_table(p);
			fc_pool_refresh(p);
		} else if (one_target(names[i], FC_VOLUME_TARGET, buf, sizeof(buf), &sectors)) {
			struct fc_vol *v = &l->vols[l->nvols++];

			snprintf(v->name, sizeof(v->name), "%s", names[i]);
			snprintf(v->table, sizeof(v->table), "%s", buf);
			v->dev = makedev(info.major, info.minor);
			v->sectors = sectors;
			parse_vol(v);
			if (fc_dm_dev_name(v->origin, oname, sizeof(oname)) == 1 &&
			    !strncmp(oname, v->name, strlen(v->name)) &&
			    !strcmp(oname + strlen(v->name), FC_DM_HIDDEN_SUFFIX))
				v->in_place = 1;
			fc_vol_refresh(v);
		}
	}
	fc_dm_free_names(names, n);
	return 0;
}

void fc_live_free(struct fc_live *l)
{
	free(l->pools);
	free(l->vols);
	memset(l, 0, sizeof(*l));
}

/* A name, /dev/mapper/NAME, or any path to the block device. */
static int arg_dev(const char *arg, dev_t *dev)
{
	return strchr(arg, '/') ? fc_block_dev(arg, dev) : -1;
}

struct fc_pool *fc_live_pool(struct fc_live *l, const char *arg)
{
	dev_t d;
	int i, have = !arg_dev(arg, &d);

	for (i = 0; i < l->npools; i++)
		if (!strcmp(l->pools[i].name, arg) || (have && l->pools[i].dev == d))
			return &l->pools[i];
	return NULL;
}

int fc_live_attached(const struct fc_live *l, const struct fc_pool *p, unsigned int id)
{
	int i;

	for (i = 0; i < l->nvols; i++)
		if (l->vols[i].pool_dev == p->dev && l->vols[i].id == id)
			return 1;
	return 0;
}

struct fc_pool *fc_live_pool_by_dev(struct fc_live *l, dev_t dev)
{
	int i;

	for (i = 0; i < l->npools; i++)
		if (l->pools[i].dev == dev)
			return &l->pools[i];
	return NULL;
}

/* The cached device itself, or the origin of a plain (not in-place) volume. */
struct fc_vol *fc_live_vol(struct fc_live *l, const char *arg)
{
	dev_t d;
	int i, have = !arg_dev(arg, &d);

	for (i = 0; i < l->nvols; i++)
		if (!strcmp(l->vols[i].name, arg) || (have && l->vols[i].dev == d))
			return &l->vols[i];
	for (i = 0; have && i < l->nvols; i++)
		if (l->vols[i].origin == d)
			return &l->vols[i];
	return NULL;
}

int fc_vol_table_with_mode(const struct fc_vol *v, const char *mode, char *buf, size_t len)
{
	char pool[64], origin[64], id[32], oldmode[32];
	int off = 0;

	if (sscanf(v->table, "%63s %63s %31s %31s %n", pool, origin, id, oldmode, &off) < 4)
		return -1;
	if (!off)
		off = (int)strlen(v->table);
	snprintf(buf, len, "%s %s %s %s%s%s", pool, origin, id, mode,
		 v->table[off] ? " " : "", v->table + off);
	return 0;
}

int fc_vol_reload(const struct fc_vol *v, const char *params)
{
	struct fc_dm_target t = { 0, v->sectors, (char *)FC_VOLUME_TARGET, (char *)params };

	if (fc_dm_load(v->name, &t, 1))
		return -1;
	if (fc_dm_suspend(v->name, 0)) {
		fc_dm_clear(v->name);
		return -1;
	}
	if (fc_dm_resume(v->name))
		return -1;
	return 0;
}

/* ---- flush with progress ---- */

struct flush_job {
	const char *name;
	volatile int done;
	int rc;
	char err[512];
};

static void *flush_thread(void *arg)
{
	struct flush_job *j = arg;

	j->rc = fc_dm_message(j->name, "flush", NULL);
	if (j->rc)
		snprintf(j->err, sizeof(j->err), "%s", fc_dm_error());
	j->done = 1;
	return NULL;
}

/*
 * After a pool flush: dirty data left in the pool that no attached volume
 * holds belongs to unattached volumes (after down, disable --no-flush, or
 * detached at run time), which a flush cannot write back.  Report them and
 * return 1; 0 if all the dirty data belongs to attached volumes.
 */
static int unattached_dirty(struct fc_pool *p)
{
	struct fc_live l;
	struct fc_ondisk_vol ov[64];
	uint64_t active = 0;
	int i, n;

	if (fc_live_scan(&l))
		return 0;
	for (i = 0; i < l.nvols; i++)
		if (l.vols[i].pool_dev == p->dev)
			active += l.vols[i].st.dirty_blocks;
	if (fc_pool_refresh(p) || p->st.dirty_blocks <= active) {
		fc_live_free(&l);
		return 0;
	}
	n = fc_pool_unattached(&l, p, ov, 64, 1);
	fc_live_free(&l);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (ov[i].detached)
			fc_fail("flush: volume id %u ('%s') of pool %s holds %" PRIu64 " dirty blocks and was detached at run time (not by fcachectl): they cannot be written back until you choose with 'fcachectl resolve %s %u --replay|--discard'",
				ov[i].id, ov[i].label, p->name, ov[i].dirty_hint, p->name, ov[i].id);
		else
			fc_fail("flush: volume id %u ('%s') of pool %s holds %" PRIu64 " dirty blocks and is not attached: attach it ('fcachectl up', or 'fcachectl enable ORIGIN --pool %s --id %u') to write them back",
				ov[i].id, ov[i].label, p->name, ov[i].dirty_hint, p->name, ov[i].id);
	}
	return 1;
}

int fc_flush_wait(struct fc_pool *p, struct fc_vol *v)
{
	int unattached_seen = 0;
	struct flush_job job = { .name = v ? v->name : p->name };
	struct fc_progress pr;
	pthread_t th;
	uint64_t bytes_per_block, dirty, stuck_since_dirty = UINT64_MAX;
	double stuck_t = fc_now();
	int started = 0;

	bytes_per_block = (uint64_t)(p ? p->block_sectors : 64) * 512;
	if (pthread_create(&th, NULL, flush_thread, &job))
		return fc_fail("flush: cannot start: %s", strerror(errno));
	pthread_detach(th);
	for (;;) {
		if (v ? fc_vol_refresh(v) : fc_pool_refresh(p)) {
			fc_progress_done(&pr, NULL);
			return fc_fail("flush: lost the status of %s: %s", job.name, fc_dm_error());
		}
		dirty = v ? v->st.dirty_blocks : p->st.dirty_blocks;
		if (!started) {
			fc_progress_start(&pr, dirty * bytes_per_block);
			started = 1;
		}
		fc_progress_update(&pr, dirty * bytes_per_block);
		if (job.done && job.rc) {
			fc_progress_done(&pr, NULL);
			if (strstr(job.err, strerror(EAGAIN)))
				return fc_fail("flush: %s was suspended during the flush: %s; the blocks it waited for are written back after the resume; run 'fcachectl flush %s' again to wait for them",
					       job.name, job.err, job.name);
			return fc_fail("flush: the %s refused to flush: %s", v ? "volume" : "pool", job.err);
		}
		/*
		 * The message returns once what was dirty when it began is on
		 * the origins: what is dirty now was written since (or belongs
		 * to a volume that is not attached, for a pool).
		 */
		if (job.done && (v || !dirty))
			break;
		/* twice in a row: a writeback between the two samples is no reason */
		if (job.done && !v) {
			if (!unattached_dirty(p))
				break;
			if (++unattached_seen >= 2) {
				fc_progress_done(&pr, NULL);
				return fc_fail("flush: every attached volume of %s is flushed; the dirty data above stays in the pool", p->name);
			}
		}
		if (fc_interrupted) {
			fc_progress_done(&pr, NULL);
			return -2;
		}
		if (dirty != stuck_since_dirty) {
			stuck_since_dirty = dirty;
			stuck_t = fc_now();
		} else if (fc_now() - stuck_t > 30 && p && p->have_status &&
			   (p->st.flash_read_errors || strcmp(p->st.metadata_mode, "rw"))) {
			fc_progress_done(&pr, NULL);
			return fc_fail("flush: no progress for 30 s and the pool reports errors (metadata %s, %" PRIu64 " flash read errors); see 'fcachectl status' and dmesg",
				       p->st.metadata_mode, p->st.flash_read_errors);
		}
		usleep(200000);
		if (p && v)
			fc_pool_refresh(p);
	}
	fc_progress_done(&pr, "flushed");
	return 0;
}

int fc_is_lvm_lv(const char *name)
{
	struct fc_dm_info info;

	return !fc_dm_info(name, &info) && info.exists && !strncmp(info.uuid, "LVM-", 4);
}

