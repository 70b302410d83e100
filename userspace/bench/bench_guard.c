// SPDX-License-Identifier: GPL-2.0
/*
 * What `fcachectl bench` checks before it touches anything (bench_int.h):
 * the devices it may overwrite (in use, signatures: bench_guard), that
 * they are block devices or files (a FIFO would hang the open), that one
 * device plays one role, the locks that keep two benchmarks off one
 * datafile or flash and two compares off the fcbench-* stacks, and the
 * output paths (--json FILE, --output DIR), opened or tried before the
 * run so that a bad path fails at once instead of losing the results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench_int.h"
#include "fc_check.h"
#include "fc_probe.h"

/*
 * What the benchmark reads and writes is a block device or a file: opening
 * a FIFO would wait for a writer forever, and a directory (or a socket) is
 * no place for a datafile (it used to get a --force hint that then
 * failed).  A character device passes, as before (/dev/null is a flash
 * that cannot be discarded; as a datafile its size says no), and so does
 * a path that does not exist (prepare --size creates it; the others say
 * so when they open it).  0, or EXIT_FAIL (said, with @what: "--origin").
 */
int bench_dev_kind(const char *what, const char *dev)
{
	struct stat st;
	const char *kind;

	if (stat(dev, &st) < 0 || S_ISBLK(st.st_mode) || S_ISREG(st.st_mode) ||
	    S_ISCHR(st.st_mode))
		return 0;
	kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
	       S_ISSOCK(st.st_mode) ? "a socket" : "neither a block device nor a file";
	fc_err(BENCH_CLI, "%s%s%s is %s: the benchmark needs a block device or a file "
		"(prepare --size MB creates one)", what, *what ? " " : "", dev, kind);
	return EXIT_FAIL;
}

/*
 * Who holds the lock on @fd: "pid N (fcachectl bench run data.img ...)"
 * from /proc/locks and the holder's command line, or "" if that cannot
 * be told (another pid namespace, no /proc).
 */
static void lock_holder(int fd, char *buf, size_t len)
{
	char line[256], want[64], path[64], cmd[160];
	unsigned long long ino;
	unsigned int ma, mi;
	struct stat st;
	FILE *f;
	size_t n, i;
	int pid;

	buf[0] = 0;
	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "r")))
		return;
	snprintf(want, sizeof(want), "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	while (fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF" */
		if (!strstr(line, "FLOCK") || sscanf(line, "%*s %*s %*s %*s %d %x:%x:%llu", &pid, &ma,
						      &mi, &ino) != 4 || pid <= 0)
			continue;
		snprintf(cmd, sizeof(cmd), "%02x:%02x:%llu", ma, mi, ino);
		if (strcmp(cmd, want))
			continue;
		snprintf(buf, len, "pid %d", pid);
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		fclose(f);
		f = fopen(path, "r");
		if (!f)
			return;
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		cmd[n] = 0;
		for (i = 0; n && i < n - 1; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (n)
			snprintf(buf + strlen(buf), len - strlen(buf), ": %s", cmd);
		break;
	}
	fclose(f);
}

/*
 * One benchmark at a time on a datafile (prepare, run, compare's origin)
 * and on a flash of compare: an exclusive flock on @path, held while the
 * returned descriptor stays open (-1 for a path that does not exist:
 * nothing to lock yet).  A second run used to find the datafile marked
 * unclean by the first and ask for a new prepare, which would destroy the
 * first run.  -2: held by another process: "@busy (pid N: its command
 * line)" said, the holder named if /proc tells.
 */
static int bench_lock(const char *path, const char *busy)
{
	char who[256];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	if (errno != EWOULDBLOCK)	/* a filesystem without flock: no lock, as before */
		return fd;
	lock_holder(fd, who, sizeof(who));
	fc_err(BENCH_CLI, "%s%s%s%s; one benchmark at a time: wait for it to end, or stop it "
		"(SIGINT leaves the datafile clean)", busy, who[0] ? " (" : "", who, who[0] ? ")" : "");
	close(fd);
	return -2;
}

/* bench_lock() of the datafile or device @path, its role @what ("datafile", "--flash") */
int bench_lock_dev(const char *path, const char *what)
{
	char busy[1200];

	snprintf(busy, sizeof(busy), "%s (the %s) is in use by another benchmark", path, what);
	return bench_lock(path, busy);
}

/*
 * compare's device stacks are named fcbench-* whatever the devices: one
 * compare that builds them at a time on the machine, or the second would
 * tear down the first's stacks (bench_stack_cleanup).  The lock file is in
 * /run/lock (else /tmp); -2: held (said).
 */
int bench_stack_lock(void)
{
	const char *dir = access("/run/lock", W_OK) ? "/tmp" : "/run/lock";
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/fcachectl-bench-stacks.lock", dir);
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return bench_lock(path, "another bench compare is building its device stacks "
			  "(fcbench-*, one set on the machine)");
}

