// SPDX-License-Identifier: GPL-2.0
/*
 * `fcachectl bench`: the prepare / run / compare verbs of the OLTP
 * benchmark and stopping on SIGINT, SIGTERM, SIGHUP or a closed standard
 * output.  The command line is parsed in bench_cli.c, what the verbs check
 * before they touch anything (devices, locks, output paths) is in
 * bench_guard.c; bench_int.h lists the rest.
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
#include "fc_dev.h"

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

/*
 * SIGINT, SIGTERM and SIGHUP (a dropped SSH session) stop run and compare
 * cleanly: the step in progress is left out, the users finish their
 * transactions, the page cleaner writes the dirty pages and the datafile
 * is closed clean (the next run needs no prepare), then the report of what
 * was measured is written.  SIGHUP that is ignored already (nohup) stays
 * ignored.  SA_RESETHAND: a second signal kills at once, for a device that
 * no longer answers.  SIGPIPE is ignored from the start of run and compare
 * (fc_cmd_bench): a closed standard output is found by bench_out_gone().
 */
static void catch_stop(struct bench_opts *o)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
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
 * compare --flash2: a second flash device that exists (it is never
 * created), a block device or a file (else EXIT_FAIL), and none of the
 * other devices of the command line (EXIT_USAGE: a mirror of one device
 * mirrors nothing).  0, or the exit status (said).  bench_guard() comes after.
 */
static int flash2_check(const struct bench_cli *c)
{
	const char *other[] = { c->flash, c->origin, c->o.log_dev };
	const char *what[] = { "--flash", "--origin", "--log-dev" };
	struct stat fs, os;
	int i;

	if (stat(c->flash2, &fs) < 0) {
		fc_err(BENCH_CLI, "--flash2 %s: %s (the second flash device must exist)",
			c->flash2, strerror(errno));
		return EXIT_FAIL;
	}
	if (!S_ISBLK(fs.st_mode) && !S_ISREG(fs.st_mode)) {
		fc_err(BENCH_CLI, "--flash2 %s is neither a block device nor a file", c->flash2);
		return EXIT_FAIL;
	}
	for (i = 0; i < 3; i++)
		if (other[i] && stat(other[i], &os) == 0 && bench_same_dev(&fs, &os)) {
			fc_err(BENCH_CLI, "--flash2 %s is the %s device itself; the second "
				"flash must be a device of its own", c->flash2, what[i]);
			return EXIT_USAGE;
		}
	return 0;
}

