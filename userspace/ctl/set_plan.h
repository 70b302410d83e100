/* SPDX-License-Identifier: GPL-2.0 */
/*
 * set_plan.c: what 'fcachectl set' will do, decided before it changes
 * anything.  Pure (no device-mapper): the unit tests link it
 * (tests/unit/test_setplan.c) with fc_show.c, tunables.c and
 * engine/fc_parse.c.
 */
#ifndef FC_SET_PLAN_H
#define FC_SET_PLAN_H

#include <stddef.h>

/* One setting to apply: a message "KEY VAL", or for a volume's mode a table reload. */
struct fc_set_step {
	char key[64];
	char val[32];		/* the new value */
	char old[64];		/* the live value now (the default if the table has none): to put back */
	int reload;		/* the volume's mode: a table reload, not a message */
};

/*
 * 'set' on the live pool (@is_pool) or volume whose table params are
 * @table, with the settings "KEY=VALUE" @kv[@n]: each checked alone
 * (fc_tunable_check), none given twice, and a pool's all together over the
 * table's values as the target checks them (fc_pool_tunables_check: a
 * writeback_low above writeback_high is refused here, not half-way); then
 * @steps[0..n-1] in the order to apply them: a pool's in an order the
 * target takes one message at a time (every state in between passes its
 * cross-checks, so putting the steps back in reverse order passes them
 * too); a volume's messages first and its mode (a reload, the one step
 * not put back) last.  Returns @n, or -1 with the reason in @why: nothing
 * to change, a usage error.
 */
int fc_set_plan(int is_pool, const char *table, int n, char *const *kv, struct fc_set_step *steps,
		char *why, size_t len);

#endif
