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
for pair in sb-both:superblock sb-geometry:geometry \
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
assert d["clean"] is False and d["errors"] > 0 and d["outcome"] == "damaged"
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
# (sb-current: the superblock in use is corrupted, recovery takes the other
# slot, as after a torn superblock write)
for dmg in stale-slot torn needs-check sb-current; do
	"$MK" "$T/d.img" --damage "$dmg" >"$T/truth"
	expect_rc 0 "harmless $dmg: check exits 0" "$CTL" check --json "$T/d.img"
	if python3 - "$T/out" "$T/truth" "$dmg" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["clean"] is True and d["warnings"] >= 1, d["problems"]
assert d["outcome"] == ("clean" if sys.argv[3] == "needs-check" else "leftovers"), d["outcome"]
want = sum(int(l.split()[7]) for l in open(sys.argv[2]) if l.startswith("volume"))
assert d["dirty_blocks"] == want, (d["dirty_blocks"], want)
PY
	then pass "harmless $dmg: warning, committed state kept"
	else fail "harmless $dmg: warning, committed state kept" "$(head -c 300 "$T/out")"; fi
done

# ---- the leftover rule (include/fcache_format.h): valid page slots above
# the superblock's md_seq are harmless leftovers, counted in the JSON
# good images with the md_seq feature bit, and without it (an older module)
for f in --mdseq ""; do
	"$MK" "$T/good.img" $f >"$T/truth"
	expect_rc 0 "leftover: good image ${f:-without the feature bit} exits 0" "$CTL" check --json "$T/good.img"
	if python3 - "$T/out" "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sb = d["superblock"]
assert d["clean"] is True and d["warnings"] == 0, d["problems"]
assert d["leftovers"] == 0 and d["leftover_slots"] == [] and d["needs_check"] is False
assert sb["md_seq_feature"] is (sys.argv[2] == "--mdseq") and sb["md_seq"] == sb["seq"], sb
PY
	then pass "leftover: good image ${f:-without the feature bit}: no leftovers, md_seq = seq"
	else fail "leftover: good image ${f:-without the feature bit}: no leftovers, md_seq = seq" "$(head -c 300 "$T/out")"; fi
done

