#!/bin/sh
# dm-fcache mirrored pools, the second fault (issue 32; docs/DESIGN.md
# "Two-device pool", "Redundancy invariants").  Needs the test build
# (make fi-module: build/fi/dm-fcache.ko, its fault_twin_join hook).
#
#  rs  An I/O error on the old device while a replaced one is resynced: the
#      old device holds the only good copy of the dirty blocks not yet
#      copied, so it stays in service and only the I/O that met the error
#      fails (EIO for that block); the resync goes on.  Every other block
#      reads back byte for byte, never zeros (the module before this test
#      failed the old device and served zeros for acknowledged writes).
#      Once the device is whole again the last block is copied, the pool
#      says mirrored, and the old device can fail with nothing lost.
#      Then, degraded: a new write makes no dirty data with one copy (it
#      is written through: on the origin when it returns), and the
#      watermarks count the blocks of the device in service only.
#  jm  A real size (4 KiB blocks, 256 MiB devices, 20,000 dirty blocks:
#      commits of hundreds of metadata pages): a replace under an fsync
#      load whose join cannot give some blocks their twin (the hook
#      refuses the first ones, as a commit serialising in batches or no
#      free block does).  The pool says degraded, with those blocks in
#      lone_dirty_blocks, until the tick's retry gave each its twin;
#      then mirrored, and the old device fails: every block reads back.
#  dc  A mirrored write retried after a copy failed (the hook
#      fault_twin_write; its leg holds the only copy of dirty blocks whose
#      join the hook fault_twin_join refuses, so it stays in service and
#      the write fails, to be retried around the cache) is mirrored again
#      when another write made its block dirty meanwhile (the hook
#      retry_hold_ms holds the retry).  It must end once, after both
#      copies: with the new device's writes held (dm-delay), it has not
#      returned while its copy there is in flight; once they go on it
#      returns, and its data is on both devices.  (The module that
#      counted the two copies with bio_inc_remaining() on dm's bio ended
#      the retried write at its first copy, then submitted it, ended.)
#  tw  A read error on a device kept in service (it holds the only copy of
#      other dirty blocks: the hook fault_twin_join_odd refused the twins
#      of the odd blocks at the replace) for blocks whose twin holds a good
#      copy: the read comes from the twin, byte for byte; only the blocks
#      with one copy fail (EIO).  (The module before this test failed
#      every read of the device's data, though half had a good twin.)
# Arguments: the cases to run (default: rs jm dc tw).
FC_T=fc_mirror_faults
. "$FC_TOP/tests/guest/lib.sh"
CASES=${*:-rs jm dc tw}
want() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
# the test build (suite 32 boots the guest with FC_KO=build/fi/dm-fcache.ko)
load_fcache || die "insmod $FC_KO failed" module-load
[ -f /sys/module/dm_fcache/parameters/fault_twin_join ] || die "no fault_twin_join (make fi-module)" fi-hook
BLKCMP=$FC_TOP/tests/guest/fc_blkcmp.py
# dirty data stays dirty until a flush asks (no idle writeback)
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
NOPTS=$(echo $OPTS | wc -w)
P_RED=16 P_LONE=17 P_LEGS=18
IMG=/tmp/fc_mirror_faults
mkdir -p $IMG

