# SPDX-License-Identifier: GPL-2.0
#
# iSER, sourced by in-guest/ulp.sh: LIO's iSCSI target with an iSER portal
# (ib_isert) on the server guest, exporting a 128 MiB RAM LUN; open-iscsi
# logs in over the built-in "iser" iface (ib_iser) on the client, and fio
# verifies the SCSI disk.  Configured through configfs directly: targetcli
# is a multi-second Python start per call under TCG.  Both guests share
# one root file system, so the initiator's name is generated into /run.

iser_iqn=iqn.2026-12.org.orca:iser-test
. "$top/selftests/lib/guest/lio.sh"
iser_cfg=$lio_cfg

iser_configure() {
	local addr=$1 c=$iser_cfg t a
	t=$c/iscsi/$iser_iqn/tpgt_1
	mkdir -p "$c/core/rd_mcp_2/rd2" &&
	echo rd_pages=32768 >"$c/core/rd_mcp_2/rd2/control" &&
	echo 1 >"$c/core/rd_mcp_2/rd2/enable" &&
	mkdir -p "$t/lun/lun_0" &&
	ln -s "$c/core/rd_mcp_2/rd2" "$t/lun/lun_0/rd2" &&
	mkdir "$t/np/$addr:3260" &&
	echo 1 >"$t/np/$addr:3260/iser" || return 1
	for a in authentication=0 generate_node_acls=1 \
		 demo_mode_write_protect=0 cache_dynamic_acls=1; do
		echo "${a#*=}" >"$t/attrib/${a%=*}" || return 1
	done
	echo 1 >"$t/enable"
}

iser_unconfigure() {
	local addr=$1 c=$iser_cfg t
	t=$c/iscsi/$iser_iqn/tpgt_1
	if [ -d "$t" ]; then
		echo 0 >"$t/enable"
		if [ -d "$t/np/$addr:3260" ]; then
			echo 0 >"$t/np/$addr:3260/iser"
			rmdir "$t/np/$addr:3260" || return 1
		fi
		rm -f "$t/lun/lun_0/rd2"
		rmdir "$t/lun/lun_0" "$t" "$c/iscsi/$iser_iqn" || return 1
	fi
	# The fabric's directory holds a reference on iscsi_target_mod.
	if [ -d "$c/iscsi" ]; then
		rmdir "$c/iscsi" || return 1
	fi
	if [ -d "$c/core/rd_mcp_2" ]; then
		rmdir "$c/core/rd_mcp_2/rd2" "$c/core/rd_mcp_2" || return 1
	fi
}

iser_load() { lio_load && modprobe -a iscsi_target_mod ib_isert; }

iser_server_up() {
	ok_if "iser: server: LIO iSCSI target and ib_isert load" \
		iser_load || return 1
	ok_if "iser: server: target with a RAM LUN and an iSER portal on $1:3260" \
		iser_configure "$1"
}

# LIO frees the portal group on rmdir even while a session that the
# initiator's logout ended is still closing in its tx thread:
# iscsit_close_session() then takes the freed group's session_lock and
# spins on slab poison for good (caught in 82 on Linux 7.3: tx_thread ->
# take_action_for_connection_exit -> close_connection -> close_session,
# about one run in eight).  The group lists its sessions until that close
# is through.
iser_no_session() {
	! grep -q . "$iser_cfg/iscsi/$iser_iqn/tpgt_1/dynamic_sessions" 2>/dev/null
}

iser_server_down() {
	ok_if "iser: server: the portal group has no session left" \
		wait_for 60 iser_no_session
	ok_if "iser: server: configfs entries removed" iser_unconfigure "$server_addr"
	ok_if "iser: server: ib_isert and iscsi_target_mod unload" \
		bounded 300 unload_modules 60 ib_isert iscsi_target_mod
	ok_if "iser: server: target_core_mod unloads" lio_unload
}

iser_node() { echo "-m node -T $iser_iqn -p $1:3260 -I iser"; }

iser_iscsid() {
	mkdir -p /var/lib/iscsi /run/lock/iscsi &&
	echo "InitiatorName=$(iscsi-iname -p iqn.2026-12.org.orca)" \
		>/run/initiatorname.iscsi &&
	iscsid -c /etc/iscsi/iscsid.conf -i /run/initiatorname.iscsi
}

# iser_login ADDR: a node record over iface iser with TCG-proof timeouts
# (no NOP-outs), then the login.
iser_login() {
	local n
	n=$(iser_node "$1")
	# shellcheck disable=SC2086
	iscsiadm $n -o new &&
	iscsiadm $n -o update -n 'node.conn[0].timeo.noop_out_interval' -v 0 &&
	iscsiadm $n -o update -n 'node.conn[0].timeo.noop_out_timeout' -v 0 &&
	iscsiadm $n -o update -n node.session.timeo.replacement_timeout -v 20 &&
	timeout "$(scaled 90)" iscsiadm $n --login
}

