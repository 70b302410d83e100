#!/bin/sh
# make install into a DESTDIR: every file in place, the DKMS source tree
# builds the module on its own, the man page renders without warnings, the
# bash completion completes, the unit and rule carry the real fcachectl path.
. "$(dirname "$0")/ctl_lib.sh"
D=$T/root
if make -s -C "$top" install DESTDIR="$D" >"$T/inst.log" 2>&1; then pass "install: make install DESTDIR"
else fail "install: make install DESTDIR" "$(tail -n 5 "$T/inst.log" | tr '\n' ' ')"; fi
kver=$(ls "$D/lib/modules" 2>/dev/null | head -n 1)
for f in "lib/modules/$kver/extra/dm-fcache.ko" usr/sbin/fcachectl usr/share/man/man8/fcachectl.8 \
	lib/systemd/system/fcache.service lib/udev/rules.d/69-fcache.rules \
	usr/share/bash-completion/completions/fcachectl etc/fcache/fcache.conf \
	usr/lib/ocf/resource.d/fcache/fcache; do
	[ -s "$D/$f" ] && pass "install: /$f" || fail "install: /$f missing"
done
[ -x "$D/usr/sbin/fcachectl" ] && "$D/usr/sbin/fcachectl" --version >/dev/null && pass "install: fcachectl runs" || fail "install: fcachectl runs"
dk=$(ls -d "$D"/usr/src/fcache-* 2>/dev/null | head -n 1)
if [ -n "$dk" ] && grep -q "^PACKAGE_VERSION=\"${dk##*/fcache-}\"" "$dk/dkms.conf"; then pass "install: dkms.conf with the version"
else fail "install: dkms.conf with the version"; fi
grep -q 'BUILT_MODULE_NAME\[0\]="dm-fcache"' "$dk/dkms.conf" 2>/dev/null && pass "install: dkms.conf names dm-fcache" || fail "install: dkms.conf names dm-fcache"
grep -q '/usr/sbin/fcachectl up' "$D/lib/systemd/system/fcache.service" && pass "install: unit runs /usr/sbin/fcachectl up" || fail "install: unit runs /usr/sbin/fcachectl up"
grep -q 'Before=local-fs-pre.target' "$D/lib/systemd/system/fcache.service" && pass "install: unit before local-fs-pre.target" || fail "install: unit before local-fs-pre.target"
# the OCF agent: executable, its meta-data valid against the OCF DTD
# (resource-agents' ra-api-1.dtd, with xmllint) and naming its parameters
ra=$D/usr/lib/ocf/resource.d/fcache/fcache
if [ -x "$ra" ] && OCF_ROOT=/usr/lib/ocf "$ra" meta-data >"$T/ra.xml" 2>"$T/ra.err" &&
	grep -q '<parameter name="config"' "$T/ra.xml" && grep -q '<parameter name="allow_degraded"' "$T/ra.xml"; then
	pass "install: OCF agent prints its meta-data"
else
	fail "install: OCF agent prints its meta-data" "$(head -n 3 "$T/ra.err" | tr '\n' ' ')"
fi
if (cd /usr/share/resource-agents && xmllint --noout --valid - <"$T/ra.xml") >"$T/lint.err" 2>&1; then
	pass "install: OCF agent meta-data valid (ra-api-1.dtd)"
else
	fail "install: OCF agent meta-data valid (ra-api-1.dtd)" "$(head -n 3 "$T/lint.err" | tr '\n' ' ')"
fi
grep -q '/usr/sbin/fcachectl udev-probe' "$D/lib/udev/rules.d/69-fcache.rules" && pass "install: udev rule calls udev-probe" || fail "install: udev rule calls udev-probe"
# the DKMS tree builds the module by itself, as dkms would
kdir=$(ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
if [ -n "$kdir" ] && [ -n "$dk" ]; then
	cp -r "$dk" "$T/dkmsbuild"
	if make -s -C "$kdir" M="$T/dkmsbuild" modules >"$T/dkms.log" 2>&1 && [ -s "$T/dkmsbuild/dm-fcache.ko" ]; then
		pass "install: DKMS source tree builds dm-fcache.ko"
	else
		fail "install: DKMS source tree builds dm-fcache.ko" "$(tail -n 5 "$T/dkms.log" | tr '\n' ' ')"
	fi
fi
# an existing config is never overwritten
echo "# mine" >"$D/etc/fcache/fcache.conf"
make -s -C "$top" install-userspace DESTDIR="$D" >/dev/null 2>&1
grep -qx '# mine' "$D/etc/fcache/fcache.conf" && pass "install: keeps an existing fcache.conf" || fail "install: keeps an existing fcache.conf"
# the example config parses (all of it is comments) and the real example lines parse
"$D/usr/sbin/fcachectl" up --dry-run -c "$D/etc/fcache/fcache.conf" >"$T/out" 2>&1 && [ ! -s "$T/out" ] &&
	pass "install: installed example config is all comments" || fail "install: installed example config is all comments" "$(cat "$T/out")"
sed -n 's/^# \(pool fast0 .*\)/\1/p; s/^# \(volume fast0 .*\)/\1/p' "$top/systemd/fcache.conf.example" >"$T/ex.conf"
if [ "$(wc -l <"$T/ex.conf")" -eq 3 ] && "$top/userspace/fcachectl" up --dry-run -c "$T/ex.conf" >"$T/out" 2>"$T/err" &&
	grep -q '^volume fast0 /dev/vg0/mysql id=1 mode=writeback$' "$T/out"; then
	pass "install: example config lines parse"
else
	fail "install: example config lines parse" "$(cat "$T/err")"
fi
# man page: renders, no groff warnings
if groff -Tutf8 -man -ww -z "$top/man/fcachectl.8" 2>"$T/groff.err" && [ ! -s "$T/groff.err" ]; then pass "install: man page renders cleanly"
else fail "install: man page renders cleanly" "$(head -n 3 "$T/groff.err" | tr '\n' ' ')"; fi
for v in pool enable disable status set flush check dump wipe up down ordered-log; do
	# the man page writes a hyphen as \-
	grep -q "^\.B $v\|^\.B pool $v\|^\.B pool create" "$top/man/fcachectl.8" ||
		sed 's/\\-/-/g' "$top/man/fcachectl.8" | grep -q "^\.B $v " || fail "install: man page documents $v"
done
pass "install: man page documents every verb"
# completion
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl po); COMP_CWORD=1; _fcachectl; echo \${COMPREPLY[*]}")
[ "$out" = "pool" ] && pass "install: completion completes a verb" || fail "install: completion completes a verb" "$out"
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl enable x --mode write); COMP_CWORD=4; _fcachectl; echo \${COMPREPLY[*]}")
[ "$out" = "writeback writethrough writearound" ] && pass "install: completion completes --mode" || fail "install: completion completes --mode" "$out"
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl check img --re); COMP_CWORD=3; _fcachectl; echo \${COMPREPLY[*]}")
[ "$out" = "--repair" ] && pass "install: completion completes check options after FLASHDEV" || fail "install: completion completes check options after FLASHDEV" "$out"
out=$(bash -c ". '$top/completion/fcachectl'; COMP_WORDS=(fcachectl pool --json l); COMP_CWORD=3; _fcachectl; echo \${COMPREPLY[*]}")
[ "$out" = "list" ] && pass "install: completion finds pool's subcommand after an option" || fail "install: completion finds pool's subcommand after an option" "$out"
