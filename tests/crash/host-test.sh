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
[ $FAILS -eq 0 ]
