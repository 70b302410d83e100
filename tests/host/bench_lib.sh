# Setup shared by the bench host tests (bench_host.sh, bench_input.sh,
# bench_optimum.sh, bench_safety.sh): sourced with $top and BT_NAME set;
# gives $T (a temporary directory removed on exit), pass/fail printing
# "PASS: bench-$BT_NAME/...", rc, sigrun, and $CTL, the ASan/UBSan build of
# fcachectl (the plain one, with a FAIL, if it does not build).
T=$(mktemp -d "/tmp/fcbench-$BT_NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

pass() { echo "PASS: bench-$BT_NAME/$1"; }
fail() { echo "FAIL: bench-$BT_NAME/$1${2:+ ($2)}"; }

# rc NAME WANT CMD... : exit status check; output in $T/out, $T/err; with
# RC_TIMEOUT=S set (bench_input.sh, bench_safety.sh), within S seconds
# (124: hung, killed)
rc() {
	_n=$1 _w=$2; shift 2
	if [ -n "${RC_TIMEOUT:-}" ]; then
		timeout "$RC_TIMEOUT" "$@" >"$T/out" 2>"$T/err"
	else
		"$@" >"$T/out" 2>"$T/err"
	fi
	_g=$?
	if [ "$_g" -eq "$_w" ]; then pass "$_n"; else
		[ -n "${RC_TIMEOUT:-}" ] && [ "$_g" -eq 124 ] && _g="124 (hung, killed after $RC_TIMEOUT s)"
		fail "$_n" "exit $_g, wanted $_w: $(tail -n 3 "$T/err" | tr '\n' ' ')"; fi
}

# sigrun NAME SIG DELAY CMD... : CMD in the background, SIG after DELAY s;
# its exit status in $got (124: still running 20 s later, killed).  CMD
# starts with SIG's default disposition: a test run under nohup (SIGHUP
# ignored, inherited) still sees what a terminal's hangup does.
sigrun() {
	_n=$1 _s=$2 _d=$3; shift 3
	env --default-signal="$_s" "$@" >"$T/out" 2>"$T/err" &
	_p=$!
	sleep "$_d"
	kill -s "$_s" "$_p"
	( sleep 20; kill -KILL "$_p" ) >/dev/null 2>&1 &
	_dog=$!
	# (the shell's "Terminated" notice is no output of the test)
	{ wait "$_p"; got=$?; } 2>/dev/null
	{ kill "$_dog"; wait "$_dog"; } 2>/dev/null
	[ "$got" -eq 137 ] && got=124
}

if make -s -C "$top/userspace" asan >"$T/build.log" 2>&1; then
	CTL=$top/userspace/fcachectl-asan
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1
else
	fail asan-build "$(tail -n 3 "$T/build.log" | tr '\n' ' ')"
	CTL=$top/userspace/fcachectl
fi

# py NAME FILE EXPR : python assertion over the JSON results d (bench_host.sh,
# bench_host_compare.sh): c its first configuration, s its first step, k the
# step's counts, types the transaction types, by the counts by type
py() {
	if python3 - "$2" "$3" >"$T/py.err" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["configs"][0]
s = c["steps"][0]
k = s["counts"]
types = d["workload"]["transaction_types"]
by = k["transactions_by_type"]
ok = eval(sys.argv[2])
if not ok:
    print("assertion false:", sys.argv[2])
    print({x: k[x] for x in k if x != "transactions_by_type"}, by)
    sys.exit(1)
EOF
	then pass "$1"; else fail "$1" "$(tail -n 2 "$T/py.err" | tr '\n' ' ')"; fi
}
