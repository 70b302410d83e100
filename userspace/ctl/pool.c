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

/* the command line of pool create, to name with --yes (reformat.c) */
static char create_cmd[2048] = "fcachectl pool create NAME FLASHDEV --force --yes";

int fc_pool_key(const char *k)
{
	return fc_tunable(FC_TUN_POOL, k) != NULL;
}

/* Validate KEY=VALUE pool tunables, append "key value" words to @opts. */
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
	return 0;
}

int fc_pool_create(const char *name, const char *flash, uint32_t bs, int bs_given, int force,
		   const char *opts, int words)
{
	struct fc_dm_info info;
	struct fc_dm_target t;
	char what[128], params[1200], devs[32], bufname[128];
	uint32_t have_bs = 0;
	uint64_t bytes, sectors;
	dev_t dev;
	int fd, dfd, existing, sig, i, r;

	if (fc_dm_info(name, &info))
		return fc_fail("pool create: cannot talk to device-mapper: %s", fc_dm_error());
	if (info.exists)
		return fc_fail("pool create: a device named '%s' exists already; choose another name", name);
	if (fc_block_dev(flash, &dev))
		return fc_fail("pool create: %s is not a block device (%s)", flash, strerror(errno));
	if (fc_dm_dev_name(dev, bufname, sizeof(bufname)) == 1) {
		struct fc_live l;

		if (!fc_live_scan(&l)) {
			int isfc = fc_live_pool(&l, bufname) || fc_live_vol(&l, bufname);

			fc_live_free(&l);
			if (isfc)
				return fc_fail("pool create: %s is an fcache device itself; give a flash device", flash);
		}
	}
	{
		struct fc_live l;
		char active[128] = "";

		if (!fc_live_scan(&l)) {
			for (i = 0; i < l.npools; i++)
				if (l.pools[i].flash == dev)
					snprintf(active, sizeof(active), "%s", l.pools[i].name);
			fc_live_free(&l);
		}
		if (active[0])
			return fc_fail("pool create: %s is the flash of pool %s, which is active; nothing changed (to reuse the device: disable its volumes, 'fcachectl pool remove %s', then create again)",
				       flash, active, active);
	}
	fd = open(flash, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return fc_fail("pool create: cannot open %s exclusively: %s%s", flash, strerror(errno),
			       errno == EBUSY ? " (mounted, or used by another device or pool?)" : "");
	dfd = open(flash, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (dfd < 0 || fc_dev_size(fd, &bytes)) {
		close(fd);
		return fc_fail("pool create: cannot read %s: %s", flash, strerror(errno));
	}
	sectors = bytes / 512;
	existing = fc_probe_pool(dfd, &have_bs);
	if (existing && (force & FC_CREATE_FORCE)) {
		/* reformat: asked now, after every check */
		r = fc_reformat_confirm(dfd, flash, have_bs, force, create_cmd);
		if (r) {
			close(dfd);
			close(fd);
			return r;
		}
		existing = 0;
	}
	if (existing) {
		if (bs_given && have_bs != bs) {
			close(dfd);
			close(fd);
			return fc_fail("pool create: %s holds an fcache pool with %u KiB blocks, not %u KiB; omit --block-size to load it",
				       flash, have_bs / 2, bs / 2);
		}
		bs = have_bs;
	} else {
		r = force & FC_CREATE_FORCE ? 0 : fc_refuse_damaged(dfd, flash);
		if (r) {
			close(dfd);
			close(fd);
			return r;
		}
		if (fc_pool_blocks(sectors, bs) < 16) {
			close(dfd);
			close(fd);
			return fc_fail("pool create: %s (%" PRIu64 " sectors) is too small for a pool of %u KiB blocks",
				       flash, sectors, bs / 2);
		}
		sig = fc_probe_signatures(fd, what, sizeof(what), 0);
		if (sig < 0) {
			close(dfd);
			close(fd);
			return fc_fail("pool create: cannot probe %s for signatures", flash);
		}
		if (sig && !(force & FC_CREATE_FORCE)) {
			close(dfd);
			close(fd);
			return fc_fail("pool create: %s holds %s; use --force to overwrite it", flash, what);
		}
		if (sig && fc_probe_signatures(fd, what, sizeof(what), 1) < 0)
			fc_warn("could not wipe every signature on %s", flash);
		if (fc_dev_zero(dfd, 2 * 4096)) {	/* the superblock slots */
			close(dfd);
			close(fd);
			return fc_fail("pool create: cannot write to %s: %s", flash, strerror(errno));
		}
	}
	close(dfd);
	close(fd);

	if (words)
		snprintf(params, sizeof(params), "%s %u %d%s", fc_dev_str(dev, devs, sizeof(devs)),
			 bs, words, opts);
	else
		snprintf(params, sizeof(params), "%s %u", fc_dev_str(dev, devs, sizeof(devs)), bs);
	t.start = 0;
	t.length = sectors;
	t.type = (char *)FC_POOL_TARGET;
	t.params = params;
	if (fc_dm_create(name, NULL, &t, 1)) {
		const char *e = fc_dm_error();

		fc_dm_remove(name);	/* a half-created device, if any */
		if (!fc_dm_has_target(FC_POOL_TARGET))
			return fc_fail("pool create: the kernel has no %s target; load the module: modprobe dm-fcache",
				       FC_POOL_TARGET);
		return fc_fail("pool create: the kernel refused the pool on %s (%s); see dmesg", flash, e);
	}
	printf("/dev/mapper/%s\n", name);
	fc_info("pool %s: %s %s, %u KiB blocks", name, existing ? "loaded" : "formatted", flash, bs / 2);
	return EXIT_OK;
}

static int pool_create(int npos, char **pos, uint32_t bs, int bs_given, int force)
{
	char topts[1024] = "";
	int words = 0, r;

	if (npos < 2)
		return fc_usage("pool", "pool create: expected NAME FLASHDEV");
	if (!fc_valid_name(pos[0]))
		return fc_usage("pool", "pool create: bad name '%s' (letters, digits and -_.+ only)", pos[0]);
	r = fc_pool_tunables("pool", npos - 2, pos + 2, topts, sizeof(topts), &words);
	if (r)
		return r;
	r = fc_create_gate(pos[1], force, create_cmd);
	if (r)
		return r;
	return fc_pool_create(pos[0], pos[1], bs, bs_given, force, topts, words);
}

int fc_pool_remove(const char *arg)
{
	struct fc_live l;
	struct fc_pool *p;
	char list[512] = "";
	int i, n = 0;
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
	if (fc_dm_remove(p->name)) {
		fc_fail("pool remove: cannot remove %s: %s", p->name, fc_dm_error());
		fc_live_free(&l);
		return EXIT_FAIL;
	}
	fc_live_free(&l);
	return EXIT_OK;
}

static int pool_list(int json)
{
	struct fc_live l;
	struct fc_json j;
	int i, k, nv;
	char sz[32];

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
			printf("%-16s %-14s %5uK %10s %5.1f%% %5.1f%% %d\n", p->name, fc_dev_path(p->flash),
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
 * pool create|remove|list: the options of all three are parsed here, in any
 * position, then checked against the subcommand (the first operand).
 */
int cmd_pool(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "block-size", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 }
	};
	char *pos[3 + 16];
	const char *sub, *create_opt = NULL;
	struct fc_opt o;
	int npos = 0, force = 0, bs_given = 0, json = 0, yes = 0, c;
	uint64_t bytes;
	uint32_t bs = 64;	/* 32 KiB, FC_DEFAULT_BLOCK_SECTORS */

	fc_opt_init(&o, argc, argv, "b:f", opts, "pool", "pool");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (npos >= (int)(sizeof(pos) / sizeof(pos[0])))
				return fc_usage("pool", "pool %s: too many arguments", pos[0]);
			pos[npos++] = o.arg;
			/* the messages of the subcommand name it */
			if (npos == 1 && (!strcmp(o.arg, "create") || !strcmp(o.arg, "remove") ||
					  !strcmp(o.arg, "list")))
				o.what = !strcmp(o.arg, "create") ? "pool create" :
					 !strcmp(o.arg, "remove") ? "pool remove" : "pool list";
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
			create_opt = "--force";
			break;
		case 'j':
			json = 1;
			break;
		case 'y':
			yes = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!npos)
		return fc_usage("pool", "pool: expected create, remove or list");
	sub = pos[0];
	if (strcmp(sub, "create") && strcmp(sub, "remove") && strcmp(sub, "list"))
		return fc_usage("pool", "pool: unknown subcommand '%s' (create, remove, list)", sub);
	if (strcmp(sub, "create") && (create_opt || yes))
		return fc_usage("pool", "pool %s: %s is an option of pool create", sub, yes ? "--yes" : create_opt);
	if (yes && !force)
		return fc_usage("pool", "pool create: --yes confirms --force (reformatting a pool); give both");
	if (strcmp(sub, "list") && json)
		return fc_usage("pool", "pool %s: --json is an option of pool list", sub);
	if (!strcmp(sub, "create")) {
		fc_cmdline(create_cmd, sizeof(create_cmd), argc, argv, "--yes");
		return pool_create(npos - 1, pos + 1, bs, bs_given, force | (yes ? FC_CREATE_YES : 0));
	}
	if (!strcmp(sub, "remove")) {
		if (npos != 2)
			return fc_usage("pool", "pool remove: expected one NAME");
		return fc_pool_remove(pos[1]);
	}
	if (npos > 1)
		return fc_usage("pool", "pool list: unexpected argument '%s'", pos[1]);
	return pool_list(json);
}
