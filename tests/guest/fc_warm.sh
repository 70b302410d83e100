#!/bin/sh
# dm-fcache: warm restart (pool option warm_restart, issue 38 item 2;
# docs/DESIGN.md "Warm restart").  The crash walk (replay-guest.sh warm=1,
# make check-crash) proves the order at every flush point; this test is
# what an admin sees:
#  1. a pool with warm_restart 1: 8 MiB read through the volume are
#     recorded warm (stats warm_blocks); a power cut (the flash copied
#     while the pool is live and committed) and a load of the copy keep
#     them (kernel log, warm_loaded), and the same reads are hits, byte for
#     byte; fcachectl check passes on the copy and names the feature;
#  2. a write to a warm block waits for one commit (warm_waits) and reads
#     back; after a power cut at that moment the block is the origin's or
#     the write's, never a mix, and the volume's reads equal the origin's
#     after a flush of the volume;
#  3. a discard over warm blocks waits too (one commit for all of them),
#     and reads back what the origin holds;
#  4. eviction: reading more than the flash holds evicts warm blocks
#     (after a commit records them otherwise) and every read is right;
#  5. warm_restart 0 on a pool loaded with warm blocks: the first commits
#     record them not warm (warm_blocks 0); a mirrored pool marks nothing;
#  6. without warm_restart, a power cut keeps no clean block (the rule as
#     before).
FC_T=fc_warm
. "$FC_TOP/tests/guest/lib.sh"

CTL=$FC_TOP/userspace/fcachectl
T=/tmp/fc_warm
mkdir -p $T
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0 commit_interval 200"

load_fcache || die "insmod failed" module-load
fl=$(mk_fast_disk 32) && fl2=$(mk_fast_disk 32) && org=$(mk_fast_disk 96) &&
	fl3=$(mk_fast_disk 32) || die "disks"
pattern_file $T/origin 98304 && dd if=$T/origin of="$org" bs=1M oflag=direct 2>/dev/null ||
	die "origin"

# same_range DEV FIRST_MIB MIBS: read through DEV (twice: a first touch goes
# around the cache, the second fills); the origin's data both times?
same_range() {
	for _r in 1 2; do
		dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none >$T/got 2>/dev/null &&
			dd if=$T/origin bs=1M skip="$2" count="$3" status=none | cmp -s - $T/got || return 1
	done
}
# the volume's read hits (status field 5)
hits() { status_field v 5; }
warm_blocks_at_least() { [ "$(stats_field p warm_blocks)" -ge "$1" ]; }
warm_blocks_none() { [ "$(stats_field p warm_blocks)" = 0 ]; }
rm_both() { dm_remove v && dm_remove p; }
# one_hit: a single 16 KiB block (the first) read through the volume: 1 if
# it was a hit (no read-ahead: a stream needs the blocks before it)
one_hit() {
	_h0=$(hits)
	dd if=/dev/mapper/v of=/dev/null bs=16k count=1 iflag=direct status=none
	echo $(($(hits) - _h0))
}
# cut SRC DST: a power cut: the flash SRC as it is now (the pool live,
# idle, its commits done), copied to DST; the live pool and volume removed
cut() {
	dd if="$1" of="$2" bs=1M iflag=direct oflag=direct status=none && rm_both
}
# up DEV [OPTIONS...]: the pool on DEV and the volume
up() {
	_d=$1
	shift
	fc_pool p "$_d" 32 $OPTS "$@" && fc_vol v p "$org" 7 writeback sequential_cutoff 0
}
warm_json() {
	"$CTL" check --json "$1" 2>/dev/null |
		python3 -c "import json, sys; print(json.load(sys.stdin)['superblock']['warm_feature'])"
}

# ---- 1. reads survive a power cut -------------------------------------------
check pool up "$fl" warm_restart 1
check read-in same_range /dev/mapper/v 0 8
# 8 MiB of 16 KiB blocks: 512 blocks, recorded warm by a commit (200 ms)
check warm-recorded poll_until 300 warm_blocks_at_least 500
info "before the cut: $(stats_field p warm_blocks) warm blocks"
dmesg -C
check cut cut "$fl" "$fl3"
check cut-check "$CTL" check "$fl3"
[ "$(warm_json "$fl3")" = True ] && pass "cut-check-names-feature" ||
	fail "cut-check-names-feature" "fcachectl check --json: warm_feature $(warm_json "$fl3")"
check cut-up up "$fl3" warm_restart 1
check cut-says-kept sh -c "dmesg | grep -q 'warm restart: [0-9]* clean blocks kept after the unclean shutdown'"
kept=$(stats_field p warm_loaded)
if [ "${kept:-0}" -ge 500 ]; then
	pass "cut-kept-warm ($kept blocks)"
else
	fail "cut-kept-warm" "warm_loaded ${kept:-?}, wanted the 512 blocks read"
fi
[ "$(one_hit)" = 1 ] && pass "cut-first-read-hits" || fail "cut-first-read-hits" "a block read before the cut missed after it"
h0=$(hits)
check cut-data same_range /dev/mapper/v 0 8
h1=$(hits)
if [ $((h1 - h0)) -ge 1000 ]; then
	pass "cut-reads-hit ($((h1 - h0)) hits reading the 8 MiB twice)"
