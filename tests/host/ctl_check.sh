#!/bin/sh
# fcachectl check / dump on pool images made by ctl_mkimage (with fc_format.c,
# the way the pool formats and commits): a good image, each kind of damage,
# harmless leftovers of an interrupted commit; --json parsed with python3.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage

# ---- good images, several block sizes: clean, counts as generated
for bs in 64 8 2048; do
	size=64; [ $bs -eq 2048 ] && size=1100
	"$MK" "$T/good.img" --size $size --block-sectors $bs >"$T/truth" || { fail "check: mkimage bs=$bs"; continue; }
	expect_rc 0 "check: good image (block $bs sectors) exits 0" "$CTL" check "$T/good.img"
	grep -q 'metadata clean' "$T/out" && pass "check: good image (block $bs) reported clean" || fail "check: good image (block $bs) reported clean" "$(tail -3 "$T/out")"
	expect_rc 0 "check: --json good image (block $bs)" "$CTL" check --json "$T/good.img"
	if python3 - "$T/out" "$T/truth" "$bs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
truth = {}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] == "volume":
        truth[int(w[1])] = (int(w[3]), int(w[5]), int(w[7]))
    elif w[0] == "seq":
        seq = int(w[1])
assert d["clean"] is True and d["errors"] == 0, d
assert d["superblock"]["block_sectors"] == int(sys.argv[3])
assert d["superblock"]["seq"] == seq
assert d["superblock"]["clean"] is True
vols = {v["slot"]: v for v in d["volumes"]}
assert set(vols) == set(truth), (vols.keys(), truth.keys())
for s, (vid, cached, dirty) in truth.items():
    v = vols[s]
    assert (v["id"], v["cached_blocks"], v["dirty_blocks"]) == (vid, cached, dirty), (v, truth[s])
assert d["dirty_blocks"] == sum(t[2] for t in truth.values())
assert d["used_blocks"] == sum(t[1] for t in truth.values())
PY
	then pass "check: --json counts match the generator (block $bs)"
	else fail "check: --json counts match the generator (block $bs)"; fi
done

# ---- dump: text and JSON agree with each other and with the generator
"$MK" "$T/good.img" >"$T/truth"
expect_rc 0 "dump: good image exits 0" "$CTL" dump "$T/good.img"
cp "$T/out" "$T/dump.txt"
grep -q "label 'vg0-db'" "$T/dump.txt" && pass "dump: text names the volumes" || fail "dump: text names the volumes"
expect_rc 0 "dump: --json exits 0" "$CTL" dump --json "$T/good.img"
if python3 - "$T/out" "$T/dump.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ents = d["entries"]
assert len(ents) == d["used_blocks"], (len(ents), d["used_blocks"])
for e in ents:
    assert e["dirty"] & ~e["valid"] == 0
keys = set((e["volume_slot"], e["oblock"]) for e in ents)
assert len(keys) == len(ents), "duplicate mappings in a good image"
for v in d["volumes"]:
    n = sum(1 for e in ents if e["volume_slot"] == v["slot"] and e["dirty"])
    assert n == v["dirty_blocks"], (v, n)
# text dump has one row per entry with the same fields
rows = {}
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) == 5 and w[0].isdigit() and w[3].startswith("0x"):
        rows[int(w[0])] = (int(w[1]), int(w[2]), int(w[3], 16), int(w[4], 16))
assert len(rows) == len(ents), (len(rows), len(ents))
for e in ents:
    assert rows[e["block"]] == (e["volume_slot"], e["oblock"], e["valid"], e["dirty"]), e
PY
then pass "dump: --json entries consistent and equal to the text dump"
else fail "dump: --json entries consistent and equal to the text dump"; fi

# ---- damage: exit 1 and the right kind of problem, for each kind of block
# kind-of-damage:expected problem kind
for pair in sb-current:superblock_slot sb-both:superblock sb-geometry:geometry \
	vt:volume_table vt-dupid:volume_table vt-dropvol:unused_volume \
	entry-page:entry_page seq-above:entry_page overlap:overlap oob:out_of_bounds \
	unused-vol:unused_volume dirty-not-valid:dirty_not_valid; do
	dmg=${pair%%:*} kind=${pair#*:}
	"$MK" "$T/d.img" --damage "$dmg" >/dev/null || { fail "damage $dmg: mkimage"; continue; }
	expect_rc 1 "damage $dmg: check exits 1" "$CTL" check "$T/d.img"
	grep -q 'metadata DAMAGED' "$T/out" && pass "damage $dmg: reported DAMAGED" || fail "damage $dmg: reported DAMAGED"
	expect_rc 1 "damage $dmg: check --json exits 1" "$CTL" check --json "$T/d.img"
	if python3 - "$T/out" "$kind" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clean"] is False and d["errors"] > 0
kinds = [p["kind"] for p in d["problems"] if p["severity"] == "error"]
assert sys.argv[2] in kinds, kinds
PY
	then pass "damage $dmg: --json reports a $kind error"
	else fail "damage $dmg: --json reports a $kind error" "$(head -c 300 "$T/out")"; fi
	expect_rc 1 "damage $dmg: dump still describes it (exit 1)" "$CTL" dump "$T/d.img"
done
# seq-above names the reason
"$MK" "$T/d.img" --damage seq-above >/dev/null
"$CTL" check "$T/d.img" | grep -q 'above the superblock' && pass "damage seq-above: message says seq above the superblock" || fail "damage seq-above: message says seq above the superblock"

# ---- leftovers recovery handles: exit 0, a warning, same counts as committed
for dmg in stale-slot torn needs-check; do
	"$MK" "$T/d.img" --damage "$dmg" >"$T/truth"
	expect_rc 0 "harmless $dmg: check exits 0" "$CTL" check --json "$T/d.img"
	if python3 - "$T/out" "$T/truth" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clean"] is True and d["warnings"] >= 1, d["problems"]
want = sum(int(l.split()[7]) for l in open(sys.argv[2]) if l.startswith("volume"))
assert d["dirty_blocks"] == want, (d["dirty_blocks"], want)
PY
	then pass "harmless $dmg: warning, committed state kept"
	else fail "harmless $dmg: warning, committed state kept" "$(head -c 300 "$T/out")"; fi
done

# ---- not a pool at all
head -c 1048576 /dev/zero >"$T/zero.img"
expect_rc 1 "check: zeroed device exits 1" "$CTL" check "$T/zero.img"
grep -q 'no fcache superblock' "$T/out" && pass "check: zeroed device says no superblock" || fail "check: zeroed device says no superblock"
head -c 3000 /dev/zero >"$T/tiny.img"
expect_rc 1 "check: truncated device exits 1" "$CTL" check "$T/tiny.img"
"$MK" "$T/good.img" >/dev/null
truncate -s 1M "$T/good.img"
expect_rc 1 "check: device shrunk below the pool exits 1" "$CTL" check --json "$T/good.img"
grep -q 'smaller' "$T/out" && pass "check: shrunk device explained" || fail "check: shrunk device explained"
