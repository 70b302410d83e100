#!/bin/sh
# dm-fcache metadata fault matrix (suite 38, docs/TESTING.md "Fault matrix").
#
# Needs the fault-injection build (make fi-module: build/fi/dm-fcache.ko,
# module parameters fault_md_io and md_io_count, kmod/fc_mdio.c).  For each
# operation it first runs the operation without a fault and counts its
# metadata I/Os N (md_io_count before/after); then for i = 1..N it sets the
# same state up afresh, writes i to fault_md_io just before the operation
# (the i-th metadata I/O fails with -EIO), runs it and checks:
#   a) the operation succeeds (pool metadata rw) or reports an error (pool
#      ro/fail with needs_check 1; then reads work and return durable data,
#      a write to a block never cached succeeds, and a flush succeeds once
#      the pool has written its dirty data back to the origin: then every
#      acknowledged write is durable, the failed operation's too; issue 32
#      item 7, docs/DESIGN.md "Metadata modes");
#   b) volume and pool are removed without a hang; the pool reloads without
#      the fault (read-only with needs_check 1 when the fault hit a metadata
#      write; a write + fsync works there too);
#   c) fcachectl check FLASH exits 0; after needs_check, fcachectl check
#      --clear-needs-check FLASH, and the pool reloads rw;
#   d) a data oracle (tests/guest/fc_fmio.c): every 32 KiB unit made durable
#      before the operation reads back exactly through the volume; a unit
#      written during a failed operation reads its previous durable version
#      or the new one, and keeps reading the same from then on; then the
#      volume is flushed and the origin alone must hold exactly that.
#
# Operations (flash 32 MiB brd, 64-sector blocks, origin 32 MiB brd;
# commit_interval 0 and max_dirty_age 0, so no metadata I/O happens but
# the operation's own):
#   format        create the pool on a zeroed flash (origin holds data)
#   load          create the pool on a cleanly shut down pool, 128 dirty blocks
#   load-unclean  the same from an image of the live pool (a crash)
#   commit        fsync after 320 new dirty blocks (entries in 2 metadata
#                 pages) and 32 rewrites: page writes, flush, superblock
#   writeback     `flush` message, 448 dirty blocks: copies, origin flush, commit
#   shutdown      remove the volume (its commit: 32 unsynced new blocks) and
#                 the pool (suspend commit, final clean commit)
# Every I/O index is tested up to FC_FM_FULL (12); above that a seeded
# random sample of FC_FM_SAMPLE (4) more (FC_FM_SEED, 38).  FC_FM_OPS picks
# operations.  The same as arguments (run-guest.sh passes no environment):
#   fc_faultmatrix.sh [full=N] [sample=N] [seed=N] [OP...]  Last line: fault matrix: C cases, L lost, S stale, K check
# failures (L, S: 32 KiB units, summed over all cases).
FC_T=fc_faultmatrix
. "$FC_TOP/tests/guest/lib.sh"

FI_KO=${FC_FI_KO:-$FC_TOP/build/fi/dm-fcache.ko}
FCTL=$FC_TOP/userspace/fcachectl
PARM=/sys/module/dm_fcache/parameters
OPS=${FC_FM_OPS:-format load load-unclean commit writeback shutdown}
FULL=${FC_FM_FULL:-12}
SAMPLE=${FC_FM_SAMPLE:-4}
SEED=${FC_FM_SEED:-38}
for a in "$@"; do
	case $a in
	full=*) FULL=${a#full=} ;;
	sample=*) SAMPLE=${a#sample=} ;;
	seed=*) SEED=${a#seed=} ;;
	*) ops_arg="${ops_arg:-} $a" ;;
	esac
done
[ -n "${ops_arg:-}" ] && OPS=$ops_arg
W=/tmp/fm
NU=520 TU=512	# units 0..511 hold data, TU and TU+1 take test writes
P=fmp V=fmv
PD=/dev/mapper/fmp VD=/dev/mapper/fmv
POOLOPTS="commit_interval 0 max_dirty_age 0 writeback_low 80 writeback_high 90"
mkdir -p $W

