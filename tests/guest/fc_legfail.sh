#!/bin/sh
# dm-fcache mirrored pools: a flash device failing at run time (issue 11,
# docs/DESIGN.md "Two-device pool", "A device failing at run time").
# Each leg is a dm-linear device that is swapped for the dm 'error' target
# while fio writes dirty data: the writes in flight and after must succeed
# (the copy on the other device is enough), every acknowledged write must
# read back byte for byte (fio crc32c verify), the pool must say degraded
# with the failed leg named, the failure must be on the flash so the
# failed device is refused as stale afterwards, and the surviving device
# alone (also from an image taken after a flush: a power cut) must hold
# every flushed write.  Run twice: the mirror device fails, then the first.
# Last, a failed device is replaced online (table reload with replace 1)
# while a writer runs, the new one is resynced, then the other device
# fails: every write is still there, on the new device alone too.  A bio
# across two blocks that arrives while a block's move to its twin must
# wait is cut, not sent to the origin whole (stale data).  A FUA write
# whose copy on the failing device fails, the other's succeeding, succeeds.
FC_T=fc_legfail
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
d0=$(mk_fast_disk 32) && d1=$(mk_fast_disk 32) && org=$(mk_fast_disk 64) &&
	ok=$(mk_fast_disk 16) || die "disks"
# dirty data stays dirty until a flush asks (no idle writeback)
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
P_RED=16 P_LONE=17 P_LEGS=18
IMG=/tmp/fc_legfail
mkdir -p $IMG

J1="--rw=randwrite --bsrange=4k-64k --size=12M --iodepth=8 --randseed=41"
# the job the failure lands in: 2 passes, so it runs on past the swap
J2="--rw=randwrite --bsrange=4k-32k --size=8M --offset=16M --iodepth=8 --randseed=42 --loops=2"
J3="--rw=randwrite --bs=8k --size=2M --offset=28M --iodepth=4 --randseed=43"

legs_up() {
	dm_create l0 "0 $(dev_sectors "$d0") linear $d0 0" &&
		dm_create l1 "0 $(dev_sectors "$d1") linear $d1 0"
}
# swap_back LEG DEV: the device is back, with what it held when it failed
swap_back() {
	dm_reload "$1" "0 $(dev_sectors "$2") linear $2 0" &&
		dmsetup suspend --nolockfs "$1" && dmsetup resume "$1"
}
# wait_writes N: the volume has counted more than N writes (progress of the
# running writer, not a clock), bounded
wait_writes() { poll_until 300 status_above mv $V_WRITES "$1"; }
# lone_is_dirty: degraded, every dirty block has one copy (one status line)
lone_is_dirty() {
	dmsetup status mp | awk -v d=$((P_DIRTY + 3)) -v l=$((P_LONE + 3)) \
		'{ if ($d != $l) { print "dirty " $d " lone " $l; exit 1 } }'
}
# wait_clean: writeback of a degraded pool drains it whatever writeback_low says
wait_clean() { poll_until 1800 status_is mp $P_DIRTY 0; }

