/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the OLTP benchmark (userspace/bench/); see bench.h for the
 * verbs.  It uses lib/ (errors, numbers, the clock, device sizes, dm, JSON,
 * the pool probe), never ctl/.
 *
 * Files:
 *   bench.c         the prepare / run / compare verbs, device guard, signals
 *   bench_cli.c     the command line: usage text, options, value checks
 *   bench_layout.c  the datafile: page images, header, version map,
 *                   prepare and restore
 *   bench_engine.c  the transaction engine (io_uring event loop multiplexing
 *                   all users on one thread), with bench_dist.c (profiles,
 *                   access distributions) and bench_pool.c (buffer pool,
 *                   page cleaner); bench_engine.h holds their internals
 *   bench_stats.c   latency histograms, interval lines, text tables
 *   bench_report.c  results.json and chart.svg
 *   bench_rounds.c  the rounds of `compare`: run order, medians and spread
 *                   (pure functions, unit-tested on the host)
 *   bench_model.c   the terminal model (think and keying times) and the
 *                   search of the users under --rt-limit (pure functions,
 *                   unit-tested on the host)
 *   bench_stack.c   the cache stacks of `compare` (fcache, dm-cache,
 *                   dm-writecache) built with libdevmapper through fc_dm
 *   bench_sweep.c   compare --buffer-pool-sweep: the table of the sizes and
 *                   the advice (pure functions, unit-tested on the host)
 *   bench_trace.c   the block trace of a run (--trace) and the origin's
 *                   I/O counters; bench_opt.c the offline optimum of a
 *                   trace (pure, unit-tested); bench_opt.h has both
 *
 * On-device layout (all offsets in bytes from the start of DEV):
 *   0                 header (4 KiB): struct bench_hdr
 *   4096              version map: one u32 per page, the version on disk
 *                     after the last clean end of a run
 *   data_off          npages pages of page_size bytes (1 MiB aligned)
 *   log_off           the redo log region, log_size bytes, 4 KiB records
 *                     (unused with --log-dev: the log is then a ring at the
 *                     start of that device, at most BENCH_LOG_DEV_MAX)
 *
 * Page image: struct bench_page_hdr then filler derived from
 * (page number, version); the checksum covers the whole page.  A read is
 * good only if magic, checksum, page number and version (against the
 * in-memory expected version) all match.
 */
#ifndef FC_BENCH_INT_H
#define FC_BENCH_INT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "fc_err.h"
#include "fc_util.h"
#include "bench_opt.h"

/*
 * Who speaks in the benchmark's messages (fc_err): the engine and the
 * layout as "bench", the command line and the verbs as "fcachectl bench".
 */
#define BENCH_WHO	"bench"
#define BENCH_CLI	"fcachectl bench"

#define BENCH_HDR_MAGIC		0x314843424346ull	/* "FCBCH1" */
#define BENCH_PAGE_MAGIC	0x3150424346ull		/* "FCBP1" */
#define BENCH_LOG_MAGIC		0x31474c424346ull	/* "FCBLG1" */
#define BENCH_FLASH_MAGIC	0x314c46424346ull	/* "FCBFL1": compare's scratch flash */
#define BENCH_LOG_REC		4096u
#define BENCH_LOG_DEV_MAX	(64ull << 20)	/* --log-dev: the log ring uses at most this */
#define BENCH_GROUP_MAX		64	/* group commit: records per redo write (256 KiB) */
#define BENCH_MAX_STEPS		32
#define BENCH_MAX_TYPES		8
#define BENCH_HIST_BUCKETS	(64 * 16)
#define BENCH_MAX_ROUNDS	20	/* --rounds of compare */
#define BENCH_BACKLOG_MAX_S	300	/* compare: the longest wait for a cache's backlog */
#define BENCH_MAX_CONFIGS	8	/* configurations of compare */
#define BENCH_SCHEMA_VERSION	2	/* of results.json (fcache.bench, docs/JSON.md) */
#define BENCH_MAX_SWEEP		8	/* --buffer-pool-sweep: sizes */
#define BENCH_BP_MAX		1048576	/* --buffer-pool: MB */
#define BENCH_MAX_SEARCH	8	/* --rt-search: extra steps of the search */
#define BENCH_THINK_CAP		10	/* a think time is at most 10 times its mean */
#define BENCH_TIME_PROFILE	(-1.0)	/* --think-time / --keying-time tpcc */

