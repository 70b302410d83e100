#!/bin/sh
# Host tests of `fcachectl bench` against bad input and for the safety of
# the devices it writes (tests/host/bench_input.sh, against files):
# every numeric option refuses nan, inf, out-of-range, fractional counts and
# trailing garbage with exit 2 and one line naming the option, the value and
# what is accepted, within `timeout 20` (a hang fails: --time nan used to
# run forever); prepare and compare refuse a file with a filesystem, swap or
# fcache pool signature without --force, leave it as it was, and take it with
# --force; a previous datafile needs no --force; SIGINT / SIGTERM during run
# and compare stop with the partial report and a clean datafile that the
# next run takes without a prepare.
# The binary is the ASan/UBSan build (make -C userspace asan).
top=$(cd "$(dirname "$0")/../.." && pwd)
BT_NAME=input
. "$top/tests/host/bench_lib.sh"
RC_TIMEOUT=20	# a hang is a failure (rc)

F=$T/data.img
"$CTL" bench prepare "$F" --size 32 >/dev/null 2>&1 || fail prepare-datafile

# bad VERB OPTION VALUE: exit 2 in time, one line naming the option, the
# value and the accepted values.  A value taken by mistake would run (or
# prepare) for real on $F, so an accepted "1e300" shows as a hang.
bad() {
	_v=$1 _o=$2 _a=$3
	case $_v in
	run) set -- bench run "$F" --warmup 0 --time 1 --users 2 --quiet ;;
	prepare) set -- bench prepare "$T/new.img" --size 16 ;;
	compare) set -- bench compare --origin "$F" --flash "$T/flash.img" \
		--configs baseline --users 2 --warmup 0 --time 1 --quiet --output "$T/cmp" ;;
	esac
	_t="$_v$_o=$_a"
	rc "refused:$_t" 2 "$CTL" "$@" "$_o" "$_a"
	if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF -- "bad $_o '$_a'" "$T/err" &&
	   grep -qE '[0-9]\.\.[0-9]|<|uniform' "$T/err"; then
		pass "message:$_t"
	else
		fail "message:$_t" "$(head -n 2 "$T/err" | tr '\n' '|')"
	fi
}
truncate -s 64M "$T/flash.img"

for a in nan inf -inf 1e300 0 -1 0.05 5x 0x10 "" " 5"; do bad run --time "$a"; done
for a in nan -1 1e300 inf; do bad run --warmup "$a"; done
for a in nan -1 1e9; do bad run --report-interval "$a"; done
for a in nan 0 -2 1e9 inf; do bad run --rt-limit "$a"; done
for a in nan 1e30 -1 16MB; do bad run --buffer-pool "$a"; done
for a in nan 1e30 -1 1.5 4294967296; do bad run --seed "$a"; done
for a in nan 0 2000 1.5 inf; do bad run --cleaner-batch "$a"; done
for a in nan -1 1e9; do bad run --cleaner-interval "$a"; done
for a in nan -1; do bad run --inject-stale "$a"; done
for a in 8,x 8,,16 0 5000 1.5 nan 8, ,8; do bad run --users "$a"; done
bad run --users "$(seq -s, 1 33)"
for a in zipf:0.99x zipf:nan zipf:inf zipf:1 zipf:0 zipf:2 zipf: pareto:0.7 pareto:nan \
	 hotset:80 hotset:80:10x hotset:nan:10 hotset:80:100 hotset:101:10 hotset:80:0 \
	 hotset:80:10:5 bogus:1 Uniform; do
	bad run --dist "$a"
