# Sourced by guest test scripts (run inside the QEMU guest by
# tests/vm/run-guest.sh).  POSIX sh.
#
#   pass NAME / fail NAME [WHY]   print "PASS: <t>/NAME" / "FAIL: <t>/NAME"
#   check NAME CMD...             pass if CMD succeeds, else fail
#   check_fails NAME CMD...       pass if CMD fails, else fail
#   load_fcache / unload_fcache   insmod $FC_KO (with its dm deps) / rmmod
#   mk_spindles N SIZE_MB         N null_blk "HDDs" (~250 IOPS each); prints paths
#   mk_raid10 SIZE_MB             md RAID10 of 4 spindles, SIZE_MB usable; prints /dev/md0
#   mk_brd_flash SIZE_MB [N]      brd RAM disk(s); prints /dev/ram0..
#   mk_fast_disk SIZE_MB [A=V..]  memory-backed null_blk without delay; prints path
#   dm_create NAME TABLE          dmsetup create + mknodes + assert block device
#   dm_remove NAME                dmsetup remove (retries while busy); an fcache
#                                 volume gets the "detach" message first (orderly)
#   swap_table NAME TABLE         NAME's table now (reload, suspend, resume)
#   swap_error NAME               NAME fails: the error target, every I/O errors
#   vacated [POOL]                a mirrored pool (mp) has moved every entry off
#                                 its failed device (its dump line says so)
#   fio_verify DEV ARGS...        fio with verify=crc32c, do_verify, verify_fatal
#   dev_sectors DEV               size in 512-byte sectors
#   status_field DEV N            N-th (1-based) target status field of DEV
#   status_is / status_above DEV N VALUE   that field is VALUE / a number above it
#   poll_until TENTHS CMD...      CMD every 0.1 s until it succeeds (bounded)
#   dmesg_clean                   fail if dmesg has BUG/WARNING/Oops/hung task
#   finish                        summary; exit 1 on any failure or no pass
#
# Test names are prefixed with the script's name ($FC_T, default basename).

FC_T=${FC_T:-$(basename "$0" .sh)}
FC_PASSES=0
FC_FAILS=0
FC_LOGDIR=${FC_LOGDIR:-/tmp/fclogs}
mkdir -p "$FC_LOGDIR"
export DM_DISABLE_UDEV=1 MDADM_NO_UDEV=1

pass() {
	echo "PASS: $FC_T/$1"
	FC_PASSES=$((FC_PASSES + 1))
}

fail() {
	if [ -n "${2:-}" ]; then echo "FAIL: $FC_T/$1 ($2)"; else echo "FAIL: $FC_T/$1"; fi
	FC_FAILS=$((FC_FAILS + 1))
}

info() { echo "# $*"; }

check() {
	_n=$1; shift
	if "$@" >"$FC_LOGDIR/check.out" 2>&1; then
		pass "$_n"
	else
		fail "$_n" "$* -> $(tail -n 3 "$FC_LOGDIR/check.out" | tr '\n' ' ')"
	fi
}

check_fails() {
	_n=$1; shift
	if "$@" >"$FC_LOGDIR/check.out" 2>&1; then
		fail "$_n" "'$*' succeeded, expected an error"
	else
		pass "$_n"
	fi
}

# Abort the script (counts as a failure) when a precondition cannot be met.
die() {
	fail "${2:-setup}" "$1"
	finish
}

load_fcache() {
	[ -f "$FC_KO" ] || { echo "load_fcache: no module $FC_KO (run make module)" >&2; return 1; }
	for m in dm-mod dm-bufio dm-kcopyd libcrc32c crc32c_generic \
		$(modinfo -F depends "$FC_KO" 2>/dev/null | tr ',' ' '); do
		modprobe -q "$m" 2>/dev/null
	done
	grep -q '^dm_fcache ' /proc/modules && return 0
	insmod "$FC_KO" || return 1
	grep -q '^dm_fcache ' /proc/modules
}

unload_fcache() {
	grep -q '^dm_fcache ' /proc/modules || return 0
	rmmod dm_fcache
}