static int cmd_prepare(struct bench_cli *c, char **pos, int npos)
{
	int lk, ret;

	if (npos != 1)
		return bench_usage("prepare needs one device or file%s", "");
	if (bench_dev_kind("", pos[0]))
		return EXIT_FAIL;
	/* not under a run: it would rewrite the pages the run reads */
	lk = bench_lock_dev(pos[0], "datafile");
	if (lk == -2)
		return EXIT_FAIL;
	if (bench_guard(pos[0], c->force))
		ret = EXIT_FAIL;
	else
		ret = bench_prepare(pos[0], c->size_mb, c->page_kib, c->log_mb,
				    c->o.direct, 0, 0) ? EXIT_FAIL : EXIT_OK;
	if (lk >= 0)
		close(lk);
	return ret;
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
	if (o->log_dev)
		fprintf(f, "redo log: on %s (--log-dev)%s", o->log_dev,
			strcmp(what, "compare") ? "" : ", the same device for every "
			"configuration, not cached");
	else
		fprintf(f, "redo log: in the datafile's log region%s",
			strcmp(what, "compare") ? "" : " on the origin (cached with it)");
	if (o->group_commit)
		fprintf(f, "; group commit on (one RWF_DSYNC write for the commits "
			"waiting, at most %d records)\n", BENCH_GROUP_MAX);
	else
		fprintf(f, "; group commit off (one RWF_DSYNC write per commit)\n");
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
	FILE *jf = NULL;
	int ret, lk;

	if (npos != 1)
		return bench_usage("run needs one device or file%s", "");
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout: bench_out_gone() */
	if (bench_dev_kind("", pos[0]))
		return EXIT_FAIL;
	if (c->o.log_dev) {
		const char *what = "datafile";

		ret = bench_log_dev_check(c->o.log_dev, (const char *const *)pos, &what, 1, c->force);
		if (ret)
			return ret;
	}
	if (c->json && !(jf = bench_json_open(c->json)))
		return EXIT_FAIL;
	lk = bench_lock_dev(pos[0], "datafile");
	if (lk == -2) {
		if (jf)
			fclose(jf);
		return EXIT_FAIL;
	}
	c->o.results_to = c->json ? c->json : c->trace;	/* run --trace: a results file too */
	r = calloc(1, sizeof(*r));
	snprintf(r->config, sizeof(r->config), "%s", c->label ? c->label : "run");
	c->o.label = c->label ? c->label : "";
	c->o.trace = c->trace;
	catch_stop(&c->o);
	header(stdout, &c->o, "run");
	ret = bench_run(pos[0], &c->o, r);
	if (r->nsteps)
		bench_print_table(stdout, r, c->o.rt_limit_s);
	if (jf) {
		char *cmd = command_line(argc, argv);

		if (bench_json_write(jf, c->json, &c->o, r, cmd))
			ret = 1;
		free(cmd);
	}
	if (lk >= 0)
		close(lk);
	if (c->trace && ret != -1)
		printf("trace: %s (fcachectl bench optimum %s --flash-size MB)\n", c->trace,
		       c->trace);
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

/* `bench optimum TRACE`: the offline optimum of a trace (docs/PERFORMANCE.md). */
static int cmd_optimum(struct bench_cli *c, char **pos, int npos)
{
	struct bench_trace_hdr h;
	struct bench_opt o;
	double secs;

	if (npos != 1)
		return bench_usage("optimum needs one trace file%s", "");
	if (bench_trace_optimum(pos[0], (uint64_t)(c->flash_size_mb * 1048576), c->o.opt_max_io,
				&h, &o, &secs) < 0)
		return EXIT_FAIL;
	bench_print_opt(stdout, pos[0], &h, &o, secs);
	return EXIT_OK;
}

/* Is @cfg in the list of compare --trace (or is it "all")? */
static int traced(const struct bench_cli *c, const char *cfg)
{
	const char *p = c->trace;
	size_t n = strlen(cfg);

	while (p && *p) {
		size_t len = strcspn(p, ",");

		if ((len == n && !strncmp(p, cfg, n)) || (len == 3 && !strncmp(p, "all", 3)))
			return 1;
		p += len + !!p[len];
	}
	return 0;
}

/* The origin's counters into @io and @m, minus those in @io0 and @m0 (taken before). */
static void devio_since(const char *dev, const struct bench_devio *io0,
			const struct bench_devio *m0, struct bench_devio *io,
			struct bench_devio *m, int *ok)
{
	struct bench_devio a, b;
	int n;

	if (!*ok || bench_devio_read(dev, &a, &b, &n) < 0) {
		*ok = 0;
		return;
	}
	bench_devio_sub(io, &a, io0);
	bench_devio_sub(m, &b, m0);
}

/* The offline optimum of the run's trace (compare --trace), into @x->orig. */
static void compare_optimum(struct bench_cli *c, struct bench_result *x)
{
	struct bench_origin *g = &x->orig;
	struct bench_trace_hdr h;
	struct stat st;

	if (stat(g->trace, &st) == 0)
		g->trace_bytes = st.st_size;
	g->opt_ok = bench_trace_optimum(g->trace, 0, c->o.opt_max_io, &h, &g->opt,
					&g->opt_s) == 0;
}

/*
 * Runs one configuration (of @rounds); 0 ok, 1 skipped (no stack),
 * BENCH_RUN_STOPPED stopped by a signal (the datafile closed cleanly), -1 failed.
 */
static int compare_one(struct bench_cli *c, const char *cfg, int round, int rounds,
		       struct bench_result *x)
{
	char top[512], st[1024];
	uint64_t hits, reads;
	double q;
	int rc;

	if (rounds > 1)
		printf("\n=== %s (round %d of %d)\n", cfg, round + 1, rounds);
	else
		printf("\n=== %s\n", cfg);
	fflush(stdout);
	/* a blank flash for every cache (the start of compare discarded it for the first) */
	if (strcmp(cfg, "baseline") && c->discarded++) {
		bench_flash_discard(c->flash);
		if (c->flash2)
			bench_flash_discard(c->flash2);
	}
	if (bench_stack_up(cfg, c->origin, c->flash, c->flash2, c->cblock_kib * 2, top,
			   sizeof(top)) < 0) {
		printf("%s: SKIPPED (the stack could not be built; see above)\n", cfg);
		return 1;
	}
	snprintf(x->config, sizeof(x->config), "%s", cfg);
	c->o.label = cfg;
	c->o.origin_io = c->origin;
	c->o.trace = NULL;
	if (traced(c, cfg)) {
		const char *out = c->output ? c->output : ".";

		if (rounds > 1)
			snprintf(x->orig.trace, sizeof(x->orig.trace), "%s/trace-%s-%d.fct", out,
				 cfg, round + 1);
		else
			snprintf(x->orig.trace, sizeof(x->orig.trace), "%s/trace-%s.fct", out, cfg);
		if (fc_path_size(c->flash, &c->o.trace_flash) < 0)
			c->o.trace_flash = 0;
		c->o.trace = x->orig.trace;
	}
	rc = bench_run(top, &c->o, x);
	c->o.trace = NULL;
	bench_stack_status(cfg, st, sizeof(st));
	if (st[0])
		printf("%s status: %s\n", cfg, st);
	bench_stack_counters(cfg, x->counters, sizeof(x->counters));
	if (x->counters[0])
		printf("%s counters: %s\n", cfg, x->counters);
	x->orig.read_hit = -1;
	if (!bench_read_hit_ratio(x->counters, &hits, &reads, &q)) {
		printf("%s read hit ratio: %.1f%% (read_hits %llu of %llu reads)\n", cfg,
		       100 * q, (unsigned long long)hits, (unsigned long long)reads);
		x->orig.read_hit = q;
	}
	/*
	 * the dirty data the cache leaves is work still owed: written back and
	 * timed; the origin's requests since the end of the run's window
	 */
	if (strcmp(cfg, "baseline") && !rc &&
	    bench_stack_backlog(cfg, c->o.stop, &x->backlog_mib, &x->backlog_s) == 0) {
		x->orig.backlog_ok = x->orig.ok;
		devio_since(c->origin, &x->orig.end, &x->orig.end_members, &x->orig.backlog,
			    &x->orig.backlog_members, &x->orig.backlog_ok);
		x->backlog_ok = 1;
		if (x->backlog_s >= 0)
			printf("%s backlog: %.1f MiB dirty at the end, written back in %.1f s\n",
			       cfg, x->backlog_mib, x->backlog_s);
		else
			printf("%s backlog: %.1f MiB dirty at the end, not written back within %d s\n",
			       cfg, x->backlog_mib, BENCH_BACKLOG_MAX_S);
	}
	if (strcmp(cfg, "baseline")) {	/* the baseline built no stack */
		bench_stack_cleanup();
		bench_mark_flash(c->flash);
		if (c->flash2)
			bench_mark_flash(c->flash2);
	}
	if (x->orig.trace[0] && rc != -1)
		compare_optimum(c, x);
	bench_print_origin(stdout, cfg, &x->orig);
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

/* What the runs of compare share: the configurations, the runs left, how it went. */
struct cmp {
	const char *cfg[BENCH_MAX_CONFIGS];
	int ncfg, left, failed, stop;
	char *cmd;		/* the command line, for results.json */
};

/*
 * The configurations of --configs (or the default ones), the baseline
 * first: 0, or EXIT_USAGE (said; also for a RAID1 configuration without
 * --flash2).
 */
static int compare_configs(struct bench_cli *c, struct cmp *m)
{
	static const char *const all[] = { "baseline", "fcache-writeback", "dm-cache",
					   "dm-writecache", "fcache-mirrored",
					   "dm-writecache-raid1", "dm-cache-raid1" };
	char *d, *t, *sv = NULL;
	int i;

	m->cfg[m->ncfg++] = all[0];
	if (!c->configs) {
		m->cfg[m->ncfg++] = all[1];
		if (c->anchors) {
			m->cfg[m->ncfg++] = all[2];
			m->cfg[m->ncfg++] = all[3];
		}
		return 0;
	}
	d = strdup(c->configs);
	for (t = strtok_r(d, ",", &sv); t && m->ncfg < BENCH_MAX_CONFIGS;
	     t = strtok_r(NULL, ",", &sv)) {
		int k = 0;

		if (!strcmp(t, "baseline"))
			continue;
		for (i = 1; i < (int)(sizeof(all) / sizeof(all[0])); i++)
			if (!strcmp(t, all[i]))
				k = i;
		if (!k) {
			bench_usage("unknown configuration '%s'", t);
			free(d);
			return EXIT_USAGE;
		}
		if (bench_stack_needs_flash2(all[k]) && !c->flash2) {
			fc_err(BENCH_CLI, "configuration %s is a dm RAID1 of --flash and "
				"--flash2: give --flash2 DEV", all[k]);
			free(d);
			return EXIT_USAGE;
		}
		m->cfg[m->ncfg++] = all[k];
	}
	free(d);
	return 0;
}

/*
 * The rounds of every configuration at the current buffer pool size,
 * aggregated into @r (*@nr results, the baseline first): 0, or -1: nothing
 * to compare against (the first baseline could not run).
 */
static int compare_rounds(struct bench_cli *c, struct cmp *m, struct bench_result *r, int *nr)
{
	int rounds = c->o.rounds, ncfg = m->ncfg, i, k;
	int nrun[BENCH_MAX_CONFIGS] = { 0 }, order[BENCH_MAX_CONFIGS];
	/* run[i * rounds + n]: the n-th run of configuration i */
	struct bench_result *run = calloc((size_t)ncfg * rounds, sizeof(*run));

	*nr = 0;
	if (!run) {
		fc_err(BENCH_CLI, "out of memory");
		m->failed = m->stop = 1;
		return -1;
	}
	for (k = 0; k < rounds && !m->stop; k++) {
		bench_round_order(k, ncfg, order);
		if (rounds > 1) {
			printf("\n##### round %d of %d:", k + 1, rounds);
			for (i = 0; i < ncfg; i++)
				printf(" %s", m->cfg[order[i]]);
			printf("\n");
		}
		for (i = 0; i < ncfg && !m->stop; i++) {
			int ci = order[i];
			struct bench_result *x = &run[ci * rounds + nrun[ci]];
			uint64_t ts = fc_now_ns();
			int rc;

			if (stop_sig)
				break;
			rc = compare_one(c, m->cfg[ci], k, rounds, x);
			m->left--;
			if (rc == BENCH_RUN_STOPPED) {
				/* the steps it completed count; the datafile is clean */
				if (x->nsteps)
					nrun[ci]++;
				m->stop = 1;
				break;
			}
			if (rc > 0) {
				/* nothing to compare against without the first baseline */
				if (!nrun[0]) {
					free(run);
					m->failed = m->stop = 1;
					return -1;
				}
				m->failed = 1;
				continue;
			}
			nrun[ci]++;
			if (rc < 0) {
				m->failed = m->stop = 1;
				break;
			}
			/* the next run starts from the same data state */
			if (m->left && bench_restore(c->origin, x->final_ver, 1) < 0) {
				fc_err(BENCH_CLI, "restoring %s failed",
					c->origin);
				m->failed = m->stop = 1;
				break;
			}
			free(x->final_ver);
			x->final_ver = NULL;
			printf("%s: %.0f s (run and restore)\n", m->cfg[ci],
			       (fc_now_ns() - ts) / 1e9);
		}
	}
	for (i = 0; i < ncfg; i++) {
		const struct bench_result *p[BENCH_MAX_ROUNDS];

		for (k = 0; k < nrun[i]; k++)
			p[k] = &run[i * rounds + k];
		if (!nrun[i] || bench_aggregate(p, nrun[i], &r[*nr]))
			continue;
		/* stopped between two runs: no run says so, the configuration must */
		if (stop_sig && nrun[i] < rounds && !r[*nr].stopped[0])
			snprintf(r[*nr].stopped, sizeof(r[*nr].stopped), "compare stopped by %s "
				 "after %d of %d rounds", bench_sig_name(stop_sig),
				 nrun[i], rounds);
		(*nr)++;
	}
	for (i = 0; i < ncfg * rounds; i++)
		free(run[i].final_ver);
	free(run);
	return 0;
}

/* results.json and chart.svg of @r in @out. */
static void compare_files(struct bench_cli *c, struct cmp *m, const char *out,
			  const struct bench_result *r, int nr)
{
	char json[1024], svg[1024];

	snprintf(json, sizeof(json), "%s/results.json", out);
	snprintf(svg, sizeof(svg), "%s/chart.svg", out);
	if (bench_write_svg(svg, r, nr) || bench_write_json(json, &c->o, r, nr, "chart.svg", m->cmd))
		m->failed = 1;
	printf("results: %s\nchart (TPS and average response time versus users): %s\n",
	       json, svg);
}

/* The comparison tables of @r, and its files in @out. */
static void compare_report(struct bench_cli *c, struct cmp *m, const char *out,
			   const struct bench_result *r, int nr)
{
	if (nr > 1 || (nr == 1 && !m->failed)) {
		bench_print_compare(stdout, r, nr);
		bench_print_prices(stdout, &c->o, r, nr);
		bench_print_limit(stdout, r, nr);
	}
	compare_files(c, m, out, r, nr);
}

/*
 * --buffer-pool-sweep: the comparison at each size into @sw (its report,
 * results.json and chart.svg in OUT/bp-<size>, @r holding the results of
 * ncfg configurations a size), then OUT/results.json: the comparison at the
 * first (smallest) size with the sweep.
 */
static void compare_sweep(struct bench_cli *c, struct cmp *m, const char *out,
			  struct bench_result *r, struct bench_sweep *sw)
{
	char dir[1024], sz[32], svg[1024];
	int k;

	for (k = 0; k < c->nsweep && !m->stop && !stop_sig; k++) {
		struct bench_result *rk = r + (size_t)k * m->ncfg;

		c->o.bp_mb = c->sweep_mb[k];
		bench_sweep_size(c->sweep_mb[k], sz, sizeof(sz));
		printf("\n########## buffer pool %s (%d of %d)\n", sz, k + 1, c->nsweep);
		if (compare_rounds(c, m, rk, &sw->nr[k]) < 0)
			break;
		snprintf(dir, sizeof(dir), "%s/bp-%s", out, sz);
		if (bench_make_dir(dir) < 0) {
			m->failed = 1;
			break;
		}
		compare_report(c, m, dir, rk, sw->nr[k]);
		bench_print_summary(stdout, rk, sw->nr[k]);
		sw->mb[k] = c->sweep_mb[k];
		sw->r[k] = rk;
		sw->n = k + 1;
	}
	if (!sw->n)
		return;
	bench_sweep_size(sw->mb[0], sz, sizeof(sz));
	printf("\nthe sweep, with the comparison at %s:\n", sz);
	c->o.bp_mb = sw->mb[0];
	c->o.sweep = sw;
	compare_files(c, m, out, sw->r[0], sw->nr[0]);
	c->o.sweep = NULL;
	snprintf(svg, sizeof(svg), "%s/sweep.svg", out);
	if (bench_write_sweep_svg(svg, sw) == 0)
		printf("chart (TPS versus buffer pool): %s\n", svg);
}

/*
 * compare --trace LIST: every item one of the configurations that run, or
 * "all"; 0, or EXIT_USAGE (said).
 */
static int trace_configs(const struct bench_cli *c, const struct cmp *m)
{
	const char *p = c->trace;
	int i;

	while (p && *p) {
		size_t len = strcspn(p, ",");

		for (i = 0; i < m->ncfg; i++)
			if (len == strlen(m->cfg[i]) && !strncmp(p, m->cfg[i], len))
				break;
		if (i == m->ncfg && !(len == 3 && !strncmp(p, "all", 3))) {
			fc_err(BENCH_CLI, "bad --trace '%s': '%.*s' is not a configuration "
				"of this compare (the configurations it runs, comma-separated, "
				"or all)", c->trace, (int)len, p);
			return EXIT_USAGE;
		}
		p += len;
		if (*p && !*++p) {
			fc_err(BENCH_CLI, "bad --trace '%s': an empty item", c->trace);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* The locks of compare (bench_lock), -1 where none is held. */
struct cmp_locks {
	int fd[4];
};

static void unlock_all(struct cmp_locks *k)
{
	int i;

	for (i = 0; i < 4; i++)
		if (k->fd[i] >= 0)
			close(k->fd[i]);
}

/*
 * Everything compare checks before it changes anything (no device-mapper,
 * nothing written): the devices (not one device twice, a block device or a
 * file each, --flash2, --log-dev), --output, then the locks: the origin,
 * the flashes and, with a cache configuration, the device stacks.  0, or
 * the exit status (said; the locks released).
 */
static int compare_check(struct bench_cli *c, const struct cmp *m, const char *out,
			 struct cmp_locks *k)
{
	struct stat os, fs;
	int rc;

	if (!stat(c->origin, &os) && !stat(c->flash, &fs) && bench_same_dev(&os, &fs)) {
		fc_err(BENCH_CLI, "--flash %s is the --origin device itself; the cache goes on a "
			"device of its own", c->flash);
		return EXIT_USAGE;
	}
	if (c->flash2) {
		rc = flash2_check(c);
		if (rc)
			return rc;
	}
	if (bench_dev_kind("--origin", c->origin) || bench_dev_kind("--flash", c->flash))
		return EXIT_FAIL;
	if (c->o.log_dev) {
		const char *dev[] = { c->origin, c->flash, c->flash2 };
		const char *what[] = { "origin", "flash", "flash2" };

		rc = bench_log_dev_check(c->o.log_dev, dev, what, c->flash2 ? 3 : 2, c->force);
		if (rc)
			return rc;
	}
	if (bench_out_dir_check(out) < 0)
		return EXIT_FAIL;
	k->fd[0] = bench_lock_dev(c->origin, "--origin datafile");
	k->fd[1] = k->fd[0] == -2 ? -1 : bench_lock_dev(c->flash, "--flash");
	k->fd[2] = k->fd[0] == -2 || k->fd[1] == -2 || !c->flash2 ? -1 : bench_lock_dev(c->flash2, "--flash2");
	k->fd[3] = k->fd[0] == -2 || k->fd[1] == -2 || k->fd[2] == -2 || m->ncfg < 2 ? -1 : bench_stack_lock();
	if (k->fd[0] == -2 || k->fd[1] == -2 || k->fd[2] == -2 || k->fd[3] == -2) {
		for (rc = 0; rc < 4; rc++)
			if (k->fd[rc] == -2)
				k->fd[rc] = -1;
		unlock_all(k);
		return EXIT_FAIL;
	}
	return 0;
}

static int cmd_compare(struct bench_cli *c, int argc, char **argv)
{
	struct cmp m;
	struct bench_sweep sw;
	struct bench_result *r;
	struct cmp_locks k = { { -1, -1, -1, -1 } };
	const char *out = c->output ? c->output : ".";
	char results[1100];
	int rounds = c->o.rounds, nsize = c->nsweep ? c->nsweep : 1, nr = 0, i, rc;
	uint64_t t0 = fc_now_ns();

	memset(&m, 0, sizeof(m));
	memset(&sw, 0, sizeof(sw));
	if (!c->origin || !c->flash)
		return bench_usage("compare needs --origin DEV and --flash DEV%s", "");
	if (compare_configs(c, &m) || trace_configs(c, &m))
		return EXIT_USAGE;
	if (c->trace && c->nsweep)
		return bench_usage("--trace goes without --buffer-pool-sweep (one trace a "
				   "configuration and round)%s", "");
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout: bench_out_gone() */
	rc = compare_check(c, &m, out, &k);
	if (rc)
		return rc;
	snprintf(results, sizeof(results), "%s/results.json", out);
	c->o.results_to = results;
	c->o.origin = c->origin;
	c->o.flash = c->flash;
	c->o.flash2 = c->flash2;
	if (c->quick) {
		if (!c->users_set)
			bench_parse_users(&c->o, "16,128");
		if (!c->time_set)
			c->o.time_s = 15;
		if (!c->warm_set)
			c->o.warmup_s = 10;
	}
	header(stdout, &c->o, "compare");
	printf("origin %s, flash %s", c->origin, c->flash);
	if (c->flash2)
		printf(", flash2 %s", c->flash2);
	printf(", configurations:");
	for (i = 0; i < m.ncfg; i++)
		printf(" %s", m.cfg[i]);
	if (rounds > 1)
		printf(", %d rounds (the order alternates)", rounds);
	printf("\ncache blocks: fcache %u KiB, dm-cache 32 KiB, dm-writecache 4 KiB\n",
	       c->cblock_kib);
	for (i = 0; i < m.ncfg; i++) {
		if (!strcmp(m.cfg[i], "fcache-mirrored"))
			printf("%s: a mirrored fcache pool over %s\n", m.cfg[i], c->flash2 ?
			       "the flash and flash2, two devices" :
			       "the two halves of the flash (no --flash2)");
		else if (bench_stack_needs_flash2(m.cfg[i]))
			printf("%s: over a dm RAID1 of the flash and flash2 (raid target, "
			       "raid1, a 4 MiB metadata slice a device, nosync)\n", m.cfg[i]);
	}
	if (c->nsweep) {
		char sz[32];

		printf("buffer pool sweep:");
		for (i = 0; i < c->nsweep; i++) {
			bench_sweep_size(c->sweep_mb[i], sz, sizeof(sz));
			printf("%s%s", i ? "," : " ", sz);
		}
		printf(" (the comparison at each size)\n");
	}
	/*
	 * Device-mapper only with a cache configuration (a baseline alone
	 * needs none), after the checks: a leftover fcbench-* stack holds
	 * both devices, so it goes before bench_guard() opens them.
	 */
	if (m.ncfg > 1)
		bench_stack_cleanup();
	if (bench_guard(c->origin, c->force) || bench_guard(c->flash, c->force) ||
	    (c->flash2 && bench_guard(c->flash2, c->force)) ||
	    bench_prepare(c->origin, c->size_mb, c->page_kib, c->log_mb, 1, 0, 1)) {
		unlock_all(&k);
		return EXIT_FAIL;
	}
	/* an origin --size created: locked now */
	if (k.fd[0] < 0 && (k.fd[0] = bench_lock_dev(c->origin, "--origin datafile")) == -2) {
		k.fd[0] = -1;
		unlock_all(&k);
		return EXIT_FAIL;
	}
	bench_flash_discard(c->flash);
	if (c->flash2)
		bench_flash_discard(c->flash2);
	/* from here on a signal stops the runs; before, the datafile was not ready */
	catch_stop(&c->o);
	r = calloc((size_t)m.ncfg * nsize, sizeof(*r));
	if (!r) {
		fc_err(BENCH_CLI, "out of memory");
		unlock_all(&k);
		return EXIT_FAIL;
	}
	m.left = m.ncfg * rounds * nsize;
	m.cmd = command_line(argc, argv);
	if (c->nsweep) {
		compare_sweep(c, &m, out, r, &sw);
	} else if (compare_rounds(c, &m, r, &nr) == 0) {
		compare_report(c, &m, out, r, nr);
	} else {
		free(m.cmd);
		free(r);
		unlock_all(&k);
		return EXIT_FAIL;
	}
	free(m.cmd);
	printf("total time %.0f s\n", (fc_now_ns() - t0) / 1e9);
	if (c->nsweep) {
		bench_print_sweep(stdout, &sw);
	} else {
		bench_print_summary(stdout, r, nr);
		if (bench_terminal_model(&c->o, bench_profile_find(c->o.profile)))
			bench_print_summary_terminals(stdout, r, nr, c->o.rt_limit_s);
	}
	free(r);
	unlock_all(&k);
	if (stop_sig)
		fc_err(BENCH_CLI, "compare stopped by %s (%d of %d runs "
			"started); the datafile on %s is closed cleanly",
			bench_sig_name(stop_sig), m.ncfg * rounds * nsize - m.left,
			m.ncfg * rounds * nsize, c->origin);
	if (m.failed)
		fc_err(BENCH_CLI, "compare FAILED");
	return m.failed || stop_sig ? EXIT_FAIL : EXIT_OK;
}

int fc_cmd_bench(int argc, char **argv)
{
	struct bench_cli *c = calloc(1, sizeof(*c));
	char *pos[4];
	const char *verb;
	int npos, ret;

	bench_set_verb(NULL);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		/* bench help VERB: as bench VERB --help */
		if (argc > 2 && !strcmp(argv[1], "help"))
			bench_set_verb(argv[2]);
		free(c);
		return bench_usage(argc < 2 ? "missing verb (prepare, run, compare, optimum)%s" :
				   NULL, "");
	}
	verb = argv[1];
	bench_set_verb(verb);
	ret = bench_parse(c, argc - 1, argv + 1, pos, &npos);
	if (ret) {
		free(c);
		return ret < 0 ? EXIT_OK : ret;
	}
	if (c->rounds_set && strcmp(verb, "compare"))
		ret = bench_usage("--rounds is an option of compare%s", "");
	else if (c->price_set && strcmp(verb, "compare"))
		ret = bench_usage("--price is an option of compare%s", "");
	else if (c->nsweep && strcmp(verb, "compare"))
		ret = bench_usage("--buffer-pool-sweep is an option of compare%s", "");
	else if (c->nsweep && c->bp_set)
		ret = bench_usage("--buffer-pool-sweep gives the buffer pool sizes; "
				  "--buffer-pool goes without it%s", "");
	else if (c->flash2 && strcmp(verb, "compare"))
		ret = bench_usage("--flash2 is an option of compare%s", "");
	else if (c->trace && strcmp(verb, "compare") && strcmp(verb, "run"))
		ret = bench_usage("--trace is an option of run (a file) and compare "
				  "(configurations)%s", "");
	else if (c->maxio_set && strcmp(verb, "compare") && strcmp(verb, "optimum"))
		ret = bench_usage("--max-io is an option of compare and optimum%s", "");
	else if (c->flash_size_mb && strcmp(verb, "optimum"))
		ret = bench_usage("--flash-size is an option of optimum (compare takes the "
				  "flash's)%s", "");
	else if (c->o.log_dev && !strcmp(verb, "prepare"))
		ret = bench_usage("--log-dev is an option of run and compare (prepare lays "
				  "out the datafile's own log region, which --log-dev leaves "
				  "unused)%s", "");
	else if (c->force && strcmp(verb, "prepare") && strcmp(verb, "compare") &&
		 !(c->o.log_dev && !strcmp(verb, "run")))
		ret = bench_usage("--force is an option of prepare and compare (and of "
				  "run with --log-dev)%s", "");
	else if (!strcmp(verb, "prepare"))
		ret = cmd_prepare(c, pos, npos);
	else if (!strcmp(verb, "run"))
		ret = cmd_run(c, pos, npos, argc, argv);
	else if (!strcmp(verb, "compare"))
		ret = npos ? bench_usage("compare takes no positional argument ('%s')", pos[0]) :
			     cmd_compare(c, argc, argv);
	else if (!strcmp(verb, "optimum"))
		ret = cmd_optimum(c, pos, npos);
	else
		ret = bench_usage("unknown verb '%s' (prepare, run, compare, optimum)", verb);
	free(c);
	reraise_stop();
	return ret;
}