# run_case NAME FAIL(l0|l1) KEEP(l0|l1) KEEPDEV FAILDEV STATES [J2 OPTIONS...]
run_case() {
	c=$1 bad=$2 good=$3 gdev=$4 bdev=$5 states=$6
	shift 6
	j2opts=$*
	dd if=/dev/zero of="$d0" bs=1M count=4 oflag=direct 2>/dev/null
	dd if=/dev/zero of="$d1" bs=1M count=4 oflag=direct 2>/dev/null
	check "$c-legs" legs_up
	check "$c-create" fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
	[ -b /dev/mapper/mp ] || finish
	check "$c-vol" fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
	# a reader on another volume: the pool is never idle (no idle writeback)
	check "$c-keeper-vol" fc_vol mk mp "$ok" 9 passthrough
	start_keeper /dev/mapper/mk
	check "$c-J1" fio_verify /dev/mapper/mv $J1
	field_is "$c-mirrored" /dev/mapper/mp $P_RED = mirrored
	# the failure lands while J2 writes (and verifies) its blocks
	field_is "$c-dirty-before" /dev/mapper/mp $P_DIRTY -gt 0
	base=$(status_field mv $V_WRITES)
	dmesg -C
	# shellcheck disable=SC2086
	fio_verify /dev/mapper/mv $J2 $j2opts >$IMG/j2.err 2>&1 &
	j2=$!
	check "$c-writer-progress" wait_writes $((base + 32))
	check "$c-swap-error" swap_error "$bad"
	if wait $j2; then
		pass "$c-writes-survive"
	else
		# the error lines come before fio's disk stats: the whole log
		fail "$c-writes-survive" "$(grep -iE 'err|verify|bad|mismatch' $IMG/j2.err | head -n 10 | tr '\n' ' ')"
		info "$c: the writer's log: $(tr '\n' ' ' <$IMG/j2.err)"
	fi
	check "$c-J3-after" fio_verify /dev/mapper/mv $J3
	field_is "$c-degraded" /dev/mapper/mp $P_RED = degraded
	field_is "$c-leg-states" /dev/mapper/mp $P_LEGS = "$states"
	check "$c-lone-is-dirty" lone_is_dirty
	field_is "$c-md-rw" /dev/mapper/mp $P_MDMODE = rw
	check "$c-log-names-failure" sh -c "dmesg | grep -q 'failed: the pool runs degraded'"
	check "$c-J1-reads" fio_verify /dev/mapper/mv $J1 --verify_only=1
	check "$c-J2-reads" fio_verify /dev/mapper/mv $J2 --verify_only=1
	check "$c-J3-reads" fio_verify /dev/mapper/mv $J3 --verify_only=1
	# a flush after the failure: the surviving device records it
	check "$c-fsync" sync /dev/mapper/mv
	check "$c-cut-image" dd if="$gdev" of=$IMG/good bs=1M iflag=direct 2>/dev/null
	kill $keeper; wait $keeper 2>/dev/null
	check "$c-remove-keeper" dm_remove mk
	check "$c-remove-vol" dm_remove mv
	check "$c-remove-pool" dm_remove mp
	# the failed device comes back holding what it held: refused as stale
	check "$c-swap-back" swap_back "$bad" "$bdev"
	dmesg -C
	check_fails "$c-stale-refused" fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
	check "$c-stale-says-so" sh -c "dmesg | grep -q 'stale'"
	# the surviving device alone, from the image taken after the flush
	dm_remove l0; dm_remove l1
	check "$c-restore-image" dd if=$IMG/good of="$gdev" bs=1M oflag=direct 2>/dev/null
	check "$c-alone" fc_pool mp "$gdev" 64 mirror - degraded 1 $OPTS
	check "$c-alone-vol" fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
	check "$c-alone-J1" fio_verify /dev/mapper/mv $J1 --verify_only=1
	check "$c-alone-J2" fio_verify /dev/mapper/mv $J2 --verify_only=1
	check "$c-alone-J3" fio_verify /dev/mapper/mv $J3 --verify_only=1
	# degraded writeback drains every lone copy; then the origin alone is exact
	check "$c-flush" dmsetup message mp 0 flush
	check "$c-drained" wait_clean
	check "$c-remove-vol-2" dm_remove mv
	check "$c-remove-pool-2" dm_remove mp
	check "$c-origin-J1" fio_verify "$org" $J1 --verify_only=1
	check "$c-origin-J2" fio_verify "$org" $J2 --verify_only=1
	check "$c-origin-J3" fio_verify "$org" $J3 --verify_only=1
	dd if=/dev/zero of="$org" bs=1M count=32 oflag=direct 2>/dev/null
}

# the mirror device fails (its twins go; the entries keep their blocks)
run_case m1 l1 l0 "$d0" "$d1" ok,failed
# the first device fails (its entries move to their twins on the other);
# J2 writes O_DSYNC, so FUA writes meet the failure (whether one of them or
# a commit meets the failed device first is timing: the fua- case below is
# the deterministic test of a FUA write whose first copy meets it)
run_case m0 l0 l1 "$d1" "$d0" failed,ok --sync=dsync

