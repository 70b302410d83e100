#!/bin/sh
# The verbs of issue 13 part 1 end to end in the guest, each check on its
# effect: show/get against 'dmsetup table' before and after 'set';
# reset-counters zeroing the counters real I/O made (a volume alone, then
# every volume of the pool), the block counts kept; forget refused for an
# attached volume, releasing a clean slot after 'disable --no-flush' (slot,
# blocks and config line gone), refusing dirty data left by fcachectl even
# with --discard-dirty (the recommended attach + disable then writes it
# back), and for a volume removed with plain 'dmsetup remove' while dirty:
# refused without --discard-dirty, exit 2 without --yes (nothing changed),
# forgotten with --discard-dirty --yes (the origin keeps its own data);
# pool create --force refused while the pool is active, exit 2 without a
# terminal and --yes, "no" typed on a terminal changes nothing, and with
# --yes the flash is an empty pool again (new uuid and block size, check
# clean).  JSON through tests/host/json_schema.py.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
H=$FC_TOP/tests/host
C=$L/verbs.conf
BS=32768	# the pool's block size: dd blocks are cache blocks

load_fcache || die "cannot load dm-fcache"
flash=$(mk_brd_flash 128) || die "mk_brd_flash failed"
d1=$(mk_fast_disk 64) || die "mk_fast_disk failed"
d2=$(mk_fast_disk 64) || die "mk_fast_disk failed"
d3=$(mk_fast_disk 64) || die "mk_fast_disk failed"
k1=$(basename "$d1") k2=$(basename "$d2") k3=$(basename "$d3")
: >"$C"

# rc NAME WANT CMD... : exit code check, output in $L/rc.out / $L/rc.err
rc() {
	_n=$1 _w=$2; shift 2
	"$@" >"$L/rc.out" 2>"$L/rc.err"
	_g=$?
	if [ "$_g" -eq "$_w" ]; then pass "$_n"; else fail "$_n" "exit $_g, wanted $_w: $(head -c 300 "$L/rc.err")"; fi
}
err_has() {	# err_has NAME REGEX : the last rc's stderr matches
	if grep -q -- "$2" "$L/rc.err"; then pass "$1"; else fail "$1" "$(head -c 400 "$L/rc.err")"; fi
}
json() {	# json NAME FILE PYTHON-EXPR-USING-d
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert ($3), d" "$2" >"$L/py.err" 2>&1; then
		pass "$1"
	else
		fail "$1" "$(tail -n 2 "$L/py.err" | tr '\n' ' ')"
	fi
}
pat() { dd if=/dev/urandom of="$1" bs=$BS count=8 2>/dev/null; }
wr() { dd if="$2" of="$1" bs=$BS count=8 seek="$3" oflag=direct conv=fsync,notrunc 2>/dev/null; }
same() {	# same DEV FILE BLOCK: the 8 blocks at BLOCK equal FILE
	dd if="$1" of="$L/rd" bs=$BS count=8 skip="$3" iflag=direct 2>/dev/null && cmp -s "$2" "$L/rd"
}
# counter NAME DEV: a counter of the volume from 'status DEV --counters'
counter() {
	"$CTL" status "$2" --counters 2>/dev/null | sed -n '/^    counters:/,$p' | tr ' ' '\n' |
		sed -n "s/^$1=//p" | head -n 1
}
# unattached ID: the line of 'status p0' for volume ID not attached ('' if none)
unattached() { "$CTL" status p0 2>/dev/null | grep "not attached: id $1 "; }
table_of() { dmsetup table "$1" | cut -d' ' -f4-; }

rc pool-create 0 "$CTL" pool create p0 "$flash"
rc enable-v1 0 "$CTL" enable "$d1" --pool p0 --id 1 -c "$C"
rc enable-v2 0 "$CTL" enable "$d2" --pool p0 --id 2 -c "$C"
v1=fc-$k1 v2=fc-$k2

# ---- show / get: the live table, defaults for what it leaves out
rc show-pool 0 "$CTL" show p0
grep -q '^  writeback_high     80 %  (default)$' "$L/rc.out" && grep -q "^  flash              $flash\$" "$L/rc.out" &&
	pass show-pool-defaults || fail show-pool-defaults "$(cat "$L/rc.out")"
