#!/bin/sh
# Guest harness smoke test: in-kernel targets only (no dm-fcache needed).
# dm-linear over brd with fio verify (+ a negative control), md RAID10 of
# null_blk spindles, and a power cut (--kill-when: once the writer has logged
# 50 synced blocks, +1 s; not a time since boot, which TCG under load
# stretches) on a persistent virtio image whose synced blocks must survive
# byte for byte.
. "$(dirname "$0")/../vm/suite-lib.sh"

guest_run smoke-basic --timeout 240 tests/guest/smoke.sh basic

# The power cut (a guest killed mid-write, then the data checked) runs under
# `make check-long`: suites 33 (three cuts) and 36 (every flush point) cover
# it in make check.
if [ "${FC_LONG:-0}" != 1 ]; then
	echo "# smoke-powercut: make check-long runs it"
	exit 0
fi
img=$SUITE_TOP/build/vm/smoke-powercut.img
rm -f "$img"
token=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
res=$SUITE_TOP/build/vm/results-smoke
mkdir -p "$res"
rm -f "$res/powercut.log"
# the power cut and the check boot run back to back under one lock hold
hold_vm_lock smoke-powercut || exit 0
guest_expect_killed smoke-powercut-killed --results "$res" --flash-img "$img:64" \
	--timeout 600 --kill-when "$res/powercut.log:50:1" tests/guest/smoke.sh powercut-write "$token"
guest_run smoke-powercut-check --results "$res" --flash-img "$img:64" --timeout 180 \
	tests/guest/smoke.sh powercut-check "$token"
rm -f "$img"
