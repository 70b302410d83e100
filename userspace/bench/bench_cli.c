// SPDX-License-Identifier: GPL-2.0
/*
 * The command line of `fcachectl bench`: the usage text, the options and
 * their defaults, every numeric value through fc_parse_num (lib/fc_util.c)
 * with its range, --users and --dist.  The verbs are in bench.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bench_int.h"

/*
 * The usage text, in sections: the synopsis of each verb (printed after
 * "usage: fcachectl bench " or "       fcachectl bench "), then the texts,
 * each for the verbs of its mask.  'bench --help' prints them all (blank
 * lines between the synopses, the descriptions, the notes and the run
 * options); 'bench VERB --help' those of VERB.
 */
enum { B_PREPARE = 1, B_RUN = 2, B_COMPARE = 4, B_OPTIMUM = 8, B_ALL = 15 };
static const char *const verbs[] = { "prepare", "run", "compare", "optimum" };

static const struct usage_sec {
	unsigned int verbs;
	int synopsis;	/* a synopsis line (group) */
	int para;	/* a blank line before it in the full text */
	const char *text;
} usage_secs[] = {
	{ B_PREPARE, 1, 0,
"prepare DEV [--size MB] [--page-size KiB] [--log-size MB]\n"
"                               [--force]\n" },
	{ B_RUN, 1, 0,
"run DEV [RUN OPTIONS] [--json FILE] [--label NAME]\n"
"                               [--log-dev DEV [--force]] [--trace FILE]\n" },
	{ B_COMPARE, 1, 0,
"compare --origin DEV --flash DEV [--flash2 DEV]\n"
"                               [--anchors] [--quick]\n"
"                               [--output DIR] [--size MB] [--configs LIST]\n"
"                               [--cache-block KiB] [--rounds N] [--force]\n"
"                               [--price CONFIG=AMOUNT]...\n"
"                               [--buffer-pool-sweep SIZES] [--trace CONFIGS]\n"
"                               [--max-io KiB] [RUN OPTIONS]\n" },
	{ B_OPTIMUM, 1, 0,
"optimum TRACE [--flash-size MB] [--max-io KiB]\n" },
	{ B_PREPARE, 0, 1,
"prepare  lays a datafile out on DEV (a block device, or a file: --size\n"
"         creates it): every page carries a checksum, its page number and a\n"
"         version; a version map and a redo log region follow.\n"
"         --size MB (whole number, 0..16777216; 0: all of DEV) creates or\n"
"         resizes a file; --page-size KiB 4, 8, 16 (default), 32 or 64;\n"
"         --log-size MB (0..64; 0: 1/16 of DEV, at most 64).\n" },
	{ B_RUN, 0, 0,
"run      warm-up, then a ladder of user counts; an interval line every\n"
"         --report-interval seconds, then a table per user count (TPS,\n"
"         average, p95, p99 response time; NOPM and the p90 of each\n"
"         transaction type) and the largest user count whose average\n"
"         response time stays under --rt-limit.  The users run on from one\n"
"         step of the ladder to the next (a step adds users, or lets the\n"
"         extra ones go idle after their transaction); a step counts the\n"
"         transactions that complete inside it, and their response times.\n"
"         Every page read is verified; a wrong or stale page fails the run\n"
"         (exit 1).\n" },
	{ B_COMPARE, 0, 0,
"compare  prepares the datafile on the origin and runs the same workload\n"
"         (same seed, same data state, same warm-up) on: baseline (the bare\n"
"         origin), fcache-writeback (fcache pool on the flash), and with\n"
"         --anchors dm-cache (smq, writeback) and dm-writecache (ssd mode);\n"
"         prints the ratios, writes results.json and chart.svg to --output\n"
"         (default .), and ends with one line per configuration:\n"
"         summary <config>: TPS <r>x baseline, avg response time <r>x baseline at <n> users\n"
"         and, with the terminal model, a second one per configuration:\n"
"         summary terminals <config>: TPS <r>x baseline, avg response time\n"
"           <r>x baseline, users under <s> s <n> (<r>x baseline)\n"
"         The tables give the ratios to the baseline at every user count:\n"
"         TPS, average and p95 response time, NOPM (tpcc-like), the p90 of\n"
"         each transaction type at the heaviest count, and the users under\n"
"         --rt-limit; the device latency of page reads, page writes, redo\n"
"         writes and fdatasync; and the writeback backlog each cache leaves:\n"
"         after its run, the dirty data it holds is written back to the\n"
"         origin and timed (flush message; dm-cache: cleaner policy).\n"
"         --configs LIST picks the configurations run after the baseline\n"
"         (fcache-writeback,dm-cache,dm-writecache; also fcache-mirrored: a\n"
"         mirrored fcache pool, every dirty block on both devices: over\n"
"         --flash and --flash2 as two devices, or without --flash2 over the\n"
"         two halves of --flash, the same capacity as fcache-writeback, so\n"
"         the ratio between the two is the cost of the second copy; and,\n"
"         with --flash2 only, dm-writecache-raid1 and dm-cache-raid1:\n"
"         dm-writecache and dm-cache over a dm RAID1 of the two devices);\n"
"         --flash2 DEV: a second flash device (an existing block device or\n"
"         file, neither --flash, --origin nor --log-dev: exit 2), refused\n"
"         and discarded as --flash; --quick: users 16,128,\n"
"         15 s steps, 10 s warm-up; --size MB limits the datafile;\n"
"         --cache-block KiB: fcache's block size (default 32, fcachectl's\n"
"         default; 16 matches a 16 KiB database page); dm-cache uses 32 KiB\n"
"         (its smallest), dm-writecache 4 KiB (--cache-block: a power of\n"
"         two, 4..1024).\n"
"         --price CONFIG=AMOUNT (repeatable; AMOUNT 0..1e12 in any currency,\n"
"         e.g. the cost of the disks and flash of that configuration) adds\n"
"         the price per TPS at the summary's user count to the report and\n"
"         to results.json.\n"
"         --rounds N (1..20, default 1) runs every configuration N times,\n"
"         in alternating order (baseline first in odd rounds, last in even\n"
"         ones) so that a drift in the machine's speed does not favour one\n"
"         configuration; the report and results.json then give per user\n"
"         count the median TPS and average response time over the rounds\n"
"         with their spread (min..max, (max-min) in % of the median), and\n"
"         the ratios to the baseline are ratios of the medians.\n"
"         --buffer-pool-sweep SIZES (2..8 sizes, each 0..1048576 MB, with M\n"
"         or G: 64M,256M,1G; not with --buffer-pool) runs the comparison at\n"
"         each buffer pool size (its report and files in DIR/bp-<size>),\n"
"         then prints a table (a row per size: the baseline's TPS at the\n"
"         heaviest user count, each cached configuration's TPS and its\n"
"         ratio) and one line answering \"more memory or fast flash?\" from\n"
"         the figures, e.g.\n"
"         advice: fast flash: fcache-writeback at 64M buffer pool gives 3.10x\n"
"           the TPS of baseline at 1G buffer pool (128 users)\n"
"         DIR/results.json holds the comparison at the smallest size and\n"
"         the sweep.\n"
"         Every run gives the origin's requests (reads and writes the origin\n"
"         device completed, from its sysfs counters; an md array's members\n"
"         too) per transaction, and those of the backlog written back.\n"
"         --trace CONFIGS (configurations, comma-separated, or all) records\n"
"         the block trace of their runs in DIR/trace-CONFIG[-ROUND].fct and\n"
"         compares the cache with the offline optimum of its trace (below):\n"
"         offline optimum (Belady MIN, 64 MiB flash) of <config>'s trace:\n"
"           read hit ratio <x>% (fill on miss) / <y>% (with bypass), <config>\n"
"           <h>%; least origin ops per txn <z> (a schedule reaches <s>);\n"
"           <config> <w> (distance <w/z>x)\n"
"         --max-io KiB (4..4096, a multiple of 4; default 256) the optimum's\n"
"         largest merged writeback.\n" },
	{ B_OPTIMUM, 0, 0,
"optimum  the offline optimum of a trace (run --trace, compare --trace): what\n"
"         an ideal cache of the same flash (--flash-size MB; the trace of a\n"
"         compare carries it) would do with the same request stream: the\n"
"         read hit ratio of Belady's MIN (every miss cached, or with bypass)\n"
"         and the least origin operations per transaction (a lower bound,\n"
"         and an offline schedule that reaches its own figure); the model\n"
"         is in docs/PERFORMANCE.md, \"The offline optimum\".\n" },
	{ B_PREPARE | B_RUN | B_COMPARE, 0, 1,
"prepare and compare overwrite their devices: they refuse a device in use\n"
"(mounted, held by RAID, LVM or a pool) or holding a filesystem, RAID, LVM,\n"
"swap, partition table or fcache pool signature, saying what they found;\n"
"--force overrides.  A device holding a datafile of an earlier prepare, or\n"
"the flash of an earlier compare, needs no --force.  So do run and compare\n"
"for --log-dev, which must also exist and be writable (exit 1), and be\n"
"neither the datafile's device nor a flash (exit 2), and compare for\n"
"--flash2, which must also exist (exit 1).\n"
"prepare, run and compare take a device or file only (a FIFO, a directory\n"
"is refused: exit 1), and one benchmark at a time on it: a datafile (or a\n"
"flash of compare) another benchmark uses is refused, naming its process\n"
"(exit 1); so is a second compare with cache configurations (their device\n"
"stacks are fcbench-*).  --json FILE and --output DIR are opened before the\n"
"run: a path that cannot be written fails at once (exit 1).\n" },
	{ B_RUN | B_COMPARE, 0, 0,
"SIGINT, SIGTERM or SIGHUP (a dropped SSH session; ignored with nohup)\n"
"during run or compare: the step in progress is left out,\n"
"the transactions in flight finish, the dirty pages are written and the\n"
"datafile is closed cleanly (no new prepare needed); the report and the JSON\n"
"of the steps done are written (\"interrupted\" says where it stopped), then\n"
"the process ends by the signal (status 130 / 143 / 129).  A second signal\n"
"kills at once.  A closed standard output (| head, a hung-up terminal) is\n"
"no signal: run --json and compare go on to their files (one line on\n"
"stderr says so); run without --json stops as on a signal (SIGPIPE,\n"
"status 141), the datafile closed cleanly.\n" },
	{ B_RUN | B_COMPARE, 0, 1,
"run options (numbers: finite decimals in the range given, whole where a\n"
"count is meant; any other value is refused with exit status 2):\n"
"  --profile P          tpcc-like (default), read-write, read-only; tpcc-like\n"
"                       is a page-count mix after TPC-C's transaction mix,\n"
"                       not TPC-C (`tpcc`, its old name, is still accepted)\n"
"  --users LIST         user counts of the ladder, up to 32 of 1..4096\n"
"                       (default 8,16,32,64,128)\n"
"  --time S             seconds per user count, 0.1..86400 (default 60;\n"
"                       --quick 15)\n"
"  --warmup S           warm-up seconds at the largest user count, 0..86400\n"
"                       (default 30)\n"
"  --report-interval S  interval line period, 0..86400 (default 10; 0: none)\n"
"  --rt-limit S         average response time limit, 0.001..3600 (default 2)\n"
"  --rt-search N        after the ladder, up to N extra steps (0..8, default 3\n"
"                       with think or keying time, else 0)\n"
"                       bisect the user counts between the largest count under\n"
"                       --rt-limit and the next one over it: \"users under the\n"
"                       limit\" is then finer than the ladder\n"
"  --think-time S       terminal model: each user thinks after a transaction,\n"
"                       exponentially, mean S seconds (at most 10 times S),\n"
"                       0..3600 (default 0: none, a closed loop); tpcc: TPC-C's\n"
"                       mean think time of each type (tpcc-like only)\n"
"  --keying-time S      terminal model: each user keys S seconds (fixed) before\n"
"                       a transaction, 0..3600 (default 0); tpcc: TPC-C's\n"
"                       keying time of each type (tpcc-like only)\n"
"  --terminals          --think-time tpcc --keying-time tpcc: TPC-C's terminals\n"
"                       (new-order 18 s keying, 12 s think; payment 3, 12;\n"
"                       order-status 2, 10; delivery and stock-level 2, 5);\n"
"                       a cycle takes ~20 s, so each user offers ~0.05 TPS.\n"
"                       With think or keying time, TPS and response time are\n"
"                       separate results: TPS <= users / (keying + think +\n"
"                       response time); the response time excludes both.\n"
"                       Without them (the default, as make demo runs) every\n"
"                       user submits its next transaction at once.\n"
"  --buffer-pool MB     in-process buffer pool, 0..1048576 (default 16; 0:\n"
"                       only what in-flight and dirty pages need)\n"
"  --dist D             access skew: zipf:THETA, 0 < THETA < 1.5, THETA != 1\n"
"                       (default zipf:0.99); pareto:H, 0 < H < 0.5 (1-H of\n"
"                       accesses to H of pages); hotset:ACCESS%:DATA%,\n"
"                       0 <= ACCESS <= 100, 0 < DATA < 100; uniform\n"
"  --seed N             random seed, 0..4294967295 (default 42)\n"
"  --cleaner-batch N    pages per page-cleaner batch, 1..1024 (default 64)\n"
"  --cleaner-interval S page cleaner period when few pages are dirty,\n"
"                       0..3600 (default 1)\n"
"  --log-dev DEV        the redo log on a device (or existing file) of its own,\n"
"                       a ring over its first 64 MiB at most (at least 64 KiB),\n"
"                       as DBAs put redo on its own disk; in compare the same\n"
"                       device, not cached, for every configuration (default:\n"
"                       the datafile's log region, on the volume measured)\n"
"  --group-commit on|off  on: the commits waiting share one redo write (their\n"
"                       records concatenated, at most 64 = 256 KiB) with one\n"
"                       RWF_DSYNC, one write in flight, as InnoDB's log writer;\n"
"                       the report gives the records per write.  off (default,\n"
"                       the figures of earlier runs): one write per commit\n"
"  --trace FILE         (run) record the block trace of the run in FILE: one\n"
"                       record per I/O to the datafile's device and per commit\n"
"  --no-direct          buffered I/O (for files on filesystems without O_DIRECT)\n"
"  --quiet              no interval lines\n"
"  --inject-stale S     test hook: S seconds into the run, write an older\n"
"                       version of a page behind the generator's back (the\n"
"                       run must then fail its integrity check)\n" },
	{ B_ALL, 0, 0,
"exit status: 0 ok, 1 failed (I/O or integrity error, or a device refused),\n"
"2 usage (a bad option or value); stopped by a signal: see above\n" },
};

