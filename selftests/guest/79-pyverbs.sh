#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: rdma-core's pyverbs suite on orca_0, each test a case
# (in-guest/pyverbs.sh): a failure, an error, or a skip of a test that
# pyverbs-expected-skips.txt does not list, fails.  Then the suite on rxe0
# in the same guest, both results side by side in the log, a table per
# module, and one case: what passes on rxe passes on ORCA (but what
# pyverbs-rxe-only.txt leaves to other issues).
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 1 1800 -- selftests/guest/in-guest/pyverbs.sh orca rxe
host_done $?