struct bench_hdr {
	uint64_t magic;
	uint32_t page_size;
	uint32_t clean;		/* 1: version map is valid (no run active) */
	uint64_t npages;
	uint64_t map_off;
	uint64_t data_off;
	uint64_t log_off;
	uint64_t log_size;
	uint64_t runs;		/* completed runs since prepare */
	uint64_t checksum;	/* over the header with this field zero */
};

struct bench_page_hdr {
	uint64_t magic;
	uint64_t page;
	uint64_t version;
	uint64_t checksum;	/* over the whole page with this field zero */
};

/* Latency histogram: log-linear buckets of microseconds (~6% precision). */
struct bench_hist {
	uint64_t count;
	uint64_t sum_us;
	uint64_t max_us;
	uint64_t b[BENCH_HIST_BUCKETS];
};

void bh_reset(struct bench_hist *h);
void bh_add(struct bench_hist *h, uint64_t us);
void bh_merge(struct bench_hist *dst, const struct bench_hist *src);
double bh_avg_ms(const struct bench_hist *h);
double bh_pct_ms(const struct bench_hist *h, double pct);

/* One transaction type of a profile. */
struct bench_txn_type {
	const char *name;
	unsigned pct;		/* share of the mix, percent */
	unsigned reads;		/* point reads (page accesses) */
	unsigned updates;	/* of those, pages updated */
	unsigned ranges;	/* range scans ... */
	unsigned range_len;	/* ... of this many consecutive pages */
	double keying_s;	/* --terminals: keying time before it, s (fixed) */
	double think_s;		/* --terminals: mean think time after it, s */
};

struct bench_profile {
	const char *name;
	const char *desc;
	int ntypes;
	struct bench_txn_type t[BENCH_MAX_TYPES];
};

/*
 * The profile called @name (BENCH_PROFILE_ALIAS finds tpcc-like), or NULL.
 * bench_dist.c.
 */
const struct bench_profile *bench_profile_find(const char *name);
#define BENCH_PROFILE_ALIAS	"tpcc"	/* tpcc-like's old name, still accepted */

enum bench_dist { DIST_UNIFORM, DIST_ZIPF, DIST_PARETO, DIST_HOTSET };

/* Counters of one measured step (or the warm-up). */
struct bench_counts {
	uint64_t txns;
	uint64_t txn_by_type[BENCH_MAX_TYPES];
	uint64_t page_accesses;	/* logical page reads */
	uint64_t page_updates;	/* logical page updates */
	uint64_t hot_accesses;	/* accesses to the hottest 10% of pages */
	uint64_t bp_hits;	/* accesses served by the buffer pool */
	uint64_t dev_reads;	/* pages read from DEV (each one verified) */
	uint64_t dev_writes;	/* pages written by the page cleaner */
	uint64_t cold_dev_reads;	/* dev_reads of pages outside the hottest 10% */
	uint64_t cold_dev_writes;	/* cleaner writes submitted of such pages */
	uint64_t log_writes;	/* redo writes with RWF_DSYNC (one per record without group commit) */
	uint64_t log_records;	/* redo records (commits that updated a page) */
	uint64_t fsyncs;	/* fdatasync per cleaner batch */
	uint64_t cleaner_batches;
	uint64_t verify_errors;
	uint64_t free_waits;	/* users that waited for a free frame */
	/* device latency: submission to completion, summed over the I/Os counted above, us */
	uint64_t read_us;	/* of dev_reads */
	uint64_t write_us;	/* of dev_writes */
	uint64_t log_us;	/* of log_writes */
	uint64_t fsync_us;	/* of fsyncs */
	/* the page cleaner's batches (cleaner_batches ended by their fdatasync) */
	uint64_t cleaner_us;	/* first write submitted to fdatasync done, summed */
	uint64_t cleaner_slowest_us;	/* each batch's slowest page write, summed */
};

