#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# orca-launch (emulator/launch/) without guests, as KTAP: its help and
# usage errors; the errors a user meets (a missing binary, a directory too
# long for unix sockets, a bad MAC or size, a socket some other process
# holds, a directory running other settings); up, status, a second up
# that keeps what runs, run, down; each output format says the same
# arguments (the qemu line as a shell reads it, vng's as vng's own shell
# reads it again, the libvirt XML, json); and make -C emulator install
# with DESTDIR and PREFIX, whose launcher runs the programs installed
# beside it.  selftests/guest/91-launch.sh boots guests with the packaged
# launcher.  Runs inside the toolroot, after make emulator.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/out/launch-test
rm -rf "$out"
mkdir -p "$out"
L=$top/emulator/launch/orca-launch
emu=$top/emulator/build/orca-emu
wire=$top/emulator/build/orca-wire
bins=(--emu "$emu" --wire "$wire")
d=$out/d

. "$top/selftests/lib/host/ktap-result.sh"

# expect RC NAME PATTERN CMD...: CMD exits RC and its output matches PATTERN
# (grep -E); the output stays in $out/<n>.log.
expect() {
	local want=$1 name=$2 pat=$3 log rc
	shift 3
	log=$out/$((n + 1)).log
	"$@" >"$log" 2>&1
	rc=$?
	echo "exit $rc" >>"$log"
	[ "$rc" = "$want" ] && grep -qE -- "$pat" "$log"
	result $? "$name" "$log"
}

pids_of() { sed -n 's/.* running pid \([0-9]*\) .*/\1/p' "$1" | sort; }
# A process that has exited, and that its parent (init, for a daemon
# whose launcher is gone) has not reaped yet, is no process left.
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $s != Z* ]]; }

