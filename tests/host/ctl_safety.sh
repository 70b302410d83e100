#!/bin/sh
# What an admin types must not lose work (issue 35), on the host:
# a writeback_low/writeback_high pair the kernel refuses (writeback_high=40
# alone: the default low is 50) is refused by pool create and by the config
# file (up --dry-run, udev-probe), with the values and where they come from;
# set decides before it changes anything (ctl_confedit setplan: the
# planner 'set' runs, set_plan.c): a pair refused half-way is refused
# whole, the messages go in an order the target takes one at a time, a
# volume's mode last, the values to put back are the live ones; pool remove
# takes -c/--no-persist and the pool's line (with its volumes' lines) leaves
# the file, which still parses (ctl_confedit pool-gone); wipe erases the
# pool on an image file (check: not_a_pool, exit 3; bench prepare no longer
# sees a pool), refuses dirty data and a damaged pool without --force-dirty
# leaving the image byte for byte as it was, leaves a file without a pool
# alone, removes the pool's lines from the config; what blkid -p, wipefs,
# mkfs.ext4 and mkswap do to a pool image (they do not know it: no
# warning; after mkswap check says damaged, not the commit before); check
# on a file under 8 KiB: not a pool (exit 3), or a pool cut short
# (damaged), never "No space left on device".
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage

# ---- 2. the writeback_low / writeback_high pair, as the kernel checks it
expect_rc 2 "pair: pool create writeback_high=40 (default low 50) refused" \
	"$CTL" pool create p0 /dev/null writeback_high=40
grep -qx "fcachectl: pool: writeback_low must not exceed writeback_high (writeback_low 50, the default; writeback_high 40)" "$T/err" &&
	pass "pair: the reason names both values" || fail "pair: the reason names both values" "$(head -n 1 "$T/err")"
expect_rc 2 "pair: pool create writeback_low=60 writeback_high=55 refused" \
	"$CTL" pool create p0 /dev/null writeback_low=60 writeback_high=55
expect_rc 1 "pair: pool create writeback_low=40 writeback_high=40 passes the check" \
	"$CTL" pool create p0 /dev/null writeback_low=40 writeback_high=40
expect_rc 1 "pair: pool create writeback_low=90 writeback_high=95 passes the check" \
	"$CTL" pool create p0 /dev/null writeback_high=95 writeback_low=90
