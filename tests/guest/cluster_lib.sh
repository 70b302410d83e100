# Sourced (after lib.sh) by the guest scripts of tests/vm/two-hosts.sh:
# the two hosts' names, addresses and the harness's files.
#
#   me, peer                 this host (a or b, from FC_HOST) and the other
#   ip_of HOST               the host's address on the private link
#   net_up                   eth0 (the link) and lo up, this host's address
#   wait_file FILE SECONDS   FILE exists (made by the other host or the harness)
#   must NAME CMD...         as check, but the script cannot go on without it
#   shared_disk              the origin both hosts see (serial fcshared)
#   cluster_up               Corosync (knet over the link, two_node) and
#                            Pacemaker started on this host (no systemd)
#   both_online              both nodes are cluster members
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

shared_disk() {
	for _s in /sys/block/vd*/serial; do
		[ "$(cat "$_s" 2>/dev/null)" = fcshared ] && { echo "/dev/$(basename "$(dirname "$_s")")"; return 0; }
	done
	return 1
}

cluster_up() {
	hostname "$me"
	mkdir -p /etc/corosync /var/log/cluster /var/lib/pacemaker/cib /var/lib/pacemaker/pengine \
		/var/lib/pacemaker/blackbox /var/lib/pacemaker/cores /run/crm /var/log/pacemaker
	chown -R hacluster:haclient /var/lib/pacemaker /var/log/pacemaker /run/crm
	rm -f /var/lib/pacemaker/cib/*
	cat >/etc/corosync/corosync.conf <<EOF
totem {
	version: 2
	cluster_name: fcache
	transport: knet
	crypto_cipher: none
	crypto_hash: none
	token: 1000
}
nodelist {
	node {
		ring0_addr: $(ip_of a)
		name: a
		nodeid: 1
	}
	node {
		ring0_addr: $(ip_of b)
		name: b
		nodeid: 2
	}
}
quorum {
	provider: corosync_votequorum
	two_node: 1
}
logging {
	to_logfile: yes
	logfile: /var/log/cluster/corosync.log
	to_stderr: no
	to_syslog: no
}
EOF
	cp "$FC_TOP/tests/guest/fence_fcache_testbed" /usr/sbin/fence_fcache_testbed &&
		chmod 755 /usr/sbin/fence_fcache_testbed || return 1
	corosync || return 1
	PCMK_logfile=/var/log/pacemaker/pacemaker.log pacemakerd >/var/log/pacemaker/pacemakerd.out 2>&1 &
	return 0
}

both_online() { crm_mon -1 2>/dev/null | grep -q "Online: \[ a b \]"; }
