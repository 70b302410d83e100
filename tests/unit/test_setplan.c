/*
 * Unit tests of what 'fcachectl set', pool create and the config file
 * check before they change anything (userspace/ctl/set_plan.c,
 * tunables.c's fc_pool_tunables_check, over engine/fc_parse.c): a pair the
 * kernel refuses (writeback_low above writeback_high, the default low
 * included) is refused with the values named; the order of a pool's
 * messages passes the target's cross-checks at every step; a volume's
 * mode comes last; the values to put back are the live ones.
 */
#include <string.h>
#include "../../engine/fc_parse.h"
#include "set_plan.h"
#include "tunables.h"
#include "unit.h"

/* Does applying @s[0..n-1] one at a time from @table's options pass every cross-check? */
static int order_taken(const char *opts, const struct fc_set_step *s, int n)
{
	struct fc_pool_opts o;
	struct fc_pool_legs legs;
	char buf[256], *w[32], *sv;
	const char *why;
	unsigned int nw = 0;
	int i;

	fc_pool_opts_default(&o);
	snprintf(buf, sizeof(buf), "%s", opts);
	for (w[nw] = strtok_r(buf, " ", &sv); w[nw]; w[nw] = strtok_r(NULL, " ", &sv))
		nw++;
	if (nw && fc_pool_table_parse(&o, &legs, nw, w, &why))
		return 0;
	for (i = 0; i < n; i++)
		if (fc_pool_opt_set(&o, s[i].key, s[i].val, &why) || fc_pool_opts_check(&o, &why))
			return 0;
	return 1;
}

static void test_pair(void)
{
	char why[512];
	char *high40[] = { "writeback_high=40" };
	char *both[] = { "writeback_low=60", "writeback_high=55" };
	char *equal[] = { "writeback_low=40", "writeback_high=40" };
	char *low0[] = { "writeback_low=0", "writeback_high=1" };
	char *low90[] = { "writeback_low=90" };
	char *jobs[] = { "writeback_jobs=8" };

	CHECK("pair: writeback_high=40 over the default low refused",
	      fc_pool_tunables_check(NULL, 1, high40, why, sizeof(why)) == -1 &&
	      strstr(why, "writeback_low must not exceed writeback_high") &&
	      strstr(why, "writeback_low 50, the default") && strstr(why, "writeback_high 40)"));
	CHECK("pair: low 60 high 55 refused, both named as given",
	      fc_pool_tunables_check(NULL, 2, both, why, sizeof(why)) == -1 &&
	      strstr(why, "(writeback_low 60; writeback_high 55)"));
	CHECK("pair: low == high taken", !fc_pool_tunables_check(NULL, 2, equal, why, sizeof(why)));
	CHECK("pair: low 0 high 1 taken", !fc_pool_tunables_check(NULL, 2, low0, why, sizeof(why)));
	CHECK("pair: writeback_jobs alone taken", !fc_pool_tunables_check(NULL, 1, jobs, why, sizeof(why)));
	CHECK("pair: low 90 over a live high 80 refused, the live value named",
	      fc_pool_tunables_check("2 writeback_high 80", 1, low90, why, sizeof(why)) == -1 &&
	      strstr(why, "writeback_high 80, the pool's now"));
	CHECK("pair: low 90 over a live high 95 taken",
	      !fc_pool_tunables_check("4 writeback_high 95 mirror 8:32", 1, low90, why, sizeof(why)));
	CHECK("pair: a range error in the kernel's words",
	      fc_pool_tunables_check(NULL, 1, (char *[]){ "writeback_high=0" }, why, sizeof(why)) == -1 &&
	      strstr(why, "writeback_high must be 1..100"));
}

static void test_pool_plan(void)
{
	struct fc_set_step s[4];
	char why[512];
	char *up[] = { "writeback_low=90", "writeback_high=95" };
	char *down[] = { "writeback_high=20", "writeback_low=10" };
	char *mid[] = { "writeback_jobs=8", "writeback_high=40" };
	char *twice[] = { "writeback_jobs=8", "writeback_jobs=9" };
	char *bad[] = { "frob=1" };

	CHECK("plan: raising both: high first",
	      fc_set_plan(1, "253:1 64", 2, up, s, why, sizeof(why)) == 2 &&
	      !strcmp(s[0].key, "writeback_high") && !strcmp(s[1].key, "writeback_low") &&
	      order_taken("", s, 2));
	CHECK("plan: raising both: the values to put back are the defaults",
	      !strcmp(s[0].old, "80") && !strcmp(s[1].old, "50"));
	CHECK("plan: lowering both: low first",
	      fc_set_plan(1, "253:1 64 2 writeback_high 70", 2, down, s, why, sizeof(why)) == 2 &&
	      !strcmp(s[0].key, "writeback_low") && order_taken("2 writeback_high 70", s, 2) &&
	      !strcmp(s[1].old, "70"));
	CHECK("plan: a pair refused half-way before is refused whole (nothing applied)",
	      fc_set_plan(1, "253:1 64", 2, mid, s, why, sizeof(why)) == -1 &&
	      strstr(why, "writeback_low must not exceed writeback_high"));
	CHECK("plan: a key given twice refused", fc_set_plan(1, "253:1 64", 2, twice, s, why, sizeof(why)) == -1 &&
	      strstr(why, "given twice"));
	CHECK("plan: unknown key refused", fc_set_plan(1, "253:1 64", 1, bad, s, why, sizeof(why)) == -1 &&
	      strstr(why, "unknown pool tunable 'frob'"));
	CHECK("plan: mirrored pool table parsed",
	      fc_set_plan(1, "253:1 64 4 mirror 253:2 writeback_high 90", 2, up, s, why, sizeof(why)) == 2 &&
	      order_taken("4 mirror 253:2 writeback_high 90", s, 2));
}

static void test_vol_plan(void)
{
	struct fc_set_step s[4];
	char why[512];
	char *both[] = { "mode=writethrough", "sequential_cutoff=512" };
	char *mode[] = { "mode=fast" };
	char *cut[] = { "sequential_cutoff=4194305" };

	CHECK("plan: volume: the mode last, the cutoff first",
	      fc_set_plan(0, "253:3 8:16 1 writeback 4 label db sequential_cutoff 256", 2, both, s, why,
			  sizeof(why)) == 2 &&
	      !strcmp(s[0].key, "sequential_cutoff") && !s[0].reload && !strcmp(s[0].old, "256") &&
	      !strcmp(s[1].key, "mode") && s[1].reload && !strcmp(s[1].old, "writeback"));
	CHECK("plan: volume: bad mode refused",
	      fc_set_plan(0, "253:3 8:16 1 writeback", 1, mode, s, why, sizeof(why)) == -1 &&
	      strstr(why, "bad mode 'fast'"));
	CHECK("plan: volume: cutoff range refused",
	      fc_set_plan(0, "253:3 8:16 1 writeback", 1, cut, s, why, sizeof(why)) == -1);
	CHECK("plan: volume: a pool tunable refused",
	      fc_set_plan(0, "253:3 8:16 1 writeback", 1, (char *[]){ "writeback_high=50" }, s, why,
			  sizeof(why)) == -1 && strstr(why, "unknown volume key"));
}

int main(void)
{
	test_pair();
	test_pool_plan();
	test_vol_plan();
	return unit_failed;
}
