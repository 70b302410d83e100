#!/bin/sh
# fcachectl pool replace on the host (no device-mapper here): its usage and
# exit codes, NEWDEV that is no block device, refused before device-mapper
# is asked; without device-mapper a clean failure; what it decides on
# synthetic pools and the table it loads is tests/unit/test_replace.c.
# How it records the new device in the config (fc_conf_record_replace,
# through tests/host/ctl_confedit.c on loop device nodes); --help, the man
# page, the completion.  The guest test is tests/guest/ctl_replace.sh.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build

out_has() {
	grep -q -- "$2" "$T/out" && pass "$1" || fail "$1" "not in stdout: $2: $(head -c 300 "$T/out")"
}
err_has() {
	grep -q -- "$2" "$T/err" && pass "$1" || fail "$1" "not in stderr: $2: $(head -c 300 "$T/err")"
}

# ---- usage: exit 2, one error and the hint
expect_rc 2 "replace: no arguments" "$CTL" pool replace
err_has "replace: no arguments: says what it expects" "pool replace: expected POOL NEWDEV"
expect_rc 2 "replace: no NEWDEV" "$CTL" pool replace p0
err_has "replace: no NEWDEV: says what it expects" "pool replace: expected POOL NEWDEV"
expect_rc 2 "replace: a third operand" "$CTL" pool replace p0 /dev/null /dev/zero
expect_rc 2 "replace: --wait is an option of replace only" "$CTL" pool list --wait
err_has "replace: --wait on list: says so" "pool list: --wait is an option of pool replace"
expect_rc 2 "replace: --no-persist on pool list" "$CTL" pool list --no-persist
err_has "replace: --no-persist on list: says so" "pool list: --no-persist is an option of pool create, remove and replace"
expect_rc 2 "replace: --degraded is an option of create" "$CTL" pool replace p0 /dev/null --degraded
expect_rc 2 "replace: --yes is an option of create" "$CTL" pool replace p0 /dev/null --force --yes
expect_rc 2 "replace: --force on pool list" "$CTL" pool list --force
expect_rc 2 "replace: an unknown option" "$CTL" pool replace p0 /dev/null --bogus
expect_rc 2 "replace: an unknown subcommand names replace" "$CTL" pool frob
err_has "replace: the subcommands listed" "(create, remove, list, replace)"
# options anywhere: the same answer
same_run "replace: options before or after the operands" 1 pool replace p0 /dev/null --wait -c "$T/no.conf" :: pool --wait replace -c "$T/no.conf" p0 /dev/null

# ---- refused before device-mapper is asked: exit 1, one line
expect_rc 1 "replace: NEWDEV not a block device" "$CTL" pool replace p0 /dev/null --no-persist
err_has "replace: not a block device: names it" "pool replace: /dev/null is not a block device"
err_one_line "replace: not a block device: one line"
expect_rc 1 "replace: NEWDEV missing" "$CTL" pool replace p0 "$T/none" --wait --no-persist
err_has "replace: NEWDEV missing: names it" "$T/none is not a block device"
printf 'bogus\n' >"$T/broken.conf"
node=
for d in /dev/loop0 /dev/vda /dev/zram0 /dev/sda /dev/nvme0n1; do
	[ -b "$d" ] && { node=$d; break; }
done
if [ -n "$node" ]; then
	expect_rc 1 "replace: a broken config: refused first" "$CTL" pool replace p0 "$node" -c "$T/broken.conf"
	err_has "replace: a broken config: names --no-persist" "no-persist"
	if ! grep -qs device-mapper /proc/misc && ! grep -qs device-mapper /proc/devices; then
		expect_rc 1 "replace: without device-mapper: exit 1" "$CTL" pool replace p0 "$node" --no-persist
		err_one_line "replace: without device-mapper: one line"
		err_has "replace: without device-mapper: says so" "pool replace: cannot talk to device-mapper"
	fi
fi

# ---- the config: the replaced device's place names the new one
if [ -b /dev/loop0 ] && [ -b /dev/loop1 ] && [ -b /dev/loop2 ] && [ ! -e /dev/disk/by-id ]; then
	if ctl_confedit_build; then
		E=$BIN/ctl_confedit C=$T/r.conf
		# rec NAME WANT-LINE CONFIG-LINE KEEP NEW: the pool line after replace
		rec() {
			printf '# a comment\n%s\nvolume pm /dev/v1 id=1 mode=writeback\n' "$3" >"$C"
			if "$E" "$C" replace pm "$4" "$5" >"$T/out" 2>"$T/err" && grep -qx -- "$2" "$C" &&
			   grep -qx '# a comment' "$C" && grep -qx 'volume pm /dev/v1 id=1 mode=writeback' "$C"; then
				pass "record: $1"
			else
				fail "record: $1" "$(cat "$T/err") / $(tr '\n' '|' <"$C")"
			fi
		}
		rec "the mirror= device failed: mirror= names the new one" \
			"pool pm /dev/loop0 mirror=/dev/loop2 writeback_high=70 block_size=32K" \
			"pool pm /dev/loop0 mirror=/dev/loop1 writeback_high=70 block_size=32K" /dev/loop0 /dev/loop2
		rec "the first device failed: the new one takes its place" \
			"pool pm /dev/loop2 mirror=/dev/loop1 block_size=32K  # legs" \
			"pool pm /dev/loop0 mirror=/dev/loop1 block_size=32K # legs" /dev/loop1 /dev/loop2
		rec "a line without mirror= (recorded degraded): mirror= added" \
			"pool pm /dev/loop0 block_size=32K mirror=/dev/loop2" \
			"pool pm /dev/loop0 block_size=32K" /dev/loop0 /dev/loop2
		expect_rc 0 "record: the result parses" "$CTL" up --dry-run -c "$C"
		out_has "record: up --dry-run names the new device" "^pool pm /dev/loop0 mirror=/dev/loop2 "
		printf 'pool pm /dev/loop3 mirror=/dev/loop4\n' >"$C"
		cp "$C" "$T/before"
		expect_rc 0 "record: no device of the line in service: warned only" "$E" "$C" replace pm /dev/loop0 /dev/loop2
		err_has "record: no device in service: says what to write" "make it name /dev/loop0 and /dev/loop2"
		cmp -s "$C" "$T/before" && pass "record: no device in service: the line is left" || fail "record: no device in service: the line is left" "$(cat "$C")"
		printf 'pool other /dev/loop0\n' >"$C"
		expect_rc 0 "record: a pool not in the file: warned only" "$E" "$C" replace pm /dev/loop0 /dev/loop2
		err_has "record: a pool not in the file: says so" "pool pm is not in"
		[ ! -e "$C.fcachectl-new" ] && pass "record: no temporary file left" || fail "record: no temporary file left"
	else
		fail "record: build ctl_confedit" "$(head -c 600 "$T/cc.log")"
	fi
fi

# ---- help, man page, completion
expect_rc 0 "replace: pool --help" "$CTL" pool --help
out_has "replace: --help has the synopsis" "pool replace POOL NEWDEV \[--wait\] \[--force\]"
out_has "replace: --help says when it applies" "degraded"
grep -q 'pool replace' "$top/man/fcachectl.8" && pass "man: documents pool replace" || fail "man: documents pool replace"
grep -q 'resync' "$top/man/fcachectl.8" && pass "man: documents the resync" || fail "man: documents the resync"
comp_fake
cmp_out "completion: pool replace" "replace" fcachectl pool rep
cmp_out "completion: pool replace POOL" "p0" fcachectl pool replace p
cmp_out "completion: pool replace --wait" "--wait" fcachectl pool replace p0 /dev/x --wa
