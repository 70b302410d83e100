#!/bin/sh
# Everyday admin commands never lead to stale data (issue 9).
#
# 1. The supported LVM setup: the PV is cached (writeback) before LVM
#    activates, and LVM's global_filter accepts only /dev/mapper/<cached PV>.
#    For each of lvextend, lvchange --refresh, vgchange --refresh,
#    lvcreate -s, vgchange -an + -ay: 8 dirty blocks written with O_DIRECT +
#    fsync, the command, the LV reads them back byte for byte; a write C +
#    fsync; a reboot-like cycle (vgchange -an, fcachectl down, every fcache
#    device removed, fcachectl up from the config that enable wrote,
#    vgchange -ay): C reads back; flush; the raw PV holds C.
# 2. In-place writeback enable of an LV is refused, saying what to do;
#    writethrough in place works and an LVM refresh only takes it away.
# 3. A volume removed at run time with dmsetup remove while dirty (not by
#    fcachectl) is DETACHED: its origin written directly; up and enable
#    refuse; flush of the pool ends at once with exit 1; status shows it;
#    resolve --discard: the origin's data is served.  The --replay variant:
#    the pool's data comes back and is flushed to the origin.
# 4. enable + set recorded in /etc/fcache/fcache.conf without a hand edit:
#    a reboot-like cycle keeps the volume cached with its mode and
#    sequential_cutoff and serves every write.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
CONF=/etc/fcache/fcache.conf

load_fcache || die "cannot load dm-fcache"
modprobe dm-snapshot 2>/dev/null
flash=$(mk_brd_flash 192) || die "mk_brd_flash failed"
pv=$(mk_fast_disk 192) || die "mk_fast_disk pv"
d1=$(mk_fast_disk 64) || die "mk_fast_disk d1"
d2=$(mk_fast_disk 64) || die "mk_fast_disk d2"
d3=$(mk_fast_disk 64) || die "mk_fast_disk d3"
mkdir -p /etc/fcache
rm -f "$CONF"

# LVM without udev, devices only through the cached PV
export LVM_SYSTEM_DIR=$L/lvm
lvm_conf 'global_filter = [ "a|^/dev/mapper/pvc$|", "a|^/dev/mapper/pv2$|", "r|.*|" ]'
lvmq() { lvm "$@" >>"$L/lvm.log" 2>&1; }

fcache_devices() {
	dmsetup table 2>/dev/null | awk '$4 == "fcache" || $4 == "fcache-pool" { sub(":", "", $1); print $1 }'
}

# reboot-like: LVs down, fcachectl down, every fcache device gone, up, LVs up
reboot_like() {
	_t=$1
	lvmq vgchange -an vg || { fail "$_t-vgchange-an" "$(tail -n 2 "$L/lvm.log")"; return 1; }
	"$CTL" down >"$L/down.out" 2>&1 || { fail "$_t-down" "$(tail -n 2 "$L/down.out")"; return 1; }
	for _d in $(fcache_devices); do
		info "$_t: removing $_d left after down"
		dmsetup remove "$_d"
	done
	[ -z "$(fcache_devices)" ] || { fail "$_t-no-fcache-device-left" "$(fcache_devices)"; return 1; }
	"$CTL" up >"$L/up.out" 2>&1 || { fail "$_t-up" "$(tail -n 3 "$L/up.out")"; return 1; }
	lvmq vgchange -ay vg || { fail "$_t-vgchange-ay" "$(tail -n 2 "$L/lvm.log")"; return 1; }
	return 0
}

