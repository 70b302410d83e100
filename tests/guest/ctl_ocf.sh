#!/bin/sh
# The OCF resource agent ocf/fcache (issue 37, item 3), one host, a mirrored
# pool with two volumes from a config file:
#   - meta-data valid against ra-api-1.dtd, validate-all, probe and monitor
#     of a stopped and a started resource, start and stop twice each (with
#     the argument "cycle", make check-cluster, ocf-tester (resource-agents)
#     passes it);
#   - the data written through a started volume survives stop and start
#     byte for byte (stop is fcachectl down: dirty data stays on the flash);
#   - a stop while a volume is open fails and leaves everything up (the
#     cluster then fences: never a half-stopped resource reported stopped);
#   - a volume missing from a started resource: monitor fails (1) and says
#     so; start assembles it again;
#   - a leg failed at run time: monitor still 0 and says "degraded"; the
#     leg gone at the next start: start refused (1) unless
#     allow_degraded=true, then the data reads back;
#   - validate-all: 6 for a broken file, 5 for a missing one; a probe with
#     no config file: 7;
#   - the two-host roles (one guest plays both hosts over the loopback):
#     promote on this flash alone when the peer's device is blank, data
#     written on one copy read back after the resync; with the argument
#     "cycle" (make check-cluster) also ocf-tester in those roles, promote,
#     monitor, data across demote.
. "$FC_TOP/tests/guest/lib.sh"
MODE=${1:-} # "cycle": the two-host promote/demote cycle too (make check-cluster)
CTL=$FC_TOP/userspace/fcachectl
RA=$FC_TOP/ocf/fcache
T=/tmp/ctl_ocf
mkdir -p $T
export OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=fc_test
[ -x /usr/sbin/ocf-tester ] && [ -r $OCF_ROOT/lib/heartbeat/ocf-shellfuncs ] ||
	die "resource-agents is not installed (scripts/packages.txt)"

load_fcache || die "cannot load dm-fcache"
f0=$(mk_fast_disk 64) && f1=$(mk_fast_disk 64) && o1=$(mk_fast_disk 32) &&
	o2=$(mk_fast_disk 32) || die "disks"
S=$(dev_sectors "$f1")
# the second flash device behind dm-linear, so it can fail and go
dm_create ol1 "0 $S linear $f1 0" || die "ol1"
C=$T/fcache.conf
cat >$C <<CONF
pool op $f0 block_size=16K mirror=/dev/mapper/ol1 max_dirty_age=3600 writeback_low=95 writeback_high=99
volume op $o1 id=1 name=ov1
volume op $o2 id=2 name=ov2
CONF

# ra ACTION [VAR=VALUE...]: the agent, its output in $T/out; its exit status
ra() {
	_a=$1
	shift
	env OCF_RESKEY_config=$C OCF_RESKEY_fcachectl=$CTL "$@" "$RA" "$_a" >$T/out 2>&1
}
# rc_is NAME WANT ACTION [VAR=VALUE...]
rc_is() {
	_n=$1 _w=$2
	shift 2
	ra "$@"
	_g=$?
	if [ "$_g" = "$_w" ]; then pass "$_n"; else fail "$_n" "exit $_g, wanted $_w: $(tail -n 3 $T/out | tr '\n' ' ')"; fi
}

# data_back WHEN: both volumes read back what was written (checks ov1-WHEN, ov2-WHEN)
data_back() {
	for _v in ov1 ov2; do
		if dd if=/dev/mapper/$_v bs=64k iflag=direct status=none count=128 | cmp -s - $T/pat; then
			pass "$_v-data-$1"
		else
			fail "$_v-data-$1" "differs from what was written"
		fi
	done
}
# said NAME [GREP_OPTION] PATTERN: the agent's last output matches PATTERN
said() {
	_n=$1
	shift
	if grep -q "$@" $T/out; then pass "$_n"; else fail "$_n" "$(cat $T/out)"; fi
}

