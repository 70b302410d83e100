#!/bin/sh
# dm-fcache lifecycle: pool and volumes in every mode, status field counts,
# table round trip, messages, suspend/resume, reload with a mode change,
# remove, rmmod; a flash device holding other data is refused; 9 volumes on
# one pool.
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod $FC_KO failed" module-load
pass module-load

flash=$(mk_fast_disk 256) || die "mk_fast_disk failed"
o1=$(mk_fast_disk 64) && o2=$(mk_fast_disk 64) && o3=$(mk_fast_disk 64) &&
	o4=$(mk_fast_disk 64) || die "origins"

# --- a flash device holding other data is refused; zeroed it is formatted ---
dd if=/dev/urandom of="$flash" bs=4096 count=1 oflag=direct 2>/dev/null
check_fails refuse-nonzero-flash fc_pool fcpool "$flash" 64
dmsetup remove fcpool 2>/dev/null
dd if=/dev/zero of="$flash" bs=4096 count=1 oflag=direct 2>/dev/null

fsz=$(dev_sectors "$flash")
fmm=$(majmin "$flash")
check pool-create fc_pool fcpool "$flash" 64 writeback_high 70 writeback_low 20 commit_interval 500
[ -b /dev/mapper/fcpool ] || die "no pool device"
check pool-table-roundtrip test "$(dmsetup table fcpool)" = \
	"0 $fsz fcache-pool $fmm 64 6 writeback_high 70 writeback_low 20 commit_interval 500"
check pool-status-23-fields test "$(status_nf fcpool)" -eq 23
field_is pool-nothing-unwritable /dev/mapper/fcpool 19 -eq 0
field_is pool-flushes-ok /dev/mapper/fcpool 20 = ok
field_is pool-block-sectors /dev/mapper/fcpool $P_BLOCK_SECTORS = 64
field_is pool-md-rw /dev/mapper/fcpool $P_MDMODE = rw
field_is pool-no-needs-check /dev/mapper/fcpool $P_NEEDS_CHECK = 0
field_is pool-total-blocks /dev/mapper/fcpool $P_TOTAL -gt 0
field_is pool-empty /dev/mapper/fcpool $P_USED -eq 0
check pool-io-refused sh -c "! dd if=/dev/mapper/fcpool of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null"

# --- one volume per mode ---
i=1
for m in writeback writethrough writearound passthrough; do
	eval "o=\$o$i"
	osz=$(dev_sectors "$o")
	omm=$(majmin "$o")
	pmm=$(majmin /dev/mapper/fcpool)
	if [ $i -eq 1 ]; then
		check vol-$m-create fc_vol v$i fcpool "$o" $i $m sequential_cutoff 256 label db$i
		want="0 $osz fcache $pmm $omm $i $m 4 sequential_cutoff 256 label db$i"
	else
		check vol-$m-create dm_create v$i "0 $osz fcache $pmm $omm $i $m 2 sequential_cutoff 0"
		want="0 $osz fcache $pmm $omm $i $m 2 sequential_cutoff 0"
	fi
	check vol-$m-table-roundtrip test "$(dmsetup table v$i)" = "$want"
	check vol-$m-status-13-fields test "$(status_nf v$i)" -eq 13
	field_is vol-$m-mode /dev/mapper/v$i $V_MODE = $m
	field_is vol-$m-id /dev/mapper/v$i $V_ID = $i
	# the 4 KiB sub-block is the volume's read-modify-write unit (a write
	# covering part of one it does not hold reads the rest from the origin)
	q=/sys/block/$(dmsetup info -c --noheadings -o blkdevname v$i)/queue
	check vol-$m-physical-block-4k test "$(cat $q/physical_block_size)" -eq 4096
	check vol-$m-io-min-subblock test $(($(cat $q/minimum_io_size) % 4096)) -eq 0
	check vol-$m-logical-block-kept test "$(cat $q/logical_block_size)" -eq "$(blockdev --getss "$o")"
	# data through the volume, read back through it twice in 16k reads
	# (a read miss is promoted on its second touch)
	pattern_file /tmp/p$i 1024 "lc$i" || die "pattern"
	dd if=/tmp/p$i of=/dev/mapper/v$i bs=64k oflag=direct conv=fsync 2>/dev/null
	dd if=/dev/mapper/v$i of=/tmp/r$i bs=16k count=64 iflag=direct 2>/dev/null
	dd if=/dev/mapper/v$i of=/tmp/r$i bs=16k count=64 iflag=direct 2>/dev/null
	check vol-$m-readback cmp /tmp/p$i /tmp/r$i
	field_is vol-$m-writes-counted /dev/mapper/v$i $V_WRITES -gt 0
	field_is vol-$m-reads-counted /dev/mapper/v$i $V_READS -gt 0
	i=$((i + 1))
