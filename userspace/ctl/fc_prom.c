// SPDX-License-Identifier: GPL-2.0
/*
 * fc_prom: Prometheus text exposition of the live pools and volumes; see
 * fc_prom.h.  One table row per metric family; a family's samples are
 * written together, after its HELP and TYPE lines, as the format requires.
 * Values are the kernel's u64 counters printed as integers.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include "fc_prom.h"
#include "fc_json.h"

enum src {
	SRC_FIELD,		/* a u64 of the status line, at .off */
	SRC_INFO,		/* 1, with the descriptive labels */
	SRC_STATUS_OK,		/* 1 if the status line was read */
	SRC_SIZE,		/* device size, bytes */
	SRC_BLOCK_SIZE,		/* cache block size, bytes */
	SRC_NEEDS_CHECK,	/* the status's int flag */
	SRC_STATE,		/* one sample per state of .states, 1 for the current */
	SRC_ORIGIN,		/* a u64 of the status at .off, if the module prints the origins' lag */
};

struct family {
	const char *name;
	const char *type;	/* "gauge" or "counter" */
	const char *help;
	enum src src;
	size_t off;		/* offset in the status struct: SRC_FIELD's u64, a pool SRC_STATE's string */
	const char *label;	/* SRC_STATE: the label naming the state */
	const char *const *states;	/* NULL: the cache modes (fc_mode_words()) */
};

#define FAM(n, t, h, s) { .name = n, .type = t, .help = h, .src = s }
#define PF(n, t, h, f) \
	{ .name = n, .type = t, .help = h, .src = SRC_FIELD, .off = offsetof(struct fc_pool_status, f) }
#define VF(n, t, h, f) \
	{ .name = n, .type = t, .help = h, .src = SRC_FIELD, .off = offsetof(struct fc_vol_status, f) }
#define POF(n, h, f) \
	{ .name = n, .type = "gauge", .help = h, .src = SRC_ORIGIN, .off = offsetof(struct fc_pool_status, f) }
#define STATES(n, h, l, st) { .name = n, .type = "gauge", .help = h, .src = SRC_STATE, .label = l, .states = st }
#define PSTATES(n, h, l, st, f) { .name = n, .type = "gauge", .help = h, .src = SRC_STATE, .label = l, \
	.states = st, .off = offsetof(struct fc_pool_status, f) }

static const char *const md_modes[] = { "rw", "ro", "fail", NULL };
static const char *const wb_states[] = { "idle", "background", "active", "throttled", NULL };
static const char *const redundancies[] = { "single", "mirrored", "degraded", NULL };
static const char *const flush_states[] = { "ok", "draining", "failing", NULL };

static const struct family pool_fams[] = {
	FAM("fcache_pool_info", "gauge",
	    "Always 1; the labels name the pool's flash device.", SRC_INFO),
	FAM("fcache_pool_status_ok", "gauge",
	    "1 if the pool's status line could be read; without it the status metrics of the pool are left out.", SRC_STATUS_OK),
	FAM("fcache_pool_size_bytes", "gauge",
	    "Size of the pool device (its flash device) in bytes.", SRC_SIZE),
	FAM("fcache_pool_block_size_bytes", "gauge",
	    "Cache block size in bytes.", SRC_BLOCK_SIZE),
	PF("fcache_pool_blocks", "gauge", "Cache blocks in the pool.",
	   total_blocks),
	PF("fcache_pool_used_blocks", "gauge", "Cache blocks holding valid data.",
	   used_blocks),
	PF("fcache_pool_dirty_blocks", "gauge", "Cache blocks holding dirty data (not yet written back).",
	   dirty_blocks),
	PF("fcache_pool_free_blocks", "gauge", "Cache blocks on the free list.",
	   free_blocks),
	PSTATES("fcache_pool_metadata_mode",
	        "1 for the current metadata mode: rw, ro (a metadata write failed: no new dirty data) or fail.",
	        "mode", md_modes, metadata_mode),
	FAM("fcache_pool_needs_check", "gauge",
	    "1 if an error was recorded: run fcachectl check.", SRC_NEEDS_CHECK),
	PF("fcache_pool_flash_read_errors_total", "counter", "Failed reads from the flash device.",
	   flash_read_errors),
	PF("fcache_pool_flash_write_errors_total", "counter", "Failed data writes to the flash device.",
	   flash_write_errors),
	PF("fcache_pool_metadata_errors_total", "counter", "Failed metadata commits.",
	   metadata_errors),
	PSTATES("fcache_pool_writeback_state",
	        "1 for the current writeback state: idle, background, active (flushing) or throttled.",
	        "state", wb_states, wb_state),
	PF("fcache_pool_writeback_inflight_blocks", "gauge", "Cache blocks being written back now.",
	   wb_inflight),
	PF("fcache_pool_commit_seq", "gauge", "Sequence number of the last metadata commit.",
	   commit_seq),
	PF("fcache_pool_active_volumes", "gauge", "Volumes of the pool with a resumed device.",
	   active_volumes),
	PF("fcache_pool_registered_volumes", "gauge", "Used slots of the pool's volume table.",
	   registered_volumes),
	PSTATES("fcache_pool_redundancy",
	        "1 for the current redundancy: single (one flash device), mirrored (two, every dirty block on both) or degraded (a mirrored pool with a device missing).",
	        "redundancy", redundancies, redundancy),
	PF("fcache_pool_lone_dirty_blocks", "gauge",
	   "Dirty cache blocks with one copy only (every dirty block of a single or degraded pool): lost if that flash device fails.",
	   lone_dirty_blocks),
	PF("fcache_pool_unwritable_blocks", "gauge",
	   "Read-only metadata: cache blocks whose writes fail with EIO until fcachectl check --repair; 0 when the metadata is rw.",
	   unwritable_blocks),
	POF("fcache_pool_origin_behind_flush_points",
	    "Ordered write-back: flush points the origins lack (the flash lost, the volumes go back this far); 0 without ordered write-back.",
	    origin_behind),
	POF("fcache_pool_origin_lag_seconds",
	    "Ordered write-back: seconds since the oldest data the origins lack was written; 0 without ordered write-back.",
	    origin_lag),
	PSTATES("fcache_pool_flushes",
	        "1 for how flushes end: ok; with read-only metadata after a failed commit, draining (flushes fail until the dirty blocks are written back) or failing (flushes fail until fcachectl check).",
	        "state", flush_states, flushes),
};

