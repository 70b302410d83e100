// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl up / down / udev-probe: boot assembly from /etc/fcache/fcache.conf.
 *
 * Format (documented in man/fcachectl.8), one statement a line, '#' starts
 * a comment:
 *   pool NAME FLASHDEV [block_size=SIZE] [TUNABLE=VALUE...]
 *   volume POOL VOLUMEDEV id=N [mode=MODE] [name=DMNAME] [sequential_cutoff=KIB]
 * Devices should be given by stable paths (/dev/disk/by-id/..., /dev/VG/LV).
 * A key given twice, one device in two roles, a path longer than
 * FC_CONF_MAX_PATH or a line longer than FC_CONF_MAX_LINE is an error with
 * the line number.  enable, disable and set record what they do here
 * (fc_conf_record_*: the file is rewritten whole, checked, then renamed).
 * up is idempotent: what is assembled already is kept.  down takes the
 * volumes out of the path without writing back (dirty data stays in the
 * pool, the volume stays registered) and removes the pools.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_check.h"

#define MAX_ITEMS 256
#define MAX_WORDS 64

struct cpool {
	char name[128], dev[FC_CONF_MAX_PATH + 1], opts[512];
	uint32_t bs;
	int bs_given, words, line;
};

struct cvol {
	char pool[128], dev[FC_CONF_MAX_PATH + 1], mode[16], name[128];
	unsigned int id;
	int cutoff;		/* sequential_cutoff KiB, -1: not given */
	int line;
};

struct config {
	const char *file;
	struct cpool pools[MAX_ITEMS];
	int npools;
	struct cvol vols[MAX_ITEMS];
	int nvols;
};