enum {
	O_PROFILE = 256, O_USERS, O_TIME, O_WARMUP, O_INTERVAL, O_RTLIMIT, O_BP,
	O_DIST, O_SEED, O_CBATCH, O_CINTERVAL, O_NODIRECT, O_QUIET, O_INJECT,
	O_JSON, O_LABEL, O_SIZE, O_PAGESIZE, O_LOGSIZE, O_ORIGIN, O_FLASH,
	O_ANCHORS, O_QUICK, O_OUTPUT, O_HELP, O_CONFIGS, O_CBLOCK, O_ROUNDS, O_FORCE,
	O_THINK, O_KEYING, O_TERMINALS, O_RTSEARCH, O_PRICE, O_LOGDEV, O_GROUP,
	O_BPSWEEP, O_FLASH2, O_TRACE, O_MAXIO, O_FLASHSIZE,
};

static const struct option lopts[] = {
	{ "profile", 1, 0, O_PROFILE }, { "users", 1, 0, O_USERS },
	{ "time", 1, 0, O_TIME }, { "warmup", 1, 0, O_WARMUP },
	{ "report-interval", 1, 0, O_INTERVAL }, { "rt-limit", 1, 0, O_RTLIMIT },
	{ "buffer-pool", 1, 0, O_BP }, { "dist", 1, 0, O_DIST },
	{ "seed", 1, 0, O_SEED }, { "cleaner-batch", 1, 0, O_CBATCH },
	{ "cleaner-interval", 1, 0, O_CINTERVAL }, { "no-direct", 0, 0, O_NODIRECT },
	{ "quiet", 0, 0, O_QUIET }, { "inject-stale", 1, 0, O_INJECT },
	{ "json", 1, 0, O_JSON }, { "label", 1, 0, O_LABEL },
	{ "size", 1, 0, O_SIZE }, { "page-size", 1, 0, O_PAGESIZE },
	{ "log-size", 1, 0, O_LOGSIZE }, { "origin", 1, 0, O_ORIGIN },
	{ "flash", 1, 0, O_FLASH }, { "anchors", 0, 0, O_ANCHORS },
	{ "quick", 0, 0, O_QUICK }, { "output", 1, 0, O_OUTPUT },
	{ "configs", 1, 0, O_CONFIGS }, { "help", 0, 0, O_HELP },
	{ "cache-block", 1, 0, O_CBLOCK }, { "rounds", 1, 0, O_ROUNDS },
	{ "force", 0, 0, O_FORCE }, { "think-time", 1, 0, O_THINK },
	{ "keying-time", 1, 0, O_KEYING }, { "terminals", 0, 0, O_TERMINALS },
	{ "rt-search", 1, 0, O_RTSEARCH }, { "price", 1, 0, O_PRICE },
	{ "log-dev", 1, 0, O_LOGDEV }, { "group-commit", 1, 0, O_GROUP },
	{ "buffer-pool-sweep", 1, 0, O_BPSWEEP }, { "flash2", 1, 0, O_FLASH2 },
	{ "trace", 1, 0, O_TRACE }, { "max-io", 1, 0, O_MAXIO },
	{ "flash-size", 1, 0, O_FLASHSIZE },
	{ 0, 0, 0, 0 },
};

