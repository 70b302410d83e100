#!/bin/sh
# Issue 35 in the guest, what the host cannot do without device-mapper:
# set refuses a pair the kernel would refuse half-way (writeback_jobs=8
# writeback_high=40 over the default low 50) before it changes anything
# (the live writeback_jobs and the config stay), takes pairs in an order
# the kernel takes (raising and lowering writeback_low/high together) and a
# volume's cutoff survives its mode switch in one set; pool remove takes
# the pool's line out of the config (with no dirty data) and keeps it
# (saying so) with dirty data; an unassembled pool holding dirty data is
# marked by udev-probe without a config line (FCACHE_UNLISTED), is refused
# by wipe (and wipe refuses the flash of an active pool), and what wipefs,
# pvcreate, mkfs.ext4 and mkswap do to copies of it (wipefs: nothing;
# pvcreate: the superblocks overwritten, check damaged, pool create refuses;
# mkfs.ext4 discards: no pool left; mkswap: check damaged, the kernel
# refuses the pool) is what docs/FCACHECTL.md says; wipe
# --force-dirty erases it (check: not a pool, udev-probe marks nothing,
# pool create formats it); bench run under setsid stops cleanly on SIGHUP.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR
C=$L/safety.conf
BS=32768

load_fcache || die "cannot load dm-fcache"
set -- $(mk_brd_flash 64 5) || die "mk_brd_flash failed"
fl=$1 fl1=$2 fl2=$3 fl3=$4 fl4=$5
d1=$(mk_fast_disk 64) || die "mk_fast_disk failed"
k1=$(basename "$d1")
: >"$C"

rc() {	# rc NAME WANT CMD...: exit status, output in $L/rc.out / $L/rc.err
	_n=$1 _w=$2; shift 2
	"$@" >"$L/rc.out" 2>"$L/rc.err"
	_g=$?
	if [ "$_g" -eq "$_w" ]; then pass "$_n"; else fail "$_n" "exit $_g, wanted $_w: $(head -c 300 "$L/rc.err")"; fi
}
err_has() { if grep -q -- "$2" "$L/rc.err"; then pass "$1"; else fail "$1" "$(head -c 400 "$L/rc.err")"; fi; }
getv() { "$CTL" get "$1" "$2" 2>/dev/null; }
is() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', wanted '$3'"; fi; }

# ---- set (item 7)
rc pool-create 0 "$CTL" pool create p0 "$fl"
rc enable 0 "$CTL" enable "$d1" --pool p0 -c "$C"
jobs0=$(getv p0 writeback_jobs)
line0=$(grep '^pool p0 ' "$C")
rc set-half-way-refused-whole 2 "$CTL" set p0 writeback_jobs=8 writeback_high=40 -c "$C"
err_has set-half-way-reason "writeback_low must not exceed writeback_high (writeback_low 50, the default; writeback_high 40)"
is set-half-way-live-unchanged "$(getv p0 writeback_jobs)" "$jobs0"
is set-half-way-config-unchanged "$(grep '^pool p0 ' "$C")" "$line0"
rc set-raise-both 0 "$CTL" set p0 writeback_low=95 writeback_high=99 -c "$C"
is set-raise-both-live "$(getv p0 writeback_low) $(getv p0 writeback_high)" "95 99"
rc set-lower-both 0 "$CTL" set p0 writeback_high=20 writeback_low=10 -c "$C"
is set-lower-both-live "$(getv p0 writeback_low) $(getv p0 writeback_high)" "10 20"
grep -q '^pool p0 .*writeback_low=10' "$C" && grep -q '^pool p0 .*writeback_high=20' "$C" &&
	pass set-lower-both-recorded || fail set-lower-both-recorded "$(cat "$C")"
rc set-volume-mode-and-cutoff 0 "$CTL" set "fc-$k1" mode=writethrough sequential_cutoff=512 -c "$C"
is set-volume-both-live "$(getv "fc-$k1" mode) $(getv "fc-$k1" sequential_cutoff)" "writethrough 512"
rc set-volume-back 0 "$CTL" set "fc-$k1" mode=writeback -c "$C"
is set-volume-cutoff-kept "$(getv "fc-$k1" sequential_cutoff)" "512"

