#!/bin/sh
# fcachectl host tests, the admin's verbs: the config file, show/get/
# reset-counters/forget and pool create --force, tunables, mirrored pools
# and pool replace, what must not lose an admin's work (pairs the kernel
# refuses, set's plan, pool remove's config line, wipe), pool create's
# -c/--no-persist and its line, enable of an LVM PV that LVM would see
# twice (tests/host/ctl_*.sh); the docs' budget and links
# (tests/host/docs_check.sh); scripts/deps.sh's apt-get calls
# (tests/host/deps_check.sh).  Images and output: suite 15-host-ctl.
top=$(cd "$(dirname "$0")/../.." && pwd)
for t in config verbs tunables mirror replace safety record pvfilter; do
	sh "$top/tests/host/ctl_$t.sh"
done
sh "$top/tests/host/docs_check.sh"
sh "$top/tests/host/deps_check.sh"
