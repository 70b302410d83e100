#!/bin/sh
# dm-fcache in the guest, in one boot:
#   tests/guest/fc_persist.sh   cached data across teardowns and reloads
#   tests/guest/fc_onewrite.sh  one-write commits: a cut one, a live one
#                               (loads a pool image made by the host's
#                               image writer)
#   tests/guest/fc_warm.sh      warm restart (warm_restart 1): blocks read
#                               in survive a power cut; writes, discards
#                               and eviction of warm blocks
#   tests/guest/fc_ordered.sh   ordered write-back (ordered 1): the origin
#                               alone at a flush point, shadows across a
#                               power cut, the option set on a running
#                               pool (the test build: make fi-module,
#                               which checks the dirty blocks' lists whole
#                               before every ordered batch)
#   tests/guest/fc_vlog.sh      a volume's ordered log (ordered_log DEV):
#                               bound, records a crash left replayed by
#                               the constructor, refusals (~15 s)
. "$(dirname "$0")/../vm/suite-lib.sh"
need_module fcache-persist || exit 0
build_mkimage fcache-persist || exit 1
guest_run fcache-persist --timeout 900 tests/guest/run_many.sh tests/guest/fc_persist.sh \
	tests/guest/fc_onewrite.sh tests/guest/fc_warm.sh
if [ ! -f "$SUITE_TOP/build/fi/dm-fcache.ko" ]; then
	echo "FAIL: fcache-ordered (build/fi/dm-fcache.ko not built: make fi-module)"
	exit 0
fi
FC_KO=$SUITE_TOP/build/fi/dm-fcache.ko guest_run fcache-ordered --timeout 900 \
	tests/guest/run_many.sh tests/guest/fc_ordered.sh tests/guest/fc_vlog.sh
