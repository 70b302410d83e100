// SPDX-License-Identifier: GPL-2.0
/*
 * The one table of the settings of pools and volumes (tunables.h), filled
 * from the kernel's parser on first use: what is a setting, its range,
 * default and unit, and everything printed from them (reasons, key lists,
 * --help lines, the completion's words).
 */
#include <stdio.h>
#include <string.h>
#include "../../engine/fc_parse.h"
#include "tunables.h"

#define NONE	0xffffffffu	/* no kernel option: the mode */

/* per setting: the kernel's option (pool: enum fc_pool_opt, volume: enum fc_vol_opt) */
static const struct {
	enum fc_tun_kind kind;
	unsigned int kopt;
	const char *unit, *desc;
} rows[] = {
	{ FC_TUN_POOL, FC_OPT_WRITEBACK_HIGH, "%",
	  "full-speed writeback above it; writes to new blocks go around" },
	{ FC_TUN_POOL, FC_OPT_WRITEBACK_LOW, "%",
	  "<= writeback_high; below it writeback only when idle or for old data" },
	{ FC_TUN_POOL, FC_OPT_MAX_DIRTY_AGE, "s",
	  "older dirty data is written back (0: off)" },
	{ FC_TUN_POOL, FC_OPT_WRITEBACK_JOBS, "",
	  "writeback copies in flight" },
	{ FC_TUN_POOL, FC_OPT_COMMIT_INTERVAL, "ms",
	  "periodic metadata commit (0: only on flush/FUA)" },
	{ FC_TUN_POOL, FC_OPT_FENCE_HOLD, "",
	  "1: degraded, flushes wait for the peer_outdated message (two hosts)" },
	{ FC_TUN_POOL, FC_OPT_WARM_RESTART, "",
	  "1: blocks read in stay cached after an unclean shutdown (one device)" },
	{ FC_TUN_POOL, FC_OPT_ORDERED, "",
	  "1: the origin alone always holds a past flush point (one device)" },
	{ FC_TUN_POOL, FC_OPT_ORDERED_LAG, "",
	  "ordered: most flush points the origin may lag (0: no bound)" },
	{ FC_TUN_VOL, NONE, "",
	  "the cache mode" },
	{ FC_TUN_VOL, FC_VOPT_SEQUENTIAL_CUTOFF, "KiB",
	  "longer sequential streams go around (0: off)" },
};

#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

static struct fc_tunable table[NR_ROWS + 1];
static const char *modes[FC_NR_MODES + 1];

const char *const fc_show_pool_fixed[] = { "flash", "mirror_device", "block_sectors", NULL };
const char *const fc_show_vol_fixed[] = { "pool", "origin", "id", "label", "in_place", NULL };

static void fill(void)
{
	const struct fc_opt_desc *d;
	struct fc_tunable *t;
	unsigned int i;

	if (table[0].name)
		return;
	for (i = 0; i < FC_NR_MODES; i++)
		modes[i] = fc_mode_name((int)i);
	for (i = 0; i < NR_ROWS; i++) {
		t = &table[i];
		t->kind = rows[i].kind;
		t->unit = rows[i].unit;
		t->desc = rows[i].desc;
		if (rows[i].kopt == NONE) {
			t->name = "mode";
			t->is_mode = 1;
			t->max = FC_NR_MODES - 1;
			t->def = FC_MODE_WRITEBACK;
			t->range = "mode must be a cache mode";
			continue;
		}
		d = t->kind == FC_TUN_POOL ? fc_pool_opt_desc(rows[i].kopt) :
					     fc_vol_opt_desc(rows[i].kopt);
		t->name = d->name;
		t->min = d->min;
		t->max = d->max;
		t->def = d->def;
		t->range = d->range;
	}
}

const struct fc_tunable *fc_tunables(void)
{
	fill();
	return table;
}

const char *const *fc_mode_words(void)
{
	fill();
	return modes;
}

