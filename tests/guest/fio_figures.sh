#!/bin/sh
# fio figures of the kernel issue, all in one guest run (tests/bench/figures.sh
# boots it).  Every figure is a ratio against a baseline measured in this
# same guest: TCG makes absolute IOPS meaningless.  A benchmark, not a test:
# it measures and reports, it asserts nothing (make check does not run it).
#   A. 16 KiB random reads on a fully cached working set vs dm-linear over
#      the same flash; 16 KiB random writes in writeback below the high
#      watermark vs dm-linear over the flash.
#   B. 70/30 16 KiB random mix, zipf skew, on an md RAID10 of four emulated
#      spindles, flash at 25% of the origin: uncached vs fcache, dm-cache
#      (smq, writeback) and dm-writecache.
. "$FC_TOP/tests/guest/lib.sh"
T=${FIG_TIME:-20}
out=/results/figures.txt
: >"$out"
say() { echo "$*" | tee -a "$out"; }

# fio_iops DEV RW [extra fio args]: prints total IOPS (read + write)
fio_iops() {
	_d=$1 _rw=$2; shift 2
	fio --name=f --filename="$_d" --direct=1 --ioengine=libaio --iodepth=16 \
		--bs=16k --rw="$_rw" --time_based --runtime="$T" --norandommap \
		--randrepeat=1 --output-format=terse --terse-version=3 "$@" 2>/dev/null |
		awk -F';' '{ printf "%d\n", $8 + $49 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

load_fcache || die "cannot load dm-fcache"
modprobe dm-cache-smq 2>/dev/null
modprobe dm-writecache 2>/dev/null
set -- $(mk_brd_flash 256 2) || die "brd"
flashA=$1 flashB=$2

# ---- A: flash-bound figures ------------------------------------------------
fast=$(mk_fast_disk 160) || die "fast disk"
dm_create figlin "0 $(dev_sectors "$flashA") linear $flashA 0" || die "linear"
lin_r=$(fio_iops /dev/mapper/figlin randread --size=128m)
lin_w=$(fio_iops /dev/mapper/figlin randwrite --size=128m)
dmsetup remove figlin
dd if=/dev/zero of="$flashA" bs=4k count=2 oflag=direct 2>/dev/null
fc_pool figpool "$flashA" 64 || die "pool"
fc_vol figvol figpool "$fast" 1 writeback sequential_cutoff 0 || die "volume"
# two passes: the admission policy promotes on the second touch
for p in 1 2; do dd if=/dev/mapper/figvol of=/dev/null bs=16k count=8192 iflag=direct 2>/dev/null; done
fc_r=$(fio_iops /dev/mapper/figvol randread --size=128m)
st_r=$(dmsetup status figvol)
fc_w=$(fio_iops /dev/mapper/figvol randwrite --size=128m)
st_w=$(dmsetup status figvol)
dmsetup status figpool >>"$out"
say "A1 16k randread, fully cached: fcache $fc_r IOPS, dm-linear(flash) $lin_r IOPS: $(ratio "$fc_r" "$lin_r")x"
say "   volume status after: $st_r"
say "A2 16k randwrite, writeback below high watermark: fcache $fc_w IOPS, dm-linear(flash) $lin_w IOPS: $(ratio "$fc_w" "$lin_w")x"
say "   volume status after: $st_w"
dmsetup remove figvol
dmsetup remove figpool

# ---- B: OLTP-like mix on RAID10 -------------------------------------------
md=$(mk_raid10 512) || die "raid10"
osz=$(dev_sectors "$md")
fsz=$((osz / 4))
mix="--rwmixread=70 --random_distribution=zipf:1.1"
dm_create figflash "0 $fsz linear $flashB 0" || die "flash slice"
fdev=/dev/mapper/figflash
run_cfg() {
	# warm-up then measure, same seed and distribution for every config
	fio_iops "$1" randrw $mix >/dev/null
	fio_iops "$1" randrw $mix
}
base=$(run_cfg "$md")
say "B0 70/30 16k zipf:1.1 on md RAID10 (4 spindles), uncached: $base IOPS"

dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
fc_pool figpool "$fdev" 64 || die "pool B"
fc_vol figvol figpool "$md" 1 writeback || die "vol B"
fcb=$(run_cfg /dev/mapper/figvol)
say "B1 fcache writeback (32 KiB blocks): $fcb IOPS: $(ratio "$fcb" "$base")x uncached"
say "   volume status: $(dmsetup status figvol)"
dmsetup message figvol 0 flush
dmsetup remove figvol; dmsetup remove figpool

meta=16384
dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
dm_create figmeta "0 $meta linear $fdev 0" || die "meta"
dm_create figcdata "0 $((fsz - meta)) linear $fdev $meta" || die "cdata"
dm_create figdmc "0 $osz cache /dev/mapper/figmeta /dev/mapper/figcdata $md 64 1 writeback smq 0" || die "dm-cache"
dmc=$(run_cfg /dev/mapper/figdmc)
say "B2 dm-cache smq writeback (32 KiB blocks): $dmc IOPS: $(ratio "$dmc" "$base")x uncached"
dmsetup remove figdmc; dmsetup remove figcdata; dmsetup remove figmeta

dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
dm_create figwc "0 $osz writecache s $md $fdev 4096 0" || die "dm-writecache"
wc=$(run_cfg /dev/mapper/figwc)
say "B3 dm-writecache ssd (4 KiB blocks): $wc IOPS: $(ratio "$wc" "$base")x uncached"
dmsetup remove figwc
say "fcache vs dm-cache: $(ratio "$fcb" "$dmc")x, fcache vs dm-writecache: $(ratio "$fcb" "$wc")x"
dmesg_clean
finish
