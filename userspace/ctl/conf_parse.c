// SPDX-License-Identifier: GPL-2.0
/*
 * The config file parser of fcachectl (the format is in conf.h): every
 * statement checked with its line number, one device in one role, a key
 * once.  fc_conf_check() is what enable, disable and set run before they
 * change anything, so that they never record into a broken file.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "conf.h"
#include "../../engine/fc_parse.h"

_Static_assert(FC_CTL_OLOG_PATH_MAX == FC_OLOG_PATH_MAX, "ordered_log: the table's limit");

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

/* The device of a statement (w[2]) and its KEY=VALUE words: 0, or EXIT_FAIL (said). */
static int dev_and_keys(const struct config *c, int ln, char **w, int n)
{
	int k, klen;

	if (strlen(w[2]) > FC_CONF_MAX_PATH)
		return cfg_err(c, ln, "device path longer than %d characters", FC_CONF_MAX_PATH);
	k = dup_key(w + 3, n - 3, &klen);
	if (k)
		return cfg_err(c, ln, "'%.*s' is given twice", klen, w[3 + k - 1]);
	return 0;
}

int conf_same_path(const char *a, const char *b)
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
		if (conf_same_path(c->pools[i].dev, dev) ||
		    (c->pools[i].dev2[0] && conf_same_path(c->pools[i].dev2, dev))) {
			cfg_err(c, ln, "%s is also a flash device of pool %s (line %d): one device, one role",
				dev, c->pools[i].name, c->pools[i].line);
			return 1;
		}
		if (vname && !strcmp(c->pools[i].name, vname)) {
			cfg_err(c, ln, "name=%s is also the name of the pool on line %d", vname, c->pools[i].line);
			return 1;
		}
	}
	for (i = 0; i < c->nvols; i++) {
		if (conf_same_path(c->vols[i].dev, dev)) {
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
	int i;

	if (!strcmp(w[0], "pool")) {
		struct cpool *p;
		char *kv[64], why[512];
		int nkv = 0;
		uint64_t b;

		if (n < 3)
			return cfg_err(c, ln, "expected 'pool NAME FLASHDEV [mirror=FLASHDEV2] [block_size=SIZE] [TUNABLE=VALUE...]'");
		if (c->npools >= CONF_MAX_ITEMS)
			return cfg_err(c, ln, "too many pools");
		if (!fc_valid_name(w[1]))
			return cfg_err(c, ln, "bad pool name '%s'", w[1]);
		if (find_pool(c, w[1]))
			return cfg_err(c, ln, "pool '%s' is defined twice", w[1]);
		if (dev_and_keys(c, ln, w, n))
			return EXIT_FAIL;
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
			} else if (!strncmp(w[i], "mirror=", 7)) {
				if (!w[i][7])
					return cfg_err(c, ln, "mirror= needs the second flash device of the pool");
				if (strlen(w[i] + 7) > FC_CONF_MAX_PATH)
					return cfg_err(c, ln, "device path longer than %d characters", FC_CONF_MAX_PATH);
				if (conf_same_path(w[i] + 7, w[2]))
					return cfg_err(c, ln, "mirror=%s is the pool's first flash device; a mirrored pool needs two devices",
						       w[i] + 7);
				if (role_clash(c, ln, w[i] + 7, NULL))
					return EXIT_FAIL;
				snprintf(p->dev2, sizeof(p->dev2), "%s", w[i] + 7);
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
			if (fc_tunable_check(FC_TUN_POOL, kv[i], eq + 1, NULL, NULL, why,
					     sizeof(why)))
				return cfg_err(c, ln, "%s", why);
			*eq = '=';
		}
		/* together, as the kernel takes the table (writeback_low <= writeback_high) */
		if (fc_pool_tunables_check(NULL, nkv, kv, why, sizeof(why)))
			return cfg_err(c, ln, "%s", why);
		if (nkv && fc_pool_tunables("up", nkv, kv, p->opts, sizeof(p->opts), &p->words))
			return cfg_err(c, ln, "bad pool setting");
		c->npools++;
		return 0;
	}
	if (!strcmp(w[0], "volume")) {
		const struct fc_tunable *sc = fc_tunable(FC_TUN_VOL, "sequential_cutoff");
		struct cvol *v;
		char why[256];
		uint64_t id;
		uint32_t cut;

		if (n < 4)
			return cfg_err(c, ln, "expected 'volume POOL VOLUMEDEV id=N [mode=MODE] [name=DMNAME]'");
		if (c->nvols >= CONF_MAX_ITEMS)
			return cfg_err(c, ln, "too many volumes");
		if (!find_pool(c, w[1]))
			return cfg_err(c, ln, "volume of pool '%s', which is not defined above", w[1]);
		if (dev_and_keys(c, ln, w, n))
			return EXIT_FAIL;
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
					return cfg_err(c, ln, "bad mode '%s': %s", w[i] + 5, fc_mode_list(why, sizeof(why), 0));
				snprintf(v->mode, sizeof(v->mode), "%s", w[i] + 5);
			} else if (!strncmp(w[i], "name=", 5)) {
				if (!fc_valid_name(w[i] + 5))
					return cfg_err(c, ln, "bad name '%s'", w[i] + 5);
				snprintf(v->name, sizeof(v->name), "%s", w[i] + 5);
			} else if (!strncmp(w[i], "sequential_cutoff=", 18)) {
				if (fc_tunable_check(FC_TUN_VOL, sc->name, w[i] + 18, NULL, &cut,
						     why, sizeof(why)))
					return cfg_err(c, ln, "bad sequential_cutoff '%s': KiB, 0..%u", w[i] + 18, sc->max);
				v->cutoff = (int)cut;
			} else if (!strncmp(w[i], "ordered_log=", 12)) {
				if (w[i][12] != '/' || strlen(w[i] + 12) > FC_CTL_OLOG_PATH_MAX)
					return cfg_err(c, ln, "bad ordered_log '%s': the log device's absolute path", w[i] + 12);
				snprintf(v->olog, sizeof(v->olog), "%s", w[i] + 12);
			} else {
				return cfg_err(c, ln, "unknown volume setting '%s' (id=, mode=, name=, sequential_cutoff=, ordered_log=)", w[i]);
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

int conf_read(struct config *c, const char *file)
{
	FILE *f;
	char line[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS], *s, *save;
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
			if (n == CONF_MAX_WORDS)
				break;
			w[n++] = s;
		}
		if (s) {
			r = cfg_err(c, ln, "more than %d words", CONF_MAX_WORDS);
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

int fc_conf_check(const char *file)
{
	struct config *c;
	int r;

	if (access(file, F_OK) && errno == ENOENT)
		return 0;
	c = malloc(sizeof(*c));
	if (!c)
		return EXIT_FAIL;
	r = conf_read(c, file);
	free(c);
	if (r)
		fc_fail("%s is broken (see above): fix it, or use --no-persist to change nothing in it", file);
	return r;
}
