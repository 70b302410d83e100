#!/bin/sh
# Boot the guest and measure the kernel issue's fio figures (ratios, one run).
# Output: results/figures.txt.
#   tests/bench/figures.sh [SECONDS_PER_STEP [ROUNDS [B_ROUNDS [C_ROUNDS]]]]
#   (defaults 20, 5, 3 and 3; about 30 minutes under TCG)
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/results"
exec sh "$top/tests/vm/run-guest.sh" --name figures --results "$top/results" \
	--timeout 3600 --mem 3072 tests/guest/fio_figures.sh "$@"
