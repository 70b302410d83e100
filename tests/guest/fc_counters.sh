#!/bin/sh
# dm-fcache: the "stats" counters (docs/TABLES.md) and what they explain
# (issue 10): small synchronous writes are absorbed by the flash.
#  1. A redo-like stream: 4 MiB of sequential 4 KiB O_DIRECT+O_DSYNC writes
#     (REQ_FUA), twice the sequential cutoff: every write is absorbed
#     (write_sync_kept counts the ones the stream detector called
#     sequential; write_around_seq stays 0); with writeback_high at 1% the
#     pool passes it, and the FUA writes still allocate (write_sync_high),
#     never going around (write_around_high 0).  Byte for byte through the
#     volume.
#  2. A 4 MiB stream of 1 MiB direct writes (not small): goes around
#     (write_around_seq).
#  3. Above writeback_high (16 scattered O_DSYNC blocks make sure of it):
#     32 KiB direct writes without O_DSYNC at scattered offsets go around
#     (write_around_high); one 4 KiB O_DSYNC write is absorbed
#     (write_sync_high grows).
#  4. fsync: flushes counted; the pool's commit counters add up (group
#     commits served at least the FUA writes); clear_stats zeroes; fcachectl
#     status --counters shows them.
#  5. Merged writeback (a fresh pool; counters taken before the rewrite, as
#     the idle writeback may do the flush's work first): 4 MiB of
#     wholly dirty consecutive blocks and one partly dirty block among them:
#     the flush message writes them back in runs (pool counters
#     writeback_merged, writeback_ios), the origin alone holds the data byte
#     for byte.
#  6. Read-ahead of a short stream (an index range scan): three consecutive
#     32 KiB blocks read one at a time (fc_rblk.py, one process), the third
#     fills itself and the blocks after it up to 128 KiB (read_ahead 3),
#     which then hit; two blocks, reads farther apart than the window, or
#     with gaps read nothing ahead; a cached dirty block inside the range is
#     skipped, not overwritten, and the blocks after it are read ahead; byte
#     for byte.  Then RACE_ROUNDS (40) rounds of a
#     scan racing writes to the blocks it reads ahead (some of them read
#     ahead first: read_ahead grows), absorbed by the
#     flash and then (writearound mode) sent around it: every block holds
#     the last data written, through the volume and, after a flush, on the
#     origin.
#     The origin takes 128 KiB in one request (max_sectors=256).
#  7. The stream fill is one origin request (fc_ra_blocks(), issue 33): on
#     an origin that takes at most 255 sectors a request (null_blk's
#     default, so the demo's md RAID10 of null_blk spindles), a 16 KiB-block
#     pool's stream fill reads 7 blocks (112 KiB) with one read, not 8 with
#     a read split in two (each a seek on a spindle): the origin's own read
#     count (sysfs stat) grows by one a miss, read_ahead by 6, the 6 blocks
#     hit; beside it, on an origin that takes 512 KiB, the whole 128 KiB
#     (read_ahead 7) in one read; byte for byte.
# The origin of 1-4 is dm-delay (writes 2 s) and writeback runs one copy
# at a time, so the pool stays above writeback_high while the test runs.
FC_T=fc_counters
. "$FC_TOP/tests/guest/lib.sh"
# fc_counters.sh [RACE_ROUNDS]: the rounds of each race of section 6 (40;
# suite 35 runs 16 under make check, 40 under make check-long)
RACE=${1:-40}
CTL=$FC_TOP/userspace/fcachectl

load_fcache || die "insmod failed" module-load
modprobe dm-delay || die "no dm-delay"
flash=$(mk_fast_disk 16) && odisk=$(mk_fast_disk 64) || die disks
osz=$(dev_sectors "$odisk")
dm_create slow "0 $osz delay $odisk 0 0 $odisk 0 2000 $odisk 0 0" || die "dm-delay"
check pool-create fc_pool cpool "$flash" 64 writeback_low 1 writeback_high 1 \
	max_dirty_age 0 writeback_jobs 1