read -r t_start _x </proc/uptime; t_start=${t_start%.*}
[ -x "$FCTL" ] || die "no $FCTL (make userspace)" fcachectl
FMIO=$FC_TOP/build/vm/fc_fmio
if [ ! -x "$FMIO" ] || [ "$FC_TOP/tests/guest/fc_fmio.c" -nt "$FMIO" ]; then
	FMIO=$W/fc_fmio
	gcc -O2 -Wall -o "$FMIO" "$FC_TOP/tests/guest/fc_fmio.c" || die "cannot build fc_fmio" fmio
fi

[ -f "$FI_KO" ] || die "no $FI_KO: run make fi-module" module
FC_KO=$FI_KO
load_fcache || die "insmod $FI_KO failed" module-load
if [ ! -e $PARM/fault_md_io ] || [ ! -e $PARM/md_io_count ]; then
	die "$FI_KO has no fault_md_io/md_io_count parameters: not a fault-injection build (make fi-module)" fi-module-params
fi
pass fi-module-params

devs=$(mk_brd_flash 32 2) || die "brd" disks
F=$(echo "$devs" | sed -n 1p) O=$(echo "$devs" | sed -n 2p)
[ "$(dev_sectors "$O")" -ge $((NU * 64)) ] || die "origin too small" disks

