#!/bin/sh
# dm-fcache: a flush is a state the writeback worker drives, not one long
# message call (issue 32, item 6).
#  A. Suspend during a flush: with the dirty data going to a slow origin
#     (dm-delay, 50 ms a write, so a flush of 512 scattered blocks takes
#     ~7 s), a suspend of the pool during a pool flush (a1), of the volume
#     during the volume's flush (a2) and of the pool during the volume's
#     flush (a3) each completes within FLUSH_SUSPEND_MAX seconds; after the
#     resume the flush still ends with no dirty block (a3: the volume's
#     flush message itself returns 0), and every block reads back exactly,
#     on the origin alone too.
#  B. No batch cap: a flush ends when what was dirty when it began is on
#     the origin, however many batches that takes and whatever is written
#     meanwhile.  A writer rewrites 64 blocks all the time (the volume's
#     dirty count never reaches 0); the volume's flush, the pool's flush
#     and 'fcachectl flush' of the pool return success, and the origin
#     alone holds every block written before the flush (fio verify of a
#     scattered region, cmp of the rewritten one).
FC_T=fc_flushstall
. "$FC_TOP/tests/guest/lib.sh"

CTL=$FC_TOP/userspace/fcachectl
MAX=${FLUSH_SUSPEND_MAX:-5}		# seconds a suspend may take
DELAY_MS=50

load_fcache || die "insmod failed" module-load
modprobe dm-delay || die "no dm-delay" dm-delay
flash=$(mk_fast_disk 128) && slow_disk=$(mk_fast_disk 96) && fast_origin=$(mk_fast_disk 64) ||
	die "disks"
check delay-create dm_create slow "0 $(dev_sectors "$slow_disk") delay $slow_disk 0 $DELAY_MS"
slow=/dev/mapper/slow

# 32 KiB blocks; writeback_low 100 and no age limit: only the idle pool
# writes back in the background (4 copies in flight at most).
check pool-create fc_pool fp "$flash" 64 writeback_low 100 writeback_high 100 \
	max_dirty_age 0 writeback_jobs 4
check vol-slow-create fc_vol fs fp "$slow" 1 writeback sequential_cutoff 0
check vol-fast-create fc_vol ff fp "$fast_origin" 2 writeback sequential_cutoff 0
[ -b /dev/mapper/fs ] && [ -b /dev/mapper/ff ] || finish
vs=/dev/mapper/fs vf=/dev/mapper/ff pool=/dev/mapper/fp

now() { cut -d' ' -f1 /proc/uptime; }
# secs_since T0: whole seconds (rounded up) since T0 (now's output)
secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { d = b - a; printf "%d\n", d == int(d) ? d : int(d) + 1 }'; }

# scattered OFF_MB: 512 blocks, every other 32 KiB block of 32 MiB from
# OFF_MB (no two dirty blocks adjacent: no merged origin write), fio
# verify headers; ARGS... are added (--verify_only).
scattered() {
	_off=$1 _dev=$2; shift 2
	fio_verify "$_dev" --rw=write:32k --bs=32k --offset="${_off}M" --size=32M \
		--iodepth=16 "$@"
}

# wait_writing: until the pool has writeback copies in flight (the flush runs)
wait_writing() {
	poll_until 300 status_above $pool $P_WB_INFLIGHT 0
}

