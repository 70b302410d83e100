// SPDX-License-Identifier: GPL-2.0
/*
 * What 'fcachectl set' does, decided before it changes anything (set.h):
 * every pair checked alone and, for a pool, all of them together over the
 * live table's values as the target checks them (fc_pool_tunables_check,
 * engine/fc_parse.c), so that a pair the kernel would refuse half-way
 * changes nothing; then the order of the steps and the values to put back
 * if one fails all the same.  Pure: tables in, steps out (the unit tests
 * link it with fc_show.c, tunables.c and engine/fc_parse.c).
 */
#include <stdio.h>
#include <string.h>
#include "../../engine/fc_parse.h"
#include "fc_show.h"
#include "set_plan.h"
#include "tunables.h"

/* The option words of a pool table's params: after the flash and the block size. */
static const char *pool_opt_words(const char *table)
{
	const char *p = table;
	int w;

	for (w = 0; w < 2; w++) {
		p += strspn(p, " \t");
		p += strcspn(p, " \t");
	}
	p += strspn(p, " \t");
	return p;
}

/* Can the target take step @s next, from the options @cur (which it then holds)? */
static int pool_takes(struct fc_pool_opts *cur, const struct fc_set_step *s)
{
	struct fc_pool_opts o = *cur;
	const char *why;

	if (fc_pool_opt_set(&o, s->key, s->val, &why) || fc_pool_opts_check(&o, &why))
		return 0;
	*cur = o;
	return 1;
}

/*
 * A pool's messages in an order the target takes one at a time: each
 * intermediate state passes the cross-checks (from low 50 high 80 to low 90
 * high 95, writeback_high goes first).  0, or -1: no such order.
 */
static int pool_order(const char *table, struct fc_set_step *s, int n)
{
	struct fc_pool_opts cur;
	struct fc_pool_legs legs;
	struct fc_set_step t;
	char words[1024], *w[64], *save;
	const char *why;
	unsigned int nw = 0;
	int done, i;

	fc_pool_opts_default(&cur);
	snprintf(words, sizeof(words), "%s", pool_opt_words(table));
	for (w[nw] = strtok_r(words, " \t\n", &save); w[nw] && nw < 63;
	     w[nw] = strtok_r(NULL, " \t\n", &save))
		nw++;
	if (nw && fc_pool_table_parse(&cur, &legs, nw, w, &why))
		return -1;
	for (done = 0; done < n; done++) {
		for (i = done; i < n && !pool_takes(&cur, &s[i]); i++)
			;
		if (i == n)
			return -1;
		t = s[i];
		memmove(&s[done + 1], &s[done], (size_t)(i - done) * sizeof(*s));
		s[done] = t;
	}
	return 0;
}

int fc_set_plan(int is_pool, const char *table, int n, char *const *kv, struct fc_set_step *steps,
		char *why, size_t len)
{
	enum fc_tun_kind kind = is_pool ? FC_TUN_POOL : FC_TUN_VOL;
	const struct fc_tunable *t;
	struct fc_show sh;
	char old[64];
	const char *eq, *cur;
	int i, k, nmode = 0;

	if ((is_pool ? fc_show_parse_pool : fc_show_parse_vol)(&sh, "", table)) {
		snprintf(why, len, "the live table does not parse: '%s'", table);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct fc_set_step *s = &steps[i];

		memset(s, 0, sizeof(*s));
		eq = strchr(kv[i], '=');
		if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof(s->key) ||
		    strlen(eq + 1) >= sizeof(s->val)) {
			snprintf(why, len, "expected KEY=VALUE, got '%s'", kv[i]);
			return -1;
		}
		snprintf(s->key, sizeof(s->key), "%.*s", (int)(eq - kv[i]), kv[i]);
		snprintf(s->val, sizeof(s->val), "%s", eq + 1);
		for (k = 0; k < i; k++)
			if (!strcmp(steps[k].key, s->key)) {
				snprintf(why, len, "%s is given twice ('%s', '%s'): give it once", s->key,
					 kv[k], kv[i]);
				return -1;
			}
		if (fc_tunable_check(kind, s->key, s->val, &t, NULL, why, len))
			return -1;
		cur = fc_show_get(&sh, s->key, old, sizeof(old));
		if (!cur) {
			snprintf(why, len, "the live table has no %s", s->key);
			return -1;
		}
		snprintf(s->old, sizeof(s->old), "%s", cur);
		s->reload = t->is_mode;
		nmode += t->is_mode;
	}
	if (is_pool) {
		if (fc_pool_tunables_check(pool_opt_words(table), n, kv, why, len))
			return -1;
		if (pool_order(table, steps, n)) {
			snprintf(why, len, "no order of these settings is taken by the target one at a time");
			return -1;
		}
		return n;
	}
	/* a volume: its messages first, the mode (a table reload) last */
	for (i = 0; nmode && i < n - 1; i++)
		if (steps[i].reload) {
			struct fc_set_step m = steps[i];

			memmove(&steps[i], &steps[i + 1], (size_t)(n - 1 - i) * sizeof(*steps));
			steps[n - 1] = m;
			break;
		}
	return n;
}
