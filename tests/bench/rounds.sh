#!/bin/sh
# Whole runs at 128 users: the demo's closed loop (tests/vm/demo.sh, its
# first part only) for fcache and dm-writecache, SECONDS measured a run
# after a 20 s warm-up, ROUNDS runs each in alternating order in one boot
# (bench compare --rounds: medians, their spread, ratios to the baseline,
# which compare always runs).  fcache / dm-writecache is the ratio of the
# two TPS medians, printed last.
#   tests/bench/rounds.sh [SECONDS [ROUNDS]]   (default 60 s, 3 rounds;
#   about 5 minutes a round under TCG)
# Output: results/rounds/ (report.txt, results.json, chart.svg)
top=$(cd "$(dirname "$0")/../.." && pwd)
t=${1:-60} r=${2:-3}
export FC_DEMO_RESULTS="$top/results/rounds"
sh "$top/tests/vm/demo.sh" --demo-parts closed --configs fcache-writeback,dm-writecache \
	--users 128 --time "$t" --rounds "$r" || exit
# the ratio of the medians, from the TPS table (a value and its ratio to
# the baseline per configuration, in the header's order)
awk '/^== TPS \(ratio to baseline\) ==/ { t = 1; next }
	t && $1 == "users" { for (i = 2; i <= NF; i++) col[$i] = 2 * i - 2; next }
	t && $1 == 128 && col["fcache-writeback"] && col["dm-writecache"] {
		printf "fcache / dm-writecache TPS at 128 users (medians): %.2fx\n",
			$col["fcache-writeback"] / $col["dm-writecache"]; exit }' \
	"$FC_DEMO_RESULTS/report.txt"
