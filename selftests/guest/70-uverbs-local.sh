#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest, four scripts in one boot (in-guest/sequence.sh):
#  - in-guest/uverbs-devinfo.sh: ibv_devices and ibv_devinfo -v on orca_0
#    through the ORCA provider, checked against the kernel's view, and a
#    user MR as large as the guest allows on fragmented memory;
#  - in-guest/uverbs-wrid.sh: the provider's own wr_id records: one SRQ
#    on two CQs polled out of order, and the adapter's "wrid-lie" and
#    "garbage-cqe" faults under user traffic;
#  - in-guest/uverbs-hostile.sh: hostile driver data in uverbs commands
#    against the orca driver, then rmmod under a process holding a context;
#  - in-guest/uverbs-teardown.sh: a process with live userspace verbs
#    objects is killed in mid-traffic, and the driver is unloaded under
#    another.
# The adapter holds no object at any of the driver's resets (each load's
# and each unload's).
# (Until 2026-12 these were 70-uverbs-devinfo, 71-uverbs-hostile and
# 78-uverbs-teardown, a boot each; the cases keep their names.)
# lane: solo
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 1 900 -- selftests/guest/in-guest/sequence.sh \
	uverbs-devinfo.sh uverbs-wrid.sh uverbs-hostile.sh uverbs-teardown.sh
rc=$?
host_resets_empty
host_done $rc
