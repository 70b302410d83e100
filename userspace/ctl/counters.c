// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl reset-counters POOL|VOLUME: the message clear_stats.  To a
 * volume it zeroes that volume's counters; to a pool, the counters of every
 * volume slot of the pool (attached or not).  The pool's own commit and
 * writeback counters (its "stats" answer) are not counters of a volume and
 * stay as they are (docs/TABLES.md, "Counters").
 */
#include <stdio.h>
#include "fcachectl.h"
#include "fc_dm.h"

int cmd_reset_counters(int argc, char **argv)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	const char *target = NULL, *dev;
	struct fc_live l;
	struct fc_pool *p;
	struct fc_vol *v = NULL;
	struct fc_opt o;
	int c, rc = EXIT_FAIL;

	fc_opt_init(&o, argc, argv, "", opts, "reset-counters", "reset-counters");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		if (c != FC_OPT_OPERAND)
			return EXIT_USAGE;
		if (target)
			return fc_usage("reset-counters", "reset-counters: one POOL or VOLUME at a time ('%s' is extra)",
					o.arg);
		target = o.arg;
	}
	if (!target)
		return fc_usage("reset-counters", "reset-counters: expected POOL or VOLUME");
	if (fc_live_scan(&l))
		return fc_fail("reset-counters: cannot talk to device-mapper: %s", fc_dm_error());
	p = fc_live_pool(&l, target);
	if (!p)
		v = fc_live_vol(&l, target);
	if (!p && !v) {
		fc_fail("reset-counters: '%s' is neither an fcache pool nor a cached volume (see 'fcachectl status')",
			target);
		goto out;
	}
	dev = p ? p->name : v->name;
	if (fc_dm_message(dev, "clear_stats", NULL)) {
		fc_fail("reset-counters: %s refused clear_stats: %s (see dmesg)", dev, fc_dm_error());
		goto out;
	}
	if (p)
		printf("pool %s: the counters of its volumes are reset (its commit and writeback counters are not)\n",
		       p->name);
	else
		printf("volume %s: its counters are reset\n", v->name);
	rc = EXIT_OK;
out:
	fc_live_free(&l);
	return rc;
}
