// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl wipe DEVICE: erase the fcache pool on a device that is not in
 * use, so that nothing sees a pool there any more ('check' says
 * not_a_pool, pool create formats it as a blank device, udev-probe no
 * longer marks it, 'up' no longer assembles it).
 *
 * libblkid does not know fcache's signature: mkfs, pvcreate and wipefs do
 * not see a pool and overwrite it without a word (docs/FCACHECTL.md,
 * "Other tools on a flash device").  wipe is the tool that knows: it
 * refuses a device in use (opened O_EXCL: an assembled pool holds its
 * flash), and a pool holding dirty data, which its volumes' origins do not
 * have, unless --force-dirty; a damaged pool (fcache metadata without a
 * usable superblock) cannot tell, so it needs --force-dirty too.
 *
 * What it zeroes: the two superblock slots first (synced: from then on no
 * one loads the pool, and an interrupted wipe leaves a damaged pool that
 * wipe --force-dirty finishes), then the metadata pages up to the data
 * area (for a damaged pool the pages 'check' looks at without a
 * superblock).  The cached data itself is left as it is, as wipefs leaves
 * a filesystem's blocks.  The pool's line and those of its volumes leave
 * the config file (-c FILE, --no-persist), so that 'up' does not format a
 * new pool on the device at the next boot.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "conf.h"
#include "fc_check.h"

/* Dirty blocks of the pool on @fd, counted from its entries; -1: cannot be told. */
static int64_t pool_dirty(int fd)
{
	struct fc_ondisk_vol ov[64];
	int64_t sum = 0, d;
	int i, n = fc_flash_volumes(fd, ov, 64);

	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		d = fc_flash_dirty_blocks(fd, ov[i].slot);
		if (d < 0)
			return -1;
		sum += d;
	}
	return sum;
}

/* The pool lines of @file naming @dev as a flash device: their names into @names (at most 4). */
static int conf_pools_of(const char *file, const char *dev, char names[][128], int max)
{
	struct config *c = malloc(sizeof(*c));
	int i, n = 0;

	if (!c)
		return -1;
	if (access(file, F_OK) && errno == ENOENT) {
		free(c);
		return 0;
	}
	if (conf_read(c, file)) {
		free(c);
		return -1;
	}
	for (i = 0; i < c->npools && n < max; i++)
		if (conf_same_path(c->pools[i].dev, dev) ||
		    (c->pools[i].dev2[0] && conf_same_path(c->pools[i].dev2, dev)))
			snprintf(names[n++], 128, "%s", c->pools[i].name);
	free(c);
	return n;
}

/* wipe on a device that is in use: the active pool that holds it, if it is one. */
static int refuse_busy(const char *dev, dev_t rdev)
{
	struct fc_live l;
	struct fc_pool *p;
	char name[128];

	if (rdev && !fc_live_scan(&l)) {
		p = fc_live_pool_by_flash(&l, rdev);
		if (p) {
			snprintf(name, sizeof(name), "%s", p->name);
			fc_live_free(&l);
			return fc_fail("wipe: %s is a flash device of pool %s, which is active; nothing changed (disable its volumes and 'fcachectl pool remove %s' first)",
				       dev, name, name);
		}
		fc_live_free(&l);
	}
	return fc_fail("wipe: %s is in use (mounted, or held by a device-mapper table, RAID or LVM); nothing changed",
		       dev);
}

