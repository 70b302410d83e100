# Sourced by tests/suites/*.sh that run guest scripts.
#
#   guest_run LABEL [run-guest options] GUEST_SCRIPT [args...]
#     runs the guest, forwards its PASS:/FAIL: lines, and prints
#     "FAIL: LABEL (...)" when the run itself failed without any FAIL line.
#     Returns run-guest.sh's status; the full console stays in the log it names.
#   guest_expect_killed LABEL [run-guest options] --kill-after N SCRIPT [args...]
#     for power-cut runs: prints PASS/FAIL LABEL from run-guest's status.
#   need_module LABEL    prints FAIL and returns 1 if dm-fcache.ko is missing.

SUITE_TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUITE_OUT=$SUITE_TOP/build/test-logs
mkdir -p "$SUITE_OUT"

guest_run() {
	_label=$1; shift
	_out=$SUITE_OUT/$_label.console
	sh "$SUITE_TOP/tests/vm/run-guest.sh" --name "$_label" "$@" >"$_out" 2>"$_out.err"
	_rc=$?
	# serial console lines end in \r\n
	tr -d '\r' <"$_out" | grep -aE '^(PASS|FAIL): ' >"$_out.res"
	cat "$_out.res"
	cat "$_out.err" >&2
	if [ $_rc -eq 0 ] && ! grep -q '^PASS: ' "$_out.res"; then
		echo "FAIL: $_label (guest run succeeded but printed no PASS line)"
	elif [ $_rc -ne 0 ] && ! grep -q '^FAIL: ' "$_out.res"; then
		echo "FAIL: $_label (guest run status $_rc: $(grep 'run-guest:' "$_out.err" | grep -v 'log \|waiting\|building\| on ' | head -n 2 | tr '\n' ' '))"
	fi
	if [ $_rc -ne 0 ]; then
		echo "# $_label: see $(sed -n 's/^run-guest: log \(.*\) (status.*/\1/p' "$_out.err")" >&2
	fi
	return $_rc
}

guest_expect_killed() {
	_label=$1; shift
	_out=$SUITE_OUT/$_label.console
	sh "$SUITE_TOP/tests/vm/run-guest.sh" --name "$_label" "$@" >"$_out" 2>"$_out.err"
	_rc=$?
	tr -d '\r' <"$_out" | grep -aE '^(PASS|FAIL): '
	cat "$_out.err" >&2
	if [ $_rc -eq 0 ]; then
		echo "PASS: $_label"
	else
		echo "FAIL: $_label (run-guest status $_rc, expected a power cut)"
	fi
	return $_rc
}

# build_mkimage LABEL: the host's pool image writer for guest tests
# (build/vm/ctl_mkimage, from tests/host/ctl_mkimage.c)
build_mkimage() {
	mkdir -p "$SUITE_TOP/build/vm"
	# built aside, then renamed: a running suite may use the one there
	cc -O2 -Wall -I"$SUITE_TOP/include" -o "$SUITE_TOP/build/vm/ctl_mkimage.$$" \
		"$SUITE_TOP/tests/host/ctl_mkimage.c" "$SUITE_TOP/engine/fc_format.c" &&
		mv -f "$SUITE_TOP/build/vm/ctl_mkimage.$$" "$SUITE_TOP/build/vm/ctl_mkimage" && return 0
	echo "FAIL: $1 (cannot build ctl_mkimage)"
	return 1
}

need_module() {
	if [ ! -f "${FC_KO:-$SUITE_TOP/dm-fcache.ko}" ]; then
		echo "FAIL: $1 (dm-fcache.ko not built: make module)"
		return 1
	fi
}

# hold_vm_lock: take the guest lock for the rest of this suite (several
# boots back to back, e.g. power-cut cycles); run-guest.sh then skips it.
hold_vm_lock() {
	# already held by a parent (whose fd 9 we inherited): nothing to do
	[ "${FC_VM_LOCK_HELD:-}" = 1 ] && return 0
	. "$SUITE_TOP/tests/vm/lock.sh"
	vm_lock || { echo "FAIL: ${1:-guest-lock} (could not get the guest lock)"; return 1; }
	trap 'rm -f "$vm_ticket"' EXIT
	trap 'exit 130' INT TERM HUP
	export FC_VM_LOCK_HELD=1
}