# ---- a rescue is recorded whole (the crash walk's seed 81332) ----
# Whole blocks written once and never read: every entry is all dirty
# (valid == dirty).  The first device fails and each of its entries moves
# to its twin on the other (fc_rescue_entry()); the next commit must record
# both halves of every move, the twin's page naming the entry and the old
# entry's page no longer naming it, else the survivor alone holds two
# mappings of one origin block and is refused as damaged.
# holds_pat DEV: its first 2 MiB, read past the page cache, are the pattern
holds_pat() { dd if="$1" bs=1M count=2 iflag=direct 2>/dev/null | cmp - $IMG/pat; }
for d in "$d0" "$d1"; do dd if=/dev/zero of="$d" bs=1M count=4 oflag=direct 2>/dev/null; done
head -c 2M /dev/urandom >$IMG/pat
check v-legs legs_up
check v-create fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
check v-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check v-write dd if=$IMG/pat of=/dev/mapper/mv bs=32k oflag=direct conv=fsync 2>/dev/null
field_is v-all-dirty /dev/mapper/mp $P_DIRTY = 64
check v-fail-l0 swap_error l0
# the reads of the blocks on the first device meet the failure (the
# twins serve them); the pool fails that device
check v-reads-survive holds_pat /dev/mapper/mv
check v-degraded poll_until 300 status_is mp $P_LEGS failed,ok
check v-vacated poll_until 600 vacated
check v-commit sync /dev/mapper/mv
check v-reads holds_pat /dev/mapper/mv
check v-image dd if="$d1" of=$IMG/good bs=1M iflag=direct 2>/dev/null
check v-remove-vol dm_remove mv
check v-remove-pool dm_remove mp
dm_remove l0; dm_remove l1
check v-restore dd if=$IMG/good of="$d1" bs=1M oflag=direct 2>/dev/null
check v-alone-checks "$FC_TOP/userspace/fcachectl" check "$d1"
dmesg -C
check v-alone fc_pool mp "$d1" 64 mirror - degraded 1 $OPTS
if [ -b /dev/mapper/mp ]; then
	check v-alone-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
	check v-alone-reads holds_pat /dev/mapper/mv
	check v-alone-flush dmsetup message mp 0 flush
	check v-alone-drained wait_clean
	check v-remove-vol-2 dm_remove mv
	check v-remove-pool-2 dm_remove mp
	check v-origin holds_pat "$org"
else
	dmesg | grep -i fcache | tail -n 3 | sed 's/^/# /'
fi
dd if=/dev/zero of="$org" bs=1M count=4 oflag=direct 2>/dev/null

