#!/bin/sh
# dm-fcache: one-write commits (include/fcache_format.h "One-write commits",
# issue 33 item 3).  With one flash device in service, a commit that fits
# one batch writes its pages and the superblock naming them at once; that
# superblock counts only if every page it names landed.
#  1. A cut commit (tests/host/ctl_mkimage.c --damage cut-commit): the
#     superblock of commit S+1 and one of its two pages landed (that page
#     maps origin block 2000 of volume id 5 dirty to a cache block of 0xa5
#     bytes), the volume table's copy did not.  The load must use commit S
#     (the kernel log says so), serve the origin's data for that block, and
#     the first commit must move past the cut one (fcachectl check clean
#     afterwards, no leftover).  With the superblock before it damaged too,
#     the pool is refused with a clear error.
#  2. A live pool: a synced write is recorded by a superblock naming its
#     pages (fcachectl check --json: commit_pages > 0); the data survives a
#     power cut (the flash copied after the sync, loaded alone), byte for
#     byte; a mirrored pool with both legs in service keeps the two-step
#     commit (commit_pages 0).
#  3. A commit larger than one batch (4 KiB blocks, 320 MiB of flash, 270
#     MiB written with no flush in between: one commit of more than 256
#     metadata pages) keeps the two-step order: its superblock names no
#     page, and after a power cut (the flash copied after the sync, loaded
#     alone) every block reads back byte for byte.
FC_T=fc_onewrite
. "$FC_TOP/tests/guest/lib.sh"

MK=$FC_TOP/build/vm/ctl_mkimage
CTL=$FC_TOP/userspace/fcachectl
IMG=/tmp/fc_onewrite
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
BLK=2000	# the cut commit's origin block (32 KiB blocks)
mkdir -p $IMG

load_fcache || die "insmod failed" module-load
fl=$(mk_fast_disk 64) && org=$(mk_fast_disk 64) && fl2=$(mk_fast_disk 64) &&
	fl3=$(mk_fast_disk 64) || die "disks"
pattern_file $IMG/origin 65536 && dd if=$IMG/origin of="$org" bs=1M oflag=direct 2>/dev/null ||
	die "origin"
dd if=$IMG/origin of=$IMG/exp bs=32k skip=$BLK count=1 status=none

# blk_is NAME DEV: origin block $BLK read through DEV is the origin's data
blk_is() { marker_blk_is "$1" "$2" $BLK $IMG/exp "the cut commit's unproven superblock was trusted"; }

# sb_json DEV KEY: a field of fcachectl check --json's superblock
sb_json() {
	"$CTL" check --json "$1" 2>/dev/null |
		python3 -c "import json, sys; print(json.load(sys.stdin)['superblock']['$2'])"
}

# ---- 1. the cut commit -------------------------------------------------------
"$MK" $IMG/cut.img --damage cut-commit >$IMG/truth || die "ctl_mkimage"
seq=$(awk '$1 == "seq" { print $2 }' $IMG/truth)
dd if=$IMG/cut.img of="$fl" bs=1M oflag=direct 2>/dev/null || die "image"
check cut-check-exits-0 "$CTL" check "$fl"
dmesg -C
check cut-loads fc_pool p "$fl" 64 $OPTS
check cut-says-so sh -c "dmesg | grep -q 'the last commit (seq $((seq + 1))) did not complete: its superblock landed before metadata page 0; loading the commit before it (seq $seq)'"
check cut-vol fc_vol v p "$org" 5 writeback sequential_cutoff 0
blk_is cut-reads-origin /dev/mapper/v
# a write elsewhere, synced: the first commit rewrites the leftover and
# moves past the cut commit's seq
check cut-write sh -c "dd if=$IMG/origin of=/dev/mapper/v bs=32k count=1 seek=10 skip=10 oflag=direct conv=fsync status=none"
check cut-flush dmsetup message p 0 flush
check cut-remove-vol dm_remove v
check cut-remove dm_remove p
if "$CTL" check --json "$fl" >$IMG/after.json 2>&1 && python3 - $IMG/after.json "$seq" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seq = int(sys.argv[2])
sb = d["superblock"]
assert d["outcome"] == "clean" and d["warnings"] == 0 and d["leftovers"] == 0, d["problems"]
assert sb["seq"] > seq + 1, sb
PY
then pass "cut-after-commit-clean"
else fail "cut-after-commit-clean" "$(head -c 400 $IMG/after.json)"; fi
check cut-reload fc_pool p "$fl" 64 $OPTS
check cut-reload-vol fc_vol v p "$org" 5 writeback sequential_cutoff 0
blk_is cut-reload-reads-origin /dev/mapper/v
check cut-reload-remove-vol dm_remove v
check cut-reload-remove dm_remove p

"$MK" $IMG/cut.img --damage cut-commit-bad >/dev/null || die "ctl_mkimage"
dd if=$IMG/cut.img of="$fl" bs=1M oflag=direct 2>/dev/null || die "image"
rm -f $IMG/cut.img
check_fails cut-bad-refused fc_pool p "$fl" 64 $OPTS
check cut-bad-error-says-why sh -c "dmesg | grep -q 'the last commit did not complete and the superblock before it is not usable'"
dmsetup remove p 2>/dev/null

# ---- 2. a live pool ----------------------------------------------------------
dd if=/dev/zero of="$fl" bs=1M count=1 oflag=direct 2>/dev/null
check live-pool fc_pool p "$fl" 64 $OPTS
check live-vol fc_vol v p "$org" 5 writeback sequential_cutoff 0
# 64 blocks of new data spread over the volume, synced
head -c $((64 * 32768)) /dev/urandom >$IMG/new
i=0
while [ $i -lt 64 ]; do
	dd if=$IMG/new of=/dev/mapper/v bs=32k skip=$i seek=$((i * 29 + 3)) count=1 \
		oflag=direct status=none || break
	i=$((i + 1))
