// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl ordered-log format|show|replay: the ordered log beside a
 * volume's origin (include/fcache_olog.h, docs/DESIGN.md "The origin's
 * log").  With the flash lost, the origin plus the log's complete records
 * replayed over it, in order, is the volume at a flush point: `replay`
 * writes them in place, flushes the origin, then moves the log's head past
 * them (a crash before that replays the same records again: the same
 * bytes).  `show` says what a replay would apply, and how old the flush
 * point it reaches is.
 *
 * All three work on a device (or an image file) that nothing has open:
 * a block device is opened O_EXCL, so a log or origin of a live volume is
 * refused.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include "fcachectl.h"
#include "fc_check.h"
#include "fc_json.h"
#include "../../include/fcache_olog.h"

#define WHO "ordered-log"
#define SCHEMA "fcache.ordered-log"

/* A log device as read: its superblock, and the walk of its ring from the head. */
struct olog {
	const char *path;
	int fd;
	uint64_t dev_pages;
	__u8 *sb;			/* the current slot, FC_PAGE_SIZE */
	int slot;
	struct fc_olog_geo g;
	struct fc_olog_walk w;
	uint64_t pages;			/* data pages of the records up to w.done */
	char stop[160];			/* why the walk ended */
	int read_error;			/* ... on a read error: not the log's end */
	int apply_fd;			/* the origin a replay writes */
	char err[300];			/* why olog_open() found no log */
	__u8 *rec;			/* a header, FC_PAGE_SIZE */
	__u8 *data;			/* a record's data, FC_OLOG_REC_MAX pages */
};

/* Open @path for the verb (O_EXCL for a block device): the fd, or -1 said. */
static int open_dev(const char *path, int rw, uint64_t *pages, const char *what)
{
	uint64_t bytes;
	dev_t rdev;
	int fd, blk = !fc_block_dev(path, &rdev);

	/* not sys/stat.h: with _GNU_SOURCE it brings the kernel's __u64 */
	fd = open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC | (blk ? O_EXCL | O_DIRECT : 0));
	if (fd < 0 && errno == EBUSY)
		return fc_fail(WHO ": %s (%s) is in use (an assembled volume?): refused", path,
			       what), -1;
	if (fd < 0)
		return fc_fail(WHO ": cannot open %s: %s", path, strerror(errno)), -1;
	if (fc_dev_size(fd, &bytes)) {
		fc_fail(WHO ": cannot read the size of %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	*pages = bytes / FC_PAGE_SIZE;
	return fd;
}

/* A whole transfer of @n pages at page @page: 0, or -1 with errno (EIO: a short one). */
static int xfer_pages(int fd, void *buf, uint64_t page, uint64_t n, int write)
{
	size_t len = n * FC_PAGE_SIZE;
	off_t off = (off_t)(page * FC_PAGE_SIZE);
	ssize_t r = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);

	if (r == (ssize_t)len)
		return 0;
	if (r >= 0)
		errno = EIO;
	return -1;
}

static int read_pages(int fd, void *buf, uint64_t page, uint64_t n)
{
	return xfer_pages(fd, buf, page, n, 0);
}

static int write_pages(int fd, const void *buf, uint64_t page, uint64_t n)
{
	return xfer_pages(fd, (void *)buf, page, n, 1);
}

static void olog_free(struct olog *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->sb);
	free(l->rec);
	free(l->data);
}

/*
 * Read @path's superblock (EXIT_OK), or put why there is none in l->err:
 * EXIT_FAIL (damaged, unreadable; l->fd < 0: could not be opened, said),
 * EXIT_NOT_POOL (no log at all).
 */
