// SPDX-License-Identifier: GPL-2.0
/*
 * `bench compare --buffer-pool-sweep SIZES`: the comparison run at each
 * buffer pool size, reduced to one table (a row per size: the baseline's
 * TPS, each cached configuration's TPS and its ratio to the baseline at the
 * same size) and one line answering "more memory or fast flash?" from the
 * measured figures.  Pure functions on results (unit-tested on the host in
 * tests/unit/test_bench_rounds.c); bench.c runs the sweep.
 */
#include <math.h>
#include <string.h>

#include "bench_int.h"

void bench_sweep_size(double mb, char *buf, size_t len)
{
	if (mb >= 1024 && fmod(mb, 1024) == 0)
		snprintf(buf, len, "%.15gG", mb / 1024);
	else
		snprintf(buf, len, "%.15gM", mb);
}

int bench_sweep_users(const struct bench_sweep *sw)
{
	const struct bench_result *base;

	if (sw->n < 1 || sw->nr[0] < 1)
		return 0;
	base = &sw->r[0][0];
	return base->nsteps ? base->step[base->nsteps - 1].users : 0;
}

int bench_sweep_tps(const struct bench_sweep *sw, int k, const char *cfg, int users,
		    double *tps)
{
	int c;

	for (c = 0; c < sw->nr[k]; c++) {
		const struct bench_step *s;

		if (strcmp(sw->r[k][c].config, cfg))
			continue;
		s = bench_step_of(&sw->r[k][c], users);
		if (!s || !s->c.txns || s->tps <= 0)
			return 0;
		*tps = s->tps;
		return 1;
	}
	return 0;
}

/*
 * More memory is the baseline at the largest size; fast flash a cached
 * configuration at a smaller one.  The advice names the smallest size at
 * which a cached configuration (the best one there) reaches the TPS of the
 * baseline at the largest size: flash, and the ratio.  If none does, the
 * best cached figure measured falls short of memory alone: more memory,
 * and by how much.
 */
void bench_sweep_advice(const struct bench_sweep *sw, struct bench_advice *a)
{
	int k, c, big = sw->n - 1, u = bench_sweep_users(sw);
	const char *best_cfg = NULL;
	double big_tps, best = 0, best_mb = 0;
	char bs[32], s[32];

	memset(a, 0, sizeof(*a));
	if (sw->n >= 1 && sw->nr[0] < 2) {
		snprintf(a->text, sizeof(a->text), "advice: none (no cached configuration "
			 "in the comparison)");
		return;
	}
	if (sw->n < 2 || !u || !bench_sweep_tps(sw, big, "baseline", u, &big_tps)) {
		snprintf(a->text, sizeof(a->text), "advice: none (no baseline TPS at %d users "
			 "at the largest buffer pool)", u);
		return;
	}
	bench_sweep_size(sw->mb[big], bs, sizeof(bs));
	for (k = 0; k <= big; k++) {
		const char *kc = NULL;
		double kt = 0, t;

		for (c = 1; c < sw->nr[0]; c++) {
			const char *cfg = sw->r[0][c].config;

			if (bench_sweep_tps(sw, k, cfg, u, &t) && t > kt) {
				kt = t;
				kc = cfg;
			}
		}
		if (kc && kt > best) {
			best = kt;
			best_cfg = kc;
			best_mb = sw->mb[k];
		}
		if (kc && kt >= big_tps) {
			a->kind = BENCH_ADVICE_FLASH;
			a->config = kc;
			a->mb = sw->mb[k];
			a->ratio = kt / big_tps;
			bench_sweep_size(a->mb, s, sizeof(s));
			snprintf(a->text, sizeof(a->text), "advice: fast flash: %s at %s buffer "
				 "pool gives %.2fx the TPS of baseline at %s buffer pool (%d users)",
				 kc, s, a->ratio, bs, u);
			return;
		}
	}
	if (!best_cfg) {
		snprintf(a->text, sizeof(a->text), "advice: none (no cached configuration "
			 "has TPS at %d users)", u);
		return;
	}
	a->kind = BENCH_ADVICE_MEMORY;
	a->config = best_cfg;
	a->mb = best_mb;
	a->ratio = big_tps / best;
	bench_sweep_size(best_mb, s, sizeof(s));
	snprintf(a->text, sizeof(a->text), "advice: more memory: baseline at %s buffer pool "
		 "gives %.2fx the TPS of %s at %s buffer pool, the best cached figure "
		 "measured (%d users)", bs, a->ratio, best_cfg, s, u);
}

void bench_print_sweep(FILE *f, const struct bench_sweep *sw)
{
	int k, c, u = bench_sweep_users(sw);
	struct bench_advice a;
	double bt, t;

	if (sw->n < 1 || sw->nr[0] < 1)
		return;
	fprintf(f, "\n== buffer pool sweep: TPS at %d users (ratio to baseline at the same "
		"buffer pool) ==\n%18s", u, "buffer pool (used)");
	for (c = 0; c < sw->nr[0]; c++)
		fprintf(f, " %20s", sw->r[0][c].config);
	fprintf(f, "\n");
	for (k = 0; k < sw->n; k++) {
		char s[32], row[80];
		int bok = bench_sweep_tps(sw, k, "baseline", u, &bt);
		double mb = sw->nr[k] ? sw->r[k][0].bp_mb : 0;

		/* the pool used: at least what in-flight pages need, at most the datafile */
		bench_sweep_size(sw->mb[k], s, sizeof(s));
		if (fabs(mb - sw->mb[k]) > 0.05)
			snprintf(row, sizeof(row), "%s (%.1fM)", s, mb);
		else
			snprintf(row, sizeof(row), "%s", s);
		fprintf(f, "%18s", row);
		for (c = 0; c < sw->nr[0]; c++) {
			char cell[64];

			if (!bench_sweep_tps(sw, k, sw->r[0][c].config, u, &t))
				snprintf(cell, sizeof(cell), "-");
			else if (!c)
				snprintf(cell, sizeof(cell), "%.2f", t);
			else if (bok)
				snprintf(cell, sizeof(cell), "%.2f (%.2fx)", t, t / bt);
			else
				snprintf(cell, sizeof(cell), "%.2f (-)", t);
			fprintf(f, " %20s", cell);
		}
		fprintf(f, "\n");
	}
	bench_sweep_advice(sw, &a);
	fprintf(f, "%s\n", a.text);
}