static int cur_verb = -1;	/* index in verbs[] of the verb given, -1: none or unknown */

/* The usage of the verbs of @mask on @f. */
static void print_usage(FILE *f, unsigned int mask)
{
	size_t i;
	int first = 1, text = 0;

	for (i = 0; i < sizeof(usage_secs) / sizeof(usage_secs[0]); i++) {
		const struct usage_sec *u = &usage_secs[i];

		if (!(u->verbs & mask))
			continue;
		if (u->synopsis) {
			fprintf(f, "%s%s", first ? "usage: fcachectl bench " : "       fcachectl bench ",
				u->text);
			first = 0;
			continue;
		}
		if (u->para || !text)
			fputc('\n', f);
		text = 1;
		fputs(u->text, f);
	}
}

void bench_set_verb(const char *verb)
{
	size_t i;

	cur_verb = -1;
	for (i = 0; verb && i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verb, verbs[i]))
			cur_verb = (int)i;
}

int bench_usage(const char *fmt, const char *arg)
{
	if (!fmt) {
		/* bench VERB --help: that verb's usage; bench --help: all */
		print_usage(stdout, cur_verb < 0 ? B_ALL : 1u << cur_verb);
		return EXIT_OK;
	}
	/* an error is one line and where to read more, not the whole text */
	fc_err(BENCH_CLI, fmt, arg);
	if (cur_verb < 0)
		fprintf(stderr, "Try '%s --help'.\n", BENCH_CLI);
	else
		fprintf(stderr, "Try '%s %s --help'.\n", BENCH_CLI, verbs[cur_verb]);
	return EXIT_USAGE;
}