done
field_is pool-4-active /dev/mapper/fcpool $P_ACTIVE -eq 4
field_is pool-4-registered /dev/mapper/fcpool $P_REGISTERED -eq 4
field_is pool-used-after-io /dev/mapper/fcpool $P_USED -gt 0
field_is wt-cached /dev/mapper/v2 $V_CACHED -gt 0
field_is wt-never-dirty /dev/mapper/v2 $V_DIRTY -eq 0
field_is pt-nothing-cached /dev/mapper/v4 $V_CACHED -eq 0
check wt-origin-exact sh -c "dd if=$o2 bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/p2"

# --- messages ---
check msg-pool-flush dmsetup message fcpool 0 flush
field_is pool-clean-after-flush /dev/mapper/fcpool $P_DIRTY -eq 0
field_is wb-clean-after-flush /dev/mapper/v1 $V_DIRTY -eq 0
check wb-origin-exact-after-flush sh -c "dd if=$o1 bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/p1"
check msg-vol-flush dmsetup message v1 0 flush
check msg-vol-clear-stats dmsetup message v1 0 clear_stats
field_is vol-reads-cleared /dev/mapper/v1 $V_READS -eq 0
field_is vol-writes-cleared /dev/mapper/v1 $V_WRITES -eq 0
check msg-pool-clear-stats dmsetup message fcpool 0 clear_stats
field_is pool-clear-stats-volumes /dev/mapper/v2 $V_READS -eq 0
check msg-pool-tunable dmsetup message fcpool 0 writeback_high 60
check msg-pool-tunable-in-table sh -c "dmsetup table fcpool | grep -q 'writeback_high 60'"
check msg-pool-max-dirty-age dmsetup message fcpool 0 max_dirty_age 30
check msg-pool-writeback-jobs dmsetup message fcpool 0 writeback_jobs 8
check msg-vol-seq-cutoff dmsetup message v1 0 sequential_cutoff 128
check msg-vol-seq-cutoff-in-table sh -c "dmsetup table v1 | grep -q 'sequential_cutoff 128'"
check_fails msg-pool-bad-value dmsetup message fcpool 0 writeback_high 101
check_fails msg-pool-low-above-high dmsetup message fcpool 0 writeback_low 90
check_fails msg-pool-unknown dmsetup message fcpool 0 frobnicate
check_fails msg-vol-unknown dmsetup message v1 0 frobnicate
check_fails msg-vol-flush-extra-arg dmsetup message v1 0 flush now
check_fails msg-forget-active dmsetup message fcpool 0 forget 1

