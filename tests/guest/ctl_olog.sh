#!/bin/sh
# fcachectl ordered-log on block devices (the host test, tests/host/
# ctl_olog.sh, covers the format's cases on image files): records written
# onto a log device by tests/host/olog_mk.c, replayed onto an origin
# device, the origin compared byte for byte with what olog_mk computed;
# a log or origin held by a device-mapper table refused (O_EXCL); a log
# whose ring has an unreadable page (dm error over one page of a record's
# data) refused, the origin untouched, and replayed whole once readable.
FC_T=ctl_olog
. "$FC_TOP/tests/guest/lib.sh"
CTL=$FC_TOP/userspace/fcachectl
T=/tmp/ctl_olog
mkdir -p $T
MK=$T/olog_mk
olog_mk_build "$MK" || die "cannot build olog_mk" build
lg=$(mk_fast_disk 16) && org=$(mk_fast_disk 8) || die "disks"
dd if=/dev/urandom of="$org" bs=1M count=8 oflag=direct status=none || die "fill origin"

check "format a log device for the origin" "$CTL" ordered-log format "$lg" --origin "$org"
"$MK" "$lg" "$org" $T/expect 20 5 >$T/mk.out 2>&1 || fail "olog_mk" "$(cat $T/mk.out)"
info "olog_mk: $(cat $T/mk.out)"
check "replay onto the origin device" "$CTL" ordered-log replay "$lg" "$org"
cmp -s "$org" $T/expect && pass "the origin device holds what was written, byte for byte" ||
	fail "origin after replay" "$(cmp "$org" $T/expect 2>&1)"

# devices held by a table are refused, nothing written
"$MK" "$lg" "$org" $T/expect 10 6 >$T/mk.out 2>&1 || fail "olog_mk 2" "$(cat $T/mk.out)"
cp "$org" $T/org0 && dd if="$lg" of=$T/lg0 bs=1M status=none
for held in "$org" "$lg"; do
	dm_create hold "0 $(dev_sectors "$held") linear $held 0" || die "dm hold"
	if "$CTL" ordered-log replay "$lg" "$org" >$T/out 2>$T/err; then
		fail "replay with $held held by a table" "exit 0"
	elif grep -q 'in use' $T/err; then
		pass "replay with $(basename "$held") held by a table: refused ($(cat $T/err))"
	else
		fail "replay with $held held" "$(cat $T/err)"
	fi
	dm_remove hold
done
cmp -s "$org" $T/org0 && cmp -s "$lg" $T/lg0 && pass "... neither device was written" ||
	fail "held devices written"

# an unreadable page in record 3's data: the walk cannot tell the log's end
# from the error, so replay refuses rather than apply an older flush point
p3=$(olog_data_page "$lg" 3)
dm_error_page lge "$lg" "$p3" || die "dm error table"
if "$CTL" ordered-log replay /dev/mapper/lge "$org" >$T/out 2>$T/err; then
	fail "replay over an unreadable page" "exit 0: $(cat $T/out)"
elif grep -q 'read error' $T/err; then
	pass "replay over an unreadable page of record 4's data: refused ($(cat $T/err))"
else
	fail "replay over an unreadable page" "$(cat $T/err)"
fi
dm_remove lge
cmp -s "$org" $T/org0 && pass "... the origin untouched" || fail "origin written by a refused replay"
check "the log readable again: replay" "$CTL" ordered-log replay "$lg" "$org"
cmp -s "$org" $T/expect && pass "... the origin holds every record, byte for byte" ||
	fail "origin after the second replay" "$(cmp "$org" $T/expect 2>&1)"
finish
