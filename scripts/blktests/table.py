#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make blktests' table: blktests' own results of several runs side by side.

Usage: table.py [--out PREFIX] KIND=CHECK_LOG...   (a KIND again: more of its log)

Reads ./check's output of each run (scripts/blktests/guest.sh saves it as
check.log): a test's final line ends in [passed], [failed] or [not run];
the indented lines below it say why (skip reasons; for a failure the diff
against the test's .out or "something found in dmesg").  Prints one row
per test and condition (tr=rdma bd=device ...), one column per run, and
the reasons of what did not pass; writes PREFIX.txt and PREFIX.csv.
A test a run did not reach (it stopped early) shows "-".
"""
import csv
import re
import sys

STATUS = re.compile(r'^(\S+)(?: => (\S+))?\s+(.*?)\s*\[(passed|failed|not run)\]\s*$')
PAREN = re.compile(r'\(([^()]*)\)')
COND = re.compile(r'^(\S+=\S+)( \S+=\S+)*$')
SHORT = {'passed': 'pass', 'failed': 'FAIL', 'not run': 'not run'}


def why(status, lines):
    """One short reason from the indented lines below a status line."""
    lines = [l.strip() for l in lines if l.strip()]
    if status == 'not run':
        return '; '.join(lines)
    for i, l in enumerate(lines):
        if l.startswith('something found in dmesg'):
            nxt = lines[i + 1] if i + 1 < len(lines) else ''
            return 'dmesg: ' + nxt
    diff = [l for l in lines
            if (l.startswith('+') and not l.startswith('+++'))
            or (l.startswith('-') and not l.startswith('---'))]
    if diff:
        return 'output ' + ' | '.join(diff[:3])
    rest = [l for l in lines if not l.startswith('runtime')]
    return rest[0] if rest else 'failed'


def parse(path):
    """{key: (status, reason, description)} in the order of the log."""
    res = {}
    try:
        text = open(path, errors='replace').read().splitlines()
    except OSError:
        return res
    i = 0
    while i < len(text):
        m = STATUS.match(text[i])
        i += 1
        if not m:
            continue
        test, dev, rest, status = m.groups()
        cond, desc = '', ''
        for p in PAREN.findall(rest):
            if not cond and not desc and COND.match(p):
                cond = p
            elif not desc:
                desc = p
        block = []
        while i < len(text) and text[i].startswith(' '):
            block.append(text[i])
            i += 1
        key = test + (' => ' + dev if dev else '') + (' (' + cond + ')' if cond else '')
        res[key] = (SHORT[status], why(status, block), desc)
    return res


def main(argv):
    prefix = None
    if len(argv) >= 2 and argv[0] == '--out':
        prefix, argv = argv[1], argv[2:]
    merged = {}
    for a in argv:
        kind, _, path = a.partition('=')
        merged.setdefault(kind, {}).update(parse(path))
    runs = list(merged.items())
    keys = []
    for _, r in runs:
        for k in r:
            if k not in keys:
                keys.append(k)

    def order(k):
        m = re.match(r'(\w+)/(\d+|\*+)', k)
        return (m.group(1), m.group(2)) if m else (k, '')
    keys.sort(key=order)

    rows = []
    for k in keys:
        cells, notes = [], []
        for kind, r in runs:
            st, reason, _ = r.get(k, ('-', '', ''))
            cells.append(st)
            if st not in ('pass', '-') and reason:
                notes.append((kind, reason))
        # the same reason in every run is said once
        if len(notes) == len(runs) and len({n[1] for n in notes}) == 1:
            note = notes[0][1]
        else:
            note = '; '.join(f'{kind}: {reason}' for kind, reason in notes)
        rows.append([k] + cells + [note])

    head = ['test'] + [kind for kind, _ in runs] + ['why (not passed)']
    width = [max(len(head[0]), *(len(r[0]) for r in rows))] if rows else [len(head[0])]
    width += [max(8, len(kind)) for kind, _ in runs]
    out = []
    fmt = lambda r: '  '.join(c.ljust(w) for c, w in zip(r, width)) + '  ' + r[-1]
    out.append(fmt(head))
    out.append(fmt(['-' * w for w in width] + ['-' * 16]))
    for r in rows:
        line = fmt(r)
        out.append(line if len(line) <= 200 else line[:197] + '...')
    out.append('')
    for kind, r in runs:
        c = [v[0] for v in r.values()]
        out.append(f'{kind}: {c.count("pass")} passed, {c.count("FAIL")} failed, '
                   f'{c.count("not run")} not run')
    text = '\n'.join(out)
    print(text)
    if prefix:
        with open(prefix + '.txt', 'w') as f:
            f.write(text + '\n')
        with open(prefix + '.csv', 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(head)
            w.writerows(rows)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
