// SPDX-License-Identifier: GPL-2.0
/*
 * The device stacks `fcachectl bench compare` measures, built through
 * fc_dm (libdevmapper), all over the same origin and flash devices:
 *
 *   baseline          the origin itself
 *   fcache-writeback  fcache-pool on the flash (32 KiB blocks: fcachectl's
 *                     default; --cache-block sets it), an fcache
 *                     volume in writeback mode over the origin
 *   dm-cache          cache target, smq policy, writeback; metadata on a
 *                     dm-linear slice at the start of the flash, cache blocks
 *                     on a second slice (32 KiB blocks, dm-cache's smallest)
 *   dm-writecache     writecache target in ssd mode, 4 KiB blocks
 *   fcache-mirrored   a mirrored fcache pool (issue 11), every dirty block
 *                     written to both devices, clean data on either: with
 *                     --flash2 over the flash and the second flash as two
 *                     whole devices (what a DBA building a mirrored pool
 *                     buys); without it over the two halves of the flash
 *                     (dm-linear), the same capacity as fcache-writeback, so
 *                     the ratio between the two is the cost of the second copy
 *   dm-writecache-raid1, dm-cache-raid1 (--flash2 only)
 *                     dm-writecache and dm-cache as above over a dm RAID1 of
 *                     the two flash devices (what users mirror a cache with
 *                     today): the dm `raid` target (md's raid1 personality,
 *                     as `lvcreate --type raid1` builds it), each device a
 *                     4 MiB metadata slice (superblock and write-intent
 *                     bitmap, LVM's rmeta) and a data slice (rimage),
 *                     2 MiB regions (LVM's default), `nosync`: both legs
 *                     start blank and the caches read only what they wrote
 *                     through the array, so an initial resync would only
 *                     steal bandwidth from the measurement
 *
 * The dm-cache metadata slice is 1/16 of its cache device (4..64 MiB).
 * Every stack starts from a blank cache: the start of the flash (or of the
 * metadata slice) is zeroed so the target formats it afresh; compare also
 * discards the whole flash before each configuration (bench_flash_discard).  The devices
 * are named fcbench-*; leftovers of an interrupted run are removed first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench_int.h"
#include "bench_stack.h"
#include "fc_dev.h"
#include "fc_dm.h"
#include "fc_util.h"

#define DMCACHE_SECTORS	64		/* dm-cache: 32 KiB, its smallest block */
#define RAID_META_SECTORS 8192		/* dm RAID1: 4 MiB metadata slice a device */
#define RAID_REGION	4096		/* dm RAID1: 2 MiB regions (LVM's default) */


/* in the order of removal: the top of a stack first */
static const char *const names[] = {
	"fcbench-vol", "fcbench-pool", "fcbench-cache", "fcbench-wc",
	"fcbench-cdata", "fcbench-meta", "fcbench-raid", "fcbench-rimage0",
	"fcbench-rmeta0", "fcbench-rimage1", "fcbench-rmeta1", "fcbench-leg0",
	"fcbench-leg1",
};

/* fcache-writeback and fcache-mirrored: the same devices on top */
static bool is_fcache(const char *config)
{
	return !strcmp(config, "fcache-writeback") || !strcmp(config, "fcache-mirrored");
}

int bench_stack_needs_flash2(const char *config)
{
	return !strcmp(config, "dm-writecache-raid1") || !strcmp(config, "dm-cache-raid1");
}

static bool is_dmcache(const char *config)
{
	return !strcmp(config, "dm-cache") || !strcmp(config, "dm-cache-raid1");
}

static bool is_writecache(const char *config)
{
	return !strcmp(config, "dm-writecache") || !strcmp(config, "dm-writecache-raid1");
}

static int zero_start(const char *dev, uint64_t bytes)
{
	int fd = open(dev, O_WRONLY | O_DIRECT), ret = -1;

	if (fd < 0) {
		fc_err(BENCH_WHO, "cannot open %s: %s", dev, strerror(errno));
		return -1;
	}
	if (fc_dev_zero(fd, bytes) == 0)
		ret = 0;
	else
		fc_err(BENCH_WHO, "zeroing %s failed: %s", dev, strerror(errno));
	close(fd);
	return ret;
}

