#!/bin/sh
# In-place enable/disable of a device-mapper volume carrying a mounted ext4
# while a writer runs: the device keeps its name and number, the filesystem
# keeps running, every file checks out afterwards.  Also: SIGINT during a
# disable leaves the volume cached in its original mode; --no-flush refused
# for an in-place volume with dirty data.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
L=$FC_LOGDIR

load_fcache || die "cannot load dm-fcache"
flash=$(mk_brd_flash 128) || die "mk_brd_flash failed"
under=$(mk_fast_disk 160) || die "mk_fast_disk failed"
dm_create lv0 "0 $(( $(dev_sectors "$under") - 2048 )) linear $under 2048" || die "dm-linear lv0"
"$CTL" pool create p0 "$flash" >/dev/null || die "pool create"
mkfs.ext4 -q -F -E nodiscard /dev/mapper/lv0 >/dev/null 2>&1 || die "mkfs"
mkdir -p /mnt/lv
mount /dev/mapper/lv0 /mnt/lv || die "mount"
devno() { stat -L -c %t:%T /dev/mapper/lv0; }
before=$(devno)

# writer: files of random data, their checksums logged after each is written
: >"$L/sums"
writer() {
	i=0
	while [ ! -e "$L/stop" ]; do
		dd if=/dev/urandom of=/mnt/lv/f$i bs=16k count=8 2>/dev/null
		(cd /mnt/lv && md5sum f$i) >>"$L/sums"
		i=$((i + 1))
		[ $((i % 8)) -eq 0 ] && sync
	done
}
writer &
wpid=$!
sleep 1

if "$CTL" enable /dev/mapper/lv0 --pool p0 >"$L/en.out" 2>"$L/en.err"; then pass enable-in-place; else fail enable-in-place "$(cat "$L/en.err")"; fi
grep -qx /dev/mapper/lv0 "$L/en.out" && pass enable-in-place-prints-same-device || fail enable-in-place-prints-same-device "$(cat "$L/en.out")"
[ "$(devno)" = "$before" ] && pass enable-keeps-device-number || fail enable-keeps-device-number "$before -> $(devno)"
check table-is-fcache sh -c "dmsetup table lv0 | grep -q ' fcache '"
check hidden-origin-exists sh -c "dmsetup table lv0-fcorig | grep -q ' linear '"
check still-mounted sh -c "grep -q ' /mnt/lv ' /proc/mounts"
check_fails enable-in-place-again "$CTL" enable /dev/mapper/lv0 --pool p0
check_fails enable-hidden-origin "$CTL" enable /dev/mapper/lv0-fcorig --pool p0
check_fails enable-in-place-rename-refused "$CTL" enable /dev/mapper/lv0 --pool p0 --name other
check status-shows-in-place sh -c "'$CTL' status --json lv0 | python3 -c 'import json,sys; d=json.load(sys.stdin); v=d[\"pools\"][0][\"volumes\"][0]; assert v[\"in_place\"] and v[\"name\"]==\"lv0\"'"
sleep 1
n1=$(wc -l <"$L/sums")
sleep 2
n2=$(wc -l <"$L/sums")
[ "$n2" -gt "$n1" ] && pass writer-keeps-running-on-cache || fail writer-keeps-running-on-cache "$n1 -> $n2"
w=$(status_field lv0 6)
[ "${w:-0}" -gt 0 ] && pass writes-go-through-cache || fail writes-go-through-cache "writes=$w"

if "$CTL" disable /dev/mapper/lv0 >"$L/dis.out" 2>"$L/dis.err"; then pass disable-in-place; else fail disable-in-place "$(tail -c 300 "$L/dis.err")"; fi
[ "$(devno)" = "$before" ] && pass disable-keeps-device-number || fail disable-keeps-device-number
check table-back-to-linear sh -c "dmsetup table lv0 | grep -q ' linear '"
check_fails hidden-origin-removed dmsetup info lv0-fcorig
check still-mounted-after-disable sh -c "grep -q ' /mnt/lv ' /proc/mounts"
sleep 1
touch "$L/stop"
wait $wpid
sync
n=$(wc -l <"$L/sums")
info "writer wrote $n files"
[ "$n" -gt 10 ] && pass writer-wrote-files || fail writer-wrote-files "$n"
if (cd /mnt/lv && md5sum -c --quiet "$L/sums") >"$L/md5.out" 2>&1; then pass files-intact-mounted; else fail files-intact-mounted "$(head -n 3 "$L/md5.out" | tr '\n' ' ')"; fi
umount /mnt/lv
echo 3 >/proc/sys/vm/drop_caches
check fsck-clean fsck.ext4 -n -f /dev/mapper/lv0
mount -o ro /dev/mapper/lv0 /mnt/lv
if (cd /mnt/lv && md5sum -c --quiet "$L/sums") >"$L/md5.out" 2>&1; then pass files-intact-after-remount; else fail files-intact-after-remount "$(head -n 3 "$L/md5.out" | tr '\n' ' ')"; fi
umount /mnt/lv

# copy_fast DEV: DEV copied whole to a fast disk in 1 MiB reads, printed,
# for fio_verify (a slow spindle serves the 3000 random 4 KiB reads of a
# verify in 16 s, the copy in one)
cpfast=$(mk_fast_disk 64) || die "mk_fast_disk failed"
copy_fast() { dd if="$1" of="$cpfast" bs=1M iflag=direct oflag=direct status=none && echo "$cpfast"; }

