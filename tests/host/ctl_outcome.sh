#!/bin/sh
# fcachectl check outcomes and check --repair: "not_a_pool" (exit 3: an
# all-zero file, random bytes), "damaged" (exit 1), "leftovers" (exit 0, a
# warning: a superblock slot corrupted next to a good one, page copies above
# md_seq, an unusable page copy) and "clean" (exit 0), in the text report,
# the JSON "outcome" and the exit status; --repair on each of them.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage

# flip IMG PAGE OFFSET: invert one byte of a 4 KiB page
flip() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
f, page, off = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f, "r+b") as fh:
    fh.seek(page * 4096 + off)
    b = fh.read(1)
    fh.seek(page * 4096 + off)
    fh.write(bytes([b[0] ^ 0xff]))
PY
}
# json_is FILE OUTCOME CLEAN: the JSON check report says so
json_is() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == sys.argv[2], d["outcome"]
assert d["clean"] is (sys.argv[3] == "true"), d["clean"]
for k in ("device", "errors", "warnings", "problems"):
    assert k in d, k
PY
}
# outcome NAME IMG RC OUTCOME CLEAN TEXT: check, check --json and dump agree
outcome() {
	name=$1 img=$2 rc=$3 oc=$4 cl=$5 txt=$6
	expect_rc "$rc" "$name: check exits $rc" "$CTL" check "$img"
	grep -q "$txt" "$T/out" && pass "$name: text says '$txt'" || fail "$name: text says '$txt'" "$(tail -n 2 "$T/out")"
	expect_rc "$rc" "$name: check --json exits $rc" "$CTL" check "$img" --json
	json_is "$T/out" "$oc" "$cl" && pass "$name: JSON outcome $oc" || fail "$name: JSON outcome $oc" "$(head -c 300 "$T/out")"
	expect_rc "$rc" "$name: dump exits $rc too" "$CTL" dump "$img"
}

# ---- not a pool: exit 3
head -c 1048576 /dev/zero >"$T/zero.img"
outcome "not a pool (zeros)" "$T/zero.img" 3 not_a_pool false 'not an fcache pool: the device holds no fcache metadata'
"$CTL" check "$T/zero.img" | grep -q '^error: .*holds no fcache metadata' && pass "not a pool (zeros): the error says no fcache metadata" ||
	fail "not a pool (zeros): the error says no fcache metadata"
python3 -c 'import random, sys; random.seed(13); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(1 << 20)))' >"$T/random.img"
outcome "not a pool (random bytes)" "$T/random.img" 3 not_a_pool false 'not an fcache pool'
for f in zero random; do
	cp "$T/$f.img" "$T/$f.0"
	expect_rc 3 "not a pool ($f): check --repair exits 3" "$CTL" check --repair "$T/$f.img"
	grep -q 'holds no fcache metadata: not an fcache pool, nothing to repair, nothing written' "$T/err" &&
		pass "not a pool ($f): --repair says there is nothing to repair" ||
		fail "not a pool ($f): --repair says there is nothing to repair" "$(head -c 300 "$T/err")"
	cmp -s "$T/$f.img" "$T/$f.0" && pass "not a pool ($f): --repair wrote nothing" || fail "not a pool ($f): --repair wrote nothing"
done
# superblocks wiped but the pool's metadata pages there: damage, not "not a pool"
"$MK" "$T/wiped.img" >/dev/null
dd if=/dev/zero of="$T/wiped.img" bs=4096 count=2 conv=notrunc 2>/dev/null
outcome "superblocks wiped" "$T/wiped.img" 1 damaged false 'metadata DAMAGED'
"$CTL" check "$T/wiped.img" | grep -q 'superblocks of a pool were overwritten' && pass "superblocks wiped: says the metadata pages are there" ||
	fail "superblocks wiped: says the metadata pages are there"

# ---- damaged: exit 1
for dmg in overlap vt-dupid sb-both entry-page; do
	"$MK" "$T/d.img" --damage $dmg >/dev/null
	outcome "damaged ($dmg)" "$T/d.img" 1 damaged false 'metadata DAMAGED'
done

# ---- clean: exit 0
"$MK" "$T/good.img" >"$T/truth"
outcome "clean" "$T/good.img" 0 clean true 'metadata clean (0 errors, 0 warnings)$'
"$MK" "$T/nc.img" --damage needs-check >/dev/null
outcome "needs_check set" "$T/nc.img" 0 clean true 'metadata clean'
"$CTL" check --json "$T/nc.img" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["needs_check"] is True and d["outcome"] == "clean", d' &&
	pass "needs_check set: reported apart from the outcome" || fail "needs_check set: reported apart from the outcome"

