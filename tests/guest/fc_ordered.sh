#!/bin/sh
# dm-fcache: ordered write-back (pool option ordered 1, issue 38 item 1;
# docs/DESIGN.md "Ordered write-back").  The crash walk (replay-guest.sh
# ordered=1, make check-crash) checks the origin at every flush point; this
# test is what an admin sees:
#  1. the origin behind a slow device (dm-delay: writeback lags), a writer
#     of 4 KiB O_DSYNC writes (each a flush point) over 40 blocks: at six
#     moments the origin is frozen (dm suspend) and copied; each copy,
#     alone, holds the volume as it was after some write, never a mix
#     (tests/guest/ord_writer.py check);
#  2. rewrites of blocks dirty since an earlier flush copied the block
#     (stats redirects, shadow_blocks) and the volume reads the last write
#     of every block, byte for byte;
#  3. a power cut with shadows on the flash (flash and origin copied at
#     one instant): fcachectl check passes and names the feature, the copy
#     loads with its shadows, reads are right, and the flush message
#     brings the origin to the last write with no shadow left;
#  4. a discard does nothing; ordered with a mirror is refused (table and
#     message);
#  5. ordered_lag 6: the same writer, the origin frozen and copied at four
#     moments: each copy lacks at most 6 (+1: the write in flight) of the
#     writes the writer had made when it froze, flushes waited for the bound
#     (lag_waits), stats' origin_behind never above it, nor the status
#     line's (field 22: above 0 at least once), fcachectl status says how
#     far the origin lags and the bound, --json and --prometheus give
#     origin_behind and the lag in seconds; then the
#     origin fails (dm error): the bound holds no flush back (the writer's
#     O_DSYNC writes return), and once it is back the flush message
#     brings it to the last write.  The test build's mutant ord_no_lag
#     (the bound not enforced) fails part 5;
#  6. ordered 1 set on a running pool holding dirty data written back in
#     no order (the dirty blocks' lists are built then, that data as one
#     epoch older than the rest): the same writer goes on, and every copy
#     of the origin frozen once that data is on it (stats origin_epoch past
#     the epoch the option began) holds the volume after some write; the
#     test build checks the lists whole before every ordered batch (a
#     kernel warning fails dmesg-clean).
FC_T=fc_ordered
. "$FC_TOP/tests/guest/lib.sh"

CTL=$FC_TOP/userspace/fcachectl
W=$FC_TOP/tests/guest/ord_writer.py
T=/tmp/fc_ordered
mkdir -p $T
NB=40
OPTS="writeback_high 100 writeback_low 0 max_dirty_age 0 commit_interval 200 writeback_jobs 2"

load_fcache || die "insmod failed" module-load
# mutant=NAME (with the test build, make fi-module): a bug on purpose, e.g.
# ord_in_place; part 1 must then find torn copies of the origin
mutant_on "${1:-}" "the origin copies must be torn"
modprobe dm-delay || die "no dm-delay" setup
fl=$(mk_fast_disk 8) && fl2=$(mk_fast_disk 8) && org=$(mk_fast_disk 16) &&
	org2=$(mk_fast_disk 16) && fl3=$(mk_fast_disk 8) && fl4=$(mk_fast_disk 8) &&
	fl5=$(mk_fast_disk 8) && org3=$(mk_fast_disk 16) && fl6=$(mk_fast_disk 8) &&
	org4=$(mk_fast_disk 16) || die "disks"
OS=$(dev_sectors "$org")
# od: the origin, writes delayed 20 ms (writeback lags behind the writer)
check origin-delay dm_create od "0 $OS delay $org 0 0 $org 0 20"

rm_both() { dm_remove v && dm_remove p; }
# check_copies NAME PREFIX N LOG: copies PREFIX0..PREFIX(N-1) of the origin
# each hold the volume after one write of LOG, never a mix
check_copies() {
	_i=0 _torn=0
	while [ $_i -lt "$3" ]; do
		python3 "$W" check "$2$_i" "$4" $NB >"$2$_i.check" || _torn=$((_torn + 1))
		info "origin copy $_i: $(cat "$2$_i.check")"
		_i=$((_i + 1))
	done
	[ $_torn = 0 ] && pass "$1 ($3 copies)" || fail "$1" "$_torn of $3 copies of the origin are torn"
}
shadows() { stats_field p shadow_blocks; }
ord_json() {
	"$CTL" check --json "$1" 2>/dev/null |
		python3 -c "import json, sys; print(json.load(sys.stdin)['superblock']['ordered_feature'])"
}

