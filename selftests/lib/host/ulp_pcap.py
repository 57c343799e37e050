#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Did a kernel ULP's connection run over RoCE?  Reads a wire capture with
tshark (once) and, for each protocol, finds the rdma_cm connections to its
port (CM REQ MADs on QP1 whose service ID carries the port), the QP
numbers the REQ and its REP named, and the RoCE packets addressed to
those QPs.  Headers and whole CM MADs are all it reads: a capture cut to
a snap length (orca-wire --pcap-snaplen 512) is enough.

Prints "ok NAME" / "fail NAME" lines (the caller turns them into test
cases), "explained KEY" for a known kernel report (lib/kernel-log.sh) whose
cause the capture shows, and other lines as comments: first whether tshark read the capture
and found RoCE packets in it (a tshark error, a missing or empty capture
fail it), then each protocol's cases, failed too when there is nothing to
read.  Exits 1 if a case failed, 2 on wrong usage, 0 otherwise: a caller
that got no verdict, or a non-zero exit without a "fail" line (a crash),
must fail on its own (lib/host/ulp-host.sh does).

Usage: ulp_pcap.py PCAP PROTO...     (PROTO: rds nfs srp iser smb rnbd)
"""
import collections
import subprocess
import sys

# rdma_cm port of each protocol, and the BTH opcodes (IBA table 38) its
# data must produce: SEND always; the storage protocols move data with
# RDMA WRITE and RDMA READ, except RTRS (rnbd), whose client writes with
# RDMA WRITE with immediate and whose server answers reads with RDMA
# WRITE: it never posts an RDMA READ.
PROTOS = {
    "rds": (18634, ["send"]),
    "nfs": (20049, ["send", "write", "read"]),
    "srp": (5555, ["send", "write", "read"]),
    "iser": (3260, ["send", "write", "read"]),
    "smb": (445, ["send", "write", "read"]),
    "rnbd": (1234, ["send", "write"]),
}
OPCODES = {"send": range(0, 6), "write": range(6, 12), "read": range(12, 13)}
# The case that the capture could be read and is not empty.
CAPTURE = "wire: tshark reads the capture, and it holds RoCE packets"

FIELDS = [
    "ip.src", "ip.dst", "infiniband.bth.opcode", "infiniband.bth.destqp",
    "infiniband.cm.req.serviceid.dport", "infiniband.cm.req.localqpn",
    "infiniband.cm.rep.localqpn", "infiniband.bth.psn",
    "infiniband.mad.attributeid", "infiniband.aeth.syndrome",
]
# BTH opcodes (RC, IBA table 38) of a requester's packets, the responses
# that acknowledge them, and the CM's DREQ (attribute ID, IBA 16.7.2).
REQUESTS = set(range(0, 13)) | {0x13, 0x14, 0x16, 0x17}
RESPONSES = set(range(0x0d, 0x13))
ACK, CM_DREQ, GSI_QP = 0x11, 0x15, 1
PSN_MOD = 1 << 24


def num(v):
    v = v.split(",")[0]
    return int(v, 0) if v else None


def parse(line):
    f = (line.split("\t") + [""] * len(FIELDS))[:len(FIELDS)]
    return f[0], f[1], [num(v) for v in f[2:]]


class TsharkError(Exception):
    pass


def tshark(pcap):
    cmd = ["tshark", "-r", pcap, "-Y", "infiniband", "-T", "fields"]
    for f in FIELDS:
        cmd += ["-e", f]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise TsharkError(f"cannot run tshark: {e}") from e
    if r.returncode:
        for line in r.stderr.splitlines():
            print(line if line.startswith("tshark:") else f"tshark: {line}")
        why = r.stderr.strip().splitlines()
        raise TsharkError(f"tshark exited {r.returncode}" +
                          (f": {why[-1].removeprefix('tshark: ')}"
                           if why else ""))
    return [parse(line) for line in r.stdout.splitlines()]


class Teardown:
    """One connection's end: were the server's last requests acknowledged
    before the client's DREQ?  A DREQ moves the server's QP to the error
    state (rdma_disconnect()), so whatever it had not seen acknowledged by
    then completes flushed, whichever order the ACK then takes.  That is
    the IBTA's rule on every device; what a ULP does with a flushed send
    is its own (lib/kernel-log.sh, iser-logout-flush)."""

    def __init__(self, client, server, client_qp, server_qp):
        self.client, self.server = client, server
        self.client_qp, self.server_qp = client_qp, server_qp
        self.last_req = None    # PSN of the server's last request
        self.acked = None       # the client's latest positive ACK
        self.unacked_at_dreq = None

    def see(self, src, op, dqp, psn, attr, syndrome):
        if self.unacked_at_dreq is not None or psn is None:
            return
        if src == self.server and dqp == self.client_qp and op in REQUESTS:
            self.last_req = psn
        elif (src == self.client and dqp == self.server_qp and
              op in RESPONSES and
              (op != ACK or syndrome is None or syndrome >> 5 == 0)):
            self.acked = psn
        elif (src == self.client and dqp == GSI_QP and attr == CM_DREQ and
              self.server_qp is not None):
            self.unacked_at_dreq = self.last_req is not None and (
                self.acked is None or
                (self.acked - self.last_req) % PSN_MOD >= PSN_MOD // 2)

    def report(self, proto):
        if not self.unacked_at_dreq:
            return
        print(f"{proto}: the client's DREQ came before its ACK of the "
              f"server's last request (PSN {self.last_req}, last ACK "
              f"{self.acked}): the server's QP flushed it")
        if proto == "iser":
            print("explained iser-logout-flush")


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
    ends = []
    for src, dst, (op, dqp, dport, req_qpn, rep_qpn, psn, attr,
                   syndrome) in packets:
        if req_qpn is not None:
            inside = dport == port
            pending[(src, dst)] = inside
            if inside:
                reqs += 1
                qpns.add(req_qpn)
                ends.append(Teardown(src, dst, req_qpn, None))
        if rep_qpn is not None and pending.pop((dst, src), False):
            qpns.add(rep_qpn)
            if ends and ends[-1].server == src:
                ends[-1].server_qp = rep_qpn
        if inside and op is not None and dqp in qpns and dqp != 1:
            ops[op] += 1
        if ends:
            ends[-1].see(src, op, dqp, psn, attr, syndrome)
    print(f"{proto}: {reqs} rdma_cm REQ(s) to port {port}, "
          f"QPs {sorted(hex(q) for q in qpns)}")
    if not reqs:
        print(f"fail {proto}: wire: rdma_cm connection to port {port} over RoCE")
        return False
    print(f"ok {proto}: wire: rdma_cm connection to port {port} over RoCE")
    print(f"{proto}: opcodes on its QPs: {dict(sorted(ops.items()))}")
    for end in ends:
        end.report(proto)
    good = True
    for kind in want:
        n = sum(c for op, c in ops.items() if op in OPCODES[kind])
        res = "ok" if n > 0 else "fail"
        good &= n > 0
        print(f"{res} {proto}: wire: RC {kind.upper()} packets on the "
              f"connection's QPs ({n})")
    return good


def main():
    if len(sys.argv) < 3 or any(p not in PROTOS for p in sys.argv[2:]):
        print(__doc__, file=sys.stderr)
        return 2
    pcap, protos = sys.argv[1], sys.argv[2:]
    try:
        packets = tshark(pcap)
    except TsharkError as e:
        print(f"fail {CAPTURE} ({pcap}: {e})")
        # Each protocol's case still fails, so none vanishes.
        for proto in protos:
            print(f"fail {proto}: wire: rdma_cm connection to port "
                  f"{PROTOS[proto][0]} over RoCE (no capture read)")
        return 1
    # An empty capture (the switch wrote none, or a run that moved
    # nothing) would fail each protocol anyway; say why first.
    if not packets:
        print(f"fail {CAPTURE} (none in {pcap})")
    else:
        print(f"ok {CAPTURE} ({len(packets)})")
    good = bool(packets)
    for proto in protos:
        good &= check(packets, proto)
    return 0 if good else 1


sys.exit(main())
