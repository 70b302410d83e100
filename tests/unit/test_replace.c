// SPDX-License-Identifier: GPL-2.0
/*
 * What `fcachectl pool replace` decides (userspace/ctl/replace_plan.c) on
 * synthetic pools, before it touches anything: no such pool, one device,
 * mirrored and in sync, status unreadable, a leg in resync already (all
 * refused, with the reason); a leg missing (loaded degraded) or failed at
 * run time, in table order or not (the device in service, the leg
 * replaced); the new device being the one in service (refused) or the
 * failed one back again; and the table the reload loads: the device in
 * service first, 'mirror NEWDEV replace 1', every tunable kept, no
 * 'degraded'.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "unit.h"
#include "fc_status.h"

static struct fc_pool P;

static struct fc_pool *pool(const char *name, const char *table, const char *red, const char *legs,
			    uint64_t lone)
{
	memset(&P, 0, sizeof(P));
	snprintf(P.name, sizeof(P.name), "%s", name);
	snprintf(P.table, sizeof(P.table), "%s", table);
	P.sectors = 2097152;
	fc_parse_pool_table(&P);
	P.have_status = red != NULL;
	if (red) {
		snprintf(P.st.redundancy, sizeof(P.st.redundancy), "%s", red);
		snprintf(P.st.legs, sizeof(P.st.legs), "%s", legs);
		P.st.lone_dirty_blocks = lone;
	}
	return &P;
}

static char why[1024];
static struct fc_replace rp;

static int refused(const struct fc_pool *p, dev_t nd, const char *msg)
{
	return fc_replace_plan(p, "px", nd, "/dev/new", &rp, why, sizeof(why)) == -1 &&
	       strstr(why, msg) != NULL;
}

static int planned(const struct fc_pool *p, dev_t nd)
{
	why[0] = 0;
	return !fc_replace_plan(p, "px", nd, "/dev/new", &rp, why, sizeof(why));
}

static int table_is(const struct fc_pool *p, dev_t nd, const char *want)
{
	char params[1400];

	if (fc_replace_table(p, rp.keep, nd, params, sizeof(params)))
		return 0;
	if (strcmp(params, want)) {
		printf("  got '%s'\n  want '%s'\n", params, want);
		return 0;
	}
	return 1;
}

int main(void)
{
	dev_t nd = makedev(8, 200);
	struct fc_pool *p;

	CHECK("no such pool: refused, says up --degraded comes first",
	      refused(NULL, nd, "no active pool named 'px'") && strstr(why, "'fcachectl up --degraded'"));
	CHECK("one device: nothing to replace",
	      refused(pool("one", "8:16 64", "single", "ok", 3), nd, "pool one has one flash device: nothing to replace"));
	CHECK("mirrored, both ok: not degraded",
	      refused(pool("mirr", "8:32 64 2 mirror 8:48", "mirrored", "ok,ok", 0), nd,
		      "pool mirr is not degraded: nothing to replace"));
	CHECK("status unreadable: refused",
	      refused(pool("nost", "8:32 64 2 mirror 8:48", NULL, NULL, 0), nd, "cannot read the status of pool nost"));
	CHECK("a leg in resync already: refused, names the progress",
	      refused(pool("resy", "8:144 64 2 mirror 8:160", "degraded", "ok,resync", 12), nd,
		      "leg 1 is being resynced already; nothing to replace"));

	/* loaded degraded on 8:64 (leg 0) alone, with tunables */
	p = pool("degr", "8:64 64 8 mirror - degraded 1 writeback_high 70 max_dirty_age 0", "degraded",
		 "ok,missing", 1234);
	CHECK("missing leg: planned", planned(p, nd));
	CHECK("missing leg: the one in service kept, leg 1 replaced",
	      rp.keep == makedev(8, 64) && rp.leg == 1 && !rp.old && !rp.same && !strcmp(rp.state, "missing"));
	CHECK("missing leg: the table: mirror NEWDEV replace 1, tunables kept, no degraded",
	      table_is(p, nd, "8:64 64 8 mirror 8:200 replace 1 writeback_high 70 max_dirty_age 0"));
	CHECK("missing leg: the device in service as NEWDEV: refused",
	      refused(p, makedev(8, 64), "/dev/new is the device in service of pool degr (leg 0); give the new device for leg 1 (missing)"));

	/* the device in the table is leg 1 (its superblock says): leg 0 missing */
	p = pool("deg0", "8:64 64 4 mirror - degraded 1", "degraded", "missing,ok", 5);
	p->leg_of[0] = 1;
	p->leg_of[1] = 0;
	CHECK("missing leg 0: leg 0 replaced, the device in service kept",
	      planned(p, nd) && rp.leg == 0 && rp.keep == makedev(8, 64) && !rp.old);
	CHECK("missing leg 0: the table", table_is(p, nd, "8:64 64 4 mirror 8:200 replace 1"));

	/* both devices in the table, leg 0 (the first) failed at run time */
	p = pool("fail", "8:112 64 4 mirror 8:128 commit_interval 500", "degraded", "failed,ok", 77);
	CHECK("failed leg: planned", planned(p, nd));
	CHECK("failed leg: the second device stays, the failed one named",
	      rp.keep == makedev(8, 128) && rp.old == makedev(8, 112) && rp.leg == 0 && !rp.same &&
	      !strcmp(rp.state, "failed"));
	CHECK("failed leg: the table puts the device in service first",
	      table_is(p, nd, "8:128 64 6 mirror 8:200 replace 1 commit_interval 500"));
	CHECK("failed leg: the device in service as NEWDEV: refused",
	      refused(p, makedev(8, 128), "is the device in service of pool fail (leg 1); give the new device for leg 0 (failed)"));
	CHECK("failed leg: the failed device itself back again: planned, marked same",
	      planned(p, makedev(8, 112)) && rp.same && rp.keep == makedev(8, 128));

	/* legs not in table order: 8:32 is leg 1 (failed), 8:48 leg 0 */
	p = pool("swap", "8:32 64 6 mirror 8:48 writeback_low 10 writeback_high 60", "degraded", "ok,failed", 9);
	p->leg_of[0] = 1;
	p->leg_of[1] = 0;
	CHECK("legs out of table order: the failed leg's device is the first of the table",
	      planned(p, nd) && rp.leg == 1 && rp.old == makedev(8, 32) && rp.keep == makedev(8, 48));
	CHECK("legs out of table order: the table",
	      table_is(p, nd, "8:48 64 8 mirror 8:200 replace 1 writeback_low 10 writeback_high 60"));

	/* a table with replace already (a reload cut short) gets one replace */
	p = pool("rep", "8:112 64 4 mirror 8:128 replace 1", "degraded", "ok,failed", 1);
	CHECK("a table with replace 1 already: one replace in the new one",
	      planned(p, nd) && table_is(p, nd, "8:112 64 4 mirror 8:200 replace 1"));
	return unit_failed;
}
