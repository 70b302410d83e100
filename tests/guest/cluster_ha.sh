#!/bin/sh
# Pacemaker runs the volume's failover (issue 37, items 3 and 4; run by
# tests/vm/two-hosts.sh on hosts a and b: docs/CLUSTER.md, "Two hosts under
# Pacemaker").  Both hosts run Corosync and Pacemaker; the CIB holds the
# testbed's fence device and ocf:fcache:fcache as a promotable clone with
# hosts="a=... b=...": the unpromoted instance exports its host's flash over
# NVMe/TCP, the promoted one runs the pool mirrored onto its own flash and
# that export, and the volume (the shared origin, cached).  The script only
# writes, kills and checks; every fcache step of a failover is the agent's,
# run by Pacemaker.
#
#   setup: a formats its flash and a RAM disk as a mirrored pool; the RAM
#      disk goes (the peer's namespace joins later, by replace), then the resource is created, promoted on a; its
#      monitor gives b's namespace the missing leg: mirrored.
#   peer loss: a writer syncing every write runs on a; b is killed (power
#      loss).  The longest write+fdatasync is the stall (at most 5 s), the
#      pool is degraded, the monitor records b's copy outdated; Pacemaker
#      fences b.  b boots again and rejoins: its instance exports its flash,
#      a's monitor replaces the leg with it, the resync ends, b's record
#      goes, every acknowledged write reads back.
#   rounds 1..N: the primary (promoted) runs the writer and has itself
#      killed after a number of writes that changes each round.  Nobody
#      types a command: Corosync notices, Pacemaker fences the dead host
#      through the harness and promotes the other, whose agent loads the
#      pool from its own flash alone.  The survivor's script only waits for
#      the volume and checks every acknowledged write byte for byte (and, as
#      a control, that the origin alone lacks some); then it asks for the
#      dead host's boot, and waits until the agent has the pool mirrored.
#
# The last primary prints
#   failover points: <n> host kills, <l> acknowledged writes lost, peer-loss stall <s> s
FC_T=ha_${FC_HOST:-x}$(cat /results/boots.$FC_HOST 2>/dev/null)
. "$FC_TOP/tests/guest/lib.sh"
. "$FC_TOP/tests/guest/cluster_lib.sh"
ACK=$FC_TOP/tests/guest/fc_acked.py
CTL=$FC_TOP/userspace/fcachectl
POINTS=${FC_CLUSTER_POINTS:-3}
BLOCKS=8192	# the writer's range: 32 MiB of 4 KiB blocks
CONF=/etc/fcache/fcache.conf
P_RED=16 P_LEGS=18
echo $(($(cat $R/boots.$me 2>/dev/null || echo 0) + 1)) >$R/boots.$me

# promoted_here: Pacemaker has the clone promoted on this host
promoted_here() {
	crm_resource --locate -r fc-clone 2>/dev/null | grep -q "running on: $me Promoted"
}
serving() { promoted_here && [ -b /dev/mapper/mv ]; }
mirrored() { status_is mp $P_RED mirrored && status_is mp $P_LEGS ok,ok; }
outdated_is() {
	[ "$(crm_attribute -N "$1" -n fcache-outdated-mp -l forever -G -q 2>/dev/null)" = "$2" ]
}
not_outdated() { ! crm_attribute -N "$1" -n fcache-outdated-mp -l forever -G -q >/dev/null 2>&1; }

# median_ms FILE FIRST LAST: the median of column 3 of lines FIRST..LAST
median_ms() {
	sed -n "$2,$3p" "$1" | awk '{ print $3 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.2f", NR ? v[int((NR + 1) / 2)] : -1 }'
}

