/* Unit tests of engine/fc_parse.c: option, mode and message parsing. */
#include "engine/fc_parse.h"
#include "unit.h"

static void test_numbers(void)
{
	__u32 v = 0;

	CHECK("u32 parses", fc_parse_u32("4294967295", &v) == 0 && v == 4294967295u);
	CHECK("u32 overflow refused", fc_parse_u32("4294967296", &v) == -EINVAL);
	CHECK("u32 sign refused", fc_parse_u32("-1", &v) == -EINVAL);
	CHECK("u32 garbage refused", fc_parse_u32("12x", &v) == -EINVAL);
	CHECK("u32 empty refused", fc_parse_u32("", &v) == -EINVAL);
}

static void test_modes(void)
{
	CHECK("mode writeback", fc_parse_mode("writeback") == FC_MODE_WRITEBACK);
	CHECK("mode writethrough", fc_parse_mode("writethrough") == FC_MODE_WRITETHROUGH);
	CHECK("mode writearound", fc_parse_mode("writearound") == FC_MODE_WRITEAROUND);
	CHECK("mode passthrough", fc_parse_mode("passthrough") == FC_MODE_PASSTHROUGH);
	CHECK("mode unknown refused", fc_parse_mode("writeback2") == -EINVAL);
	CHECK("mode name round trip", !strcmp(fc_mode_name(fc_parse_mode("writearound")), "writearound"));
}

static void test_pool_opts(void)
{
	struct fc_pool_opts o;
	const char *why = NULL;
	char *ok[] = { "4", "commit_interval", "250", "writeback_high", "60" };
	char *odd[] = { "3", "writeback_high", "60", "x" };
	char *miscount[] = { "4", "writeback_high", "60" };
	char *range[] = { "2", "writeback_high", "101" };
	char *cross[] = { "4", "writeback_high", "40", "writeback_low", "50" };
	char *unknown[] = { "2", "frobnicate", "1" };

	{
		char *fh[] = { "2", "fence_hold", "1" }, *fh2[] = { "2", "fence_hold", "2" };

		fc_pool_opts_default(&o);
		CHECK("fence_hold off by default", o.val[FC_OPT_FENCE_HOLD] == 0);
		CHECK("fence_hold 1", fc_pool_opts_parse(&o, 3, fh, &why) == 0 && o.val[FC_OPT_FENCE_HOLD] == 1);
		CHECK("fence_hold 2 refused", fc_pool_opts_parse(&o, 3, fh2, &why) == -EINVAL &&
		      !strcmp(why, "fence_hold must be 0..1 (1: on one copy, flushes wait for peer_outdated)"));
	}
	fc_pool_opts_default(&o);
	CHECK("defaults", o.val[FC_OPT_WRITEBACK_HIGH] == FC_DEFAULT_WRITEBACK_HIGH &&
	      o.val[FC_OPT_COMMIT_INTERVAL] == FC_DEFAULT_COMMIT_INTERVAL && !o.nr_given);
	CHECK("no opts ok", fc_pool_opts_parse(&o, 0, NULL, &why) == 0);
	CHECK("opts parse", fc_pool_opts_parse(&o, 5, ok, &why) == 0);
	CHECK("opts values", o.val[FC_OPT_COMMIT_INTERVAL] == 250 && o.val[FC_OPT_WRITEBACK_HIGH] == 60);
	CHECK("opts order remembered", o.nr_given == 2 && o.order[0] == FC_OPT_COMMIT_INTERVAL &&
	      o.order[1] == FC_OPT_WRITEBACK_HIGH);
	fc_pool_opts_default(&o);
	CHECK("odd count refused", fc_pool_opts_parse(&o, 4, odd, &why) == -EINVAL && why);
	CHECK("miscount refused", fc_pool_opts_parse(&o, 3, miscount, &why) == -EINVAL);
	CHECK("range refused", fc_pool_opts_parse(&o, 3, range, &why) == -EINVAL);
	fc_pool_opts_default(&o);
	CHECK("low above high refused", fc_pool_opts_parse(&o, 5, cross, &why) == -EINVAL);
	CHECK("unknown refused", fc_pool_opts_parse(&o, 3, unknown, &why) == -EINVAL);
	fc_pool_opts_default(&o);
	CHECK("set by message", fc_pool_opt_set(&o, "writeback_jobs", "8", &why) == 0 &&
	      o.val[FC_OPT_WRITEBACK_JOBS] == 8 && o.nr_given == 1);
	CHECK("set twice recorded once", fc_pool_opt_set(&o, "writeback_jobs", "9", &why) == 0 &&
	      o.nr_given == 1);
	CHECK("jobs 0 refused", fc_pool_opt_set(&o, "writeback_jobs", "0", &why) == -EINVAL);
	/*
	 * The pair, as the table and a message are checked (fcachectl checks
	 * pool create, its config file and set with the same function).
	 */
	fc_pool_opts_default(&o);
	CHECK("pair: the defaults pass", fc_pool_opts_check(&o, &why) == 0);
	CHECK("pair: writeback_high 40 over the default low 50 refused",
	      fc_pool_opt_set(&o, "writeback_high", "40", &why) == 0 &&
	      fc_pool_opts_check(&o, &why) == -EINVAL &&
	      !strcmp(why, "writeback_low must not exceed writeback_high"));
	CHECK("pair: low == high passes", fc_pool_opt_set(&o, "writeback_low", "40", &why) == 0 &&
	      fc_pool_opts_check(&o, &why) == 0);
	CHECK("pair: low one above high refused", fc_pool_opt_set(&o, "writeback_low", "41", &why) == 0 &&
	      fc_pool_opts_check(&o, &why) == -EINVAL);
	CHECK("pair: low 0 high 1 passes", fc_pool_opt_set(&o, "writeback_low", "0", &why) == 0 &&
	      fc_pool_opt_set(&o, "writeback_high", "1", &why) == 0 && fc_pool_opts_check(&o, &why) == 0);
	{
		char *alone[] = { "2", "writeback_high", "40" };

		fc_pool_opts_default(&o);
		CHECK("pair: a table with writeback_high 40 alone refused",
		      fc_pool_opts_parse(&o, 3, alone, &why) == -EINVAL &&
		      !strcmp(why, "writeback_low must not exceed writeback_high"));
	}
}