# synced: mirrored, no dirty block with one copy
synced() { status_is mp $P_RED mirrored && status_is mp $P_LONE 0; }
# blkcmp NAME DEV EXPECTED BS MAX_EIO: no block reads back other data, at
# most MAX_EIO fail with EIO (a PASS or FAIL line); the counts go to
# $IMG/NAME.out
blkcmp() {
	python3 "$BLKCMP" "$2" "$3" "$4" >"$IMG/$1.out" 2>&1
	_rc=$?
	info "$1: $(tr '\n' ' ' <"$IMG/$1.out")"
	if [ $_rc -eq 0 ] && [ "$(awk '{ print $4 }' "$IMG/$1.out")" -le "$5" ]; then
		pass "$1"
	else
		fail "$1" "$(head -n 1 "$IMG/$1.out"), at most $5 EIO wanted"
	fi
}
# lone_le N: at most N dirty blocks with one copy
lone_le() { [ "$(status_field mp $P_LONE)" -le "$1" ]; }
# eio_of NAME: the EIO count of the last blkcmp NAME
eio_of() { awk '{ print $4 }' "$IMG/$1.out"; }
# replace NEWLEG: load the pool table with NEWLEG replacing the failed leg 1
replace() {
	dm_reload mp "0 $(dev_sectors /dev/mapper/l0) fcache-pool /dev/mapper/l0 $BS $((4 + NOPTS)) mirror /dev/mapper/$1 replace 1 $OPTS" &&
		dmsetup suspend mp && dmsetup resume mp
}
# fail_leg1: leg 1 fails; a rewrite meets it; the pool vacates it
fail_leg1() {
	swap_error l1 &&
		dd if=$IMG/pat of=/dev/mapper/mv bs=$((BS * 512)) count=1 oflag=direct,dsync conv=notrunc status=none &&
		poll_until 300 status_is mp $P_LEGS ok,failed && poll_until 600 vacated
}
teardown() {
	kill "$keeper" 2>/dev/null; wait "$keeper" 2>/dev/null
	dm_remove mk; dm_remove mv
	[ -b /dev/mapper/mw ] && dm_remove mw
	dm_remove mp
	for l in l0 l1 l2; do dm_remove $l; done
	[ -b /dev/mapper/og ] && dm_remove og
}

# ---- rs: an I/O error on the old device during a resync ----
BS=64
ok=$(mk_fast_disk 16) || die "disk ok"
rs_case() {
	d0=$(mk_fast_disk 64) && d1=$(mk_fast_disk 64) && d2=$(mk_fast_disk 64) &&
		org=$(mk_fast_disk 96) || die "disks"
	wd=$(mk_fast_disk 16) || die "disk wd"
	S=$(dev_sectors "$d0")
	dm_create l0 "0 $S linear $d0 0" && dm_create l1 "0 $S linear $d1 0" || die "legs" rs-legs
	check rs-new-leg dm_create l2 "0 $S linear $d2 0"
	# the origin writes slowly until the resync is done: a degraded pool
	# writes its dirty data back (one copy), and it must still be dirty then
	OS=$(dev_sectors "$org")
	check rs-slow-origin dm_create og "0 $OS delay $org 0 0 $org 0 4000"
	check rs-create fc_pool mp /dev/mapper/l0 $BS mirror /dev/mapper/l1 $OPTS
	[ -b /dev/mapper/mp ] || finish
	check rs-vol fc_vol mv mp /dev/mapper/og 1 writeback sequential_cutoff 0
	check rs-keeper-vol fc_vol mk mp "$ok" 9 passthrough
	start_keeper /dev/mapper/mk
	check rs-pattern pattern_file $IMG/pat $((40 * 1024))
	check rs-write dd if=$IMG/pat of=/dev/mapper/mv bs=1M oflag=direct conv=fsync status=none
	field_is rs-dirty /dev/mapper/mp $P_DIRTY = 1280
	field_is rs-mirrored /dev/mapper/mp $P_RED = mirrored
	check rs-fail-l1 fail_leg1
	# one 32 KiB region of the old device fails, 20 MiB in (data blocks),
	# before the new device comes in: its resync meets the error
	E=40960
	check rs-region-fails swap_table l0 "0 $E linear $d0 0
$E 64 error
$((E + 64)) $((S - E - 64)) linear $d0 $((E + 64))"
	check rs-replace replace l2
	# every block: its data or EIO, never anything else (zeros)
	blkcmp rs-reads /dev/mapper/mv $IMG/pat 32768 2
	if [ "$(eio_of rs-reads)" -ge 1 ]; then pass rs-error-met; else fail rs-error-met "no read met the failing region"; fi
	field_is rs-old-kept /dev/mapper/mp $P_LEGS = ok,resync
	field_is rs-still-degraded /dev/mapper/mp $P_RED = degraded
	check rs-log-says-kept sh -c "dmesg | grep -q 'kept in service'"
	dmesg | grep fcache | tail -n 6 | sed 's/^/# /'
	# the resync goes on past the failing block
	check rs-resync-goes-on poll_until 3000 lone_le "$(eio_of rs-reads)"
	blkcmp rs-reads-again /dev/mapper/mv $IMG/pat 32768 2
	# the device is whole again: the last block is copied, the pool is mirrored
	check rs-region-back swap_table l0 "0 $S linear $d0 0"
	check rs-synced poll_until 1200 synced
	field_is rs-legs-ok /dev/mapper/mp $P_LEGS = ok,ok
	check rs-fast-origin swap_table og "0 $OS linear $org 0"
	# now the old device can go: the new one holds every block.  The volume
	# is suspended meanwhile (its writeback waits, its dirty count holds
	# still); a write to a second volume meets the failure.
	check rs-vol2 fc_vol mw mp "$wd" 2 writeback sequential_cutoff 0
	check rs-suspend-vol dmsetup suspend mv
	check rs-fail-l0 swap_error l0
	check rs-meet-failure dd if=$IMG/pat of=/dev/mapper/mw bs=4k count=1 oflag=direct,dsync status=none
	check rs-degraded poll_until 300 status_is mp $P_LEGS failed,ok
	check rs-vacated poll_until 600 vacated
	# the watermarks count the device in service: its blocks are over half
	# dirty (a quarter of both devices')
	check rs-set-low dmsetup message mp 0 writeback_low 40
	check rs-set-high dmsetup message mp 0 writeback_high 50
	check rs-above-high poll_until 100 status_is mp $P_WB_STATE throttled
	check rs-unset-high dmsetup message mp 0 writeback_high 100
	check rs-resume-vol dmsetup resume mv
	blkcmp rs-reads-on-new /dev/mapper/mv $IMG/pat 32768 0
	# degraded: new writes make no dirty data with one copy (written through)
	check rs-new-pattern pattern_file $IMG/new 1024
	dirty0=$(status_field mp $P_DIRTY)
	check rs-new-writes dd if=$IMG/new of=/dev/mapper/mv bs=4k seek=$((48 * 256)) oflag=direct,dsync conv=notrunc status=none
	check rs-new-on-origin sh -c "dd if=$org bs=1M skip=48 count=1 iflag=direct status=none | cmp - $IMG/new"
	field_is rs-no-new-dirty /dev/mapper/mp $P_DIRTY -le "$dirty0"
	check rs-new-reads sh -c "dd if=/dev/mapper/mv bs=1M skip=48 count=1 iflag=direct status=none | cmp - $IMG/new"
	check rs-flush dmsetup message mp 0 flush
	field_is rs-drained /dev/mapper/mp $P_DIRTY = 0
	teardown
	blkcmp rs-origin "$org" $IMG/pat 32768 0
}
want rs && rs_case

