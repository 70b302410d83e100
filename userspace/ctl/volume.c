// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl enable / disable.
 *
 * A device-mapper volume (an LVM LV, a dm-linear device) is converted in
 * place, the way lvconvert inserts a cache: its live table is copied to a
 * hidden device NAME-fcorig, an fcache table pointing at NAME-fcorig is
 * loaded under NAME, and NAME is suspended and resumed.  The device keeps
 * its name and number, and a mounted filesystem keeps running.  disable
 * does the reverse.  Any other block device gets a new dm device on top.
 *
 * disable: the volume is reloaded in passthrough mode (no new dirty or
 * cached data), its dirty data written back with progress, its clean
 * blocks invalidated, the cache taken out of the path and the volume slot
 * released in the pool ('forget').  Until the cache is out of the path an
 * interruption (SIGINT) restores the original mode: the volume stays cached
 * and consistent.
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
#include <sys/sysmacros.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_check.h"
#include "lvm_filter.h"

#define MAX_ID 63	/* FC_MAX_VOLUMES */

static void make_label(char *out, size_t len, const char *name)
{
	size_t i;

	for (i = 0; i + 1 < len && i < 39 && name[i]; i++)
		out[i] = (name[i] > ' ' && name[i] < 0x7f && name[i] != '\\') ? name[i] : '_';
	out[i] = 0;
}

static int pick_id(struct fc_live *l, struct fc_pool *p, unsigned int want, const char *label,
		   unsigned int *id)
{
	struct fc_ondisk_vol ov[64];
	char used[MAX_ID + 2] = { 0 };
	int n, i;

	for (i = 0; i < l->nvols; i++) {
		if (l->vols[i].pool_dev != p->dev || l->vols[i].id > MAX_ID)
			continue;
		if (want && l->vols[i].id == want)
			return fc_fail("enable: volume id %u of pool %s is used by %s; choose another --id",
				       want, p->name, l->vols[i].name);
		used[l->vols[i].id] = 1;
	}
	n = fc_pool_flash_volumes(p, ov, 64);
	if (n < 0)
		fc_warn("cannot read the volume table of %s; choosing ids from active volumes only",
			fc_dev_path(p->flash));
	for (i = 0; i < n; i++) {
		if (ov[i].id > MAX_ID)
			continue;
		if (want && ov[i].id == want && strcmp(ov[i].label, label) &&
		    (ov[i].dirty_hint || fc_pool_flash_dirty(p, ov[i].slot)))
			return fc_fail("enable: volume id %u of pool %s holds dirty data of '%s'; enable that origin with --id %u, or choose another --id",
				       want, p->name, ov[i].label, want);
		used[ov[i].id] = 1;
	}
	if (want) {
		*id = want;
		return 0;
	}
	/*
	 * A volume registered with this origin's label and not attached (left by
	 * 'down' or 'disable --no-flush') may hold its dirty data: take its id
	 * back, never a fresh one next to stale data.
	 */
	for (i = 0; i < n; i++) {
		if (ov[i].id > MAX_ID || strcmp(ov[i].label, label) ||
		    fc_live_attached(l, p, ov[i].id))
			continue;
		*id = ov[i].id;
		fc_info("enable: reattaching %s as volume id %u of pool %s (%" PRIu64 " dirty blocks)",
			label, *id, p->name, ov[i].dirty_hint);
		return 0;
	}
	for (i = 1; i <= MAX_ID; i++)
		if (!used[i]) {
			*id = (unsigned int)i;
			return 0;
		}
	return fc_fail("enable: pool %s has no free volume id (63 in use); disable a volume first", p->name);
}

