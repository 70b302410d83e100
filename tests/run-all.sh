#!/bin/sh
# Runs every test suite and prints the closing line "N passed, N failed".
# Each suite prints lines "PASS: name" / "FAIL: name"; they are counted here.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
log=$top/build/test-logs
mkdir -p "$log"
: >"$log/all.txt"
for suite in "$top"/tests/suites/*.sh; do
	[ -e "$suite" ] || continue
	echo "=== $(basename "$suite")"
	sh "$suite" 2>&1 | tee -a "$log/all.txt"
done
pass=$(grep -c '^PASS: ' "$log/all.txt")
fail=$(grep -c '^FAIL: ' "$log/all.txt")
grep '^FAIL: ' "$log/all.txt"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