int fc_valid_mode(const char *mode)
{
	return mode && fc_parse_mode(mode) >= 0;
}

const struct fc_tunable *fc_tunable(enum fc_tun_kind kind, const char *name)
{
	const struct fc_tunable *t;

	for (t = fc_tunables(); t->name; t++)
		if (t->kind == kind && !strcmp(t->name, name))
			return t;
	return NULL;
}

/* snprintf at @o of @buf, never past its end; the new offset */
#define ADD(buf, len, o, ...) \
	((o) += (size_t)snprintf((buf) + (o), (o) < (len) ? (len) - (o) : 0, __VA_ARGS__))

const char *fc_tunable_names(enum fc_tun_kind kind, const char *sep, char *buf, size_t len)
{
	const struct fc_tunable *t;
	size_t o = 0;

	buf[0] = 0;
	for (t = fc_tunables(); t->name; t++)
		if (t->kind == kind)
			ADD(buf, len, o, "%s%s", o ? sep : "", t->name);
	return buf;
}

int fc_enable_mode(const char *mode)
{
	return fc_valid_mode(mode) && fc_parse_mode(mode) != FC_MODE_PASSTHROUGH;
}

const char *fc_mode_list(char *buf, size_t len, int enable)
{
	const char *const *m = fc_mode_words();
	int i, n = enable ? FC_MODE_PASSTHROUGH : FC_NR_MODES;
	size_t o = 0;

	buf[0] = 0;
	for (i = 0; i < n; i++)
		ADD(buf, len, o, "%s%s", !i ? "" : i + 1 < n ? ", " : " or ", m[i]);
	return buf;
}

int fc_tunable_check(enum fc_tun_kind kind, const char *key, const char *val,
		     const struct fc_tunable **tp, uint32_t *num, char *why, size_t len)
{
	const struct fc_tunable *t = fc_tunable(kind, key);
	char names[256];
	__u32 v;

	if (!t) {
		snprintf(why, len, "unknown %s '%s' (%s)", kind == FC_TUN_POOL ? "pool tunable" : "volume key",
			 key, fc_tunable_names(kind, ", ", names, sizeof(names)));
		return -1;
	}
	if (t->is_mode && !fc_valid_mode(val)) {
		snprintf(why, len, "bad mode '%s': %s", val, fc_mode_list(names, sizeof(names), 0));
		return -1;
	}
	if (!t->is_mode && (fc_parse_u32(val, &v) || v < t->min || v > t->max)) {
		snprintf(why, len, "bad value for %s: '%s': %s", key, val, t->range);
		return -1;
	}
	if (tp)
		*tp = t;
	if (num && !t->is_mode)
		*num = v;
	return 0;
}

/* Is @key one of the pool tunables "KEY=VALUE" of @kv[@n]? */
static int kv_gives(int n, char *const *kv, const char *key)
{
	size_t k = strlen(key);
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(kv[i], key, k) && kv[i][k] == '=')
			return 1;
	return 0;
}

