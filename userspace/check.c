// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl check / dump: open the flash device offline, run fc_check.
 * check --clear-needs-check opens it for writing (exclusively for a block
 * device) and lets fc_clear_needs_check_fd() repair it.
 */
#define _GNU_SOURCE	/* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
		{ "clear-needs-check", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 }
	};
	int json = 0, clear = 0, c, fd, busy, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+j", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'C':
			if (what != FC_OUT_CHECK)
				return fc_usage(argv[0], "%s: --clear-needs-check is an option of check",
						argv[0]);
			clear = 1;
			break;
		default:
			return fc_usage(argv[0], "%s: unknown option '%s'", argv[0], argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return fc_usage(argv[0], "%s: expected one FLASHDEV", argv[0]);
	fd = open_flash(argv[optind], 1, clear, &busy);
	if (fd < 0 && busy)
		return fc_fail("check: %s is in use (an active pool?); remove the pool first ('fcachectl pool remove NAME' or 'fcachectl down'), then clear needs_check",
			       argv[optind]);
	if (fd < 0 && clear)
		return fc_fail("%s: cannot open %s for writing: %s; give the pool's flash device or an image file",
			       argv[0], argv[optind], strerror(errno));
	if (fd < 0)
		return fc_fail("%s: cannot open %s: %s; give the pool's flash device or an image file",
			       argv[0], argv[optind], strerror(errno));
	if (busy && what == FC_OUT_CHECK) {
		close(fd);
		return fc_fail("check: %s is in use (an active pool?); remove the pool first ('fcachectl pool remove NAME' or 'fcachectl down')",
			       argv[optind]);
	}
	if (busy)
		fc_warn("%s is in use: the metadata may change while it is read", argv[optind]);
	if (clear) {
		rc = fc_clear_needs_check_fd(fd, argv[optind], json, stdout);
		if (close(fd) && !rc)
			rc = 2;
		if (rc == 1)
			return fc_fail("check: %s: the metadata is damaged or unreadable: needs_check not cleared, nothing written",
				       argv[optind]);
		if (rc)
			return fc_fail("check: %s: writing the repair failed (see above); run check again",
				       argv[optind]);
		return EXIT_OK;
	}
	rc = fc_check_fd(fd, argv[optind], what, json, stdout);
	close(fd);
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
