#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma-core's pyverbs suite on orca_0, each test a case
# (in-guest/pyverbs.sh): a failure, an error, or a skip of a test that
# pyverbs-expected-skips.txt does not list, fails.  The same suite runs on
# rxe0 in a second guest (no adapter) at the same time; both results side
# by side in the log, a table per module, and one case: what passes on rxe
# passes on ORCA (but what pyverbs-rxe-only.txt leaves to other issues).
. "$(dirname "$0")/../lib/host/host.sh"
# test_odp registers its MRs on demand (issue 34): READ responses and
# atomic results that fault are dropped and asked for again.
wire_odp
# --isolate: both run the same tests, with the same multicast groups.
run_guests 2 1800 --wire-opts --isolate --guest-opts 1:no-orca -- \
	selftests/guest/in-guest/pyverbs.sh
host_done $?
