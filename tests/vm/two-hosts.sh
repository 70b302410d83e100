#!/bin/sh
# Two guests side by side, as two hosts of a cluster (issue 37):
#
#   tests/vm/two-hosts.sh [--timeout S] [--name N] [--flash-mb M]
#                         [--shared-mb M] [--env NAME=VALUE]... GUEST_SCRIPT
#
# Host "a" boots GUEST_SCRIPT with FC_HOST=a FC_ROLE=a, host "b" the same
# with FC_HOST=b FC_ROLE=b.  Each has its own persistent flash image
# (/dev/vdb), both see one shared origin image (a SAN LUN: its virtio disk
# has serial "fcshared"), and they are joined by a private link (eth0, QEMU
# socket netdev over UDP on the host's loopback: 10.77.0.1 is a, 10.77.0.2
# is b).  One host directory is /results in both guests: the guests
# coordinate through files there, and ask this harness for what only the
# host can do, by creating (then leaving) a request file:
#
#   req.kill.H         SIGKILL host H's QEMU (power loss: a fence device);
#                      when it is dead the harness creates dead.H
#   req.boot.H.ROLE    boot host H (not running) again, FC_ROLE=ROLE, with
#                      the same flash image: a host coming back
#
# Every boot's PASS:/FAIL: lines are printed; a boot that fails without a
# FAIL line of its own gets one.  A boot killed on request is not a failure.
# Exit status 0 when no boot failed.  The guest lock is held for the whole
# run (both guests share the machine's two cores: nothing here is timed
# against the clock except the bounds a test states itself).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$top/build/vm
out=$top/build/test-logs
timeout=900 name=two flash_mb=256 shared_mb=512 envs=""
die() { echo "two-hosts: $*" >&2; exit 125; }
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--flash-mb) flash_mb=$2; shift 2 ;;
	--shared-mb) shared_mb=$2; shift 2 ;;
	--env) envs="$envs --env $2"; shift 2 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || die "usage: two-hosts.sh [--timeout S] [--name N] GUEST_SCRIPT"
script=$1
[ -f "$script" ] || die "no guest script $script"

if [ "${FC_VM_LOCK_HELD:-}" != 1 ]; then
	. "$top/tests/vm/lock.sh"
	vm_ticket=""
	vm_lock || die "could not get the guest lock"
	export FC_VM_LOCK_HELD=1
fi

W=$vmdir/$name
res=$W/results
rm -rf "$W"
mkdir -p "$res" "$out" || die "mkdir $W"
# whatever ends this script ends both guests first (no guest outlives the lock)
pid_a="" pid_b="" failed=0
stop_all() {
	: >"$W/kill.a"
	: >"$W/kill.b"
	for _sp in ${pid_a:-} ${pid_b:-}; do wait "$_sp" 2>/dev/null; done
	rm -f ${vm_ticket:+"$vm_ticket"}
}
trap stop_all EXIT
trap 'exit 130' INT TERM HUP
# the link's two UDP ports, from this run's pid (two runs never overlap:
# the lock)
port=$((20000 + $$ % 20000 * 2))

# boot HOST ROLE: one run-guest.sh in the background
boot() {
	_h=$1 _r=$2
	_n=$((${_n_boots:-0} + 1)); _n_boots=$_n
	_lab=$name-$_h$_n-$_r
	if [ "$_h" = a ]; then _net=$port:$((port + 1)); else _net=$((port + 1)):$port; fi
	rm -f "$res/dead.$_h" "$W/kill.$_h"
	sh "$top/tests/vm/run-guest.sh" --name "$_lab" --results "$res" \
		--timeout "$timeout" --flash-img "$W/flash-$_h.img:$flash_mb" \
		--shared-img "$W/shared.img:$shared_mb" --net-udp "$_net" \
		--kill-on "$W/kill.$_h" --env "FC_HOST=$_h" --env "FC_ROLE=$_r" $envs \
		"$script" >"$out/$_lab.console" 2>"$out/$_lab.err" &
	eval "pid_$_h=$!"
	eval "lab_$_h=$_lab"
	echo "two-hosts: booted $_lab" >&2
	echo "$_lab" >>"$W/boots"
}

# reap HOST: the boot ended (by itself or killed); its verdict
reap() {
	eval "_p=\$pid_$1 _lab=\$lab_$1"
	wait "$_p"
	_rc=$?
	eval "pid_$1="
	echo "$_lab $_rc" >>"$W/verdicts"
	echo "two-hosts: $_lab ended, status $_rc" >&2
	# a failed boot ends the run: the other host would wait for it in vain
	if [ "$_rc" -ne 0 ]; then
		: >"$W/kill.a"
		: >"$W/kill.b"
		failed=1
	fi
}

running() { eval "[ -n \"\${pid_$1:-}\" ] && kill -0 \"\$pid_$1\" 2>/dev/null"; }

: >"$W/boots"
: >"$W/verdicts"
boot a a
boot b b
start=$(date +%s)
while :; do
	for h in a b; do
		eval "_p=\${pid_$h:-}"
		[ -n "$_p" ] && ! kill -0 "$_p" 2>/dev/null && reap "$h"
	done
	for r in "$res"/req.*; do
		[ -e "$r" ] || continue
		# shellcheck disable=SC2046
		set -- $(basename "$r" | tr . ' ') ""
		case "$2" in
		kill)
			if running "$3"; then
				: >"$W/kill.$3"
				eval "_p=\$pid_$3"
				while kill -0 "$_p" 2>/dev/null; do sleep 0.1; done
				reap "$3"
			fi
			: >"$res/dead.$3"
			echo "two-hosts: host $3 killed on request" >&2
			;;
		boot)
			[ "$failed" = 1 ] && { rm -f "$r"; continue; }
			if running "$3"; then
				continue	# still shutting down: later
			fi
			boot "$3" "$4"
			;;
		*) echo "two-hosts: unknown request $r" >&2 ;;
		esac
		rm -f "$r"
	done
	if ! running a && ! running b && ! ls "$res"/req.* >/dev/null 2>&1; then
		break
	fi
	if [ $(($(date +%s) - start)) -gt $((timeout + 120)) ]; then
		echo "two-hosts: no end after $timeout s, killing both" >&2
		: >"$W/kill.a"; : >"$W/kill.b"
	fi
	sleep 0.2
done

fail=0
while read -r lab; do
	tr -d '\r' <"$out/$lab.console" | grep -aE '^(PASS|FAIL): ' >"$out/$lab.res"
	cat "$out/$lab.res"
	rc=$(awk -v l="$lab" '$1 == l { print $2 }' "$W/verdicts")
	if [ "${rc:-x}" != 0 ]; then
		fail=1
		grep -q '^FAIL: ' "$out/$lab.res" ||
			echo "FAIL: $lab (guest run status ${rc:-unknown}: $(grep 'run-guest:' "$out/$lab.err" | grep -v 'log \|waiting\|building\| on ' | head -n 2 | tr '\n' ' '))"
		echo "# $lab: see $(sed -n 's/^run-guest: log \(.*\) (status.*/\1/p' "$out/$lab.err")" >&2
	fi
done <"$W/boots"
rm -f "$W"/*.img
exit $fail
