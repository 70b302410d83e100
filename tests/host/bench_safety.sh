#!/bin/sh
# Host tests of `fcachectl bench` against what loses a DBA's work (issue
# 35, against files): SIGHUP (a dropped SSH session) stops run and compare
# as SIGINT does (partial report and JSON, a clean datafile the next run
# takes without a prepare, exit 129), and a SIGHUP ignored by nohup leaves
# the run alone; a closed standard output (| head) ends no run with
# --json or compare (they go on to their files, exit 0) and stops a run
# without (SIGPIPE, exit 141), the datafile clean either way; a second run,
# prepare or compare on a datafile in use is refused naming the first
# (which goes on, untouched); prepare/run/compare on a FIFO or a directory
# fail at once with one line (a FIFO used to hang, a directory got a
# --force hint that then failed); compare --origin X --flash X is refused;
# a baseline-only compare and a compare with bad arguments never open
# /dev/mapper/control; --json FILE and --output DIR that cannot be written
# fail before the run; a datafile shorter than its header says so (not
# "Success").
# The binary is the ASan/UBSan build (make -C userspace asan).
top=$(cd "$(dirname "$0")/../.." && pwd)
BT_NAME=safety
. "$top/tests/host/bench_lib.sh"
RC_TIMEOUT=20	# a hang is a failure (rc)

# err_is NAME REGEX: the last command's stderr is one line matching REGEX
err_is() {
	if [ "$(grep -c . "$T/err")" -eq 1 ] && grep -qE -- "$2" "$T/err"; then pass "$1"; else
		fail "$1" "$(head -n 3 "$T/err" | tr '\n' '|')"; fi
}
# json_ok NAME FILE PYTHON: the results file parses and PYTHON (on c, its first configuration) holds
json_ok() {
	if python3 -c "import json, sys; c = json.load(open(sys.argv[1]))['configs'][0]; assert ($3), c" \
		"$2" >"$T/py.err" 2>&1; then pass "$1"; else fail "$1" "$(tail -n 1 "$T/py.err")"; fi
}

F=$T/data.img
"$CTL" bench prepare "$F" --size 32 >/dev/null 2>&1 || fail prepare-datafile
truncate -s 64M "$T/flash.img"
RUN="bench run $F --warmup 0 --time 1 --users 2 --quiet"

# ---- 1. SIGHUP, SIGPIPE
sigrun sighup HUP 5 "$CTL" bench run "$F" --warmup 0.5 --time 3 --users 2,4,8 --report-interval 1 \
	--json "$T/hup.json"
if [ "$got" -eq 129 ]; then pass sighup-run-dies-of-sighup; else
	fail sighup-run-dies-of-sighup "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
if grep -qE '^fcachectl bench: run stopped by SIGHUP [0-9.]+ s into the 4-user step, which is left out; the datafile is closed cleanly$' "$T/err"; then
	pass sighup-message; else fail sighup-message "$(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
if grep -qE '^     2 +[0-9.]+ ' "$T/out" && grep -qE '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$T/out"; then
	pass sighup-partial-report; else fail sighup-partial-report "$(tail -n 3 "$T/out" | tr '\n' '|')"; fi
json_ok sighup-json "$T/hup.json" '"SIGHUP" in c["interrupted"] and [s["users"] for s in c["steps"]] == [2]'
rc sighup-next-run-no-prepare 0 "$CTL" $RUN

# nohup: SIGHUP ignored before the run stays ignored (the run goes to its end)
sigrun sighup HUP 1 sh -c 'trap "" HUP; exec "$@"' sh "$CTL" bench run "$F" --warmup 0 --time 2 --users 2 --quiet
if [ "$got" -eq 0 ] && grep -q '^integrity: ' "$T/out"; then pass sighup-ignored-nohup; else
	fail sighup-ignored-nohup "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi

# the first round completes (4 s), the second is cut short
sigrun sighup HUP 6 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" --configs baseline \
	--rounds 2 --users 2,4 --warmup 0 --time 2 --quiet --output "$T/cmph"
if [ "$got" -eq 129 ] && grep -q "^fcachectl bench: compare stopped by SIGHUP" "$T/err" &&
   grep -q '^summary baseline: ' "$T/out"; then
	pass sighup-compare; else fail sighup-compare "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
