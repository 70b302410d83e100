// SPDX-License-Identifier: GPL-2.0
/*
 * The OLTP transaction engine of `fcachectl bench`: the users and the
 * event loop of a run (bench_run); the files it uses are listed in
 * bench_engine.h.
 *
 * One thread, one io_uring.  Every user is a small state machine; a user
 * has at most one I/O in flight, so 128 users cost 128 outstanding I/Os and
 * no threads.  A transaction reads its pages one after the other through
 * an in-process buffer pool (frames hold only page number and version: the
 * page images are generated from them), updates some of them in memory
 * (version + 1, frame dirty), and commits by writing a redo record to the
 * log region (or --log-dev) with RWF_DSYNC: its own write, or with
 * --group-commit on one write for all the commits waiting (log_flush).
 * A page cleaner flushes dirty frames oldest
 * first in batches, then fdatasyncs the batch from a thread of its own,
 * as InnoDB's page cleaner does.  Read-only transactions write no redo.
 *
 * Integrity: disk_ver[page] is the version the device must return for a
 * page that is not in the buffer pool (a page is only read when it is not
 * resident, and a resident page is never evicted with a write in flight),
 * so every read is checked exactly: magic, checksum, page number, version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_engine.h"

#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif

#define SUB_RING (1u << 17)	/* submits remembered: seconds of them */

/* io_uring_submit(), its start remembered for the I/O it sends. */
void bench_submit(struct engine *e)
{
	e->sub_ns[(e->n_submits + 1) % SUB_RING] = fc_now_ns();
	io_uring_submit(&e->ring);
	e->n_submits++;
}

/* The stamp of an I/O prepared now: the next bench_submit() sends it. */
uint64_t bench_io_stamp(const struct engine *e)
{
	return e->n_submits + 1;
}

/* Microseconds from the submission of an I/O stamped @stamp to t_reap. */
uint64_t bench_io_us(const struct engine *e, uint64_t stamp)
{
	uint64_t t0;

	if (stamp > e->n_submits)
		return 0;
	if (e->n_submits - stamp >= SUB_RING)
		stamp = e->n_submits - SUB_RING + 1;	/* older than the ring: its oldest */
	t0 = e->sub_ns[stamp % SUB_RING];
	return e->t_reap > t0 ? (e->t_reap - t0) / 1000 : 0;
}

struct io_uring_sqe *bench_get_sqe(struct engine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (!sqe) {
		bench_submit(e);
		sqe = io_uring_get_sqe(&e->ring);
	}
	e->inflight++;
	return sqe;
}

void bench_trace_io(struct engine *e, int fd, int op, uint64_t off, uint32_t len, int ui)
{
	struct bench_trace_rec r;

	if (!e->trace || fd != e->fd)
		return;
	r.t_ns = fc_now_ns() - e->trace_t0;
	r.off = off;
	r.len = len;
	r.txn = ui >= 0 ? e->u[ui].txn : 0;
	r.op = op;
	r.phase = e->phase;
	r.user = ui >= 0 ? ui : BENCH_TR_CLEANER;
	r.reserved = 0;
	bench_trace_add(e->trace, &r);
}

void bench_fail(struct engine *e, const char *fmt, const char *what)
{
	if (!e->failed)
		snprintf(e->r->error, sizeof(e->r->error), fmt, what);
	e->failed = 1;
}

/* ------------------------------------------------ the terminal model */

