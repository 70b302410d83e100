#!/bin/sh
# `fcachectl bench compare --anchors` end to end with tiny times, in the
# guest: md RAID10 of null_blk spindles as the origin, brd as the flash.
# Checks the report (tables, one well-formed summary line per
# configuration), results.json against its schema with zero integrity
# errors and verified page reads in every configuration, and the chart.
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
	--users 4,16 --time 3 --warmup 2 --report-interval 1 --buffer-pool 2 \
	--output "$out" >"$L/compare.out" 2>"$L/compare.err"
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
	grep -qE "^summary $c: TPS [0-9]+\.[0-9]{2}x baseline, avg response time [0-9]+\.[0-9]{2}x baseline at 16 users$" "$L/summary" || ok=0
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

# nothing left behind
if dmsetup ls 2>/dev/null | grep -q fcbench; then fail no-leftover-devices; else pass no-leftover-devices; fi
mdadm --stop "$md" >/dev/null 2>&1
dmesg_clean
finish
