#!/bin/sh
# Kernel developer's quick smoke test of dm-fcache (run with
# tests/vm/run-guest.sh tests/guest/kdev_smoke.sh).  Pool on brd, volume on a
# fast null_blk: create, fio verify in writeback, status, flush, verify the
# origin byte for byte, mode reload, remove/re-create (load), forget.
. "$FC_TOP/tests/guest/lib.sh"

# vfield DEV N OP VALUE: compare status field N of DEV.
vfield() {
	_v=$(status_field "$1" "$2")
	case "$3" in
	=) [ "$_v" = "$4" ] ;;
	*) [ "$_v" "$3" "$4" ] ;;
	esac
}

# tfio DEV ARGS: fio_verify with a watchdog that dumps state on a hang.
tfio() {
	_d=$1; shift
	fio_verify "$_d" "$@" &
	_p=$!
	_i=0
	while kill -0 $_p 2>/dev/null; do
		sleep 1
		_i=$((_i + 1))
		if [ $_i -eq 60 ]; then
			{
				echo "# HANG: $(dmsetup status)"
				dmsetup message kpool 0 dump
				echo 1 >/proc/sys/kernel/sysrq
				echo 7 >/proc/sys/kernel/printk
				echo w >/proc/sysrq-trigger
				echo l >/proc/sysrq-trigger
				sleep 2
				dmesg | tail -n 150
			} >/dev/console 2>&1
		fi
	done
	wait $_p
}

check load load_fcache
ram=$(mk_brd_flash 64) || die "mk_brd_flash failed"
org=$(mk_fast_disk 128) || die "mk_fast_disk failed"
fsz=$(dev_sectors "$ram")
osz=$(dev_sectors "$org")

check pool-create dm_create kpool "0 $fsz fcache-pool $ram 64 4 writeback_high 70 commit_interval 500"
info "pool status: $(dmsetup status kpool)"
info "pool table: $(dmsetup table kpool)"
check pool-table-exact sh -c "dmsetup table kpool | grep -q ' 64 4 writeback_high 70 commit_interval 500\$'"
check pool-io-refused sh -c "! dd if=/dev/mapper/kpool of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null"
check pool-fields sh -c "[ \$(dmsetup status kpool | wc -w) -eq 18 ]"

check vol-create dm_create kvol "0 $osz fcache /dev/mapper/kpool $org 7 writeback 2 label testvol"
info "vol status: $(dmsetup status kvol)"
check vol-fields sh -c "[ \$(dmsetup status kvol | wc -w) -eq 16 ]"
check vol-fio-wb tfio /dev/mapper/kvol --rw=randwrite --bsrange=512-64k --size=24M --iodepth=8
info "vol status: $(dmsetup status kvol)"
info "pool status: $(dmsetup status kpool)"
check vol-has-dirty vfield kvol 3 -gt 0
check vol-fio-reverify tfio /dev/mapper/kvol --rw=randwrite --bsrange=512-64k --size=24M --iodepth=8 --verify_only=1
check vol-flush dmsetup message kvol 0 flush
info "after flush: $(dmsetup status kvol)"
check vol-clean-after-flush vfield kvol 3 -eq 0
# The origin now holds every byte.
check origin-verify fio_verify "$org" --rw=randwrite --bsrange=512-64k --size=24M --iodepth=8 --verify_only=1

# Reads: second touch promotes, then hits.
fio --name=rd --filename=/dev/mapper/kvol --direct=1 --rw=randread --bs=16k --size=8M \
	--offset=64M --loops=3 --randrepeat=1 >/dev/null 2>&1
info "after reads: $(dmsetup status kvol)"
check read-hits vfield kvol 5 -gt 0

