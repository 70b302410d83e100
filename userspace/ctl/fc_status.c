// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON document of 'fcachectl status' and the lines about a pool's
 * flash devices and redundancy in its text; see fc_status.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fc_status.h"
#include "fc_check.h"
#include "fc_json.h"

static const struct fc_vol *prev_vol(const struct fc_live *l, const struct fc_vol *v)
{
	int i;

	for (i = 0; l && i < l->nvols; i++)
		if (!strcmp(l->vols[i].name, v->name))
			return &l->vols[i];
	return NULL;
}

static double rate(uint64_t now, uint64_t before, double dt)
{
	return dt > 0 && now >= before ? (double)(now - before) / dt : 0;
}

/* A pool's status line (include/fcache_abi.h), from any module version. */
int fc_parse_pool_status(const char *s, struct fc_pool_status *st)
{
	int n;

	memset(st, 0, sizeof(*st));
	n = sscanf(s, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %7s %d %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %15s %" SCNu64 " %31s %" SCNu64 " %15s %7s %" SCNu64 " %" SCNu64,
		   &st->block_sectors, &st->total_blocks, &st->used_blocks, &st->dirty_blocks,
		   st->metadata_mode, &st->needs_check, &st->flash_read_errors,
		   &st->flash_write_errors, &st->metadata_errors, st->wb_state,
		   &st->wb_inflight, &st->commit_seq, &st->active_volumes,
		   &st->registered_volumes, &st->free_blocks, st->redundancy,
		   &st->lone_dirty_blocks, st->legs, &st->unwritable_blocks, st->flushes, st->acks,
		   &st->origin_behind, &st->origin_lag);
	/* One before the origins' lag in the status prints 21 (or fewer). */
	st->have_origin = n == 23;
	if (n == 22)
		return -1;
	/* One before fence_hold prints 20: nothing is ever held. */
	if (n == 15 || n == 18 || n == 20)
		snprintf(st->acks, sizeof(st->acks), "open");
	/* A module before mirrored pools prints 15 fields: one device. */
	if (n == 15) {
		snprintf(st->redundancy, sizeof(st->redundancy), "single");
		st->lone_dirty_blocks = st->dirty_blocks;
		snprintf(st->legs, sizeof(st->legs), "ok");
		n = 18;
	}
	/* One before issue 32 (item 7) prints 18; read-only, it failed every flush. */
	if (n == 18) {
		snprintf(st->flushes, sizeof(st->flushes), "%s",
			 strcmp(st->metadata_mode, "rw") ? "failing" : "ok");
		return 0;
	}
	return n >= FC_POOL_STATUS_FIELDS ? 0 : -1;
}

void fc_parse_pool_table(struct fc_pool *p)
{
	char buf[sizeof(p->table)], *w[64], *sv = NULL, *t;
	int n = 0, i;

	p->nr_legs = 1;
	p->flash2 = 0;
	p->degraded_opt = 0;
	p->leg_of[0] = 0;
	p->leg_of[1] = 1;
	snprintf(buf, sizeof(buf), "%s", p->table);
	for (t = strtok_r(buf, " \t\n", &sv); t && n < 64; t = strtok_r(NULL, " \t\n", &sv))
		w[n++] = t;
	if (n < 2)
		return;
	fc_parse_devstr(w[0], &p->flash);
	p->block_sectors = (uint32_t)strtoul(w[1], NULL, 10);
	/* "<#opt_args> key value ...": mirror <dev>|-, degraded 0|1, tunables */
	for (i = 3; i + 1 < n; i += 2) {
		if (!strcmp(w[i], "mirror")) {
			p->nr_legs = 2;
			if (strcmp(w[i + 1], "-"))
				fc_parse_devstr(w[i + 1], &p->flash2);
		} else if (!strcmp(w[i], "degraded")) {
			p->degraded_opt = !strcmp(w[i + 1], "1");
		}
	}
}

const char *fc_pool_redundancy(const struct fc_pool *p)
{
	if (p->have_status && p->st.redundancy[0])
		return p->st.redundancy;
	if (p->nr_legs < 2)
		return "single";
	return p->flash2 ? "mirrored" : "degraded";
}

int fc_pool_devices(const struct fc_pool *p, struct fc_pool_dev *d,
		    const char *(*dev_path)(dev_t dev))
{
	int n = p->nr_legs > 1 ? 2 : 1, k, leg, i;
	dev_t dev[2] = { p->flash, p->flash2 };
	const char *s;
	size_t len;

	for (k = 0; k < n; k++) {
		leg = n > 1 && (p->leg_of[k] == 0 || p->leg_of[k] == 1) ? p->leg_of[k] : k;
		d[leg].leg = leg;
		/* copied: dev_path() may answer from one static buffer */
		snprintf(d[leg].path, sizeof(d[leg].path), "%s", dev[k] ? dev_path(dev[k]) : "");
		snprintf(d[leg].state, sizeof(d[leg].state), "%s", dev[k] ? "ok" : "missing");
	}
	if (!p->have_status || !p->st.legs[0])
		return n;
	/* the kernel's state of each leg, "ok,missing": its word at the leg's position */
	for (s = p->st.legs, i = 0; *s && i < n; i++) {
		len = strcspn(s, ",");
		if (len && len < sizeof(d[i].state)) {
			memcpy(d[i].state, s, len);
			d[i].state[len] = 0;
		}
		s += len + (s[len] == ',');
	}
	return n;
}