int cmd_wipe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force-dirty", no_argument, NULL, 'D' },
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_leg_info li;
	struct fc_opt o;
	struct stat st;
	char what[640], why[512], names[4][128];
	const char *dev = NULL, *conf, *kind;
	uint64_t bytes = 0, md_end, sb_end = 8192;	/* the two superblock slots */
	int64_t dirty = 0;
	uint32_t bs;
	int force = 0, c, fd, blk, npools = 0, i, pool, leg, rc;

	fc_opt_init(&o, argc, argv, "c:", opts, "wipe", "wipe");
	while ((c = fc_opt_next_conf(&o, &co)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (fc_opt_operand(&o, &dev, 1, "device"))
				return EXIT_USAGE;
			break;
		case 'D':
			force = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!dev)
		return fc_usage("wipe", "wipe: expected one DEVICE");
	conf = fc_conf_file(&co);
	if (stat(dev, &st))
		return fc_fail("wipe: %s: %s", dev, strerror(errno));
	blk = S_ISBLK(st.st_mode);
	if (!blk && !S_ISREG(st.st_mode))
		return fc_fail("wipe: %s is neither a block device nor an image file", dev);
	/* a broken config stops it before anything changes, as enable/disable/set */
	if (conf && fc_conf_check(conf))
		return EXIT_FAIL;
	fd = open(dev, O_RDWR | O_CLOEXEC | (blk ? O_EXCL | O_DIRECT : 0));
	if (fd < 0 && errno == EBUSY)
		return refuse_busy(dev, st.st_rdev);
	if (fd < 0)
		return fc_fail("wipe: cannot open %s for writing: %s", dev, strerror(errno));
	if (fc_dev_size(fd, &bytes)) {
		rc = fc_fail("wipe: cannot read the size of %s: %s", dev, strerror(errno));
		goto out;
	}
	pool = fc_probe_pool(fd, &bs);
	if (pool) {
		fc_describe_pool(fd, bs, what, sizeof(what));
		dirty = pool_dirty(fd);
		kind = "fcache pool";
	} else if (fc_probe_damaged(fd, why, sizeof(why)) == 1) {
		snprintf(what, sizeof(what), "a damaged fcache pool (%s)", why);
		dirty = -1;
		kind = "damaged fcache metadata";
	} else {
		printf("%s holds no fcache pool: nothing to wipe, nothing changed\n", dev);
		rc = EXIT_OK;
		goto out;
	}
	if (dirty && !force) {
		if (dirty < 0)
			rc = fc_fail("wipe: %s holds %s: whether it holds dirty data cannot be told; nothing changed. 'fcachectl check %s' says what is wrong; --force-dirty erases it all the same",
				     dev, what, dev);
		else
			rc = fc_fail("wipe: %s holds %s: %" PRId64 " dirty blocks that the origins of its volumes do not have; nothing changed. Write them back first ('fcachectl up' or 'pool create', then 'fcachectl flush POOL'), or give --force-dirty to lose them",
				     dev, what, dirty);
		goto out;
	}
	if (conf) {
		npools = conf_pools_of(conf, dev, names, 4);
		if (npools < 0) {
			rc = fc_fail("wipe: cannot read %s; nothing changed (--no-persist leaves it alone)", conf);
			goto out;
		}
	}
	md_end = fc_metadata_bytes(fd);
	if (md_end < sb_end)
		md_end = sb_end;
	if (md_end > bytes)
		md_end = bytes;
	if (sb_end > md_end)
		sb_end = md_end;
	leg = pool && fc_probe_leg(fd, &li) && li.mirrored;
	/* the superblocks first, synced: from then on nothing loads the pool */
	if (fc_dev_zero_range(fd, 0, sb_end) || fc_dev_zero_range(fd, sb_end, md_end - sb_end)) {
		rc = fc_fail("wipe: writing to %s failed: %s; run wipe again (--force-dirty: what is left is a damaged pool)",
			     dev, strerror(errno));
		goto out;
	}
	printf("%s: %s erased (%" PRIu64 " KiB of superblocks and metadata zeroed)%s\n", dev, kind,
	       md_end / 1024, dirty > 0 ? ", its dirty data lost (--force-dirty)" : "");
	if (leg)
		fc_warn("%s was leg %u of a mirrored pool: its partner still holds the pool (load it alone with 'fcachectl pool create NAME PARTNER --degraded', or wipe it too)",
			dev, li.leg);
	rc = EXIT_OK;
	for (i = 0; i < npools; i++)
		if (fc_conf_record_pool_gone(conf, names[i]))
			rc = EXIT_FAIL;
out:
	close(fd);
	return rc;
}
