#!/bin/sh
# Boot assembly across a guest reboot (run twice on the same persistent
# disks: /dev/vdb flash, /dev/vdc a plain origin, /dev/vdd under a dm-linear
# "LV" cached in place).
#   ctl_updown.sh first   up from /etc/fcache/fcache.conf, up again (no-op),
#                         udev-probe classification, write data left dirty,
#                         down: dirty data stays on the flash (check --json)
#   ctl_updown.sh second  after the reboot: up re-assembles with the same ids,
#                         every byte reads back through the caches; disable
#                         writes it back, the origins hold it byte for byte
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
phase=${1:-first}

load_fcache || die "cannot load dm-fcache"
for d in vdb vdc vdd; do [ -b /dev/$d ] || die "no /dev/$d"; done
# "LVM activation": the LV exists before fcache is assembled
dm_create lv1 "0 $(( $(dev_sectors /dev/vdd) - 2048 )) linear /dev/vdd 2048" || die "dm-linear lv1"
mkdir -p /etc/fcache
cat >/etc/fcache/fcache.conf <<CONF
# test config
pool p0 /dev/vdb block_size=32K commit_interval=500
volume p0 /dev/vdc id=3 name=db
volume p0 /dev/mapper/lv1 id=5 mode=writeback
CONF
FIO="--rw=randwrite --bs=16k --iodepth=8 --size=24M --randseed=77"

tables() { dmsetup table 2>/dev/null | sort; }

if [ "$phase" = first ]; then
	# a fresh flash: up formats it (blank device, no signature)
	if "$CTL" up >"$L/up.out" 2>"$L/up.err"; then pass up-first; else fail up-first "$(cat "$L/up.err")"; fi
	check pool-assembled test -b /dev/mapper/p0
	check plain-volume-assembled sh -c "dmsetup table db | grep -q 'fcache .* 3 writeback'"
	check lv-converted-in-place sh -c "dmsetup table lv1 | grep -q 'fcache .* 5 writeback'"
	tables >"$L/t1"
	check up-again-is-a-no-op "$CTL" up
	tables >"$L/t2"
	cmp -s "$L/t1" "$L/t2" && pass up-again-changes-nothing || fail up-again-changes-nothing
	# udev classification
	[ "$("$CTL" udev-probe /dev/vdc)" = "$(printf 'FCACHE_ORIGIN=1\nFCACHE_POOL=p0')" ] && pass udev-probe-plain-origin || fail udev-probe-plain-origin "$("$CTL" udev-probe /dev/vdc)"
	[ -z "$("$CTL" udev-probe /dev/mapper/db)" ] && pass udev-probe-cached-device-ready || fail udev-probe-cached-device-ready
	[ -z "$("$CTL" udev-probe /dev/mapper/lv1)" ] && pass udev-probe-converted-lv-ready || fail udev-probe-converted-lv-ready
	"$CTL" udev-probe /dev/mapper/lv1-fcorig | grep -qx FCACHE_ORIGIN=1 && pass udev-probe-hidden-origin || fail udev-probe-hidden-origin
	"$CTL" udev-probe /dev/vdb | grep -qx FCACHE_FLASH=1 && pass udev-probe-flash || fail udev-probe-flash
	[ -z "$("$CTL" udev-probe /dev/vda)" ] && pass udev-probe-unrelated-disk || fail udev-probe-unrelated-disk
	# the origin is held exclusively while cached
	check_fails origin-not-mountable-while-cached sh -c "mkdir -p /mnt/o; mount /dev/vdc /mnt/o"
	check_fails origin-not-openable-exclusively "$CTL" pool create px /dev/vdc
	# dirty data, kept dirty
	"$CTL" set p0 writeback_low=95 writeback_high=99 max_dirty_age=3600 >/dev/null 2>&1 || fail set-tunables
	# both at once: idle-time writeback may clean some of it, not all
	fio_verify /dev/mapper/db $FIO >"$L/w1" 2>&1 &
	p1=$!
	fio_verify /dev/mapper/lv1 $FIO >"$L/w2" 2>&1
	r2=$?
	wait $p1 && pass write-db || fail write-db "$(tail -n 3 "$L/w1" | tr '\n' ' ')"
	[ $r2 -eq 0 ] && pass write-lv1 || fail write-lv1 "$(tail -n 3 "$L/w2" | tr '\n' ' ')"
	d1=$(status_field db 3) d2=$(status_field lv1 3)
	info "dirty before down: db $d1, lv1 $d2"
	[ $((${d1:-0} + ${d2:-0})) -gt 0 ] && pass dirty-before-down || fail dirty-before-down "db=$d1 lv1=$d2"
	if "$CTL" down >"$L/down.out" 2>"$L/down.err"; then pass down; else fail down "$(cat "$L/down.err")"; fi
	check_fails down-removed-db dmsetup info db
	check_fails down-removed-pool dmsetup info p0
	check down-restored-lv1-linear sh -c "dmsetup table lv1 | grep -q ' linear '"
	check_fails down-removed-hidden-origin dmsetup info lv1-fcorig
	check down-again-is-a-no-op "$CTL" down
	"$CTL" check --json /dev/vdb >"$L/chk.json"
	r=$?
	[ $r -eq 0 ] && pass check-after-down || fail check-after-down "rc $r"
	if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["id"]: x for x in d["volumes"]}