done
for a in 16.9 3 128 nan 12; do bad prepare --page-size "$a"; done
for a in nan 1e30 1.5 -1; do bad prepare --size "$a"; done
for a in nan 100 0.5; do bad prepare --log-size "$a"; done
for a in 48 nan 2048 16.5; do bad compare --cache-block "$a"; done
for a in nan 1e30; do bad compare --rounds "$a"; done
for a in nan inf -1 3601 1e300 tpc 5s ""; do bad run --think-time "$a"; done
for a in nan -inf -0.5 4000 TPCC; do bad run --keying-time "$a"; done
for a in nan -1 9 1.5; do bad run --rt-search "$a"; done
for a in x=1 baseline=nan baseline=-1 baseline=1e13 baseline=inf baseline baseline= =5 dm-cache=5x; do
	bad compare --price "$a"
done
rc refused-force-on-run 2 "$CTL" bench run "$F" --force
for a in 64M 64M,64M 1G,1024 64X,1G nan,1G 1e300M,1G -1M,1G 2000G,1G "" ,64M 64M, 64M,,1G M,1G \
	 1,2,3,4,5,6,7,8,9 0x10,1G; do
	bad compare --buffer-pool-sweep "$a"
done

# ---- issue 12: --group-commit, --buffer-pool-sweep, --log-dev
for a in yes ON 1 "" "on "; do
	rc "refused:--group-commit=$a" 2 "$CTL" bench run "$F" --warmup 0 --time 1 --users 2 --quiet \
		--group-commit "$a"
	if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "bad --group-commit '$a' (on or off)" "$T/err"; then
		pass "message:--group-commit=$a"; else fail "message:--group-commit=$a" "$(head -n 1 "$T/err")"; fi
done
rc accepted-group-commit-off 0 "$CTL" bench run "$F" --warmup 0 --time 0.5 --users 2 --quiet --group-commit off
rc sweep-refused-on-run 2 "$CTL" bench run "$F" --warmup 0 --time 1 --users 2 --buffer-pool-sweep 1,2
if grep -q "^fcachectl bench: --buffer-pool-sweep is an option of compare$" "$T/err"; then
	pass sweep-run-message; else fail sweep-run-message "$(head -n 1 "$T/err")"; fi
rc sweep-refused-with-buffer-pool 2 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" \
	--buffer-pool 4 --buffer-pool-sweep 1,2
if grep -q "^fcachectl bench: --buffer-pool-sweep gives the buffer pool sizes; --buffer-pool goes without it$" "$T/err"; then
	pass sweep-buffer-pool-message; else fail sweep-buffer-pool-message "$(head -n 1 "$T/err")"; fi
