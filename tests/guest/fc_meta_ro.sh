#!/bin/sh
# dm-fcache: a metadata write error on a one-device pool does not take the
# volume down (issue 32, item 7; docs/DESIGN.md "Metadata modes").
#
# The flash is a dm table whose metadata pages (sectors 16 .. data_start:
# every page slot, not the superblocks) are swapped for the 'error' target,
# so the next commit fails while the superblocks and the cache blocks still
# work: the pool records needs_check and goes read-only.  Before it, the
# volume holds blocks written back and committed clean (C), dirty and
# committed (D), dirty and never committed (U) and never cached (N).
# Then, read-only:
#   - writes to N, C, D and U succeed and read back byte for byte (the
#     cached ones are written to the origin and in place to the flash);
#   - reads of the dirty blocks return their last acknowledged data;
#   - a flush fails while dirty data is not yet written back to the origin
#     (the origin fails writes meanwhile: dm-flakey), succeeds once the
#     pool wrote it all back (status: flushes ok, no dirty block), and the
#     kernel log says so;
#   - after teardown the origin alone holds every acknowledged write;
#     fcachectl check --repair, reload rw: every block reads its last
#     acknowledged content.
# Second part: a block released while committed dirty (a discard before
# the failing commit) cannot be written while read-only: EIO, counted in
# the status (unwritable_blocks), a log line names it; every other write
# works; flushes keep failing (status: failing) until the check; after it
# every acknowledged write is there.
FC_T=fc_meta_ro
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
[ -x "$CTL" ] || die "no $CTL (make userspace)" fcachectl
P_UNWRITABLE=19 P_FLUSHES=20
NB=128			# blocks compared (32 KiB each): the first 4 MiB
V=/dev/mapper/mro

load_fcache || die "insmod failed" module-load
modprobe dm-flakey || die "no dm-flakey"
fdisk=$(mk_fast_disk 64) && odisk=$(mk_fast_disk 64) && kdisk=$(mk_fast_disk 16) ||
	die disks
fsz=$(dev_sectors "$fdisk") osz=$(dev_sectors "$odisk")
F=/dev/mapper/mflash
dm_create mflash "0 $fsz linear $fdisk 0" || die flash
dm_create morig "0 $osz linear $odisk 0" || die origin
dm_create mkorig "0 $(dev_sectors "$kdisk") linear $kdisk 0" || die korigin
# dirty data stays dirty (no idle or aged writeback), commits only on flushes
POOLOPTS="commit_interval 0 writeback_high 100 writeback_low 100 max_dirty_age 0"
fc_pool mpool $F 64 $POOLOPTS || die "pool" pool-create
dm_remove mpool
ds=$("$CTL" check $F | sed -n 's/.*data at sector \([0-9]*\).*/\1/p')
[ -n "$ds" ] && [ "$ds" -gt 16 ] || die "no data_start from fcachectl check" data-start
info "metadata pages in flash sectors 16..$ds"

# flash_tbl linear|error: the flash, its metadata pages as said
flash_tbl() {
	if [ "$1" = error ]; then _m="error"; else _m="linear $fdisk 16"; fi
	printf '0 16 linear %s 0\n16 %s %s\n%s %s linear %s %s' "$fdisk" $((ds - 16)) "$_m" \
		"$ds" $((fsz - ds)) "$fdisk" "$ds"
}
dm_swap() { dmsetup suspend "$1" && dm_reload "$1" "$2" && dmsetup resume "$1"; }
origin_writes_fail() { dm_swap morig "0 $osz flakey $odisk 0 0 1 1 error_writes"; }
origin_ok() { dm_swap morig "0 $osz linear $odisk 0"; }

