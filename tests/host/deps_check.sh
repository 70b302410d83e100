#!/bin/sh
# scripts/deps.sh with stubbed dpkg-query, apt-get and id (no package is
# installed): nothing missing runs no apt-get at all; with package lists
# present the install runs without `apt-get update`, and only when it fails
# comes the update and a second install; without lists the update comes
# first; `deps.sh demo` leaves out the packages marked "check"; as a user it
# prints the command and fails.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS: deps-$1"; }
fail() { echo "FAIL: deps-$1${2:+: $2}"; }
mkdir -p "$T/bin" "$T/lists" "$T/nolists" "$T/scripts"
cp "$top/scripts/deps.sh" "$T/scripts/"
cat >"$T/scripts/packages.txt" <<'P'
# a comment
alpha
beta check

gamma
P
# dpkg-query: the packages in $T/installed are installed
cat >"$T/bin/dpkg-query" <<'S'
#!/bin/sh
for a; do p=$a; done
grep -qx "$p" "$STUB/installed" 2>/dev/null && { printf 'install ok installed'; exit 0; }
exit 1
S
# apt-get: logs its call; an install fails while $T/fail-install exists
cat >"$T/bin/apt-get" <<'S'
#!/bin/sh
echo "apt-get $*" >>"$STUB/log"
case " $* " in
*" update "*) rm -f "$STUB/fail-install" ;;
*" install "*) [ -e "$STUB/fail-install" ] && exit 100 ;;
esac
exit 0
S
cat >"$T/bin/id" <<'S'
#!/bin/sh
echo "${STUB_UID:-0}"
S
chmod +x "$T/bin/"*
export STUB="$T"
# run NAME LISTS [ARGS]: deps.sh with the stubs; its status in $rc, apt-get's calls in $T/log
run() {
	: >"$T/log"
	PATH="$T/bin:$PATH" FC_APT_LISTS="$T/$1" sh "$T/scripts/deps.sh" ${2:+"$2"} >"$T/out" 2>&1
	rc=$?
}
touch "$T/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages"

printf 'alpha\nbeta\ngamma\n' >"$T/installed"
run lists
if [ $rc -eq 0 ] && [ ! -s "$T/log" ]; then pass nothing-missing-no-apt
else fail nothing-missing-no-apt "rc $rc, $(cat "$T/log")"; fi

printf 'alpha\nbeta\n' >"$T/installed"
run lists
if [ $rc -eq 0 ] && [ "$(cat "$T/log")" = "apt-get install -y --no-install-recommends gamma" ]; then
	pass lists-no-update
else fail lists-no-update "rc $rc, $(cat "$T/log")"; fi

touch "$T/fail-install"
run lists
exp=$(printf 'apt-get install -y --no-install-recommends gamma\napt-get update -qq\napt-get install -y --no-install-recommends gamma')
if [ $rc -eq 0 ] && [ "$(cat "$T/log")" = "$exp" ]; then pass stale-lists-update-retry
else fail stale-lists-update-retry "rc $rc, $(cat "$T/log")"; fi

run nolists
exp=$(printf 'apt-get update -qq\napt-get install -y --no-install-recommends gamma')
if [ $rc -eq 0 ] && [ "$(cat "$T/log")" = "$exp" ]; then pass no-lists-update-first
else fail no-lists-update-first "rc $rc, $(cat "$T/log")"; fi

: >"$T/installed"
run lists demo
if [ $rc -eq 0 ] && [ "$(cat "$T/log")" = "apt-get install -y --no-install-recommends alpha gamma" ]; then
	pass demo-skips-check-packages
else fail demo-skips-check-packages "rc $rc, $(cat "$T/log")"; fi

run lists
if [ $rc -eq 0 ] && [ "$(cat "$T/log")" = "apt-get install -y --no-install-recommends alpha beta gamma" ]; then
	pass all-packages
else fail all-packages "rc $rc, $(cat "$T/log")"; fi

STUB_UID=1000 run lists demo
unset STUB_UID
if [ $rc -ne 0 ] && [ ! -s "$T/log" ] && grep -q 'run as root:  apt-get update && apt-get install -y --no-install-recommends alpha gamma$' "$T/out"; then
	pass user-prints-command
else fail user-prints-command "rc $rc, $(cat "$T/out")"; fi

run lists bogus
if [ $rc -eq 2 ] && [ ! -s "$T/log" ]; then pass bad-argument
else fail bad-argument "rc $rc"; fi

# the real list: demo leaves out exactly the check-only packages, and make demo uses it
if grep -q '^sparse check$' "$top/scripts/packages.txt" && grep -q '^mdadm$' "$top/scripts/packages.txt" &&
	make -s -n -C "$top" demo MAKE=true 2>/dev/null | grep -q 'scripts/deps.sh demo$'; then
	pass make-demo-uses-demo-list
else fail make-demo-uses-demo-list; fi
