// SPDX-License-Identifier: GPL-2.0
/*
 * The block trace of a benchmark run (bench_opt.h has the format): written
 * by the engine through a large stdio buffer, one 32-byte record per I/O
 * it submits to the datafile's device and per commit, the counts put into
 * the header at the end; read back whole for the optimum.  And the I/O
 * counters of a block device from sysfs (/sys/dev/block/M:m/stat, and its
 * members' under slaves/), from which compare counts the operations that
 * reach the origin.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "bench_int.h"
#include "bench_opt.h"

#define TRACE_BUF	(4u << 20)

struct bench_trace {
	FILE *f;
	char *path;
	struct bench_trace_hdr h;
	int err;
};

struct bench_trace *bench_trace_open(const char *path, const struct bench_trace_hdr *h)
{
	struct bench_trace *t = calloc(1, sizeof(*t));

	if (!t || !(t->path = strdup(path))) {
		free(t);
		fc_err(BENCH_WHO, "out of memory");
		return NULL;
	}
	t->f = fopen(path, "w");
	if (!t->f) {
		fc_err(BENCH_WHO, "trace %s: %s", path, strerror(errno));
		free(t->path);
		free(t);
		return NULL;
	}
	setvbuf(t->f, NULL, _IOFBF, TRACE_BUF);
	t->h = *h;
	t->h.magic = BENCH_TRACE_MAGIC;
	t->h.version = BENCH_TRACE_VERSION;
	t->h.rec_size = sizeof(struct bench_trace_rec);
	t->h.records = 0;
	t->h.txns = 0;
	if (fwrite(&t->h, sizeof(t->h), 1, t->f) != 1)
		t->err = errno ? errno : EIO;
	return t;
}

void bench_trace_add(struct bench_trace *t, const struct bench_trace_rec *r)
{
	if (fwrite(r, sizeof(*r), 1, t->f) != 1 && !t->err)
		t->err = errno ? errno : EIO;
	t->h.records++;
	t->h.txns += r->op == BENCH_TR_COMMIT;
}

int bench_trace_close(struct bench_trace *t)
{
	int ret = 0;

	if (!t)
		return 0;
	if (!t->err && (fseek(t->f, 0, SEEK_SET) ||
			fwrite(&t->h, sizeof(t->h), 1, t->f) != 1))
		t->err = errno ? errno : EIO;
	if (fclose(t->f) && !t->err)
		t->err = errno ? errno : EIO;
	if (t->err) {
		fc_err(BENCH_WHO, "trace %s: %s", t->path, strerror(t->err));
		ret = -1;
	}
	free(t->path);
	free(t);
	return ret;
}

int bench_trace_read(const char *path, struct bench_trace_hdr *h,
		     struct bench_trace_rec **rec, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	uint64_t cnt;

	*rec = NULL;
	*n = 0;
	if (!f) {
		fc_err(BENCH_WHO, "trace %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) < 0 || fread(h, sizeof(*h), 1, f) != 1) {
		fc_err(BENCH_WHO, "trace %s: too short for a trace header", path);
		goto fail;
	}
	if (h->magic != BENCH_TRACE_MAGIC) {
		fc_err(BENCH_WHO, "trace %s: not a trace of fcachectl bench%s", path,
		       __builtin_bswap64(h->magic) == BENCH_TRACE_MAGIC ?
		       " of this byte order" : "");
		goto fail;
	}
	if (h->version != BENCH_TRACE_VERSION || h->rec_size != sizeof(**rec)) {
		fc_err(BENCH_WHO, "trace %s: version %u (records of %u bytes); this fcachectl "
		       "reads version %u", path, h->version, h->rec_size, BENCH_TRACE_VERSION);
		goto fail;
	}
	cnt = ((uint64_t)st.st_size - sizeof(*h)) / sizeof(**rec);
	if (h->records && h->records != cnt) {
		fc_err(BENCH_WHO, "trace %s: %llu records in the header, %llu in the file "
		       "(truncated?)", path, (unsigned long long)h->records,
		       (unsigned long long)cnt);
		goto fail;
	}
	if (!h->records)
		fc_err(BENCH_WHO, "trace %s: not closed (the run was killed?); reading its "
		       "%llu whole records", path, (unsigned long long)cnt);
	*rec = malloc((cnt ? cnt : 1) * sizeof(**rec));
	if (!*rec) {
		fc_err(BENCH_WHO, "trace %s: out of memory for %llu records", path,
		       (unsigned long long)cnt);
		goto fail;
	}
	if (cnt && fread(*rec, sizeof(**rec), cnt, f) != cnt) {
		fc_err(BENCH_WHO, "trace %s: read error", path);
		free(*rec);
		*rec = NULL;
		goto fail;
	}
	*n = cnt;
	fclose(f);
	return 0;
fail:
	fclose(f);
	return -1;
}

/* ------------------------------------------ I/O counters of a device */

