#!/bin/sh
# Host tests of `fcachectl bench compare` against files (no device-mapper
# needed): the summary line, results.json and the chart, the flash
# discarded first, --rounds (refused counts, medians, spread, the figures
# of each round), prices, think times, the redo log on a device of its
# own, the buffer pool sweep, synthetic several-configuration results of
# tests/unit/test_bench_rounds.c against the schema, with negative
# controls.  The second half of bench_host.sh, split off so that the host
# suites, run side by side, end sooner (suite 13-host-compare).
# The binary is the ASan/UBSan build (make -C userspace asan).
top=$(cd "$(dirname "$0")/../.." && pwd)
H=$top/tests/host
BT_NAME=host
. "$top/tests/host/bench_lib.sh"

F=$T/data.img
RUN="--warmup 0 --time 2 --report-interval 1 --users 16"
: >"$T/empty"
truncate -s 64M "$T/empty"
rc compare-prepare 0 "$CTL" bench prepare "$F" --size 48

# ---- compare on a file (baseline only: no device-mapper here)
rc compare-baseline 0 "$CTL" bench compare --origin "$F" --flash "$T/empty" \
	--configs baseline --users 4,8 --warmup 1 --time 1 --quiet --output "$T/cmp"
if [ "$(tail -n 1 "$T/out")" = "summary baseline: TPS 1.00x baseline, avg response time 1.00x baseline at 8 users" ]; then
	pass summary-line-format; else fail summary-line-format "$(tail -n 1 "$T/out")"; fi
cp "$T/out" "$T/cmp.out"
rc compare-json-schema 0 python3 "$H/bench_check_json.py" "$T/cmp/results.json" \
	--configs baseline --zero-errors
rc compare-chart 0 python3 "$H/bench_check_svg.py" "$T/cmp/chart.svg" baseline

# ---- compare discards the whole flash first (a file: a punched hole), so
# that no configuration inherits the flash state of the one before
truncate -s 16M "$T/dflash"
head -c 4194304 /dev/urandom | dd of="$T/dflash" bs=1M seek=2 conv=notrunc 2>/dev/null
rc compare-discard 0 "$CTL" bench compare --origin "$F" --flash "$T/dflash" \
	--configs baseline --users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmpd"
if grep -q "^flash $T/dflash: discarded (16 MiB)$" "$T/out" &&
   [ "$(tr -d '\000' <"$T/dflash" | wc -c)" -eq 0 ] && [ "$(stat -c %s "$T/dflash")" -eq 16777216 ]; then
	pass compare-discards-flash; else fail compare-discards-flash "$(grep '^flash' "$T/out")"; fi
rc compare-no-discard 0 "$CTL" bench compare --origin "$F" --flash /dev/null --force \
	--configs baseline --users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmpd"
if grep -q "^flash /dev/null: no discard (.*); a cache still starts on a zeroed first MiB$" "$T/out"; then
	pass compare-discard-fallback-said; else fail compare-discard-fallback-said "$(grep '^flash' "$T/out")"; fi

# ---- compare over the clean datafile an earlier compare left (same
# layout): only the pages its runs changed go back to version 1 (make demo's
# second and third comparisons), and the runs read them back verified;
# another layout is prepared afresh
G=$T/reuse.img
rc reuse-first 0 "$CTL" bench compare --origin "$G" --size 16 --flash "$T/empty" \
	--configs baseline --users 4 --warmup 0 --time 1 --quiet --output "$T/cmpr"
grep '^prepared ' "$T/out" >"$T/prep1"
rc reuse-second 0 "$CTL" bench compare --origin "$G" --size 16 --flash "$T/empty" \
	--configs baseline --users 4 --warmup 0 --time 1 --quiet --output "$T/cmpr"
if grep -q ', in [0-9.]* s$' "$T/prep1" && ! grep -q 'restoring' "$T/prep1" &&
   grep -Eq '^prepared .*, by restoring the [1-9][0-9]* pages an earlier run changed, in [0-9.]* s$' "$T/out" &&
   grep -Eq '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$T/out"; then
	pass compare-reuses-clean-datafile
else fail compare-reuses-clean-datafile "$(cat "$T/prep1"; grep -E '^(prepared|integrity)' "$T/out")"; fi
rc reuse-other-layout 0 "$CTL" bench compare --origin "$G" --size 16 --page-size 8 --flash "$T/empty" \
	--configs baseline --users 4 --warmup 0 --time 1 --quiet --output "$T/cmpr"
