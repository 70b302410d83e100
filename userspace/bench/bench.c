// SPDX-License-Identifier: GPL-2.0
/*
 * `fcachectl bench`: command line of the OLTP benchmark mode and the
 * prepare / run / compare verbs.  The engine is in bench_gen.c, reports in
 * bench_stats.c, cache stacks in bench_stack.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "bench_int.h"
#include "bench_stack.h"
#include "fc_check.h"
#include "fc_probe.h"

static const char usage_text[] =
"usage: fcachectl bench prepare DEV [--size MB] [--page-size KiB] [--log-size MB]\n"
"                               [--force]\n"
"       fcachectl bench run DEV [RUN OPTIONS] [--json FILE] [--label NAME]\n"
"       fcachectl bench compare --origin DEV --flash DEV [--anchors] [--quick]\n"
"                               [--output DIR] [--size MB] [--configs LIST]\n"
"                               [--cache-block KiB] [--rounds N] [--force]\n"
"                               [RUN OPTIONS]\n"
"\n"
"prepare  lays a datafile out on DEV (a block device, or a file: --size\n"
"         creates it): every page carries a checksum, its page number and a\n"
"         version; a version map and a redo log region follow.\n"
"         --size MB (whole number, 0..16777216; 0: all of DEV) creates or\n"
"         resizes a file; --page-size KiB 4, 8, 16 (default), 32 or 64;\n"
"         --log-size MB (0..64; 0: 1/16 of DEV, at most 64).\n"
"run      warm-up, then a ladder of user counts; an interval line every\n"
"         --report-interval seconds, then a table per user count (TPS,\n"
"         average, p95, p99 response time) and the largest user count whose\n"
"         average response time stays under --rt-limit.  Every page read is\n"
"         verified; a wrong or stale page fails the run (exit 1).\n"
"compare  prepares the datafile on the origin and runs the same workload\n"
"         (same seed, same data state, same warm-up) on: baseline (the bare\n"
"         origin), fcache-writeback (fcache pool on the flash), and with\n"
"         --anchors dm-cache (smq, writeback) and dm-writecache (ssd mode);\n"
"         prints the ratios, writes results.json and chart.svg to --output\n"
"         (default .), and ends with one line per configuration:\n"
"         summary <config>: TPS <r>x baseline, avg response time <r>x baseline at <n> users\n"
"         --configs LIST picks the configurations run after the baseline\n"
"         (fcache-writeback,dm-cache,dm-writecache); --quick: users 16,128,\n"
"         15 s steps, 10 s warm-up; --size MB limits the datafile;\n"
"         --cache-block KiB: fcache's block size (default 32, fcachectl's\n"
"         default; 16 matches a 16 KiB database page); dm-cache uses 32 KiB\n"
"         (its smallest), dm-writecache 4 KiB (--cache-block: a power of\n"
"         two, 4..1024).\n"
"         --rounds N (1..20, default 1) runs every configuration N times,\n"
"         in alternating order (baseline first in odd rounds, last in even\n"
"         ones) so that a drift in the machine's speed does not favour one\n"
"         configuration; the report and results.json then give per user\n"
"         count the median TPS and average response time over the rounds\n"
"         with their spread (min..max, (max-min) in % of the median), and\n"
"         the ratios to the baseline are ratios of the medians.\n"
"\n"
"prepare and compare overwrite their devices: they refuse a device in use\n"
"(mounted, held by RAID, LVM or a pool) or holding a filesystem, RAID, LVM,\n"
"swap, partition table or fcache pool signature, saying what they found;\n"
"--force overrides.  A device holding a datafile of an earlier prepare, or\n"
"the flash of an earlier compare, needs no --force.\n"
"SIGINT or SIGTERM during run or compare: the step in progress is left out,\n"
"the transactions in flight finish, the dirty pages are written and the\n"
"datafile is closed cleanly (no new prepare needed); the report and the JSON\n"
"of the steps done are written (\"interrupted\" says where it stopped), then\n"
"the process ends by the signal (status 130 / 143).  A second signal kills\n"
"at once.\n"
"\n"
"run options (numbers: finite decimals in the range given, whole where a\n"
"count is meant; any other value is refused with exit status 2):\n"
"  --profile P          tpcc (default), read-write, read-only\n"
"  --users LIST         user counts of the ladder, up to 32 of 1..4096\n"
"                       (default 8,16,32,64,128)\n"
"  --time S             seconds per user count, 0.1..86400 (default 60;\n"
"                       --quick 15)\n"
"  --warmup S           warm-up seconds at the largest user count, 0..86400\n"
"                       (default 30)\n"
"  --report-interval S  interval line period, 0..86400 (default 10; 0: none)\n"
"  --rt-limit S         average response time limit, 0.001..3600 (default 2)\n"
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
"  --no-direct          buffered I/O (for files on filesystems without O_DIRECT)\n"
"  --quiet              no interval lines\n"
"  --inject-stale S     test hook: S seconds into the run, write an older\n"
"                       version of a page behind the generator's back (the\n"
"                       run must then fail its integrity check)\n"
"exit status: 0 ok, 1 failed (I/O or integrity error, or a device refused),\n"
"2 usage (a bad option or value); stopped by a signal: see above\n";

enum {
	O_PROFILE = 256, O_USERS, O_TIME, O_WARMUP, O_INTERVAL, O_RTLIMIT, O_BP,
	O_DIST, O_SEED, O_CBATCH, O_CINTERVAL, O_NODIRECT, O_QUIET, O_INJECT,
	O_JSON, O_LABEL, O_SIZE, O_PAGESIZE, O_LOGSIZE, O_ORIGIN, O_FLASH,
	O_ANCHORS, O_QUICK, O_OUTPUT, O_HELP, O_CONFIGS, O_CBLOCK, O_ROUNDS, O_FORCE,
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
	{ "force", 0, 0, O_FORCE },
	{ 0, 0, 0, 0 },
};

struct cli {
	struct bench_opts o;
	const char *json, *label, *origin, *flash, *output, *configs;
	double size_mb, log_mb;
	unsigned page_kib, cblock_kib;
	int anchors, quick, time_set, warm_set, users_set, rounds_set, force;
};

static int usage(const char *fmt, const char *arg)
{
	if (fmt)
		fc_err(BENCH_CLI, fmt, arg);
	fputs(usage_text, fmt ? stderr : stdout);
	return fmt ? EXIT_USAGE : EXIT_OK;
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
	{ O_BP, "buffer-pool", 0, 1048576, 0, 0, "MB" },
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
	    (n->pow2 && ((unsigned)*v & ((unsigned)*v - 1))))
		return bad_value(n->name, a, n->what, n->min, n->max);
	return 0;
}

/* --users: comma-separated whole numbers; 0, or EXIT_USAGE (said). */
static int parse_users(struct bench_opts *o, const char *s)
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