static int olog_open(struct olog *l, const char *path, int rw)
{
	__u8 *s[2];
	const char *why[2] = { NULL, NULL };
	struct fc_olog_geo g[2];
	int err[2], i, pick;

	memset(l, 0, sizeof(*l));
	l->path = path;
	l->sb = fc_io_alloc(2 * FC_PAGE_SIZE);
	l->rec = fc_io_alloc(FC_PAGE_SIZE);
	l->data = fc_io_alloc((size_t)FC_OLOG_REC_MAX * FC_PAGE_SIZE);
	l->fd = open_dev(path, rw, &l->dev_pages, "the log");
	if (l->fd < 0)
		return EXIT_FAIL;
	if (!l->sb || !l->rec || !l->data) {
		snprintf(l->err, sizeof(l->err), "out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < 2; i++) {
		s[i] = l->sb + i * FC_PAGE_SIZE;
		err[i] = read_pages(l->fd, s[i], i, 1) ? 1 : fc_olog_sb_check(s[i], i, l->dev_pages,
									       &g[i], &why[i]);
		if (err[i] > 0)
			why[i] = "cannot be read";
	}
	if ((err[0] == FC_ECHK_ZERO || err[0] == FC_ECHK_MAGIC) &&
	    (err[1] == FC_ECHK_ZERO || err[1] == FC_ECHK_MAGIC)) {
		snprintf(l->err, sizeof(l->err), "%s holds no ordered log", path);
		return EXIT_NOT_POOL;
	}
	pick = fc_olog_sb_pick(s[0], s[1], err[0], err[1]);
	if (pick == -2)
		snprintf(l->err, sizeof(l->err),
			 "%s: damaged log: its two superblock slots belong to two logs", path);
	else if (pick < 0)
		snprintf(l->err, sizeof(l->err),
			 "%s: damaged log: superblock slot 0: %s; slot 1: %s", path, why[0], why[1]);
	if (pick < 0)
		return EXIT_FAIL;
	if (err[!pick] && err[!pick] != FC_ECHK_ZERO)
		fc_info("%s: superblock slot %d not used: %s", path, !pick, why[!pick]);
	l->slot = pick;
	if (pick)
		memcpy(l->sb, s[1], FC_PAGE_SIZE);
	l->g = g[pick];
	return EXIT_OK;
}

static const struct fc_disk_olog_sb *olog_sb(const struct olog *l)
{
	return (const void *)l->sb;
}

/* The scan's I/O on the log (fc_olog_io.read): 0 or -errno. */
static int scan_read(void *ctx, void *buf, __u64 page, __u64 n)
{
	const struct olog *l = ctx;

	return read_pages(l->fd, buf, page, n) ? -errno : 0;
}

/* Write record @r's data in place on l->apply_fd, a run of consecutive pages a call. */
static int scan_apply(void *ctx, const struct fc_disk_olog_rec *r, const void *data)
{
	const struct olog *l = ctx;
	__u32 nr = le32_to_cpu(r->nr_pages), i, j;

	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && le64_to_cpu(r->page[j]) == le64_to_cpu(r->page[i]) + (j - i);
		     j++)
			;
		if (write_pages(l->apply_fd, (const __u8 *)data + (size_t)i * FC_PAGE_SIZE,
				le64_to_cpu(r->page[i]), j - i))
			return -errno;
	}
	return 0;
}

/*
 * Walk the ring from the head (fc_olog_scan()); with @apply_fd >= 0 write
 * the records up to @upto (a first walk's done_records) onto it.  EXIT_OK,
 * or EXIT_FAIL said.  A read error ends the walk as the log's end would,
 * but says so in l->read_error: the records past it may be whole.
 */
