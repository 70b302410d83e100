#!/bin/sh
# Host tests of `fcachectl bench` against a file (no device-mapper needed):
# usage and exit codes, prepare/run round trips, the transaction mix of each
# profile (reads, updates, redo syncs per commit), the access skew, the
# integrity check (a stale page written behind the generator's back must
# fail the run), results.json against its schema.  `bench compare`:
# tests/host/bench_host_compare.sh (suite 13-host-compare, beside this one).
# The binary is the ASan/UBSan build (make -C userspace asan).
top=$(cd "$(dirname "$0")/../.." && pwd)
H=$top/tests/host
BT_NAME=host
. "$top/tests/host/bench_lib.sh"

F=$T/data.img
RUN="--warmup 0 --time 2 --report-interval 1 --users 16"

# ---- usage and exit codes
rc usage-no-verb 2 "$CTL" bench
rc usage-help 0 "$CTL" bench --help
rc usage-bad-profile 2 "$CTL" bench run "$F" --profile nosuch
rc usage-bad-dist 2 "$CTL" bench run "$F" --dist zipf:abc
rc usage-bad-users 2 "$CTL" bench run "$F" --users 8,x
rc usage-compare-needs-devs 2 "$CTL" bench compare --origin "$F"
: >"$T/empty"
truncate -s 64M "$T/empty"
rc run-unprepared-fails 1 "$CTL" bench run "$T/empty" $RUN
if grep -q "bench prepare" "$T/err"; then pass run-unprepared-says-prepare; else
	fail run-unprepared-says-prepare "$(head -c 200 "$T/err")"; fi

# ---- prepare and two runs in a row (the version map is persisted)
rc prepare 0 "$CTL" bench prepare "$F" --size 48
rc run-1 0 "$CTL" bench run "$F" $RUN --quiet
rc run-2-after-run 0 "$CTL" bench run "$F" $RUN
if grep -qE '^\[ +[0-9]+s \] users: 16 tps: [0-9.]+ lat \(ms,avg\): [0-9.]+ lat \(ms,95%\): [0-9.]+' "$T/out"; then
	pass interval-line; else fail interval-line "$(head -n 4 "$T/out" | tr '\n' '|')"; fi
if grep -qE '^integrity: [1-9][0-9]* page reads verified, 0 errors$' "$T/out"; then
	pass integrity-line; else fail integrity-line; fi
# the device latency table (page reads through the buffer pool's misses)
if grep -q '^ users  device latency, ms (average, submission to completion): page read, page write, redo write, fdatasync$' "$T/out" &&
   grep -qE '^    16  +[0-9]+\.[0-9]{3} ' "$T/out"; then
	pass dev-latency-table; else fail dev-latency-table "$(grep -A2 'device latency' "$T/out" | tr '\n' '|')"; fi
# 16 is the ladder's only count: a lower bound, and the line says so
if grep -qE "^largest user count with average response time under 2 s: 16 \\(the ladder's largest: more users may be served\\)$" "$T/out"; then
	pass rt-limit-line; else fail rt-limit-line; fi

# ---- transaction mix per profile (buffer pool off so the device is read)
rc mix-tpcc-run 0 "$CTL" bench run "$F" $RUN --time 3 --buffer-pool 0 --quiet --json "$T/tpcc.json"
rc json-schema-run 0 python3 "$H/bench_check_json.py" "$T/tpcc.json" --configs run --zero-errors
py mix-tpcc-types "$T/tpcc.json" \
	"all(abs(by[t['name']] / k['transactions'] * 100 - t['percent']) < 4 for t in types)"
py mix-tpcc-read-write-ratio "$T/tpcc.json" \
	"abs(k['page_accesses'] / k['page_updates'] - 1.917) < 0.19"
py mix-tpcc-log-sync-per-update-commit "$T/tpcc.json" \
	"k['log_writes'] == sum(by[t['name']] for t in types if t['page_updates'] > 0) > 0"
py mix-tpcc-cleaner-batches-synced "$T/tpcc.json" \
	"k['fsyncs'] > 0 and 0 < k['dev_writes'] <= k['page_updates'] and k['dev_reads'] > 0"
# the cleaner's batches: each lasts its slowest write and its fdatasync at
# least (three sums of whole microseconds: 2 us a batch of slack), and its
# slowest write is at least 1/64 of its writes' sum (batches of 64, the
# default)
py mix-tpcc-cleaner-batch-times "$T/tpcc.json" \
	"k['fsyncs'] > 0 and k['cleaner_us'] + 2 * k['fsyncs'] >= k['cleaner_slowest_write_us'] + k['fsync_us'] and 64 * (k['cleaner_slowest_write_us'] + k['fsyncs']) >= k['write_us'] > 0"
