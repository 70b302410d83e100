#!/bin/sh
# make install into a DESTDIR, the DKMS source tree building the module by
# itself, the man page, completion, unit and rule (tests/host/ctl_install.sh).
# Its own suite: run-all.sh runs it before the guest suites, which load the
# dm-fcache.ko and run the fcachectl this rebuilds if they are out of date.
top=$(cd "$(dirname "$0")/../.." && pwd)
sh "$top/tests/host/ctl_install.sh"
