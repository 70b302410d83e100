#!/bin/sh
# Guest side of "replay at every flush point" (docs/TESTING.md), run by
# tests/suites/36-fcache-replay.sh and tests/crash/run-crash.sh.
#
#   replay-guest.sh POINTS SEED BLOCK_SIZES TXNS [KEY=VALUE...]
#   (the host's environment does not reach the guest: knobs are arguments,
#   trace=1 (a timestamped line per step), progress=N, flash=MB (4),
#   origin=MB (6), negative=N (a negative control over N prefixes),
#   perdev=0|1 (1: one fclog device per slice; 0: one log-writes device),
#   mirror=1 (every walk on a mirrored pool), mirror_points=N (after the
#   one-device walks, a mirrored walk of N points at block size mirror_bs,
#   default the first of BLOCK_SIZES), legfail_writeback=1 (writeback
#   left running while leg1 fails: its read error must fail the leg,
#   docs/testing-details.md), syncpath=0|1 (1, the default: phases 1b and 2b,
#   below), ckpt_points=N (per block size, the checkpoints of 3. walked:
#   default all of them), resync_delay=MS (the origin behind
#   dm-delay and writeback_jobs 1 from the failure until the first writer
#   ends: the degraded pool's drain is slow, so dirty blocks are left for
#   the resync to copy), warm=1 (the one-device walks with warm_restart 1
#   and cw_work --reads 3: blocks read in must survive each crash current;
#   the walk also counts the clean blocks each load kept, "warm: ...",
#   /results/counts-warm), ordered=1 (the one-device walks with the pool
#   option ordered 1 and cw_work --discards 0; cw_point --ordered checks at
#   each point, before the pool loads, that the origin alone is the volume
#   at one flush point plus writes of the window after it; "ordered points:
#   ...", /results/counts-ordered; torn or older points fail the run),
#   ordered=check (the same workload and checks WITHOUT the pool option:
#   the negative control, today's writeback must leave torn points),
#   ordered_bound=N (cw_point --ordered-bound N: a consistent origin more
#   than N marks behind the point's dmark counts as older than the bound),
#   ordered_lag=N (with ordered=1: the pool option ordered_lag N too, and
#   the walk's bound N unless ordered_bound= gives one: every workload
#   mark is a flush point, so an origin N marks behind lacks N of them))
#
# For each fcache block size (sectors) in BLOCK_SIZES ("64 32"):
#  1. one null_blk holds the fcache flash and the origin as slices; each
#     slice is an fclog device (tests/crash/kmod/dm-fclog.c, build/fclog/
#     dm-fclog.ko) with its own volatile cache, all writing one log in
#     dm-log-writes' format (on a second null_blk): a write is logged when a
#     flush of its own device (or its FUA) makes it durable.  perdev=0: the
#     old layout, one log-writes device under dm-linear slices (a flush of
#     any slice logs the writes of all; it misses flush_one_leg).
#  2. cw_work runs TXNS transactions in each of three phases on the writeback
#     volume (phase 2 with low writeback watermarks: writeback and
#     write-around), with a clean teardown and reload of volume and pool
#     between phases 2 and 3; it marks the log after every RWF_DSYNC write
#     and fdatasync and records what each mark made durable.  syncpath=1
#     adds phase 1b after phase 1 and phase 2b after phase 2 (TXNS/2 each,
#     `--hot 12 --redo-span 64 --twice --ckpt 3`): rewrites of committed
#     dirty blocks, RWF_DSYNC rewrites of committed dirty sub-blocks (FUA
#     writes that wait for no commit), checkpoints that need a flush of the
#     flash but no commit, and second fdatasync()s that need no I/O; 2b
#     with writeback at full speed copying the same blocks meanwhile.
#  3. the crash points (FLUSH/FUA entries; POINTS/#sizes per size, two thirds
#     plain prefixes, one third random-subset variants, half of those with a
#     torn write), and the checkpoints of phases 1b and 2b (the crash
#     point just before each fdatasync's mark: the state the call
#     promised, where a flush that did not reach the flash shows), are
#     replayed in log order, incrementally, onto a fresh
#     device and each state is checked on a throw-away snapshot of it by
#     tests/crash/cw_point.c (one process for the whole walk: fcachectl
#     check's code on the flash slice, pool + volume load, every sector read
#     through the volume against the oracle, volume flush, orderly teardown,
#     the origin slice alone against the oracle and byte-equal to what the
#     volume returned).
#  4. negative=N: the same walk over N prefixes of the log's first half,
#     verified against the log's last mark (syncs that had not returned at
#     the crash); it must flag every one of them lost (the walk can fail).
#  5. mutant=NAME (with the test build, make fi-module): the module runs
#     with a deliberate bug (module parameter mutant_NAME, e.g.
#     skip_commit_flush); the walk must find failures.
#  6. mirrored (mirror=1, mirror_points=N): the logged device has four
#     slices: leg0, leg1 (the flash size each), the origin and leg2; the
#     pool is `fcache-pool leg0 BS 2 mirror leg1`.  After the three phases
#     above, a fourth: while cw_work writes, the log is marked x-legfail
#     and leg1 is swapped for the error target (the pool fails it at run
#     time and runs degraded; the error target logs nothing, so leg1's
#     replayed state stays what it was), then, once it says failed, the
#     log is marked x-replace and leg2 replaces leg1 online (a reload of
#     the live pool with `mirror leg2 replace 1`, again while the kernel
#     says busy); cw_work keeps writing through the resync and after it.
#     cw_point --mirror checks each point three ways (both legs by
#     fcachectl check's code, the pair as it must load or be refused, leg0
#     alone, the other leg alone; see tests/crash/cw_point.c).
# Prints PASS/FAIL lines and "crash points: <n> replayed, <l> lost,
# <s> stale, <c> check failures"; the counts also go to /results/counts,
# per mode (one device, mirrored) to /results/counts-single and
# /results/counts-mirror.
FC_T=fc_replay
. "$FC_TOP/tests/guest/lib.sh"
POINTS=${1:-200} SEED=${2:-1} SIZES=${3:-"64 32"} TXNS=${4:-60}
shift 4 2>/dev/null
for kv in "$@"; do
	case "$kv" in
	trace=*) FC_REPLAY_TRACE=${kv#*=} ;;
	progress=*) FC_REPLAY_PROGRESS=${kv#*=} ;;
	flash=*) FC_REPLAY_FLASH_MB=${kv#*=} ;;
	origin=*) FC_REPLAY_ORIGIN_MB=${kv#*=} ;;
	negative=*) NEGPOINTS=${kv#*=} ;;
	mutant=*) MUTANT=${kv#*=} ;;
	mirror=*) MIRROR=${kv#*=} ;;
	mirror_points=*) MIRROR_POINTS=${kv#*=} ;;
	mirror_bs=*) MIRROR_BS=${kv#*=} ;;
	legfail_writeback=*) LEGFAIL_WB=${kv#*=} ;;
	resync_delay=*) RESYNC_DELAY=${kv#*=} ;;
	syncpath=*) SYNCPATH=${kv#*=} ;;
	ckpt_points=*) CKPT_POINTS=${kv#*=} ;;
	perdev=*) PERDEV=${kv#*=} ;;
	warm=*) WARM=${kv#*=} ;;
	ordered=*) ORDERED=${kv#*=} ;;
	ordered_bound=*) ORD_BOUND=${kv#*=} ;;
	ordered_lag=*) ORD_LAG=${kv#*=} ;;
	*) die "unknown argument $kv" ;;
	esac