static void test_pool_table(void)
{
	struct fc_pool_legs legs;
	struct fc_pool_opts o;
	const char *why = NULL;
	char *mirror[] = { "4", "mirror", "8:32", "writeback_high", "70" };
	char *twice[] = { "4", "mirror", "8:32", "mirror", "8:48" };
	char *missing[] = { "2", "mirror", "-" };
	char *degraded[] = { "4", "mirror", "-", "degraded", "1" };
	char *lonedeg[] = { "2", "degraded", "1" };
	char *replace[] = { "4", "mirror", "8:48", "replace", "1" };
	char *repmiss[] = { "6", "mirror", "-", "degraded", "1", "replace", "1" };
	char *repalone[] = { "2", "replace", "1" };
	char *repdeg[] = { "6", "mirror", "8:48", "degraded", "1", "replace", "1" };
	char *rep2[] = { "4", "mirror", "8:48", "replace", "2" };

	fc_pool_opts_default(&o);
	CHECK("table: mirror among the tunables", !fc_pool_table_parse(&o, &legs, 5, mirror, &why) &&
	      legs.mirror && !strcmp(legs.mirror, "8:32") && !legs.degraded && !legs.replace &&
	      o.val[FC_OPT_WRITEBACK_HIGH] == 70);
	CHECK("table: mirror twice refused", fc_pool_table_parse(&o, &legs, 5, twice, &why) == -EINVAL);
	CHECK("table: mirror - without degraded refused",
	      fc_pool_table_parse(&o, &legs, 3, missing, &why) == -EINVAL && strstr(why, "degraded 1"));
	CHECK("table: mirror - degraded 1", !fc_pool_table_parse(&o, &legs, 5, degraded, &why) &&
	      legs.degraded == 1);
	CHECK("table: degraded without mirror refused",
	      fc_pool_table_parse(&o, &legs, 3, lonedeg, &why) == -EINVAL);
	CHECK("table: replace 1", !fc_pool_table_parse(&o, &legs, 5, replace, &why) &&
	      legs.replace == 1 && !strcmp(legs.mirror, "8:48"));
	CHECK("table: replace with a missing device refused",
	      fc_pool_table_parse(&o, &legs, 7, repmiss, &why) == -EINVAL);
	CHECK("table: replace without mirror refused",
	      fc_pool_table_parse(&o, &legs, 3, repalone, &why) == -EINVAL && strstr(why, "mirror"));
	CHECK("table: replace with degraded refused",
	      fc_pool_table_parse(&o, &legs, 7, repdeg, &why) == -EINVAL);
	CHECK("table: replace 2 refused", fc_pool_table_parse(&o, &legs, 5, rep2, &why) == -EINVAL);
}