rc show-pool-json 0 "$CTL" show p0 --json
cp "$L/rc.out" "$L/show0.json"
check show-pool-json-schema python3 "$H/json_schema.py" --schema fcache.show "$L/show0.json"
json show-pool-json-all-defaults "$L/show0.json" 'd["kind"]=="pool" and d["name"]=="p0" and len(d["defaults"])==9 and d["settings"]["commit_interval"]==1000 and d["settings"]["fence_hold"]==0 and d["settings"]["warm_restart"]==0 and d["settings"]["ordered"]==0 and d["settings"]["ordered_lag"]==0 and d["block_sectors"]==64'
rc set-pool 0 "$CTL" set p0 writeback_high=70 commit_interval=500 max_dirty_age=3600 --no-persist
rc show-pool-json-after-set 0 "$CTL" show --json p0
cp "$L/rc.out" "$L/show1.json"
check show-pool-json-schema-after-set python3 "$H/json_schema.py" --schema fcache.show "$L/show1.json"
table_of p0 >"$L/p0.table"
# the settings are those of the table, word for word; the rest defaults
if python3 - "$L/show1.json" "$L/p0.table" >"$L/py.err" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read().split()
assert d["table"] == " ".join(t), (d["table"], t)
opts = dict(zip(t[3::2], t[4::2])) if len(t) > 2 else {}
assert opts == {"writeback_high": "70", "commit_interval": "500", "max_dirty_age": "3600"}, opts
for k, v in opts.items():
    assert d["settings"][k] == int(v), (k, d["settings"])
assert sorted(d["defaults"]) == ["fence_hold", "ordered", "ordered_lag", "warm_restart", "writeback_jobs", "writeback_low"], d["defaults"]
assert d["settings"]["writeback_low"] == 50 and d["settings"]["writeback_jobs"] == 32
assert d["block_sectors"] == int(t[1])
PY
then pass show-pool-matches-table; else fail show-pool-matches-table "$(tail -n 2 "$L/py.err" | tr '\n' ' ')"; fi
rc get-pool-set 0 "$CTL" get p0 writeback_high
[ "$(cat "$L/rc.out")" = 70 ] && pass get-pool-value || fail get-pool-value "$(cat "$L/rc.out")"
rc get-pool-default 0 "$CTL" get p0 writeback_low
[ "$(cat "$L/rc.out")" = 50 ] && pass get-pool-default-value || fail get-pool-default-value "$(cat "$L/rc.out")"
rc get-pool-block 0 "$CTL" get /dev/mapper/p0 block_sectors
[ "$(cat "$L/rc.out")" = 64 ] && pass get-pool-by-path || fail get-pool-by-path "$(cat "$L/rc.out")"
rc get-volume-setting-of-pool 2 "$CTL" get p0 mode
err_has get-volume-setting-of-pool-says "p0 is a pool: its settings are"
rc set-volume 0 "$CTL" set "$v1" mode=writethrough sequential_cutoff=0 --no-persist
rc show-volume-json 0 "$CTL" show "$v1" --json
cp "$L/rc.out" "$L/showv.json"
check show-volume-json-schema python3 "$H/json_schema.py" --schema fcache.show "$L/showv.json"
table_of "$v1" >"$L/v1.table"
json show-volume-matches-table "$L/showv.json" 'd["kind"]=="volume" and d["table"]==open("'"$L/v1.table"'").read().strip() and d["settings"]=={"mode":"writethrough","sequential_cutoff":0} and d["defaults"]==[] and d["pool"]=="p0" and d["id"]==1 and d["label"]=="'"$k1"'" and d["origin"]=="'"$d1"'"'
grep -q " 1 writethrough " "$L/v1.table" && pass volume-table-has-the-mode || fail volume-table-has-the-mode "$(cat "$L/v1.table")"
rc get-volume-mode 0 "$CTL" get "$v1" mode
[ "$(cat "$L/rc.out")" = writethrough ] && pass get-volume-mode-value || fail get-volume-mode-value "$(cat "$L/rc.out")"
rc get-volume-cutoff 0 "$CTL" get "$v1" sequential_cutoff
[ "$(cat "$L/rc.out")" = 0 ] && pass get-volume-cutoff-value || fail get-volume-cutoff-value "$(cat "$L/rc.out")"
rc show-volume-text 0 "$CTL" get "$v1"
grep -q '^  mode               writethrough$' "$L/rc.out" && grep -q '^  sequential_cutoff  0 KiB$' "$L/rc.out" &&
	pass get-without-name-is-show || fail get-without-name-is-show "$(cat "$L/rc.out")"
