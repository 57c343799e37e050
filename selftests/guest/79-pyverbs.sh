#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: rdma-core's pyverbs suite on orca_0, each test a case, then
# on rxe0 as a reference (in-guest/pyverbs.sh).
. "$(dirname "$0")/lib/host.sh"
run_guests 1 1800 -- selftests/guest/in-guest/pyverbs.sh
host_done $?
