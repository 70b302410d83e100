// SPDX-License-Identifier: GPL-2.0
/*
 * The settings of a pool or volume from its table: parsing and the three
 * outputs of 'fcachectl show' / 'get' (fc_show.h).  A setting missing from
 * the table has the target's default (include/fcache_abi.h), and says so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fc_json.h"
#include "fc_show.h"
#include "tunables.h"
#include "../../engine/fc_parse.h"

/* Every setting of a pool (or a volume: its mode and options) has an item. */
_Static_assert(FC_NR_POOL_OPTS <= FC_SHOW_MAX && FC_NR_VOL_OPTS + 1 <= FC_SHOW_MAX,
	       "struct fc_show holds too few settings (FC_SHOW_MAX)");

static int in(const char *const *list, const char *key)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(list[i], key))
			return 1;
	return 0;
}

int fc_show_pool_key(const char *key)
{
	return in(fc_show_pool_fixed, key) || fc_tunable(FC_TUN_POOL, key);
}

int fc_show_vol_key(const char *key)
{
	return in(fc_show_vol_fixed, key) || fc_tunable(FC_TUN_VOL, key);
}

/* "flash, block_sectors, writeback_high, ...": the fixed keys, then the settings */
static const char *keys(const char *const *fixed, enum fc_tun_kind kind, char *buf, size_t len)
{
	char names[256];
	size_t o = 0;
	int i;

	for (i = 0; fixed[i]; i++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s, ", fixed[i]);
	snprintf(buf + o, o < len ? len - o : 0, "%s", fc_tunable_names(kind, ", ", names, sizeof(names)));
	return buf;
}

const char *fc_show_pool_keys(void)
{
	static char buf[256];

	return keys(fc_show_pool_fixed, FC_TUN_POOL, buf, sizeof(buf));
}

const char *fc_show_vol_keys(void)
{
	static char buf[256];

	return keys(fc_show_vol_fixed, FC_TUN_VOL, buf, sizeof(buf));
}

/* Split @params (copied into @buf) into at most @max words. */
static int words(const char *params, char *buf, size_t len, char **w, int max)
{
	char *sv = NULL, *t;
	int n = 0;

	if (strlen(params) >= len)
		return -1;
	strcpy(buf, params);
	for (t = strtok_r(buf, " \t\n", &sv); t; t = strtok_r(NULL, " \t\n", &sv)) {
		if (n >= max)
			return -1;
		w[n++] = t;
	}
	return n;
}

static int number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	*v = strtoull(s, &end, 10);
	return *end ? -1 : 0;
}

static struct fc_show_item *item(struct fc_show *sh, const char *key, const char *unit, int is_int)
{
	struct fc_show_item *it = &sh->s[sh->n++];

	it->key = key;
	it->unit = unit;
	it->is_int = is_int;
	it->is_default = 1;
	return it;
}

/* The optional args after @first: "#words k v k v ..."; 0 or -1. */
static int opt_args(char **w, int n, int first)
{
	uint64_t cnt;

	if (n == first)
		return 0;
	if (number(w[first], &cnt) || cnt != (uint64_t)(n - first - 1) || cnt % 2)
		return -1;
	return 0;
}

/*
 * The settings of @kind, each with its default, then the values of the
 * table's optional args (the count at @first, "key value" pairs after it);
 * a volume's mode is @mode (its table always has one), its label goes to
 * sh->label.  0, or -1 for a setting whose value is not a number.
 */
static int settings(struct fc_show *sh, enum fc_tun_kind kind, char **w, int n, int first,
		    const char *mode)
{
	const struct fc_tunable *t;
	struct fc_show_item *it;
	uint64_t v;
	int i, k;

	for (t = fc_tunables(); t->name; t++) {
		if (t->kind != kind)
			continue;
		it = item(sh, t->name, t->unit, !t->is_mode);
		if (t->is_mode)
			snprintf(it->value, sizeof(it->value), "%s", mode);
		else
			snprintf(it->value, sizeof(it->value), "%u", t->def);
		it->is_default = !t->is_mode;
	}
	for (i = first + 1; i + 1 < n; i += 2) {
		if (kind == FC_TUN_VOL && !strcmp(w[i], "label"))
			snprintf(sh->label, sizeof(sh->label), "%s", w[i + 1]);
		for (k = 0; k < sh->n; k++) {
			if (!sh->s[k].is_int || strcmp(sh->s[k].key, w[i]))
				continue;
			if (number(w[i + 1], &v))
				return -1;
			snprintf(sh->s[k].value, sizeof(sh->s[k].value), "%s", w[i + 1]);
			sh->s[k].is_default = 0;
		}
	}
	return 0;
}

int fc_show_parse_pool(struct fc_show *sh, const char *name, const char *params)
{
	char buf[1024], *w[64];
	int n, i;

	memset(sh, 0, sizeof(*sh));
	sh->is_pool = 1;
	snprintf(sh->name, sizeof(sh->name), "%s", name);
	snprintf(sh->table, sizeof(sh->table), "%s", params);
	n = words(params, buf, sizeof(buf), w, 64);
	if (n < 2 || number(w[1], &sh->block_sectors) || opt_args(w, n, 2))
		return -1;
	snprintf(sh->flash, sizeof(sh->flash), "%s", w[0]);
	for (i = 3; i + 1 < n; i += 2)
		if (!strcmp(w[i], "mirror"))
			snprintf(sh->mirror, sizeof(sh->mirror), "%s", w[i + 1]);
	return settings(sh, FC_TUN_POOL, w, n, 2, NULL);
}

