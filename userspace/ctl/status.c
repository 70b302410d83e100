// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl status, and the hidden __complete of the shell completion.
 *
 * status takes two samples of every status line (0.5 s apart, or the
 * --watch interval) to turn counters into IOPS and writeback rates;
 * --prometheus prints the counters themselves (fc_prom.c), from one sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_json.h"
#include "fc_check.h"
#include "fc_prom.h"
#include "fc_status.h"
#include "fc_show.h"

static double ratio(uint64_t hit, uint64_t all)
{
	return all ? 100.0 * (double)hit / (double)all : 0;
}

struct sample {
	struct fc_live l;
	double t;
};

static const struct fc_vol *prev_vol(const struct sample *s, const struct fc_vol *v)
{
	int i;

	for (i = 0; s && i < s->l.nvols; i++)
		if (!strcmp(s->l.vols[i].name, v->name))
			return &s->l.vols[i];
	return NULL;
}

static double rate(uint64_t now, uint64_t before, double dt)
{
	return dt > 0 && now >= before ? (double)(now - before) / dt : 0;
}

static int selected_pool(const struct fc_pool *p, const struct fc_live *l, const char *sel,
			 const struct fc_vol *selvol)
{
	(void)l;
	if (!sel)
		return 1;
	if (selvol)
		return selvol->pool_dev == p->dev;
	return 1;
}

/* Registered volumes without a live table: their dirty data and what to do. */
static void print_unattached(struct fc_live *l, struct fc_pool *p)
{
	struct fc_ondisk_vol ov[64];
	uint64_t bsz = (uint64_t)p->block_sectors * 512;
	char a[32];
	int i, n = fc_pool_unattached(l, p, ov, 64, 0);

	if (n < 0) {
		printf("  note: %" PRIu64 " registered volume(s) not attached (volume table unreadable)\n",
		       p->st.registered_volumes - p->st.active_volumes);
		return;
	}
	for (i = 0; i < n; i++) {
		fc_fmt_bytes(a, sizeof(a), (double)ov[i].dirty_hint * (double)bsz);
		printf("  not attached: id %u '%s', %" PRIu64 " dirty blocks (%s)%s\n", ov[i].id, ov[i].label,
		       ov[i].dirty_hint, a, ov[i].detached ? ", DETACHED at run time (not by fcachectl)" : "");
		if (ov[i].detached && ov[i].dirty_hint)
			printf("    its origin may hold newer writes: choose with 'fcachectl resolve %s %u --replay' (the pool's data is newer) or '--discard' (the origin is authoritative)\n",
			       p->name, ov[i].id);
		else if (ov[i].detached)
			printf("    no dirty data: attaching it again drops its cached data (the origin may have changed)\n");
		else if (ov[i].dirty_hint)
			printf("    its origin is stale until attached again: 'fcachectl up' or 'fcachectl enable ORIGIN --pool %s --id %u'\n",
			       p->name, ov[i].id);
		else
			printf("    no dirty data: 'fcachectl up' or 'enable --id %u' attaches it again\n", ov[i].id);
	}
}

/* The value of counter @key in a "stats" answer @resp; -1 if it has none. */
static long long stats_value(const char *resp, const char *key)
{
	size_t n = strlen(key);
	const char *q;

	for (q = resp; (q = strstr(q, key)); q += n)
		if ((q == resp || q[-1] == ' ') && q[n] == '=')
			return strtoll(q + n + 1, NULL, 10);
	return -1;
}

/*
 * A pool with ordered write-back (table option "ordered 1"): how far its
 * origins lag (the status line's fields 22 and 23, the figures --json and
 * --prometheus give), and the bound (ordered_lag) that holds flushes back,
 * with how often it did (the "stats" message: not in the status line).
 */
static void print_ordered(const struct fc_pool *p)
{
	const struct fc_pool_status *st = &p->st;
	char *resp = NULL, buf[32];
	struct fc_show sh;
	long long waits = -1;
	const char *ord, *bound;

	if (fc_show_parse_pool(&sh, p->name, p->table))
		return;
	ord = fc_show_get(&sh, "ordered", buf, sizeof(buf));
	if (!ord || strcmp(ord, "1"))
		return;
	if (!st->have_origin) {
		printf("  ordered write-back: this module does not report the origins' lag\n");
		return;
	}
	if (!st->origin_behind)
		printf("  ordered write-back: the origins are current");
	else
		printf("  ordered write-back: the origins hold the volumes as they were %" PRIu64 " flush point%s (%" PRIu64 " s) ago",
		       st->origin_behind, st->origin_behind == 1 ? "" : "s", st->origin_lag);
	bound = fc_show_get(&sh, "ordered_lag", buf, sizeof(buf));
	if (!bound || !strcmp(bound, "0")) {
		printf("; no bound (ordered_lag 0)\n");
		return;
	}
	if (!fc_dm_message(p->name, "stats", &resp) && resp)
		waits = stats_value(resp, "lag_waits");
	free(resp);
	if (waits < 0)
		printf("; bound ordered_lag %s\n", bound);
	else
		printf("; bound ordered_lag %s, flushes held by it %lld times\n", bound, waits);
}

