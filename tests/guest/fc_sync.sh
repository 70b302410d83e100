#!/bin/sh
# The sync path's cost, counted (issue 33, item 3; docs/PERFORMANCE.md,
# "The sync path"): what an empty REQ_PREFLUSH (fsync) and a REQ_FUA write
# (O_DSYNC) cost the flash devices, in writes and flushes, read from
# /sys/block/*/stat (fields 5 and 16 in 6.1) before and after each case,
# and the pool's "stats" counters.  The flash devices are null_blk with a
# volatile write cache (cache_size) that supports FUA, so a FUA write is one
# write and no flush, as on a datacenter SSD; the origin has one too, so
# its flushes count.  Writeback is held off (watermarks 100, no aging, a
# passthrough volume reading once a second so the pool is never idle), so
# nothing but the case runs (commit_interval 0: no periodic commit).
#
#   one device, then a mirrored pool (every count per leg):
#   fsync-idle      fsync, nothing written since the last one: no I/O
#   fsync-rewrite   a write to committed dirty sub-blocks, then fsync: the
#                   data write and one flush of the flash, no commit (an
#                   empty REQ_PREFLUSH write counts as a write and a flush);
#                   on one device the write is a quick one (its end takes
#                   no pool lock, `quick_writes`), which must still count
#                   for the fsync, which goes on to the flash without the
#                   commit worker (flush_direct): the test build's mutants
#                   quick_unsynced (the write not counted) and
#                   flush_direct_none (that flush completed unsent) are
#                   run too and must fail the count
#   dsync-direct    an O_DSYNC write to committed dirty sub-blocks: one
#                   write (FUA), no flush, no commit (the block layer's
#                   flush after it, blkdev_write_iter(), costs nothing)
#   dsync-commit    an O_DSYNC write to a new block: the data write, then a
#                   commit (pages, then the superblock; one of them carries
#                   the flush: the superblock on one device, the pages on
#                   two), then nothing for the block layer's flush
#   fsync-origin    a discard went to the origin: fsync flushes the origin,
#                   not the flash; the next fsync flushes neither
# Then every block written is read back and compared, and again after the
# pool and volume are torn down and loaded again.
#
#   overlap         an fsync that needs a commit and an origin flush waits
#                   for the slower of the two, not for their sum: the flash
#                   and the origin each delay their flushes by OVL_MS
#                   (dm-delay's flush class; the commit's superblock carries
#                   the flash's flush); a write to a new block and a discard
#                   sent to the origin, then one fsync, which must take less
#                   than half OVL_MS longer than one after a write to a new
#                   block alone (one after the other: OVL_MS longer); both
#                   flushes counted, the data read back
. "$FC_TOP/tests/guest/lib.sh"
load_fcache || die "insmod failed" module-load
F=/tmp/fcsync
mkdir -p $F

# mk_cached NAME MB: memory-backed null_blk with a volatile cache and FUA
mk_cached() {
	_nullb "$1" "$2" memory_backed=1 irqmode=0 queue_mode=2 blocksize=512 \
		cache_size=32 discard=1 >/dev/null || return 1
	grep -q 'write back' "/sys/block/$1/queue/write_cache" &&
		[ "$(cat "/sys/block/$1/queue/fua")" = 1 ]
}

# io DEV: "writes flushes" of one device
io() { awk '{ print $5, $16 }' "/sys/block/$1/stat"; }

# ctr NAME: a counter of the pool's "stats" answer (0 if it has none)
ctr() {
	_v=$(stats_field "$POOL" "$1")
	echo "${_v:-0}"
}

keep_busy() {
	while :; do
		dd if=/dev/mapper/fskeep of=/dev/null bs=4k count=1 iflag=direct status=none
		sleep 1
	done &
	keeper=$!
}

fsync_vol() { dd if=/dev/null of=/dev/mapper/$VOL conv=notrunc,fsync status=none; }
# wr BLOCK4K FILE [dsync]: one 4 KiB direct write of FILE at BLOCK4K
wr() {
	dd if="$2" of=/dev/mapper/$VOL bs=4k count=1 seek="$1" conv=notrunc status=none \
		oflag=direct${3:+,dsync}
}

# snap: the counts before a case
snap() {
	for _d in $FLASH $ORIG; do
		eval "s_$_d=\"$(io $_d)\""
	done
	c0=$(ctr commits) sf0=$(ctr sync_free) fd0=$(ctr fua_direct) qw0=$(ctr quick_writes)
	fx0=$(ctr flush_direct)
}

# delta DEV: "writes flushes" since snap
delta() {
	eval "set -- \$s_$1 $(io $1)"
	echo "$(($3 - $1)) $(($4 - $2))"
}