BS=32768
# wr DEV FILE BLOCK: 8 blocks of FILE at block BLOCK, O_DIRECT, fsync
wr() { dd if="$2" of="$1" bs=$BS count=8 seek="$3" oflag=direct conv=fsync,notrunc 2>/dev/null; }
# same DEV FILE BLOCK: the 8 blocks at BLOCK equal FILE, byte for byte
same() {
	dd if="$1" of="$L/rd" bs=$BS count=8 skip="$3" iflag=direct 2>/dev/null &&
		cmp -s "$2" "$L/rd"
}
# same_at DEV FILE SECTOR: the same at a sector offset (the raw PV)
same_at() {
	dd if="$1" of="$L/rd" bs=512 count=$((8 * BS / 512)) skip="$3" iflag=direct 2>/dev/null &&
		cmp -s "$2" "$L/rd"
}
pat() { dd if=/dev/urandom of="$1" bs=$BS count=8 2>/dev/null; }

# keep the pool from idling (idle writeback would clean the dirty blocks)
busy_start() {
	rm -f "$L/busy.stop"
	(while [ ! -e "$L/busy.stop" ]; do
		dd if=/dev/mapper/pvc of=/dev/null bs=4k count=1 skip=40000 iflag=direct 2>/dev/null
		sleep 0.5
	done) &
	busy_pid=$!
}
busy_stop() { touch "$L/busy.stop"; wait "$busy_pid" 2>/dev/null; }

# ---- setup: pool, cached PV (recorded in the config by enable), VG, LV ----
check pool-create "$CTL" pool create p0 "$flash" writeback_low=95 writeback_high=99 max_dirty_age=3600
if "$CTL" enable "$pv" --pool p0 --name pvc --id 1 >"$L/en.out" 2>&1; then pass enable-pv; else fail enable-pv "$(cat "$L/en.out")"; fi
check config-has-pool grep -q "^pool p0 " "$CONF"
check config-has-pv sh -c "grep -q '^volume p0 $pv id=1 mode=writeback name=pvc' '$CONF'"
# the pool line was written by enable: the tunables come from the live table
check config-pool-tunables sh -c "grep '^pool p0 ' '$CONF' | grep -q 'writeback_low=95'"
lvmq pvcreate -y /dev/mapper/pvc || die "pvcreate: $(tail -n 3 "$L/lvm.log")"
lvmq vgcreate vg /dev/mapper/pvc || die "vgcreate: $(tail -n 3 "$L/lvm.log")"
lvmq lvcreate -y -W n -Z n -L 32M -n lv vg || die "lvcreate: $(tail -n 3 "$L/lvm.log")"
[ -b /dev/mapper/vg-lv ] || die "no /dev/mapper/vg-lv"
LV=/dev/mapper/vg-lv
# where the LV's first extent lies on the PV (sectors)
lvoff=$(dmsetup table vg-lv | awk 'NR == 1 { print $5 }')
info "LV vg/lv starts at sector $lvoff of the PV"

# ---- 1. each LVM command on the supported setup ----
blk=16
for cmd in lvextend lvchange-refresh vgchange-refresh lvcreate-s vgchange-an-ay; do
	pat "$L/A"
	pat "$L/C"
	busy_start
	wr "$LV" "$L/A" $blk || fail "$cmd-write-A"
	dirty=$(status_field pvc 3)
	[ "${dirty:-0}" -ge 8 ] && pass "$cmd-8-dirty-blocks" || fail "$cmd-8-dirty-blocks" "dirty=$dirty"
	case $cmd in
	lvextend) lvmq lvextend -y -L +8M vg/lv ;;
	lvchange-refresh) lvmq lvchange --refresh vg/lv ;;
	vgchange-refresh) lvmq vgchange --refresh vg ;;
	lvcreate-s) lvmq lvcreate -y -s -L 8M -n snap vg/lv ;;
	vgchange-an-ay) lvmq vgchange -an vg && lvmq vgchange -ay vg ;;
	esac
	r=$?
	[ $r -eq 0 ] && pass "$cmd-runs" || fail "$cmd-runs" "$(tail -n 2 "$L/lvm.log")"
	info "$cmd: pvc dirty after the command: $(status_field pvc 3)"
	check "$cmd-pv-still-cached" sh -c "dmsetup table pvc | grep -q ' fcache .* 1 writeback'"
	same "$LV" "$L/A" $blk && pass "$cmd-reads-exact-data" || fail "$cmd-reads-exact-data"
	busy_stop
	[ "$cmd" = lvcreate-s ] && { lvmq lvremove -y vg/snap || fail "$cmd-lvremove-snap"; }
	wr "$LV" "$L/C" $blk || fail "$cmd-write-C"
	if reboot_like "$cmd"; then
		check "$cmd-pv-cached-after-up" sh -c "dmsetup table pvc | grep -q ' fcache .* 1 writeback'"
		same "$LV" "$L/C" $blk && pass "$cmd-C-after-reboot" || fail "$cmd-C-after-reboot"
		if "$CTL" flush p0 >"$L/fl.out" 2>&1; then pass "$cmd-flush"; else fail "$cmd-flush" "$(tail -n 2 "$L/fl.out")"; fi
		same_at "$pv" "$L/C" $((lvoff + blk * BS / 512)) && pass "$cmd-origin-holds-C" || fail "$cmd-origin-holds-C"
	fi
	blk=$((blk + 8))