# suspend_case NAME FLUSH_DEV SUSPEND_DEV OFF_MB
suspend_case() {
	_c=$1 _fdev=$2 _sdev=$3 _off=$4
	check "$_c-write" scattered "$_off" $vs
	_d=$(status_field $vs $V_DIRTY)
	info "$_c: $_d dirty blocks on the slow volume"
	rm -f "$FC_LOGDIR/$_c.rc"
	(
		_t=$(now)
		dmsetup message "$_fdev" 0 flush >"$FC_LOGDIR/$_c.msg" 2>&1
		echo "$? $(secs_since "$_t")" >"$FC_LOGDIR/$_c.rc"
	) &
	_fpid=$!
	wait_writing || fail "$_c-flush-started" "no writeback within 30 s"
	_t0=$(now)
	timeout 120 dmsetup suspend "$_sdev"
	_src=$?
	_el=$(secs_since "$_t0")
	_left=$(status_field $vs $V_DIRTY)
	info "$_c: suspend of $(basename "$_sdev") rc $_src after $_el s; $_left of $_d blocks still dirty"
	if [ "$_src" -eq 0 ] && [ "$_el" -le "$MAX" ]; then
		pass "$_c-suspend-within-${MAX}s"
	else
		fail "$_c-suspend-within-${MAX}s" "rc $_src, took $_el s"
	fi
	check "$_c-resume" dmsetup resume "$_sdev"
	# the flush message: ended by the suspend (a1, a2) or by the flush (a3)
	_k=0
	while [ ! -s "$FC_LOGDIR/$_c.rc" ] && [ $_k -lt 1200 ]; do sleep 0.1; _k=$((_k + 1)); done
	wait $_fpid 2>/dev/null
	if [ -s "$FC_LOGDIR/$_c.rc" ]; then
		info "$_c: flush message status/seconds $(cat "$FC_LOGDIR/$_c.rc"): $(tr '\n' ' ' <"$FC_LOGDIR/$_c.msg")"
	else
		fail "$_c-flush-message-ends" "still running 120 s after the resume"
	fi
	if [ "$_c" = a3 ]; then
		if [ "$(cut -d' ' -f1 "$FC_LOGDIR/$_c.rc" 2>/dev/null)" = 0 ]; then
			pass "$_c-volume-flush-returns-0"
		else
			fail "$_c-volume-flush-returns-0" "$(cat "$FC_LOGDIR/$_c.rc" "$FC_LOGDIR/$_c.msg" 2>/dev/null | tr '\n' ' ')"
		fi
	fi
	# the flush goes on after the resume: no dirty block left
	if poll_until 1200 status_is $vs $V_DIRTY 0; then
		pass "$_c-flush-ends-clean"
	else
		fail "$_c-flush-ends-clean" "$(status_field $vs $V_DIRTY) blocks still dirty 120 s after the resume"
	fi
	check "$_c-verify-volume" scattered "$_off" $vs --verify_only
	check "$_c-verify-origin" scattered "$_off" "$slow_disk" --verify_only
}

# ---- A. suspend during a flush ----
suspend_case a1 fp $pool 0
suspend_case a2 fs $vs 32
suspend_case a3 fs $pool 64

# ---- B. a flush ends, whatever is written meanwhile ----
HOT_KB=2048			# 64 blocks rewritten all the time
# the hot data: one 4-byte pattern, what fio's buffer_pattern writes
python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex('5aa5c33c') * ($HOT_KB * 256))" \
	>"$FC_LOGDIR/hot" || die "pattern file"
check b-write-scattered scattered 0 $vf
check b-write-hot dd if="$FC_LOGDIR/hot" of=$vf bs=4k seek=12288 oflag=direct conv=notrunc status=none
# origin_hot: the origin alone holds the hot data
origin_hot() {
	dd if="$fast_origin" bs=4k skip=12288 count=$((HOT_KB / 4)) iflag=direct status=none \
		>"$FC_LOGDIR/hot.origin" && cmp "$FC_LOGDIR/hot" "$FC_LOGDIR/hot.origin"
}
# the writer: the same data over the same 64 blocks (at 48 MiB), 4 KiB
# random direct writes, 4 in flight, without a pause: the volume always
# has a dirty block (a write in flight makes its block dirty)
fio --name=hot --filename=$vf --direct=1 --ioengine=libaio --iodepth=4 --rw=randwrite \
	--bs=4k --offset=48M --size=${HOT_KB}k --time_based --runtime=900 --norandommap \
	--buffer_pattern=0x5aa5c33c >"$FC_LOGDIR/writer.log" 2>&1 &
wpid=$!
sleep 2
info "b: $(status_field $vf $V_DIRTY) blocks dirty on the fast volume, writer running"

# flush_with_writer NAME CMD...: CMD returns 0 within 120 s
flush_with_writer() {
	_c=$1; shift
	_t0=$(now)
	timeout 120 "$@" >"$FC_LOGDIR/$_c.out" 2>&1
	_r=$?
	_el=$(secs_since "$_t0")
	info "$_c: status $_r after $_el s; $(status_field $vf $V_DIRTY) blocks dirty after it; $(tail -n 2 "$FC_LOGDIR/$_c.out" | tr '\r\n' '  ')"
	if [ $_r -eq 0 ]; then pass "$_c"; else fail "$_c" "status $_r after $_el s"; fi
	return $_r
}
flush_with_writer b-volume-flush-with-writer dmsetup message ff 0 flush
check b-origin-scattered scattered 0 "$fast_origin" --verify_only
check b-origin-hot origin_hot
dirty_now=$(status_field $vf $V_DIRTY)
[ "$dirty_now" -gt 0 ] && info "b: the writer kept $dirty_now blocks dirty (the flush could not wait for 0)"
flush_with_writer b-pool-flush-with-writer dmsetup message fp 0 flush
flush_with_writer b-fcachectl-flush-with-writer "$CTL" flush fp
kill $wpid
wait $wpid
check b-final-flush dmsetup message fp 0 flush
field_is b-clean-after-writer $pool $P_DIRTY = 0
check b-origin-hot-final origin_hot

check vol-slow-remove dm_remove fs
check vol-fast-remove dm_remove ff
check pool-remove dm_remove fp
dm_remove slow
dmesg_clean
finish