static void sleep_push(struct engine *e, uint64_t at, int ui)
{
	int i = e->sl_n++;

	while (i > 0 && e->sl[(i - 1) / 2].at > at) {
		e->sl[i] = e->sl[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	e->sl[i].at = at;
	e->sl[i].ui = ui;
}

/* Take the earliest sleeper off the heap. */
static void sleep_pop(struct engine *e)
{
	struct sleeper last = e->sl[--e->sl_n];
	int i = 0, c;

	while ((c = 2 * i + 1) < e->sl_n) {
		if (c + 1 < e->sl_n && e->sl[c + 1].at < e->sl[c].at)
			c++;
		if (last.at <= e->sl[c].at)
			break;
		e->sl[i] = e->sl[c];
		i = c;
	}
	if (e->sl_n)
		e->sl[i] = last;
}

/*
 * User @ui submits the transaction it drew: its response time counts from
 * now.  A user beyond the step's count (or any, when stopping) goes idle.
 */
static void user_begin(struct engine *e, int ui, uint64_t now)
{
	struct user *u = &e->u[ui];

	if (e->stopping || ui >= e->active) {
		u->state = U_IDLE;
		return;
	}
	u->idx = 0;
	u->nupd = 0;
	u->txn = ++e->txn_seq;
	u->t0 = now;
	u->state = U_RUN;
	e->ready[e->r_tail++ % e->nusers] = ui;
	e->r_n++;
}

/*
 * The user's pause before the transaction it drew: the think time after
 * its last one (type @prev; -1 at its first: a think time of the new
 * type, so that the users do not start in step), then the keying time.
 */
static uint64_t user_pause_ns(struct engine *e, struct user *u, int prev)
{
	double s = bench_exp_sample(e->think[prev >= 0 ? prev : u->type],
				    bench_rnd01(&u->rng));

	return (uint64_t)((s + e->keying[u->type]) * 1e9);
}

/* User @ui draws its next transaction (bench_dist.c), pauses if it is a terminal. */
static void user_next(struct engine *e, int ui, int prev)
{
	struct user *u = &e->u[ui];
	uint64_t now = fc_now_ns(), d;

	bench_txn_draw(e, u);
	d = e->terminals ? user_pause_ns(e, u, prev) : 0;
	if (!d) {
		user_begin(e, ui, now);
		return;
	}
	u->state = U_THINK;
	sleep_push(e, now + d, ui);
}

static void wake_sleepers(struct engine *e, uint64_t now)
{
	while (e->sl_n && e->sl[0].at <= now) {
		int ui = e->sl[0].ui;

		sleep_pop(e);
		user_begin(e, ui, now);
	}
}

/* Stopping: the users thinking or keying submit nothing more. */
static void sleepers_idle(struct engine *e)
{
	while (e->sl_n) {
		e->u[e->sl[0].ui].state = U_IDLE;
		sleep_pop(e);
	}
}

/* How long the event loop may wait for a completion: 5 ms, or to the next wake-up. */
static struct __kernel_timespec wait_time(const struct engine *e, uint64_t now)
{
	struct __kernel_timespec ts = { 0, 5 * 1000 * 1000 };

	if (e->sl_n && e->sl[0].at < now + (uint64_t)ts.tv_nsec)
		ts.tv_nsec = e->sl[0].at > now ? (long long)(e->sl[0].at - now) : 0;
	return ts;
}

/* The keying and think times of each type (bench_model.c). */
static void terminals_init(struct engine *e)
{
	int t;

	e->terminals = bench_terminal_model(e->o, e->p);
	for (t = 0; t < e->p->ntypes; t++) {
		e->think[t] = bench_think_mean(e->o, &e->p->t[t]);
		e->keying[t] = bench_keying(e->o, &e->p->t[t]);
	}
}

/* -------------------------------------------------- transactions */

static void user_step(struct engine *e, int ui);

/* User @ui joins the end of the wait list @head .. @tail (linked by wnext). */
static void user_queue(struct engine *e, int *head, int *tail, int ui)
{
	e->u[ui].wnext = NIL;
	if (*tail != NIL)
		e->u[*tail].wnext = ui;
	else
		*head = ui;
	*tail = ui;
}

/* The offset of the redo record @lsn: the log is a ring of log_recs records. */
static uint64_t log_pos(const struct engine *e, uint64_t lsn)
{
	return e->log_base + (lsn % e->log_recs) * BENCH_LOG_REC;
}

/* The redo record of user @ui's transaction, log sequence number @lsn, into @w. */
static void log_record(const struct engine *e, int ui, uint64_t lsn, uint64_t *w)
{
	const struct user *u = &e->u[ui];
	int i;

	w[0] = BENCH_LOG_MAGIC;
	w[1] = lsn;
	w[2] = ui;
	w[3] = u->type;
	w[4] = u->nacc;
	for (i = 0; i < u->nacc; i++)
		w[5 + i] = u->acc[i];
}

/*
 * User @ui commits: its redo record is written with RWF_DSYNC, at once and
 * on its own; with group commit it waits for the next group (log_flush).
 */
static void submit_log(struct engine *e, int ui)
{
	struct user *u = &e->u[ui];
	struct io_uring_sqe *sqe;
	uint64_t lsn;

	u->state = U_WAIT_LOG;
	if (e->o->group_commit) {
		user_queue(e, &e->lq_head, &e->lq_tail, ui);
		return;
	}
	lsn = e->log_next++;
	log_record(e, ui, lsn, u->logbuf);
	sqe = bench_get_sqe(e);
	io_uring_prep_write(sqe, e->log_fd, u->logbuf, BENCH_LOG_REC, log_pos(e, lsn));
	sqe->rw_flags = RWF_DSYNC;
	u->io_t0 = bench_io_stamp(e);
	io_uring_sqe_set_data64(sqe, (uint64_t)K_LOG << 32 | ui);
	bench_trace_io(e, e->log_fd, BENCH_TR_SYNC, log_pos(e, lsn), BENCH_LOG_REC, ui);
}

/*
 * Group commit, as InnoDB's log writer: unless a redo write is in flight,
 * one write of the records of the commits waiting, in their order (at most
 * BENCH_GROUP_MAX, and not across the end of the ring), with one RWF_DSYNC
 * for them all.  The commits that arrive meanwhile make the next group.
 */
static void log_flush(struct engine *e)
{
	uint64_t lsn = e->log_next, room = e->log_recs - lsn % e->log_recs;
	struct io_uring_sqe *sqe;
	int n = 0, max = room < BENCH_GROUP_MAX ? (int)room : BENCH_GROUP_MAX;
	int ui = e->lq_head, last = NIL;

	if (e->g_n || ui == NIL || e->failed)
		return;
	e->g_head = ui;
	for (; ui != NIL && n < max; ui = e->u[ui].wnext) {
		log_record(e, ui, e->log_next++,
			   (uint64_t *)((char *)e->gbuf + (size_t)n * BENCH_LOG_REC));
		last = ui;
		n++;
	}
	e->u[last].wnext = NIL;
	e->lq_head = ui;
	if (ui == NIL)
		e->lq_tail = NIL;
	e->g_n = n;
	sqe = bench_get_sqe(e);
	e->g_t0 = bench_io_stamp(e);
	io_uring_prep_write(sqe, e->log_fd, e->gbuf, n * BENCH_LOG_REC, log_pos(e, lsn));
	sqe->rw_flags = RWF_DSYNC;
	io_uring_sqe_set_data64(sqe, (uint64_t)K_GLOG << 32);
	bench_trace_io(e, e->log_fd, BENCH_TR_SYNC, log_pos(e, lsn), n * BENCH_LOG_REC, e->g_head);
}

static void txn_commit(struct engine *e, int ui)
{
	struct user *u = &e->u[ui];
	uint64_t us = (fc_now_ns() - u->t0) / 1000;

	/* counted in the step it completes in (users run on across steps) */
	bench_trace_io(e, e->fd, BENCH_TR_COMMIT, 0, 0, ui);
	e->commits++;
	e->cur->txns++;
	e->cur->txn_by_type[u->type]++;
	bh_add(e->hcur, us);
	bh_add(&e->thist[u->type], us);
	e->ic.txns++;
	bh_add(&e->ih, us);
	if (u->nupd) {	/* its redo record was written with RWF_DSYNC */
		e->cur->log_records++;
		if (!e->o->group_commit) {	/* else counted per group (group_done) */
			e->cur->log_writes++;
			e->ic.log_writes++;
		}
	}
	if (e->stopping || ui >= e->active) {
		u->state = U_IDLE;
		return;
	}
	user_next(e, ui, u->type);
}

/* Run the users queued ready (each until it waits for I/O or commits). */
static void run_ready(struct engine *e)
{
	int n = e->r_n;

	while (n-- > 0 && !e->failed) {
		int ui = e->ready[e->r_head++ % e->nusers];

		e->r_n--;
		if (e->u[ui].state == U_RUN)
			user_step(e, ui);
	}
}

static void user_step(struct engine *e, int ui)
{
	struct user *u = &e->u[ui];

	while (u->idx < u->nacc && !e->failed) {
		uint64_t a = u->acc[u->idx], pg = a & ~(1ull << 63);
		int32_t f = bench_frame_find(e, pg);

		if (f != NIL && e->fr[f].state == FR_READING) {
			u->wnext = e->fr[f].waiters;
			e->fr[f].waiters = ui;
			u->state = U_WAIT_PAGE;
			return;
		}
		if (f == NIL) {
			struct io_uring_sqe *sqe;

			f = bench_frame_alloc(e, pg);
			if (f == NIL) {
				user_queue(e, &e->fwait_head, &e->fwait_tail, ui);
				u->state = U_WAIT_FRAME;
				e->cur->free_waits++;
				return;
			}
			u->frame = f;
			u->own_read = 1;
			sqe = bench_get_sqe(e);
			io_uring_prep_read(sqe, e->fd, u->buf, e->h.page_size,
					   e->h.data_off + pg * e->h.page_size);
			u->io_t0 = bench_io_stamp(e);
			io_uring_sqe_set_data64(sqe, (uint64_t)K_READ << 32 | ui);
			bench_trace_io(e, e->fd, BENCH_TR_READ, e->h.data_off + pg * e->h.page_size,
				       e->h.page_size, ui);
			u->state = U_WAIT_READ;
			return;
		}
		/* resident */
		e->cur->page_accesses++;
		if (!u->own_read)
			e->cur->bp_hits++;
		u->own_read = 0;
		bench_frame_touch(e, f);
		if (a >> 63) {
			bench_frame_dirty(e, f);
			e->cur->page_updates++;
			u->nupd++;
		}
		u->idx++;
	}
	if (e->failed)
		return;
	if (u->nupd)
		submit_log(e, ui);
	else
		txn_commit(e, ui);
}

static void kick_free_waiters(struct engine *e)
{
	while (e->fwait_head != NIL &&
	       (e->free_l.head != NIL || e->lru.head != NIL) && !e->failed) {
		int ui = e->fwait_head;

		e->fwait_head = e->u[ui].wnext;
		if (e->fwait_head == NIL)
			e->fwait_tail = NIL;
		e->u[ui].state = U_RUN;
		user_step(e, ui);
	}
}

static void read_done(struct engine *e, int ui, int res)
{
	struct user *u = &e->u[ui];
	int32_t f = u->frame, w;
	struct frame *fr = &e->fr[f];
	char msg[400];

	e->cur->dev_reads++;
	if (!bench_page_hot(e, fr->page))
		e->cur->cold_dev_reads++;
	e->cur->read_us += bench_io_us(e, u->io_t0);
	e->ic.dev_reads++;
	e->r->pages_verified++;
	if (res != (int)e->h.page_size) {
		snprintf(msg, sizeof(msg), "read of page %llu failed: %s",
			 (unsigned long long)fr->page,
			 res < 0 ? strerror(-res) : "short read");
		bench_fail(e, "%s", msg);
		return;
	}
	if (bench_page_check(u->buf, e->h.page_size, fr->page, e->disk_ver[fr->page],
			     msg, sizeof(msg))) {
		e->cur->verify_errors++;
		e->r->verify_errors++;
		bench_fail(e, "INTEGRITY FAILURE: %s", msg);
		return;
	}
	bench_frame_loaded(e, f, e->disk_ver[fr->page]);
	w = fr->waiters;
	fr->waiters = NIL;
	u->state = U_RUN;
	user_step(e, ui);
	while (w != NIL) {
		int nx = e->u[w].wnext;

		e->u[w].state = U_RUN;
		user_step(e, w);
		w = nx;
	}
}

/* The redo write of a commit group completed: all its transactions commit. */
static void group_done(struct engine *e, int res)
{
	int ui = e->g_head;

	if (res != e->g_n * (int)BENCH_LOG_REC) {
		bench_fail(e, "redo log write failed: %s",
			   res < 0 ? strerror(-res) : "short write");
		return;
	}
	e->g_n = 0;
	e->g_head = NIL;
	e->cur->log_writes++;
	e->cur->log_us += bench_io_us(e, e->g_t0);
	e->ic.log_writes++;
	while (ui != NIL) {
		int nx = e->u[ui].wnext;

		txn_commit(e, ui);
		ui = nx;
	}
}

static void handle_cqe(struct engine *e, struct io_uring_cqe *cqe)
{
	uint64_t d = io_uring_cqe_get_data64(cqe);
	int kind = d >> 32, idx = d & 0xffffffff, res = cqe->res;

	e->inflight--;
	switch (kind) {
	case K_READ:
		read_done(e, idx, res);
		break;
	case K_LOG:
		if (res != BENCH_LOG_REC) {
			bench_fail(e, "redo log write failed: %s",
			     res < 0 ? strerror(-res) : "short write");
			break;
		}
		e->cur->log_us += bench_io_us(e, e->u[idx].io_t0);
		txn_commit(e, idx);
		break;
	case K_GLOG:
		group_done(e, res);
		break;
	case K_CWRITE:
		bench_cleaner_write_done(e, res);
		break;
	case K_CSYNC:
		bench_cleaner_sync_done(e, res);
		break;
	}
}

/* Test hook: write an older version of a page behind the engine's back. */
static void inject_stale(struct engine *e)
{
	uint64_t r, pg = 0, best = ~0ull;
	void *b = fc_io_alloc(e->h.page_size);
	uint32_t v;

	for (r = 0; r < e->h.npages; r++) {
		pg = bench_rank_page(e, r);
		if (bench_frame_find(e, pg) != NIL)
			continue;
		if (e->disk_ver[pg] >= 2)
			break;
		if (best == ~0ull)
			best = pg;
	}
	if (r == e->h.npages)
		pg = best;
	if (pg == ~0ull || !b) {
		free(b);
		return;
	}
	v = e->disk_ver[pg];
	bench_page_fill(b, e->h.page_size, pg, v - 1);
	if (pwrite(e->fd, b, e->h.page_size, e->h.data_off + pg * e->h.page_size) < 0)
		fc_err(BENCH_WHO, "inject: %s", strerror(errno));
	fdatasync(e->fd);
	fc_err(BENCH_WHO, "test hook: wrote version %u of page %llu "
		"(expected %u) behind the generator's back", v - 1,
		(unsigned long long)pg, v);
	e->force_page = pg;
	free(b);
}

/* Has a signal asked the run to stop?  (Draining users does not look.) */
static int stop_requested(const struct engine *e)
{
	return e->o->stop && *e->o->stop;
}

const char *bench_sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" :
	       sig == SIGPIPE ? "SIGPIPE (standard output gone)" : "a signal";
}

static const char *stop_name(const struct engine *e)
{
	return bench_sig_name(e->o->stop ? *e->o->stop : 0);
}

int bench_out_gone(const struct bench_opts *o)
{
	static int noted;
	struct pollfd p;

	if (noted)
		return 1;
	if (!o->out)
		return 0;
	p.fd = fileno(o->out);
	p.events = 0;
	p.revents = 0;
	if (!ferror(o->out) && !(poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP))))
		return 0;
	noted = 1;
	if (o->results_to)
		fc_err(BENCH_CLI, "standard output is gone (a closed pipe or a hung-up terminal): "
			"the run goes on; its results go to %s", o->results_to);
	else if (o->stop && !*o->stop)
		*o->stop = SIGPIPE;
	return 1;
}

