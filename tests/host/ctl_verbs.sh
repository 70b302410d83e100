#!/bin/sh
# The verbs of issue 13 part 1 on the host (no device-mapper): show, get,
# reset-counters, forget and pool create --force/--yes.  --help of each,
# usage errors (exit 2, one message and the hint, nothing on stdout), the
# same result with options before and after the operands, the fcache.show
# JSON (synthetic documents of tests/unit/test_show --emit and the error
# document) against tests/host/json_schema.py, the completion, and pool
# create --force on a loop device over a pool image: refused without a
# terminal and without --yes (exit 2, the command to run named, the image
# byte for byte the same), and with --yes nothing written either when
# device-mapper is missing.  The reformat itself is checked in the guest
# (tests/guest/ctl_verbs.sh).
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage
JS="python3 $top/tests/host/json_schema.py"
nodm=0
if ! grep -qs device-mapper /proc/misc && ! grep -qs device-mapper /proc/devices; then
	nodm=1
fi

# ---- --help
expect_rc 0 "verbs: --help exits 0" "$CTL" --help
cp "$T/out" "$T/help"
for v in show get reset-counters forget; do
	if grep -q "^  $v " "$T/help"; then pass "verbs: --help lists $v"; else fail "verbs: --help lists $v"; fi
	expect_rc 0 "verbs: $v --help exits 0" "$CTL" $v --help
	if grep -q "^usage: fcachectl $v " "$T/out"; then pass "verbs: $v --help prints its usage"
	else fail "verbs: $v --help prints its usage" "$(head -c 200 "$T/out")"; fi
	expect_rc 0 "verbs: help $v" "$CTL" help $v
	expect_rc 0 "verbs: $v ARG --help (anywhere)" "$CTL" $v p0 --help
done
"$CTL" pool --help >"$T/out" 2>&1
grep -q -- '--yes' "$T/out" && grep -q 'fcache pool on FLASHDEV' "$T/out" && grep -q 'Never: a device in use' "$T/out" &&
	pass "verbs: pool --help says what --force overrides and what not" ||
	fail "verbs: pool --help says what --force overrides and what not" "$(cat "$T/out")"
"$CTL" forget --help >"$T/out" 2>&1
grep -q 'detached at run time' "$T/out" && grep -q 'never discarded' "$T/out" &&
	pass "verbs: forget --help says when dirty data is discarded" || fail "verbs: forget --help says when dirty data is discarded"
"$CTL" reset-counters --help >"$T/out" 2>&1
grep -q 'clear_stats' "$T/out" && grep -q 'are not reset' "$T/out" &&
	pass "verbs: reset-counters --help says what is reset" || fail "verbs: reset-counters --help says what is reset"

# ---- usage errors: exit 2, one message naming the problem, the hint
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
usage_err "usage: show without target" "show: expected POOL or VOLUME" show
usage_err "usage: show two targets" "show: one POOL or VOLUME at a time" show p0 p1
usage_err "usage: show unknown option" "show: unknown option '--frob'" show p0 --frob
usage_err "usage: show abbreviated --json" "unknown option '--js'.*--json" show p0 --js
usage_err "usage: get without target" "get: expected POOL|VOLUME \[NAME\]" get
usage_err "usage: get unknown setting" "get: unknown setting 'frob'" get p0 frob
usage_err "usage: get NAME with --json" "get: --json prints every setting" get p0 mode --json
usage_err "usage: get three operands" "get: unexpected argument 'x'" get p0 mode x
usage_err "usage: reset-counters without target" "reset-counters: expected POOL or VOLUME" reset-counters
usage_err "usage: reset-counters two targets" "reset-counters: one POOL or VOLUME at a time" reset-counters p0 v0
usage_err "usage: reset-counters unknown option" "reset-counters: unknown option '--all'" reset-counters --all
usage_err "usage: forget without id" "forget: expected POOL ID|LABEL" forget p0
usage_err "usage: forget three operands" "forget: unexpected argument '2'" forget p0 1 2
usage_err "usage: forget --yes without --discard-dirty" "forget: --yes confirms --discard-dirty" forget p0 1 --yes
usage_err "usage: forget abbreviated --discard-dirty" "unknown option '--discard'.*--discard-dirty" forget p0 1 --discard
usage_err "usage: forget -c without a file" "forget: option '-c' needs a value" forget p0 1 -c
usage_err "usage: pool create --yes without --force" "pool create: --yes confirms --force" pool create p0 /dev/null --yes
usage_err "usage: pool list --yes" "pool list: --yes is an option of pool create" pool list --yes
usage_err "usage: pool create --yes, bad tunable" "unknown pool tunable 'frob'" pool create p0 /dev/null frob=1 --force --yes

