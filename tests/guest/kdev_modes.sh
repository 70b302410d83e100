#!/bin/sh
# Kernel developer's mode-switch stress of dm-fcache: random verified I/O
# in every mode, switching modes by reload, twice round.
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

# Mode switching under random I/O (repro of a stall seen after passthrough).

check load load_fcache
ram=$(mk_brd_flash 64) || die "mk_brd_flash failed"
org=$(mk_fast_disk 128) || die "mk_fast_disk failed"
fsz=$(dev_sectors "$ram")
osz=$(dev_sectors "$org")
check pool-create dm_create kpool "0 $fsz fcache-pool $ram 64"
check vol-create dm_create kvol "0 $osz fcache /dev/mapper/kpool $org 7 writeback"
check wb-fio tfio /dev/mapper/kvol --rw=randrw --bsrange=512-64k --size=16M --iodepth=8
for round in 1 2; do
	for m in writethrough writearound passthrough writeback; do
		check reload-$m-$round dm_reload kvol "0 $osz fcache /dev/mapper/kpool $org 7 $m"
		check suspend-$m-$round dmsetup suspend kvol
		check resume-$m-$round dmsetup resume kvol
		check $m-fio-$round tfio /dev/mapper/kvol --rw=randrw --bsrange=512-64k --size=16M --iodepth=8
		info "$m: $(dmsetup status kvol) / $(dmsetup status kpool)"
	done
done
check remove-vol dm_remove kvol
check remove-pool dm_remove kpool
dmesg_clean
finish
