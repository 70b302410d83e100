#!/bin/sh
# What fcache costs once the data is on the flash (issue 34), all in one
# guest run (tests/bench/hitpath.sh boots it).  A benchmark, not a test: it
# measures and reports ratios against dm-linear over the same flash device
# in the same guest, and asserts nothing (make check does not run it).
#   fio: 4 KiB and 16 KiB random read, random write and a 70/30 mix, at
#     queue depth 1 (average latency) and 32 (IOPS), on a 64 MiB working
#     set entirely cached, for dm-linear over the flash, fcache (writeback,
#     32 KiB blocks), dm-cache (smq, writeback, 32 KiB blocks) and
#     dm-writecache (4 KiB blocks); each configuration set up afresh and
#     warmed in every round (the set written once, then read twice: every
#     cache holds all of it), the configurations in turn, rotated from
#     round to round; medians of the rounds.
#   ftrace (profile=1): where the time goes per 4 KiB random read and
#     write, fcache against dm-linear (the function_graph tracer: perf
#     under TCG samples only the idle loop).
#   pgbench (pg=N, N rounds, 0 for none): PostgreSQL on ext4, its data
#     (scale 8, about 130 MiB) fitting the flash, 8 clients: the database
#     on the flash alone, on fcache, dm-cache and dm-writecache over an md
#     RAID10 of four emulated spindles.
#   A/B (ab=KO): fc_map and fc_end_io of this module against the module
#     KO (another build, a path the guest sees), 5 rounds, each module
#     first in turn, each the time per call of 4000 4 KiB reads and writes
#     (ftrace, as profile); the median of the rounds' ratios.
#   A/B of fio (abfio=KO): this module against KO on fcache alone, R
#     rounds (each module first in turn, each set up and warmed afresh):
#     4 KiB random writes and the 70/30 mix at depth 32, 16 KiB random
#     writes at depth 32, 4 KiB random writes at depth 1; the IOPS of
#     each, and the median of the rounds' ratios (this / KO)
#   engine=io_uring: fio's io_uring engine instead of libaio (io_uring
#     submits inline to a device that takes REQ_NOWAIT, else from a worker
#     thread: dm-linear and fcache take it, dm-cache and dm-writecache not)
#   fio_hitpath.sh [SECONDS [ROUNDS [profile=0|1] [pg=N] [ab=KO] [abfio=KO] [engine=E]]]   (defaults 5, 3)
. "$FC_TOP/tests/guest/lib.sh"
T=${1:-5} R=${2:-3}
PROF=0 PG=2 AB= ABFIO= ENGINE=libaio
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
for a in "$@"; do
	case "$a" in
	profile=*) PROF=${a#profile=} ;;
	pg=*) PG=${a#pg=} ;;
	ab=*) AB=${a#ab=} ;;
	abfio=*) ABFIO=${a#abfio=} ;;
	engine=*) ENGINE=${a#engine=} ;;
	*) die "unknown argument $a" ;;
	esac
done
out=/results/hitpath.txt
: >"$out"
say() { echo "$*" | tee -a "$out"; }

load_fcache || die "cannot load dm-fcache"
modprobe dm-cache-smq 2>/dev/null
modprobe dm-writecache 2>/dev/null
set -- $(mk_brd_flash 512 1) || die "brd"
flash=$1
WS=64
origin=$(mk_fast_disk 128) || die "origin"
fsz=$(dev_sectors "$flash")
meta=16384

# fio_one DEV BS RW QD: "IOPS LAT_US" (reads and writes together; the
# latency is the mean of every completion, reads and writes weighted)
fio_one() {
	_mix=
	[ "$3" = randrw ] && _mix=--rwmixread=70
	fio --name=h --filename="$1" --direct=1 --ioengine="$ENGINE" --iodepth="$4" \
		--bs="$2" --rw="$3" $_mix --size=${WS}m --time_based --runtime="$T" \
		--norandommap --randrepeat=1 --output-format=json 2>/dev/null |
		python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
r, w = j["read"], j["write"]
n = r["total_ios"] + w["total_ios"]
lat = (r["lat_ns"]["mean"] * r["total_ios"] + w["lat_ns"]["mean"] * w["total_ios"]) / max(n, 1)
print("%d %.1f" % (r["iops"] + w["iops"], lat / 1000))'
}

