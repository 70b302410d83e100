/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offline reading of an fcache flash device: the metadata recovery would
 * use (superblock slot and page slots chosen by the rules of
 * include/fcache_format.h) and every consistency test of 'fcachectl check'.
 * Kept free of device-mapper so host tests and the fuzzer link it alone.
 */
#ifndef FC_CHECK_H
#define FC_CHECK_H

#include <stdio.h>

enum fc_check_out { FC_OUT_CHECK, FC_OUT_DUMP };

/*
 * Read the metadata of @fd (a block device or an image file) named @name,
 * print a report (check) or description (dump) to @out, as JSON if @json.
 * Returns 0 if the metadata is consistent, 1 if damaged or unreadable.
 */
int fc_check_fd(int fd, const char *name, enum fc_check_out what, int json, FILE *out);

#endif