done
B=$FC_TOP/build/crash
FCCTL=$FC_TOP/userspace/fcachectl
for t in lw_replay cw_work cw_point; do [ -x "$B/$t" ] || die "no $B/$t (tests/crash/build.sh)"; done
[ -x "$FCCTL" ] || die "no $FCCTL (make userspace)"
load_fcache || die "insmod failed" module-load
if [ -n "${MUTANT:-}" ]; then
	echo 1 >"/sys/module/dm_fcache/parameters/mutant_$MUTANT" ||
		die "no mutant $MUTANT in this module (make fi-module; FC_KO=build/fi/dm-fcache.ko)" mutant
	info "module mutant $MUTANT on: the walk must find failures"
fi
modprobe dm-log-writes && modprobe dm-snapshot || die "dm-log-writes / dm-snapshot missing"
PERDEV=${PERDEV:-1}
if [ "$PERDEV" = 1 ]; then
	_fk=$FC_TOP/build/fclog/dm-fclog.ko
	[ -f "$_fk" ] || die "no $_fk (make fclog-module)" setup
	insmod "$_fk" || die "insmod $_fk failed" setup
fi
FLASH_MB=${FC_REPLAY_FLASH_MB:-4} ORIGIN_MB=${FC_REPLAY_ORIGIN_MB:-6} LOG_MB=${FC_REPLAY_LOG_MB:-1024}
FS=$((FLASH_MB * 2048)) OS=$((ORIGIN_MB * 2048))
MIRROR=${MIRROR:-0} MIRROR_POINTS=${MIRROR_POINTS:-0} SYNCPATH=${SYNCPATH:-1}
WARM=${WARM:-0} WARMOPT='' READS=''
if [ "$WARM" = 1 ]; then
	WARMOPT='warm_restart 1' READS='--reads 3'
fi
W_POINTS=0 W_BLOCKS=0
# ordered=1|check: no discards on the one-device walks (a discarded
# sector's content is undefined: it would fit no flush point), the check
# of the origin at each point; ordered=1 also the pool option
ORDERED=${ORDERED:-0} ORDOPT='' NODISC='' ORDWALK=''
[ -n "${ORD_LAG:-}" ] && [ "$ORDERED" != 1 ] && die "ordered_lag= needs ordered=1"
ORD_BOUND=${ORD_BOUND:-${ORD_LAG:-}}
case "$ORDERED" in
0) ;;
1 | check)
	NODISC='--discards 0' ORDWALK="--ordered${ORD_BOUND:+ --ordered-bound $ORD_BOUND}"
	[ "$ORDERED" = 1 ] && ORDOPT="ordered 1${ORD_LAG:+ ordered_lag $ORD_LAG}"
	;;
