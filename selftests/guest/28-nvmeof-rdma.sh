#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests: NVMe over Fabrics (RDMA) from one guest's ramdisk to the other
# through the orca adapters, 8 MiB written and read back byte for byte.
. "$(dirname "$0")/lib/host.sh"
run_guests 2 400 -- selftests/guest/in-guest/nvmeof.sh