py mix-tpcc-latency-order "$T/tpcc.json" \
	"0 < s['avg_ms'] <= s['max_ms'] and s['p95_ms'] <= s['p99_ms'] <= s['max_ms'] + 0.001"
# the old profile name is an alias of tpcc-like, with a note
rc profile-alias-tpcc 0 "$CTL" bench run "$F" $RUN --time 1 --profile tpcc --quiet --json "$T/alias.json"
if grep -q "^fcachectl bench: note: profile 'tpcc' is called 'tpcc-like' now" "$T/err" &&
   grep -q '^fcachectl bench run: profile tpcc-like (TPC-C-like page-count mix, not TPC-C' "$T/out"; then
	pass profile-alias-note; else fail profile-alias-note "$(head -n 1 "$T/err")"; fi
py profile-alias-json "$T/alias.json" "d['workload']['profile'] == 'tpcc-like' and len(types) == 5"
py profile-default-tpcc-like "$T/tpcc.json" "d['workload']['profile'] == 'tpcc-like'"
rc mix-rw-run 0 "$CTL" bench run "$F" $RUN --profile read-write --buffer-pool 0 --quiet --json "$T/rw.json"
py mix-rw-ratio "$T/rw.json" \
	"abs(k['page_accesses'] / k['page_updates'] - 5.5) < 0.3 and k['log_writes'] == k['transactions']"
# device latency (issue 12, the MX750 study's figures): each kind timed
# from submission to completion, summed over the I/Os counted
py dev-latency-counted "$T/rw.json" \
	"k['dev_reads'] > 0 and k['read_us'] > 0 and k['log_writes'] > 0 and k['log_write_us'] > 0 and (k['dev_writes'] == 0) == (k['write_us'] == 0) and (k['fsyncs'] == 0) == (k['fsync_us'] == 0)"
rc mix-ro-run 0 "$CTL" bench run "$F" $RUN --profile read-only --buffer-pool 0 --quiet --json "$T/ro.json"
py mix-ro-no-writes "$T/ro.json" \
	"k['page_updates'] == 0 and k['log_writes'] == 0 and k['dev_writes'] == 0 and k['dev_reads'] > 0"

# ---- terminal model: think and keying times bound the throughput
# (N users, each cycle at least keying + think: TPS <= N / (keying + think));
# the response time does not include them
rc think-run 0 "$CTL" bench run "$F" $RUN --users 4 --think-time 0.1 --quiet --json "$T/think.json"
py think-bounds-tps "$T/think.json" "0 < s['tps'] <= 4 / 0.1 * 1.3 and k['transactions'] > 10"
py think-not-in-response-time "$T/think.json" "s['avg_ms'] < 100 and d['workload']['terminal_model'] is True"
py think-json-times "$T/think.json" \
	"d['workload']['think_time_s'] == 0.1 and d['workload']['keying_time_s'] == 0 and all(t['think_s'] == 0.1 and t['keying_s'] == 0 for t in types)"
rc keying-run 0 "$CTL" bench run "$F" $RUN --users 4 --keying-time 0.2 --profile read-only --quiet --json "$T/key.json"
py keying-bounds-tps "$T/key.json" "0 < s['tps'] <= 4 / 0.2 * 1.3"
rc closed-loop-run 0 "$CTL" bench run "$F" $RUN --users 4 --time 1 --quiet --json "$T/closed.json"
py closed-loop-default "$T/closed.json" \
	"d['workload']['terminal_model'] is False and d['workload']['think_time_s'] == 0 and s['tps'] > 4 / 0.1 * 1.3"
# --terminals: TPC-C's keying and think times per type (the shortest cycle is 2 s of keying)
rc terminals-run 0 "$CTL" bench run "$F" --warmup 0 --time 2 --users 8 --terminals --rt-search 0 --quiet --json "$T/term.json"
py terminals-tpcc-times "$T/term.json" \
	"[(t['name'], t['keying_s'], t['think_s']) for t in types] == [('new_order', 18, 12), ('payment', 3, 12), ('order_status', 2, 10), ('delivery', 2, 5), ('stock_level', 2, 5)] and d['workload']['think_time_s'] is None"
py terminals-bound-tps "$T/term.json" "s['tps'] <= 8 / 2 * 1.3"
if grep -q 'terminal model' "$T/out"; then pass terminals-report-says; else fail terminals-report-says; fi
rc terminals-refused-read-only 2 "$CTL" bench run "$F" $RUN --terminals --profile read-only
if grep -q "are those of the tpcc-like profile, not of read-only" "$T/err"; then
	pass terminals-refused-message; else fail terminals-refused-message "$(head -n 1 "$T/err")"; fi