# --- dirty data, suspend/resume, reload with a mode change ---
pattern_file /tmp/q1 512 "lcq1" || die "pattern"
dd if=/tmp/q1 of=/dev/mapper/v1 bs=32k oflag=direct 2>/dev/null
check vol-suspend dmsetup suspend v1
field_is vol-suspended-status-ok /dev/mapper/v1 $V_MODE = writeback
check vol-resume dmsetup resume v1
check vol-readback-after-resume sh -c "dd if=/dev/mapper/v1 bs=32k count=16 iflag=direct 2>/dev/null | cmp - /tmp/q1"
check pool-suspend dmsetup suspend fcpool
check pool-resume dmsetup resume fcpool
dd if=/tmp/q1 of=/dev/mapper/v1 bs=32k oflag=direct 2>/dev/null
osz=$(dev_sectors "$o1")
info "before the mode change: $(dmsetup status v1)"
check reload-to-writethrough dm_reload v1 "0 $osz fcache $(majmin /dev/mapper/fcpool) $(majmin "$o1") 1 writethrough"
check reload-suspend dmsetup suspend v1
check reload-resume dmsetup resume v1
field_is reload-mode-changed /dev/mapper/v1 $V_MODE = writethrough
# Leaving writeback does not write back inside the suspend (fc_modechange.sh):
# the dirty data stays cached and is served from the flash until a flush.
check reload-table-roundtrip test "$(dmsetup table v1)" = "0 $osz fcache $(majmin /dev/mapper/fcpool) $(majmin "$o1") 1 writethrough"
check reload-data-intact sh -c "dd if=/dev/mapper/v1 bs=32k count=16 iflag=direct 2>/dev/null | cmp - /tmp/q1"
check reload-flush dmsetup message v1 0 flush
field_is reload-clean /dev/mapper/v1 $V_DIRTY -eq 0
check reload-origin-exact sh -c "dd if=$o1 bs=32k count=16 iflag=direct 2>/dev/null | cmp - /tmp/q1"
check reload-to-passthrough dm_reload v1 "0 $osz fcache $(majmin /dev/mapper/fcpool) $(majmin "$o1") 1 passthrough"
dmsetup suspend v1 && dmsetup resume v1
field_is reload-mode-passthrough /dev/mapper/v1 $V_MODE = passthrough
check passthrough-data-intact sh -c "dd if=/dev/mapper/v1 bs=32k count=16 iflag=direct 2>/dev/null | cmp - /tmp/q1"
# back to writeback after passthrough, under random verified I/O
check reload-to-writeback dm_reload v1 "0 $osz fcache $(majmin /dev/mapper/fcpool) $(majmin "$o1") 1 writeback"
dmsetup suspend v1 && dmsetup resume v1
field_is reload-mode-writeback /dev/mapper/v1 $V_MODE = writeback
check writeback-after-passthrough-fio fio_verify /dev/mapper/v1 --rw=randrw --bsrange=512-64k --size=8M
check writeback-after-passthrough-flush dmsetup message v1 0 flush

# --- rmmod refused while in use; remove everything; rmmod ---
check_fails rmmod-busy rmmod dm_fcache
for i in 1 2 3 4; do check vol-remove-$i dm_remove v$i; done
field_is pool-0-active /dev/mapper/fcpool $P_ACTIVE -eq 0
field_is pool-still-registered /dev/mapper/fcpool $P_REGISTERED -eq 4
check msg-forget dmsetup message fcpool 0 forget 4
field_is pool-forgotten /dev/mapper/fcpool $P_REGISTERED -eq 3
check_fails msg-forget-unknown dmsetup message fcpool 0 forget 77
check pool-remove dm_remove fcpool
check rmmod unload_fcache
check_fails module-gone grep -q '^dm_fcache ' /proc/modules

# --- 9 volumes on one pool, after a reload of the module and pool ---
check reload-module load_fcache
check pool-reopen fc_pool fcpool "$flash" 64
field_is pool-reopen-registered /dev/mapper/fcpool $P_REGISTERED -eq 3
ok=0
n=9
j=1
while [ $j -le $n ]; do
	od=$(mk_fast_disk 32) || break
	fc_vol m$j fcpool "$od" $((100 + j)) writeback || break
	pattern_file /tmp/m$j 256 "many$j" &&
		dd if=/tmp/m$j of=/dev/mapper/m$j bs=16k oflag=direct 2>/dev/null &&
		ok=$((ok + 1))
	j=$((j + 1))
done
check many-volumes-created test $ok -eq $n
field_is many-active /dev/mapper/fcpool $P_ACTIVE -eq $n
field_is many-registered /dev/mapper/fcpool $P_REGISTERED -eq $((n + 3))
bad=0
j=1
while [ $j -le $n ]; do
	dd if=/dev/mapper/m$j bs=16k count=16 iflag=direct 2>/dev/null | cmp -s - /tmp/m$j || bad=$((bad + 1))
	j=$((j + 1))
done
check many-volumes-data test $bad -eq 0
check many-discard blkdiscard /dev/mapper/m1
check many-flush dmsetup message fcpool 0 flush
field_is many-clean /dev/mapper/fcpool $P_DIRTY -eq 0
j=1
while [ $j -le $n ]; do dm_remove m$j; j=$((j + 1)); done
check many-pool-remove dm_remove fcpool
check many-rmmod unload_fcache
dmesg_clean
finish
