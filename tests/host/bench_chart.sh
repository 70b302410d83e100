#!/bin/sh
# What the reports and charts of `fcachectl bench compare` show (issue 35,
# item 10), from synthetic results (tests/unit/test_bench_chart.c: no
# ratio reads 0.00x, the buffer pool >= datafile warning, tick labels in
# k); the charts it leaves are checked by bench_check_svg.py --layout: no
# exponent in a tick label, none over the axis title, a linear scale
# topped near the data's maximum, no line flat on the bottom (response
# times 100x apart: a log scale).  Negative controls: the checker refuses
# a chart with those faults.
top=$(cd "$(dirname "$0")/../.." && pwd)
H=$top/tests/host
BT_NAME=chart
. "$top/tests/host/bench_lib.sh"

if make -s -C "$top/tests/unit" bin/test_bench_chart >"$T/build.log" 2>&1; then
	"$top/tests/unit/bin/test_bench_chart" "$T" >"$T/unit.out" 2>&1
	grep '^FAIL' "$T/unit.out" | sed 's/^FAIL: /FAIL: bench-chart\/unit: /'
	if ! grep -q '^FAIL' "$T/unit.out" && grep -q '^PASS' "$T/unit.out"; then
		pass "unit-$(grep -c '^PASS' "$T/unit.out")-checks"
	else
		fail unit "$(grep -c '^FAIL' "$T/unit.out") failed"
	fi
else
	fail unit-build "$(tail -n 3 "$T/build.log" | tr '\n' ' ')"
fi
for c in log linear; do
	rc "layout-$c" 0 python3 "$H/bench_check_svg.py" --layout "$T/chart-$c.svg" baseline fcache-writeback
	[ -s "$T/out" ] && grep -v '^ok$' "$T/out" | head -n 5 | sed "s/^/  layout-$c: /"
done
# negative controls: the checker sees each fault
if [ -s "$T/chart-log.svg" ]; then
	sed 's/>40k</>3.75e+04</' "$T/chart-log.svg" >"$T/bad1.svg"
	rc layout-refuses-exponent 1 python3 "$H/bench_check_svg.py" --layout "$T/bad1.svg" baseline fcache-writeback
	sed 's/>40k</>4000000</' "$T/chart-log.svg" >"$T/bad2.svg"
	rc layout-refuses-label-over-title 1 python3 "$H/bench_check_svg.py" --layout "$T/bad2.svg" baseline fcache-writeback
	python3 - "$T/chart-log.svg" "$T/bad3.svg" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
# every point of the last line onto the bottom of its panel (y 40 + 210 = 250; 0.5 above)
i = s.rindex('<polyline')
j = s.index('"/>', i)
seg = re.sub(r'(\d+),[0-9.]+', r"\1,249.5", s[i:j])
open(sys.argv[2], 'w').write(s[:i] + seg + s[j:])
PY
	rc layout-refuses-flat-line 1 python3 "$H/bench_check_svg.py" --layout "$T/bad3.svg" baseline fcache-writeback
fi
if [ -s "$T/chart-linear.svg" ]; then
	python3 - "$T/chart-linear.svg" "$T/bad4.svg" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
# the first panel's points halved in height: the scale then wastes half of it
i = s.index('<polyline')
j = s.index('</g>', i)
seg = re.sub(r'(\d+),([0-9.]+)', lambda m: "%s,%.1f" % (m.group(1), 250 - (250 - float(m.group(2))) / 2), s[i:j])
open(sys.argv[2], 'w').write(s[:i] + seg + s[j:])
PY
	rc layout-refuses-wasted-scale 1 python3 "$H/bench_check_svg.py" --layout "$T/bad4.svg" baseline fcache-writeback
fi
