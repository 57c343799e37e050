#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: 20 load/unload cycles of the orca driver, no warning, no leak.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 600 -- selftests/guest/in-guest/load-unload.sh
