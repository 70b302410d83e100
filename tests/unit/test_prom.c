// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus formatter of `fcachectl status --prometheus`
 * (userspace/ctl/fc_prom.c) on synthetic pools and volumes: exact sample lines,
 * u64 counters at full precision, label escaping, selection, pools and
 * volumes whose status could not be read.
 *
 *   test_prom           the checks (PASS:/FAIL: lines)
 *   test_prom --emit    only print the synthetic exposition, for the strict
 *                       parser tests/host/prom_check.py (tests/host/ctl_prom.sh)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "unit.h"
#include "fc_prom.h"

static const char *fake_dev_path(dev_t dev)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "/dev/fake%u-%u", major(dev), minor(dev));
	return buf;
}

static struct fc_pool pools[3];
static struct fc_vol vols[4];
static struct fc_live live = { pools, 3, vols, 4 };

static void setup(void)
{
	struct fc_pool *p;
	struct fc_vol *v;

	memset(pools, 0, sizeof(pools));
	memset(vols, 0, sizeof(vols));
	p = &pools[0];
	snprintf(p->name, sizeof(p->name), "p0");
	p->dev = makedev(253, 0);
	p->flash = makedev(8, 16);
	p->sectors = 2097152;
	p->block_sectors = 64;
	p->have_status = 1;
	p->st = (struct fc_pool_status){ .block_sectors = 64, .total_blocks = 32000,
		.used_blocks = 1200, .dirty_blocks = 480, .metadata_mode = "rw", .needs_check = 0,
		.flash_read_errors = 3, .flash_write_errors = UINT64_MAX,
		.metadata_errors = 9007199254740993ULL,	/* 2^53 + 1: not a double */
		.wb_state = "background", .wb_inflight = 7, .commit_seq = 15,
		.active_volumes = 2, .registered_volumes = 3, .free_blocks = 30800,
		.redundancy = "degraded", .lone_dirty_blocks = 480, .legs = "ok,missing",
		.unwritable_blocks = 12, .flushes = "draining",
		.have_origin = 1, .origin_behind = 6, .origin_lag = 2 };
	/* a name with every character the format escapes, and a byte that is not UTF-8 */
	p = &pools[1];
	snprintf(p->name, sizeof(p->name), "we\"ird\\po\nol\xff\xc3\xa9");
	p->dev = makedev(253, 1);
	p->flash = makedev(8, 32);
	p->sectors = 1024;
	p->block_sectors = 8;
	p->have_status = 1;
	p->st = (struct fc_pool_status){ .metadata_mode = "frozen", .wb_state = "idle",
		.needs_check = 1, .redundancy = "single", .legs = "ok" };
	/* status unreadable */
	p = &pools[2];
	snprintf(p->name, sizeof(p->name), "p2");
	p->dev = makedev(253, 2);
	p->flash = makedev(8, 48);
	p->block_sectors = 64;

	v = &vols[0];
	snprintf(v->name, sizeof(v->name), "v0");
	snprintf(v->mode, sizeof(v->mode), "writeback");
	snprintf(v->label, sizeof(v->label), "db \"main\"");
	v->dev = makedev(253, 10);
	v->pool_dev = pools[0].dev;
	v->origin = makedev(252, 0);
	v->id = 1;
	v->sectors = 4096;
	v->have_status = 1;
	v->st = (struct fc_vol_status){ .mode = "writethrough", .cached_blocks = 100,
		.dirty_blocks = 0, .reads = UINT64_MAX, .read_hits = UINT64_MAX - 1,
		.writes = 18446744073709551557ULL, .write_hits = 1, .bypassed = 2,
		.wb_inflight = 0, .errors = 0, .promotions = 5, .writebacks = 6, .volume_id = 1 };
	v = &vols[1];	/* status unreadable: the table's mode */
	snprintf(v->name, sizeof(v->name), "v1");
	snprintf(v->mode, sizeof(v->mode), "writearound");
	v->dev = makedev(253, 11);
	v->pool_dev = pools[0].dev;
	v->origin = makedev(252, 16);
	v->id = 2;
	v->in_place = 1;
	v = &vols[2];	/* of the escaped pool */
	snprintf(v->name, sizeof(v->name), "v\\2");
	snprintf(v->mode, sizeof(v->mode), "writeback");
	v->dev = makedev(253, 12);
	v->pool_dev = pools[1].dev;
	v->origin = makedev(252, 32);
	v->id = 63;
	v->have_status = 1;
	snprintf(v->st.mode, sizeof(v->st.mode), "writeback");
	v = &vols[3];	/* its pool is not there: left out */
	snprintf(v->name, sizeof(v->name), "orphan");
	v->pool_dev = makedev(253, 99);
	v->have_status = 1;
}

