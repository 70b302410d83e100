// SPDX-License-Identifier: GPL-2.0
/*
 * dm-fclog: a test-only device-mapper target for the crash walk
 * (tests/crash/replay-guest.sh).  Several devices write ONE log, each with
 * its own volatile write cache: a flush of one device makes only that
 * device's completed writes durable.
 *
 *   fclog <data_dev> <data_offset> <log_dev> <log_offset>
 *
 * Bios go to data_dev at data_offset (as dm-linear).  Every fclog target
 * naming the same log_dev shares one log, written in dm-log-writes' on-disk
 * format (so tests/crash/lw_replay.c reads it unchanged), with each logged
 * sector shifted by log_offset: the log describes one address space in
 * which each device is a slice.
 *
 * Why not dm-log-writes: one log-writes device under several slices logs
 * every completed write of every slice at the next flush of any of them,
 * so a cache that forgets to flush one of its devices (the flush_one_leg
 * mutant of kmod/fc_mdio.c) looks correct; several log-writes devices give
 * several logs with no order between them.
 *
 * What is logged, and when (the order of the log is the order in which
 * data became durable, across all devices):
 *  - a write or discard that completes is held on its device's list of
 *    completed, unflushed writes;
 *  - a flush takes, when it is submitted, the device's list (the writes
 *    that completed before it); when it completes they are logged, then a
 *    FLUSH entry;
 *  - a FUA write is logged when it completes;
 *  - "mark NAME" (a target message to any of the devices) logs a MARK;
 *  - a device's unflushed writes when its table goes away are never
 *    logged (they were in a volatile cache that vanished with it).
 * So every state "entries 0..K, plus any subset of the entries up to the
 * next FLUSH or FUA entry" is one that the devices can be in after a power
 * cut, which is what lw_replay's crash points replay.
 *
 * Entries get their place in the log when they are queued (under the log's
 * lock); an ordered workqueue writes them.  Log unit 0 is the super
 * (magic, version 1, entries, sector size 512), rewritten after each
 * batch; the log is complete when the last device using it is removed.
 * Status: <entries> <next free log sector> <overflowed 0|1>.
 */
#include <linux/bio.h>
#include <linux/device-mapper.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define DM_MSG_PREFIX "fclog"

#define FCLOG_MAGIC	0x6a736677736872ULL
#define FCLOG_VERSION	1ULL
#define FCLOG_FLUSH	(1U << 0)
#define FCLOG_FUA	(1U << 1)
#define FCLOG_DISCARD	(1U << 2)
#define FCLOG_MARK	(1U << 3)
#define FCLOG_META	(1U << 4)
#define FCLOG_NAME_MAX	128

struct fclog_super {
	__le64 magic;
	__le64 version;
	__le64 nr_entries;
	__le32 sectorsize;
} __packed;

struct fclog_entry {
	__le64 sector;
	__le64 nr_sectors;
	__le64 flags;
	__le64 data_len;
} __packed;

/* one log, shared by every target that names its device */
struct fclog_log {
	struct list_head node;		/* on fclog_logs */
	dev_t dev;
	unsigned int users;		/* targets; under fclog_mutex */
	struct block_device *bdev;	/* held open by each user's dm_dev */
	sector_t size;

	spinlock_t lock;		/* all below, and every target's unflushed */
	struct list_head queued;	/* blocks with a place in the log */
	sector_t next;			/* next free log sector */
	u64 entries;			/* entries given a place */
	bool overflow;

	u64 written;			/* entries written; worker only */
	struct workqueue_struct *wq;
	struct work_struct work;
};

/* a write, discard, flush or mark waiting for its place or its write */
struct fclog_block {
	struct list_head list;
	struct list_head covered;	/* a flush: the writes it makes durable */
	sector_t pos;			/* its place in the log */
	u64 sector;			/* in the log's address space */
	u64 nr_sectors;
	u32 flags;
	char name[FCLOG_NAME_MAX];	/* a mark */
	unsigned int nr_pages;
	unsigned int max_pages;
	struct page *pages[];		/* the data, copied at submission */
};

