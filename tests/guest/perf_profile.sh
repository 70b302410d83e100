#!/bin/sh
# Where the CPU goes under fio_figures.sh's B mix (70/30 16 KiB random, zipf
# 1.1, md RAID10 of four emulated spindles, flash at 25% of the origin), for
# fcache (32 KiB blocks) and dm-writecache: perf samples every CPU during the
# measured run (after the same warm-up as the figure) and reports the
# symbols and modules that take the samples.  A profile, not a test: under
# TCG the CPU is the bottleneck, so CPU per I/O is what decides the figure.
#   perf_profile.sh [SECONDS]   (default 20)
. "$FC_TOP/tests/guest/lib.sh"
T=${1:-20}
out=/results/profile.txt
: >"$out"
say() { echo "$*" | tee -a "$out"; }
perf_ready

fio_mix() {
	fio --name=f --filename="$1" --direct=1 --ioengine=libaio --iodepth=16 \
		--bs=16k --rw=randrw --rwmixread=70 --random_distribution=zipf:1.1 \
		--time_based --runtime="$T" --norandommap --randrepeat=1 \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' '{ printf "%d\n", $8 + $49 }'
}
# profile NAME DEV: warm-up, then the measured run under perf
profile() {
	fio_mix "$2" >/dev/null
	perf record -q -a -g -e cpu-clock -F 499 -o "/tmp/$1.data" -- sleep "$T" \
		>/dev/null 2>&1 &
	_p=$!
	_iops=$(fio_mix "$2")
	wait $_p
	say "== $1: $_iops IOPS during the profile"
	perf_top "/tmp/$1.data" 12 45 | tee -a "$out"
	perf report -i "/tmp/$1.data" --no-children --sort sym --stdio -g caller,0.5,callee \
		--percent-limit 2 2>/dev/null >"/results/profile-$1-callers.txt"
}

load_fcache || die "cannot load dm-fcache"
modprobe dm-writecache 2>/dev/null
set -- $(mk_brd_flash 256 1) || die "brd"
flash=$1
md=$(mk_raid10 512) || die "raid10"
osz=$(dev_sectors "$md")
fsz=$((osz / 4))
dm_create figflash "0 $fsz linear $flash 0" || die "flash slice"
fdev=/dev/mapper/figflash

dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
fc_pool figpool "$fdev" 64 >/dev/null || die "pool"
fc_vol figvol figpool "$md" 1 writeback >/dev/null || die "vol"
profile fcache /dev/mapper/figvol
say "fcache volume status: $(dmsetup status figvol)"
dmsetup message figvol 0 flush >/dev/null
dmsetup remove figvol >/dev/null; dmsetup remove figpool >/dev/null

dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
dm_create figwc "0 $osz writecache s $md $fdev 4096 0" || die "dm-writecache"
profile dmwritecache /dev/mapper/figwc
say "dm-writecache status: $(dmsetup status figwc)"
dmsetup remove figwc
dmesg_clean