# Few processes per case: under TCG every exec costs a lot.
FS=$(dev_sectors "$F") OS=$(dev_sectors "$O")
have() { [ -e "/dev/mapper/$1" ]; }
# mk NAME TABLE: dmsetup create (a refused table leaves nothing behind)
mk() {
	if dmsetup create "$1" --table "$2" >>$W/dm.err 2>&1; then
		[ -b "/dev/mapper/$1" ] || dmsetup mknodes "$1" >/dev/null 2>&1
		[ -b "/dev/mapper/$1" ] && return 0
	fi
	dmsetup remove "$1" >/dev/null 2>&1
	return 1
}
pool_up() { mk $P "0 $FS fcache-pool $F 64 8 $POOLOPTS"; }
vol_up() { mk $V "0 $OS fcache $PD $O 1 writeback 2 sequential_cutoff 0"; }
# pst: md mode and needs_check of the pool into $pm $pn
pst() {
	# shellcheck disable=SC2046
	set -- $(dmsetup status $P 2>/dev/null)
	pm=${8:--} pn=${9:--}
}
mdio() { read -r _c <$PARM/md_io_count; echo "$_c"; }
fmio() { "$FMIO" "$@"; }
now() { read -r _u _x </proc/uptime; echo "${_u%.*}"; }
# lap NAME: append NAME=seconds since the last lap to $laps
lap() {
	read -r _u _x </proc/uptime
	_u=${_u%.*}${_u#*.}
	laps="$laps $1=$(( (_u - ${_lt:-$_u}) / 100 )).$(( (_u - ${_lt:-$_u}) % 100 / 10 ))"
	_lt=$_u
}

# rm_dev NAME: dmsetup remove (retries while busy).  A hang is caught by the
# kernel's hung-task warning and run-guest's timeout; "# NAME: start" lines
# say which case it was.
rm_dev() {
	# an orderly teardown: a plain remove of a volume marks it detached
	if dmsetup table "$1" 2>/dev/null | awk '{ print $3 }' | grep -qx fcache; then
		dmsetup message "$1" 0 detach >/dev/null 2>&1
	fi
	_i=0
	while have "$1"; do
		dmsetup remove "$1" >>$W/dm.err 2>&1 && return 0
		_i=$((_i + 1))
		[ $_i -ge 10 ] && return 1
		sleep 0.2
	done
	return 0
}
teardown() { rm_dev $V && rm_dev $P; }

ddq() { dd "$@" bs=1M 2>/dev/null; }
save_img() { ddq if="$F" of=$W/$1.flash iflag=direct && ddq if="$O" of=$W/$2.origin iflag=direct; }
# restore FLASH_IMG|zero ORIGIN_IMG STATE
restore() {
	if [ "$1" = zero ]; then
		ddq if=/dev/zero of="$F" count=32 oflag=direct
	else
		ddq if=$W/$1.flash of="$F" oflag=direct
	fi && ddq if=$W/$2.origin of="$O" oflag=direct && cp $W/state.$3 $W/state
}

# ---- the base states ----
fmio init $W/state $NU || die "fmio init" base
fmio write "$O" $W/state 0 512 sync || die "origin data" base
cp $W/state $W/state.origin
save_img none origin || die "origin image" base
pool_up || die "format the base pool: $(tail -n 2 $W/dm.err)" base
vol_up || die "base volume: $(tail -n 2 $W/dm.err)" base
fmio write $VD $W/state 0 128 sync || die "base dirty data" base
info "base pool: $(dmsetup status $P)"
ddq if="$F" of=$W/unclean.flash iflag=direct || die "unclean image" base
teardown || die "base teardown" base
save_img base base || die "base image" base
cp $W/state $W/state.base
pass base-states

# ---- one case ----
# Setup (no fault) and operation per op.  Live ops leave pool and volume up.
setup_format() { restore zero origin origin; }
op_format() { pool_up; }
setup_load() { restore base base base; }
op_load() { pool_up; }
setup_load_unclean() { restore unclean base base; }
op_load_unclean() { pool_up; }
setup_commit() {
	restore base base base && pool_up && vol_up &&
		fmio write $VD $W/state 128 320 nosync && fmio write $VD $W/state 0 32 nosync
}
op_commit() { fmio fsync $VD; }
setup_writeback() {
	restore base base base && pool_up && vol_up && fmio write $VD $W/state 128 320 sync
}
op_writeback() { dmsetup message $V 0 flush 2>>$W/dm.err; }
setup_shutdown() {
	restore base base base && pool_up && vol_up && fmio write $VD $W/state 128 320 sync &&
		fmio write $VD $W/state 448 32 nosync
}
op_shutdown() { teardown; }

cases=0 lost=0 stale=0 checkf=0 failed="" notreached=0

bad() { why="$why${why:+; }$*"; }

# vcount fmio: units U ok O newer N older D stale S lost L
vcount() {
	[ "${10:-}" = stale ] && [ "${12:-}" = lost ] || return 0
	c_stale=$((c_stale + ${11})) c_lost=$((c_lost + ${13}))
}

# vrf LABEL DEV [settle]: run the oracle, count stale/lost units
vrf() {
	_o=$(fmio verify "$2" $W/state $3 2>$W/vrf.err)
	_r=$?
	vcount $_o
	detail="$detail $1[${_o#fmio: }]"
	if [ $_r -ne 0 ]; then
		bad "$1: ${_o:-verify failed (rc $_r)} $(head -n 4 $W/vrf.err | tr '\n' ' ')"
		return 1
	fi
}

# run_case OP I (I = 0: no fault; sets $ran, the op's metadata I/O count)
run_case() {
	op=$1 i=$2 name=$1-io$2 why="" detail="" c_lost=0 c_stale=0 laps="" _lt=""
	case $op in load-unclean) fn=load_unclean ;; *) fn=$op ;; esac
	t0=$(now)
	echo "# $name: start"
	lap start
	: >$W/dm.err
	if ! "setup_$fn" >$W/setup.out 2>&1; then
		bad "setup failed: $(tail -n 3 $W/setup.out $W/dm.err | tr '\n' ' ')"
		teardown
		fail "$name" "$why"
		cases=$((cases + 1)) failed="$failed $name"
		ran=0
		return
	fi
	lap setup
	c0=$(mdio)
	[ "$i" -gt 0 ] && echo "$i" >$PARM/fault_md_io
	"op_$fn" >$W/op.out 2>&1
	oprc=$?
	c1=$(mdio)
	ran=$((c1 - c0))
	read -r left <$PARM/fault_md_io
	hit=0
	if [ "$i" -gt 0 ]; then
		if [ "$left" != 0 ]; then
			echo 0 >$PARM/fault_md_io
			notreached=$((notreached + 1))
			detail="$detail fault-not-reached"
		else
			hit=1
		fi
	fi
	mode=- nc=-
	if have $P; then
		pst
		mode=$pm nc=$pn
	fi
	detail="$detail op-rc=$oprc ios=$ran md=$mode/$nc"
	[ "$mode" = fail ] && sawfail=1
	lap op

	# (a) success <=> rw; an error => ro/fail + needs_check
	case $op in
	commit|writeback)
		if [ $oprc = 0 ] && [ "$mode" != rw ]; then
			bad "the operation succeeded but metadata is $mode"
		elif [ $oprc != 0 ] && { [ "$mode" = rw ] || [ "$nc" != 1 ]; }; then
			bad "the operation failed but metadata is $mode, needs_check $nc"
		fi
		if [ $hit = 1 ] && [ $oprc = 0 ]; then
			bad "the injected metadata error was not reported"
		fi
		if [ "$mode" = ro ] || [ "$mode" = fail ]; then
			# reads work and return durable data; a write to a block
			# never cached works; a flush works once the dirty data
			# is on the origin, and then everything written is durable
			vrf live-$mode $VD
			fmio write $VD $W/state $TU 1 nosync 2>/dev/null ||
				bad "a write to a block never cached failed with metadata $mode"
			if poll_until 150 fmio fsync $VD 2>/dev/null; then
				fmio promote $W/state
			else
				bad "no flush succeeds with metadata $mode after the dirty data was written back: $(status_field $P 4) dirty, flushes $(status_field $P 20)"
			fi
			lap live-ro
		fi
		;;
	format|load|load-unclean)
		if [ $hit = 1 ] && [ $oprc = 0 ] && [ "$mode" = rw ]; then
			bad "the injected metadata error was not reported (pool loaded rw)"
		fi
		;;
	shutdown)
		[ $oprc = 0 ] || bad "removing volume and pool failed (rc $oprc)"
		;;
	esac
	[ $i = 0 ] && [ $oprc != 0 ] && bad "the operation failed without a fault: $(tail -n 2 $W/op.out $W/dm.err | tr '\n' ' ')"
	# the operation made its writes durable
	if [ $oprc = 0 ]; then
		case $op in
		commit) fmio promote $W/state ;;
		shutdown) [ $hit = 0 ] && fmio promote $W/state ;;
		esac
	fi

	# (b) teardown without a hang, reload without the fault
	teardown
	trc=$?
	if [ $trc != 0 ]; then
		bad "teardown failed (rc $trc)"
		have $V || have $P && die "$name: cannot remove the devices: $why" teardown
	fi
	mode2=- nc2=-
	if ! pool_up; then
		bad "the pool does not load after the fault: $(tail -n 2 $W/dm.err | tr '\n' ' ') $(dmesg | grep fcache | tail -n 2 | tr '\n' ' ')"
	else
		pst
		mode2=$pm nc2=$pn
		detail="$detail reload=$mode2/$nc2"
		[ "$mode2" = fail ] && sawfail=1
		if [ $hit = 0 ] && { [ "$mode2" != rw ] || [ "$nc2" != 0 ]; }; then
			bad "reload without a fault is $mode2, needs_check $nc2"
		fi
		case $op in
		commit|writeback|shutdown)
			if [ $hit = 1 ] && [ "$nc2" != 1 ]; then
				bad "the fault hit a metadata I/O but the reload has needs_check $nc2 ($mode2)"
			fi
			;;
		esac
		if [ "$nc2" = 1 ] && [ "$mode2" = rw ]; then
			bad "needs_check 1 but metadata rw"
		fi
		if vol_up; then
			vrf reload $VD settle
			if [ "$mode2" != rw ]; then
				# read-only: TU has no entry, its write goes to the origin
				fmio write $VD $W/state $TU 1 sync ||
					bad "a write + fsync fails on a pool loaded $mode2"
			else
				# rw: writable, and the flush writes everything back
				fmio write $VD $W/state $((TU + 1)) 1 sync || bad "a write + fsync fails after the reload"
				dmsetup message $V 0 flush 2>>$W/dm.err || bad "flush fails after the reload"
			fi
		elif [ "$mode2" = rw ]; then
			bad "the volume does not load: $(tail -n 2 $W/dm.err | tr '\n' ' ')"
		else
			detail="$detail (no volume on the $mode2 pool)"
		fi
		teardown || die "cannot remove the reloaded pool" teardown
	fi
	lap reload

	# (c) offline check, clear needs_check
	if ! "$FCTL" check "$F" >$W/check.out 2>&1; then
		checkf=$((checkf + 1))
		bad "fcachectl check failed: $(grep -v 'leftover' $W/check.out | tail -n 4 | tr '\n' ' ')"
	fi
	if [ "$nc2" = 1 ]; then
		if ! "$FCTL" check --clear-needs-check "$F" >$W/clear.out 2>&1; then
			checkf=$((checkf + 1))
			bad "fcachectl check --clear-needs-check failed: $(tail -n 4 $W/clear.out | tr '\n' ' ')"
		fi
	fi
	lap check

	# (d) after a check: rw again, data exact, writable, flushed
	if [ "$nc2" = 1 ] || [ "$mode2" != rw ]; then
		if pool_up; then
			pst
			[ "$pm" = rw ] && [ "$pn" = 0 ] || bad "after the check the pool is $pm, needs_check $pn"
			detail="$detail after-check=$pm/$pn"
			if vol_up; then
				vrf after-check $VD
				fmio write $VD $W/state $((TU + 1)) 1 sync || bad "a write + fsync fails after the check"
				dmsetup message $V 0 flush 2>>$W/dm.err || bad "flush fails after the check"
			else
				bad "the volume does not load after the check: $(tail -n 2 $W/dm.err | tr '\n' ' ')"
			fi
			teardown || die "cannot remove the pool after the check" teardown
		else
			bad "the pool does not load after the check: $(tail -n 2 $W/dm.err | tr '\n' ' ')"
		fi
		lap rw-again
	fi
	# the origin alone holds everything
	vrf origin "$O"
	lap origin

	cases=$((cases + 1)) lost=$((lost + c_lost)) stale=$((stale + c_stale))
	info "$name:$detail ($(($(now) - t0)) s:$laps)"
	if [ -z "$why" ]; then
		pass "$name"
	else
		fail "$name" "$why"
		failed="$failed $name"
	fi
	# a pool in fail mode is remembered by the module: forget it
	if [ "${sawfail:-0}" = 1 ]; then
		unload_fcache && insmod "$FI_KO" || die "module reload failed" module-reload
		sawfail=0
	fi
}

