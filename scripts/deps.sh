#!/bin/sh
# Install the Debian packages listed in scripts/packages.txt that are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
#   scripts/deps.sh [demo]
# demo (`make demo`): without the packages marked "check" in packages.txt,
# which only `make check` needs (sparse, fio, lvm2, ...).
# Nothing missing: no apt-get at all.  With package lists present it tries
# the install first and runs `apt-get update` only when that fails (lists
# missing or stale); FC_APT_LISTS overrides /var/lib/apt/lists (tests).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
want=all
case ${1:-} in
'') ;;
demo) want=demo ;;
*) echo "usage: scripts/deps.sh [demo]" >&2; exit 2 ;;
esac
missing=""
# shellcheck disable=SC2013
while read -r p tag; do
	case $p in ''|'#'*) continue ;; esac
	[ "$want" = demo ] && [ "$tag" = check ] && continue
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done <"$here/packages.txt"
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "fcache: missing Debian packages:$missing" >&2
	echo "fcache: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "fcache: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
lists=${FC_APT_LISTS:-/var/lib/apt/lists}
# shellcheck disable=SC2086
if ls "$lists"/*_Packages* >/dev/null 2>&1; then
	$cmd >&2 && exit 0
	echo "fcache: the install failed; apt-get update and once more" >&2
fi
apt-get update -qq >&2
# shellcheck disable=SC2086
$cmd >&2
