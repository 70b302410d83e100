#!/bin/sh
# The spread of whole runs: the demo's closed loop at 128 users (tpcc
# profile, hotset:95:10, 8 MiB buffer pool, 256 MiB datafile on the md
# RAID10 of four emulated spindles, 64 MiB of flash), fcache (16 KiB
# blocks, defaults, as the demo) and dm-writecache alternating, ROUNDS
# runs each in one boot, each on a freshly prepared datafile and a blank
# cache, SECONDS measured after a 20 s warmup.  A measurement, not a test.
#   perf_rounds.sh CTL [SECONDS [ROUNDS]]   (default 60 s, 3 rounds;
#   tests/bench/rounds.sh boots it)
# Output: /results/rounds.txt, a line per run (TPS, average ms) and the
# medians, their spread and fcache's ratio; each run's report and the
# caches' status and counters after it beside it.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$1 T=${2:-60} R=${3:-3}
out=/results/rounds.txt
: >"$out"
say() { echo "$*" | tee -a "$out"; }
load_fcache || die "cannot load dm-fcache"
modprobe dm-writecache 2>/dev/null
md=$(mk_raid10 256) || die "raid10"
flash=$(mk_brd_flash 64) || die "brd"
osz=$(dev_sectors "$md")

# run NAME DEV CACHE_DEVS: one measured run; "NAME TPS AVG_MS" to rounds.txt
run() {
	"$CTL" bench run "$2" --users 128 --warmup 20 --time "$T" --buffer-pool 8 \
		--dist hotset:95:10 --report-interval 10 >"/results/bench-$1.txt" 2>&1 ||
		die "bench run $1: $(tail -n 3 "/results/bench-$1.txt")"
	for _v in $3; do
		echo "$_v $(dmsetup status "$_v")"
		dmsetup message "$_v" 0 stats 2>/dev/null
	done >"/results/status-$1.txt"
	# the summary table's row: users TPS avg-ms ...
	_row=$(awk '/^ *users +TPS/ { getline; print $2, $3; exit }' "/results/bench-$1.txt")
	[ -n "$_row" ] || die "bench run $1: no summary row"
	say "run $1 $_row"
}
blank_flash() { dd if=/dev/zero of="$flash" bs=1M count=1 oflag=direct 2>/dev/null; }
i=0
while [ $i -lt "$R" ]; do
	i=$((i + 1))
	"$CTL" bench prepare "$md" --force >/dev/null 2>&1 || die "prepare"
	blank_flash
	fc_pool dpool "$flash" 32 >/dev/null && fc_vol dvol dpool "$md" 1 writeback >/dev/null ||
		die "fcache stack"
	run "fcache-$i" /dev/mapper/dvol "dvol dpool"
	dm_remove dvol && dm_remove dpool || die "fcache teardown"
	"$CTL" bench prepare "$md" --force >/dev/null 2>&1 || die "prepare"
	blank_flash
	dm_create dwc "0 $osz writecache s $md $flash 4096 0" || die "dm-writecache"
	run "dmwc-$i" /dev/mapper/dwc dwc
	dm_remove dwc || die "dm-writecache teardown"
done
# medians, spread (max - min over the median) and the ratio
awk '$1 == "run" { split($2, a, "-"); n[a[1]]++; t[a[1], n[a[1]]] = $3 }
	function med(c,   k, j, x, m) {
		m = n[c]
		for (k = 1; k <= m; k++) v[k] = t[c, k]
		for (k = 1; k <= m; k++) for (j = k + 1; j <= m; j++) if (v[j] < v[k]) { x = v[k]; v[k] = v[j]; v[j] = x }
		lo[c] = v[1]; hi[c] = v[m]
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	END {
		f = med("fcache"); d = med("dmwc")
		printf "median TPS: fcache %.2f (spread %.1f%%), dm-writecache %.2f (spread %.1f%%)\n",
			f, 100 * (hi["fcache"] - lo["fcache"]) / f, d, 100 * (hi["dmwc"] - lo["dmwc"]) / d
		printf "fcache / dm-writecache TPS: %.2fx\n", f / d
	}' "$out" | tee -a "$out"
dmesg_clean
finish
