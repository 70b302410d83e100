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
#      (smq, writeback) and dm-writecache; every configuration measured in
#      turn, B_ROUNDS times, medians.
#   C. the same mix while writeback drains a pool filled to writeback_high,
#      against the same mix on the same pool once it is clean.
. "$FC_TOP/tests/guest/lib.sh"
# fio_figures.sh [SECONDS_PER_STEP [ROUNDS [B_ROUNDS [C_ROUNDS]]]]
# (defaults 20, 5, 3 and 3)
T=${1:-20} R=${2:-5} RB=${3:-3} RC=${4:-3}
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

load_fcache || die "cannot load dm-fcache"
modprobe dm-cache-smq 2>/dev/null
modprobe dm-writecache 2>/dev/null
set -- $(mk_brd_flash 256 2) || die "brd"
flashA=$1 flashB=$2

# ---- A: flash-bound figures ------------------------------------------------
# Rounds alternate baseline and fcache and the ratio is that of the medians:
# one pair of runs under TCG moves by +-15% from run to run.  The read
# baseline is dm-linear over the pool's own flash device (reads only, which
# leave the pool intact); the write baseline is dm-linear over the second brd
# device, the same size and kind (writes there would overwrite the pool).
fast=$(mk_fast_disk 160) || die "fast disk"
dd if=/dev/zero of="$flashA" bs=4k count=2 oflag=direct 2>/dev/null
fc_pool figpool "$flashA" 64 || die "pool"
fc_vol figvol figpool "$fast" 1 writeback sequential_cutoff 0 || die "volume"
dm_create figlin "0 $(dev_sectors "$flashA") linear $flashA 0" || die "linear"
dm_create figlinw "0 $(dev_sectors "$flashB") linear $flashB 0" || die "linear w"
# two passes: the admission policy promotes on the second touch
for p in 1 2; do dd if=/dev/mapper/figvol of=/dev/null bs=16k count=8192 iflag=direct 2>/dev/null; done
# rounds BASE_DEV RW: R alternating runs; sets rb (baseline) and rf (fcache)
rounds() {
	rb="" rf="" _i=0
	while [ $_i -lt "$R" ]; do
		rb="$rb $(fio_iops "$1" "$2" --size=128m)"
		rf="$rf $(fio_iops /dev/mapper/figvol "$2" --size=128m)"
		_i=$((_i + 1))
	done
}
rounds /dev/mapper/figlin randread
lr=$rb fr=$rf
st_r=$(dmsetup status figvol)
rounds /dev/mapper/figlinw randwrite
lw=$rb fw=$rf
st_w=$(dmsetup status figvol)
dmsetup status figpool >>"$out"
lin_r=$(echo "$lr" | median) fc_r=$(echo "$fr" | median)
lin_w=$(echo "$lw" | median) fc_w=$(echo "$fw" | median)
say "A1 16k randread, fully cached: fcache $fc_r IOPS, dm-linear(flash) $lin_r IOPS: $(ratio "$fc_r" "$lin_r")x (medians of $R alternating rounds)"
say "   rounds: dm-linear$lr; fcache$fr"
say "   volume status after: $st_r"
say "A2 16k randwrite, writeback below high watermark: fcache $fc_w IOPS, dm-linear(flash) $lin_w IOPS: $(ratio "$fc_w" "$lin_w")x (medians of $R alternating rounds)"
say "   rounds: dm-linear$lw; fcache$fw"
say "   volume status after: $st_w"
dmsetup remove figlin
dmsetup remove figlinw
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
# fcache_cfg BLOCK_SECTORS: a fresh pool and a writeback volume, measured
fcache_cfg() {
	dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
	fc_pool figpool "$fdev" "$1" >/dev/null || die "pool B"
	fc_vol figvol figpool "$md" 1 writeback >/dev/null || die "vol B"
	run_cfg /dev/mapper/figvol
	dmsetup status figvol >"$FC_LOGDIR/figvol.status"
	dmsetup message figvol 0 flush >/dev/null
	dmsetup remove figvol >/dev/null; dmsetup remove figpool >/dev/null
}
meta=16384
dmc_cfg() {
	dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
	dm_create figmeta "0 $meta linear $fdev 0" || die "meta"
	dm_create figcdata "0 $((fsz - meta)) linear $fdev $meta" || die "cdata"
	dm_create figdmc "0 $osz cache /dev/mapper/figmeta /dev/mapper/figcdata $md 64 1 writeback smq 0" || die "dm-cache"
	run_cfg /dev/mapper/figdmc
	dmsetup remove figdmc; dmsetup remove figcdata; dmsetup remove figmeta
}
wc_cfg() {
	dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
	dm_create figwc "0 $osz writecache s $md $fdev 4096 0" || die "dm-writecache"
	run_cfg /dev/mapper/figwc
	dmsetup remove figwc
}
# Every configuration in turn, RB rounds: one run moves by +-20% under TCG.
b0="" b1="" b16="" b2="" b3="" _i=0
while [ $_i -lt "$RB" ]; do
	b0="$b0 $(run_cfg "$md")"
	b1="$b1 $(fcache_cfg 64)"
	say "   round $((_i + 1)) fcache volume status: $(cat "$FC_LOGDIR/figvol.status")"
	b16="$b16 $(fcache_cfg 32)"
	b2="$b2 $(dmc_cfg)"
	b3="$b3 $(wc_cfg)"
	_i=$((_i + 1))
