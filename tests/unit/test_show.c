// SPDX-License-Identifier: GPL-2.0
/*
 * The settings of `fcachectl show` / `get` (userspace/ctl/fc_show.c) from
 * tables as `dmsetup table` prints them: defaults for what the table leaves
 * out, the values it gives, every key 'get' knows, tables refused, the text
 * and the JSON document.
 *
 *   test_show           the checks (PASS:/FAIL: lines)
 *   test_show --emit    only print fcache.show documents of a pool and two
 *                       volumes, for tests/host/json_schema.py (ctl_json.sh)
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "fc_show.h"
#include "tunables.h"
#include "fcache_abi.h"

static const char *get(const struct fc_show *sh, const char *key)
{
	static char buf[64];

	return fc_show_get(sh, key, buf, sizeof(buf));
}

static int eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* the text or JSON of @sh, in a malloc'ed string */
static char *out(const struct fc_show *sh, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		fc_show_json(f, sh);
	else
		fc_show_text(f, sh);
	fclose(f);
	return buf;
}

static const char *pool_table = "253:16 64 4 writeback_high 70 commit_interval 500";
static const char *vol_table = "253:3 8:32 7 writethrough 4 label sdc sequential_cutoff 0";
static const char *vol_bare = "253:3 8:48 2 writeback";

/* the table of settings (ctl/tunables.c): the kernel's ranges and defaults, the reasons */
static void tunables(void)
{
	const struct fc_tunable *t;
	char why[512];
	uint32_t v = 0;
	int n = 0;

	for (t = fc_tunables(); t->name; t++)
		n++;
	CHECK("tunables: 9 pool tunables and 2 volume settings", n == 11);
	t = fc_tunable(FC_TUN_POOL, "writeback_jobs");
	CHECK("tunables: writeback_jobs 1..1024, default from fcache_abi.h",
	      t && t->min == 1 && t->max == 1024 && t->def == FC_DEFAULT_WRITEBACK_JOBS &&
	      !t->is_mode);
	t = fc_tunable(FC_TUN_VOL, "sequential_cutoff");
	CHECK("tunables: sequential_cutoff in KiB", t && t->max == 4194304 && t->def == FC_DEFAULT_SEQ_CUTOFF_KIB &&
	      !strcmp(t->unit, "KiB"));
	CHECK("tunables: a pool tunable is no volume setting", !fc_tunable(FC_TUN_VOL, "writeback_high"));
	CHECK("tunables: 1024 jobs accepted",
	      !fc_tunable_check(FC_TUN_POOL, "writeback_jobs", "1024", &t, &v, why, sizeof(why)) && v == 1024);
	CHECK("tunables: 0 jobs refused with the kernel's words",
	      fc_tunable_check(FC_TUN_POOL, "writeback_jobs", "0", NULL, NULL, why, sizeof(why)) &&
	      !strcmp(why, "bad value for writeback_jobs: '0': writeback_jobs must be 1..1024"));
	CHECK("tunables: hex refused", fc_tunable_check(FC_TUN_POOL, "max_dirty_age", "0x10", NULL, NULL, why, sizeof(why)));
	CHECK("tunables: unknown pool tunable listed",
	      fc_tunable_check(FC_TUN_POOL, "frob", "1", NULL, NULL, why, sizeof(why)) &&
	      !strcmp(why, "unknown pool tunable 'frob' (writeback_high, writeback_low, max_dirty_age, writeback_jobs, commit_interval, fence_hold, warm_restart, ordered, ordered_lag)"));
	CHECK("tunables: a mode", !fc_tunable_check(FC_TUN_VOL, "mode", "passthrough", &t, NULL, why, sizeof(why)) &&
	      t->is_mode);
	CHECK("tunables: a bad mode",
	      fc_tunable_check(FC_TUN_VOL, "mode", "fast", NULL, NULL, why, sizeof(why)) &&
	      !strcmp(why, "bad mode 'fast': writeback, writethrough, writearound or passthrough"));
	CHECK("tunables: enable takes no passthrough", fc_enable_mode("writearound") && !fc_enable_mode("passthrough"));
	CHECK("tunables: get keys", !strcmp(fc_show_vol_keys(), "pool, origin, id, label, in_place, mode, sequential_cutoff"));
}