# cache_on CFG ORIGIN [VOLUME OPTION WORDS]: fcache, dm-cache or
# dm-writecache over ORIGIN on the (zeroed) flash; its device in $dev
cache_on() {
	_c=$1 _o=$2
	shift 2
	dd if=/dev/zero of="$flash" bs=1M count=4 oflag=direct 2>/dev/null
	case "$_c" in
	fcache)
		fc_pool hpool "$flash" 64 >/dev/null || die "pool"
		fc_vol hvol hpool "$_o" 1 writeback "$@" >/dev/null || die "volume"
		dev=/dev/mapper/hvol ;;
	dmcache)
		dm_create hmeta "0 $meta linear $flash 0" || die "meta"
		dm_create hcdata "0 $((fsz - meta)) linear $flash $meta" || die "cdata"
		dm_create hdmc "0 $(dev_sectors "$_o") cache /dev/mapper/hmeta /dev/mapper/hcdata $_o 64 1 writeback smq 0" ||
			die "dm-cache"
		dev=/dev/mapper/hdmc ;;
	dmwc) dm_create hwc "0 $(dev_sectors "$_o") writecache s $_o $flash 4096 0" || die "dm-writecache"
		dev=/dev/mapper/hwc ;;
	esac
}

# setup CFG: the configuration's device in $dev, warmed (every block of the
# working set cached); teardown CFG
setup() {
	case "$1" in
	linear) dm_create hlin "0 $fsz linear $flash 0" || die "linear"; dev=/dev/mapper/hlin ;;
	fcache) cache_on fcache "$origin" sequential_cutoff 0 ;;
	*) cache_on "$1" "$origin" ;;
	esac
	# written once (dm-writecache caches only writes), read twice (fcache
	# admits on the second touch, smq promotes hot blocks)
	dd if=/dev/urandom of=/tmp/hws bs=1M count=$WS 2>/dev/null
	dd if=/tmp/hws of="$dev" bs=1M oflag=direct 2>/dev/null || die "warm write $1"
	for _p in 1 2 3; do
		fio --name=w --filename="$dev" --direct=1 --ioengine=libaio --iodepth=32 --bs=4k \
			--rw=randread --size=${WS}m >/dev/null 2>&1
	done
}
teardown() {
	case "$1" in
	linear) dmsetup remove hlin ;;
	fcache) dmsetup status hvol >"$FC_LOGDIR/hvol.status"
		dmsetup message hvol 0 flush; dmsetup remove hvol; dmsetup remove hpool ;;
	dmcache) dmsetup status hdmc >"$FC_LOGDIR/hdmc.status"
		dmsetup remove hdmc; dmsetup remove hcdata; dmsetup remove hmeta ;;
	dmwc) dmsetup status hwc >"$FC_LOGDIR/hwc.status"; dmsetup remove hwc ;;
	esac
}

cfgs="linear fcache dmcache dmwc"
pats="4k:randread 4k:randwrite 4k:randrw 16k:randread 16k:randwrite 16k:randrw"
res=/tmp/hitpath.res
: >"$res"

# ---- A/B (ab=, abfio=): this module against another build ------------------------
ab_this=$FC_KO
# ab_order ROUND: the modules' order in a round (each first in turn: the
# guest drifts within a round too)
ab_order() { if [ $(($1 % 2)) = 1 ]; then echo "other this"; else echo "this other"; fi; }
# ab_setup WHICH OTHER_KO: that module loaded (this: the one the guest
# started with), fcache set up and warmed; ab_back: this module again
ab_setup() {
	unload_fcache || die "rmmod"
	if [ "$1" = this ]; then FC_KO=$ab_this; else FC_KO=$2; fi
	load_fcache || die "insmod $FC_KO"
	setup fcache
}
ab_back() {
	FC_KO=$ab_this
	unload_fcache && load_fcache || die "insmod $FC_KO"
}

