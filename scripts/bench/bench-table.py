#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's one table: scripts/bench/bench.sh records every figure of a run
in a results file; this prints them as one table with the ratios within
the run, and writes it as text, CSV and JSON, and draws it as a PNG.

Usage: bench-table.py RESULTS [--out DIR] [--no-png]

RESULTS has one figure a line, tab-separated:
    GROUP  PAIRING  VARIANT  METRIC  VALUE  UNIT  NOTE
VALUE is a number, or "-" for a figure that could not be measured (NOTE
says why).  Lines starting with "#" are the run's description, printed
above the table.  Ratios (what they compare is in their own words):
  - nvmeof, perftest, ulp, mpi, cpu: each pairing against rxe-rxe (same
    group, variant and metric): "1.8x rxe-rxe" means 1.8 times rxe's
    figure, for latencies (unit us) and costs (unit s/GiB: host CPU per
    GiB) rxe's figure divided by this one, so above 1x is better either
    way;
  - nvmeof: each row against the ceiling row of the same metric (fio on a
    ramdisk inside one guest): "3.1% of ceiling";
  - native: each MiB/s figure against memcpy's: "12.0% of memcpy"; the
    engines' CPU per GiB (s/GiB) against twice the floor row's (one copy
    and one CRC of each byte, in each engine): "3.4x 2 engines' floor";
  - 64k-qps: each row against the row with variant "1 QP" (issue 11's
    target: 64 B rate with 64K QPs open within 10% of it);
  - fabric (the incast, bench_incast): each row with DCQCN, PFC or both
    against the variant ending ", no CC" of the same metric, plainly
    divided, whichever way is better: "0.25x no CC" (goodput and
    fairness: higher is better; p99, drops, packets sent again: lower).
