#!/bin/sh
# dm-fcache background writeback policy and the lock-free read-hit path.
#  1. Cold data first: with a hot set rewritten all the time, background
#     writeback copies the cold dirty blocks to the origin (checked byte for
#     byte on the origin alone) and leaves the hot blocks dirty: the
#     writeback counter grows by about the number of cold blocks instead of
#     with every rewrite of a hot block.
#  2. max_dirty_age: once set, the same hot blocks are written back under
#     the same load (their dirty data is older than the limit), each about
#     once per max_dirty_age: a copy that lost the race with a rewrite
#     restarts the block's age.
#  3. Read hits complete without the pool lock: discards and fills over
#     dirty data must still wait for them and then run (no stranded bio):
#     random reads of cached blocks race discards and rewrites of the same
#     blocks; everything completes and fio's verify of the rewritten data
#     passes.
#  4. A REQ_PREFLUSH goes on to the origin only if a write reached the
#     origin since the last origin flush (counted on an origin with a
#     volatile write cache).
#  5. A writeback copy that loses the race with a rewrite restarts the
#     block's max_dirty_age clock (slow origin: every copy races).
#  6. Hot by write count: a circular log of 4 KiB writes (eight fill a
#     32 KiB block, then the log comes round again) looks cold to the
#     reference bit between its rounds; its blocks, written 8 times since
#     they were last clean, are not copied while the log runs, and reach
#     the origin byte for byte once the pool is idle.
#  7. The rule gives way when the flash is needed: above writeback_high,
#     with every dirty block such a log block, writeback still copies them.
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
# (not _n: check() keeps the name of the check in it)
wait_for() {
	_wn=$(($1 * 2)); shift
	while [ $_wn -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
		_wn=$((_wn - 1))
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
# done with the writer: stop its fio (a child of the background shell
# function: kill $hp would miss it) rather than wait out its 20 s
pkill -P $hp fio
wait $hp

# 2. max_dirty_age 4: the hot blocks go out under the same load, each at
# most about once per 3 s (the age counts in whole seconds; a copy that
# loses the race with a rewrite restarts the age, see 5).  The bound grows
# with the elapsed time: a slow machine only loosens it.
check age-set dmsetup message wbp 0 max_dirty_age 4
hot_writer 14 &
hp=$!
sleep 2
wb0=$(status_field wbv $V_WRITEBACKS)
cp0=$(stats_field wbp writeback_blocks) rc0=$(stats_field wbp writeback_raced) t0=$(date +%s)
sleep 10
wb1=$(status_field wbv $V_WRITEBACKS)
cp1=$(stats_field wbp writeback_blocks) rc1=$(stats_field wbp writeback_raced) t1=$(date +%s)
wait $hp
copies=$((cp1 - cp0)) bound=$((HOT * ((t1 - t0) / 3 + 2)))
echo "max_dirty_age 4: writebacks $wb0 -> $wb1, copies $copies (raced $((rc1 - rc0))) in $((t1 - t0)) s"
if [ "$wb1" -ge $((wb0 + HOT)) ]; then pass aged-hot-written-back; else
	fail aged-hot-written-back "writebacks $wb0 -> $wb1, expected >= +$HOT"; fi
if [ "$copies" -ge $HOT ] && [ "$copies" -le "$bound" ]; then pass aged-hot-copied-once-per-age; else
	fail aged-hot-copied-once-per-age "$copies copies of $HOT hot blocks in $((t1 - t0)) s, expected $HOT..$bound"; fi
check age-off dmsetup message wbp 0 max_dirty_age 0

# 3. read hits racing discards and rewrites of the same blocks
check race-fill fio_verify "$vol" --rw=write --bs=64k --size=8M
# second pass promotes (admission on the second touch)
for p in 1 2; do dd if="$vol" of=/dev/null bs=16k count=512 iflag=direct 2>/dev/null; done
field_is race-cached /dev/mapper/wbv $V_CACHED -ge 200
h0=$(status_field wbv $V_READ_HITS)
# a reader runs until the rounds are done and it has had 1000 read hits
# (rounds, not seconds: TCG speed varies with the host's load)
fio --name=rd --filename="$vol" --direct=1 --ioengine=libaio --iodepth=16 \
	--rw=randread --bs=16k --size=8M --time_based --runtime=3600 --numjobs=2 \
	>/dev/null 2>&1 &
rp=$!
n=0 bad=0 R=${FC_RACE_ROUNDS:-40}
while [ $n -lt "$R" ]; do
	off=$(( (n * 7919 % 256) * 32768 ))
	blkdiscard -o $off -l 32768 "$vol" 2>/dev/null || bad=$((bad + 1))
	dd if=/dev/urandom of="$vol" bs=16k seek=$((off / 16384)) count=1 \
		oflag=direct 2>/dev/null || bad=$((bad + 1))
	n=$((n + 1))
done
_t=0
while [ "$(status_field wbv $V_READ_HITS)" -le $((h0 + 1000)) ] && [ $_t -lt 600 ] &&
	kill -0 $rp 2>/dev/null; do
	sleep 1
	_t=$((_t + 1))
done
kill $rp 2>/dev/null
wait $rp
h1=$(status_field wbv $V_READ_HITS)
echo "race: $n discard+rewrite rounds, $bad failed, read hits $h0 -> $h1"
[ "$bad" -eq 0 ] && [ $n -eq "$R" ] && pass race-discards-complete ||
	fail race-discards-complete "$n of $R rounds, $bad failed"
[ "$h1" -gt $((h0 + 1000)) ] && pass race-read-hits ||
	fail race-read-hits "read hits $h0 -> $h1"
check race-verify fio_verify "$vol" --rw=randwrite --bs=16k --size=8M --iodepth=16
check race-flush dmsetup message wbv 0 flush
field_is race-clean /dev/mapper/wbv $V_DIRTY -eq 0
check race-origin-exact same_direct "$vol" "$origin" 0 8
field_is no-errors /dev/mapper/wbv $V_ERRORS -eq 0

check vol-remove dm_remove wbv
check pool-remove dm_remove wbp

# 4. REQ_PREFLUSH reaches the origin only when an origin write needs it.
# The origin has a volatile write cache (null_blk cache_size), so the block
# layer passes flushes to it and counts them (stat field 16).  No
# background writeback here (it flushes the origin itself).
flash2=$(mk_fast_disk 32) &&
	ocache=$(_nullb "$(_nullb_next fcwc)" 64 memory_backed=1 irqmode=0 queue_mode=2 cache_size=16) ||
	die "flush disks"
on=$(basename "$ocache")
oflushes() { awk '{ print $16 }' "/sys/block/$on/stat"; }
check flush-origin-wc grep -q 'write back' "/sys/block/$on/queue/write_cache"
check flush-pool fc_pool wfp "$flash2" 64 writeback_low 100 writeback_high 100 max_dirty_age 0
check flush-vol fc_vol wfv wfp "$ocache" 1 writeback sequential_cutoff 256
fsync_dev() { dd if=/dev/null of="$1" conv=fsync 2>/dev/null; }
fsync_dev /dev/mapper/wfv	# the first flush of a table always goes on
dd if=/dev/urandom of=/tmp/wf.dat bs=64k count=16 2>/dev/null
f0=$(oflushes)
# cached writes (64 KiB each, not sequential: every other 64 KiB)
i=0
while [ $i -lt 8 ]; do
	dd if=/tmp/wf.dat of=/dev/mapper/wfv bs=64k skip=$i seek=$((i * 2)) count=1 \
		oflag=direct 2>/dev/null
	i=$((i + 1))
done
fsync_dev /dev/mapper/wfv
f1=$(oflushes)
# a 1 MiB sequential stream beyond the 256 KiB cutoff goes to the origin
check flush-stream-write dd if=/tmp/wf.dat of=/dev/mapper/wfv bs=64k seek=64 count=16 oflag=direct
b1=$(status_field wfv $V_BYPASSED)
fsync_dev /dev/mapper/wfv
f2=$(oflushes)
fsync_dev /dev/mapper/wfv
f3=$(oflushes)
echo "origin flushes: $f0 -> $f1 (cached writes + fsync) -> $f2 (stream + fsync) -> $f3 (fsync)"
[ "$f1" -eq "$f0" ] && pass flush-elided-when-all-cached ||
	fail flush-elided-when-all-cached "origin flushes $f0 -> $f1"
[ "$b1" -gt 0 ] && [ "$f2" -gt "$f1" ] && pass flush-sent-after-origin-writes ||
	fail flush-sent-after-origin-writes "bypassed $b1, origin flushes $f1 -> $f2"
[ "$f3" -eq "$f2" ] && pass flush-elided-when-covered ||
	fail flush-elided-when-covered "origin flushes $f2 -> $f3"
check flush-data-back sh -c "dd if=/dev/mapper/wfv bs=64k skip=64 count=16 iflag=direct 2>/dev/null | cmp - /tmp/wf.dat"
check flush-vol-flush dmsetup message wfv 0 flush
check flush-vol-remove dm_remove wfv
check flush-pool-remove dm_remove wfp

# 5. A copy that loses the race with a rewrite restarts the block's age.
# The origin takes 30 ms an I/O, so nearly every copy of a block rewritten
# every 20 ms loses the race.  With max_dirty_age 4 each hot block is copied
# at most once per 3 s (the age counts in whole seconds); the module before
# this check kept the block's first-dirtied time and copied it again
# whenever the worker found it idle (every tick: hundreds of copies in the
# window).  The bound grows with the elapsed time: a slow machine only
# loosens it.
flash3=$(mk_fast_disk 32) &&
	slow=$(_nullb "$(_nullb_next fcslow)" 32 memory_backed=1 irqmode=2 \
		completion_nsec=30000000 queue_mode=2) || die "race disks"
check age-pool fc_pool wrp "$flash3" 64 writeback_low 0 writeback_high 95 max_dirty_age 4
check age-vol fc_vol wrv wrp "$slow" 1 writeback sequential_cutoff 0
vol=/dev/mapper/wrv
hot_writer 16 &
hp=$!
sleep 4
cp0=$(stats_field wrp writeback_blocks) rc0=$(stats_field wrp writeback_raced) t0=$(date +%s)
sleep 10
cp1=$(stats_field wrp writeback_blocks) rc1=$(stats_field wrp writeback_raced) t1=$(date +%s)
wait $hp
copies=$((cp1 - cp0)) raced=$((rc1 - rc0)) bound=$((HOT * ((t1 - t0) / 3 + 2)))
echo "raced copies: $copies copies, $raced raced, in $((t1 - t0)) s (bound $bound)"
if [ "$copies" -ge 1 ] && [ "$copies" -le "$bound" ]; then pass raced-age-restarts; else
	fail raced-age-restarts "$copies copies of $HOT hot blocks in $((t1 - t0)) s, expected 1..$bound"; fi
check age-flush dmsetup message wrv 0 flush
check age-origin-exact same_direct "$vol" "$slow" 0 1
check age-vol-remove dm_remove wrv
check age-pool-remove dm_remove wrp

# log_start MB IOPS: 4 KiB writes going round the first MB of $vol, as a
# redo log does, until log_stop
log_start() {
	fio --name=log --filename="$vol" --direct=1 --ioengine=libaio --iodepth=1 \
		--rw=write --bs=4k --size="$1"M --time_based --runtime=900 \
		--rate_iops="$2" >/dev/null 2>&1 &
	lp=$!
}
log_stop() { kill "$lp" 2>/dev/null; wait "$lp" 2>/dev/null; }
# copied_more POOL N: writeback has collected more than N blocks
copied_more() { [ "$(stats_field "$1" writeback_blocks)" -gt "$2" ]; }

# 6. A 2 MiB log (64 blocks, 512 writes a round) at 256 writes a second:
# a block is written 8 times in ~30 ms, then not for ~2 s, so the hand
# (every 100 ms tick, writeback_low 0) finds REF clear and, before the
# rule, copied each block about once a round.  Counted over 6 rounds,
# however long they take.
flash4=$(mk_fast_disk 64) && origin4=$(mk_fast_disk 64) || die "log disks"
check log-pool fc_pool wyp "$flash4" 64 writeback_low 0 writeback_high 95 max_dirty_age 0
check log-vol fc_vol wyv wyp "$origin4" 1 writeback sequential_cutoff 0
vol=/dev/mapper/wyv
log_start 2 256
check log-writer wait_for 120 status_above wyv $V_WRITES 1024
cp0=$(stats_field wyp writeback_blocks) h0=$(stats_field wyp writeback_hot)
w0=$(status_field wyv $V_WRITES)
check log-rounds wait_for 300 status_above wyv $V_WRITES $((w0 + 6 * 512))
cp1=$(stats_field wyp writeback_blocks) h1=$(stats_field wyp writeback_hot)
log_stop
copies=$((cp1 - cp0))
echo "redo-like log: $copies copies of its 64 blocks in 6 rounds, $((h1 - h0)) passed over as hot"
if [ "$copies" -le 64 ] && [ $((h1 - h0)) -gt 0 ]; then pass log-blocks-held; else
	fail log-blocks-held "$copies copies in 6 rounds of 64 blocks ($((h1 - h0)) hot), expected <= 64"; fi
# An idle pool (5 s without I/O: the wait reads only the status) writes
# every dirty block back, hot ones included; then the origin is exact.
check log-blocks-go-out wait_for 120 status_is wyv $V_DIRTY 0
check log-origin-exact same_direct "$vol" "$origin4" 0 2
check log-vol-remove dm_remove wyv

# 7. 192 blocks written with writeback held, then a 6 MiB log over them
# while the pool is far above writeback_high (5% of ~2000 blocks): every
# dirty block is hot by its count and max_dirty_age is 0, so without the
# rule giving way nothing would be copied.  Done when 192 blocks were
# collected, however long that takes.
check urgent-hold dmsetup message wyp 0 writeback_high 100
check urgent-hold-low dmsetup message wyp 0 writeback_low 100
check urgent-vol fc_vol wyv wyp "$origin4" 1 writeback sequential_cutoff 0
check urgent-fill dd if=/dev/urandom of="$vol" bs=32k count=192 oflag=direct
log_start 6 400
w0=$(status_field wyv $V_WRITES)
check urgent-writer wait_for 120 status_above wyv $V_WRITES $((w0 + 2 * 1536))
cp0=$(stats_field wyp writeback_blocks) h0=$(stats_field wyp writeback_hot)
check urgent-low dmsetup message wyp 0 writeback_low 0
check urgent-high dmsetup message wyp 0 writeback_high 5
check urgent-writeback-goes-on wait_for 300 copied_more wyp $((cp0 + 192))
cp1=$(stats_field wyp writeback_blocks) h1=$(stats_field wyp writeback_hot)
log_stop
echo "above writeback_high: $((cp1 - cp0)) blocks copied, $((h1 - h0)) passed over as hot"
check urgent-flush dmsetup message wyv 0 flush
check urgent-origin-exact same_direct "$vol" "$origin4" 0 6
field_is urgent-no-errors /dev/mapper/wyv $V_ERRORS -eq 0
check urgent-vol-remove dm_remove wyv
check urgent-pool-remove dm_remove wyp
dmesg_clean
finish
