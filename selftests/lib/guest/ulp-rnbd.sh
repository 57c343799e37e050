# SPDX-License-Identifier: GPL-2.0
#
# RNBD over RTRS, sourced by in-guest/ulp.sh: rnbd-server on the server
# guest exports a 128 MiB brd RAM disk, the client maps it by IP through
# rnbd-client's map_device (blktests' rnbd group does the same over rxe)
# and fio verifies /dev/rnbdN.  RTRS's server listens on rdma_cm port 1234
# on every RDMA device (an ib_client: it listens once a device is there,
# stops when the last one goes).  Debian's kernel is built without RTRS,
# so both sides load the modules scripts/out-of-tree/rnbd-build.sh builds
# from the same kernel source (under /opt/orca-rnbd, a module root of its
# own: modprobe -d resolves them and their stock dependencies).  A kernel
# built with RNBD (make check-debug's) has its own: they are used as they
# are.

rnbd_mods=/opt/orca-rnbd/root
modinfo -n rnbd-server >/dev/null 2>&1 && rnbd_mods=/
rnbd_port=1234
# The session's name, the same on both sides; the server refuses a second
# read-write mapping of a device, so a fresh one after a removal waits
# until the server let go of the old session.
rnbd_sess=orca-rnbd
rnbd_disk_path=/dev/ram0

rnbd_modprobe() { modprobe -d "$rnbd_mods" "$@"; }

# rnbd_retry SECS CMD...: CMD until it succeeds, every 2 s, for up to SECS;
# for steps that set up a whole RTRS session each time (no busy polling).
rnbd_retry() {
	local end=$((SECONDS + $(scaled "$1")))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 2
	done
}

rnbd_unload() {
	wait_for "$1" modprobe -d "$rnbd_mods" -r "${@:2}" || return 1
	local m
	for m in "${@:2}"; do
		! test -d "/sys/module/${m//-/_}" || { echo "$m still loaded"; return 1; }
	done
}

rnbd_listening() {
	rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$rnbd_port "
}

rnbd_server_up() {
	ok_if "rnbd: server: brd RAM disk of 128 MiB" \
		modprobe brd rd_nr=1 rd_size=131072 || return 1
	ok_if "rnbd: server: rnbd-server and rtrs-server load" \
		rnbd_modprobe rnbd-server || return 1
	ok_if "rnbd: server: RTRS listens on rdma_cm port $rnbd_port" \
		wait_for 20 rnbd_listening
}

rnbd_server_down() {
	ok_if "rnbd: server: rnbd-server, rtrs-server and rtrs-core unload" \
		bounded 300 rnbd_unload 60 rnbd-server rtrs-server rtrs-core
	ok_if "rnbd: server: brd unloads" wait_for 20 rmmod brd
}

