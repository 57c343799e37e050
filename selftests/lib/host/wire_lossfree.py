#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The loss-free wire check of a guest test run (lib/host/host.sh).

Usage: wire_lossfree.py RUN_DIR [--rxe-peer] [--slow-guests] [--mac-changes]
                         [--p2p] [--odp]
       wire_lossfree.py RUN_DIR --totals

Reads the exit logs of the wire switch (RUN_DIR/wire.log; none with --p2p,
two adapters on a point-to-point link) and of every ORCA emulator
(RUN_DIR/g*/emu.log) and prints comment lines ("# ...") with the
counters, then one line: "ok DESCRIPTION" if nothing was retransmitted or
dropped, else "fail DESCRIPTION" naming what was.

Counted as a failure:
  each ORCA adapter: retransmitted packets (but those an RNR NAK asked
    for: that is the responder's flow control, not loss), retry timeouts,
    early retransmissions; received frames dropped because the engine's queue was
    full, by the parser (any reason), by a dead adapter (not those for a QP
    number that is gone or reused: the tail of a torn-down connection); frames its port could not send to the wire or the
    engine could not hand to its port; duplicate requests (its peer
    retransmitted) and sequence NAKs either way (a gap: something was lost);
    responses to nothing outstanding (ghosts: duplicates of responses);
    frames too big
  the switch: frames dropped to a stalled adapter, RoCE frames a QEMU did
    not take (send errors), invalid frames, injected drops and reorders, a
    reordered frame never sent, frames a modelled link's full queue
    dropped (--link-rate: its "exit: egress" line; a queue that holds
    every window in flight drops nothing)
With --rxe-peer (a guest runs Soft-RoCE on its virtio-net), what only rxe's
own retransmissions cause is not ours and is reported but not counted:
duplicate requests and ghosts at an ORCA adapter.  A sequence NAK an ORCA
adapter sent still counts (rxe resends from its oldest unacknowledged PSN:
duplicates, never a gap), and so do the datagrams it dropped for a wrong
Q_Key or for want of a receive WQE: nothing else shows them (but as many
of the latter as RUN_DIR/ud-surplus sums: datagrams a test sent on purpose
past its receiver's last, reported, not counted).
An rxe guest's RoCE frames go through its own network stack, which can
drop them before they reach the wire: its qdisc (fq_codel drops what
waited too long while QEMU did not take the virtio-net ring), eth0's
counters, rxe's send_err (RUN_DIR/g*/netstack and rxe-counters, saved by
the guests).  If it did, that guest's Ethernet lost frames, not the RDMA
wire: the drops are reported, and what ORCA sent again for them
(retransmissions, retry timeouts, early retransmissions, window cuts) and
the sequence NAKs either way are reported, not counted, if nothing else
was dropped.
Drops towards a guest's own virtio-net (QEMU not reading its socket, e.g.
before the guest's driver is up) are reported, not counted: that is the
guest's Ethernet, not the RDMA wire.  So are the frames other than RoCE
that the switch could not give a QEMU (not_roce_dropped: a guest's ARP,
neighbour discovery or TCP, which its IP stack recovers), and the RoCE
frames to a QEMU that had already exited (departed_dropped: the peer's
last ACKs or CM messages after a guest powered off).
With --mac-changes (the test changes a guest's MAC address on purpose),
the frames a port drops for their foreign source MAC (it passes only its
guest's own address) are reported, not counted: the guest sent them from
the address it was given.
With --slow-guests (the run's guests are ORCA_TIMEOUT_SCALE times slower:
the debug kernel), retransmissions, retry timeouts, early retransmissions,
window cuts, duplicate requests and ghosts are reported, not counted, if
no frame was dropped anywhere (every other counter above is 0): a peer
slower than the ACK timeout an application gave its QP (ibv_rc_pingpong's
67 ms) makes the requester time out and send again, as IBTA requires, on a
wire that lost nothing.  Any drop still fails the check, and then the
retransmissions are counted with it.
With --odp (the run's MRs are on demand: Documentation/orca/data-path.rst,
"On-demand paging"), what the adapters send again for their page faults
is reported, not counted, if no frame was dropped anywhere and no
sequence NAK was sent or received: a READ response or an atomic result
that finds no page is dropped and asked for again once the fault is
resolved (a retransmission; the responder answers a duplicate request,
and responses still on their way are ghosts), and a QP stopped on a
fault of its own asks again for what it dropped meanwhile when its timer
runs out (a retry timeout).  The same kinds as --slow-guests'; a
responder's RNR NAKs for its faults are flow control and never count.
A missing exit line (an emulator or the switch killed) fails the check: it
cannot be known to be loss-free.

--totals prints one line for make bench (scripts/bench/bench.sh) instead, the
sums over the run's adapters that logged RoCE counters: "ADAPTERS TX
RESENT EARLY TIMEOUTS" (frames sent, packets sent again, early
retransmissions, retry timeouts); "0 0 0 0 0" if none did.
"""
import glob
import os
import re
import sys


# --mac-changes: a port's drops for a foreign source MAC are not counted.
MAC_CHANGES = False


def last_match(text, pattern):
    m = None
    for m in re.finditer(pattern, text, re.M):
        pass
    return m


def ints(m):
    return [int(x) for x in m.groups()]


# The engine's exit line of RoCE counters (emulator/roce/roce_qp.c), read by
# the check and by --totals alike.
ROCE_EXIT = (r'roce: tx (\d+) rx (\d+) loopback (\d+) '
             r'retransmits (\d+) \(after RNR NAKs (\d+)\) '
             r'timeouts (\d+) early (\d+) '
             r'\(rtt samples (\d+)\) send windows cut (\d+) '
             r'rx queue full (\d+)')


# Datagrams sent past their receiver's last on purpose (main()).
UD_SURPLUS = 0


def check_emu(name, text, rxe_peer, bad, notes, timing, gaps):
    m = last_match(text, ROCE_EXIT)
    if not m:
        # The emulator logs that line only if it sent or received a
        # RoCE frame (emulator/roce/roce_qp.c).
        if 'roce: tx ' not in text and re.search(r'orca-emu: exit', text):
            notes.append(f'{name}: no RoCE traffic')
            return
        bad.append(f'{name}: no RoCE counters at exit')
        return
    tx, rx, _lo, retr, rnr, tmo, early, _rtt, cuts, rxq = ints(m)
    notes.append(f'{name}: tx {tx} rx {rx} retransmits {retr} (after RNR '
                 f'NAKs {rnr}, not counted) timeouts {tmo} early {early} '
                 f'rx queue full {rxq}')
    m = last_match(text, r'roce: round trips: longest (\d+) us')
    if m:
        notes.append(f'{name}: longest round trip {m.group(1)} us')
    for what, v in (('retransmits', retr - rnr), ('retry timeouts', tmo),
                    ('early retransmissions', early),
                    ('send windows cut', cuts)):
        if v:
            timing.append(f'{name}: {what} {v}')
    if rxq:
        bad.append(f'{name}: rx queue full drops {rxq}')
    for m in re.finditer(r'roce: dropped (\d+) received frames: (.*)$',
                         text, re.M):
        bad.append(f'{name}: parser dropped {m.group(1)} ({m.group(2)})')
    m = last_match(text, r'roce: rx dropped: no QP (\d+), QP state (\d+), '
                   r'bad packet (\d+), Q_Key (\d+), no receive WQE (\d+), '
                   r'too big (\d+), response to nothing outstanding (\d+)')
    d = last_match(text, r'roce: duplicate requests (\d+), sequence NAKs '
                   r'tx (\d+) rx (\d+), RNR NAKs tx (\d+) rx (\d+)')
    if not m or not d:
        bad.append(f'{name}: no transport drop counters at exit')
    else:
        noqp, state, badp, qkey, norwqe, big, ghost = ints(m)
        dup, snak_tx, snak_rx, rnr_tx, rnr_rx = ints(d)
        notes.append(f'{name}: rx dropped: no QP {noqp} QP state {state} '
                     f'bad {badp} Q_Key {qkey} no WQE {norwqe} too big {big} '
                     f'ghost {ghost}; duplicates {dup} seq NAKs tx {snak_tx} '
                     f'rx {snak_rx} RNR NAKs tx {rnr_tx} rx {rnr_rx}')
        # Not counted: frames for a QP number that is gone (no QP) or
        # now names another connection (bad packet: its source or type is
        # not the QP's), or for a QP that left the states that take them
        # (QP state: moved to ERR or RESET), the tail of a connection torn
        # down with frames in flight, as ULP teardown does.  A frame of a
        # live connection that is dropped shows as our or its peer's
        # retransmission, which is, or as a gap: a sequence NAK either
        # way, counted with any peer (a peer's retransmission starts at
        # its oldest unacknowledged PSN: duplicates, never a gap).
        counted = [('frames too big', big)]
        # Gaps: with an rxe peer, a frame its own stack dropped may be
        # what ours NAKs or was NAKed for (main()).
        gaps.extend(f'{name}: {what} {v}' for what, v in
                    (('sequence NAKs received', snak_rx),
                     ('sequence NAKs sent', snak_tx)) if v)
        # What a peer's retransmission causes here: duplicates (and
        # duplicated responses) are timing.
        peer_timing = [('duplicate requests', dup), ('ghosts', ghost)]
        if rxe_peer:
            # rxe retransmits on its own timers, which are not ours to
            # assert on, and its counters are not read: what this adapter
            # dropped of rxe's datagrams (wrong Q_Key, no receive WQE)
            # shows nowhere else, so it counts.  The rxe pairings' UD
            # traffic (CM MADs, ibv_ud_pingpong, perftest's UD send) has
            # its receives posted before it can arrive.  Not counted with
            # an ORCA peer: UD traffic that may outrun its receivers by
            # design (UCX's UD transport, the kverbs churn) runs there.
            # But the datagrams a test sent on purpose beyond what its
            # receiver posts for (RUN_DIR/ud-surplus: mckey's rxe sender
            # run again, uverbs-tools.sh), which arrive after it took its
            # last: reported, not counted.
            global UD_SURPLUS
            excused = min(norwqe, UD_SURPLUS)
            UD_SURPLUS -= excused
            if excused:
                notes.append(f'{name}: not counted (rxe sender run again: '
                             f'{excused} datagrams past the receiver\'s '
                             'last): datagrams dropped without a receive '
                             'WQE')
            counted += [('datagrams dropped for their Q_Key', qkey),
                        ('datagrams dropped without a receive WQE',
                         norwqe - excused)]
            for what, v in peer_timing:
                if v:
                    notes.append(f'{name}: not counted (rxe peer): '
                                 f'{what} {v}')
        else:
            timing += [f'{name}: {what} {v}' for what, v in peer_timing if v]
        for what, v in counted:
            if v:
                bad.append(f'{name}: {what} {v}')
    # Multicast (a lost datagram is a receiver's timeout in mckey or
    # pyverbs: these say whether it reached this adapter and a QP).
    m = last_match(text, r'roce: multicast: .*$')
    if m:
        notes.append(f'{name}: {m.group(0)[6:]}')
    m = last_match(text, r'roce: backpressure: .* tx dropped (\d+), '
                   r'rx dropped by a dead adapter (\d+)')
    if m:
        notes.append(f'{name}: {m.group(0)[6:]}')
        txd, dead = ints(m)
        if txd:
            bad.append(f'{name}: transmit drops {txd}')
        if dead:
            bad.append(f'{name}: frames dropped by a dead adapter {dead}')
    m = last_match(text, r'port: .* dropped (\d+) \(foreign source MAC '
                   r'(\d+), not taken by the guest (\d+), to the wire (\d+)\)')
    if not m:
        bad.append(f'{name}: no port counters at exit')
        return
    _all, foreign, to_nic, to_wire = ints(m)
    notes.append(f'{name}: port dropped to the guest {to_nic} '
                 f'(not counted), to the wire {to_wire}, '
                 f'foreign source MAC {foreign}')
    if to_wire:
        bad.append(f'{name}: port dropped {to_wire} frames to the wire')
    if foreign and not MAC_CHANGES:
        bad.append(f'{name}: port dropped {foreign} foreign frames')


def check_wire(text, bad, notes):
    m = last_match(text, r'exit: received (\d+) forwarded (\d+) flooded '
                   r'(\d+) copies (\d+) send_errors (\d+) stall_dropped '
                   r'(\d+) backpressured (\d+) invalid (\d+) fault_dropped '
                   r'(\d+) fault_reordered (\d+) held_unsent (\d+)'
                   r'(?: not_roce_dropped (\d+))?'
                   r'(?: departed_dropped (\d+))?'
                   r'(?: isolated (\d+))?')
    if not m:
        bad.append('switch: no counters at exit')
        return
    recv, fwd, _fl, _cp, senderr, stall, bp, inval, fdrop, freord, held = \
        [int(x) for x in m.groups()[:11]]
    other = int(m.group(12) or 0)
    departed = int(m.group(13) or 0)
    isolated = int(m.group(14) or 0)
    notes.append(f'switch: received {recv} forwarded {fwd} send_errors '
                 f'{senderr} stall_dropped {stall} backpressured {bp} '
                 f'invalid {inval} fault_dropped {fdrop} '
                 f'fault_reordered {freord} held_unsent {held}; '
                 f'not RoCE, to a QEMU that did not read {other} '
                 f'(not counted); RoCE to a QEMU that had exited '
                 f'{departed} (not counted); isolated (--isolate: no '
                 f'traffic between the guests) {isolated}')
    for line in re.findall(r'^.*(?:took no frame for|longest wait for room)'
                           r'.*$', text, re.M):
        notes.append('switch: ' + line.split('orca-wire: ', 1)[-1])
    m = last_match(text, r'exit: egress at (\d+) Mb/s, queues of (\d+) '
                   r'bytes: enqueued (\d+) sent (\d+) dropped (\d+) '
                   r'marked (\d+)')
    egress = 0
    if m:
        rate, qbytes, enq, sent, egress, marked = ints(m)
        notes.append(f'switch: links of {rate} Mb/s, queues of {qbytes} '
                     f'bytes: enqueued {enq} sent {sent} dropped {egress} '
                     f'marked CE {marked}')
    for what, v in (('queue drops', egress),
                    ('send errors', senderr), ('stall drops', stall),
                    ('invalid frames', inval), ('injected drops', fdrop),
                    ('injected reorders', freord), ('held unsent', held)):
        if v:
            bad.append(f'switch: {what} {v}')


def rxe_stack_drops(run, notes):
    """Frames each rxe guest's own network stack dropped (the docstring)."""
    total = 0
    for path in sorted(glob.glob(os.path.join(run, 'g*', 'rxe-counters'))):
        g = os.path.dirname(path)
        name = os.path.basename(g)
        with open(path, errors='replace') as f:
            m = re.search(r'\bsend_err (\d+)', f.read())
        send_err = int(m.group(1)) if m else 0
        try:
            with open(os.path.join(g, 'netstack'), errors='replace') as f:
                text = f.read()
        except OSError:
            text = ''
        qdisc = sum(int(x) for x in re.findall(r'\(dropped (\d+),', text))
        link = {}
        for way in ('RX', 'TX'):
            m = re.search(way + r':\s+bytes\s+packets\s+errors\s+dropped'
                          r'.*\n\s*\d+\s+\d+\s+\d+\s+(\d+)', text)
            link[way] = int(m.group(1)) if m else 0
        n = send_err + qdisc + link['RX'] + link['TX']
        notes.append(f'{name} (rxe): its own network stack dropped {n} '
                     f'frames (qdisc {qdisc}, eth0 rx {link["RX"]} tx '
                     f'{link["TX"]}, rxe send_err {send_err})'
                     + ('' if text else '; no netstack saved'))
        total += n
    return total


def emu_logs(run):
    for log in sorted(glob.glob(os.path.join(run, 'g*', 'emu.log'))):
        with open(log, errors='replace') as f:
            yield os.path.basename(os.path.dirname(log)), f.read()


def totals(run):
    n = tx = resent = early = tmo = 0
    for _name, text in emu_logs(run):
        m = last_match(text, ROCE_EXIT)
        if not m:
            continue
        v = ints(m)
        n += 1
        tx += v[0]
        resent += v[3]
        tmo += v[5]
        early += v[6]
    print(n, tx, resent, early, tmo)
    return 0


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    run = sys.argv[1]
    if '--totals' in sys.argv[2:]:
        return totals(run)
    rxe_peer = '--rxe-peer' in sys.argv[2:]
    slow = '--slow-guests' in sys.argv[2:]
    global MAC_CHANGES
    MAC_CHANGES = '--mac-changes' in sys.argv[2:]
    odp = '--odp' in sys.argv[2:]
    p2p = '--p2p' in sys.argv[2:]
    global UD_SURPLUS
    try:
        with open(os.path.join(run, 'ud-surplus')) as f:
            UD_SURPLUS = sum(int(x) for x in f.read().split())
    except (OSError, ValueError):
        UD_SURPLUS = 0
    bad, notes, timing, gaps = [], [], [], []
    if p2p:
        notes.append('point-to-point link: no switch, the adapters count '
                     'every drop')
    else:
        try:
            with open(os.path.join(run, 'wire.log'), errors='replace') as f:
                check_wire(f.read(), bad, notes)
        except OSError:
            bad.append('switch: no wire.log')
    for name, text in emu_logs(run):
        check_emu(name, text, rxe_peer, bad, notes, timing, gaps)
    rxe_dropped = rxe_stack_drops(run, notes) if rxe_peer else 0
    if rxe_dropped and not bad:
        notes += [f'not counted (the rxe guest dropped {rxe_dropped}): {t}'
                  for t in gaps + timing]
    elif slow and not bad and not gaps:
        notes += [f'not counted (slow guests, no frame dropped): {t}'
                  for t in timing]
    elif odp and not bad and not gaps:
        notes += [f'not counted (on-demand paging, no frame dropped): {t}'
                  for t in timing]
    else:
        bad += gaps + timing
    for n in notes:
        print(f'# {n}')
    desc = 'wire loss-free: 0 retransmissions, 0 drops'
    if rxe_peer:
        desc += ' (rxe peer: its retransmissions not counted)'
    if slow:
        desc += ' (slow guests: retransmissions on a wire that dropped ' \
            'nothing not counted)'
    if odp:
        desc += ' (on-demand paging: what page faults resent on a wire ' \
            'that dropped nothing not counted)'
    if bad:
        print('fail ' + desc + ': ' + '; '.join(bad))
    else:
        print('ok ' + desc)
    return 0


if __name__ == '__main__':
    sys.exit(main())