/*
 * May prepare or compare overwrite @dev?  Not a block device someone holds
 * (O_EXCL: mounted, an active RAID or LVM member, a pool), nor one that
 * carries a signature libblkid knows or an fcache pool, unless --force:
 * the benchmark writes all of it.  Our own header (a datafile, the flash of
 * an earlier compare) is no reason to refuse, or runs could not be
 * repeated; a path that does not exist is a file prepare --size creates.
 * 0, or EXIT_FAIL (said).
 */
int bench_guard(const char *dev, int force)
{
	char what[160];
	uint32_t bs;
	int fd, sig;

	if (force)
		return 0;
	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		fc_err(BENCH_CLI, "%s: %s%s", dev, strerror(errno),
			errno == EBUSY ? " (in use: mounted, or held by another device or "
			"pool); --force overrides" : "");
		return EXIT_FAIL;
	}
	if (bench_own_header(fd)) {
		close(fd);
		return 0;
	}
	if (fc_probe_pool(fd, &bs)) {
		snprintf(what, sizeof(what), "an fcache pool");
		sig = 1;
	} else {
		sig = fc_probe_signatures(fd, what, sizeof(what), 0);
	}
	close(fd);
	if (sig < 0)
		fc_err(BENCH_CLI, "cannot probe %s for signatures; --force "
			"overrides", dev);
	else if (sig)
		fc_err(BENCH_CLI, "%s holds %s; the benchmark would overwrite "
			"it (--force overrides)", dev, what);
	return sig ? EXIT_FAIL : 0;
}

/* Are @a and @b the same device (block devices) or the same file? */
int bench_same_dev(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode))
		return a->st_rdev == b->st_rdev;
	return S_ISREG(a->st_mode) && S_ISREG(b->st_mode) &&
	       a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * --log-dev of run and compare: the redo log's own device or file.  It
 * must be none of the devices the run writes otherwise (@other[], named
 * @what[]): EXIT_USAGE; it must exist, be a block device or a file and be
 * writable; in use or holding a signature it is refused as bench_guard() refuses
 * (EXIT_FAIL, --force overrides).  0, or the exit status (said).
 */
int bench_log_dev_check(const char *log, const char *const *other,
			 const char *const *what, int n, int force)
{
	struct stat ls, os;
	int i, fd;

	if (stat(log, &ls) < 0) {
		fc_err(BENCH_CLI, "--log-dev %s: %s (the redo log's device or file must "
			"exist)", log, strerror(errno));
		return EXIT_FAIL;
	}
	if (!S_ISBLK(ls.st_mode) && !S_ISREG(ls.st_mode)) {
		fc_err(BENCH_CLI, "--log-dev %s is neither a block device nor a file", log);
		return EXIT_FAIL;
	}
	for (i = 0; i < n; i++)
		if (stat(other[i], &os) == 0 && bench_same_dev(&ls, &os)) {
			fc_err(BENCH_CLI, "--log-dev %s is the %s itself; the redo log "
				"goes to a device of its own", log, what[i]);
			return EXIT_USAGE;
		}
	fd = open(log, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fc_err(BENCH_CLI, "--log-dev %s is not writable: %s", log, strerror(errno));
		return EXIT_FAIL;
	}
	close(fd);
	return bench_guard(log, force);
}

/*
 * --json FILE of run, opened before the run (a path that cannot be written
 * fails now, not after an hour of measuring): created if missing, emptied
 * only when the results are written.  NULL (said).  O_NONBLOCK for the
 * open only: a FIFO without a reader is refused, not waited for.
 */
FILE *bench_json_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
	FILE *f;

	if (fd < 0) {
		fc_err(BENCH_CLI, "--json %s: %s (the results could not be written; nothing was run)",
			path, strerror(errno));
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/* The results into @f (json_open), which is emptied first if it is a file; 0 or -1 (said). */
int bench_json_write(FILE *f, const char *path, const struct bench_opts *o,
		      const struct bench_result *r, char *cmd)
{
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && ftruncate(fileno(f), 0) < 0) {
		fc_err(path, "%s", strerror(errno));
		fclose(f);
		return -1;
	}
	return bench_write_json_file(f, path, o, r, 1, NULL, cmd);
}

int bench_make_dir(const char *dir)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fc_err(BENCH_WHO, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * --output DIR of compare, made (if missing) and tried before anything
 * runs: a directory that takes new files.  0, or -1 (said).
 */
int bench_out_dir_check(const char *out)
{
	struct stat st;
	int fd;

	if (bench_make_dir(out) < 0)
		return -1;
	if (stat(out, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fc_err(BENCH_CLI, "--output %s is not a directory (results.json and chart.svg go there; "
			"nothing was run)", out);
		return -1;
	}
	fd = open(out, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		if (!access(out, W_OK | X_OK))
			return 0;
	}
	fc_err(BENCH_CLI, "--output %s: %s (results.json and chart.svg could not be written; "
		"nothing was run)", out, strerror(errno));
	return -1;
}

