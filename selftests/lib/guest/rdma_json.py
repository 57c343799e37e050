#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pick values out of `rdma -j resource show ...` output, for guest tests.

    rdma_json.py FILE [KEY=VALUE ...] -- FIELD ... [:: FILE ... -- ...]

For each query (queries are separated by "::", so that one process
answers them all: a process costs much in a TCG guest), finds the first
object of FILE's JSON list whose KEY equals VALUE for every filter and
prints its FIELDs on one line, "-" for a missing one.
A KEY or FIELD u32@N, u16@N or u8@N is the little-endian value at offset N
of the object's raw "data" (rdma -r, the adapter's own layout, which is
all a raw entry has).  Driver attributes (rdma -dd) are drv_NAME.  Prints
nothing and exits 1 when no object matches.
"""
import json
import sys


def field(obj, name):
    if "@" in name:
        kind, off = name.split("@")
        data = obj.get("data")
        if data is None:
            return "-"
        off = int(off, 0)
        size = {"u8": 1, "u16": 2, "u32": 4}[kind]
        if off + size > len(data):
            return "-"
        return str(int.from_bytes(bytes(data[off:off + size]), "little"))
    v = obj.get(name)
    return "-" if v is None else str(v)


def query(args):
    sep = args.index("--")
    path, filters, fields = args[0], args[1:sep], args[sep + 1:]
    with open(path) as f:
        text = f.read().strip()
    objs = json.loads(text) if text else []
    for obj in objs:
        if all(field(obj, k) == v for k, v in
               (flt.split("=", 1) for flt in filters)):
            return " ".join(field(obj, n) for n in fields)
    return None


def main():
    rc, args = 0, sys.argv[1:] + ["::"]
    while args:
        end = args.index("::")
        line = query(args[:end])
        if line is None:
            rc, line = 1, ""
        print(line)
        args = args[end + 1:]
    return rc


if __name__ == "__main__":
    sys.exit(main())