check vol-create fc_vol cvol cpool /dev/mapper/slow 1 writeback
[ -b /dev/mapper/cvol ] || finish
V=/dev/mapper/cvol
total=$(status_field /dev/mapper/cpool $P_TOTAL)
info "pool of $total blocks, writeback_high 1% = $((total / 100)) blocks"

# ctr NAME [DEV]: one counter of the "stats" message answer
ctr() { stats_field "${2:-cvol}" "$1"; }
# stat_is NAME COUNTER OP VALUE [DEV]
stat_is() {
	_sv=$(ctr "$2" "${5:-cvol}")
	[ -n "$_sv" ] && [ "$_sv" "$3" "$4" ] && { pass "$1"; return 0; }
	fail "$1" "$2 is '$_sv', expected $3 $4"
	return 1
}

check stats-answers sh -c "dmsetup message cvol 0 stats | grep -q '^reads=0 read_hits=0 writes=0 '"
check pool-stats-answers sh -c "dmsetup message cpool 0 stats | grep -q '^commits=[0-9]* commit_pages='"
check_fails stats-refuses-args dmsetup message cvol 0 stats now

# --- 1. the redo stream ---
pattern_file /tmp/redo 4096 || die pattern
check redo-write dd if=/tmp/redo of=$V bs=4k oflag=direct,dsync status=none
stat_is redo-all-fua fua -ge 1024
stat_is redo-stream-detected write_sync_kept -ge 700
stat_is redo-none-around-seq write_around_seq -eq 0
stat_is redo-none-around-high write_around_high -eq 0
stat_is redo-allocated-above-high write_sync_high -ge 1
stat_is redo-allocs write_allocs -ge 128
check redo-exact sh -c "dd if=$V bs=4k count=1024 iflag=direct status=none | cmp - /tmp/redo"

# --- 2. a big stream goes around ---
pattern_file /tmp/big 4096 || die pattern
check big-write dd if=/tmp/big of=$V bs=1M seek=8 oflag=direct status=none
stat_is big-around-seq write_around_seq -ge 2
check big-exact sh -c "dd if=$V bs=1M skip=8 count=4 iflag=direct status=none | cmp - /tmp/big"

# --- 3. above writeback_high ---
pattern_file /tmp/fua16 512 || die pattern
for i in $(seq 0 15); do
	dd if=/tmp/fua16 of=$V bs=32k skip=$i count=1 seek=$((300 + i * 5)) oflag=direct,dsync status=none
done
d=$(status_field /dev/mapper/cpool $P_DIRTY)
info "pool dirty $d of $total blocks"
check above-high test "$d" -ge $((total / 100 + 1))
pattern_file /tmp/scat 128 || die pattern
before=$(ctr write_around_high)
for i in 0 1 2 3; do
	dd if=/tmp/scat of=$V bs=32k skip=$i count=1 seek=$((600 + i * 7)) oflag=direct status=none
done
stat_is high-around write_around_high -ge $((before + 4))
# writeback drains the pool one 2 s copy at a time: on a slow guest (a
# debug kernel) it can be back under writeback_high by now, so dirty more
# blocks until it is a few blocks above (a bounded number of rounds)
k=0
while [ "$(status_field /dev/mapper/cpool $P_DIRTY)" -lt $((total / 100 + 5)) ] && [ $k -lt 64 ]; do
	dd if=/tmp/fua16 of=$V bs=32k skip=$((k % 16)) count=1 seek=$((2000 + k * 5)) oflag=direct,dsync status=none
	k=$((k + 1))
done
info "pool dirty $(status_field /dev/mapper/cpool $P_DIRTY) of $total blocks before the O_DSYNC write ($k more written)"
sh_before=$(ctr write_sync_high)
check high-dsync-write dd if=/tmp/scat of=$V bs=4k count=1 seek=12000 oflag=direct,dsync status=none
stat_is high-dsync-absorbed write_sync_high -eq $((sh_before + 1))
for i in 0 1 2 3; do
	check "high-exact-$i" sh -c "dd if=$V bs=32k skip=$((600 + i * 7)) count=1 iflag=direct status=none |
		cmp - /tmp/scat -n 32768 -i 0:$((i * 32768))"