int main(int argc, char **argv)
{
	struct fc_show p, v, w, bad;
	char *t;

	int rp = fc_show_parse_pool(&p, "p0", pool_table), rv = fc_show_parse_vol(&v, "db", vol_table);
	int rw = fc_show_parse_vol(&w, "fc-sdd", vol_bare);

	if (argc > 1 && !strcmp(argv[1], "--emit")) {
		if (rp || rv || rw)
			return 1;
		snprintf(p.flash, sizeof(p.flash), "/dev/nvme0n1");
		snprintf(v.pool, sizeof(v.pool), "p0");
		snprintf(v.origin, sizeof(v.origin), "/dev/sdc");
		v.in_place = 1;
		fc_show_json(stdout, &p);
		fc_show_json(stdout, &v);
		fc_show_json(stdout, &w);
		return 0;
	}
	CHECK("show: pool table parses", !rp);
	CHECK("show: volume table parses", !rv);
	CHECK("show: volume table without options parses", !rw);
	CHECK("show: pool name", eq(p.name, "p0") && p.is_pool);
	CHECK("show: pool block_sectors", p.block_sectors == 64 && eq(get(&p, "block_sectors"), "64"));
	CHECK("show: pool flash as in the table", eq(get(&p, "flash"), "253:16"));
	CHECK("show: writeback_high from the table", eq(get(&p, "writeback_high"), "70"));
	CHECK("show: commit_interval from the table", eq(get(&p, "commit_interval"), "500"));
	CHECK("show: writeback_low default", eq(get(&p, "writeback_low"), "50"));
	CHECK("show: max_dirty_age default", eq(get(&p, "max_dirty_age"), "60"));
	CHECK("show: writeback_jobs default", eq(get(&p, "writeback_jobs"), "32"));
	CHECK("show: a pool has no mode", !get(&p, "mode") && !get(&p, "sequential_cutoff"));
	CHECK("show: volume mode", eq(get(&v, "mode"), "writethrough") && !v.is_pool);
	CHECK("show: volume id, label", eq(get(&v, "id"), "7") && eq(get(&v, "label"), "sdc"));
	CHECK("show: sequential_cutoff 0 from the table", eq(get(&v, "sequential_cutoff"), "0"));
	CHECK("show: sequential_cutoff default 1024", eq(get(&w, "sequential_cutoff"), "1024"));
	CHECK("show: pool and origin as in the table", eq(get(&v, "pool"), "253:3") && eq(get(&v, "origin"), "8:32"));
	CHECK("show: in_place no", eq(get(&w, "in_place"), "no"));
	CHECK("show: a volume has no writeback_high", !get(&v, "writeback_high") && !get(&v, "flash"));
	CHECK("show: get keys of a pool", fc_show_pool_key("commit_interval") && fc_show_pool_key("flash") &&
	      !fc_show_pool_key("mode"));
	CHECK("show: get keys of a volume", fc_show_vol_key("mode") && fc_show_vol_key("in_place") &&
	      !fc_show_vol_key("writeback_low"));

	CHECK("show: one device: mirror_device none", eq(get(&p, "mirror_device"), "none") && !p.mirror[0]);
	{
		struct fc_show m;

		CHECK("show: mirrored pool: its second device",
		      !fc_show_parse_pool(&m, "pm", "253:16 64 4 mirror 253:17 writeback_high 70") &&
		      eq(get(&m, "mirror_device"), "253:17") && eq(get(&m, "writeback_high"), "70"));
		t = out(&m, 0);
		CHECK("show: mirrored pool: text names both", strstr(t, "  flash              253:16\n  mirror_device      253:17\n") != NULL);
		free(t);
		t = out(&m, 1);
		CHECK("show: mirrored pool: JSON mirror_device", strstr(t, "\"flash\":\"253:16\",\"mirror_device\":\"253:17\",") != NULL);
		free(t);
		CHECK("show: degraded pool: mirror_device -",
		      !fc_show_parse_pool(&m, "pd", "253:16 64 4 mirror - degraded 1") && eq(get(&m, "mirror_device"), "-"));
	}
	CHECK("show: pool table without block size refused", fc_show_parse_pool(&bad, "x", "253:16"));
	CHECK("show: pool table with a wrong count refused",
	      fc_show_parse_pool(&bad, "x", "253:16 64 3 writeback_high 70"));
	CHECK("show: pool table with a word for a number refused",
	      fc_show_parse_pool(&bad, "x", "253:16 64 2 writeback_high x"));
	CHECK("show: volume table without mode refused", fc_show_parse_vol(&bad, "x", "253:3 8:32 7"));
	CHECK("show: volume table with a bad id refused", fc_show_parse_vol(&bad, "x", "253:3 8:32 x writeback"));

	t = out(&p, 0);
	CHECK("show: text names the pool", !strncmp(t, "pool p0\n", 8));
	CHECK("show: text gives units and defaults", strstr(t, "  writeback_high     70 %\n") &&
	      strstr(t, "  writeback_low      50 %  (default)\n") && strstr(t, "  commit_interval    500 ms\n"));
	CHECK("show: text gives the table", strstr(t, "  table              253:16 64 4 writeback_high 70 commit_interval 500\n") != NULL);
	free(t);
	t = out(&v, 0);
	CHECK("show: volume text", !strncmp(t, "volume db\n", 10) && strstr(t, "  mode               writethrough\n") &&
	      strstr(t, "  sequential_cutoff  0 KiB\n"));
	free(t);
	t = out(&p, 1);
	CHECK("show: JSON of a pool", !strcmp(t, "{\"schema\":\"fcache.show\",\"schema_version\":1,\"kind\":\"pool\",\"name\":\"p0\","
	      "\"table\":\"253:16 64 4 writeback_high 70 commit_interval 500\",\"flash\":\"253:16\",\"mirror_device\":null,\"block_sectors\":64,"
	      "\"settings\":{\"writeback_high\":70,\"writeback_low\":50,\"max_dirty_age\":60,\"writeback_jobs\":32,"
	      "\"commit_interval\":500,\"fence_hold\":0,\"warm_restart\":0,\"ordered\":0,\"ordered_lag\":0},\"defaults\":[\"writeback_low\",\"max_dirty_age\",\"writeback_jobs\",\"fence_hold\",\"warm_restart\",\"ordered\",\"ordered_lag\"]}\n"));
	free(t);
	t = out(&w, 1);
	CHECK("show: JSON of a volume", !strcmp(t, "{\"schema\":\"fcache.show\",\"schema_version\":1,\"kind\":\"volume\",\"name\":\"fc-sdd\","
	      "\"table\":\"253:3 8:48 2 writeback\",\"pool\":\"253:3\",\"origin\":\"8:48\",\"id\":2,\"label\":\"\",\"in_place\":false,"
	      "\"settings\":{\"mode\":\"writeback\",\"sequential_cutoff\":1024},\"defaults\":[\"sequential_cutoff\"]}\n"));
	free(t);
	tunables();
	return unit_failed;
}