struct fclog_c {
	struct dm_dev *data;
	sector_t data_offset;
	struct dm_dev *logdev;
	sector_t log_offset;
	struct fclog_log *log;
	struct list_head unflushed;	/* under log->lock */
};

static LIST_HEAD(fclog_logs);
static DEFINE_MUTEX(fclog_mutex);

static void free_block(struct fclog_block *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_pages; i++)
		__free_page(b->pages[i]);
	kfree(b);
}

static void free_blocks(struct list_head *head)
{
	struct fclog_block *b, *tmp;

	list_for_each_entry_safe(b, tmp, head, list) {
		list_del(&b->list);
		free_block(b);
	}
}

/* sectors of log a block takes: its entry unit, then its data */
static sector_t block_span(struct fclog_block *b)
{
	if (b->flags & (FCLOG_DISCARD | FCLOG_MARK))
		return 1;
	return 1 + b->nr_sectors;
}

/* give b the next place in the log and queue it; under log->lock */
static void queue_block(struct fclog_log *log, struct fclog_block *b)
{
	if (log->overflow || log->next + block_span(b) > log->size) {
		if (!log->overflow)
			DMERR("log full at entry %llu: logging stops", log->entries);
		log->overflow = true;
		free_block(b);
		return;
	}
	b->pos = log->next;
	log->next += block_span(b);
	log->entries++;
	list_add_tail(&b->list, &log->queued);
}

static int write_sectors(struct block_device *bdev, sector_t pos,
			 struct page **pages, unsigned int nr_pages, unsigned int bytes)
{
	unsigned int i = 0;
	int r = 0;

	while (!r && i < nr_pages) {
		unsigned int n = min_t(unsigned int, nr_pages - i, BIO_MAX_VECS);
		struct bio *bio = bio_alloc(bdev, n, REQ_OP_WRITE, GFP_NOIO);
		unsigned int j, len = 0;

		bio->bi_iter.bi_sector = pos;
		for (j = 0; j < n; j++, i++) {
			unsigned int l = min_t(unsigned int, bytes, PAGE_SIZE);

			if (bio_add_page(bio, pages[i], l, 0) != l) {
				bio_put(bio);
				return -EIO;
			}
			bytes -= l;
			len += l;
		}
		r = submit_bio_wait(bio);
		bio_put(bio);
		pos += len >> SECTOR_SHIFT;
	}
	return r;
}

/* one entry unit (and a mark's name), then the data */
static int write_block(struct fclog_log *log, struct fclog_block *b, struct page *unit)
{
	struct fclog_entry *e = page_address(unit);
	size_t nlen = strnlen(b->name, sizeof(b->name));
	int r;

	memset(e, 0, SECTOR_SIZE);
	e->sector = cpu_to_le64(b->sector);
	e->nr_sectors = cpu_to_le64(b->nr_sectors);
	e->flags = cpu_to_le64(b->flags);
	if (b->flags & FCLOG_MARK) {
		e->data_len = cpu_to_le64(nlen);
		memcpy(e + 1, b->name, nlen);
	}
	r = write_sectors(log->bdev, b->pos, &unit, 1, SECTOR_SIZE);
	if (r || block_span(b) == 1)
		return r;
	return write_sectors(log->bdev, b->pos + 1, b->pages, b->nr_pages,
			     b->nr_sectors << SECTOR_SHIFT);
}

static int write_super(struct fclog_log *log, struct page *unit)
{
	struct fclog_super *s = page_address(unit);

	memset(s, 0, SECTOR_SIZE);
	s->magic = cpu_to_le64(FCLOG_MAGIC);
	s->version = cpu_to_le64(FCLOG_VERSION);
	s->nr_entries = cpu_to_le64(log->written);
	s->sectorsize = cpu_to_le32(SECTOR_SIZE);
	return write_sectors(log->bdev, 0, &unit, 1, SECTOR_SIZE);
}

