#!/bin/sh
# Mirrored pools (issue 11) on the host: check and dump of one leg (its
# membership, twins checked, twin damage found), check DEV1 DEV2 on leg
# pairs built by tests/host/ctl_mkimage.c --mirror (in sync, lagging, stale,
# split brain, foreign, a copy, mismatching metadata, a blank partner),
# their exit codes and JSON (fcache.check-pair); pool create with two
# devices and up refusing before device-mapper is asked (no dm here).
. "$(dirname "$0")/ctl_lib.sh"
ctl_build
MK=$BIN/ctl_mkimage
PLAN=$BIN/ctl_plan
cc -Wall -Wextra -Werror $SAN -std=gnu11 -I"$top/include" -I"$top/userspace/lib" -I"$top/userspace/ctl" \
	-o "$PLAN" "$top/tests/host/ctl_plan.c" "$top/userspace/ctl/create_plan.c" \
	"$top"/userspace/lib/fc_check*.c "$top/userspace/lib/fc_dev.c" "$top/userspace/lib/fc_json.c" \
	"$top/engine/fc_format.c" >"$T/plan.log" 2>&1 || fail "mirror: build ctl_plan" "$(head -c 400 "$T/plan.log")"
JS="python3 $top/tests/host/json_schema.py"

# schema_ok NAME SCHEMA FILE
schema_ok() {
	if $JS --schema "$2" "$3" >"$T/js.out" 2>&1; then pass "$1"
	else fail "$1" "$(head -n 3 "$T/js.out" | tr '\n' ' ')"; fi
}
# out_has NAME REGEX: the last command's stdout has a line matching REGEX
out_has() {
	grep -q -- "$2" "$T/out" && pass "$1" || fail "$1" "not in stdout: $2: $(head -c 300 "$T/out")"
}
err_has() {
	grep -q -- "$2" "$T/err" && pass "$1" || fail "$1" "not in stderr: $2: $(head -c 300 "$T/err")"
}
# pair_json NAME PYTHON-ASSERTION (on d, the last command's stdout)
py_ok() {
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$T/out" >"$T/py.err" 2>&1; then
		pass "$1"
	else
		fail "$1" "$(tail -n 1 "$T/py.err")"
	fi
}

# ---- one leg
"$MK" "$T/a.img" --mirror "$T/b.img" >"$T/mk.out" || fail "mirror: ctl_mkimage --mirror"
expect_rc 0 "mirror: check of leg 0 exits 0" "$CTL" check "$T/a.img"
out_has "mirror: check names the leg and its partner" "this device is leg 0 (member a0a3a6a9"
out_has "mirror: check reports events and failed legs" "events 1, failed legs: none"
out_has "mirror: check counts twins and lone copies" "with a twin on the other leg, 0 with one copy only"
out_has "mirror: twin blocks are not flagged" "metadata clean (0 errors, 0 warnings)"
expect_rc 0 "mirror: check of leg 1 exits 0" "$CTL" check "$T/b.img"
out_has "mirror: leg 1 says so" "this device is leg 1 (member 50555a5f"
"$CTL" check --json "$T/a.img" >"$T/out" 2>/dev/null
schema_ok "mirror: check --json of a leg is fcache.check" fcache.check "$T/out"
py_ok "mirror: check --json has the membership" \
	'm=d["superblock"]["mirror"]; assert m["leg"]==0 and m["events"]==1 and m["failed_legs"]==0 and m["partner_uuid"].startswith("50555a5f") and len(m["leg_blocks"])==2 and d["lone_dirty_blocks"]==0 and d["mirrored_dirty_blocks"]==d["dirty_blocks"]>0, d["superblock"]'
"$CTL" dump --json "$T/b.img" >"$T/out" 2>/dev/null
schema_ok "mirror: dump --json of a leg is fcache.dump" fcache.dump "$T/out"
py_ok "mirror: dump gives each mirrored entry its twin on the other leg" \
	'L=d["superblock"]["mirror"]["leg_blocks"][0]; t=[e for e in d["entries"] if e["flags"]&1]; assert t and all("twin" in e and (e["block"]<L)!=(e["twin"]<L) for e in t); assert all("twin" not in e for e in d["entries"] if not e["flags"]&1)'