truncate -s 8M "$T/redo.img"
LRUN="bench run $F --warmup 0 --time 0.5 --users 2 --quiet"
rc logdev-missing 1 "$CTL" $LRUN --log-dev "$T/nosuch.img"
if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^fcachectl bench: --log-dev $T/nosuch.img: No such file or directory (the redo log's device or file must exist)$" "$T/err"; then
	pass logdev-missing-message; else fail logdev-missing-message "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
[ -e "$T/nosuch.img" ] && fail logdev-missing-not-created || pass logdev-missing-not-created
rc logdev-is-datafile 2 "$CTL" $LRUN --log-dev "$F"
if grep -q "^fcachectl bench: --log-dev $F is the datafile itself; the redo log goes to a device of its own$" "$T/err"; then
	pass logdev-is-datafile-message; else fail logdev-is-datafile-message "$(head -n 1 "$T/err")"; fi
ln -sf "$F" "$T/alias.img"
rc logdev-is-datafile-by-link 2 "$CTL" $LRUN --log-dev "$T/alias.img"
rc logdev-is-origin 2 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" --configs baseline \
	--users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmp" --log-dev "$F"
rc logdev-is-flash 2 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" --configs baseline \
	--users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmp" --log-dev "$T/flash.img"
if grep -q "is the flash itself" "$T/err"; then pass logdev-is-flash-message; else
	fail logdev-is-flash-message "$(head -n 1 "$T/err")"; fi
rc logdev-directory 1 "$CTL" $LRUN --log-dev "$T"
rc logdev-empty 2 "$CTL" $LRUN --log-dev ""
rc logdev-refused-on-prepare 2 "$CTL" bench prepare "$T/p8.img" --log-dev "$T/redo.img"
truncate -s 16K "$T/tiny.img"
rc logdev-too-small 1 "$CTL" $LRUN --log-dev "$T/tiny.img"
if grep -q "too small for the redo log" "$T/err"; then pass logdev-too-small-message; else
	fail logdev-too-small-message "$(tail -n 1 "$T/err")"; fi
rc logdev-too-small-datafile-clean 0 "$CTL" $LRUN
chmod 0444 "$T/redo.img"
if [ "$(id -u)" -ne 0 ]; then
	rc logdev-read-only 1 "$CTL" $LRUN --log-dev "$T/redo.img"
else
	echo "SKIP: bench-input/logdev-read-only (root writes a 0444 file)"
fi
chmod 0644 "$T/redo.img"
rc logdev-accepted 0 "$CTL" $LRUN --log-dev "$T/redo.img"

# ---- issue 11: compare --flash2 (a second flash device) and the RAID1 configurations
CMP2="bench compare --origin $F --flash $T/flash.img --users 2 --warmup 0 --time 0.5 --quiet --output $T/cmp"
truncate -s 64M "$T/flash2.img"
for c in dm-writecache-raid1 dm-cache-raid1; do
	rc "flash2-needed:$c" 2 "$CTL" $CMP2 --configs "baseline,$c"
	if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^fcachectl bench: configuration $c is a dm RAID1 of --flash and --flash2: give --flash2 DEV$" "$T/err"; then
		pass "flash2-needed-message:$c"; else fail "flash2-needed-message:$c" "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
done
rc flash2-is-flash 2 "$CTL" $CMP2 --configs baseline --flash2 "$T/flash.img"
if grep -q "^fcachectl bench: --flash2 $T/flash.img is the --flash device itself; the second flash must be a device of its own$" "$T/err"; then
	pass flash2-is-flash-message; else fail flash2-is-flash-message "$(head -n 1 "$T/err")"; fi
ln -sf "$T/flash.img" "$T/flash-alias.img"
rc flash2-is-flash-by-link 2 "$CTL" $CMP2 --configs baseline --flash2 "$T/flash-alias.img"
rc flash2-is-origin 2 "$CTL" $CMP2 --configs baseline --flash2 "$F"
grep -q "is the --origin device itself" "$T/err" && pass flash2-is-origin-message ||
	fail flash2-is-origin-message "$(head -n 1 "$T/err")"
rc flash2-is-logdev 2 "$CTL" $CMP2 --configs baseline --flash2 "$T/redo.img" --log-dev "$T/redo.img"
grep -q "is the --log-dev device itself" "$T/err" && pass flash2-is-logdev-message ||
	fail flash2-is-logdev-message "$(head -n 1 "$T/err")"
rc flash2-missing 1 "$CTL" $CMP2 --configs baseline --flash2 "$T/nosuch2.img"
if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^fcachectl bench: --flash2 $T/nosuch2.img: No such file or directory (the second flash device must exist)$" "$T/err"; then
	pass flash2-missing-message; else fail flash2-missing-message "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
[ -e "$T/nosuch2.img" ] && fail flash2-missing-not-created || pass flash2-missing-not-created
rc flash2-directory 1 "$CTL" $CMP2 --configs baseline --flash2 "$T"
rc flash2-empty 2 "$CTL" $CMP2 --configs baseline --flash2 ""
rc flash2-refused-on-run 2 "$CTL" $LRUN --flash2 "$T/flash2.img"
grep -q "^fcachectl bench: --flash2 is an option of compare$" "$T/err" && pass flash2-run-message ||
	fail flash2-run-message "$(head -n 1 "$T/err")"
rc flash2-refused-on-prepare 2 "$CTL" bench prepare "$T/p9.img" --size 16 --flash2 "$T/flash2.img"
[ -e "$T/p9.img" ] && fail flash2-prepare-nothing-written || pass flash2-prepare-nothing-written
rc flash2-price 0 "$CTL" $CMP2 --configs baseline --flash2 "$T/flash2.img" \
	--price dm-cache-raid1=10 --price dm-writecache-raid1=9 --price fcache-mirrored=8

# the accepted edges still run
rc accepted-values 0 "$CTL" bench run "$F" --warmup 0 --time 0.5 --users 1,2 --quiet \
	--seed 4294967295 --dist zipf:1.2 --cleaner-batch 1 --rt-limit 0.001 \
	--report-interval 0 --buffer-pool 0 --cleaner-interval 0 --think-time 0 --keying-time 0 \
	--rt-search 8
rc accepted-hotset-edges 0 "$CTL" bench run "$F" --warmup 0 --time 0.5 --users 1 --quiet \
	--dist hotset:100:0.5
rc accepted-page-size 0 "$CTL" bench prepare "$T/p8.img" --size 16 --page-size 8.0 --log-size 1

# ---- signatures: refused without --force and left intact, taken with it
# sig_intact FILE: the signature is still there (its magic at its offset)
ext4_intact() {
	python3 -c 'import sys; f = open(sys.argv[1], "rb"); f.seek(1080); sys.exit(f.read(2) != b"\x53\xef")' "$1"
}
swap_intact() {
	python3 -c 'import sys; f = open(sys.argv[1], "rb"); f.seek(4086); sys.exit(f.read(10) != b"SWAPSPACE2")' "$1"
}
# a swap signature without mkswap: version 1, last page, the magic
write_swap() {
	python3 - "$1" <<'EOF'
import struct, sys
f = open(sys.argv[1], "r+b")
f.seek(1024)
f.write(struct.pack("<III", 1, 64 * 256 - 1, 0))
f.seek(4086)
f.write(b"SWAPSPACE2")
EOF
}

S=$T/swap.img
truncate -s 64M "$S"
if command -v mkswap >/dev/null 2>&1; then mkswap "$S" >/dev/null 2>&1 || write_swap "$S"
else write_swap "$S"; fi
rc swap-refused 1 "$CTL" bench prepare "$S"
if grep -q "holds a swap" "$T/err" && grep -q -- "--force" "$T/err"; then
	pass swap-message; else fail swap-message "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
if swap_intact "$S"; then pass swap-left-intact; else fail swap-left-intact; fi
rc swap-logdev-refused 1 "$CTL" bench run "$F" --warmup 0 --time 0.5 --users 2 --quiet --log-dev "$S"
if grep -q "holds a swap" "$T/err" && swap_intact "$S"; then
	pass swap-logdev-message-intact; else fail swap-logdev-message-intact "$(head -n 1 "$T/err")"; fi
cp "$S" "$T/swap-flash2.img"
rc swap-flash2-refused 1 "$CTL" $CMP2 --configs baseline --flash2 "$T/swap-flash2.img"
if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "swap-flash2.img holds a swap" "$T/err" &&
   grep -q -- "--force" "$T/err" && swap_intact "$T/swap-flash2.img"; then
	pass swap-flash2-message-intact; else fail swap-flash2-message-intact "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
rc swap-flash2-force 0 "$CTL" $CMP2 --configs baseline --flash2 "$T/swap-flash2.img" --force
if grep -q "^origin $F, flash $T/flash.img, flash2 $T/swap-flash2.img, configurations: baseline$" "$T/out" &&
   grep -q "^flash $T/swap-flash2.img: discarded (64 MiB)$" "$T/out" &&
   ! swap_intact "$T/swap-flash2.img"; then
	pass swap-flash2-force-header-discarded; else fail swap-flash2-force-header-discarded "$(grep flash2 "$T/out" | head -n 2 | tr '\n' '|')"; fi
python3 - "$T/cmp/results.json" "$F" "$T/flash.img" "$T/swap-flash2.img" <<'EOF2'
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
sys.exit([w["origin"], w["flash"], w["flash2"]] != sys.argv[2:5])
EOF2
[ $? -eq 0 ] && pass flash2-json-devices || fail flash2-json-devices
rc flash2-json-schema 0 python3 "$top/tests/host/bench_check_json.py" "$T/cmp/results.json" --configs baseline --zero-errors
rc flash2-json-schema-all 0 python3 "$top/tests/host/json_schema.py" "$T/cmp/results.json"
rc flash2-again-no-force 0 "$CTL" $CMP2 --configs baseline --flash2 "$T/swap-flash2.img"

E=$T/ext4.img
truncate -s 64M "$E"
if command -v mkfs.ext4 >/dev/null 2>&1 && mkfs.ext4 -q -F "$E" >/dev/null 2>&1; then
	rc ext4-refused 1 "$CTL" bench prepare "$E"
	if grep -q "holds a ext4 filesystem signature" "$T/err" && grep -q -- "--force" "$T/err" &&
	   [ "$(wc -l <"$T/err")" -eq 1 ]; then
		pass ext4-message; else fail ext4-message "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
	if ext4_intact "$E"; then pass ext4-left-intact; else fail ext4-left-intact; fi
	rc ext4-refused-with-size 1 "$CTL" bench prepare "$E" --size 48
	if [ "$(stat -c %s "$E")" -eq 67108864 ] && ext4_intact "$E"; then
		pass ext4-not-truncated; else fail ext4-not-truncated; fi
	rc ext4-compare-origin-refused 1 "$CTL" bench compare --origin "$E" --flash "$T/flash.img" \
		--configs baseline --users 2 --warmup 0 --time 1 --quiet --output "$T/cmp"
	cp "$E" "$T/ext4-flash.img"
	rc ext4-compare-flash-refused 1 "$CTL" bench compare --origin "$F" \
		--flash "$T/ext4-flash.img" --configs baseline --users 2 --warmup 0 --time 1 \
		--quiet --output "$T/cmp"
	if ext4_intact "$T/ext4-flash.img" && grep -q "ext4-flash.img holds a ext4" "$T/err"; then
		pass ext4-flash-left-intact; else fail ext4-flash-left-intact; fi
	rc ext4-compare-force 0 "$CTL" bench compare --origin "$F" --flash "$T/ext4-flash.img" \
		--configs baseline --users 2 --warmup 0 --time 1 --quiet --output "$T/cmp" --force
	cp "$E" "$T/ext4-log.img"
	rc ext4-logdev-refused 1 "$CTL" bench run "$F" --warmup 0 --time 0.5 --users 2 --quiet \
		--log-dev "$T/ext4-log.img"
	if grep -q "ext4-log.img holds a ext4 filesystem signature; the benchmark would overwrite it (--force overrides)" "$T/err" &&
	   ext4_intact "$T/ext4-log.img"; then
		pass ext4-logdev-message-intact; else fail ext4-logdev-message-intact "$(head -n 1 "$T/err")"; fi
	rc ext4-logdev-compare-refused 1 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" \
		--configs baseline --users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmp" \
		--log-dev "$T/ext4-log.img"
	rc ext4-logdev-force 0 "$CTL" bench run "$F" --warmup 0 --time 0.5 --users 2 --quiet \
		--log-dev "$T/ext4-log.img" --force
	rc ext4-prepare-force 0 "$CTL" bench prepare "$E" --force
	rc ext4-forced-runs 0 "$CTL" bench run "$E" --warmup 0 --time 1 --users 2 --quiet
else
	echo "SKIP: bench-input/ext4 (no mkfs.ext4; the swap signature stands in)"
fi
# our own datafile again, and a plain regular file of zeros: no --force needed
rc own-datafile-no-force 0 "$CTL" bench prepare "$F"
rc zeros-no-force 0 "$CTL" bench prepare "$T/flash.img"
rc own-datafile-compare 0 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" \
	--configs baseline --users 2 --warmup 0 --time 1 --quiet --output "$T/cmp"

# an fcache pool image (tests/host/ctl_mkimage.c)
if cc -Wall -Wextra -Werror -I"$top/include" -o "$T/mkimage" "$top/tests/host/ctl_mkimage.c" \
	"$top/engine/fc_format.c" >"$T/build.log" 2>&1 &&
   "$T/mkimage" "$T/pool.img" --size 64 >/dev/null 2>&1; then
	cp "$T/pool.img" "$T/pool0.img"
	rc pool-refused 1 "$CTL" bench prepare "$T/pool.img"
	if grep -q "holds an fcache pool" "$T/err" && cmp -s "$T/pool.img" "$T/pool0.img"; then
		pass pool-message-intact; else fail pool-message-intact "$(head -n 1 "$T/err")"; fi
	rc pool-force 0 "$CTL" bench prepare "$T/pool.img" --force
else
	fail pool-image "$(tail -n 2 "$T/build.log" | tr '\n' ' ')"
fi

# ---- signals: stop cleanly, partial report, datafile clean
"$CTL" bench prepare "$F" >/dev/null 2>&1
sigrun sigint INT 5 "$CTL" bench run "$F" --warmup 0.5 --time 3 --users 2,4,8 \
	--report-interval 1 --json "$T/int.json"
if [ "$got" -eq 130 ]; then pass sigint-run-dies-of-sigint; else
	fail sigint-run-dies-of-sigint "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
if grep -qE '^fcachectl bench: run stopped by SIGINT [0-9.]+ s into the 4-user step, which is left out; the datafile is closed cleanly$' "$T/err"; then
	pass sigint-message; else fail sigint-message "$(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
if grep -qE '^     2 +[0-9.]+ ' "$T/out" && ! grep -qE '^     4 +[0-9.]+ ' "$T/out" &&
   grep -qE '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$T/out"; then
	pass sigint-partial-table; else fail sigint-partial-table "$(tail -n 4 "$T/out" | tr '\n' '|')"; fi
if python3 - "$T/int.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["configs"][0]
assert "SIGINT" in c["interrupted"], c["interrupted"]
assert [s["users"] for s in c["steps"]] == [2], c["steps"]
assert c["steps"][0]["counts"]["transactions"] > 0
EOF
then pass sigint-json; else fail sigint-json; fi
rc sigint-next-run-no-prepare 0 "$CTL" bench run "$F" --warmup 0 --time 1 --users 2 --quiet

sigrun sigterm TERM 1 "$CTL" bench run "$F" --warmup 5 --time 2 --users 2 --quiet
if [ "$got" -eq 143 ] && grep -q "stopped by SIGTERM in the warm-up" "$T/err"; then
	pass sigterm-warmup; else fail sigterm-warmup "exit $got: $(tail -n 1 "$T/err")"; fi
rc sigterm-next-run-no-prepare 0 "$CTL" bench run "$F" --warmup 0 --time 1 --users 2 --quiet

# compare: the first round completes, the second is cut short
sigrun sigint-compare INT 4 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" \
	--configs baseline --rounds 2 --users 2,4 --warmup 0 --time 1 --quiet \
	--output "$T/cmpi"
if [ "$got" -eq 130 ] && grep -q "^fcachectl bench: compare stopped by SIGINT" "$T/err" &&
   grep -q '^summary baseline: ' "$T/out"; then
	pass sigint-compare; else fail sigint-compare "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
if python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["configs"][0]; sys.exit(not (c["interrupted"] and c["steps"]))' "$T/cmpi/results.json" 2>"$T/py.err"; then
	pass sigint-compare-json; else fail sigint-compare-json "$(tail -n 1 "$T/py.err")"; fi
rc sigint-compare-next-run 0 "$CTL" bench run "$F" --warmup 0 --time 1 --users 2 --quiet
