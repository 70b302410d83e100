/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offline reading of an fcache flash device: the metadata recovery would
 * use (superblock slot and page slots chosen by the rules of
 * include/fcache_format.h) and every consistency test of 'fcachectl check'.
 * Kept free of device-mapper so host tests and the fuzzer link it alone.
 */
#ifndef FC_CHECK_H
#define FC_CHECK_H

#include <stdint.h>
#include <stdio.h>

enum fc_check_out { FC_OUT_CHECK, FC_OUT_DUMP };

/*
 * What a check found (JSON "outcome", fcachectl check's exit status):
 *   FC_CHECK_CLEAN       consistent, nothing left over ("clean", exit 0)
 *   FC_CHECK_LEFTOVERS   consistent, with harmless leftovers of interrupted
 *                        commits: page slots above md_seq, an unusable page
 *                        or superblock copy next to a good one ("leftovers",
 *                        exit 0; check --repair drops them)
 *   FC_CHECK_DAMAGED     errors, or unreadable ("damaged", exit 1)
 *   FC_CHECK_NOT_A_POOL  no fcache metadata at all: neither superblock slot
 *                        nor the first metadata pages carry an fcache magic
 *                        ("not_a_pool", exit 3)
 * needs_check is reported apart from the outcome.
 */
enum fc_check_outcome {
	FC_CHECK_CLEAN,
	FC_CHECK_LEFTOVERS,
	FC_CHECK_DAMAGED,
	FC_CHECK_NOT_A_POOL,
};

/* "clean", "leftovers", "damaged", "not_a_pool" */
const char *fc_check_outcome_str(enum fc_check_outcome o);

/*
 * Read the metadata of @fd (a block device or an image file) named @name,
 * print a report (check) or description (dump) to @out, as JSON if @json.
 * Returns 0 if the metadata is consistent, 1 if damaged, unreadable or not
 * a pool; the outcome goes to *@outcome unless NULL.
 */
int fc_check_fd(int fd, const char *name, enum fc_check_out what, int json, FILE *out);
int fc_check_fd_outcome(int fd, const char *name, enum fc_check_out what, int json, FILE *out,
			enum fc_check_outcome *outcome);

/*
 * fcachectl check --repair (alias --clear-needs-check): check @fd (open for
 * writing, not in use) as fc_check_fd() does; if no error is found, zero
 * every leftover page slot (seq above md_seq) and every unusable copy of a
 * page whose other copy is used, and write a new superblock (seq and md_seq
 * above every seq on the flash, needs_check and clean cleared) into the
 * slot not holding the one in use, syncing after each step.  Prints the
 * report and what was done.  Returns 0 done, 1 not done because the
 * metadata is damaged, unreadable or not a pool (nothing written), 2 a
 * write failed.  The outcome of the check before the repair goes to
 * *@outcome unless NULL.
 */
int fc_clear_needs_check_fd(int fd, const char *name, int json, FILE *out);
int fc_repair_fd(int fd, const char *name, int json, FILE *out, enum fc_check_outcome *outcome);

struct fc_disk_superblock;
struct fc_disk_voltable;

/*
 * Two devices of a mirrored pool (docs/DESIGN.md, "Two-device pool"): do
 * they load together, as the kernel decides (kmod/fc_load.c, pick_legs)?
 *   FC_PAIR_IN_SYNC       same pool, each the other's partner, same events
 *                         and commit ("in_sync")
 *   FC_PAIR_LAGGING       as in sync, but one superblock is behind (a crash
 *                         between the two superblock writes): loads, the
 *                         older one is brought forward ("lagging")
 *   FC_PAIR_STALE         the pool ran without one of them ("stale")
 *   FC_PAIR_SPLIT_BRAIN   each ran without the other ("split_brain")
 *   FC_PAIR_FOREIGN       not legs of the same pool, or not each other's
 *                         partner ("foreign")
 *   FC_PAIR_SAME_LEG      both are the same leg: a copy ("same_leg")
 *   FC_PAIR_DISAGREE      events or geometry differ ("disagree")
 *   FC_PAIR_NOT_MIRRORED  one holds a one-device pool ("not_mirrored")
 *   FC_PAIR_MISMATCH      (check only) same commit, different committed
 *                         metadata: damage ("mismatch")
 */
enum fc_pair_verdict {
	FC_PAIR_IN_SYNC,
	FC_PAIR_LAGGING,
	FC_PAIR_STALE,
	FC_PAIR_SPLIT_BRAIN,
	FC_PAIR_FOREIGN,
	FC_PAIR_SAME_LEG,
	FC_PAIR_DISAGREE,
	FC_PAIR_NOT_MIRRORED,
	FC_PAIR_MISMATCH,
};

