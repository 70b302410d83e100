// SPDX-License-Identifier: GPL-2.0
/* fc_dev: device sizes, numbers and paths; see fc_dev.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fc_dev.h"

int fc_dev_size(int fd, uint64_t *bytes)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (S_ISREG(st.st_mode)) {
		*bytes = (uint64_t)st.st_size;
		return 0;
	}
	return ioctl(fd, BLKGETSIZE64, bytes) ? -1 : 0;
}

int fc_path_size(const char *path, uint64_t *bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r, e;

	if (fd < 0)
		return -1;
	r = fc_dev_size(fd, bytes);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

void *fc_io_alloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, 4096, n)) {
		errno = ENOMEM;
		return NULL;
	}
	memset(p, 0, n);
	return p;
}

int fc_dev_zero(int fd, size_t bytes)
{
	void *z = fc_io_alloc(bytes);
	int r = -1, e;

	if (!z)
		return -1;
	if (pwrite(fd, z, bytes, 0) == (ssize_t)bytes && !fdatasync(fd))
		r = 0;
	e = errno;
	free(z);
	errno = e;
	return r;
}

int fc_dev_zero_range(int fd, uint64_t off, uint64_t len)
{
	enum { CHUNK = 1 << 20 };
	uint64_t range[2] = { off, len }, done;
	struct stat st;
	size_t n;
	void *z;
	int e;

	if (!len)
		return 0;
	if (!fstat(fd, &st) && S_ISBLK(st.st_mode) && !ioctl(fd, BLKZEROOUT, range))
		return fdatasync(fd);
	z = fc_io_alloc(CHUNK);
	if (!z)
		return -1;
	for (done = 0; done < len; done += n) {
		n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
		if (pwrite(fd, z, n, (off_t)(off + done)) != (ssize_t)n) {
			e = errno ? errno : EIO;
			free(z);
			errno = e;
			return -1;
		}
	}
	free(z);
	return fdatasync(fd);
}

int fc_block_dev(const char *path, dev_t *dev)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	if (!S_ISBLK(st.st_mode)) {
		errno = ENOTBLK;
		return -1;
	}
	*dev = st.st_rdev;
	return 0;
}

const char *fc_dev_str(dev_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", major(dev), minor(dev));
	return buf;
}

int fc_parse_devstr(const char *s, dev_t *dev)
{
	unsigned int ma, mi;
	char c;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &c) != 2)
		return -1;
	*dev = makedev(ma, mi);
	return 0;
}

const char *fc_dev_kname(dev_t dev)
{
	static char name[256];
	char link[PATH_MAX], path[64];
	ssize_t n;
	const char *b;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		snprintf(name, sizeof(name), "%u-%u", major(dev), minor(dev));
		return name;
	}
	link[n] = 0;
	b = strrchr(link, '/');
	b = b ? b + 1 : link;
	n = (ssize_t)strlen(b);
	if (n >= (ssize_t)sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, b, n);
	name[n] = 0;
	return name;
}

const char *fc_dev_path(dev_t dev)
{
	static char path[300];
	dev_t d;

	snprintf(path, sizeof(path), "/dev/%s", fc_dev_kname(dev));
	if (!fc_block_dev(path, &d) && d == dev)
		return path;
	snprintf(path, sizeof(path), "/dev/block/%u:%u", major(dev), minor(dev));
	return path;
}