# ---- no step bias: users run on across the steps of the ladder, a step
# counts what completes inside it.  One user keying 0.5 s, three 1 s steps:
# completions at 0.5, 1.0, ..., 2.5 s: 5 (starting every step with idle
# users would give 1 per step, 3)
rc steps-continue-run 0 "$CTL" bench run "$F" --warmup 0 --time 1 --users 1,1,1 --keying-time 0.5 \
	--quiet --json "$T/cont.json"
py steps-continue-count "$T/cont.json" \
	"sum(x['counts']['transactions'] for x in c['steps']) >= 4 and any(x['counts']['transactions'] >= 2 for x in c['steps'])"
rc steps-continue-json-schema 0 python3 "$H/bench_check_json.py" "$T/cont.json" --configs run --zero-errors
py steps-seconds-measured "$T/cont.json" "all(1 <= x['seconds'] < 1.25 for x in c['steps'])"

# ---- figures of schema 2: NOPM (tpcc-like), p90 per type, the search of
# the users under --rt-limit (a limit of 1 ms no step keeps: the search
# halves 0..4 users in the two extra steps --rt-search allows)
py nopm-is-new-order-per-minute "$T/tpcc.json" \
	"abs(s['nopm'] - by['new_order'] * 60 / s['seconds']) < 1e-6 * s['nopm'] and s['nopm'] > 0"
py p90-by-type "$T/tpcc.json" \
	"sorted(s['p90_ms_by_type']) == sorted(t['name'] for t in types) and all(v > 0 for v in s['p90_ms_by_type'].values()) and min(s['p90_ms_by_type'].values()) <= s['p95_ms'] * 1.07 and max(s['p90_ms_by_type'].values()) <= s['max_ms']"
py nopm-null-read-write "$T/rw.json" "s['nopm'] is None and list(s['p90_ms_by_type']) == ['oltp_read_write']"
"$CTL" bench run "$F" $RUN --time 1 --quiet >"$T/tbl.out" 2>&1
if grep -qE '^ users +NOPM  p90 ms: +new_order +payment +order_status +delivery +stock_level$' "$T/tbl.out" &&
   grep -qE '^    16 +[0-9]+\.[0-9] +( +[0-9]+\.[0-9]{2}){5}$' "$T/tbl.out"; then
	pass nopm-p90-table; else fail nopm-p90-table "$(grep -A1 NOPM "$T/tbl.out" | tr '\n' '|')"; fi
# the defaults (bench_host_compare.sh tests --log-dev and --group-commit on):
# the redo log in the datafile, one RWF_DSYNC write a record, no group line
py logdev-default-null "$T/tpcc.json" "d['workload']['log_device'] is None and d['workload']['group_commit'] is False"
py gc-off-one-write-per-record "$T/tpcc.json" "k['log_writes'] == k['log_records'] and s['log_group_avg'] == 1"
rc gc-off-no-group-line 1 grep -q '^group commit, redo' "$T/tbl.out"
rc search-run 0 "$CTL" bench run "$F" --warmup 0 --time 1 --users 4,8 --rt-limit 0.001 --rt-search 2 \
	--buffer-pool 0 --quiet --json "$T/search.json"
cp "$T/out" "$T/search.out"
rc search-json-schema 0 python3 "$H/bench_check_json.py" "$T/search.json" --configs run --zero-errors
py search-bisects "$T/search.json" \
	"(c['rt_search_steps'] == [] and any(x['avg_ms'] < 1 for x in c['steps'])) or ([x['users'] for x in c['rt_search_steps']][0] == 2 and len(c['rt_search_steps']) == 2 and c['max_users_under_rt_limit'] in (0, 1, 2, 3))"
if [ "$(grep -c '^search under 0.001 s: [0-9]* users: TPS [0-9.]*, avg [0-9.]* ms, p95 [0-9.]* ms: \(under\|over\)$' "$T/search.out")" -eq 2 ]; then
	pass search-report-lines; else fail search-report-lines "$(grep '^search' "$T/search.out" | tr '\n' '|')"; fi
rc no-search-run 0 "$CTL" bench run "$F" --warmup 0 --time 1 --users 4,8 --rt-limit 0.001 --rt-search 0 \
	--quiet --json "$T/nosearch.json"
py no-search-with-0 "$T/nosearch.json" "c['rt_search_steps'] == [] and d['workload']['rt_search_max_steps'] == 0"

