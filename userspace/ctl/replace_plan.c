// SPDX-License-Identifier: GPL-2.0
/*
 * What 'fcachectl pool replace' decides before it touches anything: is the
 * pool one it can give a new device (mirrored, degraded by exactly one leg
 * failed or missing), which device is in service, which leg the new one
 * replaces, and the table the reload loads (docs/TABLES.md, replace).
 * Pure: the structs in, a verdict and a string out, so the unit tests
 * (tests/unit/test_status.c) feed it synthetic pools.
 */
#include <stdio.h>
#include <string.h>
#include "fcachectl.h"
#include "fc_status.h"

static const char *no_path(dev_t dev)
{
	(void)dev;
	return "";
}

int fc_replace_plan(const struct fc_pool *p, const char *name, dev_t newdev, const char *newpath,
		    struct fc_replace *rp, char *why, size_t len)
{
	struct fc_pool_dev d[2];
	dev_t dev[2];
	int n, k, leg, bad = -1, nbad = 0, resync = -1;

	memset(rp, 0, sizeof(*rp));
	rp->leg = -1;
	if (!p) {
		snprintf(why, len, "no active pool named '%s' (see 'fcachectl pool list'); a mirrored pool with a device missing must run first: 'fcachectl up --degraded' (or 'fcachectl pool create %s DEV --degraded'), then replace its device",
			 name, name);
		return -1;
	}
	if (p->nr_legs < 2) {
		snprintf(why, len, "pool %s has one flash device: nothing to replace (pool replace gives a mirrored pool degraded by one device a new one)",
			 p->name);
		return -1;
	}
	if (!p->have_status) {
		snprintf(why, len, "cannot read the status of pool %s; nothing changed", p->name);
		return -1;
	}
	/* the devices of the table on their legs, as status shows them */
	dev[0] = dev[1] = 0;
	for (k = 0; k < 2; k++) {
		leg = p->leg_of[k] == 0 || p->leg_of[k] == 1 ? p->leg_of[k] : k;
		dev[leg] = k ? p->flash2 : p->flash;
	}
	n = fc_pool_devices(p, d, no_path);
	for (k = 0; k < n; k++) {
		if (!strcmp(d[k].state, "failed") || !strcmp(d[k].state, "missing")) {
			bad = k;
			nbad++;
		} else if (!strcmp(d[k].state, "resync")) {
			resync = k;
		}
	}
	if (!nbad && resync >= 0) {
		snprintf(why, len, "pool %s is not degraded by a failed device: leg %d is being resynced already; nothing to replace ('fcachectl status %s' shows the progress)",
			 p->name, resync, p->name);
		return -1;
	}
	if (!nbad) {
		snprintf(why, len, "pool %s is not degraded: nothing to replace", p->name);
		return -1;
	}
	if (nbad > 1 || !dev[!bad]) {
		snprintf(why, len, "pool %s has no flash device in service; nothing changed", p->name);
		return -1;
	}
	rp->leg = bad;
	rp->keep = dev[!bad];
	rp->old = dev[bad];
	snprintf(rp->state, sizeof(rp->state), "%s", d[bad].state);
	if (newdev == rp->keep) {
		snprintf(why, len, "%s is the device in service of pool %s (leg %d); give the new device for leg %d (%s)",
			 newpath, p->name, !bad, bad, rp->state);
		return -1;
	}
	/* the failed device itself, back after a transient failure */
	rp->same = rp->old && newdev == rp->old;
	return 0;
}

int fc_replace_table(const struct fc_pool *p, dev_t keep, dev_t newdev, char *params, size_t len)
{
	char buf[sizeof(p->table)], *w[64], *sv = NULL, *t, a[32], b[32], rest[sizeof(p->table)];
	int n = 0, i, words = 4;
	size_t o = 0;
	int r;

	snprintf(buf, sizeof(buf), "%s", p->table);
	for (t = strtok_r(buf, " \t\n", &sv); t && n < 64; t = strtok_r(NULL, " \t\n", &sv))
		w[n++] = t;
	if (n < 2)
		return -1;
	rest[0] = 0;
	/* every option of the table but the devices and the load flags: the tunables */
	for (i = 3; i + 1 < n; i += 2) {
		if (!strcmp(w[i], "mirror") || !strcmp(w[i], "degraded") || !strcmp(w[i], "replace"))
			continue;
		o += snprintf(rest + o, o < sizeof(rest) ? sizeof(rest) - o : 0, " %s %s", w[i], w[i + 1]);
		words += 2;
	}
	if (o >= sizeof(rest))
		return -1;
	r = snprintf(params, len, "%s %s %d mirror %s replace 1%s", fc_dev_str(keep, a, sizeof(a)), w[1],
		     words, fc_dev_str(newdev, b, sizeof(b)), rest);
	return r < 0 || (size_t)r >= len ? -1 : 0;
}