done
base=$(echo "$b0" | median) fcb=$(echo "$b1" | median) fcb16=$(echo "$b16" | median)
dmc=$(echo "$b2" | median) wc=$(echo "$b3" | median)
say "B (medians of $RB rounds, each configuration in turn)"
say "B0 70/30 16k zipf:1.1 on md RAID10 (4 spindles), uncached: $base IOPS (rounds:$b0)"
say "B1 fcache writeback (32 KiB blocks, the default): $fcb IOPS: $(ratio "$fcb" "$base")x uncached (rounds:$b1)"
say "B1' fcache writeback (16 KiB blocks, the I/O size): $fcb16 IOPS: $(ratio "$fcb16" "$base")x uncached (rounds:$b16)"
say "B2 dm-cache smq writeback (32 KiB blocks): $dmc IOPS: $(ratio "$dmc" "$base")x uncached (rounds:$b2)"
say "B3 dm-writecache ssd (4 KiB blocks): $wc IOPS: $(ratio "$wc" "$base")x uncached (rounds:$b3)"
say "fcache (32 KiB) vs dm-cache: $(ratio "$fcb" "$dmc")x, vs dm-writecache: $(ratio "$fcb" "$wc")x"
say "fcache (16 KiB) vs dm-cache: $(ratio "$fcb16" "$dmc")x, vs dm-writecache: $(ratio "$fcb16" "$wc")x"

# ---- C: the mix while writeback drains ---------------------------------------
# One pool (32 KiB blocks, default tunables).  Each round first writes every
# dirty block back, then fills the pool with dirty data to writeback_high
# (80% of its blocks, written once each by 32 KiB random writes) with
# writeback held off (writeback_high and writeback_low 100, max_dirty_age
# 0), then either
#   clean: writes it all back (flush message), restores the defaults and
#          measures the mix on the clean pool (the same data cached), or
#   drain: restores the defaults and measures the mix at once, while
#          writeback drains the pool towards writeback_low.
# The two alternate in order; the figure is the ratio of the medians.
dd if=/dev/zero of="$fdev" bs=1M count=1 oflag=direct 2>/dev/null
fc_pool figpool "$fdev" 64 >/dev/null || die "pool C"
fc_vol figvol figpool "$md" 1 writeback >/dev/null || die "vol C"
pool_set() {
	while [ $# -ge 2 ]; do
		dmsetup message figpool 0 "$1" "$2" || die "pool message $1 $2"
		shift 2
	done
}
fill_mb=$(($(status_field figpool $P_TOTAL) * 32 * 80 / 100 / 1024))
fill() {
	dmsetup message figpool 0 flush || die "pool flush"
	pool_set max_dirty_age 0 writeback_high 100 writeback_low 100
	fio --name=fill --filename=/dev/mapper/figvol --direct=1 --ioengine=libaio \
		--iodepth=16 --bs=32k --rw=randwrite --size="${fill_mb}m" >/dev/null 2>&1 ||
		die "fill"
}
defaults() { pool_set writeback_low 50 writeback_high 80 max_dirty_age 60; }
c_clean() {
	fill
	dmsetup message figpool 0 flush || die "pool flush"
	defaults
	fio_iops /dev/mapper/figvol randrw $mix
}
c_drain() {
	fill
	_d0=$(status_field figpool $P_DIRTY)
	defaults
	_v=$(fio_iops /dev/mapper/figvol randrw $mix)
	echo "$_v" "$_d0" "$(status_field figpool $P_DIRTY)"
}
cc="" cd="" _i=0
while [ $_i -lt "$RC" ]; do
	if [ $((_i % 2)) -eq 0 ]; then
		cc="$cc $(c_clean)"; set -- $(c_drain)
	else
		set -- $(c_drain); cc="$cc $(c_clean)"
	fi
	cd="$cd $1"
	say "   round $((_i + 1)) drain: $1 IOPS, dirty blocks $2 -> $3 of $(status_field figpool $P_TOTAL)"
	_i=$((_i + 1))
done
dmsetup status figpool >>"$out"
dmsetup message figpool 0 stats >>"$out" 2>&1 || true
cclean=$(echo "$cc" | median) cdrain=$(echo "$cd" | median)
say "C 70/30 mix while writeback drains a pool filled to writeback_high ($fill_mb MiB dirty): $cdrain IOPS, clean pool $cclean IOPS: $(ratio "$cdrain" "$cclean")x (medians of $RC alternating rounds; rounds: drain$cd; clean$cc)"
dmsetup remove figvol; dmsetup remove figpool
dmesg_clean
finish
