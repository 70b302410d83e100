#!/bin/sh
# Host tests of the block trace and the offline optimum (issue 33) against
# files: `bench run --trace` writes one record per I/O and commit, `bench
# optimum` reads it back (its counts equal the run's, its figures within
# the bounds any optimum keeps, more flash never costs more), refuses
# what is not a trace and a truncated one; usage errors of --trace,
# --max-io and --flash-size; a traced compare of the baseline on files
# (the report's lines, results.json's origin_io); the checker refuses
# mutated origin_io figures of the unit test's synthetic results; the
# completion.  The binary is the ASan/UBSan build.
top=$(cd "$(dirname "$0")/../.." && pwd)
H=$top/tests/host
BT_NAME=optimum
. "$top/tests/host/bench_lib.sh"

D=$T/data.img
"$CTL" bench prepare "$D" --size 32 >/dev/null 2>&1 || fail prepare
rc run-trace 0 "$CTL" bench run "$D" --warmup 0 --time 1 --users 8 --report-interval 0 \
	--buffer-pool 1 --dist hotset:95:10 --trace "$T/run.fct"
cp "$T/out" "$T/run.out"
if grep -q "^trace: $T/run.fct (fcachectl bench optimum $T/run.fct --flash-size MB)$" "$T/run.out"; then
	pass run-trace-line; else fail run-trace-line "$(tail -n 2 "$T/run.out" | tr '\n' ' ')"; fi
# the file: a 128-byte header, then 32 bytes a record
sz=$(stat -c %s "$T/run.fct")
if [ $(((sz - 128) % 32)) -eq 0 ] && [ "$sz" -gt 128 ]; then pass trace-file-size; else
	fail trace-file-size "$sz bytes"; fi

rc optimum-needs-flash-size 1 "$CTL" bench optimum "$T/run.fct"
if grep -q 'give --flash-size MB' "$T/err"; then pass optimum-says-flash-size; else
	fail optimum-says-flash-size "$(cat "$T/err")"; fi
rc optimum-8m 0 "$CTL" bench optimum "$T/run.fct" --flash-size 8
cp "$T/out" "$T/o8"
rc optimum-16m 0 "$CTL" bench optimum "$T/run.fct" --flash-size 16
cp "$T/out" "$T/o16"
# the records are the run's: one read a page read verified, one commit a transaction
v=$(sed -n 's/^integrity: \([0-9]*\) page reads verified, 0 errors$/\1/p' "$T/run.out")
r=$(sed -n 's/^trace [^ ]*: run, [0-9]* records: \([0-9]*\) reads, .*/\1/p' "$T/o8")
if [ -n "$v" ] && [ "$v" = "$r" ]; then pass trace-reads-are-the-runs; else
	fail trace-reads-are-the-runs "verified $v, trace $r"; fi
# fill on miss <= bypass <= 100; bound <= schedule; 16 MiB never costs more than 8
if awk '
	/^offline optimum/ { gsub(/[^0-9. ]/, " "); n = 0
		for (i = 1; i <= NF; i++) v[FILENAME, ++n] = $i; f[FILENAME] = 1 }
	END {
		for (x in f) if (!(v[x, 2] <= v[x, 3] + 0.05 && v[x, 3] <= 100 && v[x, 4] <= v[x, 5] + 0.0005 && v[x, 4] > 0)) exit 1
		a = ARGV[1]; b = ARGV[2]
		# (8 MiB, 16 MiB): hit ratios grow, the bound falls
		if (!(v[b, 2] >= v[a, 2] - 0.05 && v[b, 4] <= v[a, 4] + 0.0005)) exit 1
	}' "$T/o8" "$T/o16"; then
	pass optimum-within-bounds
else
	fail optimum-within-bounds "$(grep -h '^offline' "$T/o8" "$T/o16" | tr '\n' '|')"
fi
# not a trace, a truncated trace
rc optimum-not-a-trace 1 "$CTL" bench optimum "$D" --flash-size 8
if grep -q 'not a trace of fcachectl bench' "$T/err"; then pass optimum-says-not-a-trace; else
	fail optimum-says-not-a-trace "$(cat "$T/err")"; fi
