#!/bin/sh
# Two hosts, one cached database volume, dirty data on both hosts' flash
# (issue 37; run by tests/vm/two-hosts.sh, which boots this script on host
# a and host b: docs/CLUSTER.md, "Two hosts").
#
# The origin is one disk both hosts see (a SAN LUN).  The host running the
# volume (the primary) mirrors its pool onto its own flash and onto the
# other host's flash, exported by the kernel's NVMe target over TCP on the
# private link.  Rounds:
#
#   0. a is primary: a mirrored pool of a's flash and b's namespace.
#   peer loss: with a writer syncing every write, a asks the harness to
#      kill b (power loss).  a's writes stall while nvme-tcp notices (keep
#      alive 1 s, I/O failed at once after that) and the pool fails the
#      leg: the longest write+fdatasync is the stall (at most 5 s), the pool
#      says degraded, the kernel log says why.  b boots again; a connects
#      to its namespace and replaces the failed leg with it (the same
#      device, holding the copy from before its death); killed again
#      as soon as it joined, the leg fails again and nothing is lost;
#      back once more, its resync ends, the pool is mirrored again, every
#      write reads back.
#   1..N: the primary runs the writer (fdatasync after each write; a write
#      is acknowledged once that returns, and only then is it logged on
#      the host) and asks the harness to kill itself after a number of
#      writes that changes from round to round.  The other host, told by
#      the harness that the primary is dead (the fence), stops exporting
#      its flash, loads the pool from it alone (mirror - degraded 1), the
#      volume over the shared origin, and checks every acknowledged write
#      byte for byte.  It is the primary now: it asks the harness to boot
#      the dead host, which exports its flash; the new primary replaces the
#      missing leg with that namespace and resyncs.
#
# The last primary prints
#   failover points: <n> host kills, <l> acknowledged writes lost, peer-loss stall <s> s
#
# FC_ROLE (from the harness) is only "a" or "b" at the first boot and
# "peer" for a host booted again; the rest is in files on /results.
FC_T=cluster_${FC_HOST:-x}$(cat /results/boots.$FC_HOST 2>/dev/null)
. "$FC_TOP/tests/guest/lib.sh"
. "$FC_TOP/tests/guest/cluster_lib.sh"
ACK=$FC_TOP/tests/guest/fc_acked.py
POINTS=${FC_CLUSTER_POINTS:-3}
BLOCKS=8192	# the writer's range: 32 MiB of 4 KiB blocks
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
P_RED=16 P_LEGS=18
nqn_of() { echo "nqn.2026-12.io.fcache:flash-$1"; }
CFS=/sys/kernel/config/nvmet
echo $(($(cat $R/boots.$me 2>/dev/null || echo 0) + 1)) >$R/boots.$me

# export_flash: this host's flash as namespace 1 of nqn_of(me), TCP port 4420
export_flash() {
	_s=$CFS/subsystems/$(nqn_of "$me")
	mkdir "$_s" && echo 1 >"$_s/attr_allow_any_host" &&
		mkdir "$_s/namespaces/1" && printf '%s' "$FLASH" >"$_s/namespaces/1/device_path" &&
		echo 1 >"$_s/namespaces/1/enable" &&
		mkdir "$CFS/ports/1" && echo tcp >"$CFS/ports/1/addr_trtype" &&
		echo ipv4 >"$CFS/ports/1/addr_adrfam" && echo "$(ip_of "$me")" >"$CFS/ports/1/addr_traddr" &&
		echo 4420 >"$CFS/ports/1/addr_trsvcid" &&
		ln -s "$_s" "$CFS/ports/1/subsystems/$(nqn_of "$me")"
}
unexport_flash() {
	_s=$CFS/subsystems/$(nqn_of "$me")
	rm -f "$CFS/ports/1/subsystems/$(nqn_of "$me")"
	rmdir "$CFS/ports/1"
	echo 0 >"$_s/namespaces/1/enable"
	rmdir "$_s/namespaces/1" "$_s"
}