configure_cib() {
	cibadmin --create -o resources --xml-text \
		'<primitive id="fence" class="stonith" type="fence_fcache_testbed"><instance_attributes id="fence-ia"><nvpair id="fence-hl" name="pcmk_host_list" value="a b"/></instance_attributes></primitive>' &&
		cibadmin --create -o resources --xml-text "<clone id=\"fc-clone\">
<meta_attributes id=\"fc-clone-meta\">
<nvpair id=\"fc-promotable\" name=\"promotable\" value=\"true\"/>
<nvpair id=\"fc-clone-max\" name=\"clone-max\" value=\"2\"/>
<nvpair id=\"fc-clone-node-max\" name=\"clone-node-max\" value=\"1\"/>
<nvpair id=\"fc-promoted-max\" name=\"promoted-max\" value=\"1\"/>
</meta_attributes>
<primitive id=\"fc\" class=\"ocf\" provider=\"fcache\" type=\"fcache\">
<instance_attributes id=\"fc-ia\">
<nvpair id=\"fc-config\" name=\"config\" value=\"$CONF\"/>
<nvpair id=\"fc-hosts\" name=\"hosts\" value=\"a=$(ip_of a) b=$(ip_of b)\"/>
<nvpair id=\"fc-ctl\" name=\"fcachectl\" value=\"$CTL\"/>
</instance_attributes>
<operations>
<op id=\"fc-mon-p\" name=\"monitor\" interval=\"3s\" role=\"Promoted\" timeout=\"60s\"/>
<op id=\"fc-mon-u\" name=\"monitor\" interval=\"4s\" role=\"Unpromoted\" timeout=\"60s\"/>
<op id=\"fc-start\" name=\"start\" interval=\"0s\" timeout=\"120s\"/>
<op id=\"fc-promote\" name=\"promote\" interval=\"0s\" timeout=\"120s\"/>
<op id=\"fc-demote\" name=\"demote\" interval=\"0s\" timeout=\"120s\"/>
<op id=\"fc-stop\" name=\"stop\" interval=\"0s\" timeout=\"120s\"/>
</operations>
</primitive>
</clone>" &&
		cibadmin --create -o constraints --xml-text \
			'<rsc_location id="fc-first-on-a" rsc="fc-clone" role="Promoted" node="a" score="50"/>'
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

# peer_back: the dead peer boots again and rejoins; the agent (monitor of
# the promoted instance) gives it the pool's lost leg and resyncs
peer_back() {
	: >$R/req.boot.$peer.peer
	must peer-rejoined poll_until 3000 both_online
	must mirrored-again poll_until 3000 mirrored
	check peer-record-cleared poll_until 600 not_outdated "$peer"
}

# take_over: the primary died; Pacemaker fences it and promotes this host
take_over() {
	round=$(cat $R/round)
	must "round$round-promoted-here" poll_until 3000 serving
	t1=$(date +%s.%N)
	tt=$(echo "$T0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
	echo "$tt" >>$R/takeover
	check "round$round-peer-fenced" sh -c "stonith_admin --history $peer | grep -q successful"
	check "round$round-degraded" status_is mp $P_RED degraded
	# the check can fail: the origin alone, as it was at the primary's
	# death, lacks acknowledged writes (the pool held them dirty:
	# writeback_high 100; the promoted pool writes back at once the dirty
	# blocks that have one copy, hence the snapshot)
	if [ "$SNAP" = taken ]; then
		check_fails "round$round-origin-alone-lacks-them" python3 "$ACK" check "$ram" $R/acked.log "$BLOCKS"
	else
		info "round $round: no snapshot of the origin before the promotion: the control is skipped"
	fi
	rmmod brd
	python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS" >$FC_LOGDIR/check.out 2>&1
	c=$?
	info "round $round: taken over in $tt s: $(cat $FC_LOGDIR/check.out)"
	lost=$(awk '{ print $6 + $8 }' $FC_LOGDIR/check.out)
	echo "${lost:-1}" >>$R/lost
	[ $c -eq 0 ] && pass "round$round-every-acked-write" ||
		fail "round$round-every-acked-write" "$(cat $FC_LOGDIR/check.out)"
	check "round$round-peer-outdated" poll_until 300 outdated_is "$peer" 1
	check "round$round-held-until-recorded" sh -c "dmesg | grep -q 'fence_hold: the pool runs on one copy' && dmesg | grep -q 'peer_outdated: the other copy is recorded outdated'"
	echo $((round + 1)) >$R/round
	wc -l <$R/acked.log >$R/acked.base
}

load_fcache || die "cannot load dm-fcache"
for m in configfs nvmet nvmet-tcp nvme-fabrics nvme-tcp; do
	modprobe "$m" || die "modprobe $m"
done
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config ||
	die "configfs"
must net-up net_up
FLASH=/dev/vdb
ORIGIN=$(shared_disk) || die "no shared disk"
[ -b "$FLASH" ] || die "no flash $FLASH"
mkdir -p /etc/fcache /usr/lib/ocf/resource.d/fcache
cp "$FC_TOP/ocf/fcache" /usr/lib/ocf/resource.d/fcache/fcache &&
	chmod 755 /usr/lib/ocf/resource.d/fcache/fcache || die "installing the agent"
cat >$CONF <<EOF
pool mp $FLASH mirror=/run/fcache/mp.peer block_size=32K writeback_high=100 writeback_low=100 max_dirty_age=0 fence_hold=1
volume mp $ORIGIN id=1 name=mv mode=writeback sequential_cutoff=0
EOF

if [ "$FC_ROLE" = a ]; then
	# the pool made once, by hand, on a's flash: mirrored, its second leg
	# missing until the agent replaces it with b's namespace
	echo 0 >$R/round
	: >$R/acked.log
	echo 0 >$R/acked.base
	: >$R/lost
	# (a RAM disk of the same size stands in for the second leg at
	# creation, then goes: the pool is mirrored with a leg missing)
	RAM=$(mk_brd_flash $(($(dev_sectors "$FLASH") / 2048))) || die "brd"
	must create "$CTL" pool create mp "$FLASH" "$RAM" --block-size 32K --no-persist
	must down "$CTL" down -c $CONF
	must ram-leg-gone rmmod brd
fi
must cluster-up cluster_up
must both-online poll_until 3000 both_online
if [ "$FC_ROLE" = a ]; then
	must configure configure_cib
	must promoted-on-a poll_until 3000 serving
	must mirrored poll_until 3000 mirrored
	# from now on the promoted role stays where it is
	must first-pref-gone cibadmin --delete -o constraints --xml-text '<rsc_location id="fc-first-on-a"/>'
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
	n=$(wc -l <$R/acked.log)
	poll_until 3000 sh -c "[ \$(wc -l <$R/acked.log) -ge $((n + 100)) ]"
	: >$R/stall.stop
	wait $wp
	rm -f $R/stall.stop
	stall=$(awk '{ if ($3 > m) m = $3 } END { printf "%.2f", m / 1000 }' $R/acked.log)
	echo "$stall" >$R/stall
	info "peer loss: $(cat $FC_LOGDIR/stall.out), the longest write and fdatasync ${stall} s"
	awk -v s="$stall" 'BEGIN { exit !(s <= 5) }' && pass peer-loss-stall-at-most-5s ||
		fail peer-loss-stall-at-most-5s "$stall s"
	check peer-recorded-outdated poll_until 300 outdated_is b 1
	# fence_hold: the flushes after the loss waited for that record
	check log-held sh -c "dmesg | grep -q 'fence_hold: flushes and FUA writes wait'"
	check log-released sh -c "dmesg | grep -q 'peer_outdated: the other copy is recorded outdated'"
	# what happened when, for a reader of the run (the results directory)
	dmesg >$R/peer-loss.dmesg
	cp /var/log/pacemaker/pacemaker.log $R/peer-loss.pacemaker.log 2>/dev/null
	check peer-fenced poll_until 600 sh -c "stonith_admin --history b | grep -q successful"
	check acked-after-peer-loss python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS"
	peer_back
	check J1-after-resync fio_verify /dev/mapper/mv --rw=randwrite --bsrange=4k-64k \
		--size=16M --offset=64M --iodepth=8 --randseed=71 --verify_only=1
	check acked-after-resync python3 "$ACK" check /dev/mapper/mv $R/acked.log "$BLOCKS"
	wc -l <$R/acked.log >$R/acked.base
	echo 1 >$R/round
	writer_round 100
fi

# b at its first boot, or a host booted again: the unpromoted instance
# exports this flash; wait for the end or the primary's death
while [ ! -e $R/stop.$me ] && [ ! -e $R/dead.$peer ]; do sleep 0.1; done
T0=$(date +%s.%N)	# the primary's death, as this host sees it
if [ -e $R/stop.$me ]; then
	# (the cluster in maintenance mode) a copy recorded outdated is
	# never promoted: the agent, run by hand, refuses and keeps exporting
	ra() {
		env OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=fc OCF_RESKEY_CRM_meta_clone_max=2 \
			OCF_RESKEY_config=$CONF OCF_RESKEY_fcachectl="$CTL" \
			OCF_RESKEY_hosts="a=$(ip_of a) b=$(ip_of b)" /usr/lib/ocf/resource.d/fcache/fcache "$@"
	}
	must record-outdated crm_attribute -N "$me" -n fcache-outdated-mp -l forever -v 1
	ra promote >$FC_LOGDIR/promote.out 2>&1
	r=$?
	[ $r = 1 ] && grep -q "recorded outdated" $FC_LOGDIR/promote.out && pass outdated-copy-not-promoted ||
		fail outdated-copy-not-promoted "exit $r: $(tail -n 2 $FC_LOGDIR/promote.out)"
	check_fails no-pool-after-refusal dmsetup info mp
	ra monitor >/dev/null 2>&1
	r=$?
	[ $r = 0 ] && pass still-exporting || fail still-exporting "monitor exit $r"
	crm_attribute -N "$me" -n fcache-outdated-mp -l forever -D >/dev/null 2>&1
	: >$R/peer-ended
	dmesg_clean
	finish
fi
# the writer's range of the origin, copied before Pacemaker can promote
# this host (the token alone takes 3 s) loads the pool: the control of
# take_over
SNAP=none
ram=$(mk_brd_flash 32) && dd if="$ORIGIN" of="$ram" bs=1M count=32 iflag=direct oflag=direct 2>/dev/null &&
	[ ! -e /dev/mapper/mp ] && SNAP=taken
take_over
round=$(cat $R/round)
peer_back
if [ "$round" -le "$POINTS" ]; then
	writer_round $((60 + 37 * round % 150))
fi
kills=$(grep -c . $R/lost)
lost=$(awk '{ s += $1 } END { print s + 0 }' $R/lost)
info "takeover (the primary's death to the volume serving on the other host, Pacemaker), s: $(tr '\n' ' ' <$R/takeover)"
echo "failover points: $kills host kills, $lost acknowledged writes lost, peer-loss stall $(cat $R/stall) s"
# the end: the cluster does nothing more (no fencing of a peer that
# powers off), the peer ends, then this host's cluster stops
check maintenance crm_attribute -n maintenance-mode -v true
sleep 3
: >$R/stop.$peer
poll_until 1200 test -e $R/peer-ended
check stop-cluster sh -c 'kill $(pidof pacemakerd) && sleep 5 && kill $(pidof corosync)'
dmesg_clean
finish
