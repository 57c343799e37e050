# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/guest/guest.sh, by in-guest scripts that run NVMe over
# Fabrics on RDMA between guests: one guest is the nvmet target (a brd
# ramdisk namespace, since null_blk would discard the data fio verifies),
# another the nvme-rdma host.  Each step is a KTAP case; so is each step of
# the teardown, because a ULP that cannot let go of a device is a bug too.
#
#   target_up ADDR        nvmet subsystem(s) on brd ramdisks, RDMA port on
#                         ADDR:4420
#   target_down           configfs removed, nvmet modules unloaded
#   host_connect ADDR     nvme connect -t rdma to $nvmeof_subnqn, with
#                         retries; sets $nvme_blk
#   host_disconnect
# fio_job and dmesg_clean come from lib/guest/fio.sh (fio runs on $nvme_blk).
#
# nvmeof_hosts=N (set before sourcing; default 1): how many hosts the target
# serves, guests 1..N.  One host: a single subsystem $nvmeof_nqn on
# /dev/ram0 that any host may use.  More: guest I's host gets a subsystem of
# its own, $nvmeof_nqn-g<I> on /dev/ram<I-1>, that only guest I's host NQN
# may connect to, so that no two hosts ever write the same blocks.
#
# nvmeof_ctrl_loss_tmo=SECS (default 20): how long a host whose transport
# broke keeps reconnecting (every 2 s) before it fails the I/O and deletes
# the controller.

nvmeof_nqn=nqn.2026-11.org.orca:nvmeof-test
nvmeof_port=4420
nvmeof_hosts=${nvmeof_hosts:-1}
nvmeof_ctrl_loss_tmo=${nvmeof_ctrl_loss_tmo:-20}
# A host's identity, fixed so that the target's logs are comparable.
nvmeof_hostid_of() { printf '0dca0000-0000-4000-8000-%012d' "$1"; }
nvmeof_hostnqn_of() { echo "nqn.2014-08.org.nvmexpress:uuid:$(nvmeof_hostid_of "$1")"; }
# The subsystem guest I's host connects to.
nvmeof_subnqn_of() {
	if [ "$nvmeof_hosts" = 1 ]; then
		echo "$nvmeof_nqn"
	else
		echo "$nvmeof_nqn-g$1"
	fi
}
nvmeof_hostnqn=$(nvmeof_hostnqn_of "$gi")
nvmeof_hostid=$(nvmeof_hostid_of "$gi")
nvmeof_subnqn=$(nvmeof_subnqn_of "$gi")
nvmet_cfg=/sys/kernel/config/nvmet
nvme_blk=

# "# key=value ..." line a benchmark script can collect from the KTAP file;
# $nvmeof_tag says which pairing it was measured on.
nvmeof_tag=${nvmeof_tag:-}
fio_tag=$nvmeof_tag
fio_result_name=nvmeof-result
. "$top/selftests/lib/guest/fio.sh"

# --- target ------------------------------------------------------------

# configfs: guest-init.sh loads and mounts it at boot; mounted again here
# if a test unmounted it.
nvmet_configfs() {
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	test -d "$nvmet_cfg"
}

# Subsystem K (1..nvmeof_hosts): guest K's, on /dev/ram<K-1>.
nvmet_subsys_configure() {
	local k=$1 subsys hostnqn
	subsys=$nvmet_cfg/subsystems/$(nvmeof_subnqn_of "$k")
	mkdir "$subsys" || return 1
	if [ "$nvmeof_hosts" = 1 ]; then
		echo 1 >"$subsys/attr_allow_any_host" || return 1
	else
		hostnqn=$(nvmeof_hostnqn_of "$k")
		echo 0 >"$subsys/attr_allow_any_host" &&
		mkdir "$nvmet_cfg/hosts/$hostnqn" &&
		ln -s "$nvmet_cfg/hosts/$hostnqn" "$subsys/allowed_hosts/$hostnqn" ||
			return 1
	fi
	mkdir "$subsys/namespaces/1" &&
	echo -n "/dev/ram$((k - 1))" >"$subsys/namespaces/1/device_path" &&
	echo 1 >"$subsys/namespaces/1/enable"
}

nvmet_configure() {
	local addr=$1 port=$nvmet_cfg/ports/1 k nqn
	for ((k = 1; k <= nvmeof_hosts; k++)); do
		nvmet_subsys_configure "$k" || return 1
	done
	mkdir "$port" &&
	echo rdma >"$port/addr_trtype" &&
	echo ipv4 >"$port/addr_adrfam" &&
	echo "$addr" >"$port/addr_traddr" &&
	echo "$nvmeof_port" >"$port/addr_trsvcid" || return 1
	# Linking a subsystem into the port enables the port: this is where
	# nvmet-rdma binds its rdma_cm listener, and fails if it cannot.
	for ((k = 1; k <= nvmeof_hosts; k++)); do
		nqn=$(nvmeof_subnqn_of "$k")
		ln -s "$nvmet_cfg/subsystems/$nqn" "$port/subsystems/$nqn" ||
			return 1
	done
}

target_up() {
	local addr=$1
	local what="subsystem, namespace"
	[ "$nvmeof_hosts" = 1 ] ||
		what="$nvmeof_hosts subsystems (one per host), namespaces"
	# A 32 MiB ramdisk per host: rd_size is in KiB.
	ok_if "target: brd ramdisk" modprobe brd rd_nr="$nvmeof_hosts" \
		rd_size=32768 max_part=0 &&
	ok_if "target: nvmet-rdma loads" modprobe nvmet-rdma &&
	ok_if "target: nvmet configfs" nvmet_configfs &&
	ok_if "target: $what and RDMA port $addr:$nvmeof_port" \
		nvmet_configure "$addr" &&
	ok_if "target: nvmet_rdma listens" sh -c \
		"dmesg | grep -q 'nvmet_rdma: enabling port 1 ($addr:$nvmeof_port)'"
}