const char *fc_pair_verdict_str(enum fc_pair_verdict v);

/*
 * The verdict on the current superblocks @a (of device @na) and @b (@nb),
 * with one sentence naming the devices in @why; *@older gets 0 (@a) or 1
 * (@b) for the stale or lagging device (for split brain and disagreeing
 * events the one with fewer events), else -1.
 */
enum fc_pair_verdict fc_pair_verdict(const struct fc_disk_superblock *a, const char *na,
				     const struct fc_disk_superblock *b, const char *nb,
				     int *older, char *why, size_t len);

/* The same on two devices (their recovery superblocks); -1 if either has none. */
int fc_pair_verdict_fd(int fd0, const char *name0, int fd1, const char *name1, int *older,
		       char *why, size_t len);

/* What the superblock of a device says about its pool's membership. */
struct fc_leg_info {
	int mirrored;		/* a leg of a mirrored pool (the rest is 0 if not) */
	unsigned int leg;	/* its leg, 0 or 1 */
	uint32_t failed_legs;	/* legs recorded failed (bit n: leg n) */
	uint64_t events;
	uint64_t leg_sectors[2];	/* each leg's size at format */
};

/* 1 and @li filled if @fd holds a pool (a usable superblock), else 0. */
int fc_probe_leg(int fd, struct fc_leg_info *li);

/*
 * fcachectl check DEV1 DEV2: check both devices as fc_check_fd() does (a
 * report each), then the pair: the verdict above and, when they are in
 * sync, whether their committed metadata is the same.  Printed as text, or
 * as one JSON document (schema fcache.check-pair) if @json.  Returns 0 if
 * both are consistent and load together (in_sync, lagging), 3 if either
 * holds no fcache metadata at all, else 1; the pair's outcome ("in_sync",
 * ..., "damaged", "not_a_pool") goes to *@outcome unless NULL.
 */
int fc_check_pair_fd(int fd0, const char *name0, int fd1, const char *name1, int json, FILE *out,
		     const char **outcome);

/*
 * Read the volume table recovery would use from @fd into @vt and the
 * superblock into @sb (either may be NULL).  Returns 0, or -1 if there is no
 * valid superblock (not a pool), -2 if the volume table is unreadable.
 * A never-written volume table reads as empty.
 */
int fc_read_voltable(int fd, struct fc_disk_superblock *sb, struct fc_disk_voltable *vt);

/* Does @fd hold an fcache pool?  1 (and its block size) or 0. */
int fc_probe_pool(int fd, uint32_t *block_sectors);

/*
 * Without a usable superblock, is @fd what check calls damaged rather than
 * not a pool (torn or garbage superblocks with fcache magic, superblocks
 * overwritten over a pool's metadata pages)?  1 with the checker's finding
 * in @why, 0 (not a pool, or a superblock is usable), -1 (no memory).
 */
int fc_probe_damaged(int fd, char *why, size_t len);

/*
 * The bytes at the start of @fd that hold fcache metadata, what wipe
 * zeroes: the superblock slots and metadata pages up to the data area of
 * the pool on @fd; without a usable superblock, the slots and the first
 * metadata pages, those check reads to tell a damaged pool from no pool.
 */
uint64_t fc_metadata_bytes(int fd);

/* Cache blocks a pool of @sectors would have (0: too small / bad size). */
uint64_t fc_pool_blocks(uint64_t sectors, uint32_t block_sectors);

struct fc_ondisk_vol {
	unsigned int slot, id;
	uint64_t origin_sectors, dirty_hint;
	int detached;		/* FC_VOL_DETACHED: torn down at run time, not by fcachectl */
	char label[48];
};

/* The in-use volume slots recovery would see on @fd: count, or <0 as fc_read_voltable. */
int fc_flash_volumes(int fd, struct fc_ondisk_vol *out, int max);

/*
 * Dirty blocks of volume slot @slot on @fd, counted from the entries
 * (the volume table's dirty hint may lag); -1 if unreadable.  Reads all
 * the metadata: use it only when it matters.
 */
int64_t fc_flash_dirty_blocks(int fd, unsigned int slot);

/*
 * The hexadecimal form of @n bytes at @u into @out (2 * @n + 1 bytes): the
 * uuids of check's reports, and of fcachectl ordered-log's.
 */
void chk_hex(char *out, const uint8_t *u, int n);

#endif
