// SPDX-License-Identifier: GPL-2.0
/*
 * fcache on-flash format helpers: geometry, checksums, page sealing and
 * verification.  Pure logic shared by dm-fcache and fcachectl (see
 * include/fcache_env.h); no I/O, no allocation.
 */
#include "../include/fcache_format.h"

#ifdef __KERNEL__
__u32 fc_crc32c_update(__u32 crc, const void *buf, size_t len)
{
	return ~crc32c(~crc, buf, len);
}
#else
static __u32 crc_table[256];

static void crc_init(void)
{
	__u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

__u32 fc_crc32c_update(__u32 crc, const void *buf, size_t len)
{
	const __u8 *p = buf;
	__u32 c = ~crc;

	if (!crc_table[1])
		crc_init();
	while (len--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}
#endif

__u32 fc_crc32c(const void *buf, size_t len)
{
	return fc_crc32c_update(0, buf, len);
}

static __u32 csum_salt(__u32 magic)
{
	switch (magic) {
	case FC_SB_MAGIC:
		return FC_SB_CSUM_XOR;
	case FC_VT_MAGIC:
		return FC_VT_CSUM_XOR;
	case FC_LS_MAGIC:
		return FC_LS_CSUM_XOR;
	case FC_LR_MAGIC:
		return FC_LR_CSUM_XOR;
	default:
		return FC_ME_CSUM_XOR;
	}
}

static __u32 page_csum(const void *page, __u32 magic)
{
	return fc_crc32c((const __u8 *)page + 4, FC_PAGE_SIZE - 4) ^ csum_salt(magic);
}

void fc_page_seal(void *page, __u32 magic, __u64 blocknr, __u64 seq, const __u8 uuid[16])
{
	fc_page_seal_flags(page, magic, blocknr, seq, uuid, 0);
}

void fc_page_seal_flags(void *page, __u32 magic, __u64 blocknr, __u64 seq,
			const __u8 uuid[16], __u32 hdr_flags)
{
	fc_page_seal_version(page, magic, FC_FORMAT_VERSION, blocknr, seq, uuid, hdr_flags);
}

void fc_page_seal_version(void *page, __u32 magic, __u32 version, __u64 blocknr, __u64 seq,
			  const __u8 uuid[16], __u32 hdr_flags)
{
	struct fc_disk_header *h = page;

	h->magic = cpu_to_le32(magic);
	h->version = cpu_to_le32(version);
	h->flags = cpu_to_le32(hdr_flags);
	h->blocknr = cpu_to_le64(blocknr);
	h->seq = cpu_to_le64(seq);
	if (uuid != h->uuid)
		memcpy(h->uuid, uuid, sizeof(h->uuid));
	memset(h->pad, 0, sizeof(h->pad));
	h->csum = cpu_to_le32(page_csum(page, magic));
}

bool fc_page_is_zero(const void *page)
{
	const __u64 *p = page;
	size_t i;

	for (i = 0; i < FC_PAGE_SIZE / sizeof(*p); i++)
		if (p[i])
			return false;
	return true;
}

bool fc_page_is_swap(const void *page)
{
	const char *sig = (const char *)page + FC_PAGE_SIZE - 10;

	return !memcmp(sig, "SWAPSPACE2", 10) || !memcmp(sig, "SWAP-SPACE", 10);
}

int fc_sb_swap_slot(const void *sb0, const void *sb1, int err0, int err1)
{
	if (err0 < 0 && !err1 && fc_page_is_swap(sb0))
		return 0;
	if (err1 < 0 && !err0 && fc_page_is_swap(sb1))
		return 1;
	return -1;
}

int fc_page_verify(const void *page, __u32 magic, __u64 blocknr, const __u8 *uuid)
{
	return fc_page_verify_version(page, magic, FC_FORMAT_VERSION, blocknr, uuid);
}

int fc_page_verify_version(const void *page, __u32 magic, __u32 version, __u64 blocknr,
			   const __u8 *uuid)
{
	const struct fc_disk_header *h = page;

	if (le32_to_cpu(h->magic) != magic)
		return fc_page_is_zero(page) ? FC_ECHK_ZERO : FC_ECHK_MAGIC;
	if (le32_to_cpu(h->csum) != page_csum(page, magic))
		return FC_ECHK_CSUM;
	if (le32_to_cpu(h->version) != version)
		return FC_ECHK_VERSION;
	if (le64_to_cpu(h->blocknr) != blocknr)
		return FC_ECHK_BLOCKNR;
	if (uuid && memcmp(h->uuid, uuid, sizeof(h->uuid)))
		return FC_ECHK_UUID;
	return 0;
}

const char *fc_echk_str(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case FC_ECHK_MAGIC:
		return "bad magic";
	case FC_ECHK_VERSION:
		return "unsupported format version";
	case FC_ECHK_CSUM:
		return "checksum mismatch";
	case FC_ECHK_BLOCKNR:
		return "page written at the wrong location";
	case FC_ECHK_UUID:
		return "page belongs to another pool";
	case FC_ECHK_ZERO:
		return "page never written";
	default:
		return "unknown error";
	}
}

static bool is_pow2(__u64 x)
{
	return x && !(x & (x - 1));
}

int fc_geometry_compute(struct fc_geometry *g, __u64 flash_sectors, __u32 block_sectors)
{
	__u64 nr, md_pages, data_start;
	__u32 sub;

	if (!is_pow2(block_sectors) || block_sectors < FC_MIN_BLOCK_SECTORS ||
	    block_sectors > FC_MAX_BLOCK_SECTORS)
		return -EINVAL;
	sub = block_sectors / FC_MAX_SUBBLOCKS;
	if (sub < FC_MIN_SUBBLOCK_SECTORS)
		sub = FC_MIN_SUBBLOCK_SECTORS;

	/*
	 * Start from the largest possible block count and shrink until the
	 * metadata (two slots per page) and the data area fit.
	 */
	nr = flash_sectors / block_sectors;
	for (;;) {
		if (!nr)
			return -EINVAL;
		md_pages = 1 + (nr + FC_ENTRIES_PER_PAGE - 1) / FC_ENTRIES_PER_PAGE;
		data_start = (2 + 2 * md_pages) * FC_PAGE_SECTORS;
		data_start = (data_start + block_sectors - 1) / block_sectors * block_sectors;
		if (data_start + nr * block_sectors <= flash_sectors)
			break;
		nr = (flash_sectors > data_start) ? (flash_sectors - data_start) / block_sectors : 0;
	}
	g->block_sectors = block_sectors;
	g->subblock_sectors = sub;
	g->nr_subblocks = block_sectors / sub;
	g->flash_sectors = flash_sectors;
	g->nr_blocks = nr;
	g->md_pages = md_pages;
	g->data_start = data_start;
	g->nr_legs = 1;
	g->leg_blocks[0] = nr;
	g->leg_blocks[1] = 0;
	g->leg_sectors[0] = flash_sectors;
	g->leg_sectors[1] = 0;
	return 0;
}

/* Blocks of a leg of @sectors after a metadata area ending at @data_start. */
static __u64 leg_fit(__u64 sectors, __u64 data_start, __u32 block_sectors)
{
	return sectors > data_start ? (sectors - data_start) / block_sectors : 0;
}

int fc_geometry_compute_legs(struct fc_geometry *g, const __u64 *leg_sectors,
			     unsigned int nr_legs, __u32 block_sectors)
{
	__u64 nr[FC_MAX_LEGS], md_pages, data_start;
	unsigned int i;

	if (nr_legs == 1)
		return fc_geometry_compute(g, leg_sectors[0], block_sectors);
	if (nr_legs != 2 || fc_geometry_compute(g, leg_sectors[0], block_sectors))
		return -EINVAL;
	/*
	 * Each leg holds the whole metadata (both legs' entries): start from
	 * every sector being data and shrink until both legs fit.
	 */
	for (i = 0; i < 2; i++)
		nr[i] = leg_sectors[i] / block_sectors;
	for (;;) {
		if (!nr[0] || !nr[1])
			return -EINVAL;
		md_pages = 1 + (nr[0] + nr[1] + FC_ENTRIES_PER_PAGE - 1) / FC_ENTRIES_PER_PAGE;
		data_start = (2 + 2 * md_pages) * FC_PAGE_SECTORS;
		data_start = (data_start + block_sectors - 1) / block_sectors * block_sectors;
		if (data_start + nr[0] * block_sectors <= leg_sectors[0] &&
		    data_start + nr[1] * block_sectors <= leg_sectors[1])
			break;
		for (i = 0; i < 2; i++)
			nr[i] = leg_fit(leg_sectors[i], data_start, block_sectors);
	}
	/* Entry indexes, twins included, must fit the u32 in-core links. */
	if (nr[0] + nr[1] >= 0xffffffffull)
		return -EINVAL;
	g->nr_blocks = nr[0] + nr[1];
	g->md_pages = md_pages;
	g->data_start = data_start;
	g->nr_legs = 2;
	for (i = 0; i < 2; i++) {
		g->leg_blocks[i] = nr[i];
		g->leg_sectors[i] = leg_sectors[i];
	}
	return 0;
}

_Static_assert(sizeof(struct fc_disk_superblock) <= FC_SB_LIST_OFFSET,
	       "the superblock's page list overlaps its fields");

static const __le32 *sb_list(const struct fc_disk_superblock *sb)
{
	return (const __le32 *)((const __u8 *)sb + FC_SB_LIST_OFFSET);
}

__u32 fc_sb_list_len(const struct fc_disk_superblock *sb)
{
	if (!(le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_PAGELIST))
		return 0;
	return le32_to_cpu(sb->list_pages);
}

__u64 fc_sb_list_page(const struct fc_disk_superblock *sb, __u32 i)
{
	return le32_to_cpu(sb_list(sb)[i]);
}

void fc_sb_set_list(struct fc_disk_superblock *sb, const __u64 *pg, unsigned int n)
{
	__le32 *list = (__le32 *)((__u8 *)sb + FC_SB_LIST_OFFSET);
	unsigned int i;

	for (i = 0; i < n; i++)
		list[i] = cpu_to_le32((__u32)pg[i]);
	sb->list_pages = cpu_to_le32(n);
}

/* At most FC_SB_LIST_MAX pages, strictly ascending, each a metadata page. */
static bool list_ok(const struct fc_disk_superblock *sb, __u64 md_pages)
{
	__u32 i, n = fc_sb_list_len(sb);

	if (n > FC_SB_LIST_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (fc_sb_list_page(sb, i) >= md_pages ||
		    (i && fc_sb_list_page(sb, i) <= fc_sb_list_page(sb, i - 1)))
			return false;
	return true;
}

bool fc_sb_page_landed(const struct fc_disk_superblock *sb, __u64 l, const void *s0,
		       const void *s1)
{
	const void *p[2] = { s0, s1 };
	unsigned int s;

	for (s = 0; s < 2; s++) {
		const struct fc_disk_header *h = p[s];

		if (!fc_page_verify(h, l ? FC_ME_MAGIC : FC_VT_MAGIC, fc_md_page_nr(l, s),
				    sb->hdr.uuid) &&
		    le64_to_cpu(h->seq) == le64_to_cpu(sb->hdr.seq) &&
		    !(le32_to_cpu(h->flags) & FC_HDR_NEEDS_CHECK))
			return true;
	}
	return false;
}

int fc_sb_check_geometry(const struct fc_disk_superblock *sb, __u64 dev_sectors,
			 struct fc_geometry *g, const char **why)
{
	struct fc_geometry want;
	__u64 flash = le64_to_cpu(sb->flash_sectors), legs[FC_MAX_LEGS];
	__u32 incompat = le32_to_cpu(sb->incompat_features);
	unsigned int nr_legs = 1, me = 0;

	if (incompat & ~FC_FEAT_INCOMPAT_KNOWN) {
		*why = "superblock uses features this version does not know";
		return -EINVAL;
	}
	legs[0] = flash;
	if (incompat & FC_FEAT_INCOMPAT_MIRROR) {
		nr_legs = 2;
		me = le32_to_cpu(sb->member_index);
		legs[0] = le64_to_cpu(sb->leg_sectors[0]);
		legs[1] = le64_to_cpu(sb->leg_sectors[1]);
		if (me > 1 || legs[me] != flash ||
		    le64_to_cpu(sb->leg_blocks[0]) + le64_to_cpu(sb->leg_blocks[1]) !=
		    le64_to_cpu(sb->nr_blocks)) {
			*why = "superblock mirror fields disagree with each other";
			return -EINVAL;
		}
	}
	if (fc_geometry_compute_legs(&want, legs, nr_legs, le32_to_cpu(sb->block_sectors))) {
		*why = "superblock block size or flash size is invalid";
		return -EINVAL;
	}
	if (nr_legs == 2 && (want.leg_blocks[0] != le64_to_cpu(sb->leg_blocks[0]) ||
			     want.leg_blocks[1] != le64_to_cpu(sb->leg_blocks[1]))) {
		*why = "superblock mirror fields disagree with each other";
		return -EINVAL;
	}
	if (want.subblock_sectors != le32_to_cpu(sb->subblock_sectors) ||
	    want.nr_blocks != le64_to_cpu(sb->nr_blocks) ||
	    want.md_pages != le64_to_cpu(sb->md_pages) ||
	    want.data_start != le64_to_cpu(sb->data_start) ||
	    le32_to_cpu(sb->entries_per_page) != FC_ENTRIES_PER_PAGE ||
	    le32_to_cpu(sb->max_volumes) != FC_MAX_VOLUMES) {
		*why = "superblock geometry fields disagree with each other";
		return -EINVAL;
	}
	if (fc_sb_md_seq(sb) > le64_to_cpu(sb->hdr.seq)) {
		*why = "superblock md_seq is above its seq";
		return -EINVAL;
	}
	if (!list_ok(sb, want.md_pages)) {
		*why = "superblock page list is invalid (too long, out of order or past the metadata)";
		return -EINVAL;
	}
	if (dev_sectors && dev_sectors < flash) {
		*why = "flash device is smaller than when the pool was formatted";
		return -EINVAL;
	}
	*g = want;
	return 0;
}

__u64 fc_sb_md_seq(const struct fc_disk_superblock *sb)
{
	if (le32_to_cpu(sb->incompat_features) & FC_FEAT_INCOMPAT_MDSEQ)
		return le64_to_cpu(sb->md_seq);
	return le64_to_cpu(sb->hdr.seq);
}

__u8 fc_subblock_mask(__u32 off, __u32 len, __u32 subblock_sectors)
{
	__u32 first, last;

	if (!len)
		return 0;
	first = off / subblock_sectors;
	last = (off + len - 1) / subblock_sectors;
	return (__u8)(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
}

__u8 fc_subblock_partial(__u32 off, __u32 len, __u32 subblock_sectors)
{
	__u8 m = 0;
	__u32 end = off + len;

	if (!len)
		return 0;
	if (off % subblock_sectors)
		m |= 1u << (off / subblock_sectors);
	if (end % subblock_sectors)
		m |= 1u << ((end - 1) / subblock_sectors);
	return m;
}

