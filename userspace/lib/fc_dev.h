/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_dev: block devices by size, number and path, and buffers for their
 * O_DIRECT I/O.  Plain libc (no libdevmapper, no libblkid, no
 * fcache_format.h), so that the offline checker built alone by the fuzzer
 * and the crash tools can use it.
 */
#ifndef FC_DEV_H
#define FC_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The size in bytes of what @fd is open on: a regular file's length, else
 * the block device's size (BLKGETSIZE64).  0, or -1 with errno.  The one
 * device size reader: callers that count sectors divide by 512.
 */
int fc_dev_size(int fd, uint64_t *bytes);
/* fc_dev_size() of @path, opened read-only for the question. */
int fc_path_size(const char *path, uint64_t *bytes);

/* @n zeroed bytes aligned for O_DIRECT I/O (4 KiB); free(); NULL. */
void *fc_io_alloc(size_t n);
/* Zero the first @bytes of @fd (O_DIRECT or not) and fdatasync: 0, or -1 with errno. */
int fc_dev_zero(int fd, size_t bytes);

/*
 * Zero [@off, @off + @len) of @fd and fdatasync (BLKZEROOUT on a block
 * device, else writes of zeros; 4 KiB aligned for O_DIRECT): 0, or -1.
 */
int fc_dev_zero_range(int fd, uint64_t off, uint64_t len);

/* stat @path: block device number into *@dev; -1 with errno if not one. */
int fc_block_dev(const char *path, dev_t *dev);
/* "M:m" into @buf, which is returned. */
const char *fc_dev_str(dev_t dev, char *buf, size_t len);
/* "M:m" from a table or status line; 0 or -1. */
int fc_parse_devstr(const char *s, dev_t *dev);
/* Kernel name of @dev ("sdb", "dm-3"), static buffer. */
const char *fc_dev_kname(dev_t dev);
/* /dev path for @dev (/dev/block/M:m fallback); static buffer. */
const char *fc_dev_path(dev_t dev);

#endif
