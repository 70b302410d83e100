#!/bin/sh
# Boot the guest and measure the kernel issue's fio figures (ratios, one run).
# Output: results/figures.txt.
#   tests/bench/figures.sh [SECONDS_PER_STEP [ROUNDS]]   (defaults 20 and 5)
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/results"
exec sh "$top/tests/vm/run-guest.sh" --name figures --results "$top/results" \
	--timeout 1700 --mem 3072 tests/guest/fio_figures.sh "$@"
