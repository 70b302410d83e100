#!/bin/sh
# dm-fcache: ordered write-back under a filesystem (issue 38, done-when 2;
# docs/DESIGN.md "Ordered write-back").  ext4 on a volume of a pool with
# ordered 1, its origin behind a slow device (writeback lags); a
# database-like writer (tests/guest/ord_fswriter.py: 512-byte redo records
# with checksums, each fsync()ed, and 4 KiB data pages) runs, and at
# ROUNDS (20) random moments the flash is destroyed: the origin is frozen
# (dm suspend) and copied as it is, with no flash.  Each copy, alone, must
# mount (the journal replayed), hold redo records 1..k whole and nothing
# after them, data pages of records <= k + 1 only, and pass e2fsck -fn.
#
#   fc_ordered_fs.sh [ROUNDS] [ordered=0]   (ordered=0: the same without
#   the pool option, to see what the check catches; it may be torn)
FC_T=fc_ordered_fs
. "$FC_TOP/tests/guest/lib.sh"

ROUNDS=${1:-20}
ORD=1
[ "${2:-}" = ordered=0 ] && ORD=0
W=$FC_TOP/tests/guest/ord_fswriter.py
rm_both() { dm_remove v && dm_remove p; }
T=/tmp/fc_ordered_fs
mkdir -p $T /mnt/fcofs /mnt/fcimg

load_fcache || die "insmod failed" module-load
modprobe dm-delay && modprobe loop || die "no dm-delay or loop" setup
fl=$(mk_fast_disk 32) && org=$(mk_fast_disk 96) || die "disks"
OS=$(dev_sectors "$org")
check origin-delay dm_create od "0 $OS delay $org 0 0 $org 0 8"
check pool-up fc_pool p "$fl" 64 writeback_high 90 writeback_low 0 max_dirty_age 0 \
	commit_interval 200 writeback_jobs 4 ordered $ORD
check vol-up fc_vol v p /dev/mapper/od 3 writeback sequential_cutoff 0
check mkfs mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/v
check mount mount -o data=ordered /dev/mapper/v /mnt/fcofs
rm -f $T/acked
python3 "$W" write /mnt/fcofs $T/acked 36000 5 >$T/writer.out 2>&1 &
wp=$!

# one moment: the origin frozen and copied (the flash lost), then checked
i=0 bad=0 ks=""
while [ $i -lt "$ROUNDS" ]; do
	sleep "$(awk -v s="$i" 'BEGIN { srand(s + 17); printf "%.1f", 0.5 + rand() * 2 }')"
	a=$(cat $T/acked 2>/dev/null || echo 0)
	if ! copy_frozen od "$org" $T/img; then
		fail "round-$i-copy" "could not copy the origin"
		i=$((i + 1))
		continue
	fi
	why=""
	loopdev=$(losetup -f --show $T/img) || why="losetup"
	if [ -z "$why" ] && ! mount -t ext4 "$loopdev" /mnt/fcimg 2>$T/mnt.err; then
		why="does not mount: $(head -c 200 $T/mnt.err)"
	fi
	if [ -z "$why" ]; then
		python3 "$W" check /mnt/fcimg >$T/chk.out 2>&1 || why="$(cat $T/chk.out)"
		umount /mnt/fcimg
	fi
	if [ -z "$why" ] && ! e2fsck -fn "$loopdev" >$T/fsck.out 2>&1; then
		why="e2fsck: $(grep -v '^Pass\|^e2fsck\|^/dev' $T/fsck.out | head -n 3 | tr '\n' ' ')"
	fi
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	if [ -z "$why" ]; then
		k=$(sed -n 's/^records 1\.\.\([0-9]*\).*/\1/p' $T/chk.out)
		ks="$ks $k/$a"
		info "round $i: the origin alone: records 1..$k ($a acknowledged before the copy)"
	else
		bad=$((bad + 1))
		info "round $i: $why"
	fi
	i=$((i + 1))
done
kill $wp 2>/dev/null
wait $wp 2>/dev/null
info "records on the origin / acknowledged, per round:$ks"
if [ $ORD = 1 ]; then
	[ $bad = 0 ] && pass "origin-alone-mounts-and-holds-a-prefix ($ROUNDS rounds)" ||
		fail "origin-alone-mounts-and-holds-a-prefix" "$bad of $ROUNDS copies of the origin failed"
else
	info "ordered 0: $bad of $ROUNDS copies failed"
fi
red=$(stats_field p redirects)
info "stats: $(dmsetup message p 0 stats | tr ' ' '\n' | grep -E '^(epoch|origin_epoch|origin_lag|shadow_blocks|redirects|ordered_waits|epochs_written)=' | tr '\n' ' ')"
[ $ORD = 0 ] || { [ "${red:-0}" -gt 0 ] && pass "rewrites-copied ($red)" || fail "rewrites-copied" "redirects ${red:-?}"; }
check umount umount /mnt/fcofs
check flush timeout 300 dmsetup message p 0 flush
check final-fsck e2fsck -fn /dev/mapper/od
check teardown rm_both
dm_remove od
dmesg_clean
finish
