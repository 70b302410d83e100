#!/bin/sh
# Guest side of tests/bench/warm_restart.sh (issue 38: the cache after a
# power cut), on the demo's testbed: the origin an md RAID10 of four
# null_blk spindles (4 ms an I/O, depth 1), the flash 64 MiB behind a
# dm-linear that can be frozen.  For each mode (warm: the pool with
# warm_restart 1; cold: without):
#   1. a fresh pool, the OLTP benchmark's datafile (200 MiB), the closed
#      loop (32 users, tpcc-like or P, hotset:95:10, 8 MiB buffer pool) for two
#      minutes; the volume's read hit ratio over the second minute;
#   2. the power cut as the run ends: the flash frozen (dm suspend: what was
#      in flight completes, nothing more is written) and copied to a
#      second device, the live pool and volume removed (the benchmark's
#      datafile must end clean: a run refuses one left unclean, so the cut
#      cannot come inside the run; the pool's shutdown, which is what the
#      cut is about, is unclean all the same);
#   3. the pool loaded from the copy, the loop's first minute: its read hit
#      ratio (and its first 10 s'), and what the load kept (warm_loaded).
#   bench_warm.sh [profile=P] MODE...  (P: the benchmark's profile, tpcc-like)
# Prints "bench-warm MODE: before B after A reads N kept K first10 F" a mode.
FC_T=bench_warm
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
load_fcache || die "insmod failed" module-load
org=$(mk_raid10 256) || die "md RAID10 of spindles"
fl=$(mk_fast_disk 64) && fl2=$(mk_fast_disk 64) || die "flash"
PROFILE=tpcc-like
case ${1:-} in profile=*) PROFILE=${1#profile=}; shift ;; esac
BENCH="--users 32 --warmup 0 --dist hotset:95:10 --buffer-pool 8 --profile $PROFILE --seed 42 --rt-search 0"

# reads and read hits of the volume so far
counts() { dmsetup status v | awk '{ print $7, $8 }'; }
# window A0 H0 A1 H1: the hit ratio (percent) between two counts
window() { awk -v a="$1" -v h="$2" -v b="$3" -v k="$4" 'BEGIN { if (b > a) printf "%.1f", 100 * (k - h) / (b - a); else print "0" }'; }

for mode in ${*:-warm cold}; do
	case $mode in warm) wopt="warm_restart 1" ;; *) wopt="" ;; esac
	"$CTL" bench prepare "$org" --size 200 --page-size 16 --force >/tmp/prep 2>&1 ||
		die "prepare: $(tail -n 2 /tmp/prep)"
	dd if=/dev/zero of="$fl" bs=1M count=1 oflag=direct 2>/dev/null
	dm_create flin "0 $(dev_sectors "$fl") linear $fl 0" || die "flin"
	# shellcheck disable=SC2086
	fc_pool p /dev/mapper/flin 32 $wopt || die "pool"
	fc_vol v p "$org" 1 writeback sequential_cutoff 0 || die "volume"
	# shellcheck disable=SC2086
	"$CTL" bench run /dev/mapper/v $BENCH --time 120 >/tmp/run 2>&1 &
	bp=$!
	sleep 60
	set -- $(counts)
	a0=$1 h0=$2
	wait $bp || die "bench run: $(tail -n 2 /tmp/run)"
	set -- $(counts)
	before=$(window "$a0" "$h0" "$1" "$2")
	info "$mode: the last minute before the cut: read hit ratio $before% of $(($1 - a0)) reads; $(dmsetup message p 0 stats | tr ' ' '\n' | grep '^warm_blocks')"
	# the cut: the flash frozen and copied; the live stack goes
	dmsetup suspend flin || die "suspend"
	dd if="$fl" of="$fl2" bs=1M iflag=direct oflag=direct status=none || die "copy"
	dmsetup resume flin
	dm_remove v && dm_remove p && dm_remove flin || die "teardown"
	dmesg -C
	# shellcheck disable=SC2086
	fc_pool p "$fl2" 32 $wopt || die "pool load after the cut"
	fc_vol v p "$org" 1 writeback sequential_cutoff 0 || die "volume after the cut"
	kept=$(stats_field p warm_loaded)
	info "$mode: $(dmesg | grep -o 'loaded pool.*' | head -n 1); warm blocks kept ${kept:-0}"
	set -- $(counts)
	a0=$1 h0=$2
	# shellcheck disable=SC2086
	"$CTL" bench run /dev/mapper/v $BENCH --time 60 >/tmp/run 2>&1 &
	bp=$!
	sleep 10
	set -- $(counts)
	first10=$(window "$a0" "$h0" "$1" "$2")
	wait $bp || die "bench run after the cut: $(tail -n 2 /tmp/run)"
	set -- $(counts)
	after=$(window "$a0" "$h0" "$1" "$2")
	grep -h 'integrity:' /tmp/run | tail -n 1
	echo "bench-warm $mode: before $before after $after reads $(($1 - a0)) kept ${kept:-0} first10 $first10"
	dm_remove v && dm_remove p || die "teardown after"
	pass "bench-warm-$mode"
done
dmesg_clean
finish
