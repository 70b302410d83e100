// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl pool create | remove | list.
 *
 * create checks everything before it writes anything: the name is free, the
 * device is a block device nobody holds (O_EXCL), and it carries no
 * filesystem, partition table or RAID signature (libblkid) unless --force.
 * A device that already holds an fcache superblock is loaded as it is
 * (reformatted with --force, once confirmed: reformat.c); one that holds a
 * damaged pool (fcache metadata without a usable superblock) is refused
 * unless --force; any other device gets its first two pages (the
 * superblock slots) zeroed, which makes the pool target format it.
 *
 * A mirrored pool (NAME DEV1 DEV2, table option "mirror DEV2"): both
 * devices get those checks and must differ; two blank devices are
 * formatted as a new mirrored pool, the two legs of one are loaded if the
 * kernel would take them together (fc_pair_verdict: not stale, split,
 * foreign...), anything else is refused without --force.  One leg alone
 * is refused (give its partner) unless --degraded ("mirror - degraded 1"),
 * as mdadm --run.
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
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_json.h"
#include "fc_check.h"
#include "fc_probe.h"
#include "tunables.h"
#include "fc_status.h"

/* the command line of pool create, to name with --yes (reformat.c) */
static char create_cmd[2048] = "fcachectl pool create NAME FLASHDEV --force --yes";

int fc_pool_key(const char *k)
{
	return fc_tunable(FC_TUN_POOL, k) != NULL;
}

/* Validate KEY=VALUE pool tunables, each and together; append "key value" words to @opts. */
int fc_pool_tunables(const char *verb, int n, char **kv, char *opts, size_t len, int *words)
{
	char key[64], why[512];
	const char *eq;
	uint32_t v;
	size_t o = strlen(opts);
	int i;

	for (i = 0; i < n; i++) {
		eq = strchr(kv[i], '=');
		if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof(key))
			return fc_usage(verb, "%s: expected TUNABLE=VALUE, got '%s'", verb, kv[i]);
		memcpy(key, kv[i], eq - kv[i]);
		key[eq - kv[i]] = 0;
		if (fc_tunable_check(FC_TUN_POOL, key, eq + 1, NULL, &v, why, sizeof(why)))
			return fc_usage(verb, "%s: %s", verb, why);
		o += snprintf(opts + o, o < len ? len - o : 0, " %s %u", key, v);
		*words += 2;
	}
	/* the pairs, as the target checks its table (writeback_low <= writeback_high) */
	if (fc_pool_tunables_check(NULL, n, kv, why, sizeof(why)))
		return fc_usage(verb, "%s: %s", verb, why);
	return 0;
}

/* One flash device of pool create, opened and probed. */
struct cdev {
	const char *path;
	dev_t dev;
	int fd, dfd;		/* O_EXCL; O_DIRECT */
	uint64_t sectors;
	int existing;		/* holds a usable fcache superblock */
	uint32_t have_bs;
};

static void cdev_close(struct cdev *d, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (d[i].dfd >= 0)
			close(d[i].dfd);
		if (d[i].fd >= 0)
			close(d[i].fd);
		d[i].fd = d[i].dfd = -1;
	}
}

/* Checks that need no opening: a block device, not an fcache device, no live pool's flash. */
static int cdev_check(struct cdev *d)
{
	char bufname[128];
	struct fc_live l;
	struct fc_pool *lp;

	if (fc_block_dev(d->path, &d->dev))
		return fc_fail("pool create: %s is not a block device (%s)", d->path, strerror(errno));
	if (fc_live_scan(&l))
		return 0;
	if (fc_dm_dev_name(d->dev, bufname, sizeof(bufname)) == 1 &&
	    (fc_live_pool(&l, bufname) || fc_live_vol(&l, bufname))) {
		fc_live_free(&l);
		return fc_fail("pool create: %s is an fcache device itself; give a flash device", d->path);
	}
	lp = fc_live_pool_by_flash(&l, d->dev);
	if (lp) {
		char active[128];
		int mirrored = lp->nr_legs > 1;

		snprintf(active, sizeof(active), "%s", lp->name);
		fc_live_free(&l);
		return fc_fail("pool create: %s is %s pool %s, which is active; nothing changed (to reuse the device: disable its volumes, 'fcachectl pool remove %s', then create again)",
			       d->path, mirrored ? "a flash device of mirrored" : "the flash of", active, active);
	}
	fc_live_free(&l);
	return 0;
}