/* The message of a refused in-place writeback enable of an LVM LV. */
static void lvm_writeback_refused(const char *volume, const char *dmname)
{
	char say[1024];

	fc_lvm_say_filter("/dev/mapper/md0c", "/dev/md0", NULL, say, sizeof(say));
	fc_fail("enable: %s (%s) is an LVM logical volume: cached in place in writeback mode, any LVM command that reloads it (lvextend, lvchange --refresh, vgchange --refresh, lvcreate -s, vgchange -an/-ay) would replace the cache with LVM's own table and expose stale data.\n"
		"  Cache the PV instead, before LVM activates the VG: 'fcachectl enable /dev/md0 --pool POOL --name md0c' (the md/RAID device under the VG), and %s.\n"
		"  Or cache this LV in place with --mode writethrough or writearound (no dirty data: an LVM command then only takes the cache away);\n"
		"  that also writes back the dirty data an earlier in-place writeback cache of this LV left in the pool (same --id).",
		volume, dmname, say);
}

/*
 * An origin carrying an LVM PV signature (open on @fd): refused if LVM
 * would see the PV raw (@raw, a path, or the names of @dev) as well as
 * cached (/dev/mapper/@cached), unless @force (lvm_filter.c).
 */
static int lvm_pv_check(int fd, const char *volume, dev_t dev, const char *raw, const char *cached,
			int force)
{
	char (*names)[PATH_MAX] = calloc(16, PATH_MAX);
	const char *ptr[16];
	int n, i, r;

	if (!names)
		return 0;
	if (raw) {
		snprintf(names[0], PATH_MAX, "%s", raw);
		n = 1;
	} else {
		n = fc_lvm_dev_names(dev, volume, names, 16);
	}
	for (i = 0; i < n; i++)
		ptr[i] = names[i];
	r = n ? fc_lvm_guard(fd, volume, ptr, n, cached, force) : 0;
	free(names);
	return r;
}