/* A figure over the rounds of `compare` (bench_spread_of). */
struct bench_spread {
	int n;			/* values (rounds) it is computed over */
	double median;		/* the middle value; n even: mean of the two middle ones */
	double min, max;
	double spread_pct;	/* (max - min) / median * 100; 0 if the median is 0 */
};

struct bench_step {
	int users;
	double seconds;
	struct bench_counts c;
	struct bench_hist lat;	/* transaction response times */
	double tps, avg_ms, p95_ms, p99_ms, max_ms;
	double nopm;		/* new-order transactions per minute; < 0: no new-order type */
	double p90_type_ms[BENCH_MAX_TYPES];	/* p90 response time of each type */
	/*
	 * Set by bench_aggregate: the figures of each round (in round order)
	 * and their spread; tps, avg_ms, p95_ms and p99_ms are then medians,
	 * max_ms the maximum, seconds and c sums over the rounds, lat unused.
	 */
	int nrounds;
	double tps_round[BENCH_MAX_ROUNDS];
	double avg_round[BENCH_MAX_ROUNDS];
	struct bench_spread tps_sp, avg_sp;
};

struct bench_sweep;

struct bench_opts {
	const char *profile;
	int users[BENCH_MAX_STEPS];
	int nsteps;
	double time_s;
	double warmup_s;
	double interval_s;
	double rt_limit_s;
	int rt_search;		/* at most this many extra steps to search the limit */
	/* terminal model: seconds, or BENCH_TIME_PROFILE (the profile's per type) */
	double think_s;		/* mean think time after a transaction (exponential) */
	double keying_s;	/* keying time before a transaction (fixed) */
	double bp_mb;
	enum bench_dist dist;
	double dist_a, dist_b;	/* zipf theta / pareto h / hotset access%, data% */
	char dist_str[64];
	uint64_t seed;
	int cleaner_batch;
	double cleaner_interval_s;
	int direct;		/* O_DIRECT (default 1) */
	const char *log_dev;	/* --log-dev: the redo log's own device; NULL: the datafile's */
	/* compare: its devices, for results.json (NULL for run; flash2: --flash2 or NULL) */
	const char *origin, *flash, *flash2;
	int group_commit;	/* --group-commit on: one redo write for the commits waiting */
	double inject_stale_s;	/* test hook: < 0 off */
	int quiet;		/* no interval lines */
	FILE *out;		/* where reports go (stdout) */
	const char *label;	/* configuration name in interval lines */
	int rounds;		/* compare: runs of each configuration (1) */
	/* compare --price CONFIG=AMOUNT: the cost of each configuration priced */
	int nprice;
	char price_cfg[BENCH_MAX_CONFIGS][32];
	double price[BENCH_MAX_CONFIGS];
	/* compare --buffer-pool-sweep: the sweep results.json gives (else NULL) */
	const struct bench_sweep *sweep;
	/*
	 * The signal that asked the run to stop (see bench_run), or NULL / 0;
	 * SIGPIPE also when standard output is gone and nothing else records
	 * the results (bench_out_gone).
	 */
	volatile sig_atomic_t *stop;
	/* --trace: the file of this run's block trace (NULL: none), and the flash it goes in the header with */
	const char *trace;
	uint64_t trace_flash;
	/* compare: the origin device, whose I/O counters the run reads at its start and end (NULL: none) */
	const char *origin_io;
	/* compare --trace: the configurations traced (comma-separated, "all"), NULL: none */
	const char *trace_configs;
	uint32_t opt_max_io;	/* --max-io: the optimum's largest merged writeback, bytes */
	/*
	 * Where the results go besides standard output (run --json FILE,
	 * compare's results.json), named when standard output is gone (a
	 * closed pipe, a hung-up terminal): the run goes on.  NULL: nowhere,
	 * so the run stops as on a signal (SIGPIPE).
	 */
	const char *results_to;
};