static int cdev_open(struct cdev *d)
{
	uint64_t bytes;

	d->fd = open(d->path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (d->fd < 0)
		return fc_fail("pool create: cannot open %s exclusively: %s%s", d->path, strerror(errno),
			       errno == EBUSY ? " (mounted, or used by another device or pool?)" : "");
	d->dfd = open(d->path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (d->dfd < 0 || fc_dev_size(d->fd, &bytes))
		return fc_fail("pool create: cannot read %s: %s", d->path, strerror(errno));
	d->sectors = bytes / 512;
	d->existing = fc_probe_pool(d->dfd, &d->have_bs);
	return 0;
}

/*
 * A device pool create formats: not damaged (unless --force), big enough,
 * no signature (wiped with --force), its superblock slots zeroed so that
 * the pool target formats it.
 */
static int cdev_prepare_blank(struct cdev *d, uint32_t bs, int force)
{
	char what[128];
	int r, sig;

	r = force & FC_CREATE_FORCE ? 0 : fc_refuse_damaged(d->dfd, d->path, "pool create");
	if (r)
		return r;
	if (fc_pool_blocks(d->sectors, bs) < 16)
		return fc_fail("pool create: %s (%" PRIu64 " sectors) is too small for a pool of %u KiB blocks",
			       d->path, d->sectors, bs / 2);
	sig = fc_probe_signatures(d->fd, what, sizeof(what), 0);
	if (sig < 0)
		return fc_fail("pool create: cannot probe %s for signatures", d->path);
	if (sig && !(force & FC_CREATE_FORCE))
		return fc_fail("pool create: %s holds %s; use --force to overwrite it", d->path, what);
	return 0;
}

static int cdev_zero(struct cdev *d)
{
	char what[128];

	if (fc_probe_signatures(d->fd, what, sizeof(what), 0) > 0 &&
	    fc_probe_signatures(d->fd, what, sizeof(what), 1) < 0)
		fc_warn("could not wipe every signature on %s", d->path);
	if (fc_dev_zero(d->dfd, 2 * 4096))	/* the superblock slots */
		return fc_fail("pool create: cannot write to %s: %s", d->path, strerror(errno));
	return 0;
}

int fc_pool_create(const char *name, const char *flash, const char *flash2, int degraded,
		   uint32_t bs, int bs_given, int force, const char *opts, int words, int *loaded)
{
	struct fc_dm_info info;
	struct fc_dm_target t;
	struct cdev d[2];
	char params[1400], devs[2][32], why[1024], mirror[48] = "";
	int n = flash2 ? 2 : 1, i, r, existing, extra = 0, plan;

	memset(d, 0, sizeof(d));
	d[0].path = flash;
	d[1].path = flash2;
	d[0].fd = d[0].dfd = d[1].fd = d[1].dfd = -1;
	if (fc_dm_info(name, &info))
		return fc_fail("pool create: cannot talk to device-mapper: %s", fc_dm_error());
	if (info.exists)
		return fc_fail("pool create: a device named '%s' exists already; choose another name", name);
	for (i = 0; i < n; i++) {
		r = cdev_check(&d[i]);
		if (r)
			return r;
	}
	if (n == 2 && d[0].dev == d[1].dev)
		return fc_fail("pool create: %s and %s are the same device; a mirrored pool needs two devices",
			       flash, flash2);
	for (i = 0; i < n; i++) {
		r = cdev_open(&d[i]);
		if (r)
			goto out;
	}
	{
		int fds[2] = { d[0].dfd, d[1].dfd };
		const char *paths[2] = { flash, flash2 };

		plan = fc_create_plan(n, fds, paths, name, degraded, force, why, sizeof(why));
	}
	if (plan == FC_PLAN_REFUSE) {
		r = fc_fail("pool create: %s", why);
		goto out;
	}
	existing = plan == FC_PLAN_LOAD || plan == FC_PLAN_LOAD_DEGRADED || plan == FC_PLAN_REFORMAT;
	if (existing && (force & FC_CREATE_FORCE)) {
		/* reformat: asked now, after every check, once per pool found */
		for (i = 0; i < n; i++) {
			if (!d[i].existing)
				continue;
			r = fc_reformat_confirm(d[i].dfd, d[i].path, d[i].have_bs, force, create_cmd);
			if (r)
				goto out;
			d[i].existing = 0;
		}
		existing = 0;
	}
	if (loaded)
		*loaded = existing;
	if (existing) {
		for (i = 0; i < n; i++) {
			if (bs_given && d[i].have_bs != bs) {
				r = fc_fail("pool create: %s holds an fcache pool with %u KiB blocks, not %u KiB; omit --block-size to load it",
					    d[i].path, d[i].have_bs / 2, bs / 2);
				goto out;
			}
		}
		bs = d[0].have_bs;
	} else {
		for (i = 0; i < n; i++) {
			r = cdev_prepare_blank(&d[i], bs, force);
			if (r)
				goto out;
		}
		for (i = 0; i < n; i++) {
			r = cdev_zero(&d[i]);
			if (r)
				goto out;
		}
	}
	if (n == 2) {
		snprintf(mirror, sizeof(mirror), " mirror %s", fc_dev_str(d[1].dev, devs[1], sizeof(devs[1])));
		extra = 2;
	} else if (degraded) {
		snprintf(mirror, sizeof(mirror), " mirror - degraded 1");
		extra = 4;
	}
	cdev_close(d, n);

	fc_dev_str(d[0].dev, devs[0], sizeof(devs[0]));
	if (words + extra)
		snprintf(params, sizeof(params), "%s %u %d%s%s", devs[0], bs, words + extra, mirror, opts);
	else
		snprintf(params, sizeof(params), "%s %u", devs[0], bs);
	t.start = 0;
	t.length = d[0].sectors;
	t.type = (char *)FC_POOL_TARGET;
	t.params = params;
	if (fc_dm_create(name, NULL, &t, 1)) {
		const char *e = fc_dm_error();

		fc_dm_remove(name);	/* a half-created device, if any */
		if (!fc_dm_has_target(FC_POOL_TARGET))
			return fc_fail("pool create: the kernel has no %s target; load the module: modprobe dm-fcache",
				       FC_POOL_TARGET);
		if (n == 2)
			return fc_fail("pool create: the kernel refused the pool on %s and %s (%s); see dmesg, and 'fcachectl check %s %s'",
				       flash, flash2, e, flash, flash2);
		return fc_fail("pool create: the kernel refused the pool on %s (%s); see dmesg", flash, e);
	}
	printf("/dev/mapper/%s\n", name);
	if (n == 2)
		fc_info("pool %s: %s %s and %s (mirrored), %u KiB blocks", name,
			existing ? "loaded" : "formatted", flash, flash2, bs / 2);
	else
		fc_info("pool %s: %s %s%s, %u KiB blocks", name, existing ? "loaded" : "formatted", flash,
			degraded ? " (one leg of a mirrored pool, DEGRADED)" : "", bs / 2);
	if (degraded)
		fc_warn("pool %s runs DEGRADED on %s alone: its dirty data has one copy until the other device is back",
			name, flash);
	return EXIT_OK;
out:
	cdev_close(d, n);
	return r;
}

/* pool create's line into @conf (NULL: --no-persist): what the live table says. */
static int pool_record(const char *name, const char *conf, int loaded)
{
	struct fc_live l;
	struct fc_pool *p;
	int r;

	if (!conf)
		return EXIT_OK;
	if (fc_live_scan(&l))
		return fc_fail("pool create: cannot read the pool back (%s): %s not updated", fc_dm_error(),
			       conf);
	p = fc_live_pool(&l, name);
	r = p ? fc_conf_record_pool(conf, p, loaded) :
		fc_fail("pool create: pool %s vanished; %s not updated", name, conf);
	fc_live_free(&l);
	return r;
}

static int pool_create(int npos, char **pos, uint32_t bs, int bs_given, int force, int degraded,
		       const char *conf)
{
	char topts[1024] = "";
	const char *flash2 = NULL;
	int words = 0, first = 2, loaded = 0, r;

	if (npos < 2)
		return fc_usage("pool", "pool create: expected NAME FLASHDEV [FLASHDEV2]");
	if (!fc_valid_name(pos[0]))
		return fc_usage("pool", "pool create: bad name '%s' (letters, digits and -_.+ only)", pos[0]);
	/* a word without '=' after FLASHDEV: the second device of a mirrored pool */
	if (npos > 2 && !strchr(pos[2], '=')) {
		flash2 = pos[2];
		first = 3;
	}
	if (flash2 && degraded)
		return fc_usage("pool", "pool create: --degraded loads one leg of a mirrored pool alone; give one FLASHDEV");
	r = fc_pool_tunables("pool", npos - first, pos + first, topts, sizeof(topts), &words);
	if (r)
		return r;
	/* as enable: a config file that does not parse stops it before anything changes */
	if (conf && fc_conf_check(conf))
		return EXIT_FAIL;
	r = fc_create_gate(pos[1], force, create_cmd);
	if (!r && flash2)
		r = fc_create_gate(flash2, force, create_cmd);
	if (r)
		return r;
	r = fc_pool_create(pos[0], pos[1], flash2, degraded, bs, bs_given, force, topts, words,
			   &loaded);
	return r ? r : pool_record(pos[0], conf, loaded);
}

int fc_pool_remove(const char *arg, const char *conf)
{
	struct fc_live l;
	struct fc_pool *p;
	char list[512] = "", name[128];
	int i, n = 0, keep, known;
	size_t o = 0;
	struct fc_dm_info info;

	if (fc_live_scan(&l))
		return fc_fail("pool remove: cannot talk to device-mapper: %s", fc_dm_error());
	p = fc_live_pool(&l, arg);
	if (!p) {
		fc_live_free(&l);
		return fc_fail("pool remove: no pool named '%s' (see 'fcachectl pool list')", arg);
	}
	for (i = 0; i < l.nvols; i++) {
		if (l.vols[i].pool_dev != p->dev)
			continue;
		o += snprintf(list + o, o < sizeof(list) ? sizeof(list) - o : 0, "%s%s", n ? ", " : "",
			      l.vols[i].name);
		n++;
	}
	if (n) {
		fc_fail("pool remove: pool %s has %d volume%s attached (%s); disable them first",
			p->name, n, n > 1 ? "s" : "", list);
		fc_live_free(&l);
		return EXIT_FAIL;
	}
	if (!fc_dm_info(p->name, &info) && info.open_count) {
		fc_fail("pool remove: pool %s is in use (open %d times); close it first", p->name, info.open_count);
		fc_live_free(&l);
		return EXIT_FAIL;
	}
	if (p->have_status && p->st.dirty_blocks) {
		struct fc_ondisk_vol ov[64];
		int fd = open(fc_dev_path(p->flash), O_RDONLY | O_DIRECT | O_CLOEXEC), k, nv = -1;

		if (fd >= 0)
			nv = fc_flash_volumes(fd, ov, 64);
		for (k = 0; k < nv; k++)
			if (ov[k].dirty_hint || fc_flash_dirty_blocks(fd, ov[k].slot) > 0)
				fc_warn("pool %s keeps dirty data of detached volume id %u ('%s'); it stays on %s and comes back with the pool: do not use that origin without it",
					p->name, ov[k].id, ov[k].label, fc_dev_path(p->flash));
		if (fd >= 0)
			close(fd);
	}
	if (p->have_status && !strcmp(p->st.redundancy, "degraded") && p->st.lone_dirty_blocks)
		fc_warn("pool %s runs DEGRADED: its %" PRIu64 " dirty blocks have one copy, on %s; they stay there and come back with the pool: keep that device and do not reformat it",
			p->name, p->st.lone_dirty_blocks, fc_dev_path(p->flash));
	/* dirty data comes back with the pool: 'up' must assemble it again */
	known = p->have_status;
	keep = !known || p->st.dirty_blocks;
	snprintf(name, sizeof(name), "%s", p->name);
	if (fc_dm_remove(p->name)) {
		fc_fail("pool remove: cannot remove %s: %s", p->name, fc_dm_error());
		fc_live_free(&l);
		return EXIT_FAIL;
	}
	fc_live_free(&l);
	if (!conf || !fc_conf_has_pool(conf, name))
		return EXIT_OK;
	if (keep) {
		fc_warn("pool %s %s: its line stays in %s, so that 'up' assembles it again with its data (to drop the data too: 'fcachectl wipe --force-dirty FLASHDEV')",
			name, known ? "holds dirty data" : "may hold dirty data (its status could not be read)",
			conf);
		return EXIT_OK;
	}
	return fc_conf_record_pool_gone(conf, name);
}

static int pool_list(int json)
{
	struct fc_live l;
	struct fc_json j;
	int i, k, nv;
	char sz[32], flash[600];

	if (fc_live_scan(&l))
		return fc_fail_json(json ? "fcache.pool-list" : NULL,
				    "pool list: cannot talk to device-mapper: %s", fc_dm_error());
	if (json) {
		fj_init(&j, stdout);
		fj_obj(&j, NULL);
		fj_schema(&j, "fcache.pool-list");
		fj_arr(&j, "pools");
	} else {
		printf("%-16s %-14s %6s %10s %6s %6s %s\n", "POOL", "FLASH", "BLOCK", "SIZE", "USED%", "DIRTY%", "VOLUMES");
	}
	for (i = 0; i < l.npools; i++) {
		struct fc_pool *p = &l.pools[i];
		double tot = p->have_status && p->st.total_blocks ? (double)p->st.total_blocks : 1;

		for (k = 0, nv = 0; k < l.nvols; k++)
			nv += l.vols[k].pool_dev == p->dev;
		fc_pool_find_legs(p);
		if (json) {
			fj_obj(&j, NULL);
			fj_str(&j, "name", p->name);
			fj_str(&j, "flash", fc_dev_path(p->flash));
			fj_u64(&j, "block_sectors", p->block_sectors);
			fj_u64(&j, "sectors", p->sectors);
			fj_bool(&j, "status_ok", p->have_status);
			fj_u64(&j, "total_blocks", p->st.total_blocks);
			fj_u64(&j, "used_blocks", p->st.used_blocks);
			fj_u64(&j, "dirty_blocks", p->st.dirty_blocks);
			fc_json_pool_devices(&j, p, fc_dev_path);
			/* the same key as in status: an array of volume objects */
			fj_arr(&j, "volumes");
			for (k = 0; k < l.nvols; k++) {
				const struct fc_vol *v = &l.vols[k];

				if (v->pool_dev != p->dev)
					continue;
				fj_obj(&j, NULL);
				fj_str(&j, "name", v->name);
				fj_u64(&j, "id", v->id);
				fj_str(&j, "mode", v->have_status && v->st.mode[0] ? v->st.mode : v->mode);
				fj_end(&j);
			}
			fj_end(&j);
			fj_end(&j);
		} else {
			fc_fmt_bytes(sz, sizeof(sz), (double)p->sectors * 512);
			printf("%-16s %-14s %5uK %10s %5.1f%% %5.1f%% %d\n", p->name,
			       fc_pool_flash_text(p, flash, sizeof(flash), fc_dev_path),
			       p->block_sectors / 2, sz, 100.0 * p->st.used_blocks / tot,
			       100.0 * p->st.dirty_blocks / tot, nv);
		}
	}
	if (json) {
		fj_end(&j);
		fj_end(&j);
	}
	fc_live_free(&l);
	return EXIT_OK;
}

/*
 * pool create|remove|list|replace: the options of all four are parsed here,
 * in any position, then checked against the subcommand (the first operand).
 */
int cmd_pool(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "block-size", required_argument, NULL, 'b' },
		{ "degraded", no_argument, NULL, 'D' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "yes", no_argument, NULL, 'y' },
		{ "wait", no_argument, NULL, 'w' },
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	static const char *const subs[] = { "create", "remove", "list", "replace", NULL };
	static const char *const whats[] = { "pool create", "pool remove", "pool list", "pool replace" };
	char *pos[3 + 16];
	const char *sub, *create_opt = NULL, *replace_opt = NULL, *conf_opt = NULL;
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_opt o;
	int npos = 0, force = 0, bs_given = 0, json = 0, yes = 0, degraded = 0, wait = 0, c, k;
	uint64_t bytes;
	uint32_t bs = 64;	/* 32 KiB, FC_DEFAULT_BLOCK_SECTORS */

	fc_opt_init(&o, argc, argv, "b:fc:", opts, "pool", "pool");
	while ((c = fc_opt_next_conf(&o, &co)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (npos >= (int)(sizeof(pos) / sizeof(pos[0])))
				return fc_usage("pool", "pool %s: too many arguments", pos[0]);
			pos[npos++] = o.arg;
			/* the messages of the subcommand name it */
			for (k = 0; npos == 1 && subs[k]; k++)
				if (!strcmp(o.arg, subs[k]))
					o.what = whats[k];
			break;
		case 'b':
			if (fc_parse_size(o.arg, &bytes) || bytes % 512 || bytes < 4096 ||
			    bytes > 1048576 || (bytes & (bytes - 1)))
				return fc_usage("pool", "pool create: bad --block-size '%s': a power of two from 4K to 1M", o.arg);
			bs = (uint32_t)(bytes / 512);
			bs_given = 1;
			create_opt = "--block-size";
			break;
		case 'f':
			force = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'y':
			yes = 1;
			break;
		case 'D':
			degraded = 1;
			create_opt = "--degraded";
			break;
		case 'w':
			wait = 1;
			replace_opt = "--wait";
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (co.file || co.no_persist)
		conf_opt = co.file ? "--config" : "--no-persist";
	if (!npos)
		return fc_usage("pool", "pool: expected create, remove, list or replace");
	sub = pos[0];
	for (k = 0; subs[k] && strcmp(sub, subs[k]); k++)
		;
	if (!subs[k])
		return fc_usage("pool", "pool: unknown subcommand '%s' (create, remove, list, replace)", sub);
	if (force && strcmp(sub, "create") && strcmp(sub, "replace"))
		return fc_usage("pool", "pool %s: --force is an option of pool create and pool replace", sub);
	if (strcmp(sub, "create") && (create_opt || yes))
		return fc_usage("pool", "pool %s: %s is an option of pool create", sub, yes ? "--yes" : create_opt);
	if (strcmp(sub, "replace") && replace_opt)
		return fc_usage("pool", "pool %s: %s is an option of pool replace", sub, replace_opt);
	if (!strcmp(sub, "list") && conf_opt)
		return fc_usage("pool", "pool list: %s is an option of pool create, remove and replace",
				conf_opt);
	if (yes && !force)
		return fc_usage("pool", "pool create: --yes confirms --force (reformatting a pool); give both");
	if (strcmp(sub, "list") && json)
		return fc_usage("pool", "pool %s: --json is an option of pool list", sub);
	if (!strcmp(sub, "create")) {
		fc_cmdline(create_cmd, sizeof(create_cmd), argc, argv, "--yes");
		return pool_create(npos - 1, pos + 1, bs, bs_given, force | (yes ? FC_CREATE_YES : 0),
				   degraded, fc_conf_file(&co));
	}
	if (!strcmp(sub, "replace")) {
		if (npos != 3)
			return fc_usage("pool", "pool replace: expected POOL NEWDEV");
		return fc_pool_replace(pos[1], pos[2], wait, force ? FC_CREATE_FORCE : 0, fc_conf_file(&co));
	}
	if (!strcmp(sub, "remove")) {
		if (npos != 2)
			return fc_usage("pool", "pool remove: expected one NAME");
		return fc_pool_remove(pos[1], fc_conf_file(&co));
	}
	if (npos > 1)
		return fc_usage("pool", "pool list: unexpected argument '%s'", pos[1]);
	return pool_list(json);
}
