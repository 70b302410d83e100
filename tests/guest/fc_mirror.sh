#!/bin/sh
# dm-fcache mirrored pools (issue 11, docs/DESIGN.md "Two-device pool"):
# dirty data has a copy on each of two flash devices, so either device alone
# recovers every acknowledged write, after a clean shutdown and after a
# power cut (images of both devices taken while the pool ran, after a
# flush); clean data is cached once, on either device.  Devices that do not
# belong together (another pool's, a stale one, split brain, a blank one)
# are refused with a clear error, and a device given in the other order is
# recognized.  Data is checked byte for byte (fio crc32c verify).  Last,
# fcachectl: pool create over two devices, status (text and JSON), one
# device alone refused without --degraded, check of a pair.
FC_T=fc_mirror
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
f0=$(mk_fast_disk 48) && f1=$(mk_fast_disk 40) && org=$(mk_fast_disk 96) &&
	g0=$(mk_fast_disk 24) && g1=$(mk_fast_disk 24) && blank=$(mk_fast_disk 40) &&
	ok=$(mk_fast_disk 16) || die "disks"
# Writeback only when flushed: dirty data stays dirty (and a keeper below
# keeps the pool busy while the images are taken: no idle writeback, no
# commit, so reading one device after the other is one moment's image).
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
IMG=/tmp/fc_mirror
mkdir -p $IMG