/*
 * One run of compare, against the limit (docs/PERFORMANCE.md, "The offline
 * optimum"): the requests that reached the origin device in it (its sysfs
 * counters, over the trace's window: from the first I/O of the warm-up to
 * the end of the last page cleaner write) and while its backlog was
 * written back, and with --trace the optimum of its trace.
 */
struct bench_origin {
	int ok;			/* the origin's counters were read (a block device) */
	uint64_t txns;		/* transactions committed in that window */
	struct bench_devio run, run_members;	/* the origin's, and its members' (md) */
	int members;		/* members of the origin (0: none) */
	struct bench_devio end, end_members;	/* their counters at the end of the window */
	int backlog_ok;		/* measured while the backlog was written back */
	struct bench_devio backlog, backlog_members;
	double read_hit;	/* the cache's read hit ratio (its counters), -1: none */
	int opt_ok;		/* the optimum of the trace below */
	char trace[256];	/* the trace file ("": not traced) */
	uint64_t trace_bytes;
	double opt_s;		/* time to read the trace and compute its optimum */
	struct bench_opt opt;
};

struct bench_result {
	char config[64];
	char device[256];
	const struct bench_profile *profile;
	uint64_t npages;
	uint32_t page_size;
	double bp_mb;
	uint64_t bp_frames;
	struct bench_counts warm;
	double warm_s;
	int nsteps;
	struct bench_step step[BENCH_MAX_STEPS];
	uint64_t verify_errors;
	uint64_t pages_verified;
	/* the largest user count under --rt-limit, the search included (0: none) */
	int max_users_under_limit;
	int under_round[BENCH_MAX_ROUNDS];	/* bench_aggregate: that of each round */
	int nsearch;			/* steps of the search (rounds: of a single round only) */
	struct bench_step search[BENCH_MAX_SEARCH];
	char error[512];		/* integrity failure or I/O error text */
	double elapsed_s;
	uint32_t *final_ver;		/* versions on disk at the end (malloc) */
	int rounds;			/* runs aggregated (bench_aggregate) */
	char counters[2048];		/* the stack's "name=value ..." after the (last) run */
	/* compare: the writeback backlog the cache left (bench_stack_backlog) */
	int backlog_ok;			/* measured (not for the baseline) */
	double backlog_mib;		/* dirty data at the end of the run */
	double backlog_s;		/* time to write it back; < 0: not done in BENCH_BACKLOG_MAX_S */
	char stopped[160];		/* "": ran to the end; else how a signal stopped it */
	/* compare: the origin's requests and the optimum (one run's; bench_aggregate: each round's) */
	struct bench_origin orig;
	int norig;
	struct bench_origin orig_round[BENCH_MAX_ROUNDS];
};

/*
 * The read hit ratio of a stack's counters ("name=value ...",
 * bench_stack_counters()): read_hits / reads (fcache's volume, dm-writecache),
 * or read_hits / (read_hits + read_misses) (dm-cache); the first value of a
 * name counts.  0 and the figures, or -1: no read counted, or no such counters.
 */
int bench_read_hit_ratio(const char *counters, uint64_t *hits, uint64_t *reads,
			 double *ratio);

/* "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE (standard output gone)", "a signal" */
const char *bench_sig_name(int sig);
/*
 * Is standard output (o->out) gone: a write failed on it (a closed pipe:
 * SIGPIPE is ignored during run and compare; a hung-up terminal), or poll
 * says its reader or terminal is gone?  The first time: with
 * o->results_to, one line on stderr (the run goes on, its results go
 * there); without, *o->stop = SIGPIPE (the run stops as on a signal).
 * The engine asks every second.
 */
