#!/bin/sh
# dm-fcache in the guest: mirrored pools (issue 11), in one boot:
#   tests/guest/fc_mirror.sh    placement, power cut, resync, refusals, fcachectl
#   tests/guest/fc_legfail.sh   a device failing at run time (either one), under
#                               load; replace online, then the other fails
#   tests/guest/ctl_replace.sh  the same through fcachectl pool replace
#   tests/guest/fc_nvmet.sh     the second leg an NVMe-oF (nvmet TCP) namespace
#   tests/guest/fc_leftover.sh  a leftover page on one leg only (issue 32 item 3)
#   tests/guest/fc_replace_lock.sh  a replace held in its commit: other pools
#                               and volumes go on (issue 32 item 6)
#   tests/guest/fc_fencehold.sh  fence_hold: flushes and FUA writes of a pool
#                               on one copy wait for peer_outdated (issue 37)
#   tests/guest/fc_mirror_faults.sh  the second fault: an error on the old
#                               device during a resync, a join refused at a
#                               real size, a degraded pool's new writes and
#                               watermarks, a retried mirrored write
#                               (the test build: make fi-module)
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-mirror || exit 0
# fc_legfail.sh and fc_leftover.sh load pool images made by the host's image writer
build_mkimage fcache-mirror || exit 1
guest_run fcache-mirror --timeout 1200 tests/guest/run_many.sh tests/guest/fc_mirror.sh \
	tests/guest/fc_legfail.sh tests/guest/ctl_replace.sh tests/guest/fc_nvmet.sh \
	tests/guest/fc_leftover.sh tests/guest/fc_replace_lock.sh tests/guest/fc_fencehold.sh
if [ ! -f "$SUITE_TOP/build/fi/dm-fcache.ko" ]; then
	echo "FAIL: fcache-mirror-faults (build/fi/dm-fcache.ko not built: make fi-module)"
	exit 0
fi
FC_KO=$SUITE_TOP/build/fi/dm-fcache.ko guest_run fcache-mirror-faults --timeout 1200 \
	tests/guest/fc_mirror_faults.sh
