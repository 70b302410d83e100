#!/bin/sh
# `fcachectl bench compare --anchors` end to end with tiny times, in the
# guest: md RAID10 of null_blk spindles as the origin, brd as the flash.
# Checks the report (tables, one well-formed summary line per
# configuration), results.json against its schema with zero integrity
# errors and verified page reads in every configuration, and the chart;
# fcache's run traced (--trace): the trace file, the origin's requests of
# every configuration, and the offline optimum of the trace beside fcache's
# figures, within bounds any correct optimum keeps.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
H=$FC_TOP/tests/host
L=$FC_LOGDIR
out=/tmp/bench-out

load_fcache || die "cannot load dm-fcache"
modprobe -q dm-cache-smq 2>/dev/null
modprobe -q dm-writecache 2>/dev/null
md=$(mk_raid10 96) || die "mk_raid10 failed"
flash=$(mk_brd_flash 32) || die "mk_brd_flash failed"

configs=baseline,fcache-writeback,dm-cache,dm-writecache
"$CTL" bench compare --origin "$md" --flash "$flash" --anchors --size 64 \
	--users 4,16 --time 2 --warmup 1 --report-interval 1 --buffer-pool 2 \
	--trace fcache-writeback --output "$out" >"$L/compare.out" 2>"$L/compare.err"
rc=$?
cp "$L/compare.out" "$L/compare.err" /results/ 2>/dev/null
if [ $rc -eq 0 ]; then pass compare-exit-0; else
	fail compare-exit-0 "exit $rc: $(tail -n 5 "$L/compare.err" | tr '\n' ' ')"; fi

# report: interval lines, a table per configuration, comparison tables
if grep -qE '^\[ +[0-9]+s \] baseline users: [0-9]+ tps: [0-9.]+ lat \(ms,avg\): [0-9.]+ lat \(ms,95%\): [0-9.]+' "$L/compare.out"; then
	pass report-interval-lines; else fail report-interval-lines; fi
n=$(grep -c '^ users        TPS     avg ms     p95 ms     p99 ms' "$L/compare.out")
if [ "$n" -eq 4 ]; then pass report-table-per-config; else fail report-table-per-config "$n tables"; fi
if grep -q '^== TPS (ratio to baseline) ==' "$L/compare.out" &&
   grep -q '^== average response time, ms (ratio to baseline) ==' "$L/compare.out"; then
	pass report-ratio-tables; else fail report-ratio-tables; fi

# summary: exactly one line per configuration, the last lines of the report
tail -n 4 "$L/compare.out" >"$L/summary"
ok=1
for c in $(echo $configs | tr ',' ' '); do
	grep -qE "^summary $c: TPS [0-9]+\.[0-9]+x baseline, avg response time [0-9]+\.[0-9]+x baseline at 16 users$" "$L/summary" || ok=0
done
if [ $ok -eq 1 ] && [ "$(grep -c '^summary ' "$L/compare.out")" -eq 4 ]; then
	pass summary-lines; else fail summary-lines "$(tr '\n' '|' <"$L/summary")"; fi
if grep -q '^summary baseline: TPS 1.00x baseline, avg response time 1.00x baseline at 16 users$' "$L/summary"; then
	pass summary-baseline-is-1; else fail summary-baseline-is-1; fi

