// SPDX-License-Identifier: GPL-2.0
/* fc_probe: signatures libblkid knows; see fc_probe.h. */
#include <stdio.h>
#include <string.h>
#include <blkid.h>
#include "fc_probe.h"

int fc_probe_signatures(int fd, char *what, size_t len, int wipe)
{
	blkid_probe pr = blkid_new_probe();
	const char *type = NULL, *usage = NULL;
	int r, found = 0;

	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		if (pr)
			blkid_free_probe(pr);
		return -1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	while ((r = blkid_do_probe(pr)) == 0) {
		if (!found) {
			type = usage = NULL;
			if (!blkid_probe_lookup_value(pr, "TYPE", &type, NULL)) {
				blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
				snprintf(what, len, "a %s %s signature", type,
					 usage && !strcmp(usage, "raid") ? "RAID" :
					 usage && !strcmp(usage, "filesystem") ? "filesystem" :
					 usage ? usage : "");
			} else if (!blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL)) {
				snprintf(what, len, "a %s partition table", type);
			} else {
				snprintf(what, len, "a signature");
			}
		}
		found = 1;
		if (wipe && blkid_do_wipe(pr, 0)) {
			blkid_free_probe(pr);
			return -1;
		}
	}
	blkid_free_probe(pr);
	return r < 0 ? -1 : found;
}

int fc_probe_type(int fd, char *type, size_t len)
{
	blkid_probe pr = blkid_new_probe();
	const char *t = NULL;
	int r;

	if (!pr || blkid_probe_set_device(pr, fd, 0, 0)) {
		if (pr)
			blkid_free_probe(pr);
		return -1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	r = blkid_do_safeprobe(pr);
	if (!r && !blkid_probe_lookup_value(pr, "TYPE", &t, NULL))
		snprintf(type, len, "%s", t);
	blkid_free_probe(pr);
	return r < 0 || r == -2 ? -1 : r == 0 && t ? 1 : 0;
}
