// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-only check of kmod/fc_compat.h against stub prototypes, once
 * per dm_io() flavour (mk/buildcheck.mk): a kernel tree of each flavour
 * may not be installed, and the branch not taken is never compiled.
 */
#include "fc_compat.h"

int compat_check(struct dm_io_request *req, struct dm_io_region *where, struct bio *bio);

int compat_check(struct dm_io_request *req, struct dm_io_region *where, struct bio *bio)
{
	unsigned long err;

	fc_bio_endio_again(bio);
	return fc_dm_io(req, 1, where, &err);
}