static int cfg_err(const struct config *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int cfg_err(const struct config *c, int line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return fc_fail("%s:%d: %s", c->file, line, buf);
}

static struct cpool *find_pool(struct config *c, const char *name)
{
	int i;

	for (i = 0; i < c->npools; i++)
		if (!strcmp(c->pools[i].name, name))
			return &c->pools[i];
	return NULL;
}

/*
 * A KEY=VALUE word whose key appears earlier among @w: returns its index + 1
 * and the key's length in *@klen (0: none).
 */
static int dup_key(char **w, int n, int *klen)
{
	int i, j;
	size_t k;

	for (i = 1; i < n; i++) {
		const char *eq = strchr(w[i], '=');

		k = eq ? (size_t)(eq - w[i]) : strlen(w[i]);
		for (j = 0; j < i; j++)
			if (!strncmp(w[j], w[i], k) && (w[j][k] == '=' || !w[j][k])) {
				*klen = (int)k;
				return i + 1;
			}
	}
	return 0;
}

/* Do paths @a and @b name the same device (same string, same target, same dev_t)? */
static int same_path(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	dev_t da, db;

	if (!strcmp(a, b))
		return 1;
	if (!fc_block_dev(a, &da) && !fc_block_dev(b, &db) && da == db)
		return 1;
	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/*
 * One device in two roles (the flash of two pools, a flash also cached as a
 * volume, an origin cached twice) or a volume's dm name taken by a pool:
 * report it against line @ln and return 1.
 */
static int role_clash(const struct config *c, int ln, const char *dev, const char *vname)
{
	int i;

	for (i = 0; i < c->npools; i++) {
		if (same_path(c->pools[i].dev, dev)) {
			cfg_err(c, ln, "%s is also the flash device of pool %s (line %d): one device, one role",
				dev, c->pools[i].name, c->pools[i].line);
			return 1;
		}
		if (vname && !strcmp(c->pools[i].name, vname)) {
			cfg_err(c, ln, "name=%s is also the name of the pool on line %d", vname, c->pools[i].line);
			return 1;
		}
	}
	for (i = 0; i < c->nvols; i++) {
		if (same_path(c->vols[i].dev, dev)) {
			cfg_err(c, ln, "%s is also cached on line %d: one device, one role", dev, c->vols[i].line);
			return 1;
		}
		if (vname && !strcmp(c->vols[i].name, vname)) {
			cfg_err(c, ln, "name=%s is also used on line %d", vname, c->vols[i].line);
			return 1;
		}
	}
	return 0;
}

static int parse_line(struct config *c, int ln, char **w, int n)
{
	int i, k, klen;

	if (!strcmp(w[0], "pool")) {
		struct cpool *p;
		char *kv[64];
		int nkv = 0;
		uint64_t b;

		if (n < 3)
			return cfg_err(c, ln, "expected 'pool NAME FLASHDEV [block_size=SIZE] [TUNABLE=VALUE...]'");
		if (c->npools >= MAX_ITEMS)
			return cfg_err(c, ln, "too many pools");
		if (!fc_valid_name(w[1]))
			return cfg_err(c, ln, "bad pool name '%s'", w[1]);
		if (find_pool(c, w[1]))
			return cfg_err(c, ln, "pool '%s' is defined twice", w[1]);
		if (strlen(w[2]) > FC_CONF_MAX_PATH)
			return cfg_err(c, ln, "device path longer than %d characters", FC_CONF_MAX_PATH);
		k = dup_key(w + 3, n - 3, &klen);
		if (k)
			return cfg_err(c, ln, "'%.*s' is given twice", klen, w[3 + k - 1]);
		if (role_clash(c, ln, w[2], NULL))
			return EXIT_FAIL;
		p = &c->pools[c->npools];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", w[1]);
		snprintf(p->dev, sizeof(p->dev), "%s", w[2]);
		p->bs = 64;
		p->line = ln;
		for (i = 3; i < n; i++) {
			if (!strncmp(w[i], "block_size=", 11)) {
				if (fc_parse_size(w[i] + 11, &b) || b < 4096 || b > 1048576 || (b & (b - 1)))
					return cfg_err(c, ln, "bad block_size '%s': a power of two from 4K to 1M", w[i] + 11);
				p->bs = (uint32_t)(b / 512);
				p->bs_given = 1;
			} else if (nkv < 64) {
				kv[nkv++] = w[i];
			}
		}
		for (i = 0; i < nkv; i++) {
			char *eq = strchr(kv[i], '=');

			if (!eq)
				return cfg_err(c, ln, "expected KEY=VALUE, got '%s'", kv[i]);
			*eq = 0;
			if (!fc_pool_key(kv[i]))
				return cfg_err(c, ln, "unknown pool setting '%s'", kv[i]);
			*eq = '=';
		}
		if (nkv && fc_pool_tunables("up", nkv, kv, p->opts, sizeof(p->opts), &p->words))
			return cfg_err(c, ln, "bad pool setting");
		c->npools++;
		return 0;
	}
	if (!strcmp(w[0], "volume")) {
		struct cvol *v;
		uint64_t id;

		if (n < 4)
			return cfg_err(c, ln, "expected 'volume POOL VOLUMEDEV id=N [mode=MODE] [name=DMNAME]'");
		if (c->nvols >= MAX_ITEMS)
			return cfg_err(c, ln, "too many volumes");
		if (!find_pool(c, w[1]))
			return cfg_err(c, ln, "volume of pool '%s', which is not defined above", w[1]);
		if (strlen(w[2]) > FC_CONF_MAX_PATH)
			return cfg_err(c, ln, "device path longer than %d characters", FC_CONF_MAX_PATH);
		k = dup_key(w + 3, n - 3, &klen);
		if (k)
			return cfg_err(c, ln, "'%.*s' is given twice", klen, w[3 + k - 1]);
		v = &c->vols[c->nvols];
		memset(v, 0, sizeof(*v));
		v->cutoff = -1;
		snprintf(v->pool, sizeof(v->pool), "%s", w[1]);
		snprintf(v->dev, sizeof(v->dev), "%s", w[2]);
		snprintf(v->mode, sizeof(v->mode), "writeback");
		v->line = ln;
		for (i = 3; i < n; i++) {
			if (!strncmp(w[i], "id=", 3)) {
				if (fc_parse_u64(w[i] + 3, &id) || !id || id > 63)
					return cfg_err(c, ln, "bad id '%s': 1..63", w[i] + 3);
				v->id = (unsigned int)id;
			} else if (!strncmp(w[i], "mode=", 5)) {
				if (!fc_valid_mode(w[i] + 5))
					return cfg_err(c, ln, "bad mode '%s': writeback, writethrough, writearound or passthrough", w[i] + 5);
				snprintf(v->mode, sizeof(v->mode), "%s", w[i] + 5);
			} else if (!strncmp(w[i], "name=", 5)) {
				if (!fc_valid_name(w[i] + 5))
					return cfg_err(c, ln, "bad name '%s'", w[i] + 5);
				snprintf(v->name, sizeof(v->name), "%s", w[i] + 5);
			} else if (!strncmp(w[i], "sequential_cutoff=", 18)) {
				if (fc_parse_u64(w[i] + 18, &id) || id > 4194304)
					return cfg_err(c, ln, "bad sequential_cutoff '%s': KiB, 0..4194304", w[i] + 18);
				v->cutoff = (int)id;
			} else {
				return cfg_err(c, ln, "unknown volume setting '%s' (id=, mode=, name=, sequential_cutoff=)", w[i]);
			}
		}
		if (!v->id)
			return cfg_err(c, ln, "volume %s needs id=N (its stable id in the pool)", v->dev);
		if (role_clash(c, ln, v->dev, v->name[0] ? v->name : NULL))
			return EXIT_FAIL;
		for (i = 0; i < c->nvols; i++) {
			if (!strcmp(c->vols[i].pool, v->pool) && c->vols[i].id == v->id)
				return cfg_err(c, ln, "id %u of pool %s is also used on line %d", v->id, v->pool,
					       c->vols[i].line);
		}
		c->nvols++;
		return 0;
	}
	return cfg_err(c, ln, "unknown statement '%s' (pool, volume)", w[0]);
}

static int read_config(struct config *c, const char *file)
{
	FILE *f;
	char line[FC_CONF_MAX_LINE + 2], *w[MAX_WORDS], *s, *save;
	int ln = 0, n, r = 0;
	size_t len;

	memset(c, 0, sizeof(*c));
	c->file = file;
	f = fopen(file, "r");
	if (!f)
		return fc_fail("cannot read %s: %s", file, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		len = strlen(line);
		if (len > FC_CONF_MAX_LINE || (line[len - 1] != '\n' && !feof(f))) {
			r = cfg_err(c, ln, "line longer than %d characters", FC_CONF_MAX_LINE);
			break;
		}
		s = strchr(line, '#');
		if (s)
			*s = 0;
		n = 0;
		for (s = strtok_r(line, " \t\r\n", &save); s; s = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == MAX_WORDS)
				break;
			w[n++] = s;
		}
		if (s) {
			r = cfg_err(c, ln, "more than %d words", MAX_WORDS);
			break;
		}
		if (!n)
			continue;
		r = parse_line(c, ln, w, n);
		if (r)
			break;
	}
	fclose(f);
	return r ? EXIT_FAIL : 0;
}

/*
 * Options of up, down and udev-probe: -c FILE / --config FILE, --dry-run
 * (when @dry), one operand (when @node).  Returns 0 or EXIT_USAGE (said).
 */
static int config_opts(int argc, char **argv, const char *verb, const char **file, int *dry,
		       const char **node)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};
	struct fc_opt o;
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

