// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl check / dump: open the flash device offline, run fc_check.
 * check --repair (old name --clear-needs-check) opens it for writing
 * (exclusively for a block device) and lets fc_repair_fd() repair it.
 * Exit 0 clean or harmless leftovers, 1 damaged or unreadable, 3 not a pool.
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

static int offline(int argc, char **argv, enum fc_check_out what)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "repair", no_argument, NULL, 'R' },
		{ "clear-needs-check", no_argument, NULL, 'C' },	/* old name of --repair */
		{ NULL, 0, NULL, 0 }
	};
	const char *verb = argv[0], *dev = NULL, *how = "--repair";
	enum fc_check_outcome oc;
	struct fc_opt o;
	const char *schema = NULL;	/* --json: failures print an error document */
	int json = 0, repair = 0, c, fd, busy, rc;

	fc_opt_init(&o, argc, argv, "j", opts, verb, verb);
	while ((c = fc_opt_next(&o)) != FC_OPT_END) {
		switch (c) {
		case FC_OPT_OPERAND:
			if (dev)
				return fc_usage(verb, "%s: expected one FLASHDEV ('%s' is extra)", verb,
						o.arg);
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