/*
 * The numeric options: every value goes through fc_parse_num (finite, the
 * whole word, in range, whole where a count is meant), so that no "nan",
 * "1e300" or "16.9" reaches the engine, where a NaN time never ends a step
 * and a NaN batch size asks for a huge allocation.
 */
struct num_opt {
	int opt;
	const char *name;
	double min, max;
	int integer, pow2;
	const char *what;	/* the accepted values, for the message */
};

static const struct num_opt num_opts[] = {
	{ O_TIME, "time", 0.1, 86400, 0, 0, "seconds per user count" },
	{ O_WARMUP, "warmup", 0, 86400, 0, 0, "seconds" },
	{ O_INTERVAL, "report-interval", 0, 86400, 0, 0, "seconds" },
	{ O_RTLIMIT, "rt-limit", 0.001, 3600, 0, 0, "seconds" },
	{ O_BP, "buffer-pool", 0, BENCH_BP_MAX, 0, 0, "MB" },
	{ O_SEED, "seed", 0, 4294967295.0, 1, 0, "a whole number" },
	{ O_CBATCH, "cleaner-batch", 1, 1024, 1, 0, "a whole number of pages" },
	{ O_CINTERVAL, "cleaner-interval", 0, 3600, 0, 0, "seconds" },
	{ O_INJECT, "inject-stale", 0, 86400, 0, 0, "seconds" },
	{ O_SIZE, "size", 0, 16777216, 1, 0, "a whole number of MB" },
	{ O_PAGESIZE, "page-size", 4, 64, 1, 1, "KiB, a power of two" },
	{ O_LOGSIZE, "log-size", 0, 64, 1, 0, "a whole number of MB" },
	{ O_CBLOCK, "cache-block", 4, 1024, 1, 1, "KiB, a power of two" },
	{ O_ROUNDS, "rounds", 1, BENCH_MAX_ROUNDS, 1, 0,
	  "a whole number of runs per configuration" },
	{ O_THINK, "think-time", 0, 3600, 0, 0, "seconds, or tpcc" },
	{ O_KEYING, "keying-time", 0, 3600, 0, 0, "seconds, or tpcc" },
	{ O_RTSEARCH, "rt-search", 0, BENCH_MAX_SEARCH, 1, 0, "a whole number of extra steps" },
	{ O_MAXIO, "max-io", 4, 4096, 1, 0, "KiB, a multiple of 4" },
	{ O_FLASHSIZE, "flash-size", 0.004, 16777216, 0, 0, "MiB" },
};

