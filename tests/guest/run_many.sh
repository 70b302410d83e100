#!/bin/sh
# Several guest scripts in one boot (a boot costs ~10 s under TCG):
#   run_many.sh SCRIPT...   (paths relative to the repository)
# Each runs in its own shell, one after the other, whatever the previous
# one's outcome; a script that exits non-zero without a FAIL line of its
# own gets one here.  Before each script but the first the guest is put
# back as a boot leaves it (reset below): mounts on /mnt gone, every dm
# device removed, dm-fcache and brd unloaded (brd takes its sizes only
# when loaded), null_blk devices removed, fcachectl's config gone.  A
# script that makes md0 must come last (md arrays are not taken down).
. "$FC_TOP/tests/guest/lib.sh"

reset() {
	for _m in $(awk '$2 ~ "^/mnt/" { print $2 }' /proc/mounts | sort -r); do
		umount "$_m" || umount -l "$_m"
	done
	_i=0
	while [ -n "$(dmsetup ls 2>/dev/null | grep -v 'No devices')" ] && [ $_i -lt 50 ]; do
		dmsetup remove_all >/dev/null 2>&1
		[ $_i -gt 0 ] && sleep 0.2
		_i=$((_i + 1))
	done
	unload_fcache
	grep -q '^brd ' /proc/modules && rmmod brd
	for _d in /sys/kernel/config/nullb/*; do
		[ -d "$_d" ] || continue
		echo 0 >"$_d/power" 2>/dev/null
		rmdir "$_d"
	done
	rm -rf /etc/fcache
	! dmsetup ls 2>/dev/null | grep -qv 'No devices' && ! grep -qE '^(brd|dm_fcache) ' /proc/modules
}

rc=0
first=1
for s in "$@"; do
	if [ $first = 0 ] && ! reset >/tmp/run_many.reset 2>&1; then
		echo "FAIL: run_many/reset-before-$(basename "$s" .sh) ($(tail -n 3 /tmp/run_many.reset | tr '\n' ' '))"
		rc=1
		continue
	fi
	first=0
	echo "# run_many: $s"
	out=/tmp/run_many.$$.out
	t0=$(date +%s)
	{ sh "$FC_TOP/$s" 2>&1; echo $? >"$out.rc"; } | tee "$out"
	r=$(cat "$out.rc" 2>/dev/null || echo 1)
	echo "# run_many: $s took $(($(date +%s) - t0)) s"
	if [ "$r" != 0 ]; then
		grep -q '^FAIL: ' "$out" || echo "FAIL: $s (exit status $r)"
		rc=1
	fi
	rm -f "$out" "$out.rc"
done
exit $rc
