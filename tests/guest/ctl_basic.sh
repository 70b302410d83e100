#!/bin/sh
# fcachectl end to end in the guest: pool create/list/remove (and refusals),
# enable/disable of a plain disk with data verified byte for byte, status
# (text, --json, --watch, --prometheus, --prometheus-file), set, flush,
# disable with dirty data, check/dump of the flash once the pool is down, and
# the refusals of each bad input.  JSON documents are checked against their
# schemas (tests/host/json_schema.py, docs/JSON.md), the Prometheus text by
# the strict parser tests/host/prom_check.py.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
H=$FC_TOP/tests/host

load_fcache || die "cannot load dm-fcache"
flash=$(mk_brd_flash 128) || die "mk_brd_flash failed"
disk=$(mk_fast_disk 128) || die "mk_fast_disk failed"
fsdisk=$(mk_fast_disk 64) || die "mk_fast_disk failed"

# rc NAME WANT CMD... : exit code check, output in $L/rc.out / $L/rc.err
rc() {
	_n=$1 _w=$2; shift 2
	"$@" >"$L/rc.out" 2>"$L/rc.err"
	_g=$?
	if [ "$_g" -eq "$_w" ]; then pass "$_n"; else fail "$_n" "exit $_g, wanted $_w: $(head -c 300 "$L/rc.err")"; fi
}
one_line() {
	if [ "$(grep -c . "$L/rc.err")" -eq 1 ]; then pass "$1"; else fail "$1" "$(head -c 300 "$L/rc.err")"; fi
}
json() {	# json NAME FILE PYTHON-EXPR-USING-d
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert ($3), d" "$2" >"$L/py.err" 2>&1; then
		pass "$1"
	else
		fail "$1" "$(tail -n 2 "$L/py.err" | tr '\n' ' ')"
	fi
}

# ---- pool create: refusals first (nothing changes)
mkfs.ext4 -q -F "$fsdisk" >/dev/null 2>&1
rc pool-refuses-filesystem 1 "$CTL" pool create pfs "$fsdisk"
one_line pool-refuses-filesystem-one-line
grep -q 'ext4' "$L/rc.err" && pass pool-refusal-names-ext4 || fail pool-refusal-names-ext4 "$(cat "$L/rc.err")"
check filesystem-untouched sh -c "blkid -p -o value -s TYPE $fsdisk | grep -qx ext4"
rc pool-refuses-missing-dev 1 "$CTL" pool create px /dev/nonexistent
rc pool-refuses-regular-file 1 "$CTL" pool create px /etc/hostname
check_fails no-device-left-by-refusals test -e /dev/mapper/pfs

rc pool-create 0 "$CTL" pool create p0 "$flash"
grep -qx /dev/mapper/p0 "$L/rc.out" && pass pool-create-prints-device || fail pool-create-prints-device "$(cat "$L/rc.out")"
check pool-device-is-block test -b /dev/mapper/p0
check pool-table sh -c "dmsetup table p0 | grep -q 'fcache-pool .* 64\$'"
rc pool-create-name-taken 1 "$CTL" pool create p0 "$fsdisk"
rc pool-create-flash-in-use 1 "$CTL" pool create p9 "$flash"
one_line pool-create-flash-in-use-one-line
rc pool-list 0 "$CTL" pool list
grep -q '^p0 ' "$L/rc.out" && pass pool-list-shows-p0 || fail pool-list-shows-p0
rc pool-list-json 0 "$CTL" pool list --json
json pool-list-json-valid "$L/rc.out" 'd["schema"] == "fcache.pool-list" and d["pools"][0]["name"] == "p0" and d["pools"][0]["block_sectors"] == 64 and d["pools"][0]["volumes"] == []'
check pool-list-json-schema python3 "$H/json_schema.py" --schema fcache.pool-list "$L/rc.out"
rc complete-pools 0 "$CTL" __complete pools
[ "$(cat "$L/rc.out")" = p0 ] && pass complete-pools-lists-p0 || fail complete-pools-lists-p0 "$(cat "$L/rc.out")"

# --force on the ext4 disk, then remove it again
rc pool-create-force 0 "$CTL" pool create pfs "$fsdisk" --force --block-size 64K
check pool-force-block-size sh -c "dmsetup table pfs | grep -q ' 128\$'"
rc pool-remove-idle 0 "$CTL" pool remove pfs
check_fails pool-removed test -e /dev/mapper/pfs
# a pool device is loaded, not reformatted: same uuid after re-create
"$CTL" dump --json "$fsdisk" >"$L/d1.json" 2>/dev/null
rc pool-recreate-loads 0 "$CTL" pool create pfs "$fsdisk"
"$CTL" pool remove pfs >/dev/null 2>&1
"$CTL" dump --json "$fsdisk" >"$L/d2.json" 2>/dev/null
if python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["superblock"]["uuid"]==b["superblock"]["uuid"]' "$L/d1.json" "$L/d2.json" 2>/dev/null
then pass pool-reassembly-keeps-uuid; else fail pool-reassembly-keeps-uuid; fi

