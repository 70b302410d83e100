// SPDX-License-Identifier: GPL-2.0
/*
 * What `fcachectl status` says about a pool's flash devices
 * (userspace/ctl/fc_status.c) on synthetic pools: one device, mirrored
 * (devices in the table in the other order than their legs), degraded
 * (a leg missing, its dirty blocks at risk), a leg failed at run time
 * (still in the table), a mirrored pool whose status
 * could not be read; the text's first line and the JSON keys redundancy,
 * lone_dirty_blocks, devices, unwritable_blocks and flushes; the FLASH
 * column of pool list; the pool status line of each module version.
 *
 *   test_status          the checks (PASS:/FAIL: lines)
 *   test_status --emit   only print the fcache.status document of the
 *                        synthetic pools, for tests/host/json_schema.py
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "unit.h"
#include "fc_status.h"

static const char *fake_dev_path(dev_t dev)
{
	static char buf[64];	/* one buffer, as fc_dev_path() */

	snprintf(buf, sizeof(buf), "/dev/fake%u-%u", major(dev), minor(dev));
	return buf;
}

static struct fc_pool pools[6];
static struct fc_vol vols[1];
static struct fc_live live = { pools, 6, vols, 1 };

static void pool(int i, const char *name, const char *table, const char *red, const char *legs,
		 uint64_t dirty, uint64_t lone)
{
	struct fc_pool *p = &pools[i];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->table, sizeof(p->table), "%s", table);
	p->dev = makedev(253, i);
	p->sectors = 2097152;
	fc_parse_pool_table(p);
	p->have_status = red != NULL;
	if (!red)
		return;
	p->st = (struct fc_pool_status){ .block_sectors = 64, .total_blocks = 64000,
		.used_blocks = 100, .dirty_blocks = dirty, .metadata_mode = "rw",
		.wb_state = "idle", .lone_dirty_blocks = lone, .free_blocks = 63900,
		.flushes = "ok" };
	snprintf(p->st.redundancy, sizeof(p->st.redundancy), "%s", red);
	snprintf(p->st.legs, sizeof(p->st.legs), "%s", legs);
}

static void setup(void)
{
	pool(0, "single", "8:16 64", "single", "ok", 10, 10);
	/* 8:32 is leg 1, 8:48 leg 0 (as their superblocks say) */
	pool(1, "mirr", "8:32 64 4 mirror 8:48 writeback_high 70", "mirrored", "ok,ok", 40, 0);
	pools[1].leg_of[0] = 1;
	pools[1].leg_of[1] = 0;
	/* loaded on 8:64 (leg 0) alone */
	pool(2, "degr", "8:64 64 4 mirror - degraded 1", "degraded", "ok,missing", 1234, 1234);
	/* mirrored, status unreadable */
	pool(3, "nost", "8:80 64 2 mirror 8:96", NULL, NULL, 0, 0);
	/* both devices in the table, leg 0 failed at run time */
	pool(4, "fail", "8:112 64 2 mirror 8:128", "degraded", "failed,ok", 77, 77);
	/* leg 1 replaced online, its copies being made */
	pool(5, "resy", "8:144 64 2 mirror 8:160", "degraded", "ok,resync", 90, 12);
	memset(vols, 0, sizeof(vols));
	snprintf(vols[0].name, sizeof(vols[0].name), "v0");
	snprintf(vols[0].mode, sizeof(vols[0].mode), "writeback");
	vols[0].pool_dev = pools[2].dev;
	vols[0].origin = makedev(252, 0);
	vols[0].id = 1;
	vols[0].have_status = 1;
}