if grep -q '^prepared .* pages of 8 KiB .*, in [0-9.]* s$' "$T/out" && ! grep -q 'restoring' "$T/out" &&
   grep -q '^integrity: .*, 0 errors$' "$T/out"; then
	pass compare-other-layout-prepared-afresh
else fail compare-other-layout-prepared-afresh "$(grep -E '^(prepared|integrity)' "$T/out")"; fi

# ---- compare --price: the price per TPS at the summary's user count
rc compare-price 0 "$CTL" bench compare --origin "$F" --flash "$T/dflash" --configs baseline \
	--users 2,4 --warmup 0 --time 0.5 --quiet --output "$T/cmpp" --price baseline=1000 \
	--price dm-cache=5 --price baseline=1200
if grep -qE '^== price per TPS at 4 users \(--price\) ==$' "$T/out" &&
   grep -qE '^baseline +1200 / [0-9.]+ TPS = [0-9.e+-]+ per TPS$' "$T/out"; then
	pass price-table; else fail price-table "$(grep -A1 price "$T/out" | tr '\n' '|')"; fi
rc price-json-schema 0 python3 "$H/bench_check_json.py" "$T/cmpp/results.json" --configs baseline --zero-errors
py price-json "$T/cmpp/results.json" \
	"c['price'] == 1200 and abs(c['price_per_tps'] - 1200 / c['steps'][1]['tps']) < 1e-9 * c['price_per_tps']"
py no-price-null "$T/cmpd/results.json" "c['price'] is None and c['price_per_tps'] is None"
rc price-refused-on-run 2 "$CTL" bench run "$F" $RUN --price baseline=1

# ---- compare with the terminal model: the extra summary line, the existing one unchanged
rc compare-terminals 0 "$CTL" bench compare --origin "$F" --flash "$T/empty" \
	--configs baseline --users 2,4 --warmup 0 --time 1 --think-time 0.05 --quiet --output "$T/cmpt"
if [ "$(tail -n 2 "$T/out" | head -n 1)" = "summary baseline: TPS 1.00x baseline, avg response time 1.00x baseline at 4 users" ] &&
   tail -n 1 "$T/out" | grep -qE '^summary terminals baseline: TPS 1\.00x baseline, avg response time 1\.00x baseline, users under 2 s 4 \(1\.00x baseline\)$'; then
	pass summary-terminals-line; else fail summary-terminals-line "$(tail -n 2 "$T/out" | tr '\n' '|')"; fi
if grep -q '^== NOPM: new-order transactions per minute (ratio to baseline) ==$' "$T/out" &&
   grep -q '^== p95 response time, ms (ratio to baseline) ==$' "$T/out" &&
   grep -qE '^     2 +[0-9.]+ \(1\.00x\)$' "$T/out" &&
   grep -q '^== p90 response time by transaction type at 4 users, ms (ratio to baseline) ==$' "$T/out" &&
   grep -qE '^new_order +[0-9.]+ \(1\.00x\)$' "$T/out"; then
	pass compare-ratio-tables; else fail compare-ratio-tables; fi
rc compare-terminals-json 0 python3 "$H/bench_check_json.py" "$T/cmpt/results.json" --configs baseline --zero-errors
if ! grep -q '^summary terminals' "$T/cmp2.out" 2>/dev/null && ! tail -n 3 "$T/cmp.out" 2>/dev/null | grep -q terminals; then
	pass summary-terminals-only-with-terminals; else fail summary-terminals-only-with-terminals; fi

