#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
#
# A remote shell for mpirun between test guests, which have no sshd: the
# launcher's plm_rsh_agent (PRRTE calls it as "AGENT [OPTIONS] HOST
# COMMAND...", as it would ssh).
#
#   rsh_agent.py --serve ADDR PORT   (each guest) run commands for clients
#   rsh_agent.py HOST COMMAND...     (the launcher) run COMMAND on HOST
#
# As sshd does, the server runs the words of COMMAND joined by spaces with
# /bin/sh -c, stdin from /dev/null, in the server's own environment (the
# guest script's: RDMAV_DRIVERS, UCX_*), and sends its stdout and stderr
# back as they come, then its exit status, which the client exits with.
# A client that goes away (mpirun killing its launch) kills the command's
# process group.  The port is RSH_AGENT_PORT (default 2222).
#
# Frames, both ways: one type byte, a 4-byte big-endian length, the data.
# Client to server: "c" the command (UTF-8).  Server to client: "o" stdout,
# "e" stderr, "x" the exit status as text (a signal's: 128 + its number).
# Test guests only: no authentication; it listens on the test wire.
# (python3 -S, and the server's modules imported by the server only: the
# client starts once per remote daemon, and under TCG every module costs.)
import os
import socket
import struct
import sys


def send_frame(sock, kind, data):
    sock.sendall(kind + struct.pack(">I", len(data)) + data)


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_frame(sock):
    head = recv_exact(sock, 5)
    if head is None:
        return None, None
    (n,) = struct.unpack(">I", head[1:])
    data = recv_exact(sock, n)
    if data is None:
        return None, None
    return head[:1], data


def serve_one(conn):
    import selectors
    import signal
    import subprocess

    kind, cmd = recv_frame(conn)
    if kind != b"c":
        return
    proc = subprocess.Popen(["/bin/sh", "-c", cmd.decode()],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, b"o")
    sel.register(proc.stderr, selectors.EVENT_READ, b"e")
    sel.register(conn, selectors.EVENT_READ, None)
    open_pipes = 2
    while open_pipes:
        for key, _ in sel.select():
            if key.data is None:
                # The client sends nothing more: readable means gone.
                if not conn.recv(1, socket.MSG_PEEK):
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait()
                    return
                continue
            data = os.read(key.fd, 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_pipes -= 1
                continue
            try:
                send_frame(conn, key.data, data)
            except OSError:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait()
                return
    rc = proc.wait()
    if rc < 0:
        rc = 128 - rc
    send_frame(conn, b"x", str(rc).encode())


def serve(addr, port):
    import signal

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(16)
    # Children reap themselves: each connection is a process of its own.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        conn, _ = srv.accept()
        if os.fork() == 0:
            srv.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                serve_one(conn)
            finally:
                os._exit(0)
        conn.close()


def client(argv):
    # ssh-style options before the host (none are needed here) are skipped.
    while argv and argv[0].startswith("-"):
        argv = argv[1:]
    if len(argv) < 2:
        sys.stderr.write("usage: rsh_agent.py HOST COMMAND...\n")
        return 255
    host, cmd = argv[0], " ".join(argv[1:])
    port = int(os.environ.get("RSH_AGENT_PORT", "2222"))
    try:
        sock = socket.create_connection((host, port), timeout=30)
    except OSError as e:
        sys.stderr.write(f"rsh_agent: {host}:{port}: {e}\n")
        return 255
    sock.settimeout(None)
    send_frame(sock, b"c", cmd.encode())
    out = {b"o": sys.stdout.buffer, b"e": sys.stderr.buffer}
    while True:
        kind, data = recv_frame(sock)
        if kind is None:
            sys.stderr.write(f"rsh_agent: {host}: connection lost\n")
            return 255
        if kind == b"x":
            return int(data)
        out[kind].write(data)
        out[kind].flush()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]))
        return 0
    return client(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
