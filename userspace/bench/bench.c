// SPDX-License-Identifier: GPL-2.0
/*
 * `fcachectl bench`: the prepare / run / compare verbs of the OLTP
 * benchmark, what they refuse to overwrite, and stopping on SIGINT/SIGTERM.
 * The command line is parsed in bench_cli.c; bench_int.h lists the rest.
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

static int cmd_prepare(struct bench_cli *c, char **pos, int npos)
{
	if (npos != 1)
		return bench_usage("prepare needs one device or file%s", "");
	if (guard(pos[0], c->force))
		return EXIT_FAIL;
	return bench_prepare(pos[0], c->size_mb, c->page_kib, c->log_mb,
			     c->o.direct, 0) ? EXIT_FAIL : EXIT_OK;
}

/* The terminal model's times, per type when they differ. */
static void terminal_line(FILE *f, const struct bench_opts *o, const struct bench_profile *p)
{
	int i;

	fprintf(f, "terminal model: each user keys (fixed) then submits a transaction, then "
		"thinks (exponential, at most %d times the mean); TPS and response time are "
		"separate results (TPS <= users / (keying + think + response time)); s:",
		BENCH_THINK_CAP);
	for (i = 0; i < p->ntypes; i++)
		fprintf(f, "%s %s keying %.3g think %.3g", i ? "," : "", p->t[i].name,
			bench_keying(o, &p->t[i]), bench_think_mean(o, &p->t[i]));
	fprintf(f, "\n");
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
	fprintf(f, ", response time limit %.3g s (search: up to %d extra steps)\n",
		o->rt_limit_s, o->rt_search);
	if (bench_terminal_model(o, p))
		terminal_line(f, o, p);
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

static int cmd_run(struct bench_cli *c, char **pos, int npos, int argc, char **argv)
{
	struct bench_result *r;
	int ret;

	if (npos != 1)
		return bench_usage("run needs one device or file%s", "");
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
static int compare_one(struct bench_cli *c, const char *cfg, int round, int rounds,
		       struct bench_result *x)
{
	char top[512], st[1024];
	int rc;

	if (rounds > 1)
		printf("\n=== %s (round %d of %d)\n", cfg, round + 1, rounds);
	else
		printf("\n=== %s\n", cfg);
	fflush(stdout);
	/* a blank flash for every cache (the start of compare discarded it for the first) */
	if (strcmp(cfg, "baseline") && c->discarded++)
		bench_flash_discard(c->flash);
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

static int cmd_compare(struct bench_cli *c, int argc, char **argv)
{
	const char *all[] = { "baseline", "fcache-writeback", "dm-cache", "dm-writecache",
			      "fcache-mirrored" };
	const char *cfg[BENCH_MAX_CONFIGS];
	char json[1024], svg[1024];
	struct bench_result *run, *r;
	const char *out = c->output ? c->output : ".";
	int rounds = c->o.rounds, ncfg = 0, nr = 0, i, k, failed = 0, stop = 0;
	int nrun[BENCH_MAX_CONFIGS] = { 0 }, order[BENCH_MAX_CONFIGS], left;
	char *cmd;
	uint64_t t0 = fc_now_ns();

	if (!c->origin || !c->flash)
		return bench_usage("compare needs --origin DEV and --flash DEV%s", "");
	if (c->configs) {
		char *d = strdup(c->configs), *t, *sv = NULL;

		cfg[ncfg++] = "baseline";
		for (t = strtok_r(d, ",", &sv); t && ncfg < BENCH_MAX_CONFIGS;
		     t = strtok_r(NULL, ",", &sv)) {
			int m = 0;

			if (!strcmp(t, "baseline"))
				continue;
			for (i = 1; i < (int)(sizeof(all) / sizeof(all[0])); i++)
				if (!strcmp(t, all[i]))
					m = i;
			if (!m) {
				bench_usage("unknown configuration '%s'", t);
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
			bench_parse_users(&c->o, "16,128");
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
	bench_flash_discard(c->flash);
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
		if (!nrun[i] || bench_aggregate(p, nrun[i], &r[nr]))
			continue;
		/* stopped between two runs: no run says so, the configuration must */
		if (stop_sig && nrun[i] < rounds && !r[nr].stopped[0])
			snprintf(r[nr].stopped, sizeof(r[nr].stopped), "compare stopped by %s "
				 "after %d of %d rounds", stop_sig == SIGINT ? "SIGINT" : "SIGTERM",
				 nrun[i], rounds);
		nr++;
	}
	if (nr > 1 || (nr == 1 && !failed)) {
		bench_print_compare(stdout, r, nr);
		bench_print_prices(stdout, &c->o, r, nr);
	}
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
	if (bench_terminal_model(&c->o, bench_profile_find(c->o.profile)))
		bench_print_summary_terminals(stdout, r, nr, c->o.rt_limit_s);
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
	struct bench_cli *c = calloc(1, sizeof(*c));
	char *pos[4];
	const char *verb;
	int npos, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		free(c);
		return bench_usage(argc < 2 ? "missing verb (prepare, run, compare)%s" : NULL, "");
	}
	verb = argv[1];
	ret = bench_parse(c, argc - 1, argv + 1, pos, &npos);
	if (ret) {
		free(c);
		return ret < 0 ? EXIT_OK : ret;
	}
	if (c->rounds_set && strcmp(verb, "compare"))
		ret = bench_usage("--rounds is an option of compare%s", "");
	else if (c->price_set && strcmp(verb, "compare"))
		ret = bench_usage("--price is an option of compare%s", "");
	else if (c->force && strcmp(verb, "prepare") && strcmp(verb, "compare"))
		ret = bench_usage("--force is an option of prepare and compare%s", "");
	else if (!strcmp(verb, "prepare"))
		ret = cmd_prepare(c, pos, npos);
	else if (!strcmp(verb, "run"))
		ret = cmd_run(c, pos, npos, argc, argv);
	else if (!strcmp(verb, "compare"))
		ret = npos ? bench_usage("compare takes no positional argument ('%s')", pos[0]) :
			     cmd_compare(c, argc, argv);
	else
		ret = bench_usage("unknown verb '%s' (prepare, run, compare)", verb);
	free(c);
	reraise_stop();
	return ret;
}
