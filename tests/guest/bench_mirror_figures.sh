#!/bin/sh
# Issue 11's figures of a mirrored pool on two flash devices, in one guest
# run (tests/bench/mirror_figures.sh boots it).  A benchmark, not a test:
# it measures and reports (ratios within this guest run), it asserts
# nothing but that the compares ran (make check does not run it).
#   bench_mirror_figures.sh [--ctl FCACHECTL] cost|capacity|smoke [extra compare options...]
# (--ctl: a copy of fcachectl, so that a rebuild on the host during the run
# does not change the binary under it.)
# Origin: the demo's (md RAID10 of four null_blk spindles, 512 MiB).  Flash:
# brd, two devices of one size (rd_nr=2: brd makes its devices equal, which
# a mirror wants, and is the demo's flash, so the figures compare with the
# demo's); null_blk without delay would do as well but is not what the demo
# measured.
#   cost      the cost of the second copy: fcache-writeback (one device),
#             fcache-mirrored (--flash and --flash2), dm-writecache and
#             dm-cache (one device), each device the demo's 128 MiB, the
#             demo's workload (tpcc-like, hotset:95:10), users 32,128
#   capacity  a read-only working set larger than one device, smaller
#             than two: two 64 MiB slices (dm-linear over the two brd
#             devices) under fcache-writeback (the first), fcache-mirrored,
#             dm-writecache-raid1 and dm-cache-raid1; then, in a second
#             compare, fcache-writeback on one 128 MiB device (a pool of
#             both devices' size), hot set 20% of the datafile (~97 MiB)
#   smoke     every two-device configuration with tiny times (does it run)
# Reports: /results/<mode>.txt (and <mode>-ref.txt), results.json in
# /results/<mode>/ (and <mode>-ref/).
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
if [ "${1:-}" = --ctl ]; then CTL=$2; shift 2; fi
mode=${1:-smoke}
[ $# -gt 0 ] && shift
"$CTL" bench --help >/dev/null 2>&1 || die "$CTL has no bench verb (rebuild: make userspace)"

DATA_MB=512
load_fcache || die "cannot load dm-fcache"
for m in dm-cache-smq dm-writecache dm-raid; do modprobe -q $m 2>/dev/null; done
md=$(mk_raid10 "$DATA_MB") || die "mk_raid10 failed"
case $mode in
cost) FLASH_MB=128 ;;
capacity) FLASH_MB=128 ;;	# sliced to 64 MiB below, whole for the reference
smoke) FLASH_MB=64 ;;
*) die "unknown mode $mode (cost, capacity, smoke)" ;;
esac
fl=$(mk_brd_flash "$FLASH_MB" 2) || die "mk_brd_flash failed"
f0=$(echo $fl | cut -d' ' -f1) f1=$(echo $fl | cut -d' ' -f2)
[ -b "$f0" ] && [ -b "$f1" ] && [ "$f0" != "$f1" ] || die "brd devices: $fl"

# compare NAME OPTIONS...: one compare, its report in /results/NAME.txt
compare() {
	_n=$1; shift
	echo "# $_n: fcachectl bench compare --origin $md $*" | tee "/results/$_n.txt"
	{
		"$CTL" bench compare --origin "$md" --output "/results/$_n" "$@" 2>&1
		echo $? >/tmp/rc
	} | tee -a "/results/$_n.txt"
	_rc=$(cat /tmp/rc 2>/dev/null || echo 1)
	if [ "$_rc" -eq 0 ] && tail -n 8 "/results/$_n.txt" | grep -q '^summary '; then
		pass "mirror-figures-$_n"
	else
		fail "mirror-figures-$_n" "status $_rc, see /results/$_n.txt"
	fi
}

echo "# origin $md (md RAID10 of 4 null_blk spindles, $DATA_MB MiB)," \
	"flash $f0 and $f1 (brd, $FLASH_MB MiB each)"
case $mode in
cost)
	compare cost --flash "$f0" --flash2 "$f1" \
		--configs fcache-writeback,fcache-mirrored,dm-writecache,dm-cache \
		--cache-block 16 --buffer-pool 16 --dist hotset:95:10 --users 32,128 \
		--warmup 60 --time 30 --report-interval 10 "$@"
	;;
capacity)
	s=$(( 64 * 2048 ))
	dm_create fcfig-a "0 $s linear $f0 0" || die "slice a"
	dm_create fcfig-b "0 $s linear $f1 0" || die "slice b"
	set -- --cache-block 16 --buffer-pool 16 --profile read-only --dist hotset:95:20 \
		--users 64 --warmup 60 --time 60 --report-interval 10 "$@"
	compare capacity --flash /dev/mapper/fcfig-a --flash2 /dev/mapper/fcfig-b \
		--configs fcache-writeback,fcache-mirrored,dm-writecache-raid1,dm-cache-raid1 "$@"
	dmsetup remove fcfig-a && dmsetup remove fcfig-b || die "slices"
	# a pool of both devices' size: one 128 MiB device, through dm-linear
	# as the slices were
	dm_create fcfig-r "0 $(( 128 * 2048 )) linear $f0 0" || die "reference"
	compare capacity-ref --flash /dev/mapper/fcfig-r --configs fcache-writeback "$@"
	dmsetup remove fcfig-r
	;;
smoke)
	compare smoke --flash "$f0" --flash2 "$f1" --size 128 \
		--configs fcache-writeback,fcache-mirrored,dm-writecache-raid1,dm-cache-raid1 \
		--cache-block 16 --users 4 --warmup 2 --time 3 --quiet "$@"
	grep -E ' status: | counters: | read hit ratio' /results/smoke.txt
	;;
esac
mdadm --stop "$md" >/dev/null 2>&1
finish
