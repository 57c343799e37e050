#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of an ORCA test guest, after the initramfs switched into the toolroot
# overlay.  Sets up a minimal system (no udev, no systemd), the wire
# interface and the repo share, runs the test command and powers off.
#
# Parameters come from the kernel command line (set by scripts/guests/run-guests.sh):
#   orca.index=I orca.count=N   guest number and count
#   orca.mac=MAC                the virtio-net MAC (= the adapter's port MAC)
#   orca.work=DIR               repo path: the 9p share "work" is mounted there
#   orca.cmd=FILE               script to run (bash), from DIR
#   orca.ctl=FILE               the emulator's control file (exported)
#   orca.run=DIR                the run's output directory (exported, e.g.
#                               for barrier files between guests)
#   orca.modules=DIR            the kernel's modules, when they are not in
#                               the toolroot's /lib/modules (make
#                               check-debug's kernel): bound there
#   orca.udev=1                 start systemd-udevd before the command
#                               (run-guests.sh --udev)
#   orca.dmesg=1                when the command ends, save the kernel log in
#                               DIR/g<I>/dmesg (after a kmemleak scan, whose
#                               report goes to DIR/g<I>/kmemleak, when the
#                               kernel has kmemleak), and eth0's counters
#                               and its qdisc's in DIR/g<I>/netstack (what
#                               the guest's own network stack dropped: an
#                               rxe guest's RoCE frames go through it)
#
# The virtio-net interface is renamed "eth0" and gets 10.0.0.<I+1>/24 and
# fd00::<I+1>/64.  The command's exit status is printed on the console as
# "ORCA-GUEST-EXIT: <status>", the line scripts/guests/run-guests.sh looks for.

mark() { echo "orca-guest-init: $*" >/dev/kmsg; }
mark "started"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

finish() {
	echo "ORCA-GUEST-EXIT: $1"
	/bin/busybox sync
	[ -n "$work" ] && /bin/busybox umount "$work" 2>/dev/null
	/bin/busybox poweroff -f
	# not reached; PID 1 must never exit
	while :; do /bin/busybox sleep 1000; done
}

# This runs under busybox sh, which prefers its own applets to programs in
# PATH: call other programs by full path.
# Everything before the command uses busybox applets and shell builtins:
# under TCG every dynamically linked program costs its libraries' loading
# over 9p, and boot time is test time.
bb=/bin/busybox
index=0 count=1 mac='' work='' cmd='' ctl='' run='' dmesg=0 modules='' udev=0
$bb mount -t proc proc /proc
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	orca.index=*) index=${arg#*=} ;;
	orca.count=*) count=${arg#*=} ;;
	orca.mac=*) mac=${arg#*=} ;;
	orca.work=*) work=${arg#*=} ;;
	orca.cmd=*) cmd=${arg#*=} ;;
	orca.ctl=*) ctl=${arg#*=} ;;
	orca.run=*) run=${arg#*=} ;;
	orca.dmesg=*) dmesg=${arg#*=} ;;
	orca.modules=*) modules=${arg#*=} ;;
	orca.udev=*) udev=${arg#*=} ;;
	esac
done

$bb mount -t sysfs sysfs /sys
$bb mkdir -p /dev/pts /dev/shm
$bb mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
$bb mount -t tmpfs -o mode=1777 tmpfs /dev/shm
$bb mount -t tmpfs -o mode=1777 tmpfs /tmp
$bb mount -t tmpfs -o mode=0755 tmpfs /run
$bb mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# What udev and systemd-tmpfiles give a normal system, and third-party
# suites (blktests, xfstests) take for granted: /dev/fd and the standard
# streams (bash's process substitution, "cat /dev/stdin"), and the static
# device nodes of modules.devname, whose first open loads the module
# (/dev/loop-control for losetup -f, /dev/mapper/control, /dev/net/tun).
# devtmpfs has none of these.  Builtins and the busybox applet only.
$bb ln -sfn /proc/self/fd /dev/fd
$bb ln -sf /proc/self/fd/0 /dev/stdin
$bb ln -sf /proc/self/fd/1 /dev/stdout
$bb ln -sf /proc/self/fd/2 /dev/stderr
$bb hostname "orca-g$index"
kver=$($bb uname -r)
if [ -n "$modules" ]; then
	$bb mkdir -p "/lib/modules/$kver"
	$bb mount --bind "$modules" "/lib/modules/$kver"
fi
# The static nodes, once the modules are where modprobe looks.
# A line is "MODULE NODE cMAJOR:MINOR" (or b for a block device).
while read -r mod node spec; do
	case $mod in '#'* | '') continue ;; esac
	[ -e "/dev/$node" ] && continue
	kind=${spec%"${spec#?}"} spec=${spec#?}
	case $kind in [cb]) ;; *) continue ;; esac
	case $node in */*) $bb mkdir -p "/dev/${node%/*}" ;; esac
	$bb mknod -m 0600 "/dev/$node" "$kind" "${spec%:*}" "${spec#*:}"
done <"/lib/modules/$kver/modules.devname" 2>/dev/null
# configfs (LIO, nvmet, blktests' _have_configfs): a module in Debian's
# kernel, whose mount point appears only once it is loaded, so mounting
# alone does not load it.  Loaded in the background while the network
# comes up (a third of a second under TCG); the command waits for it.
{
	[ -d /sys/kernel/config ] || $bb modprobe configfs
	$bb mount -t configfs configfs /sys/kernel/config
} 2>/dev/null &
configfs_job=$!
{
	echo "127.0.0.1 localhost"
	i=0
	while [ "$i" -lt "$count" ]; do
		echo "10.0.0.$((i + 1)) orca-g$i"
		i=$((i + 1))
	done
} >/etc/hosts

# The wire interface: the virtio-net device with our MAC (the initramfs
# loaded virtio_net).
mark "looking for $mac"
[ -d /sys/module/virtio_net ] || /sbin/modprobe virtio_net 2>/dev/null
dev=''
t=0
while [ -z "$dev" ] && [ "$t" -lt 50 ]; do
	for d in /sys/class/net/*; do
		a=''
		read -r a <"$d/address" 2>/dev/null
		[ "$a" = "$mac" ] && dev=${d##*/}
	done
	[ -n "$dev" ] || { $bb sleep 0.1; t=$((t + 1)); }