*) die "ordered=1 or ordered=check" ;;
esac
O_POINTS=0 O_TORN=0 O_OLDER=0
W=/tmp/replay
mkdir -p "$W"
nsizes=$(echo $SIZES | wc -w)
per=$(( (POINTS + nsizes - 1) / nsizes ))
PROGRESS=${FC_REPLAY_PROGRESS:-10}
T_REPLAYED=0 T_LOST=0 T_STALE=0 T_CHECK=0
# per mode: S_* one device, M_* mirrored
S_REPLAYED=0 S_LOST=0 S_STALE=0 S_CHECK=0 M_REPLAYED=0 M_LOST=0 M_STALE=0 M_CHECK=0
NEGPOINTS=${NEGPOINTS:-0}
t_start=$(date +%s)

# mk_null NAME SIZE_MB ATTRS...: a fresh memory-backed null_blk
mk_null() {
	_nn=$1 _ns=$2; shift 2
	if [ -d "/sys/kernel/config/nullb/$_nn" ]; then
		echo 0 >"/sys/kernel/config/nullb/$_nn/power"
		rmdir "/sys/kernel/config/nullb/$_nn"
	fi
	_nullb "$_nn" "$_ns" memory_backed=1 irqmode=0 queue_mode=2 blocksize=512 "$@"
}

rm_null() {
	[ -d "/sys/kernel/config/nullb/$1" ] || return 0
	echo 0 >"/sys/kernel/config/nullb/$1/power" && rmdir "/sys/kernel/config/nullb/$1"
}

# point_fail KIND WHY: one failure line per point and kind (first 30 shown)
NFAILSHOWN=0
point_note() {
	NFAILSHOWN=$((NFAILSHOWN + 1))
	[ $NFAILSHOWN -le 30 ] && echo "# POINT-FAIL bs$bs entry $k $variant: $*"
	echo "bs$bs seed $SEED entry $k $variant dmark $dmark bmark $bmark: $*" >>/results/failures
}

# mk_dm NAME TABLE: dmsetup creates the node itself (DM_DISABLE_UDEV=1);
# assert it is a block device (one process instead of dm_create's three)
mk_dm() {
	dmsetup create "$1" --table "$2" || return 1
	[ -b "/dev/mapper/$1" ] || { echo "mk_dm: /dev/mapper/$1 is not a block device" >&2; return 1; }
}

# step NAME: with FC_REPLAY_TRACE=1, a timestamped line per step
step() { [ "${FC_REPLAY_TRACE:-0}" = 1 ] && echo "# $(date +%s.%N | cut -c1-14) $*"; return 0; }

# the log, its index and the oracle of the first failing configuration
save_evidence() {
	_d=/results/evidence-bs$bs$MTAG-seed$SEED
	mkdir -p "$_d" || return
	cp "$W/oracle" "$W/points" "$W/list" "$_d/" 2>/dev/null
	dd if="$LOGDEV" of="$_d/log.img" bs=1M count=$(( (LOGUSED / 2048) + 1 )) status=none
	echo "# evidence saved in $_d (log.img, oracle, list)"
}

