#!/bin/sh
# dm-fcache in the guest: mirrored pools, tests/guest/fc_mirror.sh (see its header).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-mirror || exit 0
guest_run fcache-mirror --timeout 600 tests/guest/fc_mirror.sh
# a device failing at run time (either one), under load: tests/guest/fc_legfail.sh
guest_run fcache-legfail --timeout 600 tests/guest/fc_legfail.sh
