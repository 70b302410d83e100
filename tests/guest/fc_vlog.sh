#!/bin/sh
# dm-fcache: a volume's ordered log (volume option ordered_log DEV, issue
# 38; kmod/fc_vlog.c, fc_writeback.c wb_log()):
#  1. a new log is bound to the volume (the pool's uuid and the volume's id
#     in its superblock: fcachectl ordered-log show says so), and the
#     table says ordered_log MAJ:MIN; a reload of the live volume keeps it;
#  2. records left unapplied (written onto the bound log by
#     tests/host/olog_mk.c while the volume was down) are replayed onto the
#     origin when the volume resumes: the origin and the volume read byte
#     for byte what olog_mk computed, although the pool held the old data
#     of those blocks as clean cache blocks (the replay drops them); the
#     log has nothing left to apply;
#  3. refused, the log and the origin not written: a log of another
#     volume, of another pool, of an origin of another size, a device with
#     no log, the origin itself as its log, records written by no volume,
#     a walk that meets an unreadable page (dm error), a bad option word;
#  4. the writer (pool ordered 1): O_DSYNC writes (each a flush point,
#     ord_writer.py) behind a slow origin; at six moments the log, then the
#     origin are frozen and copied, and each origin copy with its log copy
#     replayed over it holds the volume after one write, never a mix (the
#     test build's mutant olog_no_record, records not written, tears them:
#     fc_vlog.sh mutant=olog_no_record); the log held records; the flush
#     message brings the origin to every write; a removed volume's log is
#     empty;
#  5. a power cut under the writer (log, origin and flash frozen and
#     copied): loaded again, the volume's resume replays the log, and the
#     volume, then after its flush the origin alone, hold every write
#     acknowledged before the cut;
#  6. the pool records the volume's log (FC_VOL_OLOG and its feature bit,
#     which fcachectl check accepts and names): a table without the log is
#     refused while the volume has dirty data, taken once it has none (the
#     bit then cleared);
#  7. fcachectl enable --ordered-log: the table names the log, the config
#     file records it (up --dry-run shows it), the data reaches the origin,
#     disable takes the line away.
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
check "the volume again: its resume replays them" fc_vol v p "$org" 7 writeback ordered_log "$lg"
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
p2=$(olog_data_page "$lg" 2)
dm_error_page lge "$lg" "$p2" || die "dm error table"
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

# 4. the writer: ordered write-back through the log.  The origin behind a
# delay (writeback lags the writer), the flash and the log behind dm
# devices so that all three can be frozen.  A writer of O_DSYNC writes
# (each a flush point, tests/guest/ord_writer.py); at six moments the log,
# then the origin are frozen and copied (the module's I/O to them held:
# what the log lacks cannot have reached the origin), and each origin
# copy with its log copy replayed over it (fcachectl ordered-log replay)
# holds the volume after one write, never a mix.
W=$FC_TOP/tests/guest/ord_writer.py
NB=40
OPTS="writeback_high 100 writeback_low 0 max_dirty_age 0 commit_interval 200 writeback_jobs 2"
mutant_on "${1:-}" "the replayed origin copies must be torn"
modprobe dm-delay || die "no dm-delay" setup
fw=$(mk_fast_disk 64) && ow=$(mk_fast_disk 16) && lw=$(mk_fast_disk 16) || die "disks 2"
OS=$(dev_sectors "$ow")
check "origin behind a delay" dm_create od "0 $OS delay $ow 0 0 $ow 0 20"
dm_create fd "0 $(dev_sectors "$fw") linear $fw 0" && dm_create ld "0 $(dev_sectors "$lw") linear $lw 0" ||
	die "dm linear"
check "format the writer's log" "$CTL" ordered-log format /dev/mapper/ld --origin /dev/mapper/od
check "an ordered pool" fc_pool pw /dev/mapper/fd 64 $OPTS ordered 1
check "a volume with its log" fc_vol vw pw /dev/mapper/od 5 writeback sequential_cutoff 0 \
	ordered_log /dev/mapper/ld
