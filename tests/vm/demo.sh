#!/bin/sh
# `make demo`: boot the guest testbed and run the OLTP before/after benchmark
# (fcachectl bench compare --anchors, see tests/guest/bench_demo.sh):
# baseline md RAID10 of emulated spindles versus fcache, dm-cache and
# dm-writecache on an emulated flash device.  The report, results.json and
# chart.svg land in results/ at the top of the repository.
#   tests/vm/demo.sh [--ctl FCACHECTL] [--quick] [extra bench compare options...]
# --ctl: the fcachectl binary to run (default userspace/fcachectl).
# --quick: two user counts, short steps (< 5 minutes a round); default
# < 15 minutes a round.  --rounds N (`make demo` passes 2, DEMO_ROUNDS):
# every configuration runs N times, in alternating order; the guest's
# timeout grows with N.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
res=$top/results
quick=0 rounds=1 prev=
for a in "$@"; do
	[ "$a" = --quick ] && quick=1
	[ "$prev" = --rounds ] && rounds=$a
	case $a in --rounds=*) rounds=${a#--rounds=} ;; esac
	prev=$a
done
# fcachectl refuses a bad count itself
case $rounds in ''|*[!0-9]*) rounds=1 ;; esac
# a quick round takes ~250 s, a full one ~800 s (TCG), plus the boot
if [ $quick -eq 1 ]; then timeout=$((170 + 250 * rounds)); else timeout=$((240 + 840 * rounds)); fi
[ -f "$top/dm-fcache.ko" ] || { echo "demo: dm-fcache.ko is not built (make module)" >&2; exit 1; }
"$top/userspace/fcachectl" bench --help >/dev/null 2>&1 || [ "${1:-}" = --ctl ] ||
	{ echo "demo: userspace/fcachectl is not built with bench (make userspace)" >&2; exit 1; }
mkdir -p "$res"
rm -f "$res/report.txt" "$res/results.json" "$res/chart.svg"
echo "demo: booting the guest (TCG: slow CPU, so every figure is a ratio to the baseline run)"
start=$(date +%s)
sh "$top/tests/vm/run-guest.sh" --name demo --results "$res" --timeout "$timeout" \
	--mem 3072 tests/guest/bench_demo.sh "$@" >"$res/console.log" 2>&1 &
pid=$!
# follow the report while the guest writes it
while kill -0 $pid 2>/dev/null && [ ! -e "$res/report.txt" ]; do sleep 1; done
tail -n +1 -f "$res/report.txt" --pid=$pid 2>/dev/null
wait $pid
rc=$?
echo
echo "demo: guest finished in $(( $(date +%s) - start )) s (status $rc); console: $res/console.log"
if [ -s "$res/report.txt" ]; then
	echo "demo: report $res/report.txt"
	[ -s "$res/results.json" ] && echo "demo: results $res/results.json"
	[ -s "$res/chart.svg" ] && echo "demo: chart (TPS and average response time versus users) $res/chart.svg"
	echo
	grep '^summary ' "$res/report.txt"
else
	echo "demo: no report; last console lines:" >&2
	tail -n 20 "$res/console.log" >&2
fi
exit $rc
