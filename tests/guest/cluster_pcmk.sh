#!/bin/sh
# Corosync and Pacemaker on the two guests of tests/vm/two-hosts.sh (issue
# 37): the cluster forms over the private link, a fence device that asks the
# harness for a power-off (tests/guest/fence_fcache_testbed), and a resource
# that Pacemaker moves when its host dies.  Host b runs it first; the
# harness kills b (power loss, nobody typing a command); a must notice the
# loss, fence b through the harness and start the resource itself.
FC_T=pcmk_${FC_HOST:-x}
. "$FC_TOP/tests/guest/lib.sh"
. "$FC_TOP/tests/guest/cluster_lib.sh"

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
	token: 3000
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
started_on() { crm_resource --locate -r res 2>/dev/null | grep -q "running on: $1"; }

must net-up net_up
must cluster-up cluster_up
must both-online poll_until 1800 both_online
if [ "$me" = a ]; then
	must stonith-config cibadmin --create -o resources --xml-text \
		'<primitive id="fence" class="stonith" type="fence_fcache_testbed"><instance_attributes id="fence-ia"><nvpair id="fence-hl" name="pcmk_host_list" value="a b"/></instance_attributes></primitive>'
	must res-config cibadmin --create -o resources --xml-text \
		'<primitive id="res" class="ocf" provider="pacemaker" type="Dummy"><operations><op id="res-mon" name="monitor" interval="5s"/></operations></primitive>'
	must res-prefers-b cibadmin --create -o constraints --xml-text \
		'<rsc_location id="res-on-b" rsc="res" node="b" score="100"/>'
	: >$R/configured
fi
must configured wait_file $R/configured 300
must res-on-b poll_until 1800 started_on b
if [ "$me" = b ]; then
	: >$R/b.running
	# b dies under the resource: the harness kills it
	: >$R/req.kill.b
	sleep 120
	fail killed "the harness did not kill b"
	finish
fi
must b-running wait_file $R/b.running 300
t0=$(date +%s)
must b-dead wait_file $R/dead.b 120
must res-moved-to-a poll_until 1800 started_on a
info "the resource started on a $(($(date +%s) - t0)) s after b's death was confirmed"
check b-fenced sh -c "grep -q 'b' /var/log/pacemaker/pacemaker.log && stonith_admin --history b | grep -qi 'successful\|done\|reboot\|off'"
stonith_admin --history b 2>&1 | head -n 3 | sed 's/^/# /'
check stop-cluster sh -c 'kill $(pidof pacemakerd) && sleep 5 && kill $(pidof corosync)'
dmesg_clean
finish
