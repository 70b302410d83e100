#!/bin/sh
# dm-fcache recovery after failed metadata writes and two write races
# (issue 8, holes 1-5): tests/guest/fc_recovery.sh [PART...]
#
#   1   aborted commit (superblock and volume table slots dead): its entry
#       page landed as a leftover; after a reload and a clean shutdown the
#       leftover must never come back (old: the write-around write of X is
#       lost, X reads the aborted commit's data)
#   1b  the same with only the superblocks dead: needs_check recorded in a
#       leftover page, the pool reloads ro; fcachectl check / --clear-needs-check
#   2   entry pages dead: the pool flush fails; an fsync and an O_DSYNC
#       write of cached blocks then succeed only because the pool writes
#       them to the origin and in place to the blocks the committed
#       metadata names, so the reload must read them (old, before issue
#       8: writes went around the cache and were lost at the reload; then,
#       until issue 32 item 7: refused with EIO)
#   2b  the same with the whole metadata area dead (mode fail)
#   3   a failed commit spanning two entry pages (page 1 lands, page 2
#       fails) must not be published (old: two entries map X, the pool
#       does not load, fcachectl check reports an overlap)
#   4   promotion vs a spanning write-around write: the fill must never
#       install the older data (old: stale reads)
#   5   32768 rewrites during one writeback copy wrap the 16-bit write
#       generation: the block must stay dirty (old: marked clean, dropped)
#
# The flash sits behind a dm device (fflash) whose table is swapped to put
# an error target over chosen metadata sectors (include/fcache_format.h:
# page p = sectors [8p, 8p+8); logical page L slot s = page 2+2L+s).
# Every part formats a fresh pool (the old module does not know the MDSEQ
# feature bit a new module sets).
FC_T=fc_recovery
. "$FC_TOP/tests/guest/lib.sh"

parts=${*:-1 1b 2 2b 3 4 5}
CTL=$FC_TOP/userspace/fcachectl
BS=64			# block sectors
BB=32768		# block bytes
WB_OFF="writeback_high 100 writeback_low 100 max_dirty_age 0 commit_interval 0"

load_fcache || die "insmod failed" module-load
modprobe dm-delay || die "no dm-delay" dm-delay
[ -x "$CTL" ] || die "no $CTL (make userspace)" fcachectl
race=$FC_TOP/build/vm/fc_race
if [ ! -x "$race" ] || [ "$FC_TOP/tests/guest/fc_race.c" -nt "$race" ]; then
	race=/tmp/fc_race
	gcc -O2 -Wall -pthread -o "$race" "$FC_TOP/tests/guest/fc_race.c" || die "cannot build fc_race" fc_race
fi
if ! "$CTL" check --clear-needs-check /nonexistent 2>&1 | grep -q 'unknown option'; then
	have_clear=1
else
	have_clear=0
	info "fcachectl has no check --clear-needs-check yet"
fi

fdisk=$(mk_fast_disk 64) || die disks
diskA=$(mk_fast_disk 64) || die disks
diskK=$(mk_fast_disk 64) || die disks
fsz=$(dev_sectors "$fdisk")
osz=$(dev_sectors "$diskA")
dm_create fflash "0 $fsz linear $fdisk 0" || die "linear fflash"
dm_create orA "0 $osz linear $diskA 0" || die "linear orA"
dm_create orK "0 $osz linear $diskK 0" || die "linear orK"
F=/dev/mapper/fflash P=/dev/mapper/fpool V=/dev/mapper/v OA=/dev/mapper/orA

# data_start as fc_geometry_compute() (engine/fc_format.c) computes it
nr=$((fsz / BS))
while :; do
	mdp=$((1 + (nr + 251) / 252))
	DS=$(((2 + 2 * mdp) * 8))
	DS=$(((DS + BS - 1) / BS * BS))
	[ $((DS + nr * BS)) -le "$fsz" ] && break
	nr=$(((fsz - DS) / BS))
done
info "flash $fsz sectors: $nr blocks, $mdp metadata pages, data_start $DS"

dm_swap() {
	dmsetup suspend "$1" && dm_reload "$1" "$2" && dmsetup resume "$1"
}
# flash_err FROM TO: error target over flash sectors [FROM, TO)
flash_err() {
	_t=""
	[ "$1" -gt 0 ] && _t="0 $1 linear $fdisk 0
"
	_t="$_t$1 $(($2 - $1)) error
$2 $((fsz - $2)) linear $fdisk $2"
	dm_swap fflash "$_t"
}
flash_ok() { dm_swap fflash "0 $fsz linear $fdisk 0"; }

