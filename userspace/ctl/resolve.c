// SPDX-License-Identifier: GPL-2.0
/*
 * The volumes a pool's flash knows (its volume table, read with O_DIRECT
 * as recovery reads it) and the ones among them no live table attaches:
 * after down, disable --no-flush, or a teardown at run time by something
 * other than fcachectl.  status, flush, up and enable ask here; resolve is
 * the admin's choice for a volume detached at run time with dirty data.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_check.h"

int fc_pool_flash_volumes(struct fc_pool *p, struct fc_ondisk_vol *v, int max)
{
	int fd = open(fc_dev_path(p->flash), O_RDONLY | O_DIRECT | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = fc_flash_volumes(fd, v, max);
	close(fd);
	return n;
}

int64_t fc_pool_flash_dirty(struct fc_pool *p, unsigned int slot)
{
	int fd = open(fc_dev_path(p->flash), O_RDONLY | O_DIRECT | O_CLOEXEC);
	int64_t n;

	if (fd < 0)
		return 1;
	n = fc_flash_dirty_blocks(fd, slot);
	close(fd);
	return n < 0 ? 1 : n;
}

/*
 * Volume slots of pool @p that no live table of @l attaches (read from the
 * flash's volume table with O_DIRECT: the committed state; the kernel
 * commits it when a volume is detached).  With @dirty_only, only those whose
 * dirty count is non-zero.  Returns the count, or -1 if unreadable.
 */
int fc_pool_unattached(struct fc_live *l, struct fc_pool *p, struct fc_ondisk_vol *out, int max,
		       int dirty_only)
{
	struct fc_ondisk_vol ov[64];
	int n, i, k = 0;

	n = fc_pool_flash_volumes(p, ov, 64);
	for (i = 0; i < n && k < max; i++) {
		if (fc_live_attached(l, p, ov[i].id) || (dirty_only && !ov[i].dirty_hint))
			continue;
		out[k++] = ov[i];
	}
	return n < 0 ? -1 : k;
}

int fc_pool_vol_lookup(const char *verb, struct fc_live *l, const char *pool, const char *which,
		       struct fc_pool **pp, struct fc_ondisk_vol *ov, int *found)
{
	int i, n;

	if (fc_live_scan(l))
		return fc_fail("%s: cannot talk to device-mapper: %s", verb, fc_dm_error()), -1;
	*pp = fc_live_pool(l, pool);
	if (!*pp) {
		fc_fail("%s: no pool named '%s' (see 'fcachectl pool list')", verb, pool);
		fc_live_free(l);
		return -1;
	}
	n = fc_pool_unattached(l, *pp, ov, 64, 0);
	if (n < 0) {
		fc_fail("%s: cannot read the volume table of %s", verb, fc_dev_path((*pp)->flash));
		fc_live_free(l);
		return -1;
	}
	for (i = 0, *found = -1; i < n; i++)
		if (fc_vol_is(ov[i].id, ov[i].label, which))
			*found = i;
	return n;
}

/*
 * resolve POOL ID|LABEL --replay|--discard: the admin's choice for a volume
 * detached at run time with dirty data (pool message "resolve").
 */
int cmd_resolve(int argc, char **argv)
{
	struct fc_live l;
	struct fc_pool *p;
	struct fc_ondisk_vol ov[64];
	static const struct option opts[] = {
		{ "replay", no_argument, NULL, 'r' },
		{ "discard", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	const char *ops[2] = { NULL, NULL }, *which, *choice = NULL, *opt;
	struct fc_opt o;
	char msg[64];
	int rc = EXIT_FAIL, found = -1, c;

	fc_opt_init(&o, argc, argv, "", opts, "resolve", "resolve");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case 'r':
		case 'd':
			opt = c == 'r' ? "--replay" : "--discard";
			if (choice && strcmp(choice, opt))
				return fc_usage("resolve", "resolve: --replay or --discard, not both");
			choice = opt;
			break;
		case FC_OPT_OPERAND:
			if (fc_opt_operand(&o, ops, 2, "volume"))
				return EXIT_USAGE;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	which = ops[1];
	if (!which || !choice)
		return fc_usage("resolve", "resolve: expected POOL ID|LABEL --replay|--discard");
	if (fc_pool_vol_lookup("resolve", &l, ops[0], which, &p, ov, &found) < 0)
		return EXIT_FAIL;
	if (found < 0) {
		fc_fail("resolve: pool %s has no unattached volume '%s' (see 'fcachectl status %s')", p->name,
			which, p->name);
		goto out;
	}
	if (!ov[found].detached)
		fc_info("resolve: volume %u of pool %s is not marked detached", ov[found].id, p->name);
	snprintf(msg, sizeof(msg), "resolve %u %s", ov[found].id, choice + 2);
	if (fc_dm_message(p->name, msg, NULL)) {
		fc_fail("resolve: pool %s refused '%s': %s (see dmesg)", p->name, msg, fc_dm_error());
		goto out;
	}
	if (!strcmp(choice, "--discard"))
		printf("volume %u ('%s') of pool %s: cached and dirty data discarded; the origin is authoritative\n",
		       ov[found].id, ov[found].label, p->name);
	else
		printf("volume %u ('%s') of pool %s: %" PRIu64 " dirty blocks kept; attaching it ('fcachectl up' or 'enable --id %u') replays them over the origin\n",
		       ov[found].id, ov[found].label, p->name, ov[found].dirty_hint, ov[found].id);
	rc = EXIT_OK;
out:
	fc_live_free(&l);
	return rc;
}