# walk PLAIN SUBSET [--negative]: replay the log onto a fresh target and
# check the crash points listed (cw_point: one process for the whole walk;
# each state is checked on a throw-away snapshot of the target).  Counts
# into T_*; --negative: a control that must flag lost writes, not counted.
walk() {
	RDEV=$(mk_null fcrtarget $((TS / 2048)) discard=1) || die "replay target" setup
	COW=$(mk_null fcrcow 64) || die "snapshot store" setup
	c1=$(date +%s)
	_ow=
	[ -z "$MTAG" ] && [ -z "$3" ] && _ow=$ORDWALK
	rm -f "$W/ordered-failures"
	# shellcheck disable=SC2086
	"$B/cw_point" "$LOGDEV" "$W/index" "$RDEV" "$COW" "$W/oracle" "$1" "$2" \
		"$FS" "$OS" "$bs" "$SEED" "$W" $3 ${FC_REPLAY_TRACE:+--trace} ${MTAG:+--mirror} $_ow >"$W/walk.out" 2>&1
	rc=$?
	el=$(($(date +%s) - c1))
	rm_null fcrtarget; rm_null fcrcow
	grep -v '^# bs' "$W/walk.out" | head -n 40
	grep '^# bs' "$W/walk.out" | awk -v p="$PROGRESS" '$3 % p == 0'
	# shellcheck disable=SC2046
	set -- "$3" $(grep '^walk: ' "$W/walk.out" | tail -n 1)
	C_REPLAYED=${3:-} l=${5:-0} s=${7:-0} c=${9:-0}
	_neg=$1
	# shellcheck disable=SC2046
	set -- "$_neg" $(grep '^warm: ' "$W/walk.out" | tail -n 1)
	[ -z "$MTAG" ] && [ -z "$_neg" ] && W_POINTS=$((W_POINTS + ${3:-0})) W_BLOCKS=$((W_BLOCKS + ${6:-0}))
	# ordered: <n> checked <t> torn <o> older
	# shellcheck disable=SC2046
	set -- "$_neg" $(grep '^ordered: ' "$W/walk.out" | tail -n 1)
	_ot=$((${5:-0} + ${7:-0}))
	if [ -n "$_ow" ]; then
		O_POINTS=$((O_POINTS + ${3:-0})) O_TORN=$((O_TORN + ${5:-0})) O_OLDER=$((O_OLDER + ${7:-0}))
		[ -s "$W/ordered-failures" ] && cat "$W/ordered-failures" >>/results/ordered-failures
		info "bs$bs ordered: ${3:-0} points, ${5:-0} torn, ${7:-0} older than the bound ($(grep '^# ordered: ' "$W/walk.out" | cut -c 12-))"
	fi
	set -- "$_neg"
	if [ $rc -ne 0 ] || [ -z "$C_REPLAYED" ]; then
		fail "bs$bs$MTAG-crash-points${1:+-negative}" "cw_point failed (status $rc): $(tail -n 2 "$W/walk.out" | tr '\n' ' ')"
		return
	fi
	if [ -n "$1" ]; then
		rm -f "$W/failures"
		if [ "$C_REPLAYED" -gt 0 ] && [ "$l" -eq "$C_REPLAYED" ]; then
			pass "bs$bs$MTAG-negative-control ($l of $C_REPLAYED points flagged lost when verified against syncs that had not returned)"
		else
			fail "bs$bs$MTAG-negative-control" "$C_REPLAYED points, $l flagged lost: the harness does not see lost writes"
		fi
		return
	fi
	if [ -n "${MUTANT:-}" ]; then
		rm -f "$W/failures"
		if [ $((l + s + c + _ot)) -gt 0 ]; then
			pass "bs$bs$MTAG-mutant-$MUTANT-caught ($l lost, $s stale, $c check failures, $_ot torn or older origins at $C_REPLAYED points)"
		else
			fail "bs$bs$MTAG-mutant-$MUTANT-caught" "$C_REPLAYED points, none failed: the harness misses this bug"
		fi
		return
	fi
	[ -s "$W/failures" ] && cat "$W/failures" >>/results/failures && rm -f "$W/failures"
	T_REPLAYED=$((T_REPLAYED + C_REPLAYED)) T_LOST=$((T_LOST + l)) T_STALE=$((T_STALE + s)) T_CHECK=$((T_CHECK + c))
	if [ -n "$MTAG" ]; then
		M_REPLAYED=$((M_REPLAYED + C_REPLAYED)) M_LOST=$((M_LOST + l)) M_STALE=$((M_STALE + s)) M_CHECK=$((M_CHECK + c))
	else
		S_REPLAYED=$((S_REPLAYED + C_REPLAYED)) S_LOST=$((S_LOST + l)) S_STALE=$((S_STALE + s)) S_CHECK=$((S_CHECK + c))
	fi
	C_BAD=$((l + s + c))
	[ "$C_BAD" -gt 0 ] && save_evidence
	if [ "$C_BAD" -eq 0 ] && [ "$C_REPLAYED" -gt 0 ]; then
		pass "bs$bs$MTAG-crash-points ($C_REPLAYED replayed in $el s, of $npts in the log)"
	else
		fail "bs$bs$MTAG-crash-points" "$C_BAD failures in $C_REPLAYED replayed; see /results/failures"
	fi
}

# pool_args [LEG]: the pool table's devices and block size over the logged
# slices (mirrored: leg0 + LEG, default lwleg1)
pool_args() {
	if [ -n "$MTAG" ]; then
		echo "/dev/mapper/lwleg0 $bs mirror /dev/mapper/${1:-lwleg1}"
	else
		echo "/dev/mapper/lwflash $bs"
	fi
}

# wait_status DEV FIELD VALUE: bounded (30 s)
wait_status() { poll_until 300 status_is "$@"; }

# wait_more_writes N: the volume has counted more than N writes, bounded (30 s)
wait_more_writes() { poll_until 300 status_above fvol $V_WRITES "$1"; }

# why MSG: why the workload failed (an info line; the FAIL line ends with it)
why() { info "bs$bs: $*"; echo "$*" >>"$W/why"; }
# step_failed WHAT: the workload failed at WHAT, with cw_work's errors
step_failed() {
	ok=0
	echo "$1${2:+: $(tail -n 2 "$2" | tr '\n' ' ')}" >>"$W/why"
}

