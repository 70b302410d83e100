#!/bin/sh
# Guest side of "replay at every flush point" (docs/TESTING.md), run by
# tests/suites/36-fcache-replay.sh and tests/crash/run-crash.sh.
#
#   replay-guest.sh POINTS SEED BLOCK_SIZES TXNS [KEY=VALUE...]
#   (the host's environment does not reach the guest: knobs are arguments,
#   trace=1 (a timestamped line per step), progress=N, flash=MB (16),
#   origin=MB (24))
#
# For each fcache block size (sectors) in BLOCK_SIZES ("64 32"):
#  1. one null_blk with a volatile write cache (so flushes and FUA reach it)
#     wrapped by log-writes (log on a second null_blk); two dm-linear slices
#     of it: the fcache flash and the origin.  One log orders every write and
#     flush of both.
#  2. cw_work runs TXNS transactions in each of three phases on the writeback
#     volume (phase 2 with low writeback watermarks: writeback and
#     write-around), with a clean teardown and reload of volume and pool
#     between phases 2 and 3; it marks the log after every RWF_DSYNC write
#     and fdatasync and records what each mark made durable.
#  3. the crash points (FLUSH/FUA entries; POINTS/#sizes per size, two thirds
#     plain prefixes, one third random-subset variants, half of those with a
#     torn write) are replayed in log order, incrementally, onto a fresh
#     device; each state is checked on a copy of it (subset writes go to
#     the copy only), through two dm-linear slices of the copy:
#     fcachectl check of the flash slice (offline), pool + volume load, every
#     sector read through the volume against the oracle, volume flush,
#     teardown, the origin slice alone against the oracle and byte-equal to
#     what the volume returned.
# Prints PASS/FAIL lines and "crash points: <n> replayed, <l> lost,
# <s> stale, <c> check failures"; the counts also go to /results/counts.
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
	*) die "unknown argument $kv" ;;
	esac
done
B=$FC_TOP/build/crash
FCCTL=$FC_TOP/userspace/fcachectl
for t in lw_replay cw_work; do [ -x "$B/$t" ] || die "no $B/$t (tests/crash/build.sh)"; done
[ -x "$FCCTL" ] || die "no $FCCTL (make userspace)"
load_fcache || die "insmod failed" module-load
modprobe dm-log-writes && modprobe dm-snapshot || die "dm-log-writes / dm-snapshot missing"
FLASH_MB=${FC_REPLAY_FLASH_MB:-16} ORIGIN_MB=${FC_REPLAY_ORIGIN_MB:-24} LOG_MB=${FC_REPLAY_LOG_MB:-1024}
FS=$((FLASH_MB * 2048)) OS=$((ORIGIN_MB * 2048)) TS=$(((FLASH_MB + ORIGIN_MB) * 2048))
W=/tmp/replay
mkdir -p "$W"
nsizes=$(echo $SIZES | wc -w)
per=$(( (POINTS + nsizes - 1) / nsizes ))
PROGRESS=${FC_REPLAY_PROGRESS:-10}
T_REPLAYED=0 T_LOST=0 T_STALE=0 T_CHECK=0
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

