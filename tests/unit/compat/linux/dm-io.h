/* SPDX-License-Identifier: GPL-2.0 */
/* Stub for the fc_compat.h syntax check (mk/buildcheck.mk): dm_io() only. */
struct dm_io_request;
struct dm_io_region;
#ifdef FC_DM_IO_IOPRIO
/* mainline 6.9+, Debian's 6.1 */
int dm_io(struct dm_io_request *io_req, unsigned int num_regions,
	  struct dm_io_region *region, unsigned long *sync_error_bits,
	  unsigned short ioprio);
#else
/* mainline 6.0 .. 6.8 */
int dm_io(struct dm_io_request *io_req, unsigned int num_regions,
	  struct dm_io_region *region, unsigned long *sync_error_bits);
#endif
