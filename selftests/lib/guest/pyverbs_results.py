#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results of rdma-core's pyverbs suite as KTAP (in-guest/pyverbs.sh).

Usage:
  pyverbs_results.py report PREFIX LOG [EXPECTED_SKIPS]
      One KTAP line per test of LOG (unittest -v output): passed, failed
      (a failure or an error) or skipped with the suite's reason.  With
      EXPECTED_SKIPS (test ids module.Class.test, one a line, "#"
      comments) a skip of a test not listed is a failure, and a listed
      test that passes is reported for the list to lose it.  Exit 1 if any
      case failed.
  pyverbs_results.py compare ORCA_LOG RXE_LOG RXE_ONLY
      Both devices' result of every test side by side ("#" lines), a
      table per module (passed, failed, skipped on each), and one case:
      every test that passes on rxe0 passes on orca_0, but the tests
      RXE_ONLY lists (module, module.Class or test id, then "# why": work
      of another issue).  Exit 1 if that case fails.
"""
import re
import sys

# unittest -v writes "test_x (module.Class.test_x) ... " and the verdict
# after the test has run; what the test itself prints lands before the
# " ... " or between it and the verdict, which then starts a line.  A class
# or module fixture that skips or fails ("setUpClass (module.Class) ...
# skipped 'why'") takes all its tests with it, none of them counted in
# "Ran N": it is a case of its own.
HEAD = re.compile(r'^(test\w+|setUpClass|tearDownClass|setUpModule|'
                  r'tearDownModule) \(([\w.]+)\)')
VERDICT = re.compile(r'(ok|skipped .*|FAIL|ERROR|expected failure|'
                     r'unexpected success)$')


def parse(log):
    """[(test id, short name, kind, why)], kind: pass, fail or skip."""
    results = []
    cur = None
    for line in open(log, errors='replace').read().splitlines():
        m = HEAD.match(line)
        if m:
            cur, tail = m.groups(), line[m.end():]
        elif cur:
            tail = line
        else:
            continue
        if ' ... ' in tail:
            tail = tail.split(' ... ', 1)[1]
        elif not (m is None and VERDICT.fullmatch(tail)):
            continue
        v = VERDICT.fullmatch(tail)
        if not v:
            continue
        (name, where), verdict, cur = cur, v.group(1), None
        # "tests.test_qp.QPTest.test_x" (Python 3.11 on; before, without
        # the test's name): the id is "test_qp.QPTest.test_x".
        parts = where.split('.')
        if parts[-1] == name:
            parts = parts[:-1]
        if parts[0] == 'tests':
            parts = parts[1:]
        tid = '.'.join(parts + [name])
        short = f'{parts[-1]}.{name}'
        if verdict in ('ok', 'expected failure'):
            results.append((tid, short, 'pass', ''))
        elif verdict.startswith('skipped'):
            why = verdict[len('skipped '):].strip('\'"')
            results.append((tid, short, 'skip', why))
        else:
            results.append((tid, short, 'fail', verdict))
    return results


# unittest's account of a failure or an error, after all the verdicts:
# "ERROR: test_x (module.Class.test_x)", a rule, the traceback, a blank.
TRACE_HEAD = re.compile(r'^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)')


def tracebacks(log, tail=6):
    """{short name: last @tail lines of its traceback} of LOG."""
    found, cur, lines = {}, None, []
    for line in open(log, errors='replace').read().splitlines() + ['=' * 8]:
        m = TRACE_HEAD.match(line)
        if m or line.startswith('=' * 8) or line.startswith('Ran '):
            if cur:
                found[cur] = [x for x in lines if x.strip()][-tail:]
            cur, lines = None, []
            if m:
                name, where = m.groups()
                cls = [p for p in where.split('.') if p != name][-1]
                cur = f'{cls}.{name}'
            continue
        if cur and not line.startswith('-' * 8):
            lines.append(line)
    return found


def ran(log):
    text = open(log, errors='replace').read()
    return sum(int(n) for n in re.findall(r'^Ran (\d+) tests?', text, re.M))


def id_list(path):
    """{entry: reason} of a list file: one entry a line, "# reason"."""
    entries = {}
    try:
        for line in open(path):
            entry, _, why = line.partition('#')
            if entry.strip():
                entries[entry.strip()] = why.strip()
    except OSError as e:
        print(f'# cannot read {path}: {e}')
    return entries


def report(prefix, log, skips_file=None):
    expected = set(id_list(skips_file)) if skips_file else None
    failed = False
    passing, skipped, seen = [], set(), 0
    traces = tracebacks(log)
    for tid, short, kind, why in parse(log):
        case = f'{prefix}: {short}'
        if tid.split('.')[-1].startswith('test'):
            seen += 1
        if kind == 'pass':
            print(f'ok {case}')
            if expected is not None and tid in expected:
                passing.append(tid)
        elif kind == 'skip':
            skipped.add(tid)
            if expected is None or tid in expected:
                print(f'ok {case} # SKIP {why}')
            else:
                # Not a "# SKIP" directive: this skip is the failure.
                why = why.replace('#', '')
                print(f'not ok {case} (skipped, not an expected skip: {why})')
                failed = True
        else:
            print(f'not ok {case} ({why})')
            for line in traces.get(short, []):
                print(f'#   {line}')
            failed = True
    for tid in passing:
        print(f'# {prefix}: {tid} passed; it is listed as an expected '
              'skip, the list can lose it')
    if expected is not None:
        for tid in sorted(expected - skipped - set(passing)):
            print(f'# {prefix}: {tid} is listed as an expected skip but '
                  'did not run')
    total = ran(log)
    print(f'# {prefix}: {seen} tests reported, the suite ran {total}')
    all_reported = seen == total and total > 0
    print(f'{"ok" if all_reported else "not ok"} {prefix}: every test the '
          'suite ran is reported')
    return 1 if failed or not all_reported else 0


def excused_by(tid, rxe_only):
    """The RXE_ONLY entry (module, module.Class or id) covering @tid."""
    parts = tid.split('.')
    for n in range(len(parts), 0, -1):
        key = '.'.join(parts[:n])
        if key in rxe_only:
            return key
    return None


def compare(orca_log, rxe_log, rxe_only_file):
    orca = {t: (k, w) for t, _s, k, w in parse(orca_log)}
    rxe = {t: (k, w) for t, _s, k, w in parse(rxe_log)}
    rxe_only = id_list(rxe_only_file)
    table = {}
    for tid in sorted(set(orca) | set(rxe)):
        o = orca.get(tid, ('absent', ''))
        r = rxe.get(tid, ('absent', ''))
        print(f'# side by side: {tid}: orca_0 {o[0]}'
              f'{" (" + o[1] + ")" if o[1] else ""}, rxe0 {r[0]}'
              f'{" (" + r[1] + ")" if r[1] else ""}')
        row = table.setdefault(tid.split('.')[0], [0] * 6)
        for i, (kind, _w) in enumerate((r, o)):
            if kind in ('pass', 'fail', 'skip'):
                row[3 * i + ('pass', 'fail', 'skip').index(kind)] += 1
    print('# module: rxe0 passed/failed/skipped, orca_0 passed/failed/skipped')
    sums = [0] * 6
    for module, row in sorted(table.items()):
        sums = [a + b for a, b in zip(sums, row)]
        print(f'# table: {module}: rxe0 {row[0]}/{row[1]}/{row[2]}, '
              f'orca_0 {row[3]}/{row[4]}/{row[5]}')
    print(f'# table: all: rxe0 {sums[0]}/{sums[1]}/{sums[2]}, '
          f'orca_0 {sums[3]}/{sums[4]}/{sums[5]}')
    missing = []
    for tid, (kind, _w) in sorted(rxe.items()):
        if kind != 'pass' or orca.get(tid, ('absent',))[0] == 'pass':
            continue
        key = excused_by(tid, rxe_only)
        if key:
            print(f'# passes on rxe0, not on orca_0: {tid}: excused '
                  f'({key}: {rxe_only[key]})')
        else:
            missing.append(tid)
    for tid in missing:
        print(f'# passes on rxe0, not on orca_0: {tid} '
              f'(orca_0: {orca.get(tid, ("absent",))[0]})')
    ok = not missing and rxe and orca
    print(f'{"ok" if ok else "not ok"} pyverbs: every test that passes on '
          f'rxe0 passes on orca_0 ({len(missing)} do not)')
    return 0 if ok else 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'report':
        return report(*sys.argv[2:5])
    if len(sys.argv) == 5 and sys.argv[1] == 'compare':
        return compare(*sys.argv[2:5])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
