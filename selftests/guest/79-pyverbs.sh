#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: rdma-core's pyverbs suite on orca_0, each test a case
# (in-guest/pyverbs.sh): a failure, an error, or a skip of a test that
# pyverbs-expected-skips.txt does not list, fails.  ORCA_PYVERBS_RXE=1
# adds the same suite on rxe0 as a reference for a failure's diagnosis:
# reported, not judged, so make check does not spend its two minutes on it.
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 1 1800 -- selftests/guest/in-guest/pyverbs.sh \
	orca ${ORCA_PYVERBS_RXE:+rxe-reference}
host_done $?