# mirror_phase4: leg1 fails under a writer, leg2 replaces it online, the
# writer goes on through the resync; marks x-legfail and x-replace
mirror_phase4() {
	_P_RED=16 _P_LONE=17 _P_LEGS=18
	# dirty data stays dirty until the leg has failed (as tests/guest/
	# fc_legfail.sh): the writer's mirrored writes fail it.
	# legfail_writeback=1: writeback runs on, and its read errors on the
	# leg must fail it (a bug until 2026-12-02, docs/testing-details.md).
	if [ "${LEGFAIL_WB:-0}" != 1 ]; then
		dmsetup message fpool 0 writeback_high 100 && dmsetup message fpool 0 writeback_low 100 &&
			dmsetup message fpool 0 max_dirty_age 0 || return 1
	fi
	if [ "${RESYNC_DELAY:-0}" -gt 0 ]; then
		modprobe dm-delay && dmsetup message fpool 0 writeback_jobs 1 &&
			dm_reload lworigin "0 $OS delay $ORIGIN_UNDER $RESYNC_DELAY" &&
			dmsetup suspend lworigin && dmsetup resume lworigin || return 1
	fi
	_b=$(status_field fvol $V_WRITES)
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$((TXNS * 2))" --ckpt 6 >"$W/work4.out" 2>&1 &
	_wp=$!
	wait_more_writes $((_b + 40)) ||
		info "bs$bs: the writer made fewer than 40 writes in 30 s: $(cat "$W/work4.out")"
	dmsetup message lw 0 mark x-legfail &&
		dm_reload lwleg1 "0 $FS error" && dmsetup suspend --noflush --nolockfs lwleg1 &&
		dmsetup resume lwleg1 || { why "cannot swap leg1 for the error target"; return 1; }
	# Only I/O that meets leg1 fails it.  The writer may have ended before
	# the swap, and writeback of an idle pool may have cleaned its blocks
	# (reading leg0): then another writer's mirrored writes meet leg1.  A
	# writer that failed ends the phase, with its output.
	_t=0
	until status_is fpool $_P_LEGS ok,failed; do
		if ! kill -0 "$_wp" 2>/dev/null; then
			_w4=$_wp _wp=
			wait "$_w4" || { why "the writer failed: $(cat "$W/work4.out")"; return 1; }
			[ $_t -lt 900 ] || break
			info "bs$bs: the writer ended before leg1 failed: another one"
			"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" --ckpt 6 >>"$W/work4.out" 2>&1 &
			_wp=$!
		fi
		_t=$((_t + 1))
		[ $_t -le 1200 ] || break
		sleep 0.1
	done
	if ! status_is fpool $_P_LEGS ok,failed; then
		why "the pool did not fail leg1: $(dmsetup status fpool); writer: $(cat "$W/work4.out")"
		return 1
	fi
	info "bs$bs leg1 failed: pool $(dmsetup status fpool | cut -d' ' -f4-)"
	_old=$(dmsetup table fpool | cut -d' ' -f3-)
	_new="fcache-pool /dev/mapper/lwleg0 $bs 4 mirror /dev/mapper/lwleg2 replace 1"
	dmsetup message lw 0 mark x-replace
	_t=0
	while :; do
		_t=$((_t + 1))
		dm_reload fpool "0 $FS $_new" || { why "replace table refused"; return 1; }
		dmsetup suspend fpool || return 1
		dmsetup resume fpool 2>"$W/resume.err" && break
		# refused as busy (the failed leg is being vacated): the old table back
		dm_reload fpool "0 $FS $_old" && dmsetup resume fpool || return 1
		[ $_t -ge 30 ] && { why "replace not taken: $(cat "$W/resume.err")"; return 1; }
		sleep 0.5
	done
	info "bs$bs leg2 in after $_t tries: pool $(dmsetup status fpool | cut -d' ' -f4-)"
	if [ -n "$_wp" ]; then
		_w4=$_wp _wp=
		wait "$_w4" || { why "the writer running through the failure and the replace failed: $(cat "$W/work4.out")"; return 1; }
	fi
	if [ "${RESYNC_DELAY:-0}" -gt 0 ]; then
		info "bs$bs first writer done: pool $(dmsetup status fpool | cut -d' ' -f4-)"
		dm_reload lworigin "0 $OS linear $ORIGIN_UNDER" &&
			dmsetup suspend lworigin && dmsetup resume lworigin || return 1
	fi
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" --ckpt 6 2>"$W/cw.err" ||
		{ why "the writer after the replace failed: $(cat "$W/cw.err")"; return 1; }
	if ! wait_status fpool $_P_RED mirrored; then
		why "the resync did not end: $(dmsetup status fpool)"
		return 1
	fi
	info "bs$bs after phase 4: pool $(dmsetup status fpool | cut -d' ' -f4-)"
	dmesg | grep -E 'fcache' | tail -n 6 | sed 's/^/# dmesg: /'
	return 0
}

# sync_phase NAME: the sync path's phase (syncpath=1), with the pool's
# counts of flushes and FUA writes that needed no commit
sync_phase() {
	[ "$SYNCPATH" = 1 ] || return 0
	# the phase's bounds in the log: its checkpoints get crash points of
	# their own (ckpt_points=, below)
	dmsetup message lw 0 mark "x-sync-$1" || step_failed "phase $1 mark"
	# shellcheck disable=SC2086
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$(( (TXNS + 1) / 2 ))" \
		--hot 12 --redo-span 64 --twice --ckpt 3 $READS $_nd 2>"$W/cw.err" || step_failed "phase $1" "$W/cw.err"
	dmsetup message lw 0 mark "x-end-$1" || step_failed "phase $1 end mark"
	info "bs$bs after phase $1: $(dmsetup message fpool 0 stats | tr ' ' '\n' | grep -E '^(commits|syncs|sync_free|fua_direct)=' | tr '\n' ' ')"
}