iser_find_disk() {
	local h b
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = iscsi_iser ] || continue
		for b in "$h"/device/session*/target*/*/block/*; do
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
		done
	done
	return 1
}

iser_no_disk() { ! iser_find_disk; }

iser_client_test() {
	local addr=$1 disk n
	n=$(iser_node "$addr")
	ok_if "iser: client: ib_iser and sd_mod load" modprobe -a ib_iser sd_mod || return 1
	ok_if "iser: client: iscsid starts" iser_iscsid || return 1
	ok_if "iser: client: login to $addr:3260 over iface iser" iser_login "$addr" ||
		return 1
	iscsiadm -m session -P 3 >/tmp/iser-session.txt 2>&1
	ok_if "iser: client: the session's transport is iser" \
		grep -q 'Iface Transport: iser' /tmp/iser-session.txt
	ok_if "iser: client: SCSI disk appears" wait_for 30 iser_find_disk || return 1
	disk=$(iser_find_disk)
	expect_eq "iser: client: disk size (sectors)" "$(cat "/sys/block/${disk#/dev/}/size")" 262144
	echo 180 >"/sys/block/${disk#/dev/}/device/timeout"
	fio_file=$disk
	fio_tag="proto=iser "
	fio_job iser-randwrite-verify --rw=randwrite --bsrange=4k-256k --size=$((2 * ${ulp_verify_mb:-8}))M \
		--iodepth=16 --verify=crc32c --verify_fatal=1
	fio_job iser-seqwrite-1m-verify --rw=write --bs=1M --size=$((2 * ${ulp_verify_mb:-8}))M --offset=64M \
		--iodepth=4 --verify=crc32c --verify_fatal=1
	ulp_bench_jobs iser
	# shellcheck disable=SC2086
	ok_if "iser: client: logout" timeout "$(scaled 60)" iscsiadm $n --logout
	ok_if "iser: client: disk gone" wait_for 20 iser_no_disk
	# shellcheck disable=SC2086
	iscsiadm $n -o delete
	pkill -x iscsid
	ok_if "iser: client: ib_iser unloads" bounded 300 unload_modules 60 ib_iser
}

# --- device removal (in-guest/ulp.sh removal) ---------------------------

iser_client_connect() {
	ok_if "iser: client: ib_iser and sd_mod load" modprobe -a ib_iser sd_mod &&
	{ pgrep -x iscsid >/dev/null || ok_if "iser: client: iscsid starts" iser_iscsid; } &&
	ok_if "iser: client: login over iface iser" iser_login "$1" &&
	ok_if "iser: client: SCSI disk appears" wait_for 30 iser_find_disk
}

iser_client_busy() {
	local disk
	disk=$(iser_find_disk) || return 1
	echo 180 >"/sys/block/${disk#/dev/}/device/timeout"
	ulp_busy_fio "$disk" --size=32M
}

# The iSCSI layer sees the connection fail and starts recovery; with the
# client's device gone it cannot recover, and after the node's 20 s
# replacement_timeout the I/O in flight fails.
iser_client_loss() {
	ok_if "iser: client: the iSCSI layer detected the connection error" \
		wait_for 30 ulp_dmesg_since 'detected conn error'
	if [ "$1" = client ]; then
		ok_if "iser: client: the I/O in flight failed after the replacement timeout" \
			ulp_busy_failed 90
	else
		# shellcheck disable=SC2046
		ok_if "iser: client: the I/O in flight failed, or it resumed and new I/O verifies" \
			ulp_failed_or_resumed $(iser_client_target)
	fi
}

iser_client_cleanup() {
	local n
	n=$(iser_node "$server_addr")
	ulp_busy_stop
	# shellcheck disable=SC2086
	timeout "$(scaled 60)" iscsiadm $n --logout
	ok_if "iser: client: session gone" wait_for 30 iser_no_disk
	# shellcheck disable=SC2086
	iscsiadm $n -o delete
}

# An empty disk lookup must not make the target "64" alone: the check would
# write and read back a local file of that name and pass.  No disk, no
# target: the check that gets none fails (dd of="" cannot open it), with
# why in the log.
iser_client_target() {
	local disk
	if ! disk=$(iser_find_disk) || [ -z "$disk" ]; then
		# Not into our stdout: that is the target.
		[ "$ktap_out" = /dev/stdout ] ||
			echo "# iser: client: no iSER disk found: nothing to verify" >>"$ktap_out"
		echo "iser: client: no iSER disk found: nothing to verify" >&2
		return 1
	fi
	echo "$disk 64"
}

# A portal bound to the server's address lost its listener with the
# device (isert_np->cm_id is destroyed, never re-created): re-enable it.
iser_server_recover() {
	ok_if "iser: server: iSER portal enabled again" iser_portal_reenable
}

iser_portal_reenable() {
	local np=$iser_cfg/iscsi/$iser_iqn/tpgt_1/np/$server_addr:3260
	echo 0 >"$np/iser"
	echo 1 >"$np/iser"
}