done
check live-sync sh -c "sync /dev/mapper/v && blockdev --flushbufs /dev/mapper/v"
# a power cut after the sync: the flash as it is now, copied while the
# pool is live and idle (no writeback), loaded on its own after the
# live pool is gone
check live-copy dd if="$fl" of="$fl3" bs=1M iflag=direct oflag=direct status=none
check live-remove-vol dm_remove v
check live-remove dm_remove p
n=$(sb_json "$fl3" commit_pages)
if [ "${n:-0}" -gt 0 ] 2>/dev/null; then
	pass "live-one-write (the current superblock names $n pages)"
else
	fail "live-one-write" "the current superblock names ${n:-?} pages: the commit took two round trips"
fi
check live-check "$CTL" check "$fl3"
check live-reload fc_pool p "$fl3" 64 $OPTS
check live-reload-vol fc_vol v p "$org" 5 writeback sequential_cutoff 0
i=0 bad=0
while [ $i -lt 64 ]; do
	dd if=/dev/mapper/v bs=32k skip=$((i * 29 + 3)) count=1 iflag=direct status=none >$IMG/got
	dd if=$IMG/new bs=32k skip=$i count=1 status=none | cmp -s - $IMG/got || bad=$((bad + 1))
	i=$((i + 1))
done
[ $bad -eq 0 ] && pass "live-data-after-cut (64 blocks)" || fail "live-data-after-cut" "$bad of 64 blocks differ"
check live-reload-remove-vol dm_remove v
check live-reload-remove dm_remove p

# two legs in service: the pages go first, then the superblocks
dd if=/dev/zero of="$fl" bs=1M count=1 oflag=direct 2>/dev/null
check mirror-pool fc_pool p "$fl" 64 mirror "$fl2" $OPTS
check mirror-vol fc_vol v p "$org" 5 writeback sequential_cutoff 0
check mirror-write sh -c "dd if=$IMG/new of=/dev/mapper/v bs=32k count=4 seek=100 oflag=direct conv=fsync status=none"
check mirror-flush dmsetup message p 0 flush
check mirror-copy dd if="$fl" of="$fl3" bs=1M iflag=direct oflag=direct status=none
check mirror-remove-vol dm_remove v
check mirror-remove dm_remove p
n=$(sb_json "$fl3" commit_pages)
[ "$n" = 0 ] && pass "mirror-two-step (the superblock names no page)" ||
	fail "mirror-two-step" "the superblock names ${n:-?} pages"

# ---- 3. a commit of more than one batch ------------------------------------
# 320 MiB: 81920 blocks of 4 KiB, 322 entry pages; 270 MiB written make
# 271 of them dirty.  No periodic commit: the flush makes one commit.
fb=$(mk_fast_disk 320) && ob=$(mk_fast_disk 288) && cb=$(mk_fast_disk 320) || die "big disks"
BIG=270
pattern_file $IMG/big $((BIG * 1024)) || die "big pattern"
check big-pool fc_pool p "$fb" 8 $OPTS commit_interval 0
check big-vol fc_vol v p "$ob" 5 writeback sequential_cutoff 0
# a busy pool runs no idle writeback: every block stays dirty until the copy
start_keeper /dev/mapper/v
c0=$(stats_field p commits) p0=$(stats_field p commit_pages)
check big-write dd if=$IMG/big of=/dev/mapper/v bs=1M oflag=direct status=none
check big-sync sync /dev/mapper/v
c1=$(stats_field p commits) p1=$(stats_field p commit_pages)
if [ $((c1 - c0)) -eq 1 ] && [ $((p1 - p0)) -gt 256 ]; then
	pass "big-one-commit ($((p1 - p0)) pages)"
else
	fail "big-one-commit" "$((c1 - c0)) commits of $((p1 - p0)) pages: no commit larger than one batch"
fi
field_is big-dirty /dev/mapper/p $P_DIRTY = $((BIG * 256))
check big-copy dd if="$fb" of="$cb" bs=1M iflag=direct oflag=direct status=none
if cmp -s -n $((BIG * 1048576)) "$ob" $IMG/big; then
	fail "big-only-on-flash" "the origin holds the written data: the reads below would prove nothing"
else
	pass "big-only-on-flash"
fi
kill $keeper; wait $keeper 2>/dev/null
check big-remove-vol dm_remove v
check big-remove dm_remove p
# the live pool's teardown may write some blocks back: zeroes on the
# origin, so that every block read below comes from the flash copy
check big-origin-zeroed dd if=/dev/zero of="$ob" bs=1M count=$BIG oflag=direct status=none
n=$(sb_json "$cb" commit_pages)
[ "$n" = 0 ] && pass "big-two-step (the superblock names no page)" ||
	fail "big-two-step" "the superblock names ${n:-?} pages"
check big-check "$CTL" check "$cb"
check big-reload fc_pool p "$cb" 8 $OPTS commit_interval 0
check big-reload-vol fc_vol v p "$ob" 5 writeback sequential_cutoff 0
field_is big-reload-dirty /dev/mapper/p $P_DIRTY = $((BIG * 256))
if dd if=/dev/mapper/v bs=1M count=$BIG iflag=direct status=none | cmp - $IMG/big >$IMG/big.cmp 2>&1; then
	pass "big-data-after-cut ($BIG MiB)"
else
	fail "big-data-after-cut" "$(head -n 1 $IMG/big.cmp)"
fi
check big-reload-remove-vol dm_remove v
check big-reload-remove dm_remove p
rm -f $IMG/big

check rmmod unload_fcache
dmesg_clean
finish
