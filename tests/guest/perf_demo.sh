#!/bin/sh
# Where the time goes in the demo's closed loop at 128 users (tpcc profile,
# hotset:95:10, 8 MiB buffer pool, 256 MiB datafile on the md RAID10 of four
# emulated spindles, 64 MiB of flash), for fcache (16 KiB blocks, as the
# demo) and dm-writecache: perf samples of every CPU and the spindles' and
# flash's I/O counts and busy time over the same measured window.  A
# profile, not a test.
#   perf_demo.sh CTL [SECONDS [POOL_OPTIONS...]]   (default 30 s, the window's nominal length;
#   tests/bench/profile.sh boots it).  Each POOL_OPTIONS argument ("-" for
#   the defaults, or option words such as "writeback_high 90", and "+log"
#   for a volume writing back through an ordered log of 128 MiB on the
#   RAID10, with "ordered 1") is one fcache run, in order, before
#   dm-writecache's; none: one run with the defaults.
. "$FC_TOP/tests/guest/lib.sh"
CTL=$1 T=${2:-30}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
[ $# -gt 0 ] || set -- -
out=/results/perf_demo.txt
: >"$out"
say() { echo "$*" | tee -a "$out"; }
perf_ready

load_fcache || die "cannot load dm-fcache"
modprobe dm-writecache 2>/dev/null
# the RAID10 holds the datafile's volume (256 MiB) and, after it, room for
# an ordered log (128 MiB, "+log"): both dm-linear over it, as LVs would be
raid=$(mk_raid10 384) || die "raid10"
osz=$((256 * 2048))
dm_create dorig "0 $osz linear $raid 0" &&
	dm_create dolog "0 $((128 * 2048)) linear $raid $osz" || die "linear"
md=/dev/mapper/dorig
flash=$(mk_brd_flash 64) || die "brd"

# disk stats of the spindles, md0 and the flash: name reads writes busy_ms
dstat() { awk '$3 ~ /^(fcspin|md0|ram0|dm-)/ { print $3, $4, $6, $8, $10, $13 }' /proc/diskstats | sort; }
# counters NAME DEV...: the stats messages of the fcache devices (none for others)
counters() {
	_n=$1; shift
	for _v in "$@"; do dmsetup message "$_v" 0 stats 2>/dev/null; done | tr ' ' '\n' | grep = >"$_n"
}
# profile NAME DEV
profile() {
	"$CTL" bench prepare "$md" --force >/dev/null 2>&1 || die "prepare"
	(
		sleep 25
		# perf takes seconds to start and to write its data under TCG:
		# it samples around the window, not inside its bounds
		perf record -q -a -g -e cpu-clock -F 499 -o "/tmp/$1.data" -- sleep $((T + 4)) >/dev/null 2>&1 &
		# the block layer's view of the cache device's flushes
		perf record -q -a -m 2048 -e block:block_bio_queue -e block:block_bio_complete \
			-e workqueue:workqueue_execute_start -e workqueue:workqueue_execute_end \
			-o "/tmp/$1.blk" -- sleep $((T + 4)) >/dev/null 2>&1 &
		sleep 2
		date +%s.%N >"/tmp/$1.t0"
		dstat >"/tmp/$1.d0"
		counters "/tmp/$1.c0" $FCDEVS
		sleep "$T"
		dstat >"/tmp/$1.d1"
		counters "/tmp/$1.c1" $FCDEVS
		date +%s.%N >"/tmp/$1.t1"
		wait
	) &
	_p=$!
	# the window (from 27 s to about 27 + T) ends well inside the measured
	# step (20 s to 20 + T + 30 s); its own length divides the counts
	"$CTL" bench run "$2" --users 128 --warmup 20 --time $((T + 30)) --buffer-pool 8 \
		--dist hotset:95:10 --report-interval 10 >"/tmp/$1.bench" 2>&1
	wait $_p
	say "== $1"
	grep -i "tps\|128 " "/tmp/$1.bench" | tail -8 | tee -a "$out"
	_w=$(cat "/tmp/$1.t0" "/tmp/$1.t1" | awk 'NR == 1 { a = $1 } NR == 2 { printf "%.1f", $1 - a }')
	say "disk I/O in the window ($_w s): device reads (KiB each) writes (KiB each) busy_ms (busy % of the window)"
	join "/tmp/$1.d0" "/tmp/$1.d1" | awk -v t="$_w" '{ r = $7 - $2; rs = $8 - $3; w = $9 - $4; ws = $10 - $5; b = $11 - $6;
		if (r + w) printf "  %-8s %7d (%5.1f) %7d (%5.1f) %7d (%3.0f%%)\n", $1, r, r ? rs / r / 2 : 0, w, w ? ws / w / 2 : 0, b, b / (t * 10) }' | tee -a "$out"
	# what decides the TPS here: spindle operations a transaction costs
	_tps=$(awk '$1 == 128 && NF == 9 { print $2; exit }' "/tmp/$1.bench")
	join "/tmp/$1.d0" "/tmp/$1.d1" | awk -v tps="$_tps" -v t="$_w" '$1 ~ /^fcspin/ { r += $7 - $2; w += $9 - $4 }
		END { if (tps > 0) printf "spindle operations per transaction: %.3f (reads %.3f, writes %.3f) at %s TPS\n",
			(r + w) / (tps * t), r / (tps * t), w / (tps * t), tps }' | tee -a "$out"
	if [ -s "/tmp/$1.c1" ]; then
		say "counters in the window:"
		awk -F= 'NR == FNR { a[$1] = $2; next } { printf "%s=%d ", $1, $2 - a[$1] } END { print "" }' \
			"/tmp/$1.c0" "/tmp/$1.c1" | tee -a "$out"
	fi
	perf report -i "/tmp/$1.data" --no-children --sort comm --stdio -g none 2>/dev/null |
		grep -v '^#' | grep . | head -8 | tee -a "$out"
	perf report -i "/tmp/$1.data" --no-children --sort sym --stdio -g none 2>/dev/null |
		grep -v '^#' | grep . | head -30 | tee -a "$out"
	cp "/tmp/$1.bench" "/results/perf_demo-$1.bench"
	# an empty flush of the device under test (the page cleaner's
	# fdatasync, one at a time), from its queueing to its completion: the
	# device's share of the fdatasync column above
	_dev=$(majmin "$2" | tr : ,)
	flush_times "$1" "$_dev" "the device under test"
	[ -n "$FCDEVS" ] && flush_parts "$1" "$_dev"
	# the origin's (md0), which a cache's flush may wait for too
	flush_times "$1" "$(majmin "$md" | tr : ,)" "the origin"
	# fcache's commit worker: each run, from the workqueue's start to its end
	perf script -i "/tmp/$1.blk" -F time,event,trace 2>/dev/null |
		awk '$2 ~ /execute_start/ && / fc_commit_work/ { w = $5; t = $1; sub(":", "", t); st[w] = t }
			$2 ~ /execute_end/ && / fc_commit_work/ { w = $5; if (w in st) { t = $1; sub(":", "", t)
				d = (t - st[w]) * 1000; n++; s += d; delete st[w] } }
			END { if (n) printf "commit worker runs (fc_commit_work): %d, average %.3f ms\n", n, s / n }' |
		tee -a "$out"
	[ -n "$FCDEVS" ] && commit_profile "$1"
}

