#!/bin/sh
# Build the debug guest kernel for `make check-debug`, once: the result is
# cached in build/debug/kernel-<key>/ (key: the config fragment
# tests/vm/debug-kernel.config and the linux-source-6.1 package version).
#
#   sh tests/vm/debug-kernel.sh      prints the kernel's output directory:
#     DIR/arch/x86/boot/bzImage      the kernel to boot
#     DIR/kernelrelease              its version string (6.1.N-fcdebug)
#     DIR/modroot/lib/modules/VER    its modules (null_blk, brd, ...)
#     DIR/build-seconds              how long the build took
#
# Source: /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1),
# extracted once to build/debug/src-<version>.  The build runs under
# `nice -n 19` in a session and autogroup of its own, niced too (low()),
# with FC_DEBUG_JOBS (2) jobs; its output goes to
# build/debug/kernel-<key>.log.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dbg=$top/build/debug
frag=$top/tests/vm/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${FC_DEBUG_JOBS:-2}

die() { echo "debug-kernel: $*" >&2; exit 1; }
[ -r "$tarball" ] || die "no $tarball (apt-get install linux-source-6.1)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || srcver=unknown
# bump FORMAT when the way the tree is built changes
FORMAT=1
key=$( { cat "$frag"; echo "$srcver $FORMAT"; } | sha256sum | cut -c1-12)
out=$dbg/kernel-$key
log=$dbg/kernel-$key.log
mkdir -p "$dbg"

# one build at a time (a second make check-debug waits, then reuses it)
exec 8>"$dbg/.kernel.lock"
flock 8

if [ -f "$out/.fc-done" ]; then
	echo "debug-kernel: cached $out ($(cat "$out/kernelrelease"))" >&2
	echo "$out"
	exit 0
fi

src=$dbg/src-$(echo "$srcver" | tr -c 'A-Za-z0-9.+~\n-' _)
if [ ! -f "$src/.fc-extracted" ]; then
	echo "debug-kernel: extracting $tarball to $src" >&2
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1 || die "tar failed"
	: >"$src/.fc-extracted"
fi

# an interrupted build of the same key resumes (make is incremental)
mkdir -p "$out"
rm -rf "$out/modroot"
echo "=== $(date -u)" >>"$log"
echo "debug-kernel: configuring $out (log $log)" >&2
t0=$(date +%s)
{
	make -C "$src" O="$out" x86_64_defconfig &&
	(cd "$src" && ARCH=x86_64 sh scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "$frag")
} >>"$log" 2>&1 || die "configuration failed, see $log"

# every line of the fragment must have made it into .config
bad=""
while IFS= read -r l; do
	case "$l" in
	CONFIG_*=*)
		grep -qxF "$l" "$out/.config" || bad="$bad ${l}(got: $(grep "^${l%%=*}=" "$out/.config" || echo unset))" ;;
	"# CONFIG_"*" is not set")
		s=${l#\# }; s=${s%% *}
		grep -qE "^$s=(y|m)" "$out/.config" && bad="$bad $s(still set)" ;;
	esac
done <"$frag"
[ -z "$bad" ] || die "config fragment not applied:$bad"

# low: nice -n 19 in a session of its own whose autogroup is niced too.
# With sched_autogroup on (Debian's default) nice only ranks processes of
# one session: a build started from another shell than a guest's took
# half the CPU from it (make check's host suites ran 4x longer beside it).
low() {
	setsid -w sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null; exec nice -n 19 "$@"' low "$@"
}
echo "debug-kernel: building with -j$jobs under nice -n 19 (this takes a while)" >&2
low make -C "$src" O="$out" -j"$jobs" bzImage modules >>"$log" 2>&1 ||
	die "kernel build failed, see $log"
low make -C "$src" O="$out" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install >>"$log" 2>&1 || die "modules_install failed, see $log"
make -s -C "$src" O="$out" kernelrelease >"$out/kernelrelease" 2>>"$log" || die "kernelrelease"
kver=$(cat "$out/kernelrelease")
[ -d "$out/modroot/lib/modules/$kver" ] || die "no $out/modroot/lib/modules/$kver"
# the guest bind-mounts this over /lib/modules/<ver>: no dangling links
rm -f "$out/modroot/lib/modules/$kver/build" "$out/modroot/lib/modules/$kver/source"
echo $(($(date +%s) - t0)) >"$out/build-seconds"
: >"$out/.fc-done"
echo "debug-kernel: built $kver in $(cat "$out/build-seconds") s: $out" >&2
echo "$out"