# integrity: every configuration verified its reads, zero errors
n=$(grep -cE '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$L/compare.out")
if [ "$n" -eq 4 ]; then pass integrity-zero-errors; else
	fail integrity-zero-errors "$(grep '^integrity' "$L/compare.out" | tr '\n' '|')"; fi

# results.json and chart
check results-json-schema python3 "$H/bench_check_json.py" "$out/results.json" \
	--configs "$configs" --zero-errors
check chart-named-in-report grep -q "^chart (TPS and average response time versus users): $out/chart.svg$" "$L/compare.out"
check chart-well-formed python3 "$H/bench_check_svg.py" "$out/chart.svg" \
	baseline fcache-writeback dm-cache dm-writecache
cp "$out/results.json" "$out/chart.svg" /results/ 2>/dev/null

# the limit (issue 33): fcache's trace, the origin's requests of each
# configuration, the optimum of the trace against fcache's own figures
if [ -s "$out/trace-fcache-writeback.fct" ] && [ ! -e "$out/trace-baseline.fct" ]; then
	pass trace-of-fcache-only; else fail trace-of-fcache-only "$(ls "$out" | tr '\n' ' ')"; fi
n=$(grep -cE '^[a-z-]+ origin requests per transaction: [0-9.]+ \(reads [0-9.]+, writes [0-9.]+\), and the backlog.s ([0-9.]+|-); its 4 members [0-9.]+; [1-9][0-9]* transactions$' "$L/compare.out")
if [ "$n" -eq 4 ]; then pass origin-requests-each-config; else
	fail origin-requests-each-config "$n lines: $(grep 'origin requests per' "$L/compare.out" | tr '\n' '|')"; fi
grep '^offline optimum ' "$L/compare.out" >"$L/optimum" 2>/dev/null
cp "$L/optimum" /results/ 2>/dev/null
# read hit ratio: fill on miss <= with bypass <= 100%, and fcache's (it
# counts bios of 16 KiB pages, the optimum 4 KiB pages of the same reads)
# at most the optimum's with bypass; origin operations a transaction: the
# bound > 0, at most the schedule, at most fcache's own (distance >= 1)
if [ "$(wc -l <"$L/optimum")" -eq 1 ] && awk '
	match($0, /^offline optimum \(Belady MIN, 32 MiB flash\) of fcache-writeback.s trace: read hit ratio [0-9.]+% \(fill on miss\) \/ [0-9.]+% \(with bypass\), fcache-writeback [0-9.]+%; least origin ops per txn [0-9.]+ \(a schedule reaches [0-9.]+\); fcache-writeback [0-9.]+ \(distance [0-9.]+x\)$/) {
		gsub(/[^0-9. ]/, " "); n = split($0, v, " +")
		# v: 32 fill bypass cache bound schedule fcache distance (after "MIN")
		k = 0; for (i = 1; i <= n; i++) if (v[i] != "") w[++k] = v[i]
		fill = w[2]; byp = w[3]; hit = w[4]; lb = w[5]; sch = w[6]; fc = w[7]; d = w[8]
		ok = fill > 0 && fill <= byp + 0.05 && byp <= 100 && hit <= byp + 0.05 && lb > 0 && lb <= sch + 0.0005 && lb <= fc + 0.0005 && d >= 0.995
		printf "fill %s bypass %s fcache %s bound %s schedule %s fcache ops %s distance %s: %s\n", fill, byp, hit, lb, sch, fc, d, ok ? "ok" : "OUT OF BOUNDS"
		exit !ok }
	END { if (NR == 0) exit 1 }' "$L/optimum" >"$L/optimum.check"; then
	pass optimum-line-within-bounds
	info "$(cat "$L/optimum.check")"
else
	fail optimum-line-within-bounds "$(cat "$L/optimum.check" "$L/optimum" | tr '\n' '|')"
fi
# the standalone verb reads the same trace and gives the same bound
"$CTL" bench optimum "$out/trace-fcache-writeback.fct" >"$L/optverb.out" 2>&1
a=$(sed -n 's/^offline optimum (Belady MIN, 32 MiB flash): .*least origin ops per txn \([0-9.]*\) .*/\1/p' "$L/optverb.out")
b=$(sed -n 's/.*least origin ops per txn \([0-9.]*\) .*/\1/p' "$L/optimum")
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass optimum-verb-same-bound; else
	fail optimum-verb-same-bound "verb '$a' compare '$b': $(tail -n 3 "$L/optverb.out" | tr '\n' '|')"; fi
grep -h 'offline optimum of its trace\|origin requests per' "$L/compare.out" | head -8 | sed 's/^/# /'

# the terminal model (issue 12): users think between transactions, so TPS
# and response time are separate results; a terminals summary line each.
# With fcache-mirrored (issue 11): a mirrored pool over the flash's halves.
# Two rounds (issue 12: medians and spread of terminals too).
tout=/tmp/bench-terminals
"$CTL" bench compare --origin "$md" --flash "$flash" --configs fcache-mirrored --size 64 \
	--users 4,16 --time 3 --warmup 1 --report-interval 0 --buffer-pool 2 \
	--think-time 0.2 --rounds 2 --output "$tout" >"$L/terminals.out" 2>"$L/terminals.err"
rc=$?
cp "$L/terminals.out" "$L/terminals.err" /results/ 2>/dev/null
if [ $rc -eq 0 ]; then pass terminals-exit-0; else
	fail terminals-exit-0 "exit $rc: $(tail -n 5 "$L/terminals.err" | tr '\n' ' ')"; fi
ok=1
for c in baseline fcache-mirrored; do
	grep -qE "^summary terminals $c: TPS [0-9]+\.[0-9]+x baseline, avg response time [0-9]+\.[0-9]+x baseline, users under 2 s [0-9]+ \([0-9]+\.[0-9]+x baseline\)$" "$L/terminals.out" || ok=0
done
if [ $ok -eq 1 ] && [ "$(grep -c '^summary terminals ' "$L/terminals.out")" -eq 2 ]; then
	pass terminals-summary-lines; else fail terminals-summary-lines "$(grep '^summary' "$L/terminals.out" | tr '\n' '|')"; fi
# N users thinking 0.2 s on average cannot exceed N / 0.2 transactions a
# second (+30%), at 16 and at 4 users, the first step after a warm-up at
# 16 (the 12 others finish their transactions in the warm-up)
if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['schema_version'] == 2 and d['workload']['terminal_model'], 'schema or terminal_model'
assert d['workload']['rounds'] == 2 and len(d['run_order']) == 2, 'rounds'
for c in d['configs']:
    assert c['rounds'] == 2 and len(c['users_under_rt_limit_rounds']) == 2, (c['name'], 'rounds')
    for st in c['steps']:
        assert st['tps'] <= st['users'] / 0.2 * 1.3, (c['name'], st['users'], st['tps'])
" "$tout/results.json" >"$L/tjs.err" 2>&1; then
	pass terminals-tps-bounded-by-think-time
else
	fail terminals-tps-bounded-by-think-time "$(tail -n 1 "$L/tjs.err")"
fi
check terminals-results-json python3 "$H/bench_check_json.py" "$tout/results.json" \
	--configs baseline,fcache-mirrored --zero-errors
n=$(grep -cE '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$L/terminals.out")
if [ "$n" -eq 4 ]; then pass terminals-integrity-zero-errors; else
	fail terminals-integrity-zero-errors "$(grep '^integrity' "$L/terminals.out" | tr '\n' '|')"; fi
grep -qE '^fcache-mirrored status: .*; pool: fcache-pool .* mirrored 0 ok,ok( |$)' "$L/terminals.out" &&
	pass mirrored-pool-reported || fail mirrored-pool-reported "$(grep '^fcache-mirrored status' "$L/terminals.out")"

# nothing left behind
if dmsetup ls 2>/dev/null | grep -q fcbench; then fail no-leftover-devices; else pass no-leftover-devices; fi
mdadm --stop "$md" >/dev/null 2>&1
dmesg_clean
finish