_nullb_seq=0
# _nullb NAME SIZE_MB ATTR=VALUE... : create a configfs null_blk device
_nullb() {
	_nm=$1 _sz=$2; shift 2
	grep -q '^null_blk ' /proc/modules || modprobe null_blk nr_devices=0 || return 1
	[ -d /sys/kernel/config/nullb ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	_d=/sys/kernel/config/nullb/$_nm
	mkdir "$_d" || return 1
	echo "$_sz" >"$_d/size" || return 1
	for _kv in "$@"; do
		echo "${_kv#*=}" >"$_d/${_kv%%=*}" || { echo "_nullb: cannot set $_kv" >&2; return 1; }
	done
	echo 1 >"$_d/power" || return 1
	_i=0
	while [ ! -b "/dev/$_nm" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -b "/dev/$_nm" ] || { echo "_nullb: /dev/$_nm did not appear" >&2; return 1; }
	echo "/dev/$_nm"
}

_nullb_next() {
	_k=0
	while [ -e "/sys/kernel/config/nullb/$1$_k" ]; do _k=$((_k + 1)); done
	echo "$1$_k"
}

# mk_spindles N SIZE_MB: HDD-like null_blk devices (4 ms per I/O, depth 1).
mk_spindles() {
	_n=$1 _s=$2 _j=0
	while [ $_j -lt "$_n" ]; do
		_nullb "$(_nullb_next fcspin)" "$_s" memory_backed=1 irqmode=2 \
			completion_nsec=4000000 hw_queue_depth=1 submit_queues=1 \
			queue_mode=2 || return 1
		_j=$((_j + 1))
	done
}

# mk_fast_disk SIZE_MB [ATTR=VALUE...]: memory-backed, no delay, discard on
# (and the null_blk attributes given, e.g. max_sectors=N)
mk_fast_disk() {
	_fs=$1
	shift
	_nullb "$(_nullb_next fcfast)" "$_fs" memory_backed=1 irqmode=0 queue_mode=2 \
		discard=1 "$@"
}

# mk_raid10 SIZE_MB: 4 spindles of SIZE_MB/2 (+ md metadata) in RAID10.
mk_raid10() {
	_per=$(($1 / 2 + 4))
	_devs=$(mk_spindles 4 "$_per" | tr '\n' ' ') || return 1
	[ "$(echo $_devs | wc -w)" -eq 4 ] || return 1
	# shellcheck disable=SC2086
	mdadm --create /dev/md0 --run --quiet --level=10 --raid-devices=4 \
		--assume-clean --metadata=1.2 --bitmap=none $_devs >"$FC_LOGDIR/mdadm.out" 2>&1 ||
		{ cat "$FC_LOGDIR/mdadm.out" >&2; return 1; }
	_i=0
	while [ ! -b /dev/md0 ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -b /dev/md0 ] || return 1
	echo /dev/md0
}

# mk_brd_flash SIZE_MB [N]: brd can only be configured once per boot.
mk_brd_flash() {
	_nr=${2:-1}
	if grep -q '^brd ' /proc/modules; then
		echo "mk_brd_flash: brd already loaded" >&2
		return 1
	fi
	modprobe brd rd_nr="$_nr" rd_size=$(($1 * 1024)) max_part=0 || return 1
	_j=0
	while [ $_j -lt "$_nr" ]; do
		[ -b "/dev/ram$_j" ] || return 1
		echo "/dev/ram$_j"
		_j=$((_j + 1))
	done
}

dev_sectors() { blockdev --getsz "$1"; }

# perf_ready: perf may sample every CPU, kernel symbols shown (the profiles
# of tests/bench/profile.sh; the host's linux-perf, shared read-only)
perf_ready() {
	command -v perf >/dev/null || die "no perf (apt-get install linux-perf)"
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
}

# dm_create NAME TABLE: create, make the node, assert it is a block device.
dm_create() {
	_name=$1; shift
	if ! printf '%s\n' "$*" | dmsetup create "$_name" >"$FC_LOGDIR/dmsetup.out" 2>&1; then
		cat "$FC_LOGDIR/dmsetup.out" >&2
		return 1
	fi
	dmsetup mknodes "$_name" >/dev/null 2>&1
	[ -b "/dev/mapper/$_name" ] || { echo "dm_create: /dev/mapper/$_name is not a block device" >&2; return 1; }
}

# dm_reload NAME TABLE: load a new table (inactive); caller suspends/resumes.
dm_reload() {
	_name=$1; shift
	printf '%s\n' "$*" | dmsetup reload "$_name"
}

# dm_remove NAME: an fcache volume is first told the teardown is orderly
# (message "detach", as fcachectl down/disable do), so its pool keeps its
# data for the next table.  A plain 'dmsetup remove' of a volume marks it
# detached at run time (FC_VOL_DETACHED): see tests/guest/ctl_lvm.sh.
dm_remove() {
	if dmsetup table "$1" 2>/dev/null | awk '{ print $3 }' | grep -qx fcache; then
		dmsetup message "$1" 0 detach >/dev/null 2>&1
	fi
	_i=0
	while [ $_i -lt 20 ]; do
		dmsetup remove "$1" 2>/dev/null && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	dmsetup remove "$1"
}

# swap_table NAME TABLE: NAME's table now; I/O it holds goes on (noflush),
# as a device that fails or comes back under the I/O in flight
swap_table() {
	printf '%s\n' "$2" | dmsetup reload "$1" &&
		dmsetup suspend --noflush --nolockfs "$1" && dmsetup resume "$1"
}

# swap_error NAME: the device fails (every I/O errors from now on)
swap_error() { swap_table "$1" "0 $(dev_sectors /dev/mapper/"$1") error"; }

# vacated [POOL]: the mirrored pool (default mp) has moved every entry off
# its failed device (its dump line, on the kernel log)
vacated() {
	dmsetup message "${1:-mp}" 0 dump &&
		dmesg | grep 'dump: md' | tail -n 1 | grep -q 'vacating 0'
}

# fio_verify DEV ARGS...: write with crc32c verify headers and verify them.
# Extra ARGS override defaults (e.g. --rw=randwrite --bsrange=4k-64k --size=64M
# or --verify_only).  Output in $FC_LOGDIR/fio-*.log; tail printed on failure.
fio_verify() {
	_dev=$1; shift
	[ -b "$_dev" ] || { echo "fio_verify: $_dev is not a block device" >&2; return 1; }
	_log=$FC_LOGDIR/fio-$(basename "$_dev")-$$.log
	fio --name=fcverify --filename="$_dev" --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=4k --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_backlog=0 --randrepeat=1 --exitall_on_error=1 \
		--group_reporting=1 "$@" >"$_log" 2>&1
	_rc=$?
	if [ $_rc -ne 0 ] || grep -qiE 'verify.*fail|bad magic|crc32c.*mismatch|err= *[1-9]' "$_log"; then
		echo "fio_verify $_dev $*: rc=$_rc" >&2
		grep -i 'verify\|err\|bad\|mismatch' "$_log" | head -n 10 >&2
		tail -n 5 "$_log" >&2
		[ $_rc -ne 0 ] || _rc=1
	fi
	return $_rc
}

# status_field DEV N: N-th field after "start len target".
status_field() {
	dmsetup status "$1" | awk -v n="$2" '{ print $(n + 3) }'
}

# poll_until TENTHS CMD...: run CMD every 0.1 s until it succeeds, at most
# TENTHS more times; CMD's last status.  A bound on waiting for progress,
# never a measure of it (TCG's speed varies with the host's load).
poll_until() {
	_pn=$1
	shift
	until "$@"; do
		[ "$_pn" -gt 0 ] || return 1
		sleep 0.1
		_pn=$((_pn - 1))
	done
}

# status_is DEV N VALUE: the N-th status field is VALUE
status_is() { [ "$(status_field "$1" "$2")" = "$3" ]; }

# status_above DEV N VALUE: the N-th status field is a number above VALUE
status_above() { [ "$(status_field "$1" "$2")" -gt "$3" ]; }

# stats_field DEV NAME: one counter of the "stats" message answer (name=value)
stats_field() {
	dmsetup message "$1" 0 stats | tr ' ' '\n' | sed -n "s/^$2=//p"
}

dmesg_clean() {
	if dmesg | grep -E '(^|[^A-Z])BUG[: ]|WARNING:|Oops|hung task|blocked for more than|Call Trace|general protection|list_(add|del) corruption' >"$FC_LOGDIR/dmesg.bad"; then
		fail "${1:-dmesg-clean}" "$(head -n 3 "$FC_LOGDIR/dmesg.bad" | tr '\n' ' ')"
	else
		pass "${1:-dmesg-clean}"
	fi
}

finish() {
	echo "# $FC_T: $FC_PASSES passed, $FC_FAILS failed"
	[ "$FC_FAILS" -eq 0 ] && [ "$FC_PASSES" -gt 0 ] && exit 0
	exit 1
}

# ---- dm-fcache helpers ------------------------------------------------------

# marker_blk_is NAME DEV BLOCK EXPECTED WHAT: 32 KiB block BLOCK read through
# DEV is EXPECTED (a file); 0xa5 bytes instead are the marker of an image
# whose uncommitted metadata maps the block (ctl_mkimage), and WHAT says
# what a module that serves them did wrong
marker_blk_is() {
	dd if="$2" bs=32k skip="$3" count=1 iflag=direct status=none >"$FC_LOGDIR/blk.got" 2>/dev/null
	if cmp -s "$FC_LOGDIR/blk.got" "$4"; then
		pass "$1"
	elif [ "$(od -An -tx1 -N4 "$FC_LOGDIR/blk.got" | tr -d ' ')" = a5a5a5a5 ]; then
		fail "$1" "block $3 served from a cache block of 0xa5 bytes: $5"
	else
		fail "$1" "block $3 differs from the origin's data"
	fi
}


# copy_frozen DM SRC DST [SRC DST...]: copy each SRC to DST while the
# device-mapper device DM is suspended (I/O to it held: the copies are of
# one instant), then resume it; DM resumed whatever happened
copy_frozen() {
	_dm=$1 _r=0
	shift
	dmsetup suspend "$_dm" || { dmsetup resume "$_dm"; return 1; }
	while [ $# -ge 2 ]; do
		_of=
		[ -b "$2" ] && _of=oflag=direct
		dd if="$1" of="$2" bs=1M iflag=direct $_of status=none || _r=1
		shift 2
	done
	dmsetup resume "$_dm" || _r=1
	return $_r
}

# mutant_on ARG WHAT: with ARG mutant=NAME (the test build, make fi-module),
# turn the module's deliberate bug mutant_NAME on; WHAT: what must then fail
mutant_on() {
	case "${1:-}" in
	mutant=*)
		echo 1 >"/sys/module/dm_fcache/parameters/mutant_${1#mutant=}" ||
			die "no mutant ${1#mutant=}" mutant
		info "module mutant ${1#mutant=} on: $2"
		;;
	esac
}

# olog_mk_build OUT: tests/host/olog_mk.c (records onto an ordered log) built as OUT
olog_mk_build() {
	gcc -O1 -Wall -I"$FC_TOP/include" -o "$1" "$FC_TOP/tests/host/olog_mk.c" \
		"$FC_TOP/engine/fc_format.c" "$FC_TOP/engine/fc_olog.c"
}

# olog_data_page LOG K: the first data page of record K (0: the head's) of
# the ordered log LOG (a device or image), walked from its current
# superblock's head with the wrap rule of include/fcache_olog.h
olog_data_page() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb")
sb = [f.read(4096), f.read(4096)]
s = max(sb, key=lambda p: struct.unpack_from("<Q", p, 24)[0])
pos = struct.unpack_from("<Q", s, 64 + 8 + 8 + 16 + 4 + 4)[0]
end = struct.unpack_from("<Q", s, 64)[0]
for k in range(int(sys.argv[2])):
    f.seek(pos * 4096)
    nr = struct.unpack_from("<I", f.read(4096), 80)[0]
    pos = pos + 1 + nr
    if pos + 1 + 500 > end:
        pos = 2
print(pos + 1)
PY
}

