// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl up / down / udev-probe: boot assembly from the config file
 * (/etc/fcache/fcache.conf, parsed by conf_parse.c).
 *
 * up is idempotent: what is assembled already is kept.  down takes the
 * volumes out of the path without writing back (dirty data stays in the
 * pool, the volume stays registered) and removes the pools.  udev-probe
 * tells the udev rule which devices are origins or flash devices of the
 * file, or hold a pool the file does not list, so that nothing mounts or
 * offers them before up.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "conf.h"
#include "fc_dm.h"
#include "fc_check.h"
#include "fc_probe.h"

/*
 * Options of up, down and udev-probe: -c FILE / --config FILE, --dry-run
 * (when @dry), --degraded (when @degraded), --wait SECONDS (when @wait),
 * one operand (when @node).  Returns 0 or EXIT_USAGE (said).
 */
#define UP_WAIT_DEFAULT	10	/* seconds up waits for a missing device */
#define UP_WAIT_MAX	3600

static int config_opts(int argc, char **argv, const char *verb, const char **file, int *dry,
		       const char **node, int *degraded, int *wait)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "degraded", no_argument, NULL, 'G' },
		{ "wait", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 }
	};
	struct fc_opt o;
	uint64_t w;
	int c;

	*file = FC_DEFAULT_CONFIG;
	fc_opt_init(&o, argc, argv, "c:", opts, verb, verb);
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case 'c':
			*file = o.arg;
			break;
		case 'D':
			if (!dry)
				return fc_usage(verb, "%s: unknown option '--dry-run'", verb);
			*dry = 1;
			break;
		case 'G':
			if (!degraded)
				return fc_usage(verb, "%s: unknown option '--degraded'", verb);
			*degraded = 1;
			break;
		case 'W':
			if (!wait)
				return fc_usage(verb, "%s: unknown option '--wait'", verb);
			if (fc_parse_u64(o.arg, &w) || w > UP_WAIT_MAX)
				return fc_usage(verb, "%s: --wait takes whole seconds, 0 to %d: '%s'",
						verb, UP_WAIT_MAX, o.arg);
			*wait = (int)w;
			break;
		case FC_OPT_OPERAND:
			if (node && !*node) {
				*node = o.arg;
				break;
			}
			return fc_usage(verb, "%s: unexpected argument '%s'", verb, o.arg);
		default:
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Wait up to @secs for a device path to appear (udev may still be settling). */
static int wait_dev(const char *path, double secs)
{
	struct stat st;
	double end = fc_now() + secs;

	while (stat(path, &st)) {
		if (fc_now() >= end || fc_interrupted)
			return -1;
		usleep(200000);
	}
	return 0;
}

/*
 * A mirrored pool of the config (mirror=): both devices, or with one
 * missing only when --degraded says so (as mdadm --run): never silently on
 * one leg, whose dirty data then has one copy.  @dry: only say what up
 * would do (on stdout, after the pool's line), without waiting for devices.
 */
static int up_mirrored(const struct cpool *p, const char *file, int degraded, int dry,
		       int wait)
{
	const char *dev[2] = { p->dev, p->dev2 };
	struct stat st;
	int have[2], k;

	for (k = 0; k < 2; k++)
		have[k] = dry ? !stat(dev[k], &st) : !wait_dev(dev[k], wait);
	if (have[0] && have[1]) {
		if (dry)
			return EXIT_OK;
		return fc_pool_create(p->name, p->dev, p->dev2, 0, p->bs, p->bs_given, 0, p->opts,
				      p->words, NULL);
	}
	if (!have[0] && !have[1]) {
		if (dry) {
			printf("  # neither %s nor %s exists: up would fail\n", p->dev, p->dev2);
			return EXIT_OK;
		}
		return fc_fail("up: pool %s: neither of its flash devices %s and %s exists (%s:%d)",
			       p->name, p->dev, p->dev2, file, p->line);
	}
	k = have[0];	/* the missing one */
	if (!degraded) {
		if (dry) {
			printf("  # %s is missing: up would refuse the pool (up --degraded: on %s alone)\n",
			       dev[k], dev[!k]);
			return EXIT_OK;
		}
		return fc_fail("up: pool %s: its flash device %s is missing (%s:%d); the pool was NOT assembled: on %s alone its dirty data would have one copy. Bring the device back and run 'fcachectl up' again, or run 'fcachectl up --degraded' to assemble it on %s alone",
			       p->name, dev[k], file, p->line, dev[!k], dev[!k]);
	}
	if (dry) {
		printf("  # %s is missing: up --degraded would assemble the pool DEGRADED on %s alone\n",
		       dev[k], dev[!k]);
		return EXIT_OK;
	}
	fc_warn("up: pool %s: its flash device %s is missing: assembling it DEGRADED on %s alone (--degraded)",
		p->name, dev[k], dev[!k]);
	return fc_pool_create(p->name, dev[!k], NULL, 1, p->bs, p->bs_given, 0, p->opts, p->words,
			      NULL);
}

