# SPDX-License-Identifier: GPL-2.0
#
# SRP over rdma_cm, sourced by in-guest/ulp.sh: LIO's ib_srpt on the server
# guest exports a 128 MiB RAM LUN, ib_srp on the client logs in by IP
# (add_target with dest=IP:port), and fio verifies the SCSI disk.  This is
# the layout blktests' srp tests use with rxe.  srpt accepts a login only if
# id_ext == ioc_guid == its srpt_service_guid, so that GUID is fixed here.
# On the GUID-named configfs port an rdma_cm login's ACL is named after
# cm_id->route.addr.src_addr (ib_srpt.c, srpt_rdma_cm_req_recv), which on
# the accepting side is the target's own address, not the initiator's:
# ACLs for both are made, so the test passes whichever srpt uses.

srp_guid=0x0011223344556677
srp_port=5555
. "$top/selftests/lib/guest/lio.sh"
srp_cfg=$lio_cfg

# The port's configfs name: GID 0's interface ID, "xxxx:xxxx:xxxx:xxxx".
srp_sport() {
	local g
	g=$(cat "/sys/class/infiniband/$rdma_dev/ports/1/gids/0") || return 1
	echo "${g:20}"
}

srp_configure() {
	local client=$1 p t
	p=$(srp_sport) || return 1
	t=$srp_cfg/srpt/$p/$p
	mkdir -p "$srp_cfg/core/rd_mcp_1/rd1" &&
	echo rd_pages=32768 >"$srp_cfg/core/rd_mcp_1/rd1/control" &&
	echo 1 >"$srp_cfg/core/rd_mcp_1/rd1/enable" &&
	mkdir -p "$srp_cfg/srpt" &&
	echo "$srp_port" >"$srp_cfg/srpt/discovery_auth/rdma_cm_port" &&
	mkdir -p "$t/lun/lun_0" &&
	ln -s "$srp_cfg/core/rd_mcp_1/rd1" "$t/lun/lun_0/rd1" &&
	for a in "$client" "$server_addr"; do
		mkdir -p "$t/acls/$a/lun_0" &&
		ln -s "$t/lun/lun_0" "$t/acls/$a/lun_0/lun_0" || return 1
	done
	echo 1 >"$t/enable"
}

srp_unconfigure() {
	local client=$1 p t
	p=$(srp_sport) || p=
	t=$srp_cfg/srpt/$p/$p
	if [ -n "$p" ] && [ -d "$t" ]; then
		echo 0 >"$t/enable"
		for a in "$client" "$server_addr"; do
			rm -f "$t/acls/$a/lun_0/lun_0"
			rmdir "$t/acls/$a/lun_0" "$t/acls/$a" || return 1
		done
		rm -f "$t/lun/lun_0/rd1"
		rmdir "$t/lun/lun_0" "$t" "$srp_cfg/srpt/$p" || return 1
	fi
	# The fabric's directory holds a reference on ib_srpt.
	if [ -d "$srp_cfg/srpt" ]; then
		echo 0 >"$srp_cfg/srpt/discovery_auth/rdma_cm_port"
		rmdir "$srp_cfg/srpt" || return 1
	fi
	if [ -d "$srp_cfg/core/rd_mcp_1" ]; then
		rmdir "$srp_cfg/core/rd_mcp_1/rd1" "$srp_cfg/core/rd_mcp_1" || return 1
	fi
}

srp_load() {
	lio_load && modprobe ib_srpt srpt_service_guid=$srp_guid
}

srp_server_up() {
	ok_if "srp: server: target_core_mod and ib_srpt load" \
		srp_load ||
		return 1
	ok_if "srp: server: srpt port with a RAM LUN, rdma_cm on port $srp_port" \
		srp_configure "$client_addr"
}

srp_server_down() {
	ok_if "srp: server: configfs entries removed" srp_unconfigure "$client_addr"
	ok_if "srp: server: ib_srpt unloads" bounded 300 unload_modules 60 ib_srpt
	ok_if "srp: server: target_core_mod unloads" lio_unload
}