# freeze I: the log, then the origin (and the flash, for a power cut) held
# and copied to $T/[lof]I, the writer's list of writes to $T/wI
freeze() {
	_r=0
	dmsetup suspend ld && dmsetup suspend od && { [ -z "$2" ] || dmsetup suspend fd; } || _r=1
	cp $T/wlog "$T/w$1"
	dd if="$lw" of="$T/l$1" bs=1M iflag=direct status=none || _r=1
	dd if="$ow" of="$T/o$1" bs=1M iflag=direct status=none || _r=1
	[ -z "$2" ] || dd if="$fw" of="$T/f$1" bs=1M iflag=direct status=none || _r=1
	[ -z "$2" ] || dmsetup resume fd
	dmsetup resume od
	dmsetup resume ld
	return $_r
}
: >$T/wlog
python3 "$W" write /dev/mapper/vw $T/wlog 1500 $NB 21 &
wp=$!
i=0 torn=0 recs=0
while [ $i -lt 6 ]; do
	sleep 0.5
	freeze $i || fail "freeze-$i" "could not freeze and copy the devices"
	r=$("$CTL" ordered-log show "$T/l$i" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["records_to_apply"])')
	recs=$((recs + ${r:-0}))
	"$CTL" ordered-log replay "$T/l$i" "$T/o$i" >$T/replay.out 2>&1 ||
		fail "replay copy $i" "$(cat $T/replay.out)"
	python3 "$W" check "$T/o$i" $T/wlog $NB >$T/check.out || torn=$((torn + 1))
	info "copy $i: $r records to apply; the origin with them: $(cat $T/check.out)"
	i=$((i + 1))
done
wait $wp && pass "the writer's writes returned" || fail "writer" "the writer failed"
[ $torn = 0 ] && pass "each origin copy with its log replayed holds the volume after one write (6 copies)" ||
	fail "origin + log always a flush point" "$torn of 6 copies torn"
[ $recs -gt 0 ] && pass "the copies' logs held $recs records to apply: the log was in use" ||
	fail "records" "no copy of the log held a record to apply"
ew=$(stats_field pw epochs_written)
info "stats: $(dmsetup message pw 0 stats | tr ' ' '\n' | grep -E '^(epoch|origin_epoch|shadow_blocks|redirects|epochs_written|writeback_batches)=' | tr '\n' ' ')"
[ "${ew:-0}" -gt 0 ] && pass "epochs written back: $ew" || fail "epochs written" "${ew:-?}"

# 5. a power cut under the writer: the log, the origin and the flash frozen
# and copied; the copies loaded: the volume's resume replays the log and
# the volume holds every write acknowledged before the cut (one flush point
# each), then its flush brings the origin to them
python3 "$W" write /dev/mapper/vw $T/wlog 200 $NB 22 &
wp=$!
sleep 2
freeze 9 flash || fail "freeze for the power cut"
wait $wp || fail "writer 2" "the writer failed"
check "a flush" timeout 120 dmsetup message pw 0 flush
dd if=/dev/mapper/vw of=$T/vfinal bs=1M count=2 iflag=direct status=none
check "the volume reads every write" python3 "$W" check $T/vfinal $T/wlog $NB --final
dm_remove vw && dm_remove pw || fail "teardown"
"$CTL" ordered-log show /dev/mapper/ld --json >$T/show.json 2>&1
[ "$(jget $T/show.json records_to_apply)" = 0 ] && pass "a removed volume's log has nothing to apply" ||
	fail "log after removal" "$(cat $T/show.json)"
dd if=/dev/mapper/od of=$T/ofinal bs=1M count=2 iflag=direct status=none
check "the origin alone holds every write" python3 "$W" check $T/ofinal $T/wlog $NB --final
acked=$(($(wc -l <$T/w9) - 1))
for d in f o l; do
	dd if=$T/${d}9 of="$(eval echo \$${d}w)" bs=1M oflag=direct status=none || fail "restore $d"
done
dmesg -C
check "the pool from the cut" fc_pool pw /dev/mapper/fd 64 $OPTS ordered 1
check "the volume from the cut" fc_vol vw pw /dev/mapper/od 5 writeback sequential_cutoff 0 \
	ordered_log /dev/mapper/ld
info "resume: $(dmesg | grep -E 'ordered log' | tail -n 3 | tr '\n' ' ')"
head -n $((acked + 1)) $T/wlog >$T/wcut
dd if=/dev/mapper/vw of=$T/vcut bs=1M count=2 iflag=direct status=none
python3 "$W" check $T/vcut $T/wcut $NB >$T/check.out
e=$(sed -n 's/consistent at \([0-9]*\) of.*/\1/p' $T/check.out)
[ -n "$e" ] && [ "$e" -ge "$acked" ] &&
	pass "after the cut the volume holds the $acked writes acknowledged before it ($(cat $T/check.out))" ||
	fail "after the cut" "$(cat $T/check.out); $acked acknowledged"
check "its flush" timeout 120 dmsetup message pw 0 flush
dm_remove vw && dm_remove pw
dd if=/dev/mapper/od of=$T/ocut bs=1M count=2 iflag=direct status=none
python3 "$W" check $T/ocut $T/wcut $NB >$T/check.out
e=$(sed -n 's/consistent at \([0-9]*\) of.*/\1/p' $T/check.out)
[ -n "$e" ] && [ "$e" -ge "$acked" ] && pass "... and the origin alone holds them" ||
	fail "origin after the cut" "$(cat $T/check.out)"
