/* SPDX-License-Identifier: GPL-2.0 */
/* Cache stacks for `fcachectl bench compare` (bench_stack.c). */
#ifndef FC_BENCH_STACK_H
#define FC_BENCH_STACK_H

#include <signal.h>
#include <stddef.h>

/*
 * Build @config over @origin/@flash, and @flash2 (--flash2, or NULL) for
 * fcache-mirrored and the RAID1 configurations (fcache with blocks of
 * @block_sectors); the device to benchmark goes to @top.
 */
int bench_stack_up(const char *config, const char *origin, const char *flash,
		   const char *flash2, unsigned int block_sectors, char *top, size_t len);
/* Does @config need --flash2 (dm-writecache-raid1, dm-cache-raid1)? */
int bench_stack_needs_flash2(const char *config);
/*
 * Discard all of @flash (BLKDISCARD on a block device, a punched hole in a
 * file) so that a configuration does not inherit the flash state of the
 * one before; says on stdout what it did.  0, or -1: not supported (the
 * stack zeroes the start of the flash, as without a discard).
 */
int bench_flash_discard(const char *flash);
/* Remove every fcbench-* device. */
void bench_stack_cleanup(void);
/* Status of the stack's top device ("" for the baseline). */
void bench_stack_status(const char *config, char *buf, size_t len);
/*
 * The counters of @config's devices as "name=value ..." (fcache: the volume's
 * and the pool's "stats" messages; dm-cache and dm-writecache: their status
 * fields, named as in their kernel documentation; also over the RAID1), or "".
 */
void bench_stack_counters(const char *config, char *buf, size_t len);
/*
 * The writeback backlog @config's cache leaves behind: the dirty data it
 * holds now (*@mib), then all of it written back to the origin, timed
 * (*@secs; -1 if it was not done within BENCH_BACKLOG_MAX_S).  0, or -1
 * (said): not measured.  A flush message that ends early (EINTR, EAGAIN)
 * is sent again unless *@stop (may be NULL) says the run is stopping.
 */
int bench_stack_backlog(const char *config, volatile sig_atomic_t *stop, double *mib,
			double *secs);

#endif
