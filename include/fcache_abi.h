/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table / message / status contract of the dm-fcache targets, shared by
 * the kernel module and fcachectl.  docs/TABLES.md describes every field;
 * change both together and never reorder status fields (append only).
 *
 * Pool table:
 *   fcache-pool <flash_dev> <block_size> [<#opt_args> <opt_arg>...]
 *     opt args (key value pairs, #opt_args counts words):
 *       mirror <dev>|-            a second flash device: a mirrored pool
 *                                 (dirty data on both; "-": it is missing)
 *       degraded 0|1              1: load a mirrored pool with a device missing
 *       writeback_high <pct>      dirty % at which writes stop allocating
 *       writeback_low <pct>       dirty % below which writeback runs only
 *                                 when idle or for aged data
 *       max_dirty_age <seconds>   dirty data older than this is written back
 *       writeback_jobs <n>        concurrent writeback copies at full speed
 *       commit_interval <ms>      periodic metadata commit (0: only on flush)
 *       fence_hold 0|1            1: while the pool runs degraded, flushes and
 *                                 FUA writes are acknowledged only after the
 *                                 message peer_outdated (the other copy is
 *                                 recorded outdated by the cluster)
 *       warm_restart 0|1          1: blocks read into the cache stay cached
 *                                 after an unclean shutdown (one device)
 *
 * Volume table:
 *   fcache <pool_dev> <origin_dev> <volume_id> <mode> [<#opt_args> <opt_arg>...]
 *     mode: writeback | writethrough | writearound | passthrough
 *     opt args: sequential_cutoff <KiB>   (0 disables)
 *               label <text>              (stored in the pool's volume table)
 *
 * Messages (dmsetup message DEV 0 ...):
 *   pool:   flush | clear_stats | <pool tunable> <value> | forget <volume_id>
 *           | resolve <volume_id> replay|discard | peer_outdated
 *   volume: flush | clear_stats | sequential_cutoff <KiB> | invalidate
 *           | detach | cancel_detach
 *
 * Status (STATUSTYPE_INFO), space separated, in this order:
 *   pool:   block_sectors total_blocks used_blocks dirty_blocks
 *           metadata_mode(rw|ro|fail) needs_check(0|1)
 *           flash_read_errors flash_write_errors metadata_errors
 *           writeback_state(idle|background|active|throttled)
 *           writeback_inflight commit_seq active_volumes
 *           registered_volumes free_blocks
 *           redundancy(single|mirrored|degraded) lone_dirty_blocks
 *           leg_states (ok or missing per flash device, comma separated)
 *           unwritable_blocks flushes(ok|draining|failing)
 *           acks(open|held: fence_hold waits for peer_outdated)
 *   volume: mode cached_blocks dirty_blocks reads read_hits writes
 *           write_hits bypassed writeback_inflight errors promotions
 *           writebacks volume_id
 */
#ifndef FCACHE_ABI_H
#define FCACHE_ABI_H

#define FC_POOL_TARGET		"fcache-pool"
#define FC_VOLUME_TARGET	"fcache"

#define FC_MODE_WRITEBACK	0
#define FC_MODE_WRITETHROUGH	1
#define FC_MODE_WRITEAROUND	2
#define FC_MODE_PASSTHROUGH	3

#define FC_DEFAULT_WRITEBACK_HIGH	80	/* percent of blocks dirty */
#define FC_DEFAULT_WRITEBACK_LOW	50
#define FC_DEFAULT_MAX_DIRTY_AGE	60	/* seconds */
#define FC_DEFAULT_WRITEBACK_JOBS	32
#define FC_DEFAULT_COMMIT_INTERVAL	1000	/* ms */
#define FC_DEFAULT_FENCE_HOLD		0
#define FC_DEFAULT_WARM_RESTART		0
#define FC_DEFAULT_ORDERED		0
#define FC_DEFAULT_ORDERED_LAG		0	/* flush points, 0 = no bound */
#define FC_DEFAULT_SEQ_CUTOFF_KIB	1024
#define FC_ORDERED_LAG_MAX		1000000

#define FC_POOL_STATUS_FIELDS		20
#define FC_VOLUME_STATUS_FIELDS		13

#endif
