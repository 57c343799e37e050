#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in N QEMU/TCG guests connected by the virtual wire, each with
# an ORCA adapter (an orca-emu process serving a vfio-user-pci device) whose
# Ethernet port sits between the guest's virtio-net and the wire switch.
# See Documentation/orca/topology.rst.
#
# Usage: scripts/guests/run-guests.sh [-n N] [-t TIMEOUT] [--pcap FILE]
#            [--wire-opts "OPTS"] [--emu-opts "OPTS"] [--out DIR] [--no-orca]
#            [--guest-opts I:OPT[,OPT...]]... [--smp N] [--mem SIZE]
#            [--kernel-checks] [--launcher PATH] [--udev] [--p2p]
#            [--uplinks IF0,IF1] -- CMD...
#
#   -n N            number of guests (default 2)
#   -t TIMEOUT      seconds for the whole run, boot included (default 300)
#   --pcap FILE     capture every frame the wire switch forwards
#   --wire-opts     extra orca-wire options, e.g. "--drop-pct 5 --seed 1"
#   --emu-opts      extra options of every orca-emu, e.g. "--ecn"
#   --out DIR       run directory (default <repo>/out/run-<timestamp>); must
#                   be inside the repo, which the guests see at the same path
#   --no-orca       no ORCA adapter in any guest: virtio-net goes straight
#                   to the wire switch
#   --guest-opts I:OPTS  per-guest options; OPTS: no-orca
#   --smp N, --mem SIZE  vCPUs (default 1) and RAM (default 1G) per guest
#   --kernel-checks the guests boot with the allocator's debugging on
#                   (slub_debug=FZP page_poison=1, KFENCE sampling every
#                   100 ms) and save their kernel log in
#                   g<I>/dmesg when CMD ends, for the caller to check (make
#                   check does, selftests/lib/host/host.sh; make bench does
#                   not: the options cost time)
#   --launcher PATH the wire and the adapters are not ours: orca-launch
#                   at PATH (the packaged one: 91-launch) starts them in
#                   the run directory, and each guest's RAM, NIC and
#                   adapter are the QEMU arguments its "up" printed, in
#                   place of ours; every guest has an adapter
#   --udev          systemd-udevd runs in every guest from before CMD (make
#                   blktests: suites written for a normal system wait on
#                   it); see scripts/guests/guest-init.sh
#   --p2p           no switch: the two guests' adapters are joined by a
#                   point-to-point link (orca-emu --peer); two guests with
#                   ORCA, without --pcap, --wire-opts or --launcher
#   --uplinks IF0,IF1  two switches: the even guests on one, whose uplink
#                   (orca-wire --uplink) is host interface IF0, the odd
#                   ones on another with IF1 (its log wire1.log); they
#                   reach each other only through whatever joins IF0 and
#                   IF1 (the caller's bridge: 65-fabric-uplink)
#
# Every guest runs CMD (from the repo directory, by /bin/sh) with
# ORCA_GUEST_INDEX, ORCA_GUEST_COUNT, ORCA_CTL (its emulator's control file,
# empty without an adapter), ORCA_WORK (the repo) and ORCA_RUN_DIR (the run
# directory, shared by all guests) in its environment.  The exit
# status is the first non-zero guest status (255: no status, e.g. a crash
# or the timeout), else 0.
#
# Environment: ORCA_NO_BUILD=1 uses emulator/build as it is (no make).
# ORCA_GUEST_KERNEL=DIR boots the kernel of scripts/debug-kernel.sh's cache
# directory DIR (vmlinuz, kernelrelease, root/lib/modules/) instead of the
# toolroot's; ORCA_TIMEOUT_SCALE=N multiplies the timeout (a debug kernel
# under TCG is several times slower); ORCA_PROVIDER_PRIVATE=1 has the guests
# load the provider of this checkout's out/provider/ (provider-build.sh).
#
# Runs inside the toolroot; re-executes itself there when started outside.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

