#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest, three orca_kverbs suites in one boot (in-guest/kverbs.sh):
#  - "objects": the verbs objects' control path as a kernel consumer sees
#    it (handles, query round trips, errors);
#  - "datapath": data moved by the adapter between two of its own QPs: RC
#    send/write/read/atomics, UD, SRQ, FRWR, completion events and error
#    completions, every byte checked.  The adapter lies about every CQE's
#    wr_id meanwhile (KVERBS_WRID_LIE): the driver must report the wr_ids
#    that were posted;
#  - "limits": every object created at each advertised maximum (must work)
#    and one past it (must fail), and the attributes the kernel ULPs depend
#    on.
# (Until 2026-12 these were 25-kverbs-objects, 26-kverbs-datapath and
# 28-kverbs-limits, a boot each; the cases keep their names.)
# lane: solo
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 1 600 -- env KVERBS_WRID_LIE=1 \
	selftests/guest/in-guest/kverbs.sh objects datapath limits
