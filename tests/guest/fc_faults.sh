#!/bin/sh
# dm-fcache faults: bad tables and messages are refused without an oops;
# origin size mismatch with dirty data is refused; errors under the origin
# (error target, dm-flakey) propagate and keep data dirty; errors under the
# flash: clean blocks are re-read from the origin, write errors are counted
# and never lose data silently, a failed metadata write turns the pool ro/fail
# with needs_check (whose writes and reads go on: tests/guest/fc_meta_ro.sh).
FC_T=fc_faults
. "$FC_TOP/tests/guest/lib.sh"

load_fcache || die "insmod failed" module-load
modprobe dm-flakey || die "no dm-flakey"
fdisk=$(mk_fast_disk 128) || die disks
fsz=$(dev_sectors "$fdisk")
for x in A B C D K; do
	d=$(mk_fast_disk 64) || die disks
	eval "disk$x=$d"
	dm_create "or$x" "0 $(dev_sectors "$d") linear $d 0" || die "linear or$x"
done
osz=$(dev_sectors "$diskA")
dm_create fflash "0 $fsz linear $fdisk 0" || die "linear fflash"

# dm_swap NAME TABLE: replace a live table
dm_swap() {
	dmsetup suspend "$1" && dm_reload "$1" "$2" && dmsetup resume "$1"
}
# tcreate NAME TABLE: dm_create that leaves nothing behind when refused
tcreate() {
	if dm_create "$@"; then return 0; fi
	dmsetup remove "$1" >/dev/null 2>&1
	return 1
}

# --- bad pool tables ---
F=/dev/mapper/fflash
check_fails bad-pool-no-args tcreate b "0 $fsz fcache-pool"
check_fails bad-pool-one-arg tcreate b "0 $fsz fcache-pool $F"
for bs in 0 4 12 100 4096 abc -64 64x; do
	check_fails bad-pool-block-size-$bs tcreate b "0 $fsz fcache-pool $F $bs"
done
check_fails bad-pool-odd-optcount tcreate b "0 $fsz fcache-pool $F 64 1 writeback_high"
check_fails bad-pool-optcount-mismatch tcreate b "0 $fsz fcache-pool $F 64 4 writeback_high 50"
check_fails bad-pool-optcount-text tcreate b "0 $fsz fcache-pool $F 64 x writeback_high 50"
check_fails bad-pool-unknown-opt tcreate b "0 $fsz fcache-pool $F 64 2 colour blue"
check_fails bad-pool-opt-range tcreate b "0 $fsz fcache-pool $F 64 2 writeback_high 0"
check_fails bad-pool-low-above-high tcreate b "0 $fsz fcache-pool $F 64 4 writeback_high 20 writeback_low 50"
check_fails bad-pool-missing-dev tcreate b "0 $fsz fcache-pool /dev/nonexistent 64"
check_fails bad-pool-short-target tcreate b "0 $((fsz / 2)) fcache-pool $F 64"
check_fails bad-pool-no-device-left sh -c "dmsetup info b >/dev/null 2>&1"

check pool-create fc_pool fpool "$F" 64 commit_interval 0
[ -b /dev/mapper/fpool ] || finish
check_fails bad-pool-same-flash-twice tcreate b2 "0 $fsz fcache-pool $F 64"
check_fails bad-pool-reload-other-bs sh -c "echo '0 $fsz fcache-pool $F 128' | dmsetup reload fpool"
dmsetup clear fpool >/dev/null 2>&1
# The pool target is singleton and immutable (as thin-pool): a live pool
# device cannot be reloaded with another target type, and a pool table
# cannot hold another target; the live pool keeps working.
check_fails pool-reload-linear-refused sh -c "echo '0 $fsz linear $F 0' | dmsetup reload fpool"
check pool-reload-linear-reason sh -c "dmesg | tail -n 5 | grep -q 'replace immutable target type fcache-pool'"
dmsetup clear fpool >/dev/null 2>&1
check_fails pool-reload-mixed-refused sh -c "printf '0 $fsz fcache-pool $F 64 2 commit_interval 0\\n$fsz 8 linear $diskK 0\\n' | dmsetup reload fpool"
dmsetup clear fpool >/dev/null 2>&1
check_fails pool-create-mixed-refused tcreate b "0 8 linear $diskK 0
8 $fsz fcache-pool $F 64"
check pool-create-mixed-reason sh -c "dmesg | tail -n 5 | grep -q 'singleton target type must appear alone'"
check pool-live-after-refusals sh -c "dmsetup table fpool | grep -q '^0 $fsz fcache-pool '"
P=/dev/mapper/fpool
OA=/dev/mapper/orA
pattern_file /tmp/pz 256 faultsZ
check pool-works-vol-create fc_vol vz fpool /dev/mapper/orC 20 writeback sequential_cutoff 0
check pool-works-write dd if=/tmp/pz of=/dev/mapper/vz bs=64k oflag=direct
check pool-works-read sh -c "dd if=/dev/mapper/vz bs=64k count=4 iflag=direct 2>/dev/null | cmp - /tmp/pz"
check pool-works-flush dmsetup message vz 0 flush
check pool-works-vol-remove dm_remove vz
check pool-works-forget dmsetup message fpool 0 forget 20

