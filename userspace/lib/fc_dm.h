/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_dm: a small wrapper around libdevmapper's C API, used by fcachectl and
 * by the benchmark.  Never shells out to dmsetup.
 *
 * Conventions
 *   - Every function returns 0 on success and -1 on failure, unless noted.
 *     On failure a one-line reason is available from fc_dm_error() (the last
 *     message libdevmapper logged, or our own); nothing is printed unless
 *     fc_dm_verbose is set.
 *   - Device names are dm names (what appears under /dev/mapper).
 *   - Operations that create, resume, rename or remove a device use a udev
 *     cookie and wait for udev when udev is running; with DM_DISABLE_UDEV=1
 *     (or no udev) libdevmapper creates/removes the /dev/mapper nodes itself.
 *   - Hidden devices: a name ending in FC_DM_HIDDEN_SUFFIX ("-fcorig", the
 *     origin that fcachectl moves an in-place cached volume's table to) is
 *     created and resumed with udev flags that skip the disk and other rules
 *     (no blkid scan, no /dev/disk/by-* links, nothing mounts it).
 *   - Strings returned through pointers are malloc'ed; free them with free()
 *     (lists: fc_dm_free_targets / fc_dm_free_names).
 *
 * Typical sequences
 *   create:   fc_dm_create(name, uuid, tgts, n)     (create + load + resume)
 *   reload:   fc_dm_load(name, tgts, n); fc_dm_suspend(name, 0); fc_dm_resume(name)
 *   message:  fc_dm_message(name, "flush", &resp)
 *   status:   fc_dm_status(name, &tgts, &n) ... fc_dm_free_targets(tgts, n)
 */
#ifndef FC_DM_H
#define FC_DM_H

#include <stdint.h>
#include <sys/types.h>

/* One table line: start and length in 512-byte sectors. */
#define FC_DM_HIDDEN_SUFFIX "-fcorig"

struct fc_dm_target {
	uint64_t start;
	uint64_t length;
	char *type;		/* target type, e.g. "fcache-pool" */
	char *params;		/* table parameters or status text */
};

struct fc_dm_info {
	int exists;		/* 0: no such device (all else undefined) */
	int suspended;
	int live_table;
	int inactive_table;
	int open_count;		/* openers of the device (mounts, other dm devs) */
	uint32_t major, minor;
	uint32_t target_count;
	char uuid[130];		/* dm uuid, "" when none */
};

extern int fc_dm_verbose;	/* 1: print libdevmapper's messages to stderr */

/* Set up logging and udev synchronisation; call once before anything else. */
void fc_dm_init(void);

/* The last error message (never NULL; "" when none). */
const char *fc_dm_error(void);

/* Create device @name (optional @uuid, may be NULL), load @n targets, resume. */
int fc_dm_create(const char *name, const char *uuid,
		 const struct fc_dm_target *t, int n);

/* Create device @name with no table (for a later fc_dm_load + resume). */
int fc_dm_create_empty(const char *name, const char *uuid);

/* Load @n targets into the inactive table of @name. */
int fc_dm_load(const char *name, const struct fc_dm_target *t, int n);

/* Drop the inactive table of @name (undo a load that will not be resumed). */
int fc_dm_clear(const char *name);

/* Suspend @name; @noflush: do not flush queued I/O (DM_NOFLUSH). */
int fc_dm_suspend(const char *name, int noflush);

/* Resume @name (swapping in an inactive table if one is loaded). */
int fc_dm_resume(const char *name);

/* Remove @name.  Fails with EBUSY while it is open. */
int fc_dm_remove(const char *name);

/* Rename @name to @newname. */
int fc_dm_rename(const char *name, const char *newname);

/* Send a target message to sector 0; *@resp (may be NULL) gets the reply or NULL. */
int fc_dm_message(const char *name, const char *msg, char **resp);

/* The errno of the last failed fc_dm_message() (EINTR, EAGAIN, ...), or 0. */
int fc_dm_message_errno(void);

/* Status (STATUSTYPE_INFO) / table (STATUSTYPE_TABLE) lines of @name. */
int fc_dm_status(const char *name, struct fc_dm_target **t, int *n);
int fc_dm_table(const char *name, struct fc_dm_target **t, int *n);
/* Same, for the inactive table (if any). */
int fc_dm_table_inactive(const char *name, struct fc_dm_target **t, int *n);
void fc_dm_free_targets(struct fc_dm_target *t, int n);

/* Information on @name.  A missing device is success with info->exists = 0. */
int fc_dm_info(const char *name, struct fc_dm_info *info);

/* Devices (dev_t) that @name's live table uses; free(*devs). */
int fc_dm_deps(const char *name, dev_t **devs, int *n);

/* Names of all dm devices; free with fc_dm_free_names. */
int fc_dm_list(char ***names, int *n);
void fc_dm_free_names(char **names, int n);

/* Is @dev a device-mapper device?  If so and @name is given, copy its dm
 * name (up to @len bytes) there.  Returns 1 yes, 0 no, -1 error. */
int fc_dm_dev_name(dev_t dev, char *name, size_t len);

/* Does the running kernel know target type @type (loads no module)? 1/0. */
int fc_dm_has_target(const char *type);

#endif
