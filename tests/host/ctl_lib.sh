#!/bin/sh
# Shared helpers of the fcachectl host tests (sourced).
#   pass NAME / fail NAME [why]   print one PASS:/FAIL: line
#   expect_rc RC NAME CMD...      run CMD, check its exit code
#   ctl_build                     build the ASan fcachectl and the test tools
# Sets: top, CTL (the fcachectl under test), T (scratch dir), BIN.
top=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$top/build/ctl-host
mkdir -p "$BIN"
T=$(mktemp -d /tmp/fcctl-host.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1${2:+ ($2)}"; }

# expect_rc RC NAME CMD... : stdout/stderr of CMD kept in $T/out, $T/err
expect_rc() {
	want=$1 name=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass "$name"
	else
		fail "$name" "exit $got, wanted $want: $(head -c 300 "$T/err")"
	fi
}

# err_is_one_line NAME : the last command printed exactly one line on stderr
err_one_line() {
	n=$(grep -c . "$T/err")
	if [ "$n" -eq 1 ] && grep -q '^fcachectl: ' "$T/err"; then
		pass "$1"
	else
		fail "$1" "stderr had $n lines: $(head -c 300 "$T/err")"
	fi
}

SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -g -O1"
ctl_build() {
	make -s -C "$top/userspace" asan >"$T/build.log" 2>&1 ||
		{ cat "$T/build.log"; fail "ctl build: make -C userspace asan"; exit 0; }
	CTL=$top/userspace/fcachectl-asan
	ctl_tool "$BIN/ctl_mkimage" "$top/tests/host/ctl_mkimage.c" "$top/engine/fc_format.c" &&
	ctl_tool "$BIN/ctl_fuzz" "$top/tests/host/ctl_fuzz.c" "$top"/userspace/lib/fc_check*.c \
		"$top/userspace/lib/fc_dev.c" "$top/userspace/lib/fc_json.c" "$top/engine/fc_format.c" ||
		{ fail "ctl build: test tools"; exit 0; }
}
# ctl_confedit_build: $BIN/ctl_confedit (tests/host/ctl_confedit.c), linked
# with the objects of userspace/lib and userspace/ctl but main's; 0, or 1
# with the compiler's output in $T/cc.log
ctl_confedit_build() {
	make -s -C "$top/userspace" fcachectl >/dev/null 2>&1
	_objs=$(ls "$top"/userspace/obj/fc_*.o "$top"/userspace/obj/lib/*.o \
		"$top"/userspace/obj/ctl/*.o | grep -v '/fcachectl.o$')
	cc -O1 -g -Wall -Wextra -Werror -std=gnu11 -I"$top/include" -I"$top/userspace/lib" -I"$top/userspace/ctl" \
		$(pkg-config --cflags devmapper blkid) -o "$BIN/ctl_confedit" "$top/tests/host/ctl_confedit.c" \
		$_objs $(pkg-config --libs devmapper blkid) -lm -pthread >"$T/cc.log" 2>&1
}
# ctl_tool OUT SOURCES...: (re)build a test tool when it is missing or older
# than a source or a header (every ctl_*.sh calls ctl_build: building once
# per suite instead of once per script saves about a minute)
ctl_tool() {
	_to=$1
	shift
	if [ -x "$_to" ]; then
		_stale=0
		for _ts in "$@" "$top"/include/*.h "$top"/engine/*.h "$top"/userspace/lib/*.h; do
			[ "$_ts" -nt "$_to" ] && { _stale=1; break; }
		done
		[ $_stale -eq 0 ] && return 0
	fi
	cc -Wall -Wextra -Werror $SAN -I"$top/include" -o "$_to.$$" "$@" && mv -f "$_to.$$" "$_to"
}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99

# comp_fake: $T/bin/fcachectl answers __complete pools (p0) and targets
# (p0, vol0) and sleeps 5 s on anything else: completion must not wait
comp_fake() {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\ncase "$*" in "__complete pools") echo p0 ;; "__complete targets") echo p0; echo vol0 ;; *) sleep 5 ;; esac\n' >"$T/bin/fcachectl"
	chmod +x "$T/bin/fcachectl"
}
# cmp_out NAME WANT WORDS...: bash completion of WORDS (the last word is
# completed, with comp_fake's fcachectl first in PATH) gives WANT
cmp_out() {
	name=$1 want=$2
	shift 2
	words="" n=0
	for w in "$@"; do words="$words '$w'"; n=$((n + 1)); done
	out=$(PATH="$T/bin:$PATH" bash -c ". '$top/completion/fcachectl'; COMP_WORDS=($words); COMP_CWORD=$((n - 1)); _fcachectl; echo \${COMPREPLY[*]}")
	[ "$out" = "$want" ] && pass "$name" || fail "$name" "got '$out'"
}

# same_run NAME RC CMD1 :: CMD2: both exit RC with the same stdout and stderr
same_run() {
	name=$1 want=$2
	shift 2
	a="" b=""
	while [ "$1" != "::" ]; do a="$a '$1'"; shift; done
	shift
	for w in "$@"; do b="$b '$w'"; done
	eval "\"\$CTL\" $a" >"$T/o1" 2>"$T/e1"
	r1=$?
	eval "\"\$CTL\" $b" >"$T/o2" 2>"$T/e2"
	r2=$?
	if [ $r1 -eq "$want" ] && [ $r2 -eq "$want" ] && cmp -s "$T/o1" "$T/o2" && cmp -s "$T/e1" "$T/e2"; then
		pass "$name"
	else
		fail "$name" "exit $r1 and $r2, wanted $want: $(head -c 200 "$T/e1") / $(head -c 200 "$T/e2")"
	fi
}