# ---- skew: the hot 10% of pages get their share
rc skew-hotset-run 0 "$CTL" bench run "$F" $RUN --dist hotset:80:10 --quiet --json "$T/hot.json"
py skew-hotset-80-10 "$T/hot.json" "abs(k['hot_accesses'] / k['page_accesses'] - 0.80) < 0.03"
rc skew-uniform-run 0 "$CTL" bench run "$F" $RUN --dist uniform --quiet --json "$T/uni.json"
py skew-uniform-10 "$T/uni.json" "abs(k['hot_accesses'] / k['page_accesses'] - 0.10) < 0.02"
rc skew-zipf-run 0 "$CTL" bench run "$F" $RUN --dist zipf:0.99 --quiet --json "$T/zipf.json"
py skew-zipf-share "$T/zipf.json" \
	"abs(k['hot_accesses'] / k['page_accesses'] - sum(i**-0.99 for i in range(1, d['workload']['datafile_pages'] // 10 + 1)) / sum(i**-0.99 for i in range(1, d['workload']['datafile_pages'] + 1))) < 0.03"
py skew-zipf-bp-hits "$T/zipf.json" "k['buffer_pool_hits'] > 0"
# the device I/O of the cold pages (outside the hottest 10% by rank): with
# no buffer pool every access reads the device, so the cold share of the
# reads follows the skew (uniform: 90%; hotset:95:10: the 5% and the ranges'
# pages); and the table of it per transaction
rc cold-uniform-run 0 "$CTL" bench run "$F" $RUN --dist uniform --buffer-pool 0 --json "$T/cu.json"
py cold-uniform-reads "$T/cu.json" "abs(k['cold_dev_reads'] / k['dev_reads'] - 0.90) < 0.03"
py cold-uniform-writes "$T/cu.json" "k['dev_writes'] > 100 and abs(k['cold_dev_writes'] / k['dev_writes'] - 0.90) < 0.06"
if grep -q '^ users  device I/O per transaction (all pages / outside the hottest 10%): reads, writes$' "$T/out" &&
   grep -qE '^    16  [0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3}, [0-9]+\.[0-9]{3} / [0-9]+\.[0-9]{3}$' "$T/out"; then
	pass cold-table; else fail cold-table "$(grep -A1 'device I/O per' "$T/out" | tr '\n' '|')"; fi
if grep -q '^ users  page cleaner, ms (average a batch): batch, its slowest write; free-frame waits a transaction$' "$T/out" &&
   grep -qE '^    16  +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$' "$T/out"; then
	pass cleaner-table; else fail cleaner-table "$(grep -A1 'page cleaner' "$T/out" | tr '\n' '|')"; fi
rc cold-hotset-run 0 "$CTL" bench run "$F" $RUN --dist hotset:95:10 --buffer-pool 0 --quiet --json "$T/ch.json"
py cold-hotset-share "$T/ch.json" "0.05 < k['cold_dev_reads'] / k['dev_reads'] < 0.5 and 0 < k['cold_dev_writes'] < 0.5 * k['dev_writes']"

# ---- integrity: an older version written behind the generator's back
rc stale-page-fails-run 1 "$CTL" bench run "$F" $RUN --time 4 --buffer-pool 0 --inject-stale 1
if grep -q "INTEGRITY FAILURE: page [0-9]*: STALE version" "$T/err"; then
	pass stale-page-message; else fail stale-page-message "$(tail -n 3 "$T/err" | tr '\n' ' ')"; fi
rc unclean-datafile-refused 1 "$CTL" bench run "$F" $RUN
if grep -q "not closed cleanly" "$T/err"; then pass unclean-message; else fail unclean-message; fi
# a torn page: scribble over the middle of every page of a fresh datafile
rc prepare-again 0 "$CTL" bench prepare "$F" --size 48
python3 - "$F" <<'EOF'
import struct, sys
f = open(sys.argv[1], "r+b")
hdr = f.read(64)
_, ps, _, npages, _, data_off = struct.unpack("<QIIQQQ", hdr[:40])
for p in range(npages):
    f.seek(data_off + p * ps + ps // 2)
    f.write(b"torn")
EOF
rc torn-page-fails-run 1 "$CTL" bench run "$F" $RUN
if grep -q "INTEGRITY FAILURE: page [0-9]*: checksum mismatch" "$T/err"; then
	pass torn-page-message; else fail torn-page-message "$(tail -n 2 "$T/err" | tr '\n' ' ')"; fi

# ---- schema checker negative control
python3 - "$T/tpcc.json" "$T/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
del d["configs"][0]["steps"][0]["p95_ms"]
json.dump(d, open(sys.argv[2], "w"))
EOF
rc json-schema-catches-missing-field 1 python3 "$H/bench_check_json.py" "$T/bad.json"
