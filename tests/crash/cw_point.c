// SPDX-License-Identifier: GPL-2.0
/*
 * cw_point: the crash-point loop of tests/crash/replay-guest.sh in one
 * process (a dozen processes a point made ~11 s a point under TCG).
 *
 *   cw_point LOG INDEX RDEV COWDEV ORACLE PLAIN SUBSET FLASH_SECTORS
 *            ORIGIN_SECTORS BLOCK_SECTORS SEED WORKDIR [--trace]
 *            [--negative] [--mirror] [--ordered [--ordered-bound N]]
 *
 * PLAIN and SUBSET list crash points (log entry numbers), one a line.  In
 * log order over their union, the log is replayed incrementally onto RDEV
 * (which must hold nothing yet); at each point in PLAIN the prefix state,
 * at each point in SUBSET a random-subset variant (writes of the next
 * window, torn at every other point), is checked on a throw-away view of
 * RDEV: a non-persistent dm-snapshot over it (COWDEV holds the changes),
 * sliced into a flash and an origin by dm-linear.  The check of a state:
 *   1. the flash slice's metadata, offline (fcachectl check's code);
 *   2. a pool and a writeback volume load on the slices;
 *   3. every sector read through the volume against the oracle (cw_work
 *      verify's code, in a child: an I/O error fails the point, not us);
 *   4. the volume's flush; orderly teardown (detach, remove);
 *   5. the origin slice alone against the oracle, byte-equal to what the
 *      volume returned.
 * Device-mapper is driven by ioctls (no udev, no dmsetup): tables name
 * devices by major:minor, nodes for I/O are made in WORKDIR.
 *
 * --mirror: a mirrored pool (replay-guest.sh mirror=1).  RDEV holds four
 * slices: leg0 and leg1 (FLASH_SECTORS each), the origin, and leg2 (a
 * device that replaced leg1 after it failed at run time).  The log's marks
 * x-legfail (leg1 swapped for the error target next) and x-replace (leg2
 * brought in next) split the points into three phases; the pair is leg0 +
 * leg1 before x-replace, leg0 + leg2 after it.  At each point, each on a
 * throw-away view of its own:
 *   1. fcachectl check's code on both legs (leg2 before its first commit
 *      holds no pool: allowed), and on the pair when they load together;
 *   2. the pair loaded and checked as steps 2-5 above.  Before x-legfail it
 *      must load; after it, it must load exactly when the legs' superblocks
 *      say they belong together (check's pair verdict in_sync or lagging:
 *      the design refuses a stale leg, and a new leg before the commit that
 *      takes it in), and be refused otherwise;
 *   3. leg0 alone (mirror - degraded 1), checked as steps 2-5: it is in
 *      service from start to end and must hold every flushed write;
 *   4. the other leg alone, read through the volume against the oracle,
 *      unless it is stale (its partner recorded it failed) or holds no
 *      pool yet; it may be refused only as the design allows, with ENODATA
 *      ("dirty data had its only copy on the missing flash device") while
 *      its own metadata counts dirty blocks with one copy (a resync not
 *      done), never before x-legfail.
 *
 * --ordered (replay-guest.sh ordered=1|check, one device only): first of
 * all, before the pool is loaded, the origin slice alone (as the replayed
 * log left it, the flash ignored) is checked by cw_work verify-ordered
 * (in a child): it must equal the volume at one flush point (an oracle
 * mark) plus any subset of the writes issued after it and before the
 * next, what the pool option "ordered 1" promises; --ordered-bound N: and
 * at most N marks behind the point's dmark.  Torn or older points are
 * counted apart (a line "# ORDERED-FAIL ..." for the first 10, each in
 * WORKDIR/ordered-failures), not as failures of the walk; the checks
 * above then run unchanged.
 *
 * Prints a line per failing point ("# POINT-FAIL ...", also appended to
 * WORKDIR/failures), every 10th point a progress line, and at the end
 *   "walk: <n> replayed <l> lost <s> stale <c> check"
 * preceded, with --ordered, by
 *   "ordered: <n> checked <t> torn <o> older"
 * Exit: 0 the walk ran (whatever it found), 2 the harness failed.
 */

/*
 * The log reader and the oracle's verifier (their shared helpers are in
 * crash_util.h), each with its own main, random numbers and usage renamed.
 */
#define main lw_main
#define rnd lw_rnd
#define rng lw_rng
#define usage lw_usage
#include "lw_replay.c"
#undef main
#undef rnd
#undef rng
#undef usage
#define main cw_main
#define rnd cw_rnd
#include "cw_work.c"
#undef main
#undef rnd

#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include "fc_check.h"

static int ctl = -1, trace, negative, mirror, ordered;
static const char *wdir, *ord_bound;

static void step(const char *what, uint64_t k)
{
	struct timespec ts;

	if (!trace)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("# %ld.%03ld entry %" PRIu64 ": %s\n", (long)ts.tv_sec, ts.tv_nsec / 1000000, k, what);
}

