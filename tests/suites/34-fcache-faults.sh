#!/bin/sh
# dm-fcache fault handling in the guest: tests/guest/fc_faults.sh, then
# tests/guest/fc_meta_ro.sh (a metadata write error: the volume keeps
# serving, issue 32 item 7).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-faults || exit 0
# one boot for both (run_many.sh puts the guest back between them)
guest_run fcache-faults --timeout 720 tests/guest/run_many.sh tests/guest/fc_faults.sh \
	tests/guest/fc_meta_ro.sh