json_ok sighup-compare-json "$T/cmph/results.json" 'c["interrupted"] and c["steps"]'
rc sighup-compare-next-run 0 "$CTL" $RUN

# | head: the status of fcachectl itself in $T/rc
piperun() {
	{ "$@" 2>"$T/err"; echo $? >"$T/rc"; } | head -n 2 >"$T/head"
	got=$(cat "$T/rc")
}
piperun "$CTL" bench run "$F" --warmup 0.5 --time 1.5 --users 2,4 --report-interval 0.5 --json "$T/pipe.json"
if [ "$got" -eq 0 ] && [ "$(wc -l <"$T/head")" -eq 2 ]; then pass sigpipe-json-run-goes-on; else
	fail sigpipe-json-run-goes-on "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
err_is sigpipe-json-says-where "^fcachectl bench: standard output is gone .*: the run goes on; its results go to $T/pipe.json$"
json_ok sigpipe-json-complete "$T/pipe.json" 'not c["interrupted"] and [s["users"] for s in c["steps"]] == [2, 4]'
piperun "$CTL" bench run "$F" --warmup 0.5 --time 3 --users 2,4 --report-interval 0.5
if [ "$got" -eq 141 ] && grep -q '^fcachectl bench: run stopped by SIGPIPE (standard output gone)' "$T/err" &&
   grep -q 'the datafile is closed cleanly$' "$T/err"; then
	pass sigpipe-no-json-stops-clean; else fail sigpipe-no-json-stops-clean "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
rc sigpipe-next-run-no-prepare 0 "$CTL" $RUN
piperun "$CTL" bench compare --origin "$F" --flash "$T/flash.img" --configs baseline --users 2 \
	--warmup 0 --time 1 --output "$T/cmpp"
if [ "$got" -eq 0 ] && grep -q "its results go to $T/cmpp/results.json" "$T/err"; then
	pass sigpipe-compare-goes-on; else fail sigpipe-compare-goes-on "exit $got: $(tail -n 2 "$T/err" | tr '\n' ' ')"; fi
json_ok sigpipe-compare-json "$T/cmpp/results.json" 'not c["interrupted"] and c["steps"]'

# ---- 5. one benchmark at a time on a datafile
"$CTL" bench run "$F" --warmup 0 --time 4 --users 2 --quiet >"$T/first.out" 2>"$T/first.err" &
first=$!
# until the first holds its flock, seen in /proc/locks without taking it
# (not a fixed sleep: the host suites run side by side, and a slow start
# would let the second run in first)
_ino=$(stat -c %i "$F")
_i=0
while ! grep -q "FLOCK .*:$_ino " /proc/locks && [ $_i -lt 300 ]; do sleep 0.1; _i=$((_i + 1)); done
rc lock-second-run-refused 1 "$CTL" $RUN
err_is lock-second-run-names-the-first "^fcachectl bench: $F \(the datafile\) is in use by another benchmark \(pid $first: .*bench run $F .*\); one benchmark at a time"
rc lock-prepare-refused 1 "$CTL" bench prepare "$F"
err_is lock-prepare-message "in use by another benchmark \(pid $first"
rc lock-compare-refused 1 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" --configs baseline \
	--users 2 --warmup 0 --time 1 --quiet --output "$T/cmpl"
err_is lock-compare-message "^fcachectl bench: $F \(the --origin datafile\) is in use by another benchmark"
wait $first
got=$?
if [ "$got" -eq 0 ] && grep -qE '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$T/first.out"; then
	pass lock-first-run-untouched; else fail lock-first-run-untouched "exit $got: $(tail -n 2 "$T/first.err" | tr '\n' ' ')"; fi
rc lock-released 0 "$CTL" $RUN