static char *render(int json, int i)
{
	static const struct fc_status_hooks h = { fake_dev_path, NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		exit(1);
	if (json)
		fc_status_json(f, &live, NULL, 0, i >= 0 ? &pools[i] : NULL, NULL, &h);
	else
		fc_status_pool_head(f, &pools[i], fake_dev_path);
	fclose(f);
	return buf;
}

static int has(const char *out, const char *s)
{
	return strstr(out, s) != NULL;
}

int main(int argc, char **argv)
{
	struct fc_pool_dev d[2];
	char *out;
	int n;

	setup();
	if (argc > 1 && !strcmp(argv[1], "--emit")) {
		out = render(1, -1);
		fputs(out, stdout);
		free(out);
		return 0;
	}
	CHECK("table: one device", pools[0].nr_legs == 1 && pools[0].flash == makedev(8, 16) &&
	      !pools[0].flash2);
	CHECK("table: mirror <dev> among the tunables", pools[1].nr_legs == 2 &&
	      pools[1].flash2 == makedev(8, 48) && !pools[1].degraded_opt && pools[1].block_sectors == 64);
	CHECK("table: mirror - degraded 1", pools[2].nr_legs == 2 && !pools[2].flash2 &&
	      pools[2].degraded_opt);

	n = fc_pool_devices(&pools[1], d, fake_dev_path);
	CHECK("devices: in leg order, each its own path", n == 2 && d[0].leg == 0 &&
	      !strcmp(d[0].path, "/dev/fake8-48") && !strcmp(d[1].path, "/dev/fake8-32") &&
	      !strcmp(d[0].state, "ok") && !strcmp(d[1].state, "ok"));
	n = fc_pool_devices(&pools[2], d, fake_dev_path);
	CHECK("devices: degraded: the missing leg has no path", n == 2 &&
	      !strcmp(d[0].path, "/dev/fake8-64") && !d[1].path[0] && !strcmp(d[1].state, "missing"));
	CHECK("redundancy: from the table without a status",
	      !strcmp(fc_pool_redundancy(&pools[3]), "mirrored"));

	{
		char b[600];

		CHECK("pool list: one device: its path",
		      !strcmp(fc_pool_flash_text(&pools[0], b, sizeof(b), fake_dev_path), "/dev/fake8-16"));
		CHECK("pool list: mirrored: both in leg order",
		      !strcmp(fc_pool_flash_text(&pools[1], b, sizeof(b), fake_dev_path), "/dev/fake8-48 + /dev/fake8-32"));
		CHECK("pool list: a missing leg: '-' and its state",
		      !strcmp(fc_pool_flash_text(&pools[2], b, sizeof(b), fake_dev_path), "/dev/fake8-64 + -(missing)"));
		CHECK("pool list: a failed leg: its state",
		      !strcmp(fc_pool_flash_text(&pools[4], b, sizeof(b), fake_dev_path), "/dev/fake8-112(failed) + /dev/fake8-128"));
		CHECK("pool list: a leg in resync: its state",
		      !strcmp(fc_pool_flash_text(&pools[5], b, sizeof(b), fake_dev_path), "/dev/fake8-144 + /dev/fake8-160(resync)"));
	}

	out = render(0, 0);
	CHECK("text: one device: as before", !strcmp(out, "pool single on /dev/fake8-16: 1.0 GiB, 32 KiB blocks\n"));
	free(out);
	out = render(0, 1);
	CHECK("text: mirrored: both devices in leg order",
	      !strcmp(out, "pool mirr on /dev/fake8-48 + /dev/fake8-32: 1.0 GiB, 32 KiB blocks, mirrored\n"));
	free(out);
	out = render(0, 2);
	CHECK("text: degraded: DEGRADED on the first line, with the dirty blocks at risk",
	      has(out, "pool degr on /dev/fake8-64 + (missing): 1.0 GiB, 32 KiB blocks, DEGRADED: leg 1 missing, 1234 dirty blocks (38.6 MiB) AT RISK (one copy)\n"));
	CHECK("text: degraded: what to do", has(out, "\n  DEGRADED: the dirty data has one copy, on /dev/fake8-64 only;") &&
	      has(out, "'fcachectl flush degr' writes the 1234 blocks back"));
	free(out);

	out = render(0, 4);
	CHECK("text: a leg failed at run time: named, the other holds the dirty data",
	      has(out, "pool fail on /dev/fake8-112 + /dev/fake8-128: 1.0 GiB, 32 KiB blocks, DEGRADED: leg 0 failed, 77 dirty blocks (2.4 MiB) AT RISK (one copy)\n") &&
	      has(out, "one copy, on /dev/fake8-128 only;"));
	free(out);

	out = render(0, 5);
	CHECK("text: a replaced leg in resync: what is left, where the one copy is",
	      has(out, "DEGRADED, 12 dirty blocks (384.0 KiB) AT RISK (one copy)\n") &&
	      has(out, "  RESYNC: /dev/fake8-160 replaced a failed device; 12 dirty blocks still have one copy, on /dev/fake8-144,"));
	free(out);

	out = render(1, -1);
	CHECK("json: a failed leg keeps its path, state failed",
	      has(out, "\"redundancy\":\"degraded\",\"lone_dirty_blocks\":77,\"devices\":[{\"path\":\"/dev/fake8-112\",\"leg\":0,\"state\":\"failed\"},{\"path\":\"/dev/fake8-128\",\"leg\":1,\"state\":\"ok\"}]"));
	free(out);

	{
		struct fc_pool_status st;

		CHECK("status line: 20 fields, read-only metadata",
		      !fc_parse_pool_status("64 2045 768 480 ro 1 0 0 1 active 3 15 1 1 1277 single 480 ok 2 draining", &st) &&
		      !strcmp(st.metadata_mode, "ro") && st.needs_check == 1 &&
		      st.unwritable_blocks == 2 && !strcmp(st.flushes, "draining") &&
		      !strcmp(st.legs, "ok"));
		CHECK("status line: 18 fields (before issue 32 item 7), ro: flushes failing",
		      !fc_parse_pool_status("64 2045 768 480 ro 1 0 0 1 idle 0 15 1 1 1277 single 480 ok", &st) &&
		      st.unwritable_blocks == 0 && !strcmp(st.flushes, "failing"));
		CHECK("status line: 18 fields, rw: flushes ok",
		      !fc_parse_pool_status("64 2045 768 480 rw 0 0 0 0 idle 0 15 1 1 1277 single 480 ok", &st) &&
		      !strcmp(st.flushes, "ok"));
		CHECK("status line: 15 fields (before mirrored pools)",
		      !fc_parse_pool_status("64 2045 768 480 rw 0 0 0 0 idle 0 15 1 1 1277", &st) &&
		      !strcmp(st.redundancy, "single") && st.lone_dirty_blocks == 480 &&
		      !strcmp(st.flushes, "ok"));
		CHECK("status line: 23 fields, the origins' lag (ordered write-back)",
		      !fc_parse_pool_status("64 2045 768 480 rw 0 0 0 0 active 3 15 1 1 1277 single 480 ok 0 ok open 6 2", &st) &&
		      st.have_origin && st.origin_behind == 6 && st.origin_lag == 2 && !strcmp(st.acks, "open"));
		CHECK("status line: 21 fields, no lag reported",
		      !fc_parse_pool_status("64 2045 768 480 rw 0 0 0 0 active 3 15 1 1 1277 single 480 ok 0 ok held", &st) &&
		      !st.have_origin && !strcmp(st.acks, "held"));
		CHECK("status line: 22 fields: refused",
		      fc_parse_pool_status("64 2045 768 480 rw 0 0 0 0 active 3 15 1 1 1277 single 480 ok 0 ok open 6", &st));
		CHECK("status line: 16 fields: refused", fc_parse_pool_status("64 2045 768 480 rw 0 0 0 0 idle 0 15 1 1 1277 single", &st));
	}

	out = render(1, -1);
	CHECK("json: read-only metadata: unwritable_blocks and flushes after devices",
	      has(out, "\"state\":\"ok\"}],\"unwritable_blocks\":0,\"flushes\":\"ok\""));
	free(out);

	out = render(1, -1);
	CHECK("json: redundancy of each pool", has(out, "\"name\":\"single\"") &&
	      has(out, "\"redundancy\":\"single\",\"lone_dirty_blocks\":10,\"devices\":[{\"path\":\"/dev/fake8-16\",\"leg\":0,\"state\":\"ok\"}]"));
	CHECK("json: mirrored: both devices in leg order",
	      has(out, "\"redundancy\":\"mirrored\",\"lone_dirty_blocks\":0,\"devices\":[{\"path\":\"/dev/fake8-48\",\"leg\":0,\"state\":\"ok\"},{\"path\":\"/dev/fake8-32\",\"leg\":1,\"state\":\"ok\"}]"));
	CHECK("json: degraded: the missing leg, path null",
	      has(out, "\"redundancy\":\"degraded\",\"lone_dirty_blocks\":1234,\"devices\":[{\"path\":\"/dev/fake8-64\",\"leg\":0,\"state\":\"ok\"},{\"path\":null,\"leg\":1,\"state\":\"missing\"}]"));
	CHECK("json: no status: the table's redundancy",
	      has(out, "\"status_ok\":false") && has(out, "\"redundancy\":\"mirrored\",\"lone_dirty_blocks\":0,\"devices\":[{\"path\":\"/dev/fake8-80\""));
	free(out);
	return unit_failed;
}
