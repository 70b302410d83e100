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
#include <linux/bio.h>

static inline int fc_dm_io(struct dm_io_request *req, unsigned int n,
			   struct dm_io_region *where, unsigned long *err)
{
#ifdef FC_DM_IO_IOPRIO
	return dm_io(req, n, where, err, IOPRIO_DEFAULT);
#else
	return dm_io(req, n, where, err);
#endif
}

/*
 * Complete a clone whose end_io returned DM_ENDIO_INCOMPLETE earlier (FUA
 * writes waiting for a commit).  The first completion already ran the
 * block layer's QoS accounting for it: do not account it twice.
 */
static inline void fc_bio_endio_again(struct bio *bio)
{
	bio_clear_flag(bio, BIO_QOS_THROTTLED);
	bio_clear_flag(bio, BIO_QOS_MERGED);
	bio_endio(bio);
}

#endif