# ---- enable a plain disk
rc enable-plain 0 "$CTL" enable "$disk" --pool p0
dev=$(cat "$L/rc.out")
kn=$(basename "$disk")
[ "$dev" = "/dev/mapper/fc-$kn" ] && pass enable-prints-device || fail enable-prints-device "$dev"
check cached-device-is-block test -b "$dev"
check volume-table-label sh -c "dmsetup table fc-$kn | grep -q 'fcache .* 1 writeback 2 label $kn'"
rc enable-again-refused 1 "$CTL" enable "$dev" --pool p0
one_line enable-again-one-line
rc enable-origin-refused 1 "$CTL" enable "$disk" --pool p0
rc enable-unknown-pool 1 "$CTL" enable "$fsdisk" --pool nopool
rc enable-pool-device-refused 1 "$CTL" enable /dev/mapper/p0 --pool p0
rc enable-flash-refused 1 "$CTL" enable "$flash" --pool p0
rc enable-bad-mode 2 "$CTL" enable "$fsdisk" --pool p0 --mode fast
rc enable-not-block 1 "$CTL" enable /etc/hostname --pool p0
rc enable-id-taken 1 "$CTL" enable "$fsdisk" --pool p0 --id 1
rc pool-remove-busy 1 "$CTL" pool remove p0
grep -q "fc-$kn" "$L/rc.err" && pass pool-remove-busy-names-volume || fail pool-remove-busy-names-volume "$(cat "$L/rc.err")"
check pool-still-there test -b /dev/mapper/p0

check write-through-cache fio_verify "$dev" --rw=randwrite --bs=16k --size=16M --iodepth=8
rc status-text 0 "$CTL" status
grep -q "pool p0" "$L/rc.out" && grep -q "fc-$kn" "$L/rc.out" && pass status-text-shows-pool-and-volume || fail status-text-shows-pool-and-volume "$(head -c 400 "$L/rc.out")"
rc status-json 0 "$CTL" status --json
cp "$L/rc.out" "$L/status.json"
json status-json-fields "$L/status.json" 'd["pools"][0]["name"]=="p0" and d["pools"][0]["volumes"][0]["name"]=="fc-'"$kn"'" and d["pools"][0]["volumes"][0]["writes"]>0 and d["pools"][0]["metadata_mode"]=="rw"'
check status-json-schema python3 "$H/json_schema.py" --schema fcache.status "$L/status.json"
rc status-volume-filter 0 "$CTL" status "fc-$kn" --json
json status-filter-one-volume "$L/rc.out" 'len(d["pools"])==1 and len(d["pools"][0]["volumes"])==1'
rc pool-list-json-with-volume 0 "$CTL" pool list --json
cp "$L/rc.out" "$L/pool-list.json"
json pool-list-json-volume-array "$L/pool-list.json" 'd["pools"][0]["volumes"][0]["name"]=="fc-'"$kn"'" and isinstance(d["pools"][0]["volumes"][0]["id"], int)'
check pool-list-json-schema-with-volume python3 "$H/json_schema.py" --schema fcache.pool-list "$L/pool-list.json"
rc complete-targets 0 "$CTL" __complete targets
grep -qx p0 "$L/rc.out" && grep -qx "fc-$kn" "$L/rc.out" && pass complete-targets-lists-pool-and-volume ||
	fail complete-targets-lists-pool-and-volume "$(cat "$L/rc.out")"
# --prometheus: one sample, no waiting (status --json sleeps 0.5 s between
# its two); the strict parser accepts it; its counters are those of the
# --json taken right after (at most as large: udev may read meanwhile)
t0=$(date +%s%N)
rc status-prometheus 0 "$CTL" status --prometheus
t1=$(date +%s%N)
cp "$L/rc.out" "$L/status.prom"
"$CTL" status --json >"$L/status2.json" 2>/dev/null
t2=$(date +%s%N)
[ $(((t2 - t1) - (t1 - t0))) -gt 300000000 ] && pass status-prometheus-does-not-sample ||
	fail status-prometheus-does-not-sample "prometheus $(((t1 - t0) / 1000000)) ms, json $(((t2 - t1) / 1000000)) ms"
