#!/bin/sh
# dm-fcache in the guest: tests/guest/fc_integrity.sh (see its header).
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-integrity || exit 0
guest_run fcache-integrity --timeout 900 tests/guest/fc_integrity.sh