int cmd_up(int argc, char **argv)
{
	struct config *c = malloc(sizeof(*c));
	struct fc_live l;
	const char *file;
	int bad, i, rc = EXIT_OK, dry = 0, degraded = 0, wait = UP_WAIT_DEFAULT;

	if (!c)
		return EXIT_FAIL;
	bad = config_opts(argc, argv, "up", &file, &dry, NULL, &degraded, &wait);
	if (bad || conf_read(c, file)) {
		free(c);
		return bad ? bad : EXIT_FAIL;
	}
	if (dry) {
		for (i = 0; i < c->npools; i++) {
			printf("pool %s %s%s%s block_sectors=%u%s\n", c->pools[i].name, c->pools[i].dev,
			       c->pools[i].dev2[0] ? " mirror=" : "", c->pools[i].dev2, c->pools[i].bs,
			       c->pools[i].opts);
			if (c->pools[i].dev2[0])
				up_mirrored(&c->pools[i], file, degraded, 1, wait);
		}
		for (i = 0; i < c->nvols; i++)
		{
			printf("volume %s %s id=%u mode=%s%s%s", c->vols[i].pool, c->vols[i].dev,
			       c->vols[i].id, c->vols[i].mode, c->vols[i].name[0] ? " name=" : "",
			       c->vols[i].name);
			if (c->vols[i].cutoff >= 0)
				printf(" sequential_cutoff=%d", c->vols[i].cutoff);
			if (c->vols[i].olog[0])
				printf(" ordered_log=%s", c->vols[i].olog);
			printf("\n");
		}
		free(c);
		return EXIT_OK;
	}
	fc_install_sigint();
	for (i = 0; i < c->npools; i++) {
		struct cpool *p = &c->pools[i];
		struct fc_pool *lp;

		if (fc_live_scan(&l)) {
			free(c);
			return fc_fail("up: cannot talk to device-mapper: %s", fc_dm_error());
		}
		lp = fc_live_pool(&l, p->name);
		fc_live_free(&l);
		if (lp) {
			fc_info("pool %s is up already", p->name);
			continue;
		}
		if (p->dev2[0]) {
			if (up_mirrored(p, file, degraded, 0, wait))
				rc = EXIT_FAIL;
			continue;
		}
		if (wait_dev(p->dev, wait)) {
			fc_fail("up: pool %s: %s does not exist (line %d)", p->name, p->dev, p->line);
			rc = EXIT_FAIL;
			continue;
		}
		if (fc_pool_create(p->name, p->dev, NULL, 0, p->bs, p->bs_given, 0, p->opts, p->words,
				   NULL))
			rc = EXIT_FAIL;
	}
	for (i = 0; i < c->nvols; i++) {
		struct cvol *v = &c->vols[i];
		struct fc_vol *lv;

		if (wait_dev(v->dev, wait)) {
			fc_fail("up: volume %s does not exist (line %d); its cache stays down", v->dev, v->line);
			rc = EXIT_FAIL;
			continue;
		}
		if (fc_live_scan(&l)) {
			free(c);
			return fc_fail("up: cannot talk to device-mapper: %s", fc_dm_error());
		}
		lv = fc_live_vol(&l, v->dev);
		if (!lv && !fc_live_pool(&l, v->pool)) {
			fc_live_free(&l);
			fc_fail("up: volume %s (line %d) stays uncached: its pool %s is not up; the pool may hold its dirty data, so its origin may be stale: do not use it until the pool is up and 'fcachectl up' attaches it",
				v->dev, v->line, v->pool);
			rc = EXIT_FAIL;
			continue;
		}
		fc_live_free(&l);
		if (lv) {
			fc_info("volume %s is cached already", v->dev);
			continue;
		}
		/* at boot a PV LVM would also see raw is warned about, not refused */
		if (fc_enable(v->dev, v->pool, v->mode, v->name[0] ? v->name : NULL, v->id, v->cutoff,
			      v->olog[0] ? v->olog : NULL, NULL, 1))
			rc = EXIT_FAIL;
	}
	/*
	 * Dirty data of a volume left unattached: its origin is stale (or, if
	 * the volume was detached at run time, maybe newer).  Say so, and fail.
	 */
	if (!fc_live_scan(&l)) {
		for (i = 0; i < c->npools; i++) {
			struct fc_pool *lp = fc_live_pool(&l, c->pools[i].name);
			struct fc_ondisk_vol ov[64];
			int k, n;

			if (!lp)
				continue;
			n = fc_pool_unattached(&l, lp, ov, 64, 1);
			for (k = 0; k < n; k++) {
				int j, line = 0;

				for (j = 0; j < c->nvols; j++)
					if (!strcmp(c->vols[j].pool, lp->name) && c->vols[j].id == ov[k].id)
						line = c->vols[j].line;
				if (ov[k].detached)
					fc_fail("up: volume id %u ('%s') of pool %s holds %" PRIu64 " dirty blocks and was detached at run time (not by fcachectl): it stays uncached; its origin may hold newer writes; choose with 'fcachectl resolve %s %u --replay|--discard', then 'fcachectl up'",
						ov[k].id, ov[k].label, lp->name, ov[k].dirty_hint, lp->name, ov[k].id);
				else if (line)
					fc_fail("up: volume id %u ('%s') of pool %s (%s:%d) holds %" PRIu64 " dirty blocks and is not attached (see above): its origin is stale; do not use it uncached, fix the cause and run 'fcachectl up' again",
						ov[k].id, ov[k].label, lp->name, file, line, ov[k].dirty_hint);
				else
					fc_fail("up: pool %s holds %" PRIu64 " dirty blocks of volume id %u ('%s'), which %s does not list: its origin is stale until it is attached; add 'volume %s <DEVICE> id=%u' to %s and run 'fcachectl up' again",
						lp->name, ov[k].dirty_hint, ov[k].id, ov[k].label, file, lp->name,
						ov[k].id, file);
				rc = EXIT_FAIL;
			}
		}
		fc_live_free(&l);
	}
	free(c);
	return rc;
}

