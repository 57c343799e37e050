#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests with ORCA adapters: NVMe-oF over RDMA from an orca host to an
# orca target, fio crc32c verification, and a wire capture tshark decodes
# as RoCE.  The same test as 50-nvmeof-rxe with the device kinds changed.
# 54-nvmeof-four runs it with three such hosts at once, with the same
# checks and the capture's: make check runs 54, make check-long this too.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
nvmeof_guest_test orca orca
