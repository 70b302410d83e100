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
for suite in "$top"/tests/suites/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	if [ -n "${FC_SUITES:-}" ]; then
		sel=0
		for p in $FC_SUITES; do
			case "$name" in "$p"*) sel=1 ;; esac
		done
		[ $sel -eq 1 ] || continue
	fi
	echo "=== $name"
	s0=$(date +%s)
	{ sh "$suite" </dev/null 2>&1; echo $? >"$log/$name.rc"; } | tee "$log/$name.out"
	rc=$(cat "$log/$name.rc")
	cat "$log/$name.out" >>"$all"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$log/$name.out"; then
		echo "FAIL: $name (suite exited with status $rc)" | tee -a "$all"
	fi
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