# ---- jm: a replace at a real size whose join is refused at first ----
jm_case() {
	BS=8
	d0=$(mk_fast_disk 256) && d1=$(mk_fast_disk 256) && d2=$(mk_fast_disk 256) &&
		org=$(mk_fast_disk 160) || die "disks jm"
	S=$(dev_sectors "$d0")
	dm_create l0 "0 $S linear $d0 0" && dm_create l1 "0 $S linear $d1 0" &&
		dm_create l2 "0 $S linear $d2 0" || die "legs" jm-legs
	check jm-create fc_pool mp /dev/mapper/l0 $BS mirror /dev/mapper/l1 $OPTS
	[ -b /dev/mapper/mp ] || finish
	OS=$(dev_sectors "$org")
	check jm-origin dm_create og "0 $OS linear $org 0"
	check jm-vol fc_vol mv mp /dev/mapper/og 1 writeback sequential_cutoff 0
	check jm-keeper-vol fc_vol mk mp "$ok" 9 passthrough
	start_keeper /dev/mapper/mk
	check jm-pattern pattern_file $IMG/pat $((20000 * 4))
	check jm-write dd if=$IMG/pat of=/dev/mapper/mv bs=1M oflag=direct conv=fsync status=none
	# the fsync load's blocks, dirty too
	J="--rw=randwrite --bs=4k --size=4M --offset=100M --fsync=1 --randseed=51"
	check jm-J fio_verify /dev/mapper/mv $J
	field_is jm-dirty /dev/mapper/mp $P_DIRTY = 21024
	# the origin slow until the resync is done (see rs)
	check jm-slow-origin swap_table og "0 $OS delay $org 0 0 $org 0 1000"
	check jm-fail-l1 fail_leg1
	# the replace lands under an fsync load
	base=$(status_field mv $V_WRITES)
	fio_verify /dev/mapper/mv $J --loops=3 >$IMG/j.err 2>&1 &
	jp=$!
	check jm-writer-progress poll_until 300 status_above mv $V_WRITES $((base + 32))
	echo 3 >/sys/module/dm_fcache/parameters/fault_twin_join
	check jm-replace replace l2
	if wait $jp; then pass jm-writes-during-replace; else fail jm-writes-during-replace "$(tail -n 4 $IMG/j.err | tr '\n' ' ')"; fi
	check jm-synced poll_until 3000 synced
	check jm-fast-origin swap_table og "0 $OS linear $org 0"
	# the hook refused three twins (the join's, then the tick's retries)
	check jm-join-refused sh -c "[ \$(cat /sys/module/dm_fcache/parameters/fault_twin_join) = 0 ]"
	check jm-fail-l0 swap_error l0
	blkcmp jm-reads-on-new /dev/mapper/mv $IMG/pat 4096 0
	check jm-J-reads fio_verify /dev/mapper/mv $J --verify_only=1
	field_is jm-degraded /dev/mapper/mp $P_LEGS = failed,ok
	teardown
}
want jm && jm_case

