#!/bin/sh
# dm-fcache: a volume's ordered log (volume option ordered_log DEV, issue
# 38; kmod/fc_vlog.c).  What the module does with it so far:
#  1. a new log is bound to the volume (the pool's uuid and the volume's id
#     in its superblock: fcachectl ordered-log show says so), and the
#     table says ordered_log MAJ:MIN; a reload of the live volume keeps it;
#  2. records a crash left unapplied (written onto the bound log by
#     tests/host/olog_mk.c while the volume was down) are replayed onto the
#     origin by the constructor: the origin and the volume read byte for
#     byte what olog_mk computed, although the pool held the old data of
#     those blocks as clean cache blocks (the replay drops them); the log
#     has nothing left to apply;
#  3. refused, the log and the origin not written: a log of another
#     volume, of another pool, of an origin of another size, a device with
#     no log, the origin itself as its log, records written by no volume,
#     a walk that meets an unreadable page (dm error), a bad option word.
FC_T=fc_vlog
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
T=/tmp/fc_vlog
mkdir -p $T
MK=$T/olog_mk
olog_mk_build "$MK" || die "cannot build olog_mk" build

load_fcache || die "insmod failed" module-load
fl=$(mk_fast_disk 64) && fl2=$(mk_fast_disk 64) && org=$(mk_fast_disk 8) &&
	org2=$(mk_fast_disk 8) && orgb=$(mk_fast_disk 12) && lg=$(mk_fast_disk 16) &&
	lg2=$(mk_fast_disk 16) || die "disks"
dd if=/dev/urandom of="$org" bs=1M count=8 oflag=direct status=none || die "fill origin"
fc_pool p "$fl" 32 || die "pool"
S=$(dev_sectors "$org")

# jget JSON KEY
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# refused NAME WANT TABLE: a volume table refused, dmesg or the error naming WANT
refused() {
	dmesg -C
	if dmsetup create vx --table "$3" >$T/out 2>&1; then
		fail "$1" "the table was accepted"
		dmsetup remove vx
	elif dmesg | grep -q "$2" || grep -q "$2" $T/out; then
		pass "$1: refused ($(dmesg | grep -o 'fcache: .*' | tail -n 1))"
	else
		fail "$1" "refused, but not for '$2': $(cat $T/out; dmesg | tail -n 3)"
	fi
	dmsetup remove vx 2>/dev/null
}

# 1. bind
check "format a log for the origin" "$CTL" ordered-log format "$lg" --origin "$org"
check "a volume with ordered_log" fc_vol v p "$org" 7 writeback ordered_log "$lg"
mm=$(majmin "$lg")
dmsetup table v | grep -q " ordered_log $mm\$" && pass "the table says ordered_log $mm" ||
	fail "table" "$(dmsetup table v)"
check "reload the live volume with its log" sh -c "dmsetup table v | dmsetup reload v && dmsetup suspend v && dmsetup resume v"
dmsetup table v | grep -q " ordered_log $mm\$" && pass "... the table keeps it" ||
	fail "table after reload" "$(dmsetup table v)"

# 2. records left unapplied: the pool caches the origin's old data first
dd if=/dev/mapper/v of=/dev/null bs=1M iflag=direct status=none
dd if=/dev/mapper/v of=/dev/null bs=1M iflag=direct status=none
cached=$(status_field v "$V_CACHED")
[ "${cached:-0}" -gt 100 ] && pass "the pool caches $cached blocks of the volume" ||
	fail "cached blocks" "${cached:-none}"
dm_remove v || die "remove v"
# (fcachectl opens the log O_EXCL: only with the volume down)
"$CTL" ordered-log show "$lg" --json >$T/show.json 2>&1 || fail "show" "$(cat $T/show.json)"
[ "$(jget $T/show.json vol_id)" = 7 ] && [ "$(jget $T/show.json pool_uuid)" != \
	00000000000000000000000000000000 ] && pass "the log is bound to volume 7 of the pool" ||
	fail "binding" "$(cat $T/show.json)"
"$MK" "$lg" "$org" $T/expect 30 11 group >$T/mk.out 2>&1 || fail "olog_mk" "$(cat $T/mk.out)"
info "olog_mk: $(cat $T/mk.out)"
"$CTL" ordered-log show "$lg" --json >$T/show.json 2>&1
want=$(jget $T/show.json records_to_apply)
[ "$want" -gt 0 ] && pass "the bound log holds $want records to apply" || fail "records" "$want"
dmesg -C
check "the volume again: its constructor replays them" fc_vol v p "$org" 7 writeback ordered_log "$lg"
dmesg | grep -q "ordered log .*: $want records .* replayed onto the origin" &&
	pass "... the kernel log says $want records replayed" || fail "replay message" "$(dmesg | tail -n 3)"
