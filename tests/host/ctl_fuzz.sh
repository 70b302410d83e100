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
# the binary itself on a few random images (exit 0/1 only, no sanitizer report)
ok=1
i=0
while [ $i -lt 40 ]; do
	cp "$T/good.img" "$T/f.img"
	python3 - "$T/f.img" "$seed" "$i" <<'PY'
import random, sys
r = random.Random(int(sys.argv[2]) * 1000 + int(sys.argv[3]))
with open(sys.argv[1], "r+b") as f:
    for _ in range(r.randint(1, 64)):
        off = r.randrange(0, 24 * 4096)
        f.seek(off); b = f.read(1)
        f.seek(off); f.write(bytes([b[0] ^ (1 << r.randrange(8))]))
PY
	"$CTL" check --json "$T/f.img" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -gt 1 ] || ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" 2>/dev/null; then
		ok=0
		fail "fuzz: fcachectl check on random image $i (rc $rc)" "$(head -c 300 "$T/err")"
	fi
	i=$((i + 1))
done
[ $ok -eq 1 ] && pass "fuzz: fcachectl-asan check --json on 40 random images: exit 0/1, valid JSON"
