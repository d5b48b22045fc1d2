#!/usr/bin/python3
"""redis_py_server_test.py HOST PORT

Server-level commands as redis-py 4.3's own test suite (Debian's
python3-redis) drives them, run by tests/integration/clients.tcl: LOLWUT,
MODULE on a server without modules, MEMORY DOCTOR, SYNC and PSYNC from a
plain client (redis-py's sync()/psync()), and the other calls of that suite
where cairn answered differently from Redis 7.0. DB 9 is flushed: run this against a
scratch server.

Prints "[ok] NAME", "[err] NAME: MESSAGE" per test and, as the last line,
"N passed, N failed"; exits 1 if anything failed.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "helpers"))
import pyharness  # noqa: E402
from pyharness import check, eq, test  # noqa: E402

try:
    import redis
except ImportError as exc:  # pragma: no cover
    pyharness.skip_script("redis-py", "cannot import redis: %s" % exc)

HOST, PORT = pyharness.host_port()
DB = 9

R = redis.Redis(host=HOST, port=PORT, db=DB, socket_timeout=10)

raises = pyharness.raiser(exact=True)


def raw(*args):
    """The reply as the parser gives it, without redis-py's callbacks."""
    conn = R.connection_pool.get_connection(args[0])
    try:
        conn.send_command(*args)
        return conn.read_response()
    finally:
        R.connection_pool.release(conn)


def wait_no_child():
    for _ in range(200):
        if R.info("persistence")["rdb_bgsave_in_progress"] == 0:
            return
        time.sleep(0.05)
    raise AssertionError("a snapshot child is still running")


@test
def lolwut():
    version = R.info("server")["redis_version"]
    eq(("Redis ver. %s\n" % version).encode(), R.lolwut())
    # Bare numbers are the art's parameters, not a version.
    check(b"Redis ver. " in R.lolwut(5, 6, 7, 8), "LOLWUT 5 6 7 8")
    check(b"Redis ver." in R.execute_command("LOLWUT", "VERSION", "7"), "VERSION 7")
    msg = raises(redis.ResponseError, R.execute_command, "LOLWUT", "VERSION", "x")
    eq("value is not an integer or out of range", msg)
    row = raw("COMMAND", "INFO", "lolwut")[0]
    eq([b"lolwut", -1, [b"readonly", b"fast"]], row[:3])


@test
def module_without_modules():
    eq([], R.module_list())
    # enable-module-command defaults to no, as on Redis: LOAD, LOADEX and
    # UNLOAD are refused before they run; LIST and HELP are not.
    for call in (lambda: R.module_load("/some/fake/path"),
                 lambda: R.module_load("/some/fake/path", "arg1", "arg2"),
                 lambda: R.module_loadex("/some/fake/path", ["name", "value"], ["a"]),
                 lambda: R.module_unload("nosuch")):
        msg = raises(redis.ResponseError, call)
        check(msg.startswith("MODULE command not allowed. If the "
                             "enable-module-command option is set to \"local\""),
              msg)
    check(R.execute_command("MODULE", "HELP")[0].startswith(b"MODULE <subcommand>"), "help")
    msg = raises(redis.ResponseError, R.execute_command, "MODULE", "NOSUCH")
    eq("unknown subcommand 'NOSUCH'. Try MODULE HELP.", msg)
    # COMMAND INFO shows the container with its five subcommands.
    row = raw("COMMAND", "INFO", "module")[0]
    eq(b"module", row[0])
    eq([b"module|help", b"module|list", b"module|load", b"module|loadex", b"module|unload"],
       sorted(sub[0] for sub in row[9]))


@test
def memory_doctor_on_a_small_instance():
    # Redis' report below 5 MB of allocations is the "empty" one.
    used = R.info("memory")["used_memory"]
    check(used < 5 * 1024 * 1024, "used_memory %d: not a small instance" % used)
    report = raw("MEMORY", "DOCTOR")
    check(report.startswith(b"Hi Sam, this instance is empty or is using very little memory"),
          report)


@test
def psync_and_sync_from_a_plain_client():
    # No REPLCONF capa eof: a disk snapshot, started at once, so the
    # +FULLRESYNC line and the payload come with no newline before them.
    # (Redis holds one back while another snapshot is being made: wait.)
    R.set("k", "v")
    for _ in range(2):
        wait_no_child()
        c = redis.Redis(host=HOST, port=PORT, socket_timeout=10)
        res = c.psync(c.client_id(), 1)
        check(res.startswith(b"FULLRESYNC "), "psync: %r" % res[:60])
        c.close()
        wait_no_child()
        c = redis.Redis(host=HOST, port=PORT, socket_timeout=10)
        res = c.sync()
        check(res.startswith(b"REDIS00"), "sync: %r" % res[:20])
        c.close()


def main():
    return pyharness.main(R.flushdb, at_end=R.flushdb,
                          brief=(AssertionError, redis.ResponseError))


if __name__ == "__main__":
    sys.exit(main())
