# SPDX-License-Identifier: GPL-2.0
#
# SMB Direct, sourced by in-guest/ulp.sh: ksmbd on the server guest, a cifs
# mount with -o rdma on the client, fio verifying a file.  Debian's kernel
# is built without SMB Direct, so both sides load the ksmbd, cifs and
# smbdirect modules scripts/out-of-tree/smb-build.sh builds from the same kernel source
# (under /opt/orca-smb, a module root of its own: modprobe -d picks our
# modules there and the stock ones they depend on).  The RDMA listener is
# ksmbd's wildcard one on port 445 (IB and RoCE; 5445 is iWARP's).  A
# kernel built with SMB Direct (make check-debug's) has its own smbdirect.ko:
# its modules are used as they are.

smb_mods=/opt/orca-smb/root
modinfo -n smbdirect >/dev/null 2>&1 && smb_mods=/
smb_dir=/tmp/ksmbd
smb_share=/srv/smb

# smb_modprobe MODULE: ours, never the stock one without SMB Direct.
smb_modprobe() {
	modprobe -d "$smb_mods" "$1" && test -d /sys/module/smbdirect
}

smb_server_start() {
	mkdir -p "$smb_dir" "$smb_share" &&
	mount -t tmpfs -o size=96M tmpfs "$smb_share" &&
	printf '[global]\n\tserver multi channel support = yes\n[share]\n\tpath = %s\n\tread only = no\n\tforce user = root\n\tforce group = root\n' \
		"$smb_share" >"$smb_dir/ksmbd.conf" &&
	ksmbd.adduser -C "$smb_dir/ksmbd.conf" -P "$smb_dir/pwd.db" -a orca -p orcapw &&
	ksmbd.mountd -C "$smb_dir/ksmbd.conf" -P "$smb_dir/pwd.db"
}

smb_listening() { ps -e | grep -q 'ksmbd-smbdirect-listener-445'; }

smb_server_up() {
	ok_if "smb: server: ksmbd with SMB Direct loads" smb_modprobe ksmbd ||
		return 1
	ok_if "smb: server: ksmbd.mountd serves $smb_share" smb_server_start ||
		return 1
	ok_if "smb: server: SMB Direct listener on port 445" wait_for 20 smb_listening
}

smb_server_down() {
	ok_if "smb: server: ksmbd stops" ksmbd.control -s
	ok_if "smb: server: share unmounted" wait_for 10 umount "$smb_share"
	ok_if "smb: server: ksmbd and smbdirect unload" \
		wait_for 20 modprobe -d "$smb_mods" -r ksmbd smbdirect
}

smb_client_test() {
	local addr=$1 dir=/mnt/smb line
	ok_if "smb: client: cifs with SMB Direct loads" smb_modprobe cifs || return 1
	ok_if "smb: client: cifs reports SMB_DIRECT" \
		grep -q SMB_DIRECT /proc/fs/cifs/DebugData
	mkdir -p "$dir"
	ok_if "smb: client: mount -o rdma //$addr/share" timeout "$(scaled 120)" \
		mount -t cifs "//$addr/share" "$dir" \
		-o rdma,vers=3.1.1,username=orca,password=orcapw,cache=none ||
		return 1
	line=$(awk -v d="$dir" '$2 == d' /proc/mounts)
	echo "# $line" >>"$ktap_out"
	ok_if "smb: client: the mount reports rdma" sh -c "echo '$line' | grep -q ',rdma'"
	ok_if "smb: client: cifs says the RDMA transport is established" \
		sh -c "dmesg | grep -q 'RDMA transport established'"
	fio_file=$dir/fio-smb
	fio_tag="proto=smb "
	fio_job smb-randwrite-verify --rw=randwrite --bsrange=4k-256k --size=${ulp_verify_mb:-8}M \
		--iodepth=8 --verify=crc32c --verify_fatal=1
	fio_job smb-seqwrite-1m-verify --rw=write --bs=1M --size=${ulp_verify_mb:-8}M \
		--iodepth=4 --verify=crc32c --verify_fatal=1
	ulp_bench_jobs smb
	rm -f "$fio_file"
	ok_if "smb: client: unmount" timeout "$(scaled 60)" umount "$dir"
	ok_if "smb: client: cifs and smbdirect unload" wait_for 20 modprobe -d "$smb_mods" -r cifs smbdirect
}

# --- device removal (in-guest/ulp.sh removal) ---------------------------

smb_rm_dir=/mnt/smb-removal

smb_client_connect() {
	{ test -d /sys/module/cifs || ok_if "smb: client: cifs with SMB Direct loads" smb_modprobe cifs; } &&
	mkdir -p "$smb_rm_dir" &&
	ok_if "smb: client: mount -o rdma" timeout "$(scaled 120)" mount -t cifs \
		"//$1/share" "$smb_rm_dir" \
		-o rdma,vers=3.1.1,username=orca,password=orcapw,cache=none
}

smb_client_busy() {
	ulp_busy_fio "$smb_rm_dir/busy" --size=8M
}

smb_client_loss() {
	ok_if "smb: client: cifs reported the lost RDMA connection" \
		wait_for 60 ulp_dmesg_since 'CIFS: VFS: .*(DISCONNECTED|WR flushed|re-established|[Rr]econnect)'
	if [ "$1" = server ]; then
		ok_if "smb: client: the I/O in flight failed, or it resumed and new I/O verifies" \
			ulp_failed_or_resumed "$smb_rm_dir/after"
	fi
}

smb_client_cleanup() {
	ulp_busy_stop
	ok_if "smb: client: removal mount unmounted" timeout "$(scaled 60)" umount -f "$smb_rm_dir"
}

smb_client_target() { echo "$smb_rm_dir/fresh"; }
smb_server_recover() { :; }