# spread N FILE: the first fields of N of FILE's lines, evenly spread (all if
# N is at least their number, always the last one)
spread() {
	awk -v n="$1" -v N="$(wc -l <"$2")" '{ i = NR - 1; if (n >= N || int(i * n / N) != int((i + 1) * n / N)) print $1 }' "$2"
}

# run_size BS MTAG PER: the workload and the walks of one block size;
# MTAG "" one device, "-mirror" a mirrored pool
run_size() {
	bs=$1 MTAG=$2 per=$3
	c0=$(date +%s)
	# --- 1. the logged layout ---------------------------------------------
	if [ -n "$MTAG" ]; then
		TS=$(((3 * FLASH_MB + ORIGIN_MB) * 2048))
	else
		TS=$(((FLASH_MB + ORIGIN_MB) * 2048))
	fi
	DATA=$(mk_null fcrdata $((TS / 2048)) cache_size=8 discard=1) || die "null_blk data" setup
	LOGDEV=$(mk_null fcrlog "$LOG_MB") || die "null_blk log" setup
	grep -q 'write back' "/sys/block/$(basename "$DATA")/queue/write_cache" ||
		die "$DATA has no volatile write cache: flushes would not be logged" setup
	# each slice: NAME SIZE OFFSET (in the logged address space)
	if [ -n "$MTAG" ]; then
		SLICES="lwleg0:$FS:0 lwleg1:$FS:$FS lworigin:$OS:$((2 * FS)) lwleg2:$FS:$((2 * FS + OS))"
	else
		SLICES="lwflash:$FS:0 lworigin:$OS:$FS"
	fi
	if [ "$PERDEV" = 1 ]; then
		# one fclog device per slice (its own volatile cache), all in
		# one log; the origin's is "lw" (cw_work's marks go to it)
		for _sl in $SLICES; do
			_n=${_sl%%:*} _o=${_sl##*:} _sz=${_sl#*:}
			_sz=${_sz%:*}
			_l=lwc${_n#lw}
			[ "$_n" = lworigin ] && _l=lw
			dm_create "$_l" "0 $_sz fclog $DATA $_o $LOGDEV $_o" &&
				dm_create "$_n" "0 $_sz linear /dev/mapper/$_l 0" || die "fclog slice $_n" setup
		done
		ORIGIN_UNDER="/dev/mapper/lw 0"
	else
		dm_create lw "0 $TS log-writes $DATA $LOGDEV" || die "log-writes" setup
		for _sl in $SLICES; do
			_n=${_sl%%:*} _o=${_sl##*:} _sz=${_sl#*:}
			_sz=${_sz%:*}
			dm_create "$_n" "0 $_sz linear /dev/mapper/lw $_o" || die "slice $_n" setup
		done
		ORIGIN_UNDER="/dev/mapper/lw $(echo "$SLICES" | tr ' ' '\n' | awk -F: '$1 == "lworigin" { print $3 }')"
	fi
	rm -f "$W/oracle" "$W/state" "$W/why"
	"$B/cw_work" init "$W/state" "$W/oracle" "$OS" 4096 "$((SEED * 100 + bs))" || die "cw_work init" setup
	# --- 2. the workload ----------------------------------------------------
	ok=1
	# ordered=1|check: the pool option (ordered=1), no discards; one-device walks only
	_ord='' _nd=''
	[ -z "$MTAG" ] && _ord=$ORDOPT _nd=$NODISC
	# shellcheck disable=SC2046,SC2086
	fc_pool fpool $(pool_args) commit_interval 300 $WARMOPT $_ord || step_failed "pool"
	fc_vol fvol fpool /dev/mapper/lworigin 1 writeback sequential_cutoff 0 || step_failed "volume"
	[ $ok = 1 ] || die "pool/volume on the logged slices" bs$bs-setup
	# shellcheck disable=SC2086
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" $READS $_nd 2>"$W/cw.err" || step_failed "phase 1" "$W/cw.err"
	sync_phase 1b
	# phase 2: writeback at full speed, and write-around once 1% is dirty
	dmsetup message fpool 0 writeback_low 0 && dmsetup message fpool 0 writeback_high 1 &&
		dmsetup message fpool 0 max_dirty_age 1 || step_failed "phase 2 watermarks"
	# shellcheck disable=SC2086
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" --ckpt 5 $READS $_nd 2>"$W/cw.err" ||
		step_failed "phase 2" "$W/cw.err"
	sync_phase 2b
	info "bs$bs after phase 2: pool $(dmsetup status fpool | cut -d' ' -f4-) volume $(dmsetup status fvol | cut -d' ' -f4-)"
	# a clean shutdown and reload, in the log too
	dmsetup message lw 0 mark x-reload
	dm_remove fvol && dm_remove fpool || step_failed "teardown before the reload"
	# shellcheck disable=SC2046,SC2086
	fc_pool fpool $(pool_args) $WARMOPT $_ord || step_failed "pool reload"
	fc_vol fvol fpool /dev/mapper/lworigin 1 writeback sequential_cutoff 0 || step_failed "volume reload"
	# shellcheck disable=SC2086
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" --ckpt 12 --discards 20 $READS $_nd 2>"$W/cw.err" ||
		step_failed "phase 3" "$W/cw.err"
	info "bs$bs after phase 3: pool $(dmsetup status fpool | cut -d' ' -f4-) volume $(dmsetup status fvol | cut -d' ' -f4-)"
	if [ -n "$MTAG" ] && [ $ok = 1 ]; then
		_wp=
		mirror_phase4 || step_failed "phase 4 (mirrored)"
		[ -n "$_wp" ] && wait "$_wp"
	fi
	LOGUSED=$(dmsetup status lw | awk '{ print $5 }')
	[ "$PERDEV" = 1 ] && [ "$(dmsetup status lw | awk '{ print $6 }')" != 0 ] &&
		step_failed "the log overflowed (log=$LOG_MB MB)"
	dm_remove fvol; dm_remove fpool
	for _s in lwflash lwleg0 lwleg1 lwleg2 lworigin lwcflash lwcleg0 lwcleg1 lwcleg2; do
		[ -b "/dev/mapper/$_s" ] && dm_remove $_s
	done
	dm_remove lw || step_failed "log teardown"	# the last one logs the rest and the super
	if [ $ok = 1 ]; then
		pass "bs$bs$MTAG-workload ($(grep -c '^[WD]' "$W/oracle") writes/discards, $(grep -c '^M' "$W/oracle") marks, log $((LOGUSED / 2048)) MiB, $(($(date +%s) - c0)) s)"
	else
		fail "bs$bs$MTAG-workload" "$(awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$W/why")"
		rm_null fcrdata; rm_null fcrlog
		return
	fi
	rm_null fcrdata
	# --- 3. crash points ----------------------------------------------------
	"$B/lw_replay" index "$LOGDEV" "$W/index" >/dev/null || { fail "bs$bs$MTAG-log-parse"; rm_null fcrlog; return; }
	"$B/lw_replay" -i "$W/index" list "$LOGDEV" >"$W/list"
	"$B/lw_replay" -i "$W/index" points "$LOGDEV" >"$W/points"
	# crash points with the number of writes logged before the next one
	awk '!/^#/ { if ($4 ~ /FLUSH|FUA/) { if (p != "") print p, w; p = $1; w = 0 }
		else if ($4 !~ /MARK/ && $3 > 0 && p != "") w++ }
		END { if (p != "") print p, w }' "$W/list" >"$W/cpoints"
	npts=$(wc -l <"$W/cpoints")
	nmarks=$(grep -c ' MARK cw' "$W/points")
	plain=$(( per - per / 3 )) nsub=$(( per / 3 ))
	withw=$(awk '$2 > 0' "$W/cpoints" | wc -l)
	[ "$nsub" -gt "$withw" ] && { plain=$((per - withw)); nsub=$withw; }
	[ "$plain" -gt "$npts" ] && plain=$npts
	# evenly spread plain points (always the last one), subset variants
	# spread over the points whose window holds writes
	# mirrored: half of each kind before x-legfail, a sixth between
	# x-legfail and x-replace (leg1 failed), the rest after x-replace
	# (the replace, the resync and after)
	fl=0 fr=0
	if [ -n "$MTAG" ]; then
		fl=$(awk '$4 == "MARK" && $5 == "x-legfail" { print $1; exit }' "$W/list")
		fr=$(awk '$4 == "MARK" && $5 == "x-replace" { print $1; exit }' "$W/list")
	fi
	: >"$W/sel.plain"; : >"$W/sel.sub"
	for part in lo mid hi; do
		case $part in
		lo) pp=$((plain / 2)) ps=$((nsub / 2)) ;;
		mid) pp=$((plain / 6)) ps=$((nsub / 6)) ;;
		hi) pp=$((plain - plain / 2 - plain / 6)) ps=$((nsub - nsub / 2 - nsub / 6)) ;;
		esac
		if [ "${fl:-0}" -eq 0 ] || [ "${fr:-0}" -eq 0 ]; then
			[ $part = lo ] || continue
			pp=$plain ps=$nsub fl=0 fr=0
		fi
		awk -v p=$part -v f="$fl" -v r="$fr" '(p == "lo" && (f == 0 || $1 < f)) ||
			(p == "mid" && $1 > f && $1 < r) || (p == "hi" && $1 > r)' "$W/cpoints" >"$W/cp.part"
		NW=$(awk '$2 > 0' "$W/cp.part" | wc -l)
		spread "$pp" "$W/cp.part" >>"$W/sel.plain"
		awk -v n="$ps" -v N="$NW" '$2 > 0 { i = c++; if (n >= N || int(i * n / N) != int((i + 1) * n / N)) print $1 }' \
			"$W/cp.part" >>"$W/sel.sub"
	done
	# checkpoint points: in the sync path's phases, the last crash point
	# before each fdatasync's mark (the oracle's 'A' marks), so the state
	# just after the call returned.  A flush that completes without
	# reaching the flash (or is skipped as not needed when it is) leaves
	# the rewrites before it out of every such point: each one is a check
	# of that fdatasync, where the spread points above meet one by chance
	awk 'FNR == NR { if ($1 == "M" && $3 == "A") a[$2] = 1; next }
		/^#/ { next }
		$4 == "MARK" && $5 ~ /^x-end-/ { s = 0; next }
		$4 == "MARK" && $5 ~ /^x-sync-/ { s = 1; next }
		$4 ~ /FLUSH|FUA/ { p = $1; next }
		$4 == "MARK" && s && ($5 in a) && p != "" && p != last { print p; last = p }' \
		"$W/oracle" "$W/list" >"$W/cp.ckpt"
	nck=$(wc -l <"$W/cp.ckpt")
	spread "${CKPT_POINTS:-$nck}" "$W/cp.ckpt" >"$W/sel.ckpt"
	sort -n -u "$W/sel.plain" "$W/sel.ckpt" >"$W/sel.all" && mv "$W/sel.all" "$W/sel.plain"
	info "bs$bs$MTAG: $(wc -l <"$W/list") log entries, $npts crash points, $nmarks durability marks${MTAG:+, x-legfail at entry $fl, x-replace at entry $fr}; replaying $(wc -l <"$W/sel.plain") prefixes ($(wc -l <"$W/sel.ckpt") of $nck checkpoints of the sync path's phases among them) + $(wc -l <"$W/sel.sub") subset variants"
	walk "$W/sel.plain" "$W/sel.sub" ""
	if [ "$NEGPOINTS" -gt 0 ]; then
		# negative control: the same walk over a few prefixes of the
		# first half of the log, verified against the log's last mark
		# (every sync of the run, most not returned at the crash)
		awk -v n="$NEGPOINTS" -v N="$((npts / 2))" 'NR <= N { i = NR - 1; if (n >= N || int(i * n / N) != int((i + 1) * n / N)) print $1 }' \
			"$W/cpoints" >"$W/sel.neg"
		: >"$W/sel.none"
		walk "$W/sel.neg" "$W/sel.none" --negative
	fi
	rm_null fcrlog
}

