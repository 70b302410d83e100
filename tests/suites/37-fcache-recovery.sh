#!/bin/sh
# dm-fcache recovery after failed metadata writes, fill and writeback races
# in the guest (issue 8 holes 1-5): tests/guest/fc_recovery.sh, with its
# O_DIRECT race helper tests/guest/fc_race.c built here.
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-recovery || exit 0
mkdir -p "$SUITE_TOP/build/vm"
if ! gcc -O2 -Wall -pthread -o "$SUITE_TOP/build/vm/fc_race" "$SUITE_TOP/tests/guest/fc_race.c"; then
	echo "FAIL: fcache-recovery (cannot build fc_race)"
	exit 1
fi
guest_run fcache-recovery --timeout 1200 tests/guest/fc_recovery.sh 1 1b 2 2b 3 4 5