cmp -s "$org" $T/expect && pass "the origin holds what the records carry, byte for byte" ||
	fail "origin after the replay" "$(cmp "$org" $T/expect 2>&1)"
cmp -s /dev/mapper/v $T/expect && pass "the volume reads it too (no stale clean block)" ||
	fail "volume after the replay" "$(cmp /dev/mapper/v $T/expect 2>&1)"
check "remove the volume" dm_remove v
"$CTL" ordered-log show "$lg" --json >$T/show.json 2>&1
[ "$(jget $T/show.json records_to_apply)" = 0 ] && pass "the log has nothing left to apply" ||
	fail "after the replay" "$(cat $T/show.json)"

# 3. refusals; the log and origins are compared afterwards
dd if="$org2" of=$T/org2.0 bs=1M iflag=direct status=none
cp "$T/expect" $T/org.0
dd if="$lg" of=$T/lg.0 bs=1M iflag=direct status=none
refused "another volume's log" "another volume of this pool" \
	"0 $S fcache /dev/mapper/p $org2 8 writeback 2 ordered_log $lg"
fc_pool p2 "$fl2" 32 || die "pool 2"
refused "another pool's log" "another pool" \
	"0 $S fcache /dev/mapper/p2 $org2 7 writeback 2 ordered_log $lg"
dmsetup remove p2
refused "the log of an origin of another size" "another size" \
	"0 $(dev_sectors "$orgb") fcache /dev/mapper/p $orgb 9 writeback 2 ordered_log $lg"
refused "a device with no log" "holds no ordered log" \
	"0 $S fcache /dev/mapper/p $org2 8 writeback 2 ordered_log $lg2"
refused "the origin as its own log" "cannot be the origin" \
	"0 $S fcache /dev/mapper/p $org2 8 writeback 2 ordered_log $org2"
refused "a bad ordered_log word" "ordered_log must be a device" \
	"0 $S fcache /dev/mapper/p $org2 8 writeback 2 ordered_log a\\\\b"
check "format a second log" "$CTL" ordered-log format "$lg2" --origin "$org2"
"$MK" "$lg2" "$org2" $T/expect2 5 12 >$T/mk.out 2>&1 || fail "olog_mk 2" "$(cat $T/mk.out)"
dd if="$lg2" of=$T/lg2.0 bs=1M iflag=direct status=none
refused "records written by no volume" "records of no volume" \
	"0 $S fcache /dev/mapper/p $org2 8 writeback 2 ordered_log $lg2"
cmp -s "$org" $T/org.0 && cmp -s "$org2" $T/org2.0 && cmp -s "$lg" $T/lg.0 &&
	cmp -s "$lg2" $T/lg2.0 && pass "... no origin and no log was written by a refused table" ||
	fail "a refused table wrote"

# an unreadable page in record 2's data: refused, the origin untouched
"$MK" "$lg" "$org" $T/expect 6 13 >$T/mk.out 2>&1 || fail "olog_mk 3" "$(cat $T/mk.out)"
"$CTL" ordered-log show "$lg" --json >$T/show.json
head=$(jget $T/show.json head)
p2=$(python3 - "$lg" "$head" "$(($(dev_sectors "$lg") / 8))" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb")
pos = int(sys.argv[2])
for k in range(2):
    f.seek(pos * 4096)
    nr = struct.unpack_from("<I", f.read(4096), 80)[0]
    pos = pos + 1 + nr
    if pos + 1 + 500 > int(sys.argv[3]):
        pos = 2
print(pos + 1)
PY
)
LS=$(dev_sectors "$lg")
dm_create lge "0 $((p2 * 8)) linear $lg 0
$((p2 * 8)) 8 error
$((p2 * 8 + 8)) $((LS - p2 * 8 - 8)) linear $lg $((p2 * 8 + 8))" || die "dm error table"
dd if="$org" of=$T/org.1 bs=1M iflag=direct status=none
refused "a log with an unreadable page in its ring" "cannot be read whole" \
	"0 $S fcache /dev/mapper/p $org 7 writeback 2 ordered_log /dev/mapper/lge"
dm_remove lge
cmp -s "$org" $T/org.1 && pass "... the origin untouched" || fail "origin written by a refused table"
check "the log readable again: the volume replays it" fc_vol v p "$org" 7 writeback ordered_log "$lg"
cmp -s /dev/mapper/v $T/expect && pass "... the volume reads every record, byte for byte" ||
	fail "volume after the second replay" "$(cmp /dev/mapper/v $T/expect 2>&1)"
dm_remove v
dm_remove p
dmesg_clean
finish