# mpool NAME FIRST [OPT WORDS...]: a pool table of device FIRST's length
mpool() {
	_mpn=$1 _mpf=$2; shift 2
	dm_create "$_mpn" "0 $(dev_sectors "$_mpf") fcache-pool $_mpf 64 $# $*"
}
# refused NAME TEXT FIRST [OPT WORDS...]: the table is refused, saying TEXT
refused() {
	_t=$1 _w=$2; shift 2
	dmesg -C
	if mpool mref "$@" 2>/dev/null; then
		fail "$_t" "table accepted: $*"
		dm_remove mref
		return
	fi
	if dmesg | grep -q "$_w"; then pass "$_t"; else fail "$_t" "no '$_w' in: $(dmesg | grep fcache | tail -n 2 | tr '\n' ' ')"; fi
}
# O_DIRECT both ways: the page cache of the devices never sees the pool's bios
snap() {
	dd if="$f0" of=$IMG/f0 bs=1M iflag=direct 2>/dev/null &&
		dd if="$f1" of=$IMG/f1 bs=1M iflag=direct 2>/dev/null
}
restore() {
	dd if=$IMG/f0 of="$f0" bs=1M oflag=direct 2>/dev/null &&
		dd if=$IMG/f1 of="$f1" bs=1M oflag=direct 2>/dev/null
}
# wait_synced: the pool's lone_dirty_blocks reaches 0 (resync done), bounded
wait_synced() {
	_i=0
	while [ "$(status_field mp $P_LONE)" != 0 ] && [ $_i -lt 600 ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	[ "$(status_field mp $P_LONE)" = 0 ]
}
P_RED=16 P_LONE=17 P_LEGS=18
# red_consistent: one status line says mirrored with no lone dirty block,
# or degraded with some
red_consistent() {
	dmsetup status mp | awk -v r=$((P_RED + 3)) -v l=$((P_LONE + 3)) \
		'{ if (!(($r == "mirrored" && $l == 0) || ($r == "degraded" && $l > 0))) { print $r " " $l; exit 1 } }'
}

J1="--rw=randwrite --bsrange=4k-64k --size=24M --iodepth=8 --randseed=11"
J2="--rw=randwrite --bsrange=4k-32k --size=16M --offset=32M --iodepth=8 --randseed=22"
J3="--rw=randwrite --bs=2k --size=2M --offset=64M --iodepth=4 --randseed=33"

# ---- a mirrored pool: both devices' capacity, dirty data on both ----
check create mpool mp "$f0" mirror "$f1" $OPTS
[ -b /dev/mapper/mp ] || finish
field_is status-mirrored /dev/mapper/mp $P_RED = mirrored
field_is status-legs-ok /dev/mapper/mp $P_LEGS = ok,ok
field_is status-no-lone-dirty /dev/mapper/mp $P_LONE -eq 0
total=$(status_field mp $P_TOTAL)
# 48 + 40 MiB of 32 KiB blocks, less the metadata: more than either device
[ "${total:-0}" -gt 1600 ] && pass capacity-of-both || fail capacity-of-both "total $total blocks"
check table-reads-back sh -c "dmsetup table mp | grep -q ' mirror '"
check vol-create fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check keeper-create fc_vol mk mp "$ok" 9 passthrough
start_keeper /dev/mapper/mk
check write-dirty fio_verify /dev/mapper/mv $J1
check write-dirty-2 fio_verify /dev/mapper/mv $J2
# writes smaller than a sub-block over clean cached data (fills both copies)
check read-then-small-writes sh -c "dd if=/dev/mapper/mv of=/dev/null bs=1M skip=64 count=2 iflag=direct 2>/dev/null && dd if=/dev/mapper/mv of=/dev/null bs=1M skip=64 count=2 iflag=direct 2>/dev/null"
check write-small fio_verify /dev/mapper/mv $J3
field_is vol-dirty /dev/mapper/mv $V_DIRTY -gt 0
field_is pool-still-no-lone /dev/mapper/mp $P_LONE -eq 0
dirty=$(status_field mv $V_DIRTY)
info "dirty blocks: $dirty"
check_fails origin-not-yet-written fio_verify "$org" $J1 --verify_only=1
# a REQ_PREFLUSH (fsync of the device): every write above is now durable
check fsync-volume sync /dev/mapper/mv

# ---- power cut: images of both devices while the pool runs (after a flush) ----
check cut-images snap
kill $keeper; wait $keeper 2>/dev/null
check remove-keeper dm_remove mk
check remove-vol dm_remove mv
check remove-pool dm_remove mp

# each device alone, from the power-cut images: every flushed write is there
for leg in f1 f0; do
	check "cut-restore-$leg" restore
	eval dev=\$$leg
	check "cut-$leg-alone-load" mpool mp "$dev" mirror - degraded 1 $OPTS
	field_is "cut-$leg-alone-degraded" /dev/mapper/mp $P_RED = degraded
	field_is "cut-$leg-alone-lone" /dev/mapper/mp $P_LONE -gt 0
	check "cut-$leg-alone-vol" fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
	check "cut-$leg-alone-J1" fio_verify /dev/mapper/mv $J1 --verify_only=1
	check "cut-$leg-alone-J2" fio_verify /dev/mapper/mv $J2 --verify_only=1
	check "cut-$leg-alone-J3" fio_verify /dev/mapper/mv $J3 --verify_only=1
	# no new dirty data with one copy: writes of new blocks go around
	d0=$(status_field mp $P_DIRTY)
	check "cut-$leg-alone-new-write" fio_verify /dev/mapper/mv --rw=write --bs=64k --size=4M --offset=88M
	d1=$(status_field mp $P_DIRTY)
	[ "$d1" -le "$d0" ] && pass "cut-$leg-alone-no-new-dirty" || fail "cut-$leg-alone-no-new-dirty" "dirty $d0 -> $d1"
	check "cut-$leg-alone-remove-vol" dm_remove mv
	check "cut-$leg-alone-remove-pool" dm_remove mp
done

# ---- resync: after a power cut, the second copies are made to agree ----
# Damage every second copy on f1 whose first copy is on f0 (as a write in
# flight at the cut could have): the load with both devices resyncs them
# from f0, so f1 alone then holds every flushed write.
check resync-restore restore
timeout 300 python3 "$FC_TOP/tests/guest/fc_twins.py" $IMG/f0 "$f1" >$IMG/twins 2>$IMG/twins.err || info "fc_twins.py: $(tail -n 3 $IMG/twins.err)"
n=$(wc -l <$IMG/twins)
info "second copies damaged on f1: $n"
[ "$n" -gt 0 ] && pass resync-twins-damaged || fail resync-twins-damaged "no twin on f1 found"
dmesg -C
check resync-load mpool mp "$f0" mirror "$f1" $OPTS
check resync-announced sh -c "dmesg | grep -q 'dirty blocks to resync'"
check resync-finishes wait_synced
check resync-remove-pool dm_remove mp
check resync-f1-alone mpool mp "$f1" mirror - degraded 1 $OPTS
check resync-f1-alone-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check resync-f1-alone-J1 fio_verify /dev/mapper/mv $J1 --verify_only=1
check resync-f1-alone-J2 fio_verify /dev/mapper/mv $J2 --verify_only=1
check resync-f1-alone-J3 fio_verify /dev/mapper/mv $J3 --verify_only=1
check resync-f1-alone-remove-vol dm_remove mv
check resync-f1-alone-remove-pool dm_remove mp

# ---- both devices back from the images: mirrored again, all data there ----
check both-restore restore
check both-load mpool mp "$f0" mirror "$f1" $OPTS
# an unclean load: copies that may differ count as one copy until resynced,
# and the pool says mirrored only once none is left (issue 32)
check both-redundancy-consistent red_consistent
check both-synced wait_synced
field_is both-mirrored /dev/mapper/mp $P_RED = mirrored
check both-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check both-J1 fio_verify /dev/mapper/mv $J1 --verify_only=1
check both-J3 fio_verify /dev/mapper/mv $J3 --verify_only=1
check both-remove-vol dm_remove mv
check both-remove-pool dm_remove mp

# ---- the devices in the other order: recognized by their superblocks ----
check swapped-load mpool mp "$f1" mirror "$f0" $OPTS
field_is swapped-mirrored /dev/mapper/mp $P_RED = mirrored
check swapped-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check swapped-J2 fio_verify /dev/mapper/mv $J2 --verify_only=1
check swapped-remove-vol dm_remove mv
check swapped-remove-pool dm_remove mp

# ---- refusals ----
refused refuse-leg-alone "one leg of a mirrored pool" "$f0" $OPTS
refused refuse-missing-without-degraded "needs degraded 1" "$f0" mirror - $OPTS
refused refuse-blank-partner "joins only by replacing" "$f0" mirror "$blank" $OPTS
check other-pool mpool mq "$g0" mirror "$g1" $OPTS
check other-pool-remove dm_remove mq
refused refuse-foreign "not legs of the same pool" "$f0" mirror "$g1" $OPTS
refused refuse-same-device "same device" "$f0" mirror "$f0" $OPTS
refused refuse-two-leg0 "same leg" "$f0" mirror "$g0" $OPTS
# a stale device: the pool ran degraded without it
check stale-run-f1 mpool mp "$f1" mirror - degraded 1 $OPTS
check stale-run-f1-remove dm_remove mp
refused refuse-stale "is stale" "$f0" mirror "$f1" $OPTS
# split brain: each device ran without the other
check split-run-f0 mpool mp "$f0" mirror - degraded 1 $OPTS
check split-run-f0-remove dm_remove mp
refused refuse-split-brain "split brain" "$f0" mirror "$f1" $OPTS

# ---- after a flush the origin alone is exact ----
check final-restore restore
check final-load mpool mp "$f0" mirror "$f1" $OPTS
check final-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check final-flush dmsetup message mv 0 flush
field_is final-clean /dev/mapper/mv $V_DIRTY -eq 0
check final-remove-vol dm_remove mv
check final-remove-pool dm_remove mp
check origin-J1 fio_verify "$org" $J1 --verify_only=1
check origin-J2 fio_verify "$org" $J2 --verify_only=1
check origin-J3 fio_verify "$org" $J3 --verify_only=1
# ---- fcachectl: create, status, one device alone, check of a pair ----
# g0 and g1 are the two legs of pool mq (above), shut down cleanly.
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
# ctl NAME WANT_EXIT CMD...: exit status as wanted; stderr in $L/ctl.err
ctl() {
	_cn=$1 _cw=$2; shift 2
	"$@" >"$L/ctl.out" 2>"$L/ctl.err"
	_cg=$?
	[ "$_cg" -eq "$_cw" ] && pass "$_cn" || fail "$_cn" "exit $_cg, wanted $_cw: $(head -c 300 "$L/ctl.err")"
}
# js NAME FILE PYTHON-EXPR-USING-p: p is the pool named pc of a status document
js() {
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=[x for x in d['pools'] if x['name']=='pc'][0]; assert ($3), p" "$2" >"$L/js.err" 2>&1; then
		pass "$1"
	else
		fail "$1" "$(tail -n 2 "$L/js.err" | tr '\n' ' ')"
	fi
}
ctl ctl-create 0 "$CTL" pool create pc "$g0" "$g1"
check ctl-table-mirror sh -c "dmsetup table pc | grep -q ' mirror '"
"$CTL" status --json >"$L/st.json" 2>/dev/null
js ctl-json-mirrored "$L/st.json" "p['redundancy'] == 'mirrored' and [x['state'] for x in p['devices']] == ['ok', 'ok'] and [x['leg'] for x in p['devices']] == [0, 1] and p['lone_dirty_blocks'] == 0"
check ctl-json-schema python3 "$FC_TOP/tests/host/json_schema.py" "$L/st.json"
ctl ctl-remove 0 "$CTL" pool remove pc
ctl ctl-other-order 0 "$CTL" pool create pc "$g1" "$g0"
"$CTL" status --json >"$L/st2.json" 2>/dev/null
js ctl-other-order-leg-order "$L/st2.json" "[x['path'] for x in p['devices']] == ['$g0', '$g1']"
ctl ctl-remove-2 0 "$CTL" pool remove pc
ctl ctl-one-leg-refused 1 "$CTL" pool create pc "$g0"
grep -q -- --degraded "$L/ctl.err" && pass ctl-one-leg-says-degraded || fail ctl-one-leg-says-degraded "$(head -c 300 "$L/ctl.err")"
check_fails ctl-one-leg-no-device test -e /dev/mapper/pc
ctl ctl-degraded 0 "$CTL" pool create pc "$g0" --degraded
"$CTL" status >"$L/st.txt" 2>&1
grep -q DEGRADED "$L/st.txt" && pass ctl-status-says-degraded || fail ctl-status-says-degraded "$(head -n 3 "$L/st.txt" | tr '\n' ' ')"
"$CTL" status --json >"$L/st3.json" 2>/dev/null
js ctl-json-degraded "$L/st3.json" "p['redundancy'] == 'degraded' and p['devices'][1]['state'] == 'missing' and p['devices'][1]['path'] is None"
ctl ctl-remove-3 0 "$CTL" pool remove pc
ctl ctl-check-pair-stale 1 "$CTL" check "$g0" "$g1" --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['outcome'] == 'stale' and d['older_device'] == sys.argv[2], d" "$L/ctl.out" "$g1" >"$L/js.err" 2>&1 &&
	pass ctl-check-pair-names-stale || fail ctl-check-pair-names-stale "$(tail -n 1 "$L/js.err")"
ctl ctl-stale-pair-refused 1 "$CTL" pool create pc "$g0" "$g1"
check_fails ctl-stale-pair-no-device test -e /dev/mapper/pc
ctl ctl-check-pair-in-sync 0 "$CTL" check "$f0" "$f1"

check rmmod unload_fcache
dmesg_clean
finish