/* Are the users from @from on out of a transaction (idle, or thinking: beyond e->active they submit nothing)? */
static int surplus_done(const struct engine *e, int from)
{
	int i;

	for (i = from; i < e->nusers; i++)
		if (e->u[i].state != U_IDLE && e->u[i].state != U_THINK)
			return 0;
	return 1;
}

/*
 * Run the event loop until @until (ns) or a stop request or, with @drain,
 * until all users idle (with e->shed_from: until the users from it on are
 * out of a transaction).
 */
static void loop(struct engine *e, uint64_t until, int drain, uint64_t *next_iv,
		 double *iv_t0, const char *label)
{
	for (;;) {
		struct __kernel_timespec ts;
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		uint64_t now = fc_now_ns();
		int i, busy = 0;

		if (e->failed)
			return;
		if (e->inject_at && now >= e->inject_at) {
			e->inject_at = 0;
			inject_stale(e);
		}
		if (now >= e->out_check) {
			e->out_check = now + 1000000000ull;
			bench_out_gone(e->o);
		}
		if (drain) {
			sleepers_idle(e);
			for (i = 0; i < e->nusers; i++)
				if (e->u[i].state != U_IDLE)
					busy = 1;
			if (!busy)
				return;
		} else if (now >= until || stop_requested(e) ||
			   (e->shed_from && surplus_done(e, e->shed_from))) {
			return;
		}
		if (next_iv && now >= *next_iv) {
			double dt = (now - (uint64_t)(*iv_t0 * 1e9)) / 1e9;

			if (!e->o->quiet)
				bench_print_interval(e->o->out, label,
					(now - e->t_start) / 1e9, e->active,
					e->ic.txns / dt, &e->ih, e->ic.dev_reads,
					e->ic.dev_writes,
					e->ic.log_writes + e->ic.fsyncs, dt);
			memset(&e->ic, 0, sizeof(e->ic));
			bh_reset(&e->ih);
			*iv_t0 = now / 1e9;
			*next_iv = now + (uint64_t)(e->o->interval_s * 1e9);
		}
		wake_sleepers(e, now);
		run_ready(e);
		bench_cleaner_start(e, now, 0);
		log_flush(e);
		bench_submit(e);
		ts = wait_time(e, now);
		if (e->r_n) {
			if (io_uring_peek_cqe(&e->ring, &cqe) < 0)
				continue;
		} else if (io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts) < 0) {
			continue;
		}
		e->t_reap = fc_now_ns();
		io_uring_for_each_cqe(&e->ring, head, cqe) {
			handle_cqe(e, cqe);
			n++;
		}
		io_uring_cq_advance(&e->ring, n);
		kick_free_waiters(e);
		if (e->fwait_head != NIL)
			bench_cleaner_start(e, now, 1);
	}
}