# commit_profile NAME: the CPU samples whose call chain holds fcache's
# commit worker (fc_commit_work), by function: inclusive (the samples in
# which it is on the stack under the worker) and self (it is the leaf)
commit_profile() {
	perf script -i "/tmp/$1.data" -F ip,sym 2>/dev/null |
		awk 'function done() { if (inw) { n++; self[leaf]++; for (f in seen) inc[f]++ }
				delete seen; inw = 0; leaf = ""; depth = 0 }
			NF == 0 { done(); next }
			{ f = $2; sub(/\+0x[0-9a-f]+$/, "", f)
			  if (!depth++) leaf = f
			  if (f == "fc_commit_work") inw = 1
			  else if (!inw) seen[f] = 1 }
			END { done(); print n >"/tmp/cw.n"
				for (f in inc) printf "  %-36s %5.1f%% %5.1f%%\n", f, 100 * inc[f] / n, 100 * self[f] / n }' |
		sort -k2,2 -rn | head -40 >/tmp/cw.top
	say "commit worker samples: $(cat /tmp/cw.n) (per function under it: inclusive % / self % of them)"
	tee -a "$out" </tmp/cw.top
}

# flush_parts NAME DEV: each empty flush of DEV split at fcache's commit
# worker: from its queueing to the start of the worker's next run (the
# worker takes the flushes queued before it starts), from that start to
# its completion or the run's end, and after the run's end
flush_parts() {
	perf script -i "/tmp/$1.blk" -F time,event,trace 2>/dev/null |
		awk -v dev="$2" '{ t = $1 + 0 }
		$2 ~ /block_bio_queue/ && $3 == dev && $4 ~ /^F/ && $7 == 0 { q[++nq] = t; st[nq] = 0; next }
		$2 ~ /execute_start/ && / fc_commit_work/ { for (i in q) if (!st[i]) st[i] = t; next }
		$2 ~ /execute_end/ && / fc_commit_work/ { for (i in q) if (st[i] && !en[i]) en[i] = t; next }
		$2 ~ /block_bio_complete/ && $3 == dev && $4 ~ /^F/ && $7 == 0 {
			for (i in q) if (!k || q[i] < q[k]) k = i
			if (!k) next
			if (!st[k] || st[k] > t) { nw++ } else {
				e = (en[k] && en[k] < t) ? en[k] : t
				a += st[k] - q[k]; b += e - st[k]; c += t - e; n++ }
			delete q[k]; delete st[k]; delete en[k]; k = 0 }
		END { if (n) printf "those flushes at the commit worker: %d; to its next start %.3f ms, in its run %.3f ms, after its end %.3f ms (averages); %d completed without a run\n",
			n, a * 1000 / n, b * 1000 / n, c * 1000 / n, nw }' |
		tee -a "$out"
}

