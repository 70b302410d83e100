#!/bin/sh
# fcachectl option parsing: options before, between and after the operands
# give the same result on every verb that takes options; '--' ends them;
# -v after the verb; unknown options, missing values and abbreviations are
# usage errors (exit 2, one message and the --help hint).  Verbs that need
# device-mapper are driven to a usage error or to their "no device-mapper"
# failure, so both orders must reach the same point.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage
"$MK" "$T/g.img" >/dev/null || { fail "options: mkimage"; exit 0; }


# ---- check / dump: the order of --json and FLASHDEV
same_run "options: check IMG --json = check --json IMG" 0 check "$T/g.img" --json :: check --json "$T/g.img"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/o1" && pass "options: check IMG --json prints JSON" ||
	fail "options: check IMG --json prints JSON" "$(head -c 200 "$T/o1")"
same_run "options: check IMG -j = check -j IMG" 0 check "$T/g.img" -j :: check -j "$T/g.img"
same_run "options: dump IMG --json = dump --json IMG" 0 dump "$T/g.img" --json :: dump --json "$T/g.img"
same_run "options: check -- IMG = check IMG" 0 check -- "$T/g.img" :: check "$T/g.img"
same_run "options: -v after the verb = before it" 0 check "$T/g.img" -v :: -v check "$T/g.img"
cp "$T/g.img" "$T/--json"
(cd "$T" && "$CTL" check -- --json >"$T/out" 2>"$T/err")
r=$?
[ $r -eq 0 ] && grep -q -- '--json: metadata clean' "$T/out" && pass "options: after '--' an operand may start with -" ||
	fail "options: after '--' an operand may start with -" "rc $r: $(tail -n 1 "$T/out") $(head -c 200 "$T/err")"
"$MK" "$T/nc.img" --damage needs-check >/dev/null
cp "$T/nc.img" "$T/nc2.img"
expect_rc 0 "options: check IMG --repair --json" "$CTL" check "$T/nc.img" --repair --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["clear_needs_check"]["done"] is True, d' "$T/out" &&
	pass "options: check IMG --repair --json repairs and prints JSON" || fail "options: check IMG --repair --json repairs and prints JSON" "$(head -c 300 "$T/out")"
expect_rc 0 "options: check --clear-needs-check after IMG" "$CTL" check "$T/nc2.img" --clear-needs-check
cmp -s "$T/nc.img" "$T/nc2.img" && pass "options: --repair and --clear-needs-check write the same" ||
	fail "options: --repair and --clear-needs-check write the same"

# ---- verbs of device-mapper: the same refusal whatever the order
same_run "options: enable, --mode before and after VOLUME" 2 enable /dev/null --pool p0 --mode fast :: \
	enable --mode fast --pool p0 /dev/null
same_run "options: enable, -c and --id anywhere" 2 enable -c "$T/x.conf" /dev/null --id 64 --pool p0 :: \
	enable /dev/null --pool p0 --id 64 -c "$T/x.conf"
same_run "options: enable --pool=NAME form" 2 enable /dev/null --pool=p0 --mode=fast :: \
	enable /dev/null --pool p0 --mode fast
same_run "options: pool create, --block-size before the names" 2 pool create --block-size 3K p0 /dev/null :: \
	pool create p0 /dev/null --block-size 3K
same_run "options: pool create, --force before the subcommand" 2 pool --force create p0 /dev/null frob=1 :: \
	pool create p0 /dev/null frob=1 --force
same_run "options: status --watch before and after the target" 2 status --watch 0 p0 :: status p0 --watch 0
same_run "options: set, --no-persist before the pairs" 2 set --no-persist p0 mode :: set p0 mode --no-persist
same_run "options: resolve, the choice first" 2 resolve --replay p0 :: resolve p0 --replay
printf 'pool p0 /dev/disk/by-id/x\n' >"$T/ok.conf"
same_run "options: up --dry-run -c FILE in either order" 0 up -c "$T/ok.conf" --dry-run :: up --dry-run -c "$T/ok.conf"
same_run "options: up --dry-run after --config=FILE" 0 up --config="$T/ok.conf" --dry-run :: up --dry-run -c "$T/ok.conf"
grep -qx 'pool p0 /dev/disk/by-id/x block_sectors=64' "$T/o1" && pass "options: up --dry-run read the file" ||
	fail "options: up --dry-run read the file" "$(cat "$T/o1")"