static void phase_start(struct engine *e, int users)
{
	int i;

	e->active = users;
	e->stopping = 0;
	for (i = 0; i < users; i++)
		if (e->u[i].state == U_IDLE)
			user_next(e, i, -1);
}

static void checkpoint(struct engine *e)
{
	e->stopping = 1;
	while (!e->failed && (e->flush.n || e->c_busy)) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		bench_cleaner_start(e, fc_now_ns(), 1);
		bench_submit(e);
		if (bench_wait_cqe(&e->ring, &cqe) < 0)
			break;
		e->t_reap = fc_now_ns();
		io_uring_for_each_cqe(&e->ring, head, cqe) {
			handle_cqe(e, cqe);
			n++;
		}
		io_uring_cq_advance(&e->ring, n);
	}
}

static void step_finish(struct engine *e, struct bench_step *s)
{
	int t, no = bench_new_order_type(e->p);

	s->tps = s->seconds > 0 ? s->c.txns / s->seconds : 0;
	s->avg_ms = bh_avg_ms(&s->lat);
	s->p95_ms = bh_pct_ms(&s->lat, 95);
	s->p99_ms = bh_pct_ms(&s->lat, 99);
	s->max_ms = s->lat.max_us / 1000.0;
	s->nopm = no < 0 ? -1 : s->seconds > 0 ? s->c.txn_by_type[no] * 60 / s->seconds : 0;
	for (t = 0; t < e->p->ntypes; t++)
		s->p90_type_ms[t] = bh_pct_ms(&e->thist[t], 90);
}