head -c $((sz - 48)) "$T/run.fct" >"$T/cut.fct"
rc optimum-truncated 1 "$CTL" bench optimum "$T/cut.fct" --flash-size 8
if grep -q 'truncated' "$T/err"; then pass optimum-says-truncated; else
	fail optimum-says-truncated "$(cat "$T/err")"; fi
rc optimum-no-file 1 "$CTL" bench optimum "$T/nosuch.fct" --flash-size 8
rc optimum-needs-one-trace 2 "$CTL" bench optimum

# usage: where the options go, and their values
rc usage-trace-on-prepare 2 "$CTL" bench prepare "$T/x.img" --size 8 --trace "$T/x.fct"
rc usage-max-io-on-run 2 "$CTL" bench run "$D" --max-io 64
rc usage-flash-size-on-run 2 "$CTL" bench run "$D" --flash-size 8
rc usage-max-io-not-4k 2 "$CTL" bench optimum "$T/run.fct" --flash-size 8 --max-io 6
rc usage-max-io-too-large 2 "$CTL" bench optimum "$T/run.fct" --flash-size 8 --max-io 8192
rc usage-flash-size-nan 2 "$CTL" bench optimum "$T/run.fct" --flash-size nan
rc usage-trace-empty 2 "$CTL" bench run "$D" --trace ''
truncate -s 16M "$T/flash.img"
rc usage-compare-trace-not-run 2 "$CTL" bench compare --origin "$D" --flash "$T/flash.img" \
	--configs baseline --trace dm-cache
if grep -q "'dm-cache' is not a configuration of this compare" "$T/err"; then
	pass usage-compare-trace-says-which; else fail usage-compare-trace-says-which "$(cat "$T/err")"; fi
rc usage-compare-trace-empty-item 2 "$CTL" bench compare --origin "$D" --flash "$T/flash.img" \
	--configs baseline --trace baseline,
rc usage-compare-trace-sweep 2 "$CTL" bench compare --origin "$D" --flash "$T/flash.img" \
	--configs baseline --trace baseline --buffer-pool-sweep 1M,2M

# a traced compare of the baseline on files: no origin counters (a file),
# the optimum of the trace in the run's lines, the comparison and results.json
rc compare-trace 0 "$CTL" bench compare --origin "$D" --flash "$T/flash.img" --configs baseline \
	--trace all --users 8 --warmup 0 --time 1 --report-interval 0 --buffer-pool 1 \
	--output "$T/cmp"
cp "$T/out" "$T/cmp.out"
if [ -s "$T/cmp/trace-baseline.fct" ] &&
   grep -qE "^baseline offline optimum of its trace \($T/cmp/trace-baseline.fct, [0-9]+ records, [0-9.]+ MB, computed in [0-9.]+ s; 16 MiB of flash\): read hit ratio" "$T/cmp.out" &&
   grep -qE "^offline optimum \(Belady MIN, 16 MiB flash\) of baseline's trace: read hit ratio [0-9.]+% \(fill on miss\) / [0-9.]+% \(with bypass\), baseline -; least origin ops per txn [0-9.]+ \(a schedule reaches [0-9.]+\); baseline - \(distance -\)$" "$T/cmp.out"; then
	pass compare-trace-lines
else
	fail compare-trace-lines "$(grep 'optimum' "$T/cmp.out" | tr '\n' '|')"
fi
if grep -q 'origin requests per transaction' "$T/cmp.out"; then
	fail compare-no-origin-table-for-a-file; else pass compare-no-origin-table-for-a-file; fi
rc compare-trace-json 0 python3 "$H/bench_check_json.py" "$T/cmp/results.json" --configs baseline
if python3 - "$T/cmp/results.json" >"$T/py.err" 2>&1 <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))["configs"][0]["origin_io"]
r = o["by_round"][0]
assert o["ops_per_txn"] is None and r["reads"] is None, "counters of a file"
assert r["trace"].endswith("/trace-baseline.fct") and r["optimum"]["flash_bytes"] == 16 << 20
assert r["optimum"]["transactions"] == r["transactions"] > 0
EOF
then pass compare-trace-json-figures; else fail compare-trace-json-figures "$(tail -n 1 "$T/py.err")"; fi
# the same trace through the verb: the same bound
a=$(sed -n "s/.*least origin ops per txn \([0-9.]*\) .*/\1/p" "$T/cmp.out")
"$CTL" bench optimum "$T/cmp/trace-baseline.fct" >"$T/v.out" 2>&1
b=$(sed -n "s/.*least origin ops per txn \([0-9.]*\) .*/\1/p" "$T/v.out")
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass verb-reads-compare-trace; else
	fail verb-reads-compare-trace "compare '$a' verb '$b'"; fi