static int parse(struct cli *c, int argc, char **argv, char **pos, int *npos)
{
	struct bench_opts *o = &c->o;
	double v;
	int opt;

	memset(c, 0, sizeof(*c));
	o->profile = "tpcc";
	parse_users(o, "8,16,32,64,128");
	o->time_s = 60;
	o->warmup_s = 30;
	o->interval_s = 10;
	o->rt_limit_s = 2;
	o->bp_mb = 16;
	parse_dist(o, "zipf:0.99");
	o->seed = 42;
	o->cleaner_batch = 64;
	o->cleaner_interval_s = 1;
	o->direct = 1;
	o->inject_stale_s = -1;
	o->out = stdout;
	o->rounds = 1;
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
				return usage("unknown profile '%s' (tpcc, read-write, read-only)", a);
			o->profile = a;
			break;
		case O_USERS:
			if (parse_users(o, a))
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
		case O_ANCHORS: c->anchors = 1; break;
		case O_QUICK: c->quick = 1; break;
		case O_FORCE: c->force = 1; break;
		case O_OUTPUT: c->output = a; break;
		case O_CONFIGS: c->configs = a; break;
		case 'h':
		case O_HELP:
			usage(NULL, NULL);
			return -1;
		case '?':
			return usage("unknown or incomplete option '%s'", argv[optind - 1]);
		default:
			if (!num_opt_of(opt) || num_arg(num_opt_of(opt), a, &v))
				return EXIT_USAGE;
			switch (opt) {
			case O_TIME: o->time_s = v; c->time_set = 1; break;
			case O_WARMUP: o->warmup_s = v; c->warm_set = 1; break;
			case O_INTERVAL: o->interval_s = v; break;
			case O_RTLIMIT: o->rt_limit_s = v; break;
			case O_BP: o->bp_mb = v; break;
			case O_SEED: o->seed = (uint64_t)v; break;
			case O_CBATCH: o->cleaner_batch = (int)v; break;
			case O_CINTERVAL: o->cleaner_interval_s = v; break;
			case O_INJECT: o->inject_stale_s = v; break;
			case O_SIZE: c->size_mb = v; break;
			case O_PAGESIZE: c->page_kib = (unsigned)v; break;
			case O_LOGSIZE: c->log_mb = v; break;
			case O_CBLOCK: c->cblock_kib = (unsigned)v; break;
			case O_ROUNDS: o->rounds = (int)v; c->rounds_set = 1; break;
			}
		}
	}
	while (optind < argc && *npos < 4)
		pos[(*npos)++] = argv[optind++];
	if (optind < argc)
		return usage("too many arguments ('%s')", argv[optind]);
	if (o->interval_s <= 0)
		o->interval_s = 1e9;
	return 0;
}

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