rc get-pool-setting-of-volume 2 "$CTL" get "$v1" writeback_high
rc show-unknown 1 "$CTL" show nosuch
rc set-volume-back 0 "$CTL" set "$v1" mode=writeback --no-persist
rc get-volume-mode-back 0 "$CTL" get "$v1" mode
[ "$(cat "$L/rc.out")" = writeback ] && pass get-follows-set || fail get-follows-set "$(cat "$L/rc.out")"

# ---- reset-counters: real I/O, then zero
dd if=/dev/urandom of="/dev/mapper/$v1" bs=64k count=16 oflag=direct 2>/dev/null
dd if="/dev/mapper/$v1" of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null
dd if=/dev/urandom of="/dev/mapper/$v2" bs=64k count=16 oflag=direct 2>/dev/null
dd if="/dev/mapper/$v2" of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null
r1=$(counter reads "$v1") w1=$(counter writes "$v1") w2=$(counter writes "$v2")
cached1=$(status_field "$v1" 2)
[ "${r1:-0}" -gt 0 ] && [ "${w1:-0}" -gt 0 ] && [ "${w2:-0}" -gt 0 ] && pass counters-nonzero-before ||
	fail counters-nonzero-before "reads=$r1 writes=$w1 v2 writes=$w2"
rc reset-volume 0 "$CTL" reset-counters "$v1"
r1=$(counter reads "$v1") w1=$(counter writes "$v1") w2=$(counter writes "$v2")
[ "$r1" = 0 ] && [ "$w1" = 0 ] && [ "$(status_field "$v1" 4)" = 0 ] && [ "$(status_field "$v1" 6)" = 0 ] &&
	pass reset-volume-zeroes-its-counters || fail reset-volume-zeroes-its-counters "reads=$r1 writes=$w1"
[ "${w2:-0}" -gt 0 ] && pass reset-volume-leaves-the-other || fail reset-volume-leaves-the-other "v2 writes=$w2"
[ "$(status_field "$v1" 2)" = "$cached1" ] && pass reset-keeps-cached-blocks ||
	fail reset-keeps-cached-blocks "$cached1 -> $(status_field "$v1" 2)"
dd if=/dev/urandom of="/dev/mapper/$v1" bs=64k count=4 oflag=direct 2>/dev/null
rc reset-pool 0 "$CTL" reset-counters p0
w1=$(counter writes "$v1") w2=$(counter writes "$v2") r2=$(counter reads "$v2")
[ "$w1" = 0 ] && [ "$w2" = 0 ] && [ "$r2" = 0 ] && pass reset-pool-zeroes-every-volume ||
	fail reset-pool-zeroes-every-volume "v1 writes=$w1 v2 writes=$w2 reads=$r2"
rc reset-unknown 1 "$CTL" reset-counters nosuch

# ---- forget: attached, clean after disable --no-flush
rc forget-attached 1 "$CTL" forget p0 2 --no-persist
err_has forget-attached-says-disable "attached as $v2; 'fcachectl disable $v2'"
check forget-attached-still-there dmsetup info "$v2"
reg0=$(status_field p0 14)
rc flush-v2 0 "$CTL" flush "$v2"
rc disable-no-flush-v2 0 "$CTL" disable "$v2" --no-flush -c "$C"
[ -n "$(unattached 2)" ] && pass slot-kept-after-no-flush || fail slot-kept-after-no-flush "$("$CTL" status p0)"
used0=$(status_field p0 3)
rc forget-clean 0 "$CTL" forget p0 2 -c "$C"
grep -q "^volume 2 ('$k2') of pool p0 forgotten" "$L/rc.out" && pass forget-says-done || fail forget-says-done "$(cat "$L/rc.out")"
[ -z "$(unattached 2)" ] && pass forget-slot-gone-from-status || fail forget-slot-gone-from-status "$("$CTL" status p0)"
[ "$(status_field p0 14)" -eq $((reg0 - 1)) ] && pass forget-registered-count-down ||
	fail forget-registered-count-down "$reg0 -> $(status_field p0 14)"
