#!/bin/sh
# fcachectl bench on the host, against files: bad input, device signatures
# and signals (tests/host/bench_input.sh); the block trace and its offline
# optimum (tests/host/bench_optimum.sh); the model of the policy over a
# trace, tests/bench/fcsim (tests/host/bench_fcsim.sh); SIGHUP, a closed
# stdout, a datafile in use, FIFOs and bad output paths
# (tests/host/bench_safety.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/host/bench_input.sh"
sh "$top/tests/host/bench_optimum.sh"
sh "$top/tests/host/bench_fcsim.sh"
sh "$top/tests/host/bench_safety.sh"
