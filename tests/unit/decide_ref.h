/*
 * Reference model for test_decide.c: the classification of map_rw() in
 * kmod/fc_volume.c as it was before fc_decide.c (commit 78166c2, mirrored
 * pools' twins included; one pass, up to a fill, a wait or a remap),
 * rewritten over struct fc_facts with its side effects recorded instead of
 * done.  @ghost_ans, @alloc_ans and @twin_ans are the ghost table's, the
 * allocation's and fc_alloc_twin()'s answers; an allocated entry is empty,
 * idle and without a twin, as fc_alloc_entry() makes it.  test_decide.c
 * compares fc_decide() with it.
 *
 * Writes with read-only metadata were refused by map_bio() before the
 * decision until issue 32 (item 7); the rule that serves them since
 * (ro_write() in fc_decide.c, docs/DESIGN.md "Metadata modes") is written
 * here in the same style: the ro_* lines.
 */
#ifndef DECIDE_REF_H
#define DECIDE_REF_H

#include "engine/fc_decide.h"

struct ref_out {
	enum fc_action act;
	__u32 count;
	bool cut, fua, wait_stripe, release, in_place;
	__u8 mask, fb_mask, fill;
	int ghost_asked, alloc_asked, twin_asked;
};

#define RCNT(st) (o->count |= FC_STAT_BIT(st))

static enum fc_stat ref_wb_refusal(const struct fc_facts *f, const struct fc_efacts *e,
				   bool seq_bypass)
{
	if (f->mode != FC_MODE_WRITEBACK || !f->md_rw || f->no_new_dirty || f->nofill ||
	    !f->cacheable || f->one_copy)
		return FC_ST_WRITE_AROUND_OTHER;
	if (seq_bypass)
		return FC_ST_WRITE_AROUND_SEQ;
	if (!e && !fc_wb_admit_new(f->nr_dirty, f->nr_blocks, f->wb_high, f->urgent))
		return FC_ST_WRITE_AROUND_HIGH;
	return FC_ST_NR;
}

static void ref_map(const struct fc_facts *f, bool ghost_ans, bool alloc_ans, bool twin_ans,
		    struct ref_out *o)
{
	static const struct fc_efacts fresh = { .present = true };
	const struct fc_efacts *e = f->e.present ? &f->e : NULL;
	struct fc_efacts twinned;
	bool worker = f->worker, write = f->write, seq_bypass = false, admit, pending;
	__u32 bsz = f->block_sectors, sub = f->subblock_sectors, off = f->off, len = f->len;
	enum fc_stat around = FC_ST_NR;
	__u8 mask = 0, partial, fill = 0;

