// SPDX-License-Identifier: GPL-2.0
/*
 * What pool create does with the devices it was given, decided from their
 * superblocks alone (no device-mapper, so the host tests run it on image
 * files: tests/host/ctl_plan.c): format blank devices, load a pool, load
 * one leg of a mirrored pool degraded, reformat with --force, or refuse
 * with the reason.  The device checks that need the system (a block
 * device, in use, signatures) are pool.c's.
 */
#include <stdio.h>
#include <string.h>
#include "fcachectl.h"
#include "fc_check.h"

int fc_create_plan(int n, const int *fd, const char *const *path, const char *name, int degraded,
		   int force, char *why, size_t len)
{
	struct fc_leg_info li[2];
	uint32_t bs;
	int have[2] = { 0, 0 }, i, v, older = -1;
	char pair[640];

	for (i = 0; i < n; i++)
		have[i] = fc_probe_pool(fd[i], &bs) && fc_probe_leg(fd[i], &li[i]);
	if (n == 1 && degraded) {
		if (have[0] && li[0].mirrored)
			return FC_PLAN_LOAD_DEGRADED;
		snprintf(why, len, "--degraded loads one leg of a mirrored pool, and %s is not one%s; nothing changed",
			 path[0], have[0] ? " (it holds a one-device pool: omit --degraded)" : "");
		return FC_PLAN_REFUSE;
	}
	if (force & FC_CREATE_FORCE)
		return have[0] || have[1] ? FC_PLAN_REFORMAT : FC_PLAN_FORMAT;
	if (n == 1) {
		if (!have[0])
			return FC_PLAN_FORMAT;
		if (!li[0].mirrored)
			return FC_PLAN_LOAD;
		snprintf(why, len, "%s is leg %u of a mirrored pool; nothing changed: give its other device ('fcachectl pool create %s %s OTHERDEV'), or add --degraded to run on %s alone (its dirty data then has one copy: 'fcachectl check %s OTHERDEV' first tells whether this device holds the newest data)",
			 path[0], li[0].leg, name, path[0], path[0], path[0]);
		return FC_PLAN_REFUSE;
	}
	if (!have[0] && !have[1])
		return FC_PLAN_FORMAT;
	if (have[0] != have[1]) {
		i = !have[0];	/* the one with a pool */
		if (li[i].mirrored)
			snprintf(why, len, "%s holds leg %u of a mirrored pool but %s holds no pool; nothing changed: a leg is loaded with its partner, or alone with --degraded; a blank device does not join it here (--force reformats both as a new, empty mirrored pool)",
				 path[i], li[i].leg, path[!i]);
		else
			snprintf(why, len, "%s holds a one-device fcache pool but %s holds no pool; nothing changed: a one-device pool does not take a second device (--force reformats both as a new, empty mirrored pool)",
				 path[i], path[!i]);
		return FC_PLAN_REFUSE;
	}
	v = fc_pair_verdict_fd(fd[0], path[0], fd[1], path[1], &older, pair, sizeof(pair));
	if (v == FC_PAIR_IN_SYNC || v == FC_PAIR_LAGGING)
		return FC_PLAN_LOAD;
	if (v < 0)
		snprintf(pair, sizeof(pair), "a superblock cannot be read");
	snprintf(why, len, "%s and %s do not load together: %s; nothing changed ('fcachectl check %s %s' tells more%s%s)",
		 path[0], path[1], pair, path[0], path[1],
		 (v == FC_PAIR_STALE || v == FC_PAIR_SPLIT_BRAIN) && older >= 0 ?
		 "; to run on the device with the newest data alone: fcachectl pool create NAME " : "",
		 (v == FC_PAIR_STALE || v == FC_PAIR_SPLIT_BRAIN) && older >= 0 ? path[!older] : "");
	if ((v == FC_PAIR_STALE || v == FC_PAIR_SPLIT_BRAIN) && older >= 0)
		snprintf(why + strlen(why) - 1, len - strlen(why) + 1, " --degraded)");
	return FC_PLAN_REFUSE;
}
