// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer pool of `fcachectl bench` and its page cleaner.
 *
 * A frame holds a page number and version, not the page's bytes (the image
 * is generated from them when it is written).  A frame is on exactly one
 * of the lists free / lru (clean, idle, least recently used first) / flush
 * (dirty, not being written, oldest first) or on none (being read or
 * written); a hash finds the frame of a page.  A resident page is never
 * evicted with a write in flight, so the engine knows the version the
 * device holds for every page it reads (disk_ver).
 *
 * The page cleaner writes the flush list oldest first in batches of
 * --cleaner-batch pages, then fdatasyncs the batch, as InnoDB's page
 * cleaner does: every --cleaner-interval, or at once when a quarter of the
 * pool is dirty or a user waits for a free frame.  Like InnoDB's cleaner
 * (os_file_flush()), it calls fdatasync() from a thread of its own, which
 * times the call: the engine's one thread would time it through the ring
 * (io_uring runs every fsync in a worker thread) and behind whatever the
 * thread does between its waits, and the fdatasync column would measure
 * the engine as much as the device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bench_engine.h"

/* ---------------------------------------------------------------- frames */

static void l_del(struct engine *e, struct flist *l, int32_t i)
{
	struct frame *f = &e->fr[i];

	if (f->prev != NIL)
		e->fr[f->prev].next = f->next;
	else
		l->head = f->next;
	if (f->next != NIL)
		e->fr[f->next].prev = f->prev;
	else
		l->tail = f->prev;
	f->prev = f->next = NIL;
	f->list = L_NONE;
	l->n--;
}

static void l_add(struct engine *e, struct flist *l, int32_t i, int id)
{
	struct frame *f = &e->fr[i];

	f->prev = l->tail;
	f->next = NIL;
	if (l->tail != NIL)
		e->fr[l->tail].next = i;
	else
		l->head = i;
	l->tail = i;
	f->list = id;
	l->n++;
}

static uint64_t hslot(struct engine *e, uint64_t page)
{
	return (page * 0x9e3779b97f4a7c15ull >> 20) & e->hmask;
}

int32_t bench_frame_find(struct engine *e, uint64_t page)
{
	int32_t i = e->hash[hslot(e, page)];

	while (i != NIL && e->fr[i].page != page)
		i = e->fr[i].hnext;
	return i;
}

static void h_del(struct engine *e, int32_t f)
{
	int32_t *pp = &e->hash[hslot(e, e->fr[f].page)];

	while (*pp != f)
		pp = &e->fr[*pp].hnext;
	*pp = e->fr[f].hnext;
}

int32_t bench_frame_alloc(struct engine *e, uint64_t page)
{
	int32_t f;
	uint64_t s;

	if (e->free_l.head != NIL) {
		f = e->free_l.head;
		l_del(e, &e->free_l, f);
	} else if (e->lru.head != NIL) {
		f = e->lru.head;
		l_del(e, &e->lru, f);
		h_del(e, f);
	} else {
		return NIL;
	}
	e->fr[f].page = page;
	e->fr[f].state = FR_READING;
	e->fr[f].waiters = NIL;
	s = hslot(e, page);
	e->fr[f].hnext = e->hash[s];
	e->hash[s] = f;
	return f;
}

/* A page read into frame @f: clean, at @version, the most recently used. */
void bench_frame_loaded(struct engine *e, int32_t f, uint32_t version)
{
	e->fr[f].state = FR_CLEAN;
	e->fr[f].version = version;
	l_add(e, &e->lru, f, L_LRU);
}

/* An access to resident frame @f: a clean idle one moves to the MRU end. */
void bench_frame_touch(struct engine *e, int32_t f)
{
	if (e->fr[f].list == L_LRU) {
		l_del(e, &e->lru, f);
		l_add(e, &e->lru, f, L_LRU);
	}
}

/* Frame @f updated: version + 1, and dirty (on the flush list) unless it was. */
void bench_frame_dirty(struct engine *e, int32_t f)
{
	struct frame *fr = &e->fr[f];

	fr->version++;
	if (fr->state != FR_DIRTY) {
		if (fr->list == L_LRU)
			l_del(e, &e->lru, f);
		fr->state = FR_DIRTY;
		e->ndirty++;
		if (!fr->writing)
			l_add(e, &e->flush, f, L_FLUSH);
	}
}

