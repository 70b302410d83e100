// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl set / flush: change a pool's tunables or a volume's mode or
 * cutoff online (validated first, each pair and all together as the target
 * checks them: a refusal changes nothing; applied in an order the target
 * takes, put back if it refuses one all the same; recorded in the config
 * file), and write back a pool's or volume's dirty data now, with the
 * progress line of live.c's fc_flush_wait().
 */
#include <getopt.h>
#include <string.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "set_plan.h"

/* Send "KEY VALUE" to @name: 0, or -1 (device-mapper's reason in fc_dm_error()). */
static int set_message(const char *name, const char *key, const char *val)
{
	char msg[128];

	if (snprintf(msg, sizeof(msg), "%s %s", key, val) >= (int)sizeof(msg))
		return -1;
	return fc_dm_message(name, msg, NULL) ? -1 : 0;
}

/*
 * A step failed after steps @s[0..@n-1] were applied: put them back, the
 * last first (for a pool the states in between are those the steps went
 * through, which the target took).  0, or -1 if one could not be (said).
 */
static int set_undo(const char *name, const struct fc_set_step *s, int n)
{
	int i, r = 0;

	for (i = n - 1; i >= 0; i--)
		if (set_message(name, s[i].key, s[i].old)) {
			fc_fail("set: cannot put %s of %s back to %s: %s", s[i].key, name, s[i].old,
				fc_dm_error());
			r = -1;
		}
	return r;
}

int cmd_set(int argc, char **argv)
{
	struct fc_live l;
	struct fc_pool *p;
	struct fc_vol *v;
	static const struct option opts[] = {
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	char params[1024], why[512];
	const char *eq, *newmode = NULL, *conf, *target = NULL, *name;
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_set_step steps[255];
	struct fc_opt o;
	char *kv[255];
	int i, r, rc = EXIT_FAIL, nkv = 0, c;

	fc_opt_init(&o, argc, argv, "c:", opts, "set", "set");
	while ((c = fc_opt_next_conf(&o, &co)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (!target) {
				target = o.arg;
				break;
			}
			if (nkv >= (int)(sizeof(kv) / sizeof(kv[0])))
				return fc_usage("set", "set: too many settings");
			kv[nkv++] = o.arg;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	conf = fc_conf_file(&co);
	if (!nkv)
		return fc_usage("set", "set: expected POOL|VOLUME KEY=VALUE...");
	for (i = 0; i < nkv; i++) {
		eq = strchr(kv[i], '=');
		if (!eq || eq == kv[i] || !eq[1] || (size_t)(eq - kv[i]) >= sizeof(steps[0].key))
			return fc_usage("set", "set: expected KEY=VALUE, got '%s'", kv[i]);
	}
	if (fc_live_scan(&l))
		return fc_fail("set: cannot talk to device-mapper: %s", fc_dm_error());
	p = fc_live_pool(&l, target);
	v = p ? NULL : fc_live_vol(&l, target);
	if (!p && !v) {
		fc_fail("set: '%s' is neither an fcache pool nor a cached volume", target);
		goto out;
	}
	name = p ? p->name : v->name;
	/*
	 * Everything is checked first, each pair and (a pool's) all of them
	 * together over the live values, as the target checks them: a
	 * refusal changes nothing.
	 */
	if (fc_set_plan(!!p, p ? p->table : v->table, nkv, kv, steps, why, sizeof(why)) < 0) {
		rc = fc_usage("set", "set: %s", why);
		goto out;
	}
	for (i = 0; i < nkv; i++)
		if (steps[i].reload)
			newmode = steps[i].val;
	if (newmode && !strcmp(newmode, "writeback") && v->in_place && fc_is_lvm_lv(v->name)) {
		fc_fail("set: %s is an LVM logical volume cached in place: in writeback mode an LVM command that reloads it would expose stale data; cache its PV instead (see 'fcachectl enable --help' and 'man fcachectl', LVM)",
			v->name);
		goto out;
	}
	if (conf && fc_conf_check(conf))
		goto out;
	/*
	 * Applied in the plan's order; if the target refuses one all the
	 * same (it changed under us), those applied are put back: the live
	 * settings and the config file stay as they were.
	 */
	for (i = 0; i < nkv; i++) {
		if (!steps[i].reload) {
			r = set_message(name, steps[i].key, steps[i].val);
		} else {
			/* the table now: it carries the messages just sent (its options) */
			r = fc_vol_reread(v) || fc_vol_table_with_mode(v, newmode, params, sizeof(params)) ||
			    fc_vol_reload(v, params);
		}
		if (!r)
			continue;
		if (steps[i].reload)
			fc_fail("set: cannot switch %s to %s: %s", name, newmode, fc_dm_error());
		else
			fc_fail("set: %s refused '%s=%s': %s (see dmesg)", name, steps[i].key, steps[i].val,
				fc_dm_error());
		if (i && !set_undo(name, steps, i))
			fc_info("set: %s: the settings applied before it were put back; nothing changed",
				name);
		else if (i)
			fc_fail("set: %s: the live settings differ from %s now: check them with 'fcachectl show %s'",
				name, conf ? conf : "the config file", name);
		goto out;
	}
	rc = EXIT_OK;
	/*
	 * Leaving writeback: the switch itself does not write back (the
	 * volume would stay suspended meanwhile); the dirty data stays cached
	 * until written back, now, with I/O flowing.  The settings are in
	 * place whatever happens to that: they are recorded all the same.
	 */
	if (newmode && strcmp(newmode, "writeback")) {
		fc_install_sigint();
		r = fc_flush_wait(fc_live_pool_by_dev(&l, v->pool_dev), v);
		if (r) {
			fc_fail("set: %s is in %s mode but its dirty data is not all written back%s; 'fcachectl flush %s' finishes it",
				v->name, newmode, r == -2 ? " (interrupted)" : "", v->name);
			rc = EXIT_FAIL;
		}
	}
	if (conf) {
		struct fc_pool *vp = v ? fc_live_pool_by_dev(&l, v->pool_dev) : p;

		if (vp && fc_conf_record_set(conf, vp->name, v ? v->id : 0, nkv, kv))
			rc = EXIT_FAIL;
	}
out:
	fc_live_free(&l);
	return rc;
}

int cmd_flush(int argc, char **argv)
{
	struct fc_live l;
	struct fc_pool *p;
	struct fc_vol *v = NULL;
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	const char *target = NULL;
	struct fc_opt o;
	int r, c;

	fc_opt_init(&o, argc, argv, "", opts, "flush", "flush");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		if (c != FC_OPT_OPERAND)
			return EXIT_USAGE;
		if (target)
			return fc_usage("flush", "flush: expected one POOL or VOLUME");
		target = o.arg;
	}
	if (!target)
		return fc_usage("flush", "flush: expected one POOL or VOLUME");
	if (fc_live_scan(&l))
		return fc_fail("flush: cannot talk to device-mapper: %s", fc_dm_error());
	p = fc_live_pool(&l, target);
	if (!p) {
		v = fc_live_vol(&l, target);
		p = v ? fc_live_pool_by_dev(&l, v->pool_dev) : NULL;
	}
	if (!p) {
		fc_live_free(&l);
		return fc_fail("flush: '%s' is neither an fcache pool nor a cached volume", target);
	}
	fc_install_sigint();
	r = fc_flush_wait(p, v);
	fc_live_free(&l);
	if (r == -2)
		return fc_fail("flush: interrupted; the data stays dirty and cached, background writeback continues");
	return r ? EXIT_FAIL : EXIT_OK;
}