# ---- ocf-tester ------------------------------------------------------------
# make check-cluster runs ocf-tester itself (73 s of make check's time);
# make check the points of its protocol the rest of this script does not:
# meta-data valid against ra-api-1.dtd (the DTD its meta-data names),
# validate-all, a probe of a stopped resource, start of a started one and
# stop of a stopped one succeed
if [ "$MODE" = cycle ]; then
	if ocf-tester -n fc_test -o config=$C -o fcachectl=$CTL "$RA" >$T/tester 2>&1 &&
		grep -q "passed all tests" $T/tester; then
		pass ocf-tester
	else
		fail ocf-tester "$(grep -v '^\*' $T/tester | tail -n 4 | tr '\n' ' ')"
	fi
else
	rc_is meta-data 0 meta-data
	if (cd /usr/share/resource-agents && xmllint --noout --valid - <$T/out) >$T/lint 2>&1; then
		pass meta-data-valid-dtd
	else
		fail meta-data-valid-dtd "$(head -n 4 $T/lint | tr '\n' ' ')"
	fi
	rc_is validate-all 0 validate-all
	rc_is probe-stopped 7 monitor OCF_RESKEY_CRM_meta_interval=0
	rc_is start-first 0 start
	rc_is start-started 0 start
	rc_is monitor-first 0 monitor
	rc_is stop-first 0 stop
	rc_is stop-stopped 0 stop
fi
rc_is stopped-after-tester 7 monitor

# ---- data across stop and start ------------------------------------------------
rc_is start 0 start
rc_is monitor-started 0 monitor
pattern_file $T/pat 8192 || die "pattern"
check write-ov1 dd if=$T/pat of=/dev/mapper/ov1 bs=64k oflag=direct conv=fsync status=none
check write-ov2 dd if=$T/pat of=/dev/mapper/ov2 bs=64k oflag=direct conv=fsync status=none
d=$(status_field op $P_DIRTY)
[ "${d:-0}" -gt 0 ] && pass "dirty-before-stop ($d blocks)" || fail dirty-before-stop "dirty $d"
# an open volume: stop fails, nothing goes
# shellcheck disable=SC2217 # the open file is the point
sleep 60 </dev/mapper/ov1 &
holder=$!
sleep 1
rc_is stop-while-open-fails 1 stop
rc_is monitor-after-refused-stop 0 monitor
kill $holder
wait $holder 2>/dev/null
rc_is stop 0 stop
check_fails stop-removed-pool dmsetup info op
rc_is monitor-stopped 7 monitor
rc_is start-again 0 start
data_back after-restart

# ---- part of the resource missing ------------------------------------------------
check remove-ov2-by-hand dmsetup remove ov2
rc_is monitor-part-missing 1 monitor
said monitor-says-part-missing "not assembled"
rc_is start-completes-it 0 start
check ov2-back test -b /dev/mapper/ov2

# ---- a leg failed, then gone -------------------------------------------------------
check fail-leg swap_error ol1
dd if=$T/pat of=/dev/mapper/ov1 bs=64k count=16 seek=200 oflag=direct conv=fsync status=none 2>/dev/null
degraded() { [ "$(status_field op 16)" = degraded ]; }
check pool-degraded poll_until 100 degraded
rc_is monitor-degraded-runs 0 monitor
said monitor-says-degraded "degraded"
rc_is stop-degraded 0 stop
check leg-gone dmsetup remove ol1
rc_is start-refused-leg-missing 1 start OCF_RESKEY_device_wait=1
said start-refusal-says-why -i "ol1\|missing\|degraded"
rc_is monitor-after-refusal 7 monitor
rc_is start-degraded-allowed 0 start OCF_RESKEY_allow_degraded=true OCF_RESKEY_device_wait=1
rc_is monitor-degraded 0 monitor
data_back degraded
rc_is stop-end 0 stop

# ---- validate-all and the probe ------------------------------------------------------
cp $C $T/bad.conf
echo "volume op $o1 id=3" >>$T/bad.conf
rc_is validate-broken-config 6 validate-all OCF_RESKEY_config=$T/bad.conf
rc_is validate-missing-config 5 validate-all OCF_RESKEY_config=$T/none.conf
rc_is probe-missing-config 7 monitor OCF_RESKEY_config=$T/none.conf OCF_RESKEY_CRM_meta_interval=0
rc_is unknown-action 3 frobnicate

