#!/bin/sh
# dm-fcache background writeback policy and the lock-free read-hit path.
#  1. Cold data first: with a hot set rewritten all the time, background
#     writeback copies the cold dirty blocks to the origin (checked byte for
#     byte on the origin alone) and leaves the hot blocks dirty: the
#     writeback counter grows by about the number of cold blocks instead of
#     with every rewrite of a hot block.
#  2. max_dirty_age: once set, the same hot blocks are written back under
#     the same load (their dirty data is older than the limit).
#  3. Read hits complete without the pool lock: discards and fills over
#     dirty data must still wait for them and then run (no stranded bio):
#     random reads of cached blocks race discards and rewrites of the same
#     blocks; everything completes and fio's verify of the rewritten data
#     passes.
FC_T=fc_writeback
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
flash=$(mk_fast_disk 64) && origin=$(mk_fast_disk 64) || die "disks"

# 32 KiB blocks; background writeback whenever anything is dirty
# (writeback_low 0); no age limit yet.
check pool-create fc_pool wbp "$flash" 64 writeback_low 0 writeback_high 95 max_dirty_age 0
check vol-create fc_vol wbv wbp "$origin" 1 writeback sequential_cutoff 0
[ -b /dev/mapper/wbv ] || finish
vol=/dev/mapper/wbv

COLD_OFF=16 COLD_MB=4			# 128 blocks written once
HOT=8					# blocks rewritten all the time
cold_blocks=$((COLD_MB * 1024 / 32))
# hot_writer SECONDS: 4 KiB random writes over blocks 0..HOT-1, 400 a
# second: each hot block is rewritten every ~20 ms, more often than the
# writeback worker looks at it (100 ms tick), and a copy finishes in less.
hot_writer() {
	fio --name=hot --filename="$vol" --direct=1 --ioengine=libaio --iodepth=2 \
		--rw=randwrite --bs=4k --size=$((HOT * 32))k --time_based --runtime="$1" \
		--rate_iops=400 --norandommap >/dev/null 2>&1
}
# wait_for SECONDS CMD...: poll CMD every half second
wait_for() {
	_n=$(($1 * 2)); shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
		_n=$((_n - 1))
	done
	return 1
}
hot_dirty() { [ "$(status_field wbv $V_DIRTY)" -ge $HOT ]; }
# same_direct DEV1 DEV2 OFF_MB LEN_MB: equal bytes, read with O_DIRECT (the
# page cache of the origin would not see what writeback wrote under it)
same_direct() {
	_a=$(dd if="$1" bs=1M skip="$3" count="$4" iflag=direct 2>/dev/null | md5sum)
	_b=$(dd if="$2" bs=1M skip="$3" count="$4" iflag=direct 2>/dev/null | md5sum)
	[ -n "$_a" ] && [ "$_a" = "$_b" ]
}
cold_on_origin() { same_direct "$vol" "$origin" $COLD_OFF $COLD_MB; }

# 1. hot set first, then the cold blocks written once
hot_writer 20 &
hp=$!
check hot-dirty wait_for 10 hot_dirty
wb0=$(status_field wbv $V_WRITEBACKS)
check cold-write dd if=/dev/urandom of="$vol" bs=32k seek=$((COLD_OFF * 32)) \
	count=$cold_blocks oflag=direct
# the cold blocks reach the origin, byte for byte, with no flush
check cold-on-origin wait_for 15 cold_on_origin
wb=$(status_field wbv $V_WRITEBACKS)
dirty=$(status_field wbv $V_DIRTY)
echo "cold first: writebacks $wb0 -> $wb, dirty $dirty (cold $cold_blocks, hot $HOT)"
# each hot block is rewritten ~50 times a second: copying it whenever it is
# idle adds hundreds a second; a second-chance miss now and then a few.
if [ $((wb - wb0)) -ge "$cold_blocks" ] && [ $((wb - wb0)) -le $((cold_blocks + 8 * HOT)) ]; then
	pass hot-blocks-skipped
else
	fail hot-blocks-skipped "writebacks +$((wb - wb0)), expected $cold_blocks..$((cold_blocks + 8 * HOT))"
fi
field_is hot-still-dirty /dev/mapper/wbv $V_DIRTY -ge $((HOT / 2))
wait $hp		# (a background shell function: kill would miss fio)

# 2. max_dirty_age 2: the hot blocks go out under the same load
check age-set dmsetup message wbp 0 max_dirty_age 2
hot_writer 12 &
hp=$!
sleep 2
wb0=$(status_field wbv $V_WRITEBACKS)
sleep 8
wb1=$(status_field wbv $V_WRITEBACKS)
wait $hp
echo "max_dirty_age 2: writebacks $wb0 -> $wb1"
if [ "$wb1" -ge $((wb0 + HOT)) ]; then pass aged-hot-written-back; else
	fail aged-hot-written-back "writebacks $wb0 -> $wb1, expected >= +$HOT"; fi
check age-off dmsetup message wbp 0 max_dirty_age 0

# 3. read hits racing discards and rewrites of the same blocks
check race-fill fio_verify "$vol" --rw=write --bs=64k --size=8M
# second pass promotes (admission on the second touch)
for p in 1 2; do dd if="$vol" of=/dev/null bs=16k count=512 iflag=direct 2>/dev/null; done
field_is race-cached /dev/mapper/wbv $V_CACHED -ge 200
h0=$(status_field wbv $V_READ_HITS)
fio --name=rd --filename="$vol" --direct=1 --ioengine=libaio --iodepth=16 \
	--rw=randread --bs=16k --size=8M --time_based --runtime=10 --numjobs=2 \
	>/dev/null 2>&1 &
rp=$!
n=0 bad=0
end=$(($(date +%s) + 9))
while [ "$(date +%s)" -lt $end ]; do
	off=$(( (n * 7919 % 256) * 32768 ))
	blkdiscard -o $off -l 32768 "$vol" 2>/dev/null || bad=$((bad + 1))
	dd if=/dev/urandom of="$vol" bs=16k seek=$((off / 16384)) count=1 \
		oflag=direct 2>/dev/null || bad=$((bad + 1))
	n=$((n + 1))
done
wait $rp
h1=$(status_field wbv $V_READ_HITS)
echo "race: $n discard+rewrite rounds, $bad failed, read hits $h0 -> $h1"
[ "$bad" -eq 0 ] && [ $n -gt 5 ] && pass race-discards-complete ||
	fail race-discards-complete "$n rounds, $bad failed"
[ "$h1" -gt $((h0 + 1000)) ] && pass race-read-hits ||
	fail race-read-hits "read hits $h0 -> $h1"
check race-verify fio_verify "$vol" --rw=randwrite --bs=16k --size=8M --iodepth=16
check race-flush dmsetup message wbv 0 flush
field_is race-clean /dev/mapper/wbv $V_DIRTY -eq 0
check race-origin-exact same_direct "$vol" "$origin" 0 8
field_is no-errors /dev/mapper/wbv $V_ERRORS -eq 0

check vol-remove dm_remove wbv
check pool-remove dm_remove wbp
dmesg_clean
finish
