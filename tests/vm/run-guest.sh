#!/bin/sh
# Boot Debian's kernel under QEMU and run one guest script in it.
#
#   tests/vm/run-guest.sh [options] GUEST_SCRIPT [args...]
#
# The host root is shared read-only (9p) with a tmpfs overlay on top, so every
# host tool is available in the guest; GUEST_SCRIPT is a path in this repo and
# has the same path in the guest.  See docs/TESTING.md.
#
# Options:
#   --flash-img FILE[:SIZE_MB]  persistent virtio disk, /dev/vdb in the guest
#                               (created sparse if missing; default 1024 MB)
#   --disk2 FILE[:SIZE_MB]      persistent virtio disk, /dev/vdc
#   --disk3 FILE[:SIZE_MB]      persistent virtio disk, /dev/vdd
#   --results DIR               host dir shared writable as /results
#                               (default build/vm/results)
#   --mem MB                    guest RAM (default 3072)
#   --timeout SECONDS           kill qemu after this; the run fails (default 300)
#   --kill-after SECONDS        SIGKILL qemu after N s (power cut); the run is
#                               OK only if the kill happened
#   --kill-when FILE:LINES[:SECONDS]
#                               SIGKILL qemu SECONDS (default 0) after the
#                               host file FILE (e.g. a log on the /results
#                               share) has LINES lines: a power cut at a
#                               point of the guest's progress, not of the
#                               clock (TCG speed varies with the host's
#                               load); OK only if the kill happened before
#                               --timeout
#   --kill-on FILE              SIGKILL qemu as soon as the host file FILE
#                               exists (a power cut another process asks
#                               for: tests/vm/two-hosts.sh); OK if killed,
#                               the script's own status if it ended first
#   --shared-img FILE[:SIZE_MB] persistent virtio disk that another guest may
#                               have open at the same time (a SAN LUN: no
#                               image locking, share-rw); the guest finds it
#                               by its serial "fcshared" (/sys/block/vd*/serial)
#   --net-udp LPORT:RPORT       a virtio NIC (eth0 in the guest) whose frames
#                               go as UDP datagrams from 127.0.0.1:LPORT to
#                               127.0.0.1:RPORT (QEMU's socket netdev):
#                               two guests with swapped ports share a link
#                               that survives either one's death and reboot
#   --env NAME=VALUE            exported to the guest script (repeatable)
#   --accel kvm|tcg             default $FC_ACCEL or tcg
#   --loglevel N                console loglevel (default 5: warnings and up;
#                               the full dmesg is appended to the log anyway)
#   --name NAME                 log name (default: script basename)
#   --quiet                     do not copy the console to stdout while running
#
# /dev/vda is always a fresh 256 MB scratch disk (deleted after the run).
#
# Environment (all optional; unset = Debian's kernel as described above):
#   FC_GUEST_KERNEL=BZIMAGE   boot this kernel instead (make check-debug);
#   FC_GUEST_MODDIR=DIR       its modules, as installed by `make modules_install
#                             INSTALL_MOD_PATH=DIR`: DIR/lib/modules/<ver> is
#                             bind-mounted over /lib/modules/<ver> in the guest
#                             (needed with FC_GUEST_KERNEL); initramfs modules
#                             built into that kernel are skipped
#   FC_KO=PATH                the dm-fcache.ko the guest sees as $FC_KO
#                             (default: dm-fcache.ko at the repo top)
#   FC_TIMEOUT_MULT=N         multiply --timeout and --kill-after by N (integer)
#                             for slow (debug) kernels
#   FC_GUEST_APPEND=ARGS      more kernel command line (diagnostic runs, e.g.
#                             module_blacklist=crc32c_intel: docs/bench-details.md)
#   FC_SLUB_DEBUG=FLAGS       the guest's slub_debug= (default FZP; FZPU adds
#                             allocation call sites to reports, at a cost)
#   FC_GUEST_CPU=MODEL        QEMU's -cpu under TCG (default max);
#                             tests/run-all.sh sets max,-erms,-fsrm (below)
#
# Exit status: the guest script's exit code (clamped to 1..31 when non-zero),
# or 120 kernel error lines in the console (BUG, WARNING, Oops, ...),
# 121 guest finished before --kill-after, 124 timeout, 125 harness error,
# 126 guest died without reporting (panic, crash, poweroff).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$top/build/vm

