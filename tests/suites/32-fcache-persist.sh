#!/bin/sh
# dm-fcache in the guest: tests/guest/fc_persist.sh (see its header).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-persist || exit 0
guest_run fcache-persist --timeout 600 tests/guest/fc_persist.sh