assert d["clean"] and d["superblock"]["clean"], d["problems"]
assert v[3]["label"] == "vdc" and v[5]["label"] == "lv1", v
assert v[3]["dirty_blocks"] + v[5]["dirty_blocks"] > 0, v
assert v[3]["cached_blocks"] > 0 and v[5]["cached_blocks"] > 0, v
' "$L/chk.json" 2>"$L/py.err"; then pass down-keeps-dirty-data-on-flash; else fail down-keeps-dirty-data-on-flash "$(tail -n 1 "$L/py.err")"; fi
	dmsetup remove lv1
else
	"$CTL" check --json /dev/vdb >"$L/chk.json" 2>&1 && pass check-after-reboot || fail check-after-reboot "$(head -c 300 "$L/chk.json")"
	if "$CTL" up >"$L/up.out" 2>"$L/up.err"; then pass up-after-reboot; else fail up-after-reboot "$(cat "$L/up.err")"; fi
	check reassembled-db-id-3 sh -c "dmsetup table db | grep -q 'fcache .* 3 writeback'"
	check reassembled-lv1-id-5 sh -c "dmsetup table lv1 | grep -q 'fcache .* 5 writeback'"
	d1=$(status_field db 3) d2=$(status_field lv1 3)
	info "dirty after reboot: db $d1, lv1 $d2"
	[ $((${d1:-0} + ${d2:-0})) -gt 0 ] && pass dirty-data-recovered || fail dirty-data-recovered "db=$d1 lv1=$d2"
	check db-data-after-reboot fio_verify /dev/mapper/db $FIO --verify_only=1
	check lv1-data-after-reboot fio_verify /dev/mapper/lv1 $FIO --verify_only=1
	check disable-db "$CTL" disable db
	check disable-lv1 "$CTL" disable /dev/mapper/lv1
	check origin-vdc-has-every-byte fio_verify /dev/vdc $FIO --verify_only=1
	check origin-lv1-has-every-byte fio_verify /dev/mapper/lv1 $FIO --verify_only=1
	check pool-remove "$CTL" pool remove p0
	"$CTL" check --json /dev/vdb >"$L/chk.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["clean"] and d["dirty_blocks"]==0 and not d["volumes"], d' "$L/chk.json" 2>"$L/py.err" &&
		pass check-clean-and-empty-after-disable || fail check-clean-and-empty-after-disable "$(tail -n 1 "$L/py.err")"
	dmsetup remove lv1
fi
dmesg_clean
finish
