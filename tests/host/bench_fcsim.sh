#!/bin/sh
# Host tests of tests/bench/fcsim, the model of fcache's policy over a block
# trace (docs/PERFORMANCE.md, "Where the distance comes from"; the journal
# of issue 38 in docs/bench-details.md), built with ASan and UBSan, on a
# trace of `bench run --trace` against a file: the counters it replays are
# the trace's; the causes add up to the origin requests; with --journal no
# write goes around the cache above writeback_high and a batch is one
# journal write; a log larger than all it takes is never applied in place,
# a small one is; --log-mb without --journal and a file that is not a trace
# are refused.
top=$(cd "$(dirname "$0")/../.." && pwd)
BT_NAME=fcsim
. "$top/tests/host/bench_lib.sh"

SIM=$top/tests/bench/fcsim-asan
if make -s -C "$top/tests/bench" fcsim-asan >"$T/cc.log" 2>&1; then
	pass build
else
	fail build "$(head -n 5 "$T/cc.log" | tr '\n' ' ')"
	exit 0
fi

D=$T/data.img
"$CTL" bench prepare "$D" --size 32 >/dev/null 2>&1 || fail prepare
rc run-trace 0 "$CTL" bench run "$D" --warmup 0 --time 2 --users 8 --report-interval 0 \
	--buffer-pool 1 --dist hotset:95:10 --trace "$T/run.fct"
rc optimum 0 "$CTL" bench optimum "$T/run.fct" --flash-size 8
# "trace FILE: run, N records: R reads, W writes, S synchronous writes, F flushes, ..."
tr_field() { sed -n "s/^trace [^ ]*: run, [0-9]* records:.* \([0-9][0-9]*\) $1, .*/\1/p" "$T/out"; }
tr_reads=$(tr_field reads) tr_writes=$(tr_field writes) tr_sync=$(tr_field "synchronous writes")
tr_flushes=$(tr_field flushes)

# sim NAME OUT ARGS...: fcsim ARGS on the trace (8 MiB of flash: it fills)
sim() {
	_n=$1 _o=$2
	shift 2
	rc "$_n" 0 "$SIM" --flash-size 8 --no-optimum "$@" "$T/run.fct"
	cp "$T/out" "$_o"
}
# counter FILE NAME: the value of NAME= on the counters line
counter() { sed -n "s/^counters: .* $2=\([0-9]*\).*/\1/p; s/^counters: $2=\([0-9]*\).*/\1/p" "$1" | head -n 1; }
# row FILE TEXT: the requests of the cause row that starts with TEXT
row() { awk -v t="$2" 'index($0, t) == 1 { print $(NF - 1) }' "$1"; }
# rows FILE TEXT: the requests of every cause row that starts with TEXT,
# added up (0 if none)
rows() { awk -v t="$2" 'index($0, t) == 1 { s += $(NF - 1) } END { print s + 0 }' "$1"; }
# causes_add_up NAME FILE: the cause rows sum to "origin requests: N"
causes_add_up() {
	_tot=$(sed -n 's/^origin requests: \([0-9]*\) .*/\1/p' "$2")
	_sum=$(sed -n '/^cause /,$p' "$2" | awk 'NR > 1 && $NF ~ /^[0-9.]+$/ { s += $(NF - 1) } END { print s + 0 }')
	if [ -n "$_tot" ] && [ "$_tot" -gt 0 ] && [ "$_tot" = "$_sum" ]; then pass "$1"; else
		fail "$1" "origin requests ${_tot:-none}, the causes add up to $_sum"; fi
}
# eq NAME GOT WANT
eq() { if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '${2}', wanted '${3}'"; fi; }

sim default "$T/def"
eq default-reads-are-the-traces "$(counter "$T/def" reads)" "$tr_reads"
# a synchronous write is a write with FUA
eq default-writes-are-the-traces "$(counter "$T/def" writes)" "$((tr_writes + tr_sync))"
eq default-fua-are-the-traces "$(counter "$T/def" fua)" "$tr_sync"
eq default-flushes-are-the-traces "$(counter "$T/def" flushes)" "$tr_flushes"
causes_add_up default-causes-add-up "$T/def"
eq default-no-journal "$(row "$T/def" "journal writes")" 0

sim journal "$T/j" --journal 0.5
eq journal-reads-are-the-traces "$(counter "$T/j" reads)" "$tr_reads"
causes_add_up journal-causes-add-up "$T/j"
arounds=$(rows "$T/j" "write-arounds above high")
# (the writes it must still send around, no clean block to evict, are
# counted apart: "other")
eq journal-no-write-around-above-high "$arounds" 0
batches=$(sed -n 's/^journal: a batch every [0-9.]* s: \([0-9]*\) batches.*/\1/p' "$T/j" | head -n 1)
if [ "${batches:-0}" -gt 0 ]; then pass "journal-batches ($batches)"; else
	fail journal-batches "$(grep '^journal:' "$T/j" | head -n 1)"; fi
eq journal-a-write-a-batch "$(row "$T/j" "journal writes")" "$batches"
wb=$(rows "$T/j" "writebacks of")
if [ "$wb" -gt 0 ]; then pass "journal-applied-in-place ($wb)"; else
	fail journal-applied-in-place "no writeback row counts a request"; fi

# a log larger than all it is given is never applied; a 1 MiB one wraps
sim log-large "$T/jl" --journal 0.5 --log-mb 100000
causes_add_up log-large-causes-add-up "$T/jl"
wbl=$(rows "$T/jl" "writebacks of")
eq log-large-never-applied "$wbl" 0
sim log-small "$T/js" --journal 0.5 --log-mb 1
wbs=$(rows "$T/js" "writebacks of")
if [ "$wbs" -gt 0 ]; then pass "log-small-applied ($wbs)"; else
	fail log-small-applied "a 1 MiB log, no request in place"; fi
# the journal's own requests do not depend on what the log does with them
eq log-journal-writes-same "$(row "$T/jl" "journal writes")" "$(row "$T/j" "journal writes")"

rc log-without-journal 2 "$SIM" --log-mb 64 "$T/run.fct"
head -c 4096 /dev/urandom >"$T/notrace"
rc not-a-trace 2 "$SIM" "$T/notrace"
if grep -q 'cannot read the trace' "$T/err"; then pass not-a-trace-says-so; else
	fail not-a-trace-says-so "$(head -n 2 "$T/err" | tr '\n' ' ')"; fi