# fresh_pool [OPT_WORDS]: wipe the metadata area and the origin's first
# 20 MiB (every block a part uses), format a new pool
fresh_pool() {
	for _n in v vk fpool; do
		[ -e /dev/mapper/$_n ] && [ ! -b /dev/mapper/$_n ] && rm -f /dev/mapper/$_n
	done
	flash_ok && dd if=/dev/zero of=$F bs=1M count=1 oflag=direct 2>/dev/null &&
		dd if=/dev/zero of="$diskA" bs=1M count=20 oflag=direct 2>/dev/null &&
		fc_pool fpool $F $BS "$@"
}
keeper_on() {
	fc_vol vk fpool /dev/mapper/orK 9 passthrough || return 1
	start_keeper /dev/mapper/vk
}
keeper_off() {
	[ -n "${keeper:-}" ] && { kill "$keeper"; wait "$keeper" 2>/dev/null; }
	keeper=""
	dm_remove vk
}
# down: remove every fcache device of this test
down() {
	[ -n "${keeper:-}" ] && { kill "$keeper"; wait "$keeper" 2>/dev/null; keeper=""; }
	for _d in v vk fpool; do
		dmsetup info $_d >/dev/null 2>&1 && dm_remove $_d
	done
	return 0
}
# wblk DEV BLOCK FILE [DD_ARGS...]: write one cache block (O_DIRECT)
wblk() {
	_d=$1 _b=$2 _f=$3; shift 3
	[ -b "$_d" ] || { echo "wblk: $_d is not a block device"; return 1; }
	dd if="$_f" of="$_d" bs=$BB seek="$_b" count=1 oflag=direct "$@" 2>"$FC_LOGDIR/dd.err"
}
# rblk_is DEV BLOCK FILE: the block reads exactly FILE
rblk_is() {
	[ -b "$1" ] || { echo "rblk_is: $1 is not a block device"; return 1; }
	dd if="$1" bs=$BB skip="$2" count=1 iflag=direct 2>/dev/null >/tmp/rblk
	cmp -s /tmp/rblk "$3"
}
# rblk_any DEV BLOCK FILE...: the block reads exactly one of the FILEs
rblk_any() {
	_d=$1 _b=$2; shift 2
	[ -b "$_d" ] || { echo "rblk_any: $_d is not a block device"; return 1; }
	dd if="$_d" bs=$BB skip="$_b" count=1 iflag=direct 2>/dev/null >/tmp/rblk
	for _f in "$@"; do
		cmp -s /tmp/rblk "$_f" && { echo "reads $_f"; return 0; }
	done
	echo "block $_b matches none of $*: $(od -A d -t x1 /tmp/rblk | head -n 2 | tr '\n' ' ')"
	return 1
}
module_reload() { unload_fcache && load_fcache; }
mode_nc() { echo "$(status_field fpool $P_MDMODE)/$(status_field fpool $P_NEEDS_CHECK)"; }
# ctl_check NAME: fcachectl check on the (unused) flash exits 0
ctl_check() {
	if "$CTL" check "$F" >"$FC_LOGDIR/ctl.out" 2>&1; then
		pass "$1"
	else
		fail "$1" "fcachectl check exit $?: $(head -n 6 "$FC_LOGDIR/ctl.out" | tr '\n' ' ')"
	fi
}
# ctl_clear NAME: fcachectl check --clear-needs-check
ctl_clear() {
	if [ $have_clear = 0 ]; then
		fail "$1" "fcachectl check --clear-needs-check not available"
		return 1
	fi
	check "$1" "$CTL" check --clear-needs-check "$F"
}

