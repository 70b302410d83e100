// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the on-flash format helpers of engine/fc_format.c.
 *
 * Input: a superblock (the first bytes of a 4 KiB page, the rest zero),
 * optionally followed by 8 bytes of device size and 12 bytes of sub-block
 * arguments.  Invariants checked:
 *   - fc_sb_check_geometry accepts only a superblock whose geometry is the
 *     one fc_geometry_compute derives, that fits the device, with known
 *     incompat bits and md_seq <= seq; the geometry it returns is sane
 *     (metadata before data, data inside the flash, enough entry pages);
 *   - fc_page_verify accepts a page sealed by fc_page_seal(_flags), then
 *     rejects it after any one byte changes (CRC32C detects it), and
 *     reports an all-zero page as never written;
 *   - fc_subblock_partial is a subset of fc_subblock_mask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../include/fcache_format.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_format: invariant failed at line %d: %s\n", __LINE__, #cond); \
		abort(); \
	} \
} while (0)

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static void geometry(const struct fc_disk_superblock *sb, uint64_t dev)
{
	struct fc_geometry g, want;
	const char *why = NULL;
	uint64_t flash = le64_to_cpu(sb->flash_sectors);

	if (fc_sb_check_geometry(sb, dev, &g, &why)) {
		CHECK(why && *why);
		return;
	}
	CHECK(!(le32_to_cpu(sb->incompat_features) & ~FC_FEAT_INCOMPAT_KNOWN));
	CHECK(fc_sb_md_seq(sb) <= le64_to_cpu(sb->hdr.seq));
	CHECK(!dev || dev >= flash);
	CHECK(!fc_geometry_compute(&want, flash, g.block_sectors));
	CHECK(g.block_sectors == want.block_sectors && g.subblock_sectors == want.subblock_sectors);
	CHECK(g.nr_subblocks == want.nr_subblocks && g.flash_sectors == want.flash_sectors);
	CHECK(g.nr_blocks == want.nr_blocks && g.md_pages == want.md_pages);
	CHECK(g.data_start == want.data_start);
	CHECK(g.block_sectors == le32_to_cpu(sb->block_sectors));
	CHECK(g.nr_blocks == le64_to_cpu(sb->nr_blocks) && g.nr_blocks >= 1);
	CHECK(g.md_pages == le64_to_cpu(sb->md_pages));
	CHECK(g.data_start == le64_to_cpu(sb->data_start));
	CHECK(g.block_sectors >= FC_MIN_BLOCK_SECTORS && g.block_sectors <= FC_MAX_BLOCK_SECTORS);
	CHECK(!(g.block_sectors & (g.block_sectors - 1)));
	CHECK(g.nr_subblocks >= 1 && g.nr_subblocks <= FC_MAX_SUBBLOCKS);
	CHECK(g.nr_subblocks * g.subblock_sectors == g.block_sectors);
	CHECK((g.md_pages - 1) * FC_ENTRIES_PER_PAGE >= g.nr_blocks);
	CHECK(g.data_start % g.block_sectors == 0);
	CHECK(g.data_start >= fc_md_page_nr(g.md_pages, 0) * FC_PAGE_SECTORS);
	CHECK(g.data_start + g.nr_blocks * g.block_sectors <= flash);
}

static void seal_verify(uint8_t *page, const struct fc_disk_superblock *sb, uint32_t pick)
{
	static const uint32_t magics[3] = { FC_SB_MAGIC, FC_VT_MAGIC, FC_ME_MAGIC };
	uint32_t magic = magics[pick % 3], other = magics[(pick % 3 + 1) % 3];
	uint64_t nr = le64_to_cpu(sb->hdr.blocknr), seq = le64_to_cpu(sb->hdr.seq);
	size_t off = pick % FC_PAGE_SIZE;
	uint8_t uuid[16];

	memcpy(uuid, sb->hdr.uuid, sizeof(uuid));
	fc_page_seal_flags(page, magic, nr, seq, uuid, le32_to_cpu(sb->hdr.flags));
	CHECK(fc_page_verify(page, magic, nr, uuid) == 0);
	CHECK(fc_page_verify(page, other, nr, NULL) < 0);
	CHECK(fc_page_verify(page, magic, nr + 1, NULL) == FC_ECHK_BLOCKNR);
	page[off] ^= (uint8_t)(1u << (pick % 8));
	CHECK(fc_page_verify(page, magic, nr, uuid) < 0);
	CHECK(strcmp(fc_echk_str(fc_page_verify(page, other, nr, NULL)), "ok"));
	if (pick & 1) {	/* without header flags, every 2nd input (CRC costs) */
		page[off] ^= (uint8_t)(1u << (pick % 8));
		fc_page_seal(page, magic, nr, seq, uuid);
		CHECK(((struct fc_disk_header *)page)->flags == 0);
		CHECK(fc_page_verify(page, magic, nr, uuid) == 0);
	}
	memset(page, 0, FC_PAGE_SIZE);
	CHECK(fc_page_is_zero(page));
	CHECK(fc_page_verify(page, magic, nr, NULL) == FC_ECHK_ZERO);
}

static void subblocks(uint32_t off, uint32_t len, uint32_t sub_shift)
{
	uint32_t sub = 8u << (sub_shift % 6);	/* 8 .. 256 sectors */
	uint32_t block = sub * FC_MAX_SUBBLOCKS;
	uint8_t m, p;

	off %= block;
	len %= block - off + 1;
	m = fc_subblock_mask(off, len, sub);
	p = fc_subblock_partial(off, len, sub);
	CHECK((p & ~m) == 0);
	CHECK(!len == !m);
	if (len && !(off % sub) && !((off + len) % sub))
		CHECK(p == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[FC_PAGE_SIZE] __attribute__((aligned(8)));
	struct fc_disk_superblock *sb = (void *)page;
	size_t n = size < sizeof(*sb) ? size : sizeof(*sb);
	const uint8_t *tail = data + n;
	size_t rest = size - n;
	uint64_t dev = 0;

	memset(page, 0, sizeof(page));
	memcpy(page, data, n);
	if (rest >= 8)
		dev = get64(tail);
	geometry(sb, dev);
	if (rest >= 20)
		subblocks(get32(tail + 8), get32(tail + 12), get32(tail + 16));
	seal_verify(page, sb, rest >= 24 ? get32(tail + 20) : (uint32_t)size);
	return 0;
}