# ---- harmless leftovers: exit 0 with a warning
# the superblock in use has seq 4 in slot 0 (ctl_mkimage: 4 commits)
cp "$T/good.img" "$T/sbold.img"
flip "$T/sbold.img" 1 300
outcome "older superblock slot corrupted" "$T/sbold.img" 0 leftovers true 'metadata clean (0 errors, 1 warnings), with harmless leftovers'
"$CTL" check "$T/sbold.img" | grep -q '^warning: superblock slot 1 is not usable (checksum mismatch' &&
	pass "older superblock slot corrupted: a warning names the slot" || fail "older superblock slot corrupted: a warning names the slot"
cp "$T/good.img" "$T/sbcur.img"
flip "$T/sbcur.img" 0 200
outcome "current superblock slot corrupted" "$T/sbcur.img" 0 leftovers true 'harmless leftovers'
"$CTL" check --json "$T/sbcur.img" | python3 -c '
import json, sys
d = json.load(sys.stdin)
w = [p for p in d["problems"] if p["kind"] == "superblock_slot"]
assert len(w) == 1 and w[0]["severity"] == "warning" and "header says seq 4" in w[0]["message"], w
assert d["superblock"]["slot"] == 1 and d["superblock"]["seq"] == 3, d["superblock"]
' && pass "current superblock slot corrupted: the older one is used, the warning gives the lost seq" ||
	fail "current superblock slot corrupted: the older one is used, the warning gives the lost seq"
for dmg in leftover torn stale-slot failed-commit; do
	"$MK" "$T/lo-$dmg.img" --damage $dmg >/dev/null
	outcome "leftovers ($dmg)" "$T/lo-$dmg.img" 0 leftovers true 'harmless leftovers'
done

# ---- --repair: what is safe, then clean; damage refused
entries() {
	"$CTL" dump --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for e in d["entries"]:
    print(e["block"], e["volume_slot"], e["oblock"], e["valid"], e["dirty"])
print("volumes", [(v["slot"], v["id"], v["label"], v["origin_sectors"]) for v in d["volumes"]])'
}
for img in nc sbold sbcur lo-leftover lo-torn lo-stale-slot lo-failed-commit good; do
	entries "$T/$img.img" >"$T/before"
	expect_rc 0 "repair $img: check --repair exits 0" "$CTL" check "$T/$img.img" --repair
	grep -q 'zeroed [0-9]* leftover page slots; superblock seq' "$T/out" && pass "repair $img: says what it did" ||
		fail "repair $img: says what it did" "$(tail -n 2 "$T/out")"
	expect_rc 0 "repair $img: check afterwards exits 0" "$CTL" check --json "$T/$img.img"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "clean" and d["needs_check"] is False and d["leftovers"] == 0, d
assert not [p for p in d["problems"] if p["kind"] in ("superblock_slot", "stale_slot", "leftover", "needs_check")], d["problems"]
' "$T/out" && pass "repair $img: then clean, no leftovers, no needs_check" ||
		fail "repair $img: then clean, no leftovers, no needs_check" "$(head -c 400 "$T/out")"
	entries "$T/$img.img" >"$T/after"
	cmp -s "$T/before" "$T/after" && pass "repair $img: entries and volumes unchanged" ||
		fail "repair $img: entries and volumes unchanged" "$(diff "$T/before" "$T/after" | head -3)"
done
"$MK" "$T/st.img" --damage stale-slot >/dev/null
expect_rc 0 "repair stale-slot --json: exits 0" "$CTL" check --json "$T/st.img" --repair
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "leftovers", d["outcome"]
r = d["clear_needs_check"]
assert r["done"] is True and r["zeroed_unusable_copies"] == 1 and r["zeroed_leftovers"] == 0, r
' "$T/out" && pass "repair stale-slot --json: outcome before, one unusable copy zeroed" ||
	fail "repair stale-slot --json: outcome before, one unusable copy zeroed" "$(head -c 400 "$T/out")"
for dmg in overlap vt-dupid sb-both mdseq-above; do
	"$MK" "$T/d.img" --damage $dmg >/dev/null
	cp "$T/d.img" "$T/d0.img"
	expect_rc 1 "repair on $dmg: refused (exit 1)" "$CTL" check "$T/d.img" --repair
	grep -q 'not cleared, nothing written' "$T/err" && grep -q 'cannot be repaired safely' "$T/err" &&
		pass "repair on $dmg: explains the refusal" || fail "repair on $dmg: explains the refusal" "$(head -c 300 "$T/err")"
	cmp -s "$T/d.img" "$T/d0.img" && pass "repair on $dmg: image unchanged" || fail "repair on $dmg: image unchanged"
	expect_rc 1 "repair on $dmg: --json refused (exit 1)" "$CTL" check --repair --json "$T/d.img"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["clear_needs_check"]; assert d["outcome"]=="damaged" and r["done"] is False and "refused" in r, d' "$T/out" &&
		pass "repair on $dmg: JSON says refused" || fail "repair on $dmg: JSON says refused" "$(head -c 300 "$T/out")"
done
