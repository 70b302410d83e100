#!/bin/sh
# Host test of lw_replay against synthetic logs from lw_mklog (an independent
# model of the device): full replays to every crash point, the incremental
# walk, the index, random subsets (+ a torn write) after a crash point,
# determinism of the seed, and bad logs refused.  Prints PASS/FAIL lines.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
B=$top/build/crash
# tmpfs when there is one: every replay ends with an fsync
d=${TMPDIR:-/tmp}
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && d=/dev/shm
T=$d/lwtest.$$
trap 'rm -rf "$T"' EXIT
mkdir -p "$T"
pass() { echo "PASS: crash-host/$1"; }
fail() { echo "FAIL: crash-host/$1${2:+ ($2)}"; FAILS=$((FAILS + 1)); }
FAILS=0
sh "$top/tests/crash/build.sh" || { fail build; exit 1; }
R=$B/lw_replay M=$B/lw_mklog

for cfg in "1 300 256 512" "7 160 64 4096"; do
	set -- $cfg
	seed=$1 n=$2 units=$3 ss=$4
	tag=s$seed-$ss
	E=$T/$tag
	mkdir -p "$E"
	$M gen "$T/$tag.log" "$seed" "$n" "$units" "$ss" "$E" >/dev/null || { fail "$tag-gen"; continue; }
	# list: one line per entry (+ a header), flags as generated
	c=$($R list "$T/$tag.log" | grep -vc '^#')
	[ "$c" -eq "$n" ] && pass "$tag-list-$n-entries" || fail "$tag-list-$n-entries" "$c lines"
	# points: exactly the generator's FLUSH/FUA entries and marks
	$R points "$T/$tag.log" >"$T/$tag.points"
	if cmp -s "$T/$tag.points" "$E/points"; then
		pass "$tag-points ($(grep -vc MARK "$E/points") crash points, $(grep -c MARK "$E/points") marks)"
	else
		fail "$tag-points" "$(diff "$E/points" "$T/$tag.points" | head -n 3 | tr '\n' ' ')"
	fi
	# index: same answers from a saved index
	$R index "$T/$tag.log" "$T/$tag.idx" >/dev/null
	$R -i "$T/$tag.idx" points "$T/$tag.log" | cmp -s - "$E/points" &&
		pass "$tag-index" || fail "$tag-index"
	pts=$(grep -v MARK "$E/points" | cut -d' ' -f1)
	# full replay 0..k onto a zero image, for every crash point
	bad=0 cnt=0
	for k in $pts; do
		cp "$E/zero" "$T/full"
		$R -i "$T/$tag.idx" replay "$T/$tag.log" "$T/full" --to "$k" >/dev/null || { bad=$((bad + 1)); continue; }
		cmp -s "$T/full" "$E/img.$k" || bad=$((bad + 1))
		cnt=$((cnt + 1))
	done
	[ $bad -eq 0 ] && pass "$tag-full-replay ($cnt points exact)" || fail "$tag-full-replay" "$bad of $cnt differ"
	# incremental walk: one image, entries prev+1..k at each point
	cp "$E/zero" "$T/inc"
	prev=-1 bad=0
	for k in $pts; do
		$R -i "$T/$tag.idx" replay "$T/$tag.log" "$T/inc" --from $((prev + 1)) --to "$k" >/dev/null || bad=$((bad + 1))
		cmp -s "$T/inc" "$E/img.$k" || bad=$((bad + 1))
		prev=$k
	done
	[ $bad -eq 0 ] && pass "$tag-incremental" || fail "$tag-incremental" "$bad points differ"
	# random subsets (+ torn writes) of the window after a crash point
	bad=0 changed=0 same=0 diffseed=0 torn=0 cnt=0 i=0
	for k in $pts; do
		i=$((i + 1))
		[ $((i % 2)) = 0 ] && continue
		for s in 1 2; do
			for tear in "" --tear; do
				cp "$E/img.$k" "$T/sub"
				o=$($R -i "$T/$tag.idx" replay "$T/$tag.log" "$T/sub" --from $((k + 1)) --to "$k" --subset "$((k * 10 + s))" $tear) ||
					{ bad=$((bad + 1)); continue; }
				case "$o" in *"torn -"*) ;; *torn*) torn=$((torn + 1)) ;; esac
				r=$($M checksub "$T/$tag.log" "$ss" "$k" "$E/img.$k" "$T/sub") || bad=$((bad + 1))
				[ "${r#changed 0 }" = "$r" ] && changed=$((changed + 1))
				cnt=$((cnt + 1))
				# the same seed gives the same state
				cp "$E/img.$k" "$T/sub2"
				$R -i "$T/$tag.idx" replay "$T/$tag.log" "$T/sub2" --from $((k + 1)) --to "$k" --subset "$((k * 10 + s))" $tear >/dev/null
				cmp -s "$T/sub" "$T/sub2" && same=$((same + 1))
				[ $s = 2 ] && [ -z "$tear" ] && ! cmp -s "$T/sub" "$T/sub1" && diffseed=$((diffseed + 1))
				[ $s = 1 ] && [ -z "$tear" ] && cp "$T/sub" "$T/sub1"
			done
		done
	done
	if [ $bad -eq 0 ] && [ $same -eq $cnt ] && [ $changed -gt $((cnt / 3)) ] && [ $diffseed -gt 0 ] && [ $torn -gt 0 ]; then
		pass "$tag-subsets ($cnt variants: $changed changed the state, $torn torn, reproducible, seeds differ at $diffseed points)"
	else
		fail "$tag-subsets" "$bad bad, $same/$cnt reproducible, $changed changed, $torn torn, seeds differ $diffseed"
	fi
	# negative control: a replay to the wrong point must not match
	# (two consecutive crash points whose states differ)
	k1="" k2="" p0=""
	for k in $pts; do
		if [ -n "$p0" ] && ! cmp -s "$E/img.$p0" "$E/img.$k"; then k1=$p0 k2=$k; break; fi
		p0=$k
	done
	cp "$E/zero" "$T/neg"
	$R replay "$T/$tag.log" "$T/neg" --to "$k1" >/dev/null
	cmp -s "$T/neg" "$E/img.$k2" && fail "$tag-negative-control" "img of point 5 equals point 6" ||
		pass "$tag-negative-control"
	# the subset checker itself catches a write from outside the window
	cp "$E/img.$k1" "$T/neg"
	$R replay "$T/$tag.log" "$T/neg" --from $((k1 + 1)) --to "$k2" >/dev/null
	last=$(echo "$pts" | tail -n 1)
	cp "$E/img.$k1" "$T/neg2"
	$R replay "$T/$tag.log" "$T/neg2" --from $((k1 + 1)) --to "$last" >/dev/null
	if $M checksub "$T/$tag.log" "$ss" "$k1" "$E/img.$k1" "$T/neg2" >/dev/null 2>&1; then
		fail "$tag-checksub-negative" "writes past the next crash point accepted"
	else
		pass "$tag-checksub-negative"
	fi
