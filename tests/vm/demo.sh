#!/bin/sh
# `make demo`: boot the guest testbed and run the OLTP before/after benchmark
# (tests/guest/bench_demo.sh): baseline md RAID10 of emulated spindles
# versus fcache, dm-cache and dm-writecache on an emulated flash device in
# a closed loop (fcachectl bench compare --anchors), then fcache against
# the baseline with terminals that think, then a buffer pool sweep.  The
# report, results.json and chart.svg land in results/ at the top of the
# repository (terminals/ and sweep/ below it for the second and third).
#   tests/vm/demo.sh [--ctl FCACHECTL] [--quick] [extra bench compare options...]
# --ctl: the fcachectl binary to run (default userspace/fcachectl).
# FC_DEMO_RESULTS=DIR: where the report goes (default results/ at the top;
# tests/bench/rounds.sh uses results/rounds).
# --quick: smaller devices, two user counts, short steps (~7 minutes with
# two rounds); default ~17 minutes with two rounds (boot ~22 s, closed loop
# ~12 min, terminals and sweep ~5 min).  --rounds N (`make
# demo` passes 2, DEMO_ROUNDS): every configuration of the closed loop
# runs N times, in alternating order; the guest's timeout grows with N.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
res=${FC_DEMO_RESULTS:-$top/results}
quick=0 rounds=1 prev= data=256
for a in "$@"; do
	[ "$a" = --quick ] && quick=1
	[ "$prev" = --rounds ] && rounds=$a
	[ "$prev" = --demo-data ] && data=$a
	case $a in --rounds=*) rounds=${a#--rounds=} ;; esac
	prev=$a
done
# fcachectl and bench_demo.sh refuse bad values themselves
case $rounds in ''|*[!0-9]*) rounds=1 ;; esac
case $data in ''|*[!0-9]*) data=256 ;; esac
# TCG, measured: a round of the closed loop (four configurations) takes
# ~200 s quick, ~360 s full; terminals and sweep ~150 s quick, ~290 s full;
# the timeout allows about twice that, plus the boot
if [ $quick -eq 1 ]; then timeout=$((300 + 400 * rounds + 300)); else timeout=$((300 + 660 * rounds + 800)); fi
# a larger datafile (--demo-data) takes longer to prepare, warm and restore
[ "$data" -gt 256 ] && timeout=$((timeout * data / 256))
[ -f "$top/dm-fcache.ko" ] || { echo "demo: dm-fcache.ko is not built (make module)" >&2; exit 1; }
"$top/userspace/fcachectl" bench --help >/dev/null 2>&1 || [ "${1:-}" = --ctl ] ||
	{ echo "demo: userspace/fcachectl is not built with bench (make userspace)" >&2; exit 1; }
mkdir -p "$res"
rm -rf "$res/report.txt" "$res/results.json" "$res/chart.svg" "$res/terminals" "$res/sweep" "$res"/trace-*.fct
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
	[ -s "$res/terminals/results.json" ] && echo "demo: terminals $res/terminals/ (results.json, chart.svg)"
	[ -d "$res/sweep" ] && echo "demo: buffer pool sweep $res/sweep/ (results.json; bp-<size>/ each size)"
	ls "$res"/trace-*.fct >/dev/null 2>&1 &&
		echo "demo: block traces of fcache's runs $res/trace-*.fct (fcachectl bench optimum FILE)"
	echo
	sed -n '/^== demo summary ==$/,$p' "$res/report.txt"
else
	echo "demo: no report; last console lines:" >&2
	tail -n 20 "$res/console.log" >&2
fi
exit $rc