union dmbuf {
	struct dm_ioctl io;
	char b[16384];
};

static void dm_init(union dmbuf *u, const char *name)
{
	memset(u, 0, sizeof(*u));
	u->io.version[0] = DM_VERSION_MAJOR;
	u->io.version[1] = 0;
	u->io.version[2] = 0;
	u->io.data_size = sizeof(*u);
	u->io.data_start = sizeof(struct dm_ioctl);
	snprintf(u->io.name, sizeof(u->io.name), "%s", name);
}

/* dm_create NAME "TYPE ARGS" over SECTORS; 0 and *dev, or -errno (err: why) */
static int dm_create(const char *name, uint64_t sectors, const char *target, dev_t *dev,
		     char *err, size_t errlen)
{
	union dmbuf u;
	struct dm_target_spec *sp;
	char type[DM_MAX_TYPE_NAME], *params;
	const char *sp_at = strchr(target, ' ');
	int e;

	dm_init(&u, name);
	if (ioctl(ctl, DM_DEV_CREATE, &u.io)) {
		e = errno;
		snprintf(err, errlen, "create %s: %s", name, strerror(e));
		return -e;
	}
	*dev = (dev_t)u.io.dev;
	dm_init(&u, name);
	u.io.target_count = 1;
	sp = (struct dm_target_spec *)(u.b + sizeof(struct dm_ioctl));
	sp->sector_start = 0;
	sp->length = sectors;
	snprintf(type, sizeof(type), "%.*s", (int)(sp_at - target), target);
	snprintf(sp->target_type, sizeof(sp->target_type), "%s", type);
	params = (char *)(sp + 1);
	snprintf(params, sizeof(u) - sizeof(struct dm_ioctl) - sizeof(*sp), "%s", sp_at + 1);
	sp->next = 0;
	if (ioctl(ctl, DM_TABLE_LOAD, &u.io)) {
		e = errno;
		snprintf(err, errlen, "table of %s refused (%s): %s", name, strerror(e), target);
		goto undo;
	}
	dm_init(&u, name);
	if (ioctl(ctl, DM_DEV_SUSPEND, &u.io)) {	/* no DM_SUSPEND_FLAG: resume */
		e = errno;
		snprintf(err, errlen, "resume %s: %s", name, strerror(e));
		goto undo;
	}
	return 0;
undo:
	dm_init(&u, name);
	ioctl(ctl, DM_DEV_REMOVE, &u.io);
	return -e;
}