# Write again dirty, then remove everything and re-create: data must persist.
check vol-fio-wb2 tfio /dev/mapper/kvol --rw=randwrite --bsrange=4k-32k --size=16M --offset=32M --iodepth=8 --verify=0 --do_verify=0 --randseed=7
check vol-fio-wb3 tfio /dev/mapper/kvol --rw=randwrite --bsrange=4k-32k --size=16M --offset=80M --iodepth=8
check remove-vol dm_remove kvol
# Inactive: no writeback any more, the dirty count is frozen.
dirty_before=$(status_field kpool 4)
info "dirty blocks at removal: $dirty_before"
# A volume with dirty data cannot be activated against another origin size.
org2=$(mk_fast_disk 100) || die "mk_fast_disk failed"
if [ "$dirty_before" -gt 0 ]; then
	check wrong-size-dirty-refused sh -c "! printf '0 1000 fcache /dev/mapper/kpool $org2 7 writeback\n' | dmsetup create kbad 2>/dev/null"
fi
dmsetup remove kbad >/dev/null 2>&1
check remove-pool dm_remove kpool
check pool-recreate dm_create kpool "0 $fsz fcache-pool $ram 64"
info "pool status reloaded: $(dmsetup status kpool)"
check reload-dirty-exact vfield kpool 4 -eq "$dirty_before"
check vol-recreate dm_create kvol "0 $osz fcache /dev/mapper/kpool $org 7 writeback"
info "vol status reloaded: $(dmsetup status kvol)"
check vol-verify-after-reload tfio /dev/mapper/kvol --rw=randwrite --bsrange=4k-32k --size=16M --offset=80M --iodepth=8 --verify_only=1
check wrong-size-active-refused sh -c "! printf '0 1000 fcache /dev/mapper/kpool $org2 7 writeback\n' | dmsetup create kbad 2>/dev/null"
dmsetup remove kbad >/dev/null 2>&1
check second-active-refused sh -c "! printf '0 $osz fcache /dev/mapper/kpool $org 7 writeback\n' | dmsetup create kdup 2>/dev/null"
dmsetup remove kdup >/dev/null 2>&1
info "after refusals: $(dmsetup status kvol)"
check refusals-left-volume-alone vfield kvol 2 -gt 0

# Mode change: writeback -> writethrough writes back first.
check reload-wt dm_reload kvol "0 $osz fcache /dev/mapper/kpool $org 7 writethrough"
check suspend dmsetup suspend kvol
check resume dmsetup resume kvol
info "after mode change: $(dmsetup status kvol)"
check wt-no-dirty vfield kvol 3 -eq 0
check wt-mode vfield kvol 1 = writethrough
check wt-fio tfio /dev/mapper/kvol --rw=randrw --bsrange=512-64k --size=16M --iodepth=8
info "after writethrough fio: $(dmsetup status kvol)"
check wt-caches-writes vfield kvol 2 -gt 0
check wt-never-dirty vfield kvol 3 -eq 0
check wt-fio2 tfio /dev/mapper/kvol --rw=randwrite --bsrange=512-64k --size=8M --offset=100M --iodepth=8
check wt-origin-exact tfio "$org" --rw=randwrite --bsrange=512-64k --size=8M --offset=100M --iodepth=8 --verify_only=1
for m in writearound passthrough writeback; do
	check reload-$m dm_reload kvol "0 $osz fcache /dev/mapper/kpool $org 7 $m"
	dmsetup suspend kvol && dmsetup resume kvol
	check $m-fio tfio /dev/mapper/kvol --rw=randrw --bsrange=512-64k --size=16M --iodepth=8
done
check discard blkdiscard /dev/mapper/kvol
check pool-flush dmsetup message kpool 0 flush
check pool-msg-tunable dmsetup message kpool 0 writeback_low 10
check pool-msg-bad sh -c "! dmsetup message kpool 0 writeback_low 99 2>/dev/null"
check forget-active-refused sh -c "! dmsetup message kpool 0 forget 7 2>/dev/null"
check remove-vol2 dm_remove kvol
check forget dmsetup message kpool 0 forget 7
info "pool after forget: $(dmsetup status kpool)"
check remove-pool2 dm_remove kpool
check unload unload_fcache
dmesg | grep -i fcache | tail -n 20
dmesg_clean
finish
