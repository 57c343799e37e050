#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tier: long
# NVMe-oF over RDMA between two ORCA guests on a wire that drops 5% of the
# frames and reorders some: fio's crc32c verification still passes and both
# adapters recovered by retransmitting.
# The verify jobs are 1 MiB each (lossy mode): go-back-N repeats a lot of
# data at 5% loss under TCG.
# Long tier: 60-wire-faults has make check's lossy wire (every RC opcode
# of the kverbs remote suite, retransmissions counted).
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
wire_lossy "the switch drops and reorders 5% of the frames on purpose (--drop-pct 5 --reorder-pct 5)"
nvmeof_lossy=1
nvmeof_guest_test orca orca --wire-opts "--drop-pct 5 --reorder-pct 5 --seed 11"