if ! grep -qs device-mapper /proc/misc && ! grep -qs device-mapper /proc/devices; then
	same_run "options: status --json before and after the target (no dm: exit 1)" 1 status p0 --json :: status --json p0
	same_run "options: pool list --json / pool --json list (no dm: exit 1)" 1 pool list --json :: pool --json list
	same_run "options: disable --no-flush before and after (no dm: exit 1)" 1 disable --no-flush /dev/x --no-persist :: \
		disable /dev/x --no-persist --no-flush
	same_run "options: flush -- NAME (no dm: exit 1)" 1 flush -- p0 :: flush p0
fi

# ---- usage errors: exit 2, the message names the option, the hint follows
# usage_err NAME WANT-IN-MESSAGE CMD...
usage_err() {
	name=$1 msg=$2
	shift 2
	expect_rc 2 "$name: exit 2" "$CTL" "$@"
	if grep -q "^fcachectl: .*$msg" "$T/err" && grep -q "^Try 'fcachectl .* --help'" "$T/err" &&
		[ "$(grep -c . "$T/err")" -eq 2 ] && [ ! -s "$T/out" ]; then
		pass "$name: says so"
	else
		fail "$name: says so" "$(head -c 300 "$T/err")"
	fi
}
usage_err "usage: check unknown option after IMG" "check: unknown option '--frob'" check "$T/g.img" --frob
usage_err "usage: check unknown short option" "check: unknown option '-x'" check -x "$T/g.img"
usage_err "usage: check abbreviated option" "unknown option '--js'.*--json" check "$T/g.img" --js
usage_err "usage: check three devices" "expected FLASHDEV \[FLASHDEV2\]" check "$T/g.img" "$T/g.img" "$T/g.img"
usage_err "usage: dump two devices" "expected one FLASHDEV" dump "$T/g.img" "$T/g.img"
usage_err "usage: check --repair two devices" "repairs one device at a time" check --repair "$T/g.img" "$T/g.img"
usage_err "usage: dump --repair" "dump: --repair is an option of check" dump "$T/g.img" --repair
usage_err "usage: dump --clear-needs-check" "dump: --clear-needs-check is an option of check" dump --clear-needs-check "$T/g.img"
usage_err "usage: status --watch without a value" "status: option '--watch' needs a value" status --watch
usage_err "usage: status bad --watch value" "status: bad --watch 'x'" status p0 --watch x
usage_err "usage: enable --pool without a value" "enable: option '--pool' needs a value" enable /dev/null --pool
usage_err "usage: enable -c without a file" "enable: option '-c' needs a value" enable /dev/null --pool p0 -c
usage_err "usage: enable two volumes" "one VOLUME at a time" enable /dev/null --pool p0 /dev/zero
usage_err "usage: resolve abbreviated --discard refused" "unknown option '--d'.*--discard" resolve p0 1 --d
usage_err "usage: resolve both choices" "--replay or --discard, not both" resolve --discard p0 1 --replay
usage_err "usage: pool list --force" "pool list: --force is an option of pool create" pool list --force
usage_err "usage: pool remove --json" "pool remove: --json is an option of pool list" pool --json remove p0
usage_err "usage: pool unknown option" "pool: unknown option '--frob'" pool --frob list
usage_err "usage: pool create unknown option" "pool create: unknown option '--frob'" pool create p0 /dev/null --frob
usage_err "usage: disable unknown option" "disable: unknown option '--flush'" disable /dev/x --flush
usage_err "usage: flush unknown option" "flush: unknown option '--all'" flush --all
usage_err "usage: flush two targets" "expected one POOL or VOLUME" flush p0 p1
usage_err "usage: set unknown option" "set: unknown option '--frob'" set p0 mode=writeback --frob
usage_err "usage: up unknown option" "up: unknown option '--frob'" up --frob
usage_err "usage: up extra argument after -c" "up: unexpected argument 'extra'" up -c "$T/ok.conf" extra
usage_err "usage: down --dry-run" "down: unknown option '--dry-run'" down --dry-run
usage_err "usage: udev-probe two devices" "udev-probe: unexpected argument" udev-probe /dev/null /dev/zero