# ---- dc: a mirrored write retried, then mirrored again ----
FI=/sys/module/dm_fcache/parameters
# inflight_is N: the pool's dump counts N entries with bios in flight
inflight_is() {
	dmsetup message mp 0 dump &&
		[ "$(dmesg | grep 'dump: free' | tail -n 1 | sed 's/.* inflight //')" = "$1" ]
}
# degraded_pool C: devices l0, l1 (and l2 to come) of 32 MiB, a mirrored
# pool of 32 KiB blocks, volumes mv (1 MiB of the pattern, 32 dirty
# blocks, then suspended: no writeback), mw and the keeper; l1 fails, a
# write to mw meets it, the pool vacates it (checks named C-...)
degraded_pool() {
	BS=64
	d0=$(mk_fast_disk 32) && d1=$(mk_fast_disk 32) && d2=$(mk_fast_disk 32) &&
		org=$(mk_fast_disk 32) && worg=$(mk_fast_disk 16) || die "disks $1"
	S=$(dev_sectors "$d0")
	dm_create l0 "0 $S linear $d0 0" && dm_create l1 "0 $S linear $d1 0" || die "legs" $1-legs
	check $1-new-leg dm_create l2 "0 $S linear $d2 0"
	check $1-create fc_pool mp /dev/mapper/l0 $BS mirror /dev/mapper/l1 $OPTS
	[ -b /dev/mapper/mp ] || finish
	check $1-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
	check $1-vol2 fc_vol mw mp "$worg" 2 writeback sequential_cutoff 0
	check $1-keeper-vol fc_vol mk mp "$ok" 9 passthrough
	start_keeper /dev/mapper/mk
	check $1-pattern pattern_file $IMG/pat 1024
	check $1-write dd if=$IMG/pat of=/dev/mapper/mv bs=1M oflag=direct conv=fsync status=none
	# the volume suspended: its dirty blocks stay dirty (no writeback)
	check $1-suspend-vol dmsetup suspend mv
	check $1-fail-l1 swap_error l1
	check $1-meet-failure dd if=$IMG/pat of=/dev/mapper/mw bs=$((BS * 512)) count=1 oflag=direct,dsync conv=notrunc status=none
	check $1-degraded poll_until 300 status_is mp $P_LEGS ok,failed
	check $1-vacated poll_until 600 vacated
}
dc_case() {
	degraded_pool dc
	HELD="0 $S delay $d2 0 0 $d2 0 600000"
	# a replace whose join is refused: the old device holds the only copy
	# of those blocks, so an error on it does not fail it (rule 3)
	echo 1000000 >$FI/fault_twin_join
	check dc-replace replace l2
	check dc-lone status_above mp $P_LONE 0
	field_is dc-legs-ok /dev/mapper/mp $P_LEGS = ok,ok
	check dc-w1-data pattern_file $IMG/w1 4
	check dc-w2-data pattern_file $IMG/w2 4
	# W1 and W2 go to a new block (on the new device, the one with more
	# free blocks; its twin on the old one), W2 while W1 is in flight
	X=$((4 * 1024 / 4))
	check dc-hold swap_table l2 "$HELD"
	echo 1 >$FI/fault_twin_write
	echo 8000 >$FI/retry_hold_ms
	base=$(status_field mw $V_WRITES)
	dd if=$IMG/w1 of=/dev/mapper/mw bs=4k seek=$X count=1 oflag=direct conv=notrunc status=none 2>$IMG/w1.err &
	w1=$!
	check dc-w1-mapped poll_until 300 status_above mw $V_WRITES "$base"
	dd if=$IMG/w2 of=/dev/mapper/mw bs=4k seek=$X count=1 oflag=direct conv=notrunc status=none 2>$IMG/w2.err &
	w2=$!
	check dc-w2-mapped poll_until 300 status_above mw $V_WRITES $((base + 1))
	check dc-twin-failed sh -c "[ \$(cat $FI/fault_twin_write) = 0 ]"
	# the held writes go on (W1's first, then W2's), later ones are held
	check dc-let-go swap_table l2 "$HELD"
	if wait $w2; then pass dc-w2; else fail dc-w2 "$(cat $IMG/w2.err)"; fi
	check dc-kept-in-service sh -c "dmesg | grep -q 'kept in service'"
	check dc-w1-retried poll_until 300 sh -c "[ \$(cat $FI/retry_hold_ms) = 0 ]"
	# W1 mirrored again after its hold: its copy on the new device is held
	check dc-w1-again poll_until 300 inflight_is 1
	sleep 1
	if kill -0 $w1 2>/dev/null; then
		pass dc-w1-waits-for-both
	else
		fail dc-w1-waits-for-both "the write returned with its copy on the new device in flight"
	fi
	check dc-release swap_table l2 "0 $S linear $d2 0"
	if wait $w1; then pass dc-w1; else fail dc-w1 "$(cat $IMG/w1.err)"; fi
	check dc-reads-w1 sh -c "dd if=/dev/mapper/mw bs=4k skip=$X count=1 iflag=direct status=none | cmp - $IMG/w1"
	# and from its twin alone: the new device fails (the read meets it)
	check dc-fail-l2 swap_error l2
	check dc-reads-w1-from-twin sh -c "dd if=/dev/mapper/mw bs=4k skip=$X count=1 iflag=direct status=none | cmp - $IMG/w1"
	check dc-degraded-again poll_until 300 status_is mp $P_LEGS ok,failed
	check dc-vacated-again poll_until 600 vacated
	check dc-reads-w1-on-old sh -c "dd if=/dev/mapper/mw bs=4k skip=$X count=1 iflag=direct status=none | cmp - $IMG/w1"
	echo 0 >$FI/fault_twin_join
	check dc-resume-vol dmsetup resume mv
	blkcmp dc-reads /dev/mapper/mv $IMG/pat 32768 0
	teardown
}
want dc && dc_case