/* What completes from now on is not measured (between the warm-up and a step, at the end). */
static void unmeasured(struct engine *e)
{
	e->phase = BENCH_TR_UNMEASURED;
	e->cur = &e->unmeasured;
	e->hcur = &e->scratch;
}

/* The interval lines of a run: the next one is due at @next (ns), the last was at @t0 (s). */
struct ivl {
	uint64_t next;
	double t0;
};

/*
 * Measures one step of @users users into @st.  The users of the step
 * before run on: the step adds users (or lets the extra ones go idle after
 * their transaction) and counts what completes inside it, from the end of
 * the step before.  0, or 1: stopped by a signal before its end.
 */
static int measure_step(struct engine *e, struct bench_step *st, int users,
			struct ivl *iv, const char *label)
{
	uint64_t t0 = e->step_mark ? e->step_mark : fc_now_ns(), t1;
	int t;

	st->users = users;
	/* the trace's phase: the step's number, the search's after the ladder's */
	if (st >= e->r->step && st < e->r->step + BENCH_MAX_STEPS)
		e->phase = st - e->r->step + 1;
	else
		e->phase = e->r->nsteps + 1 + (st - e->r->search);
	e->cur = &st->c;
	e->hcur = &st->lat;
	for (t = 0; t < e->p->ntypes; t++)
		bh_reset(&e->thist[t]);
	memset(&e->ic, 0, sizeof(e->ic));
	bh_reset(&e->ih);
	iv->t0 = t0 / 1e9;
	iv->next = t0 + (uint64_t)(e->o->interval_s * 1e9);
	e->phase_end = t0 + (uint64_t)(e->o->time_s * 1e9);
	phase_start(e, users);
	loop(e, e->phase_end, 0, &iv->next, &iv->t0, label);
	t1 = fc_now_ns();
	if (t1 < e->phase_end && !e->failed)
		return 1;
	st->seconds = (t1 - t0) / 1e9;
	step_finish(e, st);
	e->step_mark = t1;
	return 0;
}