# the writes made after the cut went with it: the list goes on from the
# cut's last write
head -n "${e:-$acked}" $T/wcut >$T/wlog

# 6. the pool records that the volume writes back through its log
# (FC_VOL_OLOG, the feature bit FC_FEAT_INCOMPAT_OLOG): a table without the
# log is refused while the volume has dirty data, taken once it has none
olog_feature() {
	"$CTL" check --json /dev/mapper/fd 2>/dev/null |
		python3 -c "import json, sys; print(json.load(sys.stdin)['superblock']['ordered_log_feature'])"
}
check "the pool again" fc_pool pw /dev/mapper/fd 64 $OPTS ordered 1
check "the volume with its log again" fc_vol vw pw /dev/mapper/od 5 writeback sequential_cutoff 0 \
	ordered_log /dev/mapper/ld
check "the origin slower" swap_table od "0 $OS delay $ow 0 0 $ow 0 400"
python3 "$W" write /dev/mapper/vw $T/wlog 60 $NB 23 || fail "writer 3" "the writer failed"
check "remove the volume with dirty data" dm_remove vw
dirty=$(status_field pw "$P_DIRTY")
check "remove the pool" dm_remove pw
[ "${dirty:-0}" -gt 0 ] && pass "the volume left $dirty dirty blocks" || fail "dirty left" "${dirty:-?}"
check "fcachectl check accepts the pool" "$CTL" check /dev/mapper/fd
[ "$(olog_feature)" = True ] && pass "its superblock has the ordered log's feature bit" ||
	fail "feature bit" "ordered_log_feature $(olog_feature)"
check "the pool loaded" fc_pool pw /dev/mapper/fd 64 $OPTS ordered 1
refused "a table without the log, the volume dirty" "needs ordered_log" \
	"0 $OS fcache /dev/mapper/pw /dev/mapper/od 5 writeback"
check "the origin fast again" swap_table od "0 $OS delay $ow 0 0 $ow 0 0"
check "the volume with its log" fc_vol vw pw /dev/mapper/od 5 writeback ordered_log /dev/mapper/ld
check "its flush" timeout 120 dmsetup message vw 0 flush
check "remove it clean" dm_remove vw
check "a table without the log, no dirty data" fc_vol vw pw /dev/mapper/od 5 writeback
dd if=/dev/mapper/vw of=$T/vlast bs=1M count=2 iflag=direct status=none
check "... reads every write" python3 "$W" check $T/vlast $T/wlog $NB --final
dm_remove vw && dm_remove pw
[ "$(olog_feature)" = False ] && pass "... and the feature bit is cleared" ||
	fail "feature bit after" "ordered_log_feature $(olog_feature)"

# 7. fcachectl enable --ordered-log: the table and the config file carry
# the log ('up' assembles it so at boot), disable takes both away
o7=$(mk_fast_disk 8) && l7=$(mk_fast_disk 16) && f7=$(mk_fast_disk 32) || die "disks 7"
check "format a log for enable" "$CTL" ordered-log format "$l7" --origin "$o7"
check "a pool for enable" fc_pool p7 "$f7" 64 ordered 1
check "enable --ordered-log" "$CTL" enable "$o7" --pool p7 --ordered-log "$l7" -c $T/fc.conf
n7=fc-$(basename "$o7")
dmsetup table "$n7" | grep -q " ordered_log $(majmin "$l7")\$" && pass "the table names the log" ||
	fail "enable's table" "$(dmsetup table "$n7")"
grep -q "^volume p7 $o7 id=1 mode=writeback name=$n7 ordered_log=$l7\$" $T/fc.conf &&
	pass "the config file records it" || fail "config line" "$(cat $T/fc.conf)"
"$CTL" up --dry-run -c $T/fc.conf >$T/up.out 2>&1
grep -q "ordered_log=$l7" $T/up.out && pass "up --dry-run names it" || fail "up --dry-run" "$(cat $T/up.out)"
dd if=/dev/urandom of=$T/d7 bs=64k count=8 status=none
dd if=$T/d7 of="/dev/mapper/$n7" bs=64k oflag=direct,dsync status=none || fail "write through enable's volume"
check "disable" "$CTL" disable "/dev/mapper/$n7" -c $T/fc.conf
cmp -n 524288 -s $T/d7 "$o7" && pass "the origin holds the writes" ||
	fail "origin after disable" "$(cmp -n 524288 $T/d7 "$o7" 2>&1)"
grep -q "^volume p7" $T/fc.conf && fail "disable's config" "$(cat $T/fc.conf)" ||
	pass "disable took the line away"
dm_remove p7
dmesg_clean
finish