# --- bad volume tables ---
check_fails bad-vol-3-args tcreate b "0 $osz fcache $P $OA 1"
check_fails bad-vol-mode tcreate b "0 $osz fcache $P $OA 1 writefoo"
check_fails bad-vol-id-0 tcreate b "0 $osz fcache $P $OA 0 writeback"
check_fails bad-vol-id-text tcreate b "0 $osz fcache $P $OA one writeback"
check_fails bad-vol-id-huge tcreate b "0 $osz fcache $P $OA 4294967296 writeback"
check_fails bad-vol-missing-origin tcreate b "0 $osz fcache $P /dev/nonexistent 1 writeback"
check_fails bad-vol-missing-pool tcreate b "0 $osz fcache /dev/nonexistent $OA 1 writeback"
check_fails bad-vol-pool-not-dm tcreate b "0 $osz fcache $diskK $OA 1 writeback"
check_fails bad-vol-pool-not-fcache tcreate b "0 $osz fcache /dev/mapper/orK $OA 1 writeback"
check_fails bad-vol-origin-is-flash tcreate b "0 $osz fcache $P $F 1 writeback"
check_fails bad-vol-longer-than-origin tcreate b "0 $((osz * 2)) fcache $P $OA 1 writeback"
check_fails bad-vol-unknown-opt tcreate b "0 $osz fcache $P $OA 1 writeback 2 colour blue"
check_fails bad-vol-optcount tcreate b "0 $osz fcache $P $OA 1 writeback 3 label x"
check_fails bad-vol-long-label tcreate b "0 $osz fcache $P $OA 1 writeback 2 label $(printf 'x%.0s' $(seq 1 41))"
check_fails bad-vol-seq-cutoff tcreate b "0 $osz fcache $P $OA 1 writeback 2 sequential_cutoff -1"
field_is bad-tables-registered-nothing $P $P_REGISTERED -eq 0

# --- bad messages ---
check_fails msg-pool-empty dmsetup message fpool 0 ""
check_fails msg-pool-forget-0 dmsetup message fpool 0 forget 0
check_fails msg-pool-forget-text dmsetup message fpool 0 forget abc
check_fails msg-pool-forget-missing dmsetup message fpool 0 forget 12345
check_fails msg-pool-tunable-noval dmsetup message fpool 0 writeback_jobs
check_fails msg-pool-tunable-zero dmsetup message fpool 0 writeback_jobs 0
check_fails msg-pool-tunable-text dmsetup message fpool 0 max_dirty_age soon
check_fails msg-pool-flush-arg dmsetup message fpool 0 flush all

# --- origin size mismatch with dirty data (a keeper volume keeps the pool
# busy so no idle writeback cleans the data) ---
check tunables-no-writeback dmsetup message fpool 0 writeback_high 100
dmsetup message fpool 0 writeback_low 100
dmsetup message fpool 0 max_dirty_age 0
check keeper-create fc_vol vk fpool /dev/mapper/orK 9 passthrough
start_keeper /dev/mapper/vk
check vol-a-create fc_vol va fpool $OA 1 writeback sequential_cutoff 0
check_fails msg-vol-empty dmsetup message va 0 ""
check_fails msg-vol-cutoff-text dmsetup message va 0 sequential_cutoff big
check_fails msg-vol-invalidate-arg dmsetup message va 0 invalidate now
pattern_file /tmp/pa 1024 faultsA
dd if=/tmp/pa of=/dev/mapper/va bs=64k oflag=direct 2>/dev/null
field_is vol-a-dirty /dev/mapper/va $V_DIRTY -gt 0
check vol-a-remove-dirty dm_remove va
small=$(mk_fast_disk 32)
check_fails size-mismatch-dirty-refused tcreate va "0 $(dev_sectors "$small") fcache $P $small 1 writeback"
check vol-a-recreate fc_vol va fpool $OA 1 writeback sequential_cutoff 0
check_fails vol-a-active-other-size-refused tcreate b "0 $(dev_sectors "$small") fcache $P $small 1 writeback"
check_fails vol-a-active-twice-refused tcreate b "0 $osz fcache $P $OA 1 writeback"
field_is vol-a-still-dirty /dev/mapper/va $V_DIRTY -gt 0
check vol-a-data sh -c "dd if=/dev/mapper/va bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/pa"