# ---- hole 1: an aborted commit's pages come back --------------------------
part1() {
	T=p$1
	if [ "$1" = 1 ]; then errto=32; else errto=16; fi
	X=5
	for f in A A2 B; do pattern_file /tmp/$T-$f 32; done
	fresh_pool commit_interval 0 || { fail $T-pool-create; return; }
	check $T-vol-create fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	# X holds A on the origin only; the volume's registration is committed
	check $T-origin-x-A wblk $OA $X /tmp/$T-A
	check $T-commit sync $V
	info "$T: pool before the fault: $(dmsetup status fpool)"
	# error over sectors 0-$((errto - 1)): superblocks (and for 1 the volume
	# table slots, so no needs_check marker can land either)
	check $T-flash-error flash_err 0 $errto
	# the commit's entry page (logical page 1, X's new entry 0) lands; the
	# superblock does not
	check_fails $T-fsync-fails wblk $V $X /tmp/$T-A2 conv=fsync
	info "$T: pool after the failed commit: $(dmsetup status fpool)"
	if [ "$1" = 1 ]; then
		field_is $T-mode-fail $P $P_MDMODE = fail
	else
		field_is $T-mode-ro $P $P_MDMODE = ro
		field_is $T-needs-check $P $P_NEEDS_CHECK -eq 1
	fi
	down
	check $T-flash-restore flash_ok
	if [ "$1" = 1 ]; then
		# as after a reboot: a module that saw the pool fail may remember
		# it (read-only reload in the same boot); the flash records nothing
		check $T-module-reload module_reload
	fi
	if ! fc_pool fpool $F $BS commit_interval 0; then
		fail $T-pool-reload "$(dmesg | grep -i fcache | tail -n 2 | tr '\n' ' ')"
		down
		return
	fi
	pass $T-pool-reload
	info "$T: pool reloaded: $(dmsetup status fpool)"
	if [ "$1" = 1 ]; then
		# nothing recorded needs_check: rw
		field_is $T-reload-rw $P $P_MDMODE = rw
		field_is $T-reload-no-needs-check $P $P_NEEDS_CHECK -eq 0
	else
		field_is $T-reload-ro $P $P_MDMODE = ro
		field_is $T-reload-needs-check $P $P_NEEDS_CHECK -eq 1
	fi
	check $T-vol-writearound fc_vol v fpool $OA 1 writearound sequential_cutoff 0
	check $T-x-reads-A-or-A2 rblk_any $V $X /tmp/$T-A /tmp/$T-A2
	if [ "$1" = 1b ]; then
		# read-only: X has no entry (the aborted commit's is a
		# leftover), so its writes go to the origin (issue 32, item 7)
		check $T-ro-reads-work rblk_any $V $X /tmp/$T-A /tmp/$T-A2
		check $T-ro-write-served wblk $V $X /tmp/$T-B
		check $T-ro-fsync-write-served wblk $V $((X + 1)) /tmp/$T-B conv=fsync
		check $T-ro-reads-B rblk_is $V $X /tmp/$T-B
		check $T-ro-origin-B rblk_is $OA $((X + 1)) /tmp/$T-B
		down
		ctl_check $T-ctl-check-exit-0
		if grep -qi leftover "$FC_LOGDIR/ctl.out"; then
			pass $T-ctl-check-reports-leftover
		else
			fail $T-ctl-check-reports-leftover "$(head -n 5 "$FC_LOGDIR/ctl.out" | tr '\n' ' ')"
		fi
		ctl_clear $T-clear-needs-check
		check $T-pool-reload-2 fc_pool fpool $F $BS commit_interval 0
		field_is $T-cleared-rw $P $P_MDMODE = rw
		field_is $T-cleared-no-needs-check $P $P_NEEDS_CHECK -eq 0
		check $T-vol-writearound-2 fc_vol v fpool $OA 1 writearound sequential_cutoff 0
	fi
	# X is not cached: B goes around the cache; no entry page changes
	check $T-write-B wblk $V $X /tmp/$T-B conv=fsync
	check $T-vol-flush dmsetup message v 0 flush
	check $T-origin-x-B rblk_is $OA $X /tmp/$T-B
	info "$T: before the clean shutdown: $(dmsetup status fpool)"
	down
	# clean shutdown done; the superblock seq is now past the leftover's
	check $T-pool-reload-clean fc_pool fpool $F $BS commit_interval 0
	check $T-vol-reload fc_vol v fpool $OA 1 writearound sequential_cutoff 0
	info "$T: reloaded after the clean shutdown: $(dmsetup status fpool) / $(dmsetup status v)"
	check $T-x-reads-B-after-reload rblk_any $V $X /tmp/$T-B
	down
	ctl_check $T-final-ctl-check-exit-0
}

