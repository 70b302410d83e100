#!/bin/sh
# Boot the guest and measure issue 11's figures of a mirrored pool on two
# flash devices (ratios within one guest run; tests/guest/bench_mirror_figures.sh).
#   tests/bench/mirror_figures.sh [--ctl FCACHECTL] cost|capacity|smoke [extra compare options]
# Output: results/mirror-<mode>/ (<mode>.txt, <mode>/results.json; the
# console log's path is printed).  The guest's timeout covers the mode.
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-smoke}
[ "$mode" = --ctl ] && mode=${3:-smoke}
case $mode in
cost) timeout=1500 ;;
capacity) timeout=2100 ;;
*) timeout=600 ;;
esac
res=$top/results/mirror-$mode
mkdir -p "$res"
exec sh "$top/tests/vm/run-guest.sh" --name "mirror-$mode" --results "$res" \
	--timeout "$timeout" --mem 3072 tests/guest/bench_mirror_figures.sh "$@"