# --- dm-flakey (error_writes) under the origin: writeback fails, data stays dirty ---
check origin-flakey-writes dm_swap orA "0 $osz flakey $diskA 0 0 1 1 error_writes"
check_fails flush-fails-on-origin-write-error dmsetup message va 0 flush
field_is origin-error-keeps-dirty /dev/mapper/va $V_DIRTY -gt 0
check origin-error-data-intact sh -c "dd if=/dev/mapper/va bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/pa"
check origin-restore dm_swap orA "0 $osz linear $diskA 0"
check flush-after-restore dmsetup message va 0 flush
field_is clean-after-restore /dev/mapper/va $V_DIRTY -eq 0
check vol-a-remove dm_remove va
check origin-a-exact sh -c "dd if=$OA bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/pa"
kill $keeper; wait $keeper 2>/dev/null
dm_remove vk

# --- error target under the origin: uncached reads fail, no oops ---
check vol-b-create fc_vol vb fpool /dev/mapper/orB 2 writearound
check origin-b-error dm_swap orB "0 $osz error"
check_fails origin-read-error-propagates dd if=/dev/mapper/vb of=/dev/null bs=4k count=1 skip=100 iflag=direct
check_fails origin-write-error-propagates sh -c "dd if=/tmp/pa of=/dev/mapper/vb bs=4k count=1 oflag=direct conv=fsync"
check origin-b-restore dm_swap orB "0 $osz linear $diskB 0"
check vol-b-remove dm_remove vb

# --- writethrough onto a failing origin: the write fails ---
check vol-c-create fc_vol vc fpool /dev/mapper/orC 3 writethrough
check origin-c-flakey dm_swap orC "0 $osz flakey $diskC 0 0 1 1 error_writes"
check_fails writethrough-origin-error-fails dd if=/tmp/pa of=/dev/mapper/vc bs=64k count=4 oflag=direct
check origin-c-restore dm_swap orC "0 $osz linear $diskC 0"
check vol-c-remove dm_remove vc

# --- flash faults ---
check vol-d-create fc_vol vd fpool /dev/mapper/orD 4 writeback sequential_cutoff 0
pattern_file /tmp/pd 4096 faultsD
dd if=/tmp/pd of=/dev/mapper/vd bs=64k oflag=direct 2>/dev/null
dd if=/dev/mapper/vd of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null
check flash-d-flush dmsetup message vd 0 flush
field_is flash-d-cached /dev/mapper/vd $V_CACHED -gt 0
# error target under the flash: clean cached blocks come from the origin
check flash-error-target dm_swap fflash "0 $fsz error"
check flash-read-error-served-from-origin sh -c "dd if=/dev/mapper/vd bs=64k count=64 iflag=direct 2>/dev/null | cmp - /tmp/pd"
field_is flash-read-errors-counted $P $P_FLASH_RERR -gt 0
check flash-restore-1 dm_swap fflash "0 $fsz linear $fdisk 0"
# dm-flakey error_writes under the flash: writes fail there
check flash-flakey-writes dm_swap fflash "0 $fsz flakey $fdisk 0 0 1 1 error_writes"
pattern_file /tmp/pq 1024 faultsQ
if dd if=/tmp/pq of=/dev/mapper/vd bs=64k seek=128 oflag=direct 2>/dev/null; then
	qok=1
	check flash-write-error-data-readable sh -c "dd if=/dev/mapper/vd bs=64k skip=128 count=16 iflag=direct 2>/dev/null | cmp - /tmp/pq"
else
	qok=0
	field_is flash-write-error-reported /dev/mapper/vd $V_ERRORS -gt 0
fi
info "pool after flash write errors: $(dmsetup status fpool)"
field_is flash-write-errors-counted $P $P_FLASH_WERR -gt 0
check_fails metadata-commit-fails dmsetup message fpool 0 flush
# After a metadata error a write may still succeed by going to the origin
# (nothing then depends on metadata); if it is acknowledged it must be there.
head -c 4096 /tmp/pq >/tmp/pq4
if dd if=/tmp/pq4 of=/dev/mapper/vd bs=4k count=1 seek=4000 oflag=direct conv=fsync 2>/dev/null; then
	rok=1
	check ro-pool-acked-write-readable sh -c "dd if=/dev/mapper/vd bs=4k skip=4000 count=1 iflag=direct 2>/dev/null | cmp - /tmp/pq4"
else
	rok=0
	pass ro-pool-write-error-reported
