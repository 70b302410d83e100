#!/bin/sh
# Kernel developer's power-cut test of dm-fcache's FLUSH/FUA contract.
#   kdev_crash.sh write TOKEN   pool on /dev/vdb (flash image), volume on
#                               /dev/vdc (origin image), writeback, commit
#                               only on flush; a writer rewrites 4 KiB blocks
#                               with new versions (FUA or write+fsync) and
#                               logs each acknowledged version to /results;
#                               background random writes keep the cache busy.
#                               The host kills qemu while it runs.
#   kdev_crash.sh check TOKEN   re-create pool and volume (recovery), every
#                               block must hold its last acknowledged version
#                               (or the one in flight at the kill).
# Host side:
#   tests/vm/run-guest.sh --results R --flash-img F:128 --disk2 O:256 \
#       --kill-after 40 tests/guest/kdev_crash.sh write T
#   tests/vm/run-guest.sh --results R --flash-img F:128 --disk2 O:256 \
#       tests/guest/kdev_crash.sh check T
. "$FC_TOP/tests/guest/lib.sh"

mode=${1:-write}
token=${2:-none}
NB=256		# blocks under test, at offset 0 of the volume

block_data() {
	yes "fcache-crash $token block $1 version $2" | head -c 4096
}

setup() {
	load_fcache || die "load failed"
	[ -b /dev/vdb ] && [ -b /dev/vdc ] || die "need /dev/vdb and /dev/vdc"
	fsz=$(dev_sectors /dev/vdb)
	osz=$(dev_sectors /dev/vdc)
	dm_create cpool "0 $fsz fcache-pool /dev/vdb 64 2 commit_interval 0" || die "pool create failed" pool-create
	dm_create cvol "0 $osz fcache /dev/mapper/cpool /dev/vdc 1 writeback 2 sequential_cutoff 0" ||
		die "volume create failed" vol-create
}

case "$mode" in
write)
	dd if=/dev/zero of=/dev/vdb bs=1M count=1 oflag=direct 2>/dev/null
	setup
	pass setup
	: >/results/acked.log
	: >/results/attempt.log
	# Background load on another region (also dirty, also overwritten).
	fio --name=bg --filename=/dev/mapper/cvol --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randrw --bsrange=512-64k --offset=16M --size=64M --time_based --runtime=600 \
		--fsync=16 --rate_iops=100 >/dev/null 2>&1 &
	v=1
	while :; do
		i=0
		while [ $i -lt $NB ]; do
			block_data $i $v >/tmp/blk
			echo "$i $v" >>/results/attempt.log
			if [ $((i % 2)) -eq 0 ]; then
				dd if=/tmp/blk of=/dev/mapper/cvol bs=4096 seek=$i count=1 \
					oflag=direct,dsync conv=notrunc 2>/dev/null || { echo "write $i failed"; exit 1; }
			else
				dd if=/tmp/blk of=/dev/mapper/cvol bs=4096 seek=$i count=1 \
					oflag=direct conv=notrunc,fsync 2>/dev/null || { echo "write $i failed"; exit 1; }
			fi
			echo "$i $v" >>/results/acked.log
			i=$((i + 3))
		done
		v=$((v + 1))
		[ $((v % 3)) -eq 0 ] && dmsetup message cvol 0 flush
	done
	;;
check)
	setup
	pass recovered
	info "after recovery: $(dmsetup status cvol)"
	n=$(wc -l </results/acked.log)
	info "acknowledged writes before the kill: $n"
	[ "$n" -gt 0 ] && pass acked-some || fail acked-some "nothing acknowledged"
	bad=0
	i=0
	while [ $i -lt $NB ]; do
		acked=$(awk -v b=$i '$1 == b { v = $2 } END { print v + 0 }' /results/acked.log)
		tried=$(awk -v b=$i '$1 == b { v = $2 } END { print v + 0 }' /results/attempt.log)
		if [ "$acked" -gt 0 ]; then
			dd if=/dev/mapper/cvol of=/tmp/got bs=4096 skip=$i count=1 iflag=direct 2>/dev/null
			block_data $i "$acked" >/tmp/want
			if ! cmp -s /tmp/want /tmp/got; then
				block_data $i "$tried" >/tmp/want
				cmp -s /tmp/want /tmp/got || { bad=$((bad + 1)); info "block $i: not version $acked or $tried"; }
			fi
		fi
		i=$((i + 3))
	done
	[ $bad -eq 0 ] && pass acked-data-survives || fail acked-data-survives "$bad blocks lost"
	# Negative control.
	block_data 0 999999 >/tmp/want
	dd if=/dev/mapper/cvol of=/tmp/got bs=4096 count=1 iflag=direct 2>/dev/null
	check_fails check-can-fail cmp -s /tmp/want /tmp/got
	check flush dmsetup message cvol 0 flush
	check remove-vol dm_remove cvol
	check remove-pool dm_remove cpool
	dmesg_clean
	;;
esac
finish
