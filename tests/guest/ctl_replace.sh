#!/bin/sh
# fcachectl pool replace end to end (issue 11; docs/DESIGN.md "Replace and
# resync of a new device"), driven by fcachectl as tests/guest/fc_legfail.sh's
# last part is by dmsetup: pool create over two dm-linear legs, a volume
# enabled in writeback, fio writes (crc32c verify); the mirror leg is
# swapped for the dm error target and status says DEGRADED; pool replace
# refuses a pool that is not degraded, the device in service, a device too
# small and one with a filesystem; then 'pool replace POOL NEWDEV --wait'
# with a writer running brings a third leg in: status mirrored, legs ok,ok,
# the config names the new device; every write reads back; then the first
# leg fails too and every write still reads back, from the new device.
# Not in a suite yet (the lead wires it).
FC_T=ctl_replace
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
C=$L/replace.conf
: >"$C"

load_fcache || die "insmod failed" module-load
d0=$(mk_fast_disk 32) && d1=$(mk_fast_disk 32) && d2=$(mk_fast_disk 32) &&
	small=$(mk_fast_disk 16) && org=$(mk_fast_disk 64) && ok=$(mk_fast_disk 16) || die "disks"
P_RED=16 P_LONE=17 P_LEGS=18
J1="--rw=randwrite --bsrange=4k-64k --size=12M --iodepth=8 --randseed=51"
J2="--rw=randwrite --bs=8k --size=4M --offset=16M --iodepth=4 --randseed=52"
J3="--rw=randwrite --bs=8k --size=2M --offset=24M --iodepth=4 --randseed=53"
J4="--rw=randwrite --bs=16k --size=2M --offset=28M --iodepth=4 --randseed=54"

# rc NAME WANT CMD... : exit code check, output in $L/rc.out / $L/rc.err
rc() {
	_n=$1 _w=$2; shift 2
	"$@" >"$L/rc.out" 2>"$L/rc.err"
	_g=$?
	if [ "$_g" -eq "$_w" ]; then pass "$_n"; else fail "$_n" "exit $_g, wanted $_w: $(head -c 300 "$L/rc.err")"; fi
}
err_has() { if grep -q -- "$2" "$L/rc.err"; then pass "$1"; else fail "$1" "$(head -c 400 "$L/rc.err")"; fi; }
out_has() { if grep -q -- "$2" "$L/rc.out"; then pass "$1"; else fail "$1" "$(head -c 400 "$L/rc.out")"; fi; }
# same_dev A B: two paths of one block device
same_dev() { [ "$(majmin "$1")" = "$(majmin "$2")" ]; }

for d in "$d0" "$d1" "$d2" "$small"; do dd if=/dev/zero of="$d" bs=1M count=4 oflag=direct 2>/dev/null; done
check legs dm_create l0 "0 $(dev_sectors "$d0") linear $d0 0"
check leg1 dm_create l1 "0 $(dev_sectors "$d1") linear $d1 0"
check leg2 dm_create l2 "0 $(dev_sectors "$d2") linear $d2 0"
check leg-small dm_create ls "0 $(dev_sectors "$small") linear $small 0"
# dirty data stays dirty until a flush asks (no idle writeback)
rc create 0 "$CTL" pool create mp /dev/mapper/l0 /dev/mapper/l1 writeback_high=100 writeback_low=100 max_dirty_age=0
[ -b /dev/mapper/mp ] || finish
rc enable 0 "$CTL" enable "$org" --pool mp --mode writeback --name mv --id 1 --sequential-cutoff 0 -c "$C"
check conf-has-mirror sh -c "grep -q '^pool mp .* mirror=' '$C'"
# a reader on another volume: the pool is never idle (no idle writeback)
check keeper-vol fc_vol mk mp "$ok" 9 passthrough
start_keeper /dev/mapper/mk

check J1 fio_verify /dev/mapper/mv $J1
field_is mirrored /dev/mapper/mp $P_RED = mirrored
rc not-degraded 1 "$CTL" pool replace mp /dev/mapper/l2 -c "$C"
err_has not-degraded-says-so "pool mp is not degraded: nothing to replace"
check not-degraded-nothing-changed sh -c "dmsetup table mp | grep -q \"mirror $(majmin /dev/mapper/l1)\""

