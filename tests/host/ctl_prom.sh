#!/bin/sh
# status --prometheus on the host: the formatter (userspace/ctl/fc_prom.c) fed
# with synthetic counters (tests/unit/test_prom --emit) must pass the strict
# parser tests/host/prom_check.py, which must refuse broken expositions;
# without device-mapper the verb fails cleanly.  promtool is not needed.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
H=$top/tests/host
PC="python3 $H/prom_check.py"

if make -s -C "$top/tests/unit" bin/test_prom >"$T/mk.log" 2>&1; then
	"$top/tests/unit/bin/test_prom" --emit >"$T/syn.prom"
	expect_rc 0 "prom: synthetic exposition passes the strict parser (--fcache)" $PC --fcache "$T/syn.prom"
	if command -v promtool >/dev/null 2>&1; then
		promtool check metrics <"$T/syn.prom" >"$T/out" 2>&1 && pass "prom: promtool check metrics" ||
			fail "prom: promtool check metrics" "$(head -c 300 "$T/out")"
	fi
	$PC --json "$T/syn.prom" >"$T/syn.json"
	if python3 - "$T/syn.json" >"$T/py.err" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
def get(name, **lab):
    v = [x[2] for x in s if x[0] == name and x[1] == lab]
    assert len(v) == 1, (name, lab, v)
    return v[0]
# u64 counters written exactly, as integers
assert get("fcache_volume_reads_total", pool="p0", volume="v0") == "18446744073709551615"
assert get("fcache_pool_metadata_errors_total", pool="p0") == "9007199254740993"
# escaping round-trips through the parser
weird = 'we"ird\\po\nol?\u00e9'
assert get("fcache_pool_needs_check", pool=weird) == "1"
assert get("fcache_volume_status_ok", pool=weird, volume="v\\2") == "1"
assert get("fcache_volume_info", pool="p0", volume="v0", id="1", label='db "main"',
           origin="/dev/fake252-0", in_place="0") == "1"
# state sets: exactly one 1 per pool and state family
for fam, lab in (("fcache_pool_metadata_mode", "mode"), ("fcache_pool_writeback_state", "state"),
                 ("fcache_pool_redundancy", "redundancy")):
    for pool in ("p0", weird):
        ones = [x for x in s if x[0] == fam and x[1]["pool"] == pool and x[2] == "1"]
        assert len(ones) == 1, (fam, pool, ones)
# read-only metadata's two fields (p0's status has them, the weird pool's not: no sample)
assert get("fcache_pool_unwritable_blocks", pool="p0") == "12"
assert [x[1]["state"] for x in s if x[0] == "fcache_pool_flushes" and x[2] == "1"] == ["draining"]
# the pool without status has no status counters
assert not [x for x in s if x[0] == "fcache_pool_blocks" and x[1]["pool"] == "p2"]
PY
	then pass "prom: values exact, labels unescape to the names, one state per set"
	else fail "prom: values exact, labels unescape to the names, one state per set" "$(tail -n 2 "$T/py.err" | tr '\n' ' ')"; fi
else
	fail "prom: build tests/unit/bin/test_prom" "$(tail -n 5 "$T/mk.log" | tr '\n' ' ')"
fi

# the parser is strict: each of these is refused
n=0
while IFS='|' read -r why text; do
	n=$((n + 1))
	printf "$text" >"$T/bad$n.prom"
	$PC --fcache "$T/bad$n.prom" >"$T/out" 2>&1
	r=$?
	[ $r -eq 1 ] && pass "prom-parser refuses: $why" || fail "prom-parser refuses: $why" "rc $r: $(head -c 200 "$T/out")"