/* ---------------------------------------------------- the fdatasync thread */

static int efd_post(int fd)
{
	uint64_t one = 1;

	while (write(fd, &one, sizeof(one)) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static void *syncer(void *arg)
{
	struct engine *e = arg;
	uint64_t v, t0;
	int r;

	for (;;) {
		if (read(e->s_req, &v, sizeof(v)) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (__atomic_load_n(&e->s_quit, __ATOMIC_ACQUIRE))
			break;
		t0 = fc_now_ns();
		r = fdatasync(e->fd) < 0 ? -errno : 0;
		e->s_ns = fc_now_ns() - t0;
		__atomic_store_n(&e->s_res, r, __ATOMIC_RELEASE);
		if (efd_post(e->s_done) < 0)
			break;		/* the K_CSYNC read waits; the run's timeout ends it */
	}
	return NULL;
}

int bench_syncer_start(struct engine *e)
{
	e->s_req = eventfd(0, EFD_CLOEXEC);
	/* Nonblocking: the ring polls it instead of parking a worker on it. */
	e->s_done = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->s_req < 0 || e->s_done < 0 ||
	    pthread_create(&e->s_thread, NULL, syncer, e)) {
		fc_err(BENCH_WHO, "cannot start the page cleaner's fdatasync thread: %s",
		       strerror(errno));
		bench_syncer_stop(e);
		return -1;
	}
	e->s_started = 1;
	return 0;
}

void bench_syncer_stop(struct engine *e)
{
	if (e->s_started) {
		__atomic_store_n(&e->s_quit, 1, __ATOMIC_RELEASE);
		if (efd_post(e->s_req) == 0)
			pthread_join(e->s_thread, NULL);
		e->s_started = 0;
	}
	if (e->s_req >= 0)
		close(e->s_req);
	if (e->s_done >= 0)
		close(e->s_done);
	e->s_req = e->s_done = -1;
}

/* ----------------------------------------------------------- page cleaner */

void bench_cleaner_start(struct engine *e, uint64_t now, int force)
{
	uint64_t due = (uint64_t)(e->o->cleaner_interval_s * 1e9);
	int n = 0;

	if (e->c_busy || !e->flush.n)
		return;
	if (!force && e->fwait_head == NIL && e->ndirty < e->nframes / 4 &&
	    now - e->c_last < due)
		return;
	while (n < e->o->cleaner_batch && e->flush.head != NIL) {
		int32_t f = e->flush.head;
		struct frame *fr = &e->fr[f];
		struct io_uring_sqe *sqe;
		void *b = (char *)e->c_buf + (size_t)n * e->h.page_size;

		l_del(e, &e->flush, f);
		if (!bench_page_hot(e, fr->page))
			e->cur->cold_dev_writes++;
		fr->writing = 1;
		fr->write_ver = fr->version;
		bench_page_fill(b, e->h.page_size, fr->page, fr->version);
		sqe = bench_get_sqe(e);
		io_uring_prep_write(sqe, e->fd, b, e->h.page_size,
				    e->h.data_off + fr->page * e->h.page_size);
		io_uring_sqe_set_data64(sqe, (uint64_t)K_CWRITE << 32 | n);
		bench_trace_io(e, e->fd, BENCH_TR_WRITE, e->h.data_off + fr->page * e->h.page_size,
			       e->h.page_size, -1);
		e->c_frames[n++] = f;
	}
	e->c_busy = 1;
	e->c_t0 = bench_io_stamp(e);
	e->c_start = fc_now_ns();
	e->c_slowest = 0;
	e->c_n = n;
	e->c_pending = n;
	e->c_syncing = 0;
	e->c_last = now;
	e->cur->cleaner_batches++;
}

void bench_cleaner_write_done(struct engine *e, int res)
{
	struct io_uring_sqe *sqe;
	uint64_t ns = bench_io_us(e, e->c_t0) * 1000;

	if (res != (int)e->h.page_size) {
		bench_fail(e, "page cleaner write failed: %s",
		     res < 0 ? strerror(-res) : "short write");
		return;
	}
	e->cur->dev_writes++;
	e->cur->write_us += ns / 1000;
	if (ns > e->c_slowest)
		e->c_slowest = ns;
	e->ic.dev_writes++;
	if (--e->c_pending)
		return;
	/* The K_CSYNC read ends when the thread has returned from fdatasync(). */
	sqe = bench_get_sqe(e);
	io_uring_prep_read(sqe, e->s_done, &e->s_buf, sizeof(e->s_buf), 0);
	io_uring_sqe_set_data64(sqe, (uint64_t)K_CSYNC << 32);
	bench_trace_io(e, e->fd, BENCH_TR_FLUSH, 0, 0, -1);
	if (efd_post(e->s_req) < 0) {
		bench_fail(e, "page cleaner: cannot wake its fdatasync thread: %s", strerror(errno));
		return;
	}
	e->c_syncing = 1;
}

void bench_cleaner_sync_done(struct engine *e, int res)
{
	uint64_t now = fc_now_ns();
	int i;

	if (res != (int)sizeof(e->s_buf)) {
		bench_fail(e, "page cleaner: no word from its fdatasync thread: %s",
			   res < 0 ? strerror(-res) : "short read");
		return;
	}
	res = __atomic_load_n(&e->s_res, __ATOMIC_ACQUIRE);
	if (res < 0) {
		bench_fail(e, "page cleaner fdatasync failed: %s", strerror(-res));
		return;
	}
	e->cur->fsyncs++;
	e->cur->fsync_us += e->s_ns / 1000;
	e->cur->cleaner_us += (now - e->c_start) / 1000;
	e->cur->cleaner_slowest_us += e->c_slowest / 1000;
	e->ic.fsyncs++;
	for (i = 0; i < e->c_n; i++) {
		int32_t f = e->c_frames[i];
		struct frame *fr = &e->fr[f];

		fr->writing = 0;
		e->disk_ver[fr->page] = fr->write_ver;
		if (fr->version == fr->write_ver) {
			fr->state = FR_CLEAN;
			e->ndirty--;
			l_add(e, &e->lru, f, L_LRU);
		} else {
			l_add(e, &e->flush, f, L_FLUSH);
		}
	}
	e->c_busy = 0;
	e->c_syncing = 0;
}

/* Frames for --buffer-pool MB, and at least what the users in flight need. */
void bench_pool_init(struct engine *e, int maxu)
{
	const struct bench_opts *o = e->o;
	uint64_t i, bp_frames, min_frames, hsz;

	bp_frames = (uint64_t)(o->bp_mb * 1048576 / e->h.page_size);
	min_frames = 2 * (uint64_t)maxu + 64;
	e->nframes = bp_frames > min_frames ? bp_frames : min_frames;
	if (e->nframes > e->h.npages + min_frames)
		e->nframes = e->h.npages + min_frames;
	e->r->bp_frames = e->nframes;
	e->r->bp_mb = e->nframes * (double)e->h.page_size / 1048576;
	e->fr = calloc(e->nframes, sizeof(*e->fr));
	for (hsz = 1; hsz < 2 * e->nframes; hsz <<= 1)
		;
	e->hmask = hsz - 1;
	e->hash = malloc(hsz * sizeof(*e->hash));
	for (i = 0; i < hsz; i++)
		e->hash[i] = NIL;
	e->free_l.head = e->free_l.tail = e->lru.head = e->lru.tail = NIL;
	e->flush.head = e->flush.tail = NIL;
	for (i = 0; i < e->nframes; i++) {
		e->fr[i].prev = e->fr[i].next = NIL;
		e->fr[i].hnext = NIL;
		l_add(e, &e->free_l, i, L_FREE);
	}
	e->c_frames = malloc(o->cleaner_batch * sizeof(int32_t));
	e->c_buf = fc_io_alloc((size_t)o->cleaner_batch * e->h.page_size);
}

void bench_pool_free(struct engine *e)
{
	free(e->fr);
	free(e->hash);
	free(e->c_frames);
	free(e->c_buf);
}
