#!/bin/sh
# pool create records the pool as enable does (issue 35, item 9): it takes
# -c FILE and --no-persist like enable, pool replace and pool remove (a
# broken file stops it before anything changes, as enable), and its line
# (ctl_confedit pool: fc_conf_record_pool) is the one enable writes, in place
# of an older line of the pool, the volume lines kept; enable then adds no
# second pool line.  --help and completion say so.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build

# ---- the options: accepted by pool create (no dm here: it fails later, exit 1)
printf 'bogus line\n' >"$T/broken.conf"
for o in "-c FILE" "--config=FILE" "--no-persist"; do
	o=$(echo "$o" | sed "s|FILE|$T/x.conf|"); n=$(echo "$o" | sed "s|$T/x.conf|FILE|")
	# shellcheck disable=SC2086
	expect_rc 1 "record: pool create takes $n" "$CTL" pool create p0 /dev/null $o
	grep -q 'option' "$T/err" && fail "record: pool create $n is no usage error" "$(cat "$T/err")" ||
		pass "record: pool create $n is no usage error"
done
expect_rc 1 "record: pool create -c BROKEN refused first" "$CTL" pool create p0 /dev/null -c "$T/broken.conf"
grep -q 'broken' "$T/err" && grep -q -- '--no-persist' "$T/err" &&
	pass "record: pool create -c BROKEN names the file and --no-persist" ||
	fail "record: pool create -c BROKEN names the file and --no-persist" "$(cat "$T/err")"
expect_rc 2 "record: pool list takes no -c" "$CTL" pool list -c "$T/x.conf"
"$CTL" pool --help >"$T/help" 2>&1
grep -q 'create NAME FLASHDEV.*' "$T/help" && sed -n '/pool create/,/pool remove/p' "$T/help" | grep -q -- '-c FILE | --no-persist' &&
	pass "record: pool --help gives create -c FILE | --no-persist" ||
	fail "record: pool --help gives create -c FILE | --no-persist" "$(head -n 5 "$T/help")"
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl pool create p0 x --no-p); COMP_CWORD=5; _fcachectl; echo \${COMPREPLY[*]}")
[ "$out" = "--no-persist" ] && pass "record: completion: pool create --no-persist" ||
	fail "record: completion: pool create --no-persist" "$out"

# ---- the line pool create records (fc_conf_record_pool)
node=
for d in /dev/loop0 /dev/vda /dev/zram0 /dev/sda /dev/nvme0n1; do
	[ -b "$d" ] && { node=$d; break; }
done
if [ -z "$node" ]; then
	pass "record: no block device node on this host: the line is not checked"
elif ctl_confedit_build; then
	E=$BIN/ctl_confedit
	C=$T/sub/fcache.conf
	rec_ok() { name=$1; shift; if "$@" >"$T/out" 2>"$T/err"; then pass "record: $name"; else fail "record: $name" "$(cat "$T/err")"; fi; }
	rec_ok "pool create into a missing file" "$E" "$C" pool p0 "$node" "7:0 64 4 writeback_low 95 writeback_high 99"
	grep -qx "pool p0 $node writeback_low=95 writeback_high=99 block_size=32K" "$C" &&
		pass "record: pool create's line: devices, tunables, block size" ||
		fail "record: pool create's line: devices, tunables, block size" "$(cat "$C")"
	rec_ok "enable after pool create" "$E" "$C" enable p0 "$node" "7:0 64 4 writeback_low 95 writeback_high 99" /dev/v1 1 writeback - -1
	[ "$(grep -c '^pool ' "$C")" -eq 1 ] && grep -qx 'volume p0 /dev/v1 id=1 mode=writeback' "$C" &&
		pass "record: enable adds the volume, no second pool line" || fail "record: enable adds the volume, no second pool line" "$(cat "$C")"
	cp "$C" "$T/before"
	rec_ok "pool create again, same pool" "$E" "$C" pool p0 "$node" "7:0 64 4 writeback_low 95 writeback_high 99"
	cmp -s "$C" "$T/before" && pass "record: the same pool again leaves the file as it was" ||
		fail "record: the same pool again leaves the file as it was" "$(cat "$C")"
	rec_ok "pool create again, other tunables" "$E" "$C" pool p0 "$node" "7:0 64 2 writeback_jobs 8"
	[ "$(sed -n 3p "$C")" = "pool p0 $node writeback_jobs=8 block_size=32K" ] && [ "$(grep -c '^pool ' "$C")" -eq 1 ] &&
		grep -qx 'volume p0 /dev/v1 id=1 mode=writeback' "$C" &&
		pass "record: the pool's line replaced in place, its volume kept" ||
		fail "record: the pool's line replaced in place, its volume kept" "$(cat "$C")"
	expect_rc 0 "record: the file parses" "$CTL" up --dry-run -c "$C"
	# another pool's line naming the same device (pool create --force over
	# a pool whose line pool remove kept, or a pool loaded under a new name)
	cp "$C" "$T/two"
	rec_ok "pool create formatted over p0's device" "$E" "$C" pool p9 "$node" "7:0 64 0" formatted
	[ "$(grep -c '^pool ' "$C")" -eq 1 ] && grep -qx "pool p9 $node block_size=32K" "$C" &&
		! grep -q '^volume' "$C" &&
		pass "record: a pool formatted over another's device takes its line and its volumes' out" ||
		fail "record: a pool formatted over another's device takes its line and its volumes' out" "$(cat "$C" "$T/err")"
	expect_rc 0 "record: the file parses (formatted)" "$CTL" up --dry-run -c "$C"
	cp "$T/two" "$C"
	rec_ok "pool create loading p0 as p8" "$E" "$C" pool p8 "$node" "7:0 64 0" loaded
	[ "$(grep -c '^pool ' "$C")" -eq 1 ] && grep -qx "pool p8 $node block_size=32K" "$C" &&
		grep -qx 'volume p8 /dev/v1 id=1 mode=writeback' "$C" &&
		pass "record: a pool loaded under a new name takes the old line's place, its volumes follow" ||
		fail "record: a pool loaded under a new name takes the old line's place, its volumes follow" "$(cat "$C" "$T/err")"
	expect_rc 0 "record: the file parses (loaded)" "$CTL" up --dry-run -c "$C"
	printf 'bogus line\n' >>"$C"
	cp "$C" "$T/before"
	expect_rc 1 "record: pool create into a broken file fails" "$E" "$C" pool p1 "$node" "7:0 64"
	cmp -s "$C" "$T/before" && pass "record: a broken file is left alone" || fail "record: a broken file is left alone"
else
	fail "record: build ctl_confedit" "$(head -c 600 "$T/cc.log")"
fi