# ---- options before and after the operands: the same result
same_run "options: get --json before and after NAME (usage)" 2 get --json p0 mode :: get p0 mode --json
same_run "options: forget --yes before and after (usage)" 2 forget --yes p0 1 :: forget p0 1 --yes
same_run "options: pool create --yes before the subcommand (usage)" 2 pool --yes create p0 /dev/null :: \
	pool create p0 /dev/null --yes
if [ $nodm -eq 1 ]; then
	same_run "options: show --json before and after (no dm: exit 1)" 1 show --json p0 :: show p0 --json
	same_run "options: get --json before and after (no dm: exit 1)" 1 get --json p0 :: get p0 --json
	same_run "options: get p0 mode (no dm: exit 1), -- before the operands" 1 get -- p0 mode :: get p0 mode
	same_run "options: reset-counters -- p0 (no dm: exit 1)" 1 reset-counters -- p0 :: reset-counters p0
	same_run "options: forget, --discard-dirty --yes before and after (no dm: exit 1)" 1 \
		forget --discard-dirty --yes p0 3 --no-persist :: forget p0 3 --no-persist --yes --discard-dirty
	same_run "options: forget -c FILE anywhere (no dm: exit 1)" 1 forget -c "$T/none.conf" p0 label :: \
		forget p0 label -c "$T/none.conf"
	expect_rc 1 "verbs: show without device-mapper exits 1" "$CTL" show p0
	err_one_line "verbs: show without device-mapper: one line"
	[ ! -s "$T/out" ] && pass "verbs: show (text) error: nothing on stdout" || fail "verbs: show (text) error: nothing on stdout"
	expect_rc 1 "verbs: forget without device-mapper exits 1" "$CTL" forget p0 1 --no-persist
	err_one_line "verbs: forget without device-mapper: one line"
fi

# ---- JSON: fcache.show
schema_ok() {
	if $JS --schema "$2" "$3" >"$T/js.out" 2>&1; then pass "$1"
	else fail "$1" "$(head -n 3 "$T/js.out" | tr '\n' ' ')"; fi
}
if [ $nodm -eq 1 ]; then
	expect_rc 1 "json: show --json without device-mapper exits 1" "$CTL" show p0 --json
	err_one_line "json: show --json without device-mapper: one line on stderr"
	schema_ok "json: show --json without device-mapper: error document" fcache.show "$T/out"
	expect_rc 1 "json: get --json without device-mapper exits 1" "$CTL" get --json p0
	schema_ok "json: get --json without device-mapper: error document" fcache.show "$T/out"
fi
if make -s -C "$top/tests/unit" bin/test_show >"$T/mk.log" 2>&1; then
	"$top/tests/unit/bin/test_show" --emit >"$T/show.json"
	[ "$(wc -l <"$T/show.json")" -eq 3 ] && pass "json: test_show --emit prints a pool and two volumes" ||
		fail "json: test_show --emit prints a pool and two volumes" "$(head -c 300 "$T/show.json")"
	schema_ok "json: show documents (pool, volume with and without options) are fcache.show" fcache.show "$T/show.json"
	# mutations the checker must refuse
	n=0
	for m in 'd["settings"]["mode"]="writeback"' 'del d["settings"]["writeback_low"]' 'd["kind"]="pools"' \
		'd["block_sectors"]="64"' 'd["defaults"].append("mode")' 'd["origin"]="/dev/x"' 'del d["flash"]' \
		'd["settings"]["commit_interval"]=1.5' 'd["extra"]=1'; do
		head -n 1 "$T/show.json" | python3 -c "import json,sys; d=json.load(sys.stdin); $m; print(json.dumps(d))" >"$T/mut.json"
		if $JS --schema fcache.show "$T/mut.json" >/dev/null 2>&1; then
			fail "json: mutated show document refused: $m"
		else
			n=$((n + 1))
		fi
	done
	[ $n -eq 9 ] && pass "json: 9 mutated show documents refused"
	sed -n 2p "$T/show.json" | python3 -c 'import json,sys; d=json.load(sys.stdin); d["settings"]["writeback_high"]=80; print(json.dumps(d))' >"$T/mut.json"
	if $JS --schema fcache.show "$T/mut.json" >/dev/null 2>&1; then fail "json: a volume with a pool setting refused"
	else pass "json: a volume with a pool setting refused"; fi
