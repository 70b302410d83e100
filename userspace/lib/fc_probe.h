/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fc_probe: what libblkid finds on a device before something overwrites
 * it (pool create, bench prepare and compare).
 */
#ifndef FC_PROBE_H
#define FC_PROBE_H

#include <stddef.h>

/*
 * libblkid's finding on @fd ("a ext4 filesystem signature", "a gpt
 * partition table") into @what: 1, 0 none, -1 error; @wipe: erase them.
 * @fd must not be O_DIRECT: libblkid reads into buffers of its own, which
 * are not aligned for it (every read then fails: -1).
 */
int fc_probe_signatures(int fd, char *what, size_t len, int wipe);
/* The TYPE libblkid gives the first signature on @fd ("LVM2_member") into @type: 1, 0 none, -1. */
int fc_probe_type(int fd, char *type, size_t len);

#endif
