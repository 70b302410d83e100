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
#include "fcache_abi.h"
#include "fc_json.h"
#include "fc_show.h"

struct setting {
	const char *key, *unit;
	unsigned int def;
};

/* The pool tunables of the table (docs/TABLES.md), in that order. */
static const struct setting pool_settings[] = {
	{ "writeback_high", "%", FC_DEFAULT_WRITEBACK_HIGH },
	{ "writeback_low", "%", FC_DEFAULT_WRITEBACK_LOW },
	{ "max_dirty_age", "s", FC_DEFAULT_MAX_DIRTY_AGE },
	{ "writeback_jobs", "", FC_DEFAULT_WRITEBACK_JOBS },
	{ "commit_interval", "ms", FC_DEFAULT_COMMIT_INTERVAL },
	{ NULL, NULL, 0 }
};

static const char *pool_fixed[] = { "flash", "block_sectors", NULL };
static const char *vol_fixed[] = { "pool", "origin", "id", "label", "in_place", NULL };

int fc_show_pool_key(const char *key)
{
	int i;

	for (i = 0; pool_fixed[i]; i++)
		if (!strcmp(pool_fixed[i], key))
			return 1;
	for (i = 0; pool_settings[i].key; i++)
		if (!strcmp(pool_settings[i].key, key))
			return 1;
	return 0;
}

int fc_show_vol_key(const char *key)
{
	int i;

	for (i = 0; vol_fixed[i]; i++)
		if (!strcmp(vol_fixed[i], key))
			return 1;
	return !strcmp(key, "mode") || !strcmp(key, "sequential_cutoff");
}

const char *fc_show_pool_keys(void)
{
	return "flash, block_sectors, writeback_high, writeback_low, max_dirty_age, writeback_jobs, commit_interval";
}

const char *fc_show_vol_keys(void)
{
	return "pool, origin, id, label, in_place, mode, sequential_cutoff";
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

int fc_show_parse_pool(struct fc_show *sh, const char *name, const char *params)
{
	char buf[1024], *w[64];
	uint64_t v;
	int n, i, k;

	memset(sh, 0, sizeof(*sh));
	sh->is_pool = 1;
	snprintf(sh->name, sizeof(sh->name), "%s", name);
	snprintf(sh->table, sizeof(sh->table), "%s", params);
	n = words(params, buf, sizeof(buf), w, 64);
	if (n < 2 || number(w[1], &sh->block_sectors) || opt_args(w, n, 2))
		return -1;
	snprintf(sh->flash, sizeof(sh->flash), "%s", w[0]);
	for (k = 0; pool_settings[k].key; k++)
		snprintf(item(sh, pool_settings[k].key, pool_settings[k].unit, 1)->value,
			 sizeof(sh->s[0].value), "%u", pool_settings[k].def);
	for (i = 3; i + 1 < n; i += 2)
		for (k = 0; k < sh->n; k++)
			if (!strcmp(sh->s[k].key, w[i])) {
				if (number(w[i + 1], &v))
					return -1;
				snprintf(sh->s[k].value, sizeof(sh->s[k].value), "%s", w[i + 1]);
				sh->s[k].is_default = 0;
			}
	return 0;
}

int fc_show_parse_vol(struct fc_show *sh, const char *name, const char *params)
{
	char buf[1024], *w[64];
	struct fc_show_item *mode, *cut;
	uint64_t v;
	int n, i;

	memset(sh, 0, sizeof(*sh));
	snprintf(sh->name, sizeof(sh->name), "%s", name);
	snprintf(sh->table, sizeof(sh->table), "%s", params);
	n = words(params, buf, sizeof(buf), w, 64);
	if (n < 4 || number(w[2], &sh->id) || opt_args(w, n, 4))
		return -1;
	snprintf(sh->pool, sizeof(sh->pool), "%s", w[0]);
	snprintf(sh->origin, sizeof(sh->origin), "%s", w[1]);
	mode = item(sh, "mode", "", 0);
	snprintf(mode->value, sizeof(mode->value), "%s", w[3]);
	mode->is_default = 0;
	cut = item(sh, "sequential_cutoff", "KiB", 1);
	snprintf(cut->value, sizeof(cut->value), "%u", FC_DEFAULT_SEQ_CUTOFF_KIB);
	for (i = 5; i + 1 < n; i += 2) {
		if (!strcmp(w[i], "sequential_cutoff")) {
			if (number(w[i + 1], &v))
				return -1;
			snprintf(cut->value, sizeof(cut->value), "%s", w[i + 1]);
			cut->is_default = 0;
		} else if (!strcmp(w[i], "label")) {
			snprintf(sh->label, sizeof(sh->label), "%s", w[i + 1]);
		}
	}
	return 0;
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
