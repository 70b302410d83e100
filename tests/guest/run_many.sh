#!/bin/sh
# Several guest scripts in one boot (a boot costs ~10 s under TCG):
#   run_many.sh SCRIPT...   (paths relative to the repository)
# Each runs in its own shell, one after the other, whatever the previous
# one's outcome; a script that exits non-zero without a FAIL line of its
# own gets one here.  Only for scripts that leave the guest as they found
# it (their dm devices removed, dm-fcache unloaded) and use null_blk
# devices only (brd and md0 exist once per boot).
rc=0
for s in "$@"; do
	echo "# run_many: $s"
	out=/tmp/run_many.$$.out
	{ sh "$FC_TOP/$s" 2>&1; echo $? >"$out.rc"; } | tee "$out"
	r=$(cat "$out.rc" 2>/dev/null || echo 1)
	if [ "$r" != 0 ]; then
		grep -q '^FAIL: ' "$out" || echo "FAIL: $s (exit status $r)"
		rc=1
	fi
	rm -f "$out" "$out.rc"
done
exit $rc
