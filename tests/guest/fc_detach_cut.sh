#!/bin/sh
# A volume's table replaced by dm-linear straight onto its origin, then a
# power cut before the old table's destructor ran (issue 32, item 5).
# Test build (make fi-module, build/fi/dm-fcache.ko): dtr_hold_ms holds the
# old table's destructor, which dm's resume runs after the new table is
# live.  Driven by tests/suites/38-fcache-faultmatrix.sh, two boots:
#
#   fc_detach_cut.sh cut    flash /dev/vdb, origins /dev/vdc and /dev/vdd
#                           (fresh images): volume 1 (vdc) holds dirty
#                           pattern A, volume 2 (vdd, the control) dirty
#                           pattern C; volume 1's device is reloaded as
#                           linear onto vdc and resumed (its old table's
#                           destructor held), pattern B written through it
#                           with O_DIRECT + fsync; then /results/ready gets
#                           a line and the host kills qemu (--kill-when).
#   fc_detach_cut.sh check  the pool assembled after the cut: a table for
#                           volume 1 must never serve A: refused (detached
#                           with dirty data) or B, byte for byte.  Volume 2
#                           (not detached) still serves its dirty C: the
#                           pool did keep dirty data across the cut.
#
# The module before the fix recorded the detach in the destructor only: it
# accepts volume 1's table after the cut and serves A over the fsynced B.
FC_T=fc_detach_cut
. "$FC_TOP/tests/guest/lib.sh"
FC_KO=${FC_FI_KO:-$FC_TOP/build/fi/dm-fcache.ko}
phase=$1
W=/tmp/dcut
mkdir -p "$W"
[ -b /dev/vdb ] && [ -b /dev/vdc ] && [ -b /dev/vdd ] || die "need /dev/vdb, /dev/vdc and /dev/vdd"
load_fcache || die "insmod $FC_KO failed" module-load
HOLD=/sys/module/dm_fcache/parameters/dtr_hold_ms
[ -w "$HOLD" ] || die "no dtr_hold_ms: not the test build (make fi-module)" hook
# 256 KiB (8 blocks of 32 KiB) at 1 MiB; patterns made from fixed seeds so
# both boots regenerate them
OFF=256		# in 4 KiB blocks
CNT=64
pat() { openssl enc -aes-128-ctr -nosalt -pass "pass:fcdetach-$1" </dev/zero 2>/dev/null | head -c $((CNT * 4096)); }
for p in A B C; do pat $p >"$W/$p"; done
[ "$(stat -c %s "$W/A")" -eq $((CNT * 4096)) ] || die "pattern files"
cmp -s "$W/A" "$W/B" && die "patterns A and B are equal"
# rd DEV OUT: the test range of DEV, O_DIRECT
rd() { dd if="$1" of="$2" bs=4096 skip=$OFF count=$CNT iflag=direct status=none; }
# wr FILE DEV: the test range, O_DIRECT, fsync before dd returns
wr() { dd if="$1" of="$2" bs=4096 seek=$OFF count=$CNT oflag=direct conv=notrunc,fsync status=none; }
# holds DEV PAT: DEV's test range is pattern PAT byte for byte
holds() { rd "$1" "$W/rd" && cmp -s "$W/rd" "$W/$2"; }
# which pattern DEV's test range holds (for messages)
which_pat() {
	rd "$1" "$W/rd" || { echo "unreadable"; return; }
	for p in A B C; do cmp -s "$W/rd" "$W/$p" && { echo "$p"; return; }; done
	cmp -s "$W/rd" /dev/zero 2>/dev/null && echo "zeros" || echo "other data"
}
hold_taken() { [ "$(cat "$HOLD")" = 0 ]; }
POOLOPTS="writeback_high 100 writeback_low 100 max_dirty_age 0"
VOL1="0 $(dev_sectors /dev/vdc) fcache /dev/mapper/dp /dev/vdc 1 writeback 2 sequential_cutoff 0"