# ---- two hosts, played by one guest over the loopback ------------------------------
# hosts="fcx=127.0.0.1 fcy=127.0.0.2": this guest is fcx (its flash f2,
# exported on 127.0.0.1 while unpromoted); fcy's flash f3 is exported here
# by hand on 127.0.0.2, as fcy's unpromoted instance would.  No cluster:
# the peer's membership is unknown, so promote connects it.
two_hosts() {
	hostname fcx
	ip link set lo up
	for _m in configfs nvmet nvmet-tcp nvme-fabrics nvme-tcp; do modprobe "$_m" || return 1; done
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config || return 1
	f2=$(mk_fast_disk 64) && f3=$(mk_fast_disk 64) && o3=$(mk_fast_disk 32) || return 1
	C2=$T/two.conf
	cat >$C2 <<CONF
pool tp $f2 mirror=/run/fcache/tp.peer block_size=16K max_dirty_age=3600 writeback_low=95 writeback_high=99 fence_hold=1
volume tp $o3 id=1 name=tv
CONF
	# fcy's export (its NQN as the agent names it)
	_s=/sys/kernel/config/nvmet/subsystems/nqn.2026-12.io.fcache:tp-fcy
	_p=/sys/kernel/config/nvmet/ports/77
	mkdir "$_s" && echo 1 >"$_s/attr_allow_any_host" && mkdir "$_s/namespaces/1" &&
		printf '%s' "$f3" >"$_s/namespaces/1/device_path" && echo 1 >"$_s/namespaces/1/enable" &&
		mkdir "$_p" && echo tcp >"$_p/addr_trtype" && echo ipv4 >"$_p/addr_adrfam" &&
		echo 127.0.0.2 >"$_p/addr_traddr" && echo 4420 >"$_p/addr_trsvcid" &&
		ln -s "$_s" "$_p/subsystems/nqn.2026-12.io.fcache:tp-fcy"
}
two_hosts || die "two hosts: setup"
# ra2 ACTION [VAR=VALUE...]: the agent with the two-host parameters
ra2() {
	_a=$1
	shift
	env OCF_RESKEY_config=$C2 OCF_RESKEY_fcachectl=$CTL OCF_RESKEY_hosts="fcx=127.0.0.1 fcy=127.0.0.2" \
		OCF_RESKEY_CRM_meta_clone_max=2 "$@" "$RA" "$_a" >$T/out 2>&1
}
rc2_is() {
	_n=$1 _w=$2
	shift 2
	ra2 "$@"
	_g=$?
	if [ "$_g" = "$_w" ]; then pass "$_n"; else fail "$_n" "exit $_g, wanted $_w: $(tail -n 3 $T/out | tr '\n' ' ')"; fi
}
# the pool, made once, on f2 and fcy's f3
check two-create "$CTL" pool create tp "$f2" "$f3" --block-size 16K --no-persist
check two-enable "$CTL" up -c $C2 --wait 0
check two-down "$CTL" down -c $C2
rc_is two-validate-no-clone 6 start OCF_RESKEY_config=$C2 "OCF_RESKEY_hosts=fcx=127.0.0.1 fcy=127.0.0.2"
said two-says-clone "promotable clone"
rc_is two-bad-hosts 6 validate-all OCF_RESKEY_config=$C2 "OCF_RESKEY_hosts=fcx=127.0.0.1"
rc_is two-one-pool-mirror-link 6 validate-all OCF_RESKEY_config=$C "OCF_RESKEY_hosts=fcx=127.0.0.1 fcy=127.0.0.2"
said two-says-link "mirror=/run/fcache/op.peer"
sed 's/ fence_hold=1//' $C2 >$T/nohold.conf
rc_is two-needs-fence-hold 6 validate-all OCF_RESKEY_config=$T/nohold.conf "OCF_RESKEY_hosts=fcx=127.0.0.1 fcy=127.0.0.2"
said two-says-fence-hold "fence_hold=1"
# ocf-tester in the two-host roles: make check-cluster's run (it promotes
# and demotes four times: about 70 s of NVMe/TCP connects and disconnects)
if [ "$MODE" = cycle ]; then
	if ocf-tester -n fc_two -o config=$C2 -o fcachectl=$CTL -o "hosts=fcx=127.0.0.1 fcy=127.0.0.2" \
		-o CRM_meta_clone_max=2 "$RA" >$T/tester2 2>&1 && grep -q "passed all tests" $T/tester2; then
		pass ocf-tester-two-hosts
	else
		fail ocf-tester-two-hosts "$(grep -v '^\*' $T/tester2 | tail -n 4 | tr '\n' ' ')"
	fi
