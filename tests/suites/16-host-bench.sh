#!/bin/sh
# fcachectl bench on the host, against files (tests/host/bench_host.sh; bad
# input, device signatures and signals: tests/host/bench_input.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/host/bench_host.sh"
sh "$top/tests/host/bench_input.sh"