printf 'pool p0 /dev/fl0 writeback_high=40\n' >"$T/pair.conf"
expect_rc 1 "pair: config writeback_high=40 refused by up --dry-run" "$CTL" up --dry-run -c "$T/pair.conf"
[ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "pair.conf:1: writeback_low must not exceed writeback_high (writeback_low 50, the default; writeback_high 40)" "$T/err" &&
	pass "pair: config: one line, file:line and the values" || fail "pair: config: one line, file:line and the values" "$(cat "$T/err")"
printf 'pool p0 /dev/fl0 writeback_low=81\n' >"$T/pair2.conf"
expect_rc 1 "pair: config writeback_low=81 (default high 80) refused" "$CTL" up --dry-run -c "$T/pair2.conf"
printf 'pool p0 /dev/fl0 writeback_low=10 writeback_high=20\n' >"$T/pair3.conf"
expect_rc 0 "pair: config low 10 high 20 accepted" "$CTL" up --dry-run -c "$T/pair3.conf"

# ---- 7, 3: set's plan and pool remove's config line (ctl_confedit)
if ctl_confedit_build; then
	E=$BIN/ctl_confedit
	plan() {	# plan NAME WANT-RC WANT-OUTPUT KIND TABLE KV...
		_n=$1 _w=$2 _o=$3
		shift 3
		"$E" - setplan "$@" >"$T/out" 2>"$T/err"
		_g=$?
		if [ $_g -eq "$_w" ] && [ "$(tr '\n' '|' <"$T/out")" = "$_o" ]; then pass "set: $_n"; else
			fail "set: $_n" "exit $_g: $(tr '\n' '|' <"$T/out") $(head -c 200 "$T/err")"; fi
	}
	plan "a pair refused half-way is refused before anything (jobs then high 40)" 2 "" \
		pool "253:1 64" writeback_jobs=8 writeback_high=40
	grep -q "writeback_low must not exceed writeback_high (writeback_low 50, the default; writeback_high 40)" "$T/err" &&
		pass "set: the refusal names the pair" || fail "set: the refusal names the pair" "$(cat "$T/err")"
	plan "over a live high 95, low 90 is taken" 0 "writeback_low 90 50|" pool "253:1 64 2 writeback_high 95" \
		writeback_low=90
	plan "raising both: writeback_high first" 0 "writeback_high 99 80|writeback_low 95 50|" \
		pool "253:1 64" writeback_low=95 writeback_high=99
	plan "lowering both: writeback_low first" 0 "writeback_low 10 50|writeback_high 20 70|" \
		pool "253:1 64 2 writeback_high 70" writeback_high=20 writeback_low=10
	plan "a key given twice is refused" 2 "" pool "253:1 64" writeback_jobs=8 writeback_jobs=9
	plan "volume: the cutoff first, the mode (a reload) last" 0 \
		"sequential_cutoff 512 256|mode writethrough writeback reload|" \
		volume "253:2 8:16 1 writeback 2 sequential_cutoff 256" mode=writethrough sequential_cutoff=512
	plan "volume: a bad mode refused" 2 "" volume "253:2 8:16 1 writeback" mode=fast

	C=$T/sub/fcache.conf
	mkdir -p "$T/sub"
	printf '# kept\npool p0 /dev/fl0 writeback_jobs=4\nvolume p0 /dev/v1 id=1\npool p1 /dev/fl1\nvolume p1 /dev/v2 id=2 # db\nvolume p0 /dev/v3 id=3\n' >"$C"
	if "$E" "$C" pool-gone p0 >"$T/out" 2>"$T/err" && ! grep -q ' p0 ' "$C" && grep -qx '# kept' "$C" &&
	   grep -qx 'pool p1 /dev/fl1' "$C" && grep -qx 'volume p1 /dev/v2 id=2 # db' "$C"; then
		pass "remove: the pool's line and its volumes' lines leave the file, the rest stays"
	else
		fail "remove: the pool's line and its volumes' lines leave the file, the rest stays" "$(cat "$T/err" "$C")"
	fi
	expect_rc 0 "remove: the file parses afterwards" "$CTL" up --dry-run -c "$C"
	[ ! -e "$C.fcachectl-new" ] && pass "remove: no temporary file left" || fail "remove: no temporary file left"
	cp "$C" "$T/before"
	expect_rc 0 "remove: a pool not in the file: nothing to do" "$E" "$C" pool-gone p9
	cmp -s "$C" "$T/before" && pass "remove: the file unchanged" || fail "remove: the file unchanged"
	expect_rc 0 "remove: no file: nothing to do" "$E" "$T/none.conf" pool-gone p0
	[ ! -e "$T/none.conf" ] && pass "remove: no file created" || fail "remove: no file created"
else
	fail "set/remove: build ctl_confedit" "$(head -c 600 "$T/cc.log")"
fi
# pool remove takes the config options (it records now); on the host it then fails on device-mapper
expect_rc 1 "remove: pool remove -c FILE accepted" "$CTL" pool remove p0 -c "$T/none.conf"
grep -q "cannot talk to device-mapper" "$T/err" && pass "remove: -c: on to device-mapper" ||
	fail "remove: -c: on to device-mapper" "$(head -n 1 "$T/err")"
expect_rc 1 "remove: pool remove --no-persist accepted" "$CTL" pool remove p0 --no-persist
expect_rc 2 "remove: pool list --no-persist refused" "$CTL" pool list --no-persist

# ---- 4. wipe, and what other tools do to a pool
"$MK" "$T/dirty.img" --size 64 --mdseq >/dev/null 2>&1 && "$MK" "$T/clean.img" --size 64 --mdseq --clean \
	>/dev/null 2>&1 || fail "wipe: ctl_mkimage"
expect_rc 0 "wipe: the clean image is a clean pool" "$CTL" check "$T/clean.img"
cp "$T/dirty.img" "$T/dirty0.img"
expect_rc 1 "wipe: dirty data refused without --force-dirty" "$CTL" wipe "$T/dirty.img" --no-persist
err_one_line "wipe: dirty: one line"
grep -q "197 dirty blocks that the origins of its volumes do not have; nothing changed" "$T/err" &&
	grep -q -- "--force-dirty" "$T/err" && pass "wipe: dirty: the blocks counted, the flag named" ||
	fail "wipe: dirty: the blocks counted, the flag named" "$(cat "$T/err")"
cmp -s "$T/dirty.img" "$T/dirty0.img" && pass "wipe: dirty: the image byte for byte as it was" ||
	fail "wipe: dirty: the image byte for byte as it was"
expect_rc 0 "wipe: --force-dirty erases it" "$CTL" wipe "$T/dirty.img" --force-dirty --no-persist
grep -q "dirty.img: fcache pool erased (.* KiB of superblocks and metadata zeroed), its dirty data lost (--force-dirty)$" "$T/out" &&
	pass "wipe: --force-dirty: says what it did" || fail "wipe: --force-dirty: says what it did" "$(cat "$T/out")"
expect_rc 3 "wipe: check afterwards: not a pool" "$CTL" check "$T/dirty.img"
expect_rc 0 "wipe: a clean pool needs no flag" "$CTL" wipe "$T/clean.img" --no-persist
expect_rc 3 "wipe: clean: check afterwards: not a pool" "$CTL" check "$T/clean.img"
expect_rc 0 "wipe: bench prepare no longer sees a pool" "$CTL" bench prepare "$T/clean.img"
cp "$T/dirty.img" "$T/again.img"
expect_rc 0 "wipe: no pool: nothing to wipe (exit 0)" "$CTL" wipe "$T/again.img" --no-persist
grep -q "holds no fcache pool: nothing to wipe, nothing changed" "$T/out" && cmp -s "$T/dirty.img" "$T/again.img" &&
	pass "wipe: no pool: left alone" || fail "wipe: no pool: left alone" "$(cat "$T/out")"
"$MK" "$T/dam.img" --size 64 --mdseq --damage sb-both >/dev/null 2>&1
cp "$T/dam.img" "$T/dam0.img"
expect_rc 1 "wipe: a damaged pool refused without --force-dirty" "$CTL" wipe "$T/dam.img" --no-persist
grep -q "damaged fcache pool .*whether it holds dirty data cannot be told" "$T/err" && cmp -s "$T/dam.img" "$T/dam0.img" &&
	pass "wipe: damaged: said, left alone" || fail "wipe: damaged: said, left alone" "$(cat "$T/err")"
expect_rc 0 "wipe: a damaged pool with --force-dirty" "$CTL" wipe "$T/dam.img" --no-persist --force-dirty
expect_rc 3 "wipe: damaged: check afterwards: not a pool" "$CTL" check "$T/dam.img"
"$MK" "$T/leg0.img" --size 64 --mdseq --mirror "$T/leg1.img" >/dev/null 2>&1
cp "$T/leg1.img" "$T/leg1-0.img"
expect_rc 0 "wipe: a leg of a mirrored pool" "$CTL" wipe "$T/leg0.img" --no-persist --force-dirty
grep -q "was leg 0 of a mirrored pool: its partner still holds the pool" "$T/err" && cmp -s "$T/leg1.img" "$T/leg1-0.img" &&
	pass "wipe: a leg: the partner named and untouched" || fail "wipe: a leg: the partner named and untouched" "$(cat "$T/err")"
# the config: the pool's line and its volumes leave it
"$MK" "$T/conf.img" --size 64 --mdseq --clean >/dev/null 2>&1
printf 'pool pw %s writeback_jobs=4\nvolume pw /dev/v1 id=1\npool p1 /dev/fl1\n' "$T/conf.img" >"$T/w.conf"
expect_rc 0 "wipe: -c FILE" "$CTL" wipe "$T/conf.img" -c "$T/w.conf"
[ "$(cat "$T/w.conf")" = "pool p1 /dev/fl1" ] && pass "wipe: the pool's lines left the config" ||
	fail "wipe: the pool's lines left the config" "$(cat "$T/w.conf")"
printf 'pool p0 /dev/fl0\nvolume p0 /dev/v1 id=1 id=1\n' >"$T/broken.conf"
"$MK" "$T/conf.img" --size 64 --mdseq --clean >/dev/null 2>&1
cp "$T/conf.img" "$T/conf0.img"
expect_rc 1 "wipe: a broken config stops it first" "$CTL" wipe "$T/conf.img" -c "$T/broken.conf"
cmp -s "$T/conf.img" "$T/conf0.img" && pass "wipe: broken config: nothing written" || fail "wipe: broken config: nothing written"
expect_rc 2 "wipe: no device" "$CTL" wipe
expect_rc 2 "wipe: two devices" "$CTL" wipe "$T/conf.img" "$T/dam.img"
expect_rc 2 "wipe: unknown option" "$CTL" wipe "$T/conf.img" --force
mkfifo "$T/fifo"
expect_rc 1 "wipe: a FIFO refused at once" timeout 10 "$CTL" wipe "$T/fifo"
expect_rc 0 "wipe: --help" "$CTL" wipe --help
grep -q -- "--force-dirty" "$T/out" && pass "wipe: --help names --force-dirty" || fail "wipe: --help names --force-dirty"
"$CTL" --help >"$T/help"
grep -q "^  wipe " "$T/help" && pass "wipe: listed by --help" || fail "wipe: listed by --help"
grep -q "^\.B wipe\|^\.SS wipe\|wipe DEVICE" "$top/man/fcachectl.8" && pass "wipe: in the man page" || fail "wipe: in the man page"
comp_fake
cmp_out "wipe: completion offers the verb" "wipe" fcachectl wi
cmp_out "wipe: completion offers its options" "--force-dirty" fcachectl wipe /dev/x --force
cmp_out "remove: completion offers pool remove's config options" "--no-persist" fcachectl pool remove p0 --no
grep -q '^\* \*\*wipe\*\*' "$top/docs/FCACHECTL.md" && pass "wipe: in docs/FCACHECTL.md" || fail "wipe: in docs/FCACHECTL.md"

# what the common tools do to a pool image: they do not know fcache
"$MK" "$T/tool.img" --size 64 --mdseq >/dev/null 2>&1
blkid -p "$T/tool.img" >"$T/out" 2>&1
b=$?
[ $b -eq 2 ] && [ ! -s "$T/out" ] && pass "tools: blkid -p finds nothing on a pool (exit 2)" ||
	fail "tools: blkid -p finds nothing on a pool (exit 2)" "exit $b: $(cat "$T/out")"
if command -v wipefs >/dev/null 2>&1; then
	cp "$T/tool.img" "$T/wipefs.img"
	wipefs -a "$T/wipefs.img" >"$T/out" 2>&1
	[ ! -s "$T/out" ] && cmp -s "$T/tool.img" "$T/wipefs.img" &&
		pass "tools: wipefs -a neither sees nor erases a pool" || fail "tools: wipefs -a neither sees nor erases a pool" "$(cat "$T/out")"
fi
if command -v mkfs.ext4 >/dev/null 2>&1; then
	cp "$T/tool.img" "$T/mkfs.img"
	mkfs.ext4 -F "$T/mkfs.img" >"$T/out" 2>&1
	if ! grep -qi "contains\|fcache\|proceed anyway" "$T/out"; then
		pass "tools: mkfs.ext4 overwrites a pool without a warning"
	else
		fail "tools: mkfs.ext4 overwrites a pool without a warning" "$(head -n 3 "$T/out")"
	fi
	expect_rc 3 "tools: after mkfs.ext4 check finds no pool (the dirty data is gone)" "$CTL" check "$T/mkfs.img"
fi
# mkswap zeroes the first KiB and signs the end of the first 4 KiB:
# superblock slot 0 fails as a torn write would, slot 1 is the commit
# before the last; check must not take it (the kernel refuses it too)
if command -v mkswap >/dev/null 2>&1; then
	cp "$T/tool.img" "$T/swap.img"
	expect_rc 0 "tools: mkswap over a pool image runs" mkswap "$T/swap.img"
	expect_rc 1 "tools: after mkswap check says damaged, not the commit before" "$CTL" check "$T/swap.img"
	grep -q "superblock slot 0 ends with mkswap's signature" "$T/out" && ! grep -q "slot 1 (seq" "$T/out" &&
		pass "tools: after mkswap check names the swap signature" ||
		fail "tools: after mkswap check names the swap signature" "$(cat "$T/out")"
	expect_rc 1 "tools: after mkswap check --json" "$CTL" check --json "$T/swap.img"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["outcome"] == "damaged", d' "$T/out" 2>/dev/null &&
		pass "tools: after mkswap JSON outcome damaged" || fail "tools: after mkswap JSON outcome damaged" "$(cat "$T/out")"
	expect_rc 1 "tools: after mkswap wipe wants --force-dirty" "$CTL" wipe "$T/swap.img" --no-persist
	# a swap area that never held a pool is no pool, not a damaged one
	head -c 4194304 /dev/zero >"$T/plainswap.img"
	mkswap "$T/plainswap.img" >/dev/null 2>&1
	expect_rc 3 "tools: a plain swap area: check says not a pool" "$CTL" check "$T/plainswap.img"
fi

# ---- 8. check on a file under 8 KiB
head -c 100 /dev/zero >"$T/small.img"
expect_rc 3 "small: check on 100 bytes: not a pool (exit 3)" "$CTL" check "$T/small.img"
grep -q "small.img is 100 bytes: too small to hold an fcache pool (its two superblock slots alone take 8192 bytes)" "$T/out" &&
	! grep -q "No space left" "$T/out" && pass "small: says so, no ENOSPC" || fail "small: says so, no ENOSPC" "$(cat "$T/out")"
expect_rc 3 "small: check --json: not_a_pool" "$CTL" check --json "$T/small.img"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["outcome"] == "not_a_pool", d' "$T/out" 2>/dev/null &&
	pass "small: JSON outcome not_a_pool" || fail "small: JSON outcome not_a_pool" "$(cat "$T/out")"
: >"$T/empty.img"
expect_rc 3 "small: an empty file: not a pool" "$CTL" check "$T/empty.img"
head -c 4096 "$T/tool.img" >"$T/cut.img"
expect_rc 1 "small: a pool cut short at 4 KiB: damaged" "$CTL" check "$T/cut.img"
grep -q "cut.img is 4096 bytes, cut short: it begins with an fcache superblock" "$T/out" && ! grep -q "No space left" "$T/out" &&
	pass "small: cut short: says so" || fail "small: cut short: says so" "$(cat "$T/out")"
expect_rc 3 "small: dump on 100 bytes: exit 3" "$CTL" dump "$T/small.img"
