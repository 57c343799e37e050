#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# blktests' NVME_TARGET_CONTROL for make blktests' orca-remote run: the
# nvme group's host side in guest 0, its NVMe-oF target in guest 1, over
# the two guests' ORCA adapters and the wire.
#
# blktests (common/nvme, Documentation/running-tests.md) calls this script
# instead of configuring its own loopback target when NVME_TARGET_CONTROL
# names it:
#   target-control.sh config --show-trtype|--show-blkdev-type|--show-hostnqn|
#       --show-hostid|--show-host-traddr|--show-traddr|--show-trsvid|
#       --show-subsys-uuid|--show-subsysnqn
#   target-control.sh setup --subsysnqn NQN --subsys-uuid UUID --hostnqn NQN
#       [--hostkey KEY] [--ctrkey KEY]
#   target-control.sh cleanup --subsysnqn NQN
#   target-control.sh add-ports ...   (blktests itself calls its use a stub)
# config is answered here; setup and cleanup are requests to guest 1, which
# runs "target-control.sh serve": files req-N (the arguments, one a line)
# and done-N (exit status, then output) in $ORCA_RUN_DIR/target-control/.
# Guest 1 builds the subsystem in its configfs: a loop device on a file
# of $NVME_IMG_SIZE in its /tmp as namespace 1 with the given UUID, the
# host NQN (and DH-HMAC-CHAP keys) allowed, on one RDMA port 10.0.0.2:4420
# shared by every subsystem.  "target-control.sh stop" (guest 0, at the
# end) ends the server.
#
# What blktests' remote mode leaves out: tests that require the kernel's
# own target (_require_kernel_nvme_target) are not run, and tests that
# change the target's configfs themselves (ANA states, namespace resize or
# enable, passthru, more ports, DH-HMAC-CHAP hash and group) find nothing
# of it in guest 0's configfs.
set -u
dir=${ORCA_RUN_DIR:?}/target-control
traddr=10.0.0.2 host_traddr=10.0.0.1 trsvcid=4420
# blktests' own defaults (common/nvme), so a test's expected output holds.
hostid=0f01fb42-9f7f-4856-b0b3-51e60b8de349
hostnqn=nqn.2014-08.org.nvmexpress:uuid:$hostid
subsysnqn=blktests-subsystem-1
subsys_uuid=91fdba0d-f87b-4c25-b80f-db7be1418b9e
cfs=/sys/kernel/config/nvmet

# ---- guest 0: blktests' side -------------------------------------------

request() {	# request ARGS...: run ARGS in guest 1's server
	local n f i
	mkdir -p "$dir"
	n=$(($(cat "$dir/seq" 2>/dev/null || echo 0) + 1))
	echo "$n" >"$dir/seq"
	printf '%s\n' "$@" >"$dir/.req-$n" && mv "$dir/.req-$n" "$dir/req-$n"
	f=$dir/done-$n
	for ((i = 0; i < 600; i++)); do
		[ -e "$f" ] && break
		sleep 0.1
	done
	[ -e "$f" ] || { echo "target-control: guest 1 did not answer $1 in 60 s" >&2; return 1; }
	tail -n +2 "$f"
	return "$(head -n 1 "$f")"
}

# ---- guest 1: the target -----------------------------------------------

port=$cfs/ports/1

port_up() {
	[ -d "$port" ] && return 0
	mkdir "$port" &&
		echo rdma >"$port/addr_trtype" &&
		echo ipv4 >"$port/addr_adrfam" &&
		echo "$traddr" >"$port/addr_traddr" &&
		echo "$trsvcid" >"$port/addr_trsvcid"
}