fi
rc2_is two-start 0 start
check two-exports test -e /sys/kernel/config/nvmet/ports/4420/subsystems/nqn.2026-12.io.fcache:tp-fcx
# the promote/demote cycle with data across it: make check-cluster's run of
# this script (argument "cycle"; each NVMe/TCP connect and disconnect costs
# 10-13 s of TCG); the Pacemaker walk there promotes and demotes it too
if [ "$MODE" = cycle ]; then
	rc2_is two-promote 0 promote
	check_fails two-no-export-when-promoted test -e /sys/kernel/config/nvmet/subsystems/nqn.2026-12.io.fcache:tp-fcx
	rc2_is two-monitor-promoted 8 monitor
	check two-mirrored status_is tp 16 mirrored
	check two-write dd if=$T/pat of=/dev/mapper/tv bs=64k count=128 oflag=direct conv=fsync status=none
	rc2_is two-demote 0 demote
	rc2_is two-monitor-demoted 0 monitor
	check_fails two-pool-gone dmsetup info tp
fi
# the peer's device blanked meanwhile (a new disk): promote runs on this
# flash alone, the monitor gives the peer's namespace the leg, resync
echo 0 >/sys/kernel/config/nvmet/subsystems/nqn.2026-12.io.fcache:tp-fcy/namespaces/1/enable
check two-blank-peer dd if=/dev/zero of="$f3" bs=1M count=4 oflag=direct status=none
echo 1 >/sys/kernel/config/nvmet/subsystems/nqn.2026-12.io.fcache:tp-fcy/namespaces/1/enable
rc2_is two-promote-blank-peer 0 promote
said two-says-alone "alone"
# written on one copy (no flush: fence_hold holds flushes here), read back
# once the resync made it two
pattern_file $T/pat2 4096 || die "pattern 2"
check two-write-alone dd if=$T/pat2 of=/dev/mapper/tv bs=64k seek=128 oflag=direct status=none
# (no cluster to record the peer's copy outdated: what fence_hold holds
# stays held until the pool is mirrored again)
two_resynced() { ra2 monitor; status_is tp 16 mirrored && status_is tp 18 ok,ok; }
check two-resynced poll_until 600 two_resynced
if [ "$MODE" = cycle ]; then
	if dd if=/dev/mapper/tv bs=64k count=128 iflag=direct status=none | cmp -s - $T/pat; then
		pass two-data-back
	else
		fail two-data-back "differs from what was written"
	fi
fi
if dd if=/dev/mapper/tv bs=64k skip=128 count=64 iflag=direct status=none | cmp -s - $T/pat2; then
	pass two-data-alone-back
else
	fail two-data-alone-back "differs from what was written"
fi
rc2_is two-stop 0 stop
check_fails two-stopped-pool-gone dmsetup info tp
check_fails two-stopped-no-export test -e /sys/kernel/config/nvmet/subsystems/nqn.2026-12.io.fcache:tp-fcx
rc2_is two-monitor-stopped 7 monitor
# fcy's export goes
_s=/sys/kernel/config/nvmet/subsystems/nqn.2026-12.io.fcache:tp-fcy
rm -f /sys/kernel/config/nvmet/ports/77/subsystems/nqn.2026-12.io.fcache:tp-fcy
rmdir /sys/kernel/config/nvmet/ports/77
echo 0 >"$_s/namespaces/1/enable"
rmdir "$_s/namespaces/1" "$_s"

check rmmod unload_fcache
dmesg_clean
finish
