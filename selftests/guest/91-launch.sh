#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ORCA in anyone's CI (issue 30): the orca-emulator package of make deb,
# unpacked into a scratch root, and nothing else of this tree on the host
# side.  Its orca-launch starts the wire and two adapters (its own
# orca-emu and orca-wire, found beside it), and the two guests boot with
# the project's usual kernel, initramfs and root file system plus exactly
# the QEMU arguments "orca-launch up" printed for each (run-guests.sh
# --launcher).  In the guests (in-guest/launch.sh): orca_0 appears, pairs
# with the launcher's NIC, and ibv_rc_pingpong -c carries checked data
# between them.  A wrong memory backend (no shared RAM), NIC
# (another MAC, or not linked to the adapter's port) or adapter socket in
# the launcher's output fails a case.  On the host: the package holds the
# launcher and its manual page, the daemons that ran were the package's
# binaries, and "orca-launch down" left none running.
. "$(dirname "$0")/../lib/host/host.sh"
deb=$(ls out/deb/orca-emulator_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	echo "1..1"
	echo "ok 1 the packaged launcher boots guests # SKIP no orca-emulator package (make deb)"
	exit 0
fi
root=$(mktemp -d /tmp/orca-launch-root.XXXXXX)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
launch=$root/usr/bin/orca-launch

for f in usr/bin/orca-launch usr/bin/orca-emu usr/bin/orca-wire; do
	host_result "$([ -x "$root/$f" ] && echo OK || echo FAIL)" "the package has /$f"
done
f=usr/share/man/man1/orca-launch.1.gz
host_result "$([ -f "$root/$f" ] && echo OK || echo FAIL)" "the package has /$f"
"$launch" --help 2>&1 | grep -q 'orca-launch up --dir'
host_result "$([ $? = 0 ] && echo OK || echo FAIL)" "orca-launch --help from the package"

run_guests 2 300 --launcher "$launch" -- selftests/guest/in-guest/launch.sh
rc=$?

# The daemons the guests used were the package's: status, taken while
# they ran, names each one's executable.
st=$out/run/launch-status.txt
n=$(grep -c "running pid [0-9]* exe $root/usr/bin/orca-\(emu\|wire\) " "$st" 2>/dev/null)
host_result "$([ "$n" = 3 ] && echo OK || echo FAIL)" \
	"the wire and both adapters ran from the package ($n of 3)"
[ "$n" = 3 ] || sed 's/^/# /' "$st" 2>/dev/null
# run-guests stopped them with "orca-launch down" on its way out.
alive=0
for p in $(sed -n 's/.* running pid \([0-9]*\) .*/\1/p' "$st" 2>/dev/null); do
	[[ $(readlink "/proc/$p/exe" 2>/dev/null) == "$root"/* ]] && alive=$((alive + 1))
done
"$launch" status --dir "$out/run" >"$out/status-after.txt" 2>&1
src=$?
host_result "$([ "$alive" = 0 ] && [ "$src" = 3 ] && echo OK || echo FAIL)" \
	"orca-launch down stopped them ($alive left, status exit $src)"
host_done "$rc"