static void fclog_work(struct work_struct *work)
{
	struct fclog_log *log = container_of(work, struct fclog_log, work);
	struct page *unit = alloc_page(GFP_NOIO);
	struct fclog_block *b, *tmp;
	LIST_HEAD(batch);

	if (!unit) {
		DMERR("no memory for the log's entry unit");
		return;
	}
	spin_lock_irq(&log->lock);
	list_splice_init(&log->queued, &batch);
	spin_unlock_irq(&log->lock);
	list_for_each_entry_safe(b, tmp, &batch, list) {
		list_del(&b->list);
		if (write_block(log, b, unit)) {
			DMERR("cannot write log entry %llu", log->written);
			spin_lock_irq(&log->lock);
			log->overflow = true;
			spin_unlock_irq(&log->lock);
		}
		log->written++;
		free_block(b);
	}
	if (write_super(log, unit))
		DMERR("cannot write the log's super");
	__free_page(unit);
}

static struct fclog_log *get_log(struct dm_dev *logdev)
{
	struct block_device *bdev = logdev->bdev;
	struct fclog_log *log;

	mutex_lock(&fclog_mutex);
	list_for_each_entry(log, &fclog_logs, node) {
		if (log->dev == bdev->bd_dev) {
			log->users++;
			goto out;
		}
	}
	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		goto out;
	log->wq = alloc_ordered_workqueue("fclog", WQ_MEM_RECLAIM);
	if (!log->wq) {
		kfree(log);
		log = NULL;
		goto out;
	}
	log->dev = bdev->bd_dev;
	log->bdev = bdev;
	log->size = bdev_nr_sectors(bdev);
	log->users = 1;
	log->next = 1;
	spin_lock_init(&log->lock);
	INIT_LIST_HEAD(&log->queued);
	INIT_WORK(&log->work, fclog_work);
	list_add(&log->node, &fclog_logs);
	/* an empty log at once: the super says 0 entries */
	queue_work(log->wq, &log->work);
out:
	mutex_unlock(&fclog_mutex);
	return log;
}

static void put_log(struct fclog_c *fc)
{
	struct fclog_log *log = fc->log;

	mutex_lock(&fclog_mutex);
	if (--log->users) {
		/* later users may write through another opener's bdev */
		mutex_unlock(&fclog_mutex);
		return;
	}
	list_del(&log->node);
	mutex_unlock(&fclog_mutex);
	/* the last user: the rest of the log and its super, while it is open */
	queue_work(log->wq, &log->work);
	flush_workqueue(log->wq);
	destroy_workqueue(log->wq);
	DMINFO("log on %pg complete: %llu entries, %llu sectors%s",
	       log->bdev, log->written, (unsigned long long)log->next,
	       log->overflow ? " (OVERFLOWED: incomplete)" : "");
	kfree(log);
}

static int fclog_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	unsigned long long off, loff;
	struct fclog_c *fc;
	char dummy;
	int r;

	if (argc != 4) {
		ti->error = "fclog <data_dev> <data_offset> <log_dev> <log_offset>";
		return -EINVAL;
	}
	if (sscanf(argv[1], "%llu%c", &off, &dummy) != 1 ||
	    sscanf(argv[3], "%llu%c", &loff, &dummy) != 1) {
		ti->error = "bad offset";
		return -EINVAL;
	}
	fc = kzalloc(sizeof(*fc), GFP_KERNEL);
	if (!fc) {
		ti->error = "out of memory";
		return -ENOMEM;
	}
	fc->data_offset = off;
	fc->log_offset = loff;
	INIT_LIST_HEAD(&fc->unflushed);
	r = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &fc->data);
	if (r) {
		ti->error = "data device lookup failed";
		goto bad;
	}
	r = dm_get_device(ti, argv[2], dm_table_get_mode(ti->table), &fc->logdev);
	if (r) {
		ti->error = "log device lookup failed";
		goto bad_data;
	}
	fc->log = get_log(fc->logdev);
	if (!fc->log) {
		ti->error = "cannot set up the log";
		r = -ENOMEM;
		goto bad_log;
	}
	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->discards_supported = true;
	ti->per_io_data_size = sizeof(struct fclog_block *);
	ti->private = fc;
	return 0;
