#!/bin/sh
# dm-fcache fence_hold (issue 37, docs/CLUSTER.md "Two hosts", docs/TABLES.md):
# a mirrored pool with fence_hold 1 that loses a copy acknowledges no
# REQ_PREFLUSH and no REQ_FUA write until the message peer_outdated (the
# cluster has recorded the other copy outdated): a host that starts on the
# other copy after this one dies cannot miss a write this one acknowledged
# as durable.  Checked:
#   - mirrored: flushes complete; status field 21 (acks) says open;
#   - a leg fails: writes, reads and the leg's failure go on, the pool says
#     degraded and acks held, the kernel log says why; an fdatasync and an
#     O_DSYNC (FUA) write stay pending (checked after 3 s: a slow machine
#     can only make this pass later, never fail it);
#   - peer_outdated: both complete with success, acks open, later flushes
#     complete; every write reads back byte for byte;
#   - a replaced leg resynced, then the other leg failing under a commit:
#     the flush that commit was for is held too, as is the next (the
#     record is per loss), and the message "fence_hold 0" lets them go;
#   - loaded degraded (mirror - degraded 1) with fence_hold: held from the
#     start until peer_outdated; the data reads back.
FC_T=fc_fencehold
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
T=/tmp/fc_fencehold
mkdir -p $T

load_fcache || die "insmod failed" module-load
d0=$(mk_fast_disk 32) && d1=$(mk_fast_disk 32) && d2=$(mk_fast_disk 32) &&
	org=$(mk_fast_disk 64) || die "disks"
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0 fence_hold 1"
P_RED=16 P_LEGS=18 P_ACKS=21
dm_create l0 "0 $(dev_sectors "$d0") linear $d0 0" &&
	dm_create l1 "0 $(dev_sectors "$d1") linear $d1 0" || die "legs"
# shellcheck disable=SC2086
check create fc_pool mp /dev/mapper/l0 64 mirror /dev/mapper/l1 $OPTS
check vol fc_vol mv mp "$org" 1 writeback
field_is mirrored /dev/mapper/mp $P_RED = mirrored
field_is acks-open /dev/mapper/mp $P_ACKS = open
check status-fields sh -c '[ "$(dmsetup status mp | awk "{ print NF - 3 }")" = 23 ]'

pattern_file $T/p1 1024 && pattern_file $T/p2 64 && pattern_file $T/p3 64 &&
	pattern_file $T/p4 64 && pattern_file $T/p5 64 || die "patterns"
# region WHAT KIB_OFFSET FILE: the volume holds FILE at that offset
region() {
	_sz=$(($(stat -c %s "$3") / 1024))
	if dd if=/dev/mapper/mv bs=1k skip="$2" count="$_sz" iflag=direct status=none | cmp -s - "$3"; then
		pass "$1"
	else
		fail "$1" "differs at ${2} KiB"
	fi
}
# bg_sync NAME FILE KIB_OFFSET FLAG: a write of FILE in the background:
# FLAG fdatasync (conv=fdatasync: a REQ_PREFLUSH after it) or dsync
# (oflag=dsync: REQ_FUA); its exit status in $T/NAME.rc when it ends
bg_sync() {
	rm -f "$T/$1.rc"
	case $4 in
	fdatasync) set -- "$1" "$2" "$3" conv=fdatasync oflag=direct ;;
	dsync) set -- "$1" "$2" "$3" oflag=direct,dsync ;;
	esac
	(dd if="$2" of=/dev/mapper/mv bs=64k seek=$(($3 / 64)) "$4" ${5:+"$5"} status=none; echo $? >"$T/$1.rc") &
}
ended_ok() { [ "$(cat "$T/$1.rc" 2>/dev/null)" = 0 ]; }
pending() {
	sleep 3
	if [ -e "$T/$2.rc" ]; then fail "$1" "it ended (status $(cat "$T/$2.rc")) while held"; else pass "$1"; fi
}

