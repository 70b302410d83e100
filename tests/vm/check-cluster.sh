#!/bin/sh
# make check-cluster [CLUSTER_POINTS=N]: the two-host walk (issue 37,
# docs/CLUSTER.md "Two hosts"): tests/guest/cluster_pair.sh on two guests of
# tests/vm/two-hosts.sh; the peer killed under a syncing writer once, then
# the host running the volume killed N times (10 by default), the other
# taking over each time.  Ends with the lines
#   N passed, N failed
#   failover points: <n> host kills, <l> acknowledged writes lost, peer-loss stall <s> s
# and exits non-zero on any failure, a lost write, fewer kills than asked
# or a stall above 5 s.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
points=${1:-10}
case "$points" in ''|*[!0-9]*|0) echo "check-cluster: CLUSTER_POINTS must be a positive number" >&2; exit 2 ;; esac
[ -f "$top/dm-fcache.ko" ] || { echo "check-cluster: no dm-fcache.ko (make all)" >&2; exit 2; }
out=$top/build/test-logs
mkdir -p "$out"
rm -f "$out"/cluster-*
# each round boots a guest: about 40 s a point on an idle 2-core machine
sh "$top/tests/vm/two-hosts.sh" --timeout $((600 + points * 120)) --name cluster \
	--env "FC_CLUSTER_POINTS=$points" "$top/tests/guest/cluster_pair.sh" >"$out/cluster.out"
rc=$?
cat "$out/cluster.out"
line=$(grep -h '^failover points: ' "$out"/cluster-*.console 2>/dev/null | tr -d '\r' | tail -n 1)
grep -h '^# \(takeover\|4 KiB\|peer loss\)' "$out"/cluster-*.console 2>/dev/null | tr -d '\r' | awk '!seen[$0]++'
fails=$(grep -c '^FAIL: ' "$out/cluster.out")
if [ -z "$line" ]; then
	echo "FAIL: check-cluster/summary (no failover points line)"
	fails=$((fails + 1))
else
	set -- $line
	# failover points: K host kills, L acknowledged writes lost, peer-loss stall S s
	if [ "$3" -lt "$points" ] || [ "$6" -ne 0 ] || ! awk -v s="${12}" 'BEGIN { exit !(s <= 5) }'; then
		echo "FAIL: check-cluster/summary ($line; wanted $points kills, 0 lost, a stall of at most 5 s)"
		fails=$((fails + 1))
	else
		echo "PASS: check-cluster/summary"
	fi
fi
passes=$(grep -c '^PASS: ' "$out/cluster.out")
[ "$line" ] && [ "$fails" -eq 0 ] && passes=$((passes + 1))
echo "$passes passed, $fails failed"
[ -n "$line" ] && echo "$line"
[ "$rc" -eq 0 ] && [ "$fails" -eq 0 ]