if [ "$MIRROR" = 1 ]; then
	for bs in $SIZES; do run_size "$bs" -mirror "$per"; done
else
	for bs in $SIZES; do run_size "$bs" "" "$per"; done
	[ "$MIRROR_POINTS" -gt 0 ] && run_size "${MIRROR_BS:-${SIZES%% *}}" -mirror "$MIRROR_POINTS"
fi
echo "$T_REPLAYED $T_LOST $T_STALE $T_CHECK" >/results/counts
echo "$S_REPLAYED $S_LOST $S_STALE $S_CHECK" >/results/counts-single
echo "$M_REPLAYED $M_LOST $M_STALE $M_CHECK" >/results/counts-mirror
echo "crash points, one device: $S_REPLAYED replayed, $S_LOST lost, $S_STALE stale, $S_CHECK check failures"
echo "crash points, mirrored: $M_REPLAYED replayed, $M_LOST lost, $M_STALE stale, $M_CHECK check failures"
echo "crash points: $T_REPLAYED replayed, $T_LOST lost, $T_STALE stale, $T_CHECK check failures"
if [ "$WARM" = 1 ] && [ -z "${MUTANT:-}" ]; then
	echo "$S_REPLAYED $S_STALE $W_POINTS $W_BLOCKS" >/results/counts-warm
	echo "warm: $W_POINTS of $S_REPLAYED points kept clean blocks ($W_BLOCKS in all)"
	if [ "$W_POINTS" -gt 0 ]; then
		pass "warm-blocks-kept ($W_POINTS of $S_REPLAYED points, $W_BLOCKS clean blocks)"
	else
		fail "warm-blocks-kept" "no load kept a clean block: the walk tested nothing of warm_restart"
	fi
fi
if [ "$ORDERED" != 0 ] && [ -z "${MUTANT:-}" ]; then
	echo "$O_POINTS $O_TORN $O_OLDER" >/results/counts-ordered
	echo "ordered points: $O_POINTS replayed, $O_TORN torn, $O_OLDER older than the bound"
	if [ "$ORDERED" = check ]; then
		# the negative control: without the pool option, writeback
		# copies dirty blocks in any order
		if [ "$O_TORN" -gt 0 ]; then
			pass "ordered-negative-control ($O_TORN of $O_POINTS points torn without the pool option ordered 1)"
		else
			fail "ordered-negative-control" "no torn point of $O_POINTS without ordered 1: the check sees nothing (does writeback run?)"
		fi
	elif [ "$O_POINTS" -gt 0 ] && [ "$O_TORN" -eq 0 ] && [ "$O_OLDER" -eq 0 ]; then
		pass "ordered-origin ($O_POINTS points: the origin alone at one flush point)"
	else
		fail "ordered-origin" "$O_TORN torn, $O_OLDER older than the bound of $O_POINTS points; see /results/ordered-failures"
	fi
fi
info "guest replay total $(($(date +%s) - t_start)) s"
dmesg_clean
finish
