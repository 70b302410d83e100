// SPDX-License-Identifier: GPL-2.0
/*
 * What LVM will see of an origin that carries an LVM PV signature, once it
 * is cached (enable; issue 35, item 12).  Cached, the PV has two devices
 * with the same signature: the raw one and the cached one.  Unless LVM's
 * filters (devices/global_filter, devices/filter) or its devices file hide
 * the raw one, the next 'vgchange -ay' refuses the VG ("PVs appear on
 * duplicate devices") or activates it on the raw device, whose data is
 * stale while the cache holds dirty blocks.
 *
 * The settings come from 'lvmconfig --typeconfig full' (defaults merged,
 * LVM_SYSTEM_DIR honoured), else from $LVM_SYSTEM_DIR/lvm.conf
 * (/etc/lvm/lvm.conf).  A filter is evaluated as lvm.conf(5) says: for
 * each name of a device the first pattern that matches decides; a device
 * is accepted if one name is accepted, rejected if every name that
 * matches a pattern is rejected, accepted if no name matches any.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "fcachectl.h"
#include "fc_probe.h"
#include "lvm_filter.h"

/*
 * The string that starts after the '"' at @p into @out (@len), "\\" and
 * "\"" unescaped as LVM reads them (other escapes kept as written): the
 * closing '"', or NULL.
 */
static const char *lvm_string(const char *p, char *out, size_t len)
{
	size_t o = 0;

	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' && (p[1] == '\\' || p[1] == '"'))
			p++;
		if (o + 1 < len)
			out[o++] = *p;
	}
	out[o] = 0;
	return *p ? p : NULL;
}

/* The value of @key in @text (lvm.conf or lvmconfig's output) into @c. */
static void take_value(struct fc_lvm_cfg *c, const char *key, const char **pp)
{
	const char *p = *pp;
	char (*list)[FC_LVM_PAT] = NULL, junk[2];
	int *n = NULL;

	if (!strcmp(key, "global_filter")) {
		list = c->global_filter;
		n = &c->ngf;
	} else if (!strcmp(key, "filter")) {
		list = c->filter;
		n = &c->nf;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (list && *p == '[') {
		*n = 0;
		for (p++; *p && *p != ']'; p++) {
			const char *e;

			if (*p == '#') {	/* a comment inside a list */
				p = strchr(p, '\n');
				if (!p)
					break;
				continue;
			}
			if (*p != '"')
				continue;
			e = lvm_string(p, *n < FC_LVM_MAX ? list[*n] : junk,
				       *n < FC_LVM_MAX ? FC_LVM_PAT : sizeof(junk));
			if (!e)
				break;
			if (*n < FC_LVM_MAX)
				(*n)++;
			p = e;
		}
	} else if (!strcmp(key, "use_devicesfile")) {
		c->use_devicesfile = atoi(p);
	} else if (!strcmp(key, "devicesfile") && *p == '"') {
		const char *e = lvm_string(p, c->devicesfile, sizeof(c->devicesfile));

		if (e)
			p = e;
	}
	*pp = p;
}

void fc_lvm_parse(struct fc_lvm_cfg *c, const char *text)
{
	const char *p = text;
	char word[64], section[64] = "";
	int depth = 0;

	while (*p) {
		size_t n;

		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '}') {
			if (depth && !--depth)
				section[0] = 0;
			p++;
			continue;
		}
		n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!n) {
			if (*p == '"') {	/* a string outside a value: skip it whole */
				char skip[2];
				const char *e = lvm_string(p, skip, sizeof(skip));

				p = e ? e + 1 : p + strlen(p);
				continue;
			}
			p++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(n < 63 ? n : 63), p);
		p += n;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '{') {
			if (!depth++)
				snprintf(section, sizeof(section), "%s", word);
			p++;
		} else if (*p == '=') {
			p++;
			/* lvmconfig prints the keys alone; lvm.conf has them in devices { } */
			if (!depth || (depth == 1 && !strcmp(section, "devices")))
				take_value(c, word, &p);
		}
	}
}

void fc_lvm_defaults(struct fc_lvm_cfg *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->devicesfile, sizeof(c->devicesfile), "system.devices");
}

