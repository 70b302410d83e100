#!/bin/sh
# fcachectl ordered-log format/show/replay on log and origin images
# (include/fcache_olog.h): records written by tests/host/olog_mk.c as the
# module's writer would, the origin compared byte for byte with the image
# olog_mk computed from what it wrote; the ring wrapping over many
# replays; torn data, a torn header and a group cut short applying only
# the flush points before them; a replay cut short and run again; a
# damaged or foreign superblock slot; refusals.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
ctl_tool "$BIN/olog_mk" "$top/tests/host/olog_mk.c" "$top/engine/fc_format.c" \
	"$top/engine/fc_olog.c" || { fail "olog: build olog_mk"; exit 0; }
MK=$BIN/olog_mk
L=$T/log.img O=$T/orig.img X=$T/expect.img

# jq-less: the value of key $2 in the JSON document $1
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# same NAME A B: the two files are equal byte for byte
same() {
	if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(cmp "$2" "$3" 2>&1 | head -c 200)"; fi
}
# origin: a 4 MiB origin image of random bytes (seeded), its copy in $X
origin() {
	python3 -c 'import random,sys; random.seed(int(sys.argv[2])); open(sys.argv[1],"wb").write(random.randbytes(4 << 20))' "$O" "$1"
}
# mk NAME ARGS...: olog_mk on the images; its "records W, applied A, epoch E, pages P" in $W $A $E $P
mk() {
	_n=$1
	shift
	if "$MK" "$L" "$O" "$X" "$@" >"$T/mk.out" 2>"$T/mk.err"; then
		read -r _ W _ A _ E _ P <"$T/mk.out"
		W=${W%,} A=${A%,} E=${E%,}
	else
		fail "$_n: olog_mk" "$(head -c 300 "$T/mk.err")"
		W=0 A=0 E=0 P=0
	fi
}

origin 1
truncate -s 8M "$L"
expect_rc 3 "olog: show on a device without a log: exit 3" "$CTL" ordered-log show "$L"
err_one_line "olog: ... one line why"
truncate -s 1M "$T/small.img"
expect_rc 1 "olog: format of a log too small refused" "$CTL" ordered-log format "$T/small.img" --origin "$O"
grep -q 'too small for a log' "$T/err" && pass "olog: ... says it is too small" || fail "olog: too small" "$(cat "$T/err")"
expect_rc 2 "olog: format without --origin: usage" "$CTL" ordered-log format "$L"
expect_rc 2 "olog: an unknown subcommand: usage" "$CTL" ordered-log frobnicate "$L"
expect_rc 0 "olog: format" "$CTL" ordered-log format "$L" --origin "$O"
expect_rc 0 "olog: show --json of an empty log" "$CTL" ordered-log show "$L" --json
cp "$T/out" "$T/empty.json"
expect_rc 0 "olog: show --json follows fcache.ordered-log" python3 "$top/tests/host/json_schema.py" \
	--schema fcache.ordered-log "$T/empty.json"
[ "$(jget "$T/empty.json" records)" = 0 ] && [ "$(jget "$T/empty.json" head)" = 2 ] &&
	[ "$(jget "$T/empty.json" head_seq)" = 1 ] && [ "$(jget "$T/empty.json" origin_pages)" = 1024 ] &&
	[ "$(jget "$T/empty.json" schema)" = fcache.ordered-log ] &&
	pass "olog: an empty log: no records, head at the area's start, the origin's size" ||
	fail "olog: empty log" "$(cat "$T/empty.json")"

# records, a dry run, a replay, a second replay
mk "olog: 40 records" 40 1
[ "$A" -ge 10 ] && [ "$A" = "$W" ] && pass "olog: olog_mk wrote $W records" || fail "olog: olog_mk wrote $W of 40"
expect_rc 0 "olog: show with records" "$CTL" ordered-log show "$L" --json
[ "$(jget "$T/out" records_to_apply)" = "$A" ] && [ "$(jget "$T/out" epoch)" = "$E" ] &&
	[ "$(jget "$T/out" pages_to_apply)" = "$P" ] &&
	pass "olog: show counts the records written, their pages and their last flush point" ||
	fail "olog: show of $A records, epoch $E" "$(cat "$T/out")"