# the checker against the unit test's synthetic origin_io (3 rounds)
mkdir -p "$T/synth"
if make -s -C "$top/tests/unit" bin/test_bench_rounds >"$T/build.log" 2>&1 &&
   "$top/tests/unit/bin/test_bench_rounds" "$T/synth" >"$T/synth.out" 2>&1; then
	pass synthetic-results; else fail synthetic-results "$(grep -m 2 FAIL "$T/synth.out" | tr '\n' ' ')"; fi
rc synthetic-origin-io-passes 0 python3 "$H/bench_check_json.py" "$T/synth/results.json"
omutate() {
	python3 - "$T/synth/results.json" "$T/bad.json" "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
o = d["configs"][1]["origin_io"]
r = o["by_round"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
}
omutate 'r["ops_per_txn"] = 0.5'
rc checker-catches-ops-not-of-counts 1 python3 "$H/bench_check_json.py" "$T/bad.json"
omutate 'o["ops_per_txn"] = 0.8'
rc checker-catches-ops-not-median 1 python3 "$H/bench_check_json.py" "$T/bad.json"
omutate 'r["optimum"]["ops_per_txn_bound"] = 0.7; r["optimum"]["distance"] = r["ops_per_txn"] / 0.7'
rc checker-catches-bound-above-schedule 1 python3 "$H/bench_check_json.py" "$T/bad.json"
omutate 'r["optimum"]["distance"] = 1.0'
rc checker-catches-distance 1 python3 "$H/bench_check_json.py" "$T/bad.json"
omutate 'r["optimum"]["read_hit_ratio_fill"] = 0.95'
rc checker-catches-fill-above-bypass 1 python3 "$H/bench_check_json.py" "$T/bad.json"
omutate 'o["optimum"]["ops_per_txn_bound"] = 0.5'
rc checker-catches-bound-not-median 1 python3 "$H/bench_check_json.py" "$T/bad.json"
omutate 'o["by_round"].pop()'
rc checker-catches-missing-round 1 python3 "$H/bench_check_json.py" "$T/bad.json"

# online replacement policies on the same trace (tests/bench/online): its
# known answers, and no policy above MIN's read hit ratio in MIN's model
ON=$T/online
if make -s -C "$top/tests/bench" online >"$T/make.out" 2>&1 && cp "$top/tests/bench/online" "$ON"; then
	pass online-builds; else fail online-builds "$(tail -n 3 "$T/make.out" | tr '\n' ' ')"; fi
rc online-self-test 0 "$ON" --self-test
rc online-run 0 "$ON" "$T/run.fct" --flash-size 8
cp "$T/out" "$T/on8"
if awk '/^MIN \(offline\)/ { m = $3 + 0 } /^(LRU|CLOCK|2Q|ARC) / { n++; h = $2 + 0; if (h > m + 0.05 || h <= 0) bad = 1 }
	END { exit !(m > 0 && n == 4 && !bad) }' "$T/on8"; then
	pass online-below-min; else fail online-below-min "$(tr '\n' '|' <"$T/on8")"; fi
rc online-needs-flash-size 2 "$ON" "$T/run.fct"
rc online-not-a-trace 1 "$ON" "$D" --flash-size 8

# usage text and completion
"$CTL" bench --help >"$T/help.txt" 2>&1
if grep -q -- '--trace CONFIGS' "$T/help.txt" && grep -q '^       fcachectl bench optimum TRACE' "$T/help.txt"; then
	pass usage-optimum; else fail usage-optimum; fi
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench opt); COMP_CWORD=2; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = optimum ]; then pass completion-optimum; else fail completion-optimum "$out"; fi
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl bench compare --trace fc); COMP_CWORD=4; _fcachectl; echo \${COMPREPLY[*]}")
if [ "$out" = "fcache-writeback fcache-mirrored" ]; then pass completion-trace-configs; else
	fail completion-trace-configs "$out"; fi
