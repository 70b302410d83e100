/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the OLTP transaction engine of `fcachectl bench` (bench_int.h has
 * the datafile layout and what the verbs call).  Its files:
 *
 *   bench_layout.c   the datafile on the device: page images (filled and
 *                    checked), header, version map, prepare and restore
 *   bench_dist.c     the profiles (transaction mixes) and the access
 *                    distributions that pick the pages of a transaction
 *   bench_pool.c     the buffer pool (frames, their lists and hash) and the
 *                    page cleaner that writes the dirty frames back
 *   bench_engine.c   the users, their transactions and the io_uring event
 *                    loop of a run (bench_run)
 */
#ifndef FC_BENCH_ENGINE_H
#define FC_BENCH_ENGINE_H

#include <liburing.h>
#include <pthread.h>
#include "bench_int.h"
#include "fc_dev.h"

enum { FR_FREE, FR_READING, FR_CLEAN, FR_DIRTY };
enum { L_NONE, L_FREE, L_LRU, L_FLUSH };
enum { U_IDLE, U_RUN, U_WAIT_READ, U_WAIT_PAGE, U_WAIT_FRAME, U_WAIT_LOG, U_THINK };
enum { K_READ = 1, K_LOG, K_CWRITE, K_CSYNC, K_GLOG };

#define MAX_ACC 64
#define NIL (-1)

/* A buffer pool frame: which page (and version) it holds, not the bytes. */
struct frame {
	uint64_t page;
	uint32_t version;
	uint32_t write_ver;
	uint8_t state, list, writing;
	int32_t prev, next;	/* list links */
	int32_t hnext;		/* hash chain */
	int32_t waiters;	/* users waiting for this page's read */
};

struct flist { int32_t head, tail; uint64_t n; };

/* A user thinking or keying (U_THINK) until @at (ns), in a min-heap on @at. */
struct sleeper { uint64_t at; int ui; };

struct user {
	int state;
	int type;
	int nacc, idx, nupd;
	uint64_t acc[MAX_ACC];	/* page | update flag (bit 63) */
	uint64_t t0;
	uint64_t io_t0;		/* its page read's or redo write's submission (bench_io_stamp()) */
	uint64_t rng;
	int frame;		/* frame this user reads into */
	int wnext;		/* next user on a wait list (or in a commit group) */
	int own_read;		/* the current access missed */
	uint32_t txn;		/* its transaction's number in the trace */
	void *buf, *logbuf;
};

struct engine {
	const struct bench_opts *o;
	uint64_t out_check;	/* when to ask bench_out_gone() next (ns) */
	const struct bench_profile *p;
	struct bench_result *r;
	struct bench_hdr h;
	int fd;
	struct io_uring ring;
	/*
	 * Device latency is submission to completion, not the loop's own
	 * delays: an I/O's stamp (bench_io_stamp()) is the number of the
	 * bench_submit() that sends it, sub_ns[] when each began, and a
	 * completion counts from t_reap, when the wait that returned its CQE
	 * ended, before any CQE of the batch is handled (bench_io_us()).
	 */
	uint64_t n_submits, t_reap;
	uint64_t *sub_ns;
	uint32_t *disk_ver;
	/* buffer pool (bench_pool.c) */
	struct frame *fr;
	uint64_t nframes;
	int32_t *hash;
	uint64_t hmask;
	struct flist free_l, lru, flush;
	uint64_t ndirty;
	struct user *u;
	int nusers, active, stopping;
	int shed_from;		/* > 0: loop() ends once the users from it on are out of a transaction */
	int fwait_head, fwait_tail;	/* users waiting for a free frame */
	/* page cleaner (bench_pool.c) */
	int c_busy, c_pending, c_syncing, c_n;
	uint64_t c_t0;		/* the cleaner's writes' submission (stamp) */
	uint64_t c_start;	/* submission of the batch's writes (ns) */
	uint64_t c_slowest;	/* the batch's slowest write so far (ns) */
	int32_t *c_frames;
	void *c_buf;
	uint64_t c_last;
	/*
	 * The cleaner's fdatasync thread (bench_pool.c): s_req wakes it for
	 * a batch (or to quit), s_done tells the ring (a K_CSYNC read into
	 * s_buf) that it returned; s_res and s_ns its result and duration.
	 */
	pthread_t s_thread;
	int s_req, s_done, s_started, s_quit, s_res;
	uint64_t s_ns, s_buf;
	/* distribution (bench_dist.c) */
	double zeta_n, zeta2, z_alpha, z_eta, par_k;
	uint64_t hot_n, perm_a, perm_b;
	uint64_t perm_inv;	/* perm_a^-1 mod npages: page -> rank (bench_page_hot) */
	/* the redo log: a ring of log_recs records at log_base of log_fd */
	int log_fd;		/* the datafile's fd, or --log-dev's */
	uint64_t log_base;
	uint64_t log_next, log_recs;
	/* group commit (--group-commit on): the commits waiting, and the write in flight */
	int lq_head, lq_tail;	/* users waiting for the next redo write */
	int g_head, g_n;	/* the users of the redo write in flight (0: none) */
	uint64_t g_t0;		/* its submission (stamp) */
	void *gbuf;		/* their records, concatenated */
	/* measurement */
	struct bench_counts *cur;	/* counters of the current phase */
	struct bench_hist *hcur;
	uint64_t phase_end;
	struct bench_counts ic;		/* current interval */
	struct bench_counts unmeasured;
	struct bench_hist scratch;	/* response times not measured */
	struct bench_hist *thist;	/* the current step's, per transaction type */
	uint64_t step_mark;		/* end of the previous step (ns), 0: none */
	struct bench_hist ih;
	uint64_t t_start;
	int64_t force_page;		/* inject hook: next access */
	int failed;
	uint64_t inflight;
	uint64_t inject_at;
	int *ready;		/* users with a new transaction to start */
	unsigned r_head, r_tail;
	int r_n;
	/* terminal model (bench_model.c): per transaction type, seconds */
	int terminals;
	double think[BENCH_MAX_TYPES], keying[BENCH_MAX_TYPES];
	struct sleeper *sl;	/* users thinking or keying */
	int sl_n;
	/* --trace (bench_trace.c): the file, its start (ns), the phase its records are in */
	struct bench_trace *trace;
	uint64_t trace_t0;
	uint8_t phase;
	uint32_t txn_seq;	/* transactions begun */
	uint64_t commits;	/* transactions committed in the run */
	struct bench_devio io0, io0m;	/* the origin's counters at the start (o->origin_io) */
};

