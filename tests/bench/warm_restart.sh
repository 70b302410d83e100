#!/bin/sh
# sh tests/bench/warm_restart.sh [PROFILE]: issue 38's warm restart measured on the
# demo's testbed (an md RAID10 of four 4 ms null_blk spindles, 64 MiB of
# flash): the volume's read hit ratio in the first minute after a power cut
# against the last minute before it, with the pool's warm_restart 1 and
# without (cold), in one guest (tests/guest/bench_warm.sh: the closed loop
# runs two minutes, the flash is frozen and copied as it ends, the pool is
# loaded from the copy, the loop's first minute is measured).  About 13
# minutes.  Prints a line a mode
#   warm restart: read hit ratio B% the last minute before the cut, A% the first minute after (Rx; N reads; K clean blocks kept), F% its first 10 s
# and writes them to results/warm/warm-PROFILE.txt.  PROFILE: the benchmark's
# (tpcc-like; read-only shows a cache of clean blocks alone).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/suite-lib.sh"
need_module bench-warm || exit 2
[ -x "$top/userspace/fcachectl" ] || { echo "warm_restart: no userspace/fcachectl (make)" >&2; exit 2; }
out=$top/results/warm
mkdir -p "$out"
guest_run bench-warm --timeout 2400 tests/guest/bench_warm.sh profile="${1:-tpcc-like}" warm cold
rc=$?
tr -d '\r' <"$SUITE_OUT/bench-warm.console" | grep -a '^bench-warm ' |
	while read -r _ mode _ b _ a _ n _ k _ f; do
		echo "${mode%:} restart: read hit ratio $b% the last minute before the cut, $a% the first minute after ($(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')x; $n reads; $k clean blocks kept), $f% its first 10 s"
	done | tee "$out/warm-${1:-tpcc-like}.txt"
[ -s "$out/warm-${1:-tpcc-like}.txt" ] || rc=1
exit $rc
