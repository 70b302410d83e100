#!/bin/sh
# enable of an origin carrying an LVM PV signature (issue 35, item 12): if
# LVM would see the PV raw as well as cached (its global_filter/filter
# accept the raw device, or its devices file lists it), enable refuses
# without --force and prints the exact global_filter line to add (the
# cached device accepted, the raw one rejected, what the file has after
# them); with --force it warns; a filter that hides the raw PV passes
# silently; LVM seeing neither is warned.  On the host, through
# ctl_confedit lvm (lvm_filter.c's fc_lvm_guard, which enable calls) on an
# image file with an LVM2 label (libblkid: LVM2_member), with a fake
# lvmconfig on PATH, or a failing one and $LVM_SYSTEM_DIR/lvm.conf, and the
# real lvmconfig over $LVM_SYSTEM_DIR when installed.  enable takes
# --force; its --help says why.
. "$(dirname "$0")/ctl_lib.sh"
ctl_build

# an LVM2 PV label in sector 1 (label header with its CRC, pv_header)
mkpv() {
	truncate -s 8M "$1" && python3 - "$1" <<'PY'
import struct, sys, zlib
sec = bytearray(512)
sec[0:8] = b"LABELONE"
struct.pack_into("<Q", sec, 8, 1)
struct.pack_into("<I", sec, 20, 32)
sec[24:32] = b"LVM2 001"
sec[32:64] = b"0123456789abcdefghijABCDEFGHIJkl"
struct.pack_into("<Q", sec, 64, 8 << 20)
# LVM's CRC: CRC-32 (reflected) from 0xf597a6cf, no final xor
struct.pack_into("<I", sec, 16, ~zlib.crc32(bytes(sec[20:]), ~0xf597a6cf & 0xffffffff) & 0xffffffff)
with open(sys.argv[1], "r+b") as f:
    f.seek(512)
    f.write(sec)
PY
}
PV=$T/pv.img
mkpv "$PV" || { fail "pvfilter: make a PV image"; exit 0; }
truncate -s 8M "$T/plain.img"
if command -v blkid >/dev/null 2>&1; then
	blkid -p "$PV" 2>/dev/null | grep -q 'TYPE="LVM2_member"' && pass "pvfilter: blkid sees the image as an LVM PV" ||
		fail "pvfilter: blkid sees the image as an LVM PV" "$(blkid -p "$PV" 2>&1)"
fi
# the raw path as a regex, as enable quotes it
QPV=$(printf '%s' "$PV" | sed 's/[.[\()*+?{}^$|]/\\&/g')

# fake_lvmconfig LINES...: an lvmconfig on PATH printing LINES (exit 0);
# "FAIL" alone: one that fails (exit 5), as when it is too old
mkdir -p "$T/bin" "$T/lvm/devices"
fake_lvmconfig() {
	if [ "$1" = FAIL ]; then
		printf '#!/bin/sh\necho called >>"%s/called"\nexit 5\n' "$T" >"$T/bin/lvmconfig"
	else
		{ printf '#!/bin/sh\necho called >>"%s/called"\ncat <<"EOF"\n' "$T"; printf '%s\n' "$@"; printf 'EOF\n'; } >"$T/bin/lvmconfig"
	fi
	chmod +x "$T/bin/lvmconfig"
}
E=
if ctl_confedit_build; then
	E=$BIN/ctl_confedit
else
	fail "pvfilter: build ctl_confedit" "$(head -c 600 "$T/cc.log")"
fi
# guard NAME RC [force] [ORIGIN]: ctl_confedit - lvm ORIGIN pvc, with the fake lvmconfig first on PATH
guard() {
	_n=$1 _rc=$2 _f=${3:-} _o=${4:-$PV}
	rm -f "$T/called"
	if [ -z "$E" ]; then fail "$_n" "no ctl_confedit"; return; fi
	# shellcheck disable=SC2086
	expect_rc "$_rc" "$_n" env PATH="$T/bin:$PATH" LVM_SYSTEM_DIR="$T/lvm" "$E" - lvm "$_o" pvc $_f
}
say() { if eval "$2"; then pass "$1"; else fail "$1" "$(head -c 600 "$T/err")"; fi; }
DEF='global_filter=["a|.*|"]
filter=["a|.*|"]
use_devicesfile=0
devicesfile="system.devices"'

# ---- LVM's defaults: both devices seen: refused, with the line to add
fake_lvmconfig "$DEF"
guard "pvfilter: default filters: refused" 1
LINE="devices { global_filter = [ \"a|^/dev/mapper/pvc\$|\", \"r|^$QPV\$|\", \"a|.*|\" ] }"
say "pvfilter: the exact global_filter line (cached accepted, raw rejected, the old entries after)" \
	'grep -qF -- "$LINE" "$T/err"'
say "pvfilter: names the duplicate devices, --force and the man page" \
	'grep -q "PVs appear on duplicate devices" "$T/err" && grep -q -- "--force" "$T/err" && grep -q "man fcachectl" "$T/err"'
say "pvfilter: lvmconfig was asked" '[ -s "$T/called" ]'
guard "pvfilter: --force takes it" 0 force
say "pvfilter: --force warns with the line" 'grep -q "^fcachectl: warning: " "$T/err" && grep -qF -- "$LINE" "$T/err"'