# Remove whatever nvmet_configure made, in reverse; fails on the first entry
# the kernel refuses to let go of.
nvmet_unconfigure() {
	local port=$nvmet_cfg/ports/1 k nqn subsys ns hostnqn
	for ((k = 1; k <= nvmeof_hosts; k++)); do
		nqn=$(nvmeof_subnqn_of "$k")
		{ ! test -L "$port/subsystems/$nqn" ||
			rm "$port/subsystems/$nqn"; } || return 1
	done
	{ ! test -d "$port" || rmdir "$port"; } || return 1
	for ((k = 1; k <= nvmeof_hosts; k++)); do
		subsys=$nvmet_cfg/subsystems/$(nvmeof_subnqn_of "$k")
		ns=$subsys/namespaces/1
		hostnqn=$(nvmeof_hostnqn_of "$k")
		{ ! test -d "$ns" || { echo 0 >"$ns/enable" && rmdir "$ns"; }; } &&
		{ ! test -L "$subsys/allowed_hosts/$hostnqn" ||
			rm "$subsys/allowed_hosts/$hostnqn"; } &&
		{ ! test -d "$subsys" || rmdir "$subsys"; } || return 1
		if [ "$nvmeof_hosts" != 1 ]; then
			{ ! test -d "$nvmet_cfg/hosts/$hostnqn" ||
				rmdir "$nvmet_cfg/hosts/$hostnqn"; } || return 1
		fi
	done
}

target_down() {
	ok_if "target: configfs entries removed" nvmet_unconfigure
	ok_if "target: nvmet-rdma and nvmet unload" modprobe -r nvmet-rdma nvmet
	ok_if "target: brd unloads" rmmod brd
}

# --- host --------------------------------------------------------------

# The namespace's block device: the disk whose controller (or, with native
# multipath, subsystem) has our NQN.  Hidden per-path disks (nvmeXcYnZ)
# have no /dev node and are skipped.
nvme_find_blk() {
	local b
	for b in /sys/block/nvme*n*; do
		case ${b##*/} in *c*) continue ;; esac
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$nvmeof_subnqn" ] &&
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

nvme_connect_retry() {
	local addr=$1 i start=$SECONDS out rc
	# The target may still be binding its listener: a rejected connect is
	# retried.  A connect whose CM exchange never completes would wait for
	# the CM's REQ retries (minutes): each attempt gets 40 s, all of them
	# 90 s.  ctrl-loss-tmo keeps a broken transport from reconnecting for
	# the default ten minutes later on.
	for i in 1 2 3 4 5; do
		out=$(timeout "$(scaled 40)" nvme connect -t rdma -a "$addr" -s "$nvmeof_port" \
			-n "$nvmeof_subnqn" --hostnqn="$nvmeof_hostnqn" \
			--hostid="$nvmeof_hostid" --ctrl-loss-tmo="$nvmeof_ctrl_loss_tmo" \
			--reconnect-delay=2 2>&1)
		rc=$?
		[ "$rc" = 0 ] && return 0
		# Every failed attempt's output goes to the log, also when a
		# later one connects (ok_if keeps its command's output only
		# when the case fails): a retry must not hide why it was needed.
		{
			echo "nvme connect attempt $i failed (exit $rc) after $((SECONDS - start)) s:"
			printf '%s\n' "$out" | tail -n 20 | sed 's/^/  /'
		} | sed 's/^/# /' >>"$ktap_out"
		echo "nvme connect attempt $i failed after $((SECONDS - start)) s"
		[ $((SECONDS - start + 40)) -le 90 ] || break
		sleep 3
	done
	return 1
}

host_connect() {
	local addr=$1
	ok_if "host: nvme-rdma loads" modprobe nvme-rdma || return 1
	ok_if "host: nvme connect -t rdma $addr:$nvmeof_port" \
		nvme_connect_retry "$addr" || return 1
	ok_if "host: namespace block device appears" wait_for 20 nvme_find_blk ||
		return 1
	nvme_blk=$(nvme_find_blk)
	fio_file=$nvme_blk
	local ctrl
	for ctrl in /sys/class/nvme/nvme*; do
		[ "$(cat "$ctrl/subsysnqn" 2>/dev/null)" = "$nvmeof_subnqn" ] || continue
		expect_eq "host: controller transport" "$(cat "$ctrl/transport")" rdma
		expect_eq "host: controller address" \
			"$(cat "$ctrl/address")" "traddr=$addr,trsvcid=$nvmeof_port"
	done
	# 32 MiB ramdisk = 65536 sectors of 512 bytes.
	expect_eq "host: namespace size" "$(cat "/sys/block/${nvme_blk#/dev/}/size")" 65536
}

host_disconnect() {
	local out
	out=$(nvme disconnect -n "$nvmeof_subnqn" 2>&1)
	printf '%s\n' "$out" | sed 's/^/# /' >>"$ktap_out"
	ok_if "host: nvme disconnect: 1 controller" \
		sh -c "echo '$out' | grep -q 'disconnected 1 controller'"
	ok_if "host: block device gone" wait_for 10 sh -c "! test -e $nvme_blk"
	ok_if "host: nvme-rdma unloads" modprobe -r nvme-rdma
}

