#!/bin/sh
# REQ_NOWAIT (docs/DESIGN.md, "Submission without blocking"): io_uring
# sends a read or write inline with REQ_NOWAIT first, and RWF_NOWAIT asks
# for it from preadv2/pwritev2.  fcache serves such a bio when a remap to
# the flash needs nothing first (a read hit, a write to a cached block of
# a one-device pool); anything else ends with EAGAIN before anything
# changed, and is sent again where it may block.  Checked with
# tests/guest/fc_nowait.py (4 KiB O_DIRECT, each block naming what it
# holds), then with fio's io_uring engine verifying every block, on a
# one-device pool and a mirrored one; no error, no leg failed.
FC_T=fc_nowait
. "$FC_TOP/tests/guest/lib.sh"
NW="python3 $FC_TOP/tests/guest/fc_nowait.py"
load_fcache || die "insmod failed" module-load
org=$(mk_fast_disk 96) && f0=$(mk_fast_disk 24) && f1=$(mk_fast_disk 24) &&
	org2=$(mk_fast_disk 96) || die "disks"
MiB=1048576

# nw OP DEV BLOCK_MIB TAG [nowait]: fc_nowait.py's answer (and its status)
nw() {
	_op=$1 _dev=$2 _b=$3 _tag=$4
	shift 4
	$NW "$_op" "$_dev" $((_b * MiB)) "$_tag" "$@"
}
# expect NAME WORD OP DEV BLOCK_MIB TAG [nowait]: the answer is WORD
expect() {
	_n=$1 _w=$2
	shift 2
	_got=$(nw "$@")
	if [ "$_got" = "$_w" ]; then pass "$_n"; else fail "$_n" "$* -> '$_got', expected '$_w'"; fi
}
# the origin: every block names itself ("orig")
for b in 0 1 2 3 4 5; do
	nw write "$org" $b orig >/dev/null || die "origin pattern"
	nw write "$org2" $b orig >/dev/null || die "origin pattern"
done

# ---- one device ----
fc_pool np "$f0" 64 writeback_high 100 writeback_low 100 max_dirty_age 0 || die "pool"
fc_vol nv np "$org" 1 writeback || die "volume"
# a cold read: refused before anything is counted or cached (old code:
# EOPNOTSUPP, the device does not take REQ_NOWAIT)
r0=$(status_field nv $V_READS) c0=$(status_field nv $V_CACHED)
expect cold-read-again again read /dev/mapper/nv 0 orig nowait
field_is cold-read-not-counted /dev/mapper/nv $V_READS = "$r0"
field_is cold-read-not-cached /dev/mapper/nv $V_CACHED = "$c0"
expect cold-read-blocking ok read /dev/mapper/nv 0 orig
# a read hit: served (fills come from blocking reads: the second caches it)
i=0
while [ "$(status_field nv $V_READ_HITS)" = 0 ] && [ $i -lt 6 ]; do
	nw read /dev/mapper/nv 1 orig >/dev/null
	i=$((i + 1))
done
h0=$(status_field nv $V_READ_HITS)
[ "$h0" -gt 0 ] || fail hit-made "block 1 read $i times, no read hit"
expect hit-read-nowait ok read /dev/mapper/nv 1 orig nowait
if [ "$(status_field nv $V_READ_HITS)" -gt "$h0" ]; then pass hit-read-counted; else
	fail hit-read-counted "read_hits $h0 -> $(status_field nv $V_READ_HITS)"; fi