# ---- pool remove and the config line (item 3)
rc disable 0 "$CTL" disable "fc-$k1" -c "$C"
rc remove-clean 0 "$CTL" pool remove p0 -c "$C"
grep -q '^pool p0 ' "$C" && fail remove-clean-line-gone "$(cat "$C")" || pass remove-clean-line-gone
rc remove-up-dry-run-empty 0 "$CTL" up --dry-run -c "$C"
[ ! -s "$L/rc.out" ] && pass remove-up-assembles-nothing || fail remove-up-assembles-nothing "$(cat "$L/rc.out")"
# dirty data: the line stays, said
rc pool-create-again 0 "$CTL" pool create p0 "$fl"
rc enable-again 0 "$CTL" enable "$d1" --pool p0 -c "$C"
dd if=/dev/urandom of="$L/pat" bs=$BS count=8 2>/dev/null
dd if="$L/pat" of="/dev/mapper/fc-$k1" bs=$BS count=8 oflag=direct conv=fsync 2>/dev/null
rc disable-no-flush 0 "$CTL" disable "fc-$k1" --no-flush -c "$C"
rc remove-dirty 0 "$CTL" pool remove p0 -c "$C"
err_has remove-dirty-says-why "pool p0 holds dirty data: its line stays in $C"
grep -q '^pool p0 ' "$C" && pass remove-dirty-line-kept || fail remove-dirty-line-kept "$(cat "$C")"

# ---- an unassembled pool with dirty data (item 4)
for x in "$fl1" "$fl2" "$fl3" "$fl4"; do dd if="$fl" of="$x" bs=1M count=64 2>/dev/null; done
rc udev-unlisted 0 "$CTL" udev-probe "$fl" -c "$L/none.conf"
grep -qx FCACHE_FLASH=1 "$L/rc.out" && grep -qx FCACHE_UNLISTED=1 "$L/rc.out" &&
	pass udev-unlisted-pool-marked || fail udev-unlisted-pool-marked "$(cat "$L/rc.out")"
rc wipe-dirty-refused 1 "$CTL" wipe "$fl" --no-persist
err_has wipe-dirty-says "dirty blocks that the origins of its volumes do not have; nothing changed"
rc wipe-dirty-left-alone 0 "$CTL" check "$fl"
rc pool-create-active 0 "$CTL" pool create p0 "$fl"
rc wipe-active-refused 1 "$CTL" wipe "$fl" --force-dirty --no-persist
err_has wipe-active-names-pool "is a flash device of pool p0, which is active"
rc pool-remove-active 0 "$CTL" pool remove p0 --no-persist
# other tools on copies of it: they do not know it
wipefs -a "$fl1" >"$L/wipefs.out" 2>&1
rc wipefs-leaves-the-pool 0 "$CTL" check "$fl1"
if command -v pvcreate >/dev/null 2>&1; then
	export LVM_SYSTEM_DIR=$L/lvm
	mkdir -p "$LVM_SYSTEM_DIR" /run/lvm /run/lock/lvm
	printf 'devices {\n obtain_device_list_from_udev = 0\n external_device_info_source = "none"\n use_devicesfile = 0\n}\nactivation {\n udev_sync = 0\n udev_rules = 0\n monitoring = 0\n}\nglobal {\n use_lvmpolld = 0\n event_activation = 0\n}\nbackup {\n backup = 0\n archive = 0\n}\n' >"$LVM_SYSTEM_DIR/lvm.conf"
	pvcreate "$fl2" </dev/null >"$L/pvcreate.out" 2>&1 && pass pvcreate-ran ||
		fail pvcreate-ran "$(tail -n 2 "$L/pvcreate.out")"
	if ! grep -qi "signature detected\|wipe it" "$L/pvcreate.out"; then
		pass pvcreate-no-warning
	else
		fail pvcreate-no-warning "$(head -c 300 "$L/pvcreate.out")"
	fi
	rc pvcreate-check-damaged 1 "$CTL" check "$fl2"
	rc pvcreate-pool-create-refused 1 "$CTL" pool create p2 "$fl2"
	rc pvcreate-udev-not-marked 0 "$CTL" udev-probe "$fl2" -c "$L/none.conf"
	[ ! -s "$L/rc.out" ] && pass pvcreate-udev-nothing || fail pvcreate-udev-nothing "$(cat "$L/rc.out")"