# flush_times NAME DEV LABEL: the empty flushes of DEV (major,minor) in the
# block trace, from their queueing to their completion
flush_times() {
	perf script -i "/tmp/$1.blk" -F time,event,trace 2>/dev/null |
		awk -v dev="$2" -v what="$3" '$3 == dev && $4 ~ /^F/ && $7 == 0 { t = $1; sub(":", "", t)
			if ($2 ~ /queue/) { if (q) u++; q = t } else if (q) { d = (t - q) * 1000; n++; s += d; if (d > m) m = d; q = 0 } }
		END { if (n) printf "empty flushes of %s (%s) at the block layer: %d, average %.3f ms, max %.3f ms (%d with no completion traced: left out)\n", dev, what, n, s / n, m, u }' |
		tee -a "$out"
}

# What a 4 KiB page's crc32c (every metadata page's checksum) costs in this
# guest, per kernel implementation (AF_ALG; an 8-byte hash's time taken off)
modprobe crc32c_generic 2>/dev/null
python3 - <<'PY' | tee -a "$out"
import os, socket, time
buf, n, got = os.urandom(4096), 1000, []
for drv in ("crc32c-intel", "crc32c-generic"):
    try:
        s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
        s.bind(("hash", drv))
        op, _ = s.accept()
    except OSError:
        continue
    t = []
    for data in (buf[:8], buf):
        t0 = time.perf_counter()
        for _ in range(n):
            op.sendall(data)
            op.recv(4)
        t.append(time.perf_counter() - t0)
    got.append("%s %.1f us" % (drv, (t[1] - t[0]) / n * 1e6))
print("crc32c of a 4 KiB page in this guest: " + (", ".join(got) or "no AF_ALG hash"))
PY
# the implementation the kernel's crc32c() (libcrc32c, so fcache's seals) uses:
# the highest priority one registered
awk '/^name/ { n = $3 } /^driver/ { d = $3 } /^priority/ { if (n == "crc32c" && $3 > p) { p = $3; b = d } }
	END { printf "crc32c() in this guest: %s (priority %d)\n", b, p }' /proc/crypto | tee -a "$out"

_run=0
for _opts in "$@"; do
	_run=$((_run + 1))
	_cfg=fcache
	[ $# -gt 1 ] && _cfg=fcache$_run
	dd if=/dev/zero of="$flash" bs=1M count=1 oflag=direct 2>/dev/null
	# "+log": the volume writes back through an ordered log on the RAID10
	_vopts=
	case "$_opts" in
	*+log*)
		"$CTL" ordered-log format /dev/mapper/dolog --origin "$md" --force >/dev/null ||
			die "ordered-log format"
		_vopts="ordered_log /dev/mapper/dolog"
		;;
	esac
	if [ "$_opts" = - ]; then
		fc_pool dpool "$flash" 32 >/dev/null || die "pool"
	else
		say "== $_cfg: pool options $_opts"
		# shellcheck disable=SC2086 # option words
		fc_pool dpool "$flash" 32 ${_opts%%+log*} >/dev/null || die "pool $_opts"
	fi
	# shellcheck disable=SC2086 # option words
	fc_vol dvol dpool "$md" 1 writeback $_vopts >/dev/null || die "vol"
	FCDEVS="dvol dpool" profile "$_cfg" /dev/mapper/dvol
	say "fcache: $(dmsetup message dvol 0 stats 2>&1)"
	say "pool: $(dmsetup message dpool 0 stats 2>&1)"
	say "pool status: $(dmsetup status dpool)"
	dm_remove dvol; dm_remove dpool
done

dd if=/dev/zero of="$flash" bs=1M count=1 oflag=direct 2>/dev/null
dm_create dwc "0 $osz writecache s $md $flash 4096 0" || die "dm-writecache"
FCDEVS= profile dmwc /dev/mapper/dwc
say "dm-writecache status: $(dmsetup status dwc)"
dm_remove dwc
dm_remove dolog
dm_remove dorig
dmesg_clean