# check_state: the replayed state is on $WORK (slices rflash, rorigin);
# k, variant, dmark, bmark set.  Updates the counters.
check_state() {
	_lost=0 _stale=0 _chk=0
	step "entry $k $variant dmark $dmark bmark $bmark: fcachectl check"
	if ! "$FCCTL" check /dev/mapper/rflash >"$W/check.out" 2>&1; then
		_chk=1
		point_note "fcachectl check failed: $(grep -iv leftover "$W/check.out" | tail -n 3 | tr '\n' ' ')"
	fi
	step load
	if ! mk_dm rpool "0 $FS fcache-pool /dev/mapper/rflash $bs" 2>"$W/load.err"; then
		_chk=1
		point_note "pool load refused: $(tail -n 2 "$W/load.err" | tr '\n' ' ') $(dmesg | tail -n 3 | tr '\n' ' ')"
	elif ! mk_dm rvol "0 $OS fcache /dev/mapper/rpool /dev/mapper/rorigin 1 writeback" 2>"$W/load.err"; then
		_chk=1
		point_note "volume load refused: $(tail -n 2 "$W/load.err" | tr '\n' ' ') $(dmesg | tail -n 3 | tr '\n' ' ')"
	else
		step "verify volume"
		"$B/cw_work" verify /dev/mapper/rvol "$W/oracle" "$dmark" "$bmark" --save "$W/img" >"$W/v1.out" 2>&1
		case $? in
		0) ;;
		1)	grep -q 'lost [1-9]' "$W/v1.out" && _lost=1
			grep -q 'stale [1-9]' "$W/v1.out" && _stale=1
			point_note "through the volume: $(tail -n 1 "$W/v1.out"); $(head -n 2 "$W/v1.out" | tr '\n' ' ')" ;;
		*)	_chk=1; point_note "volume read failed: $(tail -n 2 "$W/v1.out" | tr '\n' ' ')" ;;
		esac
		step "flush: $(dmsetup status rvol)"
		if ! dmsetup message rvol 0 flush 2>"$W/flush.err"; then
			_chk=1
			point_note "volume flush failed: $(tail -n 1 "$W/flush.err")"
		fi
	fi
	step remove
	dmsetup remove rvol 2>/dev/null
	dmsetup remove rpool 2>/dev/null
	if [ -e /dev/mapper/rvol ] || [ -e /dev/mapper/rpool ]; then
		dm_remove rvol; dm_remove rpool
	fi
	if [ -s "$W/img" ] && [ $_chk -eq 0 ]; then
		step "verify origin"
		"$B/cw_work" verify /dev/mapper/rorigin "$W/oracle" "$dmark" "$bmark" --same "$W/img" >"$W/v2.out" 2>&1
		case $? in
		0) ;;
		1)	grep -q 'lost [1-9]' "$W/v2.out" && _lost=1
			grep -q 'stale [1-9]' "$W/v2.out" && _stale=1
			point_note "origin alone after the flush: $(tail -n 1 "$W/v2.out"); $(head -n 2 "$W/v2.out" | tr '\n' ' ')" ;;
		*)	_chk=1; point_note "origin read failed: $(tail -n 2 "$W/v2.out" | tr '\n' ' ')" ;;
		esac
	fi
	rm -f "$W/img"
	T_REPLAYED=$((T_REPLAYED + 1)) C_REPLAYED=$((C_REPLAYED + 1))
	[ $((C_REPLAYED % PROGRESS)) = 0 ] &&
		info "bs$bs: $C_REPLAYED points checked, $(($(date +%s) - c1)) s (entry $k $variant: $(tail -n 1 "$W/v1.out" 2>/dev/null | cut -c1-60))"
	T_LOST=$((T_LOST + _lost)) T_STALE=$((T_STALE + _stale)) T_CHECK=$((T_CHECK + _chk))
	C_BAD=$((C_BAD + _lost + _stale + _chk))
	if [ $((_lost + _stale + _chk)) -gt 0 ] && [ -z "$SAVED" ]; then
		SAVED=1
		save_evidence
	fi
}

# the log, its index and the oracle of the first failing configuration
save_evidence() {
	_d=/results/evidence-bs$bs-seed$SEED
	mkdir -p "$_d" || return
	cp "$W/oracle" "$W/points" "$W/list" "$_d/" 2>/dev/null
	dd if="$LOGDEV" of="$_d/log.img" bs=1M count=$(( (LOGUSED / 2048) + 1 )) status=none
	echo "# evidence saved in $_d (log.img, oracle, list)"
}