/* --counters: a device's "stats" message answer, wrapped, under @title. */
static void print_counters(const char *dev, const char *title)
{
	char *resp = NULL, *tok, *sv = NULL;
	int col = 0;

	if (fc_dm_message(dev, "stats", &resp) || !resp) {
		printf("    %s: unavailable (%s)\n", title, resp ? "empty" : fc_dm_error());
		free(resp);
		return;
	}
	printf("    %s:", title);
	for (tok = strtok_r(resp, " ", &sv); tok; tok = strtok_r(NULL, " ", &sv)) {
		if (col && col + strlen(tok) > 72) {
			printf("\n     ");
			col = 0;
		}
		col += printf(" %s", tok);
	}
	printf("\n");
	free(resp);
}

static void print_text(const struct sample *s, const struct sample *old, const char *sel,
		       struct fc_pool *selpool, struct fc_vol *selvol, int counters)
{
	double dt = old ? s->t - old->t : 0;
	char a[32], b[32], c[32];
	int i, k, any;

	for (i = 0; i < s->l.npools; i++) {
		struct fc_pool *p = &s->l.pools[i];
		const struct fc_pool_status *st = &p->st;
		double tot = st->total_blocks ? (double)st->total_blocks : 1, wb = 0;
		uint64_t bsz = (uint64_t)p->block_sectors * 512;

		if (selpool && selpool != p)
			continue;
		if (!selected_pool(p, &s->l, sel, selvol))
			continue;
		for (k = 0; k < s->l.nvols; k++) {
			const struct fc_vol *v = &s->l.vols[k], *o = prev_vol(old, v);

			if (v->pool_dev == p->dev && o)
				wb += rate(v->st.writebacks, o->st.writebacks, dt) * (double)bsz;
		}
		fc_status_pool_head(stdout, p, fc_dev_path);
		if (!p->have_status) {
			printf("  (status unreadable)\n");
			continue;
		}
		fc_fmt_bytes(a, sizeof(a), (double)st->used_blocks * (double)bsz);
		fc_fmt_bytes(b, sizeof(b), (double)st->dirty_blocks * (double)bsz);
		fc_fmt_bytes(c, sizeof(c), wb);
		printf("  occupancy %5.1f%% (%s)   dirty %5.1f%% (%s)   metadata %s%s   commit seq %" PRIu64 "\n",
		       100.0 * st->used_blocks / tot, a, 100.0 * st->dirty_blocks / tot, b,
		       st->metadata_mode, st->needs_check ? ", NEEDS CHECK" : "", st->commit_seq);
		printf("  writeback %s, %" PRIu64 " in flight, %s/s   errors: flash read %" PRIu64 ", flash write %" PRIu64 ", metadata %" PRIu64 "\n",
		       st->wb_state, st->wb_inflight, old ? c : "-", st->flash_read_errors,
		       st->flash_write_errors, st->metadata_errors);
		if (strcmp(st->metadata_mode, "rw"))
			printf("  READ-ONLY METADATA: writes to %" PRIu64 " blocks fail; flushes %s; run 'fcachectl check --repair %s' with the pool down\n",
			       st->unwritable_blocks,
			       !strcmp(st->flushes, "ok") ? "succeed" :
			       !strcmp(st->flushes, "draining") ? "fail until the dirty data is written back" :
			       "fail", fc_dev_path(p->flash));
		if (!strcmp(st->acks, "held"))
			printf("  FLUSHES HELD (fence_hold): the pool runs on one copy; flushes and FUA writes are acknowledged once the other copy is recorded outdated ('dmsetup message %s 0 peer_outdated', sent by the cluster's agent)\n",
			       p->name);
		print_ordered(p);
		printf("  volumes: %" PRIu64 " active, %" PRIu64 " registered\n", st->active_volumes,
		       st->registered_volumes);
		if (counters)
			print_counters(p->name, "commit counters");
		if (st->registered_volumes > st->active_volumes)
			print_unattached((struct fc_live *)&s->l, p);
		any = 0;
		for (k = 0; k < s->l.nvols; k++) {
			const struct fc_vol *v = &s->l.vols[k], *o = prev_vol(old, v);
			const struct fc_vol_status *vs = &v->st;

			if (v->pool_dev != p->dev || (selvol && selvol != v))
				continue;
			if (!any++)
				printf("  %-20s %-12s %3s %10s %10s %7s %7s %9s %9s %6s\n", "VOLUME", "MODE", "ID",
				       "CACHED", "DIRTY", "RD-HIT", "WR-HIT", "RD-IOPS", "WR-IOPS", "ERRORS");
			fc_fmt_bytes(a, sizeof(a), (double)vs->cached_blocks * (double)bsz);
			fc_fmt_bytes(b, sizeof(b), (double)vs->dirty_blocks * (double)bsz);
			if (o)
				printf("  %-20s %-12s %3u %10s %10s %6.1f%% %6.1f%% %9.0f %9.0f %6" PRIu64 "\n",
				       v->name, vs->mode, v->id, a, b, ratio(vs->read_hits, vs->reads),
				       ratio(vs->write_hits, vs->writes), rate(vs->reads, o->st.reads, dt),
				       rate(vs->writes, o->st.writes, dt), vs->errors);
			else
				printf("  %-20s %-12s %3u %10s %10s %6.1f%% %6.1f%% %9s %9s %6" PRIu64 "\n",
				       v->name, vs->mode, v->id, a, b, ratio(vs->read_hits, vs->reads),
				       ratio(vs->write_hits, vs->writes), "-", "-", vs->errors);
			if (counters)
				print_counters(v->name, "counters");
		}
	}
	if (!s->l.npools && !sel)
		printf("no fcache pools\n");
}

