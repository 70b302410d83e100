#!/bin/sh
# Writethrough vs another write to the same block (test build: make
# fi-module, FC_KO=build/fi/dm-fcache.ko, run by suite 38).  A writethrough
# write goes to the origin first, then its copy to the flash.  The hook
# wt_hold_ms holds the flash copy of write A after its origin half; write C
# to the same sectors is issued meanwhile.  Whatever order the two take,
# the volume and the origin must end up holding the same data, and it must
# be C's (C completes after A).  Before the fix, C's origin and flash
# halves both passed A's held copy: the flash then got A's data over C's,
# marked valid by C, and the volume read A while the origin held C (data
# that changes by itself once the clean block is evicted).
FC_T=fc_wt_race
. "$FC_TOP/tests/guest/lib.sh"
FC_KO=${FC_FI_KO:-$FC_TOP/build/fi/dm-fcache.ko}
load_fcache || { fail module-load; finish; }
P=/sys/module/dm_fcache/parameters/wt_hold_ms
[ -w "$P" ] || { fail hook "no wt_hold_ms: not the test build (make fi-module)"; finish; }
FLASH=$(mk_fast_disk 64) && ORIG=$(mk_fast_disk 64) || { fail setup; finish; }
fc_pool wtp "$FLASH" 64 && fc_vol wtv wtp "$ORIG" 1 writethrough sequential_cutoff 0 ||
	{ fail setup "pool/volume"; finish; }
W=/tmp/wtrace
mkdir -p "$W"
# which write's data a 4 KiB block holds: its filler byte (A or C)
who() { dd if="$1" bs=1 skip=100 count=1 status=none; }
for round in 1 2 3; do
	blk=$((round * 37))	# 4 KiB blocks, one per round
	for c in A C; do head -c 4096 /dev/zero | tr '\0' "$c" >"$W/$c"; done
	printf 'round %s' "$round" | dd of="$W/A" conv=notrunc status=none
	printf 'round %s' "$round" | dd of="$W/C" conv=notrunc status=none
	echo 3000 >"$P"
	dd if="$W/A" of=/dev/mapper/wtv bs=4096 seek=$blk oflag=direct conv=notrunc status=none &
	apid=$!
	# the hook took the value: A's origin half is done, its flash copy held
	i=0
	while [ "$(cat "$P")" != 0 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	if [ "$(cat "$P")" != 0 ]; then
		fail "round$round-hold" "write A never reached its flash copy"
		wait $apid
		continue
	fi
	dd if="$W/C" of=/dev/mapper/wtv bs=4096 seek=$blk oflag=direct conv=notrunc status=none ||
		fail "round$round-write-c"
	wait $apid || fail "round$round-write-a"
	dd if=/dev/mapper/wtv of="$W/vol" bs=4096 skip=$blk count=1 iflag=direct status=none
	dd if="$ORIG" of="$W/orig" bs=4096 skip=$blk count=1 iflag=direct status=none
	if cmp -s "$W/vol" "$W/orig"; then
		pass "round$round-volume-equals-origin"
	else
		fail "round$round-volume-equals-origin" "volume reads $(who "$W/vol"), origin holds $(who "$W/orig")"
	fi
	cmp -s "$W/vol" "$W/C" && pass "round$round-last-write-wins" ||
		fail "round$round-last-write-wins" "volume reads $(who "$W/vol") after C completed last"
	# the same after the clean block is dropped (origin only)
	dmsetup message wtv 0 invalidate
	dd if=/dev/mapper/wtv of="$W/vol2" bs=4096 skip=$blk count=1 iflag=direct status=none
	cmp -s "$W/vol2" "$W/C" && pass "round$round-after-invalidate" ||
		fail "round$round-after-invalidate" "volume reads $(who "$W/vol2")"
done
dm_remove wtv
dm_remove wtp
dmesg_clean
finish