# dm_error_page NAME DEV PAGE: NAME maps DEV whole but its 4 KiB page PAGE,
# which fails every I/O (dm error)
dm_error_page() {
	_ds=$(dev_sectors "$2")
	dm_create "$1" "0 $(($3 * 8)) linear $2 0
$(($3 * 8)) 8 error
$(($3 * 8 + 8)) $((_ds - $3 * 8 - 8)) linear $2 $(($3 * 8 + 8))"
}

# majmin DEV: "MAJ:MIN" of a block device (what dmsetup table prints).
majmin() {
	# shellcheck disable=SC2046
	set -- $(stat -L -c '%t %T' "$1") || return 1
	printf '%d:%d\n' "0x$1" "0x$2"
}

# fc_pool NAME FLASH BLOCK_SECTORS [OPT_WORDS...]  (opt words without the count)
fc_pool() {
	_pn=$1 _fl=$2 _bs=$3; shift 3
	if [ $# -gt 0 ]; then
		dm_create "$_pn" "0 $(dev_sectors "$_fl") fcache-pool $_fl $_bs $# $*"
	else
		dm_create "$_pn" "0 $(dev_sectors "$_fl") fcache-pool $_fl $_bs"
	fi
}

# fc_vol NAME POOL_NAME ORIGIN ID MODE [OPT_WORDS...]
fc_vol() {
	_vn=$1 _vp=$2 _vo=$3 _vi=$4 _vm=$5; shift 5
	if [ $# -gt 0 ]; then
		dm_create "$_vn" "0 $(dev_sectors "$_vo") fcache /dev/mapper/$_vp $_vo $_vi $_vm $# $*"
	else
		dm_create "$_vn" "0 $(dev_sectors "$_vo") fcache /dev/mapper/$_vp $_vo $_vi $_vm"
	fi
}

# status_nf DEV: number of target status fields
status_nf() {
	dmsetup status "$1" | awk '{ print NF - 3 }'
}

# Pool status field numbers (1-based, include/fcache_abi.h)
P_BLOCK_SECTORS=1 P_TOTAL=2 P_USED=3 P_DIRTY=4 P_MDMODE=5 P_NEEDS_CHECK=6
P_FLASH_RERR=7 P_FLASH_WERR=8 P_MD_ERR=9 P_WB_STATE=10 P_WB_INFLIGHT=11
P_COMMIT_SEQ=12 P_ACTIVE=13 P_REGISTERED=14 P_FREE=15
# Volume status fields
V_MODE=1 V_CACHED=2 V_DIRTY=3 V_READS=4 V_READ_HITS=5 V_WRITES=6
V_WRITE_HITS=7 V_BYPASSED=8 V_WB_INFLIGHT=9 V_ERRORS=10 V_PROMOTIONS=11
V_WRITEBACKS=12 V_ID=13

# field_cmp NAME DEV FIELD OP VALUE: check a numeric/string status field.
field_is() {
	_fv=$(status_field "$2" "$3")
	case "$4" in
	=) [ "$_fv" = "$5" ] ;;
	!=) [ "$_fv" != "$5" ] ;;
	*) [ "$_fv" "$4" "$5" ] 2>/dev/null ;;
	esac && { pass "$1"; return 0; }
	fail "$1" "$(basename "$2") field $3 is '$_fv', expected $4 $5"
	return 1
}