/* One line, no usage text: the value, what is accepted, and nothing to scroll past. */
static int bad_value(const char *opt, const char *val, const char *what, double min,
		     double max)
{
	fc_err(BENCH_CLI, "bad --%s '%s' (%s, %.15g..%.15g)", opt, val,
		what, min, max);
	return EXIT_USAGE;
}

static const struct num_opt *num_opt_of(int opt)
{
	size_t i;

	for (i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++)
		if (num_opts[i].opt == opt)
			return &num_opts[i];
	return NULL;
}

/* 0 and the value in *@v, or EXIT_USAGE (said). */
static int num_arg(const struct num_opt *n, const char *a, double *v)
{
	if (fc_parse_num(a, n->min, n->max, n->integer, v) ||
	    (n->pow2 && ((unsigned)*v & ((unsigned)*v - 1))) ||
	    (n->opt == O_MAXIO && (unsigned)*v % 4))
		return bad_value(n->name, a, n->what, n->min, n->max);
	return 0;
}

/* --users: comma-separated whole numbers; 0, or EXIT_USAGE (said). */
int bench_parse_users(struct bench_opts *o, const char *s)
{
	const char *p = s;
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		char item[32];
		double v;

		if (n >= BENCH_MAX_STEPS) {
			fc_err(BENCH_CLI, "bad --users '%s' (at most %d user "
				"counts, each 1..4096)", s, BENCH_MAX_STEPS);
			return EXIT_USAGE;
		}
		snprintf(item, sizeof(item), "%.*s", (int)(len < 31 ? len : 31), p);
		if (len > 31 || fc_parse_num(item, 1, 4096, 1, &v)) {
			fc_err(BENCH_CLI, "bad --users '%s': item '%.*s' is not "
				"a whole number of users, 1..4096", s, (int)len, p);
			return EXIT_USAGE;
		}
		o->users[n++] = (int)v;
		if (!p[len])
			break;
		p += len + 1;
	}
	o->nsteps = n;
	return 0;
}