done

# --- 4. flushes, commits, clear_stats, fcachectl ---
f0=$(ctr flushes)
check fsync dd if=/tmp/scat of=$V bs=4k count=1 seek=100 conv=fsync status=none
stat_is flush-counted flushes -ge $((f0 + 1))
gb=$(ctr group_bios cpool)
gc=$(ctr group_commits cpool)
c=$(ctr commits cpool)
info "pool: $(dmsetup message cpool 0 stats)"
check groups-served-fua test "${gb:-0}" -ge 1025
check commits-cover-groups test "${c:-0}" -ge "${gc:-1}"
check groups-counted test "${gc:-0}" -ge 1
check ctl-counters sh -c "$CTL status cvol --counters | grep -q 'write_sync_kept='"
check ctl-commit-counters sh -c "$CTL status cpool --counters | grep -q 'group_commits='"
check clear-stats dmsetup message cvol 0 clear_stats
stat_is cleared-fua fua -eq 0
stat_is cleared-kept write_sync_kept -eq 0
field_is cleared-status-writes $V $V_WRITES -eq 0

# --- 5. merged writeback ---
flash2=$(mk_fast_disk 16) && odisk2=$(mk_fast_disk 16) || die disks
check wb-pool-create fc_pool wpool "$flash2" 64 writeback_low 100 writeback_high 100 \
	max_dirty_age 0 writeback_jobs 4
check wb-vol-create fc_vol wvol wpool "$odisk2" 2 writeback
W=/dev/mapper/wvol
pattern_file /tmp/run 4096 || die pattern
pattern_file /tmp/part 4 || die pattern
check run-write dd if=/tmp/run of=$W bs=4k oflag=direct,dsync status=none
# block 40 gets a fresh 4 KiB: only that sub-block is dirty... after a
# flush; first make everything clean, then dirty the runs again around it
check run-flush1 dmsetup message wvol 0 flush
# the baseline while nothing is dirty: the idle writeback (5 s without I/O)
# may write the runs back before the flush message does, so no snapshot
# may fall between the rewrite and the end
i0=$(ctr writeback_ios wpool)
m0=$(ctr writeback_merged wpool)
check run-rewrite dd if=/tmp/run of=$W bs=32k count=40 oflag=direct,dsync status=none
check run-rewrite2 dd if=/tmp/run of=$W bs=32k skip=41 seek=41 count=87 oflag=direct,dsync status=none
check part-write dd if=/tmp/part of=$W bs=4k seek=$((40 * 8 + 3)) oflag=direct,dsync status=none
dd if=/tmp/part of=/tmp/run bs=4k seek=$((40 * 8 + 3)) conv=notrunc status=none
field_is run-dirty $W $V_DIRTY -eq 128
check run-flush2 dmsetup message wvol 0 flush
field_is run-clean $W $V_DIRTY -eq 0
ios=$(($(ctr writeback_ios wpool) - i0))
merged=$(($(ctr writeback_merged wpool) - m0))
info "merged writeback: 128 blocks in $ios origin writes, $merged blocks merged"
check run-merged test "$merged" -eq 127
check run-few-ios test "$ios" -le 20
check run-origin-exact sh -c "dd if=$odisk2 bs=1M count=4 iflag=direct status=none | cmp - /tmp/run"
check run-volume-exact sh -c "dd if=$W bs=1M count=4 iflag=direct status=none | cmp - /tmp/run"

