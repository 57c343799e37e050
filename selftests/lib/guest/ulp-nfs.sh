# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA, sourced by in-guest/ulp.sh: nfsd with an RDMA listener on
# port 20049 exporting a tmpfs on the server guest; NFSv3 and NFSv4.2
# mounts with proto=rdma on the client, each checked with a fio verify job
# on a file.  There is no systemd or udev in the guests: the daemons are
# started by hand, rpcbind only for v3's MOUNT protocol, and v3 mounts with
# nolock (no statd on the client).

nfs_port=20049
nfs_export=/srv/nfs

nfs_server_start() {
	local addr=$1
	modprobe nfsd && modprobe rpcrdma || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p "$nfs_export" /var/lib/nfs /run/rpc_pipefs &&
	mount -t tmpfs -o size=160M tmpfs "$nfs_export" &&
	mount -t rpc_pipefs sunrpc /run/rpc_pipefs || return 1
	: >/var/lib/nfs/etab
	rpcbind -w || return 1
	# fsid=0: the export is NFSv4's pseudo root (the guest's / is an
	# overlayfs nfsd cannot walk); v3 mounts it by its path.
	exportfs -o rw,no_root_squash,no_subtree_check,fsid=0 "${addr%.*}.0/24:$nfs_export" &&
	rpc.mountd || return 1
	# A short grace period: v4 clients wait it out before their first open.
	rpc.nfsd -G 10 -L 10 -N 4.0 -N 4.1 -V 3 -V 4.2 --rdma="$nfs_port" 4
}

nfs_server_up() {
	ok_if "nfs: server: nfsd, mountd and rpcbind up, $nfs_export exported" \
		nfs_server_start "$1" || return 1
	ok_if "nfs: server: nfsd listens on rdma $nfs_port" \
		grep -qx "rdma $nfs_port" /proc/fs/nfsd/portlist
}

nfs_server_down() {
	ok_if "nfs: server: nfsd stops" rpc.nfsd 0
	exportfs -ua
	pkill -x rpc.mountd; pkill -x rpcbind
	ok_if "nfs: server: export unmounted" wait_for 10 umount "$nfs_export"
	umount /run/rpc_pipefs 2>/dev/null
	umount /proc/fs/nfsd 2>/dev/null
	ok_if "nfs: server: nfsd and rpcrdma unload" \
		bounded 300 unload_modules 60 nfsd rpcrdma
}

# nfs_mount VERS SERVER_ADDR DIR
nfs_mount() {
	local vers=$1 addr=$2 dir=$3 opts path=/
	opts="vers=$vers,proto=rdma,port=$nfs_port"
	[ "$vers" = 3 ] && opts+=",mountproto=tcp,nolock" path=$nfs_export
	mkdir -p "$dir"
	timeout "$(scaled 120)" mount -t nfs -o "$opts" "$addr:$path" "$dir"
}

# nfs_check_mount VERS DIR: /proc/mounts and mountstats say RDMA.
nfs_check_mount() {
	local vers=$1 dir=$2 line
	line=$(awk -v d="$dir" '$2 == d' /proc/mounts)
	echo "# $line" >>"$ktap_out"
	ok_if "nfs: v$vers mount shows proto=rdma" \
		sh -c "echo '$line' | grep -q 'proto=rdma'"
	ok_if "nfs: v$vers mount is vers=$vers" \
		sh -c "echo '$line' | grep -q 'vers=$vers'"
}

nfs_client_test() {
	local addr=$1 v dir
	ok_if "nfs: client: rpcrdma loads" modprobe rpcrdma || return 1
	for v in 3 4.2; do
		dir=/mnt/nfs-v$v
		ok_if "nfs: client: v$v mount over rdma" nfs_mount "$v" "$addr" "$dir" ||
			continue
		nfs_check_mount "$v" "$dir"
		fio_file=$dir/fio-v$v
		fio_tag="proto=nfs-v$v "
		# Random writes of 4k-256k: RDMA READ of the data by the server
		# (above the inline threshold), reads back with RDMA WRITE.
		fio_job "nfs-v$v-randwrite-verify" --rw=randwrite --bsrange=4k-256k \
			--size=${ulp_verify_mb:-8}M --iodepth=8 --verify=crc32c --verify_fatal=1
		fio_job "nfs-v$v-seqwrite-1m-verify" --rw=write --bs=1M --size=${ulp_verify_mb:-8}M \
			--iodepth=4 --verify=crc32c --verify_fatal=1
		[ "$v" = 4.2 ] && ulp_bench_jobs nfs
		rm -f "$fio_file"
		ok_if "nfs: client: v$v unmount" timeout "$(scaled 60)" umount "$dir"
	done
	ok_if "nfs: client: rpcrdma unloads" bounded 300 unload_modules 60 rpcrdma
}

# --- device removal (in-guest/ulp.sh removal) ---------------------------

nfs_rm_dir=/mnt/nfs-removal

nfs_client_connect() {
	ok_if "nfs: client: rpcrdma loads" modprobe rpcrdma &&
	ok_if "nfs: client: v4.2 mount over rdma" nfs_mount 4.2 "$1" "$nfs_rm_dir"
}

nfs_client_busy() {
	ulp_busy_fio "$nfs_rm_dir/busy" --size=8M
}

# A hard mount rides out the loss: its I/O waits while a device is gone
# (fio neither fails nor ends) and, once the device (ours or the server's)
# is back, the same mount carries verified I/O again without a remount.
nfs_client_loss() {
	ok_if "nfs: client: the I/O in flight waits, it does not fail" \
		ulp_busy_running
	[ "$1" = server ] && nfs_client_back
}

nfs_client_back() {
	ok_if "nfs: client: the same mount carries verified I/O again" \
		ulp_write_read 120 "$nfs_rm_dir/after"
	ok_if "nfs: client: the I/O in flight resumed, it did not fail" \
		ulp_busy_running
}

nfs_client_cleanup() {
	ulp_busy_stop
	ok_if "nfs: client: removal mount unmounted" timeout "$(scaled 60)" umount "$nfs_rm_dir"
}

nfs_client_target() { echo "$nfs_rm_dir/fresh"; }
nfs_server_recover() { :; }
