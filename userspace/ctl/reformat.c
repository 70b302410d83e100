// SPDX-License-Identifier: GPL-2.0
/*
 * pool create --force on a device that holds an fcache pool: reformat it
 * (casadm's "zero metadata").  Its cached data, and the dirty data of its
 * volumes that their origins do not have, are lost, so it is confirmed
 * first: "yes" typed on a terminal, or --yes.  Without a terminal and
 * without --yes it is a usage error (exit 2) naming the command to run;
 * that is decided before device-mapper is asked anything (fc_create_gate),
 * the question itself comes after every other check (fc_reformat_confirm).
 * A device that 'check' calls damaged (fcache metadata, no usable
 * superblock: torn or overwritten superblocks) is not formatted without
 * --force: fc_refuse_damaged() says what check found.
 * The device must not be in use: an active pool holds it, and pool create
 * opens it O_EXCL.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fcachectl.h"
#include "fc_check.h"

void fc_describe_pool(int fd, uint32_t bs, char *buf, size_t len)
{
	struct fc_ondisk_vol ov[64];
	size_t o;
	int i, k, n = fc_flash_volumes(fd, ov, 64);
	uint64_t dirty = 0;
	struct fc_leg_info li;

	o = (size_t)snprintf(buf, len, "an fcache pool with %u KiB blocks", bs / 2);
	if (fc_probe_leg(fd, &li) && li.mirrored)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, " (leg %u of a mirrored pool%s)", li.leg,
				      li.failed_legs & (1u << !li.leg) ?
				      "; its partner is recorded failed: this device holds the only copy of its dirty data" : "");
	if (n < 0) {
		snprintf(buf + o, o < len ? len - o : 0, " (volume table unreadable)");
		return;
	}
	o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ", %d registered volume%s", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		dirty += ov[i].dirty_hint;
	for (i = 0, k = 0; dirty && i < n; i++)
		if (ov[i].dirty_hint)
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s id %u '%s' (%" PRIu64 " blocks)",
					      k++ ? "," : " with dirty data:", ov[i].id, ov[i].label, ov[i].dirty_hint);
}

static int refuse(const char *flash, const char *what, const char *cmd)
{
	fprintf(stderr, "fcachectl: pool create: %s holds %s; --force reformats it as an empty pool: its cached data and the dirty data of its volumes are lost\n",
		flash, what);
	fprintf(stderr, "fcachectl: pool create: no terminal to confirm on; to reformat it, run: %s\n", cmd);
	return EXIT_USAGE;
}

int fc_refuse_damaged(int fd, const char *flash, const char *verb)
{
	char why[512];

	if (fc_probe_damaged(fd, why, sizeof(why)) != 1)
		return 0;
	return fc_fail("%s: %s holds a damaged fcache pool (%s); nothing changed: 'fcachectl check %s' reports what is wrong, and --force reformats it as an empty pool, losing whatever it held",
		       verb, flash, why, flash);
}

int fc_create_gate(const char *flash, int force, const char *cmd)
{
	int ask = (force & FC_CREATE_FORCE) && !(force & FC_CREATE_YES) && !fc_have_tty();
	char what[512];
	uint32_t bs = 0;
	struct stat st;
	int fd, r = 0;

	if (!ask && (force & FC_CREATE_FORCE))
		return 0;
	/* not a block device, in use, unreadable: pool create says so */
	if (stat(flash, &st) || !S_ISBLK(st.st_mode))
		return 0;
	fd = open(flash, O_RDONLY | O_EXCL | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fc_probe_pool(fd, &bs)) {
		if (ask) {
			fc_describe_pool(fd, bs, what, sizeof(what));
			r = refuse(flash, what, cmd);
		}
	} else if (!(force & FC_CREATE_FORCE)) {
		r = fc_refuse_damaged(fd, flash, "pool create");
	}
	close(fd);
	return r;
}

int fc_reformat_confirm(int dfd, const char *flash, uint32_t have_bs, int force, const char *cmd)
{
	char what[512], q[1024];

	if (force & FC_CREATE_YES)
		return 0;
	fc_describe_pool(dfd, have_bs, what, sizeof(what));
	if (!fc_have_tty())
		return refuse(flash, what, cmd);
	snprintf(q, sizeof(q), "%s holds %s.\nReformatting it as an empty pool loses its cached data and the dirty data of its volumes.",
		 flash, what);
	if (!fc_confirm(q))
		return fc_fail("pool create: not confirmed; nothing changed");
	return 0;
}
