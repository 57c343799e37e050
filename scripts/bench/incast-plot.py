#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draws make bench's incast (bench_incast): each bulk QP's rate over time,
one panel per mode the CSV has: no congestion control, ECN + DCQCN, a
lossless class (PFC) and a lossless class with ECN + DCQCN.

Usage: incast-plot.py CSV PNG [--smooth N]

CSV has a header line and one line per mode and 10 ms interval:
    mode,t_ms,qp0,qp1,qp2
(scripts/bench/bench.sh writes it from the last run's bench-incast-rate
lines; the rates are Mb/s of completed 64 KiB WRITEs).  A QP completes
whole WRITEs, 52.4 Mb/s each in 10 ms, so its raw rate jumps between
multiples of that: thin lines show the raw rates, thick ones their moving
average over N intervals (default 10: 100 ms).  The dotted line is a third
of the 200 Mb/s link, a fair share with its headers.  Without matplotlib
nothing is drawn: a message, and exit status 3.
"""
import argparse
import csv
import sys

TITLES = {"nocc": "no congestion control (lossy queue, RC retransmits)",
          "dcqcn": "ECN marking + DCQCN",
          "pfc": "lossless class (PFC pauses the senders, no drops)",
          "pfc-dcqcn": "lossless class (PFC) + ECN marking + DCQCN"}
LINK_MBPS = 200


def read(path):
    """{mode: (t_ms list, [qp0 list, qp1 list, ...])}, modes in file order."""
    series = {}
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r, None)
        if not head or head[:2] != ["mode", "t_ms"]:
            raise ValueError("%s: no mode,t_ms,... header" % path)
        nqp = len(head) - 2
        for row in r:
            if len(row) != len(head):
                continue
            t, qps = series.setdefault(row[0], ([], [[] for _ in
                                                     range(nqp)]))
            t.append(float(row[1]))
            for i in range(nqp):
                qps[i].append(float(row[2 + i]))
    return series


def smooth(v, n):
    """The moving average of @v over the last @n points (fewer at first)."""
    out, acc = [], 0.0
    for i, x in enumerate(v):
        acc += x
        if i >= n:
            acc -= v[i - n]
        out.append(acc / min(i + 1, n))
    return out


def draw(series, path, n):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = [m for m in TITLES if m in series] + \
        [m for m in series if m not in TITLES]
    fig, axes = plt.subplots(len(modes), 1, figsize=(10, 3.2 * len(modes)),
                             sharex=True, sharey=True, squeeze=False)
    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
    for ax, mode in zip(axes[:, 0], modes):
        t, qps = series[mode]
        for i, v in enumerate(qps):
            c = colours[i % len(colours)]
            ax.plot(t, v, color=c, linewidth=0.5, alpha=0.35)
            ax.plot(t, smooth(v, n), color=c, linewidth=1.8,
                    label="QP %d" % i)
        ax.axhline(LINK_MBPS / max(1, len(qps)), color="grey",
                   linestyle=":", linewidth=1)
        ax.set_title(TITLES.get(mode, mode), fontsize=10, loc="left")
        ax.set_ylabel("Mb/s")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("ms (raw: 10 ms intervals; thick: %d ms "
                           "moving average)" % (10 * n))
    fig.suptitle("incast: 3 senders into one adapter through a %d Mb/s "
                 "switch port (bench_incast)" % LINK_MBPS, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--smooth", type=int, default=10)
    a = ap.parse_args(argv)
    series = read(a.csv)
    if not series:
        print("incast-plot: %s has no rates: no plot" % a.csv,
              file=sys.stderr)
        return 1
    try:
        draw(series, a.png, max(1, a.smooth))
    except ImportError as e:
        print("incast-plot: no PNG: %s (python3-matplotlib, "
              "scripts/toolroot-packages.txt)" % e, file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