# expect CASE WRITES FLUSHES COMMITS ORIGIN_FLUSHES SYNC_FREE FUA_DIRECT
# [QUICK_WRITES [FLUSH_DIRECT]]: the flash counts of every leg, the origin's
# flushes, the pool's counters (the last two 0 unless given); the answer in
# $got
expect() {
	_case=$1
	shift
	_got="" _want=""
	for _d in $FLASH; do
		_got="$_got $(delta $_d)"
		_want="$_want $1 $2"
	done
	set -- "$1" "$2" "$3" "$4" "$5" "$6" "${7:-0}" "${8:-0}" $(delta $ORIG)
	_got="$_got $(($(ctr commits) - c0)) ${10} $(($(ctr sync_free) - sf0)) $(($(ctr fua_direct) - fd0))"
	_got="$_got $(($(ctr quick_writes) - qw0)) $(($(ctr flush_direct) - fx0))"
	_want="$_want $3 $4 $5 $6 $7 $8"
	info "$TAG $_case: per leg (writes flushes), commits, origin flushes, sync_free, fua_direct, quick_writes, flush_direct:$_got"
	got=$_got
	[ -n "${EXPECT_QUIET:-}" ] && return 0
	if [ "$_got" = "$_want" ]; then
		pass "$TAG-$_case (flash writes $1, flushes $2 per leg; commits $3; origin flushes $4)"
	else
		fail "$TAG-$_case" "got$_got, expected$_want"
	fi
}

# run_cases TAG LEGS...: the cases on a pool over LEGS (one or two)
run_cases() {
	TAG=$1 POOL=fsp$1 VOL=fsv$1
	shift
	FLASH="$*"
	_t="0 $(dev_sectors /dev/$1) fcache-pool /dev/$1 64"
	[ $# = 2 ] && _t="$_t 2 mirror /dev/$2"
	dm_create $POOL "$_t" || { fail "$TAG-setup" "pool"; return; }
	fc_vol $VOL $POOL /dev/fcsyo 1 writeback sequential_cutoff 0 || { fail "$TAG-setup" "volume"; return; }
	fc_vol fskeep $POOL /dev/fcsyk 2 passthrough || { fail "$TAG-setup" "keeper"; return; }
	# no periodic commit either (it could take a case's page first)
	dmsetup message $POOL 0 writeback_high 100 && dmsetup message $POOL 0 writeback_low 100 &&
		dmsetup message $POOL 0 max_dirty_age 0 && dmsetup message $POOL 0 commit_interval 0 ||
		{ fail "$TAG-setup" "tunables"; return; }
	keep_busy
	# eight whole blocks dirty and committed, the origin flushed once
	dd if=$F/base of=/dev/mapper/$VOL bs=32k count=8 oflag=direct conv=notrunc status=none &&
		fsync_vol && fsync_vol || { fail "$TAG-setup" "first writes"; return; }

	snap; fsync_vol
	expect fsync-idle 0 0 0 0 1 0
	# (an empty REQ_PREFLUSH write counts as a write and a flush in stat)
	# a write to a dirty sub-block: quick on one device (a mirrored pool's
	# dirty blocks have twins)
	# a write to a dirty sub-block: quick on one device (a mirrored pool's
	# dirty blocks have twins), and the fsync after it goes on to the
	# flash without the commit worker (flush_direct; mirrored: the worker)
	qexp=1 wrote2=0
	[ $# = 2 ] && qexp=0
	snap; wr 1 $F/a && fsync_vol
	expect fsync-rewrite 2 1 0 0 0 0 $qexp $qexp
	# the test build: a mutant that leaves the quick write out of the next
	# flush's reckoning, or one that completes that flush without sending
	# it to the flash, must fail this count (the fsync flushes nothing)
	for _m in quick_unsynced flush_direct_none; do
		_mp=/sys/module/dm_fcache/parameters/mutant_$_m
		[ $qexp = 1 ] && [ -w $_mp ] || continue
		echo 1 >$_mp
		wrote2=1
		snap; wr 2 $F/a && fsync_vol
		EXPECT_QUIET=1
		expect mutant-$_m 2 1 0 0 0 0 1 1
		EXPECT_QUIET=
		echo 0 >$_mp
		case $got in
		" 2 1 "*) fail "$TAG-mutant-$_m-caught" "the counts did not change:$got" ;;
		*) pass "$TAG-mutant-$_m-caught (per leg writes, flushes and counters:$got)" ;;
		esac
		# its write is on the flash all the same: flush it for the checks below
		snap; wr 2 $F/a && fsync_vol
		expect fsync-rewrite-after-$_m 2 1 0 0 0 0 1 1
	done
	snap; wr 9 $F/b dsync
	expect dsync-direct 1 0 0 0 1 1
	# a new block: the data, then one page and the superblock (one device:
	# the superblock carries the flush; mirrored: the page does, with
	# REQ_PREFLUSH | REQ_FUA on each leg, so no empty flush between them)
	snap; wr 800 $F/c dsync
	expect dsync-commit 3 1 1 0 1 0
	# -f: no blkid probe (its reads would promote blocks)
	snap; blkdiscard -f -o $((4000 * 32768)) -l 32768 /dev/mapper/$VOL && fsync_vol
	expect fsync-origin 0 0 0 1 0 0
	snap; fsync_vol
	expect fsync-idle-again 0 0 0 0 1 0
	info "$TAG pool: $(dmsetup message $POOL 0 stats | cut -d' ' -f1-10)"

	# the data, byte for byte, now and after a clean reload
	for _r in live reloaded; do
		_ok=1
		dd if=/dev/mapper/$VOL of=$F/got bs=32k count=8 iflag=direct status=none
		cp $F/base $F/want
		dd if=$F/a of=$F/want bs=4k seek=1 conv=notrunc status=none
		[ $wrote2 = 1 ] && dd if=$F/a of=$F/want bs=4k seek=2 conv=notrunc status=none
		dd if=$F/b of=$F/want bs=4k seek=9 conv=notrunc status=none
		cmp -s $F/got $F/want || _ok=0
		dd if=/dev/mapper/$VOL of=$F/got bs=4k count=1 skip=800 iflag=direct status=none
		cmp -s $F/got $F/c || _ok=0
		if [ $_ok = 1 ]; then pass "$TAG-data-$_r"; else fail "$TAG-data-$_r"; fi
		[ $_r = reloaded ] && break
		kill $keeper; wait $keeper 2>/dev/null
		dm_remove fskeep; dm_remove $VOL; dm_remove $POOL
		dm_create $POOL "$_t" && fc_vol $VOL $POOL /dev/fcsyo 1 writeback sequential_cutoff 0 ||
			{ fail "$TAG-reload"; return; }
	done
	dm_remove $VOL; dm_remove $POOL
}

