#!/bin/sh
# The OLTP before/after demo, inside the guest (started by tests/vm/demo.sh):
# a 256 MiB datafile volume on md RAID10 of four null_blk spindles, a
# 64 MiB brd "flash" (25% of the datafile) as the cache (--quick: 128 and
# 32 MiB), a buffer pool of 1/32 of the datafile (8 MiB), and three
# `fcachectl bench compare` runs over them, one report:
#  1. closed loop (no think time, as sysbench runs): baseline against
#     fcache, dm-cache and dm-writecache (--anchors), every configuration
#     --rounds times (`make demo`: 2), ending with the lines
#     summary <config>: TPS <r>x baseline, avg response time <r>x baseline at <n> users
#     and fcache's runs traced (--trace fcache-writeback) against the
#     offline optimum of their trace (issue 33; docs/PERFORMANCE.md):
#     offline optimum (Belady MIN, 64 MiB flash) of fcache-writeback's trace: ...
#  2. terminals (as Dell's Fluid Cache study ran): users think 2 s on
#     average between transactions, enough users for the baseline to
#     saturate; TPS and response time are then separate results:
#     summary terminals <config>: TPS <r>x baseline, avg response time <r>x
#       baseline, users under 2 s <n> (<r>x baseline)
#  3. buffer pool sweep: baseline and fcache at the demo's buffer pool and
#     at 8 times it, ending with the "more memory or fast flash?" line
#     advice: ...
# Reports, results.json and chart.svg: /results (1), /results/terminals
# (2), /results/sweep/bp-<size> (3); /results/report.txt holds all three
# and ends with the demo's summary block.
#   bench_demo.sh [--ctl FCACHECTL] [--quick] [extra compare options...]
# The extra options go to the closed-loop comparison; of them --dist,
# --cache-block, --profile, --seed and --page-size also go to 2 and 3.
# The demo's own options (first, before the compare options):
#   --demo-parts LIST  closed,terminals,sweep (default: all three)
#   --demo-data MB     the datafile volume, 64..512 (default 256; --quick 128)
#   --demo-flash MB    the flash (default 64; --quick 32)
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
if [ "${1:-}" = --ctl ]; then CTL=$2; shift 2; fi
"$CTL" bench --help >/dev/null 2>&1 || die "$CTL has no bench verb (rebuild: make userspace)"

quick=0 PARTS="closed terminals sweep" DATA_MB= FLASH_MB=
# the demo's own options out of "$@", the rest kept in order
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	--demo-parts|--demo-data|--demo-flash)
		[ "$n" -gt 0 ] || die "$a needs a value"
		v=$1
		shift
		n=$((n - 1))
		case $a in
		--demo-parts)
			PARTS=$(echo "$v" | tr ',' ' ')
			for p in $PARTS; do
				case $p in closed|terminals|sweep) ;; *) die "--demo-parts: $p is not closed, terminals or sweep" ;; esac
			done ;;
		--demo-data) DATA_MB=$v ;;
		--demo-flash) FLASH_MB=$v ;;
		esac ;;
	*)
		[ "$a" = --quick ] && quick=1
		set -- "$@" "$a" ;;
	esac
done
# the sizes keep the ratios of the first demo (512 MiB datafile, 128 MiB
# flash) at half the size: the prepare and the restore after each run take
# half the time, so three comparisons fit in 20 minutes (docs/PERFORMANCE.md,
# "Testbed of make demo")
if [ $quick -eq 1 ]; then : "${DATA_MB:=128}" "${FLASH_MB:=32}"; else : "${DATA_MB:=256}" "${FLASH_MB:=64}"; fi
for v in "$DATA_MB" "$FLASH_MB"; do
	case $v in ''|*[!0-9]*) die "--demo-data/--demo-flash: $v is not a whole number of MiB" ;; esac
done
# the spindles and the flash are RAM of the 3 GiB guest (RAID10: two copies)
[ "$DATA_MB" -ge 64 ] && [ "$DATA_MB" -le 512 ] || die "--demo-data: 64..512 MiB"
[ "$FLASH_MB" -ge 16 ] && [ "$FLASH_MB" -le "$DATA_MB" ] || die "--demo-flash: 16 MiB..the datafile volume"
# The hot set (10% of the pages, 95% of the accesses) fits the flash (25%
# of the datafile) but not the buffer pool (1/32 of it): the case a flash
# cache exists for.
# Override with --dist / --buffer-pool.
DIST=hotset:95:10
# fcache's pool uses 16 KiB blocks, the datafile's page size, as a DBA would
# set it up for a 16 KiB-page database (fcachectl pool create --block-size
# 16K; 1.7 GiB of RAM per TiB of flash instead of 864 MiB at the 32 KiB
# default, where a scattered 16 KiB page holds half a block).  Pass
# --cache-block 32 to measure the default.
CBLOCK=16
BP_MB=$((DATA_MB / 32))

