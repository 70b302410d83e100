// SPDX-License-Identifier: GPL-2.0
/*
 * dm-fcache: a write-back flash cache for OLTP volumes, as two
 * device-mapper targets (fcache-pool, fcache).  See docs/DESIGN.md.
 *
 * This file registers both targets, owns the pool registry
 * (fc_registry_lock protects fc_pools and every pool's refcount) and holds
 * the common start of both constructors.
 */
#include <linux/module.h>
#include <linux/init.h>

#include "fc_core.h"

DEFINE_MUTEX(fc_registry_lock);
LIST_HEAD(fc_pools);

/*
 * The start of both constructors: refuse fewer than @min_args arguments
 * (ti->error = @usage), allocate the target's zeroed private object of @size
 * bytes (ti->error = @nomem) and hang it on @ti.  Returns it or an ERR_PTR.
 */
void *fc_ctr_alloc(struct dm_target *ti, unsigned int argc, unsigned int min_args,
		   size_t size, char *usage, char *nomem)
{
	void *p;

	if (argc < min_args) {
		ti->error = usage;
		return ERR_PTR(-EINVAL);
	}
	p = kzalloc(size, GFP_KERNEL);
	if (!p) {
		ti->error = nomem;
		return ERR_PTR(-ENOMEM);
	}
	ti->private = p;
	return p;
}

static int __init fc_init(void)
{
	int r;

	r = dm_register_target(&fc_pool_target);
	if (r) {
		DMERR("cannot register the %s target: %d", FC_POOL_TARGET, r);
		return r;
	}
	r = dm_register_target(&fc_volume_target);
	if (r) {
		DMERR("cannot register the %s target: %d", FC_VOLUME_TARGET, r);
		dm_unregister_target(&fc_pool_target);
	}
	return r;
}

static void __exit fc_exit(void)
{
	dm_unregister_target(&fc_volume_target);
	dm_unregister_target(&fc_pool_target);
}

module_init(fc_init);
module_exit(fc_exit);

MODULE_DESCRIPTION(DM_NAME " write-back flash cache for OLTP volumes");
MODULE_LICENSE("GPL");