case "$phase" in
cut)
	check cut-pool-format fc_pool dp /dev/vdb 64 $POOLOPTS
	[ -b /dev/mapper/dp ] || finish
	# writeback only when flushed while the keeper keeps the pool busy
	K=$(mk_fast_disk 16) || die "keeper disk"
	check cut-keeper fc_vol dk dp "$K" 9 passthrough
	start_keeper /dev/mapper/dk
	check cut-vol1 dm_create dv "$VOL1"
	check cut-vol2 fc_vol dc dp /dev/vdd 2 writeback sequential_cutoff 0
	check cut-write-a wr "$W/A" /dev/mapper/dv
	check cut-write-c wr "$W/C" /dev/mapper/dc
	check cut-vol1-reads-a holds /dev/mapper/dv A
	field_is cut-vol1-dirty /dev/mapper/dv $V_DIRTY -eq 8
	field_is cut-vol2-dirty /dev/mapper/dc $V_DIRTY -eq 8
	# A and C are in the pool only: what the second boot must tell apart
	check_fails cut-origin1-not-a holds /dev/vdc A
	check_fails cut-origin2-not-c holds /dev/vdd C
	# the table swap an LVM command or a dmsetup reload does
	echo 600000 >"$HOLD"
	check cut-reload-linear dm_reload dv "0 $(dev_sectors /dev/vdc) linear /dev/vdc 0"
	dmsetup resume dv >"$W/resume.out" 2>&1 &
	rpid=$!
	# the destructor took the hold: the linear table is live
	poll_until 600 hold_taken ||
		die "the old table's destructor never ran" cut-dtr-held
	pass cut-dtr-held
	dmsetup table dv | grep -q ' linear ' && pass cut-linear-live ||
		fail cut-linear-live "$(dmsetup table dv)"
	check cut-write-b wr "$W/B" /dev/mapper/dv
	check cut-dev-reads-b holds /dev/mapper/dv B
	check cut-origin1-b holds /dev/vdc B
	# the destructor still sleeps: the resume has not returned
	kill -0 $rpid 2>/dev/null && pass cut-dtr-still-held || fail cut-dtr-still-held "dmsetup resume returned: $(cat "$W/resume.out")"
	dmesg | grep fcache | tail -n 5 | sed 's/^/# /'
	echo "# $FC_T: $FC_PASSES passed, $FC_FAILS failed before the cut"
	[ "$FC_FAILS" -eq 0 ] || finish
	echo ready >>/results/ready
	sleep 600
	fail cut-power-cut "no power cut came"
	finish
	;;
check)
	check check-pool-load fc_pool dp /dev/vdb 64 $POOLOPTS
	[ -b /dev/mapper/dp ] || finish
	field_is check-pool-rw /dev/mapper/dp $P_MDMODE = rw
	info "pool after the cut: $(dmsetup status dp)"
	# no idle writeback meanwhile (it would take C to the origin)
	K=$(mk_fast_disk 16) || die "keeper disk"
	check check-keeper fc_vol dk dp "$K" 9 passthrough
	start_keeper /dev/mapper/dk
	# control: volume 2 was live at the cut, its dirty C is replayed
	check check-vol2-load fc_vol dc dp /dev/vdd 2 writeback sequential_cutoff 0
	field_is check-vol2-dirty-kept /dev/mapper/dc $V_DIRTY -eq 8
	check check-vol2-serves-c holds /dev/mapper/dc C
	check_fails check-origin2-not-c holds /dev/vdd C
	check check-origin1-b holds /dev/vdc B
	dmesg -c >/dev/null
	if printf '%s\n' "$VOL1" | dmsetup create dv >"$W/create.out" 2>&1; then
		dmsetup mknodes dv >/dev/null 2>&1
		got=$(which_pat /dev/mapper/dv)
		info "volume 1's table was accepted after the cut; it reads $got"
		if [ "$got" = B ]; then
			pass check-vol1-not-stale
		else
			fail check-vol1-not-stale "a table for volume 1 serves $got after the cut, not the fsynced B (the detach was not on the flash)"
		fi
	else
		info "volume 1's table refused: $(tr '\n' ' ' <"$W/create.out")"
		pass check-vol1-not-stale
		dmesg | grep -q "detached at run time with dirty data" &&
			pass check-vol1-refusal-says-why ||
			fail check-vol1-refusal-says-why "$(dmesg | grep fcache | tail -n 3 | tr '\n' ' ')"
		# the admin's choice: the origin is authoritative
		check check-resolve-discard dmsetup message dp 0 resolve 1 discard
		check check-vol1-load dm_create dv "$VOL1"
		field_is check-vol1-clean /dev/mapper/dv $V_DIRTY -eq 0
		check check-vol1-serves-b holds /dev/mapper/dv B
	fi
	check check-origin1-still-b holds /dev/vdc B
	check check-vol2-flush dmsetup message dc 0 flush
	check check-origin2-c holds /dev/vdd C
	[ -b /dev/mapper/dv ] && check check-remove-vol1 dm_remove dv
	check check-remove-vol2 dm_remove dc
	kill "$keeper" 2>/dev/null
	wait "$keeper" 2>/dev/null
	check check-remove-keeper dm_remove dk
	check check-remove-pool dm_remove dp
	check check-rmmod unload_fcache
	dmesg_clean
	finish
	;;
*)
	die "usage: fc_detach_cut.sh cut|check"
	;;
esac