bad_log:
	dm_put_device(ti, fc->logdev);
bad_data:
	dm_put_device(ti, fc->data);
bad:
	kfree(fc);
	return r;
}

static void fclog_dtr(struct dm_target *ti)
{
	struct fclog_c *fc = ti->private;
	LIST_HEAD(lost);

	spin_lock_irq(&fc->log->lock);
	list_splice_init(&fc->unflushed, &lost);
	spin_unlock_irq(&fc->log->lock);
	free_blocks(&lost);
	put_log(fc);
	dm_put_device(ti, fc->logdev);
	dm_put_device(ti, fc->data);
	kfree(fc);
}

static struct fclog_block *alloc_block(unsigned int nr_pages)
{
	struct fclog_block *b = kzalloc(struct_size(b, pages, nr_pages), GFP_NOIO);

	if (b) {
		b->max_pages = nr_pages;
		INIT_LIST_HEAD(&b->list);
		INIT_LIST_HEAD(&b->covered);
	}
	return b;
}

/*
 * Copy the bio's data, packed into whole pages: a write is logged after it
 * completes.  (The segment is copied: bio_for_each_segment() advances by
 * the length of the bio_vec it hands out.)
 */
static int copy_data(struct fclog_block *b, struct bio *bio)
{
	unsigned int pg = 0, off = 0;
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		while (done < bv.bv_len) {
			unsigned int n = min_t(unsigned int, bv.bv_len - done, PAGE_SIZE - off);

			if (!off) {
				if (pg >= b->max_pages) {
					DMERR("a bio of %u bytes has more data than that",
					      bio->bi_iter.bi_size);
					return -EIO;
				}
				b->pages[pg] = alloc_page(GFP_NOIO);
				if (!b->pages[pg])
					return -ENOMEM;
				b->nr_pages++;
			}
			memcpy_from_page(page_address(b->pages[pg]) + off, bv.bv_page,
					 bv.bv_offset + done, n);
			done += n;
			off += n;
			if (off == PAGE_SIZE) {
				off = 0;
				pg++;
			}
		}
	}
	return 0;
}