else
	fail "cut-reads-hit" "$((h1 - h0)) read hits of 1024 reads: the clean blocks were not kept"
fi

# ---- 2. a write to a warm block waits for a commit ---------------------------
w0=$(stats_field p warm_waits)
head -c 16384 /dev/urandom >$T/new
check warm-write dd if=$T/new of=/dev/mapper/v bs=16k seek=10 count=1 oflag=direct status=none
w1=$(stats_field p warm_waits)
if [ $((w1 - w0)) -ge 1 ]; then
	pass "warm-write-waited ($((w1 - w0)) waits)"
else
	fail "warm-write-waited" "warm_waits $w0 -> $w1: a warm block was written with no commit first"
fi
check warm-write-reads-back sh -c "dd if=/dev/mapper/v bs=16k skip=10 count=1 iflag=direct status=none | cmp -s - $T/new"
# a power cut right after the write (not flushed): the origin's or the write's
check cut2 cut "$fl3" "$fl"
check cut2-up up "$fl" warm_restart 1
dd if=/dev/mapper/v bs=16k skip=10 count=1 iflag=direct status=none >$T/b10
if cmp -s $T/b10 $T/new; then
	pass "cut2-block-is-the-write"
elif dd if=$T/origin bs=16k skip=10 count=1 status=none | cmp -s - $T/b10; then
	pass "cut2-block-is-the-origin"
else
	fail "cut2-block" "neither the origin's data nor the write's"
fi
# the volume and its origin agree once the volume is flushed
check cut2-flush dmsetup message v 0 flush
dd if=/dev/mapper/v bs=1M count=8 iflag=direct status=none >$T/expect16
check cut2-volume-equals-origin sh -c "dd if='$org' bs=1M count=8 iflag=direct status=none | cmp -s - $T/expect16"

# ---- 3. a discard over warm blocks ------------------------------------------
check rewarm same_range /dev/mapper/v 16 4
check rewarm-recorded poll_until 300 warm_blocks_at_least 250
w0=$(stats_field p warm_waits)
check discard blkdiscard -o $((16 << 20)) -l $((1 << 20)) /dev/mapper/v
w1=$(stats_field p warm_waits)
[ $((w1 - w0)) -ge 1 ] && pass "discard-waited ($((w1 - w0)) waits)" || fail "discard-waited" "warm_waits $w0 -> $w1"
[ $((w1 - w0)) -le 2 ] && pass "discard-one-commit ($((w1 - w0)) waits for 64 warm blocks)" ||
	fail "discard-one-commit" "$((w1 - w0)) waits: a commit per warm block"
# the origin's data now (what its discard left), through the volume too
check discard-reads-origin sh -c "dd if=/dev/mapper/v bs=1M skip=16 count=1 iflag=direct status=none >$T/d1 && dd if='$org' bs=1M skip=16 count=1 iflag=direct status=none | cmp -s - $T/d1"
check discard-rest-intact same_range /dev/mapper/v 17 3
# the origin is the reference from here (the write of 2 flushed, the discard)
check origin-reread dd if="$org" of=$T/origin bs=1M iflag=direct status=none

# ---- 4. eviction of warm blocks -----------------------------------------------
# 48 MiB read twice through a 32 MiB flash: warm blocks must make room
check evict-read same_range /dev/mapper/v 24 48
check evict-earlier sh -c "dd if=/dev/mapper/v bs=1M count=8 iflag=direct status=none | cmp -s - $T/expect16"
info "after eviction: $(dmsetup message p 0 stats | tr ' ' '\n' | grep '^warm' | tr '\n' ' ')"

# ---- 5. warm_restart 0, and a mirrored pool ---------------------------------------
check off-remove rm_both
check off-up up "$fl"
check off-unmarked poll_until 300 warm_blocks_none
check off-data same_range /dev/mapper/v 24 8
check off-remove rm_both
dd if=/dev/zero of="$fl" bs=1M count=1 oflag=direct 2>/dev/null
dd if=/dev/zero of="$fl2" bs=1M count=1 oflag=direct 2>/dev/null
check mirror-up up "$fl" mirror "$fl2" warm_restart 1
check mirror-read same_range /dev/mapper/v 0 4
sleep 1
n=$(stats_field p warm_blocks)
[ "${n:-x}" = 0 ] && pass "mirror-marks-none" || fail "mirror-marks-none" "warm_blocks ${n:-?}"
check mirror-remove rm_both

# ---- 6. without warm_restart: no clean block kept ---------------------------------
dd if=/dev/zero of="$fl" bs=1M count=1 oflag=direct 2>/dev/null
check cold-up up "$fl"
check cold-read same_range /dev/mapper/v 0 8
sleep 1
check cold-cut cut "$fl" "$fl3"
check cold-cut-up up "$fl3"
n=$(stats_field p warm_loaded)
[ "${n:-x}" = 0 ] && pass "cold-keeps-none" || fail "cold-keeps-none" "warm_loaded ${n:-?}"
[ "$(one_hit)" = 0 ] && pass "cold-first-read-misses" || fail "cold-first-read-misses" "a clean block was kept without warm_restart"
check cold-data same_range /dev/mapper/v 0 8
check cold-remove rm_both

check rmmod unload_fcache
dmesg_clean
finish
