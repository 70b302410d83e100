/*
 * Unit tests of what the reports of `fcachectl bench compare` show from
 * synthetic results (issue 35, item 10; userspace/bench/bench_stats.c and
 * bench_report.c): a ratio to the baseline never reads 0.00x (the terminal
 * model's -99.5% response time), the report warns when the buffer pool
 * holds the whole datafile, and the charts: tick labels without an
 * exponent.
 *
 *   test_bench_chart [DIR]   DIR: also leave there chart-log.svg (cached
 *                            response times 1/100 of the baseline's: a log
 *                            scale), chart-linear.svg (a TPS maximum of
 *                            2001, response times within 20x) for
 *                            tests/host/bench_check_svg.py --layout
 *                            (tests/host/bench_chart.sh)
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/bench/bench_int.h"
#include "unit.h"

#define NSTEPS 5

static const int users[NSTEPS] = { 8, 16, 32, 64, 128 };

static const struct bench_profile prof = {
	"tpcc-like", "synthetic", 1, { { "t", 100, 1, 0, 0, 0, 0, 0 } },
};

/* A run of @cfg: @tps and @avg (ms) at each user count; a 1000-page datafile of 16 KiB pages. */
static void mk_run(struct bench_result *r, const char *cfg, const double *tps, const double *avg)
{
	int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->config, sizeof(r->config), "%s", cfg);
	snprintf(r->device, sizeof(r->device), "/dev/synthetic");
	r->profile = &prof;
	r->npages = 1000;
	r->page_size = 16384;
	r->bp_mb = 4;
	r->bp_frames = 256;
	r->pages_verified = 100;
	r->nsteps = NSTEPS;
	for (i = 0; i < NSTEPS; i++) {
		struct bench_step *s = &r->step[i];

		s->users = users[i];
		s->seconds = 10;
		s->tps = tps[i];
		s->avg_ms = avg[i];
		s->p95_ms = avg[i] * 2;
		s->p99_ms = avg[i] * 3;
		s->max_ms = avg[i] * 4;
		s->c.txns = (uint64_t)(tps[i] * 10) + 1;
		s->c.txn_by_type[0] = s->c.txns;
		s->c.page_accesses = s->c.txns * 3;
		s->c.bp_hits = s->c.page_accesses / 2;
		s->p90_type_ms[0] = avg[i] * 1.5;
		if (avg[i] < 2000 && users[i] > r->max_users_under_limit)
			r->max_users_under_limit = users[i];
	}
}

/* What @fn prints about @r into a string (freed by the caller). */
#define CAPTURE(buf, call) do { \
	size_t _len; \
	FILE *f = open_memstream(&(buf), &_len); \
	call; \
	fclose(f); \
} while (0)

/* The terminal model of the demo: fcache's response time 0.5% of the baseline's. */
static const double t_tps_b[NSTEPS] = { 0.4, 0.8, 1.5, 2.9, 5.6 };
static const double t_tps_c[NSTEPS] = { 0.41, 0.81, 1.6, 3.1, 6.2 };
static const double t_avg_b[NSTEPS] = { 900, 1500, 2500, 3500, 4000 };
static const double t_avg_c[NSTEPS] = { 4.5, 5, 6, 8, 20 };

static void test_ratios(void)
{
	struct bench_result r[2];
	char *out = NULL;

	mk_run(&r[0], "baseline", t_tps_b, t_avg_b);
	mk_run(&r[1], "fcache-writeback", t_tps_c, t_avg_c);
	CAPTURE(out, bench_print_summary(f, r, 2));
	CHECK("summary: no ratio reads 0.00x", out && !strstr(out, "0.00x"));
	CHECK("summary: the response time ratio 20/4000 has two significant digits",
	      out && strstr(out, "summary fcache-writeback: TPS 1.11x baseline, avg response time "
			    "0.0050x baseline at 128 users\n"));
	CHECK("summary: ratios from 0.1 up keep two decimals",
	      out && strstr(out, "summary baseline: TPS 1.00x baseline, avg response time 1.00x "
			    "baseline at 128 users\n"));
	free(out);
	out = NULL;
	CAPTURE(out, bench_print_summary_terminals(f, r, 2, 2));
	CHECK("summary terminals: no ratio reads 0.00x", out && !strstr(out, "0.00x"));
	CHECK("summary terminals: 0.0050x", out && strstr(out, "avg response time 0.0050x baseline"));
	free(out);
	out = NULL;
	CAPTURE(out, bench_print_compare(f, r, 2));
	CHECK("compare tables: no ratio reads 0.00x", out && !strstr(out, "0.00x"));
	CHECK("compare tables: 4.50 (0.0050x)", out && strstr(out, "4.50 (0.0050x)"));
	free(out);
}