check mirrored-write dd if=$T/p1 of=/dev/mapper/mv bs=64k oflag=direct conv=fdatasync status=none
dmesg -C
check fail-leg swap_error l1
check write-on-failure dd if=$T/p2 of=/dev/mapper/mv bs=64k seek=32 oflag=direct status=none
check degraded poll_until 300 status_is mp $P_RED degraded
field_is held /dev/mapper/mp $P_ACKS = held
check log-says-held sh -c "dmesg | grep -q 'fence_hold: flushes and FUA writes wait'"
bg_sync s1 $T/p3 2112 fdatasync
bg_sync f1 $T/p4 2176 dsync
pending fdatasync-held s1
pending fua-held f1
check plain-write-goes-on timeout 120 dd if=$T/p5 of=/dev/mapper/mv bs=64k seek=35 oflag=direct status=none
check read-goes-on timeout 120 dd if=/dev/mapper/mv of=/dev/null bs=64k count=16 iflag=direct status=none
field_is still-held /dev/mapper/mp $P_ACKS = held
check release dmsetup message mp 0 peer_outdated
check fdatasync-acked poll_until 1200 ended_ok s1
check fua-acked poll_until 1200 ended_ok f1
field_is acks-open-again /dev/mapper/mp $P_ACKS = open
check log-says-released sh -c "dmesg | grep -q 'peer_outdated: the other copy is recorded outdated'"
bg_sync s2 $T/p2 2048 fdatasync
check next-flush-at-once poll_until 1200 ended_ok s2
region p1-back 0 $T/p1
region p2-back 2048 $T/p2
region p3-back 2112 $T/p3
region p4-back 2176 $T/p4
region p5-back 2240 $T/p5

# ---- a replaced leg, resynced; then the other one fails: held again
check vacated poll_until 600 vacated
check replace "$CTL" pool replace mp "$d2" --no-persist
mirrored_ok() { status_is mp $P_RED mirrored && status_is mp $P_LEGS ok,ok; }
check resynced poll_until 1800 mirrored_ok
field_is open-when-mirrored /dev/mapper/mp $P_ACKS = open
# the leg fails under a commit: a flush whose commit was writing to it
# when it failed is held too (the commit ends on the other leg, which
# records the failure: one copy).  l0 suspended holds the commit's writes;
# 2 s is plenty for the commit to start (had it not, the flush would come
# after the failure and be held anyway: never a wrong failure)
# (no periodic commit: the flush's own commit is the one the leg fails under)
check no-tick-commit dmsetup message mp 0 commit_interval 0
check write-before-commit dd if=$T/p3 of=/dev/mapper/mv bs=64k seek=40 oflag=direct status=none
check hang-l0 dmsetup suspend --noflush --nolockfs l0
rm -f $T/c1.rc
(python3 -c "import os; fd = os.open('/dev/mapper/mv', os.O_RDONLY); os.fsync(fd)"; echo $? >$T/c1.rc) &
sleep 2
check fail-other-leg-under-commit sh -c "printf '%s\n' '0 $(dev_sectors /dev/mapper/l0) error' | dmsetup reload l0 && dmsetup resume l0"
pending flush-of-commit-in-flight-held c1
check degraded-again poll_until 300 status_is mp $P_RED degraded
field_is held-again /dev/mapper/mp $P_ACKS = held
bg_sync s3 $T/p4 2624 fdatasync
pending fdatasync-held-again s3
check hold-off dmsetup message mp 0 fence_hold 0
check fdatasync-acked-hold-off poll_until 1200 ended_ok s3
check commit-flush-acked-hold-off poll_until 1200 ended_ok c1
field_is open-hold-off /dev/mapper/mp $P_ACKS = open
check hold-on dmsetup message mp 0 fence_hold 1
field_is held-hold-on /dev/mapper/mp $P_ACKS = held
check release-2 dmsetup message mp 0 peer_outdated
region p3-on-d2 2560 $T/p3
region p4-on-d2 2624 $T/p4

# ---- loaded degraded on the replaced device alone: held from the start
check vacated-2 poll_until 600 vacated
check remove-vol dm_remove mv
check remove-pool dm_remove mp
check load-degraded fc_pool mp "$d2" 64 mirror - degraded 1 fence_hold 1
check vol-degraded fc_vol mv mp "$org" 1 writeback
field_is held-at-load /dev/mapper/mp $P_ACKS = held
bg_sync s4 $T/p5 2688 fdatasync
pending fdatasync-held-at-load s4
check release-3 dmsetup message mp 0 peer_outdated
check fdatasync-acked-at-load poll_until 1200 ended_ok s4
region p1-at-load 0 $T/p1
region p4-at-load 2624 $T/p4
region p5-at-load 2688 $T/p5
check remove-vol-2 dm_remove mv
check remove-pool-2 dm_remove mp
dm_remove l0
dm_remove l1
dmesg_clean
finish