done
if [ -z "$dev" ]; then
	echo "orca-guest-init: no interface with MAC $mac"
	finish 253
fi
# One ip(8) run for the whole configuration.
{
	echo "link set lo up"
	[ "$dev" = eth0 ] || echo "link set $dev name eth0"
	echo "addr add 10.0.0.$((index + 1))/24 dev eth0"
	echo "addr add fd00::$((index + 1))/64 dev eth0 nodad"
	echo "link set eth0 up"
} | /sbin/ip -force -batch -
mark "eth0 up"

if [ -z "$work" ] || ! $bb mkdir -p "$work" ||
   ! $bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 work "$work"; then
	echo "orca-guest-init: cannot mount the work share at '$work'"
	finish 252
fi

export ORCA_GUEST_INDEX=$index ORCA_GUEST_COUNT=$count ORCA_CTL=$ctl
export ORCA_WORK=$work ORCA_RUN_DIR=$run
wait "$configfs_job"
# udev, for suites that wait on it ("udevadm settle" is a no-op without
# it: blktests' scsi_debug setup then looks for the SCSI host too early)
# or need what its rules do (module loading for new devices, /dev/disk
# links, multipathd's events).  No coldplug (udevadm trigger): that is
# most of a minute under TCG; devices that exist already keep their
# state.  The rule that renames RDMA devices after their bus address
# (rdma-core's NAME_FALLBACK: orca_0 would become rocep0s4) is masked:
# tests name orca_0.
if [ "$udev" = 1 ]; then
	$bb mkdir -p /etc/udev/rules.d
	$bb ln -sf /dev/null /etc/udev/rules.d/60-rdma-persistent-naming.rules
	/usr/lib/systemd/systemd-udevd --daemon --resolve-names=never ||
		echo "orca-guest-init: systemd-udevd did not start"
fi
read -r up _ </proc/uptime
echo "ORCA-GUEST-START: uptime ${up}s"
cd "$work" || finish 252
if [ -n "$cmd" ] && [ -f "$cmd" ]; then
	if [ -x /bin/bash ]; then
		/bin/bash "$cmd" </dev/null
	else
		/bin/sh "$cmd" </dev/null
	fi
	rc=$?
else
	echo "orca-guest-init: no command file '$cmd'"
	rc=251
fi
if [ "$dmesg" = 1 ] && [ -d "$run/g$index" ]; then
	kml=/sys/kernel/debug/kmemleak
	if [ -w "$kml" ]; then
		echo scan >"$kml"
		$bb cat "$kml" >"$run/g$index/kmemleak"
	fi
	$bb dmesg >"$run/g$index/dmesg"
	# Full paths: this shell runs busybox's own tc and ip for bare names.
	{
		/usr/sbin/tc -s qdisc show dev eth0
		/usr/bin/ip -s -s link show dev eth0
	} >"$run/g$index/netstack" 2>&1
fi
finish "$rc"