cleanup() {
	"$L" down --dir "$d" -q >/dev/null 2>&1
	"$L" down --dir "$out/inst" -q >/dev/null 2>&1
	[ -n "${foreign:-}" ] && kill "$foreign" 2>/dev/null
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..24"
expect 0 "--help names every command" 'up +start.*' "$L" --help
grep -qE '^  (args|run|status|down|check) ' "$out/$n.log"
result $? "--help: args, run, status, down, check" "$out/$n.log"
expect 2 "no command: usage error" 'usage: orca-launch' "$L"
expect 2 "unknown option: usage error" 'unrecognized arguments: --bogus' \
	"$L" up --dir "$d" --bogus
expect 1 "a missing orca-emu is named" '/nonexistent/orca-emu: not an executable' \
	"$L" up --dir "$d" --emu /nonexistent/orca-emu --wire "$wire"
# A launcher alone (no programs beside it) and a PATH without them.
mkdir -p "$out/alone" && cp "$L" "$out/alone/"
expect 1 "no orca-emu beside it or in PATH" 'orca-emu not found .* --emu PATH' \
	env PATH=/usr/bin:/bin "$out/alone/orca-launch" up --dir "$d"
expect 1 "a directory too long for unix sockets" 'too long for unix sockets.*at most 107' \
	"$L" up --dir "$out/$(printf 'x%.0s' $(seq 100))" "${bins[@]}"
expect 1 "a multicast --mac-base" 'multicast' \
	"$L" up --dir "$d" --mac-base 01:00:5e:00:00:01 "${bins[@]}"
expect 1 "--mem without a unit (QEMU would read bytes)" 'with a unit' \
	"$L" up --dir "$d" --mem 1024 "${bins[@]}"

expect 0 "up: the wire and two adapters" '^# guest 1: MAC 52:54:00:12:34:02' \
	"$L" up --dir "$d" --guests 2 --mac-base 52:54:00:12:34:01 --mem 512M "${bins[@]}"
up_log=$out/$n.log
expect 0 "status: all three run" "guest 1 +running pid [0-9]+ exe $emu " \
	"$L" status --dir "$d"
pids1=$(pids_of "$out/$n.log")
expect 0 "up again keeps what runs" 'guest 1: adapter already running' \
	"$L" up --dir "$d" --guests 2 --mac-base 52:54:00:12:34:01 --mem 512M "${bins[@]}" --format none
"$L" status --dir "$d" >"$out/status2.log" 2>&1
[ "$(pids_of "$out/status2.log")" = "$pids1" ] && [ "$(wc -l <<<"$pids1")" = 3 ]
result $? "the same three processes after the second up" "$out/status2.log"
expect 1 "up with other settings while it runs" 'runs another setup.*down --dir' \
	"$L" up --dir "$d" --guests 3 "${bins[@]}"

# The formats.  Guest 1's qemu line, as a shell reads it, is the reference.
line=$(sed -n '/^# guest 1:/{n;p;q}' "$up_log")
eval "ref=($line)"
python3 - "$L" "$d" "${ref[@]}" >"$out/formats.log" 2>&1 <<'EOF'
import json, shlex, subprocess, sys
import xml.etree.ElementTree as ET
L, d, ref = sys.argv[1], sys.argv[2], sys.argv[3:]
def args(fmt):
    return subprocess.run([L, 'args', '--dir', d, '--guest', '1', '--format',
                           fmt], check=True, capture_output=True,
                          text=True).stdout
bad = []
mem = ['-object', 'memory-backend-memfd,id=orca-ram,size=512M,share=on',
       '-machine', 'memory-backend=orca-ram']
if ref[:4] != mem:
    bad.append(f'qemu: no shared 512M memfd first: {ref[:4]}')
dev = json.loads(ref[ref.index('-device', 4) + 3])
if dev != {'driver': 'vfio-user-pci',
           'socket': {'type': 'unix', 'path': f'{d}/g1/adapter.sock'}}:
    bad.append(f'qemu: adapter {dev}')
if f'virtio-net-pci,netdev=orca-net,mac=52:54:00:12:34:02' not in ref:
    bad.append('qemu: no virtio-net with guest 1\'s MAC')
nd = ref[ref.index('-netdev') + 1]
if f'remote.path={d}/g1/nic.sock' not in nd or \
   f'local.path={d}/g1/qemu-nic.sock' not in nd:
    bad.append(f'qemu: netdev not on the adapter\'s port: {nd}')
if shlex.split(args('qemu')) != ref:
    bad.append('args --format qemu differs from up\'s line')
j = json.loads(args('json'))
if j['qemu_args'] != ref or j['mac'] != '52:54:00:12:34:02':
    bad.append(f'json: {j}')
# vng: the user's shell, then vng's own (it joins --qemu-opts into a
# shell command line for virtme-run).
v = shlex.split(args('vng'))
opts = [a for a in v if a.startswith('--qemu-opts=')]
if v[:4] != ['--memory', '512M', '--numa', '512M'] or \
   '--disable-microvm' not in v or len(opts) != 1 or \
   shlex.split(opts[0][len('--qemu-opts='):]) != ref[4:]:
    bad.append(f'vng: {v}')
x = ET.fromstring('<d xmlns:qemu="q">' + args('libvirt') + '</d>')
if [e.get('value') for e in x.iter('{q}arg')] != ref[4:] or \
   x.find('memoryBacking/source').get('type') != 'memfd' or \
   x.find('memoryBacking/access').get('mode') != 'shared':
    bad.append('libvirt: ' + args('libvirt'))
print('\n'.join(bad) or 'all formats agree')
sys.exit(1 if bad else 0)
EOF
result $? "qemu, vng, libvirt and json say the same arguments" "$out/formats.log"
expect 0 "run: the QEMU command runs" '^exit 0' \
	"$L" run --dir "$d" --guest 1 -- sh -c 'printf "%s\n" "$@" >"$0"' "$out/run-args"
[ "$(cat "$out/run-args")" = "$(printf '%s\n' "${ref[@]}")" ]
result $? "run: exactly those arguments" "$out/run-args"

expect 0 "down" 'wire: stopped pid' "$L" down --dir "$d"
alive=0
for p in $pids1; do alive "$p" && alive=$((alive + 1)); done
ls "$d"/wire.sock "$d"/g*/*.sock >"$out/socks.log" 2>&1
[ "$alive" = 0 ] && ! grep -q '\.sock$' "$out/socks.log"
result $? "down: no process left ($alive), no socket left" "$out/socks.log"
expect 3 "status after down: exit 3, the adapters' last words" 'guest 0 +not running.*exit 0' \
	"$L" status --dir "$d"
expect 1 "run with its adapter down" 'not running .*up --dir' \
	"$L" run --dir "$d" --guest 0 -- true

# A socket of the directory held by a process the launcher did not start.
mkdir -p "$out/f"
"$wire" --socket "$out/f/wire.sock" --log "$out/f/foreign.log" &
foreign=$!
for _ in $(seq 100); do [ -S "$out/f/wire.sock" ] && break; sleep 0.05; done
expect 1 "a socket in use by another process" 'wire.sock is in use by a process' \
	"$L" up --dir "$out/f" "${bins[@]}"
alive "$foreign"
result $? "that process is left alone"

# make install: DESTDIR and PREFIX; the installed launcher runs the
# installed programs (found beside it).
make -s -C emulator install DESTDIR="$out/root" PREFIX=/opt/o >"$out/install.log" 2>&1 &&
	"$out/root/opt/o/bin/orca-launch" up --dir "$out/inst" --format none -q >>"$out/install.log" 2>&1 &&
	"$out/root/opt/o/bin/orca-launch" status --dir "$out/inst" >>"$out/install.log" 2>&1 &&
	[ -f "$out/root/opt/o/share/man/man1/orca-launch.1" ] &&
	grep -q "guest 0 *running pid [0-9]* exe $out/root/opt/o/bin/orca-emu " "$out/install.log"
result $? "make install DESTDIR PREFIX: the launcher runs what it installed" "$out/install.log"

[ "$failed" = 0 ]
