#!/bin/sh
# dm-fcache mirrored pool whose second leg is an NVMe-oF namespace (issue
# 11, docs/DESIGN.md "Beyond one host"): the kernel's own target (nvmet,
# TCP on the loopback interface) exports a disk, the kernel's own host
# (nvme-tcp, through /dev/nvme-fabrics: no nvme-cli needed) connects to it,
# and the pool mirrors its dirty data onto that namespace as it would onto a
# peer host's flash.  Then the peer goes away (the target's port is
# removed): the pool runs on the local leg alone, every acknowledged write
# reads back byte for byte, and the local device alone holds every flushed
# write.
FC_T=fc_nvmet
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
for m in nvmet nvmet-tcp nvme-fabrics nvme-tcp; do
	modprobe "$m" || die "modprobe $m"
done
ip link set lo up || die "loopback"
d0=$(mk_fast_disk 32) && back=$(mk_fast_disk 32) && org=$(mk_fast_disk 64) &&
	ok=$(mk_fast_disk 16) || die "disks"
OPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
P_RED=16 P_LONE=17 P_LEGS=18
NQN=nqn.2026-12.io.fcache:peer-flash
CFS=/sys/kernel/config/nvmet
S=$CFS/subsystems/$NQN
IMG=/tmp/fc_nvmet
mkdir -p $IMG

# the peer's export: one namespace over $back, TCP 127.0.0.1:4420
export_ns() {
	mkdir "$S" && echo 1 >"$S/attr_allow_any_host" &&
		mkdir "$S/namespaces/1" && printf '%s' "$back" >"$S/namespaces/1/device_path" &&
		echo 1 >"$S/namespaces/1/enable" &&
		mkdir "$CFS/ports/1" && echo tcp >"$CFS/ports/1/addr_trtype" &&
		echo ipv4 >"$CFS/ports/1/addr_adrfam" && echo 127.0.0.1 >"$CFS/ports/1/addr_traddr" &&
		echo 4420 >"$CFS/ports/1/addr_trsvcid" &&
		ln -s "$S" "$CFS/ports/1/subsystems/$NQN"
}
# this host connects; a lost peer fails I/O after 2 s, not 10 minutes
connect_ns() {
	echo "transport=tcp,traddr=127.0.0.1,trsvcid=4420,nqn=$NQN,ctrl_loss_tmo=2,reconnect_delay=1,fast_io_fail_tmo=0" \
		>/dev/nvme-fabrics || return 1
	_w=0
	while [ -z "$(nvme_dev)" ] && [ $_w -lt 100 ]; do sleep 0.1; _w=$((_w + 1)); done
	[ -n "$(nvme_dev)" ]
}
# the namespace's block device: the multipath head (nvmeXnY; the hidden
# per-controller nvmeXcYnZ nodes are not for I/O) of our subsystem
nvme_dev() {
	for _n in /sys/block/nvme*n*; do
		case ${_n##*/} in *c*) continue ;; esac
		[ "$(cat "$_n/device/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		[ -b "/dev/${_n##*/}" ] && { echo "/dev/${_n##*/}"; return 0; }
	done
	return 1
}

check export export_ns
check connect connect_ns
nv=$(nvme_dev)
info "remote leg: $nv"
[ -b "$nv" ] && pass remote-leg-is-a-block-device || { fail remote-leg-is-a-block-device "$nv"; finish; }
J1="--rw=randwrite --bsrange=4k-64k --size=12M --iodepth=8 --randseed=51"
J2="--rw=randwrite --bs=8k --size=4M --offset=16M --iodepth=4 --randseed=52"

check create fc_pool mp "$d0" 64 mirror "$nv" $OPTS
field_is mirrored /dev/mapper/mp $P_RED = mirrored
check vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check keeper-vol fc_vol mk mp "$ok" 9 passthrough
start_keeper /dev/mapper/mk
check J1 fio_verify /dev/mapper/mv $J1
field_is dirty /dev/mapper/mp $P_DIRTY -gt 0
field_is no-lone /dev/mapper/mp $P_LONE -eq 0
# the second copies really are on the peer's disk: the local leg's image
# alone is not what the pool reads back after the peer's side is gone
check fsync sync /dev/mapper/mv

# the peer goes away: its port is removed, the connection fails
dmesg -C
check peer-gone rm "$CFS/ports/1/subsystems/$NQN"
check J2-after fio_verify /dev/mapper/mv $J2
field_is degraded /dev/mapper/mp $P_RED = degraded
field_is remote-leg-failed /dev/mapper/mp $P_LEGS = ok,failed
check log-names-failure sh -c "dmesg | grep -q 'failed: the pool runs degraded'"
check J1-reads fio_verify /dev/mapper/mv $J1 --verify_only=1
check J2-reads fio_verify /dev/mapper/mv $J2 --verify_only=1
check fsync-degraded sync /dev/mapper/mv
check local-image dd if="$d0" of=$IMG/local bs=1M iflag=direct 2>/dev/null
kill $keeper; wait $keeper 2>/dev/null
check remove-keeper dm_remove mk
check remove-vol dm_remove mv
check remove-pool dm_remove mp
# the local device alone (as after the peer host died): every write there
check restore dd if=$IMG/local of="$d0" bs=1M oflag=direct 2>/dev/null
check alone fc_pool mp "$d0" 64 mirror - degraded 1 $OPTS
check alone-vol fc_vol mv mp "$org" 1 writeback sequential_cutoff 0
check alone-J1 fio_verify /dev/mapper/mv $J1 --verify_only=1
check alone-J2 fio_verify /dev/mapper/mv $J2 --verify_only=1
check alone-remove-vol dm_remove mv
check alone-remove-pool dm_remove mp

# tear the fabric down (the controller gave up on its own)
for _c in /sys/class/nvme/nvme*; do
	[ "$(cat "$_c/subsysnqn" 2>/dev/null)" = "$NQN" ] && echo 1 >"$_c/delete_controller" 2>/dev/null
done
rmdir "$CFS/ports/1" 2>/dev/null
echo 0 >"$S/namespaces/1/enable" 2>/dev/null
rmdir "$S/namespaces/1" "$S" 2>/dev/null
check rmmod unload_fcache
dmesg_clean
finish