# ---- hole 2: no write acknowledged read-only is lost at the reload --------
part2() {
	T=p$1
	if [ "$1" = 2 ]; then errfrom=32; else errfrom=0; fi
	X=3 Y=7
	for f in AX AY CX CY B; do pattern_file /tmp/$T-$f 32; done
	fresh_pool $WB_OFF || { fail $T-pool-create; return; }
	check $T-keeper keeper_on
	check $T-vol-create fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	check $T-write-x wblk $V $X /tmp/$T-AX
	check $T-write-y-fsync wblk $V $Y /tmp/$T-AY conv=fsync
	field_is $T-dirty-2 $V $V_DIRTY -eq 2
	info "$T: before the fault: $(dmsetup status fpool)"
	# error over sectors $errfrom..data_start: the entry pages (2) or all
	# of the metadata (2b)
	check $T-flash-error flash_err $errfrom $DS
	check_fails $T-pool-flush-fails dmsetup message fpool 0 flush
	# read-only now; the flush above wrote X and Y back: their writes go
	# to the origin and in place to their blocks, and flushes succeed
	# (issue 32, item 7).  Acknowledged, they must be there at the reload.
	if wblk $V $X /tmp/$T-CX conv=fsync; then
		xok=1
		pass $T-fsync-write-x-served
	else
		xok=0
		fail $T-fsync-write-x-served "dd conv=fsync failed: $(cat "$FC_LOGDIR/dd.err" | tail -n 1)"
	fi
	if wblk $V $Y /tmp/$T-CY oflag=dsync; then
		yok=1
		pass $T-dsync-write-y-served
	else
		yok=0
		fail $T-dsync-write-y-served "the O_DSYNC write failed: $(cat "$FC_LOGDIR/dd.err" | tail -n 1)"
	fi
	check_fails $T-pool-flush-fails-again dmsetup message fpool 0 flush
	info "$T: after the fault: $(dmsetup status fpool) / $(dmsetup status v)"
	if [ "$1" = 2 ]; then
		field_is $T-mode-ro $P $P_MDMODE = ro
	else
		field_is $T-mode-fail $P $P_MDMODE = fail
	fi
	field_is $T-needs-check $P $P_NEEDS_CHECK -eq 1
	down
	check $T-flash-restore flash_ok
	if ! fc_pool fpool $F $BS $WB_OFF; then
		fail $T-pool-reload "$(dmesg | grep -i fcache | tail -n 2 | tr '\n' ' ')"
		down
		return
	fi
	pass $T-pool-reload
	info "$T: pool reloaded: $(dmsetup status fpool)"
	if [ "$1" = 2 ]; then
		field_is $T-reload-ro $P $P_MDMODE = ro
		field_is $T-reload-needs-check $P $P_NEEDS_CHECK -eq 1
	else
		info "$T: metadata mode/needs_check after the reload: $(mode_nc)"
	fi
	nc=$(status_field fpool $P_NEEDS_CHECK)
	check $T-vol-reload fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	# an acknowledged write must be there; else the committed data
	if [ $xok = 1 ]; then xw=CX; else xw=AX; fi
	if [ $yok = 1 ]; then yw=CY; else yw=AY; fi
	check $T-x-reads-$xw rblk_any $V $X /tmp/$T-$xw
	check $T-y-reads-$yw rblk_any $V $Y /tmp/$T-$yw
	down
	if [ "$nc" = 1 ]; then
		ctl_check $T-ctl-check-exit-0
		ctl_clear $T-clear-needs-check
	fi
	check $T-pool-reload-2 fc_pool fpool $F $BS $WB_OFF
	field_is $T-reload-2-rw $P $P_MDMODE = rw
	field_is $T-reload-2-no-needs-check $P $P_NEEDS_CHECK -eq 0
	check $T-vol-reload-2 fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	check $T-write-x-B wblk $V $X /tmp/$T-B conv=fsync
	check $T-vol-flush dmsetup message v 0 flush
	field_is $T-clean $V $V_DIRTY -eq 0
	down
	check $T-origin-x-B rblk_is $diskA $X /tmp/$T-B
	check $T-origin-y-$yw rblk_is $diskA $Y /tmp/$T-$yw
	ctl_check $T-final-ctl-check-exit-0
}