DIR (default: RESULTS' directory) receives bench.txt, bench.csv,
bench.json and bench.png.  Without matplotlib the PNG is skipped with a
message (exit status 3 if it was asked for), the rest is written.
"""
import argparse
import csv
import io
import json
import math
import os
import sys

FIELDS = ["group", "pairing", "variant", "metric", "value", "unit", "note"]
COLUMNS = ["group", "pairing", "variant", "metric", "value", "unit",
           "ratio", "ratio2", "note"]
QP_TARGET = 0.90
LOWER_IS_BETTER = ("us", "s/GiB")


def num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def parse(text):
    """(meta lines, rows) from a results file's text."""
    meta, rows = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            meta.append(line[1:].strip())
            continue
        parts = line.split("\t")
        if len(parts) < 6:
            raise ValueError("line %d: %d fields, want 6 or 7" %
                             (n, len(parts)))
        parts = (parts + [""])[:7]
        row = dict(zip(FIELDS, (p.strip() for p in parts)))
        row["num"] = num(row["value"])
        rows.append(row)
    return meta, rows


def fmt_value(v):
    if v is None:
        return "-"
    if v.is_integer() or abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


def find(rows, **want):
    for r in rows:
        if all(r[k] == v for k, v in want.items()) and r["num"]:
            return r
    return None


def ratios(rows):
    """Fills each row's ratio and ratio2 (text) and ratio_num, ratio2_num."""
    for r in rows:
        r["ratio"] = r["ratio2"] = ""
        r["ratio_num"] = r["ratio2_num"] = None
        v = r["num"]
        if v is None:
            continue
        g = r["group"]
        if g in ("nvmeof", "perftest", "ulp", "mpi", "cpu") and \
                r["pairing"] != "rxe-rxe" \
                and "orca" in r["pairing"]:
            ref = find(rows, group=g, pairing="rxe-rxe",
                       variant=r["variant"], metric=r["metric"])
            if ref and v:
                x = ref["num"] / v if r["unit"] in LOWER_IS_BETTER \
                    else v / ref["num"]
                r["ratio_num"] = x
                r["ratio"] = "%.2fx rxe-rxe" % x
        if g == "nvmeof":
            ref = find(rows, group="ceiling", metric=r["metric"])
            if ref:
                x = v / ref["num"]
                r["ratio2_num"] = x
                r["ratio2"] = "%.1f%% of ceiling" % (100 * x)
        if g == "native" and r["unit"] == "s/GiB" and \
                not r["metric"].startswith("memcpy"):
            ref = next((q for q in rows if q["group"] == "native" and
                        q["unit"] == "s/GiB" and
                        q["metric"].startswith("memcpy") and q["num"]),
                       None)
            if ref:
                x = v / (2 * ref["num"])
                r["ratio2_num"] = x
                r["ratio2"] = "%.1fx 2 engines' floor" % x
        if g == "native" and r["unit"] == "MiB/s" and \
                not r["metric"].startswith(("memcpy", "CRC")):
            ref = next((q for q in rows if q["group"] == "native" and
                        q["metric"].startswith("memcpy") and q["num"]), None)
            if ref:
                x = v / ref["num"]
                r["ratio2_num"] = x
                r["ratio2"] = "%.1f%% of memcpy" % (100 * x)
        if g == "64k-qps" and r["variant"] != "1 QP":
            ref = find(rows, group=g, variant="1 QP", metric=r["metric"])
            if ref:
                x = v / ref["num"]
                r["ratio_num"] = x
                r["ratio"] = "%.2fx 1 QP (%s %.2f)" % (
                    x, "meets" if x >= QP_TARGET else "misses", QP_TARGET)
        if g == "fabric" and not r["variant"].endswith(", no CC"):
            ref = find(rows, group=g, metric=r["metric"],
                       variant=r["variant"].rsplit(", ", 1)[0] +
                       ", no CC")
            if ref:
                x = v / ref["num"]
                r["ratio_num"] = x
                r["ratio"] = "%.2fx no CC" % x
    return rows


def table(meta, rows):
    """The text table."""
    head = ["group", "pairing", "setup", "metric", "value", "unit",
            "vs reference", "vs ceiling/memcpy", "notes"]
    body = [[r["group"], r["pairing"], r["variant"], r["metric"],
             fmt_value(r["num"]), r["unit"], r["ratio"], r["ratio2"],
             r["note"]] for r in rows]
    widths = [max(len(x[i]) for x in [head] + body)
              for i in range(len(head) - 1)]
    right = {4}
    out = io.StringIO()
    for m in meta:
        out.write(m + "\n")

    def line(cells):
        parts = []
        for i, c in enumerate(cells[:-1]):
            parts.append(c.rjust(widths[i]) if i in right
                         else c.ljust(widths[i]))
        parts.append(cells[-1])
        out.write("  ".join(parts).rstrip() + "\n")

    line(head)
    line(["-" * w for w in widths] + ["-----"])
    prev = None
    for r, cells in zip(rows, body):
        if prev is not None and r["group"] != prev:
            out.write("\n")
        prev = r["group"]
        line(cells)
    return out.getvalue()


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r["group"], r["pairing"], r["variant"], r["metric"],
                        "" if r["num"] is None else r["value"], r["unit"],
                        r["ratio"], r["ratio2"], r["note"]])


def write_json(meta, rows, path):
    keys = FIELDS + ["ratio", "ratio2"]
    doc = {"meta": meta, "rows": []}
    for r in rows:
        d = {k: r[k] for k in keys}
        d["value"] = r["num"]
        d["ratio_value"] = r["ratio_num"]
        d["ratio2_value"] = r["ratio2_num"]
        doc["rows"].append(d)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def panels(rows):
    """[(title, [rows])]: one panel per group, metric and unit."""
    out, index = [], {}
    for r in rows:
        # The native figures and memcpy side by side, one unit a panel.
        if r["group"] == "native":
            key = (r["group"], "", r["unit"])
            title = "native (%s)" % r["unit"]
        else:
            key = (r["group"], r["metric"], r["unit"])
            title = "%s: %s (%s)" % key
        if key not in index:
            index[key] = len(out)
            out.append((title, []))
        out[index[key]][1].append(r)
    # A panel of a ceiling goes with nvmeof's: its rows join that panel.
    merged = []
    for title, rs in out:
        if rs[0]["group"] == "ceiling":
            dest = next((p for p in merged if p[1][0]["group"] == "nvmeof"
                         and p[1][0]["metric"] == rs[0]["metric"]), None)
            if dest:
                dest[1].extend(rs)
                continue
        merged.append((title, rs))
    return merged


