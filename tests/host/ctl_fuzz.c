// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_fuzz: run fcachectl's metadata checker (userspace/lib/fc_check.c) on many
 * randomly damaged copies of a pool image, in process, under ASan/UBSan.
 *
 *   ctl_fuzz IMAGE ITERATIONS SEED
 *
 * Each iteration flips 1..16 random bits in the metadata pages (superblock,
 * volume table, entry pages); in half of the iterations the damaged pages are
 * re-sealed with a correct checksum so the semantic checks (geometry,
 * bounds, overlaps, volume references) see the garbage too.  The checker
 * must return 0 or 1 and never crash; a sanitizer report aborts the run.
 * Prints "iterations N clean N damaged N".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../../include/fcache_format.h"
#include "../../userspace/lib/fc_check.h"

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	int in, mfd, it, n, i, rc, clean = 0, damaged = 0;
	enum fc_check_outcome oc;
	uint8_t *img, *work;
	size_t len, md_bytes;
	FILE *devnull;
	struct fc_disk_superblock *sb;

	if (argc != 4) {
		fprintf(stderr, "usage: ctl_fuzz IMAGE ITERATIONS SEED\n");
		return 2;
	}
	n = atoi(argv[2]);
	rng = strtoull(argv[3], NULL, 0) | 1;
	in = open(argv[1], O_RDONLY);
	if (in < 0) {
		perror(argv[1]);
		return 2;
	}
	len = (size_t)lseek(in, 0, SEEK_END);
	img = malloc(len);
	work = malloc(len);
	if (!img || !work || pread(in, img, len, 0) != (ssize_t)len) {
		perror("read");
		return 2;
	}
	close(in);
	sb = (struct fc_disk_superblock *)img;
	md_bytes = (size_t)le64_to_cpu(sb->data_start) * 512;
	if (!md_bytes || md_bytes > len)
		md_bytes = len < (1u << 20) ? len : (1u << 20);
	mfd = memfd_create("fcimg", 0);
	devnull = fopen("/dev/null", "w");
	if (mfd < 0 || !devnull || pwrite(mfd, img, len, 0) != (ssize_t)len) {
		perror("memfd");
		return 2;
	}
	memcpy(work, img, len);
	for (it = 0; it < n; it++) {
		int flips = 1 + (int)(rnd() % 16), reseal = (int)(rnd() & 1);
		uint64_t touched[16];

		for (i = 0; i < flips; i++) {
			size_t off = (size_t)(rnd() % md_bytes);

			/* bias towards headers and the first entries of a page */
			if (rnd() % 3 == 0)
				off = off / FC_PAGE_SIZE * FC_PAGE_SIZE + rnd() % 256;
			work[off] ^= (uint8_t)(1u << (rnd() % 8));
			touched[i] = off / FC_PAGE_SIZE;
		}
		for (i = 0; reseal && i < flips; i++) {
			uint8_t *p = work + touched[i] * FC_PAGE_SIZE;
			struct fc_disk_header *h = (void *)p;

			fc_page_seal(p, le32_to_cpu(h->magic), le64_to_cpu(h->blocknr),
				     le64_to_cpu(h->seq), h->uuid);
		}
		for (i = 0; i < flips; i++)
			if (pwrite(mfd, work + touched[i] * FC_PAGE_SIZE, FC_PAGE_SIZE,
				   (off_t)(touched[i] * FC_PAGE_SIZE)) != FC_PAGE_SIZE)
				return 2;
		rc = fc_check_fd_outcome(mfd, "fuzz", (it & 1) ? FC_OUT_DUMP : FC_OUT_CHECK,
					 (it >> 1) & 1, devnull, &oc);
		if (rc != 0 && rc != 1) {
			fprintf(stderr, "iteration %d: checker returned %d\n", it, rc);
			return 1;
		}
		/* exit 0 exactly for the consistent outcomes */
		if (rc != (oc == FC_CHECK_DAMAGED || oc == FC_CHECK_NOT_A_POOL)) {
			fprintf(stderr, "iteration %d: checker returned %d with outcome %s\n", it, rc,
				fc_check_outcome_str(oc));
			return 1;
		}
		if (rc)
			damaged++;
		else
			clean++;
		/* restore */
		for (i = 0; i < flips; i++) {
			size_t o = (size_t)touched[i] * FC_PAGE_SIZE;

			memcpy(work + o, img + o, FC_PAGE_SIZE);
			if (pwrite(mfd, img + o, FC_PAGE_SIZE, (off_t)o) != FC_PAGE_SIZE)
				return 2;
		}
	}
	printf("iterations %d clean %d damaged %d\n", n, clean, damaged);
	fflush(stdout);
	free(img);
	free(work);
	fclose(devnull);
	close(mfd);
	return 0;
}
