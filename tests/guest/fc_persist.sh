#!/bin/sh
# dm-fcache persistence: clean cached data survives removing and reloading
# the targets (and the module); dirty data survives deactivating the volume
# and the whole pool; after a flush the origin alone is exact.
FC_T=fc_persist
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
flash=$(mk_fast_disk 128) && o1=$(mk_fast_disk 64) && o2=$(mk_fast_disk 64) &&
	ok=$(mk_fast_disk 32) || die "disks"
# writeback only when full or flushed: dirty data stays dirty while the
# keeper below keeps the pool busy (no idle writeback).
POOLOPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
check pool-create fc_pool pp "$flash" 64 $POOLOPTS
[ -b /dev/mapper/pp ] || finish

J1="--rw=randwrite --bsrange=4k-64k --size=32M --iodepth=8 --randseed=77"
J2="--rw=randwrite --bsrange=4k-32k --size=16M --iodepth=8 --randseed=88"

# --- clean data across a clean shutdown ---
check clean-vol-create fc_vol pw1 pp "$o1" 1 writeback sequential_cutoff 0
check clean-write fio_verify /dev/mapper/pw1 $J1
check clean-flush dmsetup message pw1 0 flush
field_is clean-vol-clean /dev/mapper/pw1 $V_DIRTY -eq 0
cached=$(status_field pw1 $V_CACHED)
check clean-remove-volume dm_remove pw1
check clean-remove-pool dm_remove pp
check clean-rmmod unload_fcache
check clean-insmod load_fcache
check clean-pool-reload fc_pool pp "$flash" 64 $POOLOPTS
field_is clean-pool-rw /dev/mapper/pp $P_MDMODE = rw
field_is clean-pool-kept-blocks /dev/mapper/pp $P_USED -gt 0
field_is clean-pool-registered /dev/mapper/pp $P_REGISTERED -eq 1
check clean-vol-reload fc_vol pw1 pp "$o1" 1 writeback sequential_cutoff 0
field_is clean-vol-kept-cached /dev/mapper/pw1 $V_CACHED -eq "$cached"
check clean-verify-after-reload fio_verify /dev/mapper/pw1 $J1 --verify_only=1
field_is clean-served-from-cache /dev/mapper/pw1 $V_READ_HITS -gt 0

# --- dirty data across deactivation ---
check keeper-create fc_vol pk pp "$ok" 9 passthrough
start_keeper /dev/mapper/pk
check dirty-vol-create fc_vol pw2 pp "$o2" 2 writeback sequential_cutoff 0
check dirty-write fio_verify /dev/mapper/pw2 $J2 --do_verify=0
field_is dirty-vol-dirty /dev/mapper/pw2 $V_DIRTY -gt 0
check dirty-remove-volume dm_remove pw2
field_is dirty-pool-keeps-dirty /dev/mapper/pp $P_DIRTY -gt 0
check_fails dirty-origin-not-yet-written fio_verify "$o2" $J2 --verify_only=1
check dirty-vol-reactivate fc_vol pw2 pp "$o2" 2 writeback sequential_cutoff 0
field_is dirty-vol-still-dirty /dev/mapper/pw2 $V_DIRTY -gt 0
check dirty-verify-after-reactivate fio_verify /dev/mapper/pw2 $J2 --verify_only=1
# whole pool down and up (and the module)
check dirty-remove-volume2 dm_remove pw2
kill $keeper; wait $keeper 2>/dev/null
check dirty-remove-keeper dm_remove pk
check dirty-remove-pw1 dm_remove pw1
pdirty=$(status_field pp $P_DIRTY)
check dirty-remove-pool dm_remove pp
check dirty-rmmod unload_fcache
check dirty-insmod load_fcache
check dirty-pool-reload fc_pool pp "$flash" 64 $POOLOPTS
field_is dirty-pool-reload-dirty /dev/mapper/pp $P_DIRTY -gt 0
field_is dirty-pool-reload-dirty-exact /dev/mapper/pp $P_DIRTY -eq "$pdirty"
check dirty-keeper-reload fc_vol pk pp "$ok" 9 passthrough
start_keeper /dev/mapper/pk
check dirty-vol-reload fc_vol pw2 pp "$o2" 2 writeback sequential_cutoff 0
field_is dirty-vol-reload-dirty /dev/mapper/pw2 $V_DIRTY -gt 0
check dirty-verify-after-pool-reload fio_verify /dev/mapper/pw2 $J2 --verify_only=1
check dirty-flush dmsetup message pw2 0 flush
field_is dirty-flushed-clean /dev/mapper/pw2 $V_DIRTY -eq 0
kill $keeper; wait $keeper 2>/dev/null
check dirty-remove-final dm_remove pw2
check dirty-origin-exact-after-flush fio_verify "$o2" $J2 --verify_only=1
dm_remove pk; dm_remove pp
check rmmod unload_fcache
dmesg_clean
finish
