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
# The guests' CPU model: QEMU's max without ERMS and FSRM, 8% less guest
# time under TCG (tests/vm/run-guest.sh says why); the demo
# and the benchmarks keep max.  FC_GUEST_CPU=max runs the suites on max.
export FC_GUEST_CPU=${FC_GUEST_CPU:-max,-erms,-fsrm}
# The tests' python3 is Debian's, whose modules scripts/deps.sh installs.
# The first python3 in PATH may be a version manager's shim instead: pyenv's
# runs about twenty shell processes a call (0.5 s against 0.04 s), which was
# most of the host suites' time on a machine with pyenv.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$top/build/tools"
	ln -sf /usr/bin/python3 "$top/build/tools/python3"
	PATH=$top/build/tools:$PATH
	export PATH
fi
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
# (userspace's ASan fcachectl, the unit tests) are made first, a job a
# CPU, so that no two of them run make in one directory.  The guest suites
# then run one at a time (each boots its own guest; a host suite beside
# them, even at nice 10, made them up to twice as slow; so does a second
# guest: docs/TESTING.md).  FC_SERIAL=1: every suite one at a time, in
# order.
host=
for suite in "$top"/tests/suites/1*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	selected "$name" && host="$host $name"
done
done_host=
if [ -n "$host" ] && [ "${FC_SERIAL:-0}" != 1 ]; then
	s0=$(date +%s)
	# a job a CPU: 27 s against 53 s one file at a time
	pj=-j$(nproc 2>/dev/null || echo 1)
	make -s $pj -C "$top/userspace" asan >"$log/prebuild.out" 2>&1 &&
		make -s $pj -C "$top/tests/unit" all >>"$log/prebuild.out" 2>&1 ||
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
for suite in "$top"/tests/suites/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	selected "$name" || continue
	case " $done_host " in *" $name "*) continue ;; esac
	echo "=== $name"
	s0=$(date +%s)
	{ sh "$suite" </dev/null 2>&1; echo $? >"$log/$name.rc"; } | tee "$log/$name.out"
	collect "$name"
	echo "=== $name: $(($(date +%s) - s0)) s"
done
pass=$(grep -c '^PASS: ' "$all")
fail=$(grep -c '^FAIL: ' "$all")
echo "=== failures:"
grep '^FAIL: ' "$all"
echo "=== total $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed"
mv -f "$all" "$log/all.txt"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