# ---- 1. the origin alone at six moments --------------------------------------
check pool-up fc_pool p "$fl" 64 $OPTS ordered 1
check vol-up fc_vol v p /dev/mapper/od 5 writeback sequential_cutoff 0
: >$T/log
python3 "$W" write /dev/mapper/v $T/log 240 $NB 11 &
wp=$!
i=0
while [ $i -lt 6 ]; do
	sleep 1
	# the origin as it is now (writeback held by the suspend)
	copy_frozen od "$org" "$T/o$i" || fail "freeze-$i" "could not copy the origin"
	i=$((i + 1))
done
wait $wp && pass "writer" || fail "writer" "the writer failed"
check_copies origin-always-a-flush-point $T/o 6 $T/log

# ---- 2. redirects and the volume's data ---------------------------------------
red=$(stats_field p redirects)
[ "${red:-0}" -gt 0 ] && pass "rewrites-copied ($red redirects)" ||
	fail "rewrites-copied" "redirects ${red:-?}: no block dirty from an older epoch was rewritten?"
dd if=/dev/mapper/v of=$T/vol bs=1M count=2 iflag=direct status=none
check volume-reads-last-writes python3 "$W" check $T/vol $T/log $NB --final
info "stats: $(dmsetup message p 0 stats | tr ' ' '\n' | grep -E '^(epoch|origin_epoch|origin_lag|shadow_blocks|redirects|ordered_waits|epochs_written)=' | tr '\n' ' ')"

# ---- 3. a power cut with shadows on the flash --------------------------------
# more rewrites, writeback slower still: shadows pile up
check slower swap_table od "0 $OS delay $org 0 0 $org 0 200"
python3 "$W" write /dev/mapper/v $T/log 60 $NB 12 || fail "writer2" "the writer failed"
dd if=/dev/mapper/v of=$T/vol1 bs=1M count=2 iflag=direct status=none
check volume-reads-last-writes-2 python3 "$W" check $T/vol1 $T/log $NB --final
sleep 0.5	# commit_interval: the last changes recorded
sh0=$(shadows)
check cut copy_frozen od "$fl" "$fl2" "$org" "$org2"
check flush-live timeout 120 dmsetup message p 0 flush
check teardown rm_both
[ "${sh0:-0}" -gt 0 ] && pass "cut-has-shadows ($sh0)" ||
	fail "cut-has-shadows" "shadow_blocks ${sh0:-?} at the cut: the test did not reach the case"
check cut-check "$CTL" check "$fl2"
[ "$(ord_json "$fl2")" = True ] && pass "cut-check-names-feature" ||
	fail "cut-check-names-feature" "fcachectl check --json: ordered_feature $(ord_json "$fl2")"
dmesg -C
check cut-up fc_pool p "$fl2" 64 $OPTS ordered 1
check cut-vol fc_vol v p "$org2" 5 writeback sequential_cutoff 0
ls=$(dmesg | sed -n 's/.*ordered write-back: \([0-9]*\) older versions.*/\1/p' | tail -n 1)
[ "${ls:-0}" -gt 0 ] && pass "cut-loads-shadows ($ls)" ||
	fail "cut-loads-shadows" "the load named no older version (kernel log: ${ls:-none})"
dd if=/dev/mapper/v of=$T/vol2 bs=1M count=2 iflag=direct status=none
check cut-volume-reads-last-writes python3 "$W" check $T/vol2 $T/log $NB --final
info "loaded: $(dmsetup status p) / $(dmsetup message p 0 stats | tr ' ' '\n' | grep -E '^(epoch|origin_epoch|shadow_blocks|redirects|writeback_batches|epochs_written)=' | tr '\n' ' ')"
check cut-flush timeout 120 dmsetup message p 0 flush
info "after the flush: $(dmsetup status p) / $(dmsetup message p 0 stats | tr ' ' '\n' | grep -E '^(epoch|origin_epoch|shadow_blocks|writeback_batches|epochs_written)=' | tr '\n' ' ')"
[ "$(shadows)" = 0 ] && pass "cut-flush-no-shadow" || fail "cut-flush-no-shadow" "shadow_blocks $(shadows)"
dd if="$org2" of=$T/o9 bs=1M count=2 iflag=direct status=none
check cut-origin-final python3 "$W" check $T/o9 $T/log $NB --final

