#!/bin/sh
# Boot the guest and profile the demo's closed loop at 128 users, fcache
# against dm-writecache (tests/guest/perf_demo.sh): CPU samples, the
# spindles' operations per transaction, fcache's counters over the same
# window.  Output: results/profile/perf_demo.txt (about 8 minutes).
#   tests/bench/profile.sh [SECONDS]   (measured window, default 30)
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/results/profile"
exec sh "$top/tests/vm/run-guest.sh" --name profile --results "$top/results/profile" \
	--timeout 1200 --mem 3072 tests/guest/perf_demo.sh "$top/userspace/fcachectl" "${1:-30}"
