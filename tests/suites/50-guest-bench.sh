#!/bin/sh
# Guest: a short `fcachectl bench compare --anchors` end to end
# (tests/guest/bench_compare.sh).
. "$(dirname "$0")/../vm/suite-lib.sh"

need_module guest-bench || exit 0
res=$SUITE_TOP/build/vm/results-bench
mkdir -p "$res"
guest_run guest-bench --results "$res" --timeout 480 tests/guest/bench_compare.sh