# ---- compare --rounds N: refused counts, then two rounds of the baseline
for a in 0:0 abc:abc 1000:1000 neg:-1 frac:2.5 empty:; do
	n=${a%%:*} v=${a#*:}
	rc "rounds-refused-$n" 2 "$CTL" bench compare --origin "$F" --flash "$T/empty" --rounds "$v"
	if grep -qF "bad --rounds '$v' (a whole number of runs per configuration, 1..20)" "$T/err"
	then pass "rounds-message-$n"; else fail "rounds-message-$n" "$(head -n 1 "$T/err")"; fi
done
rc rounds-refused-on-run 2 "$CTL" bench run "$F" $RUN --rounds 2
if grep -q "^fcachectl bench: --rounds is an option of compare$" "$T/err"; then
	pass rounds-run-message; else fail rounds-run-message "$(head -n 1 "$T/err")"; fi
rc compare-rounds-2 0 "$CTL" bench compare --origin "$F" --flash "$T/empty" \
	--configs baseline --users 4,8 --warmup 1 --time 1 --quiet --rounds 2 --output "$T/cmp2"
cp "$T/out" "$T/cmp2.out"
if [ "$(grep -c '^=== baseline (round [12] of 2)$' "$T/cmp2.out")" -eq 2 ] &&
   [ "$(grep -c '^ users        TPS     avg ms' "$T/cmp2.out")" -eq 2 ] &&
   grep -q '^##### round 2 of 2: baseline$' "$T/cmp2.out"; then
	pass rounds-two-runs; else fail rounds-two-runs "$(grep '^===' "$T/cmp2.out" | tr '\n' '|')"; fi
if grep -q '^figures: medians of 2 rounds per configuration' "$T/cmp2.out" &&
   grep -q '^== TPS over 2 rounds: min..max (spread: max-min, % of the median) ==$' "$T/cmp2.out" &&
   grep -q '^== average response time over 2 rounds, ms: min..max (spread) ==$' "$T/cmp2.out" &&
   grep -qE '^     8 +[0-9]+\.[0-9]{2}\.\.[0-9]+\.[0-9]{2} \([0-9]+\.[0-9]%\)$' "$T/cmp2.out"; then
	pass rounds-spread-tables; else fail rounds-spread-tables; fi
if [ "$(tail -n 1 "$T/cmp2.out")" = "summary baseline: TPS 1.00x baseline, avg response time 1.00x baseline at 8 users" ]; then
	pass rounds-summary-line; else fail rounds-summary-line "$(tail -n 1 "$T/cmp2.out")"; fi
rc rounds-json-schema 0 python3 "$H/bench_check_json.py" "$T/cmp2/results.json" \
	--configs baseline --zero-errors
# the JSON's figures of each round are those of the two tables, in order
if python3 - "$T/cmp2/results.json" "$T/cmp2.out" >"$T/py.err" 2>&1 <<'PYEOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
rep = open(sys.argv[2]).read()
c = d["configs"][0]
assert d["workload"]["rounds"] == 2 and c["rounds"] == 2, "rounds"
assert d["run_order"] == [["baseline"], ["baseline"]], d["run_order"]
assert d["summary"][0]["rounds"] == 2, d["summary"]
ver = [int(n) for n in re.findall(r"^integrity: (\d+) page reads verified, 0 errors$", rep, re.M)]
assert len(ver) == 2 and c["integrity"]["pages_verified"] == sum(ver), (ver, c["integrity"])
rows = re.findall(r"^ +(\d+) +([0-9.]+) +([0-9.]+) +[0-9.]+ +[0-9.]+ .*%$", rep, re.M)
for s in c["steps"]:
    mine = [r for r in rows if int(r[0]) == s["users"]]
    assert len(mine) == 2 and s["rounds"] == 2, (s["users"], mine)
    for k in range(2):
        assert abs(s["tps_rounds"][k] - float(mine[k][1])) < 0.006, ("tps", s, mine)
        assert abs(s["avg_ms_rounds"][k] - float(mine[k][2])) < 0.006, ("avg", s, mine)
    assert abs(s["tps"] - sum(s["tps_rounds"]) / 2) < 1e-3 * s["tps"], s
    # seconds: the time measured, from the end of the step before (at least --time)
    assert s["counts"]["transactions"] > 0 and 2 <= s["seconds"] < 2.5, s
PYEOF
then pass rounds-json-matches-report; else fail rounds-json-matches-report "$(tail -n 2 "$T/py.err" | tr '\n' ' ')"; fi
rc rounds-chart 0 python3 "$H/bench_check_svg.py" "$T/cmp2/chart.svg" baseline
if grep -q 'medians of 2 rounds' "$T/cmp2/chart.svg"; then pass rounds-chart-says-medians; else
	fail rounds-chart-says-medians; fi

# ---- several configurations: synthetic 3-round results of the unit test
# (tests/unit/test_bench_rounds.c) against the schema, ratios of medians
# and alternating order included; negative controls for those checks
mkdir -p "$T/synth"
if make -s -C "$top/tests/unit" bin/test_bench_rounds >"$T/build.log" 2>&1 &&
   "$top/tests/unit/bin/test_bench_rounds" "$T/synth" >"$T/synth.out" 2>&1; then
	pass rounds-synthetic-results; else
	fail rounds-synthetic-results "$(grep -m 2 FAIL "$T/synth.out" "$T/build.log" | tr '\n' ' ')"; fi
rc rounds-synthetic-json-schema 0 python3 "$H/bench_check_json.py" "$T/synth/results.json" \
	--configs baseline,fcache-writeback
rc rounds-synthetic-chart 0 python3 "$H/bench_check_svg.py" "$T/synth/chart.svg" \
	baseline fcache-writeback
# mutate SYNTH_EXPR into $T/bad.json; the checker must refuse it
mutate() {
	python3 - "$T/synth/results.json" "$T/bad.json" "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["configs"][1]["steps"][1]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
}
mutate 's["tps"] = sum(s["tps_rounds"]) / len(s["tps_rounds"])'
rc rounds-schema-catches-mean 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 's["tps_ratio"] = 5.0'
rc rounds-schema-catches-ratio-not-of-medians 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'd["run_order"][1] = d["run_order"][0]'
rc rounds-schema-catches-order-not-alternating 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 's["tps_spread_pct"] = 1.0'
rc rounds-schema-catches-wrong-spread 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'del s["avg_ms_rounds"]'
rc rounds-schema-catches-missing-rounds 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 's["p95_ratio"] = 7.0'
rc schema-catches-wrong-p95-ratio 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'd["summary"][1]["users_under_rt_limit_ratio"] = 3.0'
rc schema-catches-wrong-users-under-ratio 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'd["summary"][1]["ratios"].pop()'
rc schema-catches-missing-ratio 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'd["configs"][1]["users_under_rt_limit_rounds"] = [8, 8, 8]'
rc schema-catches-under-not-median 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'del s["p90_ms_by_type"]["t"]'
rc schema-catches-p90-types 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 's["counts"]["transactions_by_type"]["t"] = 0'
rc schema-catches-p90-without-transactions 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 's["nopm"] = 5.0'
rc schema-catches-nopm-without-new-order 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'd["configs"][1]["price"] = 10.0; d["configs"][1]["price_per_tps"] = 1.0'
rc schema-catches-wrong-price-per-tps 1 python3 "$H/bench_check_json.py" "$T/bad.json"
mutate 'd["schema_version"] = 1'
rc schema-catches-version-1 1 python3 "$H/bench_check_json.py" "$T/bad.json"

out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench compare --ro); COMP_CWORD=3; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = --rounds ]; then pass completion-rounds; else fail completion-rounds "$out"; fi

