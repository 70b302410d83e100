// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_plan: what 'fcachectl pool create' would do with one or two image
 * files (userspace/ctl/create_plan.c, fc_create_plan), for the host tests
 * of mirrored pools (tests/host/ctl_mirror.sh), where no device-mapper is.
 *
 *   ctl_plan [--degraded] [--force] NAME IMG [IMG2]
 *
 * Prints the plan (format, load, load_degraded, reformat, refuse) on the
 * first line, the reason of a refusal on the second.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fcachectl.h"

int main(int argc, char **argv)
{
	static const char *const names[] = { "format", "load", "load_degraded", "reformat", "refuse" };
	const char *path[2] = { NULL, NULL }, *name = NULL;
	int fd[2] = { -1, -1 }, n = 0, degraded = 0, force = 0, i, plan;
	char why[1024] = "";

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--degraded"))
			degraded = 1;
		else if (!strcmp(argv[i], "--force"))
			force = FC_CREATE_FORCE;
		else if (!name)
			name = argv[i];
		else if (n < 2)
			path[n++] = argv[i];
		else
			return 2;
	}
	if (!name || !n)
		return 2;
	for (i = 0; i < n; i++) {
		fd[i] = open(path[i], O_RDONLY);
		if (fd[i] < 0) {
			perror(path[i]);
			return 1;
		}
	}
	plan = fc_create_plan(n, fd, path, name, degraded, force, why, sizeof(why));
	printf("%s\n%s\n", names[plan], why);
	for (i = 0; i < n; i++)
		close(fd[i]);
	return 0;
}