[ "$(status_field p0 3)" -lt "$used0" ] && pass forget-drops-clean-blocks || fail forget-drops-clean-blocks "$used0 -> $(status_field p0 3)"
grep -q " id=2" "$C" && fail forget-config-line-removed "$(cat "$C")" || pass forget-config-line-removed
grep -q " id=1" "$C" && pass forget-config-keeps-others || fail forget-config-keeps-others "$(cat "$C")"
rc forget-again 1 "$CTL" forget p0 2 --no-persist
err_has forget-unknown-says "pool p0 has no volume id '2'"
"$CTL" status p0 --json >"$L/st.json" 2>/dev/null
json forget-status-json "$L/st.json" 'all(v["id"] != 2 for v in d["pools"][0]["unattached_volumes"])'

# ---- forget: dirty data left by fcachectl is never discarded
pat "$L/A"
wr "$d3" "$L/A" 0 || fail origin-write-A
rc enable-v3 0 "$CTL" enable "$d3" --pool p0 --id 3 --no-persist
v3=fc-$k3
pat "$L/B"
wr "/dev/mapper/$v3" "$L/B" 0 || fail v3-write-B
rc disable-no-flush-dirty 0 "$CTL" disable "$v3" --no-flush --no-persist
d=$(unattached 3 | sed -n 's/.*, \([0-9]*\) dirty blocks.*/\1/p')
[ "${d:-0}" -ge 8 ] && pass dirty-slot-kept || fail dirty-slot-kept "$(unattached 3)"
rc forget-dirty 1 "$CTL" forget p0 3 --no-persist
err_has forget-dirty-says-attach "dirty blocks .* that its origin does not have; attach it"
rc forget-dirty-discard-not-detached 1 "$CTL" forget p0 "$k3" --discard-dirty --yes --no-persist
err_has forget-not-detached-explains "taken down by fcachectl .* --discard-dirty is only for a volume detached at run time"
[ -n "$(unattached 3)" ] && pass forget-refused-slot-kept || fail forget-refused-slot-kept
same "$d3" "$L/A" 0 && pass origin-still-old-before-writeback || fail origin-still-old-before-writeback
rc reattach-v3 0 "$CTL" enable "$d3" --pool p0 --id 3 --no-persist
rc disable-v3 0 "$CTL" disable "$v3" --no-persist
same "$d3" "$L/B" 0 && pass recommended-path-writes-back || fail recommended-path-writes-back
[ -z "$(unattached 3)" ] && pass disable-released-slot || fail disable-released-slot

# ---- forget: detached at run time with dirty data
# v1 clean first: the pool's dirty count is then v3's alone
rc flush-v1 0 "$CTL" flush "$v1"
pat "$L/A"
wr "$d3" "$L/A" 0 || fail origin-write-A2
rc enable-v3-again 0 "$CTL" enable "$d3" --pool p0 --id 3 --no-persist
pat "$L/B"
wr "/dev/mapper/$v3" "$L/B" 0 || fail v3-write-B2
dirty=$(status_field "$v3" 3)
[ "${dirty:-0}" -ge 8 ] && pass v3-dirty || fail v3-dirty "dirty=$dirty"
check v3-dmsetup-remove dmsetup remove "$v3"
unattached 3 | grep -q DETACHED && pass v3-detached || fail v3-detached "$(unattached 3)"
pd0=$(status_field p0 4)
rc forget-detached 1 "$CTL" forget p0 3 --no-persist
err_has forget-detached-says-discard "detached at run time.*'fcachectl forget p0 3 --discard-dirty'"
rc forget-detached-no-yes 2 "$CTL" forget p0 3 --discard-dirty --no-persist
err_has forget-no-yes-names-command "run: fcachectl forget p0 3 --discard-dirty --no-persist --yes\$"
unattached 3 | grep -q DETACHED && [ "$(status_field p0 4)" = "$pd0" ] && pass forget-no-yes-changes-nothing ||
	fail forget-no-yes-changes-nothing "$(unattached 3)"
rc forget-discard 0 "$CTL" forget p0 3 --discard-dirty --yes --no-persist
grep -q "its dirty data discarded" "$L/rc.out" && pass forget-discard-says || fail forget-discard-says "$(cat "$L/rc.out")"
[ -z "$(unattached 3)" ] && pass forget-discard-slot-gone || fail forget-discard-slot-gone "$(unattached 3)"
[ "$(status_field p0 4)" -le $((pd0 - 8)) ] && pass forget-discard-drops-dirty-blocks ||
	fail forget-discard-drops-dirty-blocks "$pd0 -> $(status_field p0 4)"