done

# ---- 2. in place on an LV (of a second VG on an uncached disk: no nesting) ----
# LVM does not know null_blk's device type: a dm-linear over it is the PV
dm_create pv2 "0 $(dev_sectors "$d3") linear $d3 0" || fail vg2-pv-linear
lvmq pvcreate -y /dev/mapper/pv2 || fail vg2-pvcreate "$(tail -n 2 "$L/lvm.log")"
lvmq vgcreate vg2 /dev/mapper/pv2 || fail vg2-vgcreate "$(tail -n 2 "$L/lvm.log")"
lvmq lvcreate -y -W n -Z n -L 16M -n lw vg2 || fail vg2-lvcreate "$(tail -n 2 "$L/lvm.log")"
LW=/dev/mapper/vg2-lw
if "$CTL" enable "$LW" --pool p0 >"$L/lvwb.out" 2>&1; then
	fail lv-in-place-writeback-refused "$(cat "$L/lvwb.out")"
else
	pass lv-in-place-writeback-refused
fi
grep -q global_filter "$L/lvwb.out" && grep -q 'PV' "$L/lvwb.out" &&
	pass lv-refusal-says-cache-the-pv || fail lv-refusal-says-cache-the-pv "$(cat "$L/lvwb.out")"
check lv-still-linear sh -c "dmsetup table vg2-lw | grep -q ' linear '"
check_fails lv-on-cached-pv-in-place-writeback-refused "$CTL" enable "$LV" --pool p0
"$CTL" enable --help | grep -q global_filter && pass enable-help-mentions-filter || fail enable-help-mentions-filter
if "$CTL" enable "$LW" --pool p0 --mode writethrough --id 9 >"$L/lvwt.out" 2>&1; then pass lv-in-place-writethrough; else fail lv-in-place-writethrough "$(cat "$L/lvwt.out")"; fi
check_fails set-lv-writeback-refused "$CTL" set vg2-lw mode=writeback
pat "$L/W"
wr "$LW" "$L/W" 200 || fail lv-wt-write
lvmq lvchange --refresh vg2/lw || fail lv-wt-refresh "$(tail -n 2 "$L/lvm.log")"
check lv-refresh-took-cache-away sh -c "dmsetup table vg2-lw | grep -q ' linear '"
same "$LW" "$L/W" 200 && pass lv-wt-data-after-refresh || fail lv-wt-data-after-refresh
"$CTL" status p0 >"$L/st.out" 2>&1
grep -q "id 9 .*DETACHED" "$L/st.out" && pass status-shows-wt-detached || fail status-shows-wt-detached "$(cat "$L/st.out")"
dmsetup remove vg2-lw-fcorig 2>/dev/null
pat "$L/W2"
wr "$LW" "$L/W2" 200 || fail lv-wt-write-uncached
# re-attached: the clean data cached before is dropped, the origin's newer data served
if "$CTL" enable "$LW" --pool p0 --mode writethrough --id 9 --no-persist >"$L/lvwt2.out" 2>&1; then pass lv-wt-reattach; else fail lv-wt-reattach "$(cat "$L/lvwt2.out")"; fi
same "$LW" "$L/W2" 200 && pass lv-wt-reattach-serves-origin || fail lv-wt-reattach-serves-origin
check lv-wt-disable "$CTL" disable "$LW"
check_fails config-lv-gone grep -q "id=9" "$CONF"