check status-prometheus-strict-parse python3 "$H/prom_check.py" --fcache "$L/status.prom"
python3 "$H/prom_check.py" --json "$L/status.prom" >"$L/status-prom.json" 2>"$L/py.err"
if python3 - "$L/status-prom.json" "$L/status2.json" "fc-$kn" >>"$L/py.err" 2>&1 <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
vol = sys.argv[3]
def get(name, **lab):
    v = [x[2] for x in s if x[0] == name and x[1] == lab]
    assert len(v) == 1, (name, lab, v)
    return int(v[0])
p = d["pools"][0]
v = [x for x in p["volumes"] if x["name"] == vol][0]
assert get("fcache_pool_blocks", pool="p0") == p["total_blocks"]
assert get("fcache_pool_block_size_bytes", pool="p0") == p["block_sectors"] * 512
assert get("fcache_pool_metadata_mode", pool="p0", mode="rw") == 1
assert 0 < get("fcache_volume_writes_total", pool="p0", volume=vol) <= v["writes"]
assert get("fcache_volume_reads_total", pool="p0", volume=vol) <= v["reads"]
assert get("fcache_volume_reads_total", pool="p0", volume=vol) >= v["reads"] - 1000
assert get("fcache_volume_mode", pool="p0", volume=vol, mode=v["mode"]) == 1
PY
then pass status-prometheus-matches-json; else fail status-prometheus-matches-json "$(tail -n 2 "$L/py.err" | tr '\n' ' ')"; fi
rc status-prometheus-one-volume 0 "$CTL" status "fc-$kn" --prometheus
grep -q "^fcache_pools 1\$" "$L/rc.out" && grep -q "volume=\"fc-$kn\"" "$L/rc.out" && pass status-prometheus-filter ||
	fail status-prometheus-filter "$(head -c 300 "$L/rc.out")"
rc status-prometheus-unknown 1 "$CTL" status nosuch --prometheus
# textfile collector mode: PATH.tmp renamed to PATH at every interval
rm -f "$L/fc.prom" "$L/fc.prom.tmp"
"$CTL" status --watch 0.3 --prometheus-file "$L/fc.prom" >"$L/pf.out" 2>&1 &
pf=$!
sleep 1
ino1=$(stat -c %i "$L/fc.prom" 2>/dev/null)
sleep 1
ino2=$(stat -c %i "$L/fc.prom" 2>/dev/null)
kill $pf
wait $pf
w=$?
[ $w -eq 0 ] && pass status-prometheus-file-stops-on-sigterm || fail status-prometheus-file-stops-on-sigterm "rc $w: $(head -c 200 "$L/pf.out")"
[ -n "$ino1" ] && [ -n "$ino2" ] && [ "$ino1" != "$ino2" ] && pass status-prometheus-file-renamed-each-interval ||
	fail status-prometheus-file-renamed-each-interval "inodes '$ino1' '$ino2'"
check status-prometheus-file-strict-parse python3 "$H/prom_check.py" --fcache "$L/fc.prom"
[ ! -s "$L/pf.out" ] && pass status-prometheus-file-prints-nothing || fail status-prometheus-file-prints-nothing "$(head -c 200 "$L/pf.out")"
rc status-unknown 1 "$CTL" status nosuch
timeout --preserve-status -s INT 2 "$CTL" status --watch 0.3 >"$L/watch.out" 2>&1
w=$?
[ $w -eq 0 ] && [ "$(grep -c 'pool p0' "$L/watch.out")" -ge 2 ] && pass status-watch-refreshes-and-stops-on-sigint || fail status-watch-refreshes-and-stops-on-sigint "rc $w, $(grep -c 'pool p0' "$L/watch.out") frames"

# ---- set
rc set-mode 0 "$CTL" set "fc-$kn" mode=writethrough
check set-mode-applied sh -c "dmsetup table fc-$kn | grep -q ' writethrough '"
rc set-seq-cutoff 0 "$CTL" set "fc-$kn" sequential_cutoff=512
rc set-pool-tunable 0 "$CTL" set p0 writeback_high=90 max_dirty_age=3600
rc set-bad-key 2 "$CTL" set p0 frob=1
rc set-bad-mode 2 "$CTL" set "fc-$kn" mode=fast
check set-bad-mode-changed-nothing sh -c "dmsetup table fc-$kn | grep -q ' writethrough '"
rc set-unknown-target 1 "$CTL" set nosuch mode=writeback
rc set-back-to-writeback 0 "$CTL" set "fc-$kn" mode=writeback

# ---- flush
fio_verify "$dev" --rw=randwrite --bs=16k --size=16M --iodepth=8 --offset=32M >/dev/null 2>&1
rc flush-volume 0 "$CTL" flush "fc-$kn"
d=$(status_field "fc-$kn" 3)
[ "$d" = 0 ] && pass flush-leaves-no-dirty || fail flush-leaves-no-dirty "dirty=$d"
rc flush-pool 0 "$CTL" flush p0
rc flush-unknown 1 "$CTL" flush nosuch