void fc_status_pool_head(FILE *f, const struct fc_pool *p, const char *(*dev_path)(dev_t dev))
{
	struct fc_pool_dev d[2];
	char size[32], risk[32];
	const char *red = fc_pool_redundancy(p);
	uint64_t bsz = (uint64_t)p->block_sectors * 512, lone = p->st.lone_dirty_blocks;
	int n, k, missing = -1;

	fc_fmt_bytes(size, sizeof(size), (double)p->sectors * 512);
	if (p->nr_legs < 2 && strcmp(red, "degraded")) {
		fprintf(f, "pool %s on %s: %s, %u KiB blocks\n", p->name, dev_path(p->flash), size,
			p->block_sectors / 2);
		return;
	}
	n = fc_pool_devices(p, d, dev_path);
	for (k = 0; k < n; k++) {
		if (!d[k].path[0])
			snprintf(d[k].path, sizeof(d[k].path), "(missing)");
		/* "missing" at load, "failed" at run time (I/O errors) */
		if ((!strcmp(d[k].state, "missing") || !strcmp(d[k].state, "failed")) &&
		    missing < 0)
			missing = k;
	}
	fprintf(f, "pool %s on %s + %s: %s, %u KiB blocks, %s", p->name, d[0].path,
		n > 1 ? d[1].path : "(missing)", size, p->block_sectors / 2,
		strcmp(red, "degraded") ? red : "DEGRADED");
	if (strcmp(red, "degraded")) {
		fprintf(f, "\n");
		return;
	}
	fc_fmt_bytes(risk, sizeof(risk), (double)lone * (double)bsz);
	if (missing >= 0)
		fprintf(f, ": leg %d %s", missing, d[missing].state);
	if (p->have_status)
		fprintf(f, ", %" PRIu64 " dirty blocks (%s) AT RISK (one copy)\n", lone, risk);
	else
		fprintf(f, "\n");
	if (missing >= 0 && p->have_status)
		fprintf(f, "  DEGRADED: the dirty data has one copy, on %s only; new writes go write-through; 'fcachectl flush %s' writes the %" PRIu64 " blocks back and ends the risk\n",
			d[!missing].path, p->name, lone);
	/* a replaced device: its copies are being made (kernel state "resync") */
	for (k = 0; k < n && missing < 0 && p->have_status; k++)
		if (!strcmp(d[k].state, "resync"))
			fprintf(f, "  RESYNC: %s replaced a failed device; %" PRIu64 " dirty blocks still have one copy, on %s, until it is copied there\n",
				d[k].path, lone, d[!k].path);
}

const char *fc_pool_flash_text(const struct fc_pool *p, char *buf, size_t len,
			       const char *(*dev_path)(dev_t dev))
{
	struct fc_pool_dev d[2];
	int n = fc_pool_devices(p, d, dev_path), k;
	size_t o = 0;

	buf[0] = 0;
	for (k = 0; k < n; k++) {
		o += snprintf(buf + o, o < len ? len - o : 0, "%s%s", k ? " + " : "",
			      d[k].path[0] ? d[k].path : "-");
		if (n > 1 && strcmp(d[k].state, "ok"))
			o += snprintf(buf + o, o < len ? len - o : 0, "(%s)", d[k].state);
	}
	return buf;
}

static void json_devices(struct fc_json *j, const struct fc_pool *p,
			 const char *(*dev_path)(dev_t dev))
{
	struct fc_pool_dev d[2];
	int n = fc_pool_devices(p, d, dev_path), k;

	fj_arr(j, "devices");
	for (k = 0; k < n; k++) {
		fj_obj(j, NULL);
		fj_str(j, "path", d[k].path[0] ? d[k].path : NULL);
		fj_u64(j, "leg", (uint64_t)d[k].leg);
		fj_str(j, "state", d[k].state);
		fj_end(j);
	}
	fj_end(j);
}

void fc_json_pool_devices(struct fc_json *j, const struct fc_pool *p,
			  const char *(*dev_path)(dev_t dev))
{
	fj_str(j, "redundancy", fc_pool_redundancy(p));
	json_devices(j, p, dev_path);
}