# walk PLAIN SUBSET ALL: replay the crash points of ALL in log order onto
# $RDEV (fresh), checking the prefix at those in PLAIN and a random subset
# variant at those in SUBSET
walk() {
	prev=-1
	while read -r k <&3; do
		[ -n "$k" ] || continue
		from=$((prev + 1)) to=$k
		step "replay $from..$to"
		# replays from..k (nothing when from > k) and prints the durability
		# marks of crash point k
		"$B/lw_replay" -i "$W/index" replay "$LOGDEV" "$RDEV" --from "$from" --to "$to" --marks cw >"$W/r.out" ||
			die "replay $from..$to failed: $(cat "$W/r.out")" replay
		prev=$to
		dmark=$(sed -n 's/.* dmark \([^ ]*\) .*/\1/p' "$W/r.out")
		bmark=$(sed -n 's/.* bmark \([^ ]*\) .*/\1/p' "$W/r.out")
		if grep -qx "$k" "$1"; then
			variant=prefix
			step copy
			dd if="$RDEV" of="$WORK" bs=1M iflag=direct oflag=direct status=none || die "copy to $WORK" setup
			check_state
		fi
		if grep -qx "$k" "$2"; then
			s=$((SEED * 1000003 + k * 7 + bs))
			tear=""
			[ $((k % 2)) = 0 ] && tear=--tear
			variant="subset-seed$s${tear:+-torn}"
			step copy
			dd if="$RDEV" of="$WORK" bs=1M iflag=direct oflag=direct status=none || die "copy to $WORK" setup
			"$B/lw_replay" -i "$W/index" replay "$LOGDEV" "$WORK" --from $((k + 1)) --to "$k" \
				--subset "$s" $tear --marks cw >"$W/r.out" || die "subset replay at $k failed" replay
			dmark=$(sed -n 's/.* dmark \([^ ]*\) .*/\1/p' "$W/r.out")
			bmark=$(sed -n 's/.* bmark \([^ ]*\) .*/\1/p' "$W/r.out")
			check_state
		fi
	done 3<"$3"
}

