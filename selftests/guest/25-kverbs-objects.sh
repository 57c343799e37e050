#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the orca_kverbs "objects" suite, the verbs objects' control
# path as a kernel consumer sees it (handles, query round trips, errors).
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/kverbs.sh objects