fi
mdm=$(status_field fpool $P_MDMODE)
case "$mdm" in ro|fail) pass metadata-error-mode-ro-or-fail ;; *) fail metadata-error-mode-ro-or-fail "metadata_mode $mdm" ;; esac
field_is metadata-error-needs-check $P $P_NEEDS_CHECK -eq 1
field_is metadata-errors-counted $P $P_MD_ERR -gt 0
# teardown with a dead flash: no oops, no hang
check flash-dead-at-teardown dm_swap fflash "0 $fsz error"
check vol-d-remove dm_remove vd
check pool-remove dm_remove fpool
check flash-restore-2 dm_swap fflash "0 $fsz linear $fdisk 0"
check origin-d-flushed-data-exact sh -c "dd if=$diskD bs=64k count=64 iflag=direct 2>/dev/null | cmp - /tmp/pd"
if [ $rok = 1 ]; then
	check origin-d-ro-pool-write-not-lost sh -c "dd if=$diskD bs=4k skip=4000 count=1 iflag=direct 2>/dev/null | cmp - /tmp/pq4"
fi
if [ $qok = 1 ]; then
	check origin-d-acked-write-not-lost sh -c "dd if=$diskD bs=64k skip=128 count=16 iflag=direct 2>/dev/null | cmp - /tmp/pq"
fi
# the pool comes back (as after a crash) and serves no stale data.  Its
# metadata write failed: it loads read-only with needs_check (recorded on
# the flash, or remembered by the module when nothing could be written
# there) until fcachectl check --clear-needs-check has checked the flash.
CTL=$FC_TOP/userspace/fcachectl
# vd_data: vd holds /tmp/pd and every write acknowledged above
vd_data() {
	dd if=/dev/mapper/vd bs=64k count=64 iflag=direct 2>/dev/null | cmp - /tmp/pd || return 1
	if [ $qok = 1 ]; then
		dd if=/dev/mapper/vd bs=64k skip=128 count=16 iflag=direct 2>/dev/null | cmp - /tmp/pq || return 1
	fi
	if [ $rok = 1 ]; then
		dd if=/dev/mapper/vd bs=4k skip=4000 count=1 iflag=direct 2>/dev/null | cmp - /tmp/pq4 || return 1
	fi
}
# vd_4001_is FILE: 4 KiB block 4001 of vd
vd_4001_is() {
	dd if=/dev/mapper/vd bs=4k skip=4001 count=1 iflag=direct 2>/dev/null | cmp -n 4096 - "$1"
}
if fc_pool fpool "$F" 64; then
	pass pool-reload-after-errors
	info "pool after reload: $(dmsetup status fpool)"
	field_is pool-reload-ro $P $P_MDMODE = ro
	field_is pool-reload-needs-check $P $P_NEEDS_CHECK -eq 1
	# the log names the action by the word fcachectl check prints (issue 32)
	check pool-reload-log-says-repair sh -c "dmesg | grep 'needs a check' | tail -n 1 | grep -q 'check --repair'"
	check vol-d-reload fc_vol vd fpool /dev/mapper/orD 4 writeback
	check vol-d-reload-data vd_data
	# read-only metadata serves a write of a block no entry maps (the
	# origin; issue 32 item 7), and its flush (nothing uncommitted)
	check vol-d-ro-write-served dd if=/tmp/pq4 of=/dev/mapper/vd bs=4k count=1 seek=4001 oflag=direct conv=fsync
	check vol-d-ro-write-there vd_4001_is /tmp/pq4
	check vol-d-ro-data-still vd_data
	dm_remove vd
	dm_remove fpool
	check clear-needs-check "$CTL" check --clear-needs-check "$F"
	if fc_pool fpool "$F" 64; then
		pass pool-reload-after-check
		info "pool after check: $(dmsetup status fpool)"
		field_is pool-reload-rw $P $P_MDMODE = rw
		field_is pool-reload-needs-check-cleared $P $P_NEEDS_CHECK -eq 0
		check vol-d-reload-2 fc_vol vd fpool /dev/mapper/orD 4 writeback
		check vol-d-reload-2-data vd_data
		check vol-d-rw-write dd if=/tmp/pq4 of=/dev/mapper/vd bs=4k count=1 seek=4001 oflag=direct conv=fsync
		check vol-d-rw-write-data vd_4001_is /tmp/pq4
		check vol-d-flush-after-check dmsetup message vd 0 flush
		dm_remove vd
		dm_remove fpool
		check origin-d-rw-write-exact sh -c "dd if=$diskD bs=4k skip=4001 count=1 iflag=direct 2>/dev/null | cmp - /tmp/pq4"
	else
		fail pool-reload-after-check "the pool does not load after fcachectl check --clear-needs-check"
	fi
else
	fail pool-reload-after-errors "the flash is healthy again but the pool does not load"
fi
for x in A B C D K; do dm_remove "or$x"; done
dm_remove fflash
check rmmod unload_fcache
dmesg_clean
finish
