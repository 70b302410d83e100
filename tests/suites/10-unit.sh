#!/bin/sh
# Host unit tests of the shared logic, built with ASan/UBSan.
top=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$top/tests/unit" run
# the calls between kmod files: no new cycle (tests/host/kmod_calls.allow)
sh "$top/tests/host/kmod_calls.sh"
# docs/DESIGN.md's decision table against engine/fc_decide.c's
sh "$top/tests/host/decide_table.sh"