expect_rc 0 "mirror: dump (text) exits 0" "$CTL" dump "$T/a.img"
out_has "mirror: dump (text) shows twins" "0x01  twin [0-9]"
# a one-device pool reports no membership
"$MK" "$T/one.img" >/dev/null
"$CTL" check --json "$T/one.img" >"$T/out" 2>/dev/null
py_ok "mirror: a one-device pool has no mirror keys" \
	'assert "mirror" not in d["superblock"] and "lone_dirty_blocks" not in d'

# ---- twin damage: errors of damaged metadata (exit 1)
for kind in "twin-leg:both on leg 0" "twin-oob:past the last cache block" \
	"twin-used:is also an entry in use" "twin-twice:is the twin of two entries"; do
	k=${kind%%:*} msg=${kind#*:}
	"$MK" "$T/d0.img" --mirror "$T/d1.img" --damage "$k" >/dev/null || fail "mirror: ctl_mkimage --damage $k"
	expect_rc 1 "mirror: check finds $k (exit 1)" "$CTL" check "$T/d0.img"
	out_has "mirror: check says $k" "^error: .*$msg"
	out_has "mirror: $k is damage" "metadata DAMAGED (1 errors"
	"$CTL" check --json "$T/d0.img" >"$T/out" 2>/dev/null
	py_ok "mirror: $k in JSON: kind twin, outcome damaged" \
		'assert d["outcome"]=="damaged" and [p for p in d["problems"] if p["kind"]=="twin" and p["severity"]=="error"]'
done
"$MK" "$T/s.img" --damage twin-single >/dev/null
expect_rc 1 "mirror: a mirrored entry in a one-device pool is damage" "$CTL" check "$T/s.img"
out_has "mirror: says the pool has one device" "marked mirrored (twin 9) but the pool has one flash device"

# ---- pairs
expect_rc 0 "pair: in sync: exit 0" "$CTL" check "$T/a.img" "$T/b.img"
out_has "pair: in sync: says so" "are in sync: pool 10171e25"
out_has "pair: in sync: metadata compared" "committed metadata (volume table, every entry) is the same"
out_has "pair: in sync: last line" "^pair: in_sync (the two load together)"
expect_rc 0 "pair: the order does not matter" "$CTL" check "$T/b.img" "$T/a.img"
"$CTL" check --json "$T/a.img" "$T/b.img" >"$T/out" 2>/dev/null
schema_ok "pair: check --json of a pair is fcache.check-pair" fcache.check-pair "$T/out"
py_ok "pair: in sync JSON" \
	'assert d["outcome"]=="in_sync" and d["clean"] is True and d["metadata_agrees"] is True and d["older_device"] is None and [l["superblock"]["mirror"]["leg"] for l in d["legs"]]==[0,1]'

# pair_case KIND RC OUTCOME OLDER(a|b|-) MESSAGE
pair_case() {
	kind=$1 rc=$2 oc=$3 older=$4 msg=$5
	"$MK" "$T/p0.img" --mirror "$T/p1.img" --pair "$kind" >/dev/null || fail "pair: ctl_mkimage --pair $kind"
	expect_rc "$rc" "pair: $kind: exit $rc" "$CTL" check "$T/p0.img" "$T/p1.img"
	out_has "pair: $kind: says why" "$msg"
	out_has "pair: $kind: outcome line" "^pair: $oc"
	"$CTL" check --json "$T/p0.img" "$T/p1.img" >"$T/out" 2>/dev/null
	schema_ok "pair: $kind: JSON is fcache.check-pair" fcache.check-pair "$T/out"
	case $older in a) o="\"$T/p0.img\"" ;; b) o="\"$T/p1.img\"" ;; *) o=None ;; esac
	py_ok "pair: $kind: JSON outcome and older device" \
		"assert d['outcome']=='$oc' and d['older_device']==$o and d['clean']==($rc==0), (d['outcome'], d['older_device'])"
	# each leg alone is consistent: the problem is the pair
	expect_rc 0 "pair: $kind: leg 0 alone checks clean" "$CTL" check "$T/p0.img"
}
pair_case stale 1 stale b "p1.img is stale: .*p0.img (events 2) recorded leg 1 as failed"
"$CTL" check "$T/p0.img" "$T/p1.img" >"$T/out" 2>&1
out_has "pair: stale: says how to run on the good leg" "fcachectl pool create NAME $T/p0.img --degraded"
pair_case split 1 split_brain - "split brain: .* each ran without the other"
pair_case foreign 1 foreign - "not each other's partner"
pair_case lag 0 lagging b "p1.img's superblock (seq 4) is behind"
pair_case mismatch 1 mismatch - "same commit (seq 4) but their committed metadata differs: entry 2 differs"
"$CTL" check --json "$T/p0.img" "$T/p1.img" >"$T/out" 2>/dev/null
py_ok "pair: mismatch: metadata_agrees false" 'assert d["metadata_agrees"] is False'

