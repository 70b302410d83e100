#!/bin/sh
# Boot the guest and measure the kernel issue's fio figures (ratios, one run).
# Output: results/figures.txt.  FIG_TIME=seconds per fio step (default 20).
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/results"
exec sh "$top/tests/vm/run-guest.sh" --name figures --results "$top/results" \
	--timeout 1500 --mem 3072 tests/guest/fio_figures.sh
