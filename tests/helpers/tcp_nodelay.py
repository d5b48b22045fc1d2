#!/usr/bin/env python3
# tcp_nodelay.py PID FD -- prints the TCP_NODELAY option (0 or 1) of socket
# FD of process PID, taken through pidfd_getfd(2) (Linux 5.6+, needs ptrace
# rights over PID). Used by repl_failover.tcl for repl-disable-tcp-nodelay.
import ctypes
import os
import socket
import sys

SYS_PIDFD_GETFD = 438
pid, fd = int(sys.argv[1]), int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
pidfd = os.pidfd_open(pid)
dup = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
if dup < 0:
    sys.exit("pidfd_getfd: " + os.strerror(ctypes.get_errno()))
s = socket.socket(fileno=dup)
print(1 if s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) else 0)