# remote_dev: the peer's namespace (the multipath head node), if connected
remote_dev() {
	for _rn in /sys/block/nvme*n*; do
		case ${_rn##*/} in *c*) continue ;; esac
		[ "$(cat "$_rn/device/subsysnqn" 2>/dev/null)" = "$(nqn_of "$peer")" ] || continue
		[ -b "/dev/${_rn##*/}" ] && { echo "/dev/${_rn##*/}"; return 0; }
	done
	return 1
}
# connect_peer: a lost peer is noticed by the keep-alive (1 s) and its I/O
# failed at once (fast_io_fail_tmo=0), not queued for ctrl_loss_tmo
connect_peer() {
	echo "transport=tcp,traddr=$(ip_of "$peer"),trsvcid=4420,nqn=$(nqn_of "$peer"),keep_alive_tmo=1,ctrl_loss_tmo=2,reconnect_delay=1,fast_io_fail_tmo=0" \
		>/dev/nvme-fabrics || return 1
	poll_until 200 remote_dev || return 1
	# a write the peer never answers times out after 1 s on this path
	# alone (nvme_core's io_timeout, 30 s, is every NVMe device's)
	for _q in /sys/block/nvme*c*n*/queue/io_timeout; do
		[ "$(cat "${_q%/queue/io_timeout}/device/subsysnqn" 2>/dev/null)" = "$(nqn_of "$peer")" ] &&
			echo 1000 >"$_q"
	done
	return 0
}

pool_table() { echo "0 $(dev_sectors "$FLASH") fcache-pool $FLASH 64 $# $*"; }
mirrored() { status_is mp $P_RED mirrored && status_is mp $P_LEGS ok,ok; }

# add_peer_leg: the peer's namespace replaces the pool's missing or failed leg
# (fcachectl's reload with `replace 1`: --force, as the device holds the
# peer's old copy; it retries while the failed leg is being vacated)
add_peer_leg() {
	must connect-peer connect_peer
	RDEV=$(remote_dev)
	must replace-leg "$FC_TOP/userspace/fcachectl" pool replace mp "$RDEV" --force --no-persist
	[ "${1:-}" = no-wait ] && return 0
	must resync-done poll_until 3000 mirrored
}

# become_primary: this host runs the volume from now on; the dead peer
# comes back as a peer (its flash exported) and joins the pool
become_primary() {
	rm -f $R/exported.$peer
	: >$R/req.boot.$peer.peer
	must peer-exported wait_file $R/exported.$peer 300
	add_peer_leg "$@"
}

# peer_dies_in_resync: the peer comes back, and dies again as soon as its
# leg has joined (its resync under way or just over) under a syncing
# writer: the leg fails again, the pool is degraded on this host's flash,
# nothing acknowledged is lost
peer_dies_in_resync() {
	become_primary no-wait
	python3 "$ACK" write /dev/mapper/mv $R/acked.log $R/resync.stop "$BLOCKS" 2000 0 \
		>$FC_LOGDIR/resync.out 2>&1 &
	_rp=$!
	_legs=$(status_field mp $P_LEGS)
	_lone=$(status_field mp 17)
	: >$R/req.kill.$peer
	must peer-killed-in-resync wait_file $R/dead.$peer 120
	# (a degraded pool writes back the dirty blocks that have one copy, so
	# little is left to resync by now and it may be over: whether the kill
	# came before its end is said, not asserted)
	info "the peer's legs when it was killed: $_legs, $_lone dirty blocks with one copy left"
	check degraded-after-resync-loss poll_until 600 status_is mp $P_RED degraded
	field_is joining-leg-failed /dev/mapper/mp $P_LEGS = ok,failed
	_n=$(wc -l <$R/acked.log)
	poll_until 3000 sh -c "[ \$(wc -l <$R/acked.log) -ge $((_n + 50)) ]"
	: >$R/resync.stop
	wait $_rp
	rm -f $R/resync.stop
	check acked-after-resync-loss python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS"
	check J1-after-resync-loss fio_verify /dev/mapper/mv --rw=randwrite --bsrange=4k-64k \
		--size=16M --offset=64M --iodepth=8 --randseed=71 --verify_only=1
}

# writer_round N: the writer until this host is killed (after N writes)
writer_round() {
	round=$(cat $R/round)
	info "round $round: $me is primary, killed after $1 acknowledged writes"
	python3 "$ACK" write /dev/mapper/mv $R/acked.log $R/never "$BLOCKS" "$round" 0 \
		>$FC_LOGDIR/writer.out 2>&1 &
	_wp=$!
	poll_until 6000 sh -c "[ \$(wc -l <$R/acked.log) -ge \$(( $(cat $R/acked.base) + $1 )) ]"
	: >$R/req.kill.$me
	wait $_wp
	sleep 60	# the harness kills this guest meanwhile
	fail killed "round $round: the harness did not kill $me"
	finish
}

# median_ms FILE FIRST LAST: the median of column 3 of lines FIRST..LAST
median_ms() {
	sed -n "$2,$3p" "$1" | awk '{ print $3 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.2f", NR ? v[int((NR + 1) / 2)] : -1 }'
}

# local_mirror_figure: the writer's latency on a pool mirrored on this
# host's flash alone (two halves of it), the figure a remote leg is
# compared with; the flash is zeroed afterwards for the real pool
local_mirror_figure() {
	_hs=$((128 * 2048))
	dm_create la "0 $_hs linear $FLASH 0" && dm_create lb "0 $_hs linear $FLASH $_hs" &&
		fc_pool lp /dev/mapper/la 64 mirror /dev/mapper/lb $OPTS &&
		fc_vol lv lp "$ORIGIN" 1 writeback sequential_cutoff 0 &&
		python3 "$ACK" write /dev/mapper/lv $FC_LOGDIR/lat.local $R/never "$BLOCKS" 9 200 >/dev/null
	_ok=$?
	dm_remove lv; dm_remove lp; dm_remove la; dm_remove lb
	dd if=/dev/zero of="$FLASH" bs=1M count=256 oflag=direct 2>/dev/null
	[ $_ok -eq 0 ] && pass local-mirror-figure || fail local-mirror-figure
	LOCAL_MS=$(median_ms $FC_LOGDIR/lat.local 1 200)
}

# take_over: the primary is dead (fenced by the harness): this host loads
# the pool from its own flash, the only copy left, and checks every
# acknowledged write
take_over() {
	round=$(cat $R/round)
	t0=$(date +%s.%N)
	must unexport unexport_flash
	# the test can fail: the origin alone lacks acknowledged writes (the
	# pool held them dirty: writeback_high 100), so only the flash has them
	tc=$(date +%s.%N)
	check_fails "round$round-origin-alone-lacks-them" python3 "$ACK" check "$ORIGIN" $R/acked.log "$BLOCKS"
	tc=$(echo "$tc $(date +%s.%N)" | awk '{ print $2 - $1 }')
	# shellcheck disable=SC2086
	must load-alone dm_create mp "$(pool_table mirror - degraded 1 $OPTS)"
	must vol-alone fc_vol mv mp "$ORIGIN" 1 writeback sequential_cutoff 0
	dd if=/dev/mapper/mv of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	t1=$(date +%s.%N)
	# less the origin-alone check above, which a real takeover does not do
	echo "$t0 $t1 $tc" | awk '{ printf "%.2f\n", $2 - $1 - $3 }' >>$R/takeover
	python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS" >$FC_LOGDIR/check.out 2>&1
	c=$?
	info "round $round: $(cat $FC_LOGDIR/check.out)"
	lost=$(awk '{ print $6 + $8 }' $FC_LOGDIR/check.out)
	echo "${lost:-1}" >>$R/lost
	[ $c -eq 0 ] && pass "round$round-every-acked-write" ||
		fail "round$round-every-acked-write" "$(cat $FC_LOGDIR/check.out)"
	echo $((round + 1)) >$R/round
	wc -l <$R/acked.log >$R/acked.base
}

load_fcache || die "cannot load dm-fcache"
modprobe configfs 2>/dev/null
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config ||
	die "configfs"
for m in nvmet nvmet-tcp nvme-fabrics nvme-tcp; do
	modprobe "$m" || die "modprobe $m"
done
must net-up net_up
FLASH=/dev/vdb
ORIGIN=$(shared_disk) || die "no shared disk"
[ -b "$FLASH" ] || die "no flash $FLASH"

if [ "$FC_ROLE" = b ] || [ "$FC_ROLE" = peer ]; then
	# the peer: export the flash, then wait for the end or the primary's death
	must export export_flash
	: >$R/exported.$me
	wait_file $R/stop.$me 3000 &
	wp=$!
	while kill -0 $wp 2>/dev/null && [ ! -e $R/dead.$peer ]; do sleep 0.2; done
	if [ -e $R/stop.$me ]; then
		check unexport-at-end unexport_flash
		dmesg_clean
		finish
	fi
	kill $wp 2>/dev/null
	[ -e $R/dead.$peer ] || die "neither the end nor the primary's death came"
	take_over
else
	# host a, first boot: the first primary
	echo 0 >$R/round
	: >$R/acked.log
	echo 0 >$R/acked.base
	: >$R/lost
	local_mirror_figure
	must peer-exported wait_file $R/exported.$peer 300
	must connect-peer connect_peer
	RDEV=$(remote_dev)
	# shellcheck disable=SC2086
	must create fc_pool mp "$FLASH" 64 mirror "$RDEV" $OPTS
	field_is mirrored /dev/mapper/mp $P_RED = mirrored
	must vol fc_vol mv mp "$ORIGIN" 1 writeback sequential_cutoff 0
	check J1 fio_verify /dev/mapper/mv --rw=randwrite --bsrange=4k-64k --size=16M \
		--offset=64M --iodepth=8 --randseed=71

	# ---- the peer dies under a syncing writer
	dmesg -C
	python3 "$ACK" write /dev/mapper/mv $R/acked.log $R/stall.stop "$BLOCKS" 1000 0 \
		>$FC_LOGDIR/stall.out 2>&1 &
	wp=$!
	poll_until 3000 sh -c "[ \$(wc -l <$R/acked.log) -ge 50 ]"
	: >$R/req.kill.$peer
	must peer-killed wait_file $R/dead.$peer 120
	check degraded poll_until 600 status_is mp $P_RED degraded
	field_is peer-leg-failed /dev/mapper/mp $P_LEGS = ok,failed
	n=$(wc -l <$R/acked.log)
	poll_until 3000 sh -c "[ \$(wc -l <$R/acked.log) -ge $((n + 100)) ]"
	: >$R/stall.stop
	wait $wp
	stall=$(awk '{ if ($3 > m) m = $3 } END { printf "%.2f", m / 1000 }' $R/acked.log)
	echo "$stall" >$R/stall
	echo "4 KiB write + fdatasync, median ms: local mirror $LOCAL_MS ($(grep -c . $FC_LOGDIR/lat.local) writes), remote mirror $(median_ms $R/acked.log 1 50) (50 before the peer's loss), one leg $(median_ms $R/acked.log $((n + 1)) $((n + 100))) (100 after it)" >$R/latency
	info "$(cat $R/latency)"
	info "peer loss: $(cat $FC_LOGDIR/stall.out), the longest write and fdatasync ${stall} s"
	awk -v s="$stall" 'BEGIN { exit !(s <= 5) }' && pass peer-loss-stall-at-most-5s ||
		fail peer-loss-stall-at-most-5s "$stall s"
	check log-names-failure sh -c "dmesg | grep -q 'failed: the pool runs degraded'"
	check acked-after-peer-loss python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS"
	rm -f $R/stall.stop
	# ---- the peer comes back and dies again before its resync ends
	peer_dies_in_resync
	# ---- the peer comes back with its old copy: replaced, resynced
	become_primary
	check J1-after-resync fio_verify /dev/mapper/mv --rw=randwrite --bsrange=4k-64k \
		--size=16M --offset=64M --iodepth=8 --randseed=71 --verify_only=1
	check acked-after-resync python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS"
	wc -l <$R/acked.log >$R/acked.base
	echo 1 >$R/round
	writer_round 100
fi

# this host took over: it is primary; more rounds, or the end
round=$(cat $R/round)
if [ "$round" -le "$POINTS" ]; then
	become_primary
	writer_round $((60 + 37 * round % 150))
fi
kills=$(grep -c . $R/lost)
lost=$(awk '{ s += $1 } END { print s + 0 }' $R/lost)
info "takeover (fence confirmed to the volume serving), s: $(tr '\n' ' ' <$R/takeover)"
info "$(cat $R/latency)"
echo "failover points: $kills host kills, $lost acknowledged writes lost, peer-loss stall $(cat $R/stall) s"
: >$R/stop.$peer
check remove-vol dm_remove mv
check remove-pool dm_remove mp
dmesg_clean
finish