else
	fail "json: build tests/unit/bin/test_show" "$(tail -n 5 "$T/mk.log" | tr '\n' ' ')"
fi

# ---- completion: the new verbs and options, names from __complete, at once
comp_fake
t0=$(date +%s)
cmp_out "completion: verbs show and get" "show" fcachectl sh
cmp_out "completion: reset-counters" "reset-counters" fcachectl rese
cmp_out "completion: forget" "forget" fcachectl forg
cmp_out "completion: show targets" "p0" fcachectl show p
cmp_out "completion: get targets" "--json --help p0 vol0" fcachectl get ""
cmp_out "completion: get names after the target" "writeback_high writeback_low writeback_jobs" fcachectl get p0 writeback_
cmp_out "completion: reset-counters targets" "vol0" fcachectl reset-counters v
cmp_out "completion: forget pools and options" "--discard-dirty" fcachectl forget p0 1 --disc
cmp_out "completion: forget pools" "p0" fcachectl forget p
cmp_out "completion: pool create --yes" "--yes" fcachectl pool create p0 x --force --y
t1=$(date +%s)
[ $((t1 - t0)) -lt 4 ] && pass "completion: the new verbs complete without waiting" ||
	fail "completion: the new verbs complete without waiting" "$((t1 - t0)) s"

# ---- pool create --force on a device holding a pool, no terminal
"$MK" "$T/pool.img" >/dev/null || fail "verbs: mkimage"
loop=$(losetup -f --show "$T/pool.img" 2>/dev/null)
if [ -n "$loop" ]; then
	trap 'losetup -d "$loop" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
	sum0=$(md5sum <"$T/pool.img")
	expect_rc 2 "force: pool create --force on a pool without a terminal and --yes: exit 2" \
		"$CTL" pool create p0 "$loop" --force
	grep -q "^fcachectl: pool create: $loop holds an fcache pool with 32 KiB blocks, 3 registered volumes with dirty data: id 1 'vg0-db' (77 blocks), id 2 'sdb'" "$T/err" &&
		pass "force: the refusal describes the pool and its dirty data" ||
		fail "force: the refusal describes the pool and its dirty data" "$(head -c 400 "$T/err")"
	grep -qx "fcachectl: pool create: no terminal to confirm on; to reformat it, run: fcachectl pool create p0 $loop --force --yes" "$T/err" &&
		pass "force: the refusal names the command to run" || fail "force: the refusal names the command to run" "$(cat "$T/err")"
	[ ! -s "$T/out" ] && pass "force: nothing on stdout" || fail "force: nothing on stdout"
	[ "$(md5sum <"$T/pool.img")" = "$sum0" ] && pass "force: refused: the image is byte for byte the same" ||
		fail "force: refused: the image is byte for byte the same"
	expect_rc 2 "force: options in another order, same refusal" "$CTL" pool --force create --block-size 64K p0 "$loop" writeback_high=70
	grep -qx "fcachectl: pool create: no terminal to confirm on; to reformat it, run: fcachectl pool --force create --block-size 64K p0 $loop writeback_high=70 --yes" "$T/err" &&
		pass "force: the command keeps the user's words" || fail "force: the command keeps the user's words" "$(cat "$T/err")"
	expect_rc 1 "force: pool create without --force on a pool: no question (loads it; no dm: exit 1)" \
		"$CTL" pool create p0 "$loop"
	if [ $nodm -eq 1 ]; then
		expect_rc 1 "force: with --yes, no device-mapper: exit 1" "$CTL" pool create p0 "$loop" --force --yes
		err_one_line "force: with --yes, no device-mapper: one line"
		[ "$(md5sum <"$T/pool.img")" = "$sum0" ] && pass "force: with --yes and no device-mapper nothing is written" ||
			fail "force: with --yes and no device-mapper nothing is written"
	fi
	"$CTL" check "$T/pool.img" >/dev/null 2>&1 && pass "force: the pool image still checks" ||
		fail "force: the pool image still checks"
	losetup -d "$loop"
	trap 'rm -rf "$T"' EXIT INT TERM
