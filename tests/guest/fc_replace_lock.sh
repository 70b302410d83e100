#!/bin/sh
# dm-fcache: a replace holds no module-wide lock across its commits
# (issue 32 item 6; docs/DESIGN.md "Replace and resync of a new device").
# The new device's writes are held (dm-delay, 600 s) until this script
# lets them go, so the replace's commit, which writes every metadata page
# to both devices, cannot end before; the replace is then at the step a
# real pool spends minutes in (133k metadata pages per TiB).  Meanwhile,
# each within BOUND seconds:
#   other-*   a second pool on devices of its own is created, its status
#             read, a volume of it created, written and read back byte for
#             byte, both removed; the status of the pool being replaced is
#             read too (the module before this test held its registry lock
#             across the whole replace: all of these waited for it)
#   same-*    a second volume of the pool being replaced is created and
#             read; its removal ends only after the replace's commit (it
#             commits too), and successfully
#   reload-*  a reload of the pool being replaced waits for the replace
#             (it must see the pool before or after it, never in between),
#             then loads: the table naming both devices, which resumes;
#             the stale one (mirror - degraded 1) is refused
# Then the writes go on: the replace succeeds, every block reads back byte
# for byte and the pool resyncs to mirrored.
FC_T=fc_replace_lock
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod $FC_KO failed" module-load
modprobe dm-delay || die "no dm-delay" dm-delay
BOUND=15
BS=64
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
NOPTS=$(echo $OPTS | wc -w)
P_RED=16 P_LONE=17 P_LEGS=18
IMG=/tmp/fc_replace_lock
mkdir -p $IMG

d0=$(mk_fast_disk 64) && d1=$(mk_fast_disk 64) && d2=$(mk_fast_disk 64) &&
	org=$(mk_fast_disk 96) && ok=$(mk_fast_disk 16) && worg=$(mk_fast_disk 16) &&
	qf=$(mk_fast_disk 32) && qorg=$(mk_fast_disk 32) || die "disks"
S=$(dev_sectors "$d0")
OS=$(dev_sectors "$org")

synced() { status_is mp $P_RED mirrored && status_is mp $P_LONE 0; }
# pool_table LEG1 [WORDS...]: a table of mp, l0 and LEG1, WORDS added
pool_table() {
	_l=$1; shift
	echo "0 $S fcache-pool /dev/mapper/l0 $BS $((2 + $# + NOPTS)) mirror $_l $* $OPTS"
}
# replace: load mp with l2 replacing the failed leg 1, suspend, resume
replace() {
	dm_reload mp "$(pool_table /dev/mapper/l2 replace 1)" &&
		dmsetup suspend mp && dmsetup resume mp
}
# busy PID: PID has not ended
busy() { kill -0 "$1" 2>/dev/null; }

