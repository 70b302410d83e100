#!/bin/sh
# fcachectl end to end in QEMU guests (tests/guest/ctl_*.sh): every verb,
# refusals of bad input, in-place enable/disable under a mounted ext4 with a
# writer running, disable with dirty data, up/down across a guest reboot,
# LVM commands on a cached PV and volumes detached at run time (ctl_lvm.sh),
# show/get, reset-counters, forget and pool create --force (ctl_verbs.sh),
# what must not lose an admin's work (ctl_safety.sh), the OCF resource agent
# for Pacemaker (ctl_ocf.sh), the ordered log on block devices (ctl_olog.sh).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module ctl-guest || exit 0
[ -x "$SUITE_TOP/userspace/fcachectl" ] || { echo "FAIL: ctl-guest (userspace/fcachectl not built)"; exit 0; }

# one boot (run_many resets the guest between them: each makes its own brd):
# every verb and its refusals; in-place enable/disable under a mounted ext4;
# issue 13 part 1: show/get, reset-counters, forget, pool create --force;
# issue 35 (~45 s): set refuses half-way pairs whole, pool remove and the
# config, wipe and udev-probe on an unassembled pool, other tools on one, SIGHUP;
# issue 35, items 9 and 12 (~30 s): pool create -c/--no-persist on a real pool,
# enable of a pvcreated origin refused without the global_filter line;
# issue 37's OCF resource agent (ocf/fcache, ~100 s): ocf-tester, data
# across stop and start, refusals, a degraded pool; issue 38's ordered-log
# format/replay on block devices, held and unreadable ones refused (~10 s)
guest_run ctl-basic --timeout 1080 tests/guest/run_many.sh tests/guest/ctl_basic.sh \
	tests/guest/ctl_inplace.sh tests/guest/ctl_verbs.sh tests/guest/ctl_safety.sh \
	tests/guest/ctl_pvfilter.sh tests/guest/ctl_ocf.sh tests/guest/ctl_olog.sh
# issue 9: LVM commands on a cached PV, DETACHED volumes, config persistence
guest_run ctl-lvm --timeout 900 tests/guest/ctl_lvm.sh

# up/down across a reboot: two guest runs on the same persistent disks
img=$SUITE_TOP/build/vm/ctl-updown
rm -f "$img"-*.img
guest_run ctl-updown-first --timeout 240 --flash-img "$img-flash.img:256" \
	--disk2 "$img-vdc.img:128" --disk3 "$img-vdd.img:128" tests/guest/ctl_updown.sh first
guest_run ctl-updown-second --timeout 240 --flash-img "$img-flash.img:256" \
	--disk2 "$img-vdc.img:128" --disk3 "$img-vdd.img:128" tests/guest/ctl_updown.sh second
rm -f "$img"-*.img