# The client's block device of our session, as /dev/rnbdN.
rnbd_find_disk() {
	local d
	for d in /sys/block/rnbd*; do
		[ "$(cat "$d/rnbd/session" 2>/dev/null)" = "$rnbd_sess" ] || continue
		[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

rnbd_no_disk() { ! rnbd_find_disk; }

rnbd_state() {
	local d
	d=$(rnbd_find_disk) || return 1
	cat "/sys/block/${d#/dev/}/rnbd/state"
}

rnbd_state_is() { [ "$(rnbd_state)" = "$1" ]; }

# rnbd_map ADDR: map the server's RAM disk (blocks until the session is up
# and the device opened on the server, or failed).
rnbd_map() {
	echo "sessname=$rnbd_sess path=ip:$1 device_path=$rnbd_disk_path" |
		timeout "$(scaled 60)" tee /sys/devices/virtual/rnbd-client/ctl/map_device >/dev/null
}

# rnbd_unmap normal|force: the mapping goes, and with its last device the
# RTRS session.
rnbd_unmap() {
	local d
	if d=$(rnbd_find_disk); then
		echo "$1" >"/sys/block/${d#/dev/}/rnbd/unmap_device" || return 1
	fi
	wait_for 30 rnbd_no_disk && wait_for 30 test ! -e "/sys/class/rtrs-client/$rnbd_sess"
}

# rnbd_unmap_quickly normal|force: rnbd_unmap within 20 s.  Closing the
# session waits for the server's answer to each connection's DREQ, up to
# 30 s (RTRS_CONNECT_TIMEOUT_MS) for one that never comes: it did after a
# removal of the client's device, for every later close
# (scripts/kernel-fixes/rnbd-rtrs-clt-device-removal-connected-cnt.patch).
rnbd_unmap_quickly() {
	local t0=$SECONDS
	rnbd_unmap "$1" || return 1
	echo "unmapped in $((SECONDS - t0)) s"
	[ $((SECONDS - t0)) -le "$(scaled 20)" ]
}

# What RTRS reports of its path: "connected" or not, and over which device.
rnbd_path_info() {
	local p
	for p in "/sys/class/rtrs-client/$rnbd_sess"/paths/*; do
		echo "# rtrs path ${p##*/}: $(cat "$p/state") on $(cat "$p/hca_name"):$(cat "$p/hca_port")"
	done
}

rnbd_client_test() {
	local addr=$1 disk
	ok_if "rnbd: client: rnbd-client and rtrs-client load" \
		rnbd_modprobe rnbd-client || return 1
	ok_if "rnbd: client: map_device $rnbd_disk_path over ip:$addr" rnbd_map "$addr" ||
		return 1
	ok_if "rnbd: client: block device appears" wait_for 30 rnbd_find_disk || return 1
	disk=$(rnbd_find_disk)
	rnbd_path_info >>"$ktap_out"
	expect_eq "rnbd: client: device state" "$(rnbd_state)" open
	expect_eq "rnbd: client: RTRS path over $rdma_dev" \
		"$(cat "/sys/class/rtrs-client/$rnbd_sess"/paths/*/hca_name)" "$rdma_dev"
	expect_eq "rnbd: client: disk size (sectors)" "$(cat "/sys/block/${disk#/dev/}/size")" 262144
	fio_file=$disk
	fio_tag="proto=rnbd "
	fio_job rnbd-randwrite-verify --rw=randwrite --bsrange=4k-256k --size=$((2 * ${ulp_verify_mb:-8}))M \
		--iodepth=16 --verify=crc32c --verify_fatal=1
	fio_job rnbd-seqwrite-1m-verify --rw=write --bs=1M --size=$((2 * ${ulp_verify_mb:-8}))M --offset=64M \
		--iodepth=4 --verify=crc32c --verify_fatal=1
	ulp_bench_jobs rnbd
	ok_if "rnbd: client: unmapped, session closed within 20 s" rnbd_unmap_quickly normal
	ok_if "rnbd: client: rnbd-client, rtrs-client and rtrs-core unload" \
		bounded 300 rnbd_unload 60 rnbd-client rtrs-client rtrs-core
}

# --- device removal (in-guest/ulp.sh removal) ---------------------------

# A fresh mapping right after a removal may find the server still holding
# the old session's read-write open of the disk (until it sees the old
# connection gone: a DREQ, or RTRS's heartbeat, 5 missed at 5 s): retry it.
rnbd_client_connect() {
	local t0=$SECONDS
	{ test -d /sys/module/rnbd_client ||
	  ok_if "rnbd: client: rnbd-client and rtrs-client load" rnbd_modprobe rnbd-client; } &&
	ok_if "rnbd: client: map_device" rnbd_retry 60 rnbd_map "$1" &&
	ok_if "rnbd: client: block device appears" wait_for 30 rnbd_find_disk || return 1
	ktap_line "# rnbd: mapped after $((SECONDS - t0)) s"
}

rnbd_client_busy() {
	local disk
	disk=$(rnbd_find_disk) || return 1
	ulp_busy_fio "$disk" --size=32M
}

# The client's device gone: RTRS closes the path (a device removal is no
# reason to reconnect), fails what is outstanding, and rnbd marks the
# device closed; it stays mapped.  The server's gone: the client sees the
# connection drop, fails the I/O, and reconnects by itself every 30 s
# (RECONNECT_DELAY, no limit) until the server is back, then rnbd maps the
# device again.
rnbd_client_loss() {
	ok_if "rnbd: client: rnbd reported the device disconnected" \
		wait_for 60 ulp_dmesg_since 'rnbd_client.*Device disconnected'
	ok_if "rnbd: client: the I/O in flight failed (not hung, not lost silently)" \
		ulp_busy_failed 90
	if [ "$1" = client ]; then
		expect_eq "rnbd: client: the device stays mapped, closed" \
			"$(rnbd_state)" closed
		return
	fi
	# Up to two reconnect attempts: the first may come before the
	# server listens again.  "open" means the server opened the disk
	# again for the session (rnbd's remap); the fresh connection after
	# this checks the data.
	ok_if "rnbd: client: RTRS reconnected by itself, the device is open again" \
		wait_for 90 rnbd_state_is open
	rnbd_path_info >>"$ktap_out"
}

# The client's own device back: a reconnect of the closed path by hand
# (what an administrator does) brings the mapping back (the fresh
# connection after this checks the data), and the unmap that follows must
# not wait for the connections the removal took (rnbd_unmap_quickly).
# The server refuses a path from the same address while it still has the
# old one (until it sees that one gone): retry.
rnbd_client_back() {
	local p
	for p in "/sys/class/rtrs-client/$rnbd_sess"/paths/*; do
		ok_if "rnbd: client: the closed RTRS path reconnects on the new device" \
			rnbd_retry 60 sh -c "echo 1 >'$p/reconnect'"
	done
	ok_if "rnbd: client: the device is open again" wait_for 30 rnbd_state_is open
}

rnbd_client_cleanup() {
	ulp_busy_stop
	ok_if "rnbd: client: unmapped, session closed within 20 s" rnbd_unmap_quickly force
}

# No disk, no target (see srp_client_target).
rnbd_client_target() {
	local disk
	if ! disk=$(rnbd_find_disk) || [ -z "$disk" ]; then
		[ "$ktap_out" = /dev/stdout ] ||
			echo "# rnbd: client: no rnbd disk found: nothing to verify" >>"$ktap_out"
		echo "rnbd: client: no rnbd disk found: nothing to verify" >&2
		return 1
	fi
	echo "$disk 64"
}

# RTRS's server listens again by itself when the new device registers.
rnbd_server_recover() {
	ok_if "rnbd: server: RTRS listens again on the new device" \
		wait_for 20 rnbd_listening
}
