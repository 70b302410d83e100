#!/bin/sh
# The documentation stays within its budget and its links hold (issue 35,
# item 13): docs/PERFORMANCE.md under 500 lines and docs/TESTING.md under
# 450; every relative link of README.md and docs/*.md names a file that
# exists and, with a #fragment, a heading's GitHub anchor; every
# reference in the tree to a section of a docs file by its quoted title
# names the start of a heading there.
# The checker first proves itself on a small tree with each fault
# (tests/host/docs_check.py --self-test).  One PASS/FAIL line a check.
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL: docs/python3 (not installed)"
	exit 1
fi
python3 "$top/tests/host/docs_check.py" --top "$top" --self-test