int fc_enable(const char *volume, const char *pool, const char *mode, const char *name,
	      unsigned int want_id, int cutoff, const char *olog, const char *conf, int force)
{
	struct fc_live l;
	struct fc_pool *p;
	struct fc_dm_info info;
	struct fc_dm_target *orig = NULL, t;
	char dmname[128], hidden[160], label[48], params[512], pd[32], od[32], lgd[32], uuid[200], opts[192];
	struct fc_ondisk_vol ov[64];
	uint64_t bytes, sectors;
	unsigned int id = 0;
	dev_t dev, logdev;
	int fd, i, n, norig = 0, is_dm, nw = 2, o = 0, rc = EXIT_FAIL;

	/* the label (2 words), then these */
	opts[0] = 0;
	if (cutoff >= 0) {
		o += snprintf(opts + o, sizeof(opts) - o, " sequential_cutoff %d", cutoff);
		nw += 2;
	}
	if (olog) {
		if (fc_block_dev(olog, &logdev))
			return fc_fail("enable: --ordered-log %s is not a block device (%s)", olog,
				       strerror(errno));
		o += snprintf(opts + o, sizeof(opts) - o, " ordered_log %s",
			      fc_dev_str(logdev, lgd, sizeof(lgd)));
		nw += 2;
	}
	if (fc_block_dev(volume, &dev))
		return fc_fail("enable: %s is not a block device (%s)", volume, strerror(errno));
	if (fc_live_scan(&l))
		return fc_fail("enable: cannot talk to device-mapper: %s", fc_dm_error());
	p = fc_live_pool(&l, pool);
	if (!p) {
		fc_fail("enable: no pool named '%s' (create it with 'fcachectl pool create', see 'fcachectl pool list')", pool);
		goto out;
	}
	if (p->have_status && strcmp(p->st.metadata_mode, "rw")) {
		fc_fail("enable: pool %s is in %s mode after errors; run 'fcachectl check' on its flash offline", p->name,
			p->st.metadata_mode);
		goto out;
	}
	for (i = 0; i < l.npools; i++)
		if (dev == l.pools[i].dev || dev == l.pools[i].flash) {
			fc_fail("enable: %s belongs to pool %s; give the volume to cache", volume, l.pools[i].name);
			goto out;
		}
	for (i = 0; i < l.nvols; i++) {
		if (dev == l.vols[i].dev) {
			fc_fail("enable: %s is already cached (volume id %u, mode %s); 'fcachectl set %s mode=...' changes its mode",
				volume, l.vols[i].id, l.vols[i].mode, l.vols[i].name);
			goto out;
		}
		if (dev == l.vols[i].origin) {
			fc_fail("enable: %s is the origin of cached volume %s; use /dev/mapper/%s", volume,
				l.vols[i].name, l.vols[i].name);
			goto out;
		}
	}
	is_dm = fc_dm_dev_name(dev, dmname, sizeof(dmname));
	if (is_dm < 0) {
		fc_fail("enable: cannot identify %s: %s", volume, fc_dm_error());
		goto out;
	}
	if (is_dm && !strcmp(mode, "writeback") && fc_is_lvm_lv(dmname)) {
		lvm_writeback_refused(volume, dmname);
		goto out;
	}
	make_label(label, sizeof(label), is_dm ? dmname : fc_dev_kname(dev));
	if (pick_id(&l, p, want_id, label, &id))
		goto out;
	/* a slot detached at run time: dirty data is refused, clean data dropped */
	n = fc_pool_flash_volumes(p, ov, 64);
	for (i = 0; i < n; i++) {
		if (ov[i].id != id || !ov[i].detached)
			continue;
		if (ov[i].dirty_hint || fc_pool_flash_dirty(p, ov[i].slot) > 0) {
			fc_fail("enable: volume %u ('%s') of pool %s: its cache was detached at run time with dirty data (%" PRIu64 " blocks); its origin may hold newer writes; choose with 'fcachectl resolve %s %u --replay' (the pool's data is newer: nothing wrote the origin since) or '--discard' (the origin is authoritative)",
				id, ov[i].label, p->name, ov[i].dirty_hint, p->name, id);
			goto out;
		}
		fc_info("enable: volume %u was detached at run time without dirty data: its clean cached data is dropped", id);
	}
	if (fc_path_size(volume, &bytes)) {
		fc_fail("enable: cannot read the size of %s: %s", volume, strerror(errno));
		goto out;
	}
	sectors = bytes / 512;
	if (!sectors) {
		fc_fail("enable: %s is empty", volume);
		goto out;
	}

	if (!is_dm) {
		/* a new device on top of a plain block device */
		if (!name) {
			snprintf(hidden, sizeof(hidden), "fc-%s", fc_dev_kname(dev));
			name = hidden;
		}
		if (!fc_valid_name(name)) {
			rc = fc_usage("enable", "enable: bad --name '%s'", name);
			goto out;
		}
		if (fc_dm_info(name, &info) || info.exists) {
			fc_fail("enable: a device named '%s' exists already; choose another --name", name);
			goto out;
		}
		fd = open(volume, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0) {
			fc_fail("enable: %s is in use (%s); unmount it or stop its user first, or cache it as an LVM volume to convert it in place",
				volume, strerror(errno));
			goto out;
		}
		/* a PV: LVM must see it only cached */
		if (lvm_pv_check(fd, volume, dev, NULL, name, force)) {
			close(fd);
			goto out;
		}
		close(fd);
		snprintf(params, sizeof(params), "%s %s %u %s %d label %s%s",
			 fc_dev_str(p->dev, pd, sizeof(pd)), fc_dev_str(dev, od, sizeof(od)), id, mode,
			 nw, label, opts);
		t.start = 0;
		t.length = sectors;
		t.type = (char *)FC_VOLUME_TARGET;
		t.params = params;
		snprintf(uuid, sizeof(uuid), "FCACHE-%s", name);
		if (fc_dm_create(name, uuid, &t, 1)) {
			fc_fail("enable: the kernel refused to cache %s (%s); see dmesg", volume, fc_dm_error());
			fc_dm_remove(name);
			goto out;
		}
		printf("/dev/mapper/%s\n", name);
		rc = EXIT_OK;
		if (conf)
			rc = fc_conf_record_enable(conf, p, volume, id, mode, name, cutoff, olog);
		goto out;
	}

	/* in place */
	if (name && strcmp(name, dmname)) {
		rc = fc_usage("enable", "enable: %s is a device-mapper device, cached in place under its own name '%s'; drop --name",
			      volume, dmname);
		goto out;
	}
	if (strlen(dmname) + strlen(FC_DM_HIDDEN_SUFFIX) >= 128) {
		fc_fail("enable: the name '%s' is too long to add a hidden origin", dmname);
		goto out;
	}
	snprintf(hidden, sizeof(hidden), "%s%s", dmname, FC_DM_HIDDEN_SUFFIX);
	/* a PV on a dm device (dm-crypt, multipath): LVM must not see NAME-fcorig */
	fd = open(volume, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char rawp[200];

		snprintf(rawp, sizeof(rawp), "/dev/mapper/%s", hidden);
		i = lvm_pv_check(fd, volume, dev, rawp, dmname, force);
		close(fd);
		if (i)
			goto out;
	}
	if (fc_dm_info(hidden, &info) || info.exists) {
		fc_fail("enable: %s exists already (left over from an interrupted enable?); remove it with 'dmsetup remove %s' if unused",
			hidden, hidden);
		goto out;
	}
	if (fc_dm_info(dmname, &info) || !info.exists || !info.live_table || info.suspended) {
		fc_fail("enable: %s has no live table or is suspended; resume it first", dmname);
		goto out;
	}
	if (fc_dm_table(dmname, &orig, &norig) || !norig) {
		fc_fail("enable: cannot read the table of %s: %s", dmname, fc_dm_error());
		goto out;
	}
	for (i = 0, sectors = 0; i < norig; i++)
		sectors = orig[i].start + orig[i].length > sectors ? orig[i].start + orig[i].length : sectors;
	snprintf(uuid, sizeof(uuid), "FCACHE-ORIG-%s", dmname);
	if (fc_dm_create(hidden, uuid, orig, norig)) {
		fc_fail("enable: cannot create %s: %s", hidden, fc_dm_error());
		fc_dm_remove(hidden);
		goto out;
	}
	if (fc_dm_info(hidden, &info) || !info.exists) {
		fc_fail("enable: %s vanished", hidden);
		goto out;
	}
	snprintf(params, sizeof(params), "%s %u:%u %u %s %d label %s%s", fc_dev_str(p->dev, pd, sizeof(pd)),
		 info.major, info.minor, id, mode, nw, label, opts);
	t.start = 0;
	t.length = sectors;
	t.type = (char *)FC_VOLUME_TARGET;
	t.params = params;
	if (fc_dm_load(dmname, &t, 1)) {
		fc_fail("enable: the kernel refused to cache %s (%s); see dmesg", volume, fc_dm_error());
		fc_dm_remove(hidden);
		goto out;
	}
	if (fc_dm_suspend(dmname, 0)) {
		fc_fail("enable: cannot suspend %s: %s; nothing changed", dmname, fc_dm_error());
		fc_dm_clear(dmname);
		fc_dm_remove(hidden);
		goto out;
	}
	if (fc_dm_resume(dmname)) {
		/* put the original table back */
		fc_fail("enable: cannot resume %s with the cache: %s; restoring its table", dmname, fc_dm_error());
		if (fc_dm_load(dmname, orig, norig) || fc_dm_resume(dmname))
			fc_warn("%s could not be restored (%s): it is left suspended; 'dmsetup resume %s'",
				dmname, fc_dm_error(), dmname);
		else
			fc_dm_remove(hidden);
		goto out;
	}
	printf("/dev/mapper/%s\n", dmname);
	if (strcmp(mode, "writeback") && fc_is_lvm_lv(dmname))
		fc_warn("%s is an LVM LV cached in place (%s): an LVM command that reloads it takes the cache out of its path (no dirty data is at risk); 'fcachectl up' or 'enable' attaches it again and drops the cached data, which the origin may have outdated",
			dmname, mode);
	rc = EXIT_OK;
	if (conf)
		rc = fc_conf_record_enable(conf, p, volume, id, mode, NULL, cutoff, olog);
out:
	if (orig)
		fc_dm_free_targets(orig, norig);
	fc_live_free(&l);
	return rc;
}

