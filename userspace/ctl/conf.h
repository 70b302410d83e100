/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config file (/etc/fcache/fcache.conf) inside fcachectl: its parsed
 * form, read by conf_parse.c, used by up / down / udev-probe (config.c) and
 * to check the file before and after conf_record.c rewrites it.
 *
 * Format (documented in man/fcachectl.8), one statement a line, '#' starts
 * a comment:
 *   pool NAME FLASHDEV [mirror=FLASHDEV2] [block_size=SIZE] [TUNABLE=VALUE...]
 *   volume POOL VOLUMEDEV id=N [mode=MODE] [name=DMNAME] [sequential_cutoff=KIB]
 *          [ordered_log=LOGDEV]
 * Devices should be given by stable paths (/dev/disk/by-id/..., /dev/VG/LV).
 * A key given twice, one device in two roles, a path longer than
 * FC_CONF_MAX_PATH or a line longer than FC_CONF_MAX_LINE is an error with
 * the line number.
 */
#ifndef FC_CONF_H
#define FC_CONF_H

#include "fcachectl.h"

#define CONF_MAX_ITEMS 256
#define CONF_MAX_WORDS 64

struct cpool {
	char name[128], dev[FC_CONF_MAX_PATH + 1], opts[512];
	char dev2[FC_CONF_MAX_PATH + 1];	/* mirror=: the second leg, "" none */
	uint32_t bs;
	int bs_given, words, line;
};

struct cvol {
	char pool[128], dev[FC_CONF_MAX_PATH + 1], mode[16], name[128];
	unsigned int id;
	int cutoff;		/* sequential_cutoff KiB, -1: not given */
	char olog[FC_CONF_MAX_PATH + 1];	/* ordered_log=: its log device, "" none */
	int line;
};

struct config {
	const char *file;
	struct cpool pools[CONF_MAX_ITEMS];
	int npools;
	struct cvol vols[CONF_MAX_ITEMS];
	int nvols;
};

/* Read and check @file into @c: 0, or EXIT_FAIL (said, with the line). */
int conf_read(struct config *c, const char *file);
/* Do paths @a and @b name the same device (same string, same target, same dev_t)? */
int conf_same_path(const char *a, const char *b);

#endif
