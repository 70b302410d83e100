#!/bin/sh
# dm-fcache data integrity: fio crc32c verify in every mode, four volumes
# sharing one 48 MB pool with a 4 x 80 MB working set, mixed 4k-64k and odd
# 512-byte-aligned sizes; then flush, remove the volumes and verify every
# origin alone with fio's verify-only pass (byte for byte).
FC_T=fc_integrity
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
flash=$(mk_brd_flash 48) || die "brd"
check pool-create fc_pool ipool "$flash" 64
[ -b /dev/mapper/ipool ] || finish
modes="writeback writethrough writearound passthrough"
for m in $modes; do
	eval "org_$m=\$(mk_fast_disk 96)" || die "origin"
	eval "o=\$org_$m"
	check $m-create fc_vol "i$m" ipool "$o" "$(echo $modes | tr ' ' '\n' | grep -n "^$m\$" | cut -d: -f1)" $m sequential_cutoff 0
done

# JOBn: the fio job of phase n (same arguments for the verify-only pass)
JOB1="--rw=randwrite --bsrange=4k-64k --offset=0 --size=64M --iodepth=16 --randseed=1234"
JOB2="--rw=randwrite --bsrange=512-60k --blockalign=512 --offset=64M --size=16M --iodepth=8 --randseed=4321"

# run_all PHASE_NAME EXTRA JOB: one fio per volume, in parallel
run_all() {
	_ph=$1 _ex=$2; shift 2
	for m in $modes; do
		# shellcheck disable=SC2086
		( fio_verify "$(eval echo \$dev_$m)" $* $_ex; echo $? >"/tmp/rc-$_ph-$m" ) &
	done
	wait
	for m in $modes; do
		if [ "$(cat "/tmp/rc-$_ph-$m")" = 0 ]; then pass "$m-$_ph"; else fail "$m-$_ph" "fio verify failed"; fi
	done
}

for m in $modes; do eval "dev_$m=/dev/mapper/i$m"; done
run_all mixed-4k-64k "" $JOB1
run_all reread-4k-64k "--verify_only=1" $JOB1
run_all odd-512-sizes "" $JOB2
run_all reread-odd "--verify_only=1" $JOB2
info "pool: $(dmsetup status ipool)"
for m in $modes; do info "$m: $(dmsetup status i$m)"; done
field_is pool-was-used /dev/mapper/ipool $P_USED -gt 0
field_is writeback-promoted-or-written /dev/mapper/iwriteback $V_WRITES -gt 0
field_is writethrough-cached /dev/mapper/iwritethrough $V_CACHED -gt 0
field_is passthrough-uncached /dev/mapper/ipassthrough $V_CACHED -eq 0
field_is no-volume-errors /dev/mapper/iwriteback $V_ERRORS -eq 0

check pool-flush dmsetup message ipool 0 flush
field_is pool-clean /dev/mapper/ipool $P_DIRTY -eq 0
for m in $modes; do check $m-remove dm_remove "i$m"; done
check pool-remove dm_remove ipool
for m in $modes; do eval "dev_$m=\$org_$m"; done
run_all origin-exact-4k-64k "--verify_only=1" $JOB1
run_all origin-exact-odd "--verify_only=1" $JOB2
check rmmod unload_fcache
dmesg_clean
finish