# a write to a cached block: served; then read back either way
expect write-cached-blocking ok write /dev/mapper/nv 2 w1
expect write-cached-nowait ok write /dev/mapper/nv 2 w2 nowait
expect write-cached-reads-back ok read /dev/mapper/nv 2 w2 nowait
expect write-cached-reads-back-blocking ok read /dev/mapper/nv 2 w2
# a write to an uncached block: refused, nothing written; blocking: written
c0=$(status_field nv $V_CACHED) w0=$(status_field nv $V_WRITES)
expect new-write-again again write /dev/mapper/nv 3 w3 nowait
field_is new-write-not-cached /dev/mapper/nv $V_CACHED = "$c0"
field_is new-write-not-counted /dev/mapper/nv $V_WRITES = "$w0"
expect new-write-nothing-written ok read /dev/mapper/nv 3 orig
expect new-write-blocking ok write /dev/mapper/nv 3 w3
expect new-write-reads-back ok read /dev/mapper/nv 3 w3 nowait
# passthrough: a write to clean data goes to the origin: not taken nowait
# mode MODE: the volume's table again, in MODE
mode() {
	dm_reload nv "0 $(dev_sectors "$org") fcache /dev/mapper/np $org 1 $1" &&
		dmsetup suspend nv && dmsetup resume nv
}
check mode-passthrough mode passthrough
# (block 1 is cached clean: a write to dirty data would go to the flash)
expect passthrough-write-again again write /dev/mapper/nv 1 w4 nowait
expect passthrough-write-blocking ok write /dev/mapper/nv 1 w4
expect passthrough-reads-back ok read /dev/mapper/nv 1 w4
check mode-writeback mode writeback
# io_uring: inline with REQ_NOWAIT first, EAGAIN sent again from its
# worker; more data than the flash holds (evictions, writeback at the
# watermarks the pool is given now), every block verified
check watermarks-low dmsetup message np 0 writeback_low 10
check watermarks dmsetup message np 0 writeback_high 50
check fio-uring-verify fio_verify /dev/mapper/nv --ioengine=io_uring --iodepth=32 \
	--rw=randwrite --bs=4k --offset=8M --size=48M
check fio-uring-reverify fio_verify /dev/mapper/nv --ioengine=io_uring --iodepth=32 \
	--rw=randwrite --bs=4k --offset=8M --size=48M --verify_only
field_is uring-no-errors /dev/mapper/nv $V_ERRORS = 0
check flush dmsetup message nv 0 flush
dm_remove nv && dm_remove np || fail teardown
# the origin alone holds all of it
check origin-verify fio_verify "$org" --ioengine=io_uring --iodepth=32 \
	--rw=randwrite --bs=4k --offset=8M --size=48M --verify_only
expect origin-block-1 ok read "$org" 1 w4
expect origin-block-2 ok read "$org" 2 w2
expect origin-block-3 ok read "$org" 3 w3

# ---- mirrored: a write is two clones, never taken nowait; reads are ----
dd if=/dev/zero of="$f0" bs=1M count=1 oflag=direct 2>/dev/null
dm_create mp "0 $(dev_sectors "$f0") fcache-pool $f0 64 6 mirror $f1 writeback_high 100 writeback_low 100" ||
	die "mirrored pool"
dm_create nv "0 $(dev_sectors "$org2") fcache /dev/mapper/mp $org2 1 writeback" || die "volume on the mirrored pool"
expect mirror-write-blocking ok write /dev/mapper/nv 0 m1
expect mirror-write-again again write /dev/mapper/nv 0 m2 nowait
expect mirror-write-unchanged ok read /dev/mapper/nv 0 m1 nowait
expect mirror-write-blocking-2 ok write /dev/mapper/nv 0 m2
expect mirror-read-nowait ok read /dev/mapper/nv 0 m2 nowait
check mirror-fio-uring-verify fio_verify /dev/mapper/nv --ioengine=io_uring --iodepth=32 \
	--rw=randwrite --bs=4k --offset=8M --size=16M
field_is mirror-no-errors /dev/mapper/nv $V_ERRORS = 0
field_is mirror-legs-ok /dev/mapper/mp 18 = ok,ok
field_is mirror-still-mirrored /dev/mapper/mp 16 = mirrored
dm_remove nv && dm_remove mp || fail teardown-mirror
dmesg_clean
finish
