#!/bin/sh
# dm-fcache: leaving writeback with dirty data never keeps the volume
# suspended for the writeback.  The origin is slow to write (dm-delay, 50 ms
# a write or flush) and writeback runs 2 copies at a time, so writing back
# the 256 dirty blocks takes ~7 s: inside a suspend that would stall every
# bio of the volume that long.
#  1. direct dmsetup reload to writethrough: suspend + resume is short; the
#     dirty data stays cached (served from the flash, kernel log says how to
#     write it back); `flush` then writes it back with I/O flowing; the
#     origin alone holds the data byte for byte.
#  2. fcachectl set VOL mode=writethrough (the documented path): a reader
#     running all along never waits 2 s or more; the command returns with
#     the volume clean; the origin alone holds the data byte for byte.
FC_T=fc_modechange
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl

load_fcache || die "insmod failed" module-load
modprobe dm-delay || die "no dm-delay"
flash=$(mk_fast_disk 128) && odisk=$(mk_fast_disk 64) && kdisk=$(mk_fast_disk 16) || die disks
osz=$(dev_sectors "$odisk")
dm_create slow "0 $osz delay $odisk 0 0 $odisk 0 50 $odisk 0 50" || die "dm-delay"
# No background writeback while the test sets things up: watermarks at 100,
# no age limit, and a keeper volume keeps the pool from looking idle.
check pool-create fc_pool mpool "$flash" 64 writeback_low 100 writeback_high 100 \
	max_dirty_age 0 writeback_jobs 2
check keeper-create fc_vol mk mpool "$kdisk" 9 passthrough
start_keeper /dev/mapper/mk
check vol-create fc_vol mv mpool /dev/mapper/slow 1 writeback sequential_cutoff 0
[ -b /dev/mapper/mv ] || finish
V=/dev/mapper/mv
table_in() {	# table_in MODE: the volume's table in MODE
	echo "0 $osz fcache $(majmin /dev/mapper/mpool) $(majmin /dev/mapper/slow) 1 $1 2 sequential_cutoff 0"
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# --- 1. direct reload with dirty data ---
pattern_file /tmp/m1 8192 || die pattern
dd if=/tmp/m1 of=$V bs=64k oflag=direct 2>/dev/null
field_is direct-dirty-before $V $V_DIRTY -ge 250
check direct-reload-writethrough dm_reload mv "$(table_in writethrough)"
t0=$(now_ms)
dmsetup suspend mv && dmsetup resume mv
t1=$(now_ms)
info "direct reload: suspended for $((t1 - t0)) ms"
check direct-suspend-under-2s test $((t1 - t0)) -lt 2000
field_is direct-mode-changed $V $V_MODE = writethrough
field_is direct-dirty-still-cached $V $V_DIRTY -gt 0
check direct-kernel-says-flush sh -c "dmesg | grep -q 'fcache: volume 1: .*dirty blocks.*flush'"
check direct-data-via-volume sh -c "dd if=$V bs=64k count=128 iflag=direct 2>/dev/null | cmp - /tmp/m1"
check direct-flush dmsetup message mv 0 flush
field_is direct-clean $V $V_DIRTY -eq 0
check direct-origin-exact sh -c "dd if=$odisk bs=64k count=128 iflag=direct 2>/dev/null | cmp - /tmp/m1"

# --- 2. fcachectl set mode= with a reader running ---
check back-to-writeback sh -c "$CTL set mv mode=writeback"
pattern_file /tmp/m2 8192 || die pattern
dd if=/tmp/m2 of=$V bs=64k oflag=direct 2>/dev/null
field_is ctl-dirty-before $V $V_DIRTY -ge 250
fio --name=probe --filename=$V --direct=1 --rw=randread --bs=4k --size=8M \
	--rate_iops=50 --time_based --runtime=120 --output-format=json \
	--output="$FC_LOGDIR/probe.json" >/dev/null 2>&1 &
probe=$!
sleep 2
t0=$(now_ms)
check ctl-set-writethrough "$CTL" set mv mode=writethrough
t1=$(now_ms)
sleep 1
kill -INT $probe
wait $probe
info "fcachectl set mode=writethrough took $((t1 - t0)) ms"
# fio puts "fio: terminating on signal 2" before the JSON
maxms=$(python3 -c "import json,sys; s=open(sys.argv[1]).read(); d=json.JSONDecoder().raw_decode(s[s.index('{'):])[0]; print(int(d['jobs'][0]['read']['clat_ns']['max'] / 1e6))" "$FC_LOGDIR/probe.json")
info "longest read during the mode change: ${maxms:-?} ms"
check ctl-reader-never-waited-2s test "${maxms:-99999}" -lt 2000
check ctl-reader-read sh -c "grep -q '\"total_ios\" : [1-9]' '$FC_LOGDIR/probe.json'"
field_is ctl-mode-changed $V $V_MODE = writethrough
field_is ctl-clean-on-return $V $V_DIRTY -eq 0
check ctl-origin-exact sh -c "dd if=$odisk bs=64k count=128 iflag=direct 2>/dev/null | cmp - /tmp/m2"

kill $keeper; wait $keeper 2>/dev/null
check vol-remove dm_remove mv
dm_remove mk
check pool-remove dm_remove mpool
dm_remove slow
check rmmod unload_fcache
dmesg_clean
finish
