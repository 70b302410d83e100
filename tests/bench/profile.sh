#!/bin/sh
# Boot the guest and profile the demo's closed loop at 128 users, fcache
# against dm-writecache (tests/guest/perf_demo.sh): CPU samples, the
# spindles' operations per transaction, fcache's counters over the same
# window.  Output: results/profile/perf_demo.txt (about 8 minutes).
#   tests/bench/profile.sh [SECONDS [POOL_OPTIONS...]]   (measured window,
#   default 30; each POOL_OPTIONS argument, "-" for the defaults, is one
#   fcache run: tests/guest/perf_demo.sh)
top=$(cd "$(dirname "$0")/../.." && pwd)
t=${1:-30}
[ $# -gt 0 ] && shift
mkdir -p "$top/results/profile"
# about 5 minutes a run under TCG, and the setup
exec sh "$top/tests/vm/run-guest.sh" --name profile --results "$top/results/profile" \
	--timeout $((900 + 420 * ($# > 1 ? $# : 1))) --mem 3072 \
	tests/guest/perf_demo.sh "$top/userspace/fcachectl" "$t" "$@"