# SIGINT during disable: volume stays cached, original mode restored
spin=$(mk_spindles 1 64) || die "mk_spindles"
dm_create slow0 "0 $(dev_sectors "$spin") linear $spin 0" || die "dm-linear slow0"
"$CTL" set p0 writeback_jobs=1 >/dev/null 2>&1
"$CTL" enable /dev/mapper/slow0 --pool p0 >/dev/null 2>&1 || fail enable-slow
check write-dirty-slow fio_verify /dev/mapper/slow0 --rw=randwrite --bs=4k --size=24M --iodepth=16 --number_ios=3000
d=$(status_field slow0 3)
info "dirty on slow0: $d"
# in-place volume with dirty data: --no-flush would expose a stale origin
[ "${d:-0}" -gt 0 ] && pass dirty-on-slow-volume || fail dirty-on-slow-volume "dirty=$d"
if "$CTL" disable slow0 --no-flush >/dev/null 2>"$L/nf.err"; then fail no-flush-refused-with-dirty
else pass no-flush-refused-with-dirty; fi
check no-flush-left-cache sh -c "dmsetup table slow0 | grep -q ' fcache .* writeback'"
"$CTL" disable slow0 >"$L/int.out" 2>"$L/int.err" &
dpid=$!
sleep 2
kill -INT $dpid
wait $dpid
r=$?
if [ $r -eq 1 ] && grep -q interrupted "$L/int.err"; then pass disable-interrupted-exits-1
elif [ $r -eq 0 ]; then info "disable finished before SIGINT (dirty was $d)"; pass disable-interrupted-exits-1
else fail disable-interrupted-exits-1 "rc $r $(tail -c 200 "$L/int.err")"; fi
if [ $r -ne 0 ]; then
	check interrupted-still-cached-writeback sh -c "dmsetup table slow0 | grep -q ' fcache .* writeback'"
	check interrupted-origin-still-hidden dmsetup info slow0-fcorig
	check interrupted-data-intact fio_verify /dev/mapper/slow0 --rw=randwrite --bs=4k --size=24M --iodepth=16 --number_ios=3000 --verify_only=1
	"$CTL" set p0 writeback_jobs=32 >/dev/null 2>&1
	check disable-after-interrupt "$CTL" disable slow0
fi
check slow-origin-intact fio_verify "$(copy_fast /dev/mapper/slow0)" --rw=randwrite --bs=4k --size=24M --iodepth=16 --number_ios=3000 --verify_only=1

# Disable while a database keeps rewriting its hot pages: passthrough sends
# a write touching dirty data to the flash, so a block rewritten while its
# copy to the origin is in flight is dirty again when the flush returns.
# It must reach the origin before the cache leaves the path (it did not:
# the origin kept the older data, and only 'forget' noticed, as a warning).
spin=$(mk_spindles 1 64) || die "mk_spindles"
dm_create slow1 "0 $(dev_sectors "$spin") linear $spin 0" || die "dm-linear slow1"
"$CTL" set p0 writeback_jobs=4 >/dev/null 2>&1
"$CTL" enable /dev/mapper/slow1 --pool p0 >/dev/null 2>&1 || fail enable-slow1
check write-dirty-slow1 fio_verify /dev/mapper/slow1 --rw=randwrite --bs=4k --offset=16M --size=24M \
	--iodepth=16 --number_ios=3000
RW=$FC_TOP/tests/guest/fc_rewrite.py
rm -f "$L/rwstop"
python3 "$RW" write /dev/mapper/slow1 "$L/rwstop" 65536 64 >"$L/rw.out" 2>&1 &
rwpid=$!
poll_until 600 grep -q "first round" "$L/rw.out" || fail rewriter-started "$(cat "$L/rw.out")"
info "dirty on slow1 before disable: $(status_field slow1 3)"
if "$CTL" disable slow1 >"$L/rwdis.out" 2>"$L/rwdis.err"; then pass disable-under-rewrites
else fail disable-under-rewrites "$(tail -c 300 "$L/rwdis.err")"; fi
touch "$L/rwstop"
wait $rwpid
rounds=$(awk '/^rounds/ { print $2 }' "$L/rw.out")
info "rewriter: ${rounds:-none} rounds of 64 blocks; disable said: $(tr '\n' ' ' <"$L/rwdis.err" | tail -c 300)"
check rewriter-ran test "${rounds:-0}" -gt 1
check disable-under-rewrites-released sh -c "! grep -q 'did not release' '$L/rwdis.err'"
check table-back-to-linear-slow1 sh -c "dmsetup table slow1 | grep -q ' linear '"
check rewritten-blocks-on-origin python3 "$RW" check "$spin" "${rounds:-0}" 65536 64
check fill-on-origin-slow1 fio_verify "$(copy_fast "$spin")" --rw=randwrite --bs=4k --offset=16M --size=24M \
	--iodepth=16 --number_ios=3000 --verify_only=1
check pool-remove "$CTL" pool remove p0
check check-clean "$CTL" check "$flash"
dmesg_clean
finish