# indices OP N: 1..min(N, FULL), then a seeded sample of the rest
indices() {
	awk -v n="$2" -v f="$FULL" -v k="$SAMPLE" -v s="$SEED" -v op="$1" 'BEGIN {
		for (i = 1; i <= n && i <= f; i++) printf "%d ", i
		if (n <= f) exit
		srand(s + length(op)); m = n - f; if (k > m) k = m
		while (c < k) { j = f + 1 + int(rand() * m); if (!(j in t)) { t[j] = 1; c++ } }
		for (j = f + 1; j <= n; j++) if (j in t) printf "%d ", j
	}'
}

matrix=""
for op in $OPS; do
	top=$(now)
	run_case "$op" 0
	n=$ran
	if [ "$n" -le 0 ]; then
		fail "$op-count" "the operation did no metadata I/O"
		continue
	fi
	idx=$(indices "$op" "$n")
	if [ "$n" -gt "$FULL" ]; then
		info "$op: $n metadata I/Os: every one of 1..$FULL, then a sample (seed $SEED): $idx"
	else
		info "$op: $n metadata I/Os: testing every one"
	fi
	for i in $idx; do
		run_case "$op" "$i"
	done
	matrix="$matrix $op=${n}[$(echo $idx | tr ' ' ',')]($(($(now) - top))s)"
done

info "matrix (operation=I/Os[indices tested](time)):$matrix"
[ $notreached -gt 0 ] && info "$notreached cases ended before the fault was reached"
[ -n "$failed" ] && info "failed cases:$failed"
echo "fault matrix: $cases cases, $lost lost, $stale stale, $checkf check failures ($(($(now) - t_start)) s)"
if [ $lost = 0 ] && [ $stale = 0 ] && [ $checkf = 0 ]; then
	pass matrix-no-loss
else
	fail matrix-no-loss "$lost lost, $stale stale, $checkf check failures"
fi
check rmmod unload_fcache
dmesg_clean
finish