# pattern_file FILE SIZE_KIB [TAG]: random data kept in FILE for comparisons
pattern_file() {
	head -c $(($2 * 1024)) /dev/urandom >"$1"
	[ "$(stat -c %s "$1")" -eq $(($2 * 1024)) ]
}

# start_keeper DEV: background 20 IOPS reader on DEV (keeps its pool busy,
# so no idle writeback runs); waits until its reads show in DEV's status.
# Sets $keeper to the fio pid.
start_keeper() {
	fio --name=keeper --filename="$1" --direct=1 --rw=randread --bs=4k \
		--rate_iops=20 --time_based --runtime=900 >/dev/null 2>&1 &
	keeper=$!
	_i=0
	while [ "$(status_field "$1" $V_READS)" = 0 ] && [ $_i -lt 200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# lvm_conf DEVICES_LINES: $LVM_SYSTEM_DIR/lvm.conf for LVM without udev,
# lvmetad, polling or backups, scanning /dev, null_blk (mk_fast_disk) a
# device type it knows; DEVICES_LINES go into its devices section (a
# global_filter, say); LVM_SYSTEM_DIR must be set
lvm_conf() {
	mkdir -p "$LVM_SYSTEM_DIR" /run/lvm /run/lock/lvm
	cat >"$LVM_SYSTEM_DIR/lvm.conf" <<EOF
devices {
	$1
	types = [ "nullb", 16 ]
	obtain_device_list_from_udev = 0
	external_device_info_source = "none"
	use_devicesfile = 0
	scan = [ "/dev" ]
}
activation {
	udev_sync = 0
	udev_rules = 0
	verify_udev_operations = 0
	monitoring = 0
}
global {
	use_lvmpolld = 0
	event_activation = 0
}
backup {
	backup = 0
	archive = 0
}
EOF
}

# ---- benchmark helpers (fio_figures.sh, fio_hitpath.sh, perf_profile.sh) ----

# median: of the numbers on stdin (an even count: the mean of the middle two)
median() {
	tr ' ' '\n' | grep . | sort -n |
		awk '{ v[NR] = $1 } END { if (NR % 2 || !NR) print v[int((NR + 1) / 2)]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# ratio A B: A / B with two decimals, n/a when B is 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# perf_top DATA DSOS SYMS: the first DSOS lines of perf's report of DATA by
# module and the first SYMS by symbol (no call graphs)
perf_top() {
	perf report -i "$1" --no-children --sort dso --stdio 2>/dev/null |
		grep -v '^#' | grep . | head -"$2"
	perf report -i "$1" --no-children --sort sym --stdio -g none 2>/dev/null |
		grep -v '^#' | grep . | head -"$3"
}