def draw(meta, rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ps = panels(rows)
    ncols = 2
    nrows = max(1, (len(ps) + ncols - 1) // ncols)
    heights = []
    for i in range(nrows):
        heights.append(max(len(p[1]) for p in ps[i * ncols:(i + 1) * ncols]))
    fig_h = 1.2 + sum(0.32 * h + 0.9 for h in heights)
    fig, axes = plt.subplots(nrows, ncols, figsize=(16, fig_h),
                             squeeze=False,
                             gridspec_kw={"height_ratios": [h + 2 for h in
                                                            heights]})
    colours = {"orca-orca": "#1f77b4", "rxe-orca": "#6baed6",
               "orca-rxe": "#9ecae1", "rxe-rxe": "#ff7f0e",
               "siw-siw": "#bdbdbd"}
    for i, ax in enumerate(axes.flat):
        if i >= len(ps):
            ax.axis("off")
            continue
        title, rs = ps[i]
        labels, vals, cols, notes = [], [], [], []
        mixed = len({r["metric"] for r in rs if r["group"] != "ceiling"}) > 1
        for r in rs:
            parts = [r["pairing"], r["variant"]]
            if mixed:
                parts.append(r["metric"])
            labels.append(" ".join(x for x in parts if x and x != "-") or
                          r["group"])
            vals.append(r["num"] or 0)
            cols.append("#2ca02c" if r["group"] in ("ceiling",) or
                        r["metric"].startswith("memcpy")
                        else colours.get(r["pairing"], "#1f77b4"))
            txt = fmt_value(r["num"]) if r["num"] is not None else \
                "not measured"
            extra = "; ".join(x for x in (r["ratio"], r["ratio2"]) if x)
            notes.append(txt + ("  " + extra if extra else ""))
        y = list(range(len(rs)))[::-1]
        ax.barh(y, vals, color=cols)
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_title(title, fontsize=10, loc="left")
        top = max(vals) if vals and max(vals) > 0 else 1
        pos = [v for v in vals if v > 0]
        if pos and top / min(pos) > 50:
            ax.set_xscale("log")
            ax.set_xlim(min(pos) / 2, top * 40)
        else:
            ax.set_xlim(0, top * 1.9)
        for yy, v, t in zip(y, vals, notes):
            ax.text(v if v > 0 else (ax.get_xlim()[0]), yy, " " + t,
                    va="center", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
    fig.suptitle("\n".join(meta[:2]) if meta else "make bench", fontsize=10,
                 x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out")
    ap.add_argument("--no-png", action="store_true")
    a = ap.parse_args(argv)
    with open(a.results) as f:
        meta, rows = parse(f.read())
    ratios(rows)
    out = a.out or os.path.dirname(os.path.abspath(a.results))
    os.makedirs(out, exist_ok=True)
    text = table(meta, rows)
    sys.stdout.write(text)
    with open(os.path.join(out, "bench.txt"), "w") as f:
        f.write(text)
    write_csv(rows, os.path.join(out, "bench.csv"))
    write_json(meta, rows, os.path.join(out, "bench.json"))
    if a.no_png:
        return 0
    try:
        draw(meta, rows, os.path.join(out, "bench.png"))
    except ImportError as e:
        print("bench-report: no PNG: %s (python3-matplotlib, "
              "scripts/toolroot-packages.txt)" % e, file=sys.stderr)
        return 3
    print("table: %s/bench.{txt,csv,json,png}" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