/* bench_layout.c */
void bench_page_fill(void *buf, uint32_t ps, uint64_t page, uint64_t ver);
/* 0: the page image of (@page, @ver); else a message in @msg. */
int bench_page_check(void *buf, uint32_t ps, uint64_t page, uint64_t ver,
		     char *msg, size_t len);
int bench_hdr_read(int fd, struct bench_hdr *h, const char *dev);
int bench_hdr_write(int fd, struct bench_hdr *h);
/* Read (@wr 0) or write the version map. */
int bench_map_io(int fd, const struct bench_hdr *h, uint32_t *ver, int wr);
int bench_open(const char *dev, int direct, int flags);
int bench_wait_cqe(struct io_uring *ring, struct io_uring_cqe **cqe);

/* bench_dist.c */
void bench_dist_init(struct engine *e);
/* The page of popularity rank @rank (0: the hottest), scattered over the datafile. */
uint64_t bench_rank_page(struct engine *e, uint64_t rank);
int bench_page_hot(const struct engine *e, uint64_t pg);
/* A uniform draw in [0, 1) from @s (splitmix64). */
double bench_rnd01(uint64_t *s);
/* A new transaction for @u: its type and the pages it reads and updates. */
void bench_txn_draw(struct engine *e, struct user *u);

/* bench_pool.c */
void bench_pool_init(struct engine *e, int maxu);
void bench_pool_free(struct engine *e);
int32_t bench_frame_find(struct engine *e, uint64_t page);
/* A frame for @page (free, else the least recently used clean one) or NIL. */
int32_t bench_frame_alloc(struct engine *e, uint64_t page);
void bench_frame_loaded(struct engine *e, int32_t f, uint32_t version);
void bench_frame_touch(struct engine *e, int32_t f);
void bench_frame_dirty(struct engine *e, int32_t f);
/* Start a cleaner batch if one is due (@force: now). */
void bench_cleaner_start(struct engine *e, uint64_t now, int force);
void bench_cleaner_write_done(struct engine *e, int res);
void bench_cleaner_sync_done(struct engine *e, int res);
/* The cleaner's fdatasync thread: 0 or -1 (a message printed). */
int bench_syncer_start(struct engine *e);
/* After the ring has no I/O in flight. */
void bench_syncer_stop(struct engine *e);

/* bench_engine.c */
struct io_uring_sqe *bench_get_sqe(struct engine *e);
void bench_submit(struct engine *e);
uint64_t bench_io_stamp(const struct engine *e);
uint64_t bench_io_us(const struct engine *e, uint64_t stamp);
/*
 * A record of the trace, if there is one: an I/O of BENCH_TR_* @op to
 * @fd (only those to the datafile's device are the cache's), or a commit,
 * by user @ui (-1: the page cleaner).
 */
void bench_trace_io(struct engine *e, int fd, int op, uint64_t off, uint32_t len, int ui);
/* The run failed: the first message (@fmt with @what) goes to r->error. */
void bench_fail(struct engine *e, const char *fmt, const char *what);

#endif