# The expected content of the first NB blocks: /tmp/exp, zeroes at first
dd if=/dev/zero of=/tmp/exp bs=32k count=$NB 2>/dev/null
for x in c1 c2 d1 d2 d3 u1 u2 t n1 n2 s p q t2 r; do pattern_file /tmp/$x 1024 || die pattern; done
# put FILE FIRST COUNT [DDFLAGS]: write COUNT blocks of FILE at block FIRST;
# acknowledged, it is what the blocks must hold from now on
put() {
	dd if="$1" of=$V bs=32k count="$3" seek="$2" oflag=direct${4:+,$4} conv=notrunc \
		2>/dev/null || return 1
	dd if="$1" of=/tmp/exp bs=32k count="$3" seek="$2" conv=notrunc 2>/dev/null
}
# put4k FILE BLOCK KIB_OFFSET: 4 KiB of FILE at KIB_OFFSET in BLOCK (a partial write)
put4k() {
	_o=$(($2 * 8 + $3 / 4))
	dd if="$1" of=$V bs=4k count=1 seek=$_o oflag=direct conv=notrunc 2>/dev/null || return 1
	dd if="$1" of=/tmp/exp bs=4k count=1 seek=$_o conv=notrunc 2>/dev/null
}
# same DEV [FIRST COUNT]: blocks FIRST.. of DEV hold the expected content
same() {
	_sf=${2:-0} _sn=${3:-$NB}
	dd if="$1" bs=32k skip="$_sf" count="$_sn" iflag=direct 2>/dev/null >/tmp/got &&
		dd if=/tmp/exp bs=32k skip="$_sf" count="$_sn" 2>/dev/null | cmp -s - /tmp/got
}
# dsync: fdatasync on the volume (an empty REQ_PREFLUSH)
dsync() { sync -d $V; }
ro_up() {
	fc_vol mro mpool /dev/mapper/morig 1 writeback sequential_cutoff 0
}
# md_error: the metadata pages fail from now on; a new dirty block and a
# flush then fail the commit: the pool is read-only
md_error() {
	check "$1-md-pages-fail" dm_swap mflash "$(flash_tbl error)"
	check "$1-trigger-write" put /tmp/$2 "$3" 1
	check_fails "$1-commit-fails" dsync
	field_is "$1-metadata-ro" /dev/mapper/mpool $P_MDMODE = ro
	field_is "$1-needs-check" /dev/mapper/mpool $P_NEEDS_CHECK -eq 1
}
# teardown_repair NAME: remove volume and pool, heal the flash, fcachectl
# check --repair, load the pool (rw) and the volume again
teardown_repair() {
	check "$1-vol-remove" dm_remove mro
	[ -n "${keeper:-}" ] && { kill $keeper; wait $keeper 2>/dev/null; keeper=; }
	dm_remove mrk
	check "$1-pool-remove" dm_remove mpool
	check "$1-flash-healed" dm_swap mflash "$(flash_tbl linear)"
}
reload() {
	check "$1-repair" "$CTL" check --repair $F
	check "$1-pool-reload" fc_pool mpool $F 64 $POOLOPTS
	field_is "$1-reload-rw" /dev/mapper/mpool $P_MDMODE = rw
	field_is "$1-reload-no-needs-check" /dev/mapper/mpool $P_NEEDS_CHECK -eq 0
	check "$1-vol-reload" ro_up
}

check flash-segments dm_swap mflash "$(flash_tbl linear)"
check pool-create fc_pool mpool $F 64 $POOLOPTS
check vol-create ro_up
# a passthrough volume keeps the pool busy: no idle writeback
check keeper-create fc_vol mrk mpool /dev/mapper/mkorig 9 passthrough
start_keeper /dev/mapper/mrk

# --- before the failure: C clean (committed), D dirty (committed), U dirty
check write-c put /tmp/c1 0 16
check flush-c dmsetup message mro 0 flush
check write-d put /tmp/d1 32 16 dsync
check write-u put /tmp/u1 48 8
field_is dirty-before /dev/mapper/mro $V_DIRTY -eq 24
# the origin fails writes for a while: the written-back state is held
check origin-writes-fail origin_writes_fail
md_error a t 64
check log-names-the-repair sh -c "dmesg | grep 'metadata write failed' | tail -n 1 | grep -q 'check --repair'"
field_is flushes-draining /dev/mapper/mpool $P_FLUSHES = draining
check_fails flush-fails-dirty-not-on-origin dsync
check origin-writes-again origin_ok