# ---- 3. DETACHED: dmsetup remove while dirty ----
pat "$L/A"
pat "$L/B"
if "$CTL" enable "$d1" --pool p0 --name dv --id 3 >"$L/dv.out" 2>&1; then pass dv-enable; else fail dv-enable "$(cat "$L/dv.out")"; fi
wr /dev/mapper/dv "$L/A" 0 || fail dv-write-A
dirty=$(status_field dv 3)
[ "${dirty:-0}" -ge 8 ] && pass dv-dirty || fail dv-dirty "dirty=$dirty"
check dv-dmsetup-remove dmsetup remove dv
# the origin written directly (the old dirty data is now older than the origin)
wr "$d1" "$L/B" 0 || fail dv-origin-write-B
dmesg | grep -q "volume 3: its table was torn down at run time" && pass dv-kernel-logs-detach || fail dv-kernel-logs-detach
"$CTL" up >"$L/up-dv.out" 2>&1
r=$?
[ $r -ne 0 ] && pass dv-up-refuses || fail dv-up-refuses "rc 0: $(cat "$L/up-dv.out")"
grep -q "resolve" "$L/up-dv.out" && pass dv-up-says-resolve || fail dv-up-says-resolve "$(cat "$L/up-dv.out")"
check_fails dv-not-attached dmsetup info dv
check_fails dv-enable-refuses "$CTL" enable "$d1" --pool p0 --name dv --id 3
grep -q "detached at run time with dirty data" "$L/check.out" && pass dv-enable-says-why || fail dv-enable-says-why "$(cat "$L/check.out")"
# a raw table is refused by the kernel too
check_fails dv-kernel-refuses-table dm_create dvraw "0 $(dev_sectors "$d1") fcache /dev/mapper/p0 $d1 3 writeback"
dmsetup remove dvraw 2>/dev/null
t0=$(date +%s)
"$CTL" flush p0 >"$L/fl-dv.out" 2>&1
r=$?
t1=$(date +%s)
[ $r -ne 0 ] && pass dv-flush-pool-fails || fail dv-flush-pool-fails "rc 0"
[ $((t1 - t0)) -le 20 ] && pass dv-flush-pool-ends-in-seconds || fail dv-flush-pool-ends-in-seconds "$((t1 - t0)) s"
grep -q "resolve p0 3" "$L/fl-dv.out" && pass dv-flush-says-resolve || fail dv-flush-says-resolve "$(cat "$L/fl-dv.out")"
"$CTL" status p0 >"$L/st.out" 2>&1
grep -q "id 3 '.*', 8 dirty blocks.*DETACHED" "$L/st.out" && grep -q "resolve p0 3" "$L/st.out" &&
	pass dv-status-shows-detached || fail dv-status-shows-detached "$(cat "$L/st.out")"