static const struct family vol_fams[] = {
	FAM("fcache_volume_info", "gauge",
	    "Always 1; the labels give the volume's id, label and origin device.", SRC_INFO),
	FAM("fcache_volume_status_ok", "gauge",
	    "1 if the volume's status line could be read; without it the status metrics of the volume are left out.", SRC_STATUS_OK),
	FAM("fcache_volume_size_bytes", "gauge",
	    "Size of the cached volume in bytes.", SRC_SIZE),
	STATES("fcache_volume_mode",
	       "1 for the current cache mode: writeback, writethrough, writearound or passthrough.",
	       "mode", NULL),	/* NULL: the mode words of tunables.c */
	VF("fcache_volume_cached_blocks", "gauge", "Cache blocks of this volume holding valid data.",
	   cached_blocks),
	VF("fcache_volume_dirty_blocks", "gauge", "Cache blocks of this volume holding dirty data.",
	   dirty_blocks),
	VF("fcache_volume_writeback_inflight_blocks", "gauge", "Cache blocks of this volume being written back now.",
	   wb_inflight),
	VF("fcache_volume_reads_total", "counter", "Read bios (after splitting at cache block boundaries).",
	   reads),
	VF("fcache_volume_read_hits_total", "counter", "Reads served entirely from the flash.",
	   read_hits),
	VF("fcache_volume_writes_total", "counter", "Write bios.",
	   writes),
	VF("fcache_volume_write_hits_total", "counter", "Writes to an already cached block.",
	   write_hits),
	VF("fcache_volume_bypassed_total", "counter", "Bios sent around the cache (sequential cutoff, high watermark).",
	   bypassed),
	VF("fcache_volume_errors_total", "counter", "I/O errors returned and failed writebacks.",
	   errors),
	VF("fcache_volume_promotions_total", "counter", "Cache fills (read-miss promotions and partial-write fills).",
	   promotions),
	VF("fcache_volume_writebacks_total", "counter", "Cache blocks written back to the origin.",
	   writebacks),
};

