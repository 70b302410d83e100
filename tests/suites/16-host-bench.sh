#!/bin/sh
# fcachectl bench on the host, against a file (tests/host/bench_host.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/host/bench_host.sh"