static void test_vol_opts(void)
{
	struct fc_vol_opts o;
	const char *why;
	char *ok[] = { "4", "label", "db1", "sequential_cutoff", "0" };
	char *longl[] = { "2", "label", "0123456789012345678901234567890123456789x" };
	char *olog[] = { "4", "ordered_log", "253:7", "label", "db1" };
	char *ologbs[] = { "2", "ordered_log", "/dev/a\\b" }, *ologempty[] = { "2", "ordered_log", "" };
	static char longpath[FC_OLOG_PATH_MAX + 2];
	char *ologlong[] = { "2", "ordered_log", longpath };

	fc_vol_opts_default(&o);
	CHECK("vol default cutoff", o.seq_cutoff_kib == FC_DEFAULT_SEQ_CUTOFF_KIB);
	CHECK("vol opts parse", fc_vol_opts_parse(&o, 5, ok, &why) == 0 &&
	      !strcmp(o.label, "db1") && o.seq_cutoff_kib == 0 && o.nr_given == 2 &&
	      o.order[0] == FC_VOPT_LABEL);
	CHECK("long label refused", fc_vol_opts_parse(&o, 3, longl, &why) == -EINVAL);
	fc_vol_opts_default(&o);
	CHECK("ordered_log parse", fc_vol_opts_parse(&o, 5, olog, &why) == 0 &&
	      !strcmp(o.olog, "253:7") && !strcmp(o.label, "db1") && o.nr_given == 2 &&
	      o.order[0] == FC_VOPT_ORDERED_LOG && o.order[1] == FC_VOPT_LABEL);
	CHECK("ordered_log with a backslash refused",
	      fc_vol_opts_parse(&o, 3, ologbs, &why) == -EINVAL && strstr(why, "ordered_log"));
	CHECK("ordered_log empty refused", fc_vol_opts_parse(&o, 3, ologempty, &why) == -EINVAL);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = 0;
	CHECK("ordered_log of 128 characters refused",
	      fc_vol_opts_parse(&o, 3, ologlong, &why) == -EINVAL);
	longpath[FC_OLOG_PATH_MAX] = 0;
	CHECK("ordered_log of 127 characters taken",
	      fc_vol_opts_parse(&o, 3, ologlong, &why) == 0 && strlen(o.olog) == FC_OLOG_PATH_MAX);
}

