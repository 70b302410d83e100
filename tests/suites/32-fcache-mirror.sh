#!/bin/sh
# dm-fcache in the guest: mirrored pools (issue 11), in one boot:
#   tests/guest/fc_mirror.sh    placement, power cut, resync, refusals, fcachectl
#   tests/guest/fc_legfail.sh   a device failing at run time (either one), under
#                               load; replace online, then the other fails
#   tests/guest/ctl_replace.sh  the same through fcachectl pool replace
#   tests/guest/fc_nvmet.sh     the second leg an NVMe-oF (nvmet TCP) namespace
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-mirror || exit 0
guest_run fcache-mirror --timeout 1200 tests/guest/run_many.sh tests/guest/fc_mirror.sh \
	tests/guest/fc_legfail.sh tests/guest/ctl_replace.sh tests/guest/fc_nvmet.sh