for bs in $SIZES; do
	C_REPLAYED=0 C_BAD=0 SAVED=""
	c0=$(date +%s)
	# --- 1. the logged layout ---------------------------------------------
	DATA=$(mk_null fcrdata $((FLASH_MB + ORIGIN_MB)) cache_size=8 discard=1) || die "null_blk data" setup
	LOGDEV=$(mk_null fcrlog "$LOG_MB") || die "null_blk log" setup
	grep -q 'write back' "/sys/block/$(basename "$DATA")/queue/write_cache" ||
		die "$DATA has no volatile write cache: flushes would not be logged" setup
	dm_create lw "0 $TS log-writes $DATA $LOGDEV" || die "log-writes" setup
	dm_create lwflash "0 $FS linear /dev/mapper/lw 0" &&
		dm_create lworigin "0 $OS linear /dev/mapper/lw $FS" || die "slices" setup
	rm -f "$W/oracle" "$W/state"
	"$B/cw_work" init "$W/state" "$W/oracle" "$OS" 4096 "$((SEED * 100 + bs))" || die "cw_work init" setup
	# --- 2. the workload ----------------------------------------------------
	ok=1
	fc_pool fpool /dev/mapper/lwflash "$bs" commit_interval 300 || ok=0
	fc_vol fvol fpool /dev/mapper/lworigin 1 writeback sequential_cutoff 0 || ok=0
	[ $ok = 1 ] || die "pool/volume on the logged slices" bs$bs-setup
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" || ok=0
	# phase 2: writeback at full speed, and write-around once 1% is dirty
	dmsetup message fpool 0 writeback_low 0 && dmsetup message fpool 0 writeback_high 1 &&
		dmsetup message fpool 0 max_dirty_age 1 || ok=0
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" --ckpt 5 || ok=0
	info "bs$bs after phase 2: pool $(dmsetup status fpool | cut -d' ' -f4-) volume $(dmsetup status fvol | cut -d' ' -f4-)"
	# a clean shutdown and reload, in the log too
	dmsetup message lw 0 mark x-reload
	dm_remove fvol && dm_remove fpool || ok=0
	fc_pool fpool /dev/mapper/lwflash "$bs" || ok=0
	fc_vol fvol fpool /dev/mapper/lworigin 1 writeback sequential_cutoff 0 || ok=0
	"$B/cw_work" run /dev/mapper/fvol "$W/state" "$W/oracle" lw "$TXNS" --ckpt 12 --discards 20 || ok=0
	info "bs$bs after phase 3: pool $(dmsetup status fpool | cut -d' ' -f4-) volume $(dmsetup status fvol | cut -d' ' -f4-)"
	LOGUSED=$(dmsetup status lw | awk '{ print $5 }')
	dm_remove fvol; dm_remove fpool; dm_remove lwflash; dm_remove lworigin
	dm_remove lw || ok=0	# the target's destructor logs the rest and the super
	if [ $ok = 1 ]; then
		pass "bs$bs-workload ($(grep -c '^[WD]' "$W/oracle") writes/discards, $(grep -c '^M' "$W/oracle") marks, log $((LOGUSED / 2048)) MiB, $(($(date +%s) - c0)) s)"
	else
		fail "bs$bs-workload" "the workload or a reload failed"
		rm_null fcrdata; rm_null fcrlog
		continue
	fi
	rm_null fcrdata
	# --- 3. crash points ----------------------------------------------------
	"$B/lw_replay" index "$LOGDEV" "$W/index" >/dev/null || { fail "bs$bs-log-parse"; rm_null fcrlog; continue; }
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
	awk -v n="$plain" -v N="$npts" 'BEGIN { srand(0) } { i = NR - 1; if (n >= N || int(i * n / N) != int((i + 1) * n / N)) print $1 }' \
		"$W/cpoints" >"$W/sel.plain"
	awk -v n="$nsub" -v N="$withw" '$2 > 0 { i = c++; if (n >= N || int(i * n / N) != int((i + 1) * n / N)) print $1 }' \
		"$W/cpoints" >"$W/sel.sub"
	info "bs$bs: $(wc -l <"$W/list") log entries, $npts crash points, $nmarks durability marks; replaying $(wc -l <"$W/sel.plain") prefixes + $(wc -l <"$W/sel.sub") subset variants"
	RDEV=$(mk_null fcrtarget $((FLASH_MB + ORIGIN_MB)) discard=1) || die "replay target" setup
	# each crash state is checked on a copy (WORK) of the replay target,
	# through two slices that stay
	WORK=$(mk_null fcrwork $((FLASH_MB + ORIGIN_MB))) || die "work device" setup
	dm_create rflash "0 $FS linear $WORK 0" &&
		dm_create rorigin "0 $OS linear $WORK $FS" || die "slices of the work device" setup
	sort -n -u "$W/sel.plain" "$W/sel.sub" >"$W/sel.all"
	c1=$(date +%s)
	walk "$W/sel.plain" "$W/sel.sub" "$W/sel.all"
	el=$(($(date +%s) - c1))
	if [ "$C_BAD" -eq 0 ] && [ "$C_REPLAYED" -gt 0 ]; then
		pass "bs$bs-crash-points ($C_REPLAYED replayed in $el s, of $npts in the log)"
	else
		fail "bs$bs-crash-points" "$C_BAD failures in $C_REPLAYED replayed; see /results/failures"
	fi
	dm_remove rflash; dm_remove rorigin
	rm_null fcrtarget; rm_null fcrwork; rm_null fcrlog
done
echo "$T_REPLAYED $T_LOST $T_STALE $T_CHECK" >/results/counts
echo "crash points: $T_REPLAYED replayed, $T_LOST lost, $T_STALE stale, $T_CHECK check failures"
info "guest replay total $(($(date +%s) - t_start)) s"
dmesg_clean
finish