# ---- the filter the line gives: silent
fake_lvmconfig "global_filter=[\"a|^/dev/mapper/pvc\$|\",\"r|^$QPV\$|\"]" 'filter=["a|.*|"]' 'use_devicesfile=0'
guard "pvfilter: the suggested global_filter: taken" 0
say "pvfilter: ... without a word" '[ ! -s "$T/err" ]'
# the raw device rejected by a catch-all after the cached one
fake_lvmconfig 'global_filter=["a|^/dev/mapper/pvc$|","r|.*|"]' 'filter=["a|.*|"]'
guard "pvfilter: accept the cached PV, reject everything else: taken" 0
say "pvfilter: ... silent" '[ ! -s "$T/err" ]'
# filter (not global_filter) rejecting the raw one: vgchange does not see it
fake_lvmconfig 'global_filter=["a|.*|"]' "filter=[\"r|^$QPV\$|\"]"
guard "pvfilter: devices/filter rejecting the raw PV: taken" 0
# a filter that hides both: warned, not refused
fake_lvmconfig 'global_filter=["r|.*|"]'
guard "pvfilter: LVM seeing neither: taken" 0
say "pvfilter: ... warned that its VG would not come up" 'grep -q "neither" "$T/err" && grep -q "would not come up" "$T/err"'

# ---- no PV signature: lvmconfig is not even asked
fake_lvmconfig "$DEF"
guard "pvfilter: an origin without a PV signature: taken" 0 "" "$T/plain.img"
say "pvfilter: ... silent, lvmconfig not run" '[ ! -s "$T/err" ] && [ ! -e "$T/called" ]'

# ---- LVM's devices file: only what it lists
fake_lvmconfig 'global_filter=["a|.*|"]' 'use_devicesfile=1' 'devicesfile="system.devices"'
printf '# LVM uses devices listed in this file.\nVERSION=1.1.1\nIDTYPE=devname IDNAME=%s DEVNAME=%s PVID=abc PART=0\n' "$PV" "$PV" \
	>"$T/lvm/devices/system.devices"
guard "pvfilter: devices file listing the raw PV: refused" 1
say "pvfilter: ... naming lvmdevices" 'grep -q "lvmdevices --deldev" "$T/err" && grep -q "system.devices" "$T/err"'
printf 'VERSION=1.1.1\nIDTYPE=devname IDNAME=/dev/mapper/pvc DEVNAME=/dev/mapper/pvc PVID=abc\n' \
	>"$T/lvm/devices/system.devices"
guard "pvfilter: devices file listing the cached PV only: taken" 0
say "pvfilter: ... silent" '[ ! -s "$T/err" ]'
rm -f "$T/lvm/devices/system.devices"

# ---- no usable lvmconfig: $LVM_SYSTEM_DIR/lvm.conf (comments, lists over lines, other sections)
fake_lvmconfig FAIL
cat >"$T/lvm/lvm.conf" <<EOF
# filter = [ "a|.*|" ] in a comment
config {
	checks = 1
}
devices {
	dir = "/dev"
	# the cached PV, never the raw one
	global_filter = [ "a|^/dev/mapper/pvc\$|",
		"r|^$QPV\$|" ]
}
activation {
	filter = [ "r|.*|" ]
}
EOF
guard "pvfilter: lvm.conf with the filter (lvmconfig failing): taken" 0
say "pvfilter: ... lvmconfig tried first" '[ -s "$T/called" ] && [ ! -s "$T/err" ]'
printf 'devices {\n\tdir = "/dev"\n}\n' >"$T/lvm/lvm.conf"
guard "pvfilter: lvm.conf without a filter: refused" 1
say "pvfilter: ... naming lvm.conf as what LVM reads" 'grep -qF "$T/lvm/lvm.conf" "$T/err" && grep -qF -- "\"r|^$QPV\$|\" ] }" "$T/err"'
rm -f "$T/lvm/lvm.conf"
guard "pvfilter: no lvmconfig, no lvm.conf (no LVM here): taken" 0

# ---- the real lvmconfig over \$LVM_SYSTEM_DIR, when LVM is installed
if command -v lvmconfig >/dev/null 2>&1 && [ -n "$E" ]; then
	rm -f "$T/bin/lvmconfig"
	printf 'devices {\n\tglobal_filter = [ "a|^/dev/mapper/pvc$|", "r|^%s$|" ]\n}\n' "$QPV" >"$T/lvm/lvm.conf"
	guard "pvfilter: real lvmconfig, the filter in LVM_SYSTEM_DIR: taken" 0
	printf 'devices {\n\tglobal_filter = [ "a|/dev/mapper/|", "a|.*|" ]\n}\n' >"$T/lvm/lvm.conf"
	guard "pvfilter: real lvmconfig, a filter accepting both: refused" 1
	say "pvfilter: ... the line keeps the file's entries after the new two" \
		'grep -qF -- "\"a|/dev/mapper/|\", \"a|.*|\" ] }" "$T/err"'
fi

# ---- enable takes --force (no device-mapper here: exit 1, no usage error)
expect_rc 1 "pvfilter: enable --force is an option" "$CTL" enable /dev/null --pool p0 --force --no-persist
grep -q 'option' "$T/err" && fail "pvfilter: enable --force is no usage error" "$(cat "$T/err")" ||
	pass "pvfilter: enable --force is no usage error"
"$CTL" enable --help >"$T/out" 2>&1
grep -q -- '--force' "$T/out" && grep -q 'PV signature' "$T/out" && pass "pvfilter: enable --help gives --force for a PV" ||
	fail "pvfilter: enable --help gives --force for a PV" "$(cat "$T/out")"