# --- 6. read-ahead of a short stream ---
flash3=$(mk_fast_disk 16) && odisk3=$(mk_fast_disk 64 max_sectors=256) || die disks
pattern_file /tmp/ra 65536 || die pattern
check ra-origin dd if=/tmp/ra of="$odisk3" bs=1M oflag=direct status=none
check ra-pool-create fc_pool rpool "$flash3" 64
check ra-vol-create fc_vol rvol rpool "$odisk3" 3 writeback
R=/dev/mapper/rvol
# rblk N: read 32 KiB block N through the volume, in a process of its own
# (the race's reads, timed by dd's start as the race was tuned)
rblk() { dd if=$R of=/dev/null bs=32k skip="$1" count=1 iflag=direct status=none; }
# rb OP...: 32 KiB blocks read in one process, back to back unless an OP
# sN sleeps N seconds between them (fc_rblk.py): the read-ahead's window
# is a second
rb() { timeout 60 python3 "$FC_TOP/tests/guest/fc_rblk.py" $R 32768 "$@"; }
# the third of three consecutive blocks reads ahead
check ra-read-three rb 10 11 12
stat_is ra-three-misses read_ahead -eq 3 rvol
h0=$(ctr read_hits rvol)
check ra-read-ahead-blocks rb 13 14 15
check ra-ahead-hit test "$(($(ctr read_hits rvol) - h0))" -eq 3
# one block before is not a stream, nor are blocks farther apart in time
# than the window, nor reads with gaps: nothing read ahead
check ra-read-apart rb 40 41 s0.2 60 s1.5 61 s1.5 62 s0.2 80 82 84 85
stat_is ra-gaps-read-nothing-ahead read_ahead -eq 3 rvol
# a cached block inside the read-ahead's range: read from the origin with
# the others but not installed, so its newer (dirty) data stays what the
# volume returns, and the blocks after it are read ahead all the same
pattern_file /tmp/ra103 32 || die pattern
check ra-dirty-write dd if=/tmp/ra103 of=$R bs=32k seek=103 count=1 oflag=direct conv=notrunc status=none
cp /tmp/ra /tmp/raexp
dd if=/tmp/ra103 of=/tmp/raexp bs=32k seek=103 count=1 conv=notrunc status=none
check ra-read-past-cached rb 100 101 102
stat_is ra-past-cached-reads-ahead read_ahead -eq 5 rvol
h0=$(ctr read_hits rvol)
check ra-read-past-cached-blocks rb 103 104 105
check ra-past-cached-hit test "$(($(ctr read_hits rvol) - h0))" -eq 3
check ra-exact sh -c "dd if=$R bs=32k skip=10 count=100 iflag=direct status=none |
	cmp -n $((100 * 32768)) -i 0:$((10 * 32768)) - /tmp/raexp"
# race ROUND0: RACE rounds from block ROUND0, each a scan of three blocks
# while the three after them are written, the last first, from the time the
# scan's third read (the one that reads ahead) is issued
pattern_file /tmp/ranew $((RACE * 3 * 32)) || die pattern
# wblk ROUND BLOCK: the round's three new blocks to BLOCK.., the last first
wblk() {
	for _k in 2 1 0; do
		dd if=/tmp/ranew of=$R bs=32k skip=$(($1 * 3 + _k)) seek=$(($2 + _k)) count=1 \
			oflag=direct conv=notrunc status=none || return 1
	done
}
race() {
	_r=0
	while [ $_r -lt "$RACE" ]; do
		_b=$(($1 + _r * 8))
		rblk $_b && rblk $((_b + 1)) || fail ra-race-read "block $_b"
		wblk $_r $((_b + 3)) &
		rblk $((_b + 2)) || fail ra-race-read "block $((_b + 2))"
		wait $! || fail ra-race-write "block $((_b + 3))"
		dd if=/tmp/ranew of=/tmp/raexp bs=32k skip=$((_r * 3)) seek=$((_b + 3)) count=3 \
			conv=notrunc status=none
		_r=$((_r + 1))
	done
}
a0=$(ctr read_ahead rvol)
race 120
check ra-race-read-ahead test "$(ctr read_ahead rvol)" -gt "$a0"
check ra-race-exact sh -c "dd if=$R bs=1M iflag=direct status=none | cmp - /tmp/raexp"
# in writearound mode every write goes to the origin: the other race
check ra-writearound sh -c "dmsetup reload rvol --table '$(dmsetup table rvol |
	sed 's/ writeback/ writearound/')' && dmsetup resume rvol"