/* lvmconfig's answer into @buf: 0, or -1 (absent, or it failed). */
static int run_lvmconfig(char *buf, size_t len)
{
	char *argv[] = { "lvmconfig", "--typeconfig", "full", "devices/global_filter", "devices/filter",
			 "devices/use_devicesfile", "devices/devicesfile", NULL };
	int pfd[2], st, dn;
	size_t o = 0;
	ssize_t r;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		dn = open("/dev/null", O_RDWR);
		dup2(pfd[1], 1);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 2);
		}
		setenv("LVM_SUPPRESS_FD_WARNINGS", "1", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	while (o + 1 < len && ((r = read(pfd[0], buf + o, len - o - 1)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			o += (size_t)r;
	buf[o] = 0;
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && !WEXITSTATUS(st) && o ? 0 : -1;
}

int fc_lvm_read_config(struct fc_lvm_cfg *c)
{
	const char *dir = getenv("LVM_SYSTEM_DIR");
	char *buf = malloc(65536);
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	fc_lvm_defaults(c);
	if (!buf)
		return -1;
	if (!dir || !*dir)
		dir = "/etc/lvm";
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	if (!run_lvmconfig(buf, 65536)) {
		fc_lvm_parse(c, buf);
		snprintf(c->source, sizeof(c->source), "lvmconfig");
		free(buf);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/lvm.conf", dir);
	f = fopen(path, "r");
	if (!f) {
		free(buf);
		return -1;	/* no LVM here */
	}
	n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	fc_lvm_parse(c, buf);
	snprintf(c->source, sizeof(c->source), "%s", path);
	free(buf);
	return 0;
}

/* Pattern @pat ("a|re|", "r/re/") against @name: 'a', 'r', or 0 (no match, or a bad pattern). */
static int pat_match(const char *pat, const char *name)
{
	char re[FC_LVM_PAT];
	const char *end;
	regex_t rx;
	int m;

	if ((pat[0] != 'a' && pat[0] != 'r') || !pat[1])
		return 0;
	end = strrchr(pat + 2, pat[1]);
	if (!end)
		return 0;
	snprintf(re, sizeof(re), "%.*s", (int)(end - pat - 2), pat + 2);
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return 0;
	m = !regexec(&rx, name, 0, NULL, 0);
	regfree(&rx);
	return m ? pat[0] : 0;
}

int fc_lvm_accepts(const char (*pat)[FC_LVM_PAT], int npat, const char *const *names, int nn)
{
	int i, k, rejected = 0;

	for (i = 0; i < nn; i++)
		for (k = 0; k < npat; k++) {
			int m = pat_match(pat[k], names[i]);

			if (m == 'a')
				return 1;
			if (m == 'r') {
				rejected = 1;
				break;
			}
		}
	return !rejected;
}

int fc_lvm_devfile_lists(const char *path, const char *const *names, int nn)
{
	char line[1024], *w, *save;
	FILE *f = fopen(path, "r");
	int i, hit = 0;

	if (!f)
		return -1;
	while (!hit && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		for (w = strtok_r(line, " \t\n", &save); w && !hit; w = strtok_r(NULL, " \t\n", &save)) {
			const char *v = !strncmp(w, "IDNAME=", 7) ? w + 7 :
					!strncmp(w, "DEVNAME=", 8) ? w + 8 : NULL;

			for (i = 0; v && i < nn; i++)
				if (!strcmp(v, names[i]))
					hit = 1;
		}
	}
	fclose(f);
	return hit;
}

/* Add @path to @n names of @names if it names @dev and is not there yet. */
static void add_name(char (*names)[PATH_MAX], int *n, int max, const char *path, dev_t dev)
{
	dev_t d;
	int i;

	if (*n >= max || fc_block_dev(path, &d) || d != dev)
		return;
	for (i = 0; i < *n; i++)
		if (!strcmp(names[i], path))
			return;
	snprintf(names[(*n)++], PATH_MAX, "%s", path);
}

int fc_lvm_dev_names(dev_t dev, const char *given, char (*names)[PATH_MAX], int max)
{
	static const char *const dirs[] = { "/dev/disk/by-id", "/dev/disk/by-path", "/dev/disk/by-uuid",
					    "/dev/disk/by-partuuid", "/dev/disk/by-label",
					    "/dev/disk/by-partlabel", "/dev/md", "/dev/mapper" };
	char path[PATH_MAX], *rp;
	struct dirent *de;
	size_t k;
	int n = 0;
	DIR *d;

	add_name(names, &n, max, given, dev);
	rp = realpath(given, NULL);
	if (rp) {
		add_name(names, &n, max, rp, dev);
		free(rp);
	}
	snprintf(path, sizeof(path), "/dev/%s", fc_dev_kname(dev));
	add_name(names, &n, max, path, dev);
	for (k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
		d = opendir(dirs[k]);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[k], de->d_name);
			add_name(names, &n, max, path, dev);
		}
		if (d)
			closedir(d);
	}
	return n;
}

/* @s with the characters a regex treats specially escaped, into @out. */
static void re_quote(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 2 < len; s++) {
		if (strchr(".[]()*+?{}^$|\\", *s))
			out[o++] = '\\';
		out[o++] = *s;
	}
	out[o] = 0;
}

void fc_lvm_filter_line(char *buf, size_t len, const char *cached, const char *raw,
			const struct fc_lvm_cfg *c)
{
	char qc[600], qr[600];
	size_t o;
	int i;

	re_quote(qc, sizeof(qc), cached);
	re_quote(qr, sizeof(qr), raw);
	o = snprintf(buf, len, "devices { global_filter = [ \"a|^%s$|\", \"r|^%s$|\"", qc, qr);
	/* what the file has now, after them */
	for (i = 0; c && i < c->ngf; i++)
		o += snprintf(buf + o, o < len ? len - o : 0, ", \"%s\"", c->global_filter[i]);
	if (o < len)
		snprintf(buf + o, len - o, " ] }");
}

void fc_lvm_say_filter(const char *cached, const char *raw, const struct fc_lvm_cfg *c, char *buf,
		       size_t len)
{
	char line[2048];

	fc_lvm_filter_line(line, sizeof(line), cached, raw, c);
	snprintf(buf, len, "in %.200s/lvm.conf make LVM use the cached PV and reject the raw one:\n"
		 "    %s\n"
		 "  (see 'man fcachectl', LVM; an initramfs that activates the VG needs it too: update-initramfs -u)",
		 c && c->dir[0] ? c->dir : "/etc/lvm", line);
}

int fc_lvm_guard(int fd, const char *volume, const char *const *raw, int nraw, const char *cached,
		 int force)
{
	char type[64], devfile[PATH_MAX + 300], say[3072];
	const char *cnames[3];
	char c1[300], c2[300], c3[300];
	struct fc_lvm_cfg *c;
	int raw_seen, cached_seen, rl = 0, cl = 0, r = 0;

	if (fc_probe_type(fd, type, sizeof(type)) <= 0 || strcmp(type, "LVM2_member"))
		return 0;
	c = malloc(sizeof(*c));
	if (!c)
		return 0;
	if (fc_lvm_read_config(c)) {
		fc_info("enable: %s carries an LVM PV signature; no lvmconfig or %s/lvm.conf here: make sure whatever activates its VG (an initramfs?) sees it only through /dev/mapper/%s",
			volume, c->dir, cached);
		free(c);
		return 0;
	}
	snprintf(c1, sizeof(c1), "/dev/mapper/%s", cached);
	snprintf(c2, sizeof(c2), "/dev/disk/by-id/dm-name-%s", cached);
	snprintf(c3, sizeof(c3), "/dev/disk/by-id/dm-uuid-FCACHE-%s", cached);
	cnames[0] = c1;
	cnames[1] = c2;
	cnames[2] = c3;
	raw_seen = fc_lvm_accepts((const char (*)[FC_LVM_PAT])c->global_filter, c->ngf, raw, nraw) &&
		   fc_lvm_accepts((const char (*)[FC_LVM_PAT])c->filter, c->nf, raw, nraw);
	cached_seen = fc_lvm_accepts((const char (*)[FC_LVM_PAT])c->global_filter, c->ngf, cnames, 3) &&
		      fc_lvm_accepts((const char (*)[FC_LVM_PAT])c->filter, c->nf, cnames, 3);
	snprintf(devfile, sizeof(devfile), "%s/devices/%s", c->dir, c->devicesfile);
	if (c->use_devicesfile && !access(devfile, F_OK)) {
		/* only the devices it lists */
		rl = fc_lvm_devfile_lists(devfile, raw, nraw) > 0;
		cl = fc_lvm_devfile_lists(devfile, cnames, 3) > 0;
		raw_seen = raw_seen && rl;
		cached_seen = cached_seen && cl;
	} else {
		devfile[0] = 0;
	}
	fc_lvm_say_filter(c1, raw[0], c, say, sizeof(say));
	if (raw_seen && !force) {
		fc_fail("enable: %s carries an LVM PV signature and LVM (%s) would see that PV twice once it is cached: raw on %s and cached on %s. At the next boot 'vgchange -ay' refuses the VG (\"PVs appear on duplicate devices\") or activates it on the raw device, whose data is stale while the cache holds dirty blocks. Nothing changed.\n"
			"  Before enabling, %s%s%s%s\n"
			"  --force caches it all the same.",
			volume, c->source, raw[0], c1, say,
			rl ? "\n  and LVM's devices file " : "", rl ? devfile : "",
			rl ? " lists the raw device: after enabling, 'lvmdevices --deldev RAW' and 'lvmdevices --adddev CACHED' for the two devices above" : "");
		r = EXIT_FAIL;
	} else if (raw_seen) {
		fc_warn("%s carries an LVM PV signature that LVM would see raw on %s and cached on %s (--force): before the next 'vgchange -ay', %s",
			volume, raw[0], c1, say);
	} else if (!cached_seen) {
		fc_warn("%s carries an LVM PV signature and LVM (%s) would see it on neither %s nor %s: its VG would not come up; accept %s in LVM's filter%s",
			volume, c->source, raw[0], c1, c1, devfile[0] ? " and add it to LVM's devices file (lvmdevices --adddev)" : "");
	}
	free(c);
	return r;
}