static int olog_walk(struct olog *l, int apply_fd, uint64_t upto)
{
	const struct fc_olog_io io = {
		.read = scan_read, .apply = apply_fd >= 0 ? scan_apply : NULL, .ctx = l,
		.rec = l->rec, .data = l->data,
	};
	struct fc_olog_scan s;
	unsigned long long seq, pos;

	l->apply_fd = apply_fd;
	fc_olog_scan(&s, &io, l->sb, &l->g, apply_fd >= 0 ? upto : ~0ULL);
	l->w = s.w;
	l->pages = s.pages;
	l->read_error = fc_olog_scan_read_error(&s);
	seq = s.stop_seq;
	pos = s.stop_pos;
	switch (s.stop) {
	case FC_OLOG_STOP_WHOLE:
	case FC_OLOG_STOP_UPTO:
		snprintf(l->stop, sizeof(l->stop), "the ring walked whole");
		break;
	case FC_OLOG_STOP_HDR_READ:
		snprintf(l->stop, sizeof(l->stop), "page %llu cannot be read: %s", pos,
			 strerror(-s.err));
		break;
	case FC_OLOG_STOP_RECORD:
		snprintf(l->stop, sizeof(l->stop), "record %llu at page %llu: %s", seq, pos, s.why);
		break;
	case FC_OLOG_STOP_HEAD:
		snprintf(l->stop, sizeof(l->stop), "record %llu would reach the head", seq);
		break;
	case FC_OLOG_STOP_DATA_READ:
		snprintf(l->stop, sizeof(l->stop), "record %llu at page %llu: its data cannot be read",
			 seq, pos);
		break;
	case FC_OLOG_STOP_TORN:
		snprintf(l->stop, sizeof(l->stop),
			 "record %llu at page %llu: data torn (checksum mismatch)", seq, pos);
		break;
	case FC_OLOG_STOP_APPLY:
		return fc_fail(WHO ": writing the origin failed: %s", strerror(-s.err));
	}
	return EXIT_OK;
}

static double age_s(uint64_t time_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9 - time_ns / 1e9;
}

/* The flush point the origin reaches: its epoch, time and age, as text. */
static void flush_point_str(char *buf, size_t len, uint64_t epoch, uint64_t time_ns)
{
	char when[64];
	time_t t = (time_t)(time_ns / 1000000000ULL);
	struct tm tm;

	if (!time_ns) {
		snprintf(buf, len, "none recorded");
		return;
	}
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
	snprintf(buf, len, "epoch %" PRIu64 ", made %s (%.0f s ago)", epoch, when,
		 age_s(time_ns));
}

static void report(struct olog *l, int json, int replayed, int dry)
{
	const struct fc_disk_olog_sb *sb = olog_sb(l);
	uint64_t ep = l->w.done_records ? l->w.epoch : le64_to_cpu(sb->applied_epoch);
	uint64_t tm = l->w.done_records ? l->w.time : le64_to_cpu(sb->applied_time);
	char u[33], pu[33], fp[160];
	struct fc_json j;

	chk_hex(u, sb->hdr.uuid, 16);
	chk_hex(pu, sb->pool_uuid, 16);
	flush_point_str(fp, sizeof(fp), ep, tm);
	if (json) {
		fj_init(&j, stdout);
		fj_obj(&j, NULL);
		fj_schema(&j, SCHEMA);
		fj_str(&j, "device", l->path);
		fj_str(&j, "uuid", u);
		fj_u64(&j, "log_pages", le64_to_cpu(sb->log_pages));
		fj_u64(&j, "origin_pages", le64_to_cpu(sb->origin_pages));
		fj_str(&j, "pool_uuid", pu);
		fj_u64(&j, "vol_id", le32_to_cpu(sb->vol_id));
		fj_u64(&j, "head", le64_to_cpu(sb->head));
		fj_u64(&j, "head_seq", le64_to_cpu(sb->head_seq));
		fj_u64(&j, "records", l->w.records);
		fj_u64(&j, "records_to_apply", l->w.done_records);
		fj_u64(&j, "pages_to_apply", l->pages);
		fj_str(&j, "walk_stop", l->stop);
		fj_u64(&j, "epoch", ep);
		fj_u64(&j, "time_ns", tm);
		if (tm)
			fj_dbl(&j, "age_s", age_s(tm));
		else
			fj_null(&j, "age_s");
		fj_bool(&j, "replayed", replayed);
		fj_bool(&j, "dry_run", dry);
		fj_end(&j);
		return;
	}
	printf("log %s: %" PRIu64 " MiB for an origin of %" PRIu64 " MiB, uuid %s\n", l->path,
	       le64_to_cpu(sb->log_pages) / 256, le64_to_cpu(sb->origin_pages) / 256, u);
	printf("  head: page %" PRIu64 ", record %" PRIu64 "\n", le64_to_cpu(sb->head),
	       le64_to_cpu(sb->head_seq));
	printf("  records from the head: %" PRIu64 " (the walk ended: %s)\n", l->w.records, l->stop);
	if (replayed)
		printf("  replayed: %" PRIu64 " records, %" PRIu64 " pages%s\n", l->w.done_records,
		       l->pages, dry ? " (dry run: nothing written)" : "");
	else
		printf("  to apply: %" PRIu64 " records, %" PRIu64 " pages%s\n", l->w.done_records,
		       l->pages, l->w.records > l->w.done_records ?
		       " (the records after them end at no flush point: not applied)" : "");
	printf("  the origin %s at the flush point: %s\n",
	       replayed && !dry ? "now holds the volume" : "with a replay holds the volume", fp);
}