/* A signal stopped step @st: it is left out; the users finish their transactions. */
static void step_stopped(struct engine *e, struct bench_step *st, const char *what,
			 const char *label)
{
	struct bench_result *r = e->r;

	snprintf(r->stopped, sizeof(r->stopped), "stopped by %s %.1f s into the %d-user "
		 "%s, which is left out", stop_name(e),
		 (fc_now_ns() - (e->phase_end - (uint64_t)(e->o->time_s * 1e9))) / 1e9,
		 st->users, what);
	unmeasured(e);
	e->stopping = 1;
	loop(e, 0, 1, NULL, NULL, label);
	memset(st, 0, sizeof(*st));
}

/* No search (the ladder did not end): the largest user count of the ladder under the limit. */
static void rt_search_none(struct engine *e)
{
	struct bench_rt_search s;

	bench_rt_search_init(&s, e->r->step, e->r->nsteps, e->o->rt_limit_s * 1000, 0);
	e->r->max_users_under_limit = s.lo;
}

/*
 * After the ladder: bisect the user counts between the largest under
 * --rt-limit and the next one over it, at most --rt-search extra steps
 * (bench_model.c); r->max_users_under_limit is the answer.
 */
static void rt_search(struct engine *e, struct ivl *iv, const char *label)
{
	struct bench_result *r = e->r;
	struct bench_rt_search s;
	int u;

	bench_rt_search_init(&s, r->step, r->nsteps, e->o->rt_limit_s * 1000,
			     e->o->rt_search < BENCH_MAX_SEARCH ? e->o->rt_search : BENCH_MAX_SEARCH);
	while (!r->stopped[0] && !e->failed && !stop_requested(e) &&
	       (u = bench_rt_search_next(&s))) {
		struct bench_step *st = &r->search[r->nsearch];

		if (measure_step(e, st, u, iv, label)) {
			step_stopped(e, st, "step of the response time search", label);
			break;
		}
		r->nsearch++;
		bench_rt_search_done(&s, st);
	}
	r->max_users_under_limit = s.lo;
}

/*
 * The warm-up at @maxu users (not measured).  A closed loop then waits
 * for all users to be idle (the first step starts as before); terminals
 * run on into the first step, keeping their keying and think phases, so
 * that it does not start with all of them keying at once.  If the first
 * step has fewer users, the others first finish the transactions they are
 * in, still in the warm-up: the step must not count the queue that the
 * warm-up's users left (at 2 s of think time a baseline's 64-user step
 * after a 256-user warm-up measured 1.4 s of response time and more TPS
 * than 64 terminals offer).
 */
static void warm_up(struct engine *e, int maxu, struct ivl *iv, const char *label)
{
	struct bench_result *r = e->r;

	e->cur = &r->warm;
	e->hcur = &e->scratch;
	e->phase = 0;
	e->phase_end = e->t_start + (uint64_t)(e->o->warmup_s * 1e9);
	phase_start(e, maxu);
	loop(e, e->phase_end, 0, &iv->next, &iv->t0, label);
	if (fc_now_ns() < e->phase_end && !e->failed)
		snprintf(r->stopped, sizeof(r->stopped), "stopped by %s in the "
			 "warm-up; no step measured", stop_name(e));
	r->warm_s = e->o->warmup_s;
	if (e->terminals && !r->stopped[0]) {
		int first = e->o->nsteps ? e->o->users[0] : maxu;

		if (first < maxu && !e->failed) {
			e->active = first;
			e->shed_from = first;
			loop(e, UINT64_MAX, 0, &iv->next, &iv->t0, label);
			e->shed_from = 0;
		}
		return;
	}
	e->stopping = 1;
	loop(e, 0, 1, NULL, NULL, label);
}

/*
 * The measured part of a run: the warm-up, the ladder of user counts (no
 * drain between its steps), the search of the users under --rt-limit;
 * then the users finish their transactions, unmeasured.
 */