static char *render(const struct fc_prom_sel *sel)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		exit(1);
	fc_prom_write(f, &live, sel, fake_dev_path);
	fclose(f);
	return buf;
}

static int has(const char *out, const char *line)
{
	size_t n = strlen(line);
	const char *p = out;

	/* a whole line */
	while ((p = strstr(p, line))) {
		if ((p == out || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p++;
	}
	return 0;
}

static int count(const char *out, const char *s)
{
	int n = 0;
	const char *p = out;

	while ((p = strstr(p, s))) {
		n++;
		p++;
	}
	return n;
}

/* every "# TYPE x counter" names x_total, every gauge does not end in _total */
static int types_match_names(const char *out)
{
	const char *p = out;
	char name[128], type[16];
	size_t n;
	int total;

	while ((p = strstr(p, "# TYPE "))) {
		if (sscanf(p, "# TYPE %127s %15s", name, type) != 2)
			return 0;
		n = strlen(name);
		total = n > 6 && !strcmp(name + n - 6, "_total");
		if ((strcmp(type, "counter") == 0) != total)
			return 0;
		p++;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct fc_prom_sel sel = { 0, NULL, NULL };
	char *out;

	setup();
	if (argc > 1 && !strcmp(argv[1], "--emit")) {
		out = render(NULL);
		fputs(out, stdout);
		free(out);
		return 0;
	}
	out = render(NULL);
	CHECK("prom: pool count", has(out, "fcache_pools 3"));
	CHECK("prom: pool gauge", has(out, "fcache_pool_dirty_blocks{pool=\"p0\"} 480"));
	CHECK("prom: pool counter, u64 max exact",
	      has(out, "fcache_pool_flash_write_errors_total{pool=\"p0\"} 18446744073709551615"));
	CHECK("prom: 2^53+1 exact (never through a double)",
	      has(out, "fcache_pool_metadata_errors_total{pool=\"p0\"} 9007199254740993"));
	CHECK("prom: block size in bytes", has(out, "fcache_pool_block_size_bytes{pool=\"p0\"} 32768"));
	CHECK("prom: pool size in bytes", has(out, "fcache_pool_size_bytes{pool=\"p0\"} 1073741824"));
	CHECK("prom: info names the flash",
	      has(out, "fcache_pool_info{pool=\"p0\",flash=\"/dev/fake8-16\"} 1"));
	CHECK("prom: metadata mode state set",
	      has(out, "fcache_pool_metadata_mode{pool=\"p0\",mode=\"rw\"} 1") &&
	      has(out, "fcache_pool_metadata_mode{pool=\"p0\",mode=\"ro\"} 0") &&
	      has(out, "fcache_pool_metadata_mode{pool=\"p0\",mode=\"fail\"} 0"));
	CHECK("prom: redundancy state set",
	      has(out, "fcache_pool_redundancy{pool=\"p0\",redundancy=\"degraded\"} 1") &&
	      has(out, "fcache_pool_redundancy{pool=\"p0\",redundancy=\"mirrored\"} 0") &&
	      has(out, "fcache_pool_redundancy{pool=\"p0\",redundancy=\"single\"} 0"));
	CHECK("prom: dirty blocks at risk (one copy)",
	      has(out, "fcache_pool_lone_dirty_blocks{pool=\"p0\"} 480"));
	CHECK("prom: blocks whose writes fail",
	      has(out, "fcache_pool_unwritable_blocks{pool=\"p0\"} 12"));
	CHECK("prom: ordered write-back: the origins' lag, where the module prints it",
	      has(out, "fcache_pool_origin_behind_flush_points{pool=\"p0\"} 6") &&
	      has(out, "fcache_pool_origin_lag_seconds{pool=\"p0\"} 2") &&
	      !has(out, "fcache_pool_origin_behind_flush_points{pool=\"we") &&
	      has(out, "# TYPE fcache_pool_origin_behind_flush_points gauge"));
	CHECK("prom: flushes state set",
	      has(out, "fcache_pool_flushes{pool=\"p0\",state=\"draining\"} 1") &&
	      has(out, "fcache_pool_flushes{pool=\"p0\",state=\"ok\"} 0") &&
	      has(out, "fcache_pool_flushes{pool=\"p0\",state=\"failing\"} 0"));
	CHECK("prom: writeback state set",
	      has(out, "fcache_pool_writeback_state{pool=\"p0\",state=\"background\"} 1") &&
	      has(out, "fcache_pool_writeback_state{pool=\"p0\",state=\"idle\"} 0"));
	CHECK("prom: volume counter u64 max",
	      has(out, "fcache_volume_reads_total{pool=\"p0\",volume=\"v0\"} 18446744073709551615"));
	CHECK("prom: volume counter near u64 max",
	      has(out, "fcache_volume_writes_total{pool=\"p0\",volume=\"v0\"} 18446744073709551557") &&
	      has(out, "fcache_volume_read_hits_total{pool=\"p0\",volume=\"v0\"} 18446744073709551614"));
	CHECK("prom: volume info, label escaped",
	      has(out, "fcache_volume_info{pool=\"p0\",volume=\"v0\",id=\"1\",label=\"db \\\"main\\\"\",origin=\"/dev/fake252-0\",in_place=\"0\"} 1"));
	CHECK("prom: volume mode from the status",
	      has(out, "fcache_volume_mode{pool=\"p0\",volume=\"v0\",mode=\"writethrough\"} 1") &&
	      has(out, "fcache_volume_mode{pool=\"p0\",volume=\"v0\",mode=\"writeback\"} 0"));
	CHECK("prom: volume without status: mode of the table, status_ok 0, no counters",
	      has(out, "fcache_volume_mode{pool=\"p0\",volume=\"v1\",mode=\"writearound\"} 1") &&
	      has(out, "fcache_volume_status_ok{pool=\"p0\",volume=\"v1\"} 0") &&
	      !strstr(out, "fcache_volume_reads_total{pool=\"p0\",volume=\"v1\"}"));
	CHECK("prom: label escaping (quote, backslash, newline, not UTF-8)",
	      has(out, "fcache_pool_needs_check{pool=\"we\\\"ird\\\\po\\nol?\xc3\xa9\"} 1"));
	CHECK("prom: escaped volume name",
	      has(out, "fcache_volume_status_ok{pool=\"we\\\"ird\\\\po\\nol?\xc3\xa9\",volume=\"v\\\\2\"} 1"));
	CHECK("prom: unknown state still reported",
	      has(out, "fcache_pool_metadata_mode{pool=\"we\\\"ird\\\\po\\nol?\xc3\xa9\",mode=\"frozen\"} 1"));
	CHECK("prom: pool without status: status_ok 0, sizes, no counters",
	      has(out, "fcache_pool_status_ok{pool=\"p2\"} 0") &&
	      has(out, "fcache_pool_block_size_bytes{pool=\"p2\"} 32768") &&
	      !strstr(out, "fcache_pool_blocks{pool=\"p2\"}") &&
	      !strstr(out, "fcache_pool_metadata_mode{pool=\"p2\""));
	CHECK("prom: volume of an absent pool left out", !strstr(out, "orphan"));
	CHECK("prom: one HELP and one TYPE per family",
	      count(out, "# TYPE fcache_volume_reads_total counter\n") == 1 &&
	      count(out, "# HELP fcache_volume_reads_total ") == 1 &&
	      count(out, "# TYPE ") == count(out, "# HELP "));
	CHECK("prom: counters and only counters end in _total", types_match_names(out));
	CHECK("prom: ends with a newline", out[strlen(out) - 1] == '\n');
	free(out);

	sel.only = 1;
	sel.vol = &vols[0];
	out = render(&sel);
	CHECK("prom: one volume selected: its pool and it",
	      has(out, "fcache_pools 1") && strstr(out, "volume=\"v0\"") &&
	      !strstr(out, "volume=\"v1\"") && !strstr(out, "pool=\"p2\""));
	free(out);

	sel.vol = NULL;
	sel.pool = &pools[0];
	out = render(&sel);
	CHECK("prom: one pool selected: it and its volumes",
	      has(out, "fcache_pools 1") && strstr(out, "volume=\"v0\"") && strstr(out, "volume=\"v1\"") &&
	      !strstr(out, "volume=\"v\\\\2\"") && !strstr(out, "pool=\"p2\""));
	free(out);

	sel.pool = NULL;
	out = render(&sel);
	CHECK("prom: selection gone: no samples, families still described",
	      has(out, "fcache_pools 0") && !strstr(out, "{pool=") &&
	      strstr(out, "# TYPE fcache_volume_errors_total counter\n"));
	free(out);

	live.npools = 0;
	live.nvols = 0;
	out = render(NULL);
	CHECK("prom: no pools", has(out, "fcache_pools 0") && !strstr(out, "{"));
	free(out);
	return unit_failed;
}