int bench_parse_price(struct bench_opts *o, const char *s)
{
	static const char *const cfgs[] = { "baseline", "fcache-writeback", "dm-cache",
					    "dm-writecache", "fcache-mirrored",
					    "dm-writecache-raid1", "dm-cache-raid1" };
	const char *eq = strchr(s, '=');
	size_t i, len = eq ? (size_t)(eq - s) : 0;
	double v;
	int k;

	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		if (len == strlen(cfgs[i]) && !strncmp(s, cfgs[i], len))
			break;
	if (!eq || i == sizeof(cfgs) / sizeof(cfgs[0]) ||
	    fc_parse_num(eq + 1, 0, BENCH_PRICE_MAX, 0, &v)) {
		fc_err(BENCH_CLI, "bad --price '%s' (CONFIG=AMOUNT: baseline, fcache-writeback, "
			"fcache-mirrored, dm-cache, dm-writecache, dm-writecache-raid1 or "
			"dm-cache-raid1, and an amount 0..%g)", s, BENCH_PRICE_MAX);
		return EXIT_USAGE;
	}
	for (k = 0; k < o->nprice && strcmp(o->price_cfg[k], cfgs[i]); k++)
		;
	if (k == o->nprice)	/* a configuration priced twice: the last price */
		o->nprice++;
	snprintf(o->price_cfg[k], sizeof(o->price_cfg[k]), "%s", cfgs[i]);
	o->price[k] = v;
	return 0;
}

