#!/bin/sh
# Boot the guest and measure the spread of whole runs at 128 users, fcache
# against dm-writecache, alternating, in one boot (tests/guest/perf_rounds.sh).
#   tests/bench/rounds.sh [SECONDS [ROUNDS]]   (default 60 s, 3 rounds;
#   about 5 minutes a pair of runs under TCG)
# Output: results/rounds/rounds.txt
top=$(cd "$(dirname "$0")/../.." && pwd)
t=${1:-60} r=${2:-3}
mkdir -p "$top/results/rounds"
exec sh "$top/tests/vm/run-guest.sh" --name rounds --results "$top/results/rounds" \
	--timeout $((600 + r * (2 * t + 240) * 2)) --mem 3072 \
	tests/guest/perf_rounds.sh "$top/userspace/fcachectl" "$t" "$r"
