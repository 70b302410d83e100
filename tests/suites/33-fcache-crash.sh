#!/bin/sh
# dm-fcache power cuts: flash and origin on persistent virtio images; a
# verifying writer (tests/guest/fc_crashio.c) makes every batch of 16 writes
# durable (fdatasync, or an RWF_DSYNC/FUA last write) and logs each durable
# batch to the sync /results share; qemu is SIGKILLed at three points of the
# writer's progress (FC_CRASH_CUTS: durable batches logged, "LINES:SECONDS"
# = that many batches, then SECONDS more; not times since boot, which TCG
# under load stretches past the writer's start); each
# next boot recovers the pool and checks that every block holds the data of
# the last durable flush (or a newer write issued after it); the last boot
# flushes and checks the origin alone.
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-crash || exit 0
cio=$SUITE_TOP/build/vm/fc_crashio
mkdir -p "$SUITE_TOP/build/vm"
if ! gcc -O2 -Wall -o "$cio" "$SUITE_TOP/tests/guest/fc_crashio.c"; then
	echo "FAIL: fcache-crash (cannot build fc_crashio)"
	exit 0
fi
res=$SUITE_TOP/build/vm/results-crash
flash=$SUITE_TOP/build/vm/crash-flash.img
origin=$SUITE_TOP/build/vm/crash-origin.img
rm -rf "$res" "$flash" "$origin"
mkdir -p "$res"
# the four boots run back to back under one hold of the guest lock
hold_vm_lock fcache-crash || exit 0
base=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') * 16 + 1000 ))
prev=0
n=1
for cut in ${FC_CRASH_CUTS:-300:0 600:1 900:2}; do
	seed=$((base + n))
	guest_expect_killed fcache-crash-cut$n --results "$res" --flash-img "$flash:48" \
		--disk2 "$origin:64" --timeout 900 --kill-when "$res/log.$seed:$cut" \
		tests/guest/fc_crash.sh $n $prev $seed
	w=$(tail -n 1 "$res/log.$seed" 2>/dev/null | awk '{ print $2 }')
	if [ -n "$w" ] && [ "$w" -gt 0 ]; then
		echo "PASS: fcache-crash-cut$n-wrote ($w durable writes before the cut)"
	else
		echo "FAIL: fcache-crash-cut$n-wrote (no durable write logged before the cut at $cut)"
	fi
	prev=$seed
	n=$((n + 1))
done
guest_run fcache-crash-final --results "$res" --flash-img "$flash:48" --disk2 "$origin:64" \
	--timeout 240 tests/guest/fc_crash.sh $n $prev 0
rm -f "$flash" "$origin"