static int cmd_format(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "origin", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dev = NULL, *origin = NULL;
	uint64_t origin_pages = 0, log_pages;
	struct fc_olog_geo g;
	struct olog l;
	struct fc_opt o;
	__u8 uuid[16], *sb;
	int force = 0, c, fd, rc;

	fc_opt_init(&o, argc, argv, "", opts, "ordered-log", WHO " format");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (fc_opt_operand(&o, &dev, 1, "log device"))
				return EXIT_USAGE;
			break;
		case 'o':
			origin = o.arg;
			break;
		case 'f':
			force = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!dev || !origin)
		return fc_usage("ordered-log", WHO " format: expected LOGDEV --origin ORIGIN");
	fd = open_dev(origin, 0, &origin_pages, "the origin");
	if (fd < 0)
		return EXIT_FAIL;
	close(fd);
	if (!origin_pages)
		return fc_fail(WHO ": %s: an origin smaller than 4 KiB", origin);
	rc = olog_open(&l, dev, 1);
	if (rc == EXIT_OK && !force) {
		rc = olog_walk(&l, -1, 0);
		if (rc == EXIT_OK && l.w.done_records) {
			olog_free(&l);
			return fc_fail(WHO ": %s holds %" PRIu64 " records not applied to its origin: "
				       "replay them first ('" WHO " replay'), or --force to lose them",
				       dev, l.w.done_records);
		}
	}
	if (rc == EXIT_FAIL && l.fd < 0) {
		olog_free(&l);
		return EXIT_FAIL;
	}
	if (rc == EXIT_FAIL && !force) {
		olog_free(&l);
		return fc_fail(WHO ": %s (--force formats it all the same)", l.err);
	}
	log_pages = l.dev_pages;
	if (fc_olog_geo_init(&g, log_pages)) {
		olog_free(&l);
		return fc_fail(WHO ": %s: %" PRIu64 " KiB is too small for a log (at least %u KiB)",
			       dev, log_pages * 4, (unsigned int)FC_OLOG_MIN_PAGES * 4);
	}
	if (getrandom(uuid, sizeof(uuid), 0) != sizeof(uuid)) {
		olog_free(&l);
		return fc_fail(WHO ": getrandom: %s", strerror(errno));
	}
	sb = l.sb;
	fc_olog_sb_init(sb, log_pages, origin_pages, uuid, (uint64_t)time(NULL));
	fc_olog_sb_seal(sb, 0, 1);
	/* slot 1 zeroed first, then slot 0: a format cut short leaves no log at all */
	memset(sb + FC_PAGE_SIZE, 0, FC_PAGE_SIZE);
	rc = write_pages(l.fd, sb + FC_PAGE_SIZE, 1, 1) || fdatasync(l.fd) ||
	     write_pages(l.fd, sb, 0, 1) || fdatasync(l.fd) ? -1 : 0;
	olog_free(&l);
	if (rc)
		return fc_fail(WHO ": writing %s failed: %s", dev, strerror(errno ? errno : EIO));
	printf("%s: an empty ordered log of %" PRIu64 " MiB for %s (%" PRIu64 " MiB)\n", dev,
	       log_pages / 256, origin, origin_pages / 256);
	return EXIT_OK;
}

