#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Did a kernel ULP's connection run over RoCE?  Reads a wire capture with
tshark (once) and, for each protocol, finds the rdma_cm connections to its
port (CM REQ MADs on QP1 whose service ID carries the port), the QP
numbers the REQ and its REP named, and the RoCE packets addressed to
those QPs.  Headers and whole CM MADs are all it reads: a capture cut to
a snap length (orca-wire --pcap-snaplen 512) is enough.

Prints "ok NAME" / "fail NAME" lines (the caller turns them into test
cases) and other lines as comments.

Usage: ulp_pcap.py PCAP PROTO...     (PROTO: rds nfs srp iser smb)
"""
import collections
import subprocess
import sys

# rdma_cm port of each protocol, and the BTH opcodes (IBA table 38) its
# data must produce: SEND always; the storage protocols move data with
# RDMA WRITE and RDMA READ.
PROTOS = {
    "rds": (18634, ["send"]),
    "nfs": (20049, ["send", "write", "read"]),
    "srp": (5555, ["send", "write", "read"]),
    "iser": (3260, ["send", "write", "read"]),
    "smb": (445, ["send", "write", "read"]),
}
OPCODES = {"send": range(0, 6), "write": range(6, 12), "read": range(12, 13)}

FIELDS = [
    "ip.src", "ip.dst", "infiniband.bth.opcode", "infiniband.bth.destqp",
    "infiniband.cm.req.serviceid.dport", "infiniband.cm.req.localqpn",
    "infiniband.cm.rep.localqpn",
]


def num(v):
    v = v.split(",")[0]
    return int(v, 0) if v else None


def parse(line):
    f = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
    return f[0], f[1], [num(v) for v in f[2:]]


def tshark(pcap):
    cmd = ["tshark", "-r", pcap, "-Y", "infiniband", "-T", "fields"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         check=True).stdout
    return [parse(line) for line in out.splitlines()]


def check(packets, proto):
    port, want = PROTOS[proto]
    # tshark names no comm ID field in a REQ: a REP answers the latest REQ
    # that went the other way between the same two addresses.  The
    # protocols of a run connect one after another and QP numbers are
    # reused, so a connection's packets are those to its QPs from its REQ
    # up to the next REQ of another protocol.
    reqs = 0
    pending = {}    # (requester, responder) -> REQ was ours
    qpns = set()
    ops = collections.Counter()
    inside = False
    for src, dst, (op, dqp, dport, req_qpn, rep_qpn) in packets:
        if req_qpn is not None:
            inside = dport == port
            pending[(src, dst)] = inside
            if inside:
                reqs += 1
                qpns.add(req_qpn)
        if rep_qpn is not None and pending.pop((dst, src), False):
            qpns.add(rep_qpn)
        if inside and op is not None and dqp in qpns and dqp != 1:
            ops[op] += 1
    print(f"{proto}: {reqs} rdma_cm REQ(s) to port {port}, "
          f"QPs {sorted(hex(q) for q in qpns)}")
    if not reqs:
        print(f"fail {proto}: wire: rdma_cm connection to port {port} over RoCE")
        return
    print(f"ok {proto}: wire: rdma_cm connection to port {port} over RoCE")
    print(f"{proto}: opcodes on its QPs: {dict(sorted(ops.items()))}")
    for kind in want:
        n = sum(c for op, c in ops.items() if op in OPCODES[kind])
        res = "ok" if n > 0 else "fail"
        print(f"{res} {proto}: wire: RC {kind.upper()} packets on the "
              f"connection's QPs ({n})")


def main():
    pcap, protos = sys.argv[1], sys.argv[2:]
    try:
        packets = tshark(pcap)
    except (OSError, subprocess.CalledProcessError) as e:
        for proto in protos:
            print(f"fail {proto}: wire: tshark reads the capture ({e})")
        return
    for proto in protos:
        check(packets, proto)


main()