else
	echo "# ctl_verbs: no loop device (not root?): pool create --force refusal not checked here"
fi
# ---- pool create on a damaged pool (what check calls damaged: torn or
# garbage superblocks with fcache magic, superblocks wiped over a pool's
# metadata pages): refused without --force, exit 1, one line saying what
# check found and that --force reformats it, nothing written; a device
# that is not a pool (zeros) is not refused for it; with --force it goes on
"$MK" "$T/sbboth.img" --damage sb-both >/dev/null
"$MK" "$T/wiped.img" >/dev/null
dd if=/dev/zero of="$T/wiped.img" bs=4096 count=2 conv=notrunc 2>/dev/null
head -c 8388608 /dev/zero >"$T/zeros.img"
for img in sbboth wiped zeros; do
	loop=$(losetup -f --show "$T/$img.img" 2>/dev/null) || { echo "# ctl_verbs: no loop device: damaged-pool refusal not checked"; break; }
	trap 'losetup -d "$loop" 2>/dev/null; rm -rf "$T"' EXIT INT TERM
	sum0=$(md5sum <"$T/$img.img")
	expect_rc 1 "damaged ($img): pool create exits 1" "$CTL" pool create p0 "$loop"
	if [ $img = zeros ]; then
		grep -q 'damaged' "$T/err" && fail "damaged ($img): not a pool is not called damaged" "$(cat "$T/err")" ||
			pass "damaged ($img): not a pool is not called damaged"
	else
		err_one_line "damaged ($img): one line"
		grep -q "^fcachectl: pool create: $loop holds a damaged fcache pool (.*superblock.*); nothing changed: 'fcachectl check $loop' reports what is wrong, and --force reformats it" "$T/err" &&
			pass "damaged ($img): says what check found and what --force does" ||
			fail "damaged ($img): says what check found and what --force does" "$(cat "$T/err")"
		"$CTL" pool create p0 "$loop" writeback_high=70 >"$T/out" 2>"$T/err2"
		grep -q 'holds a damaged fcache pool' "$T/err2" && pass "damaged ($img): refused with tunables too" ||
			fail "damaged ($img): refused with tunables too" "$(cat "$T/err2")"
		if [ $nodm -eq 1 ]; then
			expect_rc 1 "damaged ($img): --force goes past the refusal (no device-mapper: exit 1)" \
				"$CTL" pool create p0 "$loop" --force
			grep -q 'damaged' "$T/err" && fail "damaged ($img): --force is not refused for it" "$(cat "$T/err")" ||
				pass "damaged ($img): --force is not refused for it"
		fi
	fi
	[ "$(md5sum <"$T/$img.img")" = "$sum0" ] && pass "damaged ($img): nothing written" || fail "damaged ($img): nothing written"
	losetup -d "$loop"
	trap 'rm -rf "$T"' EXIT INT TERM
done
# a plain image file: not a block device, whatever --force (exit 1, untouched)
sum0=$(md5sum <"$T/pool.img")
expect_rc 1 "force: an image file is no block device, even with --force --yes" "$CTL" pool create p0 "$T/pool.img" --force --yes
[ "$(md5sum <"$T/pool.img")" = "$sum0" ] && pass "force: the image file is untouched" || fail "force: the image file is untouched"
