#!/bin/sh
# make check-debug: run the guest suites on a debug build of Debian's 6.1
# kernel (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_SG,
# DEBUG_OBJECTS, SLUB_DEBUG: tests/vm/debug-kernel.config).
#
#   1. installs linux-source-6.1 and the kernel build packages when missing
#      (as root; otherwise prints the apt-get command and fails)
#   2. builds the kernel once, cached in build/debug/kernel-<key>
#      (tests/vm/debug-kernel.sh)
#   3. builds dm-fcache.ko against it from a copy of the sources in
#      build/debug/mod (with -g: report frames resolve to file:line);
#      the top-level dm-fcache.ko is not touched; and its fault-injection
#      build (mk/fi.mk) in build/debug/mod-fi, which the run finds as
#      build/fi/dm-fcache.ko (suite 32's fc_mirror_faults.sh, 36-38)
#   4. runs tests/run-all.sh in build/debug/run, a snapshot of tests/ (the
#      rest of the tree linked), so its logs, images and results never mix
#      with a `make check` running in the tree at the same time; run-guest.sh
#      boots the debug kernel (FC_GUEST_KERNEL, FC_GUEST_MODDIR, FC_KO,
#      FC_TIMEOUT_MULT)
#   5. counts the debug reports (KASAN, lockdep, might_sleep, list/sg/
#      debugobjects, BUG/WARNING/Oops) in the guest logs of this run
#
# Ends with "N passed, N failed" and "debug reports: N"; exits non-zero on
# any failure or report.  Environment: FC_SUITES (default "20 30 31 32 33 34
# 35"), FC_TIMEOUT_MULT (default 3), FC_DEBUG_JOBS (kernel build jobs, 2).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dbg=$top/build/debug

say() { echo "check-debug: $*"; }
die() { echo "check-debug: $*" >&2; echo "0 passed, 1 failed"; echo "debug reports: 0"; exit 1; }

# --- 1. packages ---------------------------------------------------------------
pkgs="linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils kmod"
missing=""
for p in $pkgs; do
	case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -n "$missing" ]; then
	cmd="apt-get install -y --no-install-recommends$missing"
	if [ "$(id -u)" -ne 0 ]; then
		echo "check-debug: missing Debian packages:$missing" >&2
		die "run as root:  apt-get update && $cmd"
	fi
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	# shellcheck disable=SC2086
	$cmd >&2 || die "apt-get failed"
fi

# --- 2. kernel (cached) --------------------------------------------------------
kout=$(sh "$top/tests/vm/debug-kernel.sh") || die "debug kernel build failed"
kver=$(cat "$kout/kernelrelease")
bz=$kout/arch/x86/boot/bzImage
[ -f "$bz" ] || die "no $bz"
say "kernel $kver ($bz, built in $(cat "$kout/build-seconds") s)"

# --- 3. module against the debug tree ------------------------------------------
# one check-debug at a time (build/debug/mod and build/debug/run are reused)
exec 7>"$dbg/.check.lock"
flock -n 7 || { say "waiting for another make check-debug"; flock 7; }
# build_module DIR WHAT [KBUILD LINE]: the module from a copy of the sources
# in DIR (Kbuild with the extra line, if given), against the debug tree
build_module() {
	rm -rf "$1"
	mkdir -p "$1/kmod" "$1/engine" "$1/include"
	cp "$top"/kmod/*.c "$top"/kmod/*.h "$1/kmod/" && cp "$top"/engine/*.c "$top"/engine/*.h "$1/engine/" &&
		cp "$top"/include/*.h "$1/include/" &&
		{ cat "$top/Kbuild"; [ -z "${3:-}" ] || echo "$3"; } >"$1/Kbuild" || die "copy sources ($2)"
	say "building the $2 against $kver (log $1.log)"
	nice -n 19 make -C "$kout" M="$1" KCFLAGS=-g modules >"$1.log" 2>&1 ||
		{ tail -n 30 "$1.log" >&2; die "$2 build failed"; }
	[ -f "$1/dm-fcache.ko" ] || die "no $1/dm-fcache.ko"
}
mod=$dbg/mod
build_module "$mod" dm-fcache.ko
# the fault-injection build as well (mk/fi.mk): suite 32's fc_mirror_faults.sh
# and suites 36-38 load build/fi/dm-fcache.ko
fimod=$dbg/mod-fi
build_module "$fimod" "fault-injection dm-fcache.ko" 'ccflags-y += -DFC_FAULT_INJECT'

# --- 4. snapshot of the tests, then run them ----------------------------------
run=$dbg/run
rm -rf "$run"
mkdir -p "$run"
cp -r "$top/tests" "$run/tests" || die "copy tests"
for e in "$top"/* "$top"/.[!.]*; do
	[ -e "$e" ] || continue
	case "${e##*/}" in tests|build|dm-fcache.ko|.git) continue ;; esac
	ln -s "$e" "$run/${e##*/}"
done
cp "$mod/dm-fcache.ko" "$run/dm-fcache.ko"
mkdir -p "$run/build/fi" && cp "$fimod/dm-fcache.ko" "$run/build/fi/dm-fcache.ko" || die "copy the fi module"

export FC_GUEST_KERNEL=$bz FC_GUEST_MODDIR=$kout/modroot FC_KO=$run/dm-fcache.ko FC_SLUB_DEBUG=FZPU
export FC_TIMEOUT_MULT=${FC_TIMEOUT_MULT:-3}
export FC_SUITES=${FC_SUITES:-20 30 31 32 33 34 35}
# (run-guest.sh multiplies --kill-after too: suite 33's power cuts come
# proportionally later, as boot and setup are slower)
say "suites \"$FC_SUITES\" on $kver, timeouts x$FC_TIMEOUT_MULT, in $run"
t0=$(date +%s)
(cd "$run" && sh tests/run-all.sh) | tee "$dbg/run.out"
t1=$(date +%s)
tail -n 1 "$dbg/run.out" | grep -qE '^[0-9]+ passed, 0 failed$' && ok=1 || ok=0
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$dbg/run.out" | tail -n 1)
[ -n "$summary" ] || summary="0 passed, 1 failed"

# --- 5. debug reports in this run's guest logs --------------------------------
# report headers (kernel lines with a timestamp); the console copy and the
# dmesg copy of a line count once
hdr='(BUG: |BUG [a-z0-9_:.-]+ \(|WARNING: |INFO: possible|INFO: trying to register|ODEBUG: |list_add corruption|list_del corruption|general protection|Oops|UBSAN: |detected stall|blocked for more than)'
n=0
: >"$dbg/reports.txt"
for l in "$run"/build/vm/logs/*.log; do
	[ -f "$l" ] || continue
	r=$(tr -d '\r' <"$l" | grep -aE "^\[ *[0-9]+\.[0-9]+\] .*$hdr" | sort -u)
	[ -n "$r" ] || continue
	c=$(printf '%s\n' "$r" | wc -l)
	n=$((n + c))
	{ echo "== $l"; printf '%s\n' "$r"; } >>"$dbg/reports.txt"
done
if [ "$n" -gt 0 ]; then
	echo "=== debug reports (full text in the logs named; list in $dbg/reports.txt):"
	cat "$dbg/reports.txt"
	ok=0
fi
echo "=== check-debug: kernel $kver (build $(cat "$kout/build-seconds") s), suites $((t1 - t0)) s"
echo "$summary"
echo "debug reports: $n"
[ "$ok" -eq 1 ]