int cmd_down(int argc, char **argv)
{
	struct config *c = malloc(sizeof(*c));
	struct fc_live l;
	const char *file;
	int bad, i, rc = EXIT_OK, found;

	if (!c)
		return EXIT_FAIL;
	bad = config_opts(argc, argv, "down", &file, NULL, NULL, NULL, NULL);
	if (bad || conf_read(c, file)) {
		free(c);
		return bad ? bad : EXIT_FAIL;
	}
	for (i = c->nvols - 1; i >= 0; i--) {
		struct cvol *v = &c->vols[i];

		if (fc_live_scan(&l)) {
			free(c);
			return fc_fail("down: cannot talk to device-mapper: %s", fc_dm_error());
		}
		found = fc_live_vol(&l, v->dev) != NULL;
		fc_live_free(&l);
		if (found && fc_disable(v->dev, 1, 1, NULL))
			rc = EXIT_FAIL;
	}
	for (i = c->npools - 1; i >= 0; i--) {
		if (fc_live_scan(&l)) {
			free(c);
			return fc_fail("down: cannot talk to device-mapper: %s", fc_dm_error());
		}
		found = fc_live_pool(&l, c->pools[i].name) != NULL;
		fc_live_free(&l);
		if (found && fc_pool_remove(c->pools[i].name, NULL))
			rc = EXIT_FAIL;
	}
	free(c);
	return rc;
}