static int fclog_map(struct dm_target *ti, struct bio *bio)
{
	struct fclog_c *fc = ti->private;
	struct fclog_block **pb = dm_per_bio_data(bio, sizeof(*pb));
	bool flush = bio->bi_opf & REQ_PREFLUSH;
	sector_t off = dm_target_offset(ti, bio->bi_iter.bi_sector);
	struct fclog_block *b;

	*pb = NULL;
	bio_set_dev(bio, fc->data->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = fc->data_offset + off;
	if (bio_data_dir(bio) != WRITE || (!bio_sectors(bio) && !flush))
		return DM_MAPIO_REMAPPED;
	if (bio_op(bio) == REQ_OP_DISCARD || !bio_has_data(bio))
		b = alloc_block(0);
	else
		b = alloc_block(DIV_ROUND_UP(bio->bi_iter.bi_size, PAGE_SIZE));
	if (!b)
		return DM_MAPIO_KILL;
	b->sector = bio_sectors(bio) ? fc->log_offset + off : 0;
	b->nr_sectors = bio_sectors(bio);
	if (flush)
		b->flags |= FCLOG_FLUSH;
	if (bio->bi_opf & REQ_FUA)
		b->flags |= FCLOG_FUA;
	if (bio->bi_opf & REQ_META)
		b->flags |= FCLOG_META;
	if (bio_op(bio) == REQ_OP_DISCARD) {
		b->flags |= FCLOG_DISCARD;
	} else if (bio_has_data(bio) && copy_data(b, bio)) {
		free_block(b);
		return DM_MAPIO_KILL;
	}
	if (flush) {
		/* it makes durable what completed before it was submitted */
		spin_lock_irq(&fc->log->lock);
		list_splice_init(&fc->unflushed, &b->covered);
		spin_unlock_irq(&fc->log->lock);
	}
	*pb = b;
	if (bio_op(bio) == REQ_OP_DISCARD && !bdev_max_discard_sectors(fc->data->bdev)) {
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	return DM_MAPIO_REMAPPED;
}

static int fclog_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct fclog_c *fc = ti->private;
	struct fclog_block **pb = dm_per_bio_data(bio, sizeof(*pb));
	struct fclog_block *b = *pb, *w, *tmp;
	struct fclog_log *log = fc->log;
	unsigned long flags;
	bool kick = false;

	if (!b || bio_data_dir(bio) != WRITE)
		return DM_ENDIO_DONE;
	*pb = NULL;
	spin_lock_irqsave(&log->lock, flags);
	if (*error) {
		/* nothing reached the medium; a flush's writes wait for the next */
		list_splice(&b->covered, &fc->unflushed);
		INIT_LIST_HEAD(&b->covered);
		free_block(b);
	} else if (b->flags & FCLOG_FLUSH) {
		list_for_each_entry_safe(w, tmp, &b->covered, list) {
			list_del(&w->list);
			queue_block(log, w);
		}
		queue_block(log, b);
		kick = true;
	} else if (b->flags & FCLOG_FUA) {
		queue_block(log, b);
		kick = true;
	} else {
		list_add_tail(&b->list, &fc->unflushed);
	}
	spin_unlock_irqrestore(&log->lock, flags);
	if (kick)
		queue_work(log->wq, &log->work);
	return DM_ENDIO_DONE;
}

static int fclog_message(struct dm_target *ti, unsigned int argc, char **argv,
			 char *result, unsigned int maxlen)
{
	struct fclog_c *fc = ti->private;
	struct fclog_block *b;

	if (argc != 2 || strcmp(argv[0], "mark")) {
		DMWARN("message: mark <name>");
		return -EINVAL;
	}
	if (strlen(argv[1]) >= FCLOG_NAME_MAX || strlen(argv[1]) > SECTOR_SIZE - sizeof(struct fclog_entry)) {
		DMWARN("mark name too long");
		return -EINVAL;
	}
	b = alloc_block(0);
	if (!b)
		return -ENOMEM;
	b->flags = FCLOG_MARK;
	strscpy(b->name, argv[1], sizeof(b->name));
	spin_lock_irq(&fc->log->lock);
	queue_block(fc->log, b);
	spin_unlock_irq(&fc->log->lock);
	queue_work(fc->log->wq, &fc->log->work);
	return 0;
}

static void fclog_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result, unsigned int maxlen)
{
	struct fclog_c *fc = ti->private;
	struct fclog_log *log = fc->log;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irq(&log->lock);
		DMEMIT("%llu %llu %d", log->entries, (unsigned long long)log->next,
		       log->overflow);
		spin_unlock_irq(&log->lock);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %llu %s %llu", fc->data->name,
		       (unsigned long long)fc->data_offset, fc->logdev->name,
		       (unsigned long long)fc->log_offset);
		break;
	case STATUSTYPE_IMA:
		*result = '\0';
		break;
	}
}

static int fclog_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct fclog_c *fc = ti->private;

	return fn(ti, fc->data, fc->data_offset, ti->len, data);
}

static struct target_type fclog_target = {
	.name = "fclog",
	.version = {1, 0, 0},
	.module = THIS_MODULE,
	.ctr = fclog_ctr,
	.dtr = fclog_dtr,
	.map = fclog_map,
	.end_io = fclog_end_io,
	.status = fclog_status,
	.message = fclog_message,
	.iterate_devices = fclog_iterate_devices,
};

static int __init fclog_init(void)
{
	return dm_register_target(&fclog_target);
}

static void __exit fclog_exit(void)
{
	dm_unregister_target(&fclog_target);
}

module_init(fclog_init);
module_exit(fclog_exit);

MODULE_DESCRIPTION(DM_NAME " test target: several devices, each with a volatile cache, in one write log");
MODULE_AUTHOR("fcache developers");
MODULE_LICENSE("GPL");
