#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Remove DT_RPATH and DT_RUNPATH from a 64-bit little-endian ELF file.

rdma-core's build gives the provider a RUNPATH into its build tree; the
packaged library must have none (lintian: custom-library-search-path).
The dynamic section is compacted in place and padded with DT_NULL; the path
string stays, unreferenced, in .dynstr.  No chrpath/patchelf needed.

Usage: elf-drop-runpath.py FILE
"""
import struct
import sys

DT_NULL, DT_RPATH, DT_RUNPATH, PT_DYNAMIC = 0, 15, 29, 2


def main(path):
    with open(path, 'r+b') as f:
        data = bytearray(f.read())
        if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
            sys.exit(f'{path}: not a 64-bit little-endian ELF file')
        phoff, = struct.unpack_from('<Q', data, 0x20)
        phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
        for i in range(phnum):
            off = phoff + i * phentsize
            p_type, = struct.unpack_from('<I', data, off)
            if p_type != PT_DYNAMIC:
                continue
            d_off, = struct.unpack_from('<Q', data, off + 8)
            d_size, = struct.unpack_from('<Q', data, off + 32)
            entries = [struct.unpack_from('<qQ', data, d_off + j)
                       for j in range(0, d_size, 16)]
            kept = [e for e in entries if e[0] not in (DT_RPATH, DT_RUNPATH)]
            kept += [(DT_NULL, 0)] * (len(entries) - len(kept))
            for j, e in enumerate(kept):
                struct.pack_into('<qQ', data, d_off + 16 * j, *e)
            f.seek(0)
            f.write(data)
            return
        sys.exit(f'{path}: no dynamic section')


if __name__ == '__main__':
    main(sys.argv[1])