wa0=$(ctr write_around_other rvol)
a0=$(ctr read_ahead rvol)
# Whether a round's read-ahead starts before its blocks are written is the
# reads' and writes' timing: rounds until one did (at least one set of
# RACE, at most four, on fresh blocks), not a count expected of RACE
# rounds (a fresh-machine make check saw none in 16)
_k=0
while [ $_k -lt 4 ]; do
	race $((600 + _k * RACE * 8))
	_k=$((_k + 1))
	[ "$(ctr read_ahead rvol)" -gt "$a0" ] && break
done
info "writearound race: $_k sets of $RACE rounds"
check ra-race-around test "$(ctr write_around_other rvol)" -ge "$((wa0 + RACE * 3 * _k))"
check ra-race-around-read-ahead test "$(ctr read_ahead rvol)" -gt "$a0"
check ra-race-around-exact sh -c "dd if=$R bs=1M iflag=direct status=none | cmp - /tmp/raexp"
check ra-flush dmsetup message rvol 0 flush
check ra-origin-exact sh -c "dd if=$odisk3 bs=1M iflag=direct status=none | cmp - /tmp/raexp"

# --- 7. the stream fill is one origin request ---
# origin_reads DEV: read requests DEV completed (sysfs stat, field 1)
origin_reads() { awk '{ print $1 }' "/sys/block/$(basename "$1")/stat"; }
flash4=$(mk_fast_disk 16) && odisk4=$(mk_fast_disk 8 max_sectors=255) &&
	odisk5=$(mk_fast_disk 8 max_sectors=1024) || die disks
pattern_file /tmp/ra4 8192 || die pattern
check ra1-origin dd if=/tmp/ra4 of="$odisk4" bs=1M oflag=direct status=none
check ra1-origin2 dd if=/tmp/ra4 of="$odisk5" bs=1M oflag=direct status=none
check ra1-pool-create fc_pool lpool "$flash4" 32
check ra1-vol-create fc_vol lvol lpool "$odisk4" 4 writeback
check ra1-vol2-create fc_vol lvol2 lpool "$odisk5" 5 writeback
check ra1-max-sectors test "$(cat "/sys/block/$(basename "$odisk4")/queue/max_sectors_kb")" -eq 127
# rl DEV OP...: 16 KiB blocks of DEV read in one process (fc_rblk.py)
rl() { _d=$1; shift; timeout 60 python3 "$FC_TOP/tests/guest/fc_rblk.py" "$_d" 16384 "$@"; }
# ra_case NAME VOL ORIGIN AHEAD: a scan of 3 blocks reads AHEAD blocks after
# the third, all with the third's one origin read; they hit
ra_case() {
	_r0=$(origin_reads "$3")
	_a0=$(ctr read_ahead "$2")
	check "$1-scan" rl "/dev/mapper/$2" 20 21 22
	check "$1-one-read-a-miss" test "$(($(origin_reads "$3") - _r0))" -eq 3
	stat_is "$1-read-ahead" read_ahead -eq $((_a0 + $4)) "$2"
	_h0=$(ctr read_hits "$2")
	_r0=$(origin_reads "$3")
	# shellcheck disable=SC2046
	check "$1-ahead" rl "/dev/mapper/$2" $(seq 23 $((22 + $4)))
	check "$1-ahead-hit" test "$(($(ctr read_hits "$2") - _h0))" -eq "$4"
	check "$1-ahead-no-read" test "$(origin_reads "$3")" -eq "$_r0"
	check "$1-exact" sh -c "dd if=/dev/mapper/$2 bs=1M iflag=direct status=none | cmp - /tmp/ra4"
}
ra_case ra1 lvol "$odisk4" 6
ra_case ra2 lvol2 "$odisk5" 7
dmesg_clean
finish
