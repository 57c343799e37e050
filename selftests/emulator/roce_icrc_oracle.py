#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent ICRC oracle for frames written by test_roce_wire.

Reads a pcap (ORCA_ROCE_PCAP=FILE build/tests/test_roce_wire) and recomputes
every frame's RoCEv2 ICRC two ways: a zlib.crc32 implementation written from
IBA Annex A17.3.3 (IPv4 and IPv6), and scapy.contrib.roce when scapy is
installed (IPv4 only in scapy 2.5).  Prints a count and exits 1 on any
mismatch.
"""
import struct
import sys
import zlib


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def is_roce(frame):
    """IPv4/IPv6 + UDP destination port 4791 (other traffic is skipped)."""
    off = 18 if frame[12:14] == b"\x81\x00" else 14
    ethertype = frame[off - 2:off]
    if ethertype == b"\x08\x00" and len(frame) >= off + 28:
        if frame[off + 9] != 17:
            return False
        udp = off + (frame[off] & 15) * 4
    elif ethertype == b"\x86\xdd" and len(frame) >= off + 48:
        if frame[off + 6] != 17:
            return False
        udp = off + 40
    else:
        return False
    return len(frame) >= udp + 8 and frame[udp + 2:udp + 4] == b"\x12\xb7"


def icrc_spec(frame):
    off = 14
    if frame[12:14] == b"\x81\x00":
        off += 4
    l3 = bytearray(frame[off:])
    if l3[0] >> 4 == 4:
        ihl = (l3[0] & 15) * 4
        end = struct.unpack_from(">H", l3, 2)[0]
        l3[1] = 0xff
        l3[8] = 0xff
        l3[10:12] = b"\xff\xff"
    else:
        ihl = 40
        end = 40 + struct.unpack_from(">H", l3, 4)[0]
        l3[0] |= 0x0f
        l3[1:4] = b"\xff\xff\xff"
        l3[7] = 0xff
    l3[ihl + 6:ihl + 8] = b"\xff\xff"
    l3[ihl + 8 + 4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(l3[:end - 4]))
    return struct.pack("<I", crc), bytes(frame[off + end - 4:off + end])


def icrc_scapy(frame):
    try:
        from scapy.layers.l2 import Ether
        from scapy.contrib.roce import BTH
        from scapy.layers.inet import IP
    except ImportError:
        return None
    # scapy would count Ethernet padding of runts as payload: cut it off.
    off = 18 if frame[12:14] == b"\x81\x00" else 14
    if frame[off] >> 4 == 4:
        frame = frame[:off + struct.unpack_from(">H", frame, off + 2)[0]]
    pkt = Ether(frame)
    if IP not in pkt or BTH not in pkt:
        return None
    return pkt[BTH].compute_icrc(None)


def main():
    n = bad = scapy_checked = 0
    for fr in frames(sys.argv[1]):
        if not is_roce(fr):
            continue
        n += 1
        want, got = icrc_spec(fr)
        if want != got:
            bad += 1
            print("frame %d: spec ICRC %s, frame has %s" %
                  (n, want.hex(), got.hex()))
        s = icrc_scapy(fr)
        if s is not None:
            scapy_checked += 1
            if s != got:
                bad += 1
                print("frame %d: scapy ICRC %s, frame has %s" %
                      (n, s.hex(), got.hex()))
    print("%d frames, %d checked by scapy too, %d bad" %
          (n, scapy_checked, bad))
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main())
