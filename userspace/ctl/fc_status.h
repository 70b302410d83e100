/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_status: what 'fcachectl status' prints about the live pools and
 * volumes of two samples, as the JSON document fcache.status (docs/JSON.md)
 * and, for text, the lines about a pool's flash devices and redundancy
 * (a mirrored pool: both devices; degraded: DEGRADED in the first line,
 * with the dirty blocks at risk).  Pure: it reads the structs it is given,
 * names devices and reads volume tables through the hooks, so the unit
 * tests feed it synthetic pools (tests/unit/test_status.c).
 */
#ifndef FC_STATUS_H
#define FC_STATUS_H

#include <stdio.h>
#include "fcachectl.h"

struct fc_ondisk_vol;

struct fc_status_hooks {
	const char *(*dev_path)(dev_t dev);
	/* the registered volumes of @p no table attaches (fc_pool_unattached) */
	int (*unattached)(struct fc_live *l, struct fc_pool *p, struct fc_ondisk_vol *out, int max,
			  int dirty_only);
};

/* One flash device of a pool, in leg order. */
struct fc_pool_dev {
	char path[256];		/* "": not in the table ("mirror -") */
	int leg;
	char state[16];		/* "ok", "missing" (from the status; else from the table) */
};

/* The pool's devices in leg order (p->leg_of; status leg states): their count, 1 or 2. */
int fc_pool_devices(const struct fc_pool *p, struct fc_pool_dev *d,
		    const char *(*dev_path)(dev_t dev));
/* "single", "mirrored" or "degraded": the status's, else the table's. */
const char *fc_pool_redundancy(const struct fc_pool *p);

/*
 * The FLASH column of pool list: "DEV", for a mirrored pool "DEV0 + DEV1"
 * in leg order, a missing one "-", a leg not ok with its state in
 * parentheses ("DEV1(failed)", "DEV1(resync)").  Returns @buf.
 */
const char *fc_pool_flash_text(const struct fc_pool *p, char *buf, size_t len,
			       const char *(*dev_path)(dev_t dev));
struct fc_json;
/* The keys "redundancy" and "devices" of a pool object (status, pool list). */
void fc_json_pool_devices(struct fc_json *j, const struct fc_pool *p,
			  const char *(*dev_path)(dev_t dev));

/*
 * The first line of a pool in status: "pool NAME on DEV: SIZE, N KiB
 * blocks", with both devices of a mirrored pool, and for a degraded one
 * ", DEGRADED: leg L missing, N dirty blocks (SIZE) have one copy".  Then,
 * for a degraded pool, a line saying what is at risk and what to do.
 */
void fc_status_pool_head(FILE *f, const struct fc_pool *p, const char *(*dev_path)(dev_t dev));

/*
 * The fcache.status document of @cur (@old: the sample @dt seconds
 * earlier, NULL: none), all pools or @selpool, or @selvol and its pool.
 */
void fc_status_json(FILE *f, struct fc_live *cur, const struct fc_live *old, double dt,
		    const struct fc_pool *selpool, const struct fc_vol *selvol,
		    const struct fc_status_hooks *h);

#endif
