// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl up / down / udev-probe: boot assembly from /etc/fcache/fcache.conf.
 *
 * Format (documented in man/fcachectl.8), one statement a line, '#' starts
 * a comment:
 *   pool NAME FLASHDEV [block_size=SIZE] [TUNABLE=VALUE...]
 *   volume POOL VOLUMEDEV id=N [mode=MODE] [name=DMNAME]
 * Devices should be given by stable paths (/dev/disk/by-id/..., /dev/VG/LV).
 * up is idempotent: what is assembled already is kept.  down takes the
 * volumes out of the path without writing back (dirty data stays in the
 * pool, the volume stays registered) and removes the pools.
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fcachectl.h"
#include "fc_dm.h"

#define MAX_ITEMS 256

struct cpool {
	char name[128], dev[256], opts[512];
	uint32_t bs;
	int bs_given, words, line;
};

struct cvol {
	char pool[128], dev[256], mode[16], name[128];
	unsigned int id;
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

static int parse_line(struct config *c, int ln, char **w, int n)
{
	int i;

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
		v = &c->vols[c->nvols];
		memset(v, 0, sizeof(*v));
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
				if (strcmp(w[i] + 5, "writeback") && strcmp(w[i] + 5, "writethrough") &&
				    strcmp(w[i] + 5, "writearound"))
					return cfg_err(c, ln, "bad mode '%s': writeback, writethrough or writearound", w[i] + 5);
				snprintf(v->mode, sizeof(v->mode), "%s", w[i] + 5);
			} else if (!strncmp(w[i], "name=", 5)) {
				if (!fc_valid_name(w[i] + 5))
					return cfg_err(c, ln, "bad name '%s'", w[i] + 5);
				snprintf(v->name, sizeof(v->name), "%s", w[i] + 5);
			} else {
				return cfg_err(c, ln, "unknown volume setting '%s' (id=, mode=, name=)", w[i]);
			}
		}
		if (!v->id)
			return cfg_err(c, ln, "volume %s needs id=N (its stable id in the pool)", v->dev);
		for (i = 0; i < c->nvols; i++) {
			if (!strcmp(c->vols[i].pool, v->pool) && c->vols[i].id == v->id)
				return cfg_err(c, ln, "id %u of pool %s is also used on line %d", v->id, v->pool,
					       c->vols[i].line);
			if (!strcmp(c->vols[i].dev, v->dev))
				return cfg_err(c, ln, "%s is also cached on line %d", v->dev, c->vols[i].line);
		}
		c->nvols++;
		return 0;
	}
	return cfg_err(c, ln, "unknown statement '%s' (pool, volume)", w[0]);
}

static int read_config(struct config *c, const char *file)
{
	FILE *f;
	char line[1024], *w[64], *s, *save;
	int ln = 0, n, r = 0;

	memset(c, 0, sizeof(*c));
	c->file = file;
	f = fopen(file, "r");
	if (!f)
		return fc_fail("cannot read %s: %s", file, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		s = strchr(line, '#');
		if (s)
			*s = 0;
		n = 0;
		for (s = strtok_r(line, " \t\r\n", &save); s && n < 64; s = strtok_r(NULL, " \t\r\n", &save))
			w[n++] = s;
		if (!n)
			continue;
		r = parse_line(c, ln, w, n);
		if (r)
			break;
	}
	fclose(f);
	return r ? EXIT_FAIL : 0;
}

static const char *config_arg(int argc, char **argv, const char *verb, int *bad, const char **extra)
{
	const char *file = FC_DEFAULT_CONFIG;
	int i;

	*bad = 0;
	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc) {
			file = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			file = argv[i] + 9;
		} else if (extra && !*extra && argv[i][0] != '-') {
			*extra = argv[i];
		} else {
			*bad = fc_usage(verb, "%s: unexpected argument '%s'", verb, argv[i]);
			return NULL;
		}
	}
	return file;
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
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--dry-run")) {
			dry = 1;
			memmove(argv + i, argv + i + 1, (argc - i) * sizeof(*argv));
			argc--;
			break;
		}
	file = config_arg(argc, argv, "up", &bad, NULL);
	if (!file || read_config(c, file)) {
		free(c);
		return file ? EXIT_FAIL : bad;
	}
	if (dry) {
		for (i = 0; i < c->npools; i++)
			printf("pool %s %s block_sectors=%u%s\n", c->pools[i].name, c->pools[i].dev,
			       c->pools[i].bs, c->pools[i].opts);
		for (i = 0; i < c->nvols; i++)
			printf("volume %s %s id=%u mode=%s%s%s\n", c->vols[i].pool, c->vols[i].dev,
			       c->vols[i].id, c->vols[i].mode, c->vols[i].name[0] ? " name=" : "",
			       c->vols[i].name);
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
		fc_live_free(&l);
		if (lv) {
			fc_info("volume %s is cached already", v->dev);
			continue;
		}
		if (fc_enable(v->dev, v->pool, v->mode, v->name[0] ? v->name : NULL, v->id, 0))
			rc = EXIT_FAIL;
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
	file = config_arg(argc, argv, "down", &bad, NULL);
	if (!file || read_config(c, file)) {
		free(c);
		return file ? EXIT_FAIL : bad;
	}
	for (i = c->nvols - 1; i >= 0; i--) {
		struct cvol *v = &c->vols[i];

		if (fc_live_scan(&l)) {
			free(c);
			return fc_fail("down: cannot talk to device-mapper: %s", fc_dm_error());
		}
		found = fc_live_vol(&l, v->dev) != NULL;
		fc_live_free(&l);
		if (found && fc_disable(v->dev, 1, 1))
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

	file = config_arg(argc, argv, "udev-probe", &bad, &node);
	if (!file)
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
	if (access(file, R_OK) || read_config(c, file)) {
		free(c);
		return EXIT_OK;	/* no usable config: nothing to hide */
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