int bench_out_gone(const struct bench_opts *o);

/* bench_run: stopped by *o->stop, the datafile closed cleanly, r->stopped says where */
#define BENCH_RUN_STOPPED 2

/* bench_guard.c: what bench checks before it touches anything */
struct stat;
/* 0, or EXIT_FAIL (said, @what "--origin"... first): a FIFO, a directory, a socket */
int bench_dev_kind(const char *what, const char *dev);
/*
 * May prepare or compare overwrite @dev (not in use, no signature, unless
 * @force; our own header is no reason to refuse)?  0, or EXIT_FAIL (said).
 */
int bench_guard(const char *dev, int force);
/* Are @a and @b the same device (block devices) or the same file? */
int bench_same_dev(const struct stat *a, const struct stat *b);
/*
 * --log-dev @log of run and compare: not one of @other[@n] (named @what[]:
 * EXIT_USAGE), existing, a block device or file, writable, then
 * bench_guard() (EXIT_FAIL).  0, or the exit status (said).
 */
int bench_log_dev_check(const char *log, const char *const *other,
			const char *const *what, int n, int force);
/*
 * One benchmark at a time: an exclusive flock on the datafile or device
 * @path (its role @what: "datafile", "--flash"), held while the returned
 * descriptor is open; -1: no such path (nothing to lock yet), -2: another
 * process holds it (said, naming it when /proc tells).
 */
int bench_lock_dev(const char *path, const char *what);
/* The same for compare's device stacks (fcbench-*), one set on the machine. */
int bench_stack_lock(void);
/* --json FILE of run, opened before the run (not emptied yet); NULL (said). */
FILE *bench_json_open(const char *path);
/* The results of run into @f from bench_json_open() (emptied first), closed: 0, -1 (said). */
int bench_json_write(FILE *f, const char *path, const struct bench_opts *o,
		     const struct bench_result *r, char *cmd);
/* mkdir @dir unless it exists: 0, or -1 (said). */
int bench_make_dir(const char *dir);
/* --output DIR of compare: made, a directory, taking new files: 0, or -1 (said). */
int bench_out_dir_check(const char *out);

/*
 * bench_layout.c: 0, or -1 (said).  @reuse (compare): a clean datafile of
 * the same layout gets only its changed pages back to version 1.
 */
int bench_prepare(const char *dev, double size_mb, unsigned page_kib,
		  double log_mb, int direct, int quiet, int reuse);
int bench_restore(const char *dev, const uint32_t *ver, int direct);
/* Does @fd start with a header of ours (a datafile, or a flash bench_mark_flash left)? */
int bench_own_header(int fd);
/*
 * After compare tore a cache stack down: zero the first MiB of @flash (the
 * stale cache's superblock) and leave a header saying the flash is the
 * benchmark's scratch, so the next compare takes it without --force.
 */
int bench_mark_flash(const char *flash);

/* bench_engine.c: 0, BENCH_RUN_STOPPED, or -1 (said; r->error has the failure) */
int bench_run(const char *dev, const struct bench_opts *o, struct bench_result *r);

/* bench_rounds.c */
/* The step of @r with @users users, or NULL. */
const struct bench_step *bench_step_of(const struct bench_result *r, int users);
int bench_spread_of(const double *v, int n, struct bench_spread *sp);
void bench_round_order(int round, int ncfg, int *order);
int bench_aggregate(const struct bench_result *const *run, int n,
		    struct bench_result *out);

/* bench_model.c: the terminal model and the search of users under the limit */
/*
 * A think time of mean @mean from a uniform @u in [0, 1): exponential,
 * at most BENCH_THINK_CAP times the mean; 0 if @mean is not positive.
 */