/* Fields 1 and 5 (read and write requests completed), 3 and 7 (sectors). */
static int stat_file(const char *path, struct bench_devio *io)
{
	unsigned long long v[8];
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return -1;
	io->reads = v[0];
	io->rd_sectors = v[2];
	io->writes = v[4];
	io->wr_sectors = v[6];
	return 0;
}

void bench_devio_sub(struct bench_devio *d, const struct bench_devio *a,
		     const struct bench_devio *b)
{
	d->reads = a->reads - b->reads;
	d->writes = a->writes - b->writes;
	d->rd_sectors = a->rd_sectors - b->rd_sectors;
	d->wr_sectors = a->wr_sectors - b->wr_sectors;
}

int bench_devio_read(const char *dev, struct bench_devio *io, struct bench_devio *slaves,
		     int *nslaves)
{
	char dir[128], path[512];
	struct dirent *d;
	struct stat st;
	DIR *sd;

	memset(io, 0, sizeof(*io));
	memset(slaves, 0, sizeof(*slaves));
	*nslaves = 0;
	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return -1;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	snprintf(path, sizeof(path), "%s/stat", dir);
	if (stat_file(path, io) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/slaves", dir);
	sd = opendir(path);
	if (!sd)
		return 0;
	while ((d = readdir(sd))) {
		struct bench_devio s;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/slaves/%s/stat", dir, d->d_name);
		if (stat_file(path, &s) < 0)
			continue;
		slaves->reads += s.reads;
		slaves->writes += s.writes;
		slaves->rd_sectors += s.rd_sectors;
		slaves->wr_sectors += s.wr_sectors;
		(*nslaves)++;
	}
	closedir(sd);
	return 0;
}

/* ---------------------------------------------------- the optimum of a file */

int bench_trace_optimum(const char *path, uint64_t flash_bytes, uint32_t max_io,
			struct bench_trace_hdr *h, struct bench_opt *o, double *secs)
{
	struct bench_opt_in in = { flash_bytes, max_io, 0 };
	struct bench_trace_rec *rec;
	uint64_t t0 = fc_now_ns();
	size_t n;
	int rc;

	if (bench_trace_read(path, h, &rec, &n) < 0)
		return -1;
	if (!in.flash_bytes)
		in.flash_bytes = h->flash_bytes;
	if (in.flash_bytes < BENCH_OPT_PAGE) {
		fc_err(BENCH_WHO, "trace %s: the flash size is not in the trace (a trace of "
		       "run); give --flash-size MB", path);
		free(rec);
		return -1;
	}
	rc = bench_opt_compute(rec, n, &in, o);
	if (rc < 0)
		fc_err(BENCH_WHO, "trace %s: %s", path, errno == EINVAL ?
		       "more than 2^31 requests or page accesses" : strerror(errno));
	free(rec);
	*secs = (fc_now_ns() - t0) / 1e9;
	return rc;
}
