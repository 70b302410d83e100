#!/bin/sh
# Install the Debian packages listed in scripts/packages.txt that are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
missing=""
for p in $(grep -v '^#' "$here/packages.txt" | grep -v '^$'); do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "fcache: missing Debian packages:$missing" >&2
	echo "fcache: run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "fcache: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
$cmd >&2