do_setup() {
	local nqn=$subsysnqn uuid=$subsys_uuid host=$hostnqn hkey='' ckey=''
	local s img loop
	while [ $# -gt 0 ]; do
		case $1 in
		--subsysnqn) nqn=$2; shift 2 ;;
		--subsys-uuid) uuid=$2; shift 2 ;;
		--hostnqn) host=$2; shift 2 ;;
		--hostkey) hkey=$2; shift 2 ;;
		--ctrkey | --ctrlkey) ckey=$2; shift 2 ;;
		*) echo "setup: unknown argument $1"; shift ;;
		esac
	done
	s=$cfs/subsystems/$nqn
	img=/tmp/target-control/$nqn.img
	mkdir -p /tmp/target-control
	truncate -s "${NVME_IMG_SIZE:-1G}" "$img" &&
		loop=$(losetup -f --show "$img") || return 1
	echo "$loop" >"$img.loop"
	port_up || return 1
	mkdir "$s" && echo 0 >"$s/attr_allow_any_host" || return 1
	[ -d "$cfs/hosts/$host" ] || mkdir "$cfs/hosts/$host" || return 1
	[ -z "$hkey" ] || echo "$hkey" >"$cfs/hosts/$host/dhchap_key" || return 1
	[ -z "$ckey" ] || echo "$ckey" >"$cfs/hosts/$host/dhchap_ctrl_key" || return 1
	ln -s "$cfs/hosts/$host" "$s/allowed_hosts/$host" &&
		mkdir "$s/namespaces/1" &&
		echo "$loop" >"$s/namespaces/1/device_path" &&
		echo "$uuid" >"$s/namespaces/1/device_uuid" &&
		echo 1 >"$s/namespaces/1/enable" &&
		ln -s "$s" "$port/subsystems/$nqn"
}

do_cleanup() {
	local nqn=$subsysnqn s h img
	while [ $# -gt 0 ]; do
		case $1 in
		--subsysnqn) nqn=$2; shift 2 ;;
		*) shift ;;
		esac
	done
	s=$cfs/subsystems/$nqn
	img=/tmp/target-control/$nqn.img
	rm -f "$port/subsystems/$nqn"
	if [ -d "$s" ]; then
		for ns in "$s"/namespaces/*; do
			[ -d "$ns" ] || continue
			echo 0 >"$ns/enable"
			rmdir "$ns"
		done
		for h in "$s"/allowed_hosts/*; do
			[ -L "$h" ] || continue
			rm -f "$h"
			# a host no other subsystem allows goes too
			rmdir "$cfs/hosts/${h##*/}" 2>/dev/null
		done
		rmdir "$s" || return 1
	fi
	[ -f "$img.loop" ] && losetup -d "$(cat "$img.loop")"
	rm -f "$img" "$img.loop"
	return 0
}

serve() {
	local n=1 fifo=/tmp/.target-control.fifo fd cmd rc out
	modprobe -a nvmet nvmet-rdma || return 1
	mkdir -p "$dir"
	mkfifo "$fifo" && exec {fd}<>"$fifo"
	echo "target-control: serving in $dir"
	while :; do
		# builtins only while idle: a forked process a tick costs a
		# TCG guest (and the host's other guest) real time
		while [ ! -e "$dir/req-$n" ]; do
			read -r -t 0.1 -u "$fd" _
		done
		mapfile -t args <"$dir/req-$n"
		cmd=${args[0]}
		echo "target-control: $n: ${args[*]}"
		case $cmd in
		setup) out=$(do_setup "${args[@]:1}" 2>&1); rc=$? ;;
		cleanup) out=$(do_cleanup "${args[@]:1}" 2>&1); rc=$? ;;
		add-ports) out=''; rc=0 ;;
		stop) out=''; rc=0 ;;
		*) out="unknown request $cmd"; rc=1 ;;
		esac
		[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
		printf '%s\n%s\n' "$rc" "$out" >"$dir/.done-$n" &&
			mv "$dir/.done-$n" "$dir/done-$n"
		[ "$cmd" = stop ] && break
		n=$((n + 1))
	done
	exec {fd}>&-
}

case ${1:-} in
config)
	case ${2:-} in
	--show-trtype) echo rdma ;;
	--show-blkdev-type) echo device ;;
	--show-hostnqn) echo "$hostnqn" ;;
	--show-hostid) echo "$hostid" ;;
	--show-host-traddr) echo "$host_traddr" ;;
	--show-traddr) echo "$traddr" ;;
	--show-trsvid) echo "$trsvcid" ;;
	--show-subsys-uuid) echo "$subsys_uuid" ;;
	--show-subsysnqn) echo "$subsysnqn" ;;
	*) echo "target-control: config ${2:-}: unknown" >&2; exit 1 ;;
	esac
	;;
setup | cleanup | add-ports | stop)
	request "$@"
	;;
serve)
	serve
	;;
*)
	echo "usage: $0 config|setup|cleanup|add-ports|stop|serve ..." >&2
	exit 2
	;;
esac