/* Is config path @path the device @dev (by node, or by one of udev's links)? */
static int same_dev(const char *path, dev_t dev, const char *devnode, const char *links)
{
	dev_t d;
	const char *p;
	size_t n = strlen(path);

	if (!fc_block_dev(path, &d) && d == dev)
		return 1;
	if (devnode && !strcmp(path, devnode))
		return 1;
	for (p = links; p && (p = strstr(p, path)); p += n)
		if ((p == links || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/*
 * A device the config file does not list: does it hold an fcache pool (a
 * superblock, or what check calls a damaged pool) and no signature libblkid
 * knows (a filesystem, swap or LVM written over a pool's first pages wins:
 * the device is that now; a probe that fails does not)?  Then it is an unassembled pool's flash, marked
 * as a listed one is (FCACHE_FLASH=1, FCACHE_UNLISTED=1): nothing mounts or
 * offers it, and 'fcachectl wipe' is what erases it.  Always EXIT_OK.
 */
static int probe_unlisted(const char *node)
{
	char what[256];
	uint32_t bs;
	/* O_DIRECT for our reads (the pool writes with bios); libblkid's buffers need a plain fd */
	int fd = open(node, O_RDONLY | O_DIRECT | O_CLOEXEC), pool, bfd;

	if (fd < 0)
		return EXIT_OK;
	pool = fc_probe_pool(fd, &bs) || fc_probe_damaged(fd, what, sizeof(what)) == 1;
	close(fd);
	bfd = pool ? open(node, O_RDONLY | O_CLOEXEC) : -1;
	if (bfd >= 0 && fc_probe_signatures(bfd, what, sizeof(what), 0) != 1)
		printf("FCACHE_FLASH=1\nFCACHE_UNLISTED=1\n");
	if (bfd >= 0)
		close(bfd);
	return EXIT_OK;
}

int cmd_udev_probe(int argc, char **argv)
{
	struct config *c;
	struct fc_dm_target *t;
	const char *file, *node = NULL, *links = getenv("DEVLINKS");
	char name[128];
	int bad, i, n, is_fc = 0, listed = 0;
	dev_t dev;
	size_t k;

	bad = config_opts(argc, argv, "udev-probe", &file, NULL, &node, NULL, NULL);
	if (bad)
		return bad;
	if (!node)
		return fc_usage("udev-probe", "udev-probe: expected DEVNODE");
	if (fc_block_dev(node, &dev))
		return fc_fail("udev-probe: %s is not a block device", node);
	fc_dm_init();
	if (fc_dm_dev_name(dev, name, sizeof(name)) == 1) {
		k = strlen(name);
		if (k > strlen(FC_DM_HIDDEN_SUFFIX) &&
		    !strcmp(name + k - strlen(FC_DM_HIDDEN_SUFFIX), FC_DM_HIDDEN_SUFFIX)) {
			printf("FCACHE_ORIGIN=1\n");	/* the hidden origin of an in-place volume */
			return EXIT_OK;
		}
		if (!fc_dm_table(name, &t, &n)) {
			is_fc = n == 1 && (!strcmp(t[0].type, FC_VOLUME_TARGET) ||
					   !strcmp(t[0].type, FC_POOL_TARGET));
			fc_dm_free_targets(t, n);
		}
		if (is_fc)
			return EXIT_OK;	/* an assembled pool or cached volume */
	}
	if (access(file, F_OK) && errno == ENOENT)
		return probe_unlisted(node);	/* no config: only a pool found on the device */
	c = malloc(sizeof(*c));
	if (!c)
		return EXIT_FAIL;
	if (conf_read(c, file)) {
		/*
		 * Loudly: with a broken config no origin is protected.  udev
		 * logs a failing IMPORT only at debug level, so the kernel log
		 * gets it too; fcache.service fails on the same file.
		 */
		FILE *k = getenv("DEVPATH") ? fopen("/dev/kmsg", "w") : NULL;	/* run by udev */

		if (k) {
			fprintf(k, "<3>fcache: %s is broken (see 'fcachectl up --dry-run'): udev-probe cannot protect origins or flash devices (%s)\n",
				file, node);
			fclose(k);
		}
		fc_fail("udev-probe: %s is broken: origins and flash devices are NOT protected; fix it ('fcachectl up --dry-run' shows the error)",
			file);
		free(c);
		return EXIT_FAIL;
	}
	for (i = 0; i < c->npools; i++)
		if (same_dev(c->pools[i].dev, dev, node, links) ||
		    (c->pools[i].dev2[0] && same_dev(c->pools[i].dev2, dev, node, links))) {
			printf("FCACHE_FLASH=1\nFCACHE_POOL=%s\n", c->pools[i].name);
			listed = 1;
		}
	for (i = 0; i < c->nvols; i++)
		if (same_dev(c->vols[i].dev, dev, node, links)) {
			printf("FCACHE_ORIGIN=1\nFCACHE_POOL=%s\n", c->vols[i].pool);
			listed = 1;
		}
	free(c);
	return listed ? EXIT_OK : probe_unlisted(node);
}