# ---- A/B of fio: this module against another build, fcache alone ----------------
if [ -n "$ABFIO" ]; then
	[ -f "$ABFIO" ] || die "no module $ABFIO"
	abres=/tmp/abfio.res
	: >"$abres"
	abpats="4k:randwrite:32 4k:randrw:32 16k:randwrite:32 4k:randwrite:1"
	i=0
	while [ $i -lt "$R" ]; do
		for k in $(ab_order $i); do
			ab_setup $k "$ABFIO"
			for p in $abpats; do
				_b=${p%%:*} _q=${p##*:} _rw=${p#*:}
				_rw=${_rw%:*}
				set -- $(fio_one "$dev" "$_b" "$_rw" "$_q")
				echo "$k $p $((i + 1)) $1" >>"$abres"
			done
			say "   abfio round $((i + 1)) $k: $(stats_field hpool quick_writes | sed 's/^/quick_writes /')"
			teardown fcache
		done
		i=$((i + 1))
	done
	ab_back
	say "A/B of fio IOPS on fcache, $R rounds of $T s, each module first in turn (this: $ab_this, other: $ABFIO)"
	for p in $abpats; do
		_t=$(awk -v p="$p" '$1 == "this" && $2 == p { printf "%s ", $4 }' "$abres")
		_o=$(awk -v p="$p" '$1 == "other" && $2 == p { printf "%s ", $4 }' "$abres")
		_r=$(awk -v p="$p" '$2 == p { v[$1, $3] = $4 } END { for (j = 1; v["this", j] != ""; j++)
			printf "%.3f ", v["this", j] / v["other", j] }' "$abres")
		say "$(printf '  %-16s this %s(median %s)  other %s(median %s)  this/other by round: %s-> median %s' \
			"$p" "$_t" "$(echo $_t | median)" "$_o" "$(echo $_o | median)" "$_r" "$(echo $_r | median)")"
	done
fi
# abfio alone: no table of every configuration
[ -n "$ABFIO" ] && R=0

i=0
while [ $i -lt "$R" ]; do
	# rotate the order: no configuration always first after the boot
	order=$(echo $cfgs | awk -v k=$i '{ for (j = 0; j < NF; j++) printf "%s ", $((j + k) % NF + 1) }')
	for c in $order; do
		setup $c
		for p in $pats; do
			for qd in 1 32; do
				set -- $(fio_one "$dev" "${p%%:*}" "${p#*:}" $qd)
				echo "$c $p $qd $1 $2" >>"$res"
			done
		done
		teardown $c
		case $c in
		fcache) say "   round $((i + 1)) fcache status: $(cat "$FC_LOGDIR/hvol.status")" ;;
		dmcache) say "   round $((i + 1)) dm-cache status: $(cat "$FC_LOGDIR/hdmc.status")" ;;
		dmwc) say "   round $((i + 1)) dm-writecache status: $(cat "$FC_LOGDIR/hwc.status")" ;;
		esac
	done
	i=$((i + 1))
done

# med CFG PAT QD FIELD(4 IOPS, 5 latency)
med() { awk -v c="$1" -v p="$2" -v q="$3" -v f="$4" '$1 == c && $2 == p && $3 == q { printf "%s ", $f }' "$res" | median; }
[ "$R" -gt 0 ] && say "fio on a ${WS} MiB working set entirely cached (origin: null_blk), medians of $R rounds of $T s, fio engine $ENGINE"
# table QD FIELD: one row a pattern, each cache's median beside dm-linear's
table() {
	printf '%-14s %18s %18s %18s %18s\n' pattern dm-linear fcache dm-cache dm-writecache | tee -a "$out"
	for p in $pats; do
		l=$(med linear "$p" "$1" "$2")
		line=$(printf '%-14s %18s' "$p" "$l")
		for c in fcache dmcache dmwc; do
			v=$(med $c "$p" "$1" "$2")
			line="$line $(printf '%18s' "$v ($(ratio "$v" "$l")x)")"
		done
		say "$line"
	done
}
if [ "$R" -gt 0 ]; then
	say "queue depth 32: IOPS (ratio to dm-linear over the same flash)"
	table 32 4
	say "queue depth 1: average latency, us (ratio to dm-linear)"
	table 1 5
	say "rounds (config pattern depth IOPS latency_us):"
	sed 's/^/   /' "$res" >>"$out"
fi

