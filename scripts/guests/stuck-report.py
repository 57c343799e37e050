#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a guest run that timed out was doing (scripts/guests/run-guests.sh).

Usage: stuck-report.py OUT_DIR PID...

For each PID (orca-wire, every orca-emu, every QEMU still running) the
state, kernel wait channel and system call of each thread, from /proc; and
for each guest directory OUT_DIR/gN with a QMP socket, the vCPU's registers,
the instructions at its program counter, the top of its stack and the words
RDI points at, asked through QMP.  A guest
kernel spinning with interrupts off on its one vCPU prints nothing (no
lockup detector runs), and a QEMU whose vCPU waits for an answer from its
adapter holds the big lock, so its QMP does not answer at all: the report
tells these apart.  Prints to stdout; never fails the run.
"""
import glob
import json
import os
import socket
import sys


def threads(pid):
    out = []
    try:
        cmd = open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\0')[0]
        out.append(f'pid {pid} ({os.path.basename(cmd.decode(errors="replace"))})')
    except OSError:
        return [f'pid {pid}: gone']
    for task in sorted(glob.glob(f'/proc/{pid}/task/*'),
                       key=lambda t: int(os.path.basename(t))):
        def rd(name):
            try:
                return open(os.path.join(task, name)).read().strip()
            except OSError:
                return '?'
        stat = rd('stat')
        state = stat.rsplit(')', 1)[-1].split()[0] if ')' in stat else '?'
        syscall = rd('syscall').split()
        out.append(f'  tid {os.path.basename(task)} {rd("comm")}: state {state}, '
                   f'wchan {rd("wchan") or "-"}, syscall {syscall[0] if syscall else "?"}')
    return out


def qmp(path, commands, timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    f = s.makefile('rw')
    json.loads(f.readline())            # the greeting
    results = []
    for cmd in [{'execute': 'qmp_capabilities'}] + commands:
        f.write(json.dumps(cmd) + '\n')
        f.flush()
        while True:
            msg = json.loads(f.readline())
            if 'return' in msg or 'error' in msg:
                break                   # events are skipped
        results.append(msg)
    s.close()
    return results[1:]


def hmp(line):
    return {'execute': 'human-monitor-command',
            'arguments': {'command-line': line}}


def main():
    out, pids = sys.argv[1], sys.argv[2:]
    print('== threads of the run\'s processes')
    for pid in pids:
        print('\n'.join(threads(pid)))
    for g in sorted(glob.glob(os.path.join(out, 'g*'))):
        sock = os.path.join(g, 'qmp.sock')
        if not os.path.exists(sock):
            continue
        print(f'== {os.path.basename(g)}: vCPU state through QMP')
        try:
            # The stack's words name the callers (resolve them with a
            # guest's /proc/kallsyms: the guests boot with nokaslr), and
            # what RDI points at is often the object a loop waits on.
            for r in qmp(sock, [hmp('info registers'), hmp('x/12i $pc'),
                                hmp('x/192gx $rsp'), hmp('x/32gx $rdi')]):
                text = str(r.get('return', r.get('error')))
                # RFL's IF (0x200) clear: interrupts off.  FPU and vector
                # registers say nothing here.
                print('\n'.join(l for l in text.splitlines()
                                if not l.startswith(('FPR', 'YMM', 'XMM'))))
        except (OSError, ValueError) as e:
            print(f'QMP did not answer ({e}): QEMU\'s main loop is held '
                  '(a vCPU waiting in a device access?)')


if __name__ == '__main__':
    try:
        main()
    except Exception as e:              # a report, never a failure
        print(f'stuck-report: {e}')
