#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the orca_kverbs "limits" suite: every object created at each
# advertised maximum (must work) and one past it (must fail), and the
# attributes the kernel ULPs depend on.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/kverbs.sh limits