int bench_parse_sweep(struct bench_cli *c, const char *s)
{
	const char *p = s;
	int n = 0, i, j;

	for (;;) {
		size_t len = strcspn(p, ",");
		char item[32];
		double v, mul = 1;

		if (n >= BENCH_MAX_SWEEP || !len || len >= sizeof(item))
			goto bad;
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		if (item[len - 1] == 'G' || item[len - 1] == 'g')
			mul = 1024;
		if (mul > 1 || item[len - 1] == 'M' || item[len - 1] == 'm')
			item[len - 1] = 0;
		if (fc_parse_num(item, 0, BENCH_BP_MAX / mul, 0, &v))
			goto bad;
		v *= mul;
		for (j = 0; j < n; j++)
			if (c->sweep_mb[j] == v)
				goto bad;
		c->sweep_mb[n++] = v;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (n < 2)
		goto bad;
	for (i = 1; i < n; i++)	/* in increasing order */
		for (j = i; j > 0 && c->sweep_mb[j - 1] > c->sweep_mb[j]; j--) {
			double t = c->sweep_mb[j];

			c->sweep_mb[j] = c->sweep_mb[j - 1];
			c->sweep_mb[j - 1] = t;
		}
	c->nsweep = n;
	return 0;
bad:
	fc_err(BENCH_CLI, "bad --buffer-pool-sweep '%s' (2..%d different buffer pool sizes, "
		"each 0..%d MB: a number with M or G, as 64M,256M,1G)", s, BENCH_MAX_SWEEP,
		(int)BENCH_BP_MAX);
	return EXIT_USAGE;
}

/* A number of --dist after its "kind:", up to the next ':' or the end. */
static int dist_num(const char **p, double min, double max, double *v)
{
	size_t len = strcspn(*p, ":");
	char buf[32];

	if (len >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, *p);
	*p += len;
	return fc_parse_num(buf, min, max, 0, v);
}

/* --dist; 0, or EXIT_USAGE (said, with the form of the kind given). */
static int parse_dist(struct bench_opts *o, const char *s)
{
	const char *p = strchr(s, ':');
	double a = 0, b = 0;
	const char *form;

	strncpy(o->dist_str, s, sizeof(o->dist_str) - 1);
	if (!strcmp(s, "uniform")) {
		o->dist = DIST_UNIFORM;
		return 0;
	}
	if (p && !strncmp(s, "zipf:", 5)) {
		p++;
		/* 1 is the pole of the generator's 1 / (1 - theta) */
		if (!dist_num(&p, 0, 1.5, &a) && !*p && a > 0 && a < 1.5 && a != 1.0) {
			o->dist = DIST_ZIPF;
			o->dist_a = a;
			return 0;
		}
		form = "zipf:THETA, 0 < THETA < 1.5, THETA != 1";
	} else if (p && !strncmp(s, "pareto:", 7)) {
		p++;
		if (!dist_num(&p, 0, 0.5, &a) && !*p && a > 0 && a < 0.5) {
			o->dist = DIST_PARETO;
			o->dist_a = a;
			return 0;
		}
		form = "pareto:H, 0 < H < 0.5";
	} else if (p && !strncmp(s, "hotset:", 7)) {
		p++;
		if (!dist_num(&p, 0, 100, &a) && *p++ == ':' &&
		    !dist_num(&p, 0, 100, &b) && !*p && b > 0 && b < 100) {
			o->dist = DIST_HOTSET;
			o->dist_a = a;
			o->dist_b = b;
			return 0;
		}
		form = "hotset:ACCESS%:DATA%, 0 <= ACCESS <= 100, 0 < DATA < 100";
	} else {
		form = "uniform, zipf:THETA, pareto:H or hotset:ACCESS%:DATA%";
	}
	fc_err(BENCH_CLI, "bad --dist '%s' (%s)", s, form);
	return EXIT_USAGE;
}

/* TPC-C's times (tpcc, --terminals) are those of a profile that has them. */
static int check_times(const struct bench_opts *o)
{
	const struct bench_profile *p = bench_profile_find(o->profile);

	if ((o->think_s == BENCH_TIME_PROFILE || o->keying_s == BENCH_TIME_PROFILE) &&
	    !bench_profile_has_times(p)) {
		fc_err(BENCH_CLI, "TPC-C's keying and think times (--terminals, "
			"--think-time tpcc, --keying-time tpcc) are those of the "
			"tpcc-like profile, not of %s; give seconds", p->name);
		return EXIT_USAGE;
	}
	return 0;
}

int bench_parse(struct bench_cli *c, int argc, char **argv, char **pos, int *npos)
{
	struct bench_opts *o = &c->o;
	double v;
	int opt;

	memset(c, 0, sizeof(*c));
	o->profile = "tpcc-like";
	bench_parse_users(o, "8,16,32,64,128");
	o->time_s = 60;
	o->warmup_s = 30;
	o->interval_s = 10;
	o->rt_limit_s = 2;
	o->rt_search = -1;	/* default: see below */
	o->bp_mb = 16;
	parse_dist(o, "zipf:0.99");
	o->seed = 42;
	o->cleaner_batch = 64;
	o->cleaner_interval_s = 1;
	o->direct = 1;
	o->inject_stale_s = -1;
	o->out = stdout;
	o->rounds = 1;
	o->opt_max_io = BENCH_OPT_MAX_IO;
	c->page_kib = 16;
	c->cblock_kib = 32;	/* fcachectl's default pool block */
	*npos = 0;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		const char *a = optarg;

		switch (opt) {
		case O_PROFILE:
			if (!bench_profile_find(a))
				return bench_usage("unknown profile '%s' (tpcc-like, read-write, "
						   "read-only)", a);
			if (!strcmp(a, BENCH_PROFILE_ALIAS))
				fprintf(stderr, "%s: note: profile '%s' is called 'tpcc-like' now "
					"(a page-count mix after TPC-C's, not TPC-C)\n", BENCH_CLI, a);
			o->profile = bench_profile_find(a)->name;
			break;
		case O_USERS:
			if (bench_parse_users(o, a))
				return EXIT_USAGE;
			c->users_set = 1;
			break;
		case O_DIST:
			if (parse_dist(o, a))
				return EXIT_USAGE;
			break;
		case O_NODIRECT: o->direct = 0; break;
		case O_QUIET: o->quiet = 1; break;
		case O_JSON: c->json = a; break;
		case O_LABEL: c->label = a; break;
		case O_ORIGIN: c->origin = a; break;
		case O_FLASH: c->flash = a; break;
		case O_FLASH2:
			if (!*a) {
				fc_err(BENCH_CLI, "bad --flash2 '' (a device or file)");
				return EXIT_USAGE;
			}
			c->flash2 = a;
			break;
		case O_ANCHORS: c->anchors = 1; break;
		case O_QUICK: c->quick = 1; break;
		case O_FORCE: c->force = 1; break;
		case O_OUTPUT: c->output = a; break;
		case O_PRICE:
			if (bench_parse_price(o, a))
				return EXIT_USAGE;
			c->price_set = 1;
			break;
		case O_TERMINALS:
			o->think_s = o->keying_s = BENCH_TIME_PROFILE;
			break;
		case O_CONFIGS: c->configs = a; break;
		case O_LOGDEV:
			if (!*a) {
				fc_err(BENCH_CLI, "bad --log-dev '' (a device or file)");
				return EXIT_USAGE;
			}
			o->log_dev = a;
			break;
		case O_GROUP:
			if (strcmp(a, "on") && strcmp(a, "off")) {
				fc_err(BENCH_CLI, "bad --group-commit '%s' (on or off)", a);
				return EXIT_USAGE;
			}
			o->group_commit = !strcmp(a, "on");
			break;
		case O_BPSWEEP:
			if (bench_parse_sweep(c, a))
				return EXIT_USAGE;
			break;
		case O_TRACE:
			if (!*a) {
				fc_err(BENCH_CLI, "bad --trace '' (run: a file; compare: "
					"configurations, or all)");
				return EXIT_USAGE;
			}
			c->trace = a;
			break;
		case 'h':
		case O_HELP:
			bench_usage(NULL, NULL);
			return -1;
		case '?':
			return bench_usage("unknown or incomplete option '%s'", argv[optind - 1]);
		default:
			if ((opt == O_THINK || opt == O_KEYING) && !strcmp(a, "tpcc")) {
				*(opt == O_THINK ? &o->think_s : &o->keying_s) = BENCH_TIME_PROFILE;
				break;
			}
			if (!num_opt_of(opt) || num_arg(num_opt_of(opt), a, &v))
				return EXIT_USAGE;
			switch (opt) {
			case O_TIME: o->time_s = v; c->time_set = 1; break;
			case O_WARMUP: o->warmup_s = v; c->warm_set = 1; break;
			case O_INTERVAL: o->interval_s = v; break;
			case O_RTLIMIT: o->rt_limit_s = v; break;
			case O_BP: o->bp_mb = v; c->bp_set = 1; break;
			case O_SEED: o->seed = (uint64_t)v; break;
			case O_CBATCH: o->cleaner_batch = (int)v; break;
			case O_CINTERVAL: o->cleaner_interval_s = v; break;
			case O_INJECT: o->inject_stale_s = v; break;
			case O_SIZE: c->size_mb = v; break;
			case O_PAGESIZE: c->page_kib = (unsigned)v; break;
			case O_LOGSIZE: c->log_mb = v; break;
			case O_CBLOCK: c->cblock_kib = (unsigned)v; break;
			case O_ROUNDS: o->rounds = (int)v; c->rounds_set = 1; break;
			case O_THINK: o->think_s = v; break;
			case O_KEYING: o->keying_s = v; break;
			case O_RTSEARCH: o->rt_search = (int)v; break;
			case O_MAXIO: o->opt_max_io = (uint32_t)v * 1024; c->maxio_set = 1; break;
			case O_FLASHSIZE: c->flash_size_mb = v; break;
			}
		}
	}
	while (optind < argc && *npos < 4)
		pos[(*npos)++] = argv[optind++];
	if (optind < argc)
		return bench_usage("too many arguments ('%s')", argv[optind]);
	if (o->interval_s <= 0)
		o->interval_s = 1e9;
	/*
	 * The search for the users served under --rt-limit is what a
	 * terminal-model run is for (Dell's figure); a closed loop without
	 * think time (the demo, sysbench) runs its ladder only unless asked.
	 */
	if (o->rt_search < 0)
		o->rt_search = o->think_s || o->keying_s ? 3 : 0;
	return check_times(o);
}