# The toolroot's own root carries its recipe hash: we may already be inside.
[ -f /.orca-recipe ] && ORCA_IN_TOOLROOT=1
if [ "${ORCA_IN_TOOLROOT:-}" != 1 ]; then
	# toolroot.sh does not pass signals into the chroot, so run it as a
	# process group of its own and forward INT/TERM/HUP to the whole group:
	# killing this script by PID then still stops every guest.
	caller=$PWD
	cd "$repo" || exit 1
	setsid "$repo/scripts/toolroot.sh" --run env ORCA_IN_TOOLROOT=1 \
		ORCA_NO_BUILD="${ORCA_NO_BUILD:-}" ORCA_CACHE="${ORCA_CACHE:-}" \
		ORCA_GUEST_KERNEL="${ORCA_GUEST_KERNEL:-}" \
		ORCA_TIMEOUT_SCALE="${ORCA_TIMEOUT_SCALE:-}" \
		ORCA_PROVIDER_PRIVATE="${ORCA_PROVIDER_PRIVATE:-}" \
		ORCA_CALLER_PWD="$caller" \
		"scripts/guests/run-guests.sh" "$@" &
	child=$!
	# An async command starts with SIGINT ignored, and bash cannot trap a
	# signal ignored at entry: the group always gets SIGTERM.
	sig=''
	trap 'sig=130; kill -TERM -- -$child 2>/dev/null' INT
	trap 'sig=143; kill -TERM -- -$child 2>/dev/null' TERM HUP
	while :; do
		wait "$child"
		rc=$?
		kill -0 "$child" 2>/dev/null || exit "${sig:-$rc}"
	done
fi

usage() {
	sed -n '/^# Usage:/,/^# Runs inside/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

count=2 timeout=300 pcap='' wire_opts='' emu_opts='' out='' all_no_orca=0 smp=1 mem=1G
kernel_checks=0 launcher='' udev=0 p2p=0 uplinks=

declare -A gopts=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) count=$2; shift 2 ;;
	-t) timeout=$2; shift 2 ;;
	--pcap) pcap=$2; shift 2 ;;
	--wire-opts) wire_opts=$2; shift 2 ;;
	--emu-opts) emu_opts=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--no-orca) all_no_orca=1; shift ;;
	--guest-opts)
		[[ $2 == *:* ]] || usage
		gopts[${2%%:*}]+=",${2#*:}"; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--kernel-checks) kernel_checks=1; shift ;;
	--launcher) launcher=$2; shift 2 ;;
	--udev) udev=1; shift ;;
	--p2p) p2p=1; shift ;;
	--uplinks) uplinks=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "run-guests: unknown option $1" >&2; usage ;;
	esac