# a leftover on leg 1 only (a commit cut short): harmless, each leg is
# checked with all its slots; after a commit that reused its seq without
# rewriting it (the module before issue 32 item 3) the legs disagree
pair_case leftover-leg1 0 in_sync - "are in sync: pool"
"$CTL" check "$T/p0.img" "$T/p1.img" >"$T/out" 2>&1
out_has "pair: leftover-leg1: leg 1 reports the leftover" "entry page 9 slot 0 (flash page 20): leftover seq 5 above md_seq 4"
out_has "pair: leftover-leg1: committed metadata agrees" "committed metadata (volume table, every entry) is the same"
"$CTL" check --json "$T/p0.img" "$T/p1.img" >"$T/out" 2>/dev/null
py_ok "pair: leftover-leg1: JSON, leg 1 only has the leftover" \
	'l=d["legs"]; assert d["metadata_agrees"] is True and l[0]["leftovers"]==0 and l[1]["leftovers"]==1 and l[1]["outcome"]=="leftovers", [(x["outcome"], x["leftovers"]) for x in l]'
pair_case leftover-leg1-reused 1 mismatch - "same commit (seq 5) but their committed metadata differs: entry 2143 differs"
expect_rc 0 "pair: leftover-leg1-reused: leg 1 alone trusts the stale page" "$CTL" check "$T/p1.img"
out_has "pair: leftover-leg1-reused: leg 1 counts the stale entry" "volume slot 2: dirty hint 60, counted 61"

cp "$T/a.img" "$T/copy.img"
expect_rc 1 "pair: a copy of one leg: exit 1" "$CTL" check "$T/a.img" "$T/copy.img"
out_has "pair: a copy: says so" "both say they are leg 0 .* one is a copy of the other"
expect_rc 1 "pair: a one-device pool and a leg: exit 1" "$CTL" check "$T/one.img" "$T/b.img"
out_has "pair: one-device pool: says so" "holds a one-device pool, not a leg"
head -c 67108864 /dev/zero >"$T/blank.img"
expect_rc 3 "pair: a blank partner: exit 3" "$CTL" check "$T/a.img" "$T/blank.img"
out_has "pair: a blank partner: says so" "blank.img holds no fcache metadata: it is not a leg"
"$CTL" check --json "$T/a.img" "$T/blank.img" >"$T/out" 2>/dev/null
schema_ok "pair: a blank partner: JSON" fcache.check-pair "$T/out"
py_ok "pair: a blank partner: outcome not_a_pool, no verdict" \
	'assert d["outcome"]=="not_a_pool" and d["verdict"] is None and d["legs"][1]["outcome"]=="not_a_pool"'
"$MK" "$T/d0.img" --mirror "$T/d1.img" --damage twin-oob >/dev/null
expect_rc 1 "pair: in sync but damaged: exit 1" "$CTL" check "$T/d0.img" "$T/d1.img"
out_has "pair: damaged: outcome" "^pair: damaged"
expect_rc 1 "pair: the same file twice: exit 1" "$CTL" check "$T/a.img" "$T/a.img"
err_has "pair: the same file twice: says so" "are the same device"
expect_rc 1 "pair: a missing file: exit 1" "$CTL" check "$T/a.img" "$T/none.img"
err_has "pair: a missing file: names it" "cannot open $T/none.img"
expect_rc 1 "pair: --json on a missing file: exit 1" "$CTL" check --json "$T/a.img" "$T/none.img"
schema_ok "pair: --json on a missing file: error document" fcache.check-pair "$T/out"

