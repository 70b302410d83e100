// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl forget POOL ID|LABEL [--discard-dirty [--yes]]: release the slot
 * of a volume that is registered in a pool but not attached (left by 'down'
 * or 'disable --no-flush', or detached at run time), typically one whose
 * origin is gone.  The pool message 'forget <id>' drops its clean blocks
 * and its volume table slot; the kernel refuses it (EBUSY) for an attached
 * volume or one with dirty data.  The state is read first from the live
 * tables and the pool's volume table on the flash (as 'status' lists the
 * unattached volumes), so that a refusal says why and what to do.
 *
 * Dirty data: refused unless --discard-dirty, which is only for a volume
 * detached at run time (its origin may hold newer writes: 'resolve <id>
 * discard' drops the pool's copy, then 'forget').  The dirty data of a volume
 * taken down by fcachectl is the newest copy of its origin's data: it is
 * written back by attaching the volume, never discarded here.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"
#include "fc_dm.h"
#include "fc_check.h"

/* Dirty blocks of slot @slot counted on the flash; -1 unreadable. */
static int64_t flash_dirty(const struct fc_pool *p, unsigned int slot)
{
	int fd = open(fc_dev_path(p->flash), O_RDONLY | O_DIRECT | O_CLOEXEC);
	int64_t n;

	if (fd < 0)
		return -1;
	n = fc_flash_dirty_blocks(fd, slot);
	close(fd);
	return n;
}

int cmd_forget(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "discard-dirty", no_argument, NULL, 'D' },
		{ "yes", no_argument, NULL, 'y' },
		FC_CONF_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *ops[2] = { NULL, NULL }, *which, *conf;
	struct fc_conf_opt co = { NULL, 0 };
	struct fc_ondisk_vol ov[64], *fv = NULL;
	struct fc_live l;
	struct fc_pool *p;
	struct fc_opt o;
	char msg[64], cmd[2048], q[1024], sz[32];
	uint64_t id = 0, dirty;
	int64_t counted;
	int discard = 0, yes = 0, c, i, found, rc = EXIT_FAIL;

	fc_opt_init(&o, argc, argv, "c:", opts, "forget", "forget");
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case 'D':
			discard = 1;
			break;
		case 'y':
			yes = 1;
			break;
		case FC_OPT_CONFIG:
			co.file = o.arg;
			break;
		case FC_OPT_NO_PERSIST:
			co.no_persist = 1;
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
	if (!which)
		return fc_usage("forget", "forget: expected POOL ID|LABEL");
	if (yes && !discard)
		return fc_usage("forget", "forget: --yes confirms --discard-dirty; forgetting a volume without dirty data asks nothing");
	conf = fc_conf_file(&co);
	if (conf && fc_conf_check(conf))
		return EXIT_FAIL;
	if (fc_pool_vol_lookup("forget", &l, ops[0], which, &p, ov, &found) < 0)
		return EXIT_FAIL;
	/* attached: the pool refuses; say what releases it */
	for (i = 0; i < l.nvols; i++) {
		struct fc_vol *v = &l.vols[i];

		if (v->pool_dev != p->dev || !fc_vol_is(v->id, v->label, which))
			continue;
		fc_fail("forget: volume %u ('%s') of pool %s is attached as %s; 'fcachectl disable %s' writes back its dirty data and releases its slot",
			v->id, v->label, p->name, v->name, v->name);
		goto out;
	}
	if (p->have_status && strcmp(p->st.metadata_mode, "rw")) {
		fc_fail("forget: pool %s is in %s mode after errors and changes nothing on its flash; run 'fcachectl check' on %s offline",
			p->name, p->st.metadata_mode, fc_dev_path(p->flash));
		goto out;
	}
	fv = found < 0 ? NULL : &ov[found];
	if (!fv) {
		fc_fail("forget: pool %s has no volume %s '%s' (see 'fcachectl status %s')", p->name,
			fc_parse_u64(which, &id) || !id ? "labelled" : "id", which, p->name);
		goto out;
	}
	/* the table's count may lag the entries: the larger of the two */
	dirty = fv->dirty_hint;
	counted = flash_dirty(p, fv->slot);
	if (counted > 0 && (uint64_t)counted > dirty)
		dirty = (uint64_t)counted;
	fc_fmt_bytes(sz, sizeof(sz), (double)dirty * (double)p->block_sectors * 512);
	if (dirty && !discard) {
		if (fv->detached)
			fc_fail("forget: volume %u ('%s') of pool %s holds %" PRIu64 " dirty blocks (%s) and was detached at run time: its origin may hold newer writes.  If the origin is authoritative or gone, 'fcachectl forget %s %u --discard-dirty' drops them and the slot; to keep them, 'fcachectl resolve %s %u --replay' and attach the volume again",
				fv->id, fv->label, p->name, dirty, sz, p->name, fv->id, p->name, fv->id);
		else
			fc_fail("forget: volume %u ('%s') of pool %s holds %" PRIu64 " dirty blocks (%s) that its origin does not have; attach it and write them back: 'fcachectl enable ORIGIN --pool %s --id %u', then 'fcachectl disable'",
				fv->id, fv->label, p->name, dirty, sz, p->name, fv->id);
		goto out;
	}
	if (dirty && !fv->detached) {
		fc_fail("forget: volume %u ('%s') of pool %s was taken down by fcachectl (down or disable --no-flush): its %" PRIu64 " dirty blocks (%s) are the newest data of its origin, not a stale copy, and --discard-dirty is only for a volume detached at run time.  Attach it and write them back: 'fcachectl enable ORIGIN --pool %s --id %u', then 'fcachectl disable'",
			fv->id, fv->label, p->name, dirty, sz, p->name, fv->id);
		goto out;
	}
	if (dirty && !yes) {
		fc_cmdline(cmd, sizeof(cmd), argc, argv, "--yes");
		snprintf(q, sizeof(q), "Volume %u ('%s') of pool %s was detached at run time with %" PRIu64 " dirty blocks (%s).\n"
			 "Discarding them keeps the origin as it is now: writes that only the pool holds are lost.",
			 fv->id, fv->label, p->name, dirty, sz);
		if (!fc_have_tty()) {
			fprintf(stderr, "fcachectl: forget: %s\n", q);
			fprintf(stderr, "fcachectl: forget: no terminal to confirm on; to discard them, run: %s\n", cmd);
			rc = EXIT_USAGE;
			goto out;
		}
		if (!fc_confirm(q)) {
			fc_fail("forget: not confirmed; nothing changed");
			goto out;
		}
	}
	if (dirty) {
		snprintf(msg, sizeof(msg), "resolve %u discard", fv->id);
		if (fc_dm_message(p->name, msg, NULL)) {
			fc_fail("forget: pool %s refused '%s': %s (see dmesg); nothing changed", p->name, msg,
				fc_dm_error());
			goto out;
		}
	}
	snprintf(msg, sizeof(msg), "forget %u", fv->id);
	if (fc_dm_message(p->name, msg, NULL)) {
		fc_fail("forget: pool %s refused '%s': %s (see dmesg; it refuses an attached volume and one with dirty data)%s",
			p->name, msg, fc_dm_error(),
			dirty ? "; the dirty data is already discarded: run the same command again" : "; nothing changed");
		goto out;
	}
	printf("volume %u ('%s') of pool %s forgotten: its slot and cached blocks are released%s\n", fv->id,
	       fv->label, p->name, dirty ? ", its dirty data discarded" : "");
	rc = EXIT_OK;
	if (conf)
		rc = fc_conf_record_disable(conf, p->name, fv->id);
out:
	fc_live_free(&l);
	return rc;
}
