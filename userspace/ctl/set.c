// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl set / flush: change a pool's tunables or a volume's mode or
 * cutoff online (validated first: a bad pair changes nothing; recorded in
 * the config file), and write back a pool's or volume's dirty data now,
 * with the progress line of live.c's fc_flush_wait().
 */
#include <getopt.h>
#include <string.h>
#include "fcachectl.h"
#include "fc_dm.h"

int cmd_set(int argc, char **argv)
{
	struct fc_live l;
	struct fc_pool *p;
	struct fc_vol *v;
	const struct fc_tunable *t;
	static const struct option opts[] = {
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	char key[64], msg[128], params[1024], why[512];
	const char *eq, *newmode = NULL, *conf, *target = NULL;
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_opt o;
	char *kv[255];
	int i, r, rc = EXIT_FAIL, pass, failed, nkv = 0, c;
	char done[255] = { 0 };

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
		if (!eq || eq == kv[i] || !eq[1] || (size_t)(eq - kv[i]) >= sizeof(key))
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
	/* validate everything first: a bad pair changes nothing */
	for (i = 0; i < nkv; i++) {
		eq = strchr(kv[i], '=');
		memcpy(key, kv[i], eq - kv[i]);
		key[eq - kv[i]] = 0;
		if (fc_tunable_check(p ? FC_TUN_POOL : FC_TUN_VOL, key, eq + 1, &t, NULL, why,
				     sizeof(why))) {
			rc = fc_usage("set", "set: %s", why);
			goto out;
		}
		if (t->is_mode)
			newmode = eq + 1;
	}
	rc = EXIT_FAIL;
	if (newmode && !strcmp(newmode, "writeback") && v->in_place && fc_is_lvm_lv(v->name)) {
		fc_fail("set: %s is an LVM logical volume cached in place: in writeback mode an LVM command that reloads it would expose stale data; cache its PV instead (see 'fcachectl enable --help' and 'man fcachectl', LVM)",
			v->name);
		goto out;
	}
	if (conf && fc_conf_check(conf))
		goto out;
	if (newmode) {
		if (fc_vol_table_with_mode(v, newmode, params, sizeof(params)) || fc_vol_reload(v, params)) {
			fc_fail("set: cannot switch %s to %s: %s", v->name, newmode, fc_dm_error());
			goto out;
		}
		/*
		 * Leaving writeback: the switch itself does not write back
		 * (the volume would stay suspended meanwhile); the dirty data
		 * stays cached until written back, now, with I/O flowing.
		 */
		if (strcmp(newmode, "writeback")) {
			fc_install_sigint();
			r = fc_flush_wait(fc_live_pool_by_dev(&l, v->pool_dev), v);
			if (r) {
				fc_fail("set: %s is in %s mode but its dirty data is not all written back%s; 'fcachectl flush %s' finishes it",
					v->name, newmode, r == -2 ? " (interrupted)" : "", v->name);
				goto out;
			}
		}
	}
	/*
	 * Two passes: a pair the target refuses now may be accepted once the
	 * others are set (writeback_low=95 writeback_high=99 from low=50 high=80).
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, failed = 0; i < nkv; i++) {
			if (done[i])
				continue;
			eq = strchr(kv[i], '=');
			memcpy(key, kv[i], eq - kv[i]);
			key[eq - kv[i]] = 0;
			if (!strcmp(key, "mode") && v) {
				done[i] = 1;
				continue;
			}
			snprintf(msg, sizeof(msg), "%s %s", key, eq + 1);
			if (fc_dm_message(p ? p->name : v->name, msg, NULL)) {
				if (pass) {
					fc_fail("set: %s refused '%s': %s (see dmesg)", p ? p->name : v->name,
						kv[i], fc_dm_error());
					goto out;
				}
				failed++;
				continue;
			}
			done[i] = 1;
		}
		if (!failed)
			break;
	}
	rc = EXIT_OK;
	if (conf) {
		struct fc_pool *vp = v ? fc_live_pool_by_dev(&l, v->pool_dev) : p;

		if (vp)
			rc = fc_conf_record_set(conf, vp->name, v ? v->id : 0, nkv, kv);
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
