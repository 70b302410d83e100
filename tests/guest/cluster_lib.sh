# Sourced (after lib.sh) by the guest scripts of tests/vm/two-hosts.sh:
# the two hosts' names, addresses and the harness's files.
#
#   me, peer                 this host (a or b, from FC_HOST) and the other
#   ip_of HOST               the host's address on the private link
#   net_up                   eth0 (the link) and lo up, this host's address
#   wait_file FILE SECONDS   FILE exists (made by the other host or the harness)
#   must NAME CMD...         as check, but the script cannot go on without it
R=/results
me=${FC_HOST:-}
case $me in a) peer=b ;; b) peer=a ;; *) die "FC_HOST is '$me', not a or b" ;; esac
export peer

ip_of() { case $1 in a) echo 10.77.0.1 ;; b) echo 10.77.0.2 ;; esac; }

must() {
	_mf=$FC_FAILS
	check "$@"
	[ "$FC_FAILS" -eq "$_mf" ] || finish
}

wait_file() {
	_w=$(($2 * 10))
	while [ ! -e "$1" ]; do
		[ $_w -gt 0 ] || return 1
		sleep 0.1
		_w=$((_w - 1))
	done
}

net_up() {
	modprobe virtio_net || return 1
	_if=""
	for _ni in 1 2 3 4 5 6 7 8 9 10; do
		for _nn in /sys/class/net/*; do
			[ "${_nn##*/}" = lo ] || _if=${_nn##*/}
		done
		[ -n "$_if" ] && break
		sleep 0.2
	done
	[ -n "$_if" ] && ip link set lo up && ip link set "$_if" up &&
		ip addr add "$(ip_of "$me")/24" dev "$_if"
}