# within NAME CMD...: CMD ends, successfully, within BOUND seconds.  One
# still running then (blocked by the replace) is waited for after it.
late=""
within() {
	_n=$1; shift
	"$@" >"$IMG/$_n.out" 2>&1 &
	_p=$!
	_t=0
	while busy $_p && [ $_t -lt $((BOUND * 10)) ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	if busy $_p; then
		fail "$_n" "still running after $BOUND s: it waits for the replace"
		late="$late $_p"
		return 1
	fi
	if wait $_p; then
		pass "$_n"
		return 0
	fi
	fail "$_n" "$(tail -n 3 "$IMG/$_n.out" | tr '\n' ' ')"
	return 1
}

# other_vol_io: a write to the other pool's volume reads back
other_vol_io() {
	dd if=$IMG/q of=/dev/mapper/qv bs=1M oflag=direct conv=fsync status=none &&
		dd if=/dev/mapper/qv bs=1M count=4 iflag=direct status=none | cmp - $IMG/q
}
# other_pool: the second pool's life, one step a bound; stops at the first
# that fails (the rest would wait for the same lock)
other_pool() {
	within other-pool-create fc_pool qp "$qf" $BS &&
		within other-pool-status dmsetup status qp &&
		within other-vol-create fc_vol qv qp "$qorg" 1 writeback sequential_cutoff 0 &&
		within other-vol-io other_vol_io &&
		within other-vol-remove dm_remove qv &&
		within other-pool-remove dm_remove qp
}

# ---- a mirrored pool with dirty data; its second device fails ----
check legs dm_create l0 "0 $S linear $d0 0"
check legs1 dm_create l1 "0 $S linear $d1 0"
# the new device: reads at once, writes (and flushes) held 600 s
check new-leg-held dm_create l2 "0 $S delay $d2 0 0 $d2 0 600000"
# the origin writes slowly: the degraded pool's dirty data is still dirty
# at the replace (its join and commit have work to do)
check slow-origin dm_create og "0 $OS delay $org 0 0 $org 0 4000"
check create fc_pool mp /dev/mapper/l0 $BS mirror /dev/mapper/l1 $OPTS
[ -b /dev/mapper/mp ] || finish
check vol fc_vol mv mp /dev/mapper/og 1 writeback sequential_cutoff 0
check keeper-vol fc_vol mk mp "$ok" 9 passthrough
start_keeper /dev/mapper/mk
check pattern pattern_file $IMG/pat $((8 * 1024))
check pattern-q pattern_file $IMG/q $((4 * 1024))
check write dd if=$IMG/pat of=/dev/mapper/mv bs=1M oflag=direct conv=fsync status=none
field_is dirty /dev/mapper/mp $P_DIRTY = 256
check fail-l1 swap_table l1 "0 $S error"
check meet-failure dd if=$IMG/pat of=/dev/mapper/mv bs=$((BS * 512)) count=1 oflag=direct,dsync conv=notrunc status=none
check degraded poll_until 300 status_is mp $P_LEGS ok,failed
check vacated poll_until 600 vacated

# ---- the replace, held in its commit ----
replace >$IMG/replace.out 2>&1 &
rp=$!
check replace-attached poll_until 600 sh -c "dmesg | grep -q 'replace: .* is leg 1 now'"
if busy $rp; then pass replace-held; else fail replace-held "the replace ended with the new device's writes held"; fi

other_pool
within other-status-of-replaced dmsetup status mp
within same-vol-create fc_vol mw mp "$worg" 2 passthrough &&
	within same-vol-read sh -c "dd if=/dev/mapper/mw bs=1M count=4 iflag=direct status=none | cmp -n 4194304 - $worg"
srp=""
if [ -b /dev/mapper/mw ]; then
	dm_remove mw >$IMG/same-remove.out 2>&1 &
	srp=$!
fi
dm_reload mp "$(pool_table /dev/mapper/l2)" >$IMG/reload.out 2>&1 &
rlp=$!
sleep 2
if busy $rlp; then pass reload-waits; else fail reload-waits "a reload of the pool ended during its replace"; fi
if busy $rp; then pass replace-still-held; else fail replace-still-held "the replace ended with the new device's writes held"; fi

# ---- the new device's writes go on: the replace ends ----
check release swap_table l2 "0 $S linear $d2 0"
if wait $rp; then pass replace; else fail replace "$(tail -n 3 $IMG/replace.out | tr '\n' ' ')"; fi
for p in $late; do wait "$p"; done
if [ -z "$srp" ]; then
	fail same-vol-remove "no second volume to remove"
elif wait $srp; then
	pass same-vol-remove
else
	fail same-vol-remove "$(tail -n 3 $IMG/same-remove.out | tr '\n' ' ')"
fi
if wait $rlp; then pass reload-loads; else fail reload-loads "$(tail -n 3 $IMG/reload.out | tr '\n' ' ')"; fi
check reload-resumes sh -c "dmsetup suspend mp && dmsetup resume mp"
check reload-table sh -c "dmsetup table mp | grep -q ' mirror ' && ! dmsetup table mp | grep -q -e replace -e ' - '"
check_fails reload-stale-refused dm_reload mp "$(pool_table - degraded 1)"
field_is legs-in-service /dev/mapper/mp $P_LEGS != ok,failed
check reads sh -c "dd if=/dev/mapper/mv bs=1M count=8 iflag=direct status=none | cmp - $IMG/pat"
check fast-origin swap_table og "0 $OS linear $org 0"
check synced poll_until 1200 synced
field_is legs-ok /dev/mapper/mp $P_LEGS = ok,ok
check flush dmsetup message mp 0 flush
field_is clean /dev/mapper/mp $P_DIRTY = 0
kill "$keeper" 2>/dev/null
wait "$keeper" 2>/dev/null
check origin sh -c "dd if=$org bs=1M count=8 iflag=direct status=none | cmp - $IMG/pat"
# the other pool, if a bound failed above, went on after the replace
[ -b /dev/mapper/qv ] && dm_remove qv
[ -b /dev/mapper/qp ] && dm_remove qp
[ -b /dev/mapper/mw ] && dm_remove mw
dm_remove mk
dm_remove mv
dm_remove mp
for d in l0 l1 l2 og; do dm_remove $d; done
check rmmod unload_fcache
dmesg_clean
finish
