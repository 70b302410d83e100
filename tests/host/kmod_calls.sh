#!/bin/sh
# The calls between the kernel module's files, and their cycles (issue 36):
# a function defined (not static) in kmod/A.c and used in kmod/B.c (called,
# or passed as a callback) is an edge B -> A.  An edge is in a cycle when A
# also reaches B.  A ratchet against tests/host/kmod_calls.allow, one edge
# "B -> A" a line (today's edges in cycles):
#   - an edge in a cycle that the list does not have fails (a new cycle, or a
#     new edge in an old one);
#   - a listed edge no longer in a cycle fails too: remove it from the list,
#     so that the list only shrinks as the cycles are taken apart.
# Also: nothing in userspace/, tests/ or mk/ compiles a file under kmod/, and
# no file in engine/ includes a kernel header (include/fcache_env.h chooses).
# Shell and awk only.  Usage: kmod_calls.sh [--list | --write-allow]
# (--list: every edge with the functions it uses; --write-allow: rewrite the
# list with today's edges in cycles, after a merge that moved functions: its
# diff shows what a change added or took apart).
top=$(cd "$(dirname "$0")/../.." && pwd)
allow=$top/tests/host/kmod_calls.allow
list=0
[ "$1" = --list ] && list=1
[ "$1" = --write-allow ] && list=2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1${2:+ ($2)}"; }

