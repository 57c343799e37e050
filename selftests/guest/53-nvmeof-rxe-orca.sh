#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interoperability, rxe host and ORCA target: NVMe-oF over RDMA from a guest
# running Soft-RoCE to a guest with an ORCA adapter, fio crc32c
# verification, and a wire capture tshark decodes as RoCE.
# 52-nvmeof-orca-rxe is the reverse.
# The reverse of 52: make check keeps one direction of each protocol's
# interop with rxe, make check-long both.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
nvmeof_guest_test orca rxe