int cmd_up(int argc, char **argv)
{
	struct config *c = malloc(sizeof(*c));
	struct fc_live l;
	const char *file;
	int bad, i, rc = EXIT_OK, dry = 0;

	if (!c)
		return EXIT_FAIL;
	bad = config_opts(argc, argv, "up", &file, &dry, NULL);
	if (bad || read_config(c, file)) {
		free(c);
		return bad ? bad : EXIT_FAIL;
	}
	if (dry) {
		for (i = 0; i < c->npools; i++)
			printf("pool %s %s block_sectors=%u%s\n", c->pools[i].name, c->pools[i].dev,
			       c->pools[i].bs, c->pools[i].opts);
		for (i = 0; i < c->nvols; i++)
		{
			printf("volume %s %s id=%u mode=%s%s%s", c->vols[i].pool, c->vols[i].dev,
			       c->vols[i].id, c->vols[i].mode, c->vols[i].name[0] ? " name=" : "",
			       c->vols[i].name);
			if (c->vols[i].cutoff >= 0)
				printf(" sequential_cutoff=%d", c->vols[i].cutoff);
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
		if (wait_dev(p->dev, 10)) {
			fc_fail("up: pool %s: %s does not exist (line %d)", p->name, p->dev, p->line);
			rc = EXIT_FAIL;
			continue;
		}
		if (fc_pool_create(p->name, p->dev, p->bs, p->bs_given, 0, p->opts, p->words))
			rc = EXIT_FAIL;
	}
	for (i = 0; i < c->nvols; i++) {
		struct cvol *v = &c->vols[i];
		struct fc_vol *lv;

		if (wait_dev(v->dev, 10)) {
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
		if (fc_enable(v->dev, v->pool, v->mode, v->name[0] ? v->name : NULL, v->id, v->cutoff, NULL))
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
	bad = config_opts(argc, argv, "down", &file, NULL, NULL);
	if (bad || read_config(c, file)) {
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
		if (found && fc_pool_remove(c->pools[i].name))
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

int cmd_udev_probe(int argc, char **argv)
{
	struct config *c;
	struct fc_dm_target *t;
	const char *file, *node = NULL, *links = getenv("DEVLINKS");
	char name[128];
	int bad, i, n, is_fc = 0;
	dev_t dev;
	size_t k;

	bad = config_opts(argc, argv, "udev-probe", &file, NULL, &node);
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
	c = malloc(sizeof(*c));
	if (!c)
		return EXIT_FAIL;
	if (access(file, F_OK) && errno == ENOENT) {
		free(c);
		return EXIT_OK;	/* no config: nothing to hide */
	}
	if (read_config(c, file)) {
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
		if (same_dev(c->pools[i].dev, dev, node, links))
			printf("FCACHE_FLASH=1\nFCACHE_POOL=%s\n", c->pools[i].name);
	for (i = 0; i < c->nvols; i++)
		if (same_dev(c->vols[i].dev, dev, node, links))
			printf("FCACHE_ORIGIN=1\nFCACHE_POOL=%s\n", c->vols[i].pool);
	free(c);
	return EXIT_OK;
}

/* ---- recording enable / disable / set in the config file ---- */

struct conf_text {
	char **line;		/* without the newline */
	int n, cap;
};

static void text_free(struct conf_text *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		free(t->line[i]);
	free(t->line);
	memset(t, 0, sizeof(*t));
}

static int text_insert(struct conf_text *t, int at, const char *s)
{
	char *d = strdup(s);

	if (!d)
		return -1;
	if (t->n == t->cap) {
		char **nl = realloc(t->line, (size_t)(t->cap ? 2 * t->cap : 32) * sizeof(*nl));

		if (!nl) {
			free(d);
			return -1;
		}
		t->line = nl;
		t->cap = t->cap ? 2 * t->cap : 32;
	}
	memmove(t->line + at + 1, t->line + at, (size_t)(t->n - at) * sizeof(*t->line));
	t->line[at] = d;
	t->n++;
	return 0;
}

static void text_delete(struct conf_text *t, int at)
{
	free(t->line[at]);
	memmove(t->line + at, t->line + at + 1, (size_t)(t->n - at - 1) * sizeof(*t->line));
	t->n--;
}

/* Read @file (a missing file reads as a short header); the file was checked before. */
static int text_read(struct conf_text *t, const char *file)
{
	FILE *f = fopen(file, "r");
	char buf[FC_CONF_MAX_LINE + 2];
	size_t len;

	memset(t, 0, sizeof(*t));
	if (!f) {
		if (errno != ENOENT)
			return fc_fail("cannot read %s: %s", file, strerror(errno));
		return text_insert(t, 0, "# fcache pools and cached volumes, assembled at boot by 'fcachectl up'.") ||
			text_insert(t, 1, "# Written by fcachectl enable/disable/set; see fcachectl(8).") ? -1 : 0;
	}
	while (fgets(buf, sizeof(buf), f)) {
		len = strlen(buf);
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		if (text_insert(t, t->n, buf)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/*
 * Split line @s into at most MAX_WORDS words in @buf (comment dropped, kept
 * in *@comment); returns the word count.
 */
static int text_words(const char *s, char *buf, size_t len, char **w, const char **comment)
{
	char *p, *save;
	int n = 0;

	snprintf(buf, len, "%s", s);
	*comment = strchr(s, '#');
	p = strchr(buf, '#');
	if (p)
		*p = 0;
	for (p = strtok_r(buf, " \t\r\n", &save); p && n < MAX_WORDS; p = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = p;
	return n;
}

/* The line index of 'pool @pool', or of 'volume @pool ... id=@id' (id > 0); -1. */
static int text_find(struct conf_text *t, const char *pool, unsigned int id)
{
	char buf[FC_CONF_MAX_LINE + 2], *w[MAX_WORDS], want[32];
	const char *cm;
	int i, j, n;

	snprintf(want, sizeof(want), "id=%u", id);
	for (i = 0; i < t->n; i++) {
		n = text_words(t->line[i], buf, sizeof(buf), w, &cm);
		if (n < 2 || strcmp(w[1], pool))
			continue;
		if (!id && n >= 3 && !strcmp(w[0], "pool"))
			return i;
		if (id && n >= 4 && !strcmp(w[0], "volume"))
			for (j = 3; j < n; j++)
				if (!strcmp(w[j], want))
					return i;
	}
	return -1;
}

/* Line @at with KEY=VALUE @kv set (replaced where the key is, else appended). */
static int text_set_key(struct conf_text *t, int at, const char *kv)
{
	char buf[FC_CONF_MAX_LINE + 2], *w[MAX_WORDS], out[FC_CONF_MAX_LINE * 2];
	const char *cm, *eq = strchr(kv, '=');
	size_t k = eq ? (size_t)(eq - kv) + 1 : strlen(kv), o = 0;
	int i, n, done = 0;

	n = text_words(t->line[at], buf, sizeof(buf), w, &cm);
	out[0] = 0;
	for (i = 0; i < n; i++) {
		const char *word = w[i];

		if (i >= 3 && !strncmp(w[i], kv, k)) {
			if (done)
				continue;
			word = kv;
			done = 1;
		}
		o += snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0, "%s%s", i ? " " : "", word);
	}
	if (!done)
		o += snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0, " %s", kv);
	if (cm)
		o += snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0, "  %s", cm);
	if (o >= sizeof(out))
		return -1;
	free(t->line[at]);
	t->line[at] = strdup(out);
	return t->line[at] ? 0 : -1;
}

/* Write @t to @file: a temporary file next to it, checked by the parser, renamed over. */
static int text_write(struct conf_text *t, const char *file)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *slash;
	struct config *c;
	FILE *f;
	int i, fd, r;

	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return fc_fail("cannot create %s: %s", dir, strerror(errno));
	}
	if (snprintf(tmp, sizeof(tmp), "%s.fcachectl-new", file) >= (int)sizeof(tmp))
		return fc_fail("%s: path too long", file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return fc_fail("cannot write %s: %s", tmp, strerror(errno));
	}
	for (i = 0; i < t->n; i++)
		fprintf(f, "%s\n", t->line[i]);
	r = fflush(f) || fsync(fileno(f));
	r |= fclose(f);
	if (r) {
		unlink(tmp);
		return fc_fail("cannot write %s: %s", tmp, strerror(errno));
	}
	c = malloc(sizeof(*c));
	if (!c || read_config(c, tmp)) {
		free(c);
		unlink(tmp);
		return fc_fail("%s: the updated configuration does not parse (left unchanged)", file);
	}
	free(c);
	if (rename(tmp, file)) {
		unlink(tmp);
		return fc_fail("cannot replace %s: %s", file, strerror(errno));
	}
	return 0;
}

int fc_conf_check(const char *file)
{
	struct config *c;
	int r;

	if (access(file, F_OK) && errno == ENOENT)
		return 0;
	c = malloc(sizeof(*c));
	if (!c)
		return EXIT_FAIL;
	r = read_config(c, file);
	free(c);
	if (r)
		fc_fail("%s is broken (see above): fix it, or use --no-persist to change nothing in it", file);
	return r;
}

/* A stable path for @dev: a /dev/disk/by-id link to it, else its /dev node. */
static const char *stable_path(dev_t dev)
{
	static char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir("/dev/disk/by-id");
	dev_t x;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/dev/disk/by-id/%s", de->d_name);
		if (!fc_block_dev(path, &x) && x == dev) {
			closedir(d);
			return path;
		}
	}
	if (d)
		closedir(d);
	return fc_dev_path(dev);
}

int fc_conf_record_enable(const char *file, const struct fc_pool *p, const char *dev,
			  unsigned int id, const char *mode, const char *name, int cutoff)
{
	struct conf_text t;
	char line[FC_CONF_MAX_LINE * 2], flash[64], abs[PATH_MAX];
	unsigned int bs = 0, nw = 0, i;
	int at, off = 0, o, r = EXIT_FAIL;
	const char *q;

	if (text_read(&t, file))
		return EXIT_FAIL;
	if (text_find(&t, p->name, 0) < 0) {
		/* the pool too: its flash, block size and tunables from its live table */
		o = snprintf(line, sizeof(line), "pool %s %s", p->name, stable_path(p->flash));
		if (sscanf(p->table, "%63s %u %u %n", flash, &bs, &nw, &off) >= 3 && off) {
			char k[64];
			unsigned int val;

			for (q = p->table + off, i = 0; i < nw / 2; i++) {
				int used = 0;

				if (sscanf(q, "%63s %u %n", k, &val, &used) < 2 || !used)
					break;
				o += snprintf(line + o, sizeof(line) - o, " %s=%u", k, val);
				q += used;
			}
		}
		o += snprintf(line + o, sizeof(line) - o, " block_size=%uK", p->block_sectors / 2);
		if (text_insert(&t, t.n, line))
			goto out;
	}
	if (dev[0] != '/' && getcwd(abs, sizeof(abs) - strlen(dev) - 2)) {
		strcat(abs, "/");
		strcat(abs, dev);
		dev = abs;
	}
	o = snprintf(line, sizeof(line), "volume %s %s id=%u mode=%s", p->name, dev, id, mode);
	if (name)
		o += snprintf(line + o, sizeof(line) - o, " name=%s", name);
	if (cutoff >= 0)
		o += snprintf(line + o, sizeof(line) - o, " sequential_cutoff=%d", cutoff);
	at = text_find(&t, p->name, id);
	if (at >= 0) {
		free(t.line[at]);
		t.line[at] = strdup(line);
		if (!t.line[at])
			goto out;
	} else if (text_insert(&t, t.n, line)) {
		goto out;
	}
	/* an older line for the same device (another id) would cache it twice */
	for (at = 0; at < t.n; at++) {
		char buf[FC_CONF_MAX_LINE + 2], *w[MAX_WORDS];
		const char *cm;
		int n = text_words(t.line[at], buf, sizeof(buf), w, &cm);

		if (n >= 4 && !strcmp(w[0], "volume") && strcmp(t.line[at], line) &&
		    same_path(w[2], dev)) {
			text_delete(&t, at);
			at--;
		}
	}
	r = text_write(&t, file) ? EXIT_FAIL : EXIT_OK;
out:
	if (r)
		fc_warn("%s was not updated: the volume stays cached until the next boot only", file);
	text_free(&t);
	return r;
}

int fc_conf_record_disable(const char *file, const char *pool, unsigned int id)
{
	struct conf_text t;
	int at, r;

	if (access(file, F_OK) && errno == ENOENT)
		return EXIT_OK;
	if (text_read(&t, file))
		return EXIT_FAIL;
	at = text_find(&t, pool, id);
	if (at < 0) {
		text_free(&t);
		return EXIT_OK;
	}
	text_delete(&t, at);
	r = text_write(&t, file) ? EXIT_FAIL : EXIT_OK;
	text_free(&t);
	return r;
}

int fc_conf_record_set(const char *file, const char *pool, unsigned int id, int n, char **kv)
{
	struct conf_text t;
	int at, i, r = EXIT_FAIL;

	if (text_read(&t, file))
		return EXIT_FAIL;
	at = text_find(&t, pool, id);
	if (at < 0) {
		if (id)
			fc_warn("volume id %u of pool %s is not in %s (enabled with --no-persist or by hand): the new settings last until the next boot only",
				id, pool, file);
		else
			fc_warn("pool %s is not in %s: the new settings last until the next boot only", pool, file);
		text_free(&t);
		return EXIT_OK;
	}
	for (i = 0; i < n; i++)
		if (text_set_key(&t, at, kv[i]))
			goto out;
	r = text_write(&t, file) ? EXIT_FAIL : EXIT_OK;
out:
	text_free(&t);
	return r;
}
