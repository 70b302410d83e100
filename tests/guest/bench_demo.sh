#!/bin/sh
# The OLTP before/after demo, inside the guest (started by tests/vm/demo.sh):
# a 512 MiB datafile volume on md RAID10 of four null_blk spindles, a
# 128 MiB brd "flash" (25% of the datafile) as the cache (--quick: 256 and
# 64 MiB), a buffer pool of 1/32 of the datafile (16 MiB), and
# `fcachectl bench compare --anchors` over them.  Report, results.json and
# chart.svg go to /results (the host's results/ directory).
#   bench_demo.sh [--ctl FCACHECTL] [--quick] [extra compare options...]
# (`make demo` adds --rounds 2: medians of two runs per configuration.)
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
if [ "${1:-}" = --ctl ]; then CTL=$2; shift 2; fi
"$CTL" bench --help >/dev/null 2>&1 || die "$CTL has no bench verb (rebuild: make userspace)"

quick=0
for a in "$@"; do [ "$a" = --quick ] && quick=1; done
# --quick: half the datafile (faster prepare, restore and warm-up)
if [ $quick -eq 1 ]; then DATA_MB=256 FLASH_MB=64; else DATA_MB=512 FLASH_MB=128; fi
DATA_MB=${FC_DEMO_DATA_MB:-$DATA_MB}
FLASH_MB=${FC_DEMO_FLASH_MB:-$FLASH_MB}
# The hot set (10% of the pages, 95% of the accesses) fits the flash (25%
# of the datafile) but not the buffer pool (1/32 of it): the case a flash
# cache exists for.
# Override with --dist / --buffer-pool.
DIST=hotset:95:10
# fcache's pool uses 16 KiB blocks, the datafile's page size, as a DBA would
# set it up for a 16 KiB-page database (fcachectl pool create --block-size
# 16K; 1.6 GiB of RAM per TiB of flash instead of 832 MiB at the 32 KiB
# default, where a scattered 16 KiB page holds half a block).  Pass
# --cache-block 32 to measure the default.
CBLOCK=16
BP_MB=$((DATA_MB / 32))

load_fcache || die "cannot load dm-fcache"
modprobe -q dm-cache-smq 2>/dev/null
modprobe -q dm-writecache 2>/dev/null
md=$(mk_raid10 "$DATA_MB") || die "mk_raid10 failed"
flash=$(mk_brd_flash "$FLASH_MB") || die "mk_brd_flash failed"

if [ $quick -eq 1 ]; then
	set -- --users 16,128 --warmup 20 --time 10 --report-interval 5 --dist $DIST "$@"
else
	set -- --users 8,16,32,64,128 --warmup 60 --time 20 --report-interval 10 --dist $DIST "$@"
fi
echo "# demo: origin $md (md RAID10 of 4 null_blk spindles, $DATA_MB MiB)," \
	"flash $flash (brd, $FLASH_MB MiB)"
{
	"$CTL" bench compare --origin "$md" --flash "$flash" --anchors \
		--buffer-pool $BP_MB --cache-block $CBLOCK --output /results "$@" 2>&1
	echo $? >/tmp/demo.rc
} | tee /results/report.txt
rc=$(cat /tmp/demo.rc 2>/dev/null || echo 1)
[ -s /results/report.txt ] || rc=1
tail -n 4 /results/report.txt | grep -q '^summary ' || rc=1
mdadm --stop "$md" >/dev/null 2>&1
if [ $rc -eq 0 ] && grep -q '^summary fcache-writeback' /results/report.txt; then
	pass demo-compare
else
	fail demo-compare "see /results/report.txt"
fi
finish
