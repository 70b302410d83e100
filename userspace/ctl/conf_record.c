// SPDX-License-Identifier: GPL-2.0
/*
 * Recording what pool create, enable, disable, set, pool replace, pool
 * remove and wipe do in the config file (fc_conf_record_*), so that 'up' at boot assembles
 * the same: the file is
 * read as lines (comments and order kept), changed, written whole to a
 * temporary file next to it, checked by the parser, then renamed over it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "conf.h"

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
 * Split line @s into at most CONF_MAX_WORDS words in @buf (comment dropped, kept
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
	for (p = strtok_r(buf, " \t\r\n", &save); p && n < CONF_MAX_WORDS; p = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = p;
	return n;
}

/* The line index of 'pool @pool', or of 'volume @pool ... id=@id' (id > 0); -1. */
static int text_find(struct conf_text *t, const char *pool, unsigned int id)
{
	char buf[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS], want[32];
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
	char buf[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS], out[FC_CONF_MAX_LINE * 2];
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
	if (!c || conf_read(c, tmp)) {
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

/* The config line of live pool @p: its flash, block size and tunables from its live table. */
static int pool_line(const char *file, const struct fc_pool *p, char *line, size_t len)
{
	char flash[64];
	unsigned int bs = 0, nw = 0, i;
	int off = 0;
	size_t o;
	const char *q;

	o = snprintf(line, len, "pool %s %s", p->name, stable_path(p->flash));
	if (p->nr_legs > 1 && p->flash2)
		o += snprintf(line + o, o < len ? len - o : 0, " mirror=%s", stable_path(p->flash2));
	else if (p->nr_legs > 1)
		fc_warn("pool %s runs degraded (a flash device missing): its line in %s names %s only; add mirror=OTHERDEV to it, else 'up' assembles it with --degraded only",
			p->name, file, fc_dev_path(p->flash));
	if (sscanf(p->table, "%63s %u %u %n", flash, &bs, &nw, &off) >= 3 && off) {
		char k[64], val[64];

		for (q = p->table + off, i = 0; i < nw / 2; i++) {
			int used = 0;

			if (sscanf(q, "%63s %63s %n", k, val, &used) < 2 || !used)
				break;
			q += used;
			/* the table's mirror device and degraded flag are not tunables */
			if (!strcmp(k, "mirror") || !strcmp(k, "degraded"))
				continue;
			o += snprintf(line + o, o < len ? len - o : 0, " %s=%s", k, val);
		}
	}
	o += snprintf(line + o, o < len ? len - o : 0, " block_size=%uK", p->block_sectors / 2);
	return o < len ? 0 : -1;
}

/* Does config path @path name @dev (a device node or a link to one)? */
static int path_is(const char *path, dev_t dev)
{
	dev_t d;

	return !fc_block_dev(path, &d) && d == dev;
}

/* Does pool line @w (@n words) name @p's flash or its mirror device? */
static int names_device_of(char **w, int n, const struct fc_pool *p)
{
	int i;

	for (i = 2; i < n; i++) {
		const char *d = i == 2 ? w[i] : !strncmp(w[i], "mirror=", 7) ? w[i] + 7 : NULL;

		if (d && (path_is(d, p->flash) || (p->flash2 && path_is(d, p->flash2))))
			return 1;
	}
	return 0;
}

/*
 * Another pool's line naming a device of @p (just created on it): that
 * pool is @p now.  Its line goes; its volume lines follow @p when @p was
 * loaded from the device (the same pool, a new name), and go with it when
 * @p was formatted (the old pool, and its volumes, are gone).
 */
static int drop_same_device(struct conf_text *t, const struct fc_pool *p, int loaded,
			    const char *file, int *where)
{
	char buf[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS], old[FC_CONF_MAX_LINE + 2];
	char out[FC_CONF_MAX_LINE * 2];
	const char *cm, *rest;
	int at, v, n, vols;

	for (at = 0; at < t->n; at++) {
		n = text_words(t->line[at], buf, sizeof(buf), w, &cm);
		if (n < 3 || strcmp(w[0], "pool") || !strcmp(w[1], p->name) || !names_device_of(w, n, p))
			continue;
		snprintf(old, sizeof(old), "%s", w[1]);
		if (*where < 0)
			*where = at;	/* @p's line goes there: above the volumes */
		text_delete(t, at--);
		for (v = 0, vols = 0; v < t->n; v++) {
			n = text_words(t->line[v], buf, sizeof(buf), w, &cm);
			if (n < 2 || strcmp(w[0], "volume") || strcmp(w[1], old))
				continue;
			vols++;
			if (!loaded) {
				text_delete(t, v--);
				continue;
			}
			/* "volume OLD rest": the rest of the line as it was */
			rest = t->line[v] + strspn(t->line[v], " \t");
			rest += strlen("volume");
			rest += strspn(rest, " \t") + strlen(old);
			if ((size_t)snprintf(out, sizeof(out), "volume %s%s", p->name, rest) >= sizeof(out))
				return -1;
			free(t->line[v]);
			t->line[v] = strdup(out);
			if (!t->line[v])
				return -1;
		}
		if (loaded)
			fc_info("pool %s's line in %s named %s, loaded as pool %s: replaced, its %d volume line%s now name %s",
				old, file, fc_dev_path(p->flash), p->name, vols, vols == 1 ? "" : "s", p->name);
		else
			fc_info("pool %s's line in %s named %s, formatted for pool %s: removed%s",
				old, file, fc_dev_path(p->flash), p->name,
				vols ? " with its volume lines (enable them again on the new pool)" : "");
	}
	return 0;
}

int fc_conf_record_pool(const char *file, const struct fc_pool *p, int loaded)
{
	char line[FC_CONF_MAX_LINE * 2];
	struct conf_text t;
	int at, where = -1, r = EXIT_FAIL;

	if (text_read(&t, file))
		return EXIT_FAIL;
	if (pool_line(file, p, line, sizeof(line)) || drop_same_device(&t, p, loaded, file, &where))
		goto out;
	at = text_find(&t, p->name, 0);
	if (at >= 0 && !strcmp(t.line[at], line)) {
		r = EXIT_OK;
		goto out;
	}
	if (at >= 0) {
		/* the pool as created now: its devices and tunables (the volume lines stay) */
		fc_info("pool %s: its line in %s was '%s'", p->name, file, t.line[at]);
		free(t.line[at]);
		t.line[at] = strdup(line);
		if (!t.line[at])
			goto out;
	} else if (text_insert(&t, where >= 0 ? where : t.n, line)) {
		goto out;
	}
	r = text_write(&t, file) ? EXIT_FAIL : EXIT_OK;
out:
	if (r)
		fc_warn("%s was not updated: 'up' does not assemble pool %s at the next boot", file, p->name);
	text_free(&t);
	return r;
}

int fc_conf_record_enable(const char *file, const struct fc_pool *p, const char *dev,
			  unsigned int id, const char *mode, const char *name, int cutoff,
			  const char *olog)
{
	struct conf_text t;
	char line[FC_CONF_MAX_LINE * 2], abs[PATH_MAX];
	int at, o, r = EXIT_FAIL;

	if (text_read(&t, file))
		return EXIT_FAIL;
	/* the pool too, if 'pool create' did not record it (--no-persist, an older fcachectl) */
	if (text_find(&t, p->name, 0) < 0 &&
	    (pool_line(file, p, line, sizeof(line)) || text_insert(&t, t.n, line)))
		goto out;
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
	if (olog)
		o += snprintf(line + o, sizeof(line) - o, " ordered_log=%s", olog);
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
		char buf[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS];
		const char *cm;
		int n = text_words(t.line[at], buf, sizeof(buf), w, &cm);

		if (n >= 4 && !strcmp(w[0], "volume") && strcmp(t.line[at], line) &&
		    conf_same_path(w[2], dev)) {
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

int fc_conf_has_pool(const char *file, const char *pool)
{
	struct conf_text t;
	int at;

	if (access(file, F_OK) && errno == ENOENT)
		return 0;
	if (text_read(&t, file))
		return 0;
	at = text_find(&t, pool, 0);
	text_free(&t);
	return at >= 0;
}

int fc_conf_record_pool_gone(const char *file, const char *pool)
{
	char buf[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS];
	struct conf_text t;
	const char *cm;
	int at, n, vols = 0, r;

	if (access(file, F_OK) && errno == ENOENT)
		return EXIT_OK;
	if (text_read(&t, file))
		return EXIT_FAIL;
	at = text_find(&t, pool, 0);
	if (at < 0) {
		text_free(&t);
		return EXIT_OK;
	}
	text_delete(&t, at);
	/* its volumes: a volume line names a pool defined above it, or the file does not parse */
	for (at = 0; at < t.n; at++) {
		n = text_words(t.line[at], buf, sizeof(buf), w, &cm);
		if (n >= 2 && !strcmp(w[0], "volume") && !strcmp(w[1], pool)) {
			text_delete(&t, at--);
			vols++;
		}
	}
	r = text_write(&t, file) ? EXIT_FAIL : EXIT_OK;
	text_free(&t);
	if (r)
		fc_warn("%s was not updated: 'up' assembles pool %s again at the next boot", file, pool);
	else if (vols)
		fc_info("pool %s and its %d volume line%s removed from %s", pool, vols, vols == 1 ? "" : "s",
			file);
	else
		fc_info("pool %s removed from %s", pool, file);
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

int fc_conf_record_replace(const char *file, const char *pool, dev_t keep, dev_t newdev)
{
	char buf[FC_CONF_MAX_LINE + 2], *w[CONF_MAX_WORDS], out[FC_CONF_MAX_LINE * 2], kv[PATH_MAX + 8];
	char nw[PATH_MAX], kp[PATH_MAX];
	struct conf_text t;
	const char *cm;
	size_t o = 0;
	int at, n, i, m = -1, r = EXIT_FAIL;

	if (text_read(&t, file))
		return EXIT_FAIL;
	at = text_find(&t, pool, 0);
	if (at < 0) {
		fc_warn("pool %s is not in %s: 'up' does not know its new device", pool, file);
		text_free(&t);
		return EXIT_OK;
	}
	n = text_words(t.line[at], buf, sizeof(buf), w, &cm);
	for (i = 3; i < n; i++)
		if (!strncmp(w[i], "mirror=", 7))
			m = i;
	/* copied: both answer from static buffers */
	snprintf(nw, sizeof(nw), "%s", stable_path(newdev));
	snprintf(kp, sizeof(kp), "%s", fc_dev_path(keep));
	if (path_is(w[2], keep)) {
		/* the first device stays: mirror= names the new one (added if the line had none) */
		snprintf(kv, sizeof(kv), "mirror=%s", nw);
		if (text_set_key(&t, at, kv))
			goto out;
	} else if (m >= 0 && path_is(w[m] + 7, keep)) {
		/* the mirror= device stays: the new one is the first */
		for (i = 0; i < n; i++)
			o += snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0, "%s%s", i ? " " : "",
				      i == 2 ? nw : w[i]);
		if (cm)
			o += snprintf(out + o, o < sizeof(out) ? sizeof(out) - o : 0, "  %s", cm);
		if (o >= sizeof(out))
			goto out;
		free(t.line[at]);
		t.line[at] = strdup(out);
		if (!t.line[at])
			goto out;
	} else {
		fc_warn("no device of pool %s's line in %s is %s, the device in service: the line is left as it is; make it name %s and %s (mirror=)",
			pool, file, kp, kp, nw);
		r = EXIT_OK;
		goto out;
	}
	r = text_write(&t, file) ? EXIT_FAIL : EXIT_OK;
out:
	if (r)
		fc_warn("%s was not updated: 'up' names the replaced device of pool %s", file, pool);
	text_free(&t);
	return r;
}