static void measure(struct engine *e, int maxu, const char *label)
{
	const struct bench_opts *o = e->o;
	struct bench_result *r = e->r;
	struct ivl iv = { e->t_start + (uint64_t)(o->interval_s * 1e9), e->t_start / 1e9 };
	int s;

	if (o->warmup_s > 0)
		warm_up(e, maxu, &iv, label);
	for (s = 0; s < o->nsteps && !e->failed && !stop_requested(e); s++) {
		if (measure_step(e, &r->step[s], o->users[s], &iv, label)) {
			/* a shorter step is not comparable to the others: left out */
			step_stopped(e, &r->step[s], "step", label);
			break;
		}
		r->nsteps = s + 1;
	}
	if (stop_requested(e) && !r->stopped[0] && !e->failed && s < o->nsteps) {
		if (s)
			snprintf(r->stopped, sizeof(r->stopped), "stopped by %s after the "
				 "%d-user step", stop_name(e), o->users[s - 1]);
		else
			snprintf(r->stopped, sizeof(r->stopped), "stopped by %s after the "
				 "warm-up; no step measured", stop_name(e));
	}
	if (!e->failed && s == o->nsteps)
		rt_search(e, &iv, label);
	else
		rt_search_none(e);
	unmeasured(e);
	e->stopping = 1;
	loop(e, 0, 1, NULL, NULL, label);
}

/*
 * --log-dev: the redo log is a ring at the start of a device (or file) of
 * its own, of at most BENCH_LOG_DEV_MAX; the datafile's log region is unused.
 */
static int log_dev_open(struct engine *e)
{
	const char *dev = e->o->log_dev;
	uint64_t size;

	if (fc_path_size(dev, &size) < 0) {
		fc_err(BENCH_WHO, "--log-dev %s: %s", dev, strerror(errno));
		return -1;
	}
	if (size > BENCH_LOG_DEV_MAX)
		size = BENCH_LOG_DEV_MAX;
	if (size < 16 * BENCH_LOG_REC) {
		fc_err(BENCH_WHO, "--log-dev %s is too small for the redo log (%llu bytes, "
			"at least 64 KiB)", dev, (unsigned long long)size);
		return -1;
	}
	e->log_fd = bench_open(dev, e->o->direct, O_RDWR);
	if (e->log_fd < 0)
		return -1;
	e->log_base = 0;
	e->log_recs = size / BENCH_LOG_REC;
	return 0;
}

/*
 * The window of the trace and of the origin's counters opens: the trace
 * file (--trace) is created with its header, the counters read.  0, or -1
 * (said): the trace cannot be written.
 */
static int trace_start(struct engine *e, const char *dev)
{
	const struct bench_opts *o = e->o;
	struct bench_trace_hdr h;

	memset(&h, 0, sizeof(h));
	if (fc_path_size(dev, &h.dev_bytes) < 0)
		h.dev_bytes = 0;
	h.flash_bytes = o->trace_flash;
	h.page_size = e->h.page_size;
	h.flags = o->group_commit ? BENCH_TRACE_F_GROUP_COMMIT : 0;
	snprintf(h.label, sizeof(h.label), "%s", o->label && o->label[0] ? o->label : "run");
	e->trace = bench_trace_open(o->trace, &h);
	return e->trace ? 0 : -1;
}

/* The window closes: the trace's counts written, the origin's I/O in it kept in r->orig. */
static void trace_end(struct engine *e)
{
	struct bench_origin *g = &e->r->orig;
	struct bench_devio io, m;
	int nm;

	g->txns = e->commits;
	if (e->o->origin_io && g->ok &&
	    bench_devio_read(e->o->origin_io, &io, &m, &nm) == 0) {
		g->end = io;
		g->end_members = m;
		bench_devio_sub(&g->run, &io, &e->io0);
		bench_devio_sub(&g->run_members, &m, &e->io0m);
	} else {
		g->ok = 0;
	}
	if (e->trace && bench_trace_close(e->trace) < 0)
		bench_fail(e, "%s", "the trace could not be written (see above)");
	e->trace = NULL;
}

