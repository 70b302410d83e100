/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_show: the settings of a live pool or volume, read from its table
 * (docs/TABLES.md): what 'fcachectl show' and 'get' print, as text, as the
 * JSON document fcache.show (docs/JSON.md) or as one value.  Pure: the
 * caller reads the table and names the devices; no device-mapper here, so
 * the unit tests (tests/unit/test_show.c) link it alone.
 *
 *	struct fc_show sh;
 *	fc_show_parse_pool(&sh, "p0", "253:16 64 2 writeback_high 70");
 *	snprintf(sh.flash, sizeof(sh.flash), "/dev/vdb");	(a path for 253:16)
 *	fc_show_text(stdout, &sh);
 */
#ifndef FC_SHOW_H
#define FC_SHOW_H

#include <stdint.h>
#include <stdio.h>

#define FC_SHOW_MAX 16

struct fc_show_item {
	const char *key;	/* "writeback_high" */
	const char *unit;	/* "%", "s", "ms", "KiB" or "" */
	char value[64];		/* as the table gives it */
	int is_default;		/* not in the table: the target's default */
	int is_int;		/* an integer (JSON number), else a string */
};

struct fc_show {
	int is_pool;
	char name[128];		/* dm name */
	char table[1024];	/* table params */
	/* pool: the flash device ("M:m" from the table; the caller may put a path) */
	char flash[256];
	/* mirrored pool: the second device, "-" if missing; "" for one device */
	char mirror[256];
	uint64_t block_sectors;
	/* volume: its pool and origin ("M:m", or names the caller puts) */
	char pool[256];
	char origin[256];
	uint64_t id;
	char label[64];
	int in_place;
	/* the settings: pool tunables, or the volume's mode and sequential_cutoff */
	int n;
	struct fc_show_item s[FC_SHOW_MAX];
};

/* Parse a table's params: 0, or -1 if it is not one of that target. */
int fc_show_parse_pool(struct fc_show *sh, const char *name, const char *params);
int fc_show_parse_vol(struct fc_show *sh, const char *name, const char *params);

/* The names 'get' knows for a pool / a volume: 1 if @key is one. */
int fc_show_pool_key(const char *key);
int fc_show_vol_key(const char *key);
/* "flash, block_sectors, writeback_high, ..." for messages */
const char *fc_show_pool_keys(void);
const char *fc_show_vol_keys(void);

/* The value of @key as 'get' prints it, NULL if @sh has no such key. */
const char *fc_show_get(const struct fc_show *sh, const char *key, char *buf, size_t len);

void fc_show_text(FILE *f, const struct fc_show *sh);
void fc_show_json(FILE *f, const struct fc_show *sh);

#endif
