#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a patch series from the tree (make patches).

A series description (scripts/series/patches/*.series) says, patch by patch, which
tree files go in (each whole, at its upstream path), which upstream files
get a line inserted (Kconfig/Makefile/CMake hooks, MAINTAINERS entries) and
the commit message.  The upstream files are read from a pristine extraction
(scripts/series/pristine-tree.sh), so every hunk applies to it.  The output is
git format-patch style: NNNN-subject.patch plus a 0000 cover letter.

Series file syntax, one directive a line ('#' starts a comment line):
  cover SUBJECT            the cover letter; '> ' lines after it are its body
  patch SUBJECT            a new patch; '> ' lines after it are its body
  file TREE [UPSTREAM]     add tree file TREE (at path UPSTREAM if given)
  objects MAKEFILE TITLE   write the driver Makefile listing the objects of
                           every .c added so far (compile-only until 'link';
                           a comment only while there is none)
  link                     from this patch on the Makefile links the module
  insert PATH after|before REGEX :: LINE
                           insert LINE next to the single line matching REGEX
                           (after* / before*: next to every matching line)
  block PATH SORTED-AFTER-REGEX :: FILE
                           insert FILE's text (a MAINTAINERS entry) before
                           the first entry header that sorts after it

Usage: generate.py SERIES UPSTREAM-TREE OUTDIR
"""
import difflib
import email.utils
import os
import re
import sys

AUTHOR = 'ORCA developers <orca@example.invalid>'
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Patch:
    def __init__(self, subject):
        self.subject = subject
        self.body = []
        self.ops = []


def parse(path):
    cover, patches, cur = None, [], None
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if line.startswith('>'):
                cur.body.append(line[2:] if line.startswith('> ') else '')
                continue
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            word, _, rest = line.strip().partition(' ')
            if word == 'cover':
                cover = cur = Patch(rest)
            elif word == 'patch':
                cur = Patch(rest)
                patches.append(cur)
            elif word in ('file', 'objects', 'link', 'insert', 'block'):
                cur.ops.append((word, rest))
            else:
                sys.exit(f'{path}:{n}: unknown directive {word}')
    return cover, patches


def read(path):
    with open(path) as f:
        return f.read()


def insert_line(text, where, regex, line, what):
    lines = text.split('\n')
    every = where.endswith('*')
    hits = [i for i, x in enumerate(lines) if re.search(regex, x)]
    if not hits or (len(hits) != 1 and not every):
        sys.exit(f'{what}: /{regex}/ matches {len(hits)} lines')
    for i in reversed(hits):
        i += 1 if where.startswith('after') else 0
        lines[i:i] = line.split('\\n')
    return '\n'.join(lines)


def insert_block(text, after_regex, block, what):
    """Insert an entry before the first header that sorts after its own."""
    lines = text.split('\n')
    start = [i for i, x in enumerate(lines) if re.search(after_regex, x)]
    if len(start) != 1:
        sys.exit(f'{what}: /{after_regex}/ matches {len(start)} lines')
    name = block.split('\n')[0]
    for i in range(start[0], len(lines) - 1):
        hdr = lines[i]
        if (hdr and (i == 0 or lines[i - 1] == '') and
                re.match(r'^[A-Z0-9]', hdr) and
                re.match(r'^[A-Z]:\t', lines[i + 1]) and hdr > name):
            lines[i:i] = block.rstrip('\n').split('\n') + ['']
            return '\n'.join(lines)
    sys.exit(f'{what}: no place for the entry')


def makefile(title, objs, link):
    out = ['# SPDX-License-Identifier: GPL-2.0', '#', f'# {title}', '#', '']
    names = [o for o in ' '.join(objs).split(' ') if o]
    if not names:
        # A patch of headers only: nothing to compile yet.
        out.append('# Sources are compiled as they are added.')
        return '\n'.join(out) + '\n'
    if link:
        out.append('obj-$(CONFIG_INFINIBAND_ORCA) += orca.o')
        out.append('')
        lhs = 'orca-y :='
    else:
        out.append('# Compiled as they are added; the module is linked once '
                   'the verbs are')
        out.append('# complete.')
        lhs = 'always-$(CONFIG_INFINIBAND_ORCA) +='
    cur = lhs
    for o in names:
        if len(cur) + 1 + len(o) > 70:
            out.append(cur + ' \\')
            cur = '\t' + ('  ' if link else '') + o
        else:
            cur += ' ' + o
    out.append(cur)
    if 'orca_trace.o' in names:
        out += ['', '# orca_trace.h is found by <trace/define_trace.h> from here.',
                'CFLAGS_orca_trace.o := -I$(src)']
    return '\n'.join(out) + '\n'


def diff(path, old, new):
    a = old.splitlines(keepends=True) if old is not None else []
    b = new.splitlines(keepends=True)
    out = [f'diff --git a/{path} b/{path}\n']
    if old is None:
        out.append('new file mode 100644\n')
        out.append('--- /dev/null\n')
    else:
        out.append(f'--- a/{path}\n')
    out.append(f'+++ b/{path}\n')
    hunks = list(difflib.unified_diff(a, b, n=3))[2:]
    for h in hunks:
        if h.startswith('@@') and old is None:
            h = f'@@ -0,0 +1,{len(b)} @@\n' if len(b) != 1 else '@@ -0,0 +1 @@\n'
        out.append(h if h.endswith('\n') else h + '\n\\ No newline at end of file\n')
    return ''.join(out), len([x for x in hunks if x.startswith('+') and not x.startswith('+++')]), \
        len([x for x in hunks if x.startswith('-') and not x.startswith('---')])


def slug(subject):
    s = re.sub(r'[^A-Za-z0-9]+', '-', subject).strip('-')
    return s[:52].rstrip('-')


def main():
    series, upstream, outdir = sys.argv[1:4]
    cover, patches = parse(series)
    # The series file's time: the same tree gives the same patches.
    date = email.utils.formatdate(os.stat(series).st_mtime)
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith('.patch'):
            os.unlink(os.path.join(outdir, f))

    state = {}          # upstream path -> text as of the previous patch
    objs, link, mk = [], False, None
    total = len(patches)
    for num, p in enumerate(patches, 1):
        new = {}

        def cur(path):
            if path in new:
                return new[path]
            if path in state:
                return state[path]
            up = os.path.join(upstream, path)
            return read(up) if os.path.exists(up) else None

        for op, rest in p.ops:
            if op == 'file':
                parts = rest.split()
                src, dst = parts[0], parts[-1]
                new[dst] = read(os.path.join(TOP, src))
                if dst.endswith('.c') and mk and os.path.dirname(dst) == os.path.dirname(mk[0]):
                    objs.append(os.path.basename(dst)[:-2] + '.o')
            elif op == 'objects':
                path, title = rest.split(' ', 1)
                mk = (path, title)
            elif op == 'link':
                link = True
            elif op == 'insert':
                m = re.match(r'(\S+) (after\*?|before\*?) (.*?) :: (.*)$', rest)
                path, where, regex, line = m.groups()
                new[path] = insert_line(cur(path), where, regex, line, path)
            elif op == 'block':
                m = re.match(r'(\S+) (.*?) :: (\S+)$', rest)
                path, regex, blockfile = m.groups()
                block = read(os.path.join(os.path.dirname(series), blockfile))
                new[path] = insert_block(cur(path), regex, block, path)
        if mk:
            new[mk[0]] = makefile(mk[1], objs, link)

        body, stat = [], []
        for path in sorted(new, key=lambda x: (x.endswith('Makefile') and 'orca' in x, x)):
            old = state.get(path)
            if old is None:
                up = os.path.join(upstream, path)
                old = read(up) if os.path.exists(up) else None
            if old == new[path]:
                continue
            d, plus, minus = diff(path, old, new[path])
            body.append(d)
            stat.append((path, plus, minus, old is None))
            state[path] = new[path]
        write_patch(outdir, num, total, p, date, body, stat)
    if cover:
        # The series as a whole: each file once, against the pristine tree.
        merged = []
        for path in sorted(state):
            up = os.path.join(upstream, path)
            old = read(up) if os.path.exists(up) else None
            _, plus, minus = diff(path, old, state[path])
            merged.append((path, plus, minus, old is None))
        write_cover(outdir, total, cover, patches, date, merged)


def diffstat(stat):
    width = max(len(s[0]) for s in stat)
    most = max(s[1] + s[2] for s in stat) or 1
    room = max(10, 72 - width - 8)
    out = []
    for path, plus, minus, _ in stat:
        scale = min(1.0, room / most)
        bar = '+' * (plus and max(1, round(plus * scale))) + \
            '-' * (minus and max(1, round(minus * scale)))
        out.append(f' {path:<{width}} | {plus + minus:4} {bar}')
    ins = sum(s[1] for s in stat)
    dels = sum(s[2] for s in stat)
    out.append(f' {len(stat)} files changed, {ins} insertions(+)' +
               (f', {dels} deletions(-)' if dels else ''))
    created = [s[0] for s in stat if s[3]]
    out += [f' create mode 100644 {p}' for p in created]
    return '\n'.join(out)


def header(num, total, subject, date):
    return (f'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
            f'From: {AUTHOR}\nDate: {date}\n'
            f'Subject: [PATCH {num:0{len(str(total))}}/{total}] {subject}\n\n')


def write_patch(outdir, num, total, p, date, body, stat):
    name = f'{num:04}-{slug(p.subject)}.patch'
    with open(os.path.join(outdir, name), 'w') as f:
        f.write(header(num, total, p.subject, date))
        f.write('\n'.join(p.body).strip('\n') + '\n\n')
        f.write(f'Signed-off-by: {AUTHOR}\n---\n')
        f.write(diffstat(stat) + '\n\n')
        f.write(''.join(body))
        f.write('-- \n2.47.3\n\n')


def write_cover(outdir, total, cover, patches, date, merged):
    with open(os.path.join(outdir, '0000-cover-letter.patch'), 'w') as f:
        f.write(header(0, total, cover.subject, date))
        f.write('\n'.join(cover.body).strip('\n') + '\n\n')
        for n, p in enumerate(patches, 1):
            f.write(f'  {p.subject}\n')
        f.write('\n' + diffstat(merged) + '\n\n-- \n2.47.3\n\n')


if __name__ == '__main__':
    main()
