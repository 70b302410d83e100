/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version wrappers for dm-fcache: static inline functions only.
 * FC_DM_IO_IOPRIO is defined by Kbuild when <linux/dm-io.h> declares the
 * ioprio argument of dm_io() (mainline 6.9+, backported to Debian 6.1).
 */
#ifndef FC_COMPAT_H
#define FC_COMPAT_H

#include <linux/dm-io.h>
#include <linux/ioprio.h>

static inline int fc_dm_io(struct dm_io_request *req, unsigned int n,
			   struct dm_io_region *where, unsigned long *err)
{
#ifdef FC_DM_IO_IOPRIO
	return dm_io(req, n, where, err, IOPRIO_DEFAULT);
#else
	return dm_io(req, n, where, err);
#endif
}

#endif