done

# bad logs: wrong magic, truncated, out-of-range requests
printf 'not a log' >"$T/bad.log"
head -c 4096 /dev/zero >>"$T/bad.log"
$R list "$T/bad.log" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && pass "bad-magic-refused" || fail "bad-magic-refused" "rc $rc"
head -c 20000 "$T/s1-512.log" >"$T/trunc.log"
$R list "$T/trunc.log" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && pass "truncated-log-refused" || fail "truncated-log-refused" "rc $rc"
$R replay "$T/s1-512.log" "$T/full" --to 999999 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass "out-of-range-refused" || fail "out-of-range-refused" "rc $rc"
# cw_work verify-ordered (the ordered walk's check of the origin alone)
# on hand-made images: marks 0..3 (cw1..cw4), sectors 0..63
W=$B/cw_work O=$T/ord.oracle I=$T/ord.img
printf '%s\n' 'W 1 0 8' 'W 2 8 8' 'M cw1 A 2' 'W 3 0 4' 'M cw2 O 3' 'W 4 16 8' 'W 5 8 4' \
	'M cw3 A 5' 'W 6 24 8' 'M cw4 O 6' >"$O"
# ord_img "START NR SEQ" ...: a zero image of 64 sectors with those stamps
ord_img() {
	rm -f "$I"
	head -c 32768 /dev/zero >"$I"
	for _w in "$@"; do
		# shellcheck disable=SC2086
		$W stamp "$I" $_w || return 1
	done
}
# ord_case NAME WANT_RC WANT_LINE DMARK [--bound N]: verify-ordered on $I
ord_case() {
	_n=$1 _rc=$2 _want=$3
	shift 3
	_o=$($W verify-ordered "$I" "$O" "$@" 2>/dev/null)
	_r=$?
	_l=$(echo "$_o" | head -n 1)
	if [ $_r -eq "$_rc" ] && [ "$_l" = "$_want" ]; then
		pass "ordered-$_n"
	else
		fail "ordered-$_n" "rc $_r, '$_l'; wanted rc $_rc, '$_want'"
	fi
}
M1="0 4 3" M0="0 8 1" S2="8 8 2"
ord_img
ord_case zero-initial 0 "verify-ordered: consistent at mark -1 (1 marks behind mark cw1)" cw1
ord_img "$M0"
ord_case window-of-initial 0 "verify-ordered: consistent at mark -1 (0 marks behind mark -)" -
ord_img "$M0" "$S2" "$M1"
ord_case at-mark-1 0 "verify-ordered: consistent at mark 1 (0 marks behind mark cw2)" cw2
ord_img "$M0" "$S2" "$M1" "8 4 5"
ord_case mark-1-plus-window 0 "verify-ordered: consistent at mark 1 (0 marks behind mark cw2)" cw2
ord_img "$M0" "$S2" "$M1" "8 2 5"
ord_case mark-1-plus-torn-write 0 "verify-ordered: consistent at mark 1 (1 marks behind mark cw3)" cw3
ord_img "$M0" "$S2" "$M1" "8 4 5" "24 8 6"
ord_case window-and-later-write 1 "verify-ordered: torn (8 sectors fit no single flush point)" cw4
ord_img "$M0" "$S2" "$M1" "16 8 4" "8 4 5" "24 8 6"
ord_case final-state 0 "verify-ordered: consistent at mark 3 (-2 marks behind mark cw2)" cw2
ord_img "$M0" "$S2" "$M1" "16 8 4" "8 4 5" "24 2 6"
ord_case last-window 0 "verify-ordered: consistent at mark 2 (0 marks behind mark cw3)" cw3
ord_img "$M0" "$S2"
ord_case within-bound 0 "verify-ordered: consistent at mark 0 (3 marks behind mark cw4)" cw4 --bound 3
ord_case older-than-bound 3 "verify-ordered: consistent at mark 0 (3 marks behind mark cw4)" cw4 --bound 2
# a stamp of a write that never covered the sector, the new write of
# sector 0 with the old one of sector 8 (lost in between), a torn sector
ord_img "$M0" "$S2" "32 1 1"
ord_case foreign-stamp 1 "verify-ordered: torn (1 sectors fit no single flush point)" cw1
ord_img "$M0" "$M1" "16 8 4"
ord_case new-over-missing 1 "verify-ordered: torn (8 sectors fit no single flush point)" cw3
ord_img "$M0" "$S2"
printf 'x' | dd of="$I" bs=1 seek=700 conv=notrunc status=none
ord_case torn-sector 1 "verify-ordered: torn (1 sectors fit no single flush point)" cw1
ord_case unknown-mark 2 "" cw9
# on a real workload's oracle: cw_work run (no discards) on a file (O_DIRECT:
# in build/crash where tmpfs refuses it), then images built from its oracle
# at marks k: the state at k, and that plus a random subset of the window
# after k (writes torn at random) must be consistent at k or later; the
# state at k plus the last write of the window after k + 1 must be torn
ord_run() {
	head -c 4194304 /dev/zero >"$1" &&
		$W init "$T/ordr.state" "$T/ordr.oracle" 8192 512 5 &&
		$W run "$1" "$T/ordr.state" "$T/ordr.oracle" - 40 --ckpt 4 --discards 0 >/dev/null 2>"$T/ordr.err"
}
OR=$T/ordr.img
if ! ord_run "$OR"; then
	OR=$B/ordr.$$.img
	trap 'rm -rf "$T" "$OR"' EXIT
	ord_run "$OR" || fail "ordered-real-run" "$(cat "$T/ordr.err")"