void fc_status_json(FILE *f, struct fc_live *cur, const struct fc_live *old, double dt,
		    const struct fc_pool *selpool, const struct fc_vol *selvol,
		    const struct fc_status_hooks *h)
{
	struct fc_json j;
	int i, k;

	fj_init(&j, f);
	fj_obj(&j, NULL);
	fj_schema(&j, "fcache.status");
	fj_dbl(&j, "interval", dt);
	fj_arr(&j, "pools");
	for (i = 0; i < cur->npools; i++) {
		struct fc_pool *p = &cur->pools[i];
		const struct fc_pool_status *st = &p->st;
		uint64_t bsz = (uint64_t)p->block_sectors * 512;
		double wb = 0;

		if ((selpool && selpool != p) || (selvol && selvol->pool_dev != p->dev))
			continue;
		fj_obj(&j, NULL);
		fj_str(&j, "name", p->name);
		fj_str(&j, "flash", h->dev_path(p->flash));
		fj_u64(&j, "sectors", p->sectors);
		fj_u64(&j, "block_sectors", p->block_sectors);
		fj_bool(&j, "status_ok", p->have_status);
		fj_u64(&j, "total_blocks", st->total_blocks);
		fj_u64(&j, "used_blocks", st->used_blocks);
		fj_u64(&j, "dirty_blocks", st->dirty_blocks);
		fj_u64(&j, "free_blocks", st->free_blocks);
		fj_str(&j, "metadata_mode", st->metadata_mode);
		fj_bool(&j, "needs_check", st->needs_check);
		fj_u64(&j, "flash_read_errors", st->flash_read_errors);
		fj_u64(&j, "flash_write_errors", st->flash_write_errors);
		fj_u64(&j, "metadata_errors", st->metadata_errors);
		fj_str(&j, "writeback_state", st->wb_state);
		fj_u64(&j, "writeback_inflight", st->wb_inflight);
		fj_u64(&j, "commit_seq", st->commit_seq);
		fj_u64(&j, "active_volumes", st->active_volumes);
		fj_u64(&j, "registered_volumes", st->registered_volumes);
		fj_str(&j, "redundancy", fc_pool_redundancy(p));
		fj_u64(&j, "lone_dirty_blocks", st->lone_dirty_blocks);
		json_devices(&j, p, h->dev_path);
		fj_u64(&j, "unwritable_blocks", st->unwritable_blocks);
		fj_str(&j, "flushes", st->flushes);
		fj_str(&j, "acks", st->acks);
		if (st->have_origin) {
			fj_u64(&j, "origin_behind", st->origin_behind);
			fj_u64(&j, "origin_lag_seconds", st->origin_lag);
		} else {
			fj_null(&j, "origin_behind");
			fj_null(&j, "origin_lag_seconds");
		}
		fj_arr(&j, "volumes");
		for (k = 0; k < cur->nvols; k++) {
			const struct fc_vol *v = &cur->vols[k], *o = prev_vol(old, v);
			const struct fc_vol_status *vs = &v->st;

			if (v->pool_dev != p->dev || (selvol && selvol != v))
				continue;
			if (o)
				wb += rate(vs->writebacks, o->st.writebacks, dt) * (double)bsz;
			fj_obj(&j, NULL);
			fj_str(&j, "name", v->name);
			fj_str(&j, "origin", h->dev_path(v->origin));
			fj_bool(&j, "in_place", v->in_place);
			fj_u64(&j, "id", v->id);
			fj_str(&j, "label", v->label);
			fj_str(&j, "mode", vs->mode[0] ? vs->mode : v->mode);
			fj_u64(&j, "sectors", v->sectors);
			fj_u64(&j, "cached_blocks", vs->cached_blocks);
			fj_u64(&j, "dirty_blocks", vs->dirty_blocks);
			fj_u64(&j, "reads", vs->reads);
			fj_u64(&j, "read_hits", vs->read_hits);
			fj_u64(&j, "writes", vs->writes);
			fj_u64(&j, "write_hits", vs->write_hits);
			fj_dbl(&j, "read_hit_ratio", vs->reads ? (double)vs->read_hits / vs->reads : 0);
			fj_dbl(&j, "write_hit_ratio", vs->writes ? (double)vs->write_hits / vs->writes : 0);
			if (o) {
				fj_dbl(&j, "read_iops", rate(vs->reads, o->st.reads, dt));
				fj_dbl(&j, "write_iops", rate(vs->writes, o->st.writes, dt));
			} else {
				fj_null(&j, "read_iops");
				fj_null(&j, "write_iops");
			}
			fj_u64(&j, "bypassed", vs->bypassed);
			fj_u64(&j, "writeback_inflight", vs->wb_inflight);
			fj_u64(&j, "errors", vs->errors);
			fj_u64(&j, "promotions", vs->promotions);
			fj_u64(&j, "writebacks", vs->writebacks);
			fj_end(&j);
		}
		fj_end(&j);
		fj_arr(&j, "unattached_volumes");
		if (st->registered_volumes > st->active_volumes && h->unattached) {
			struct fc_ondisk_vol ov[64];
			int n = h->unattached(cur, p, ov, 64, 0);

			for (k = 0; k < n; k++) {
				fj_obj(&j, NULL);
				fj_u64(&j, "id", ov[k].id);
				fj_str(&j, "label", ov[k].label);
				fj_u64(&j, "dirty_blocks", ov[k].dirty_hint);
				fj_bool(&j, "detached", ov[k].detached);
				fj_end(&j);
			}
		}
		fj_end(&j);
		if (old)
			fj_dbl(&j, "writeback_bytes_per_second", wb);
		else
			fj_null(&j, "writeback_bytes_per_second");
		fj_end(&j);
	}
	fj_end(&j);
	fj_end(&j);
}
