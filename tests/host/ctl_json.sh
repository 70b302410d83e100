#!/bin/sh
# Every --json output fcachectl can produce on the host carries "schema" and
# "schema_version" 1 and has the types of docs/JSON.md (tests/host/
# json_schema.py): check and dump on good, damaged, leftover and non-pool
# images, check --repair, the error documents (no such file; status and
# pool list without device-mapper), the bench results.json.  The schema
# specs give each key one type in all schemas and match docs/JSON.md.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage
JS="python3 $top/tests/host/json_schema.py"

# schema_ok NAME SCHEMA FILE
schema_ok() {
	if $JS --schema "$2" "$3" >"$T/js.out" 2>&1; then pass "$1"
	else fail "$1" "$(head -n 3 "$T/js.out" | tr '\n' ' ')"; fi
}

expect_rc 0 "json: the specs give every key one type, docs/JSON.md lists them" $JS --self-check "$top/docs/JSON.md"
[ -s "$T/out" ] && grep -v '^ok$' "$T/out" | head -n 5

"$MK" "$T/good.img" >/dev/null
"$MK" "$T/lo.img" --damage leftover >/dev/null
"$MK" "$T/dmg.img" --damage overlap >/dev/null
"$MK" "$T/nc.img" --damage needs-check >/dev/null
head -c 1048576 /dev/zero >"$T/zero.img"
for img in good lo dmg zero; do
	"$CTL" check --json "$T/$img.img" >"$T/c.json" 2>/dev/null
	schema_ok "json: check --json ($img image) is fcache.check" fcache.check "$T/c.json"
	"$CTL" dump --json "$T/$img.img" >"$T/d.json" 2>/dev/null
	schema_ok "json: dump --json ($img image) is fcache.dump" fcache.dump "$T/d.json"
done
"$CTL" check --json --repair "$T/nc.img" >"$T/r.json" 2>/dev/null
schema_ok "json: check --json --repair is fcache.check" fcache.check "$T/r.json"
"$CTL" check --json --repair "$T/dmg.img" >"$T/r.json" 2>/dev/null
schema_ok "json: check --json --repair, refused, is fcache.check" fcache.check "$T/r.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["clear_needs_check"]["done"] is False and d["clear_needs_check"]["refused"], d' "$T/r.json" &&
	pass "json: refused repair says so" || fail "json: refused repair says so" "$(head -c 300 "$T/r.json")"

# the values: u64 fields of the image as integers, dump entries integers
"$CTL" dump --json "$T/good.img" >"$T/d.json" 2>/dev/null
if python3 - "$T/d.json" >"$T/py.err" 2>&1 <<'PY'
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text)
assert d["schema"] == "fcache.dump" and d["schema_version"] == 1
assert text.startswith('{"schema":"fcache.dump","schema_version":1,'), text[:80]
assert isinstance(d["superblock"]["format_time"], int) and d["superblock"]["format_time"] > 0
assert d["entries"] and all(isinstance(e["oblock"], int) for e in d["entries"])
assert all(isinstance(v, list) for v in (d["volumes"], d["problems"], d["leftover_slots"]))
PY
then pass "json: dump starts with schema, counters are integers"
else fail "json: dump starts with schema, counters are integers" "$(tail -n 2 "$T/py.err" | tr '\n' ' ')"; fi

# error documents: exit 1, one line on stderr, the document on stdout
expect_rc 1 "json: check --json on a missing file exits 1" "$CTL" check --json "$T/none.img"
err_one_line "json: check --json on a missing file: one line on stderr"
schema_ok "json: check --json on a missing file prints an error document" fcache.check "$T/out"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert set(d)=={"schema","schema_version","error"} and "cannot open" in d["error"], d' "$T/out" &&
	pass "json: the error document has the message" || fail "json: the error document has the message" "$(cat "$T/out")"
expect_rc 1 "json: dump --json on a directory exits 1" "$CTL" dump --json "$T"
schema_ok "json: dump --json on a directory prints an error document" fcache.dump "$T/out"
if ! grep -qs device-mapper /proc/misc && ! grep -qs device-mapper /proc/devices; then
	expect_rc 1 "json: status --json without device-mapper exits 1" "$CTL" status --json
	err_one_line "json: status --json without device-mapper: one line on stderr"
	schema_ok "json: status --json without device-mapper: error document" fcache.status "$T/out"
	expect_rc 1 "json: status --json POOL without device-mapper exits 1" "$CTL" status p0 --json
	schema_ok "json: status --json POOL without device-mapper: error document" fcache.status "$T/out"
	expect_rc 1 "json: pool list --json without device-mapper exits 1" "$CTL" pool list --json
	err_one_line "json: pool list --json without device-mapper: one line on stderr"
	schema_ok "json: pool list --json without device-mapper: error document" fcache.pool-list "$T/out"
	expect_rc 1 "json: status (text) without device-mapper prints no JSON" "$CTL" status
	[ ! -s "$T/out" ] && pass "json: status (text) error: nothing on stdout" || fail "json: status (text) error: nothing on stdout"
fi
# usage errors print no document
expect_rc 2 "json: usage error with --json exits 2" "$CTL" check --json
[ ! -s "$T/out" ] && pass "json: usage error with --json: nothing on stdout" || fail "json: usage error with --json: nothing on stdout"

# status --json of synthetic pools: one device, mirrored, degraded (tests/unit/test_status)
if make -s -C "$top/tests/unit" bin/test_status >"$T/mk.log" 2>&1; then
	"$top/tests/unit/bin/test_status" --emit >"$T/st.json"
	schema_ok "json: status --json of single, mirrored and degraded pools is fcache.status" fcache.status "$T/st.json"
	sed 's/"redundancy":"degraded"/"redundancy":"half"/' "$T/st.json" >"$T/m.json"
	if $JS --schema fcache.status "$T/m.json" >/dev/null 2>&1; then fail "json: checker refuses an unknown redundancy"
	else pass "json: checker refuses an unknown redundancy"; fi
else
	fail "json: build tests/unit/bin/test_status" "$(tail -n 5 "$T/mk.log" | tr '\n' ' ')"
fi

# bench results.json (synthetic compare of tests/unit)
if make -s -C "$top/tests/unit" bin/test_bench_rounds >"$T/mk.log" 2>&1; then
	mkdir -p "$T/bench"
	"$top/tests/unit/bin/test_bench_rounds" "$T/bench" >/dev/null 2>&1
	schema_ok "json: bench results.json is fcache.bench" fcache.bench "$T/bench/results.json"
fi

# the checker is not a rubber stamp
"$CTL" check --json "$T/good.img" >"$T/c.json" 2>/dev/null
for mut in 'd["errors"]=1.5' 'd["clean"]=1' 'd["superblock"]["seq"]="1"' 'del d["schema_version"]' \
	'd["schema_version"]=2' 'd["volumes"]=3' 'd["frob"]=1' 'd["schema"]="fcache.status"' 'd["outcome"]="fine"'; do
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $mut; print(json.dumps(d))" "$T/c.json" >"$T/m.json"
	if $JS --schema fcache.check "$T/m.json" >/dev/null 2>&1; then fail "json: checker refuses $mut"
	else pass "json: checker refuses $mut"; fi
done
sed 's/"used_blocks":\([0-9]*\)/"used_blocks":\1.0/' "$T/c.json" >"$T/m.json"
if $JS --schema fcache.check "$T/m.json" >/dev/null 2>&1; then fail "json: checker refuses an integer written 1.0"
else pass "json: checker refuses an integer written 1.0"; fi
