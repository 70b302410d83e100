#!/bin/sh
# Guest smoke test of the harness itself, with in-kernel targets only.
#   smoke.sh basic                  dm-linear over brd + fio verify, negative
#                                   control, md RAID10 of null_blk spindles
#   smoke.sh powercut-write TOKEN   write+sync numbered blocks to /dev/vdb
#                                   forever, logging each synced block to
#                                   /results/powercut.log (host kills us)
#   smoke.sh powercut-check TOKEN   after the kill: every logged block holds
#                                   exactly its data
FC_T=smoke-${1:-basic}
. "$FC_TOP/tests/guest/lib.sh"

mode=${1:-basic}
token=${2:-none}

# block_data TOKEN I: 4096 bytes naming the block and the run.
block_data() {
	yes "fcache-smoke $1 block $2" | head -c 4096
}

case "$mode" in
basic)
	ram=$(mk_brd_flash 64) || die "mk_brd_flash failed"
	check brd-is-block test -b "$ram"
	sz=$(dev_sectors "$ram")
	check linear-create dm_create smoke-lin "0 $sz linear $ram 0"
	check linear-fio-verify fio_verify /dev/mapper/smoke-lin --rw=randwrite \
		--bsrange=4k-64k --size=32M --iodepth=8
	check linear-remove dm_remove smoke-lin
	# The data written through dm-linear is on the RAM disk, byte for byte.
	check ram-verify-only fio_verify "$ram" --rw=randwrite --bsrange=4k-64k \
		--size=32M --iodepth=8 --verify_only=1
	# Negative control: a corrupted block must make the verify pass fail.
	dd if=/dev/urandom of="$ram" bs=1M count=32 oflag=direct conv=notrunc 2>/dev/null
	check_fails corrupt-detected fio_verify "$ram" --rw=randwrite \
		--bsrange=4k-64k --size=32M --iodepth=8 --verify_only=1

	fast=$(mk_fast_disk 64) || die "mk_fast_disk failed"
	check fast-disk-verify fio_verify "$fast" --rw=randwrite --bs=16k --size=16M

	md=$(mk_raid10 64) || die "mk_raid10 failed"
	check raid10-is-block test -b "$md"
	check raid10-level grep -q raid10 /proc/mdstat
	check raid10-fio-verify fio_verify "$md" --rw=randwrite --bs=16k --size=4M --iodepth=4
	mdadm --stop "$md" >/dev/null 2>&1
	dmesg_clean
	;;
powercut-write)
	[ -b /dev/vdb ] || die "no /dev/vdb"
	: >/results/powercut.log
	i=0
	echo "# powercut writer started"
	while [ $i -lt 4096 ]; do
		block_data "$token" $i >/tmp/blk
		dd if=/tmp/blk of=/dev/vdb bs=4096 seek=$i count=1 \
			oflag=direct,dsync conv=notrunc 2>/dev/null || { echo "write $i failed"; exit 1; }
		# /results is a sync 9p mount: the line is on the host when echo returns
		echo "$i" >>/results/powercut.log
		i=$((i + 1))
	done
	sleep 3600
	;;
powercut-check)
	[ -b /dev/vdb ] || die "no /dev/vdb"
	n=$(wc -l </results/powercut.log)
	info "blocks logged before the kill: $n"
	if [ "$n" -gt 0 ]; then pass powercut-logged; else fail powercut-logged "nothing logged before the kill"; fi
	bad=0
	i=0
	last=$((n < 4096 ? n : 4096))
	while [ $i -lt "$last" ]; do
		block_data "$token" $i >/tmp/want
		dd if=/dev/vdb of=/tmp/got bs=4096 skip=$i count=1 iflag=direct 2>/dev/null
		cmp -s /tmp/want /tmp/got || { bad=$((bad + 1)); info "block $i differs"; }
		i=$((i + 1))
	done
	if [ $bad -eq 0 ]; then pass powercut-data-exact; else fail powercut-data-exact "$bad blocks differ"; fi
	# Negative control: a wrong token must not match.
	block_data "wrong$token" 0 >/tmp/want
	dd if=/dev/vdb of=/tmp/got bs=4096 count=1 iflag=direct 2>/dev/null
	check_fails powercut-check-can-fail cmp -s /tmp/want /tmp/got
	dmesg_clean
	;;
*)
	die "unknown mode $mode"
	;;
esac
finish