same "$d3" "$L/A" 0 && pass forget-discard-origin-keeps-its-data || fail forget-discard-origin-keeps-its-data

# ---- pool create --force
# leave a registered volume with dirty data: it must go with the reformat
rc enable-v3-last 0 "$CTL" enable "$d3" --pool p0 --id 3 --no-persist
wr "/dev/mapper/$v3" "$L/B" 0 || fail v3-write-B3
rc disable-v3-no-flush 0 "$CTL" disable "$v3" --no-flush --no-persist
rc force-while-active 1 "$CTL" pool create p1 "$flash" --force --yes
err_has force-while-active-names-pool "is the flash of pool p0, which is active"
check_fails force-while-active-no-device test -e /dev/mapper/p1
rc disable-v1 0 "$CTL" disable "$v1" -c "$C"
rc pool-remove 0 "$CTL" pool remove p0
"$CTL" dump --json "$flash" >"$L/dump0.json" 2>/dev/null
json old-pool-has-volume-3 "$L/dump0.json" 'any(v["id"] == 3 and v["dirty_blocks"] >= 8 for v in d["volumes"])'
rc force-no-tty 2 "$CTL" pool create p1 "$flash" --force --block-size 64K
err_has force-no-tty-describes "holds an fcache pool with 32 KiB blocks, 1 registered volume with dirty data: id 3 '$k3'"
err_has force-no-tty-names-command "run: fcachectl pool create p1 $flash --force --block-size 64K --yes\$"
check_fails force-no-tty-no-device test -e /dev/mapper/p1
"$CTL" dump --json "$flash" >"$L/dump1.json" 2>/dev/null
cmp -s "$L/dump0.json" "$L/dump1.json" && pass force-no-tty-flash-unchanged || fail force-no-tty-flash-unchanged
if command -v script >/dev/null 2>&1; then
	printf 'no\n' | script -qec "$CTL pool create p1 $flash --force" /dev/null >"$L/tty.out" 2>&1
	r=$?
	[ $r -eq 1 ] && grep -q "Type 'yes' to go on" "$L/tty.out" && grep -q "not confirmed; nothing changed" "$L/tty.out" &&
		pass force-tty-no-refused || fail force-tty-no-refused "rc $r: $(tr -d '\r' <"$L/tty.out" | head -c 400)"
	"$CTL" dump --json "$flash" >"$L/dump2.json" 2>/dev/null
	cmp -s "$L/dump0.json" "$L/dump2.json" && pass force-tty-no-flash-unchanged || fail force-tty-no-flash-unchanged
	check_fails force-tty-no-no-device test -e /dev/mapper/p1
fi
rc force-yes 0 "$CTL" pool create p1 "$flash" --force --yes --block-size 64K
check force-yes-device test -b /dev/mapper/p1
[ "$(status_field p1 14)" = 0 ] && [ "$(status_field p1 3)" = 0 ] && [ "$(status_field p1 1)" = 128 ] &&
	pass force-yes-empty-pool || fail force-yes-empty-pool "$(dmsetup status p1)"
rc force-yes-remove 0 "$CTL" pool remove p1
rc check-clean 0 "$CTL" check "$flash" --json
json check-says-clean "$L/rc.out" 'd["outcome"]=="clean" and d["volumes"]==[] and d["used_blocks"]==0 and d["superblock"]["block_sectors"]==128'
"$CTL" dump --json "$flash" >"$L/dump3.json" 2>/dev/null
if python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["superblock"]["uuid"]!=b["superblock"]["uuid"]' "$L/dump0.json" "$L/dump3.json" 2>/dev/null
then pass force-new-uuid; else fail force-new-uuid; fi
# without --force the new pool is loaded as it is
rc create-loads 0 "$CTL" pool create p2 "$flash"
[ "$(table_of p2 | cut -d' ' -f2)" = 128 ] && pass create-loads-new-block-size || fail create-loads-new-block-size "$(table_of p2)"
rc remove-p2 0 "$CTL" pool remove p2
dmesg_clean
finish
