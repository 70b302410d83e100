#!/bin/sh
# sh tests/bench/warm_restart.sh: issue 38's warm restart measured: the
# volume's read hit ratio in the first minute after a power cut against the
# minute before it, with the pool's warm_restart 1 and without (cold).  Two
# guest boots a mode on persistent virtio images (the flash 64 MiB, the
# origin 256 MiB holding the OLTP benchmark's 192 MiB datafile): the
# closed loop (32 users, tpcc-like, hotset:95:10) runs two minutes, the
# second measured, then qemu is SIGKILLed as it ends; the next boot loads the
# pool from the flash as the cut left it and measures the loop's first
# minute (tests/guest/bench_warm.sh).  About 12 minutes.  Prints
#   warm restart: read hit ratio X% the minute before the cut, Y% the first minute after (Zx)
#   cold restart: ...
# and writes them to results/warm/warm.txt.  Ratios only: both minutes run
# in the same guest setup; TCG's speed sets how many reads a minute holds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/suite-lib.sh"
need_module bench-warm || exit 2
[ -x "$top/userspace/fcachectl" ] || { echo "warm_restart: no userspace/fcachectl (make)" >&2; exit 2; }
res=$top/build/vm/results-warm-bench
out=$top/results/warm
rm -rf "$res"
mkdir -p "$res" "$out"
: >"$out/warm.txt"
rc=0
for mode in warm cold; do
	fl=$top/build/vm/warm-$mode-flash.img org=$top/build/vm/warm-$mode-origin.img
	rm -f "$fl" "$org"
	guest_expect_killed bench-warm-$mode-before --results "$res" --flash-img "$fl:64" \
		--disk2 "$org:256" --timeout 1200 --kill-when "$res/$mode.progress:1:1" \
		tests/guest/bench_warm.sh $mode before || rc=1
	guest_run bench-warm-$mode-after --results "$res" --flash-img "$fl:64" --disk2 "$org:256" \
		--timeout 900 tests/guest/bench_warm.sh $mode after || rc=1
	rm -f "$fl" "$org"
	if [ -s "$res/$mode.before" ] && [ -s "$res/$mode.after" ]; then
		read -r b _ _ <"$res/$mode.before"
		read -r a n kept <"$res/$mode.after"
		echo "$mode restart: read hit ratio $b% the minute before the cut, $a% the first minute after ($(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')x; $n reads; $kept clean blocks kept by the load)" |
			tee -a "$out/warm.txt"
	else
		echo "$mode restart: no figures (see build/test-logs/bench-warm-$mode-*.console)"
		rc=1
	fi
done
exit $rc
