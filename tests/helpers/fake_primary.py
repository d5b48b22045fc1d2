#!/usr/bin/python3
"""fake_primary.py PORT HEX JUNK: a one-shot replication source for
tests/integration/backup.tcl. It accepts one replica, answers its
handshake (PING, INFO, REPLCONF, PSYNC with +FULLRESYNC), sends a sized
payload of the bytes HEX then JUNK bytes 0xaa (a damaged snapshot), and
waits for the replica to hang up. Connections that send nothing (a
probe for the listening port) are skipped."""
import socket, sys
port = int(sys.argv[1]); payload = bytes.fromhex(sys.argv[2]) + b"\xaa" * int(sys.argv[3])
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(1)
def cmd():
    line = f.readline()
    if not line: return None
    n = int(line[1:]); a = []
    for _ in range(n):
        l = int(f.readline()[1:]); a.append(f.read(l + 2)[:-2].decode())
    return a
a = None
while a is None:  # a connection that sends nothing (a probe) is skipped
    c, _ = srv.accept(); f = c.makefile("rb"); a = cmd()
while True:
    name = a[0].upper()
    if name == "PING": c.sendall(b"+PONG\r\n")
    elif name == "INFO": b = b"redis_version:7.0.15\r\n"; c.sendall(b"$%d\r\n%s\r\n" % (len(b), b))
    elif name == "PSYNC":
        c.sendall(b"+FULLRESYNC " + b"a" * 40 + b" 0\r\n$%d\r\n" % len(payload) + payload); break
    else: c.sendall(b"+OK\r\n")
    a = cmd()
try:
    c.recv(1)
except Exception: pass