# --- read-only: every write is served
check ro-dirty-read same $V 32 24
check ro-write-never-cached put /tmp/n1 100 8
check ro-write-clean put /tmp/c2 0 8
check ro-write-dirty put /tmp/d2 32 8
check ro-write-uncommitted put /tmp/u2 48 4
check ro-write-partial-dirty put4k /tmp/s 40 8
check ro-write-partial-clean put4k /tmp/s 9 20
check ro-read-all same $V
field_is ro-unwritable-none /dev/mapper/mpool $P_UNWRITABLE -eq 0
# the pool writes the dirty blocks back; then flushes succeed again
check ro-written-back poll_until 300 status_is /dev/mapper/mpool $P_DIRTY 0
check ro-flushes-ok poll_until 100 status_is /dev/mapper/mpool $P_FLUSHES ok
check ro-log-flushes-again sh -c "dmesg | grep -q 'flushes succeed again'"
check ro-flush-after-written-back dsync
check ro-write-dsync-dirty put /tmp/d3 44 4 dsync
check ro-write-dsync-never-cached put /tmp/n2 120 4 dsync
check ro-flush-again dsync
check ro-read-all-2 same $V
field_is ro-still-ro /dev/mapper/mpool $P_MDMODE = ro
teardown_repair a
check a-origin-alone-holds-every-write same /dev/mapper/morig
reload a
check a-reload-data same $V
check a-reload-flush dmsetup message mro 0 flush
check a-reload-origin same /dev/mapper/morig

# --- a block released while committed dirty cannot be written read-only
check keeper-2 fc_vol mrk mpool /dev/mapper/mkorig 9 passthrough
start_keeper /dev/mapper/mrk
check b-write-p put /tmp/p 60 1 dsync
check b-discard-p blkdiscard -o $((60 * 32768)) -l 32768 $V
dd if=/dev/zero of=/tmp/exp bs=32k seek=60 count=1 conv=notrunc 2>/dev/null
check b-write-q put /tmp/q 61 1
md_error b t2 70
field_is b-unwritable-one /dev/mapper/mpool $P_UNWRITABLE -eq 1
check_fails b-ro-write-released-refused put /tmp/r 60 1
check b-log-names-block sh -c "dmesg | grep 'write refused' | tail -n 1 | grep -q 'block 60:'"
check b-ro-write-never-cached put /tmp/r 110 1
check b-ro-write-uncommitted put /tmp/r 61 1
check b-written-back poll_until 300 status_is /dev/mapper/mpool $P_DIRTY 0
field_is b-flushes-failing /dev/mapper/mpool $P_FLUSHES = failing
check_fails b-flush-fails dsync
check b-ro-read same $V 0 60
check b-ro-read-2 same $V 61 $((NB - 61))
teardown_repair b
check b-origin-alone same /dev/mapper/morig 0 60
check b-origin-alone-2 same /dev/mapper/morig 61 $((NB - 61))
reload b
check b-reload-data same $V 0 60
check b-reload-data-2 same $V 61 $((NB - 61))
# block 60: its discard was never made durable (the flush failed): the
# data committed before it, or what the discard left
dd if=$V bs=32k skip=60 count=1 iflag=direct 2>/dev/null >/tmp/got60
if head -c 32768 /tmp/p | cmp -s - /tmp/got60 ||
	dd if=/dev/zero bs=32k count=1 2>/dev/null | cmp -s - /tmp/got60; then
	pass b-reload-released-block
else
	fail b-reload-released-block "block 60 holds neither its committed data nor zeroes"
fi
check b-vol-remove dm_remove mro
check b-pool-remove dm_remove mpool
for d in mflash morig mkorig; do dm_remove $d; done
check rmmod unload_fcache
dmesg_clean
finish