double bench_exp_sample(double mean, double u);
/* The mean think time and the keying time of type @t under @o (seconds). */
double bench_think_mean(const struct bench_opts *o, const struct bench_txn_type *t);
double bench_keying(const struct bench_opts *o, const struct bench_txn_type *t);
/* Does a type of @p think or key under @o? */
int bench_terminal_model(const struct bench_opts *o, const struct bench_profile *p);
/* Has @p keying or think times of its own (--terminals)? */
int bench_profile_has_times(const struct bench_profile *p);
/* The index of @p's new-order type (NOPM), or -1. */
int bench_new_order_type(const struct bench_profile *p);
/* Did step @s complete transactions with an average response time under @limit_ms? */
int bench_step_under(const struct bench_step *s, double limit_ms);
/*
 * The search of the largest user count under the limit: a bisection
 * between the largest count of the ladder under the limit (lo) and the
 * smallest above it that is not (hi), at most @max_steps extra steps.
 */
struct bench_rt_search {
	int lo, hi;		/* hi 0: nothing above lo is over the limit */
	int left, steps;	/* extra steps still allowed, and run */
	double limit_ms;
};
void bench_rt_search_init(struct bench_rt_search *s, const struct bench_step *st, int n,
			  double limit_ms, int max_steps);
/* The user count of the next extra step, or 0: lo is the answer. */
int bench_rt_search_next(const struct bench_rt_search *s);
void bench_rt_search_done(struct bench_rt_search *s, const struct bench_step *st);

/* bench_stats.c */
void bench_print_table(FILE *f, const struct bench_result *r, double rt_limit_s);
void bench_print_interval(FILE *f, const char *label, double t, int users,
			  double tps, const struct bench_hist *h,
			  uint64_t reads, uint64_t writes, uint64_t syncs, double dt);
void bench_print_compare(FILE *f, const struct bench_result *r, int nr);
void bench_print_summary(FILE *f, const struct bench_result *r, int nr);
/*
 * A ratio to the baseline as the reports print it: "0.47x", under 0.1 with
 * two significant digits ("0.0053x"), never "0.00x"; @buf returned.
 */
const char *bench_ratio_str(char *buf, size_t len, double r);
/* Does the buffer pool of @r hold the whole datafile (the reports warn)? */
int bench_bp_covers(const struct bench_result *r);
/* Do steps @s and @b both have transactions to compare (a ratio)? */
int bench_has_ratio(const struct bench_step *s, const struct bench_step *b);
/*
 * The ratios of @r to @base at the heaviest user count both have: the
 * user count, and in *@ok whether there are ratios (*@tps, *@rt).
 */
int bench_heaviest(const struct bench_result *base, const struct bench_result *r,
		   double *tps, double *rt, int *ok);
/* The ratios of step @s to the baseline's @b; each with whether it exists. */
struct bench_ratios {
	int ok, p95_ok, nopm_ok;
	double tps, avg, p95, nopm;
};
void bench_ratios_of(const struct bench_step *s, const struct bench_step *b,
		     struct bench_ratios *q);
/*
 * Is @r's count under the limit the largest user count of its ladder?
 * Then more users may be served: the figure is a lower bound.
 */
int bench_under_capped(const struct bench_result *r);
/* The users under the limit of @r against @base's: 1 and *@ratio, or 0 (no base). */
int bench_under_ratio(const struct bench_result *base, const struct bench_result *r,
		      double *ratio);
/* The "summary terminals" lines of compare with the terminal model on. */
void bench_print_summary_terminals(FILE *f, const struct bench_result *r, int nr,
				   double rt_limit_s);
/*
 * The price of configuration @config (--price) in *@amount, and its price
 * per TPS at the user count @users of @r (the summary's): 1 and *@per_tps
 * (0 if that step has no TPS), or 0: not priced.
 */
int bench_price_of(const struct bench_opts *o, const struct bench_result *r, int users,
		   double *amount, double *per_tps);
/* The price table of compare (nothing without --price). */
void bench_print_prices(FILE *f, const struct bench_opts *o, const struct bench_result *r,
			int nr);