/*
 * SIGINT and SIGTERM stop run and compare cleanly: the step in progress is
 * left out, the users finish their transactions, the page cleaner writes
 * the dirty pages and the datafile is closed clean (the next run needs no
 * prepare), then the report of what was measured is written.  SA_RESETHAND:
 * a second signal kills at once, for a device that no longer answers.
 */
static void catch_stop(struct bench_opts *o)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o->stop = &stop_sig;
}

/* After the report: die of the signal, so that a calling shell or loop sees it. */
static void reraise_stop(void)
{
	if (!stop_sig)
		return;
	fflush(NULL);
	signal(stop_sig, SIG_DFL);
	raise(stop_sig);
}

/*
 * May prepare or compare overwrite @dev?  Not a block device someone holds
 * (O_EXCL: mounted, an active RAID or LVM member, a pool), nor one that
 * carries a signature libblkid knows or an fcache pool, unless --force:
 * the benchmark writes all of it.  Our own header (a datafile, the flash of
 * an earlier compare) is no reason to refuse, or runs could not be
 * repeated; a path that does not exist is a file prepare --size creates.
 * 0, or EXIT_FAIL (said).
 */
static int guard(const char *dev, int force)
{
	char what[160];
	uint32_t bs;
	int fd, sig;

	if (force)
		return 0;
	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		fc_err(BENCH_CLI, "%s: %s%s", dev, strerror(errno),
			errno == EBUSY ? " (in use: mounted, or held by another device or "
			"pool); --force overrides" : "");
		return EXIT_FAIL;
	}
	if (bench_own_header(fd)) {
		close(fd);
		return 0;
	}
	if (fc_probe_pool(fd, &bs)) {
		snprintf(what, sizeof(what), "an fcache pool");
		sig = 1;
	} else {
		sig = fc_probe_signatures(fd, what, sizeof(what), 0);
	}
	close(fd);
	if (sig < 0)
		fc_err(BENCH_CLI, "cannot probe %s for signatures; --force "
			"overrides", dev);
	else if (sig)
		fc_err(BENCH_CLI, "%s holds %s; the benchmark would overwrite "
			"it (--force overrides)", dev, what);
	return sig ? EXIT_FAIL : 0;
}

static int cmd_prepare(struct cli *c, char **pos, int npos)
{
	if (npos != 1)
		return usage("prepare needs one device or file%s", "");
	if (guard(pos[0], c->force))
		return EXIT_FAIL;
	return bench_prepare(pos[0], c->size_mb, c->page_kib, c->log_mb,
			     c->o.direct, 0) ? EXIT_FAIL : EXIT_OK;
}