# ---- replace online, then the other device fails: nothing lost ----
# wait_synced: resync of the new device done (mirrored, no lone copy), bounded
wait_synced() {
	_ws=0
	while [ "$(status_field mp $P_RED)" != mirrored ] && [ $_ws -lt 600 ]; do
		sleep 0.2
		_ws=$((_ws + 1))
	done
	[ "$(status_field mp $P_RED)" = mirrored ] && [ "$(status_field mp $P_LONE)" = 0 ]
}
d2=$(mk_fast_disk 32) || die "disk d2"
J4="--rw=randwrite --bs=16k --size=2M --offset=24M --iodepth=4 --randseed=44"
for d in "$d0" "$d1" "$d2"; do dd if=/dev/zero of="$d" bs=1M count=4 oflag=direct 2>/dev/null; done
check r-legs legs_up
check r-leg2 dm_create l2 "0 $(dev_sectors "$d2") linear $d2 0"
check r-create fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
check r-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check r-keeper-vol fc_vol mk mp "$ok" 9 passthrough
start_keeper /dev/mapper/mk
check r-J1 fio_verify /dev/mapper/mv $J1
check r-fail-l1 swap_error l1
check r-J2 fio_verify /dev/mapper/mv $J2
field_is r-degraded /dev/mapper/mp $P_LEGS = ok,failed
# a table without both devices in service is refused for a replace
check_fails r-replace-needs-service sh -c "printf '0 %s fcache-pool /dev/mapper/l1 64 4 mirror /dev/mapper/l2 replace 1\n' $(dev_sectors /dev/mapper/l1) | dmsetup reload mp"
# the new device comes in online, with a writer running
fio_verify /dev/mapper/mv $J3 >$IMG/j3.err 2>&1 &
j3=$!
check r-replace-load dm_reload mp "0 $(dev_sectors /dev/mapper/l0) fcache-pool /dev/mapper/l0 64 $((4 + $(echo $OPTS | wc -w))) mirror /dev/mapper/l2 replace 1 $OPTS"
check r-replace-resume sh -c "dmsetup suspend mp && dmsetup resume mp"
if wait $j3; then pass r-writes-during-replace; else fail r-writes-during-replace "$(tail -n 4 $IMG/j3.err | tr '\n' ' ')"; fi
check r-resynced wait_synced
field_is r-legs-ok /dev/mapper/mp $P_LEGS = ok,ok
check r-table-reads-back sh -c "dmsetup table mp | grep -q 'mirror' && ! dmsetup table mp | grep -q replace"
# the first device fails now: the new one holds every dirty block
check r-fail-l0 swap_error l0
check r-J4 fio_verify /dev/mapper/mv $J4
field_is r-degraded-again /dev/mapper/mp $P_LEGS = failed,ok
check r-J1-reads fio_verify /dev/mapper/mv $J1 --verify_only=1
check r-J2-reads fio_verify /dev/mapper/mv $J2 --verify_only=1
check r-J3-reads fio_verify /dev/mapper/mv $J3 --verify_only=1
check r-J4-reads fio_verify /dev/mapper/mv $J4 --verify_only=1
check r-fsync sync /dev/mapper/mv
check r-image dd if="$d2" of=$IMG/good bs=1M iflag=direct 2>/dev/null
kill $keeper; wait $keeper 2>/dev/null
check r-remove-keeper dm_remove mk
check r-remove-vol dm_remove mv
check r-remove-pool dm_remove mp
dm_remove l0; dm_remove l1; dm_remove l2
# the new device alone, from its image after the flush: every write there
check r-restore dd if=$IMG/good of="$d2" bs=1M oflag=direct 2>/dev/null
check r-alone fc_pool mp "$d2" 64 mirror - degraded 1 $OPTS
check r-alone-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check r-alone-J1 fio_verify /dev/mapper/mv $J1 --verify_only=1
check r-alone-J2 fio_verify /dev/mapper/mv $J2 --verify_only=1
check r-alone-J3 fio_verify /dev/mapper/mv $J3 --verify_only=1
check r-alone-J4 fio_verify /dev/mapper/mv $J4 --verify_only=1
check r-remove-vol-2 dm_remove mv
check r-remove-pool-2 dm_remove mp