/* Redo records per redo write (group commit: the average group; 0: no write). */
double bench_log_group_avg(const struct bench_counts *c);
/* The device latency kinds of struct bench_counts, and their names in reports. */
enum { BENCH_LAT_READ, BENCH_LAT_WRITE, BENCH_LAT_LOG, BENCH_LAT_FSYNC, BENCH_LAT_KINDS };
extern const char *const bench_lat_name[BENCH_LAT_KINDS];
/* Average device latency of one kind of I/O in @c, ms; -1: none of that kind. */
double bench_dev_latency_ms(const struct bench_counts *c, int kind);
/* The most rounds any of the @nr results aggregates (1 at least). */
int bench_max_rounds(const struct bench_result *r, int nr);

/* bench_sweep.c: compare --buffer-pool-sweep (pure functions, unit-tested) */
struct bench_sweep {
	int n;				/* sizes measured, increasing */
	double mb[BENCH_MAX_SWEEP];
	const struct bench_result *r[BENCH_MAX_SWEEP];	/* the results at each, baseline first */
	int nr[BENCH_MAX_SWEEP];
};
/* The answer to "more memory or fast flash?" from the measured TPS. */
enum { BENCH_ADVICE_NONE, BENCH_ADVICE_FLASH, BENCH_ADVICE_MEMORY };
struct bench_advice {
	int kind;
	const char *config;	/* the cached configuration it names (NULL: none) */
	double mb;		/* ... at this buffer pool size */
	double ratio;		/* flash: its TPS / the baseline's at the largest size;
				   memory: the baseline's at the largest / its */
	char text[320];		/* the "advice: ..." line */
};
/* "64M", "1G", "0.5M": a size of the sweep, for the report and the directories. */
void bench_sweep_size(double mb, char *buf, size_t len);
/* The user count of the sweep's table: the heaviest of the baseline's ladder (0: none). */
int bench_sweep_users(const struct bench_sweep *sw);
/* The TPS of configuration @cfg at size @k at @users: 1 and *@tps, or 0 (none measured). */
int bench_sweep_tps(const struct bench_sweep *sw, int k, const char *cfg, int users,
		    double *tps);
void bench_sweep_advice(const struct bench_sweep *sw, struct bench_advice *a);
/* The table (a row per size: the baseline's TPS, each cached one's and its ratio) and the advice. */
void bench_print_sweep(FILE *f, const struct bench_sweep *sw);

/* bench_limit.c: the origin's requests and the optimum in the reports (pure) */
enum {
	BENCH_ORIG_READS, BENCH_ORIG_WRITES,	/* during the run */
	BENCH_ORIG_BACKLOG,			/* while the backlog was written back */
	BENCH_ORIG_RUN,				/* reads and writes during the run */
	BENCH_ORIG_ALL,				/* ... and the backlog's */
	BENCH_ORIG_MEMBERS,			/* the origin's members' during the run */
};
/* Origin requests a transaction of kind BENCH_ORIG_*; -1: not measured. */
double bench_origin_per_txn(const struct bench_origin *g, int what);
/* @ops of @o's trace a transaction (its commits); -1: no commit. */
double bench_opt_per_txn(const struct bench_opt *o, double ops);
/* The cache's origin requests during the run over the optimum's lower bound; -1: none. */
double bench_origin_distance(const struct bench_origin *g);
/* The lines of one run of compare: its origin requests, and the optimum of its trace. */
void bench_print_origin(FILE *f, const char *cfg, const struct bench_origin *g);
/* Medians over the rounds of @r (the rounds that have the figure), -1: none. */
enum {
	BENCH_LIM_READS, BENCH_LIM_WRITES, BENCH_LIM_BACKLOG, BENCH_LIM_RUN, BENCH_LIM_ALL,
	BENCH_LIM_MEMBERS,		/* origin requests a transaction (BENCH_ORIG_*) */
	BENCH_LIM_LB, BENCH_LIM_SCHED,	/* the optimum's, a transaction */
	BENCH_LIM_FILL, BENCH_LIM_BYPASS, BENCH_LIM_HIT,	/* read hit ratios, 0..1 */
	BENCH_LIM_DISTANCE,		/* the cache's requests / the lower bound */
	BENCH_LIM_KINDS
};
double bench_limit_median(const struct bench_result *r, int what);
/* "offline optimum (Belady MIN, 64 MiB flash) of <config>'s trace: ..." */
void bench_line_optimum(char *buf, size_t len, const struct bench_result *r);
/* compare: the table of origin requests per transaction and the "offline optimum" lines. */
void bench_print_limit(FILE *f, const struct bench_result *r, int nr);
/* `bench optimum`: the optimum of the trace @path. */
void bench_print_opt(FILE *f, const char *path, const struct bench_trace_hdr *h,
		     const struct bench_opt *o, double secs);

