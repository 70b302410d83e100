#!/bin/sh
# dm-fcache fault handling in the guest: tests/guest/fc_faults.sh, then
# tests/guest/fc_meta_ro.sh (a metadata write error: the volume keeps
# serving, issue 32 item 7).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-faults || exit 0
guest_run fcache-faults --timeout 420 tests/guest/fc_faults.sh
guest_run fcache-meta-ro --timeout 300 tests/guest/fc_meta_ro.sh