# The disk of the ib_srp SCSI host, as /dev/sdX.
srp_find_disk() {
	local h b
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] || continue
		for b in "$h"/device/target*/*/block/*; do
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
		done
	done
	return 1
}

srp_login() {
	local addr=$1 f
	f=/sys/class/infiniband_srp/srp-$rdma_dev-1/add_target
	echo "id_ext=$srp_guid,ioc_guid=$srp_guid,dest=$addr:$srp_port,src=$client_addr" >"$f"
}

srp_logout() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_for 20 srp_no_disk
}

srp_no_disk() { ! srp_find_disk; }

srp_client_test() {
	local addr=$1 disk
	ok_if "srp: client: ib_srp and sd_mod load" modprobe -a ib_srp sd_mod || return 1
	ok_if "srp: client: add_target dest=$addr:$srp_port" srp_login "$addr" || return 1
	ok_if "srp: client: SCSI disk appears" wait_for 30 srp_find_disk || return 1
	disk=$(srp_find_disk)
	expect_eq "srp: client: disk size (sectors)" "$(cat "/sys/block/${disk#/dev/}/size")" 262144
	# TCG is slow: the default 30 s SCSI timeout would abort healthy I/O.
	echo 180 >"/sys/block/${disk#/dev/}/device/timeout"
	fio_file=$disk
	fio_tag="proto=srp "
	fio_job srp-randwrite-verify --rw=randwrite --bsrange=4k-256k --size=$((2 * ${ulp_verify_mb:-8}))M \
		--iodepth=16 --verify=crc32c --verify_fatal=1
	fio_job srp-seqwrite-1m-verify --rw=write --bs=1M --size=$((2 * ${ulp_verify_mb:-8}))M --offset=64M \
		--iodepth=4 --verify=crc32c --verify_fatal=1
	ulp_bench_jobs srp
	ok_if "srp: client: remote port deleted, disk gone" srp_logout
	ok_if "srp: client: ib_srp unloads" bounded 300 unload_modules 60 ib_srp
}

# --- device removal (in-guest/ulp.sh removal) ---------------------------

srp_client_connect() {
	ok_if "srp: client: ib_srp and sd_mod load" modprobe -a ib_srp sd_mod &&
	ok_if "srp: client: add_target" srp_login "$1" &&
	ok_if "srp: client: SCSI disk appears" wait_for 30 srp_find_disk
}

srp_client_busy() {
	local disk
	disk=$(srp_find_disk) || return 1
	echo 180 >"/sys/block/${disk#/dev/}/device/timeout"
	ulp_busy_fio "$disk" --size=32M
}

# The client's device gone: srp_remove_one takes the SCSI host with it and
# the I/O in flight fails.  The server's gone: the initiator sees its
# channel fail and reconnects once the target is back, or fails the I/O
# after fast_io_fail_tmo; either is fine, silence is not.
srp_client_loss() {
	if [ "$1" = client ]; then
		ok_if "srp: client: the disk went away with the device" srp_no_disk
		ok_if "srp: client: the I/O in flight failed (not hung, not lost silently)" \
			ulp_busy_failed 90
		return
	fi
	ok_if "srp: client: ib_srp reported the lost channel" wait_for 60 \
		ulp_dmesg_since 'ib_srp.*(failed .* status|DREQ|reconnect|Connection)'
	# shellcheck disable=SC2046
	ok_if "srp: client: the I/O in flight failed, or it resumed and new I/O verifies" \
		ulp_failed_or_resumed $(srp_client_target)
}

srp_client_cleanup() {
	ulp_busy_stop
	ok_if "srp: client: no remote port or disk left" srp_logout
}

# An empty disk lookup must not make the target "64" alone: the check would
# write and read back a local file of that name and pass.  No disk, no
# target: the check that gets none fails (dd of="" cannot open it), with
# why in the log.
srp_client_target() {
	local disk
	if ! disk=$(srp_find_disk) || [ -z "$disk" ]; then
		# Not into our stdout: that is the target.
		[ "$ktap_out" = /dev/stdout ] ||
			echo "# srp: client: no ib_srp disk found: nothing to verify" >>"$ktap_out"
		echo "srp: client: no ib_srp disk found: nothing to verify" >&2
		return 1
	fi
	echo "$disk 64"
}

# srpt's configfs target port belonged to the removed device: make it
# again (once the initiator let go of the old session, which the teardown
# waits for).
srp_server_recover() {
	ok_if "srp: server: target port made again for the new device" \
		srp_reconfigure "$client_addr"
}

srp_reconfigure() {
	srp_unconfigure "$1"
	srp_configure "$1"
}