# One line per token of interest: "def FILE NAME STATIC" for each function
# definition, "use FILE NAME" for each identifier outside comments, strings
# and character constants.
awk '
function emit_ids(s, file,   t) {
	while (match(s, /[A-Za-z_][A-Za-z0-9_]*/)) {
		t = substr(s, RSTART, RLENGTH)
		print "use", file, t
		s = substr(s, RSTART + RLENGTH)
	}
}
# the line without comments, strings and character constants
function strip(line,   out, c, n, i) {
	out = ""
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		if (incomment) {
			if (c == "*" && substr(line, i + 1, 1) == "/") { incomment = 0; i++; out = out " " }
			continue
		}
		if (c == "/" && substr(line, i + 1, 1) == "*") { incomment = 1; i++; continue }
		if (c == "/" && substr(line, i + 1, 1) == "/") break
		if (c == "\"" || c == "\x27") {
			q = c
			for (i++; i <= n; i++) {
				c = substr(line, i, 1)
				if (c == "\\") { i++; continue }
				if (c == q) break
			}
			out = out " 0 "
			continue
		}
		out = out c
	}
	return out
}
FNR == 1 { file = FILENAME; sub(/.*\//, "", file); depth = 0; head = ""; incomment = 0; cont = 0 }
{
	s = strip($0)
	# preprocessor lines (and their continuations) are no definitions
	if (cont || s ~ /^[ \t]*#/) { cont = (s ~ /\\[ \t]*$/); emit_ids(s, file); next }
	# at depth 0, the text before "{" of a function definition names it
	n = length(s)
	for (i = 1; i <= n; i++) {
		c = substr(s, i, 1)
		if (depth == 0) {
			if (c == "{") {
				if (head !~ /=/ && match(head, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
					name = substr(head, RSTART, RLENGTH)
					sub(/[ \t]*\($/, "", name)
					print "def", file, name, (head ~ /(^|[^A-Za-z0-9_])static([^A-Za-z0-9_]|$)/) ? 1 : 0
				}
				head = ""
				depth++
			} else if (c == ";") {
				head = ""
			} else {
				head = head c
			}
		} else if (c == "{") {
			depth++
		} else if (c == "}") {
			depth--
		}
	}
	if (depth == 0)
		head = head " "
	emit_ids(s, file)
}' "$top"/kmod/*.c >"$T/tokens"

# Edges "B A NAME" (B uses NAME, defined non-static in A), then per edge the
# names, the cyclic edges (A reaches B too: a closure over a dozen files).
awk '
$1 == "def" && $4 == 0 { defin[$3] = $2 }
$1 == "def" { defd[$2 " " $3] = 1 }
$1 == "use" { used[$2 " " $3] = 1 }
END {
	for (k in used) {
		split(k, p, " ")
		a = defin[p[2]]
		if (a != "" && a != p[1] && !((p[1] " " p[2]) in defd))
			print p[1], a, p[2]
	}
}' "$T/tokens" | sort -u >"$T/uses"

awk '
{ e = $1 " -> " $2; names[e] = names[e] (names[e] == "" ? "" : " ") $3; edge[$1, $2] = 1
  node[$1] = 1; node[$2] = 1 }
END {
	for (a in node) for (b in node) reach[a, b] = ((a, b) in edge)
	for (k in node) for (a in node) if (reach[a, k]) for (b in node) if (reach[k, b]) reach[a, b] = 1
	for (e in names) {
		split(e, p, " -> ")
		print (reach[p[2], p[1]] ? "cyclic" : "edge"), e ":", names[e]
	}
	# the strongly connected groups of more than one file
	for (a in node) {
		if (done[a]) continue
		grp = a; cnt = 1
		for (b in node) if (b != a && reach[a, b] && reach[b, a]) { grp = grp " " b; cnt++; done[b] = 1 }
		done[a] = 1
		if (cnt > 1) print "group", grp
	}
}' "$T/uses" >"$T/graph"

sed -n 's/^cyclic \(.*\):.*/\1/p' "$T/graph" | sort >"$T/cyclic"
if [ $list -eq 2 ]; then
	{ sed -n '/^#/p' "$allow"; cat "$T/cyclic"; } >"$T/allow" && cat "$T/allow" >"$allow"
	echo "kmod-calls: tests/host/kmod_calls.allow rewritten ($(wc -l <"$T/cyclic") edges in cycles)"
	exit 0
fi
sed -n 's/^\([a-z_0-9.]* -> [a-z_0-9.]*\)[ \t]*$/\1/p' "$allow" 2>/dev/null | sort -u >"$T/allowed"

nedges=$(grep -c '^\(edge\|cyclic\)' "$T/graph")
ncyc=$(wc -l <"$T/cyclic")
echo "# kmod calls: $nedges edges between files, $ncyc of them in cycles"
grep '^group' "$T/graph" | while read -r _ g; do
	echo "# cycle group: $(echo "$g" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
done
# the pairs that call each other
awk '{ e[$1, $3] = 1; n[NR] = $1 " " $3 }
END { for (i = 1; i <= NR; i++) { split(n[i], p, " ")
	if (p[1] < p[2] && e[p[2], p[1]]) print "# calls each other: " p[1] " <-> " p[2] } }' "$T/cyclic" | sort
sed -n 's/^cyclic \(.*\)/#   \1/p' "$T/graph" | sort
if [ $list -eq 1 ]; then
	echo "# every edge (B -> A: the functions of A that B uses):"
	grep -v '^group' "$T/graph" | sed 's/^[a-z]* /#   /' | sort
fi

[ "$nedges" -gt 0 ] && pass "kmod-calls: edges found between kmod files" ||
	fail "kmod-calls: no edge found between kmod files (the parser is broken)"
new=$(comm -23 "$T/cyclic" "$T/allowed" | tr '\n' ';')
gone=$(comm -13 "$T/cyclic" "$T/allowed" | tr '\n' ';')
[ -z "$new" ] && pass "kmod-calls: no new cycle between kmod files" ||
	fail "kmod-calls: new edges in cycles (take them apart, do not list them)" "$new"
[ -z "$gone" ] && pass "kmod-calls: every listed cyclic edge is still there" ||
	fail "kmod-calls: listed edges no longer in a cycle: remove them from tests/host/kmod_calls.allow" "$gone"

# nothing outside the module's build compiles a file under kmod/
bad=$(grep -rnE '(\$\(TOP\)|\$top|\$TOP|SUITE_TOP|\.\./\.\.)/kmod/[A-Za-z0-9_]+\.c' \
	"$top/userspace" "$top/tests" "$top/mk" 2>/dev/null | grep -v "^$top/tests/host/kmod_calls.sh:" | head -n 3)
[ -z "$bad" ] && pass "kmod-calls: nothing in userspace/, tests/ or mk/ compiles a file under kmod/" ||
	fail "kmod-calls: a file under kmod/ compiled outside the module" "$bad"
bad=$(grep -nE '#[ \t]*include[ \t]*<(linux|asm)/' "$top"/engine/*.[ch] | head -n 3)
[ -z "$bad" ] && pass "kmod-calls: engine/ includes no kernel header" ||
	fail "kmod-calls: a kernel header in engine/ (include/fcache_env.h chooses)" "$bad"
exit 0
