#!/bin/sh
# dm-fcache lifecycle in the guest (tests/guest/fc_lifecycle.sh).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-lifecycle || exit 0
guest_run fcache-lifecycle --timeout 600 tests/guest/fc_lifecycle.sh