# ---- ftrace: where the time goes per I/O, fcache against dm-linear ---------------
# perf under TCG samples only the idle loop; the function_graph tracer times
# each call instead.  Traced from the dm device's entry (dm_submit_bio: dm
# core and the target's map, not the flash's I/O, which runs after it
# returns) and its clone's completion (clone_endio: dm core and the target's
# end_io), synchronous 4 KiB I/Os of the cached set: traced one deep, the
# two totals (least disturbed by the tracer), then the target's map and
# end_io alone (fc_map, linear_map); for fcache also map_rw and fc_end_io
# two deep, where their time goes.
ft=/sys/kernel/tracing
gres=/tmp/graph.res
: >"$gres"
# graph CFG RW DEPTH NIO FUNCTIONS: NIO I/Os traced DEPTH deep from FUNCTIONS
graph() {
	echo 0 >$ft/tracing_on
	echo nop >$ft/current_tracer
	echo 16384 >$ft/buffer_size_kb
	echo "$5" >$ft/set_graph_function || die "set_graph_function $5"
	# one deep: only FUNCTIONS instrumented (every instrumented call
	# costs its trampoline, traced or not); deeper: all of them
	if [ "$3" = 1 ]; then
		echo "$5" >$ft/set_ftrace_filter
	else
		: >$ft/set_ftrace_filter
	fi
	echo "$3" >$ft/max_graph_depth
	echo 1 >$ft/options/funcgraph-tail
	echo 0 >$ft/options/funcgraph-irqs
	echo function_graph >$ft/current_tracer
	: >$ft/trace
	echo 1 >$ft/tracing_on
	if ! timeout 900 fio --name=p --filename="$dev" --direct=1 --ioengine=psync --bs=4k \
		--rw="$2" --size=${WS}m --number_ios="$4" --norandommap --randrepeat=1 \
		>/dev/null 2>&1; then
		echo 0 >$ft/tracing_on
		echo w >/proc/sysrq-trigger
		dmesg | tail -n 150
		die "fio under the tracer did not end ($1 $2 depth $3)"
	fi
	echo 0 >$ft/tracing_on
	say "== ftrace $1, 4k $2 at depth 1, $4 I/Os, from $5, traced $3 deep (us per call; per I/O)"
	python3 "$FC_TOP/tests/guest/graph_avg.py" "$4" <$ft/trace | tee -a "$out" |
		awk -v c="$1" -v rw="$2" -v d="$3" '$1 == 1 && d == 1 { print c, rw, $2, $4 }' >>"$gres"
	echo nop >$ft/current_tracer
}
if [ "$PROF" = 1 ] || [ -n "$AB" ]; then
	[ -e $ft/trace ] || mount -t tracefs nodev $ft || die "no tracefs"
fi
if [ "$PROF" = 1 ]; then
	say "crc32c drivers (priority): $(awk '/^name/ { n = $3 } /^driver/ { d = $3 }
		/^priority/ { if (n == "crc32c") printf "%s (%s) ", d, $3 }' /proc/crypto);" \
		"sse4_2: $(grep -c -w sse4_2 /proc/cpuinfo) CPUs"
	for c in linear fcache; do
		setup $c
		for rw in randread randwrite; do
			graph $c $rw 1 4000 "dm_submit_bio clone_endio"
			if [ $c = fcache ]; then
				graph $c $rw 1 4000 "fc_map fc_end_io"
				graph $c $rw 2 1000 "map_rw fc_end_io"
			else
				graph $c $rw 1 4000 linear_map
			fi
		done
		teardown $c
	done
fi

# ---- A/B: this module's fc_map and fc_end_io against another build's ---------
if [ -n "$AB" ]; then
	[ -f "$AB" ] || die "no module $AB"
	i=0
	while [ $i -lt 5 ]; do
		for k in $(ab_order $i); do
			ab_setup $k "$AB"
			graph "$k" randread 1 4000 "fc_map fc_end_io"
			graph "$k" randwrite 1 4000 "fc_map fc_end_io"
			teardown fcache
		done
		i=$((i + 1))
	done
	ab_back
	am() { awk -v c="$1" -v rw="$2" -v f="$3" '$1 == c && $2 == rw && $3 == f { printf "%s ", $4 }' "$gres" | median; }
	# the ratio of each round (this / other, the two runs side by side), then their median
	ar() {
		awk -v rw="$1" -v f="$2" '$2 == rw && $3 == f { v[$1, ++n[$1]] = $4 }
			END { for (j = 1; j <= n["this"]; j++) printf "%.3f ", v["this", j] / v["other", j] }' "$gres"
	}
	say "A/B, us per call (ftrace, 5 rounds, each module first in turn; this: $ab_this, other: $AB)"
	for rw in randread randwrite; do
		for fn in fc_map fc_end_io; do
			say "$(printf '  4k %-9s %-10s this %6s  other %6s  (medians); this/other by round: %s-> median %s' $rw $fn \
				"$(am this $rw $fn)" "$(am other $rw $fn)" "$(ar $rw $fn)" "$(ar $rw $fn | median)")"
		done
	done
fi

