// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl show / get: the current settings of a pool or volume, read from
 * the live table (what 'dmsetup table' prints); a setting the table does not
 * carry has the target's default.  fc_show.c parses and prints.
 */
#include <stdio.h>
#include <string.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_show.h"

#define SHOW_SCHEMA "fcache.show"

/* @key NULL: every setting (text or @json), else the value of @key alone. */
static int show_target(const char *verb, const char *target, int json, const char *key)
{
	const char *schema = json ? SHOW_SCHEMA : NULL, *val;
	struct fc_live l;
	struct fc_pool *p, *vp;
	struct fc_vol *v;
	struct fc_show sh;
	char buf[64];
	int rc = EXIT_FAIL;

	if (fc_live_scan(&l))
		return fc_fail_json(schema, "%s: cannot talk to device-mapper: %s", verb, fc_dm_error());
	p = fc_live_pool(&l, target);
	v = p ? NULL : fc_live_vol(&l, target);
	if (!p && !v) {
		fc_fail_json(schema, "%s: '%s' is neither an fcache pool nor a cached volume (see 'fcachectl status')",
			     verb, target);
		goto out;
	}
	if (p ? fc_show_parse_pool(&sh, p->name, p->table) : fc_show_parse_vol(&sh, v->name, v->table)) {
		fc_fail_json(schema, "%s: cannot read the table of %s: '%s'", verb, p ? p->name : v->name,
			     p ? p->table : v->table);
		goto out;
	}
	if (p) {
		snprintf(sh.flash, sizeof(sh.flash), "%s", fc_dev_path(p->flash));
		if (p->flash2)
			snprintf(sh.mirror, sizeof(sh.mirror), "%s", fc_dev_path(p->flash2));
	} else {
		vp = fc_live_pool_by_dev(&l, v->pool_dev);
		if (vp)
			snprintf(sh.pool, sizeof(sh.pool), "%s", vp->name);
		snprintf(sh.origin, sizeof(sh.origin), "%s", fc_dev_path(v->origin));
		sh.in_place = v->in_place;
	}
	if (key) {
		if (p ? !fc_show_pool_key(key) : !fc_show_vol_key(key)) {
			rc = fc_usage(verb, "%s: %s is a %s: its settings are %s ('%s' is not one)", verb, sh.name,
				      p ? "pool" : "volume", p ? fc_show_pool_keys() : fc_show_vol_keys(), key);
			goto out;
		}
		val = fc_show_get(&sh, key, buf, sizeof(buf));
		printf("%s\n", val ? val : "");
	} else if (json) {
		fc_show_json(stdout, &sh);
	} else {
		fc_show_text(stdout, &sh);
	}
	rc = EXIT_OK;
out:
	fc_live_free(&l);
	return rc;
}

/* show and get: [--json] and the operands POOL|VOLUME, then NAME (get only) */
static int parse(int argc, char **argv, const char *verb, const char **ops, int *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	int get = !strcmp(verb, "get"), c;
	struct fc_opt o;

	fc_opt_init(&o, argc, argv, "", opts, verb, verb);
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		if (c == 'j') {
			*json = 1;
		} else if (c != FC_OPT_OPERAND) {
			return EXIT_USAGE;
		} else if (!get && ops[0]) {
			return fc_usage("show", "show: one POOL or VOLUME at a time ('%s' is extra; 'fcachectl get %s NAME' prints one setting)",
					o.arg, ops[0]);
		} else if (fc_opt_operand(&o, ops, 2, "NAME")) {
			return EXIT_USAGE;
		}
	}
	return 0;
}

int cmd_show(int argc, char **argv)
{
	const char *ops[2] = { NULL, NULL };
	int json = 0, r;

	r = parse(argc, argv, "show", ops, &json);
	if (r)
		return r;
	if (!ops[0])
		return fc_usage("show", "show: expected POOL or VOLUME");
	return show_target("show", ops[0], json, NULL);
}

int cmd_get(int argc, char **argv)
{
	const char *ops[2] = { NULL, NULL }, *key;
	int json = 0, r;

	r = parse(argc, argv, "get", ops, &json);
	if (r)
		return r;
	key = ops[1];
	if (!ops[0])
		return fc_usage("get", "get: expected POOL|VOLUME [NAME]");
	if (key && json)
		return fc_usage("get", "get: --json prints every setting; give NAME or --json, not both");
	if (key && !fc_show_pool_key(key) && !fc_show_vol_key(key))
		return fc_usage("get", "get: unknown setting '%s' (pool: %s; volume: %s)", key, fc_show_pool_keys(),
				fc_show_vol_keys());
	return show_target("get", ops[0], json, key);
}
