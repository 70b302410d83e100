// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the offline metadata reader/checker and the
 * --clear-needs-check repair (userspace/lib/fc_check.c) on a small flash image.
 *
 * Input: one control byte, then the first bytes of a flash image (4 KiB
 * pages: superblock slots, then metadata page slots).  The image is put in
 * a memfd, which fc_check reads and writes like an image file.  Control:
 *   bit 0  re-seal every page whose magic is an fcache one (the fuzzer
 *          cannot forge CRC32C, this lets the semantic checks see garbage)
 *   bit 1  grow the device to the superblock's flash size (at most 1 MiB):
 *          seeds stay small, the unwritten pages read as zeros
 *   bit 2  run check --clear-needs-check, then check the invariants below
 *   bit 3  JSON output
 *   bit 4  dump instead of check
 * Invariants: check and dump return 0 or 1; a repair refused on a damaged
 * pool leaves the device byte for byte unchanged; a repair that succeeded
 * leaves a pool that checks clean, with no leftovers and no needs_check,
 * and the same volumes and entries as before (dump --json compared).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../../include/fcache_format.h"
#include "../../userspace/lib/fc_check.h"

#define MAX_DEV (1u << 20)

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_check: invariant failed at line %d: %s\n", __LINE__, #cond); \
		abort(); \
	} \
} while (0)

static int mfd = -1;
static FILE *devnull;

static void put_image(const uint8_t *img, size_t len, size_t dev)
{
	CHECK(!ftruncate(mfd, 0));
	CHECK(!ftruncate(mfd, (off_t)dev));
	CHECK(pwrite(mfd, img, len, 0) == (ssize_t)len);
}

/* The device into buffer @which (0 or 1), reused: no page faults per run. */
static uint8_t *get_image(int which, size_t dev)
{
	static uint8_t *buf[2];

	if (!buf[which])
		buf[which] = malloc(MAX_DEV);
	CHECK(buf[which] && dev <= MAX_DEV);
	CHECK(pread(mfd, buf[which], dev, 0) == (ssize_t)dev);
	return buf[which];
}

/* Output of dump --json from "used_blocks" on: counts, volumes, entries. */
static char *dump_tail(size_t *len)
{
	char *buf = NULL, *t, *r;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	CHECK(f);
	fc_check_fd(mfd, "fuzz", FC_OUT_DUMP, 1, f);
	fclose(f);
	t = strstr(buf, "\"used_blocks\":");
	*len = t ? n - (size_t)(t - buf) : 0;
	r = malloc(*len + 1);
	CHECK(r);
	memcpy(r, t ? t : "", *len);
	r[*len] = 0;
	free(buf);
	return r;
}

static void reseal(uint8_t *img, size_t len)
{
	size_t off;

	for (off = 0; off + FC_PAGE_SIZE <= len; off += FC_PAGE_SIZE) {
		struct fc_disk_header *h = (void *)(img + off);
		uint32_t magic = le32_to_cpu(h->magic);

		if (magic != FC_SB_MAGIC && magic != FC_VT_MAGIC && magic != FC_ME_MAGIC)
			continue;
		fc_page_seal_flags(h, magic, le64_to_cpu(h->blocknr), le64_to_cpu(h->seq),
				   h->uuid, le32_to_cpu(h->flags));
	}
}

static void repair(size_t dev)
{
	uint8_t *before = get_image(0, dev), *after;
	char *tail0, *tail1, *buf = NULL;
	size_t l0, l1, n = 0;
	FILE *f;
	int r;

	tail0 = dump_tail(&l0);
	r = fc_clear_needs_check_fd(mfd, "fuzz", 0, devnull);
	CHECK(r >= 0 && r <= 2);
	after = get_image(1, dev);
	if (r == 1)
		CHECK(!memcmp(before, after, dev));
	if (r == 0) {
		f = open_memstream(&buf, &n);
		CHECK(f);
		r = fc_check_fd(mfd, "fuzz", FC_OUT_CHECK, 1, f);
		fclose(f);
		if (r || !strstr(buf, "\"needs_check\":false,\"leftovers\":0,"))
			fprintf(stderr, "after the repair: %s\n", buf);
		CHECK(r == 0);
		CHECK(strstr(buf, "\"needs_check\":false,\"leftovers\":0,"));
		free(buf);
		tail1 = dump_tail(&l1);
		CHECK(l0 == l1 && !memcmp(tail0, tail1, l0));
		free(tail1);
	}
	free(tail0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct fc_disk_superblock *sb;
	uint8_t ctl, *img;
	size_t len, dev;
	int r;

	if (size < 1 || size > MAX_DEV)
		return 0;
	if (mfd < 0) {
		mfd = memfd_create("fuzz_check", 0);
		devnull = fopen("/dev/null", "w");
		CHECK(mfd >= 0 && devnull);
	}
	ctl = data[0];
	len = size - 1;
	img = malloc(len ? len : 1);
	CHECK(img);
	memcpy(img, data + 1, len);
	if (ctl & 1)
		reseal(img, len);
	dev = len;
	if ((ctl & 2) && len >= sizeof(*sb)) {
		sb = (const void *)img;
		if (le64_to_cpu(sb->flash_sectors) <= MAX_DEV / 512 &&
		    le64_to_cpu(sb->flash_sectors) * 512 > dev)
			dev = le64_to_cpu(sb->flash_sectors) * 512;
	}
	put_image(img, len, dev);
	if (ctl & 4) {
		repair(dev);
	} else {
		r = fc_check_fd(mfd, "fuzz", (ctl & 16) ? FC_OUT_DUMP : FC_OUT_CHECK,
				!!(ctl & 8), devnull);
		CHECK(r == 0 || r == 1);
	}
	free(img);
	return 0;
}