# ---- a bio across two blocks that waits for a rescue is cut first ----
# Every primary block of a fresh mirrored pool is on the first device
# (placement takes the device with more free blocks, the first on a tie)
# and its twin on the second.  A 4 KiB write W to block B is in flight when
# the first device fails: its copy on the second device is held (a
# dm-delay leg) until the spanning bio is in flight, so B's entry is busy
# and cannot move to its twin yet.  A read of a block C on the failed
# device shows the failure; then a read (or write) across the boundary of
# B and B + 1 arrives: it must wait for B's entry and be cut at the
# boundary, never be sent to the origin whole past the dirty data in the
# flash (it was: parked before the cut, the worker took it for uncached).  The origin holds zeros there; the flash
# holds the data.  The spanning bio is one 8 KiB request (dd bs=8k).
# delay_writes MS: l1 (a dm-delay of d1) holds each write MS ms (a reload
# to 0 sends the writes held so far: dm-delay flushes them as it suspends)
delay_writes() {
	dm_reload l1 "0 $(dev_sectors "$d1") delay $d1 0 0 $d1 0 $1" &&
		dmsetup suspend l1 && dmsetup resume l1
}
# in_io PID NR: PID sleeps in system call NR (0 read, 1 write on x86-64)
# uninterruptibly: its I/O reached the volume and waits there
in_io() {
	[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = D ] &&
		[ "$(cut -d ' ' -f 1 "/proc/$1/syscall" 2>/dev/null)" = "$2" ]
}
# span_case KIND(read|write): the hold lasts until the spanning bio is in
# flight (it waits for B), then is released; never a race against a clock
span_case() {
	k=$1
	for d in "$d0" "$d1"; do dd if=/dev/zero of="$d" bs=1M count=4 oflag=direct 2>/dev/null; done
	dd if=/dev/zero of="$org" bs=1M count=4 oflag=direct 2>/dev/null
	check "span-$k-legs" dm_create l0 "0 $(dev_sectors "$d0") linear $d0 0"
	check "span-$k-leg1" dm_create l1 "0 $(dev_sectors "$d1") delay $d1 0 0"
	check "span-$k-create" fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
	[ -b /dev/mapper/mp ] || finish
	check "span-$k-vol" fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
	pattern_file $IMG/sp 64 && pattern_file $IMG/sc 128 && pattern_file $IMG/sq 4 &&
		pattern_file $IMG/ss 8 || die pattern
	# B and B + 1, and C (2 MiB): dirty, first device, twins on the second
	check "span-$k-write-b" dd if=$IMG/sp of=/dev/mapper/mv bs=64k seek=16 count=1 oflag=direct conv=notrunc status=none
	check "span-$k-write-c" dd if=$IMG/sc of=/dev/mapper/mv bs=128k seek=16 count=1 oflag=direct conv=notrunc status=none
	check "span-$k-hold-twins" delay_writes 600000
	check "span-$k-swap-error" swap_error l0
	w=$(status_field mv $V_WRITES)
	dd if=$IMG/sq of=/dev/mapper/mv bs=4k seek=256 count=1 oflag=direct conv=notrunc status=none &
	wp=$!
	check "span-$k-w-mapped" poll_until 300 status_above mv $V_WRITES "$w"
	dd if=/dev/mapper/mv of=/dev/null bs=128k skip=16 count=1 iflag=direct status=none &
	cpid=$!
	check "span-$k-failure-seen" poll_until 300 status_is mp $P_RED degraded
	cp $IMG/sp $IMG/spexp
	dd if=$IMG/sq of=$IMG/spexp bs=4k count=1 conv=notrunc status=none
	if [ "$k" = read ]; then
		dd if=$IMG/sp of=$IMG/srexp bs=4k skip=7 count=2 status=none
		dd if=/dev/mapper/mv of=$IMG/sr bs=8k skip=$((263 * 4096)) count=1 \
			iflag=direct,skip_bytes status=none &
		sp=$!
		check "span-$k-waits" poll_until 600 in_io $sp 0
	else
		dd if=$IMG/ss of=/dev/mapper/mv bs=8k seek=$((263 * 4096)) count=1 \
			oflag=direct,seek_bytes conv=notrunc status=none &
		sp=$!
		check "span-$k-waits" poll_until 600 in_io $sp 1
		dd if=$IMG/ss of=$IMG/spexp bs=4k seek=7 count=2 conv=notrunc status=none
	fi
	check "span-$k-release-twins" delay_writes 0
	if wait $sp; then pass "span-$k"; else fail "span-$k" "the spanning $k failed"; fi
	if [ "$k" = read ]; then check "span-read-exact" cmp $IMG/sr $IMG/srexp; fi
	if wait $wp; then pass "span-$k-w-done"; else fail "span-$k-w-done" "the write to B failed"; fi
	if wait $cpid; then pass "span-$k-c-read"; else fail "span-$k-c-read" "the read of C failed"; fi
	check "span-$k-blocks-exact" sh -c "dd if=/dev/mapper/mv bs=64k skip=16 count=1 iflag=direct status=none | cmp - $IMG/spexp"
	check "span-$k-c-exact" sh -c "dd if=/dev/mapper/mv bs=128k skip=16 count=1 iflag=direct status=none | cmp - $IMG/sc"
	check "span-$k-remove-vol" dm_remove mv
	check "span-$k-remove-pool" dm_remove mp
	dm_remove l0; dm_remove l1
}
span_case read
span_case write

