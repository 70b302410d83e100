// SPDX-License-Identifier: GPL-2.0
/*
 * fcachectl: control tool of the dm-fcache device-mapper targets.
 *
 * This file holds main(), the command table, the global options and the
 * usage texts; the exit codes (0 ok, 1 failed, 2 usage, 3 check: not a
 * pool) are lib/fc_err.h's.  Every verb lives in a file of its own (pool.c,
 * volume.c, resolve.c, status.c, set.c, check.c, config.c; bench is in
 * userspace/bench/) and takes its own argc/argv with argv[0] = the verb,
 * parsed with fc_opt_next() (options in any position); every verb accepts
 * --help, and -v anywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fcachectl.h"
#include "fc_dm.h"

/* FC_BENCH_SRC: the Makefile found sources in bench/ to link */
#if defined(__has_include) && defined(FC_BENCH_SRC)
#if __has_include("../bench/bench.h")
#include "../bench/bench.h"
#define FC_HAVE_BENCH 1
#endif
#endif

struct fc_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	int needs_dm;		/* talks to device-mapper */
	const char *summary;
	const char *usage;
};

#ifndef FC_HAVE_BENCH
static int no_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return fc_fail("this build has no benchmark (userspace/bench/*.c missing)");
}
#endif

static const struct fc_cmd cmds[] = {
	/* hidden (no summary): names for shell completion, no sampling */
	{ "__complete", cmd_complete, 1, NULL, "__complete pools|volumes|targets|bash" },
	{ "pool", cmd_pool, 1, "create, remove, list cache pools; replace a failed device",
	  "pool create NAME FLASHDEV [FLASHDEV2] [--block-size SIZE] [--force [--yes]]\n"
	  "                   [--degraded] [TUNABLE=VALUE...] [-c FILE | --no-persist]\n"
	  "       pool remove NAME [-c FILE | --no-persist]\n"
	  "       pool list [--json]\n"
	  "       pool replace POOL NEWDEV [--wait] [--force] [-c FILE | --no-persist]\n"
	  "  create: make /dev/mapper/NAME own FLASHDEV.  A device that already holds\n"
	  "          an fcache pool is loaded as it is (reformatted only with --force);\n"
	  "          a blank one is formatted.  A device with a filesystem, partition\n"
	  "          table or RAID signature, or a damaged pool (what 'check' calls\n"
	  "          damaged: fcache metadata without a usable superblock), is\n"
	  "          refused unless --force.\n"
	  "          FLASHDEV2: a mirrored pool over two devices (table option\n"
	  "          'mirror'): every dirty block is written to both, clean data uses\n"
	  "          the capacity of both.  Both devices get every check above; two\n"
	  "          blank ones are formatted, the two legs of a pool are loaded if they\n"
	  "          belong together (else refused with what 'check DEV1 DEV2' says); a\n"
	  "          pool on one of them only is refused (--force reformats both).\n"
	  "          One leg of a mirrored pool alone is refused: give both devices.\n"
	  "          --degraded         load one leg of a mirrored pool alone (its\n"
	  "                             partner lost or stale): its dirty data then\n"
	  "                             has one copy (as mdadm --run)\n"
	  "          --block-size SIZE  cache block size, 4K..1M, power of two (32K,\n"
	  "                             also when reformatting)\n"
	  "          --force            overrides three refusals: a filesystem, partition\n"
	  "                             table or RAID signature (wiped, then formatted),\n"
	  "                             a damaged pool (formatted), and an\n"
	  "                             fcache pool on FLASHDEV (reformatted as an\n"
	  "                             empty pool: its cached data and the dirty data\n"
	  "                             of its volumes are lost; asks 'yes' on a\n"
	  "                             terminal).\n"
	  "                             Never: a device in use (mounted, held by a table,\n"
	  "                             RAID or LVM), the flash of an active pool.\n"
	  "          --yes              reformat a pool without asking (needed without a\n"
	  "                             terminal: else exit 2, naming the command)\n"
	  "          TUNABLE=VALUE      one of:\n"
	  "            @pool-tunables\n"
	  "          The pool (its devices, block size and tunables) is recorded in\n"
	  "          " FC_DEFAULT_CONFIG " (or -c FILE) for 'up' at boot, in place\n"
	  "          of the pool's line if it has one; --no-persist records nothing.\n"
	  "  remove: remove the pool device (refused while volumes are attached); its\n"
	  "          dirty data stays on the flash (a degraded pool: on one device).\n"
	  "          Its line and its volumes' lines leave " FC_DEFAULT_CONFIG "\n"
	  "          (or -c FILE) unless it holds dirty data; --no-persist: unchanged.\n"
	  "  list:   list the pools (a mirrored pool: both devices)\n"
	  "  replace: give a mirrored pool degraded by one device (failed at run\n"
	  "          time, or missing: the pool came up --degraded) NEWDEV in its\n"
	  "          place, online: the pool's table is reloaded with the device in\n"
	  "          service, NEWDEV and 'replace 1' (every tunable kept), and the\n"
	  "          dirty data is copied to NEWDEV (status: DEGRADED, leg state\n"
	  "          resync, RESYNC line counting the blocks left; then mirrored).\n"
	  "          Refused: a pool not active (run 'fcachectl up --degraded'\n"
	  "          first), not mirrored or not degraded, NEWDEV the device in\n"
	  "          service, smaller than the leg it replaces, or in use.  The\n"
	  "          failed device itself may come back (a transient failure).\n"
	  "          --wait   print the dirty blocks left with one copy until the\n"
	  "                   pool is mirrored (Ctrl-C stops waiting, not the resync)\n"
	  "          --force  overwrite a filesystem, partition table or RAID\n"
	  "                   signature, an fcache pool or a damaged one on NEWDEV\n"
	  "          The pool's line of " FC_DEFAULT_CONFIG " (or -c FILE) names\n"
	  "          NEWDEV instead of the replaced device; --no-persist: unchanged." },
	{ "enable", cmd_enable, 1, "cache a volume through a pool",
	  "enable VOLUME --pool NAME [--mode MODE] [--name DMNAME] [--id N]\n"
	  "       [--sequential-cutoff KIB] [--ordered-log LOGDEV] [--force]\n"
	  "       [-c FILE | --no-persist]\n"
	  "  Caches VOLUME and prints the device to use.  A device-mapper VOLUME\n"
	  "  is converted in place: it keeps its name and number and a mounted\n"
	  "  filesystem keeps running.  Any other block device gets a new\n"
	  "  device /dev/mapper/DMNAME (default fc-<kernel name>).\n"
	  "  LVM: an LV is not cached in place in writeback mode (an LVM command\n"
	  "  reloading it would expose stale data).  Cache the PV (the md/RAID\n"
	  "  device under the VG) before LVM activates, and make LVM use the cached\n"
	  "  PV and reject the raw one with global_filter in /etc/lvm/lvm.conf:\n"
	  "    devices { global_filter = [ \"a|^/dev/mapper/md0c$|\", \"r|^/dev/md0$|\" ] }\n"
	  "  (man fcachectl, LVM).  writethrough/writearound in place on an LV\n"
	  "  are allowed: an LVM command then only takes the cache away.\n"
	  "  A VOLUME carrying an LVM PV signature is refused while LVM would see\n"
	  "  the PV raw as well as cached (lvmconfig: global_filter, filter, the\n"
	  "  devices file): the error gives the global_filter line to add.\n"
	  "  --force  cache it all the same (warned)\n"
	  "  @enable-modes\n"
	  "  --id N  volume id in the pool (default: lowest unused), 1..63\n"
	  "  @enable-cutoff\n"
	  "  --ordered-log LOGDEV  the volume's ordered log ('ordered-log format'):\n"
	  "          with the pool's ordered 1, writeback goes through it, and the\n"
	  "          origin plus 'ordered-log replay' is a past flush point even\n"
	  "          with the flash lost\n"
	  "  Recorded in " FC_DEFAULT_CONFIG " (or -c FILE) for 'up' at boot,\n"
	  "  with the pool if it is not there yet; --no-persist records nothing." },
	{ "disable", cmd_disable, 1, "write back and stop caching a volume",
	  "disable VOLUME [--no-flush] [-c FILE | --no-persist]\n"
	  "  Writes back the volume's dirty data (with progress), drops its clean\n"
	  "  blocks and takes the cache out of its path; a converted device-mapper\n"
	  "  volume gets its original table back in place.  Ctrl-C leaves the\n"
	  "  volume cached and consistent.\n"
	  "  --no-flush  detach without writing back; the dirty data stays in the\n"
	  "              pool for a later 'enable --id N' (refused for in-place volumes\n"
	  "              with dirty data, whose name would then show stale data)\n"
	  "  The volume's line is removed from " FC_DEFAULT_CONFIG " (or -c\n"
	  "  FILE; kept with --no-flush); --no-persist changes nothing in it." },
	{ "status", cmd_status, 1, "show pools and volumes",
	  "status [POOL|VOLUME] [--json | --prometheus] [--watch SECONDS]\n"
	  "       [--prometheus-file PATH] [--counters]\n"
	  "  Rates (IOPS, writeback) come from two samples 0.5 s apart (or the\n"
	  "  --watch interval).\n"
	  "  --json           machine-readable output (docs/JSON.md: fcache.status)\n"
	  "  --prometheus     the counters in the Prometheus text format, at once\n"
	  "                   (no sampling); one exposition per interval with --watch\n"
	  "  --prometheus-file PATH  write it to PATH.tmp and rename it to PATH\n"
	  "                   (node_exporter textfile collector), with --watch every\n"
	  "                   SECONDS until Ctrl-C\n"
	  "  --watch SECONDS  refresh in place every SECONDS until Ctrl-C\n"
	  "  --counters       text output: every counter of each volume and pool (the\n"
	  "                   \"stats\" message: hits, why I/O went around the cache,\n"
	  "                   FUA, flushes, commits and their group sizes)" },
	{ "set", cmd_set, 1, "change a mode or tunable online",
	  "set POOL|VOLUME KEY=VALUE... [-c FILE | --no-persist]\n"
	  "  pool keys:\n"
	  "    @pool-tunables\n"
	  "  volume keys:\n"
	  "    @volume-settings\n"
	  "  Recorded on the pool's or volume's line of " FC_DEFAULT_CONFIG "\n"
	  "  (or -c FILE); --no-persist records nothing." },
	{ "show", cmd_show, 1, "print the settings of a pool or volume",
	  "show POOL|VOLUME [--json]\n"
	  "  The current settings, from the live table ('dmsetup table'); a setting\n"
	  "  the table does not carry has the target's default and says so.\n"
	  "  @show-pool\n"
	  "  @show-volume\n"
	  "  --json  machine-readable output (docs/JSON.md: fcache.show)\n"
	  "  'fcachectl get POOL|VOLUME NAME' prints one of them; 'set' changes them." },
	{ "get", cmd_get, 1, "print one setting (get POOL|VOLUME NAME), or all as show",
	  "get POOL|VOLUME [NAME] [--json]\n"
	  "  With NAME: its value alone on a line (a number in the unit of 'show', a\n"
	  "  word, a path; in_place: yes or no), for scripts:\n"
	  "    fcachectl get p0 writeback_high      ->  80\n"
	  "  Without NAME: the same as 'fcachectl show' (--json: fcache.show).\n"
	  "  NAME of a\n"
	  "    @get-pool\n"
	  "    @get-volume" },
	{ "reset-counters", cmd_reset_counters, 1, "zero the counters of a pool's volumes or a volume",
	  "reset-counters POOL|VOLUME\n"
	  "  Sends clear_stats: for a VOLUME its counters (status: reads, hits,\n"
	  "  writes, bypassed, errors, promotions, writebacks; status --counters:\n"
	  "  every counter of the volume) become 0; for a POOL those of every volume\n"
	  "  of the pool, attached or not.  The pool's commit and writeback counters\n"
	  "  ('commit counters' of status --counters) are not reset.  The block\n"
	  "  counts (cached, dirty) are state, not counters: they stay." },
	{ "forget", cmd_forget, 1, "release the slot of a volume that is not attached",
	  "forget POOL ID|LABEL [--discard-dirty [--yes]] [-c FILE | --no-persist]\n"
	  "  Releases a registered volume that is not attached (left by 'down' or\n"
	  "  'disable --no-flush', or detached at run time), e.g. one whose origin is\n"
	  "  gone: its cached blocks and its id are freed (pool message 'forget').\n"
	  "  Refused for an attached volume ('disable' releases it) and for one with\n"
	  "  dirty data, which its origin does not have:\n"
	  "  --discard-dirty  for a volume detached at run time (see 'resolve'): drop\n"
	  "                   its dirty data ('resolve ID --discard') and forget it;\n"
	  "                   asks 'yes' on a terminal.  The dirty data of a volume\n"
	  "                   that fcachectl took down is never discarded: attach it\n"
	  "                   ('enable ORIGIN --pool POOL --id ID') and 'disable' it.\n"
	  "  --yes            discard without asking (needed without a terminal:\n"
	  "                   else exit 2, naming the command)\n"
	  "  The volume's line is removed from " FC_DEFAULT_CONFIG " (or -c\n"
	  "  FILE); --no-persist changes nothing in it." },
	{ "flush", cmd_flush, 1, "write back all dirty data of a pool or volume",
	  "flush POOL|VOLUME\n"
	  "  Writes back dirty data now and waits, with a progress bar, until what\n"
	  "  was dirty when the flush began is on the origins (writes made during\n"
	  "  it may leave blocks dirty).  A suspend of the device ends the wait\n"
	  "  (exit 1); the flush goes on after the resume.  Dirty data\n"
	  "  of volumes that are not attached cannot be written back: the flush of\n"
	  "  a pool then ends with a message naming them and exit status 1." },
	{ "resolve", cmd_resolve, 1, "decide about a volume detached at run time",
	  "resolve POOL ID|LABEL --replay|--discard\n"
	  "  A volume whose cache was torn down at run time by something other than\n"
	  "  fcachectl (an LVM command, dmsetup remove) is marked detached: its\n"
	  "  origin may hold newer writes, so the pool refuses to attach it while it\n"
	  "  has dirty data.\n"
	  "  --replay   the pool's dirty data is newer (nothing wrote the origin\n"
	  "             since): keep it; the next attach writes it back\n"
	  "  --discard  the origin is authoritative: drop the volume's cached and\n"
	  "             dirty data" },
	{ "check", cmd_check, 0, "verify a pool's metadata offline",
	  "check FLASHDEV [FLASHDEV2] [--json] [--repair]\n"
	  "  Verifies the superblock and all metadata of an fcache flash device (or\n"
	  "  image file) that is not in use.  Outcomes (JSON \"outcome\"), exit status:\n"
	  "    clean       0  consistent\n"
	  "    leftovers   0  consistent; warnings about harmless leftovers of commits\n"
	  "                   that never completed (page copies above md_seq, an\n"
	  "                   unusable copy or superblock slot next to a good one)\n"
	  "    damaged     1  errors (or unreadable): listed, nothing is changed\n"
	  "    not_a_pool  3  the device holds no fcache metadata at all\n"
	  "  --repair  only after a check without errors: zero the leftovers, clear\n"
	  "            needs_check and write a new superblock, so the pool loads\n"
	  "            read-write again; damage is refused (exit 1, nothing written)\n"
	  "  --clear-needs-check  the old name of --repair\n"
	  "  FLASHDEV FLASHDEV2: the two legs of a mirrored pool: each is checked (a\n"
	  "  leg reports its leg index, partner, events and failed legs; every twin\n"
	  "  is verified), then the pair (JSON: fcache.check-pair):\n"
	  "    in_sync       0  same pool, each the other's partner, same commit and\n"
	  "                     committed metadata\n"
	  "    lagging       0  one superblock a commit behind (loads, brought forward)\n"
	  "    stale, split_brain, foreign, same_leg, disagree, not_mirrored\n"
	  "                  1  the kernel refuses the two together (says which device\n"
	  "                     holds the newest data)\n"
	  "    mismatch, damaged  1  same commit but different metadata, or a damaged leg\n"
	  "    not_a_pool    3  one of them holds no fcache metadata" },
	{ "dump", cmd_dump, 0, "describe a pool's metadata offline",
	  "dump FLASHDEV [--json]\n"
	  "  Prints the superblock, the volume table and every cache entry, as\n"
	  "  recovery would read them.  Exit status as check." },
	{ "ordered-log", cmd_ordered_log, 0, "the log beside an origin: format, show, replay",
	  "ordered-log format LOGDEV --origin ORIGIN [--force]\n"
	  "       ordered-log show LOGDEV [--json]\n"
	  "       ordered-log replay LOGDEV ORIGIN [--dry-run] [--json]\n"
	  "  The ordered log of a volume in ordered write-back: a device of its own\n"
	  "  beside the origin, holding records of whole flush points (docs/DESIGN.md,\n"
	  "  \"The origin's log\").  With the flash lost, the origin plus the log's\n"
	  "  complete records replayed over it is the volume at a flush point.\n"
	  "  format  write an empty log for ORIGIN (its size is recorded) on LOGDEV;\n"
	  "          refused over a log holding records not applied, or a damaged\n"
	  "          one, unless --force\n"
	  "  show    the log: its head, the records a replay would apply, why the\n"
	  "          walk of its ring ended, and the flush point the origin reaches\n"
	  "          with them (epoch, time, age)\n"
	  "  replay  the flash is lost: write those records onto ORIGIN in order,\n"
	  "          flush it, then move the log's head past them (a replay cut\n"
	  "          short is run again: it writes the same bytes).  ORIGIN must be\n"
	  "          the size the log records.  --dry-run: say what it would do\n"
	  "  Devices in use (an assembled volume's) are refused.  Exit status: 0 ok,\n"
	  "  1 failed or damaged, 3 LOGDEV holds no ordered log." },
	{ "wipe", cmd_wipe, 1, "erase the fcache pool on a device that is not in use",
	  "wipe DEVICE [--force-dirty] [-c FILE | --no-persist]\n"
	  "  Erases the fcache pool on DEVICE (a flash device or an image file) so\n"
	  "  that nothing sees a pool there any more: the superblocks and the\n"
	  "  metadata are zeroed ('check' then says not_a_pool, 'pool create'\n"
	  "  formats a new pool).  The cached data itself is left as it is.\n"
	  "  libblkid does not know fcache's signature: mkfs, pvcreate and wipefs\n"
	  "  overwrite a pool without a word; wipe is the tool that knows one.\n"
	  "  Refused: a device in use (the flash of an assembled pool: 'pool\n"
	  "  remove' it first), and a pool holding dirty data, which the origins of\n"
	  "  its volumes do not have (a damaged pool cannot tell), unless:\n"
	  "  --force-dirty  erase it all the same: that dirty data is lost\n"
	  "  A device holding no fcache pool is left as it is (exit 0).\n"
	  "  The pool's line and its volumes' lines leave " FC_DEFAULT_CONFIG "\n"
	  "  (or -c FILE), so that 'up' does not format a new pool on the device\n"
	  "  and udev no longer hides it; --no-persist changes nothing in it." },
	{ "up", cmd_up, 1, "assemble the pools and volumes of the config file",
	  "up [-c FILE] [--dry-run] [--degraded] [--wait SECONDS]\n"
	  "  Creates the pools and enables the volumes listed in FILE\n"
	  "  (default " FC_DEFAULT_CONFIG "); what is already assembled is kept.\n"
	  "  A mirrored pool (mirror=FLASHDEV2) with a device missing is NOT\n"
	  "  assembled (its dirty data would have one copy): the error names the\n"
	  "  device; bring it back, or run up --degraded.\n"
	  "  --dry-run   only check the file and print what it describes (and what\n"
	  "              up would do about a missing device of a mirrored pool)\n"
	  "  --degraded  assemble a mirrored pool with a device missing on the other\n"
	  "              one alone (as mdadm --run)\n"
	  "  --wait SECONDS  how long a missing device is waited for (default 10;\n"
	  "              0: not at all)" },
	{ "down", cmd_down, 1, "take down the pools and volumes of the config file",
	  "down [-c FILE]\n"
	  "  Removes the volumes and pools of FILE without writing back: dirty data\n"
	  "  stays on the flash for the next 'up'." },
	{ "udev-probe", cmd_udev_probe, 0, "(for the udev rule) classify a device",
	  "udev-probe DEVNODE [-c FILE]\n"
	  "  Prints FCACHE_ORIGIN=1 if DEVNODE is the origin of a volume of the\n"
	  "  config file that is not assembled, FCACHE_FLASH=1 for a pool device." },
#ifdef FC_HAVE_BENCH
	{ "bench", fc_cmd_bench, 1, "OLTP benchmark", "bench --help" },
#else
	{ "bench", no_bench, 0, "OLTP benchmark (not built)", "bench --help" },
#endif
	{ NULL, NULL, 0, NULL, NULL }
};

