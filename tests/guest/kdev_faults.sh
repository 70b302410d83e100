#!/bin/sh
# Kernel developer's fault test of dm-fcache: the flash is a dm device that
# is switched to the "error" target under a live pool.  Clean data must be
# re-read from the origin, failed flash writes retried on the origin, the
# metadata mode must degrade, and nothing may oops or hang.
. "$FC_TOP/tests/guest/lib.sh"

vfield() {
	_v=$(status_field "$1" "$2")
	case "$3" in
	=) [ "$_v" = "$4" ] ;;
	*) [ "$_v" "$3" "$4" ] ;;
	esac
}

check load load_fcache
ram=$(mk_brd_flash 64) || die "mk_brd_flash failed"
org=$(mk_fast_disk 128) || die "mk_fast_disk failed"
fsz=$(dev_sectors "$ram")
osz=$(dev_sectors "$org")
check flash-linear dm_create kflash "0 $fsz linear $ram 0"
check pool-create dm_create fpool "0 $fsz fcache-pool /dev/mapper/kflash 64"
check vol-create dm_create fvol "0 $osz fcache /dev/mapper/fpool $org 3 writeback 2 sequential_cutoff 0"

# R1: written through the cache, flushed: clean cached data.
check r1-write fio_verify /dev/mapper/fvol --rw=randwrite --bs=16k --size=8M --offset=0
check r1-flush dmsetup message fvol 0 flush
info "before faults: $(dmsetup status fvol) / $(dmsetup status fpool)"
check r1-cached vfield fvol 2 -gt 0

# The flash dies.
printf '0 %s error\n' "$fsz" | dmsetup reload kflash && dmsetup suspend kflash && dmsetup resume kflash
check flash-dead sh -c "! dd if=/dev/mapper/kflash of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null"
# Clean data: flash read errors are retried on the origin.
check r1-read-after-flash-death fio_verify /dev/mapper/fvol --rw=randwrite --bs=16k --size=8M --offset=0 --verify_only=1
check flash-read-errors-counted vfield fpool 7 -gt 0
# New writes: the flash write fails, the write is retried on the origin.
check r2-write-flash-dead fio_verify /dev/mapper/fvol --rw=randwrite --bsrange=4k-64k --size=8M --offset=32M
check r2-origin-exact fio_verify "$org" --rw=randwrite --bsrange=4k-64k --size=8M --offset=32M --verify_only=1
info "after faults: $(dmsetup status fvol) / $(dmsetup status fpool)"
# Metadata: a flush needs a commit, which fails.
dmsetup message fvol 0 flush >/dev/null 2>&1
sync
check metadata-degraded sh -c "[ \"\$(status_field fpool 5)\" != rw ]"
check needs-check vfield fpool 6 -eq 1
info "degraded: $(dmsetup status fpool)"
# Still readable.
check r1-read-degraded fio_verify /dev/mapper/fvol --rw=randwrite --bs=16k --size=8M --offset=0 --verify_only=1
check r2-read-degraded fio_verify /dev/mapper/fvol --rw=randwrite --bsrange=4k-64k --size=8M --offset=32M --verify_only=1
# Teardown with a dead flash must not oops.
check remove-vol dm_remove fvol
check remove-pool dm_remove fpool
# The flash comes back: the pool loads with needs_check set.
printf '0 %s linear %s 0\n' "$fsz" "$ram" | dmsetup reload kflash && dmsetup suspend kflash && dmsetup resume kflash
check pool-reload dm_create fpool "0 $fsz fcache-pool /dev/mapper/kflash 64"
info "reloaded: $(dmsetup status fpool)"
check pool-reloaded-rw vfield fpool 5 = rw
check vol-reload dm_create fvol "0 $osz fcache /dev/mapper/fpool $org 3 writeback"
check r1-after-reload fio_verify /dev/mapper/fvol --rw=randwrite --bs=16k --size=8M --offset=0 --verify_only=1
check r2-after-reload fio_verify /dev/mapper/fvol --rw=randwrite --bsrange=4k-64k --size=8M --offset=32M --verify_only=1
check remove-vol2 dm_remove fvol
check remove-pool2 dm_remove fpool
dmsetup remove kflash
check unload unload_fcache
dmesg | grep -i fcache | tail -n 20
dmesg_clean
finish
