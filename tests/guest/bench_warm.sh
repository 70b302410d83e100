#!/bin/sh
# Guest side of tests/bench/warm_restart.sh (issue 38: the cache after a
# power cut).  The flash (/dev/vdb) and the origin (/dev/vdc) are persistent
# virtio images; the host kills qemu between the two phases.
#   bench_warm.sh MODE before|after
#   MODE: warm (the pool with warm_restart 1) or cold (without)
# before: a fresh pool, the OLTP benchmark's datafile on the origin, the
#   closed loop (32 users, tpcc-like, hotset:95:10) for two minutes: the
#   volume's read hit ratio over the second goes to /results/MODE.before,
#   then a line to /results/MODE.progress, on which the host cuts the
#   power (as the run ends: a run refuses a datafile left unclean, so the
#   cut cannot come inside it; the pool's shutdown is unclean all the same);
# after: the pool loaded from the flash as the cut left it, the same loop
#   for a minute from its start: the read hit ratio of that first minute
#   to /results/MODE.after, and what the load kept (kernel log).
FC_T=bench_warm
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
MODE=${1:-warm} PHASE=${2:-before}
case $MODE in warm) WOPT="warm_restart 1" ;; cold) WOPT="" ;; *) die "mode: warm or cold" ;; esac
R=/results
load_fcache || die "insmod failed" module-load
fl=/dev/vdb org=/dev/vdc
[ -b $fl ] && [ -b $org ] || die "no /dev/vdb or /dev/vdc (run by tests/bench/warm_restart.sh)"
BENCH="--users 32 --warmup 0 --dist hotset:95:10 --buffer-pool 8 --profile tpcc-like --seed 42"

# reads and read hits of the volume so far
counts() { dmsetup status v | awk '{ print $7, $8 }'; }
# ratio A0 H0 A1 H1: the hit ratio (percent) between two counts
window() { awk -v a="$1" -v h="$2" -v b="$3" -v k="$4" 'BEGIN { if (b > a) printf "%.1f", 100 * (k - h) / (b - a); else print "0" }'; }

if [ "$PHASE" = before ]; then
	"$CTL" bench prepare $org --size 192 --page-size 16 --force >/tmp/prep 2>&1 || die "prepare: $(tail -n 2 /tmp/prep)"
	dd if=/dev/zero of=$fl bs=1M count=1 oflag=direct 2>/dev/null
	# shellcheck disable=SC2086
	fc_pool p $fl 32 $WOPT || die "pool"
	fc_vol v p $org 1 writeback sequential_cutoff 0 || die "volume"
	# two minutes; the benchmark's datafile must end clean (a run after
	# an unclean end refuses it), so the cut comes as it ends, not in it
	# shellcheck disable=SC2086
	"$CTL" bench run /dev/mapper/v $BENCH --time 120 --rt-search 0 >/tmp/run 2>&1 &
	bp=$!
	sleep 60
	set -- $(counts)
	a0=$1 h0=$2
	wait $bp || die "bench run: $(tail -n 2 /tmp/run)"
	set -- $(counts)
	echo "$(window "$a0" "$h0" "$1" "$2") $(($1 - a0))" >$R/$MODE.before
	info "the last minute before the cut: read hit ratio $(cut -d' ' -f1 $R/$MODE.before)% of $(($1 - a0)) reads; pool $(dmsetup message p 0 stats | tr ' ' '\n' | grep '^warm' | tr '\n' ' ')"
	sync
	echo cut >$R/$MODE.progress
	sync
	sleep 600
	die "the power was not cut"
fi

dmesg -C
# shellcheck disable=SC2086
fc_pool p $fl 32 $WOPT || die "pool load after the cut"
fc_vol v p $org 1 writeback sequential_cutoff 0 || die "volume after the cut"
kept=$(stats_field p warm_loaded)
info "loaded after the cut: $(dmesg | grep -o 'loaded pool.*' | head -n 1); warm blocks kept: ${kept:-0}"
set -- $(counts)
a0=$1 h0=$2
# shellcheck disable=SC2086
"$CTL" bench run /dev/mapper/v $BENCH --time 60 >/tmp/run 2>&1 || die "bench run after the cut: $(tail -n 2 /tmp/run)"
set -- $(counts)
echo "$(window "$a0" "$h0" "$1" "$2") $(($1 - a0)) ${kept:-0}" >$R/$MODE.after
info "the first minute after the cut: read hit ratio $(cut -d' ' -f1 $R/$MODE.after)% of $(($1 - a0)) reads"
grep -E 'integrity|verified' /tmp/run | tail -n 1
dm_remove v
dm_remove p
pass "bench-warm-$MODE-after"
dmesg_clean
finish