static void usage(FILE *f)
{
	const struct fc_cmd *c;

	fprintf(f, "usage: fcachectl [-v] [--version] VERB [ARGS...]\n\nverbs:\n");
	for (c = cmds; c->name; c++)
		if (c->summary)
			fprintf(f, "  %-14s %s\n", c->name, c->summary);
	fprintf(f, "\n'fcachectl VERB --help' describes a verb.  Options may come before or\n"
		"after the other arguments (long options in full); '--' ends the options.\n"
		"exit codes: 0 ok, 1 failed (nothing changed unless stated), 2 usage error,\n"
		"            3 check/dump: not an fcache pool\n");
}

static void print_verb_help(const char *verb, FILE *f)
{
	const struct fc_cmd *c;

	for (c = cmds; c->name; c++) {
		if (strcmp(c->name, verb))
			continue;
		fprintf(f, "usage: fcachectl ");
		fc_tunables_help(f, c->usage);	/* "@..." lines: from the table of settings */
	}
}

int main(int argc, char **argv)
{
	const struct fc_cmd *c;
	int i = 1, j, k;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			fc_verbose++;
		} else if (!strcmp(argv[i], "--version")) {
			printf("fcachectl %s\n", FC_VERSION);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else {
			fc_fail("unknown option '%s'", argv[i]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
#ifdef FC_HAVE_BENCH
		/* help bench [VERB]: the benchmark's own usage */
		if (i + 1 < argc && !strcmp(argv[i + 1], "bench")) {
			char *hv[] = { argv[i + 1], (char *)"help", i + 2 < argc ? argv[i + 2] : NULL, NULL };

			return fc_cmd_bench(i + 2 < argc ? 3 : 2, hv);
		}
#endif
		if (i + 1 < argc) {
			for (c = cmds; c->name; c++)
				if (!strcmp(c->name, argv[i + 1])) {
					print_verb_help(c->name, stdout);
					return EXIT_OK;
				}
		}
		usage(stdout);
		return EXIT_OK;
	}
	for (c = cmds; c->name; c++) {
		if (strcmp(c->name, argv[i]))
			continue;
		/* --help anywhere among the verb's arguments (bench has its own) */
		for (j = i + 1; j < argc && strcmp(c->name, "bench"); j++) {
			if (!strcmp(argv[j], "--"))
				break;
			if (!strcmp(argv[j], "--help") || !strcmp(argv[j], "-h")) {
				print_verb_help(c->name, stdout);
				return EXIT_OK;
			}
		}
		/* global -v after the verb too: fcachectl check IMG -v */
		for (j = i + 1, k = j; j < argc && strcmp(c->name, "bench"); j++) {
			if (!strcmp(argv[j], "--")) {
				while (j < argc)
					argv[k++] = argv[j++];
				break;
			}
			if (!strcmp(argv[j], "-v") || !strcmp(argv[j], "--verbose"))
				fc_verbose++;
			else
				argv[k++] = argv[j];
		}
		if (strcmp(c->name, "bench")) {
			argv[k] = NULL;
			argc = k;
		}
		if (c->needs_dm) {
			fc_dm_verbose = fc_verbose > 1 ? fc_verbose - 1 : 0;
			fc_dm_init();
		}
		return c->fn(argc - i, argv + i);
	}
	fc_fail("unknown verb '%s'", argv[i]);
	usage(stderr);
	return EXIT_USAGE;
}