"$CTL" status --json p0 | python3 -c '
import json, sys
d = json.load(sys.stdin)
u = {v["id"]: v for v in d["pools"][0]["unattached_volumes"]}
assert u[3]["detached"] and u[3]["dirty_blocks"] >= 8, u
' 2>"$L/py.err" && pass dv-status-json || fail dv-status-json "$(tail -n 1 "$L/py.err")"
check dv-resolve-discard "$CTL" resolve p0 3 --discard
if "$CTL" up >"$L/up-dv2.out" 2>&1; then pass dv-up-after-discard; else fail dv-up-after-discard "$(cat "$L/up-dv2.out")"; fi
same /dev/mapper/dv "$L/B" 0 && pass dv-discard-serves-origin || fail dv-discard-serves-origin
# --replay: nothing wrote the origin; the pool's data is kept and written back
pat "$L/A2"
wr /dev/mapper/dv "$L/A2" 8 || fail dv-write-A2
check dv-dmsetup-remove-2 dmsetup remove dv
check_fails dv-up-refuses-2 "$CTL" up
check dv-resolve-replay "$CTL" resolve p0 3 --replay
if "$CTL" up >"$L/up-dv3.out" 2>&1; then pass dv-up-after-replay; else fail dv-up-after-replay "$(cat "$L/up-dv3.out")"; fi
same /dev/mapper/dv "$L/A2" 8 && pass dv-replay-serves-pool-data || fail dv-replay-serves-pool-data
check dv-flush "$CTL" flush dv
same "$d1" "$L/A2" 8 && pass dv-replay-origin-holds-data || fail dv-replay-origin-holds-data
# an orderly disable --no-flush is not a run-time detach
pat "$L/A3"
wr /dev/mapper/dv "$L/A3" 16 || fail dv-write-A3
check dv-disable-no-flush "$CTL" disable dv --no-flush
check dv-enable-after-orderly-detach "$CTL" enable "$d1" --pool p0 --name dv --id 3
same /dev/mapper/dv "$L/A3" 16 && pass dv-orderly-detach-keeps-data || fail dv-orderly-detach-keeps-data
check dv-disable "$CTL" disable dv
same "$d1" "$L/A3" 16 && pass dv-disable-wrote-back || fail dv-disable-wrote-back
check_fails config-dv-gone grep -q "id=3" "$CONF"

# ---- 4. enable + set recorded; reboot-like keeps the settings ----
pat "$L/E"
if "$CTL" enable "$d2" --pool p0 --name ev --id 4 --mode writethrough --sequential-cutoff 512 >"$L/ev.out" 2>&1; then pass ev-enable; else fail ev-enable "$(cat "$L/ev.out")"; fi
check ev-set "$CTL" set ev mode=writeback sequential_cutoff=256
check ev-set-pool "$CTL" set p0 writeback_jobs=16
check config-ev-recorded sh -c "grep '^volume p0 $d2 id=4' '$CONF' | grep 'mode=writeback' | grep -q 'sequential_cutoff=256'"
check config-pool-set-recorded sh -c "grep '^pool p0 ' '$CONF' | grep -q 'writeback_jobs=16'"
check up-dry-run-parses "$CTL" up --dry-run
busy_start
wr /dev/mapper/ev "$L/E" 0 || fail ev-write
busy_stop
dirty=$(status_field ev 3)
info "ev dirty before reboot: $dirty"
if reboot_like ev; then
	check ev-cached-after-reboot sh -c "dmsetup table ev | grep -q ' fcache .* 4 writeback .*sequential_cutoff 256'"
	check pool-tunable-after-reboot sh -c "dmsetup table p0 | grep -q 'writeback_jobs 16'"
	same /dev/mapper/ev "$L/E" 0 && pass ev-data-after-reboot || fail ev-data-after-reboot
	check ev-flush "$CTL" flush ev
	same "$d2" "$L/E" 0 && pass ev-origin-holds-data || fail ev-origin-holds-data
	same "$LV" "$L/C" $((blk - 8)) && pass lv-data-after-last-reboot || fail lv-data-after-last-reboot
fi
info "config at the end:"
sed 's/^/#   /' "$CONF"

lvmq vgchange -an vg
"$CTL" down >/dev/null 2>&1
dmesg_clean
finish