done
[ $# -gt 0 ] || usage
[[ $count =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le 32 ] || usage
[[ $timeout =~ ^[0-9]+$ ]] || usage
[[ ${ORCA_TIMEOUT_SCALE:-1} =~ ^[1-9][0-9]*$ ]] || usage
timeout=$((timeout * ${ORCA_TIMEOUT_SCALE:-1}))

log() { echo "run-guests: $*" >&2; }

# Relative paths are the caller's, not the repo's (where we run now).
abspath() {
	case $1 in
	/*|'') echo "$1" ;;
	*) echo "${ORCA_CALLER_PWD:-$PWD}/$1" ;;
	esac
}
pcap=$(abspath "$pcap")
out=$(abspath "$out")
[ -n "$launcher" ] && launcher=$(abspath "$launcher")
if [ -n "$launcher" ] && { [ "$all_no_orca" = 1 ] || [ ${#gopts[@]} -gt 0 ]; }; then
	log "--launcher gives every guest an adapter: no --no-orca or --guest-opts"
	exit 2
fi
# The launcher starts the adapters itself: it would drop them silently.
if [ -n "$launcher" ] && [ -n "$emu_opts" ]; then
	log "--launcher starts its own adapters: no --emu-opts"
	exit 2
fi

for i in "${!gopts[@]}"; do
	[[ $i =~ ^[0-9]+$ ]] && [ "$i" -lt "$count" ] ||
		{ log "--guest-opts: no guest $i"; exit 2; }
	IFS=, read -ra opts <<<"${gopts[$i]#,}"
	for o in "${opts[@]}"; do
		case $o in
		no-orca) ;;
		*) log "--guest-opts: unknown option '$o'"; exit 2 ;;
		esac
	done
done

no_orca() {	# guest $1 has no adapter?
	[ "$all_no_orca" = 1 ] || [[ ${gopts[$1]:-} == *,no-orca* ]]
}

if [ "$p2p" = 1 ] && { [ "$count" != 2 ] || [ -n "$pcap$wire_opts$launcher" ] ||
	no_orca 0 || no_orca 1; }; then
	log "--p2p: two guests with ORCA, no --pcap, --wire-opts or --launcher"
	exit 2
fi

if [ -n "$uplinks" ] && { [[ $uplinks != ?*,?* ]] || [ "$p2p" = 1 ] ||
	[ -n "$launcher" ]; }; then
	log "--uplinks IF0,IF1: two interfaces, without --p2p or --launcher"
	exit 2
fi

out=${out:-$repo/out/run-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
case $out/ in
"$repo"/*) ;;
*) log "--out must be inside $repo (the guests' work share)"; exit 2 ;;
esac

emu=$repo/emulator/build/orca-emu
wire=$repo/emulator/build/orca-wire
qemu='qemu-system-x86_64'
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -n 1)
modules=''
if [ -n "${ORCA_GUEST_KERNEL:-}" ]; then
	kernel=$ORCA_GUEST_KERNEL/vmlinuz
	modules=$ORCA_GUEST_KERNEL/root/lib/modules/$(cat "$ORCA_GUEST_KERNEL/kernelrelease") ||
		exit 1
	[ -f "$kernel" ] && [ -d "$modules" ] ||
		{ log "ORCA_GUEST_KERNEL: no kernel or modules in $ORCA_GUEST_KERNEL"; exit 1; }
fi

pids=()		# everything we started, killed on every exit path
adapter_pid=()	# guest I's orca-emu
sockets=()
launched=0
cleanup() {
	local p
	trap - EXIT INT TERM
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		# give each a moment, then make sure
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -f "${sockets[@]}"
	# The launcher's daemons, by the launcher (it kills by its pid files).
	[ "$launched" = 1 ] && "$launcher" down --dir "$out" -q >>"$out/launch.log" 2>&1
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

# Wait until socket file $1 exists while process $2 lives.
wait_socket() {
	local i
	for ((i = 0; i < 500; i++)); do
		[ -S "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# adapter_start I WIRE_OPT PATH: guest I's orca-emu, its port on the
# switch (--switch) or on the other adapter's port (--peer);
# adapter_pid[I] is its pid.  $mac_fmt must be set.
adapter_start() {
	local g=$out/g$1
	mkdir -p "$g"
	: >"$g/ctl"
	sockets+=("$g/adapter.sock" "$g/nic.sock" "$g/wire.sock")
	# shellcheck disable=SC2059 # the format is ours
	"$emu" --socket "$g/adapter.sock" --mac "$(printf "$mac_fmt" $(($1 + 1)))" \
		--nic "$g/nic.sock" --nic-peer "$g/qemu-nic.sock" \
		--wire "$g/wire.sock" "$2" "$3" $emu_opts \
		--ctl "$g/ctl" --log "$g/emu.log" </dev/null \
		>>"$g/emu.log" 2>&1 &
	pids+=($!)
	adapter_pid[$1]=$!
}

need_emu=0
for ((i = 0; i < count; i++)); do
	no_orca "$i" || need_emu=1
done
# make decides whether anything changed since the last run.
targets=(build/orca-wire)
[ "$need_emu" = 1 ] && targets+=(build/orca-emu)
[ "${ORCA_NO_BUILD:-}" = 1 ] || [ -n "$launcher" ] ||
	make -s -C "$repo/emulator" -j2 "${targets[@]}" >&2 ||
	{ log "emulator build failed"; exit 1; }
initrd=$("$here/guest-initramfs.sh") || { log "initramfs build failed"; exit 1; }

# The command, as a script on the work share (bash: %q quoting).
{
	echo "#!/bin/bash"
	# The guests' own waits (flag_wait, wait_for) stretch with the run's.
	[ -n "${ORCA_TIMEOUT_SCALE:-}" ] &&
		echo "export ORCA_TIMEOUT_SCALE=$ORCA_TIMEOUT_SCALE"
	# A checkout's own provider (provider-build.sh, ORCA_PROVIDER_PRIVATE=1)
	# before the toolroot's: libibverbs loads RDMAV_DRIVERS first.
	[ "${ORCA_PROVIDER_PRIVATE:-}" = 1 ] &&
		echo "export RDMAV_DRIVERS=$repo/out/provider/liborca"
	printf '%q ' "$@"
	echo
} >"$out/cmd.sh"

# The wire.  Slower guests (ORCA_TIMEOUT_SCALE) get as much more time to
# read a full socket before the switch gives up on them: a debug-kernel
# guest under TCG was seen to leave its queue full for longer than the
# switch's usual wait (wire_link_policy_qemu).
switch_sock=$out/wire.sock
wire_args=(--qemu-wait-scale "${ORCA_TIMEOUT_SCALE:-1}" ${pcap:+--pcap "$pcap"})
if [ -n "$launcher" ]; then
	# The launcher's MACs are not our usual ones (52:54:00:0d:ca:..):
	# a launcher that ignored --mac-base would not pass.
	mac_fmt='52:54:00:0d:cb:%02x'
	launched=1
	"$launcher" up --dir "$out" --guests "$count" --mem "$mem" \
		--mac-base "$(printf "$mac_fmt" 1)" \
		--wire-opts="${wire_args[*]} $wire_opts" \
		>"$out/launch.txt" 2>"$out/launch.log" </dev/null ||
		{ log "$launcher up failed:"; cat "$out/launch.log" >&2; exit 1; }
	"$launcher" status --dir "$out" >"$out/launch-status.txt" 2>&1 ||
		{ log "$launcher status: not all up:"; cat "$out/launch-status.txt" >&2; exit 1; }
elif [ "$p2p" = 1 ]; then
	# Each adapter's wire is the other's port; both start now, since
	# each waits for the other (topology.rst, point-to-point links).
	mac_fmt='52:54:00:0d:ca:%02x'
	for i in 0 1; do
		adapter_start "$i" --peer "$out/g$((1 - i))/wire.sock"
	done
else
	mac_fmt='52:54:00:0d:ca:%02x'
	sockets+=("$switch_sock")
	# shellcheck disable=SC2086
	"$wire" --socket "$switch_sock" --log "$out/wire.log" \
		"${wire_args[@]}" ${uplinks:+--uplink "${uplinks%%,*}"} \
		$wire_opts </dev/null &
	pids+=($!)
	wait_socket "$switch_sock" $! || { log "orca-wire did not start:"; tail -n 20 "$out/wire.log" >&2; exit 1; }
	if [ -n "$uplinks" ]; then
		# The odd guests' switch, on the other uplink (the capture
		# is the first switch's, which sees all that crosses).
		sockets+=("$out/wire1.sock")
		# shellcheck disable=SC2086
		"$wire" --socket "$out/wire1.sock" --log "$out/wire1.log" \
			--qemu-wait-scale "${ORCA_TIMEOUT_SCALE:-1}" \
			--uplink "${uplinks#*,}" \
			$wire_opts </dev/null &
		pids+=($!)
		wait_socket "$out/wire1.sock" $! || { log "orca-wire 1 did not start:"; tail -n 20 "$out/wire1.log" >&2; exit 1; }
	fi
fi

qemu_pids=()
# guest_switch I: the switch guest I is on (--uplinks: odd ones on wire1).
guest_switch() {
	if [ -n "$uplinks" ] && [ $(($1 % 2)) = 1 ]; then
		echo "$out/wire1.sock"
	else
		echo "$switch_sock"
	fi
}

emu_pids=()	# the launcher's, for the stuck report only
start=$(date +%s)
for ((i = 0; i < count; i++)); do
	g=$out/g$i
	mkdir -p "$g"
	# shellcheck disable=SC2059 # the format is ours
	mac=$(printf "$mac_fmt" $((i + 1)))
	qemu_nic=$g/qemu-nic.sock
	sockets+=("$qemu_nic" "$g/qmp.sock")
	ctl=
	dev=()
	# RAM: shared (a memfd), for the adapter to reach by DMA.
	machine=(-machine q35,memory-backend=mem
		-object "memory-backend-memfd,id=mem,size=$mem,share=on")
	if [ -n "$launcher" ]; then
		# What the launcher printed after "# guest I:", as a user
		# pasting it into a shell would take it (it is shell-quoted).
		line=$(sed -n "/^# guest $i:/{n;p;q}" "$out/launch.txt")
		[ -n "$line" ] || { log "$launcher up printed nothing for guest $i"; exit 1; }
		eval "dev=($line)" || { log "guest $i: cannot parse: $line"; exit 1; }
		machine=(-machine q35)
		nic=()
		ctl=$g/ctl
		p=$(cat "$g/emu.pid" 2>/dev/null) && emu_pids+=("$p")
	elif no_orca "$i"; then
		# virtio-net straight onto the wire
		nic_remote=$(guest_switch "$i")
	else
		[ "$p2p" = 1 ] || adapter_start "$i" --switch "$(guest_switch "$i")"
		ctl=$g/ctl
		wait_socket "$g/adapter.sock" "${adapter_pid[$i]}" ||
			{ log "orca-emu $i did not start:"; tail -n 40 "$g/emu.log" >&2; exit 1; }
		nic_remote=$g/nic.sock
		dev=(-device "{\"driver\":\"vfio-user-pci\",\"socket\":{\"path\":\"$g/adapter.sock\",\"type\":\"unix\"}}")
	fi
	[ -n "$launcher" ] ||
		nic=(-netdev "dgram,id=wire,local.type=unix,local.path=$qemu_nic,remote.type=unix,remote.path=$nic_remote"
			-device "virtio-net-pci,netdev=wire,mac=$mac")
	# nokaslr: the kernel's addresses are those of any guest's
	# /proc/kallsyms, so a stuck-report.txt's RIP can be named.
	append="console=ttyS0 quiet panic=-1 no_timer_check mitigations=off nokaslr"
	append+=" orca.index=$i orca.count=$count"
	append+=" orca.mac=$mac orca.work=$repo orca.cmd=$out/cmd.sh orca.run=$out"
	[ -n "$ctl" ] && append+=" orca.ctl=$ctl"
	[ -n "$modules" ] && append+=" orca.modules=$modules"
	[ "$udev" = 1 ] && append+=" orca.udev=1"
	# The debug kernel with 5-level paging (-cpu max has LA57) reported
	# "KASAN: wild-memory-access in do_raw_spin_lock" at 0.005 s in 3
	# boots of 10: an IRQ taken inside identify_cpu() while it re-reads
	# the CPU's features, on a direct-map address of 5-level paging
	# (ff11...).  Most likely the IRQ saw LA57 cleared meanwhile; a kernel
	# bug outside ORCA either way, and 4-level paging avoids that path.
	[ -n "${ORCA_GUEST_KERNEL:-}" ] && append+=" no5lvl"
	# Debian's kernel has SLUB_DEBUG and PAGE_POISONING built but off, and
	# KFENCE with a sample interval of 0 (off).  log_buf_len: the whole
	# run's log must still be there when guest-init saves it.
	# Not U (SLUB's allocation and free traces, a stack walk and a
	# stack-depot lookup on every kmalloc and kfree: a fifth of a
	# network-heavy guest test's time under TCG) nor init_on_free=1 (page
	# and slab poisoning take precedence over it: "heap free:off"): what
	# detects stays, the traces that would only explain a report go.
	[ "$kernel_checks" = 1 ] && append+=" slub_debug=FZP page_poison=1 kfence.sample_interval=100 log_buf_len=4M orca.dmesg=1"
	"$qemu" -accel tcg "${machine[@]}" -cpu max \
		-smp "$smp" -m "$mem" \
		-nodefaults -no-user-config -display none -vga none \
		-monitor none -serial "file:$g/console.log" -no-reboot \
		-qmp "unix:$g/qmp.sock,server=on,wait=off" \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		"${nic[@]}" \
		-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$repo,mount_tag=work,security_model=none,multidevs=remap" \
		"${dev[@]}" </dev/null >"$g/qemu.log" 2>&1 &
	pids+=($!)
	qemu_pids+=($!)
done

# Wait for every guest, or the timeout.
sleep "$timeout" &
timer=$!
pids+=("$timer")
declare -A running=()
for p in "${qemu_pids[@]}"; do running[$p]=1; done
while [ ${#running[@]} -gt 0 ]; do
	done_pid=
	wait -n -p done_pid "${!running[@]}" "$timer"
	if [ "$done_pid" = "$timer" ]; then
		log "timeout after ${timeout}s; still running: QEMU pid(s) ${!running[*]}"
		# What each process and vCPU was doing, before cleanup kills them.
		"$here/stuck-report.py" "$out" "${pids[@]:0:${#pids[@]}-1}" "${emu_pids[@]}" \
			>"$out/stuck-report.txt" 2>&1
		log "what the run was doing: $out/stuck-report.txt"
		break
	fi
	[ -n "$done_pid" ] && unset "running[$done_pid]"
done
log "guests done after $(($(date +%s) - start))s"

# Collect the statuses from the consoles.
status=0
failed=()
for ((i = 0; i < count; i++)); do
	g=$out/g$i
	rc=$(sed -n 's/^ORCA-GUEST-EXIT: \([0-9]*\).*/\1/p' "$g/console.log" 2>/dev/null | tail -n 1)
	[ -n "$rc" ] || rc=255
	echo "$rc" >"$g/status"
	log "guest $i: exit $rc$(sed -n 's/^ORCA-GUEST-START: uptime \(.*\)/ (command started at \1)/p' "$g/console.log" 2>/dev/null | tail -n 1)"
	if [ "$rc" != 0 ]; then
		failed+=("$i")
		[ "$status" = 0 ] && status=$rc
	fi
done
for i in "${failed[@]}"; do
	g=$out/g$i
	echo "===== guest $i: last 40 lines of $g/console.log" >&2
	tail -n 40 "$g/console.log" >&2 2>/dev/null
	if [ -f "$g/emu.log" ]; then
		echo "===== guest $i: last 40 lines of $g/emu.log" >&2
		tail -n 40 "$g/emu.log" >&2
	fi
	if [ -s "$g/qemu.log" ]; then
		echo "===== guest $i: $g/qemu.log" >&2
		tail -n 20 "$g/qemu.log" >&2
	fi
done
log "output in $out"
exit "$status"
