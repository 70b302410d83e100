// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl pool replace POOL NEWDEV [--wait] [--force]: a new flash device
 * for a mirrored pool degraded by one leg (failed at run time, or missing
 * when the pool came up --degraded), online.  The live pool's table is
 * reloaded with the device in service, NEWDEV and 'replace 1', keeping
 * every tunable, then the pool device is suspended and resumed: the kernel
 * takes the new device in at preresume and copies the dirty data to it
 * (status: degraded, leg state 'resync', lone_dirty_blocks counting down,
 * then mirrored); docs/DESIGN.md "Replace and resync of a new device".
 *
 * What is decided from the tables is replace_plan.c's.  NEWDEV gets the
 * checks of pool create (a block device nobody holds, not an fcache device
 * nor another pool's flash; a filesystem, partition table, RAID signature,
 * an fcache pool or a damaged one refused unless --force) and must be at
 * least the size of the leg it replaces (from the superblock of the device
 * in service).  The failed device itself, still in the table, may come
 * back (a transient failure): the pool holds it, so it skips those checks.
 * A pool that is not active is refused: 'fcachectl up --degraded' first.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_check.h"
#include "fc_probe.h"

#define REPLACE_TRIES 30	/* resumes refused as busy: the failed leg is being vacated */

/* NEWDEV for leg @rp->leg of @p: the checks of pool create, then its superblock slots zeroed. */
static int guard_new(struct fc_live *l, const struct fc_pool *p, const struct fc_replace *rp,
		     const char *path, dev_t dev, int force)
{
	struct fc_leg_info li;
	struct fc_pool *other;
	char dmname[128], what[128];
	uint64_t bytes = 0, need = 0;
	uint32_t bs;
	int fd, dfd = -1, kfd, sig, r = EXIT_FAIL;

	if (fc_dm_dev_name(dev, dmname, sizeof(dmname)) == 1 &&
	    (fc_live_pool(l, dmname) || fc_live_vol(l, dmname)))
		return fc_fail("pool replace: %s is an fcache device itself; give a flash device", path);
	other = fc_live_pool_by_flash(l, dev);
	if (other && other != p)
		return fc_fail("pool replace: %s is a flash device of pool %s, which is active; nothing changed",
			       path, other->name);
	fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return fc_fail("pool replace: cannot open %s exclusively: %s%s", path, strerror(errno),
			       errno == EBUSY ? " (mounted, or used by another device or pool?)" : "");
	dfd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (dfd < 0 || fc_dev_size(fd, &bytes)) {
		fc_fail("pool replace: cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	/* the size of the leg it replaces, from the superblock of the one in service */
	kfd = open(fc_dev_path(rp->keep), O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (kfd >= 0) {
		if (fc_probe_leg(kfd, &li) && li.mirrored)
			need = li.leg_sectors[rp->leg];
		close(kfd);
	}
	if (need && bytes / 512 < need) {
		fc_fail("pool replace: %s (%" PRIu64 " sectors) is smaller than leg %d it replaces (%" PRIu64 " sectors); nothing changed",
			path, bytes / 512, rp->leg, need);
		goto out;
	}
	if (fc_probe_pool(dfd, &bs)) {
		if (!(force & FC_CREATE_FORCE)) {
			fc_fail("pool replace: %s holds an fcache pool (%u KiB blocks); nothing changed: 'fcachectl check %s' says what it is, --force overwrites it (whatever it holds is lost)",
				path, bs / 2, path);
			goto out;
		}
	} else if (!(force & FC_CREATE_FORCE) && fc_refuse_damaged(dfd, path, "pool replace")) {
		goto out;
	}
	sig = fc_probe_signatures(fd, what, sizeof(what), 0);
	if (sig < 0) {
		fc_fail("pool replace: cannot probe %s for signatures", path);
		goto out;
	}
	if (sig && !(force & FC_CREATE_FORCE)) {
		fc_fail("pool replace: %s holds %s; use --force to overwrite it", path, what);
		goto out;
	}
	if (sig && fc_probe_signatures(fd, what, sizeof(what), 1) < 0)
		fc_warn("could not wipe every signature on %s", path);
	/* no superblock of an earlier life on it until the kernel writes its own */
	if (fc_dev_zero(dfd, 2 * 4096)) {
		fc_fail("pool replace: cannot write to %s: %s", path, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (dfd >= 0)
		close(dfd);
	close(fd);
	return r;
}

/* Put back the table the pool had (after a refused resume) and resume it. */
static void restore(const struct fc_pool *p)
{
	struct fc_dm_target t = { 0, p->sectors, (char *)FC_POOL_TARGET, (char *)p->table };

	if (fc_dm_load(p->name, &t, 1))
		fc_warn("pool %s: cannot load its table again: %s", p->name, fc_dm_error());
	if (fc_dm_resume(p->name))
		fc_fail("pool %s is left SUSPENDED: %s; run 'dmsetup resume %s'", p->name, fc_dm_error(),
			p->name);
}

/*
 * Load @params and swap it in.  The kernel refuses the resume as busy
 * while something is left on the failed leg (its rescue runs at the tick):
 * the old table goes back and the reload is tried again, REPLACE_TRIES
 * times a second.  0, or EXIT_FAIL said.
 */
static int reload(const struct fc_pool *p, const char *params, uint64_t sectors, const char *path)
{
	struct fc_dm_target t = { 0, sectors, (char *)FC_POOL_TARGET, (char *)params };
	char err[512];
	int i;

	for (i = 0;; i++) {
		if (fc_dm_load(p->name, &t, 1))
			return fc_fail("pool replace: the kernel refused the table for %s (%s); see dmesg; nothing changed",
				       path, fc_dm_error());
		if (fc_dm_suspend(p->name, 0)) {
			snprintf(err, sizeof(err), "%s", fc_dm_error());
			fc_dm_clear(p->name);
			return fc_fail("pool replace: cannot suspend %s: %s; nothing changed", p->name, err);
		}
		if (!fc_dm_resume(p->name))
			return 0;
		snprintf(err, sizeof(err), "%s", fc_dm_error());
		restore(p);
		if (!strcasestr(err, "busy") || i + 1 >= REPLACE_TRIES || fc_interrupted)
			return fc_fail("pool replace: the kernel did not take %s (%s); see dmesg; the pool runs on as before",
				       path, err);
		if (!i)
			printf("pool %s: the failed device is still being vacated; trying again\n", p->name);
		sleep(1);
	}
}

/* --wait: until the pool is mirrored, a line each time lone_dirty_blocks changes. */
static int wait_resync(struct fc_pool *p)
{
	uint64_t last = UINT64_MAX;
	const char *red;

	for (;;) {
		if (fc_pool_refresh(p))
			return fc_fail("pool replace: lost the status of %s: %s", p->name, fc_dm_error());
		red = p->st.redundancy;
		if (!strcmp(red, "mirrored")) {
			printf("pool %s: mirrored: every dirty block has two copies\n", p->name);
			fflush(stdout);
			return EXIT_OK;
		}
		if (strstr(p->st.legs, "failed") || strstr(p->st.legs, "missing"))
			return fc_fail("pool replace: pool %s is degraded again (legs %s): the resync stopped; see 'fcachectl status %s' and dmesg",
				       p->name, p->st.legs, p->name);
		if (p->st.lone_dirty_blocks != last) {
			last = p->st.lone_dirty_blocks;
			printf("pool %s: resync: %" PRIu64 " dirty blocks left with one copy\n", p->name, last);
			fflush(stdout);
		}
		if (fc_interrupted)
			return fc_fail("pool replace: interrupted; the resync goes on in the kernel ('fcachectl status %s')",
				       p->name);
		usleep(500000);
	}
}

int fc_pool_replace(const char *name, const char *path, int wait, int force, const char *conf)
{
	struct fc_live l;
	struct fc_pool *p;
	struct fc_replace rp;
	char why[1024], params[1400], keep[256], old[256];
	uint64_t bytes;
	dev_t dev;
	int r = EXIT_FAIL;

	if (fc_block_dev(path, &dev))
		return fc_fail("pool replace: %s is not a block device (%s)", path, strerror(errno));
	if (conf && fc_conf_check(conf))
		return EXIT_FAIL;
	if (fc_live_scan(&l))
		return fc_fail("pool replace: cannot talk to device-mapper: %s", fc_dm_error());
	p = fc_live_pool(&l, name);
	if (p)
		fc_pool_find_legs(p);
	if (fc_replace_plan(p, name, dev, path, &rp, why, sizeof(why))) {
		fc_fail("pool replace: %s", why);
		goto out;
	}
	if (!rp.same && guard_new(&l, p, &rp, path, dev, force))
		goto out;
	snprintf(keep, sizeof(keep), "%s", fc_dev_path(rp.keep));
	snprintf(old, sizeof(old), "%s", rp.old ? fc_dev_path(rp.old) : "");
	if (fc_path_size(keep, &bytes)) {
		fc_fail("pool replace: cannot read the size of %s: %s", keep, strerror(errno));
		goto out;
	}
	if (fc_replace_table(p, rp.keep, dev, params, sizeof(params))) {
		fc_fail("pool replace: the table of pool %s is too long", p->name);
		goto out;
	}
	fc_info("pool %s: loading '%s'", p->name, params);
	fc_install_sigint();
	if (reload(p, params, bytes / 512, path))
		goto out;
	printf("pool %s: %s replaces leg %d (%s%s%s); %s stays in service\n", p->name, path, rp.leg, rp.state,
	       old[0] ? ": " : "", old, keep);
	if (!fc_pool_refresh(p) && strcmp(p->st.redundancy, "mirrored"))
		printf("pool %s: resync: %" PRIu64 " dirty blocks have one copy until they are copied to %s\n",
		       p->name, p->st.lone_dirty_blocks, path);
	r = EXIT_OK;
	if (conf && fc_conf_record_replace(conf, p->name, rp.keep, dev))
		r = EXIT_FAIL;
	if (wait) {
		fflush(stdout);
		if (wait_resync(p))
			r = EXIT_FAIL;
	} else {
		printf("follow it with 'fcachectl status %s': its RESYNC line counts down, then the pool is mirrored\n",
		       p->name);
	}
out:
	fc_live_free(&l);
	return r;
}