# ---- 4. discards, mirrors ------------------------------------------------------
dd if=/dev/mapper/v of=$T/before bs=1M count=2 iflag=direct status=none
check discard blkdiscard -o 0 -l 1048576 /dev/mapper/v
dd if=/dev/mapper/v of=$T/after bs=1M count=2 iflag=direct status=none
check discard-does-nothing cmp -s $T/before $T/after
check teardown2 rm_both
check_fails mirror-refused fc_pool p "$fl3" 64 ordered 1 mirror "$fl4"
check mirror-up fc_pool p "$fl3" 64 mirror "$fl4"
check_fails mirror-set-refused dmsetup message p 0 ordered 1
check mirror-down dm_remove p

# ---- 5. ordered_lag: the bound on how far the origin lags ---------------------
LAG=6
check lag-origin dm_create ol "0 $OS delay $org3 0 0 $org3 0 20"
check lag-pool-up fc_pool p "$fl5" 64 $OPTS ordered 1 ordered_lag $LAG
check lag-vol-up fc_vol v p /dev/mapper/ol 5 writeback sequential_cutoff 0
: >$T/log5
python3 "$W" write /dev/mapper/v $T/log5 600 $NB 13 &
wp=$!
i=0 maxb=0 maxs=0
while [ $i -lt 4 ]; do
	sleep 1
	b=$(stats_field p origin_behind)
	[ "${b:-0}" -gt $maxb ] && maxb=$b
	# the pool's status line, field 22 (docs/TABLES.md)
	b=$(dmsetup status p | awk '{ print $25 }')
	[ "${b:-0}" -gt $maxs ] && maxs=$b
	if [ $i = 1 ]; then
		"$CTL" status p >$T/status5
		"$CTL" status p --json >$T/status5.json
		"$CTL" status p --prometheus >$T/status5.prom
	fi
	# the writes made when the origin froze: logged before each is issued
	dmsetup suspend ol && wc -l <$T/log5 >$T/n$i &&
		dd if="$org3" of="$T/l$i" bs=1M iflag=direct status=none ||
		fail "lag-freeze-$i" "could not copy the origin"
	dmsetup resume ol
	i=$((i + 1))
done
wait $wp && pass "lag-writer" || fail "lag-writer" "the writer failed"
i=0 over=0 torn=0
while [ $i -lt 4 ]; do
	n0=$(cat $T/n$i)
	if python3 "$W" check $T/l$i $T/log5 $NB >$T/lc$i; then
		e=$(sed -n 's/^consistent at \([0-9]*\) of.*/\1/p' $T/lc$i)
		[ $((n0 - e)) -gt $((LAG + 1)) ] && over=$((over + 1))
		info "origin copy $i: the writer had made $n0 writes, the origin holds $e"
	else
		torn=$((torn + 1))
		info "origin copy $i: $(cat $T/lc$i)"
	fi
	i=$((i + 1))
done
[ $torn = 0 ] && pass "lag-origin-a-flush-point" || fail "lag-origin-a-flush-point" "$torn of 4 copies torn"
[ $over = 0 ] && pass "lag-origin-within-the-bound (ordered_lag $LAG)" ||
	fail "lag-origin-within-the-bound" "$over of 4 copies of the origin lack more than $((LAG + 1)) writes"
[ "$maxb" -le $LAG ] && pass "lag-origin-behind-reported ($maxb at most)" ||
	fail "lag-origin-behind-reported" "origin_behind $maxb, above ordered_lag $LAG"
lw=$(stats_field p lag_waits)
[ "${lw:-0}" -gt 0 ] && pass "lag-flushes-waited ($lw)" ||
	fail "lag-flushes-waited" "lag_waits ${lw:-?}: no flush waited for the bound, the test did not reach it"
grep -q "ordered write-back: .*bound ordered_lag $LAG" $T/status5 && pass "lag-status-says" ||
	fail "lag-status-says" "fcachectl status: $(grep 'ordered' $T/status5)"
info "fcachectl status: $(grep 'ordered write-back' $T/status5)"
# the text's flush points: the status line's field 22, as --json's
tb=$(sed -n 's/.*as they were \([0-9]*\) flush point.*/\1/p' $T/status5)
if { [ -z "$tb" ] && grep -q 'the origins are current' $T/status5; } ||
	{ [ -n "$tb" ] && [ "$tb" -ge 1 ] && [ "$tb" -le $LAG ]; }; then
	pass "lag-status-text-behind (${tb:-0})"
else
	fail "lag-status-text-behind" "fcachectl status: $(grep 'ordered' $T/status5)"
fi
[ "$maxs" -gt 0 ] && [ "$maxs" -le $LAG ] && pass "lag-status-line ($maxs at most)" ||
	fail "lag-status-line" "status field 22 at most $maxs: not in 1..$LAG"
