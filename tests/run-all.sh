#!/bin/sh
# Runs every test suite and prints the closing line "N passed, N failed".
# Each suite prints lines "PASS: name" / "FAIL: name"; they are counted here.
# A suite that exits non-zero without printing a FAIL line gets one here.
# FC_SUITES="10 30" runs only the suites whose names start with those prefixes.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
log=$top/build/test-logs
mkdir -p "$log"
all=$log/all.$$.txt
: >"$all"
t0=$(date +%s)
selected() {
	[ -n "${FC_SUITES:-}" ] || return 0
	for p in $FC_SUITES; do
		case "$1" in "$p"*) return 0 ;; esac
	done
	return 1
}
# collect NAME: the finished suite's output into the totals
collect() {
	rc=$(cat "$log/$1.rc")
	cat "$log/$1.out" >>"$all"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$log/$1.out"; then
		echo "FAIL: $1 (suite exited with status $rc)" | tee -a "$all"
	fi
}
# The host suites (1x-*: no guest) run side by side, each into its own
# file, printed in order when all are done; the builds they share
# (userspace's ASan fcachectl, the unit tests) are made first, so that no
# two of them run make in one directory.  The guest suites then run one at
# a time (each boots its own guest; a host suite beside them, even at nice
# 10, made them up to twice as slow).  FC_SERIAL=1: every suite one at a
# time, in order.
host=
for suite in "$top"/tests/suites/1*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	selected "$name" && host="$host $name"
done
done_host=
if [ -n "$host" ] && [ "${FC_SERIAL:-0}" != 1 ]; then
	s0=$(date +%s)
	make -s -C "$top/userspace" asan >"$log/prebuild.out" 2>&1 &&
		make -s -C "$top/tests/unit" all >>"$log/prebuild.out" 2>&1 ||
		echo "FAIL: host-prebuild ($(tail -n 3 "$log/prebuild.out" | tr '\n' ' '))" | tee -a "$all"
	echo "=== host suites, side by side:$host"
	for name in $host; do
		{ sh "$top/tests/suites/$name.sh" </dev/null >"$log/$name.out" 2>&1; echo $? >"$log/$name.rc"; } &
	done
	wait
	for name in $host; do
		echo "=== $name"
		cat "$log/$name.out"
		collect "$name"
	done
	echo "=== host suites: $(($(date +%s) - s0)) s"
	done_host=$host
fi
# run_suite NAME: one suite, its output into $log/NAME.out, seconds into .time
run_suite() {
	_s0=$(date +%s)
	{ sh "$top/tests/suites/$1.sh" </dev/null >"$log/$1.out" 2>&1; echo $? >"$log/$1.rc"; }
	echo $(($(date +%s) - _s0)) >"$log/$1.time"
}
# The guest suites: the first (the smoke test, which also builds the
# guest's initramfs) alone, then the rest in two lanes side by side.  A
# guest keeps about one of the machine's two cores busy (TCG, I/O to
# memory-backed devices), so two lanes take about half the time; the
# suites are split by their measured times (32-fcache-mirror 12 min,
# 40-guest-ctl 8, 35-fcache-writeback 7, 32-fcache-persist 4, the rest
# 1-3), and the suites that build into one directory stay in one lane
# (36-crash-host and 36-fcache-replay: build/crash).  No test counts work
# done in a fixed time, so a lane beside another only takes longer.  A
# lane holds the guest lock shared with the other (tests/vm/lock.sh): a
# benchmark or any other guest run waits for both.  FC_SERIAL=1 or
# FC_LANES=1: one at a time, in order, each printed as it runs.
LANE1=" 31-fcache-integrity 32-fcache-mirror 33-fcache-crash 35-fcache-writeback 37-fcache-recovery "
guest=
for suite in "$top"/tests/suites/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	selected "$name" || continue
	case " $done_host " in *" $name "*) continue ;; esac
	guest="$guest $name"
done
lanes=${FC_LANES:-2}
[ "${FC_SERIAL:-0}" = 1 ] && lanes=1
if [ "$lanes" = 1 ]; then
	for name in $guest; do
		echo "=== $name"
		s0=$(date +%s)
		{ sh "$top/tests/suites/$name.sh" </dev/null 2>&1; echo $? >"$log/$name.rc"; } | tee "$log/$name.out"
		collect "$name"
		echo "=== $name: $(($(date +%s) - s0)) s"
	done
else
	set -- $guest
	first=${1:-}
	l1= l2=
	for name in $guest; do
		[ "$name" = "$first" ] && continue
		case "$LANE1" in *" $name "*) l1="$l1 $name" ;; *) l2="$l2 $name" ;; esac
	done
	if [ -n "$first" ]; then
		echo "=== $first"
		run_suite "$first"
		cat "$log/$first.out"
		collect "$first"
		echo "=== $first: $(cat "$log/$first.time") s"
	fi
	s0=$(date +%s)
	for name in $l1 $l2; do rm -f "$log/$name.rc" "$log/$name.out" "$log/$name.time"; done
	echo "=== guest suites in two lanes: 1:$l1; 2:$l2"
	for lane in 1 2; do
		eval "names=\$l$lane"
		(
			. "$top/tests/vm/lock.sh"
			vm_lock_lane $lane || { echo "FAIL: lane-$lane (could not get the guest lock)" >"$log/lane$lane.fail"; exit 1; }
			export FC_VM_LOCK_HELD=1
			for name in $names; do
				run_suite "$name"
				echo "=== $name: $(cat "$log/$name.time") s (lane $lane)"
			done
		) &
	done
	wait
	for lane in 1 2; do
		[ -s "$log/lane$lane.fail" ] && cat "$log/lane$lane.fail" | tee -a "$all" && rm -f "$log/lane$lane.fail"
	done
	for name in $guest; do
		[ "$name" = "$first" ] && continue
		echo "=== $name"
		[ -f "$log/$name.rc" ] || echo 1 >"$log/$name.rc"
		touch "$log/$name.out"
		cat "$log/$name.out"
		collect "$name"
		echo "=== $name: $(cat "$log/$name.time" 2>/dev/null || echo '?') s"
	done
	echo "=== guest suites in two lanes: $(($(date +%s) - s0)) s"
fi
pass=$(grep -c '^PASS: ' "$all")
fail=$(grep -c '^FAIL: ' "$all")
echo "=== failures:"
grep '^FAIL: ' "$all"
echo "=== total $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed"
mv -f "$all" "$log/all.txt"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
