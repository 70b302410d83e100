#!/bin/sh
# dm-fcache writeback policy and read-hit races: tests/guest/fc_writeback.sh;
# the counters and the absorption of small synchronous writes: fc_counters.sh;
# a flush as a state the worker drives (suspend during it, no batch cap):
# fc_flushstall.sh; what an fsync and an O_DSYNC write cost the flash:
# fc_sync.sh; REQ_NOWAIT (io_uring's inline submission): fc_nowait.sh.
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-writeback || exit 0
# one boot (run_many resets the guest between them): the writeback policy;
# a flush driven by the worker (suspends during it are prompt, no batch
# cap); the sync path's cost in flash writes and flushes (fsync, O_DSYNC);
# REQ_NOWAIT (served from the flash only, EAGAIN before anything changes);
# on the test build (make fi-module): fc_sync.sh runs its mutant
# quick_unsynced too (a write the next flush does not reckon with)
if [ ! -f "$SUITE_TOP/build/fi/dm-fcache.ko" ]; then
	echo "FAIL: fcache-writeback (build/fi/dm-fcache.ko not built: make fi-module)"
else
	FC_KO=$SUITE_TOP/build/fi/dm-fcache.ko guest_run fcache-writeback --timeout 1500 \
		tests/guest/run_many.sh tests/guest/fc_writeback.sh tests/guest/fc_flushstall.sh \
		tests/guest/fc_sync.sh tests/guest/fc_nowait.sh
fi
# the read-ahead races of fc_counters.sh: 16 rounds each, 40 under check-long
if [ "${FC_LONG:-0}" = 1 ]; then race=40; else race=16; fi
guest_run fcache-counters --timeout 300 tests/guest/fc_counters.sh $race