# ---- tw: a read error on a device kept in service, the block's twin good ----
tw_case() {
	degraded_pool tw
	# the replace gives twins to the even blocks only
	echo 1 >$FI/fault_twin_join_odd
	check tw-replace replace l2
	check tw-odd-lone poll_until 1200 status_is mp $P_LONE 16
	check tw-resume-vol dmsetup resume mv
	# every data block of the old device fails; its metadata stays readable
	ds=$(dd if=/dev/mapper/l0 bs=4096 count=1 iflag=direct status=none |
		python3 -c 'import struct, sys; print(struct.unpack_from("<Q", sys.stdin.buffer.read(), 80)[0])')
	[ -n "$ds" ] && [ "$ds" -gt 0 ] && [ "$ds" -lt "$S" ] || die "no data_start on the old device" tw-ds
	check tw-data-fails swap_table l0 "0 $ds linear $d0 0
$ds $((S - ds)) error"
	# the even blocks from their twins, byte for byte; the odd ones EIO
	blkcmp tw-reads /dev/mapper/mv $IMG/pat 32768 16
	[ "$(eio_of tw-reads)" = 16 ] && pass tw-only-lone-blocks-fail ||
		fail tw-only-lone-blocks-fail "$(eio_of tw-reads) reads failed, the 16 blocks with one copy wanted"
	field_is tw-old-kept /dev/mapper/mp $P_LEGS = ok,ok
	check tw-log-says-kept sh -c "dmesg | grep -q 'kept in service'"
	# the device whole again: the odd blocks get their twins
	check tw-region-back swap_table l0 "0 $S linear $d0 0"
	echo 0 >$FI/fault_twin_join_odd
	check tw-synced poll_until 1200 synced
	blkcmp tw-reads-after /dev/mapper/mv $IMG/pat 32768 0
	teardown
}
want tw && tw_case

check rmmod unload_fcache
dmesg_clean
finish