# ---- make demo passes --rounds 2 (printed, not run: make -n, $(MAKE) neutralised)
if make -s -n -C "$top" demo MAKE=true 2>/dev/null | grep -q 'tests/vm/demo.sh .*--rounds 2$'; then
	pass demo-passes-rounds-2; else fail demo-passes-rounds-2; fi

# ---- issue 12: --log-dev (the redo log on a device of its own)
G=$T/lg.img
rm -f "$G"
rc logdev-prepare 0 "$CTL" bench prepare "$G" --size 48
truncate -s 8M "$T/redo.img"
rc logdev-run 0 "$CTL" bench run "$G" $RUN --log-dev "$T/redo.img" --json "$T/logdev.json"
if grep -q "^redo log: on $T/redo.img (--log-dev); group commit off" "$T/out"; then
	pass logdev-header; else fail logdev-header "$(sed -n 3p "$T/out")"; fi
# the records are on the log device, each in its slot of the ring (log sequence
# number modulo the slots); the datafile's log region stays as prepare left it (zeros)
if python3 - "$G" "$T/redo.img" "$T/logdev.json" >"$T/py.err" 2>&1 <<'EOF'
import json, struct, sys
d = open(sys.argv[1], "rb")
_, ps, _, npages, _, data_off, log_off, log_size = struct.unpack("<QIIQQQQQ", d.read(56))
d.seek(log_off)
assert d.read(log_size).count(0) == log_size, "the datafile's log region was written"
n = json.load(open(sys.argv[3]))["configs"][0]["steps"][0]["counts"]["log_records"]
lg = open(sys.argv[2], "rb").read()
recs = [struct.unpack_from("<QQ", lg, i * 4096) for i in range(min(n, len(lg) // 4096))]
assert n > 0 and all(m == 0x31474c424346 for m, _ in recs), "no redo records on the log device"
assert all(l % (len(lg) // 4096) == i for i, (_, l) in enumerate(recs)), "a record out of its slot"
EOF
then pass logdev-records-on-log-device; else fail logdev-records-on-log-device "$(tail -n 1 "$T/py.err")"; fi
py logdev-json "$T/logdev.json" "d['workload']['log_device'] == '$T/redo.img' and k['log_writes'] == k['log_records'] > 0"
rc logdev-compare 0 "$CTL" bench compare --origin "$G" --flash "$T/empty" --configs baseline \
	--users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmpl" --log-dev "$T/redo.img"
if grep -q "^redo log: on $T/redo.img (--log-dev), the same device for every configuration, not cached;" "$T/out"; then
	pass logdev-compare-header; else fail logdev-compare-header "$(grep '^redo' "$T/out")"; fi
rc logdev-compare-json 0 python3 "$H/bench_check_json.py" "$T/cmpl/results.json" --configs baseline --zero-errors
rc logdev-default-compare-header 0 grep -q '^redo log: in the datafile.s log region on the origin (cached with it); group commit off' "$T/cmp.out"

# ---- issue 12: group commit (one RWF_DSYNC write for the commits waiting)
rc gc-run 0 "$CTL" bench run "$F" $RUN --buffer-pool 0 --group-commit on --json "$T/gc.json"
cp "$T/out" "$T/gc.out"
rc gc-json-schema 0 python3 "$H/bench_check_json.py" "$T/gc.json" --configs run --zero-errors
py gc-fewer-log-writes "$T/gc.json" \
	"k['log_records'] == sum(by[t['name']] for t in types if t['page_updates'] > 0) > 0 and k['log_writes'] < k['log_records'] * 0.8"
py gc-group-avg "$T/gc.json" \
	"s['log_group_avg'] == k['log_records'] / k['log_writes'] > 1.2 and d['workload']['group_commit'] is True and d['workload']['group_commit_max_records'] == 64"
if grep -qE '^group commit, redo records per write: 16 users [0-9]+\.[0-9]{2}$' "$T/gc.out" &&
   grep -q '^redo log: in the datafile.s log region; group commit on (one RWF_DSYNC write for the commits waiting, at most 64 records)$' "$T/gc.out"; then
	pass gc-report; else fail gc-report "$(grep -i 'group' "$T/gc.out" | tr '\n' '|')"; fi
# a log ring of 16 records (the smallest --log-dev): groups never cross its end
truncate -s 64K "$T/redo16.img"
rc gc-small-ring 0 "$CTL" bench run "$F" $RUN --time 1 --group-commit on --log-dev "$T/redo16.img" \
	--quiet --json "$T/gc16.json"
py gc-small-ring-json "$T/gc16.json" "k['log_records'] > k['log_writes'] > 0"
# a schema negative control: a group larger than the limit
python3 - "$T/gc.json" "$T/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["configs"][0]["steps"][0]["counts"]
k["log_writes"] = 1
json.dump(d, open(sys.argv[2], "w"))
EOF
rc gc-schema-catches-group-over-limit 1 python3 "$H/bench_check_json.py" "$T/bad.json"

# ---- issue 12: compare --buffer-pool-sweep (the baseline only on a file)
rc sweep-compare 0 "$CTL" bench compare --origin "$F" --flash "$T/empty" --configs baseline \
	--users 2,4 --warmup 0 --time 0.5 --quiet --output "$T/sw" --buffer-pool-sweep 4M,1
if grep -q '^buffer pool sweep: 1M,4M (the comparison at each size)$' "$T/out" &&
   grep -q '^########## buffer pool 1M (1 of 2)$' "$T/out" &&
   grep -q '^########## buffer pool 4M (2 of 2)$' "$T/out" &&
   grep -q '^== buffer pool sweep: TPS at 4 users (ratio to baseline at the same buffer pool) ==$' "$T/out" &&
   grep -qE '^ +1M \(1\.1M\) +[0-9]+\.[0-9]{2}$' "$T/out" && grep -qE '^ +4M +[0-9]+\.[0-9]{2}$' "$T/out" &&
   [ "$(tail -n 1 "$T/out")" = "advice: none (no cached configuration in the comparison)" ]; then
	pass sweep-report; else fail sweep-report "$(tail -n 5 "$T/out" | tr '\n' '|')"; fi
for f in results.json bp-1M/results.json bp-4M/results.json; do
	rc "sweep-json-schema-$f" 0 python3 "$H/bench_check_json.py" "$T/sw/$f" --configs baseline --zero-errors
done
py sweep-json "$T/sw/results.json" \
	"[p['buffer_pool_mb'] for p in d['sweep']['points']] == [1, 4] and d['sweep']['users'] == 4 and d['sweep']['advice']['kind'] is None and d['workload']['buffer_pool_mb'] == d['sweep']['points'][0]['buffer_pool_mb_used']"
py sweep-json-per-size "$T/sw/bp-4M/results.json" "d['sweep'] is None and d['workload']['buffer_pool_mb'] == 4"
py sweep-json-tps-from-size "$T/sw/results.json" \
	"d['sweep']['points'][1]['configs'][0]['tps'] == json.load(open('$T/sw/bp-4M/results.json'))['configs'][0]['steps'][1]['tps']"
py no-sweep-null "$T/cmpd/results.json" "d['sweep'] is None"
# synthetic sweeps of the unit test (3 configurations, 3 sizes): table and
# advice from the figures; mutated copies fail the checker
for f in results.json memory.json; do
	rc "sweep-synthetic-$f" 0 python3 "$H/bench_check_json.py" "$T/synth/sweep/$f"
done
py sweep-synthetic-advice "$T/synth/sweep/results.json" \
	"d['sweep']['advice']['text'] == 'advice: fast flash: fcache-writeback at 64M buffer pool gives 1.55x the TPS of baseline at 1G buffer pool (16 users)'"
py sweep-synthetic-memory "$T/synth/sweep/memory.json" \
	"d['sweep']['advice']['kind'] == 'more memory' and d['sweep']['advice']['config'] == 'dm-writecache'"
smutate() {
	python3 - "$T/synth/sweep/results.json" "$T/bad.json" "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
sw = d["sweep"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
}
smutate 'sw["points"][0]["configs"][1]["tps_ratio"] = 2.0'
rc sweep-schema-catches-wrong-ratio 1 python3 "$H/bench_check_json.py" "$T/bad.json"
smutate 'sw["advice"]["config"] = "dm-writecache"'
rc sweep-schema-catches-wrong-advice 1 python3 "$H/bench_check_json.py" "$T/bad.json"
smutate 'sw["points"][0]["configs"][1]["tps"] = 150.0; sw["points"][0]["configs"][1]["tps_ratio"] = 1.5'
rc sweep-schema-catches-advice-not-from-figures 1 python3 "$H/bench_check_json.py" "$T/bad.json"
smutate 'sw["points"].reverse()'
rc sweep-schema-catches-order 1 python3 "$H/bench_check_json.py" "$T/bad.json"

out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench compare --buffer-pool-s); COMP_CWORD=3; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = --buffer-pool-sweep ]; then pass completion-sweep; else fail completion-sweep "$out"; fi
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench run --log-d); COMP_CWORD=3; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = --log-dev ]; then pass completion-log-dev; else fail completion-log-dev "$out"; fi
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench run x --group-commit ''); COMP_CWORD=5; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = "on off" ]; then pass completion-group-commit; else fail completion-group-commit "$out"; fi
# issue 11: --flash2 and the RAID1 configurations
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench compare --flash2 /de); COMP_CWORD=4; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = /dev ]; then pass completion-flash2-file; else fail completion-flash2-file "$out"; fi
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench compare --configs dm-c); COMP_CWORD=4; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = "dm-cache dm-cache-raid1" ]; then pass completion-configs-raid1; else fail completion-configs-raid1 "$out"; fi
"$CTL" bench --help >"$T/help.txt" 2>&1
if grep -q -- '--flash DEV \[--flash2 DEV\]' "$T/help.txt" && grep -q 'dm-writecache-raid1 and dm-cache-raid1' "$T/help.txt"; then
	pass usage-flash2-configs; else fail usage-flash2-configs; fi
python3 - "$T/sw/results.json" "$T/f2a.json" "$T/f2b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["workload"]["flash2"] = d["workload"]["flash"]
json.dump(d, open(sys.argv[2], "w"))
d["workload"]["flash2"] = "/dev/other"
d["workload"]["origin"] = None
json.dump(d, open(sys.argv[3], "w"))
EOF
rc schema-catches-flash2-same-as-flash 1 python3 "$H/bench_check_json.py" "$T/f2a.json"
rc schema-catches-origin-without-flash 1 python3 "$H/bench_check_json.py" "$T/f2b.json"
