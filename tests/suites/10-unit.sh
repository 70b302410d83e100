#!/bin/sh
# Host unit tests of the shared logic, built with ASan/UBSan.
top=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$top/tests/unit" run
# the calls between kmod files: no new cycle (tests/host/kmod_calls.allow)
sh "$top/tests/host/kmod_calls.sh"
# docs/DESIGN.md's decision table against engine/fc_decide.c's
sh "$top/tests/host/decide_table.sh"
# the libFuzzer harnesses over their seed corpora, without libFuzzer
# (mk/fuzz.mk): a harness that no longer knows what the parsers accept fails
# here, not at the next `make fuzz`
make -s -C "$top" fuzz-replay || echo "FAIL: fuzz-replay (make fuzz-replay failed)"