static void header(FILE *f, const struct bench_opts *o, const char *what)
{
	const struct bench_profile *p = bench_profile_find(o->profile);
	int i;

	fprintf(f, "fcachectl bench %s: profile %s (%s)\n", what, p->name, p->desc);
	fprintf(f, "access skew %s, seed %llu, warm-up %.0f s, %.0f s per user count, "
		"users", o->dist_str, (unsigned long long)o->seed, o->warmup_s, o->time_s);
	for (i = 0; i < o->nsteps; i++)
		fprintf(f, "%s%d", i ? "," : " ", o->users[i]);
	fprintf(f, ", response time limit %.3g s\n", o->rt_limit_s);
	fflush(f);
}

static char *command_line(int argc, char **argv)
{
	size_t n = 32;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = malloc(n);
	strcpy(s, "fcachectl");
	for (i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int cmd_run(struct cli *c, char **pos, int npos, int argc, char **argv)
{
	struct bench_result *r;
	int ret;

	if (npos != 1)
		return usage("run needs one device or file%s", "");
	r = calloc(1, sizeof(*r));
	snprintf(r->config, sizeof(r->config), "%s", c->label ? c->label : "run");
	c->o.label = c->label ? c->label : "";
	catch_stop(&c->o);
	header(stdout, &c->o, "run");
	ret = bench_run(pos[0], &c->o, r);
	if (r->nsteps)
		bench_print_table(stdout, r, c->o.rt_limit_s);
	if (c->json) {
		char *cmd = command_line(argc, argv);

		if (bench_write_json(c->json, &c->o, r, 1, NULL, cmd))
			ret = 1;
		free(cmd);
	}
	if (ret == BENCH_RUN_STOPPED)
		fc_err(BENCH_CLI, "run %s; the datafile is closed cleanly",
			r->stopped);
	else if (ret)
		fc_err(BENCH_CLI, "run FAILED%s%s",
			r->error[0] ? ": " : "", r->error);
	free(r->final_ver);
	free(r);
	return ret ? EXIT_FAIL : EXIT_OK;
}

/*
 * Runs one configuration (of @rounds); 0 ok, 1 skipped (no stack),
 * BENCH_RUN_STOPPED stopped by a signal (the datafile closed cleanly), -1 failed.
 */
static int compare_one(struct cli *c, const char *cfg, int round, int rounds,
		       struct bench_result *x)
{
	char top[512], st[1024];
	int rc;

	if (rounds > 1)
		printf("\n=== %s (round %d of %d)\n", cfg, round + 1, rounds);
	else
		printf("\n=== %s\n", cfg);
	fflush(stdout);
	if (bench_stack_up(cfg, c->origin, c->flash, c->cblock_kib * 2, top, sizeof(top)) < 0) {
		printf("%s: SKIPPED (the stack could not be built; see above)\n", cfg);
		return 1;
	}
	snprintf(x->config, sizeof(x->config), "%s", cfg);
	c->o.label = cfg;
	rc = bench_run(top, &c->o, x);
	bench_stack_status(cfg, st, sizeof(st));
	if (st[0])
		printf("%s status: %s\n", cfg, st);
	bench_stack_counters(cfg, x->counters, sizeof(x->counters));
	if (x->counters[0])
		printf("%s counters: %s\n", cfg, x->counters);
	bench_stack_cleanup();
	if (strcmp(cfg, "baseline"))
		bench_mark_flash(c->flash);
	if (x->nsteps)
		bench_print_table(stdout, x, c->o.rt_limit_s);
	if (rc == BENCH_RUN_STOPPED) {
		fc_err(BENCH_CLI, "%s: %s", cfg, x->stopped);
		return rc;
	}
	if (rc) {
		fc_err(BENCH_CLI, "%s FAILED: %s", cfg,
			x->error[0] ? x->error : "see above");
		return -1;
	}
	return 0;
}

static int cmd_compare(struct cli *c, int argc, char **argv)
{
	const char *all[] = { "baseline", "fcache-writeback", "dm-cache", "dm-writecache" };
	const char *cfg[BENCH_MAX_CONFIGS];
	char json[1024], svg[1024];
	struct bench_result *run, *r;
	const char *out = c->output ? c->output : ".";
	int rounds = c->o.rounds, ncfg = 0, nr = 0, i, k, failed = 0, stop = 0;
	int nrun[BENCH_MAX_CONFIGS] = { 0 }, order[BENCH_MAX_CONFIGS], left;
	char *cmd;
	uint64_t t0 = fc_now_ns();

	if (!c->origin || !c->flash)
		return usage("compare needs --origin DEV and --flash DEV%s", "");
	if (c->configs) {
		char *d = strdup(c->configs), *t, *sv = NULL;

		cfg[ncfg++] = "baseline";
		for (t = strtok_r(d, ",", &sv); t && ncfg < BENCH_MAX_CONFIGS;
		     t = strtok_r(NULL, ",", &sv)) {
			int m = 0;

			if (!strcmp(t, "baseline"))
				continue;
			for (i = 1; i < 4; i++)
				if (!strcmp(t, all[i]))
					m = i;
			if (!m) {
				usage("unknown configuration '%s'", t);
				free(d);
				return EXIT_USAGE;
			}
			cfg[ncfg++] = all[m];
		}
		free(d);
	} else {
		cfg[ncfg++] = all[0];
		cfg[ncfg++] = all[1];
		if (c->anchors) {
			cfg[ncfg++] = all[2];
			cfg[ncfg++] = all[3];
		}
	}
	if (c->quick) {
		if (!c->users_set)
			parse_users(&c->o, "16,128");
		if (!c->time_set)
			c->o.time_s = 15;
		if (!c->warm_set)
			c->o.warmup_s = 10;
	}
	if (mkdir(out, 0755) < 0 && errno != EEXIST) {
		fc_err(BENCH_WHO, "%s: %s", out, strerror(errno));
		return EXIT_FAIL;
	}
	header(stdout, &c->o, "compare");
	printf("origin %s, flash %s, configurations:", c->origin, c->flash);
	for (i = 0; i < ncfg; i++)
		printf(" %s", cfg[i]);
	if (rounds > 1)
		printf(", %d rounds (the order alternates)", rounds);
	printf("\ncache blocks: fcache %u KiB, dm-cache 32 KiB, dm-writecache 4 KiB\n",
	       c->cblock_kib);
	/* after the cleanup: a leftover fcbench-* stack holds both devices */
	bench_stack_cleanup();
	if (guard(c->origin, c->force) || guard(c->flash, c->force))
		return EXIT_FAIL;
	if (bench_prepare(c->origin, c->size_mb, c->page_kib, c->log_mb, 1, 0))
		return EXIT_FAIL;
	/* from here on a signal stops the runs; before, the datafile was not ready */
	catch_stop(&c->o);
	/* run[i * rounds + n]: the n-th run of configuration i */
	run = calloc((size_t)ncfg * rounds, sizeof(*run));
	r = calloc(ncfg, sizeof(*r));
	if (!run || !r) {
		free(run);
		free(r);
		fc_err(BENCH_CLI, "out of memory");
		return EXIT_FAIL;
	}
	left = ncfg * rounds;
	for (k = 0; k < rounds && !stop; k++) {
		bench_round_order(k, ncfg, order);
		if (rounds > 1) {
			printf("\n##### round %d of %d:", k + 1, rounds);
			for (i = 0; i < ncfg; i++)
				printf(" %s", cfg[order[i]]);
			printf("\n");
		}
		for (i = 0; i < ncfg && !stop; i++) {
			int ci = order[i];
			struct bench_result *x = &run[ci * rounds + nrun[ci]];
			uint64_t ts = fc_now_ns();
			int rc;

			if (stop_sig)
				break;
			rc = compare_one(c, cfg[ci], k, rounds, x);
			left--;
			if (rc == BENCH_RUN_STOPPED) {
				/* the steps it completed count; the datafile is clean */
				if (x->nsteps)
					nrun[ci]++;
				stop = 1;
				break;
			}
			if (rc > 0) {
				/* nothing to compare against without the first baseline */
				if (!nrun[0]) {
					free(run);
					free(r);
					return EXIT_FAIL;
				}
				failed = 1;
				continue;
			}
			nrun[ci]++;
			if (rc < 0) {
				failed = stop = 1;
				break;
			}
			/* the next run starts from the same data state */
			if (left && bench_restore(c->origin, x->final_ver, 1) < 0) {
				fc_err(BENCH_CLI, "restoring %s failed",
					c->origin);
				failed = stop = 1;
				break;
			}
			free(x->final_ver);
			x->final_ver = NULL;
			printf("%s: %.0f s (run and restore)\n", cfg[ci],
			       (fc_now_ns() - ts) / 1e9);
		}
	}
	for (i = 0; i < ncfg; i++) {
		const struct bench_result *p[BENCH_MAX_ROUNDS];

		for (k = 0; k < nrun[i]; k++)
			p[k] = &run[i * rounds + k];
		if (!nrun[i] || bench_aggregate(p, nrun[i], c->o.rt_limit_s, &r[nr]))
			continue;
		/* stopped between two runs: no run says so, the configuration must */
		if (stop_sig && nrun[i] < rounds && !r[nr].stopped[0])
			snprintf(r[nr].stopped, sizeof(r[nr].stopped), "compare stopped by %s "
				 "after %d of %d rounds", stop_sig == SIGINT ? "SIGINT" : "SIGTERM",
				 nrun[i], rounds);
		nr++;
	}
	if (nr > 1 || (nr == 1 && !failed))
		bench_print_compare(stdout, r, nr);
	snprintf(json, sizeof(json), "%s/results.json", out);
	snprintf(svg, sizeof(svg), "%s/chart.svg", out);
	cmd = command_line(argc, argv);
	if (bench_write_svg(svg, r, nr) || bench_write_json(json, &c->o, r, nr, "chart.svg", cmd))
		failed = 1;
	free(cmd);
	printf("results: %s\nchart (TPS and average response time versus users): %s\n",
	       json, svg);
	printf("total time %.0f s\n", (fc_now_ns() - t0) / 1e9);
	for (i = 0; i < ncfg * rounds; i++)
		free(run[i].final_ver);
	free(run);
	bench_print_summary(stdout, r, nr);
	free(r);
	if (stop_sig)
		fc_err(BENCH_CLI, "compare stopped by %s (%d of %d runs "
			"started); the datafile on %s is closed cleanly",
			stop_sig == SIGINT ? "SIGINT" : "SIGTERM", ncfg * rounds - left,
			ncfg * rounds, c->origin);
	if (failed)
		fc_err(BENCH_CLI, "compare FAILED");
	return failed || stop_sig ? EXIT_FAIL : EXIT_OK;
}

int fc_cmd_bench(int argc, char **argv)
{
	struct cli *c = calloc(1, sizeof(*c));
	char *pos[4];
	const char *verb;
	int npos, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		free(c);
		return usage(argc < 2 ? "missing verb (prepare, run, compare)%s" : NULL, "");
	}
	verb = argv[1];
	ret = parse(c, argc - 1, argv + 1, pos, &npos);
	if (ret) {
		free(c);
		return ret < 0 ? EXIT_OK : ret;
	}
	if (c->rounds_set && strcmp(verb, "compare"))
		ret = usage("--rounds is an option of compare%s", "");
	else if (c->force && strcmp(verb, "prepare") && strcmp(verb, "compare"))
		ret = usage("--force is an option of prepare and compare%s", "");
	else if (!strcmp(verb, "prepare"))
		ret = cmd_prepare(c, pos, npos);
	else if (!strcmp(verb, "run"))
		ret = cmd_run(c, pos, npos, argc, argv);
	else if (!strcmp(verb, "compare"))
		ret = npos ? usage("compare takes no positional argument ('%s')", pos[0]) :
			     cmd_compare(c, argc, argv);
	else
		ret = usage("unknown verb '%s' (prepare, run, compare)", verb);
	free(c);
	reraise_stop();
	return ret;
}
