#!/bin/sh
# fcachectl usage, --help on every verb, exit codes, and refusals that need
# no device-mapper (the host has none): every error is one line, exit 1 or 2.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build

expect_rc 2 "usage: no verb exits 2" "$CTL"
grep -q '^usage: fcachectl' "$T/err" && pass "usage: no verb prints usage" || fail "usage: no verb prints usage"
expect_rc 0 "usage: --help exits 0" "$CTL" --help
for v in pool enable disable status set flush check dump wipe up down udev-probe; do
	grep -q "^  $v " "$T/out" || fail "usage: --help lists $v"
done
pass "usage: --help lists every verb"
expect_rc 0 "usage: --version" "$CTL" --version
grep -q '^fcachectl ' "$T/out" && pass "usage: --version prints version" || fail "usage: --version prints version"
expect_rc 2 "usage: unknown verb exits 2" "$CTL" frobnicate
expect_rc 2 "usage: unknown global option exits 2" "$CTL" --frob status

for v in pool enable disable status set flush check dump wipe up down udev-probe; do
	expect_rc 0 "help: $v --help exits 0" "$CTL" $v --help
	if grep -q "^usage: fcachectl $v" "$T/out"; then pass "help: $v --help prints its usage"
	else fail "help: $v --help prints its usage" "$(head -c 200 "$T/out")"; fi
	expect_rc 0 "help: help $v" "$CTL" help $v
done
expect_rc 0 "help: pool create --help" "$CTL" pool create --help

# usage errors: exit 2, nothing done
expect_rc 2 "usage: check without device" "$CTL" check
expect_rc 2 "usage: check with three devices" "$CTL" check a b c
expect_rc 2 "usage: check bad option" "$CTL" check --frob x
expect_rc 2 "usage: dump without device" "$CTL" dump
expect_rc 2 "usage: pool without subverb" "$CTL" pool
expect_rc 2 "usage: pool bad subverb" "$CTL" pool frob
expect_rc 2 "usage: pool create missing device" "$CTL" pool create p0
expect_rc 2 "usage: pool create bad block size" "$CTL" pool create p0 /dev/null --block-size 3K
expect_rc 2 "usage: pool create block size too big" "$CTL" pool create p0 /dev/null --block-size 2M
expect_rc 2 "usage: pool create bad tunable" "$CTL" pool create p0 /dev/null frob=1
expect_rc 2 "usage: pool create bad name" "$CTL" pool create 'a/b' /dev/null
expect_rc 2 "usage: enable without --pool" "$CTL" enable /dev/null
expect_rc 2 "usage: enable bad mode" "$CTL" enable /dev/null --pool p0 --mode fast
expect_rc 2 "usage: enable bad id" "$CTL" enable /dev/null --pool p0 --id 0
expect_rc 2 "usage: enable id too big" "$CTL" enable /dev/null --pool p0 --id 64
expect_rc 2 "usage: disable without volume" "$CTL" disable
expect_rc 2 "usage: set without key" "$CTL" set p0
expect_rc 2 "usage: set malformed pair" "$CTL" set p0 mode
expect_rc 2 "usage: status bad watch" "$CTL" status --watch x
expect_rc 2 "usage: flush without target" "$CTL" flush
expect_rc 2 "usage: up extra argument" "$CTL" up extra

# failures: one line, exit 1
expect_rc 1 "fail: check missing file" "$CTL" check "$T/nonexistent"
err_one_line "fail: check missing file is one line"
expect_rc 1 "fail: check a directory" "$CTL" check "$T"
err_one_line "fail: check a directory is one line"
expect_rc 1 "fail: up missing config" "$CTL" up -c "$T/none.conf"
err_one_line "fail: up missing config is one line"
printf 'pool p0 /dev/x block_size=3K\n' >"$T/bad.conf"
expect_rc 1 "fail: up bad config" "$CTL" up -c "$T/bad.conf"
grep -q 'bad.conf:1' "$T/err" && pass "fail: config error names file and line" || fail "fail: config error names file and line" "$(cat "$T/err")"
printf 'volume p9 /dev/x id=1\n' >"$T/bad2.conf"
expect_rc 1 "fail: config volume of unknown pool" "$CTL" up -c "$T/bad2.conf"
grep -q 'bad2.conf:1' "$T/err" && pass "fail: unknown pool names the line" || fail "fail: unknown pool names the line" "$(cat "$T/err")"
printf '# comment\npool p0 /dev/disk/by-id/x block_size=64K writeback_high=70\n\nvolume p0 /dev/vg0/db id=3 mode=writethrough name=db  # trailing\n' >"$T/ok.conf"
expect_rc 0 "config: up --dry-run parses a good file" "$CTL" up --dry-run -c "$T/ok.conf"
if grep -qx 'pool p0 /dev/disk/by-id/x block_sectors=128 writeback_high 70' "$T/out" &&
	grep -qx 'volume p0 /dev/vg0/db id=3 mode=writethrough name=db' "$T/out"; then
	pass "config: --dry-run shows pools and volumes"
else
	fail "config: --dry-run shows pools and volumes" "$(cat "$T/out")"
fi
for bad in 'volume p0 /dev/x id=1' 'pool p0 /dev/x\npool p0 /dev/y' 'pool p0 /dev/x\nvolume p0 /dev/v' \
	'pool p0 /dev/x\nvolume p0 /dev/v id=1\nvolume p0 /dev/w id=1' 'pool p0 /dev/x\nvolume p0 /dev/v id=64' \
	'pool p0 /dev/x\nvolume p0 /dev/v id=1 mode=fast' 'pool p0 /dev/x frob=2' 'frob p0' 'pool p/0 /dev/x'; do
	printf "$bad\n" >"$T/b.conf"
	"$CTL" up --dry-run -c "$T/b.conf" >"$T/out" 2>"$T/err"
	r=$?
	if [ $r -eq 1 ] && [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q 'b.conf:[0-9]' "$T/err"; then
		pass "config: rejects '$(printf "$bad" | tr '\n' ';')' with file:line"
	else
		fail "config: rejects '$(printf "$bad" | tr '\n' ';')' with file:line" "rc $r: $(cat "$T/err")"
	fi
done
# without device-mapper (this host has none): one line, exit 1, for each live verb
if ! grep -qs device-mapper /proc/misc && ! grep -qs device-mapper /proc/devices; then
	for args in "status" "pool list" "set p0 mode=writeback" "flush p0" "disable /dev/x" "pool remove p0"; do
		# shellcheck disable=SC2086
		expect_rc 1 "no-dm: $args exits 1" "$CTL" $args
		err_one_line "no-dm: $args says so in one line"
	done
fi