static int cmd_enable_(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pool", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "name", required_argument, NULL, 'n' },
		{ "id", required_argument, NULL, 'i' },
		{ "sequential-cutoff", required_argument, NULL, 's' },
		{ "ordered-log", required_argument, NULL, 'L' },
		{ "force", no_argument, NULL, 'f' },
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *pool = NULL, *mode = "writeback", *name = NULL, *vol = NULL, *conf, *olog = NULL;
	static char ologp[PATH_MAX];
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_opt o;
	char modes[128];
	const struct fc_tunable *sc = fc_tunable(FC_TUN_VOL, "sequential_cutoff");
	uint64_t id = 0;
	uint32_t cut = 0;
	int c, cutoff = -1, force = 0;

	fc_opt_init(&o, argc, argv, "p:m:n:i:s:c:", opts, "enable", "enable");
	while ((c = fc_opt_next_conf(&o, &co)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (vol)
				return fc_usage("enable", "enable: one VOLUME at a time ('%s' is extra)", o.arg);
			vol = o.arg;
			break;
		case 'p':
			pool = o.arg;
			break;
		case 'm':
			mode = o.arg;
			break;
		case 'n':
			name = o.arg;
			break;
		case 'i':
			if (fc_parse_u64(o.arg, &id) || !id || id > MAX_ID)
				return fc_usage("enable", "enable: bad --id '%s': 1..%d", o.arg, MAX_ID);
			break;
		case 's':
			if (fc_tunable_check(FC_TUN_VOL, sc->name, o.arg, NULL, &cut, modes,
					     sizeof(modes)))
				return fc_usage("enable", "enable: bad --sequential-cutoff '%s': KiB, 0..%u", o.arg, sc->max);
			cutoff = (int)cut;
			break;
		case 'L':
			/* absolute: the config file records it for 'up' */
			if (!realpath(o.arg, ologp) || strlen(ologp) > FC_CTL_OLOG_PATH_MAX)
				return fc_usage("enable", "enable: bad --ordered-log '%s': %s", o.arg,
						errno ? strerror(errno) : "a path of at most 127 characters");
			olog = ologp;
			break;
		case 'f':
			force = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	conf = fc_conf_file(&co);
	if (!vol)
		return fc_usage("enable", "enable: expected VOLUME");
	if (!pool)
		return fc_usage("enable", "enable: --pool NAME is required");
	if (!fc_enable_mode(mode))
		return fc_usage("enable", "enable: bad --mode '%s': %s", mode, fc_mode_list(modes, sizeof(modes), 1));
	if (name && !fc_valid_name(name))
		return fc_usage("enable", "enable: bad --name '%s' (letters, digits and -_.+ only)", name);
	if (conf && fc_conf_check(conf))
		return EXIT_FAIL;
	return fc_enable(vol, pool, mode, name, (unsigned int)id, cutoff, olog, conf, force);
}

int cmd_enable(int argc, char **argv)
{
	return cmd_enable_(argc, argv);
}

/* Put the volume back in its original mode after an interrupted disable. */
static int restore_mode(struct fc_vol *v, const char *oldtable)
{
	struct fc_dm_target t = { 0, v->sectors, (char *)FC_VOLUME_TARGET, (char *)oldtable };

	if (fc_dm_load(v->name, &t, 1) || fc_dm_suspend(v->name, 0) || fc_dm_resume(v->name)) {
		fc_warn("could not restore the mode of %s: %s", v->name, fc_dm_error());
		return -1;
	}
	return 0;
}

/*
 * Write back until @v (in passthrough) holds no dirty data.  A flush ends
 * once what was dirty when it began is on the origin, even if a block was
 * rewritten during its copy; in passthrough such a write waits for the
 * copy (the kernel's decision table), so nothing should be left.  If some
 * is (an older module, a race not foreseen), another pass.
 * 0, -1 (said why), or -2 (interrupted).
 */
static int flush_until_clean(struct fc_pool *p, struct fc_vol *v)
{
	int pass, r;

	for (pass = 1; pass <= 4; pass++) {
		r = fc_flush_wait(p, v);
		if (r)
			return r;
		if (fc_vol_refresh(v)) {
			fc_fail("disable: lost the status of %s: %s", v->name, fc_dm_error());
			return -1;
		}
		if (!v->st.dirty_blocks)
			return 0;
		fc_info("%s: %" PRIu64 " blocks dirty again after writeback pass %d; another pass",
			v->name, v->st.dirty_blocks, pass);
	}
	fc_fail("disable: %s still has %" PRIu64 " dirty blocks after %d writeback passes; its cache stays",
		v->name, v->st.dirty_blocks, pass - 1);
	return -1;
}

/*
 * The volume is suspended with its original table loaded: the last word on
 * dirty data before the cache leaves the path (no write can reach it now).
 * 0 when clean; else the old table is put back live and -1 said why.
 */
static int still_clean_when_suspended(struct fc_vol *v)
{
	if (!fc_vol_refresh(v) && !v->st.dirty_blocks)
		return 0;
	fc_fail("disable: %s %s: its cache stays; run 'fcachectl disable %s' again",
		v->name, v->have_status ? "was written to during the writeback and holds dirty data again" :
		"did not report its dirty data", v->name);
	fc_dm_clear(v->name);
	if (fc_dm_resume(v->name))
		fc_fail("disable: cannot resume %s: %s", v->name, fc_dm_error());
	return -1;
}

/*
 * @detach_only (config 'down'): take the cache out of the path without
 * writing back, keeping the volume registered with its data in the pool.
 */
int fc_disable(const char *volume, int no_flush, int detach_only, const char *conf)
{
	struct fc_live l;
	struct fc_vol *v;
	struct fc_pool *p;
	struct fc_dm_info info;
	struct fc_dm_target *ot = NULL;
	char oldtable[1024], params[1024], hidden[160], msg[64];
	int not = 0, rc = EXIT_FAIL, r;
	unsigned int id;

	if (fc_live_scan(&l))
		return fc_fail("disable: cannot talk to device-mapper: %s", fc_dm_error());
	v = fc_live_vol(&l, volume);
	if (!v) {
		fc_fail("disable: %s is not a cached volume (see 'fcachectl status')", volume);
		goto out;
	}
	p = fc_live_pool_by_dev(&l, v->pool_dev);
	id = v->id;
	snprintf(oldtable, sizeof(oldtable), "%s", v->table);
	snprintf(hidden, sizeof(hidden), "%s%s", v->name, FC_DM_HIDDEN_SUFFIX);
	if (!v->in_place) {
		if (fc_dm_info(v->name, &info) || info.open_count) {
			fc_fail("disable: %s is in use (open %d times: mounted?); unmount it first", v->name,
				info.open_count);
			goto out;
		}
	} else if (fc_dm_table(hidden, &ot, &not) || !not) {
		fc_fail("disable: cannot read the table of %s: %s", hidden, fc_dm_error());
		goto out;
	}
	if (no_flush && !detach_only && v->in_place && v->st.dirty_blocks) {
		fc_fail("disable: %s has %" PRIu64 " dirty blocks and keeps its name: without writing them back it would show stale data; run without --no-flush",
			v->name, v->st.dirty_blocks);
		goto out;
	}
	if (!no_flush && !detach_only) {
		fc_install_sigint();
		if (fc_vol_table_with_mode(v, "passthrough", params, sizeof(params)) ||
		    fc_vol_reload(v, params)) {
			fc_fail("disable: cannot switch %s to passthrough: %s", v->name, fc_dm_error());
			goto out;
		}
		memcpy(v->table, params, sizeof(v->table));
		r = flush_until_clean(p, v);
		if (!r && fc_dm_message(v->name, "invalidate", NULL)) {
			fc_fail("disable: cannot invalidate the cached blocks of %s: %s", v->name, fc_dm_error());
			r = -1;
		}
		if (r) {
			if (r == -2)
				fc_fail("interrupted: putting %s back in %s mode once the writeback pass in progress ends",
					v->name, v->mode);
			restore_mode(v, oldtable);
			if (r == -2)
				fc_fail("disable: interrupted; %s is still cached (mode %s)", v->name, v->mode);
			goto out;
		}
	}
	/*
	 * take the cache out of the path; tell the kernel first that this
	 * teardown is orderly (else the pool marks the volume detached at run
	 * time and refuses to replay its dirty data)
	 */
	if (fc_dm_message(v->name, "detach", NULL))
		fc_warn("%s did not take the detach message (%s): the pool will treat the volume as detached at run time",
			v->name, fc_dm_error());
	if (v->in_place) {
		if (fc_dm_load(v->name, ot, not) || fc_dm_suspend(v->name, 0)) {
			fc_fail("disable: cannot restore the original table of %s: %s", v->name, fc_dm_error());
			fc_dm_clear(v->name);
			fc_dm_message(v->name, "cancel_detach", NULL);
			if (!no_flush && !detach_only)
				restore_mode(v, oldtable);
			goto out;
		}
		if (!no_flush && !detach_only && still_clean_when_suspended(v)) {
			fc_dm_message(v->name, "cancel_detach", NULL);
			restore_mode(v, oldtable);
			goto out;
		}
		if (fc_dm_resume(v->name)) {
			fc_fail("disable: cannot resume %s: %s", v->name, fc_dm_error());
			goto out;
		}
		if (fc_dm_remove(hidden))
			fc_warn("cannot remove %s: %s", hidden, fc_dm_error());
	} else if (fc_dm_remove(v->name)) {
		fc_fail("disable: cannot remove %s: %s", v->name, fc_dm_error());
		fc_dm_message(v->name, "cancel_detach", NULL);
		if (!no_flush && !detach_only)
			restore_mode(v, oldtable);
		goto out;
	}
	if (!no_flush && !detach_only && p) {
		snprintf(msg, sizeof(msg), "forget %u", id);
		if (fc_dm_message(p->name, msg, NULL))
			fc_warn("pool %s did not release volume id %u: %s", p->name, id, fc_dm_error());
	}
	if (no_flush && !detach_only && v->st.dirty_blocks)
		fc_warn("%" PRIu64 " dirty blocks of %s stay in pool %s: its origin is stale until 'fcachectl enable ... --id %u'",
			v->st.dirty_blocks, v->name, p ? p->name : "?", id);
	rc = EXIT_OK;
	/* disable --no-flush keeps the volume in the config: its dirty data must be found again */
	if (conf && !no_flush && !detach_only && p)
		rc = fc_conf_record_disable(conf, p->name, id);
out:
	if (ot)
		fc_dm_free_targets(ot, not);
	fc_live_free(&l);
	return rc;
}

int cmd_disable(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-flush", no_argument, NULL, 'F' },
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *vol = NULL, *conf;
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_opt o;
	int c, no_flush = 0;

	fc_opt_init(&o, argc, argv, "c:", opts, "disable", "disable");
	while ((c = fc_opt_next_conf(&o, &co)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (vol)
				return fc_usage("disable", "disable: one VOLUME at a time");
			vol = o.arg;
			break;
		case 'F':
			no_flush = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	conf = fc_conf_file(&co);
	if (!vol)
		return fc_usage("disable", "disable: expected VOLUME");
	if (conf && fc_conf_check(conf))
		return EXIT_FAIL;
	return fc_disable(vol, no_flush, 0, conf);
}