cp "$O" "$T/o0" && cp "$L" "$T/l0"
expect_rc 0 "olog: replay --dry-run" "$CTL" ordered-log replay "$L" "$O" --dry-run
same "olog: a dry run writes neither the origin" "$O" "$T/o0"
same "olog: ... nor the log" "$L" "$T/l0"
expect_rc 0 "olog: replay" "$CTL" ordered-log replay "$L" "$O" --json
python3 "$top/tests/host/json_schema.py" --schema fcache.ordered-log "$T/out" >/dev/null &&
	[ "$(jget "$T/out" replayed)" = True ] && [ "$(jget "$T/out" records_to_apply)" = "$A" ] &&
	pass "olog: replay says what it applied" || fail "olog: replay json" "$(cat "$T/out")"
same "olog: the origin after a replay is what was written, byte for byte" "$O" "$X"
expect_rc 0 "olog: show after the replay" "$CTL" ordered-log show "$L" --json
[ "$(jget "$T/out" records_to_apply)" = 0 ] && [ "$(jget "$T/out" epoch)" = "$E" ] &&
	[ "$(jget "$T/out" head_seq)" = $((W + 1)) ] &&
	pass "olog: the head moved past them; the flush point applied is kept" ||
	fail "olog: after replay" "$(cat "$T/out")"
cp "$O" "$T/o1"
expect_rc 0 "olog: a second replay" "$CTL" ordered-log replay "$L" "$O"
same "olog: a second replay writes nothing" "$O" "$T/o1"

# a replay cut short before it moved the head: run again from the old log
cp "$T/l0" "$L"
expect_rc 0 "olog: the replay again, from the log before it" "$CTL" ordered-log replay "$L" "$O"
same "olog: a replay run twice leaves the same origin" "$O" "$X"
# the current superblock slot damaged: the other (older head) is used
s=$(python3 -c 'import sys,struct; d=open(sys.argv[1],"rb").read(8192); print(0 if struct.unpack_from("<Q",d,24)[0] > struct.unpack_from("<Q",d,4096+24)[0] else 1)' "$L")
printf 'XXXX' | dd of="$L" bs=1 seek=$((s * 4096 + 300)) conv=notrunc 2>/dev/null
expect_rc 0 "olog: show with the current superblock slot damaged" "$CTL" ordered-log show "$L" --json
[ "$(jget "$T/out" head)" = 2 ] && [ "$(jget "$T/out" records_to_apply)" = "$A" ] &&
	pass "olog: ... the other slot (the head before the replay) is used" ||
	fail "olog: damaged slot $s" "$(cat "$T/out")"
expect_rc 0 "olog: replay from the older slot" "$CTL" ordered-log replay "$L" "$O"
same "olog: ... the same origin again" "$O" "$X"

# the ring wraps: many rounds of records and replays
heads=
for r in 1 2 3 4 5 6 7 8 9 10 11 12; do
	mk "olog: round $r" 6 $((100 + r))
	[ "$W" = 6 ] || fail "olog: round $r: $W records of 6 written"
	"$CTL" ordered-log replay "$L" "$O" >"$T/out" 2>"$T/err" || fail "olog: round $r replay" "$(cat "$T/err")"
	cmp -s "$O" "$X" || fail "olog: round $r origin" "$(cmp "$O" "$X" 2>&1)"
	"$CTL" ordered-log show "$L" --json >"$T/out"
	heads="$heads $(jget "$T/out" head)"
done
wraps=$(echo "$heads" | awk '{ for (i = 2; i <= NF; i++) if ($i < $(i - 1)) n++; print n + 0 }')
[ "$wraps" -ge 2 ] && pass "olog: 12 rounds, the ring wrapped $wraps times, every origin as written" ||
	fail "olog: the ring did not wrap" "heads:$heads"

