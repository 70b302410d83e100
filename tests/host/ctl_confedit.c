// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of how pool create / enable / disable / set / pool replace / pool remove /
 * wipe record in the config file (userspace/ctl/conf_record.c,
 * fc_conf_record_*): linked with the objects
 * of userspace/lib and userspace/ctl but main's (tests/host/ctl_config.sh).
 *   ctl_confedit FILE enable POOL FLASHDEV TABLE DEV ID MODE NAME|- CUTOFF [OLOG]
 *   ctl_confedit FILE pool POOL FLASHDEV TABLE      (pool create: the pool's line)
 *   ctl_confedit FILE disable POOL ID
 *   ctl_confedit FILE set POOL ID KEY=VALUE...      (ID 0: the pool line)
 *   ctl_confedit FILE replace POOL KEEPDEV NEWDEV   (pool replace: KEEPDEV stays)
 *   ctl_confedit FILE pool-gone POOL                (pool remove, wipe: the pool is gone)
 *   ctl_confedit - setplan pool|volume TABLE KEY=VALUE...
 *                   what set would do on a live pool or volume with that
 *                   table (set_plan.c): "KEY VAL OLD [reload]" a line, in
 *                   order, or the reason on stderr and exit 2
 *   ctl_confedit - lvm ORIGIN CACHED [force]
 *                   enable's check of an origin (an image file) carrying an
 *                   LVM PV signature, to be cached as /dev/mapper/CACHED
 *                   (lvm_filter.c: lvmconfig on PATH, else
 *                   $LVM_SYSTEM_DIR/lvm.conf): exit 1 refused, 0 taken
 *   ctl_confedit FILE check
 * Exit status: that of the function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "fcachectl.h"
#include "set_plan.h"
#include "lvm_filter.h"

int main(int argc, char **argv)
{
	struct fc_pool p;
	uint64_t u;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[2], "check"))
		return fc_conf_check(argv[1]);
	if (!strcmp(argv[2], "lvm") && argc >= 5) {
		const char *raw[1] = { argv[3] };
		int fd = open(argv[3], O_RDONLY | O_CLOEXEC), r;

		if (fd < 0)
			return 2;
		r = fc_lvm_guard(fd, argv[3], raw, 1, argv[4], argc > 5 && !strcmp(argv[5], "force"));
		close(fd);
		return r;
	}
	if (!strcmp(argv[2], "setplan") && argc >= 6) {
		struct fc_set_step s[64];
		char why[512];
		int i, n = argc - 5 > 64 ? 64 : argc - 5;

		if (fc_set_plan(!strcmp(argv[3], "pool"), argv[4], n, argv + 5, s, why, sizeof(why)) < 0) {
			fprintf(stderr, "%s\n", why);
			return 2;
		}
		for (i = 0; i < n; i++)
			printf("%s %s %s%s\n", s[i].key, s[i].val, s[i].old, s[i].reload ? " reload" : "");
		return 0;
	}
	if ((!strcmp(argv[2], "enable") && (argc == 11 || argc == 12)) ||
	    (!strcmp(argv[2], "pool") && (argc == 6 || argc == 7))) {
		memset(&p, 0, sizeof(p));
		snprintf(p.name, sizeof(p.name), "%s", argv[3]);
		if (fc_block_dev(argv[4], &p.flash))
			return 2;
		snprintf(p.table, sizeof(p.table), "%s", argv[5]);
		{
			/* "mirror <dev>|-" of the table: a mirrored pool */
			struct fc_pool t = p;

			fc_parse_pool_table(&t);
			p.nr_legs = t.nr_legs;
			p.flash2 = t.flash2;
		}
		p.block_sectors = 64;
		/* pool ... [loaded]: pool create loaded it from the device */
		if (argc == 6 || argc == 7)
			return fc_conf_record_pool(argv[1], &p, argc == 7 && !strcmp(argv[6], "loaded"));
		fc_parse_u64(argv[7], &u);
		return fc_conf_record_enable(argv[1], &p, argv[6], (unsigned int)u, argv[8],
					     strcmp(argv[9], "-") ? argv[9] : NULL, atoi(argv[10]),
					     argc > 11 ? argv[11] : NULL);
	}
	if (!strcmp(argv[2], "disable") && argc == 5) {
		fc_parse_u64(argv[4], &u);
		return fc_conf_record_disable(argv[1], argv[3], (unsigned int)u);
	}
	if (!strcmp(argv[2], "set") && argc >= 6) {
		fc_parse_u64(argv[4], &u);
		return fc_conf_record_set(argv[1], argv[3], (unsigned int)u, argc - 5, argv + 5);
	}
	if (!strcmp(argv[2], "pool-gone") && argc == 4)
		return fc_conf_record_pool_gone(argv[1], argv[3]);
	if (!strcmp(argv[2], "replace") && argc == 6) {
		dev_t keep, nd;

		if (fc_block_dev(argv[4], &keep) || fc_block_dev(argv[5], &nd))
			return 2;
		return fc_conf_record_replace(argv[1], argv[3], keep, nd);
	}
	return 2;
}