# ---- pool create: what it does with the devices (ctl_plan: fc_create_plan on images)
# plan_is NAME WANT-PLAN WANT-REASON-REGEX ARGS...
plan_is() {
	name=$1 want=$2 why=$3
	shift 3
	"$PLAN" "$@" >"$T/plan.out" 2>&1
	got=$(head -n 1 "$T/plan.out")
	if [ "$got" = "$want" ] && { [ -z "$why" ] || sed -n 2p "$T/plan.out" | grep -q -- "$why"; }; then
		pass "create: $name"
	else
		fail "create: $name" "got $(tr '\n' '|' <"$T/plan.out")"
	fi
}
head -c 67108864 /dev/zero >"$T/blank2.img"
plan_is "two blank devices: formatted as a mirrored pool" format "" p0 "$T/blank.img" "$T/blank2.img"
plan_is "one blank device: formatted" format "" p0 "$T/blank.img"
plan_is "a one-device pool: loaded" load "" p0 "$T/one.img"
plan_is "two legs in sync: loaded" load "" p0 "$T/a.img" "$T/b.img"
plan_is "two legs in the other order: loaded" load "" p0 "$T/b.img" "$T/a.img"
"$MK" "$T/l0.img" --mirror "$T/l1.img" --pair lag >/dev/null
plan_is "two legs, one superblock behind: loaded" load "" p0 "$T/l0.img" "$T/l1.img"
plan_is "one leg alone: refused, names the way out" refuse \
	"a.img is leg 0 of a mirrored pool; nothing changed: give its other device ('fcachectl pool create p0 .*a.img OTHERDEV'), or add --degraded" \
	p0 "$T/a.img"
plan_is "one leg alone --degraded: loaded degraded" load_degraded "" --degraded p0 "$T/b.img"
plan_is "--degraded on a one-device pool: refused" refuse "is not one (it holds a one-device pool: omit --degraded)" \
	--degraded p0 "$T/one.img"
plan_is "--degraded on a blank device: refused" refuse "is not one; nothing changed" --degraded p0 "$T/blank.img"
plan_is "a leg and a blank device: refused" refuse "a.img holds leg 0 of a mirrored pool but .*blank.img holds no pool" \
	p0 "$T/a.img" "$T/blank.img"
plan_is "a one-device pool and a blank device: refused" refuse "holds a one-device fcache pool but .*does not take a second device" \
	p0 "$T/one.img" "$T/blank.img"
"$MK" "$T/s0.img" --mirror "$T/s1.img" --pair stale >/dev/null
plan_is "a stale pair: refused, names the good device" refuse \
	"s1.img is stale: .*fcachectl pool create NAME $T/s0.img --degraded)" p0 "$T/s0.img" "$T/s1.img"
"$MK" "$T/f0.img" --mirror "$T/f1.img" --pair foreign >/dev/null
plan_is "a foreign pair: refused" refuse "not each other's partner" p0 "$T/f0.img" "$T/f1.img"
plan_is "a copy of a leg: refused" refuse "one is a copy of the other" p0 "$T/a.img" "$T/copy.img"
plan_is "a one-device pool and a leg: refused" refuse "holds a one-device pool, not a leg" p0 "$T/one.img" "$T/b.img"
plan_is "--force over a leg: reformat (confirmed)" reformat "" --force p0 "$T/a.img" "$T/blank.img"
plan_is "--force on blank devices: format" format "" --force p0 "$T/blank.img" "$T/blank2.img"

# ---- pool create / up: usage, refused before device-mapper is asked
expect_rc 2 "create: --degraded with two devices is a usage error" "$CTL" pool create p0 "$T/a.img" "$T/b.img" --degraded
err_has "create: --degraded with two devices: says so" "give one FLASHDEV"
expect_rc 2 "create: --degraded is an option of pool create" "$CTL" pool list --degraded
expect_rc 2 "create: a third device is a usage error" "$CTL" pool create p0 "$T/a.img" "$T/b.img" "$T/one.img"
expect_rc 2 "up: down --degraded is a usage error" "$CTL" down --degraded -c "$T/none.conf"
expect_rc 0 "create: pool create --help names FLASHDEV2 and --degraded" "$CTL" pool --help
grep -q "FLASHDEV2" "$T/out" && grep -q -- "--degraded" "$T/out" && pass "create: --help describes mirrored pools" ||
	fail "create: --help describes mirrored pools" "$(head -c 300 "$T/out")"
expect_rc 0 "up: --help names --degraded" "$CTL" up --help
out_has "up: --help says a missing device is not assembled" "is NOT"

