#!/bin/sh
# fcachectl host tests, pool images and output: usage, exit codes,
# check/dump on good, damaged and fuzzed pool images, the JSON schemas and
# the Prometheus text, the ordered log's format/show/replay (tests/host/ctl_*.sh).  The admin verbs are suite
# 19-host-ctl-admin: the two run side by side with the other host suites.
top=$(cd "$(dirname "$0")/../.." && pwd)
for t in usage options check outcome fuzz json prom olog; do
	sh "$top/tests/host/ctl_$t.sh"
done
