#!/bin/sh
# make check-cluster [CLUSTER_POINTS=N]: the two-host tests (issue 37,
# docs/CLUSTER.md "Two hosts") on two guests of tests/vm/two-hosts.sh:
# tests/guest/cluster_pcmk.sh (Corosync and Pacemaker form a cluster, fence
# a dead host through the harness, move a resource), then
# tests/guest/cluster_pair.sh: the peer killed under a syncing writer once, then
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
rm -f "$out"/pcmk-*
# Corosync and Pacemaker on the two guests: the cluster forms, a host's
# death is noticed, the host fenced through the harness, a resource moved
sh "$top/tests/vm/two-hosts.sh" --timeout 600 --name pcmk \
	"$top/tests/guest/cluster_pcmk.sh" >"$out/pcmk.out"
rc1=$?
cat "$out/pcmk.out"
grep -h '^# \(the resource\|reboot of\)' "$out"/pcmk-*.console 2>/dev/null | tr -d '\r'
# each round boots a guest: about 30 s a point on an idle 2-core machine
sh "$top/tests/vm/two-hosts.sh" --timeout $((600 + points * 120)) --name cluster \
	--env "FC_CLUSTER_POINTS=$points" "$top/tests/guest/cluster_pair.sh" >"$out/cluster.out"
rc=$?
[ "$rc1" -ne 0 ] && rc=$rc1
cat "$out/cluster.out" >>"$out/pcmk.out"
cat "$out/cluster.out"
line=$(grep -h '^failover points: ' "$out"/cluster-*.console 2>/dev/null | tr -d '\r' | tail -n 1)
grep -h '^# \(takeover\|4 KiB\|peer loss\)' "$out"/cluster-*.console 2>/dev/null | tr -d '\r' | awk '!seen[$0]++'
fails=$(grep -c '^FAIL: ' "$out/pcmk.out")
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
passes=$(grep -c '^PASS: ' "$out/pcmk.out")
[ "$line" ] && [ "$fails" -eq 0 ] && passes=$((passes + 1))
echo "$passes passed, $fails failed"
[ -n "$line" ] && echo "$line"
[ "$rc" -eq 0 ] && [ "$fails" -eq 0 ]
