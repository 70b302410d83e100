#!/bin/sh
# docs/DESIGN.md's decision table ("The decision table", between the
# decide-table markers) against the table in the code: fc_decide_rules[] of
# engine/fc_decide.c as tests/unit/bin/test_decide --table prints it.
#   decide_table.sh            check (PASS/FAIL line, the first differences)
#   decide_table.sh --update   rewrite DESIGN.md's rows from the code
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/docs/DESIGN.md
bin=$top/tests/unit/bin/test_decide
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

if ! make -s -C "$top/tests/unit" bin/test_decide >"$T/build.log" 2>&1; then
	echo "FAIL: decide-table: build tests/unit/bin/test_decide ($(head -c 300 "$T/build.log"))"
	exit 0
fi
"$bin" --table >"$T/code" || { echo "FAIL: decide-table: test_decide --table"; exit 0; }
begin='^<!-- decide-table: begin'
end='^<!-- decide-table: end'
if [ "$(grep -c "$begin" "$doc")" != 1 ] || [ "$(grep -c "$end" "$doc")" != 1 ]; then
	echo "FAIL: decide-table: docs/DESIGN.md needs one pair of decide-table markers"
	exit 0
fi
if [ "$1" = --update ]; then
	awk -v code="$T/code" -v b="$begin" -v e="$end" '
		$0 ~ b { print; while ((getline l <code) > 0) print l; skip = 1; next }
		$0 ~ e { skip = 0 }
		!skip' "$doc" >"$T/doc" && cat "$T/doc" >"$doc"
	echo "decide-table: docs/DESIGN.md rewritten ($(grep -c '^| [0-9]' "$T/code") rows)"
	exit 0
fi
awk -v b="$begin" -v e="$end" '$0 ~ e { on = 0 } on; $0 ~ b { on = 1 }' "$doc" >"$T/doc"
rows=$(grep -c '^| [0-9]' "$T/code")
if cmp -s "$T/code" "$T/doc"; then
	echo "PASS: decide-table: docs/DESIGN.md quotes the $rows rows of fc_decide_rules[] and its conditions"
else
	echo "FAIL: decide-table: docs/DESIGN.md's decision table differs from engine/fc_decide.c (sh tests/host/decide_table.sh --update)"
	diff "$T/doc" "$T/code" | head -n 10 | sed 's/^/#   /'
fi
exit 0
