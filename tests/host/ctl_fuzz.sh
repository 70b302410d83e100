#!/bin/sh
# Fuzzed metadata: thousands of randomly damaged images through the checker
# under ASan/UBSan (in process, ctl_fuzz.c), plus a few through the real
# fcachectl-asan binary.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
"$BIN/ctl_mkimage" "$T/good.img" --size 16 >/dev/null || { fail "fuzz: mkimage"; exit 0; }
seed=${FUZZ_SEED:-$(date +%s)}
if "$BIN/ctl_fuzz" "$T/good.img" 3000 "$seed" >"$T/out" 2>"$T/err"; then
	pass "fuzz: 3000 damaged images never crash check/dump (seed $seed; $(cat "$T/out"))"
else
	fail "fuzz: checker crashed or misbehaved (seed $seed)" "$(head -c 600 "$T/err")"
fi
grep -q 'damaged [1-9]' "$T/out" && pass "fuzz: damage was detected in some iterations" || fail "fuzz: damage was detected in some iterations" "$(cat "$T/out")"
# the binary itself on a few random images (exit 0/1/3 as the JSON outcome
# says, no sanitizer report)
python3 - "$T" "$seed" <<'PY'
import random, sys
d, seed = sys.argv[1], int(sys.argv[2])
img = open(d + "/good.img", "rb").read()
for i in range(12):
    r = random.Random(seed * 1000 + i)
    b = bytearray(img)
    for _ in range(r.randint(1, 64)):
        off = r.randrange(0, 24 * 4096)
        b[off] ^= 1 << r.randrange(8)
    open("%s/f%d.img" % (d, i), "wb").write(b)
PY
ok=1
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	"$CTL" check --json "$T/f$i.img" >"$T/out" 2>"$T/err"
	rc=$?
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = {"clean": 0, "leftovers": 0, "damaged": 1, "not_a_pool": 3}[d["outcome"]]
assert int(sys.argv[2]) == want, (sys.argv[2], d["outcome"])
assert d["clean"] is (want == 0)
' "$T/out" $rc 2>/dev/null; then
		ok=0
		fail "fuzz: fcachectl check on random image $i (rc $rc)" "$(head -c 300 "$T/err")"
	fi
	"$CTL" dump "$T/f$i.img" >/dev/null 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] || [ $rc -gt 3 ]; then
		ok=0
		fail "fuzz: fcachectl dump on random image $i (rc $rc)" "$(head -c 300 "$T/err")"
	fi
done
[ $ok -eq 1 ] && pass "fuzz: fcachectl-asan check --json and dump on 12 random images: exit status of the outcome, valid JSON"