/* BLKDISCARD, or for a file a hole over all of it: 0, or -1 with errno. */
static int discard_all(int fd, uint64_t bytes)
{
	struct stat st;
	uint64_t range[2] = { 0, bytes };

	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKDISCARD, range);
	if (S_ISREG(st.st_mode))
		return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes);
	errno = ENOTBLK;
	return -1;
}

int bench_flash_discard(const char *flash)
{
	uint64_t bytes = 0;
	int fd = open(flash, O_WRONLY), ret = -1;

	if (fd >= 0 && fc_path_size(flash, &bytes) == 0 && discard_all(fd, bytes) == 0)
		ret = 0;
	if (ret)
		printf("flash %s: no discard (%s); a cache still starts on a zeroed first MiB\n",
		       flash, strerror(errno));
	else
		printf("flash %s: discarded (%.0f MiB)\n", flash, bytes / 1048576.0);
	fflush(stdout);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int wait_node(const char *name, char *path, size_t len)
{
	struct fc_dm_info info;
	struct stat st;
	int i;

	snprintf(path, len, "/dev/mapper/%s", name);
	for (i = 0; i < 50; i++) {
		if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
			return 0;
		usleep(100000);
	}
	/* no node (no udev and libdm did not make one): make it ourselves */
	if (fc_dm_info(name, &info) == 0 && info.exists &&
	    mknod(path, S_IFBLK | 0600, makedev(info.major, info.minor)) == 0 &&
	    stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return 0;
	fc_err(BENCH_WHO, "/dev/mapper/%s is not a block device", name);
	return -1;
}

static int mk(const char *name, uint64_t sectors, const char *type,
	      const char *params, char *path, size_t len)
{
	struct fc_dm_target t = { 0, sectors, (char *)type, (char *)params };

	if (fc_dm_create(name, NULL, &t, 1) < 0) {
		fc_err(BENCH_WHO, "creating %s (%s %s) failed: %s", name,
			type, params, fc_dm_error());
		return -1;
	}
	return wait_node(name, path, len);
}

static int devno(const char *name, char *buf, size_t len)
{
	struct fc_dm_info info;

	if (fc_dm_info(name, &info) < 0 || !info.exists)
		return -1;
	snprintf(buf, len, "%u:%u", info.major, info.minor);
	return 0;
}

static int need_target(const char *type, const char *module)
{
	char cmd[128];

	if (fc_dm_has_target(type) == 1)
		return 0;
	snprintf(cmd, sizeof(cmd), "modprobe -q %s >/dev/null 2>&1", module);
	if (system(cmd) != 0 || fc_dm_has_target(type) != 1) {
		fc_err(BENCH_WHO, "the kernel has no '%s' target (module %s)",
			type, module);
		return -1;
	}
	return 0;
}

void bench_stack_cleanup(void)
{
	size_t i;
	int k;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct fc_dm_info info;

		if (fc_dm_info(names[i], &info) < 0 || !info.exists)
			continue;
		/* The volume goes in order (as fcachectl disable): not "detached at run time". */
		if (!i) {
			char *resp = NULL;

			fc_dm_message(names[i], "detach", &resp);
			free(resp);
		}
		for (k = 0; k < 20; k++) {
			if (fc_dm_remove(names[i]) == 0)
				break;
			usleep(200000);
		}
		if (k == 20)
			fc_err(BENCH_WHO, "cannot remove %s: %s", names[i],
				fc_dm_error());
	}
}

/*
 * fcache-mirrored: the two halves of @flash (@fs sectors) as dm-linear
 * devices, blank; the pool table's parameters go to @p, the first leg's
 * size (the pool device's length) to *@leg_sectors.
 */
static int mirror_legs(const char *flash, uint64_t fs, unsigned int block_sectors,
		       char *p, size_t plen, uint64_t *leg_sectors)
{
	uint64_t half = fs / 2 / block_sectors * block_sectors;
	char l0[64], l1[64], t[512];

	snprintf(t, sizeof(t), "%s 0", flash);
	if (mk("fcbench-leg0", half, "linear", t, l0, sizeof(l0)) < 0)
		return -1;
	snprintf(t, sizeof(t), "%s %llu", flash, (unsigned long long)half);
	if (mk("fcbench-leg1", half, "linear", t, l1, sizeof(l1)) < 0 ||
	    zero_start(l0, 1 << 20) < 0 || zero_start(l1, 1 << 20) < 0)
		return -1;
	snprintf(p, plen, "%s %u 2 mirror %s", l0, block_sectors, l1);
	*leg_sectors = half;
	return 0;
}

/*
 * dm-cache-raid1, dm-writecache-raid1: a dm RAID1 of @flash and @flash2 (see
 * the top of the file), blank; its path to @path, its size to *@sectors.
 */
static int raid1_up(const char *flash, const char *flash2, char *path, size_t plen,
		    uint64_t *sectors)
{
	const char *dev[2] = { flash, flash2 };
	char meta[2][64], data[2][64], t[512];
	uint64_t size[2], array;
	int i;

	for (i = 0; i < 2; i++) {
		if (fc_path_size(dev[i], &size[i]) < 0) {
			fc_err(BENCH_WHO, "cannot size %s", dev[i]);
			return -1;
		}
		size[i] /= 512;
		if (size[i] < 2 * RAID_META_SECTORS + RAID_REGION) {
			fc_err(BENCH_WHO, "%s is too small for a dm RAID1 leg", dev[i]);
			return -1;
		}
	}
	for (i = 0; i < 2; i++) {
		char n[32];

		snprintf(n, sizeof(n), "fcbench-rmeta%d", i);
		snprintf(t, sizeof(t), "%s 0", dev[i]);
		if (mk(n, RAID_META_SECTORS, "linear", t, meta[i], sizeof(meta[i])) < 0)
			return -1;
		snprintf(n, sizeof(n), "fcbench-rimage%d", i);
		snprintf(t, sizeof(t), "%s %d", dev[i], RAID_META_SECTORS);
		if (mk(n, size[i] - RAID_META_SECTORS, "linear", t, data[i], sizeof(data[i])) < 0 ||
		    zero_start(meta[i], RAID_META_SECTORS * 512ull) < 0)
			return -1;
	}
	/* the smaller leg, in whole regions */
	array = size[0] < size[1] ? size[0] : size[1];
	array = (array - RAID_META_SECTORS) / RAID_REGION * RAID_REGION;
	snprintf(t, sizeof(t), "raid1 4 0 region_size %d nosync 2 %s %s %s %s", RAID_REGION,
		 meta[0], data[0], meta[1], data[1]);
	if (mk("fcbench-raid", array, "raid", t, path, plen) < 0)
		return -1;
	*sectors = array;
	return 0;
}

/* dm-cache over @cdev (@fs sectors): metadata and cache block slices of it. */
static int dmcache_up(const char *cdev, uint64_t fs, const char *origin, uint64_t os,
		      char *top, size_t len)
{
	uint64_t meta;
	char p[512], a[64], b[64];

	/* metadata slice: 1/16 of the cache device, 4..64 MiB */
	meta = fs / 16;
	meta = meta < 8192 ? 8192 : meta > 131072 ? 131072 : meta;
	meta &= ~7ull;
	if (fs <= 2 * meta) {
		fc_err(BENCH_WHO, "%s is too small for dm-cache", cdev);
		return -1;
	}
	snprintf(p, sizeof(p), "%s 0", cdev);
	if (mk("fcbench-meta", meta, "linear", p, a, sizeof(a)) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s %llu", cdev, (unsigned long long)meta);
	if (mk("fcbench-cdata", (fs - meta) / DMCACHE_SECTORS * DMCACHE_SECTORS,
	       "linear", p, b, sizeof(b)) < 0)
		return -1;
	if (zero_start(a, 1 << 20) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s %s %s %d 1 writeback smq 0", a, b, origin,
		 DMCACHE_SECTORS);
	return mk("fcbench-cache", os, "cache", p, top, len);
}

/* fcache's block size in the stack built last (the backlog's unit) */
static unsigned int stack_block_sectors;

int bench_stack_up(const char *config, const char *origin, const char *flash,
		   const char *flash2, unsigned int block_sectors, char *top, size_t len)
{
	uint64_t osz, fsz, os, fs;
	char p[512], a[64], c[64], r[64];

	if (!strcmp(config, "baseline")) {
		snprintf(top, len, "%s", origin);
		return 0;
	}
	if (fc_path_size(origin, &osz) < 0 || fc_path_size(flash, &fsz) < 0) {
		fc_err(BENCH_WHO, "cannot size %s / %s", origin, flash);
		return -1;
	}
	os = osz / 512;
	fs = fsz / 512;
	if (bench_stack_needs_flash2(config) && !flash2) {
		fc_err(BENCH_WHO, "%s needs --flash2", config);
		return -1;
	}
	bench_stack_cleanup();
	stack_block_sectors = block_sectors;
	if (is_fcache(config)) {
		bool two = flash2 && !strcmp(config, "fcache-mirrored");

		if (need_target("fcache-pool", "dm-fcache") < 0 ||
		    zero_start(flash, 1 << 20) < 0 || (two && zero_start(flash2, 1 << 20) < 0))
			return -1;
		/* two devices: the pool device is as long as the first (kmod/fc_pool.c) */
		if (two)
			snprintf(p, sizeof(p), "%s %u 2 mirror %s", flash, block_sectors, flash2);
		else
			snprintf(p, sizeof(p), "%s %u", flash, block_sectors);
		if (!two && !strcmp(config, "fcache-mirrored") &&
		    mirror_legs(flash, fs, block_sectors, p, sizeof(p), &fs) < 0)
			goto fail;
		if (mk("fcbench-pool", fs, "fcache-pool", p, c, sizeof(c)) < 0 ||
		    devno("fcbench-pool", a, sizeof(a)) < 0)
			goto fail;
		snprintf(p, sizeof(p), "%s %s 1 writeback", a, origin);
		if (mk("fcbench-vol", os, "fcache", p, top, len) < 0)
			goto fail;
		return 0;
	}
	if (bench_stack_needs_flash2(config)) {
		if (need_target("raid", "dm-raid") < 0 ||
		    need_target(is_dmcache(config) ? "cache" : "writecache",
				is_dmcache(config) ? "dm-cache-smq" : "dm-writecache") < 0)
			return -1;
		if (raid1_up(flash, flash2, r, sizeof(r), &fs) < 0)
			goto fail;
		flash = r;
	}
	if (is_dmcache(config)) {
		if (need_target("cache", "dm-cache-smq") < 0 ||
		    dmcache_up(flash, fs, origin, os, top, len) < 0)
			goto fail;
		return 0;
	}
	if (is_writecache(config)) {
		if (need_target("writecache", "dm-writecache") < 0 ||
		    zero_start(flash, 1 << 20) < 0)
			goto fail;
		snprintf(p, sizeof(p), "s %s %s 4096 0", origin, flash);
		if (mk("fcbench-wc", os, "writecache", p, top, len) < 0)
			goto fail;
		return 0;
	}
	fc_err(BENCH_WHO, "unknown configuration %s", config);
	return -1;
fail:
	bench_stack_cleanup();
	return -1;
}

/* Status line of the top device of @config (for the report), or "". */
void bench_stack_status(const char *config, char *buf, size_t len)
{
	const char *n = is_fcache(config) ? "fcbench-vol" :
			is_dmcache(config) ? "fcbench-cache" :
			is_writecache(config) ? "fcbench-wc" : NULL;
	struct fc_dm_target *t;
	int nt;

	size_t used;

	buf[0] = 0;
	if (!n || fc_dm_status(n, &t, &nt) < 0)
		return;
	if (nt > 0)
		snprintf(buf, len, "%s %s", t[0].type, t[0].params ? t[0].params : "");
	fc_dm_free_targets(t, nt);
	/* fcache: the pool's line too (redundancy, lone dirty blocks, devices) */
	used = strlen(buf);
	if (is_fcache(config) && fc_dm_status("fcbench-pool", &t, &nt) == 0) {
		if (nt > 0 && used < len)
			snprintf(buf + used, len - used, "; pool: %s %s", t[0].type,
				 t[0].params ? t[0].params : "");
		fc_dm_free_targets(t, nt);
	}
	/* over a RAID1: the array's line too (its legs' health and sync) */
	used = strlen(buf);
	if (bench_stack_needs_flash2(config) && fc_dm_status("fcbench-raid", &t, &nt) == 0) {
		if (nt > 0 && used < len)
			snprintf(buf + used, len - used, "; raid1: %s %s", t[0].type,
				 t[0].params ? t[0].params : "");
		fc_dm_free_targets(t, nt);
	}
}

/* Append "name=value" for the status fields of @dev named in @fields ("" skips one). */
static void named_fields(const char *dev, const char *const *fields, int nf,
			 char *buf, size_t len)
{
	struct fc_dm_target *t;
	char *copy, *tok, *sv = NULL;
	size_t used = strlen(buf);
	int nt, i = 0;

	if (fc_dm_status(dev, &t, &nt) < 0)
		return;
	copy = nt > 0 && t[0].params ? strdup(t[0].params) : NULL;
	for (tok = copy ? strtok_r(copy, " ", &sv) : NULL; tok && i < nf;
	     tok = strtok_r(NULL, " ", &sv), i++) {
		int n;

		if (!fields[i][0])
			continue;
		n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", fields[i], tok);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	free(copy);
	fc_dm_free_targets(t, nt);
}

static void append_message(const char *dev, const char *msg, char *buf, size_t len)
{
	size_t used = strlen(buf);
	char *resp = NULL;

	if (fc_dm_message(dev, msg, &resp) == 0 && resp && resp[0])
		snprintf(buf + used, len - used, "%s%s", used ? " " : "", resp);
	free(resp);
}

void bench_stack_counters(const char *config, char *buf, size_t len)
{
	/* Documentation/admin-guide/device-mapper/cache.rst, status */
	static const char *const cache_f[] = {
		"", "", "", "", "read_hits", "read_misses", "write_hits", "write_misses",
		"demotions", "promotions", "dirty",
	};
	/* Documentation/admin-guide/device-mapper/writecache.rst, status */
	static const char *const wc_f[] = {
		"error", "blocks", "free_blocks", "writeback_blocks", "reads", "read_hits",
		"writes", "write_hits_uncommitted", "write_hits_committed", "writes_around",
		"writes_allocate", "writes_blocked_on_freelist", "flushes", "discards",
	};

	buf[0] = 0;
	if (is_fcache(config)) {
		append_message("fcbench-vol", "stats", buf, len);
		append_message("fcbench-pool", "stats", buf, len);
	} else if (is_dmcache(config)) {
		named_fields("fcbench-cache", cache_f, sizeof(cache_f) / sizeof(*cache_f), buf, len);
	} else if (is_writecache(config)) {
		named_fields("fcbench-wc", wc_f, sizeof(wc_f) / sizeof(*wc_f), buf, len);
	}
}

/* Field @idx (from 0) of @dev's status, a whole number; -1 if there is none. */
static long long status_field(const char *dev, int idx)
{
	struct fc_dm_target *t;
	char *copy, *tok, *sv = NULL, *end;
	long long v = -1;
	int nt, i = 0;

	if (fc_dm_status(dev, &t, &nt) < 0)
		return -1;
	copy = nt > 0 && t[0].params ? strdup(t[0].params) : NULL;
	for (tok = copy ? strtok_r(copy, " ", &sv) : NULL; tok;
	     tok = strtok_r(NULL, " ", &sv), i++) {
		if (i < idx)
			continue;
		errno = 0;
		v = strtoll(tok, &end, 10);
		if (errno || end == tok || *end || v < 0)
			v = -1;
		break;
	}
	free(copy);
	fc_dm_free_targets(t, nt);
	return v;
}

/*
 * dm-cache's dirty blocks (status field 11; Documentation/admin-guide/
 * device-mapper/cache.rst), in sectors; -1 if unreadable.
 */
static long long dmcache_dirty_sectors(void)
{
	long long d = status_field("fcbench-cache", 10), bs = status_field("fcbench-cache", 2);

	return d < 0 || bs <= 0 ? -1 : d * bs;
}

/*
 * dm-cache writes its dirty blocks back under the cleaner policy: the same
 * table with the policy name "smq" changed to "cleaner", loaded in place.
 */
static int dmcache_cleaner(void)
{
	struct fc_dm_target *t;
	char params[1024], *tok, *sv = NULL, *copy;
	size_t used = 0;
	int nt, r = -1, found = 0;

	if (fc_dm_table("fcbench-cache", &t, &nt) < 0)
		return -1;
	if (nt != 1 || !t[0].params)
		goto out;
	copy = strdup(t[0].params);
	params[0] = 0;
	for (tok = copy ? strtok_r(copy, " ", &sv) : NULL; tok; tok = strtok_r(NULL, " ", &sv)) {
		const char *w = strcmp(tok, "smq") ? tok : "cleaner";
		int n;

		found |= w != tok;
		n = snprintf(params + used, sizeof(params) - used, "%s%s", used ? " " : "", w);
		if (n < 0 || (size_t)n >= sizeof(params) - used)
			break;
		used += n;
	}
	free(copy);
	if (found && tok == NULL) {
		struct fc_dm_target c = { t[0].start, t[0].length, t[0].type, params };

		r = fc_dm_load("fcbench-cache", &c, 1) < 0 ||
		    fc_dm_suspend("fcbench-cache", 0) < 0 ||
		    fc_dm_resume("fcbench-cache") < 0 ? -1 : 0;
	}
out:
	fc_dm_free_targets(t, nt);
	return r;
}

int bench_stack_backlog(const char *config, volatile sig_atomic_t *stop, double *mib,
			double *secs)
{
	long long dirty = -1, left;
	uint64_t t0;
	char *resp = NULL;
	int r = 0, e;

	*secs = -1;
	if (is_fcache(config)) {
		dirty = status_field("fcbench-vol", 2);
		if (dirty >= 0)
			dirty *= stack_block_sectors;
	} else if (is_dmcache(config)) {
		dirty = dmcache_dirty_sectors();
	} else if (is_writecache(config)) {
		long long blocks = status_field("fcbench-wc", 1), nfree = status_field("fcbench-wc", 2);

		/* every block in use is dirty: a block written back is freed */
		dirty = blocks < 0 || nfree < 0 || nfree > blocks ? -1 : (blocks - nfree) * 8;
	} else {
		return -1;	/* the baseline */
	}
	if (dirty < 0) {
		fc_err(BENCH_WHO, "%s: cannot read its dirty data from its status", config);
		return -1;
	}
	*mib = dirty / 2048.0;
	t0 = fc_now_ns();
	if (is_fcache(config) || is_writecache(config)) {
		/*
		 * both answer their "flush" message when all is written back;
		 * one that ended early (a signal, a suspend) is sent again
		 */
		for (;;) {
			r = fc_dm_message(is_fcache(config) ? "fcbench-vol" : "fcbench-wc", "flush",
					  &resp);
			free(resp);
			resp = NULL;
			if (!r)
				break;
			e = fc_dm_message_errno();
			if ((e != EINTR && e != EAGAIN) || (stop && *stop) ||
			    fc_now_ns() - t0 >= BENCH_BACKLOG_MAX_S * 1000000000ull) {
				fc_err(BENCH_WHO, "%s: flush: %s; its backlog is not measured",
				       config, fc_dm_error());
				return -1;
			}
			fc_err(BENCH_WHO, "%s: flush: %s; sending it again", config, fc_dm_error());
			usleep(100000);
		}
		*secs = (fc_now_ns() - t0) / 1e9;
		return 0;
	}
	if (dmcache_cleaner() < 0) {
		fc_err(BENCH_WHO, "dm-cache: cannot switch to the cleaner policy: %s", fc_dm_error());
		return 0;
	}
	do {
		left = dmcache_dirty_sectors();
		if (left == 0) {
			*secs = (fc_now_ns() - t0) / 1e9;
			break;
		}
		usleep(100000);
	} while (left > 0 && fc_now_ns() - t0 < BENCH_BACKLOG_MAX_S * 1000000000ull);
	return 0;
}