void fc_prom_label_value(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (*p) {
		if (*p == '\\') {
			fputs("\\\\", f);
		} else if (*p == '"') {
			fputs("\\\"", f);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else {
			n = fj_utf8_len(p);
			if (n) {
				fwrite(p, 1, n, f);
				p += n;
				continue;
			}
			fputc('?', f);
		}
		p++;
	}
	fputc('"', f);
}

static void label(FILE *f, const char *key, const char *val)
{
	fprintf(f, ",%s=", key);
	fc_prom_label_value(f, val);
}

static const struct fc_pool *pool_of(const struct fc_live *l, const struct fc_vol *v)
{
	int i;

	for (i = 0; i < l->npools; i++)
		if (l->pools[i].dev == v->pool_dev)
			return &l->pools[i];
	return NULL;
}

static int want_pool(const struct fc_prom_sel *sel, const struct fc_pool *p)
{
	if (!sel || !sel->only)
		return 1;
	if (sel->pool)
		return sel->pool == p;
	return sel->vol && sel->vol->pool_dev == p->dev;
}

static int want_vol(const struct fc_prom_sel *sel, const struct fc_vol *v)
{
	if (!sel || !sel->only)
		return 1;
	if (sel->vol)
		return sel->vol == v;
	return sel->pool && sel->pool->dev == v->pool_dev;
}

/* "name{pool=...[,volume=...]" : the caller adds labels and the value */
static void start(FILE *f, const char *name, const struct fc_pool *p, const struct fc_vol *v)
{
	fprintf(f, "%s{pool=", name);
	fc_prom_label_value(f, p->name);
	if (v)
		label(f, "volume", v->name);
}

static void value(FILE *f, uint64_t val)
{
	fprintf(f, "} %" PRIu64 "\n", val);
}

static void states(FILE *f, const struct family *m, const struct fc_pool *p,
		   const struct fc_vol *v, const char *cur)
{
	const char *const *st = m->states ? m->states : fc_mode_words();
	int i, known = 0;

	if (!cur[0])
		return;
	for (i = 0; st[i]; i++) {
		start(f, m->name, p, v);
		label(f, m->label, st[i]);
		value(f, !strcmp(cur, st[i]));
		known |= !strcmp(cur, st[i]);
	}
	if (!known) {	/* a state this fcachectl does not know yet */
		start(f, m->name, p, v);
		label(f, m->label, cur);
		value(f, 1);
	}
}

/*
 * The samples pools and volumes (@v NULL: pool @p) give alike: status_ok,
 * size, and a counter or gauge of the status (@st: its fields).  1 if @m
 * is one of them (printed, or left out without a status), else 0.
 */
static int common_sample(FILE *f, const struct family *m, const struct fc_pool *p,
			 const struct fc_vol *v, const void *st)
{
	int have = v ? v->have_status : p->have_status;

	if (m->src != SRC_STATUS_OK && m->src != SRC_SIZE && m->src != SRC_FIELD)
		return 0;
	if (m->src == SRC_FIELD && !have)
		return 1;
	start(f, m->name, p, v);
	if (m->src == SRC_STATUS_OK)
		value(f, !!have);
	else if (m->src == SRC_SIZE)
		value(f, (v ? v->sectors : p->sectors) * 512);
	else
		value(f, *(const uint64_t *)((const char *)st + m->off));
	return 1;
}

static void pool_sample(FILE *f, const struct family *m, const struct fc_pool *p,
			const char *(*dev_path)(dev_t dev))
{
	const struct fc_pool_status *st = &p->st;

	if (common_sample(f, m, p, NULL, st))
		return;
	switch (m->src) {
	case SRC_INFO:
		start(f, m->name, p, NULL);
		label(f, "flash", dev_path(p->flash));
		value(f, 1);
		return;
	case SRC_BLOCK_SIZE:
		start(f, m->name, p, NULL);
		value(f, (uint64_t)p->block_sectors * 512);
		return;
	default:
		break;
	}
	if (!p->have_status)
		return;
	if (m->src == SRC_ORIGIN) {
		if (st->have_origin) {
			start(f, m->name, p, NULL);
			value(f, *(const uint64_t *)((const char *)st + m->off));
		}
		return;
	}
	if (m->src == SRC_STATE) {
		states(f, m, p, NULL, (const char *)st + m->off);
		return;
	}
	start(f, m->name, p, NULL);	/* SRC_NEEDS_CHECK */
	value(f, !!st->needs_check);
}

static void vol_sample(FILE *f, const struct family *m, const struct fc_pool *p,
		       const struct fc_vol *v, const char *(*dev_path)(dev_t dev))
{
	char id[16];

	if (common_sample(f, m, p, v, &v->st))
		return;
	switch (m->src) {
	case SRC_INFO:
		snprintf(id, sizeof(id), "%u", v->id);
		start(f, m->name, p, v);
		label(f, "id", id);
		label(f, "label", v->label);
		label(f, "origin", dev_path(v->origin));
		label(f, "in_place", v->in_place ? "1" : "0");
		value(f, 1);
		return;
	default:		/* SRC_STATE: the table's mode when the status is unreadable */
		states(f, m, p, v, v->have_status && v->st.mode[0] ? v->st.mode : v->mode);
		return;
	}
}

static void head(FILE *f, const struct family *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, m->type);
}

void fc_prom_write(FILE *f, const struct fc_live *l, const struct fc_prom_sel *sel,
		   const char *(*dev_path)(dev_t dev))
{
	size_t k;
	int i, n = 0;

	for (i = 0; i < l->npools; i++)
		n += want_pool(sel, &l->pools[i]);
	fprintf(f, "# HELP fcache_pools Number of fcache pools in this output.\n"
		"# TYPE fcache_pools gauge\nfcache_pools %d\n", n);
	for (k = 0; k < sizeof(pool_fams) / sizeof(pool_fams[0]); k++) {
		head(f, &pool_fams[k]);
		for (i = 0; i < l->npools; i++)
			if (want_pool(sel, &l->pools[i]))
				pool_sample(f, &pool_fams[k], &l->pools[i], dev_path);
	}
	for (k = 0; k < sizeof(vol_fams) / sizeof(vol_fams[0]); k++) {
		head(f, &vol_fams[k]);
		for (i = 0; i < l->nvols; i++) {
			const struct fc_vol *v = &l->vols[i];
			const struct fc_pool *p = pool_of(l, v);

			if (p && want_pool(sel, p) && want_vol(sel, v))
				vol_sample(f, &vol_fams[k], p, v, dev_path);
		}
	}
}