die() { echo "run-guest: $*" >&2; exit 125; }

flash="" disk2="" disk3="" results=$vmdir/results mem=3072 timeout=300
kill_after="" kill_when="" accel=${FC_ACCEL:-tcg} loglevel=5 name="" quiet=0
kill_on="" shared="" netudp="" genv=""
while [ $# -gt 0 ]; do
	case "$1" in
	--flash-img) flash=$2; shift 2 ;;
	--disk2) disk2=$2; shift 2 ;;
	--disk3) disk3=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--kill-after) kill_after=$2; shift 2 ;;
	--kill-when) kill_when=$2; shift 2 ;;
	--kill-on) kill_on=$2; shift 2 ;;
	--shared-img) shared=$2; shift 2 ;;
	--net-udp) netudp=$2; shift 2 ;;
	--env)
		case "$2" in [A-Za-z_]*=*) ;; *) die "--env NAME=VALUE, not $2" ;; esac
		genv="$genv${genv:+
}$2"; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--loglevel) loglevel=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: run-guest.sh [options] GUEST_SCRIPT [args...]"
script=$1; shift
case "$script" in /*) ;; *) script=$(pwd)/$script ;; esac
[ -f "$script" ] || die "no guest script $script"
script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
[ -n "$name" ] || name=$(basename "$script" .sh)
if [ -n "${FC_TIMEOUT_MULT:-}" ]; then
	case "$FC_TIMEOUT_MULT" in *[!0-9]*|"") die "FC_TIMEOUT_MULT must be a positive integer" ;; esac
	timeout=$((timeout * FC_TIMEOUT_MULT))
	[ -n "$kill_after" ] && kill_after=$((kill_after * FC_TIMEOUT_MULT))
fi
ko=${FC_KO:-$top/dm-fcache.ko}
gkernel=${FC_GUEST_KERNEL:-} gmods=${FC_GUEST_MODDIR:-}
case "$accel" in kvm|tcg) ;; *) die "--accel must be kvm or tcg" ;; esac
case "$netudp" in
''|[0-9]*:[0-9]*) ;;
*) die "--net-udp LPORT:RPORT, not $netudp" ;;
esac

# --- kernel: newest /boot/vmlinuz-* with a build tree, or FC_KVER --------
if [ -n "$gkernel" ]; then
	# a kernel of our own (debug build): its version from its modules dir
	[ -n "$gmods" ] || die "FC_GUEST_KERNEL needs FC_GUEST_MODDIR"
	gmods=$(cd "$gmods" && pwd) || die "no FC_GUEST_MODDIR $FC_GUEST_MODDIR"
	kver=${FC_KVER:-$(ls "$gmods/lib/modules" 2>/dev/null | head -n 1)}
	[ -n "$kver" ] && [ -d "$gmods/lib/modules/$kver" ] || die "no $gmods/lib/modules/<ver>"
elif [ -n "${FC_KVER:-}" ]; then
	kver=$FC_KVER
else
	kver=""
	for k in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V); do
		[ -d "/lib/modules/$k/build" ] && kver=$k
	done
fi
[ -n "$kver" ] || die "no /boot/vmlinuz-* with /lib/modules/<ver>/build (install linux-image-amd64 linux-headers-amd64)"
kernel=/boot/vmlinuz-$kver
[ -n "$gkernel" ] && kernel=$gkernel
[ -r "$kernel" ] || die "cannot read $kernel"
moddir=/lib/modules/$kver
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
bb=$(command -v busybox) || die "busybox missing (apt-get install busybox-static)"

mkdir -p "$vmdir/logs" "$results" || die "cannot create $vmdir"
results=$(cd "$results" && pwd)

# --- boot the uncompressed kernel when it can (PVH entry) -------------------
# QEMU boots an ELF vmlinux with a PVH note directly: no firmware hand-off
# to the bzImage's real-mode stub and no in-guest decompression, which under
# TCG took ~8 s of every ~18 s boot (an xz kernel).  The vmlinux is unpacked
# once per kernel on the host and kept in build/vm; a kernel without
# CONFIG_PVH, or a payload this cannot unpack, boots as the bzImage.
# FC_PVH=0 keeps the bzImage.
pvh_unpack() {
	# $1 bzImage -> $2 vmlinux; the payload is the first xz, zstd or gzip
	# stream in the file (the decompressor trails its own data after it)
	for _m in xz:'\3757zXZ' zstd:'\050\265\057\375' gzip:'\037\213\010'; do
		_tool=${_m%%:*}
		command -v "$_tool" >/dev/null || continue
		_magic=$(printf "${_m#*:}")
		_off=$(LC_ALL=C grep -abo -m 1 -F "$_magic" "$1" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$_off" ] || continue
		tail -c +$((_off + 1)) "$1" | "$_tool" -dc 2>/dev/null >"$2"
		# the ELF magic and a PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY, 18)
		if [ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = '177ELF' ] &&
			readelf -n "$2" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
			return 0
		fi
	done
	rm -f "$2"
	return 1
}
if [ -z "$gkernel" ] && [ "${FC_PVH:-1}" != 0 ] && command -v readelf >/dev/null; then
	vml=$vmdir/vmlinux-$kver
	if { [ ! -s "$vml" ] || [ "$vml" -ot "$kernel" ]; } &&
		{ [ ! -e "$vml.nopvh" ] || [ "$vml.nopvh" -ot "$kernel" ]; }; then
		rm -f "$vml" "$vml.nopvh"
		if pvh_unpack "$kernel" "$vml.$$"; then
			mv -f "$vml.$$" "$vml"
		else
			rm -f "$vml.$$"
			: >"$vml.nopvh"
		fi
	fi
	[ -s "$vml" ] && kernel=$vml
fi

# --- initramfs, built once per kernel version and init text ---------------
initmods="virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev virtio virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay"
init_text=$(cat <<'EOF'
#!/bin/busybox sh
# fcache guest stage 1: mount the host root (9p, ro) under a tmpfs overlay and
# switch_root into it; stage 2 is /fcctl/stage2.sh from the host.
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /host /ov /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do insmod /mod/$m.ko || echo "fcache-init: insmod $m failed"; done
fail() { echo "fcache-init: $*"; echo o >/proc/sysrq-trigger; sleep 5; exit 1; }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host || fail "mount host"
mount -t tmpfs -o size=1g tmpfs /ov || fail "tmpfs"
mkdir -p /ov/u /ov/w
mount -t overlay overlay -o lowerdir=/host,upperdir=/ov/u,workdir=/ov/w /newroot || fail "overlay"
mkdir -p /newroot/fcctl /newroot/results
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 fcctl /newroot/fcctl || fail "mount fcctl"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /newroot/results || fail "mount results"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/sh /fcctl/stage2.sh
EOF
)
key=$( { printf '%s\n%s\n%s\n' "$kver" "$initmods" "$init_text"
	[ -z "$gkernel" ] || printf '%s\n' "$gkernel"; } | sha256sum | cut -c1-12)
initrd=$vmdir/initramfs-$kver-$key.cpio.gz

# Serialize guest runs (tests/vm/lock.sh): a fair queue, then the flock.
qpid="" scratch="" vm_ticket=""
cleanup() {
	[ -n "$qpid" ] && kill -TERM "$qpid" 2>/dev/null
	rm -f ${vm_ticket:+"$vm_ticket"} ${scratch:+"$scratch"}
	[ -n "${ctl:-}" ] && rm -rf "$ctl"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
if [ "${FC_VM_LOCK_HELD:-}" != 1 ]; then
	. "$top/tests/vm/lock.sh"
	vm_lock || die "could not get the guest lock"
fi

if [ ! -s "$initrd" ]; then
	echo "run-guest: building $initrd" >&2
	ird=$(mktemp -d) || die mktemp
	mkdir -p "$ird/bin" "$ird/mod"
	cp "$bb" "$ird/bin/busybox" || die "copy busybox"
	printf '%s\n' "$init_text" >"$ird/init"
	chmod 755 "$ird/init"
	: >"$ird/modules.order"
	for m in $initmods; do
		if [ -n "$gkernel" ]; then
			# own kernel: modules built in (or not needed) are skipped
			f=$(modinfo -b "$gmods" -k "$kver" -n "$m" 2>/dev/null) || continue
			case "$f" in *.ko*) ;; *) continue ;; esac
		else
		f=$(modinfo -k "$kver" -n "$m" 2>/dev/null) || die "module $m not found for $kver"
		fi
		case "$f" in
		*.ko) cp "$f" "$ird/mod/$m.ko" ;;
		*.ko.xz) xz -dc "$f" >"$ird/mod/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$ird/mod/$m.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$ird/mod/$m.ko" ;;
		*) die "module $m: unexpected file $f" ;;
		esac
		echo "$m" >>"$ird/modules.order"
	done
	(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp.$$" || die "cpio"
	mv "$initrd.tmp.$$" "$initrd"
	rm -rf "$ird"
fi

# --- per-run control share: stage 2 and the job --------------------------
# one a run: two guests of tests/vm/two-hosts.sh run side by side
ctl=$vmdir/ctl.$$
rm -rf "$ctl"
mkdir -p "$ctl" || die "mkdir $ctl"
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	echo "cd $(q "$top") || exit 99"
	printf '%s\n' "$genv" | while IFS= read -r _e; do
		[ -n "$_e" ] && echo "export ${_e%%=*}=$(q "${_e#*=}")"
	done
	printf 'exec %s' "$(q "$script")"
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	echo
} >"$ctl/job.sh"
cat >"$ctl/stage2.sh" <<EOF
# fcache guest stage 2 (host /bin/sh, in the overlay root)
# The repo may live under /tmp or /run (a CI clone): keep it visible there
# after the guest's own tmpfs mounts hide the host's directories.
fctop=$(q "$top")
case "\$fctop" in
/tmp/*|/run/*) mkdir -p /mnt/fctop && mount --bind "\$fctop" /mnt/fctop ;;
esac
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
if mountpoint -q /mnt/fctop 2>/dev/null; then
	mkdir -p "\$fctop" && mount --bind /mnt/fctop "\$fctop"
fi
mkdir -p /dev/pts /dev/shm /dev/mapper
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
mount -t configfs configfs /sys/kernel/config 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo 1 >/proc/sys/kernel/sysrq
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 DM_DISABLE_UDEV=1
export FC_TOP=$(q "$top") FC_KO=$(q "$ko") FC_IN_GUEST=1 FC_KVER=$(q "$kver")
hostname fcache-guest 2>/dev/null
modprobe virtio_blk
i=0; while [ ! -b /dev/vda ] && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i+1)); done
echo "FCACHE-GUEST-START \$(uname -r)"
sh /fcctl/job.sh </dev/null
rc=\$?
echo "FCACHE-GUEST-END rc=\$rc"
dmesg >/fcctl/dmesg 2>/dev/null
echo \$rc >/fcctl/rc
sync
[ \$rc -gt 31 ] && rc=31
v=\$((32 + rc))
printf "\\\\\$(printf %o \$v)" | dd of=/dev/port bs=1 seek=244 count=1 status=none
echo "fcache-guest: isa-debug-exit failed, powering off"
echo o >/proc/sysrq-trigger
sleep 10
EOF
if [ -n "$gkernel" ]; then
	# the own kernel's modules replace the host's for modprobe in the guest
	mnt="mkdir -p /lib/modules/$(q "$kver") && mount --bind $(q "$gmods/lib/modules/$kver") /lib/modules/$(q "$kver")"
	awk -v l="$mnt" '{ print } $0 == "echo 1 >/proc/sys/kernel/sysrq" { print l }' \
		"$ctl/stage2.sh" >"$ctl/stage2.tmp" && mv "$ctl/stage2.tmp" "$ctl/stage2.sh" || die "stage2"
	grep -q '^mkdir -p /lib/modules/' "$ctl/stage2.sh" || die "stage2: no modules mount"
fi

# --- disks -------------------------------------------------------------------
# mkimg FILE[:SIZE_MB] -> prints FILE; creates a sparse image if missing.
mkimg() {
	f=${1%%:*} sz=1024
	case "$1" in *:*) sz=${1##*:} ;; esac
	if [ ! -e "$f" ]; then
		mkdir -p "$(dirname "$f")" && truncate -s "${sz}M" "$f" || die "cannot create $f"
	fi
	echo "$f"
}
scratch=$vmdir/scratch-$$.img
rm -f "$scratch"
truncate -s 256M "$scratch" || die "scratch"
drives="-drive file=$scratch,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,addr=0x8"
[ -n "$flash" ] && { f=$(mkimg "$flash") || exit 125; drives="$drives -drive file=$f,if=none,id=d1,format=raw,cache=unsafe -device virtio-blk-pci,drive=d1,addr=0x9"; }
[ -n "$disk2" ] && { [ -n "$flash" ] || die "--disk2 needs --flash-img"; f=$(mkimg "$disk2") || exit 125; drives="$drives -drive file=$f,if=none,id=d2,format=raw,cache=unsafe -device virtio-blk-pci,drive=d2,addr=0xa"; }
[ -n "$disk3" ] && { [ -n "$disk2" ] || die "--disk3 needs --disk2"; f=$(mkimg "$disk3") || exit 125; drives="$drives -drive file=$f,if=none,id=d3,format=raw,cache=unsafe -device virtio-blk-pci,drive=d3,addr=0xb"; }
if [ -n "$shared" ]; then
	f=$(mkimg "$shared") || exit 125
	drives="$drives -drive file=$f,if=none,id=ds,format=raw,cache=unsafe,file.locking=off -device virtio-blk-pci,drive=ds,serial=fcshared,share-rw=on,addr=0xc"
fi
if [ -n "$netudp" ]; then
	# the MAC from the local port: two guests of one link differ
	lp=${netudp%%:*} rp=${netudp#*:}
	drives="$drives -netdev socket,id=n0,udp=127.0.0.1:$rp,localaddr=127.0.0.1:$lp -device virtio-net-pci,netdev=n0,mac=52:54:00:fc:$(printf '%02x:%02x' $((lp / 256 % 256)) $((lp % 256))),addr=0xd"
fi

# The CPU model under TCG: max by default (what the demo and the figures of
# docs/PERFORMANCE.md ran on).  Without ERMS and FSRM the guest kernel
# copies with rep movsq instead of rep movsb, which TCG runs faster: make
# check's guest suites took 2203 s against 2393 s on max (the I/O-heavy
# ones up to 17% less, the shell- and wait-bound 32-fcache-mirror no
# less); make check runs so (tests/run-all.sh, docs/TESTING.md).
gcpu=${FC_GUEST_CPU:-max}
case "$gcpu" in *[!A-Za-z0-9,+_.-]*|'') die "FC_GUEST_CPU: a QEMU CPU model and its flags only" ;; esac
if [ "$accel" = kvm ]; then
	acc="-accel kvm -cpu host"
else
	acc="-accel tcg,thread=multi -cpu $gcpu"
fi

ts=$(date -u +%Y%m%d-%H%M%S)
log=$vmdir/logs/$name-$ts-$$.log
# SLUB debugging: sanity checks, red zones and poisoning (F, Z, P) catch a
# slab overrun or use after free as a "BUG <cache>" report, which fails the
# run.  U (the call sites of every allocation and free, for the report's
# text) adds a third to the guest's time under TCG (fc_integrity.sh: 69 s
# without slub_debug, 84 s with FZP, 105-111 s with FZPU); the debug kernel
# runs and `make check-long` set FC_SLUB_DEBUG=FZPU.
slub=${FC_SLUB_DEBUG:-FZP}
case "$slub" in *[!A-Za-z-]*) die "FC_SLUB_DEBUG: letters of slub_debug only" ;; esac
append="console=ttyS0 loglevel=$loglevel panic=-1 panic_on_warn=1 slub_debug=$slub mitigations=off no_timer_check 8250.nr_uarts=1 random.trust_cpu=on"
case "${FC_GUEST_APPEND:-}" in *[!A-Za-z0-9_.,=\ -]*) die "FC_GUEST_APPEND: kernel parameters only" ;; esac
[ -n "${FC_GUEST_APPEND:-}" ] && append="$append $FC_GUEST_APPEND"
: >"$log"
echo "run-guest: $name on $kver ($accel), log $log" >&2

lim=$timeout
[ -n "$kill_after" ] && lim=$kill_after
# shellcheck disable=SC2086
timeout -s KILL "$lim" qemu-system-x86_64 $acc -smp 2 -m "$mem" \
	-machine q35 -nodefaults -display none -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$append" \
	-chardev file,id=con,path="$log" -serial chardev:con \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-fsdev local,id=h,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=h,mount_tag=host \
	-fsdev local,id=c,path="$ctl",security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=c,mount_tag=fcctl \
	-fsdev local,id=r,path="$results",security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=r,mount_tag=results \
	$drives </dev/null >"$log.qemu" 2>&1 &
qpid=$!
tpid=""
kwpid="" kwmark=""
if [ -n "$kill_when" ]; then
	kwfile=${kill_when%%:*} kwrest=${kill_when#*:}
	kwlines=${kwrest%%:*} kwdelay=0
	[ "$kwrest" != "$kwlines" ] && kwdelay=${kwrest#*:}
	kwmark=$(mktemp) && rm -f "$kwmark"
	(
		while kill -0 "$qpid" 2>/dev/null; do
			n=$(wc -l <"$kwfile" 2>/dev/null || echo 0)
			if [ "${n:-0}" -ge "$kwlines" ]; then
				sleep "$kwdelay"
				: >"$kwmark"
				# timeout(1) treats SIGALRM as its timer: SIGKILL to qemu
				kill -ALRM "$qpid" 2>/dev/null
				exit 0
			fi
			sleep 0.2
		done
	) &
	kwpid=$!
fi
kopid="" komark=""
if [ -n "$kill_on" ]; then
	komark=$(mktemp) && rm -f "$komark"
	(
		while kill -0 "$qpid" 2>/dev/null; do
			if [ -e "$kill_on" ]; then
				: >"$komark"
				kill -ALRM "$qpid" 2>/dev/null
				exit 0
			fi
			sleep 0.1
		done
	) &
	kopid=$!
fi
if [ "$quiet" -eq 0 ]; then
	tail -n +1 -f --pid="$qpid" "$log" &
	tpid=$!
fi
wait "$qpid"
qrc=$?
qpid=""
[ -n "$kwpid" ] && { kill "$kwpid" 2>/dev/null; wait "$kwpid" 2>/dev/null; }
[ -n "$kopid" ] && { kill "$kopid" 2>/dev/null; wait "$kopid" 2>/dev/null; }
[ -n "$tpid" ] && wait "$tpid" 2>/dev/null
rm -f "$scratch"

# --- verdict -------------------------------------------------------------
{
	if [ -s "$log.qemu" ]; then echo "=== qemu stderr"; cat "$log.qemu"; fi
	if [ -f "$ctl/dmesg" ]; then echo "=== guest dmesg"; cat "$ctl/dmesg"; fi
} >>"$log"
rm -f "$log.qemu"

grc=""
if [ $((qrc % 2)) -eq 1 ] && [ "$qrc" -ge 65 ] && [ "$qrc" -le 127 ]; then
	grc=$(( (qrc - 1) / 2 - 32 ))
	frc=$(cat "$ctl/rc" 2>/dev/null || echo x)
	# the rc file holds the unclamped code; both must agree
	if [ "$frc" != "$grc" ] && ! { [ "$grc" -eq 31 ] && [ "$frc" -ge 31 ] 2>/dev/null; }; then
		echo "run-guest: exit code mismatch (port $grc, file $frc)" >&2
		grc=""
	fi
fi

# Debug kernels: lockdep/KASAN/debugobjects/RCU reports whose header is
# not one of the default patterns.
xpat=""
[ -n "$gkernel" ] && xpat='|INFO: possible|INFO: trying to register non-static key|ODEBUG:|detected stall|self-detected stall|Redzone overwritten|Poison overwritten|Object padding overwritten|MAX_LOCKDEP'
# Kernel error lines: only lines that look like kernel messages ("[  1.2] ...")
# or the panic banner, so test output naming "WARNING" cannot trip it.
kerr=$(grep -aE '^(\[ *[0-9]+\.[0-9]+\] |<[0-9]>)?.*(([^A-Z]|^)BUG[: ]|WARNING:|Oops|hung task|blocked for more than|Call Trace|general protection|KASAN|[Kk]ernel panic|UBSAN|list_add corruption|list_del corruption$xpat)' "$log" |
	grep -aE '^\[ *[0-9]+\.[0-9]+\]|[Kk]ernel panic' | head -n 20)

rc=0
if [ -n "$kill_after" ] && [ "$qrc" -eq 137 ]; then
	echo "run-guest: killed after ${kill_after}s as requested (power cut)" >&2
	rc=0
elif [ -n "$kill_when" ] && [ -e "$kwmark" ] && [ "$qrc" -eq 137 ]; then
	echo "run-guest: killed once $kwfile had $kwlines lines, +${kwdelay}s, as requested (power cut)" >&2
	rc=0
elif [ -n "$kill_on" ] && [ -e "$komark" ] && [ "$qrc" -eq 137 ]; then
	echo "run-guest: killed once $kill_on existed, as requested (power cut)" >&2
	rc=0
elif [ "$qrc" -eq 137 ]; then
	echo "run-guest: TIMEOUT after ${timeout}s, qemu killed" >&2
	rc=124
elif [ -z "$grc" ]; then
	echo "run-guest: guest died without reporting a result (qemu status $qrc: panic, crash or poweroff)" >&2
	rc=126
elif [ "$grc" -ne 0 ]; then
	echo "run-guest: guest script failed with status $grc" >&2
	rc=$grc
elif [ -n "$kill_after" ] || [ -n "$kill_when" ]; then
	echo "run-guest: guest finished before the requested power cut" >&2
	rc=121
fi
rm -f ${kwmark:+"$kwmark"} ${komark:+"$komark"}
if [ -n "$kerr" ]; then
	echo "run-guest: kernel error lines in the console log:" >&2
	printf '%s\n' "$kerr" >&2
	[ "$rc" -eq 0 ] && rc=120
fi
echo "run-guest: log $log (status $rc)" >&2
exit "$rc"