# ---- pgbench: the database fits the flash --------------------------------------
if [ "$PG" -gt 0 ]; then
	pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -x "$pgbin/initdb" ] && command -v pgbench >/dev/null ||
		die "no PostgreSQL (apt-get install postgresql)"
	md=$(mk_raid10 384) || die "raid10"
	mkdir -p /tmp/pgsock && chown postgres /tmp/pgsock
	asp() { runuser -u postgres -- "$@"; }
	# pg_on DEV: ext4 on DEV, a fresh cluster, pgbench's tables (scale 8),
	# then "TPS LAT_MS" of an 8-client run of 2*T s
	pg_on() {
		# 4 KiB blocks, as mke2fs picks for any volume past 512 MiB (its
		# "small" type gives 1 KiB blocks to this one, and a 1 KiB write
		# to a 4 KiB sub-block fcache does not hold reads the rest from
		# the spindles: docs/PERFORMANCE.md)
		mkfs.ext4 -q -F -E nodiscard -b 4096 "$1" || die "mkfs $1"
		mkdir -p /mnt/pg && mount "$1" /mnt/pg || die "mount $1"
		mkdir /mnt/pg/data && chown postgres /mnt/pg/data
		asp "$pgbin/initdb" -D /mnt/pg/data -A trust >/dev/null 2>&1 || die "initdb"
		asp "$pgbin/pg_ctl" -D /mnt/pg/data -l /tmp/pg.log -w \
			-o "-k /tmp/pgsock -c listen_addresses= -c shared_buffers=32MB -c max_connections=20" \
			start >/dev/null || die "pg start ($(tail -n 3 /tmp/pg.log | tr '\n' ' '))"
		asp pgbench -h /tmp/pgsock -i -q -s 8 postgres >/dev/null 2>&1 || die "pgbench -i"
		asp psql -h /tmp/pgsock -q -c checkpoint postgres >/dev/null 2>&1
		asp pgbench -h /tmp/pgsock -c 8 -j 2 -T $((2 * T)) -M prepared postgres 2>/dev/null |
			awk '/^latency average/ { l = $4 } /^tps/ { t = $3 } END { printf "%.1f %s\n", t, l }'
		asp "$pgbin/pg_ctl" -D /mnt/pg/data -m fast -w stop >/dev/null
		umount /mnt/pg
	}
	pgsetup() {
		case "$1" in
		flash) dd if=/dev/zero of="$flash" bs=1M count=4 oflag=direct 2>/dev/null
			dev=$flash ;;
		*) cache_on "$1" "$md" ;;
		esac
	}
	pgteardown() {
		# fcache's counters of the run: what its syncs cost (commits, flushes)
		if [ "$1" = fcache ]; then
			echo "fcache counters: $(dmsetup message hvol 0 stats 2>/dev/null | tr '\n' ' ')" >>/tmp/pg.counters
			echo "fcache pool: $(dmsetup message hpool 0 stats 2>/dev/null | tr '\n' ' ')" >>/tmp/pg.counters
		fi
		[ "$1" = flash ] || teardown "$1"
	}
	pres=/tmp/pg.res
	: >"$pres"
	: >/tmp/pg.counters
	# an unmeasured run first: TCG translates PostgreSQL's code once, and
	# the first configuration measured would pay for it
	pgsetup flash
	say "pgbench warm-up on the flash (not counted): $(pg_on "$dev")"
	pgteardown flash
	i=0
	while [ $i -lt "$PG" ]; do
		order=$(echo flash fcache dmcache dmwc | awk -v k=$i '{ for (j = 0; j < NF; j++) printf "%s ", $((j + k) % NF + 1) }')
		for c in $order; do
			pgsetup $c
			echo "$c $(pg_on "$dev")" >>"$pres"
			pgteardown $c
		done
		i=$((i + 1))
	done
	pm() { awk -v c="$1" -v f="$2" '$1 == c { printf "%s ", $f }' "$pres" | median; }
	fl=$(pm flash 2)
	say "pgbench (scale 8, 8 clients, -M prepared, $((2 * T)) s; ext4 with 4 KiB blocks; origin md RAID10 of 4 emulated spindles), medians of $PG rounds"
	for c in flash fcache dmcache dmwc; do
		say "$(printf '%-14s TPS %8s (%sx flash alone)  latency %s ms' "$c" "$(pm $c 2)" "$(ratio "$(pm $c 2)" "$fl")" "$(pm $c 3)")"
	done
	say "rounds (config TPS latency_ms):"
	sed 's/^/   /' "$pres" >>"$out"
	[ -s /tmp/pg.counters ] && sed 's/^/   /' /tmp/pg.counters >>"$out"
fi
dmesg_clean
finish
