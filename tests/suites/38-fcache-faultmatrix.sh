#!/bin/sh
# dm-fcache metadata fault matrix in the guest: tests/guest/fc_faultmatrix.sh
# with the fault-injection module build/fi/dm-fcache.ko (make fi-module) and
# the data oracle tests/guest/fc_fmio.c.  docs/TESTING.md, "Fault matrix".
# Then tests/guest/fc_wt_race.sh and tests/guest/fc_detach_cut.sh, which
# need the same test build.
. "$(dirname "$0")/../vm/suite-lib.sh"
fi_ko=$SUITE_TOP/build/fi/dm-fcache.ko
if [ ! -f "$fi_ko" ]; then
	echo "FAIL: fcache-faultmatrix (build/fi/dm-fcache.ko not built: make fi-module)"
	exit 0
fi
for f in "$SUITE_TOP"/kmod/*.[ch] "$SUITE_TOP"/engine/*.[ch] "$SUITE_TOP"/include/*.h; do
	if [ "$f" -nt "$fi_ko" ]; then
		echo "# fcache-faultmatrix: $f is newer than build/fi/dm-fcache.ko (make fi-module)" >&2
		break
	fi
done
# the test hook only in the test build
if modinfo -F parm "$fi_ko" | grep -q '^fault_md_io:'; then
	echo "PASS: fcache-faultmatrix/fi-module-has-hook"
else
	echo "FAIL: fcache-faultmatrix/fi-module-has-hook (no fault_md_io in $fi_ko)"
fi
if [ -f "$SUITE_TOP/dm-fcache.ko" ]; then
	if modinfo -F parm "$SUITE_TOP/dm-fcache.ko" | grep -q '^fault_md_io:\|^md_io_count:\|^mutant_\|^wt_hold_ms:\|^dtr_hold_ms:'; then
		echo "FAIL: fcache-faultmatrix/module-without-hook (dm-fcache.ko has the fault-injection parameters)"
	else
		echo "PASS: fcache-faultmatrix/module-without-hook"
	fi
fi
fmio=$SUITE_TOP/build/vm/fc_fmio
mkdir -p "$SUITE_TOP/build/vm"
if ! gcc -O2 -Wall -o "$fmio" "$SUITE_TOP/tests/guest/fc_fmio.c"; then
	echo "FAIL: fcache-faultmatrix (cannot build fc_fmio)"
	exit 0
fi
# make check: every operation at its first 4 I/O indices plus 1 sampled
# (a commit: its two pages, flush, superblock); make check-long: up to 12
# plus 4 sampled (the script's defaults)
if [ "${FC_LONG:-0}" = 1 ]; then fm_args=; else fm_args="full=2 sample=1"; fi
# shellcheck disable=SC2086
guest_run fcache-faultmatrix --timeout 1500 tests/guest/fc_faultmatrix.sh $fm_args
# writethrough vs an overlapping write (the test build's wt_hold_ms hook)
guest_run fcache-wt-race --timeout 600 tests/guest/fc_wt_race.sh
# a volume's table replaced by linear, a power cut before the old table's
# destructor ran (the test build's dtr_hold_ms hook): two boots on
# persistent images under one hold of the guest lock
dres=$SUITE_TOP/build/vm/results-detach-cut
dimg=$SUITE_TOP/build/vm/detach-cut
rm -rf "$dres" "$dimg".*.img
mkdir -p "$dres" && : >"$dres/ready"
if hold_vm_lock fcache-detach-cut; then
	guest_expect_killed fcache-detach-cut-cut --results "$dres" --timeout 600 \
		--flash-img "$dimg.flash.img:32" --disk2 "$dimg.o1.img:16" \
		--disk3 "$dimg.o2.img:16" --kill-when "$dres/ready:1" \
		tests/guest/fc_detach_cut.sh cut
	guest_run fcache-detach-cut-check --results "$dres" --timeout 600 \
		--flash-img "$dimg.flash.img:32" --disk2 "$dimg.o1.img:16" \
		--disk3 "$dimg.o2.img:16" tests/guest/fc_detach_cut.sh check
fi
rm -f "$dimg".*.img
