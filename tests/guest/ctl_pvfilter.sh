#!/bin/sh
# Issue 35, items 9 and 12 in the guest, on real devices (short):
# - pool create -c FILE records the pool's line (the devices, tunables and
#   block size of its live table); pool create --no-persist records nothing;
# - enable of a disk carrying an LVM PV (pvcreate) while LVM's filter lets
#   it see the raw PV is refused (exit 1, the exact global_filter line,
#   nothing created, nothing recorded); with that line in lvm.conf it is
#   cached and LVM sees the VG once, on the cached device, and reads the
#   data written through it; --force caches a second PV despite the filter
#   (warned).
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
CONF=$L/fcache.conf

load_fcache || die "cannot load dm-fcache"
flash=$(mk_brd_flash 64) || die "mk_brd_flash failed"
pv=$(mk_fast_disk 64) || die "mk_fast_disk pv"
pv2=$(mk_fast_disk 64) || die "mk_fast_disk pv2"
export LVM_SYSTEM_DIR=$L/lvm
lvmconf() { lvm_conf "$1"; }
lvmq() { lvm "$@" >>"$L/lvm.log" 2>&1; }
lvmconf ""

# ---- item 9: pool create records into -c FILE, not with --no-persist
check pool-create-records "$CTL" pool create p0 "$flash" writeback_high=90 -c "$CONF"
check pool-line-from-live-table sh -c "grep -q '^pool p0 .* writeback_high=90 block_size=32K\$' '$CONF'"
check pool-remove "$CTL" pool remove p0 -c "$CONF"
check_fails pool-remove-took-the-line grep -q '^pool p0 ' "$CONF"
check pool-create-no-persist "$CTL" pool create p0 "$flash" --no-persist -c "$CONF"
check_fails no-persist-records-nothing grep -q '^pool p0 ' "$CONF"

# ---- item 12: a PV LVM would see twice
lvmq pvcreate -y "$pv" || die "pvcreate: $(tail -n 3 "$L/lvm.log")"
lvmq vgcreate vg "$pv" || die "vgcreate: $(tail -n 3 "$L/lvm.log")"
lvmq lvcreate -y -W n -Z n -L 16M -n lv vg || die "lvcreate: $(tail -n 3 "$L/lvm.log")"
dd if=/dev/urandom of="$L/pat" bs=64k count=4 2>/dev/null
lvmq vgchange -an vg
if "$CTL" enable "$pv" --pool p0 --name pvc -c "$CONF" >"$L/en1.out" 2>&1; then
	fail enable-pv-unfiltered-refused "$(cat "$L/en1.out")"
else
	pass enable-pv-unfiltered-refused
fi
line="devices { global_filter = [ \"a|^/dev/mapper/pvc\$|\", \"r|^$pv\$|\""
check enable-pv-prints-the-filter-line grep -qF -- "$line" "$L/en1.out"
check_fails enable-pv-refused-created-nothing test -e /dev/mapper/pvc
check_fails enable-pv-refused-recorded-nothing grep -q "^volume p0 $pv " "$CONF"
# the line it gave, in lvm.conf: taken, and LVM sees the VG once, cached
lvmconf "global_filter = [ \"a|^/dev/mapper/pvc\$|\", \"r|^$pv\$|\" ]"
check enable-pv-filtered "$CTL" enable "$pv" --pool p0 --name pvc -c "$CONF"
lvmq pvscan --cache 2>/dev/null
lvm pvs --noheadings -o pv_name 2>>"$L/lvm.log" >"$L/pvs.out"
check lvm-sees-the-cached-pv-only sh -c "[ \"\$(tr -d ' ' <'$L/pvs.out')\" = /dev/mapper/pvc ]"
if lvmq vgchange -ay vg && [ -b /dev/mapper/vg-lv ]; then
	pass vgchange-ay-on-the-cached-pv
	dd if="$L/pat" of=/dev/mapper/vg-lv bs=64k oflag=direct conv=fsync 2>/dev/null
	dd if=/dev/mapper/vg-lv of="$L/rd" bs=64k count=4 iflag=direct 2>/dev/null
	check lv-reads-back cmp -s "$L/pat" "$L/rd"
	lvmq vgchange -an vg
else
	fail vgchange-ay-on-the-cached-pv "$(tail -n 3 "$L/lvm.log")"
fi
# --force: a second PV the filter does not hide, cached with a warning
lvmq pvcreate -y "$pv2"
if "$CTL" enable "$pv2" --pool p0 --name pv2c --force --no-persist >"$L/en2.out" 2>&1; then
	pass enable-pv-force
else
	fail enable-pv-force "$(cat "$L/en2.out")"
fi
check enable-pv-force-warns grep -q 'warning: .*LVM PV signature' "$L/en2.out"
"$CTL" disable /dev/mapper/pv2c --no-persist >/dev/null 2>&1
"$CTL" disable /dev/mapper/pvc -c "$CONF" >"$L/dis.out" 2>&1 || fail disable-pvc "$(cat "$L/dis.out")"
"$CTL" pool remove p0 --no-persist >/dev/null 2>&1
dmesg_clean
finish