check lag-status-json python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["pools"][0]
b, s = p["origin_behind"], p["origin_lag_seconds"]
sys.exit(not (isinstance(b, int) and isinstance(s, int) and 0 <= b <= int(sys.argv[2])))
' $T/status5.json $LAG
check lag-status-prometheus awk -v lag=$LAG '
	$1 ~ /^fcache_pool_origin_behind_flush_points\{/ { b = 1; if ($2 > lag) bad = 1 }
	$1 ~ /^fcache_pool_origin_lag_seconds\{/ { s = 1 }
	END { exit !(b && s && !bad) }' $T/status5.prom
info "$(grep 'ordered write-back' $T/status5)"
dd if=/dev/mapper/v of=$T/vol5 bs=1M count=2 iflag=direct status=none
check lag-volume-reads-last-writes python3 "$W" check $T/vol5 $T/log5 $NB --final
# the origin fails: writeback cannot bring it closer, so the bound holds no
# flush back (they would hang): the writer's O_DSYNC writes return
check lag-origin-fails swap_table ol "0 $OS error"
check lag-writes-go-on timeout 120 python3 "$W" write /dev/mapper/v $T/log5 30 $NB 14
check lag-log-says sh -c "dmesg | grep -q 'ordered_lag holds no flush back'"
check lag-origin-back swap_table ol "0 $OS delay $org3 0 0 $org3 0 20"
dd if=/dev/mapper/v of=$T/vol6 bs=1M count=2 iflag=direct status=none
check lag-volume-reads-last-writes-2 python3 "$W" check $T/vol6 $T/log5 $NB --final
check lag-unbound dmsetup message p 0 ordered_lag 0
check lag-flush timeout 120 dmsetup message p 0 flush
dd if=/dev/mapper/ol of=$T/o10 bs=1M count=2 iflag=direct status=none
check lag-origin-final python3 "$W" check $T/o10 $T/log5 $NB --final
check lag-teardown rm_both
dm_remove ol

# ---- 6. ordered 1 set on a running pool with dirty data ---------------------
# writes to the origin delayed 100 ms: the data from before the option
# takes seconds to reach it
check live-origin dm_create oe "0 $OS delay $org4 0 0 $org4 0 100"
check live-pool-up fc_pool p "$fl6" 64 $OPTS
check live-vol-up fc_vol v p /dev/mapper/oe 5 writeback sequential_cutoff 0
: >$T/log6
check live-writer-unordered python3 "$W" write /dev/mapper/v $T/log6 240 $NB 15
d0=$(dmsetup status p | awk '{ print $7 }')
[ "${d0:-0}" -gt 0 ] && pass "live-dirty-before ($d0 blocks)" ||
	fail "live-dirty-before" "dirty_blocks ${d0:-?}: nothing for the option to order"
check live-ordered-on dmsetup message p 0 ordered 1
e0=$(stats_field p epoch)
python3 "$W" write /dev/mapper/v $T/log6 100 $NB 16 &
wp=$!
# copies of the origin once the data from before the option is on it
i=0 k=0 before=0
while [ $k -lt 4 ] && [ $i -lt 120 ]; do
	sleep 0.5
	i=$((i + 1))
	oep=$(stats_field p origin_epoch)
	if [ "${oep:-0}" -lt "$e0" ]; then
		before=$((before + 1))
		continue
	fi
	copy_frozen oe "$org4" "$T/e$k" || fail "live-freeze-$k" "could not copy the origin"
	k=$((k + 1))
done
wait $wp && pass "live-writer" || fail "live-writer" "the writer failed"
[ $before -gt 0 ] && pass "live-older-data-first ($before polls)" ||
	fail "live-older-data-first" "origin_epoch was past $e0 at once: the data from before was not seen"
[ $k = 4 ] && pass "live-origin-copies" ||
	fail "live-origin-copies" "$k of 4 copies taken: the data from before the option never reached the origin"
check_copies live-origin-a-flush-point $T/e "$k" $T/log6
ew=$(stats_field p epochs_written)
[ "${ew:-0}" -gt 0 ] && pass "live-epochs-written ($ew)" || fail "live-epochs-written" "epochs_written ${ew:-?}"
dd if=/dev/mapper/v of=$T/vol7 bs=1M count=2 iflag=direct status=none
check live-volume-reads-last-writes python3 "$W" check $T/vol7 $T/log6 $NB --final
check live-flush timeout 120 dmsetup message p 0 flush
dd if=/dev/mapper/oe of=$T/o11 bs=1M count=2 iflag=direct status=none
check live-origin-final python3 "$W" check $T/o11 $T/log6 $NB --final
check live-teardown rm_both
dm_remove oe
dm_remove od
dmesg_clean
finish
