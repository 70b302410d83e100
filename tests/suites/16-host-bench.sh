#!/bin/sh
# fcachectl bench on the host, against files (tests/host/bench_host.sh); one-line
# usage errors and each verb's --help: tests/host/bench_help.sh; the
# reports and charts from synthetic results: tests/host/bench_chart.sh.
# Bad input, signals and the optimum: 18-host-bench-input.sh (run-all.sh
# runs the two side by side).
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/host/bench_host.sh"
sh "$top/tests/host/bench_help.sh"
sh "$top/tests/host/bench_chart.sh"