	memset(o, 0, sizeof(*o));
	if (!worker && len) {
		seq_bypass = f->seq;
		if (seq_bypass && f->sync && f->mode == FC_MODE_WRITEBACK) {
			seq_bypass = false;
			RCNT(FC_ST_WRITE_SYNC_KEPT);
		}
		if (write && f->fua)
			RCNT(FC_ST_FUA);
	}
	if (off + len > bsz) {
		if (!worker && (e || f->span_cached || (write && !f->md_rw && f->pending) ||
				(!seq_bypass && f->mode != FC_MODE_PASSTHROUGH &&
				 (!write || f->mode == FC_MODE_WRITEBACK ||
				  f->mode == FC_MODE_WRITETHROUGH)))) {
			o->cut = true;
			len = bsz - off;
		} else {
			if (seq_bypass && !worker)
				RCNT(FC_ST_BYPASSED);
			around = seq_bypass ? (write ? FC_ST_WRITE_AROUND_SEQ : FC_ST_READ_AROUND_SEQ) :
				(write ? FC_ST_WRITE_AROUND_OTHER : FC_ST_READ_AROUND_OTHER);
			goto origin_whole;
		}
	}
	if (!f->cacheable && !e) {
		around = write ? FC_ST_WRITE_AROUND_OTHER : FC_ST_READ_AROUND_OTHER;
		goto origin_whole;
	}
	mask = fc_subblock_mask(off, len, sub);
	partial = fc_subblock_partial(off, len, sub);
	if (e && e->busy)
		goto wait;
	if (!write) {
		if (!worker)
			RCNT(FC_ST_READS);
		if (e && (e->valid & mask) == mask) {
			if (!worker)
				RCNT(FC_ST_READ_HITS);
			o->act = FC_ACT_FLASH_READ;
			o->fb_mask = mask;
			return;
		}
		around = FC_ST_READ_AROUND_OTHER;
		if (f->nofill) {
			if (e && (e->dirty & mask))
				goto kill;
			goto to_origin;
		}
		if (e && (e->dirty & mask)) {
			fill = mask & ~e->valid;
			goto need_fill;
		}
		if (f->mode == FC_MODE_PASSTHROUGH || !f->md_rw || f->no_new_dirty ||
		    seq_bypass || !f->cacheable) {
			if (seq_bypass && !worker) {
				RCNT(FC_ST_BYPASSED);
				around = FC_ST_READ_AROUND_SEQ;
			}
			goto to_origin;
		}
		admit = e || worker || f->stream || (o->ghost_asked++, ghost_ans);
		if (!admit) {
			around = FC_ST_READ_AROUND_COLD;
			goto to_origin;
		}
		fill = mask & ~(e ? e->valid : 0);
		goto need_fill;
	}
	if (!worker)
		RCNT(FC_ST_WRITES);
	if (!f->md_rw) {
		/* ro_*: the origin, and in place the entry's block; never a commit */
		if (f->pending_here || (e && e->twin) || (e && f->nofill && (e->dirty & mask)))
			goto ro_refused;
		if (e && (e->inflight || e->wb))
			goto wait;
		o->mask = mask;
		if (!e || f->nofill) {
			RCNT(FC_ST_WRITE_AROUND_OTHER);
			o->act = FC_ACT_WRITE_AROUND;
			return;
		}
		if (!worker)
			RCNT(FC_ST_WRITE_HITS);
		o->act = FC_ACT_WT;
		o->in_place = true;
		o->fb_mask = mask;
		return;
	}
	around = ref_wb_refusal(f, e, seq_bypass);
	if ((e && (e->dirty & mask)) || around == FC_ST_NR) {
		/* outside writeback, dirty data being copied waits (disable) */
		if (e && (e->dirty & mask) && e->wb && f->mode != FC_MODE_WRITEBACK)
			goto wait;
		if (!e) {
			o->alloc_asked++;
			if (!alloc_ans) {
				around = FC_ST_WRITE_AROUND_BUSY;
				goto write_around;
			}
			e = &fresh;
			RCNT(FC_ST_WRITE_ALLOCS);
			if (fc_wb_above_high(f->nr_dirty, f->nr_blocks, f->wb_high))
				RCNT(FC_ST_WRITE_SYNC_HIGH);
		} else if (!worker) {
			RCNT(FC_ST_WRITE_HITS);
		}
		if (f->redundant) {
			/* fc_alloc_twin(): true at once if there is one */
			bool has = e->twin;

			if (!has) {
				o->twin_asked++;
				has = twin_ans;
				if (has) {
					twinned = *e;
					twinned.twin = true;
					e = &twinned;
				}
			}
			if (!has && !(e->dirty & mask)) {
				around = FC_ST_WRITE_AROUND_BUSY;
				goto write_around;
			}
		}
		fill = partial & ~e->valid;
		if (e->twin && !f->twin_filled)
			fill |= partial & ~e->dirty;
		if (fill) {
			if (f->nofill)
				goto kill;
			goto need_fill;
		}
		o->act = FC_ACT_FLASH_WRITE;
		o->fb_mask = mask;
		o->fua = f->fua;
		return;
	}
	/* a degraded mirrored pool writes new data through (one copy: not dirty) */
	if ((f->mode == FC_MODE_WRITETHROUGH || (f->mode == FC_MODE_WRITEBACK && f->one_copy)) &&
	    f->md_rw && !f->no_new_dirty && !seq_bypass &&
	    !f->nofill && f->cacheable && !(e && e->wb)) {
		if (e && e->inflight)
			goto wait;
		if (!e) {
			o->alloc_asked++;
			if (alloc_ans) {
				e = &fresh;
				RCNT(FC_ST_WRITE_ALLOCS);
			}
		} else if (!worker) {
			RCNT(FC_ST_WRITE_HITS);
		}
		if (e) {
			if (f->fua && (e->pdirty || f->pending))
				o->fua = true;
			o->fb_mask = (mask & ~partial) | (partial & e->valid);
			o->mask = mask;
			o->act = FC_ACT_WT;
			return;
		}
	}
	if (!worker && f->mode == FC_MODE_WRITEBACK)
		RCNT(FC_ST_BYPASSED);
write_around:
	if (e && e->inflight)
		goto wait;
	pending = f->pending;
	if (e) {
		if (f->fua && e->pdirty)
			o->fua = true;
		/* fc_entry_release() of a PDIRTY entry puts it on the pending list */
		if (!(e->valid & ~mask) && !e->wb && e->pdirty)
			pending = true;
	}
	if (f->fua && pending)
		o->fua = true;
	o->mask = mask;
	RCNT(around == FC_ST_NR ? FC_ST_WRITE_AROUND_BUSY : around);
	o->act = FC_ACT_WRITE_AROUND;
	return;

origin_whole:
	if (write) {
		if (!worker)
			RCNT(FC_ST_WRITES);
		/* ro_*: the worker cannot look across a span for pending blocks */
		if (!f->md_rw && (f->pending_here || (f->pending && off + len > bsz)))
			goto ro_refused;
		RCNT(around);
		if (f->fua && f->pending && f->md_rw)
			o->fua = true;
		o->act = FC_ACT_ORIGIN_WHOLE;
		return;
	}
	if (!worker)
		RCNT(FC_ST_READS);
	o->act = FC_ACT_ORIGIN_WHOLE;
	RCNT(around);
	return;
to_origin:
	RCNT(around == FC_ST_NR ? FC_ST_READ_AROUND_OTHER : around);
	o->act = FC_ACT_ORIGIN;
	return;
ro_refused:
	RCNT(FC_ST_WRITE_RO_REFUSED);
kill:
	RCNT(FC_ST_ERRORS);
	o->act = FC_ACT_KILL;
	return;
wait:
	o->act = FC_ACT_WAIT;
	return;
need_fill:
	o->fill = fill;
	if (!worker) {
		o->act = FC_ACT_DEFER;
		return;
	}
	if (f->ow_busy || (e && (e->inflight || e->wb))) {
		if (e && (e->dirty & mask)) {
			o->wait_stripe = true;
			goto wait;
		}
		if (write) {
			around = FC_ST_WRITE_AROUND_BUSY;
			goto write_around;
		}
		if (e && !e->valid && !e->inflight && !e->wb)
			o->release = true;
		goto to_origin;
	}
	if (!e) {
		o->alloc_asked++;
		if (!alloc_ans) {
			around = write ? FC_ST_WRITE_AROUND_BUSY : FC_ST_READ_AROUND_OTHER;
			if (write)
				goto write_around;
			goto to_origin;
		}
	}
	o->act = FC_ACT_FILL;
}

#endif
