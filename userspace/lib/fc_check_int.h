/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the offline metadata checker (fc_check.h is its interface).  Its
 * files, all free of device-mapper so that the fuzzer and the crash tools
 * link them alone (with fc_dev.c, fc_json.c and engine/fc_format.c):
 *
 *   fc_check.c         reading the metadata recovery would use (superblock
 *                      and page slots chosen by the rules of
 *                      include/fcache_format.h) and every consistency test
 *   fc_check_report.c  the report of check and dump (text or JSON), the
 *                      outcome, the fc_check_fd() and fc_repair_fd() calls
 *   fc_check_repair.c  check --repair: zero the leftovers, write a clean
 *                      superblock
 *   fc_check_flash.c   what the verbs ask about a flash: is it a pool, its
 *                      volume table, volumes, dirty blocks of a volume
 */
#ifndef FC_CHECK_INT_H
#define FC_CHECK_INT_H

#include <stdint.h>
#include <stdio.h>
#include "fcache_format.h"
#include "fc_check.h"

struct fc_json;

#define MAX_MSGS 200	/* problems kept for printing; all are counted */
#define MAX_PER_KIND 10

struct problem {
	int error;		/* 1 error, 0 warning */
	char kind[24];
	char msg[200];
};

struct volinfo {
	uint64_t cached, dirty_blocks, dirty_sub;
};

struct emap {
	uint64_t oblock;
	uint32_t idx;
	uint8_t vol;
};

/* A dirty entry of a mirrored pool and its twin, checked after the walk. */
struct twin_note {
	uint32_t idx;
	uint32_t twin;
};

/*
 * A page slot noted once however often it is read: a leftover (a valid
 * slot above md_seq, with its seq and header flags), or an unusable copy
 * of a page whose other copy is used.
 */
struct slot_note {
	uint64_t page;		/* logical page */
	uint64_t seq;
	uint32_t hdr_flags;
	int slot;
};

struct slot_list {
	struct slot_note *v;
	size_t n, cap;
};

struct ctx {
	int fd;
	const char *name;
	uint64_t dev_sectors;
	uint64_t dev_bytes;	/* its size (0 with size_known 0: unknown) */
	int size_known;
	int errors, warnings;
	struct problem msgs[MAX_MSGS];
	int nmsgs;
	/* superblock */
	int sb_slot;
	int sb_err[2];
	uint64_t sb_seq[2];
	union {	/* the whole page: FC_FEAT_INCOMPAT_PAGELIST's list lies past the struct */
		struct fc_disk_superblock sb;
		uint8_t sb_page[FC_PAGE_SIZE];
	};
	struct fc_geometry g;
	uint64_t S, M;
	uint64_t max_seq;	/* highest seq of any valid slot, superblock or page */
	struct slot_list lo;	/* leftovers (valid page slots above M) */
	int lo_needs_check;	/* a leftover carries FC_HDR_NEEDS_CHECK */
	struct slot_list st;	/* unusable copies next to a used one */
	int sb_other_bad;	/* the superblock slot not in use is unusable or foreign */
	int stale_seen;		/* a page copy next to the used one is unusable */
	int not_a_pool;		/* no fcache magic anywhere it would be */
	/* volume table */
	int vt_ok;
	int vt_slot;
	struct fc_disk_voltable vt;
	struct volinfo vi[FC_VT_SLOTS];
	/* entries */
	struct emap *map;
	uint64_t nmap;
	uint64_t used, dirty, lost_pages;
	void *page;
	/* mirrored pool (FC_FEAT_INCOMPAT_MIRROR): twins, entries in use */
	int mirrored;
	int ordered;		/* FC_FEAT_INCOMPAT_ORDERED: epochs, shadows */
	uint64_t shadows;	/* older versions (ordered write-back) */
	struct twin_note *twins;
	uint64_t ntwins;
	uint8_t *usedmap;	/* a bit per cache block: its entry is in use */
	uint64_t mirrored_dirty, lone_dirty;
};

struct repair {
	int done;
	int had_needs_check;
	size_t zeroed;		/* leftover slots */
	size_t zeroed_stale;	/* unusable copies next to used ones */
	uint64_t seq;
	int slot;
	char failed[160];	/* set when a write failed */
};

typedef void (*entry_fn)(struct ctx *c, uint64_t idx, const struct fc_disk_entry *e, void *arg);

/* fc_check.c */
/* A checking context for @fd named @name (device size known, page buffer); NULL. */
struct ctx *chk_open(int fd, const char *name);
void chk_close(struct ctx *c);
/* Record a problem: counted always, kept for the report up to a limit per kind. */
void chk_problem(struct ctx *c, int error, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int chk_read_page(struct ctx *c, uint64_t nr, void *buf);
/* The superblock recovery would use: 0, or -1 (a problem says why). */
int chk_read_superblock(struct ctx *c);
/* The volume table recovery would use, checked (c->vt_ok: it could be read). */
void chk_voltable(struct ctx *c);
int chk_vol_in_use(struct ctx *c, unsigned int slot);
/* Walk the chosen entry pages; calls @fn for each entry of a usable page. */
void chk_walk_entries(struct ctx *c, entry_fn fn, void *arg, int report);
/* Everything: superblock, volume table, entries, overlaps; 0 if no superblock. */
int chk_all(struct ctx *c);
/* The label of volume slot @v, printable, into @out (FC_VOLUME_LABEL_LEN + 1). */
void chk_label(char *out, const struct fc_disk_volume *v);

/* fc_check_report.c: a check's outcome, its report (also of one leg of a pair) */
enum fc_check_outcome chk_outcome(const struct ctx *c);
/* The members of a check or dump document after "schema" (@ok_sb: chk_all()'s result). */
void chk_report_json(struct ctx *c, int ok_sb, enum fc_check_out what, struct fc_json *j);
void chk_report_text(struct ctx *c, int ok_sb, enum fc_check_out what, FILE *out);

/* fc_check_repair.c */
/* Zero the leftovers and write the new superblock: 0, or -1 (r->failed says why). */
int chk_repair(struct ctx *c, struct repair *r);
void chk_repair_json(struct ctx *c, struct repair *r, struct fc_json *j);
void chk_repair_text(struct ctx *c, struct repair *r, FILE *out);

#endif