# up --dry-run: what up does about a missing device of a mirrored pool
printf 'pool pm %s mirror=%s writeback_high=70\n' "$T/a.img" "$T/b.img" >"$T/m.conf"
expect_rc 0 "up: --dry-run of a mirrored pool" "$CTL" up --dry-run -c "$T/m.conf"
out_has "up: --dry-run shows mirror=" "^pool pm $T/a.img mirror=$T/b.img block_sectors=64 writeback_high 70"
grep -q "missing" "$T/out" && fail "up: --dry-run: both devices there, nothing missing" "$(cat "$T/out")" ||
	pass "up: --dry-run: both devices there, nothing missing"
printf 'pool pm %s mirror=%s\n' "$T/a.img" "$T/gone.img" >"$T/m.conf"
expect_rc 0 "up: --dry-run with a device missing" "$CTL" up --dry-run -c "$T/m.conf"
out_has "up: --dry-run: up would refuse, names the device and --degraded" "gone.img is missing: up would refuse the pool (up --degraded: on $T/a.img alone)"
expect_rc 0 "up: --dry-run --degraded with a device missing" "$CTL" up --dry-run --degraded -c "$T/m.conf"
out_has "up: --dry-run --degraded: DEGRADED on the other alone" "gone.img is missing: up --degraded would assemble the pool DEGRADED on $T/a.img alone"
# --wait SECONDS: how long up waits for a missing device (whole seconds, 0-3600)
expect_rc 0 "up: --wait 0 --dry-run" "$CTL" up --wait 0 --dry-run -c "$T/m.conf"
expect_rc 2 "up: --wait not a number" "$CTL" up --wait soon --dry-run -c "$T/m.conf"
grep -q "up: --wait takes whole seconds, 0 to 3600: 'soon'" "$T/err" &&
	pass "up: --wait not a number: says what it takes" || fail "up: --wait not a number: says what it takes" "$(cat "$T/err")"
expect_rc 2 "up: --wait above an hour" "$CTL" up --wait 3601 --dry-run -c "$T/m.conf"
expect_rc 2 "down: no --wait" "$CTL" down --wait 3 -c "$T/m.conf"
printf 'pool pm %s mirror=%s\n' "$T/gone0.img" "$T/b.img" >"$T/m.conf"
"$CTL" up --dry-run --degraded -c "$T/m.conf" >"$T/out" 2>&1
out_has "up: --dry-run --degraded: the first device missing" "gone0.img is missing: up --degraded would assemble the pool DEGRADED on $T/b.img alone"

# the config: mirror= in one role only
# creject NAME LINE MSG CONTENT...
creject() {
	name=$1 ln=$2 msg=$3
	shift 3
	printf '%s\n' "$@" >"$T/r.conf"
	"$CTL" up --dry-run -c "$T/r.conf" >"$T/out" 2>"$T/err"
	r=$?
	if [ $r -eq 1 ] && [ "$(grep -c . "$T/err")" -eq 1 ] && grep -q "r.conf:$ln: .*$msg" "$T/err"; then
		pass "config: $name"
	else
		fail "config: $name" "rc $r: $(head -c 300 "$T/err")"
	fi
}
creject "mirror= is the first device" 1 "is the pool's first flash device" "pool p0 /dev/fl0 mirror=/dev/fl0"
creject "mirror= empty" 1 "mirror= needs" "pool p0 /dev/fl0 mirror="
creject "mirror= is another pool's flash" 2 "also a flash device of pool p0" "pool p0 /dev/fl0" "pool p1 /dev/fl1 mirror=/dev/fl0"
creject "a pool's flash is another's mirror" 2 "also a flash device of pool p0" "pool p0 /dev/fl0 mirror=/dev/fl1" "pool p1 /dev/fl1"
creject "a mirror device cached as a volume" 2 "also a flash device of pool p0" "pool p0 /dev/fl0 mirror=/dev/fl1" "volume p0 /dev/fl1 id=1"
creject "mirror= twice" 1 "given twice" "pool p0 /dev/fl0 mirror=/dev/fl1 mirror=/dev/fl2"

# the completion offers --degraded to pool create and up
comp_fake
cmp_out "completion: up --degraded" "--degraded" fcachectl up --deg
cmp_out "completion: pool create --degraded" "--degraded" fcachectl pool create p0 --deg
# the man page documents the two-device forms
for w in 'FLASHDEV2' 'mirror=' 'check\\-pair' 'DEGRADED' 'lone_dirty_blocks'; do
	grep -q -- "$w" "$top/man/fcachectl.8" && pass "man: documents $w" || fail "man: documents $w"
done
