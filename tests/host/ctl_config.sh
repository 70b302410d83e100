#!/bin/sh
# fcache.conf parsing (fcachectl up --dry-run, udev-probe) on the host:
# every error names file:line on one stderr line; duplicate keys, one
# device in two roles, over-long paths, lines and word counts are errors;
# sequential_cutoff and passthrough are accepted; a mirrored pool's
# mirror= device is a flash device and recorded; udev-probe fails loudly
# (exit 1, message) on a broken config and exits 0 without one.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build

# reject NAME LINE_NO CONTENT : up --dry-run exits 1 with one 'file:LINE:' line
reject() {
	name=$1 ln=$2
	shift 2
	printf '%s\n' "$@" >"$T/r.conf"
	"$CTL" up --dry-run -c "$T/r.conf" >"$T/out" 2>"$T/err"
	r=$?
	if [ $r -eq 1 ] && [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "r.conf:$ln: " "$T/err"; then
		pass "config: $name"
	else
		fail "config: $name" "rc $r: $(head -c 300 "$T/err")"
	fi
}

long=$(printf '%0300d' 0 | tr 0 a)
reject "duplicate volume id= key" 2 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 id=2"
reject "duplicate volume mode= key" 2 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 mode=writeback mode=writethrough"
reject "duplicate volume sequential_cutoff= key" 2 "pool p0 /dev/fl0" \
	"volume p0 /dev/v1 id=1 sequential_cutoff=1 sequential_cutoff=2"
reject "duplicate pool tunable" 1 "pool p0 /dev/fl0 writeback_high=70 writeback_high=80"
reject "duplicate pool block_size" 1 "pool p0 /dev/fl0 block_size=32K block_size=64K"
reject "flash of two pools" 2 "pool p0 /dev/fl0" "pool p1 /dev/fl0"
reject "pool flash also a volume" 3 "pool p0 /dev/fl0" "# x" "volume p0 /dev/fl0 id=1"
reject "volume device later a pool flash" 3 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1" "pool p1 /dev/v1"
reject "origin cached twice" 3 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1" "volume p0 /dev/v1 id=2"
ln -s "$T/target" "$T/alias1"
ln -s "$T/target" "$T/alias2"
: >"$T/target"
reject "origin cached twice under two paths" 3 "pool p0 /dev/fl0" "volume p0 $T/alias1 id=1" "volume p0 $T/alias2 id=2"
reject "volume name= is a pool's name" 3 "pool p0 /dev/fl0" "pool p1 /dev/fl1" "volume p0 /dev/v1 id=1 name=p1"
reject "two volumes with one name=" 3 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 name=x" "volume p0 /dev/v2 id=2 name=x"
reject "over-long pool path" 2 "# ok" "pool p0 /dev/$long"
reject "over-long volume path" 2 "pool p0 /dev/fl0" "volume p0 /dev/$long id=1"
reject "over-long line" 2 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 $(printf '%01100d' 0 | tr 0 ' ')#"
reject "more than 64 words" 1 "pool p0 /dev/fl0 $(printf 'x=1 %.0s' $(seq 70))"
reject "bad sequential_cutoff" 2 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 sequential_cutoff=4194305"
reject "ordered_log not an absolute path" 2 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 ordered_log=vg0/log"
reject "bad mode" 2 "pool p0 /dev/fl0" "volume p0 /dev/v1 id=1 mode=fast"

printf 'pool p0 /dev/fl0 writeback_low=95 writeback_high=99\nvolume p0 /dev/v1 id=1 mode=passthrough sequential_cutoff=256 name=db ordered_log=/dev/vg0/log1\n' >"$T/ok.conf"
expect_rc 0 "config: sequential_cutoff, ordered_log and passthrough accepted" "$CTL" up --dry-run -c "$T/ok.conf"
grep -q 'volume p0 /dev/v1 id=1 mode=passthrough name=db sequential_cutoff=256 ordered_log=/dev/vg0/log1' "$T/out" &&
	pass "config: --dry-run shows sequential_cutoff and ordered_log" ||
	fail "config: --dry-run shows sequential_cutoff and ordered_log" "$(cat "$T/out")"
# a line of exactly the limit is fine
pad=$(printf '%0*d' $((1024 - 22)) 0 | tr 0 ' ')
printf 'pool p0 /dev/fl0%s#%s\n' "$pad" "" | cut -c1-1024 >"$T/lim.conf"
expect_rc 0 "config: a line of 1024 characters is accepted" "$CTL" up --dry-run -c "$T/lim.conf"

# udev-probe: a device that is a block device on this host
node=
for d in /dev/loop0 /dev/vda /dev/zram0 /dev/sda /dev/nvme0n1; do
	[ -b "$d" ] && { node=$d; break; }
done
if [ -n "$node" ]; then
	expect_rc 0 "udev-probe: no config, exit 0" "$CTL" udev-probe "$node" -c "$T/none.conf"
	expect_rc 0 "udev-probe: good config, unrelated device" "$CTL" udev-probe "$node" -c "$T/ok.conf"
	[ ! -s "$T/out" ] && pass "udev-probe: unrelated device prints nothing" || fail "udev-probe: unrelated device prints nothing" "$(cat "$T/out")"
	printf 'pool p0 %s\n' "$node" >"$T/fl.conf"
	expect_rc 0 "udev-probe: configured flash" "$CTL" udev-probe "$node" -c "$T/fl.conf"
	grep -qx FCACHE_FLASH=1 "$T/out" && pass "udev-probe: flash marked" || fail "udev-probe: flash marked" "$(cat "$T/out")"
	printf 'pool p0 /dev/fl0 mirror=%s\n' "$node" >"$T/fl2.conf"
	expect_rc 0 "udev-probe: configured mirror device" "$CTL" udev-probe "$node" -c "$T/fl2.conf"
	grep -qx FCACHE_FLASH=1 "$T/out" && grep -qx FCACHE_POOL=p0 "$T/out" && pass "udev-probe: mirror device marked as flash" ||
		fail "udev-probe: mirror device marked as flash" "$(cat "$T/out")"
	printf 'pool p0 /dev/fl0\nvolume p0 /dev/v1 id=1 id=1\n' >"$T/broken.conf"
	expect_rc 1 "udev-probe: broken config fails loudly (exit 1)" "$CTL" udev-probe "$node" -c "$T/broken.conf"
	grep -q 'broken.conf:2' "$T/err" && grep -q 'NOT protected' "$T/err" &&
		pass "udev-probe: broken config names the line and the risk" ||
		fail "udev-probe: broken config names the line and the risk" "$(cat "$T/err")"
	[ ! -s "$T/out" ] && pass "udev-probe: broken config marks nothing" || fail "udev-probe: broken config marks nothing"
else
	fail "udev-probe: no block device on this host to probe"
fi

# resolve: usage
expect_rc 2 "resolve: no arguments" "$CTL" resolve
expect_rc 2 "resolve: no choice" "$CTL" resolve p0 1
expect_rc 2 "resolve: both choices" "$CTL" resolve p0 1 --replay --discard
expect_rc 0 "resolve: --help" "$CTL" resolve --help
grep -q -- '--discard' "$T/out" && pass "resolve: --help describes the choices" || fail "resolve: --help describes the choices"
# enable --help says what to do for LVM
expect_rc 0 "enable: --help" "$CTL" enable --help
grep -q global_filter "$T/out" && grep -q -- '--no-persist' "$T/out" &&
	pass "enable: --help mentions the LVM filter and --no-persist" ||
	fail "enable: --help mentions the LVM filter and --no-persist" "$(cat "$T/out")"
# a broken config stops enable/disable/set before they change anything
expect_rc 1 "enable: broken config refused first" "$CTL" enable /dev/null --pool p0 -c "$T/broken.conf"
grep -q 'no-persist' "$T/err" && pass "enable: broken config message names --no-persist" || fail "enable: broken config message names --no-persist" "$(cat "$T/err")"

# ---- recording enable / disable / set (fc_conf_record_*) ----
if ctl_confedit_build; then
	E=$BIN/ctl_confedit
	C=$T/sub/fcache.conf
	flash=$node
	rec_ok() { name=$1; shift; if "$@" >"$T/out" 2>"$T/err"; then pass "record: $name"; else fail "record: $name" "$(cat "$T/err")"; fi; }
	has() { if grep -qx -- "$2" "$C"; then pass "record: $1"; else fail "record: $1" "no line '$2' in: $(cat "$C")"; fi; }
	rec_ok "enable into a missing file (and directory)" "$E" "$C" enable p0 "$flash" "7:0 64 4 writeback_low 95 writeback_high 99" /dev/v1 1 writeback - -1
	has "the pool line from the live table" "pool p0 $flash writeback_low=95 writeback_high=99 block_size=32K"
	has "the volume line" "volume p0 /dev/v1 id=1 mode=writeback"
	rec_ok "enable a second volume" "$E" "$C" enable p0 "$flash" "7:0 64" /dev/v2 2 writethrough db 512
	has "name and sequential_cutoff recorded" "volume p0 /dev/v2 id=2 mode=writethrough name=db sequential_cutoff=512"
	[ "$(grep -c '^pool ' "$C")" -eq 1 ] && pass "record: the pool line is written once" || fail "record: the pool line is written once" "$(cat "$C")"
	printf '# kept comment\n' >>"$C"
	rec_ok "set volume keys" "$E" "$C" set p0 2 mode=writeback sequential_cutoff=256
	has "set replaces keys in place" "volume p0 /dev/v2 id=2 mode=writeback name=db sequential_cutoff=256"
	rec_ok "enable with an ordered log" "$E" "$C" enable p0 "$flash" "7:0 64" /dev/v3 3 writeback - -1 /dev/vg0/log3
	has "ordered_log recorded" "volume p0 /dev/v3 id=3 mode=writeback ordered_log=/dev/vg0/log3"
	rec_ok "set keeps ordered_log" "$E" "$C" set p0 3 sequential_cutoff=64
	has "... in its line" "volume p0 /dev/v3 id=3 mode=writeback ordered_log=/dev/vg0/log3 sequential_cutoff=64"
	rec_ok "set pool keys" "$E" "$C" set p0 0 writeback_jobs=16 writeback_high=97
	has "set adds and replaces pool keys" "pool p0 $flash writeback_low=95 writeback_high=97 block_size=32K writeback_jobs=16"
	grep -qx '# kept comment' "$C" && pass "record: comments kept" || fail "record: comments kept"
	rec_ok "enable again with the same id replaces the line" "$E" "$C" enable p0 "$flash" "7:0 64" /dev/v1 1 writearound - -1
	has "the replaced line" "volume p0 /dev/v1 id=1 mode=writearound"
	[ "$(grep -c '^volume p0 /dev/v1 ' "$C")" -eq 1 ] && pass "record: one line per volume" || fail "record: one line per volume" "$(cat "$C")"
	rec_ok "enable the same device under another id" "$E" "$C" enable p0 "$flash" "7:0 64" /dev/v1 5 writeback - -1
	[ "$(grep -c ' /dev/v1 ' "$C")" -eq 1 ] && grep -q ' /dev/v1 id=5 ' "$C" && pass "record: the old line of the device is dropped" || fail "record: the old line of the device is dropped" "$(cat "$C")"
	rec_ok "disable" "$E" "$C" disable p0 2
	grep -q 'id=2' "$C" && fail "record: disable removes the line" "$(cat "$C")" || pass "record: disable removes the line"
	rec_ok "disable of an unrecorded volume is a no-op" "$E" "$C" disable p0 7
	rec_ok "set of an unrecorded volume warns only" "$E" "$C" set p0 7 mode=writeback
	grep -q 'not in' "$T/err" && pass "record: unrecorded volume warned" || fail "record: unrecorded volume warned" "$(cat "$T/err")"
	expect_rc 0 "record: the result parses" "$CTL" up --dry-run -c "$C"
	[ ! -e "$C.fcachectl-new" ] && pass "record: no temporary file left" || fail "record: no temporary file left"
	# a mirrored pool: its second device as mirror=, the table's mirror/degraded words are no tunables
	if [ -b /dev/loop1 ] && [ "$flash" != /dev/loop1 ]; then
		M=$T/msub/fcache.conf
		rec_ok "enable on a mirrored pool" "$E" "$M" enable pm "$flash" "7:0 64 4 mirror 7:1 writeback_high 70" /dev/v1 1 writeback - -1
		grep -q "^pool pm $flash mirror=/dev/[^ ]* writeback_high=70 block_size=32K\$" "$M" &&
			pass "record: the mirrored pool's line has mirror=" || fail "record: the mirrored pool's line has mirror=" "$(cat "$M")"
		expect_rc 0 "record: the mirrored pool's file parses" "$CTL" up --dry-run -c "$M"
		grep -q "mirror=/dev/" "$T/out" && pass "record: up --dry-run reads mirror=" || fail "record: up --dry-run reads mirror=" "$(cat "$T/out")"
		rm -f "$M"
		rec_ok "enable on a degraded pool" "$E" "$M" enable pd "$flash" "7:0 64 4 mirror - degraded 1" /dev/v1 1 writeback - -1
		grep -q 'runs degraded' "$T/err" && grep -q 'mirror=OTHERDEV' "$T/err" && pass "record: a degraded pool: warned" ||
			fail "record: a degraded pool: warned" "$(cat "$T/err")"
		grep -qx "pool pd $flash block_size=32K" "$M" && pass "record: a degraded pool: no mirror or degraded word" ||
			fail "record: a degraded pool: no mirror or degraded word" "$(cat "$M")"
	fi
	printf 'bogus line\n' >>"$C"
	cp "$C" "$T/before"
	expect_rc 1 "record: a broken file is refused" "$E" "$C" check
	cmp -s "$C" "$T/before" && pass "record: a broken file is left alone" || fail "record: a broken file is left alone"
else
	fail "record: build ctl_confedit" "$(head -c 600 "$T/cc.log")"
fi