done <<'EOF2'
no final line feed|# HELP fcache_x_total x\n# TYPE fcache_x_total counter\nfcache_x_total 1
unescaped quote in a label value|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{pool="a"b"} 1\n
unknown escape in a label value|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{pool="a\\tb"} 1\n
raw line feed in a label value|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{pool="a\nb"} 1\n
label twice|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{pool="a",pool="b"} 1\n
reserved label name|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{__pool="a"} 1\n
series twice|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{pool="a"} 1\nfcache_x{pool="a"} 2\n
family split in two|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x{pool="a"} 1\n# HELP fcache_y y\n# TYPE fcache_y gauge\nfcache_y 1\nfcache_x{pool="b"} 1\n
TYPE after the samples|# HELP fcache_x x\nfcache_x 1\n# TYPE fcache_x gauge\n
second TYPE|# HELP fcache_x x\n# TYPE fcache_x gauge\n# TYPE fcache_x gauge\nfcache_x 1\n
unknown type|# HELP fcache_x x\n# TYPE fcache_x meter\nfcache_x 1\n
bad value|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x 1,5\n
no HELP (fcache convention)|# TYPE fcache_x gauge\nfcache_x 1\n
counter without _total (fcache convention)|# HELP fcache_x x\n# TYPE fcache_x counter\nfcache_x 1\n
gauge ending in _total (fcache convention)|# HELP fcache_x_total x\n# TYPE fcache_x_total gauge\nfcache_x_total 1\n
negative counter|# HELP fcache_x_total x\n# TYPE fcache_x_total counter\nfcache_x_total -1\n
carriage return|# HELP fcache_x x\n# TYPE fcache_x gauge\nfcache_x 1\r\n
bad metric name|# HELP fcache_x x\n# TYPE fcache_x gauge\n1fcache_x 1\n
EOF2
printf '# HELP fcache_x_total a \\\\ b\\n c\n# TYPE fcache_x_total counter\nfcache_x_total{pool="a\\\\b\\"c\\nd",volume=""} 18446744073709551615\nfcache_x_total{pool="b",} 1\n' >"$T/good.prom"
expect_rc 0 "prom-parser accepts escapes, empty values, a trailing comma" $PC --fcache "$T/good.prom"

# without device-mapper (this host has none): exit 1, one line, nothing on stdout
if ! grep -qs device-mapper /proc/misc && ! grep -qs device-mapper /proc/devices; then
	expect_rc 1 "no-dm: status --prometheus exits 1" "$CTL" status --prometheus
	err_one_line "no-dm: status --prometheus says so in one line"
	[ ! -s "$T/out" ] && pass "no-dm: status --prometheus prints nothing on stdout" ||
		fail "no-dm: status --prometheus prints nothing on stdout" "$(head -c 200 "$T/out")"
	expect_rc 1 "no-dm: --prometheus-file exits 1" "$CTL" status --prometheus-file "$T/fc.prom"
	[ ! -e "$T/fc.prom" ] && [ ! -e "$T/fc.prom.tmp" ] && pass "no-dm: --prometheus-file writes no file" ||
		fail "no-dm: --prometheus-file writes no file"
	expect_rc 1 "no-dm: __complete pools exits 1" "$CTL" __complete pools
	[ ! -s "$T/out" ] && [ ! -s "$T/err" ] && pass "no-dm: __complete is silent" ||
		fail "no-dm: __complete is silent" "$(head -c 200 "$T/err")"
fi
expect_rc 2 "usage: status --json --prometheus" "$CTL" status --json --prometheus
expect_rc 2 "usage: status --prometheus-file without PATH" "$CTL" status --prometheus-file
expect_rc 2 "usage: __complete without a list" "$CTL" __complete
expect_rc 2 "usage: __complete bad list" "$CTL" __complete frob
"$CTL" --help >"$T/out"
grep -q __complete "$T/out" && fail "usage: --help hides __complete" || pass "usage: --help hides __complete"
grep -q -- 'prometheus\\-file' "$top/man/fcachectl.8" && pass "prom: man page documents --prometheus" ||
	fail "prom: man page documents --prometheus"

# completion: never the sampling status --json; __complete instead
if grep -v '^[[:space:]]*#' "$top/completion/fcachectl" | grep -q 'fcachectl status'; then
	fail "completion: does not run status --json (it samples for 0.5 s)"
else
	pass "completion: does not run status --json (it samples for 0.5 s)"
fi
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "$*" >>"%s/calls"\ncase "$*" in "__complete pools") echo p0; echo p1 ;; "__complete targets") echo p0; echo vol0 ;; *) sleep 5 ;; esac\n' "$T" >"$T/bin/fcachectl"
chmod +x "$T/bin/fcachectl"
t0=$(date +%s)
out=$(PATH="$T/bin:$PATH" bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl status v); COMP_CWORD=2; _fcachectl; echo \${COMPREPLY[*]}; COMP_WORDS=(fcachectl enable x --pool ''); COMP_CWORD=4; _fcachectl; echo \${COMPREPLY[*]}")
t1=$(date +%s)
if [ "$out" = "$(printf 'vol0\np0 p1')" ] && [ $((t1 - t0)) -lt 3 ]; then
	pass "completion: targets and pools from __complete, at once"
else
	fail "completion: targets and pools from __complete, at once" "$out; $((t1 - t0)) s; calls: $(tr '\n' ';' <"$T/calls")"
fi