# ---- disable with dirty data: the origin gets every byte
"$CTL" set p0 writeback_low=95 writeback_high=99 max_dirty_age=3600 >/dev/null 2>&1
check write-dirty fio_verify "$dev" --rw=randwrite --bs=16k --size=24M --iodepth=8 --offset=64M
d=$(status_field "fc-$kn" 3)
info "dirty blocks before disable: $d"
[ "${d:-0}" -gt 0 ] && pass dirty-data-before-disable || fail dirty-data-before-disable "dirty=$d"
rc disable-with-dirty 0 "$CTL" disable "$dev"
check_fails cached-device-gone test -e "$dev"
check origin-has-all-data fio_verify "$disk" --rw=randwrite --bs=16k --size=24M --iodepth=8 --offset=64M --verify_only=1
check origin-has-earlier-data fio_verify "$disk" --rw=randwrite --bs=16k --size=16M --iodepth=8 --verify_only=1
rc disable-again 1 "$CTL" disable "$disk"
one_line disable-again-one-line

# id released: the next enable gets id 1 again
rc enable-reuses-id 0 "$CTL" enable "$disk" --pool p0 --name vol1 --mode writethrough
check reused-id-1 sh -c "dmsetup table vol1 | grep -q ' 1 writethrough '"
check reenabled-reads-old-data fio_verify /dev/mapper/vol1 --rw=randwrite --bs=16k --size=24M --iodepth=8 --offset=64M --verify_only=1
# a mounted plain volume cannot be disabled
mkfs.ext4 -q -F -E nodiscard /dev/mapper/vol1 >/dev/null 2>&1
mkdir -p /mnt/v1 && mount /dev/mapper/vol1 /mnt/v1
rc disable-mounted-refused 1 "$CTL" disable vol1
one_line disable-mounted-one-line
umount /mnt/v1
rc disable-unmounted 0 "$CTL" disable vol1

# ---- disable --no-flush keeps the dirty data registered; enable takes its id back
rc enable-id-7 0 "$CTL" enable "$disk" --pool p0 --id 7
check write-dirty-for-no-flush fio_verify "$dev" --rw=randwrite --bs=16k --size=16M --iodepth=8 --offset=96M
d=$(status_field "fc-$kn" 3)
[ "${d:-0}" -gt 0 ] && pass dirty-before-no-flush || fail dirty-before-no-flush "dirty=$d"
rc disable-no-flush 0 "$CTL" disable "fc-$kn" --no-flush
grep -q 'stay in pool p0' "$L/rc.err" && pass no-flush-warns-stale-origin || fail no-flush-warns-stale-origin "$(cat "$L/rc.err")"
check_fails no-flush-removed-device test -e "$dev"
rc status-notes-detached 0 "$CTL" status p0
grep -q 'not attached' "$L/rc.out" && pass status-notes-detached-volume || fail status-notes-detached-volume "$(cat "$L/rc.out")"
rc enable-other-origin-on-dirty-id 1 "$CTL" enable "$fsdisk" --pool p0 --id 7
grep -q "dirty data of '$kn'" "$L/rc.err" && pass dirty-id-refusal-names-owner || fail dirty-id-refusal-names-owner "$(cat "$L/rc.err")"
one_line dirty-id-refusal-one-line
rc reenable-without-id 0 "$CTL" enable "$disk" --pool p0
check reattached-with-id-7 sh -c "dmsetup table fc-$kn | grep -q ' 7 writeback '"
check reattached-data-reads-back fio_verify "$dev" --rw=randwrite --bs=16k --size=16M --iodepth=8 --offset=96M --verify_only=1
rc disable-after-reattach 0 "$CTL" disable "fc-$kn"
check origin-after-reattach fio_verify "$disk" --rw=randwrite --bs=16k --size=16M --iodepth=8 --offset=96M --verify_only=1

# ---- check/dump
rc check-active-refused 1 "$CTL" check "$flash"
rc pool-remove 0 "$CTL" pool remove p0
rc check-clean-after-remove 0 "$CTL" check "$flash"
rc check-json 0 "$CTL" check --json "$flash"
json check-json-clean "$L/rc.out" 'd["clean"] and d["superblock"]["clean"] and d["dirty_blocks"]==0'
check check-json-schema python3 "$H/json_schema.py" --schema fcache.check "$L/rc.out"
rc dump-pool 0 "$CTL" dump "$flash"
rc remove-unknown-pool 1 "$CTL" pool remove p0
dmesg_clean
finish