static void test_bp_warning(void)
{
	struct bench_result r[2];
	char *out = NULL;

	mk_run(&r[0], "baseline", t_tps_b, t_avg_b);
	mk_run(&r[1], "fcache-writeback", t_tps_c, t_avg_c);
	CAPTURE(out, bench_print_compare(f, r, 2));
	CHECK("bp warning: not with a buffer pool of a quarter of the datafile",
	      out && !strstr(out, "buffer pool (") && !strstr(out, "WARNING"));
	free(out);
	out = NULL;
	CAPTURE(out, bench_print_table(f, &r[0], 2));
	CHECK("bp warning: run report, none either", out && !strstr(out, "WARNING"));
	free(out);
	/* 16 MiB of frames over a 15.6 MiB datafile: every read a hit */
	r[0].bp_mb = r[1].bp_mb = 16;
	r[0].bp_frames = r[1].bp_frames = 1024;
	out = NULL;
	CAPTURE(out, bench_print_compare(f, r, 2));
	CHECK("bp warning: compare report, buffer pool >= datafile",
	      out && strstr(out, "WARNING: the buffer pool (16.0 MiB) holds the whole datafile (15.6 MiB)"));
	free(out);
	out = NULL;
	CAPTURE(out, bench_print_table(f, &r[0], 2));
	CHECK("bp warning: run report, buffer pool >= datafile",
	      out && strstr(out, "WARNING: the buffer pool (16.0 MiB) holds the whole datafile"));
	free(out);
	r[0].bp_frames = 1000;	/* exactly the datafile */
	out = NULL;
	CAPTURE(out, bench_print_table(f, &r[0], 2));
	CHECK("bp warning: a buffer pool of exactly the datafile", out && strstr(out, "WARNING"));
	free(out);
}

/* The chart of @r into @path; its text, or NULL (freed by the caller). */
static char *chart(const char *path, const struct bench_result *r, int nr)
{
	FILE *f;
	char *buf;
	long n;

	if (bench_write_svg(path, r, nr))
		return NULL;
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void test_charts(const char *dir)
{
	/* closed loop: fcache's TPS up to 37500, response times 1/100 of the baseline's */
	static const double tps_b[NSTEPS] = { 1200, 1500, 1800, 1900, 2001 };
	static const double tps_c[NSTEPS] = { 9000, 17000, 26000, 33000, 37500 };
	static const double avg_b[NSTEPS] = { 60, 110, 180, 300, 450 };
	static const double avg_c[NSTEPS] = { 3, 3.1, 3.3, 3.6, 4 };
	/* within 20x: a linear scale */
	static const double avg_l[NSTEPS] = { 150, 300, 700, 1500, 2001 };
	static const double avg_m[NSTEPS] = { 120, 200, 500, 1100, 1500 };
	struct bench_result r[2];
	char path[4096], *svg;

	mk_run(&r[0], "baseline", tps_b, avg_b);
	mk_run(&r[1], "fcache-writeback", tps_c, avg_c);
	snprintf(path, sizeof(path), "%s/chart-log.svg", dir ? dir : "/tmp");
	if (!dir)
		snprintf(path, sizeof(path), "/tmp/test_bench_chart.%d.svg", (int)getpid());
	svg = chart(path, r, 2);
	CHECK("chart: written", svg != NULL);
	CHECK("chart: no tick label with an exponent (3.75e+04)", svg && !strstr(svg, "e+0"));
	CHECK("chart: TPS ticks in k (40k)", svg && strstr(svg, ">40k</text>"));
	CHECK("chart: response times over 100x apart on a log scale",
	      svg && strstr(svg, "avg response time (ms, log scale)"));
	free(svg);
	if (!dir)
		unlink(path);
	mk_run(&r[0], "baseline", tps_b, avg_l);
	mk_run(&r[1], "fcache-writeback", tps_b, avg_m);
	if (dir)
		snprintf(path, sizeof(path), "%s/chart-linear.svg", dir);
	svg = chart(path, r, 2);
	CHECK("chart: response times within 20x on a linear scale",
	      svg && strstr(svg, "avg response time (ms)<") && !strstr(svg, "log scale"));
	CHECK("chart: a TPS maximum of 2001 tops at 2500, not 5000",
	      svg && strstr(svg, ">2500</text>") && !strstr(svg, ">5000</text>"));
	free(svg);
	if (!dir)
		unlink(path);
}

int main(int argc, char **argv)
{
	test_ratios();
	test_bp_warning();
	test_charts(argc > 1 ? argv[1] : NULL);
	return unit_failed;
}
