#!/bin/sh
# make check-cluster [CLUSTER_POINTS=N]: the two-host tests (issue 37,
# docs/CLUSTER.md "Two hosts") on two guests of tests/vm/two-hosts.sh:
#   tests/guest/cluster_ha.sh: Corosync and Pacemaker on both hosts run
#     ocf:fcache:fcache as a promotable clone; the peer killed under a
#     syncing writer, then the host running the volume killed N times (10
#     by default): Pacemaker fences it and promotes the other, with every
#     acknowledged write;
#   tests/guest/cluster_pair.sh: the same pool driven by the test's own
#     script, 2 kills: the peer killed again as soon as its leg joined, and
#     the write+fdatasync latency of a local mirror against the remote one.
#   tests/guest/ctl_ocf.sh cycle: the agent's tests of make check with the
#     two-host promote/demote cycle and ocf-tester in the two-host roles
#     (one guest, both hosts over the loopback)
# Ends with the lines
#   N passed, N failed
#   failover points: <n> host kills, <l> acknowledged writes lost, peer-loss stall <s> s
# (of the Pacemaker run) and exits non-zero on any failure, a lost write,
# fewer kills than asked or a stall above 5 s.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
points=${1:-10}
case "$points" in ''|*[!0-9]*|0) echo "check-cluster: CLUSTER_POINTS must be a positive number" >&2; exit 2 ;; esac
[ -f "$top/dm-fcache.ko" ] || { echo "check-cluster: no dm-fcache.ko (make all)" >&2; exit 2; }
out=$top/build/test-logs
mkdir -p "$out"
rm -f "$out"/ha-* "$out"/cluster-* "$out"/ha.out "$out"/cluster.out "$out"/ocf-cycle.*
# each round boots a guest and joins it to the cluster: about 70 s a point
# on an idle 2-core machine
sh "$top/tests/vm/two-hosts.sh" --timeout $((900 + points * 180)) --name ha \
	--env "FC_CLUSTER_POINTS=$points" "$top/tests/guest/cluster_ha.sh" >"$out/ha.out"
rc1=$?
cat "$out/ha.out"
sh "$top/tests/vm/two-hosts.sh" --timeout 900 --name cluster \
	--env "FC_CLUSTER_POINTS=2" "$top/tests/guest/cluster_pair.sh" >"$out/cluster.out"
rc=$?
[ "$rc1" -ne 0 ] && rc=$rc1
cat "$out/cluster.out"
sh "$top/tests/vm/run-guest.sh" --timeout 600 --name ocf-cycle "$top/tests/guest/ctl_ocf.sh" cycle \
	>"$out/ocf-cycle.console" 2>"$out/ocf-cycle.console.err"
rc3=$?
tr -d '\r' <"$out/ocf-cycle.console" | grep -aE '^(PASS|FAIL): ' >"$out/ocf-cycle.out"
if [ "$rc3" -ne 0 ]; then
	rc=$rc3
	grep -q '^FAIL: ' "$out/ocf-cycle.out" ||
		echo "FAIL: ocf-cycle (guest run status $rc3: $(tail -n 2 "$out/ocf-cycle.console.err" | tr '\n' ' '))" >>"$out/ocf-cycle.out"
fi
cat "$out/ocf-cycle.out"
line=$(grep -h '^failover points: ' "$out"/ha-*.console 2>/dev/null | tr -d '\r' | tail -n 1)
grep -h '^# \(takeover\|4 KiB\|peer loss\)' "$out"/ha-*.console "$out"/cluster-*.console 2>/dev/null |
	tr -d '\r' | awk '!seen[$0]++'
fails=$(cat "$out/ha.out" "$out/cluster.out" "$out/ocf-cycle.out" | grep -c '^FAIL: ')
passes=$(cat "$out/ha.out" "$out/cluster.out" "$out/ocf-cycle.out" | grep -c '^PASS: ')
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
		passes=$((passes + 1))
	fi
fi
echo "$passes passed, $fails failed"
[ -n "$line" ] && echo "$line"
[ "$rc" -eq 0 ] && [ "$fails" -eq 0 ]