# ---- a FUA write whose first copy meets the failed device ----
# Block B (32 KiB) is dirty on the first device, its twin on the second.  The
# first device fails; the first I/O to meet it is an O_DSYNC write (REQ_FUA)
# of 4 KiB to B: its copy on the first device fails, the one on the second
# succeeds, so the pool fails the first device and the write succeeds.  A
# FUA write then waits for a commit and completes a second time: that
# completion carried the first one's error status (the write returned EIO
# though it was written and committed; the crash walk's mirrored workload
# hit it in CI).  Nothing else is in flight: no writeback, the metadata is
# committed (B was written O_DSYNC too), so nothing meets the device first.
for d in "$d0" "$d1" "$org"; do dd if=/dev/zero of="$d" bs=1M count=4 oflag=direct 2>/dev/null; done
check fua-legs legs_up
check fua-create fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
[ -b /dev/mapper/mp ] || finish
check fua-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
pattern_file $IMG/fb 32 && pattern_file $IMG/fq 4 || die pattern
check fua-write-b dd if=$IMG/fb of=/dev/mapper/mv bs=32k seek=32 count=1 oflag=direct,dsync conv=notrunc status=none
field_is fua-b-dirty /dev/mapper/mp $P_DIRTY = 1
check fua-swap-error swap_error l0
check fua-dsync-write dd if=$IMG/fq of=/dev/mapper/mv bs=4k seek=$((32 * 8 + 3)) count=1 \
	oflag=direct,dsync conv=notrunc status=none
field_is fua-degraded /dev/mapper/mp $P_LEGS = failed,ok
cp $IMG/fb $IMG/fexp
dd if=$IMG/fq of=$IMG/fexp bs=4k seek=3 count=1 conv=notrunc status=none
check fua-b-exact sh -c "dd if=/dev/mapper/mv bs=32k skip=32 count=1 iflag=direct status=none | cmp - $IMG/fexp"
check fua-flush dmsetup message mp 0 flush
check fua-drained wait_clean
check fua-remove-vol dm_remove mv
check fua-remove-pool dm_remove mp
dm_remove l0; dm_remove l1
check fua-origin-exact sh -c "dd if=$org bs=32k skip=32 count=1 iflag=direct status=none | cmp - $IMG/fexp"

# ---- a block used twice is refused, a clean record included ----
# Images from tests/host/ctl_mkimage.c (built by the suite), after a power
# cut (--unclean): the load drops clean records, so before it checked
# every block it loaded a dirty entry whose twin block holds a clean
# record of its own (twin-used) without complaint, as `fcachectl check`
# does not.  The undamaged pair loads (the control).
MK=$FC_TOP/build/vm/ctl_mkimage
w0=$(mk_fast_disk 64) && w1=$(mk_fast_disk 64) || die "disks w0 w1"
# w_load KIND: the pair (damage KIND, or none) on w0 and w1, loaded as mw
w_load() {
	_wd=
	[ "$1" = none ] || _wd="--damage $1"
	# shellcheck disable=SC2086
	"$MK" $IMG/w0.img --mirror $IMG/w1.img --unclean $_wd >/dev/null &&
		dd if=$IMG/w0.img of="$w0" bs=1M oflag=direct 2>/dev/null &&
		dd if=$IMG/w1.img of="$w1" bs=1M oflag=direct 2>/dev/null &&
		fc_pool mw "$w0" 64 mirror "$w1"
}
check w-undamaged-loads w_load none
[ -b /dev/mapper/mw ] && dm_remove mw
dmesg -C
check_fails w-twin-used-refused w_load twin-used
[ -b /dev/mapper/mw ] && dm_remove mw
check w-says-used-twice sh -c "dmesg | grep -q 'used twice'"
rm -f $IMG/w0.img $IMG/w1.img

check rmmod unload_fcache
dmesg_clean
finish
