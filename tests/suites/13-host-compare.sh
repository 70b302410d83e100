#!/bin/sh
# fcachectl bench compare on the host, against files
# (tests/host/bench_host_compare.sh): split from 16-host-bench.sh so that the
# host suites, run side by side (run-all.sh), end sooner.
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/host/bench_host_compare.sh"