# the options of the extra arguments that describe the workload or the
# devices, not the run: parts 2 and 3 use them too
shared=
prev=
for a in "$@"; do
	case $prev in
	--dist|--cache-block|--profile|--seed|--page-size) shared="$shared $prev $a" ;;
	esac
	case $a in
	--dist=*|--cache-block=*|--profile=*|--seed=*|--page-size=*) shared="$shared $a" ;;
	esac
	prev=$a
done

load_fcache || die "cannot load dm-fcache"
modprobe -q dm-cache-smq 2>/dev/null
modprobe -q dm-writecache 2>/dev/null
md=$(mk_raid10 "$DATA_MB") || die "mk_raid10 failed"
flash=$(mk_brd_flash "$FLASH_MB") || die "mk_brd_flash failed"

# Parts 2 and 3 are secondary (the closed loop's figures are the ones
# compared over sessions): a 10 s warm-up and 10 s steps, the terminals'
# ladder only its ends (64 and 256 users, the search bisecting between
# them); with the second and third comparisons restoring only the pages the
# one before changed (bench compare over a clean datafile), this kept `make
# demo` under 20 minutes (issue 35, item 11)
if [ $quick -eq 1 ]; then
	set -- --users 16,128 --warmup 15 --time 10 --report-interval 5 --dist $DIST "$@"
else
	set -- --users 8,32,128 --warmup 20 --time 15 --report-interval 5 --dist $DIST "$@"
fi
TERM_USERS=64,256 TERM_TIME=10 SWEEP_TIME=10 WARM=10
R=/results/report.txt
: >"$R"
echo "# demo: origin $md (md RAID10 of 4 null_blk spindles, $DATA_MB MiB)," \
	"flash $flash (brd, $FLASH_MB MiB), buffer pool $BP_MB MiB" | tee -a "$R"
# compare NAME OUTDIR OPTIONS...: one comparison, its output appended to
# the report and kept in /tmp/demo.NAME.out, its status in /tmp/demo.NAME.rc
compare() {
	_n=$1 _o=$2
	shift 2
	mkdir -p "$_o"
	{
		"$CTL" bench compare --origin "$md" --flash "$flash" \
			--cache-block $CBLOCK --output "$_o" "$@" 2>&1
		echo $? >"/tmp/demo.$_n.rc"
	} | tee "/tmp/demo.$_n.out" | tee -a "$R"
}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

if part closed; then
	echo "# demo 1/3: closed loop, every user submits its next transaction at once" | tee -a "$R"
	compare closed /results --anchors --buffer-pool $BP_MB --trace fcache-writeback "$@"
fi
if part terminals; then
	# 2 s of think time: N users offer N / (2 s + response time) TPS.
	# The spindles' ~45 TPS are reached near 90 users, and at ~180 the
	# response time passes 2 s: the search finds that count.  fcache
	# (~480 TPS closed loop) stays far under 2 s at 256, the ladder's
	# top, which is then a lower bound of its count
	echo "# demo 2/3: terminals, each user thinks 2 s on average between transactions" | tee -a "$R"
	# shellcheck disable=SC2086
	compare terminals /results/terminals --configs fcache-writeback \
		--buffer-pool $BP_MB --think-time 2 --users $TERM_USERS \
		--warmup $WARM --time $TERM_TIME --report-interval 5 --rt-search 3 \
		--dist $DIST $shared
fi
if part sweep; then
	echo "# demo 3/3: buffer pool sweep, more memory or fast flash?" | tee -a "$R"
	# shellcheck disable=SC2086
	compare sweep /results/sweep --configs fcache-writeback \
		--buffer-pool-sweep ${BP_MB}M,$((BP_MB * 8))M --users 128 \
		--warmup $WARM --time $SWEEP_TIME --report-interval 5 \
		--dist $DIST $shared
fi
mdadm --stop "$md" >/dev/null 2>&1

# the summary block: the closed loop's lines, the terminals' own lines and
# the sweep's advice (each comparison also prints lines of its own kind)
{
	echo
	echo "== demo summary =="
	part closed && grep -h '^summary [^ ]*: ' /tmp/demo.closed.out
	part closed && grep -h '^offline optimum ' /tmp/demo.closed.out
	part terminals && grep -h '^summary terminals ' /tmp/demo.terminals.out
	part sweep && grep -h '^advice: ' /tmp/demo.sweep.out
} >/tmp/demo.summary
cat /tmp/demo.summary >>"$R"
for p in closed terminals sweep; do
	part $p || continue
	rc=$(cat "/tmp/demo.$p.rc" 2>/dev/null || echo 1)
	case $p in
	closed) want='^summary fcache-writeback: ' ;;
	terminals) want='^summary terminals fcache-writeback: ' ;;
	sweep) want='^advice: ' ;;
	esac
	if [ "$rc" -eq 0 ] && grep -q "$want" /tmp/demo.summary; then
		pass "demo-$p"
	else
		fail "demo-$p" "exit $rc; see /results/report.txt"
	fi
done
finish