# the mirror device fails
check fail-l1 swap_error l1
check J2 fio_verify /dev/mapper/mv $J2
field_is degraded /dev/mapper/mp $P_LEGS = ok,failed
rc status-degraded 0 "$CTL" status mp
out_has status-says-degraded "DEGRADED: leg 1 failed"
rc replace-in-service 1 "$CTL" pool replace mp /dev/mapper/l0 -c "$C"
err_has replace-in-service-says-so "is the device in service of pool mp (leg 0)"
rc replace-too-small 1 "$CTL" pool replace mp /dev/mapper/ls -c "$C"
err_has replace-too-small-says-so "is smaller than leg 1 it replaces"
rc replace-no-pool 1 "$CTL" pool replace nopool /dev/mapper/l2 -c "$C"
err_has replace-no-pool-says-up "up --degraded"
if command -v mkfs.ext4 >/dev/null; then
	mkfs.ext4 -q -F /dev/mapper/l2 >/dev/null 2>&1
	rc replace-signature 1 "$CTL" pool replace mp /dev/mapper/l2 -c "$C"
	err_has replace-signature-says-force "use --force to overwrite it"
	check wipe-l2 dd if=/dev/zero of=/dev/mapper/l2 bs=1M count=4 oflag=direct
fi
field_is refusals-changed-nothing /dev/mapper/mp $P_LEGS = ok,failed

# the new device comes in online, with a writer running
fio_verify /dev/mapper/mv $J3 >$L/j3.err 2>&1 &
j3=$!
rc replace-wait 0 "$CTL" pool replace mp /dev/mapper/l2 --wait -c "$C"
out_has replace-says-what "pool mp: /dev/mapper/l2 replaces leg 1 (failed"
check replace-wait-ends-mirrored sh -c "tail -n 1 '$L/rc.out' | grep -q 'mirrored'"
if wait $j3; then pass writes-during-replace; else fail writes-during-replace "$(tail -n 4 $L/j3.err | tr '\n' ' ')"; fi
field_is resynced /dev/mapper/mp $P_RED = mirrored
field_is lone-zero /dev/mapper/mp $P_LONE = 0
field_is legs-ok /dev/mapper/mp $P_LEGS = ok,ok
rc status-mirrored 0 "$CTL" status mp
out_has status-says-mirrored "^pool mp on .*, mirrored$"
check table-names-new sh -c "dmsetup table mp | grep -q \"mirror $(majmin /dev/mapper/l2)\" && ! dmsetup table mp | grep -q replace"
check table-keeps-tunables sh -c "dmsetup table mp | grep -q 'writeback_high 100' && dmsetup table mp | grep -q 'max_dirty_age 0'"
m=$(sed -n 's/^pool mp .*mirror=\([^ ]*\).*/\1/p' "$C")
check conf-names-new same_dev "$m" /dev/mapper/l2
check conf-parses "$CTL" up --dry-run -c "$C"
rc replace-again 1 "$CTL" pool replace mp /dev/mapper/l1 --no-persist
err_has replace-again-not-degraded "is not degraded"
check J1-reads fio_verify /dev/mapper/mv $J1 --verify_only=1
check J2-reads fio_verify /dev/mapper/mv $J2 --verify_only=1
check J3-reads fio_verify /dev/mapper/mv $J3 --verify_only=1

# the first device fails now: the new one holds every dirty block
check fail-l0 swap_error l0
check J4 fio_verify /dev/mapper/mv $J4
field_is degraded-again /dev/mapper/mp $P_LEGS = failed,ok
check J1-reads-on-new fio_verify /dev/mapper/mv $J1 --verify_only=1
check J2-reads-on-new fio_verify /dev/mapper/mv $J2 --verify_only=1
check J3-reads-on-new fio_verify /dev/mapper/mv $J3 --verify_only=1
check J4-reads-on-new fio_verify /dev/mapper/mv $J4 --verify_only=1

kill $keeper; wait $keeper 2>/dev/null
check remove-keeper dm_remove mk
check remove-vol dm_remove mv
check remove-pool dm_remove mp
dm_remove l0; dm_remove l1; dm_remove l2; dm_remove ls
check rmmod unload_fcache
dmesg_clean
finish
