# Setup shared by the bench host tests (bench_host.sh, bench_input.sh):
# sourced with $top and BT_NAME set; gives $T (a temporary directory removed
# on exit), pass/fail printing "PASS: bench-$BT_NAME/...", rc, and $CTL, the
# ASan/UBSan build of fcachectl (the plain one, with a FAIL, if it does not build).
T=$(mktemp -d "/tmp/fcbench-$BT_NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

pass() { echo "PASS: bench-$BT_NAME/$1"; }
fail() { echo "FAIL: bench-$BT_NAME/$1${2:+ ($2)}"; }

# rc NAME WANT CMD... : exit status check; output in $T/out, $T/err
# (bench_input.sh has its own, under a timeout)
rc() {
	_n=$1 _w=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	_g=$?
	if [ "$_g" -eq "$_w" ]; then pass "$_n"; else
		fail "$_n" "exit $_g, wanted $_w: $(tail -n 3 "$T/err" | tr '\n' ' ')"; fi
}

if make -s -C "$top/userspace" asan >"$T/build.log" 2>&1; then
	CTL=$top/userspace/fcachectl-asan
	export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1
else
	fail asan-build "$(tail -n 3 "$T/build.log" | tr '\n' ' ')"
	CTL=$top/userspace/fcachectl
fi
