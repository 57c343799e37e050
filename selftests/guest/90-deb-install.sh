#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the packages of make deb install with dpkg on the guest's
# (stock distribution) kernel: DKMS installs orca.ko (built by
# selftests/tree/deb.sh on the host for the same kernel), modprobe of the
# adapter's PCI modalias loads it, and ibv_devices lists orca_0 through the
# installed provider.
# lane: solo
. "$(dirname "$0")/../lib/host/host.sh"
if ! ls out/deb/orca-dkms_*.deb >/dev/null 2>&1 || [ ! -f out/deb-test/orca-1.0.0.dkms.tar.gz ]; then
	echo "1..1"
	echo "ok 1 packages install in a guest # SKIP no packages (run selftests/tree/deb.sh)"
	exit 0
fi
run_guests 1 600 -- selftests/guest/in-guest/deb-install.sh