mk_cached fcsyf0 64 && mk_cached fcsyf1 64 && mk_cached fcsyf2 64 &&
	mk_cached fcsyo 256 && mk_cached fcsyk 16 || die "null_blk devices with a volatile cache and FUA"
ORIG=fcsyo
head -c $((8 * 32768)) /dev/urandom >$F/base
for x in a b c; do head -c 4096 /dev/urandom >$F/$x; done

run_cases one fcsyf0
run_cases mirror fcsyf1 fcsyf2

# overlap: the commit and the origin's flush at once
OVL_MS=500
ms() { echo $(($(date +%s%N) / 1000000)); }
ovl() {
	modprobe dm-delay || { fail overlap-setup "no dm-delay"; return; }
	mk_cached fcsyf3 64 && mk_cached fcsyo2 64 || { fail overlap-setup "null_blk"; return; }
	for _d in fcsyf3 fcsyo2; do
		dm_create ${_d}d "0 $(dev_sectors /dev/$_d) delay /dev/$_d 0 0 /dev/$_d 0 0 /dev/$_d 0 $OVL_MS" ||
			{ fail overlap-setup "delay over $_d"; return; }
	done
	POOL=fsp3 VOL=fsv3 ORIG=fcsyo2
	dm_create $POOL "0 $(dev_sectors /dev/mapper/fcsyf3d) fcache-pool /dev/mapper/fcsyf3d 64" &&
		fc_vol $VOL $POOL /dev/mapper/fcsyo2d 1 writeback sequential_cutoff 0 &&
		dmsetup message $POOL 0 writeback_high 100 && dmsetup message $POOL 0 writeback_low 100 &&
		dmsetup message $POOL 0 max_dirty_age 0 && dmsetup message $POOL 0 commit_interval 0 ||
		{ fail overlap-setup "pool"; return; }
	wr 0 $F/a && fsync_vol || { fail overlap-setup "first write"; return; }
	# a new block, then an fsync: a commit alone
	wr 50 $F/a || { fail overlap-setup "write"; return; }
	_t0=$(ms)
	fsync_vol || fail overlap-fsync "fsync failed"
	_t1=$(($(ms) - _t0))
	# a new block and a discard, then an fsync: a commit and an origin flush
	c0=$(ctr commits) of0=$(stats_field $VOL flushes_origin)
	wr 100 $F/b && blkdiscard -f -o $((1000 * 32768)) -l 32768 /dev/mapper/$VOL ||
		{ fail overlap-setup "write, discard"; return; }
	_t0=$(ms)
	fsync_vol || fail overlap-fsync "fsync failed"
	_t=$(($(ms) - _t0))
	_c=$(($(ctr commits) - c0)) _of=$(($(stats_field $VOL flushes_origin) - of0))
	info "overlap: fsync with a commit $_t1 ms; with a commit ($_c) and an origin flush ($_of) $_t ms; each flush delayed $OVL_MS ms"
	if [ "$_c" = 1 ] && [ "$_of" = 1 ]; then
		pass "overlap-both (one commit, one origin flush)"
	else
		fail overlap-both "commits $_c, origin flushes $_of, expected 1 and 1"
	fi
	if [ "$_t" -lt $((_t1 + OVL_MS / 2)) ]; then
		pass "overlap-time ($_t ms < $_t1 + $((OVL_MS / 2)))"
	else
		fail overlap-time "fsync took $_t ms, $_t1 with the commit alone: the commit and the origin flush one after the other"
	fi
	dd if=/dev/mapper/$VOL of=$F/got bs=4k count=1 skip=100 iflag=direct status=none
	if cmp -s $F/got $F/b; then pass overlap-data; else fail overlap-data; fi
	dm_remove $VOL; dm_remove $POOL; dm_remove fcsyf3d; dm_remove fcsyo2d
}
ovl
dmesg_clean
finish