# ---- hole 3: a failed two-page commit must not be published ---------------
part3() {
	T=p3
	N=300 X=260 Y=10
	pattern_file /tmp/$T-A $((N * 32))
	pattern_file /tmp/$T-B 32
	dd if=/tmp/$T-A of=/tmp/$T-AX bs=$BB skip=$X count=1 2>/dev/null
	fresh_pool $WB_OFF || { fail $T-pool-create; return; }
	check $T-keeper keeper_on
	check $T-vol-create fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	# blocks 0..299 dirty: entries in allocation order (after the few
	# clean blocks the partition scan promoted at creation), so Y's entry
	# is in logical page 1 (entries 0..251) and X's in page 2 (252..)
	check $T-write-300 dd if=/tmp/$T-A of=$V bs=$BB count=$N oflag=direct conv=fsync
	field_is $T-dirty-300 $V $V_DIRTY -eq $N
	# Y discarded and committed: its entry E1 (page 1) is at the head of
	# the free list.  (fc_race discard, not blkdiscard(8): its signature
	# probe reads the volume, and a block promoted then would take E1)
	check $T-discard-y-commit "$race" discard $V $((Y * BB)) $BB
	field_is $T-dirty-299 $V $V_DIRTY -eq $((N - 1))
	# X (committed dirty in entry E2, page 2) discarded, not committed:
	# E2 waits on the pending list; then X is written: its new entry is E1
	check $T-discard-x "$race" discard $V $((X * BB)) $BB nosync
	check $T-write-x-B wblk $V $X /tmp/$T-B
	# logical page 2's two slots (pages 6, 7 = sectors 48-63) dead: the
	# commit writes page 1 (E1 -> X) but not page 2 (E2 free); published,
	# both would map X
	check $T-flash-error flash_err 48 64
	check_fails $T-fsync-fails sync $V
	info "$T: after the failed commit: $(dmsetup status fpool)"
	field_is $T-mode-ro $P $P_MDMODE = ro
	down
	check $T-flash-restore flash_ok
	ctl_check $T-ctl-check-exit-0
	# the failed commit wrote logical page 1 (flash page 4 or 5): X's new
	# entry was there, the case this part is about
	if grep -qi 'flash page [45]).*leftover' "$FC_LOGDIR/ctl.out"; then
		pass $T-failed-commit-wrote-page-1
	else
		fail $T-failed-commit-wrote-page-1 "no leftover of logical page 1: X's entry was not in page 1 ($(grep -i leftover "$FC_LOGDIR/ctl.out" | head -n 2 | tr '\n' ' '))"
	fi
	if grep -qi overlap "$FC_LOGDIR/ctl.out"; then
		fail $T-ctl-check-no-overlap "$(grep -i overlap "$FC_LOGDIR/ctl.out" | head -n 2 | tr '\n' ' ')"
	else
		pass $T-ctl-check-no-overlap
	fi
	if ! fc_pool fpool $F $BS $WB_OFF; then
		fail $T-pool-reload "$(dmesg | grep -i fcache | tail -n 2 | tr '\n' ' ')"
		down
		return
	fi
	pass $T-pool-reload
	info "$T: pool reloaded: $(dmsetup status fpool)"
	field_is $T-reload-ro $P $P_MDMODE = ro
	field_is $T-reload-needs-check $P $P_NEEDS_CHECK -eq 1
	check $T-vol-reload fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	check $T-x-reads-A-or-B rblk_any $V $X /tmp/$T-AX /tmp/$T-B
	# every other block: its data (Y: discarded, zeros)
	cp /tmp/$T-A /tmp/$T-exp
	dd if=/dev/zero of=/tmp/$T-exp bs=$BB seek=$Y count=1 conv=notrunc 2>/dev/null
	dd if=$V of=/tmp/$T-got bs=$BB count=$N iflag=direct 2>/dev/null
	dd if=/tmp/$T-B of=/tmp/$T-got bs=$BB seek=$X count=1 conv=notrunc 2>/dev/null
	dd if=/tmp/$T-B of=/tmp/$T-exp bs=$BB seek=$X count=1 conv=notrunc 2>/dev/null
	check $T-other-blocks-exact cmp /tmp/$T-got /tmp/$T-exp
	down
	ctl_clear $T-clear-needs-check
	check $T-pool-reload-2 fc_pool fpool $F $BS $WB_OFF
	field_is $T-reload-2-rw $P $P_MDMODE = rw
	check $T-vol-reload-2 fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	check $T-x-reads-A-or-B-2 rblk_any $V $X /tmp/$T-AX /tmp/$T-B
	check $T-write-x-B-2 wblk $V $X /tmp/$T-B conv=fsync
	check $T-vol-flush dmsetup message v 0 flush
	down
	check $T-origin-x-B rblk_is $diskA $X /tmp/$T-B
	ctl_check $T-final-ctl-check-exit-0
}