# ---- 6. what is no device, and arguments checked first
mkfifo "$T/fifo"
mkdir "$T/dir"
rc fifo-prepare-fails-at-once 1 "$CTL" bench prepare "$T/fifo"
err_is fifo-prepare-message "^fcachectl bench: $T/fifo is a FIFO: the benchmark needs a block device or a file"
rc fifo-prepare-force-fails-at-once 1 "$CTL" bench prepare "$T/fifo" --force
rc fifo-run-fails-at-once 1 "$CTL" bench run "$T/fifo" --quiet
rc fifo-compare-origin 1 "$CTL" bench compare --origin "$T/fifo" --flash "$T/flash.img" --configs baseline
err_is fifo-compare-origin-message "^fcachectl bench: --origin $T/fifo is a FIFO"
rc fifo-compare-flash 1 "$CTL" bench compare --origin "$F" --flash "$T/fifo" --configs baseline
rc dir-prepare 1 "$CTL" bench prepare "$T/dir"
err_is dir-prepare-message "^fcachectl bench: $T/dir is a directory: the benchmark needs a block device or a file"
grep -q -- '--force' "$T/err" && fail dir-prepare-no-force-hint "$(cat "$T/err")" || pass dir-prepare-no-force-hint
rc dir-prepare-force 1 "$CTL" bench prepare "$T/dir" --force
err_is dir-prepare-force-message "is a directory"
rc origin-is-flash 2 "$CTL" bench compare --origin "$F" --flash "$F" --configs baseline
err_is origin-is-flash-message "^fcachectl bench: --flash $F is the --origin device itself"
ln -sf "$F" "$T/alias.img"
rc origin-is-flash-by-link 2 "$CTL" bench compare --origin "$F" --flash "$T/alias.img" --configs baseline
if command -v strace >/dev/null 2>&1; then
	rc nodm-baseline 0 strace -f -o "$T/strace" -e trace=openat "$CTL" bench compare --origin "$F" \
		--flash "$T/flash.img" --configs baseline --users 2 --warmup 0 --time 0.5 --quiet --output "$T/cmpn"
	grep -q '"/dev/mapper/control"' "$T/strace" && fail nodm-baseline-no-device-mapper ||
		pass nodm-baseline-no-device-mapper
	rc nodm-bad-origin 1 strace -f -o "$T/strace" -e trace=openat "$CTL" bench compare --origin "$T/dir" \
		--flash "$T/flash.img"
	grep -q '"/dev/mapper/control"' "$T/strace" && fail nodm-bad-arguments-no-device-mapper ||
		pass nodm-bad-arguments-no-device-mapper
else
	echo "SKIP: bench-safety/nodm (no strace)"
fi
rc json-bad-path-fails-first 1 "$CTL" $RUN --json "$T/nosuch/r.json"
err_is json-bad-path-message "^fcachectl bench: --json $T/nosuch/r.json: No such file or directory \(the results could not be written; nothing was run\)$"
grep -q 'users' "$T/out" && fail json-bad-path-nothing-run "$(head -n 1 "$T/out")" || pass json-bad-path-nothing-run
rc json-directory-fails-first 1 "$CTL" $RUN --json "$T/dir"
echo '{"old": 1}' >"$T/keep.json"
rc json-existing-file 0 "$CTL" $RUN --json "$T/keep.json"
json_ok json-existing-file-rewritten "$T/keep.json" 'c["steps"]'
: >"$T/plain"
rc output-not-a-directory 1 "$CTL" bench compare --origin "$F" --flash "$T/flash.img" --configs baseline \
	--users 2 --warmup 0 --time 0.5 --quiet --output "$T/plain"
err_is output-not-a-directory-message "^fcachectl bench: --output $T/plain is not a directory"

# ---- 8. a file shorter than the header
head -c 100 /dev/zero >"$T/small.img"
rc small-datafile 1 "$CTL" bench run "$T/small.img" --quiet
if grep -q "^bench: $T/small.img holds no benchmark datafile (100 bytes, shorter than its 4096-byte header); run .fcachectl bench prepare $T/small.img. first$" "$T/err" &&
   ! grep -q Success "$T/err"; then
	pass small-datafile-message; else fail small-datafile-message "$(head -n 2 "$T/err" | tr '\n' '|')"; fi
: >"$T/empty.img"
rc empty-datafile 1 "$CTL" bench run "$T/empty.img" --quiet
grep -q "(0 bytes, shorter than its 4096-byte header)" "$T/err" && pass empty-datafile-message ||
	fail empty-datafile-message "$(head -n 1 "$T/err")"
