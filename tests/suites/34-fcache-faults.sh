#!/bin/sh
# dm-fcache fault handling in the guest: tests/guest/fc_faults.sh.
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-faults || exit 0
guest_run fcache-faults --timeout 420 tests/guest/fc_faults.sh