# torn data, a torn header, a group cut short: only the flush points before
mk "olog: groups" 30 77 group
"$CTL" ordered-log replay "$L" "$O" >/dev/null 2>"$T/err" || fail "olog: groups replay" "$(cat "$T/err")"
same "olog: records in groups of one to three, every group whole: all applied" "$O" "$X"
# (seed 214: record 7 is the last of a group of three: records 5 and 6 are walked, not applied)
for st in "209 tear 9" "206 tearhdr 6" "214 group tear 7"; do
	seed=${st%% *} t=${st#* }
	"$CTL" ordered-log format "$L" --origin "$O" >/dev/null 2>&1 || fail "olog: format for $t"
	mk "olog: $t" 20 "$seed" $t
	expect_rc 0 "olog: show, $t" "$CTL" ordered-log show "$L" --json
	stop=$(jget "$T/out" walk_stop)
	k=${t##* }
	case $t in
	tearhdr*) echo "$stop" | grep -q ': checksum mismatch$' ;;
	tear*) echo "$stop" | grep -q 'data torn' ;;
	group*) echo "$stop" | grep -q 'data torn' && [ "$(jget "$T/out" records)" = "$k" ] &&
		[ "$A" -lt "$k" ] ;;
	esac && [ "$(jget "$T/out" records_to_apply)" = "$A" ] && [ "$A" -le "$k" ] &&
		[ "$(jget "$T/out" pages_to_apply)" = "$P" ] &&
		pass "olog: $t: the walk stops there ($stop), $A records to apply" ||
		fail "olog: $t" "applied $A, $(cat "$T/out")"
	expect_rc 0 "olog: replay, $t" "$CTL" ordered-log replay "$L" "$O"
	same "olog: $t: the origin holds the flush points before it, nothing after" "$O" "$X"
done

# refusals
"$CTL" ordered-log format "$L" --origin "$O" --force >/dev/null 2>&1
mk "olog: records for the refusals" 5 300
expect_rc 1 "olog: format over records not applied refused" "$CTL" ordered-log format "$L" --origin "$O"
grep -q 'replay them first' "$T/err" && pass "olog: ... says replay them first" || fail "olog: format refusal" "$(cat "$T/err")"
truncate -s 2M "$T/other.img"
cp "$L" "$T/l0"
expect_rc 1 "olog: replay onto an origin of another size refused" "$CTL" ordered-log replay "$L" "$T/other.img"
grep -q 'not its origin' "$T/err" && [ ! -s "$T/out" ] && pass "olog: ... says not its origin" ||
	fail "olog: other origin" "$(cat "$T/err")"
same "olog: ... and the log is left as it was" "$L" "$T/l0"
# a slot of another log beside the current one
cp "$L" "$T/la" && cp "$L" "$T/lb"
"$CTL" ordered-log format "$T/lb" --origin "$O" --force >/dev/null 2>&1
"$CTL" ordered-log replay "$T/la" "$T/o0" >/dev/null 2>&1	# slot 1 of la now in use
dd if="$T/lb" of="$T/la" bs=4096 count=1 conv=notrunc 2>/dev/null
expect_rc 1 "olog: two superblock slots of two logs: damaged" "$CTL" ordered-log show "$T/la" --json
grep -q 'two logs' "$T/err" && [ "$(jget "$T/out" schema)" = fcache.ordered-log ] &&
	pass "olog: ... says so, and --json carries the error" || fail "olog: two logs" "$(cat "$T/err" "$T/out")"
"$CTL" ordered-log replay "$L" "$O" >/dev/null 2>&1	# both slots in use
printf 'XXXX' | dd of="$L" bs=1 seek=300 conv=notrunc 2>/dev/null
printf 'XXXX' | dd of="$L" bs=1 seek=4396 conv=notrunc 2>/dev/null
expect_rc 1 "olog: both slots torn: damaged" "$CTL" ordered-log show "$L"
grep -q 'damaged log: superblock slot 0: checksum mismatch; slot 1: checksum mismatch' "$T/err" &&
	pass "olog: ... says why, slot by slot" || fail "olog: both torn" "$(cat "$T/err")"
expect_rc 1 "olog: format over a damaged log refused" "$CTL" ordered-log format "$L" --origin "$O"
expect_rc 0 "olog: ... --force formats it" "$CTL" ordered-log format "$L" --origin "$O" --force
expect_rc 0 "olog: --force over records lost them" "$CTL" ordered-log show "$L" --json
[ "$(jget "$T/out" records_to_apply)" = 0 ] && pass "olog: ... an empty log" || fail "olog: forced format" "$(cat "$T/out")"