int fc_show_parse_vol(struct fc_show *sh, const char *name, const char *params)
{
	char buf[1024], *w[64];
	int n;

	memset(sh, 0, sizeof(*sh));
	snprintf(sh->name, sizeof(sh->name), "%s", name);
	snprintf(sh->table, sizeof(sh->table), "%s", params);
	n = words(params, buf, sizeof(buf), w, 64);
	if (n < 4 || number(w[2], &sh->id) || opt_args(w, n, 4))
		return -1;
	snprintf(sh->pool, sizeof(sh->pool), "%s", w[0]);
	snprintf(sh->origin, sizeof(sh->origin), "%s", w[1]);
	return settings(sh, FC_TUN_VOL, w, n, 4, w[3]);
}

const char *fc_show_get(const struct fc_show *sh, const char *key, char *buf, size_t len)
{
	int i;

	for (i = 0; i < sh->n; i++)
		if (!strcmp(sh->s[i].key, key))
			return sh->s[i].value;
	if (sh->is_pool) {
		if (!strcmp(key, "flash"))
			return sh->flash;
		if (!strcmp(key, "mirror_device"))
			return sh->mirror[0] ? sh->mirror : "none";
		if (!strcmp(key, "block_sectors")) {
			snprintf(buf, len, "%" PRIu64, sh->block_sectors);
			return buf;
		}
		return NULL;
	}
	if (!strcmp(key, "pool"))
		return sh->pool;
	if (!strcmp(key, "origin"))
		return sh->origin;
	if (!strcmp(key, "label"))
		return sh->label;
	if (!strcmp(key, "in_place"))
		return sh->in_place ? "yes" : "no";
	if (!strcmp(key, "id")) {
		snprintf(buf, len, "%" PRIu64, sh->id);
		return buf;
	}
	return NULL;
}

void fc_show_text(FILE *f, const struct fc_show *sh)
{
	const struct fc_show_item *it;
	int i;

	fprintf(f, "%s %s\n", sh->is_pool ? "pool" : "volume", sh->name);
	if (sh->is_pool) {
		fprintf(f, "  %-18s %s\n", "flash", sh->flash);
		if (sh->mirror[0])
			fprintf(f, "  %-18s %s\n", "mirror_device",
				strcmp(sh->mirror, "-") ? sh->mirror : "- (missing: loaded degraded)");
		fprintf(f, "  %-18s %" PRIu64 " (%" PRIu64 " KiB)\n", "block_sectors", sh->block_sectors,
			sh->block_sectors / 2);
	} else {
		fprintf(f, "  %-18s %s\n", "pool", sh->pool);
		fprintf(f, "  %-18s %s\n", "origin", sh->origin);
		fprintf(f, "  %-18s %" PRIu64 "\n", "id", sh->id);
		fprintf(f, "  %-18s %s\n", "label", sh->label);
		fprintf(f, "  %-18s %s\n", "in_place", sh->in_place ? "yes" : "no");
	}
	for (i = 0; i < sh->n; i++) {
		it = &sh->s[i];
		fprintf(f, "  %-18s %s%s%s%s\n", it->key, it->value, it->unit[0] ? " " : "", it->unit,
			it->is_default ? "  (default)" : "");
	}
	fprintf(f, "  %-18s %s\n", "table", sh->table);
}

void fc_show_json(FILE *f, const struct fc_show *sh)
{
	struct fc_json j;
	uint64_t v;
	int i;

	fj_init(&j, f);
	fj_obj(&j, NULL);
	fj_schema(&j, "fcache.show");
	fj_str(&j, "kind", sh->is_pool ? "pool" : "volume");
	fj_str(&j, "name", sh->name);
	fj_str(&j, "table", sh->table);
	if (sh->is_pool) {
		fj_str(&j, "flash", sh->flash);
		fj_str(&j, "mirror_device", sh->mirror[0] ? sh->mirror : NULL);
		fj_u64(&j, "block_sectors", sh->block_sectors);
	} else {
		fj_str(&j, "pool", sh->pool);
		fj_str(&j, "origin", sh->origin);
		fj_u64(&j, "id", sh->id);
		fj_str(&j, "label", sh->label);
		fj_bool(&j, "in_place", sh->in_place);
	}
	fj_obj(&j, "settings");
	for (i = 0; i < sh->n; i++) {
		if (sh->s[i].is_int && !number(sh->s[i].value, &v))
			fj_u64(&j, sh->s[i].key, v);
		else	/* parsed: an is_int value is a number */
			fj_str(&j, sh->s[i].key, sh->s[i].value);
	}
	fj_end(&j);
	fj_arr(&j, "defaults");
	for (i = 0; i < sh->n; i++)
		if (sh->s[i].is_default)
			fj_str(&j, NULL, sh->s[i].key);
	fj_end(&j);
	fj_end(&j);
}