int bench_run(const char *dev, const struct bench_opts *o, struct bench_result *r)
{
	struct engine *e = calloc(1, sizeof(*e));
	uint64_t t_run;
	const char *label = o->label ? o->label : "";
	int maxu = 0, s, ret = -1;

	if (!e)
		return -1;
	e->sub_ns = calloc(SUB_RING, sizeof(*e->sub_ns));
	if (!e->sub_ns) {
		free(e);
		return -1;
	}
	e->o = o;
	e->r = r;
	e->p = bench_profile_find(o->profile);
	r->profile = e->p;
	snprintf(r->device, sizeof(r->device), "%s", dev);
	e->fwait_head = e->fwait_tail = NIL;
	e->lq_head = e->lq_tail = e->g_head = NIL;
	e->log_fd = -1;
	e->s_req = e->s_done = -1;
	e->force_page = -1;
	for (s = 0; s < o->nsteps; s++)
		if (o->users[s] > maxu)
			maxu = o->users[s];
	e->fd = bench_open(dev, o->direct, O_RDWR);
	if (e->fd < 0)
		goto out_free;
	if (bench_hdr_read(e->fd, &e->h, dev) < 0)
		goto out_close;
	if (!e->h.clean) {
		fc_err(BENCH_WHO, "%s: the datafile was not closed cleanly "
			"(a run failed or was killed); run `fcachectl bench "
			"prepare %s` again", dev, dev);
		goto out_close;
	}
	r->npages = e->h.npages;
	r->page_size = e->h.page_size;
	e->log_fd = e->fd;
	e->log_base = e->h.log_off;
	e->log_recs = e->h.log_size / BENCH_LOG_REC;
	if (o->log_dev && log_dev_open(e) < 0)
		goto out_close;
	e->disk_ver = malloc(e->h.npages * 4);
	if (!e->disk_ver || bench_map_io(e->fd, &e->h, e->disk_ver, 0) < 0) {
		fc_err(BENCH_WHO, "%s: cannot read the version map", dev);
		goto out_close;
	}
	e->h.clean = 0;
	if (bench_hdr_write(e->fd, &e->h) < 0) {
		fc_err(BENCH_WHO, "%s: cannot write the header: %s", dev,
			strerror(errno));
		goto out_close;
	}
	bench_pool_init(e, maxu);
	e->nusers = maxu;
	e->u = calloc(maxu, sizeof(*e->u));
	e->ready = calloc(maxu, sizeof(int));
	e->sl = calloc(maxu, sizeof(*e->sl));
	e->thist = calloc(BENCH_MAX_TYPES, sizeof(*e->thist));
	if (!e->u || !e->ready || !e->sl || !e->thist) {
		fc_err(BENCH_WHO, "out of memory");
		goto out_close;
	}
	terminals_init(e);
	for (s = 0; s < maxu; s++) {
		e->u[s].buf = fc_io_alloc(e->h.page_size);
		e->u[s].logbuf = fc_io_alloc(BENCH_LOG_REC);
		e->u[s].rng = o->seed * 1000003 + s;
		e->u[s].state = U_IDLE;
	}
	if (o->group_commit && !(e->gbuf = fc_io_alloc(BENCH_GROUP_MAX * BENCH_LOG_REC))) {
		fc_err(BENCH_WHO, "out of memory");
		goto out_close;
	}
	bench_dist_init(e);
	if (io_uring_queue_init(512, &e->ring, 0) < 0) {
		fc_err(BENCH_WHO, "io_uring is not available on this kernel");
		goto out_close;
	}
	if (bench_syncer_start(e) < 0) {
		io_uring_queue_exit(&e->ring);
		goto out_close;
	}
	if (o->trace && trace_start(e, dev) < 0)
		goto out_close;
	r->orig.ok = o->origin_io &&
		bench_devio_read(o->origin_io, &e->io0, &e->io0m, &r->orig.members) == 0;
	e->t_start = fc_now_ns();
	e->trace_t0 = e->t_start;
	if (o->inject_stale_s >= 0)
		e->inject_at = e->t_start + (uint64_t)(o->inject_stale_s * 1e9);
	t_run = e->t_start;
	measure(e, maxu, label);
	if (!e->failed) {
		e->cur = &e->unmeasured;	/* final checkpoint I/O */
		checkpoint(e);
	}
	trace_end(e);
	r->elapsed_s = (fc_now_ns() - t_run) / 1e9;
	if (e->failed) {
		fc_err(BENCH_WHO, "%s: %s", dev, r->error);
		/* let in-flight I/O finish before the buffers go away */
		io_uring_submit(&e->ring);
		while (e->inflight > 0) {
			struct __kernel_timespec ts = { 10, 0 };
			struct io_uring_cqe *cqe;

			int rc = io_uring_wait_cqe_timeout(&e->ring, &cqe, &ts);

			if (rc == -EINTR)
				continue;
			if (rc < 0)
				break;
			io_uring_cqe_seen(&e->ring, cqe);
			e->inflight--;
		}
		bench_syncer_stop(e);
		io_uring_queue_exit(&e->ring);
		goto out_close;
	}
	bench_syncer_stop(e);
	io_uring_queue_exit(&e->ring);
	if (bench_map_io(e->fd, &e->h, e->disk_ver, 1) < 0 || fdatasync(e->fd) < 0) {
		fc_err(BENCH_WHO, "%s: cannot write the version map", dev);
		goto out_close;
	}
	e->h.clean = 1;
	e->h.runs++;
	if (bench_hdr_write(e->fd, &e->h) < 0)
		goto out_close;
	r->final_ver = e->disk_ver;
	e->disk_ver = NULL;
	ret = r->stopped[0] ? BENCH_RUN_STOPPED : 0;
out_close:
	if (e->log_fd >= 0 && e->log_fd != e->fd)
		close(e->log_fd);
	close(e->fd);
out_free:
	bench_syncer_stop(e);
	free(e->gbuf);
	if (e->u)
		for (s = 0; s < e->nusers; s++) {
			free(e->u[s].buf);
			free(e->u[s].logbuf);
		}
	free(e->u);
	free(e->ready);
	free(e->sl);
	free(e->thist);
	bench_pool_free(e);
	free(e->disk_ver);
	free(e->sub_ns);
	free(e);
	return ret;
}
