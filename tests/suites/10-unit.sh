#!/bin/sh
# Host unit tests of the shared logic, built with ASan/UBSan.
top=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$top/tests/unit" run