static int dm_remove(const char *name)
{
	union dmbuf u;
	int i;

	for (i = 0; i < 50; i++) {
		dm_init(&u, name);
		if (!ioctl(ctl, DM_DEV_REMOVE, &u.io) || errno == ENXIO)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	return -errno;
}

static int dm_message(const char *name, const char *msg)
{
	union dmbuf u;
	struct dm_target_msg *m;

	dm_init(&u, name);
	m = (struct dm_target_msg *)(u.b + sizeof(struct dm_ioctl));
	m->sector = 0;
	snprintf(m->message, sizeof(u) - sizeof(struct dm_ioctl) - sizeof(*m), "%s", msg);
	return ioctl(ctl, DM_TARGET_MSG, &u.io) ? -errno : 0;
}

/* the value of NAME=N in pool NAME's answer to the "stats" message; 0 if none */
static uint64_t pool_stat(const char *pool, const char *key)
{
	union dmbuf u;
	struct dm_target_msg *m;
	const char *p, *ans;
	size_t kl = strlen(key);

	dm_init(&u, pool);
	m = (struct dm_target_msg *)(u.b + sizeof(struct dm_ioctl));
	m->sector = 0;
	snprintf(m->message, sizeof(u) - sizeof(struct dm_ioctl) - sizeof(*m), "stats");
	if (ioctl(ctl, DM_TARGET_MSG, &u.io) || !(u.io.flags & DM_DATA_OUT_FLAG))
		return 0;
	u.b[sizeof(u) - 1] = 0;
	ans = u.b + u.io.data_start;
	for (p = ans; (p = strstr(p, key)); p += kl)
		if ((p == ans || p[-1] == ' ') && p[kl] == '=')
			return strtoull(p + kl + 1, NULL, 10);
	return 0;
}

/* a block node for DEV in WORKDIR */
static const char *node(const char *name, dev_t dev)
{
	static char path[8][512];
	static int n;
	char *p = path[n++ % 8];

	snprintf(p, sizeof(path[0]), "%s/dev-%s", wdir, name);
	unlink(p);
	if (mknod(p, S_IFBLK | 0600, dev))
		die(2, "mknod %s: %s", p, strerror(errno));
	return p;
}

static const char *mm(dev_t dev)
{
	static char b[4][32];
	static int n;
	char *p = b[n++ % 4];

	snprintf(p, sizeof(b[0]), "%u:%u", major(dev), minor(dev));
	return p;
}

/*
 * @fn(@argc, @argv) (cw_work's verify or verify-ordered) in a child, its
 * output to @out (an I/O error of the image fails the point, not us); its
 * exit status, 2 if it did not exit.
 */
static int run_child(int (*fn)(int, char **), int argc, char **argv, const char *out)
{
	pid_t pid;
	int st, fd;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die(2, "fork: %s", strerror(errno));
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(2);
		dup2(fd, 1);
		dup2(fd, 2);
		exit(fn(argc, argv));
	}
	if (waitpid(pid, &st, 0) != pid)
		die(2, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

/*
 * cw_work verify DEV ORACLE DMARK BMARK [OPT IMG] in a child: its exit
 * status (0 ok, 1 lost or stale, 2 I/O error), and in *lost / *stale
 * whether it found any.
 */
static int verify(const char *dev, const char *oracle, const char *dmark, const char *bmark,
		  const char *opt, const char *img, const char *out, int *lost, int *stale)
{
	char *argv[8] = { (char *)dev, (char *)oracle, (char *)dmark, (char *)bmark,
			  (char *)opt, (char *)img, NULL, NULL };
	char line[512];
	int r = run_child(cmd_verify, opt ? 6 : 4, argv, out);
	FILE *f;

	*lost = *stale = 0;
	f = fopen(out, "r");
	while (f && fgets(line, sizeof(line), f)) {
		uint64_t b, l, s;

		if (sscanf(line, "verify: %" SCNu64 " blocks, lost %" SCNu64 " stale %" SCNu64, &b, &l, &s) == 3) {
			*lost = l > 0;
			*stale = s > 0;
		}
	}
	if (f)
		fclose(f);
	return r;
}

/*
 * cw_work verify-ordered in a child, as verify(): exit status 0 consistent
 * (within the bound), 1 torn, 3 older than the bound, 2 I/O error; *lag
 * the marks behind DMARK its first line names (when consistent).
 */
static int verify_ordered(const char *dev, const char *oracle, const char *dmark, const char *out,
			  int64_t *lag)
{
	char *argv[6] = { (char *)dev, (char *)oracle, (char *)dmark, "--bound", (char *)ord_bound, NULL };
	char line[512];
	int r = run_child(cmd_verify_ordered, ord_bound ? 5 : 3, argv, out);
	FILE *f;

	*lag = 0;
	f = fopen(out, "r");
	while (f && fgets(line, sizeof(line), f)) {
		int64_t k, l;

		if (sscanf(line, "verify-ordered: consistent at mark %" SCNd64 " (%" SCNd64, &k, &l) == 2)
			*lag = l;
	}
	if (f)
		fclose(f);
	return r;
}

/* the last line of FILE (a short reason for a failure line) */
static const char *tail1(const char *file)
{
	static char last[600];
	char line[600];
	FILE *f = fopen(file, "r");

	last[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			memcpy(last, line, sizeof(line));
	if (f)
		fclose(f);
	last[strcspn(last, "\n")] = 0;
	return last;
}

struct walk {
	const struct lw *l;
	const char *oracle, *rdev, *failures;
	dev_t rdev_dev, cow_dev;
	uint64_t fs, os, bs, seed;
	uint64_t n, lost, stale, check, shown;
	uint64_t warm_points, warm_blocks;	/* points whose load kept warm blocks, and those */
	/* --ordered: points checked, torn, older than the bound; the largest lag */
	uint64_t ord_n, ord_torn, ord_older, ord_shown;
	int64_t ord_maxlag;
	uint64_t k;
	const char *variant;
	char dmark[64], bmark[64];
	/* --mirror: entries of the marks x-legfail, x-replace (UINT64_MAX: none) */
	uint64_t legfail, replace;
	uint64_t pair_refused, alone_refused, alone_skipped, phase_n[3];
	const char *what;	/* the load being checked ("pair", "leg0 alone", ...) */
};

static void point_fail(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void point_fail(struct walk *w, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->shown++ < 30)
		printf("# POINT-FAIL bs%" PRIu64 " entry %" PRIu64 " %s%s%s: %s\n", w->bs, w->k, w->variant,
		       w->what ? " " : "", w->what ? w->what : "", msg);
	f = fopen(w->failures, "a");
	if (f) {
		fprintf(f, "bs%" PRIu64 " seed %" PRIu64 " entry %" PRIu64 " %s%s%s dmark %s bmark %s: %s\n",
			w->bs, w->seed, w->k, w->variant, w->what ? " " : "", w->what ? w->what : "",
			w->dmark, w->bmark, msg);
		fclose(f);
	}
}

/* an ordered point that is torn or older than the bound: not a walk failure */
static void ordered_fail(struct walk *w, const char *msg)
{
	char p[600];
	FILE *f;

	if (w->ord_shown++ < 10)
		printf("# ORDERED-FAIL bs%" PRIu64 " entry %" PRIu64 " %s: %s\n", w->bs, w->k, w->variant, msg);
	snprintf(p, sizeof(p), "%s/ordered-failures", wdir);
	f = fopen(p, "a");
	if (f) {
		fprintf(f, "bs%" PRIu64 " seed %" PRIu64 " entry %" PRIu64 " %s dmark %s bmark %s: %s\n",
			w->bs, w->seed, w->k, w->variant, w->dmark, w->bmark, msg);
		fclose(f);
	}
}

/* the marks from a replay's " ... dmark X bmark Y last Z" line */
static void take_marks(struct walk *w, const char *out)
{
	char line[512];
	FILE *f = fopen(out, "r");
	const char *p;

	strcpy(w->dmark, "?");
	strcpy(w->bmark, "?");
	while (f && fgets(line, sizeof(line), f)) {
		p = strstr(line, " dmark ");
		if (p)
			sscanf(p, " dmark %63s bmark %63s", w->dmark, w->bmark);
	}
	if (f)
		fclose(f);
}

/* lw_replay's replay, its output (the marks) into FILE */
static void replay(struct walk *w, const char *dev, uint64_t from, uint64_t to, uint64_t subset,
		   int tear, const char *file)
{
	char a_from[32], a_to[32], a_seed[32];
	char *argv[12];
	int argc = 0, fd, saved;

	snprintf(a_from, sizeof(a_from), "%" PRIu64, from);
	snprintf(a_to, sizeof(a_to), "%" PRIu64, to);
	snprintf(a_seed, sizeof(a_seed), "%" PRIu64, subset);
	argv[argc++] = "--from";
	argv[argc++] = a_from;
	argv[argc++] = "--to";
	argv[argc++] = a_to;
	argv[argc++] = "--marks";
	argv[argc++] = "cw";
	if (subset) {
		argv[argc++] = "--subset";
		argv[argc++] = a_seed;
		if (tear)
			argv[argc++] = "--tear";
	}
	argv[argc] = NULL;
	fflush(stdout);
	saved = dup(1);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || saved < 0)
		die(2, "%s: %s", file, strerror(errno));
	dup2(fd, 1);
	close(fd);
	cmd_replay(w->l, dev, argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	take_marks(w, file);
}

static void teardown(void)
{
	dm_remove("cwp-vol");
	dm_remove("cwp-pool");
	dm_remove("cwp-flash");
	dm_remove("cwp-leg");
	dm_remove("cwp-origin");
	dm_remove("cwp-snap");
}

/*
 * A throw-away view of RDEV (plus, for a subset variant, the writes of the
 * window after k) and its slices: the flash (leg0), the origin and, with
 * --mirror, the other leg of the pair (*leg: leg1, or leg2 from phase 2).
 */
static void view(struct walk *w, uint64_t subset, int tear, int phase, dev_t *flash, dev_t *leg,
		 dev_t *origin)
{
	char err[1024], tab[256], rep[600];
	uint64_t total = w->fs + w->os, ooff = w->fs;
	dev_t snap;

	if (mirror) {
		total = 3 * w->fs + w->os;
		ooff = 2 * w->fs;
	}
	snprintf(rep, sizeof(rep), "%s/subset.out", wdir);
	step("view", w->k);
	snprintf(tab, sizeof(tab), "snapshot %s %s N 128", mm(w->rdev_dev), mm(w->cow_dev));
	if (dm_create("cwp-snap", total, tab, &snap, err, sizeof(err)))
		die(2, "%s", err);
	if (subset) {
		step("subset", w->k);
		replay(w, node("snap", snap), w->k + 1, w->k, subset, tear, rep);
	}
	snprintf(tab, sizeof(tab), "linear %s 0", mm(snap));
	if (dm_create("cwp-flash", w->fs, tab, flash, err, sizeof(err)))
		die(2, "%s", err);
	snprintf(tab, sizeof(tab), "linear %s %" PRIu64, mm(snap), ooff);
	if (dm_create("cwp-origin", w->os, tab, origin, err, sizeof(err)))
		die(2, "%s", err);
	if (mirror) {
		snprintf(tab, sizeof(tab), "linear %s %" PRIu64, mm(snap), phase == 2 ? 2 * w->fs + w->os : w->fs);
		if (dm_create("cwp-leg", w->fs, tab, leg, err, sizeof(err)))
			die(2, "%s", err);
	}
}

/*
 * fcachectl check's code on DEV (named NAME in its report, into CHK):
 * 0 consistent, 1 not; *outcome; *lone the dirty blocks it counts with one
 * copy only (a mirrored pool's report line).
 */
static int check_dev(dev_t dev, const char *name, const char *chk, enum fc_check_outcome *outcome,
		     uint64_t *lone)
{
	char line[512];
	uint64_t a, b;
	FILE *f;
	int fd, r;

	fd = open(node(name, dev), O_RDONLY);
	f = fopen(chk, "w");
	if (fd < 0 || !f)
		die(2, "%s view / %s: %s", name, chk, strerror(errno));
	r = fc_check_fd_outcome(fd, name, FC_OUT_CHECK, 0, f, outcome);
	fclose(f);
	close(fd);
	*lone = 0;
	f = fopen(chk, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " dirty blocks: %" SCNu64 " with a twin on the other leg, %" SCNu64, &a, &b) == 2)
			*lone = b;
	if (f)
		fclose(f);
	return r;
}

/*
 * The end of a full check: the volume's flush, orderly detach and
 * teardown of volume and pool, then (when the volume's reads were saved
 * and all went well) the origin alone against them.  Returns 1 for a
 * check failure; lost / stale are or-ed in.
 */
static int flush_teardown_origin(struct walk *w, dev_t origin, const char *out, int bad,
				 int *lost, int *stale)
{
	int l = 0, s = 0, r;

	step("flush", w->k);
	r = dm_message("cwp-vol", "flush");
	if (r) {
		bad = 1;
		point_fail(w, "volume flush failed: %s", strerror(-r));
	}
	dm_message("cwp-vol", "detach");
	if (dm_remove("cwp-vol") || dm_remove("cwp-pool")) {
		point_fail(w, "teardown of volume and pool failed: %s", strerror(errno));
		return 1;
	}
	if (bad || !*verify_shm_saved)
		return bad;
	step("verify origin", w->k);
	r = verify(node("origin", origin), w->oracle, w->dmark, w->bmark, "--same", "-", out, &l, &s);
	if (r == 1) {
		point_fail(w, "origin alone after the flush: %s", tail1(out));
		*lost |= l;
		*stale |= s;
	} else if (r) {
		point_fail(w, "origin read failed: %s", tail1(out));
		return 1;
	}
	return 0;
}

/*
 * Load the pool (POOLTAB) and a writeback volume on the view and check
 * them: every sector through the volume; with FULL, the flush, orderly
 * teardown and the origin alone too.  *refused gets the errno of a
 * refused pool load (0: loaded); a refusal is reported only if !MAYFAIL.
 * Returns 1 for a check failure; lost / stale are or-ed in.
 */
static int load_check(struct walk *w, const char *pooltab, dev_t origin, int full, int mayfail,
		      int *refused, int *lost, int *stale)
{
	char err[1024], tab[256], out[600];
	dev_t pool, vol;
	int l = 0, s = 0, r, bad = 0;

	snprintf(out, sizeof(out), "%s/verify.out", wdir);
	*verify_shm_saved = 0;
	*refused = 0;
	step(w->what ? w->what : "load", w->k);
	r = dm_create("cwp-pool", w->fs, pooltab, &pool, err, sizeof(err));
	if (r) {
		*refused = -r;
		if (!mayfail)
			point_fail(w, "pool load refused: %s", err);
		return !mayfail;
	}
	snprintf(tab, sizeof(tab), "fcache %s %s 1 writeback", mm(pool), mm(origin));
	if (dm_create("cwp-vol", w->os, tab, &vol, err, sizeof(err))) {
		point_fail(w, "volume load refused: %s", err);
		return 1;
	}
	step("verify volume", w->k);
	r = verify(node("vol", vol), w->oracle, w->dmark, w->bmark, full ? "--save" : NULL, "-", out, &l, &s);
	if (r == 1)
		point_fail(w, "through the volume: %s", tail1(out));
	else if (r) {
		bad = 1;
		point_fail(w, "volume read failed: %s", tail1(out));
	}
	*lost |= l;
	*stale |= s;
	if (!full) {
		if (dm_remove("cwp-vol") || dm_remove("cwp-pool")) {
			point_fail(w, "teardown of volume and pool failed: %s", strerror(errno));
			return 1;
		}
		return bad;
	}
	return flush_teardown_origin(w, origin, out, bad, lost, stale);
}

/*
 * One crash state of a mirrored pool (--mirror), checked as the header
 * says.  Phase 0: before x-legfail; 1: leg1 failed; 2: leg2 replaced it.
 */
static void point_mirror(struct walk *w, uint64_t subset, int tear)
{
	int phase = w->k < w->legfail ? 0 : w->k < w->replace ? 1 : 2;
	const char *ln = phase == 2 ? "leg2" : "leg1";
	enum fc_check_outcome o0, o1;
	enum fc_pair_verdict v = FC_PAIR_FOREIGN;
	struct fc_leg_info li;
	dev_t flash, leg, origin;
	char chk[600], tab[256], why[512], what[64];
	uint64_t lone0, lone1;
	int lost = 0, stale = 0, bad = 0, refused, together, has_pool, older = -1, r, vr, fd0, fd1;

	w->phase_n[phase]++;
	snprintf(chk, sizeof(chk), "%s/check.out", wdir);
	view(w, subset, tear, phase, &flash, &leg, &origin);

	/* 1. both legs, and the pair: do they belong together? */
	step("check", w->k);
	w->what = "leg0";
	if (check_dev(flash, "leg0", chk, &o0, &lone0)) {
		bad = 1;
		point_fail(w, "fcachectl check failed: %s", tail1(chk));
	}
	fd0 = open(node("leg0", flash), O_RDONLY);
	fd1 = open(node(ln, leg), O_RDONLY);
	if (fd0 < 0 || fd1 < 0)
		die(2, "leg views: %s", strerror(errno));
	/* leg2 before the commit that takes it in: blank, or pages without a superblock */
	has_pool = fc_probe_leg(fd1, &li) == 1;
	w->what = ln;
	r = check_dev(leg, ln, chk, &o1, &lone1);
	if (r && (has_pool || phase < 2)) {
		bad = 1;
		point_fail(w, "fcachectl check failed: %s", tail1(chk));
	}
	vr = fc_pair_verdict_fd(fd0, "leg0", fd1, ln, &older, why, sizeof(why));
	if (vr >= 0)
		v = (enum fc_pair_verdict)vr;
	together = vr >= 0 && (v == FC_PAIR_IN_SYNC || v == FC_PAIR_LAGGING);
	w->what = "pair";
	if (!together && (phase == 0 || (phase == 1 && !(v == FC_PAIR_STALE && older == 1)))) {
		bad = 1;
		point_fail(w, "leg0 and %s do not belong together (%s): %s", ln,
			   vr >= 0 ? fc_pair_verdict_str(v) : "no pool", why);
	}
	if (together) {
		FILE *f = fopen(chk, "w");

		if (!f)
			die(2, "%s: %s", chk, strerror(errno));
		r = fc_check_pair_fd(fd0, "leg0", fd1, ln, 0, f, NULL);
		fclose(f);
		if (r) {
			bad = 1;
			point_fail(w, "fcachectl check of the pair failed: %s", tail1(chk));
		}
	}
	close(fd0);
	close(fd1);

	/* 2. the pair */
	snprintf(what, sizeof(what), "pair leg0+%s", ln);
	w->what = what;
	snprintf(tab, sizeof(tab), "fcache-pool %s %" PRIu64 " 2 mirror %s", mm(flash), w->bs, mm(leg));
	bad |= load_check(w, tab, origin, 1, !together, &refused, &lost, &stale);
	if (!together && !refused) {
		bad = 1;
		point_fail(w, "loaded although leg0 and %s do not belong together (%s)", ln,
			   vr >= 0 ? fc_pair_verdict_str(v) : "no pool");
	}
	w->pair_refused += !!refused;
	teardown();

	/* 3. leg0 alone */
	w->what = "leg0 alone";
	view(w, subset, tear, phase, &flash, &leg, &origin);
	snprintf(tab, sizeof(tab), "fcache-pool %s %" PRIu64 " 4 mirror - degraded 1", mm(flash), w->bs);
	bad |= load_check(w, tab, origin, 1, 0, &refused, &lost, &stale);
	teardown();

	/* 4. the other leg alone, unless stale or not a pool yet */
	snprintf(what, sizeof(what), "%s alone", ln);
	w->what = what;
	if (!has_pool || (v == FC_PAIR_STALE && older == 1)) {
		w->alone_skipped++;
	} else {
		view(w, subset, tear, phase, &flash, &leg, &origin);
		snprintf(tab, sizeof(tab), "fcache-pool %s %" PRIu64 " 4 mirror - degraded 1", mm(leg), w->bs);
		bad |= load_check(w, tab, origin, 0, 1, &refused, &lost, &stale);
		if (refused == ENODATA && lone1 && phase > 0) {
			w->alone_refused++;
		} else if (refused) {
			bad = 1;
			point_fail(w, "pool load refused (%s; its metadata counts %" PRIu64 " dirty blocks with one copy)",
				   strerror(refused), lone1);
		}
		teardown();
	}
	w->what = NULL;
	w->n++;
	w->lost += lost;
	w->stale += stale;
	w->check += bad;
}

/*
 * One crash state: the snapshot view of RDEV (plus, for a subset variant,
 * the writes of the window after k), checked as the header says.
 */
static void point(struct walk *w, uint64_t subset, int tear)
{
	char err[1024], tab[256], out[600], chk[600], rep[600];
	dev_t snap, flash, origin, pool, vol;
	int lost = 0, stale = 0, bad = 0, r, fd;
	uint64_t wk;
	FILE *f;

	if (mirror) {
		point_mirror(w, subset, tear);
		return;
	}
	snprintf(out, sizeof(out), "%s/verify.out", wdir);
	snprintf(chk, sizeof(chk), "%s/check.out", wdir);
	snprintf(rep, sizeof(rep), "%s/subset.out", wdir);
	*verify_shm_saved = 0;
	step("view", w->k);
	snprintf(tab, sizeof(tab), "snapshot %s %s N 128", mm(w->rdev_dev), mm(w->cow_dev));
	if (dm_create("cwp-snap", w->fs + w->os, tab, &snap, err, sizeof(err)))
		die(2, "%s", err);
	if (subset) {
		step("subset", w->k);
		replay(w, node("snap", snap), w->k + 1, w->k, subset, tear, rep);
	}
	snprintf(tab, sizeof(tab), "linear %s 0", mm(snap));
	if (dm_create("cwp-flash", w->fs, tab, &flash, err, sizeof(err)))
		die(2, "%s", err);
	snprintf(tab, sizeof(tab), "linear %s %" PRIu64, mm(snap), w->fs);
	if (dm_create("cwp-origin", w->os, tab, &origin, err, sizeof(err)))
		die(2, "%s", err);

	if (ordered) {
		/* the origin alone, before anything loads: one flush point's state? */
		int64_t lag;

		step("verify ordered", w->k);
		r = verify_ordered(node("origin", origin), w->oracle, w->dmark, out, &lag);
		w->ord_n++;
		if (r == 1) {
			w->ord_torn++;
			ordered_fail(w, tail1(out));
		} else if (r == 3) {
			w->ord_older++;
			ordered_fail(w, tail1(out));
		} else if (r) {
			bad = 1;
			point_fail(w, "verify-ordered of the origin failed: %s", tail1(out));
		}
		if ((r == 0 || r == 3) && lag > w->ord_maxlag)
			w->ord_maxlag = lag;
	}

	step("check", w->k);
	fd = open(node("flash", flash), O_RDONLY);
	f = fopen(chk, "w");
	if (fd < 0 || !f)
		die(2, "flash view / %s: %s", chk, strerror(errno));
	r = fc_check_fd(fd, "flash", FC_OUT_CHECK, 0, f);
	fclose(f);
	close(fd);
	if (r) {
		bad = 1;
		point_fail(w, "fcachectl check failed: %s", tail1(chk));
	}

	step("load", w->k);
	snprintf(tab, sizeof(tab), "fcache-pool %s %" PRIu64, mm(flash), w->bs);
	if (dm_create("cwp-pool", w->fs, tab, &pool, err, sizeof(err))) {
		bad = 1;
		point_fail(w, "pool load refused: %s", err);
		goto out;
	}
	/* warm restart: the clean blocks this load kept (read back below) */
	wk = pool_stat("cwp-pool", "warm_loaded");
	if (wk) {
		w->warm_points++;
		w->warm_blocks += wk;
	}
	snprintf(tab, sizeof(tab), "fcache %s %s 1 writeback", mm(pool), mm(origin));
	if (dm_create("cwp-vol", w->os, tab, &vol, err, sizeof(err))) {
		bad = 1;
		point_fail(w, "volume load refused: %s", err);
		goto out;
	}
	step("verify volume", w->k);
	r = verify(node("vol", vol), w->oracle, w->dmark, w->bmark, "--save", "-", out, &lost, &stale);
	if (r == 1)
		point_fail(w, "through the volume: %s", tail1(out));
	else if (r) {
		bad = 1;
		point_fail(w, "volume read failed: %s", tail1(out));
	}
	bad = flush_teardown_origin(w, origin, out, bad, &lost, &stale);
out:
	teardown();
	w->n++;
	w->lost += lost;
	w->stale += stale;
	w->check += bad;
}

/* read a list of entry numbers */
static uint64_t *read_list(const char *path, uint64_t *n)
{
	uint64_t *v = NULL, cap = 0, x;
	FILE *f = fopen(path, "r");

	if (!f)
		die(2, "%s: %s", path, strerror(errno));
	*n = 0;
	while (fscanf(f, "%" SCNu64, &x) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				die(2, "out of memory");
		}
		v[(*n)++] = x;
	}
	fclose(f);
	return v;
}

static int in(const uint64_t *v, uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static dev_t devno(const char *path)
{
	struct stat st;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		die(2, "%s: not a block device", path);
	return st.st_rdev;
}

int main(int argc, char **argv)
{
	uint64_t *plain, *sub, np, ns, i, j, next, prev = 0, k;
	char rep[600], fail[600];
	struct walk w;
	struct lw l;
	time_t t0 = time(NULL);

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 13; (int)i < argc; i++) {
		if (!strcmp(argv[i], "--trace"))
			trace = 1;
		else if (!strcmp(argv[i], "--negative"))
			negative = 1;
		else if (!strcmp(argv[i], "--mirror"))
			mirror = 1;
		else if (!strcmp(argv[i], "--ordered"))
			ordered = 1;
		else if (!strcmp(argv[i], "--ordered-bound") && (int)i + 1 < argc) {
			ord_bound = argv[++i];
			num(ord_bound);
		} else
			argc = 0;
	}
	if (ordered && mirror)
		die(2, "--ordered is for one-device walks");
	if (argc < 13)
		die(2, "usage: cw_point LOG INDEX RDEV COWDEV ORACLE PLAIN SUBSET FLASH_SECTORS ORIGIN_SECTORS BLOCK_SECTORS SEED WORKDIR [--trace] [--negative] [--mirror] [--ordered [--ordered-bound N]]");
	memset(&w, 0, sizeof(w));
	open_log(&l, argv[1], argv[2]);
	w.l = &l;
	w.rdev = argv[3];
	w.rdev_dev = devno(argv[3]);
	w.cow_dev = devno(argv[4]);
	w.oracle = argv[5];
	plain = read_list(argv[6], &np);
	sub = read_list(argv[7], &ns);
	w.fs = num(argv[8]);
	w.os = num(argv[9]);
	w.bs = num(argv[10]);
	w.seed = num(argv[11]);
	wdir = argv[12];
	snprintf(fail, sizeof(fail), "%s/failures", wdir);
	w.failures = fail;
	snprintf(rep, sizeof(rep), "%s/replay.out", wdir);
	/* the volume's image, shared with the verify children */
	verify_shm_len = w.os * SEC;
	verify_shm_saved = mmap(NULL, 4096 + verify_shm_len, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (verify_shm_saved == MAP_FAILED)
		die(2, "mmap: %s", strerror(errno));
	verify_shm = (unsigned char *)verify_shm_saved + 4096;
	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0)
		die(2, "/dev/mapper/control: %s", strerror(errno));
	teardown();	/* leftovers of an interrupted run */
	w.legfail = w.replace = UINT64_MAX;
	for (i = 0; mirror && i < l.n; i++) {
		if ((l.e[i].flags & F_MARK) && !strcmp(l.e[i].name, "x-legfail") && w.legfail == UINT64_MAX)
			w.legfail = i;
		if ((l.e[i].flags & F_MARK) && !strcmp(l.e[i].name, "x-replace") && w.replace == UINT64_MAX)
			w.replace = i;
	}
	if (mirror)
		printf("# mirror: x-legfail at entry %" PRIu64 ", x-replace at entry %" PRIu64 "\n",
		       w.legfail, w.replace);

	/* the union of both lists in log order */
	for (k = 0;; k = next + 1) {
		next = UINT64_MAX;
		for (i = 0; i < np; i++)
			if (plain[i] >= k && plain[i] < next)
				next = plain[i];
		for (j = 0; j < ns; j++)
			if (sub[j] >= k && sub[j] < next)
				next = sub[j];
		if (next == UINT64_MAX)
			break;
		w.k = next;
		step("replay", next);
		replay(&w, w.rdev, prev, next, 0, 0, rep);
		prev = next + 1;
		if (in(plain, np, next) && negative) {
			/*
			 * Broken on purpose: claim durable what the log's last
			 * mark names (every sync of the run), at a crash point
			 * before most of those syncs had returned.  The walk
			 * must flag each such point lost.
			 */
			uint64_t c, m, last = l.n;

			for (c = next + 1; c < l.n && !is_point(&l.e[c]); c++)
				;
			for (m = c + 1; m < l.n; m++)
				if ((l.e[m].flags & F_MARK) && !strncmp(l.e[m].name, "cw", 2))
					last = m;
			m = last;
			if (c < l.n && m < l.n) {
				snprintf(w.dmark, sizeof(w.dmark), "%s", l.e[m].name);
				strcpy(w.bmark, "-");
				w.variant = "negative-control";
				point(&w, 0, 0);
			}
		} else if (in(plain, np, next)) {
			w.variant = "prefix";
			point(&w, 0, 0);
		}
		if (in(sub, ns, next) && !negative) {
			char v[96];
			uint64_t s = w.seed * 1000003 + next * 7 + w.bs;
			int tear = !(next % 2);

			snprintf(v, sizeof(v), "subset-seed%" PRIu64 "%s", s, tear ? "-torn" : "");
			w.variant = v;
			point(&w, s, tear);
			/* the marks of the prefix again for the next point */
			take_marks(&w, rep);
		}
		if (w.n % 10 == 0 || trace)
			printf("# bs%" PRIu64 ": %" PRIu64 " points checked, %ld s (entry %" PRIu64 ", dmark %s, bmark %s)\n",
			       w.bs, w.n, (long)(time(NULL) - t0), next, w.dmark, w.bmark);
	}
	if (mirror)
		printf("mirror: points by phase %" PRIu64 " mirrored, %" PRIu64 " leg1 failed, %" PRIu64
		       " leg2 replaced it; pair refused %" PRIu64 " (as the superblocks say), other leg alone refused %" PRIu64
		       " (resync not done), skipped %" PRIu64 " (stale or no pool yet)\n",
		       w.phase_n[0], w.phase_n[1], w.phase_n[2], w.pair_refused, w.alone_refused, w.alone_skipped);
	printf("warm: %" PRIu64 " points kept %" PRIu64 " clean blocks\n", w.warm_points, w.warm_blocks);
	if (ordered) {
		printf("# ordered: the origin at most %" PRId64 " marks behind its point's dmark%s%s\n",
		       w.ord_maxlag, ord_bound ? ", bound " : "", ord_bound ? ord_bound : "");
		printf("ordered: %" PRIu64 " checked %" PRIu64 " torn %" PRIu64 " older\n",
		       w.ord_n, w.ord_torn, w.ord_older);
	}
	printf("walk: %" PRIu64 " replayed %" PRIu64 " lost %" PRIu64 " stale %" PRIu64 " check\n",
	       w.n, w.lost, w.stale, w.check);
	return 0;
}
