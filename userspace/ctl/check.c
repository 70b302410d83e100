// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl check / dump: open the flash device offline, run fc_check.
 * check --repair (old name --clear-needs-check) opens it for writing
 * (exclusively for a block device) and lets fc_repair_fd() repair it.
 * Exit 0 clean or harmless leftovers, 1 damaged or unreadable, 3 not a pool.
 * check DEV1 DEV2 checks the two legs of a mirrored pool and the pair.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fcachectl.h"
#include "fc_check.h"

static int open_flash(const char *path, int excl, int rw, int *busy)
{
	int mode = rw ? O_RDWR : O_RDONLY;
	struct stat st;
	int fd;

	*busy = 0;
	if (stat(path, &st))
		return -1;
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		errno = ENOTBLK;
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return open(path, mode | O_CLOEXEC);
	/* O_DIRECT: the pool writes with bios, never through the page cache */
	fd = open(path, mode | O_DIRECT | O_CLOEXEC | (excl ? O_EXCL : 0));
	if (fd < 0 && errno == EBUSY) {
		*busy = 1;
		if (rw)	/* never write to a device in use */
			return -1;
		fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	}
	return fd;
}

/*
 * check DEV1 DEV2: both legs of a mirrored pool, each checked and then
 * compared (fc_check_pair_fd).  Exit 0: both consistent and they load
 * together; 1: damage, or a pair the kernel refuses (stale, split brain,
 * foreign, ...); 3: one of them holds no fcache metadata.
 */
static int check_pair(const char *dev, const char *dev2, int json)
{
	const char *schema = json ? "fcache.check-pair" : NULL, *d[2] = { dev, dev2 };
	struct stat s0, s1;
	int fd[2], busy, k, rc;

	if (!stat(dev, &s0) && !stat(dev2, &s1) &&
	    (S_ISBLK(s0.st_mode) ? s0.st_rdev == s1.st_rdev :
	     s0.st_dev == s1.st_dev && s0.st_ino == s1.st_ino))
		return fc_fail_json(schema, "check: %s and %s are the same device; give the two legs of a mirrored pool",
				    dev, dev2);
	for (k = 0; k < 2; k++) {
		fd[k] = open_flash(d[k], 1, 0, &busy);
		if (fd[k] >= 0 && busy) {
			close(fd[k]);
			fd[k] = -1;
			errno = EBUSY;
		}
		if (fd[k] < 0) {
			int e = errno;

			if (k)
				close(fd[0]);
			if (e == EBUSY)
				return fc_fail_json(schema, "check: %s is in use (an active pool?); remove the pool first ('fcachectl pool remove NAME' or 'fcachectl down')",
						    d[k]);
			return fc_fail_json(schema, "check: cannot open %s: %s; give the two legs of a mirrored pool (devices or image files)",
					    d[k], strerror(e));
		}
	}
	rc = fc_check_pair_fd(fd[0], dev, fd[1], dev2, json, stdout, NULL);
	close(fd[0]);
	close(fd[1]);
	return rc;
}

static int offline(int argc, char **argv, enum fc_check_out what)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "repair", no_argument, NULL, 'R' },
		{ "clear-needs-check", no_argument, NULL, 'C' },	/* old name of --repair */
		{ NULL, 0, NULL, 0 }
	};
	const char *verb = argv[0], *dev = NULL, *dev2 = NULL, *how = "--repair";
	enum fc_check_outcome oc;
	struct fc_opt o;
	const char *schema = NULL;	/* --json: failures print an error document */
	int json = 0, repair = 0, c, fd, busy, rc;

	fc_opt_init(&o, argc, argv, "j", opts, verb, verb);
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (dev && (dev2 || what != FC_OUT_CHECK))
				return fc_usage(verb, "%s: expected %s ('%s' is extra)", verb,
						what == FC_OUT_CHECK ? "FLASHDEV [FLASHDEV2]" : "one FLASHDEV",
						o.arg);
			if (dev)
				dev2 = o.arg;
			else
				dev = o.arg;
			break;
		case 'j':
			json = 1;
			break;
		case 'C':
		case 'R':
			how = c == 'C' ? "--clear-needs-check" : "--repair";
			if (what != FC_OUT_CHECK)
				return fc_usage(verb, "%s: %s is an option of check", verb, how);
			repair = 1;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (!dev)
		return fc_usage(verb, "%s: expected one FLASHDEV", verb);
	if (dev2 && repair)
		return fc_usage(verb, "%s: %s repairs one device at a time (check each leg of a mirrored pool with it)",
				verb, how);
	if (dev2)
		return check_pair(dev, dev2, json);
	if (json)
		schema = what == FC_OUT_DUMP ? "fcache.dump" : "fcache.check";
	fd = open_flash(dev, 1, repair, &busy);
	if (fd < 0 && busy)
		return fc_fail_json(schema, "check: %s is in use (an active pool?); remove the pool first ('fcachectl pool remove NAME' or 'fcachectl down'), then run check %s",
				    dev, how);
	if (fd < 0 && repair)
		return fc_fail_json(schema, "%s: cannot open %s for writing: %s; give the pool's flash device or an image file",
				    verb, dev, strerror(errno));
	if (fd < 0)
		return fc_fail_json(schema, "%s: cannot open %s: %s; give the pool's flash device or an image file",
				    verb, dev, strerror(errno));
	if (busy && what == FC_OUT_CHECK) {
		close(fd);
		return fc_fail_json(schema, "check: %s is in use (an active pool?); remove the pool first ('fcachectl pool remove NAME' or 'fcachectl down')",
				    dev);
	}
	if (busy)
		fc_warn("%s is in use: the metadata may change while it is read", dev);
	if (repair) {
		rc = fc_repair_fd(fd, dev, json, stdout, &oc);
		if (close(fd) && !rc)
			rc = 2;
		if (rc == 1 && oc == FC_CHECK_NOT_A_POOL) {
			fc_fail("check: %s holds no fcache metadata: not an fcache pool, nothing to repair, nothing written",
				dev);
			return EXIT_NOT_POOL;
		}
		if (rc == 1) {
			fc_fail("check: %s: the metadata is damaged or unreadable: needs_check not cleared, nothing written",
				dev);
			fc_fail("check %s: the errors above cannot be repaired safely: %s only clears needs_check and drops leftovers of interrupted commits, and mending damaged metadata would mean guessing which cache blocks hold the newest data; keep the device as it is and copy it before trying anything else (man fcachectl, check)",
				how, how);
			return EXIT_FAIL;
		}
		if (rc)
			return fc_fail("check: %s: writing the repair failed (see above); run check again",
				       dev);
		return EXIT_OK;
	}
	rc = fc_check_fd_outcome(fd, dev, what, json, stdout, &oc);
	close(fd);
	if (oc == FC_CHECK_NOT_A_POOL)
		return EXIT_NOT_POOL;
	return rc ? EXIT_FAIL : EXIT_OK;
}

int cmd_check(int argc, char **argv)
{
	return offline(argc, argv, FC_OUT_CHECK);
}

int cmd_dump(int argc, char **argv)
{
	return offline(argc, argv, FC_OUT_DUMP);
}