# leftover: pages 1, 2 at S+1 above md_seq S of superblock S+1 (feature bit)
# leftover-nc: the volume table at S+1 with FC_HDR_NEEDS_CHECK
# torn: no feature bit (M = S), one page at S+1
# kind:leftovers:needs_check
for t in leftover:2:0 leftover-nc:1:1 failed-commit:2:1 torn:1:0; do
	dmg=${t%%:*} rest=${t#*:}
	nlo=${rest%%:*} nc=${rest#*:}
	"$MK" "$T/d.img" --damage "$dmg" >"$T/truth"
	expect_rc 0 "leftover $dmg: check exits 0" "$CTL" check "$T/d.img"
	grep -q '^warning: .*leftover seq' "$T/out" && pass "leftover $dmg: text warns about a leftover" ||
		fail "leftover $dmg: text warns about a leftover" "$(head -c 300 "$T/out")"
	if [ "$nc" = 1 ]; then
		grep -q 'needs_check' "$T/out" && pass "leftover $dmg: text reports needs_check" ||
			fail "leftover $dmg: text reports needs_check"
	fi
	expect_rc 0 "leftover $dmg: check --json exits 0" "$CTL" check --json "$T/d.img"
	if python3 - "$T/out" "$T/truth" "$nlo" "$nc" "$dmg" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
nlo, nc, dmg = int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
assert d["clean"] is True and d["errors"] == 0, d["problems"]
kinds = [p["kind"] for p in d["problems"]]
assert all(p["severity"] == "warning" for p in d["problems"]), d["problems"]
assert kinds.count("leftover") == nlo, kinds
assert d["leftovers"] == nlo and len(d["leftover_slots"]) == nlo, d
sb = d["superblock"]
for lo in d["leftover_slots"]:
    assert lo["seq"] > sb["md_seq"], (lo, sb)
assert d["needs_check"] is nc, d["needs_check"]
assert any(lo["needs_check"] for lo in d["leftover_slots"]) is (dmg == "leftover-nc")
assert sb["needs_check"] is (dmg == "failed-commit")
if dmg in ("leftover", "failed-commit"):
    assert sb["md_seq_feature"] and sb["md_seq"] == sb["seq"] - 1, sb
if dmg == "torn":
    assert not sb["md_seq_feature"] and sb["md_seq"] == sb["seq"], sb
# the committed state, not the leftovers' (which drop dirty bits / a volume)
want = {int(l.split()[1]): (int(l.split()[5]), int(l.split()[7]))
        for l in open(sys.argv[2]) if l.startswith("volume")}
got = {v["slot"]: (v["cached_blocks"], v["dirty_blocks"]) for v in d["volumes"]}
assert got == want, (got, want)
PY
	then pass "leftover $dmg: warnings only, leftovers $nlo in the JSON, committed state used"
	else fail "leftover $dmg: warnings only, leftovers $nlo in the JSON, committed state used" "$(head -c 400 "$T/out")"; fi
done

# ---- one-write commits (include/fcache_format.h): a superblock naming
# pages counts only if they all landed; cut-commit: commit S+1's superblock
# and one of its two pages landed, the volume table did not
"$MK" "$T/d.img" --damage cut-commit >"$T/truth"
expect_rc 0 "cut-commit: check exits 0" "$CTL" check "$T/d.img"
grep -q '^warning: superblock slot [01] (seq [0-9]*) names metadata page 0, which did not land' "$T/out" &&
	pass "cut-commit: text says the superblock's page did not land" ||
	fail "cut-commit: text says the superblock's page did not land" "$(head -c 300 "$T/out")"
expect_rc 0 "cut-commit: check --json exits 0" "$CTL" check --json "$T/d.img"
if python3 - "$T/out" "$T/truth" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seq = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("seq")][0]
sb = d["superblock"]
assert d["errors"] == 0 and d["outcome"] == "leftovers", (d["outcome"], d["problems"])
# the commit before the cut one, which names no page of its own
assert sb["seq"] == seq and sb["md_seq"] == seq and sb["commit_pages"] == 0, sb
assert sb["slot"] == seq % 2, sb
kinds = [p["kind"] for p in d["problems"]]
assert "superblock_slot" in kinds, kinds
# the entry page that landed is a leftover above md_seq, not used
assert d["leftovers"] == 1 and d["leftover_slots"][0]["seq"] == seq + 1, d["leftover_slots"]
want = {int(l.split()[1]): (int(l.split()[5]), int(l.split()[7]))
        for l in open(sys.argv[2]) if l.startswith("volume")}
got = {v["slot"]: (v["cached_blocks"], v["dirty_blocks"]) for v in d["volumes"]}
assert got == want, (got, want)
PY
then pass "cut-commit: the superblock before it used, the landed page a leftover, committed counts"
else fail "cut-commit: the superblock before it used, the landed page a leftover, committed counts" "$(head -c 400 "$T/out")"; fi
expect_rc 0 "cut-commit: clear-needs-check exits 0" "$CTL" check --clear-needs-check "$T/d.img"
expect_rc 0 "cut-commit: check afterwards exits 0" "$CTL" check --json "$T/d.img"
if python3 - "$T/out" "$T/truth" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
seq = [int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("seq")][0]
sb = d["superblock"]
assert d["outcome"] == "clean" and d["warnings"] == 0 and d["leftovers"] == 0, d["problems"]
# past the cut commit's seq, into the slot it had used
assert sb["seq"] == seq + 2 and sb["slot"] == (seq + 1) % 2 and sb["commit_pages"] == 0, sb
PY
then pass "cut-commit: after clear-needs-check clean, seq past the cut commit"
else fail "cut-commit: after clear-needs-check clean, seq past the cut commit" "$(head -c 400 "$T/out")"; fi
# and with the superblock before it damaged: nothing to fall back to
"$MK" "$T/d.img" --damage cut-commit-bad >/dev/null
expect_rc 1 "cut-commit-bad: check exits 1" "$CTL" check "$T/d.img"
grep -q "^error: superblock slot [01] (seq [0-9]*) names metadata page 0, which did not land.*cannot be used" "$T/out" &&
	pass "cut-commit-bad: an error names the page that did not land" ||
	fail "cut-commit-bad: an error names the page that did not land" "$(head -c 300 "$T/out")"

# md_seq above the superblock's own seq: damage
"$MK" "$T/d.img" --damage mdseq-above >/dev/null
expect_rc 1 "mdseq-above: check exits 1" "$CTL" check --json "$T/d.img"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
errs = [p for p in d["problems"] if p["severity"] == "error"]
assert any(p["kind"] == "geometry" and "md_seq" in p["message"] for p in errs), errs
PY
then pass "mdseq-above: a geometry error names md_seq"
else fail "mdseq-above: a geometry error names md_seq" "$(head -c 300 "$T/out")"; fi

# overlap: an error that says the kernel refuses the pool
"$MK" "$T/d.img" --damage overlap >/dev/null
"$CTL" check "$T/d.img" >"$T/out" 2>&1
grep -q '^error: .*both map volume slot.*kernel refuses' "$T/out" && pass "overlap: error says the kernel refuses the pool" ||
	fail "overlap: error says the kernel refuses the pool" "$(head -c 300 "$T/out")"

# ---- check --clear-needs-check
# entries of a dump --json, for comparing before and after
entries() {
	"$CTL" dump --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for e in d["entries"]:
    print(e["block"], e["volume_slot"], e["oblock"], e["valid"], e["dirty"], e["flags"])
print("volumes", [(v["slot"], v["id"], v["label"], v["origin_sectors"]) for v in d["volumes"]])'
}
for dmg in failed-commit leftover-nc needs-check none; do
	if [ $dmg = none ]; then "$MK" "$T/d.img" --mdseq >/dev/null; else "$MK" "$T/d.img" --damage $dmg >/dev/null; fi
	entries "$T/d.img" >"$T/before"
	"$CTL" check --json "$T/d.img" >"$T/pre.json"
	expect_rc 0 "clear-needs-check $dmg: exits 0" "$CTL" check --clear-needs-check "$T/d.img"
	if [ $dmg = none ]; then
		grep -q 'needs_check was not set.*superblock seq' "$T/out" && pass "clear-needs-check $dmg: says needs_check was not set" ||
			fail "clear-needs-check $dmg: says needs_check was not set" "$(tail -2 "$T/out")"
	else
		grep -q 'cleared needs_check; zeroed [0-9]* leftover page slots; superblock seq' "$T/out" && pass "clear-needs-check $dmg: says what it did" ||
			fail "clear-needs-check $dmg: says what it did" "$(tail -2 "$T/out")"
	fi
	expect_rc 0 "clear-needs-check $dmg: check afterwards exits 0" "$CTL" check --json "$T/d.img"
	if python3 - "$T/out" "$T/pre.json" <<'PY'
import json, sys
d, pre = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sb, psb = d["superblock"], pre["superblock"]
assert d["clean"] is True and d["errors"] == 0 and d["warnings"] == 0, d["problems"]
assert d["leftovers"] == 0 and d["needs_check"] is False and sb["needs_check"] is False, d
assert sb["clean"] is False, sb
maxseq = max([psb["seq"]] + [lo["seq"] for lo in pre["leftover_slots"]])
assert sb["seq"] > maxseq and sb["md_seq"] == sb["seq"] and sb["md_seq_feature"], (sb, maxseq)
assert sb["seq"] == maxseq + 1 and sb["slot"] != psb["slot"], (sb, psb)
assert d["used_blocks"] == pre["used_blocks"] and d["dirty_blocks"] == pre["dirty_blocks"]
PY
	then pass "clear-needs-check $dmg: then clean, no leftovers, no needs_check, new superblock"
	else fail "clear-needs-check $dmg: then clean, no leftovers, no needs_check, new superblock" "$(head -c 400 "$T/out")"; fi
	entries "$T/d.img" >"$T/after"
	cmp -s "$T/before" "$T/after" && [ -s "$T/before" ] && pass "clear-needs-check $dmg: entries and volumes unchanged (dump)" ||
		fail "clear-needs-check $dmg: entries and volumes unchanged (dump)" "$(diff "$T/before" "$T/after" | head -5)"
	# idempotent: a second run finds nothing and leaves a clean pool
	expect_rc 0 "clear-needs-check $dmg: a second run exits 0" "$CTL" check --clear-needs-check "$T/d.img"
	grep -q 'zeroed 0 leftover' "$T/out" && pass "clear-needs-check $dmg: a second run finds no leftovers" ||
		fail "clear-needs-check $dmg: a second run finds no leftovers" "$(tail -1 "$T/out")"
done
"$MK" "$T/d.img" --damage failed-commit >/dev/null
expect_rc 0 "clear-needs-check --json: exits 0" "$CTL" check --json --clear-needs-check "$T/d.img"
if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["clear_needs_check"]
assert r["done"] is True and r["needs_check_was_set"] is True and r["zeroed_leftovers"] == 2, r
assert r["superblock_seq"] == d["superblock"]["seq"] + 1, (r, d["superblock"])
PY
then pass "clear-needs-check --json: reports what it did"
else fail "clear-needs-check --json: reports what it did" "$(head -c 400 "$T/out")"; fi

# refused on damage; the image stays byte for byte the same
for dmg in overlap seq-above sb-both vt-dupid mdseq-above; do
	"$MK" "$T/d.img" --damage $dmg >/dev/null
	cp "$T/d.img" "$T/d0.img"
	expect_rc 1 "clear-needs-check on $dmg: refused (exit 1)" "$CTL" check --clear-needs-check "$T/d.img"
	grep -q 'not cleared, nothing written' "$T/err" && pass "clear-needs-check on $dmg: says nothing was written" ||
		fail "clear-needs-check on $dmg: says nothing was written" "$(head -c 300 "$T/err")"
	cmp -s "$T/d.img" "$T/d0.img" && pass "clear-needs-check on $dmg: image unchanged" ||
		fail "clear-needs-check on $dmg: image unchanged"
done
expect_rc 2 "clear-needs-check: not an option of dump" "$CTL" dump --clear-needs-check "$T/d.img"
chmod a-w "$T/d.img"
if [ "$(id -u)" -ne 0 ]; then
	expect_rc 1 "clear-needs-check: read-only image refused" "$CTL" check --clear-needs-check "$T/d.img"
fi

# ---- not a pool at all (exit 3; tests/host/ctl_outcome.sh has more)
head -c 1048576 /dev/zero >"$T/zero.img"
expect_rc 3 "check: zeroed device exits 3 (not a pool)" "$CTL" check "$T/zero.img"
grep -q 'no fcache superblock' "$T/out" && pass "check: zeroed device says no superblock" || fail "check: zeroed device says no superblock"
head -c 3000 /dev/zero >"$T/tiny.img"
# shorter than the two superblock slots: no pool (issue 35; it said damaged, "No space left")
expect_rc 3 "check: a 3000-byte device exits 3 (too small for a pool)" "$CTL" check "$T/tiny.img"
"$MK" "$T/good.img" >/dev/null
truncate -s 1M "$T/good.img"
expect_rc 1 "check: device shrunk below the pool exits 1" "$CTL" check --json "$T/good.img"
grep -q 'smaller' "$T/out" && pass "check: shrunk device explained" || fail "check: shrunk device explained"