fi
O=$T/ordr.oracle I=$T/ordr.case
nm=$(grep -c '^M' "$O")
last=$(grep '^M' "$O" | tail -n 1 | cut -d' ' -f2)
cp "$OR" "$I"
ord_case real-final 0 "verify-ordered: consistent at mark $((nm - 1)) (0 marks behind mark $last)" "$last"
grep -q ' D ' "$O" && fail "ordered-real-no-discards" "the oracle holds discards"
# ord_build K MODE SEED: the image at mark K (MODE at), plus a random subset
# of the window after it (window), or plus the last write of the window
# after the first non-empty windows K' >= K and K' + 1 (late; prints K')
ord_build() {
	head -c 4194304 /dev/zero >"$I"
	awk -v k="$1" -v mode="$2" -v seed="$3" -v out="$T/ordr.k" '
		$1 == "W" { n++; st[n] = $3; nr[n] = $4 }
		$1 == "M" { q[m++] = $4 }
		function Q(i) { return i < 0 ? 0 : i < m ? q[i] : n }
		END {
			srand(seed)
			if (mode == "late") {
				while (k + 2 < m && (Q(k + 1) == Q(k) || Q(k + 2) == Q(k + 1)))
					k++
				if (k + 2 >= m) {
					print "none" >out
					exit
				}
			}
			print k >out
			for (i = 1; i <= Q(k); i++)
				print st[i], nr[i], i
			if (mode == "window")
				for (i = Q(k) + 1; i <= Q(k + 1); i++) {
					if (rand() < 0.4)
						continue
					if (nr[i] > 1 && rand() < 0.3) {
						for (s = 0; s < nr[i]; s++)
							if (rand() < 0.5)
								print st[i] + s, 1, i
					} else
						print st[i], nr[i], i
				}
			if (mode == "late")
				print st[Q(k + 2)], nr[Q(k + 2)], Q(k + 2)
		}' "$O" | $W stamp "$I" -
}
bad=0 cnt=0
for k in -1 0 3 10 17 25 33 40 $((nm - 3)) $((nm - 2)) $((nm - 1)); do
	for mode in at window; do
		for sd in 1 2; do
			[ $mode = at ] && [ $sd = 2 ] && continue
			ord_build "$k" $mode "$((k * 10 + sd))" || { bad=$((bad + 1)); continue; }
			cnt=$((cnt + 1))
			got=$($W verify-ordered "$I" "$O" - 2>/dev/null | sed -n 's/^verify-ordered: consistent at mark \(-*[0-9]*\) .*/\1/p')
			if [ -z "$got" ] || [ "$got" -lt "$k" ]; then
				bad=$((bad + 1))
				[ $bad -le 3 ] && echo "# ordered-real: mark $k $mode seed $sd: $($W verify-ordered "$I" "$O" - 2>&1 | head -n 3 | tr '\n' ' ')"
			fi
		done
	done
	[ "$k" -ge $((nm - 2)) ] && continue
	ord_build "$k" late "$k" || { bad=$((bad + 1)); continue; }
	[ "$(cat "$T/ordr.k")" = none ] && continue
	cnt=$((cnt + 1))
	if $W verify-ordered "$I" "$O" - >/dev/null 2>&1 || [ $? -ne 1 ]; then
		bad=$((bad + 1))
		[ $bad -le 3 ] && echo "# ordered-real: mark $(cat "$T/ordr.k") + a write of the next window not torn: $($W verify-ordered "$I" "$O" - 2>&1 | head -n 2 | tr '\n' ' ')"
	fi
done
if [ $bad -eq 0 ]; then
	pass "ordered-real-oracle ($cnt images of $nm marks)"
else
	fail "ordered-real-oracle" "$bad of $cnt wrong"
fi
[ $FAILS -eq 0 ]
