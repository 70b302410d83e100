#!/bin/sh
# make check-crash: at least N crash points (default 2000), replayed and
# checked in as many guest boots as needed (tests/crash/replay-guest.sh,
# FC_CRASH_PER_BOOT points per boot over block sizes FC_CRASH_SIZES),
# ending with exactly the line
#   crash points: <n> replayed, <l> lost, <s> stale, <c> check failures
# Every boot gives FC_CRASH_MIRROR_SHARE percent (25) of its points to a
# mirrored pool (replay-guest.sh mirror_points=: a leg fails at run time, a
# new device replaces it, crash points fall in the resync), at one block
# size of FC_CRASH_SIZES in turn; a line per mode before the last one.
# Then two walks of the test build (build/fi/dm-fcache.ko: make fi-module)
# must be caught: a mirrored one with mutant_flush_one_leg (commits flush
# one leg only), a one-device one with mutant_keep_clean (an unclean load
# keeps the clean blocks too: issue 38's warm restart done naively), and
# two of FC_CRASH_QUICK_POINTS (100) with mutant_quick_unsynced (a quick
# write, to dirty sub-blocks, not reckoned with by the next flush) and
# mutant_flush_direct_none (a flush sent on to the flash from map
# completed without it), caught at the sync path's checkpoints.
# Then a warm walk (FC_CRASH_WARM_POINTS, 200: warm_restart 1, blocks read
# in kept at each crash), its line before the last one
#   warm points: <n> replayed, <s> stale reads
# and its mutant warm_no_wait (writes to warm blocks before their commit).
# Then an ordered walk (FC_CRASH_ORDERED_POINTS, default 500; 0: off;
# replay-guest.sh ordered=1: at each
# point the origin alone must be the volume at one flush point plus writes
# of the window after it, and with the pool option ordered_lag
# FC_CRASH_ORDERED_LAG (4; 0: none) at most that many marks behind the
# point's durable mark, or FC_CRASH_ORDERED_BOUND), its line before the last one
#   ordered points: <n> replayed, <t> torn, <o> older than the bound
# With it, tests/guest/fc_ordered_fs.sh: ext4 and a database-like writer on
# an ordered volume, the flash destroyed at 20 moments (its line
# "ordered filesystem: ..." before the ordered walk's).
# Exit 0 only if all counts are 0, n >= N, the warm walk kept blocks,
# every mutant was caught and the ordered walk (when on) replayed points,
# none torn or older than the bound.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/suite-lib.sh"
want=${1:-2000}
per=${FC_CRASH_PER_BOOT:-700}
sizes=${FC_CRASH_SIZES:-"64 32 8"}
txns=${FC_CRASH_TXNS:-60}
share=${FC_CRASH_MIRROR_SHARE:-25}
base=${FC_CRASH_SEED:-$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') * 10 + 1 ))}
N=0 L=0 S=0 C=0 boot=0 rc=0
MN=0 ML=0 MS=0 MC=0
t0=$(date +%s)
sh "$top/tests/crash/build.sh" || { echo "check-crash: cannot build the tools"; exit 2; }
need_module check-crash || exit 2
hold_vm_lock check-crash || exit 2
maxboots=$(( (want + per - 1) / per + 2 ))
while [ "$N" -lt "$want" ] && [ "$boot" -lt "$maxboots" ]; do
	boot=$((boot + 1))
	seed=$((base + boot))
	left=$((want - N))
	p=$per
	[ "$left" -lt "$p" ] && p=$left
	[ "$p" -lt 50 ] && p=50
	res=$top/build/vm/results-crash-replay-$boot
	rm -rf "$res"
	mkdir -p "$res"
	b0=$(date +%s)
	mp=$((p * share / 100))
	# the mirrored walk's block size: each of the sizes in turn
	# shellcheck disable=SC2086
	set -- $sizes
	shift $(( (boot - 1) % $# ))
	mbs=$1
	echo "# check-crash boot $boot: $((p - mp)) points, sizes $sizes; $mp mirrored, size $mbs; seed $seed"
	guest_run check-crash-$boot --results "$res" --timeout $((900 + p * 6)) \
		tests/crash/replay-guest.sh "$((p - mp))" "$seed" "$sizes" "$txns" mirror_points=$mp mirror_bs=$mbs || rc=1
	if [ -s "$res/counts" ]; then
		read -r n l s c <"$res/counts"
		N=$((N + n)) L=$((L + l)) S=$((S + s)) C=$((C + c))
		mn=0 ml=0 ms=0 mc=0
		if [ -s "$res/counts-mirror" ]; then
			read -r mn ml ms mc <"$res/counts-mirror"
			MN=$((MN + mn)) ML=$((ML + ml)) MS=$((MS + ms)) MC=$((MC + mc))
		fi
		echo "# boot $boot: $n replayed ($mn mirrored), $l lost, $s stale, $c check failures in $(($(date +%s) - b0)) s"
		[ -s "$res/failures" ] && head -n 20 "$res/failures" | sed 's/^/# /'
	else
		echo "# boot $boot wrote no counts (see build/test-logs/check-crash-$boot.console)"
		rc=1
	fi
done
# mutant NAME POINTS SIZES TXNS ARGS...: a walk of the test build
# (build/fi/dm-fcache.ko, make fi-module) with module parameter
# mutant_NAME on must find failures
fi_ko=$top/build/fi/dm-fcache.ko
mutant() {
	_m=$1 _p=$2 _s=$3 _t=$4
	shift 4
	mres=$top/build/vm/results-crash-mutant-$_m
	rm -rf "$mres"
	mkdir -p "$mres"
	if [ ! -f "$fi_ko" ]; then
		echo "# no $fi_ko (make fi-module): the $_m mutant was not run"
		rc=1
	elif { FC_KO=$fi_ko guest_run check-crash-mutant-$_m --results "$mres" --timeout 1500 \
		tests/crash/replay-guest.sh "$_p" "$base" "$_s" "$_t" "$@" \
		mutant="$_m" >"$mres/out" 2>&1; grep -q "^PASS: .*mutant-$_m-caught" "$mres/out"; }; then
		grep "^PASS: .*mutant-$_m-caught" "$mres/out" | sed 's/^PASS: /# mutant caught: /'
	else
		echo "# the $_m mutant was NOT caught ($mres/out):"
		grep -E '^(PASS|FAIL): ' "$mres/out" | sed 's/^/#   /'
		rc=1
	fi
}
# the mutant only a log per device can see: commits flush leg 0 and not
# leg 1; the mirrored walk must find failures (leg 1 alone holds a
# superblock whose pages it never made durable)
mutant flush_one_leg "${FC_CRASH_MUTANT_POINTS:-40}" 64 20 mirror=1
# issue 38's warm restart: an unclean load that keeps every clean block
# its metadata names (what the running pool does not order for: a block
# reused, a write around it or in place since the commit) must be seen
mutant keep_clean "${FC_CRASH_MUTANT_POINTS:-40}" 64 60
# issue 34's quick writes (their end takes no pool lock): one the next
# flush does not reckon with must be seen (stale data after the crash):
# at the checkpoints of the sync path's phases (replay-guest.sh walks the
# crash point before each of their fdatasyncs; the spread points alone met
# it at a few in a hundred)
mutant quick_unsynced "${FC_CRASH_QUICK_POINTS:-100}" "64 32" 60
# issue 33's sync path: a flush that needs only the flash's, sent on to it
# from map, completed unsent must be seen the same way
mutant flush_direct_none "${FC_CRASH_QUICK_POINTS:-100}" "64 32" 60
# issue 38's warm restart: one-device walks with warm_restart 1 (blocks
# read in kept after each crash, every one checked against the oracle and
# the origin); its own line, and a mutant that lets writes to warm blocks
# go on before their commit must be caught
wwant=${FC_CRASH_WARM_POINTS:-200}
WN=0 WS=0 WL=0 WC=0 WP=0 WB=0
wres=$top/build/vm/results-crash-warm
rm -rf "$wres"
mkdir -p "$wres"
guest_run check-crash-warm --results "$wres" --timeout $((900 + wwant * 6)) \
	tests/crash/replay-guest.sh "$wwant" "$((base + 500))" "64 32" "$txns" warm=1 || rc=1
if [ -s "$wres/counts-warm" ] && [ -s "$wres/counts" ]; then
	read -r WN WS WP WB <"$wres/counts-warm"
	read -r _n WL _s WC <"$wres/counts"
	[ -s "$wres/failures" ] && head -n 20 "$wres/failures" | sed 's/^/# /'
	echo "# warm restart: $WP of $WN points kept clean blocks ($WB in all); $WL lost, $WC check failures"
	if [ "$WN" -lt "$wwant" ] || [ "$WS" -ne 0 ] || [ "$WL" -ne 0 ] || [ "$WC" -ne 0 ] || [ "$WP" -eq 0 ]; then
		rc=1
	fi
else
	echo "# the warm walk wrote no counts (see build/test-logs/check-crash-warm.console)"
	rc=1
fi
mutant warm_no_wait "${FC_CRASH_MUTANT_POINTS:-40}" "64 32" 60 warm=1
# the pool option ordered 1: the origin alone (every flash device lost) is
# the volume at one flush point plus writes of the window after it;
# FC_CRASH_ORDERED_POINTS=0 skips it; then its mutants ord_in_place
# (rewrites of older epochs in place) and ord_link_head (blocks that become
# dirty head their volume's dirty list: later epochs written back first)
# must leave torn origins, ord_no_lag (ordered_lag not enforced) origins
# older than the bound
owant=${FC_CRASH_ORDERED_POINTS:-500}
olag=${FC_CRASH_ORDERED_LAG:-4}
[ "$olag" = 0 ] && olag=
ON=0 OT=0 OO=0
if [ "$owant" -gt 0 ]; then
	ores=$top/build/vm/results-crash-ordered
	rm -rf "$ores"
	mkdir -p "$ores"
	guest_run check-crash-ordered --results "$ores" --timeout $((900 + owant * 6)) \
		tests/crash/replay-guest.sh "$owant" "$((base + 700))" "64 32" "$txns" ordered=1 \
		${olag:+ordered_lag=$olag} ${FC_CRASH_ORDERED_BOUND:+ordered_bound=$FC_CRASH_ORDERED_BOUND} || rc=1
	if [ -s "$ores/counts-ordered" ] && [ -s "$ores/counts" ]; then
		read -r ON OT OO <"$ores/counts-ordered"
		read -r _n _l _s _c <"$ores/counts"
		[ -s "$ores/ordered-failures" ] && head -n 20 "$ores/ordered-failures" | sed 's/^/# ordered: /'
		[ -s "$ores/failures" ] && head -n 20 "$ores/failures" | sed 's/^/# /'
		echo "# ordered walk: $ON points, $OT torn, $OO older than the bound; $_l lost, $_s stale, $_c check failures"
		if [ "$ON" -eq 0 ] || [ "$OT" -ne 0 ] || [ "$OO" -ne 0 ] || [ "$_l" -ne 0 ] || [ "$_s" -ne 0 ] || [ "$_c" -ne 0 ]; then
			rc=1
		fi
	else
		echo "# the ordered walk wrote no counts (see build/test-logs/check-crash-ordered.console)"
		rc=1
	fi
	mutant ord_in_place "${FC_CRASH_MUTANT_POINTS:-40}" "64 32" 60 ordered=1
	mutant ord_link_head "${FC_CRASH_MUTANT_POINTS:-40}" "64 32" 60 ordered=1
	mutant ord_no_lag "${FC_CRASH_MUTANT_POINTS:-40}" "64 32" 60 ordered=1 ordered_lag=4
	# a filesystem on the origin alone, the flash destroyed at 20 moments
	fres=$top/build/vm/results-crash-ordered-fs
	rm -rf "$fres"
	mkdir -p "$fres"
	guest_run check-crash-ordered-fs --results "$fres" --timeout 1500 \
		tests/guest/fc_ordered_fs.sh 20 >"$fres/out" || rc=1
	grep -E '^(# round|# records|FAIL)' "$SUITE_OUT/check-crash-ordered-fs.console" 2>/dev/null |
		tr -d '\r' | tail -n 24
	grep '^FAIL' "$fres/out"
	OFS=$(sed -n 's/^PASS: .*origin-alone-mounts-and-holds-a-prefix (\([0-9]*\) rounds).*/\1/p' "$fres/out")
else
	echo "# the ordered walk is off (FC_CRASH_ORDERED_POINTS=0)"
fi
echo "# check-crash: $boot boots, $(($(date +%s) - t0)) s"
echo "crash points, one device: $((N - MN)) replayed, $((L - ML)) lost, $((S - MS)) stale, $((C - MC)) check failures"
echo "crash points, mirrored: $MN replayed, $ML lost, $MS stale, $MC check failures"
echo "warm points: $WN replayed, $WS stale reads"
[ "$owant" -gt 0 ] && echo "ordered filesystem: ${OFS:-0} of 20 flash losses left an origin that mounts and holds a prefix of the records"
[ "$owant" -gt 0 ] && echo "ordered points: $ON replayed, $OT torn, $OO older than the bound"
echo "crash points: $N replayed, $L lost, $S stale, $C check failures"
[ "$rc" -eq 0 ] && [ "$N" -ge "$want" ] && [ "$L" -eq 0 ] && [ "$S" -eq 0 ] && [ "$C" -eq 0 ]
