# Sourced by run-guest.sh and suite-lib.sh: the guest-run lock.
#
# vm_lock: take a ticket in /tmp/fcache-vm.queue (oldest live ticket goes
# next: flock alone is not fair), then flock /tmp/fcache-vm.lock on fd 9.
# Held until the process exits; the caller removes $vm_ticket on exit.
# A caller holding the lock exports FC_VM_LOCK_HELD=1 so that its child
# run-guest.sh runs do not queue again (e.g. the boots of a crash test).
vm_lock() {
	exec 9>/tmp/fcache-vm.lock
	_qdir=/tmp/fcache-vm.queue
	mkdir -p "$_qdir" 2>/dev/null
	vm_ticket=$_qdir/$(date +%s%N)-$$
	: >"$vm_ticket" || return 1
	_waited=0
	while :; do
		for _t in "$_qdir"/*; do
			[ -e "$_t" ] || continue
			kill -0 "${_t##*-}" 2>/dev/null || rm -f "$_t"
		done
		if [ "$_qdir/$(ls "$_qdir" | sort | head -n 1)" = "$vm_ticket" ]; then
			if ! flock -n 9; then
				echo "run-guest: waiting for /tmp/fcache-vm.lock (another guest run)" >&2
				flock -w 3600 9 || return 1
			fi
			return 0
		fi
		[ $_waited -eq 0 ] && echo "run-guest: queued behind $(($(ls "$_qdir" | wc -l) - 1)) guest run(s)" >&2
		_waited=$((_waited + 1))
		[ $_waited -gt 3600 ] && return 1
		sleep 1
	done
}