int fc_pool_tunables_check(const char *base, int n, char *const *kv, char *why, size_t len)
{
	struct fc_pool_opts o;
	struct fc_pool_legs legs;
	char words[1024], *w[64], key[64], *save;
	const char *kwhy = NULL, *eq, *src[2];
	unsigned int nw = 0, i, pair[2] = { FC_OPT_WRITEBACK_LOW, FC_OPT_WRITEBACK_HIGH };

	fc_pool_opts_default(&o);
	if (base) {
		snprintf(words, sizeof(words), "%s", base);
		for (w[nw] = strtok_r(words, " \t\n", &save); w[nw] && nw < 63;
		     w[nw] = strtok_r(NULL, " \t\n", &save))
			nw++;
		if (nw && fc_pool_table_parse(&o, &legs, nw, w, &kwhy)) {
			snprintf(why, len, "the live table's options do not parse: %s", kwhy);
			return -1;
		}
	}
	for (i = 0; i < (unsigned int)n; i++) {
		eq = strchr(kv[i], '=');
		if (!eq || (size_t)(eq - kv[i]) >= sizeof(key)) {
			snprintf(why, len, "expected TUNABLE=VALUE, got '%s'", kv[i]);
			return -1;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
		if (fc_pool_opt_set(&o, key, eq + 1, &kwhy)) {
			snprintf(why, len, "bad value for %s: '%s': %s", key, eq + 1, kwhy);
			return -1;
		}
	}
	if (!fc_pool_opts_check(&o, &kwhy))
		return 0;
	/* the pair, and where each value comes from: given, the live pool's, the default */
	for (i = 0; i < 2; i++)
		src[i] = kv_gives(n, kv, fc_pool_opt_name(pair[i])) ? "" :
			 base && strstr(base, fc_pool_opt_name(pair[i])) ? ", the pool's now" :
			 ", the default";
	snprintf(why, len, "%s (writeback_low %u%s; writeback_high %u%s)", kwhy,
		 o.val[pair[0]], src[0], o.val[pair[1]], src[1]);
	return -1;
}

/*
 * Print @head, then the words of @body, wrapped before column 80 with the
 * lines after the first indented as far as @hang.
 */
static void wrap(FILE *f, const char *head, size_t hang, const char *body)
{
	size_t col = strlen(head), n;
	const char *w = body, *e;

	fputs(head, f);
	while (*w) {
		e = strchr(w, ' ');
		n = e ? (size_t)(e - w) : strlen(w);
		if (w != body && col + 1 + n > 79) {
			fprintf(f, "\n%*s", (int)hang, "");
			col = hang;
		} else if (w != body) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, n, f);
		col += n;
		w += n;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

/* "1..100 %, default 80" / "writeback, ... or passthrough, default writeback" */
static const char *values(const struct fc_tunable *t, char *buf, size_t len)
{
	char m[128];

	if (t->is_mode)
		snprintf(buf, len, "%s; default %s", fc_mode_list(m, sizeof(m), 0), fc_mode_name((int)t->def));
	else
		snprintf(buf, len, "%u..%u%s%s, default %u", t->min, t->max, t->unit[0] ? " " : "", t->unit,
			 t->def);
	return buf;
}

/* one setting a line (wrapped): name, values, description */
static void settings_help(FILE *f, int indent, enum fc_tun_kind kind)
{
	const struct fc_tunable *t;
	char head[64], body[512], v[160];

	for (t = fc_tunables(); t->name; t++) {
		if (t->kind != kind)
			continue;
		snprintf(head, sizeof(head), "%*s%-18s ", indent, "", t->name);
		snprintf(body, sizeof(body), "%s: %s", values(t, v, sizeof(v)), t->desc);
		wrap(f, head, strlen(head), body);
	}
}

/* "pool:   flash, block_sectors, writeback_high (%), ..." (@units) or "flash block_sectors ..." */
static void keys_help(FILE *f, int indent, enum fc_tun_kind kind, int units)
{
	const char *const *fixed = kind == FC_TUN_POOL ? fc_show_pool_fixed : fc_show_vol_fixed;
	const char *sep = units ? ", " : " ";
	const struct fc_tunable *t;
	char head[64], body[512];
	size_t o = 0;
	int i;

	body[0] = 0;
	for (i = 0; fixed[i]; i++)
		ADD(body, sizeof(body), o, "%s%s", o ? sep : "", fixed[i]);
	for (t = fc_tunables(); t->name; t++)
		if (t->kind == kind)
			ADD(body, sizeof(body), o, "%s%s%s%s%s", sep, t->name, units && t->unit[0] ? " (" : "",
			    units ? t->unit : "", units && t->unit[0] ? ")" : "");
	snprintf(head, sizeof(head), "%*s%-8s", indent, "", kind == FC_TUN_POOL ? "pool:" : "volume:");
	wrap(f, head, strlen(head), body);
}

static void enable_help(FILE *f, int indent, int cutoff)
{
	const char *const *m = fc_mode_words();
	const struct fc_tunable *t;
	int i;

	if (cutoff) {
		t = fc_tunable(FC_TUN_VOL, "sequential_cutoff");
		fprintf(f, "%*s--sequential-cutoff KIB  streams longer than this bypass (%u; 0 off)\n", indent,
			"", t->def);
		return;
	}
	fprintf(f, "%*s--mode  ", indent, "");
	for (i = 0; m[i]; i++)	/* enable refuses passthrough, disable's own mode */
		if (i != FC_MODE_PASSTHROUGH)
			fprintf(f, "%s%s%s", i ? " | " : "", m[i], i == FC_MODE_WRITEBACK ? " (default)" : "");
	fputc('\n', f);
}

static int expand(FILE *f, const char *line, size_t n)
{
	size_t ind = strspn(line, " ");
	const char *w = line + ind;
	int i = (int)ind;

#define IS(s) (n - ind == strlen(s) && !strncmp(w, s, n - ind))
	if (IS("@pool-tunables"))
		settings_help(f, i, FC_TUN_POOL);
	else if (IS("@volume-settings"))
		settings_help(f, i, FC_TUN_VOL);
	else if (IS("@enable-modes") || IS("@enable-cutoff"))
		enable_help(f, i, IS("@enable-cutoff"));
	else if (IS("@show-pool") || IS("@get-pool"))
		keys_help(f, i, FC_TUN_POOL, IS("@show-pool"));
	else if (IS("@show-volume") || IS("@get-volume"))
		keys_help(f, i, FC_TUN_VOL, IS("@show-volume"));
	else
		return 0;
#undef IS
	return 1;
}

void fc_tunables_help(FILE *f, const char *text)
{
	const char *l = text, *e;
	size_t n;

	while (*l) {
		e = strchr(l, '\n');
		n = e ? (size_t)(e - l) : strlen(l);
		if (!expand(f, l, n))
			fprintf(f, "%.*s\n", (int)n, l);
		l += n + (e ? 1 : 0);
	}
}

void fc_tunables_bash(FILE *f)
{
	const char *const *m = fc_mode_words();
	const struct fc_tunable *t;
	int i, kind;

	fprintf(f, "# generated by 'fcachectl __complete bash' from userspace/ctl/tunables.c\n");
	fprintf(f, "_fcachectl_enable_modes=\"");
	for (i = 0; m[i]; i++)
		if (i != FC_MODE_PASSTHROUGH)
			fprintf(f, "%s%s", i ? " " : "", m[i]);
	fprintf(f, "\"\n");
	for (kind = FC_TUN_POOL; kind <= FC_TUN_VOL; kind++) {
		fprintf(f, "_fcachectl_%s_set=\"", kind == FC_TUN_POOL ? "pool" : "vol");
		for (i = 0, t = fc_tunables(); t->name; t++)
			if (t->kind == (enum fc_tun_kind)kind)
				fprintf(f, "%s%s=", i++ ? " " : "", t->name);
		fprintf(f, "\"\n");
	}
	fprintf(f, "_fcachectl_get=\"");
	for (i = 0; fc_show_pool_fixed[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", fc_show_pool_fixed[i]);
	for (t = fc_tunables(); t->name; t++)
		if (t->kind == FC_TUN_POOL)
			fprintf(f, " %s", t->name);
	for (i = 0; fc_show_vol_fixed[i]; i++)
		fprintf(f, " %s", fc_show_vol_fixed[i]);
	for (t = fc_tunables(); t->name; t++)
		if (t->kind == FC_TUN_VOL)
			fprintf(f, " %s", t->name);
	fprintf(f, "\"\n# end of the generated part\n");
}
