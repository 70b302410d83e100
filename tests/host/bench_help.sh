#!/bin/sh
# `fcachectl bench` usage (issue 35, item 9): a usage error is one line
# and the pointer to the verb's --help (exit 2), never the ~190 lines of
# the whole text; `bench VERB --help` (and `bench help VERB`, `fcachectl
# help bench VERB`) prints that verb's usage only, exit 0; `bench --help`
# still prints every verb's.  No datafile needed: nothing runs.
top=$(cd "$(dirname "$0")/../.." && pwd)
BT_NAME=help
. "$top/tests/host/bench_lib.sh"

# usage_err NAME CMD...: exit 2, stderr "fcachectl bench: ..." then "Try 'fcachectl bench[ VERB] --help'."
usage_err() {
	_n=$1; shift
	rc "$_n" 2 "$@"
	if [ "$(grep -c . "$T/err")" -eq 2 ] && head -n 1 "$T/err" | grep -q '^fcachectl bench: ' &&
	   tail -n 1 "$T/err" | grep -qE "^Try 'fcachectl bench( [a-z]+)? --help'\.\$" && [ ! -s "$T/out" ]; then
		pass "$_n-two-lines"
	else
		fail "$_n-two-lines" "$(grep -c . "$T/err") lines: $(head -n 3 "$T/err" | tr '\n' '|')"
	fi
}
usage_err err-bad-profile "$CTL" bench run "$T/x.img" --profile nosuch
grep -q "Try 'fcachectl bench run --help'" "$T/err" && pass err-names-the-verb || fail err-names-the-verb "$(cat "$T/err")"
usage_err err-unknown-option "$CTL" bench prepare "$T/x.img" --frob
usage_err err-rounds-on-run "$CTL" bench run "$T/x.img" --rounds 3
usage_err err-compare-needs-devs "$CTL" bench compare --origin "$T/x.img"
usage_err err-too-many-args "$CTL" bench optimum a b c d e
usage_err err-unknown-verb "$CTL" bench frob
grep -q "Try 'fcachectl bench --help'" "$T/err" && pass err-unknown-verb-general-help || fail err-unknown-verb-general-help "$(cat "$T/err")"
usage_err err-no-verb "$CTL" bench
usage_err err-bad-config "$CTL" bench compare --origin "$T/x.img" --flash "$T/y.img" --configs nosuch

# VERB --help: that verb only
"$CTL" bench --help >"$T/all" 2>&1
all=$(wc -l <"$T/all")
for v in prepare run compare optimum; do
	rc "help-$v" 0 "$CTL" bench "$v" --help
	n=$(wc -l <"$T/out")
	others=$(grep -cE '^(usage: |       )fcachectl bench ' "$T/out")
	if head -n 1 "$T/out" | grep -q "^usage: fcachectl bench $v " && [ "$others" -eq 1 ] &&
	   grep -q "^$v  *" "$T/out" && [ "$n" -lt "$all" ] && [ ! -s "$T/err" ]; then
		pass "help-$v-only"
	else
		fail "help-$v-only" "$n of $all lines, $others synopses: $(head -n 2 "$T/out" | tr '\n' '|')"
	fi
	"$CTL" bench help "$v" >"$T/h2" 2>&1
	cmp -s "$T/out" "$T/h2" && pass "help-$v-bench-help-verb" || fail "help-$v-bench-help-verb"
	"$CTL" help bench "$v" >"$T/h3" 2>&1
	cmp -s "$T/out" "$T/h3" && pass "help-$v-fcachectl-help-bench-verb" || fail "help-$v-fcachectl-help-bench-verb" "$(head -n 2 "$T/h3")"
done
rc help-h-after-options 0 "$CTL" bench run "$T/x.img" --users 8 -h
head -n 1 "$T/out" | grep -q '^usage: fcachectl bench run ' && pass help-h-run || fail help-h-run "$(head -n 1 "$T/out")"
"$CTL" bench optimum --help >"$T/out"
grep -q 'run options' "$T/out" && fail help-optimum-no-run-options || pass help-optimum-no-run-options
"$CTL" bench compare --help >"$T/out"
grep -q '^run options' "$T/out" && grep -q -- '--buffer-pool-sweep SIZES' "$T/out" && pass help-compare-has-run-options ||
	fail help-compare-has-run-options
# bench --help: all of them
[ "$(grep -cE '^(usage: |       )fcachectl bench (prepare|run|compare|optimum) ' "$T/all")" -eq 4 ] &&
	grep -q '^run options' "$T/all" && pass help-all-verbs || fail help-all-verbs "$(head -n 4 "$T/all")"
