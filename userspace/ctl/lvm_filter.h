/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What LVM will see of a PV once it is cached (lvm_filter.c): its filters
 * and devices file, and enable's refusal when it would see the raw PV too
 * (issue 35, item 12).
 */
#ifndef FC_LVM_FILTER_H
#define FC_LVM_FILTER_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define FC_LVM_MAX 32		/* patterns kept of a filter */
#define FC_LVM_PAT 256		/* characters of a pattern */

struct fc_lvm_cfg {
	char global_filter[FC_LVM_MAX][FC_LVM_PAT];
	int ngf;
	char filter[FC_LVM_MAX][FC_LVM_PAT];
	int nf;
	int use_devicesfile;
	char devicesfile[256];		/* under DIR/devices/ */
	char dir[PATH_MAX];		/* $LVM_SYSTEM_DIR, else /etc/lvm */
	char source[PATH_MAX];		/* "lvmconfig", or the file read */
};

void fc_lvm_defaults(struct fc_lvm_cfg *c);
/* devices/global_filter, filter, use_devicesfile, devicesfile of @text (lvm.conf or lvmconfig's) into @c */
void fc_lvm_parse(struct fc_lvm_cfg *c, const char *text);
/* From lvmconfig, else $LVM_SYSTEM_DIR/lvm.conf: 0, or -1 (neither: no LVM here). */
int fc_lvm_read_config(struct fc_lvm_cfg *c);
/* Does a filter of @npat patterns accept the device of names @names (lvm.conf(5))? */
int fc_lvm_accepts(const char (*pat)[FC_LVM_PAT], int npat, const char *const *names, int nn);
/* Does the devices file @path list one of @names (IDNAME=, DEVNAME=)? 1, 0, -1 unreadable */
int fc_lvm_devfile_lists(const char *path, const char *const *names, int nn);
/* 'devices { global_filter = [ "a|^CACHED$|", "r|^RAW$|", <what @c has> ] }' */
void fc_lvm_filter_line(char *buf, size_t len, const char *cached, const char *raw,
			const struct fc_lvm_cfg *c);
/* "in /etc/lvm/lvm.conf make LVM use the cached PV ...: <the line> (see ...)" (@c may be NULL) */
void fc_lvm_say_filter(const char *cached, const char *raw, const struct fc_lvm_cfg *c, char *buf,
		       size_t len);
/*
 * The names of block device @dev LVM may see (@given first, its realpath,
 * /dev/<kname>, the links of /dev/disk/by-*, /dev/md, /dev/mapper) into
 * @names: how many.
 */
int fc_lvm_dev_names(dev_t dev, const char *given, char (*names)[PATH_MAX], int max);
/*
 * enable of the origin open on @fd (named @volume; its device names @raw,
 * the first the one to name), to be cached as /dev/mapper/@cached: if it
 * carries an LVM PV signature and LVM would see the raw PV too, refused
 * (EXIT_FAIL, said, with the global_filter line to add) unless @force
 * (then warned); LVM seeing neither: warned.  0 otherwise.
 */
int fc_lvm_guard(int fd, const char *volume, const char *const *raw, int nraw, const char *cached,
		 int force);

#endif
