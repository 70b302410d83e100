/* Unit tests of engine/fc_format.c: checksums, sealing, verification, geometry. */
#include "include/fcache_format.h"
#include "unit.h"
#include <stdlib.h>
#include <string.h>

static const __u8 uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void test_crc(void)
{
	CHECK("crc32c known vector", fc_crc32c("123456789", 9) == 0xe3069283u);
}

static void test_seal_verify(void)
{
	static __u8 page[FC_PAGE_SIZE], other[16] = { 9 };
	int i;

	CHECK("zero page detected", fc_page_verify(page, FC_ME_MAGIC, 5, uuid) == FC_ECHK_ZERO);
	for (i = 64; i < (int)FC_PAGE_SIZE; i++)
		page[i] = (__u8)i;
	fc_page_seal(page, FC_ME_MAGIC, 5, 42, uuid);
	CHECK("sealed page verifies", fc_page_verify(page, FC_ME_MAGIC, 5, uuid) == 0);
	CHECK("wrong location caught", fc_page_verify(page, FC_ME_MAGIC, 6, uuid) == FC_ECHK_BLOCKNR);
	CHECK("wrong type caught", fc_page_verify(page, FC_SB_MAGIC, 5, uuid) == FC_ECHK_MAGIC);
	CHECK("other pool caught", fc_page_verify(page, FC_ME_MAGIC, 5, other) == FC_ECHK_UUID);
	for (i = 4; i < (int)FC_PAGE_SIZE; i += 509) {
		page[i] ^= 0x10;
		if (fc_page_verify(page, FC_ME_MAGIC, 5, uuid) != FC_ECHK_CSUM &&
		    fc_page_verify(page, FC_ME_MAGIC, 5, uuid) != FC_ECHK_MAGIC) {
			CHECK("bit flip caught", 0);
			return;
		}
		page[i] ^= 0x10;
	}
	CHECK("bit flips anywhere caught", 1);
	CHECK("page restored verifies", fc_page_verify(page, FC_ME_MAGIC, 5, uuid) == 0);
}

/* mkswap's signature ends a page: a swap area, never a torn superblock */
static void test_swap_signature(void)
{
	static __u8 page[FC_PAGE_SIZE];

	CHECK("swap: zero page is not swap", !fc_page_is_swap(page));
	fc_page_seal(page, FC_SB_MAGIC, 0, 7, uuid);
	CHECK("swap: a sealed superblock is not swap", !fc_page_is_swap(page));
	memcpy(page + FC_PAGE_SIZE - 10, "SWAPSPACE2", 10);
	CHECK("swap: SWAPSPACE2 at the end found", fc_page_is_swap(page));
	CHECK("swap: the slot no longer verifies", fc_page_verify(page, FC_SB_MAGIC, 0, NULL) == FC_ECHK_CSUM);
	memcpy(page + FC_PAGE_SIZE - 10, "SWAP-SPACE", 10);
	CHECK("swap: the old SWAP-SPACE found", fc_page_is_swap(page));
	memcpy(page + FC_PAGE_SIZE - 10, "SWAPSPACE3", 10);
	CHECK("swap: another tail is not swap", !fc_page_is_swap(page));
	memset(page, 0, sizeof(page));
	memcpy(page + FC_PAGE_SIZE - 11, "SWAPSPACE2", 10);
	CHECK("swap: only at the very end", !fc_page_is_swap(page));
}

/* which slot mkswap made swap over a pool, if any */
static void test_swap_slot(void)
{
	static __u8 sb[2][FC_PAGE_SIZE];
	int e0, e1;

	fc_page_seal(sb[1], FC_SB_MAGIC, 1, 7, uuid);
	memcpy(sb[0] + FC_PAGE_SIZE - 10, "SWAPSPACE2", 10);
	e0 = fc_page_verify(sb[0], FC_SB_MAGIC, 0, NULL);
	e1 = fc_page_verify(sb[1], FC_SB_MAGIC, 1, NULL);
	CHECK("swap slot: slot 0 made swap, slot 1 valid", fc_sb_swap_slot(sb[0], sb[1], e0, e1) == 0);
	CHECK("swap slot: slot 0 unread is not looked at", fc_sb_swap_slot(NULL, sb[1], 1, e1) == -1);
	CHECK("swap slot: mirrored on slot 1", fc_sb_swap_slot(sb[1], sb[0], e1, e0) == 1);
	CHECK("swap slot: no valid slot, a plain swap area", fc_sb_swap_slot(sb[0], sb[0], e0, e0) == -1);
	memset(sb[0] + FC_PAGE_SIZE - 10, 0, 10);
	e0 = fc_page_verify(sb[0], FC_SB_MAGIC, 0, NULL);
	CHECK("swap slot: a torn slot 0 is not swap", fc_sb_swap_slot(sb[0], sb[1], e0, e1) == -1);
	CHECK("swap slot: two valid slots", fc_sb_swap_slot(sb[1], sb[1], 0, 0) == -1);
}

static void test_geometry(void)
{
	struct fc_geometry g;
	__u64 sizes[] = { 4096, 65536, 2097152, 123456789, 1ull << 31 };
	__u32 bs;
	unsigned int i;
	int ok = 1;

	CHECK("block size 12 refused", fc_geometry_compute(&g, 1 << 20, 12) == -EINVAL);
	CHECK("block size 4 refused", fc_geometry_compute(&g, 1 << 20, 4) == -EINVAL);
	CHECK("block size 4096 refused", fc_geometry_compute(&g, 1 << 20, 4096) == -EINVAL);
	CHECK("tiny flash refused", fc_geometry_compute(&g, 16, 8) == -EINVAL);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (bs = 8; bs <= 2048; bs *= 2) {
			if (fc_geometry_compute(&g, sizes[i], bs))
				continue;
			if (g.data_start % bs || g.data_start + g.nr_blocks * bs > sizes[i] ||
			    (g.md_pages - 1) * FC_ENTRIES_PER_PAGE < g.nr_blocks ||
			    (2 + 2 * g.md_pages) * FC_PAGE_SECTORS > g.data_start ||
			    g.nr_subblocks > FC_MAX_SUBBLOCKS || g.subblock_sectors < 8)
				ok = 0;
		}
	CHECK("geometry fits the device for every size", ok);
	fc_geometry_compute(&g, 2097152, 64);
	CHECK("32 KiB blocks have 4 KiB sub-blocks", g.subblock_sectors == 8 && g.nr_subblocks == 8);
}

static void test_masks(void)
{
	CHECK("mask whole block", fc_subblock_mask(0, 64, 8) == 0xff);
	CHECK("mask one sector", fc_subblock_mask(9, 1, 8) == 0x02);
	CHECK("mask 16 KiB at 16 KiB", fc_subblock_mask(32, 32, 8) == 0xf0);
	CHECK("partial none when aligned", fc_subblock_partial(32, 32, 8) == 0);
	CHECK("partial both ends", fc_subblock_partial(1, 14, 8) == 0x03);
	CHECK("partial single inner", fc_subblock_partial(17, 2, 8) == 0x04);
}

int main(void)
{
	test_crc();
	test_seal_verify();
	test_swap_signature();
	test_swap_slot();
	test_geometry();
	test_masks();
	return unit_failed;
}
