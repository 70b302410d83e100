#!/bin/sh
# dm-fcache mirrored pools: a leftover page on one leg only (issue 32,
# item 3; include/fcache_format.h "Leftovers", docs/DESIGN.md "Loading").
# A power cut in a commit can leave one page of seq S+1 on leg 1 only (its
# copy on leg 0 and both superblocks never landed).  The pair load reads
# leg 0's metadata; it must still see leg 1's leftover, take the next
# commit past its seq and rewrite that page on both legs, or leg 1's
# leftover looks committed from then on and is trusted when leg 1 is
# loaded alone.  The image (tests/host/ctl_mkimage.c --pair leftover-leg1)
# maps, in the leftover only, origin block 2000 of volume id 5 dirty to a
# block of leg 1 holding 0xa5 bytes; no origin holds them.
FC_T=fc_leftover
. "$FC_TOP/tests/guest/lib.sh"

MK=$FC_TOP/build/vm/ctl_mkimage
CTL=$FC_TOP/userspace/fcachectl
IMG=/tmp/fc_leftover
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
BLK=2000	# the leftover's origin block (32 KiB blocks)
mkdir -p $IMG

load_fcache || die "insmod failed" module-load
w0=$(mk_fast_disk 64) && w1=$(mk_fast_disk 64) && org=$(mk_fast_disk 64) || die "disks"
"$MK" $IMG/w0.img --mirror $IMG/w1.img --pair leftover-leg1 >/dev/null || die "ctl_mkimage"
dd if=$IMG/w0.img of="$w0" bs=1M oflag=direct 2>/dev/null &&
	dd if=$IMG/w1.img of="$w1" bs=1M oflag=direct 2>/dev/null || die "images"
rm -f $IMG/w0.img $IMG/w1.img
pattern_file $IMG/origin 65536 && dd if=$IMG/origin of="$org" bs=1M oflag=direct 2>/dev/null ||
	die "origin"
dd if=$IMG/origin of=$IMG/exp bs=32k skip=$BLK count=1 status=none

# blk_is NAME DEV: origin block $BLK read through DEV is the origin's data
blk_is() { marker_blk_is "$1" "$2" $BLK $IMG/exp "the leftover's stale page was trusted"; }

# ---- the pair: loads, counts the leftover, commits ----
check lo-leg1-checks "$CTL" check "$w1"
dmesg -C
check pair-loads fc_pool mp "$w0" 64 mirror "$w1" $OPTS
check pair-vol fc_vol mv mp "$org" 5 writeback sequential_cutoff 0
blk_is pair-reads-origin /dev/mapper/mv
# a write elsewhere, synced: at least one commit while both legs serve
check pair-write sh -c "dd if=$IMG/origin of=/dev/mapper/mv bs=32k count=1 seek=10 skip=10 oflag=direct conv=fsync status=none"
check pair-flush dmsetup message mp 0 flush
check pair-says-leftover sh -c "dmesg | grep -q 'leftover page slots on leg 1'"
check pair-remove-vol dm_remove mv
check pair-remove dm_remove mp

# ---- after the commits: the legs agree, leg 1 alone has no stale page ----
check pair-check-in-sync "$CTL" check "$w0" "$w1"
check leg1-check "$CTL" check "$w1"
check leg1-alone-loads fc_pool mp "$w1" 64 mirror - degraded 1 $OPTS
check leg1-alone-vol fc_vol mv mp "$org" 5 writeback sequential_cutoff 0
blk_is leg1-alone-reads-origin /dev/mapper/mv
check leg1-remove-vol dm_remove mv
check leg1-remove dm_remove mp

check rmmod unload_fcache
dmesg_clean
finish
