#!/bin/sh
# dm-fcache power-cut test, one boot of a cycle (driven by
# tests/suites/33-fcache-crash.sh; the host kills qemu while we write).
#   fc_crash.sh CYCLE PREV_SEED NEW_SEED
#     flash /dev/vdb, origin /dev/vdc, state and logs in /results.
#     PREV_SEED 0: first boot (fresh images): format the pool.
#     PREV_SEED n: recover, then check the epoch written with seed n against
#                  its durable-flush log (tests/guest/fc_crashio.c).
#     NEW_SEED m:  start writing epoch m until the power cut.
#     NEW_SEED 0:  final boot: flush, remove, the origin alone must be exact.
FC_T=fc_crash
. "$FC_TOP/tests/guest/lib.sh"
cyc=$1 prev=$2 new=$3
K=16
CIO=$FC_TOP/build/vm/fc_crashio
[ -x "$CIO" ] || die "no $CIO (the suite builds it)"
[ -b /dev/vdb ] && [ -b /dev/vdc ] || die "need /dev/vdb and /dev/vdc"
N=$(($(dev_sectors /dev/vdc) / 8))
load_fcache || die "insmod failed" module-load

if [ "$prev" = 0 ]; then
	"$CIO" init /results/state "$N" || die "state init"
fi
check boot$cyc-pool-load fc_pool cpool /dev/vdb 64 writeback_high 90 writeback_low 30 commit_interval 500
[ -b /dev/mapper/cpool ] || finish
info "pool after load: $(dmsetup status cpool)"
field_is boot$cyc-pool-rw /dev/mapper/cpool $P_MDMODE = rw
check boot$cyc-volume-load fc_vol cv cpool /dev/vdc 1 writeback sequential_cutoff 0
[ -b /dev/mapper/cv ] || finish
info "volume after load: $(dmsetup status cv)"

if [ "$prev" != 0 ]; then
	if "$CIO" check /dev/mapper/cv "$N" /results/state "$prev" $K "/results/log.$prev"; then
		pass "cut$((cyc - 1))-durable-data-exact"
	else
		fail "cut$((cyc - 1))-durable-data-exact" "blocks differ after the power cut"
		dmesg_clean
		finish
	fi
fi

if [ "$new" != 0 ]; then
	: >"/results/log.$new"
	echo "FC-CRASH-WRITING $new"
	"$CIO" write /dev/mapper/cv "$N" "$new" $K "/results/log.$new"
	fail "boot$cyc-writer" "the writer stopped before the power cut (rc $?)"
	finish
fi

# final boot
check final-flush dmsetup message cv 0 flush
field_is final-clean /dev/mapper/cv $V_DIRTY -eq 0
check final-remove-volume dm_remove cv
check final-remove-pool dm_remove cpool
check final-origin-exact "$CIO" exact /dev/vdc "$N" /results/state
"$CIO" corrupt /dev/vdc "$N" /results/state >/dev/null
check_fails final-corruption-detected "$CIO" exact /dev/vdc "$N" /results/state
check final-rmmod unload_fcache
dmesg_clean
finish