static void test_messages(void)
{
	struct fc_msg m;
	const char *why;
	char *flush[] = { "flush" }, *flushx[] = { "flush", "now" };
	char *forget[] = { "forget", "7" }, *forget0[] = { "forget", "0" };
	char *tun[] = { "writeback_high", "60" }, *bad[] = { "bogus" };
	char *inval[] = { "invalidate" }, *cut[] = { "sequential_cutoff", "512" };
	char *dump[] = { "dump" };

	CHECK("pool flush", fc_parse_pool_msg(1, flush, &m, &why) == 0 && m.kind == FC_MSG_FLUSH);
	CHECK("pool flush args refused", fc_parse_pool_msg(2, flushx, &m, &why) == -EINVAL);
	CHECK("pool forget", fc_parse_pool_msg(2, forget, &m, &why) == 0 &&
	      m.kind == FC_MSG_FORGET && m.id == 7);
	CHECK("forget 0 refused", fc_parse_pool_msg(2, forget0, &m, &why) == -EINVAL);
	CHECK("pool tunable", fc_parse_pool_msg(2, tun, &m, &why) == 0 && m.kind == FC_MSG_SET);
	CHECK("pool unknown refused", fc_parse_pool_msg(1, bad, &m, &why) == -EINVAL);
	CHECK("pool invalidate refused", fc_parse_pool_msg(1, inval, &m, &why) == -EINVAL);
	CHECK("vol invalidate", fc_parse_vol_msg(1, inval, &m, &why) == 0 &&
	      m.kind == FC_MSG_INVALIDATE);
	CHECK("vol cutoff", fc_parse_vol_msg(2, cut, &m, &why) == 0 && m.kind == FC_MSG_SET);
	CHECK("vol forget refused", fc_parse_vol_msg(2, forget, &m, &why) == -EINVAL);
	CHECK("empty refused", fc_parse_vol_msg(0, NULL, &m, &why) == -EINVAL);
	CHECK("pool dump", fc_parse_pool_msg(1, dump, &m, &why) == 0 && m.kind == FC_MSG_DUMP);
	CHECK("vol dump refused", fc_parse_vol_msg(1, dump, &m, &why) == -EINVAL);
	CHECK("pool empty refused", fc_parse_pool_msg(0, NULL, &m, &why) == -EINVAL);
	{
		char *po[] = { "peer_outdated" }, *pox[] = { "peer_outdated", "1" };

		CHECK("pool peer_outdated", fc_parse_pool_msg(1, po, &m, &why) == 0 &&
		      m.kind == FC_MSG_PEER_OUTDATED);
		CHECK("peer_outdated takes no argument", fc_parse_pool_msg(2, pox, &m, &why) == -EINVAL);
		CHECK("vol peer_outdated refused", fc_parse_vol_msg(1, po, &m, &why) == -EINVAL);
	}
	{
		char *rr[] = { "resolve", "5", "replay" }, *rd[] = { "resolve", "6", "discard" };
		char *rx[] = { "resolve", "5", "maybe" }, *r0[] = { "resolve", "0", "replay" };

		CHECK("pool resolve replay", fc_parse_pool_msg(3, rr, &m, &why) == 0 &&
		      m.kind == FC_MSG_RESOLVE && m.id == 5 && !m.discard);
		CHECK("pool resolve discard", fc_parse_pool_msg(3, rd, &m, &why) == 0 &&
		      m.kind == FC_MSG_RESOLVE && m.id == 6 && m.discard);
		CHECK("resolve bad choice refused", fc_parse_pool_msg(3, rx, &m, &why) == -EINVAL);
		CHECK("resolve id 0 refused", fc_parse_pool_msg(3, r0, &m, &why) == -EINVAL);
		CHECK("resolve without choice refused", fc_parse_pool_msg(2, rr, &m, &why) == -EINVAL);
		CHECK("vol resolve refused", fc_parse_vol_msg(3, rr, &m, &why) == -EINVAL);
	}
}

/* Messages without arguments: accepted alone, refused with an argument. */
static void test_bare_messages(void)
{
	static const struct {
		int pool;
		char *name;
		enum fc_msg_kind kind;
	} t[] = {
		{ 1, "flush", FC_MSG_FLUSH }, { 1, "clear_stats", FC_MSG_CLEAR_STATS },
		{ 1, "dump", FC_MSG_DUMP }, { 0, "flush", FC_MSG_FLUSH },
		{ 0, "clear_stats", FC_MSG_CLEAR_STATS }, { 0, "invalidate", FC_MSG_INVALIDATE },
		{ 0, "detach", FC_MSG_DETACH }, { 0, "cancel_detach", FC_MSG_CANCEL_DETACH },
		{ 1, "stats", FC_MSG_STATS }, { 0, "stats", FC_MSG_STATS },
		{ 0 },
	};
	int (*parse)(unsigned int argc, char **argv, struct fc_msg *m, const char **why);
	char name[64], *argv[2];
	struct fc_msg m;
	const char *why;
	unsigned int i;

	for (i = 0; t[i].name; i++) {
		parse = t[i].pool ? fc_parse_pool_msg : fc_parse_vol_msg;
		argv[0] = t[i].name;
		argv[1] = "x";
		snprintf(name, sizeof(name), "%s %s", t[i].pool ? "pool" : "vol", t[i].name);
		CHECK(name, parse(1, argv, &m, &why) == 0 && m.kind == t[i].kind);
		snprintf(name, sizeof(name), "%s %s args refused", t[i].pool ? "pool" : "vol",
			 t[i].name);
		CHECK(name, parse(2, argv, &m, &why) == -EINVAL);
	}
}

int main(void)
{
	test_numbers();
	test_modes();
	test_pool_opts();
	test_pool_table();
	test_vol_opts();
	test_messages();
	test_bare_messages();
	return unit_failed;
}
