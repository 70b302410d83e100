#!/bin/sh
# fcachectl host tests: usage, exit codes, check/dump on good, damaged and
# fuzzed pool images, the JSON schemas and the Prometheus text (tests/host/ctl_*.sh).
top=$(cd "$(dirname "$0")/../.." && pwd)
for t in usage options check outcome fuzz install config json prom; do
	sh "$top/tests/host/ctl_$t.sh"
done
