#!/bin/sh
# dm-fcache mode change with dirty data on a slow origin (tests/guest/fc_modechange.sh).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-modechange || exit 0
guest_run fcache-modechange --timeout 600 tests/guest/fc_modechange.sh
