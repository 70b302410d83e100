#!/bin/sh
# fcachectl end to end in QEMU guests (tests/guest/ctl_*.sh): every verb,
# refusals of bad input, in-place enable/disable under a mounted ext4 with a
# writer running, disable with dirty data, up/down across a guest reboot.
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module ctl-guest || exit 0
[ -x "$SUITE_TOP/userspace/fcachectl" ] || { echo "FAIL: ctl-guest (userspace/fcachectl not built)"; exit 0; }

guest_run ctl-basic --timeout 240 tests/guest/ctl_basic.sh