fi
mkfs.ext4 -F "$fl3" >"$L/mkfs.out" 2>&1 && pass mkfs-ran || fail mkfs-ran "$(tail -n 2 "$L/mkfs.out")"
grep -qi "contains" "$L/mkfs.out" && fail mkfs-no-warning "$(cat "$L/mkfs.out")" || pass mkfs-no-warning
# no usable pool is left: none at all (a discarded device), or damaged metadata (brd has no discard)
"$CTL" check "$fl3" >"$L/rc.out" 2>&1
m=$?
[ $m -eq 1 ] || [ $m -eq 3 ] && pass mkfs-no-pool-left || fail mkfs-no-pool-left "check exit $m"
rc mkfs-pool-create-refused 1 "$CTL" pool create p3 "$fl3"
# mkswap: superblock slot 0 fails as a torn write would, slot 1 is the
# commit before the last; the kernel must not load it (it did), check says
# damaged, udev-probe leaves the device to swap (libblkid finds it)
mkswap "$fl4" >"$L/mkswap.out" 2>&1 && pass mkswap-ran || fail mkswap-ran "$(tail -n 2 "$L/mkswap.out")"
rc mkswap-check-damaged 1 "$CTL" check "$fl4"
grep -q "superblock slot 0 ends with mkswap's signature" "$L/rc.out" && pass mkswap-check-says-swap ||
	fail mkswap-check-says-swap "$(head -c 300 "$L/rc.out")"
rc mkswap-pool-create-refused 1 "$CTL" pool create p4 "$fl4"
dmesg >"$L/dmesg.before"
check_fails mkswap-kernel-refuses fc_pool p4 "$fl4" 64
dmesg | grep -v -F -x -f "$L/dmesg.before" | grep -q "fcache-pool: the flash device is a swap area" &&
	pass mkswap-kernel-says-why || fail mkswap-kernel-says-why "$(dmesg | tail -n 3 | tr '\n' ' ')"
check_fails mkswap-no-pool-device dmsetup info p4
rc mkswap-udev-not-marked 0 "$CTL" udev-probe "$fl4" -c "$L/none.conf"
[ ! -s "$L/rc.out" ] && pass mkswap-udev-nothing || fail mkswap-udev-nothing "$(cat "$L/rc.out")"
# wipe --force-dirty: no pool any more, anywhere
rc wipe-force-dirty 0 "$CTL" wipe "$fl" --force-dirty -c "$C"
rc wipe-check-not-a-pool 3 "$CTL" check "$fl"
grep -q '^pool p0 ' "$C" && fail wipe-config-line-gone "$(cat "$C")" || pass wipe-config-line-gone
rc wipe-udev-nothing 0 "$CTL" udev-probe "$fl" -c "$L/none.conf"
[ ! -s "$L/rc.out" ] && pass wipe-udev-marks-nothing || fail wipe-udev-marks-nothing "$(cat "$L/rc.out")"
rc wipe-pool-create-formats 0 "$CTL" -v pool create p0 "$fl"
err_has wipe-pool-create-formatted "pool p0: formatted $fl"
rc wipe-pool-remove 0 "$CTL" pool remove p0 --no-persist

# ---- bench run under setsid: SIGHUP mid-step (item 1)
d2=$(mk_fast_disk 64) || die "mk_fast_disk failed"
"$CTL" bench prepare "$d2" --force >/dev/null 2>&1 || fail bench-prepare
setsid "$CTL" bench run "$d2" --warmup 0.5 --time 3 --users 2,4,8 --report-interval 1 \
	--json "$L/hup.json" >"$L/hup.out" 2>"$L/hup.err" &
p=$!
sleep 5
kill -HUP $p
wait $p
is bench-sighup-exit "$?" 129
grep -q "run stopped by SIGHUP" "$L/hup.err" && grep -q '^integrity: ' "$L/hup.out" &&
	pass bench-sighup-report || fail bench-sighup-report "$(tail -n 2 "$L/hup.err")"
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["configs"][0]; assert "SIGHUP" in c["interrupted"] and c["steps"]' \
	"$L/hup.json" 2>/dev/null && pass bench-sighup-json || fail bench-sighup-json
rc bench-sighup-datafile-usable 0 "$CTL" bench run "$d2" --warmup 0 --time 1 --users 2 --quiet

dmesg_clean
finish
