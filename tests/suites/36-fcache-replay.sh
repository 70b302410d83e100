#!/bin/sh
# dm-fcache replayed at every flush point (short form of `make check-crash`):
# a workload on a writeback volume whose flash and origin are two slices of
# one dm-log-writes device; the log is replayed at FC_REPLAY_POINTS (40;
# 800 under `make check-long`) crash points over block sizes 64 and 32
# sectors, each checked (fcachectl
# check, load, every sector against the workload's durability oracle,
# flush, origin alone); then a mirrored pool (two legs and the origin on
# one log; a leg fails at run time and a new device replaces it while the
# workload runs; the origin is slowed while the leg is out, so dirty
# blocks are left for the resync to copy while the writer runs on) at
# FC_REPLAY_MIRROR_POINTS (12; 200 under check-long) points of block size
# 64, each checked as the pair, leg0 alone and the other leg alone; each
# walk also takes FC_REPLAY_CKPT_POINTS (4) checkpoints of the sync path
# (the crash point just before an fdatasync returned); plus two controls
# that must fail: a negative control
# (verified against a sync that had not returned) and a kernel mutant (the
# test build with mutant_skip_commit_flush: commits skip their flush).
# See docs/TESTING.md, "Replay at every flush point".  Knobs:
# FC_REPLAY_POINTS, FC_REPLAY_MIRROR_POINTS, FC_REPLAY_SIZES,
# FC_REPLAY_TXNS, FC_REPLAY_SEED, FC_REPLAY_CKPT_POINTS.
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-replay || exit 0
if [ ! -f "$SUITE_TOP/build/fclog/dm-fclog.ko" ]; then
	echo "FAIL: fcache-replay (no build/fclog/dm-fclog.ko: make fclog-module)"
	exit 0
fi
if ! sh "$SUITE_TOP/tests/crash/build.sh"; then
	echo "FAIL: fcache-replay (cannot build the replay tools)"
	exit 0
fi
[ -x "$SUITE_TOP/userspace/fcachectl" ] || { echo "FAIL: fcache-replay (no userspace/fcachectl: make userspace)"; exit 0; }
if [ "${FC_LONG:-0}" = 1 ]; then
	want=${FC_REPLAY_POINTS:-800} mwant=${FC_REPLAY_MIRROR_POINTS:-200}
else
	want=${FC_REPLAY_POINTS:-40} mwant=${FC_REPLAY_MIRROR_POINTS:-12}
fi
seed=${FC_REPLAY_SEED:-$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') + 1 ))}
res=$SUITE_TOP/build/vm/results-replay
rm -rf "$res"
mkdir -p "$res"
t0=$(date +%s)
guest_run fcache-replay --results "$res" --timeout $((900 + want * 6 + mwant * 10)) \
	tests/crash/replay-guest.sh "$want" "$seed" "${FC_REPLAY_SIZES:-64 32}" "${FC_REPLAY_TXNS:-20}" negative=4 \
	mirror_points="$mwant" resync_delay=100 ckpt_points="${FC_REPLAY_CKPT_POINTS:-4}"
el=$(($(date +%s) - t0))
if [ -s "$res/counts" ]; then
	read -r n l s c <"$res/counts"
	mn=0
	[ -s "$res/counts-mirror" ] && read -r mn _ _ _ <"$res/counts-mirror"
	echo "crash points: $n replayed, $l lost, $s stale, $c check failures"
	if [ "$n" -ge $((want + mwant)) ] && [ "$mn" -ge "$mwant" ] && [ "$l" -eq 0 ] && [ "$s" -eq 0 ] && [ "$c" -eq 0 ]; then
		echo "PASS: fcache-replay ($n crash points replayed, $mn of them mirrored, seed $seed, $el s)"
	elif [ "$n" -lt $((want + mwant)) ] || [ "$mn" -lt "$mwant" ]; then
		echo "FAIL: fcache-replay (only $n crash points replayed ($mn mirrored), $want + $mwant mirrored required; seed $seed)"
	else
		echo "FAIL: fcache-replay ($l lost, $s stale, $c check failures at $n crash points; seed $seed; details in $res/failures)"
		head -n 20 "$res/failures" 2>/dev/null | sed 's/^/# /'
	fi
else
	echo "crash points: 0 replayed, 0 lost, 0 stale, 0 check failures"
	echo "FAIL: fcache-replay (the guest wrote no counts; seed $seed)"
fi

# the kernel mutant: the same harness must catch a commit that skips its flush
fi_ko=$SUITE_TOP/build/fi/dm-fcache.ko
if [ ! -f "$fi_ko" ]; then
	echo "FAIL: fcache-replay-mutant (build/fi/dm-fcache.ko not built: make fi-module)"
else
	mres=$SUITE_TOP/build/vm/results-replay-mutant
	rm -rf "$mres"
	mkdir -p "$mres"
	FC_KO=$fi_ko guest_run fcache-replay-mutant --results "$mres" --timeout 900 \
		tests/crash/replay-guest.sh "${FC_REPLAY_MUTANT_POINTS:-30}" "$seed" 64 "${FC_REPLAY_TXNS:-20}" mutant=skip_commit_flush ckpt_points=2
	# check-long: the mutant only a log per device sees (make check-crash
	# runs it too)
	if [ "${FC_LONG:-0}" = 1 ]; then
		FC_KO=$fi_ko guest_run fcache-replay-mutant-leg --results "$mres" --timeout 1500 \
			tests/crash/replay-guest.sh 30 "$seed" 64 20 mirror=1 mutant=flush_one_leg
	fi
fi