/* bench_report.c */
int bench_write_json(const char *path, const struct bench_opts *o,
		     const struct bench_result *r, int nr, const char *chart,
		     const char *command);
/* The same into @f, open already (named @path in messages), which it closes: 0 or -1 (said). */
int bench_write_json_file(FILE *f, const char *path, const struct bench_opts *o,
			  const struct bench_result *r, int nr, const char *chart,
			  const char *command);
int bench_write_svg(const char *path, const struct bench_result *r, int nr);
/* compare --buffer-pool-sweep: TPS versus buffer pool size, a line per configuration. */
int bench_write_sweep_svg(const char *path, const struct bench_sweep *sw);

/* bench_cli.c: the command line of the verbs */
struct bench_cli {
	struct bench_opts o;
	const char *json, *label, *origin, *flash, *output, *configs;
	const char *flash2;	/* compare --flash2: a second flash device, or NULL */
	double size_mb, log_mb;
	unsigned page_kib, cblock_kib;
	int anchors, quick, time_set, warm_set, users_set, rounds_set, force;
	int discarded;		/* compare: cache configurations run on a discarded flash */
	int price_set, bp_set;
	int nsweep;		/* --buffer-pool-sweep: the sizes, increasing (0: none) */
	double sweep_mb[BENCH_MAX_SWEEP];
	const char *trace;	/* --trace: run's file, compare's configurations */
	double flash_size_mb;	/* optimum --flash-size (0: the trace's) */
	int maxio_set;		/* --max-io given */
};
/*
 * @fmt NULL: the usage text on stdout (of the verb bench_set_verb() named,
 * else of every verb), EXIT_OK; else "fcachectl bench: <@fmt with @arg>"
 * and "Try 'fcachectl bench [VERB] --help'." on stderr, EXIT_USAGE.
 */
int bench_usage(const char *fmt, const char *arg);
/* The verb whose usage bench_usage() gives (NULL or unknown: all). */
void bench_set_verb(const char *verb);
/*
 * The options of argv[1..] with their defaults, and up to 4 operands into
 * @pos: 0, -1 (--help printed) or EXIT_USAGE (said).
 */
int bench_parse(struct bench_cli *c, int argc, char **argv, char **pos, int *npos);
/* --users: comma-separated whole numbers; 0, or EXIT_USAGE (said). */
int bench_parse_users(struct bench_opts *o, const char *s);
/*
 * --buffer-pool-sweep SIZES: 2..BENCH_MAX_SWEEP different sizes, each MB
 * with an optional M or G (64M,256M,1G), 0..BENCH_BP_MAX MB, kept in
 * increasing order in c->sweep_mb; 0, or EXIT_USAGE (said).
 */
int bench_parse_sweep(struct bench_cli *c, const char *s);
/* --price CONFIG=AMOUNT (repeated); 0, or EXIT_USAGE (said). */
int bench_parse_price(struct bench_opts *o, const char *s);
#define BENCH_PRICE_MAX	1e12

#endif