static int cmd_show_replay(int argc, char **argv, int replay)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	const char *ops[2] = { NULL, NULL };
	struct fc_disk_olog_sb *sb;
	uint64_t origin_pages, upto;
	struct olog l;
	struct fc_opt o;
	int json = 0, dry = 0, c, ofd = -1, rc;

	fc_opt_init(&o, argc, argv, "", opts, "ordered-log", replay ? WHO " replay" : WHO " show");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (fc_opt_operand(&o, ops, replay ? 2 : 1, "device"))
				return EXIT_USAGE;
			break;
		case 'j':
			json = 1;
			break;
		case 'n':
			dry = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!ops[0] || (replay && !ops[1]))
		return fc_usage("ordered-log", replay ? WHO " replay: expected LOGDEV ORIGIN"
					       : WHO " show: expected LOGDEV");
	if (dry && !replay)
		return fc_usage("ordered-log", WHO " show: --dry-run is replay's");
	rc = olog_open(&l, ops[0], replay && !dry);
	if (rc != EXIT_OK) {
		if (l.fd >= 0)
			fc_fail_json(json ? SCHEMA : NULL, WHO ": %s", l.err);
		olog_free(&l);
		return rc;
	}
	sb = (void *)l.sb;
	if (replay) {
		ofd = open_dev(ops[1], !dry, &origin_pages, "the origin");
		if (ofd < 0) {
			olog_free(&l);
			return EXIT_FAIL;
		}
		if (origin_pages != le64_to_cpu(sb->origin_pages)) {
			rc = fc_fail(WHO ": %s is %" PRIu64 " KiB, the log's origin %" PRIu64
				     " KiB: not its origin, refused", ops[1], origin_pages * 4,
				     (uint64_t)le64_to_cpu(sb->origin_pages) * 4);
			close(ofd);
			olog_free(&l);
			return rc;
		}
	}
	rc = olog_walk(&l, -1, 0);
	if (rc == EXIT_OK && l.read_error) {
		/* not the log's end: the records past it may hold later flush points */
		rc = fc_fail_json(json ? SCHEMA : NULL, WHO ": %s: the walk of its ring ended on a read "
				  "error (%s): %s the records before it only would leave the "
				  "origin at an older flush point; refused", ops[0], l.stop,
				  replay ? "replaying" : "a replay of");
	}
	upto = l.w.done_records;
	if (rc == EXIT_OK && replay && !dry && upto) {
		struct fc_olog_walk first = l.w;
		char stop[sizeof(l.stop)];

		memcpy(stop, l.stop, sizeof(stop));
		rc = olog_walk(&l, ofd, upto);
		memcpy(l.stop, stop, sizeof(stop));
		if (rc == EXIT_OK && (l.w.done_records != upto || l.w.done != first.done))
			rc = fc_fail(WHO ": %s changed under the replay", ops[0]);
		if (rc == EXIT_OK && fdatasync(ofd))
			rc = fc_fail(WHO ": flushing %s failed: %s", ops[1], strerror(errno));
		if (rc == EXIT_OK) {
			/* the head past them, in the other slot: the origin holds them now */
			fc_olog_sb_set_head(sb, &first);
			l.slot = !l.slot;
			fc_olog_sb_seal(sb, l.slot, le64_to_cpu(sb->hdr.seq) + 1);
			if (write_pages(l.fd, sb, l.slot, 1) || fdatasync(l.fd))
				rc = fc_fail(WHO ": the origin holds the records, but moving the "
					     "log's head failed (%s): a second replay writes them "
					     "again, harmlessly", strerror(errno ? errno : EIO));
		}
		l.w = first;
	}
	if (rc == EXIT_OK)
		report(&l, json, replay, dry);
	if (ofd >= 0)
		close(ofd);
	olog_free(&l);
	return rc;
}

int cmd_ordered_log(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	if (!strcmp(sub, "format"))
		return cmd_format(argc - 1, argv + 1);
	if (!strcmp(sub, "show"))
		return cmd_show_replay(argc - 1, argv + 1, 0);
	if (!strcmp(sub, "replay"))
		return cmd_show_replay(argc - 1, argv + 1, 1);
	return fc_usage("ordered-log", "ordered-log: expected format, show or replay");
}
