#!/bin/sh
# Host test of the dm-log-writes replay tool (tests/crash/lw_replay.c)
# against synthetic logs (tests/crash/lw_mklog.c); see docs/TESTING.md,
# "Replay at every flush point".
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/crash/host-test.sh"