# ---- hole 4: a fill must never install older data -------------------------
part4() {
	T=p4
	D=${FC_P4_DELAY_MS:-20} R=${FC_P4_ROUNDS:-300}
	fresh_pool commit_interval 0 || { fail $T-pool-create; return; }
	# every flash write (the fill's copy too) takes $D ms: a long fill window
	check $T-flash-delay dm_swap fflash "0 $fsz delay $fdisk 0 0 $fdisk 0 $D"
	check $T-vol-create fc_vol v fpool $OA 1 writearound sequential_cutoff 0
	t0=$(date +%s)
	"$race" fill $V v "$R" $BB $((D * 1000)) >"$FC_LOGDIR/race.out" 2>"$FC_LOGDIR/race.err"
	rc=$?
	info "$T: $(cat "$FC_LOGDIR/race.out") in $(($(date +%s) - t0)) s; volume: $(dmsetup status v)"
	head -n 5 "$FC_LOGDIR/race.err" | sed 's/^/# /'
	if [ $rc = 0 ]; then
		pass $T-no-stale-fill
	else
		fail $T-no-stale-fill "rc $rc: $(cat "$FC_LOGDIR/race.out") $(head -n 1 "$FC_LOGDIR/race.err")"
	fi
	field_is $T-fills-happened $V $V_PROMOTIONS -ge $((R / 4))
	down
	check $T-flash-restore flash_ok
}

# ---- hole 5: the write generation wraps during one copy ------------------
part5() {
	T=p5
	X=4
	pattern_file /tmp/$T-A 32
	pattern_file /tmp/$T-C 4
	pattern_file /tmp/$T-B 4
	cp /tmp/$T-A /tmp/$T-exp
	dd if=/tmp/$T-B of=/tmp/$T-exp bs=4k count=1 conv=notrunc 2>/dev/null
	fresh_pool $WB_OFF || { fail $T-pool-create; return; }
	check $T-keeper keeper_on
	# origin writes take 300 s (the copy's write waits there until the
	# table swap below ends the delay); reads do not
	check $T-origin-delay dm_swap orA "0 $osz delay $diskA 0 0 $diskA 0 300000"
	check $T-vol-create fc_vol v fpool $OA 1 writeback sequential_cutoff 0
	check $T-write-x-A wblk $V $X /tmp/$T-A conv=fsync
	field_is $T-dirty-1 $V $V_DIRTY -eq 1
	# aged writeback starts one copy of X, then no other writeback runs
	dmsetup message fpool 0 max_dirty_age 1
	i=0
	while [ "$(status_field v $V_WB_INFLIGHT)" = 0 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	dmsetup message fpool 0 max_dirty_age 0
	if ! field_is $T-copy-started $V $V_WB_INFLIGHT -gt 0; then
		down
		dm_swap orA "0 $osz linear $diskA 0"
		return
	fi
	t0=$(date +%s)
	# 32768 rewrites: 65536 generation bumps, the 16-bit value wraps
	check $T-rewrite-32768 "$race" rewrite $V $((X * BB)) 32768 /tmp/$T-C /tmp/$T-B
	info "$T: $(cat "$FC_LOGDIR/check.out") (copy started $(($(date +%s) - t0)) s before the end)"
	if field_is $T-copy-still-in-flight $V $V_WB_INFLIGHT -gt 0; then
		:
	else
		fail $T-conclusive "the copy ended before the last rewrite: raise the origin write delay"
	fi
	# end the delay: the copy's origin write completes now
	check $T-origin-undelay dm_swap orA "0 $osz linear $diskA 0"
	i=0
	while [ "$(status_field v $V_WB_INFLIGHT)" != 0 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	field_is $T-copy-done $V $V_WB_INFLIGHT -eq 0
	info "$T: after the copy: $(dmsetup status v)"
	field_is $T-still-dirty $V $V_DIRTY -eq 1
	check $T-invalidate dmsetup message v 0 invalidate
	check $T-x-reads-B rblk_is $V $X /tmp/$T-exp
	check $T-flush dmsetup message v 0 flush
	field_is $T-clean $V $V_DIRTY -eq 0
	check $T-origin-x-B rblk_is $diskA $X /tmp/$T-exp
	down
}

for p in $parts; do
	case $p in
	1|1b) part1 $p ;;
	2|2b) part2 $p ;;
	3) part3 ;;
	4) part4 ;;
	5) part5 ;;
	*) fail "part-$p" "unknown part" ;;
	esac
done
dm_remove orA
dm_remove orK
dm_remove fflash
check rmmod unload_fcache
dmesg_clean
finish
