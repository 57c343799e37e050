#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Reduce one fio --output-format=json result file to shell assignments, for
# lib/guest/nvmeof.sh: the job's error (a verify mismatch is EILSEQ there), and per direction the I/O count, IOPS and
# bandwidth in MiB/s (fio reports KiB/s).  fio may print warnings before the
# JSON object, so parsing starts at the first '{'.  A file that is missing or
# not fio JSON gives fio_ok=0 and a reason, never a traceback.
import json
import sys


def main():
    try:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
            text = f.read()
        doc = json.loads(text[text.index("{"):])
        job = doc["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        reason = str(e).replace("'", "").replace("\n", " ")[:120]
        print(f"fio_ok=0 fio_reason='{reason}'")
        return
    out = {"fio_ok": 1, "fio_error": int(job.get("error", -1))}
    for d, k in (("read", "r"), ("write", "w")):
        s = job.get(d, {})
        out[k + "_ios"] = int(s.get("total_ios", 0))
        out[k + "_iops"] = round(float(s.get("iops", 0.0)))
        out[k + "_mibs"] = f"{float(s.get('bw', 0)) / 1024:.1f}"
    print(" ".join(f"{k}={v}" for k, v in out.items()))


main()