static void print_json(struct sample *s, const struct sample *old, struct fc_pool *selpool,
		       struct fc_vol *selvol)
{
	static const struct fc_status_hooks h = { fc_dev_path, fc_pool_unattached };

	fc_status_json(stdout, &s->l, old ? &old->l : NULL, old ? s->t - old->t : 0, selpool, selvol,
		       &h);
}

/*
 * One exposition to stdout, or to @file through @file.tmp and a rename (a
 * reader sees the old file or the new one, never a part).  0 or -1 (said).
 */
static int prom_out(const struct fc_live *l, const struct fc_prom_sel *sel, const char *file)
{
	char tmp[4096];
	FILE *f;
	int fd;

	if (!file) {
		fc_prom_write(stdout, l, sel, fc_dev_path);
		if (!fflush(stdout))
			return 0;
		fc_fail("status: writing the output: %s", strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= sizeof(tmp)) {
		fc_fail("status: --prometheus-file: path too long");
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fc_fail("status: cannot write %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fc_prom_write(f, l, sel, fc_dev_path);
	if (ferror(f) | fclose(f)) {
		fc_fail("status: cannot write %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, file)) {
		fc_fail("status: cannot rename %s to %s: %s", tmp, file, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * --prometheus: counters need no second sample, so the first exposition is
 * written at once; with --watch another every @watch seconds.
 */
static int status_prom(const char *sel, double watch, const char *file)
{
	struct fc_prom_sel ps = { sel != NULL, NULL, NULL };
	struct fc_live l;
	int first = 1;

	fc_install_sigint();
	for (;;) {
		if (fc_live_scan(&l))
			return fc_fail("status: cannot talk to device-mapper: %s", fc_dm_error());
		ps.pool = sel ? fc_live_pool(&l, sel) : NULL;
		ps.vol = sel && !ps.pool ? fc_live_vol(&l, sel) : NULL;
		if (first && sel && !ps.pool && !ps.vol) {
			fc_live_free(&l);
			return fc_fail("status: '%s' is neither an fcache pool nor a cached volume (see 'fcachectl status')",
				       sel);
		}
		first = 0;
		if (prom_out(&l, &ps, file)) {
			fc_live_free(&l);
			return EXIT_FAIL;
		}
		fc_live_free(&l);
		if (!watch || fc_interrupted)
			break;
		usleep((useconds_t)(watch * 1e6));
		if (fc_interrupted)
			break;
	}
	return EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	struct sample a, b, *cur = &a, *old = &b, *tmp;
	struct fc_pool *selpool = NULL;
	struct fc_vol *selvol = NULL;
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "prometheus-file", required_argument, NULL, 'F' },
		{ "counters", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 }
	};
	const char *sel = NULL, *schema = NULL, *pfile = NULL;
	double watch = 0, ival;
	struct fc_opt o;
	int json = 0, prom = 0, counters = 0, c, i;

	fc_opt_init(&o, argc, argv, "", opts, "status", "status");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case 'j':
			json = 1;
			schema = "fcache.status";
			break;
		case 'c':
			counters = 1;
			break;
		case 'w':
			if (fc_parse_num(o.arg, 0.1, 3600, 0, &watch))
				return fc_usage("status", "status: bad --watch '%s': seconds, 0.1..3600", o.arg);
			break;
		case 'P':
			prom = 1;
			break;
		case 'F':
			if (!*o.arg)
				return fc_usage("status", "status: --prometheus-file needs a PATH");
			prom = 1;
			pfile = o.arg;
			break;
		case FC_OPT_OPERAND:
			if (sel)
				return fc_usage("status", "status: one POOL or VOLUME at a time");
			sel = o.arg;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (json && prom)
		return fc_usage("status", "status: --json and --prometheus exclude each other");
	if (prom)
		return status_prom(sel, watch, pfile);
	ival = watch ? watch : 0.5;
	if (fc_live_scan(&b.l))
		return fc_fail_json(schema, "status: cannot talk to device-mapper: %s", fc_dm_error());
	b.t = fc_now();
	if (sel && !fc_live_pool(&b.l, sel) && !fc_live_vol(&b.l, sel)) {
		fc_live_free(&b.l);
		return fc_fail_json(schema, "status: '%s' is neither an fcache pool nor a cached volume (see 'fcachectl status')",
				    sel);
	}
	fc_install_sigint();
	for (;;) {
		if (!fc_interrupted)
			usleep((useconds_t)(ival * 1e6));
		if (fc_live_scan(&cur->l)) {
			fc_live_free(&old->l);
			return fc_fail_json(schema, "status: cannot talk to device-mapper: %s", fc_dm_error());
		}
		cur->t = fc_now();
		for (i = 0; i < cur->l.npools; i++)
			fc_pool_find_legs(&cur->l.pools[i]);
		selpool = sel ? fc_live_pool(&cur->l, sel) : NULL;
		selvol = sel && !selpool ? fc_live_vol(&cur->l, sel) : NULL;
		if (watch && !json)
			fputs("\033[H\033[J", stdout);
		if (watch && !json)
			printf("fcachectl status, every %g s (Ctrl-C to stop)\n\n", watch);
		if (sel && !selpool && !selvol && json)
			fc_fail_json(schema, "status: %s is gone", sel);
		else if (sel && !selpool && !selvol)
			printf("%s is gone\n", sel);
		else if (json)
			print_json(cur, old, selpool, selvol);
		else
			print_text(cur, old, sel, selpool, selvol, counters);
		fflush(stdout);
		fc_live_free(&old->l);
		tmp = old;
		old = cur;
		cur = tmp;
		if (!watch || fc_interrupted)
			break;
	}
	fc_live_free(&old->l);
	return EXIT_OK;
}

/*
 * fcachectl __complete pools|volumes|targets: the names, one a line, for
 * the shell completion (completion/fcachectl).  One scan of device-mapper,
 * no sampling, nothing on stderr; exit 1 without device-mapper.
 * __complete bash: the completion's word lists of settings and modes, from
 * the table of tunables.c (the generated part of completion/fcachectl).
 */
int cmd_complete(int argc, char **argv)
{
	struct fc_live l;
	int i, pools, vols;

	if (argc != 2)
		return EXIT_USAGE;
	if (!strcmp(argv[1], "bash")) {	/* the word lists of completion/fcachectl: no scan */
		fc_tunables_bash(stdout);
		return EXIT_OK;
	}
	pools = !strcmp(argv[1], "pools") || !strcmp(argv[1], "targets");
	vols = !strcmp(argv[1], "volumes") || !strcmp(argv[1], "targets");
	if (!pools && !vols)
		return EXIT_USAGE;
	if (fc_live_scan(&l))
		return EXIT_FAIL;
	for (i = 0; pools && i < l.npools; i++)
		printf("%s\n", l.pools[i].name);
	for (i = 0; vols && i < l.nvols; i++)
		if (fc_live_pool_by_dev(&l, l.vols[i].pool_dev))
			printf("%s\n", l.vols[i].name);
	fc_live_free(&l);
	return EXIT_OK;
}
