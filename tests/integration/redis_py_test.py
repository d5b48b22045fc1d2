#!/usr/bin/python3
"""redis_py_test.py HOST PORT [UNIX_SOCKET_PATH]

Client-interoperability tests with redis-py (Debian 12's python3-redis
4.3.x), run by tests/integration/clients.tcl. Only strings and generic key
commands are used. DB 9 (and DB 10 for COPY/MOVE) are flushed as the tests
go: run this against a scratch server.

Prints "[ok] NAME", "[err] NAME: MESSAGE" or "[skip] NAME: REASON" per test
and, as the last line, "N passed, N failed"; exits 1 if anything failed.
"""

import datetime
import os
import sys
import threading
import time

# The shared harness: tests/helpers/pyharness.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "helpers"))
import pyharness  # noqa: E402
from pyharness import Skip, check, eq, test  # noqa: E402

try:
    import redis
except ImportError as exc:  # pragma: no cover
    pyharness.skip_script("redis-py", "cannot import redis: %s" % exc)

HOST, PORT = pyharness.host_port(' [UNIX_SOCKET_PATH]')
SOCK = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
DB = 9
OTHER_DB = 10

R = redis.Redis(host=HOST, port=PORT, db=DB, decode_responses=True,
                socket_timeout=10)
RB = redis.Redis(host=HOST, port=PORT, db=DB, decode_responses=False,
                 socket_timeout=10)
R2 = redis.Redis(host=HOST, port=PORT, db=OTHER_DB, decode_responses=True,
                 socket_timeout=10)

# raises(exc_class, fn, *args) returns the exception message.
raises = pyharness.raiser()


@test
def decode_responses_true_and_false():
    binval = b"\x00\xff\r\nbin\x80"
    eq(True, RB.set("bin", binval))
    eq(binval, RB.get("bin"))
    eq(len(binval), RB.strlen("bin"))
    text = "h\u00e9llo \u2713 world"
    eq(True, R.set("uni", text))
    eq(text, R.get("uni"))
    eq(text.encode("utf-8"), RB.get("uni"))
    eq(len(text.encode("utf-8")), R.strlen("uni"))
    eq(b"uni", RB.keys("un*")[0])
    eq(["uni"], R.keys("un*"))
    eq(None, R.get("missing"))
    eq(None, RB.get("missing"))
    R.set("int", 12345)
    eq("12345", R.get("int"))
    eq(b"12345", RB.get("int"))
    R.set("float", 1.5)
    eq("1.5", R.get("float"))


@test
def set_ex_px_exat_pxat():
    eq(True, R.set("k", "v", ex=100))
    check(90 <= R.ttl("k") <= 100, "ttl after ex=100: %r" % R.ttl("k"))
    eq(True, R.set("k", "v", px=50000))
    check(40000 <= R.pttl("k") <= 50000, "pttl after px=50000: %r" % R.pttl("k"))
    eq(True, R.set("k", "v", ex=datetime.timedelta(seconds=200)))
    check(190 <= R.ttl("k") <= 200, "ttl after timedelta: %r" % R.ttl("k"))
    eq(True, R.set("k", "v", exat=int(time.time()) + 300))
    check(290 <= R.ttl("k") <= 300, "ttl after exat: %r" % R.ttl("k"))
    eq(True, R.set("k", "v", pxat=int(time.time() * 1000) + 400000))
    check(390 <= R.ttl("k") <= 400, "ttl after pxat: %r" % R.ttl("k"))
    eq(True, R.set("k", "v2"))
    eq(-1, R.ttl("k"))
    msg = raises(redis.ResponseError, R.set, "k", "v", ex=0)
    eq("invalid expire time in 'set' command", msg)
    msg = raises(redis.ResponseError, R.execute_command, "SET", "k", "v", "EX", "abc")
    eq("value is not an integer or out of range", msg)


@test
def set_nx_xx_keepttl_get():
    eq(True, R.set("nx", "a", nx=True))
    eq(None, R.set("nx", "b", nx=True))
    eq("a", R.get("nx"))
    eq(None, R.set("xx", "a", xx=True))
    eq(0, R.exists("xx"))
    eq(True, R.set("nx", "c", xx=True))
    eq("c", R.get("nx"))
    R.set("kt", "1", ex=100)
    eq(True, R.set("kt", "2", keepttl=True))
    check(R.ttl("kt") > 0, "KEEPTTL lost the ttl")
    eq("2", R.get("kt"))
    R.set("kt", "3")
    eq(-1, R.ttl("kt"))
    R.set("g", "old")
    eq("old", R.set("g", "new", get=True))
    eq("new", R.get("g"))
    eq(None, R.set("gnone", "x", get=True))
    eq("x", R.get("gnone"))
    eq("x", R.set("gnone", "y", nx=True, get=True))
    eq("x", R.get("gnone"))
    RB.set("gb", b"\x00old")
    eq(b"\x00old", RB.set("gb", b"new", get=True))
    eq(b"new", RB.get("gb"))
    raises(redis.ResponseError, R.execute_command, "SET", "k", "v", "NX", "XX")


@test
def mget_mset_msetnx():
    eq(True, R.mset({"a": "1", "b": "2", "c d": "three"}))
    eq(["1", "2", None, "three"], R.mget(["a", "b", "nope", "c d"]))
    eq(["1", "2"], R.mget("a", "b"))
    eq(False, R.msetnx({"a": "x", "new1": "y"}))
    eq(None, R.get("new1"))
    eq("1", R.get("a"))
    eq(True, R.msetnx({"new1": "y", "new2": "z"}))
    eq(["y", "z"], R.mget("new1", "new2"))
    raises(redis.ResponseError, R.execute_command, "MSET", "a", "1", "b")


@test
def incr_decr_family():
    eq(1, R.incr("n"))
    eq(11, R.incrby("n", 10))
    eq(16, R.incr("n", 5))
    eq(15, R.decr("n"))
    eq(10, R.decrby("n", 5))
    eq(-5, R.incrby("n", -15))
    eq("-5", R.get("n"))
    eq(1.5, R.incrbyfloat("f", 1.5))
    eq(3.75, R.incrbyfloat("f", "2.25"))
    R.set("f", "10.5")
    eq(10.6, R.incrbyfloat("f", 0.1))
    eq("10.6", R.get("f"))
    eq(5000.0, R.incrbyfloat("e", 5.0e3))
    eq("5000", R.get("e"))
    R.set("big", 9223372036854775806)
    eq(9223372036854775807, R.incr("big"))
    msg = raises(redis.ResponseError, R.incr, "big")
    eq("increment or decrement would overflow", msg)


@test
def append_setrange_getrange_strlen():
    eq(5, R.append("s", "Hello"))
    eq(11, R.append("s", " World"))
    eq(11, R.strlen("s"))
    eq("Hello", R.getrange("s", 0, 4))
    eq("World", R.getrange("s", -5, -1))
    eq("", R.getrange("s", 20, 30))
    eq(11, R.setrange("s", 6, "Redis"))
    eq("Hello Redis", R.get("s"))
    eq(6, R.setrange("pad", 5, "x"))
    eq(b"\x00" * 5 + b"x", RB.get("pad"))
    eq("", R.getrange("missing", 0, -1))
    eq(0, R.strlen("missing"))
    eq(0, R.setrange("empty", 0, ""))
    eq(0, R.exists("empty"))


@test
def getdel_getex():
    R.set("gd", "v")
    eq("v", R.getdel("gd"))
    eq(0, R.exists("gd"))
    eq(None, R.getdel("gd"))
    R.set("ge", "v")
    eq("v", R.getex("ge"))
    eq(-1, R.ttl("ge"))
    eq("v", R.getex("ge", ex=100))
    check(90 <= R.ttl("ge") <= 100, "ttl after GETEX EX: %r" % R.ttl("ge"))
    eq("v", R.getex("ge", persist=True))
    eq(-1, R.ttl("ge"))
    eq("v", R.getex("ge", px=5000))
    check(0 < R.pttl("ge") <= 5000, "pttl after GETEX PX: %r" % R.pttl("ge"))
    eq("v", R.getex("ge", exat=int(time.time()) + 50))
    check(40 <= R.ttl("ge") <= 50, "ttl after GETEX EXAT")
    eq(None, R.getex("nokey", ex=10))
    eq(0, R.exists("nokey"))


@test
def delete_exists_type():
    R.mset({"a": "1", "b": "2", "c": "3"})
    eq(3, R.exists("a", "b", "a"))
    eq(0, R.exists("zz"))
    eq("string", R.type("a"))
    eq(b"string", RB.type("a"))
    eq("none", R.type("zz"))
    eq(2, R.delete("a", "b", "zz"))
    eq(0, R.delete("a"))
    eq(1, R.exists("c"))


@test
def expire_ttl_pttl_persist_expireat():
    R.set("e", "v")
    eq(-1, R.ttl("e"))
    eq(-1, R.pttl("e"))
    eq(-2, R.ttl("nope"))
    eq(-2, R.pttl("nope"))
    eq(True, R.expire("e", 100))
    check(90 <= R.ttl("e") <= 100, "ttl %r" % R.ttl("e"))
    check(90000 <= R.pttl("e") <= 100000, "pttl %r" % R.pttl("e"))
    eq(False, R.expire("nope", 100))
    eq(True, R.persist("e"))
    eq(False, R.persist("e"))
    eq(-1, R.ttl("e"))
    eq(True, R.expire("e", datetime.timedelta(minutes=2)))
    check(110 <= R.ttl("e") <= 120, "ttl after timedelta %r" % R.ttl("e"))
    eq(True, R.pexpire("e", 30000))
    check(20000 <= R.pttl("e") <= 30000, "pttl after pexpire")
    eq(True, R.expireat("e", int(time.time()) + 500))
    check(490 <= R.ttl("e") <= 500, "ttl after expireat %r" % R.ttl("e"))
    when = datetime.datetime.now() + datetime.timedelta(seconds=600)
    eq(True, R.expireat("e", when))
    check(590 <= R.ttl("e") <= 600, "ttl after expireat(datetime) %r" % R.ttl("e"))
    eq(True, R.pexpireat("e", int(time.time() * 1000) + 700000))
    check(690 <= R.ttl("e") <= 700, "ttl after pexpireat")
    # Redis 7.0 EXPIRE options.
    eq(False, R.expire("e", 10, nx=True))
    eq(True, R.expire("e", 1000, gt=True))
    eq(False, R.expire("e", 10, gt=True))
    eq(True, R.expire("e", 10, lt=True))
    eq(True, R.expire("e", 20, xx=True))
    check(10 < R.ttl("e") <= 20, "ttl after XX")
    # An expiry in the past deletes the key.
    eq(True, R.expireat("e", int(time.time()) - 10))
    eq(0, R.exists("e"))
    R.set("short", "v", px=100)
    deadline = time.time() + 5
    while R.exists("short") and time.time() < deadline:
        time.sleep(0.05)
    eq(None, R.get("short"))


@test
def rename_renamenx():
    R.set("src", "v", ex=100)
    eq(True, R.rename("src", "dst"))
    eq(0, R.exists("src"))
    eq("v", R.get("dst"))
    check(R.ttl("dst") > 0, "RENAME lost the ttl")
    msg = raises(redis.ResponseError, R.rename, "src", "x")
    eq("no such key", msg)
    R.set("other", "o")
    eq(False, R.renamenx("dst", "other"))
    eq("v", R.get("dst"))
    eq(True, R.renamenx("dst", "fresh"))
    eq("v", R.get("fresh"))
    eq(True, R.rename("fresh", "other"))
    eq("v", R.get("other"))


@test
def copy_and_move():
    R2.flushdb()
    R.set("cs", "v1", ex=100)
    eq(True, R.copy("cs", "cd"))
    eq("v1", R.get("cd"))
    check(R.ttl("cd") > 0, "COPY lost the ttl")
    R.set("cs", "v2")
    eq(False, R.copy("cs", "cd"))
    eq("v1", R.get("cd"))
    eq(True, R.copy("cs", "cd", replace=True))
    eq("v2", R.get("cd"))
    eq(False, R.copy("nope", "cd2"))
    eq(True, R.copy("cs", "indb10", destination_db=OTHER_DB))
    eq("v2", R2.get("indb10"))
    eq(None, R.get("indb10"))
    R.set("mv", "m")
    eq(True, R.move("mv", OTHER_DB))
    eq(None, R.get("mv"))
    eq("m", R2.get("mv"))
    R.set("mv", "again")
    eq(False, R.move("mv", OTHER_DB))
    eq("again", R.get("mv"))
    eq(False, R.move("nope", OTHER_DB))
    R2.flushdb()


@test
def scan_iter_keys():
    with R.pipeline(transaction=False) as p:
        for i in range(200):
            p.set("scan:%d" % i, i)
        for i in range(50):
            p.set("other:%d" % i, i)
        p.execute()
    want = set("scan:%d" % i for i in range(200))
    got = list(R.scan_iter(match="scan:*", count=20))
    eq(want, set(got))
    check(len(got) >= 200, "scan_iter returned %d keys" % len(got))
    eq(250, len(set(R.scan_iter(count=7))))
    eq(want, set(k.decode() for k in RB.scan_iter(match=b"scan:*")))
    eq(250, len(set(R.scan_iter(_type="string", count=50))))
    cursor, seen, calls = 0, set(), 0
    while True:
        cursor, keys = R.scan(cursor, match="scan:1??", count=30)
        check(isinstance(cursor, int), "cursor is not an int: %r" % (cursor,))
        seen.update(keys)
        calls += 1
        if cursor == 0 or calls > 1000:
            break
    eq(set("scan:%d" % i for i in range(100, 200)), seen)
    eq(sorted("scan:1%d" % i for i in range(10)), sorted(R.keys("scan:1?")))
    eq(250, len(R.keys()))
    eq([], R.keys("nomatch*"))
    eq(sorted(["other:4"] + ["other:4%d" % i for i in range(10)]),
       sorted(R.keys("other:4*")))


@test
def dbsize_flushdb():
    R2.flushdb()
    R.mset({"x%d" % i: i for i in range(37)})
    R2.set("keep", "1")
    eq(37, R.dbsize())
    eq(1, R2.dbsize())
    eq(True, R.flushdb())
    eq(0, R.dbsize())
    eq(1, R2.dbsize())
    eq("1", R2.get("keep"))
    R2.flushdb()
    eq(0, R2.dbsize())


@test
def pipeline_100_commands():
    p = R.pipeline(transaction=False)
    for i in range(50):
        p.set("p:%d" % i, "v%d" % i)
        p.incr("pcount")
    res = p.execute()
    eq(100, len(res))
    eq([True] * 50, res[0::2])
    eq(list(range(1, 51)), res[1::2])
    p = R.pipeline(transaction=False)
    for i in range(50):
        p.get("p:%d" % i)
    p.dbsize()
    p.ping()
    res = p.execute()
    eq(["v%d" % i for i in range(50)], res[:50])
    eq([51, True], res[50:])
    # An error in the middle: the other commands still run.
    p = R.pipeline(transaction=False)
    p.set("pe", "abc")
    p.incr("pe")
    p.get("pe")
    res = p.execute(raise_on_error=False)
    eq(True, res[0])
    check(isinstance(res[1], redis.ResponseError), "expected an error: %r" % (res[1],))
    eq("abc", res[2])
    p = R.pipeline(transaction=False)
    p.incr("pe")
    p.set("pe2", "x")
    raises(redis.ResponseError, p.execute)
    eq("x", R.get("pe2"))
    eq(True, R.ping())


@test
def ping_echo():
    eq(True, R.ping())
    eq(True, RB.ping())
    eq("hi there", R.echo("hi there"))
    eq(b"\x00\xff\r\n", RB.echo(b"\x00\xff\r\n"))
    eq(b"", RB.echo(b""))


@test
def info_parsing():
    info = R.info()
    check(isinstance(info, dict), "info() is not a dict")
    for field in ("redis_version", "tcp_port", "connected_clients", "used_memory",
                  "uptime_in_seconds", "total_commands_processed"):
        check(field in info, "INFO has no %s field" % field)
    eq(PORT, info["tcp_port"])
    check(isinstance(info["connected_clients"], int) and info["connected_clients"] >= 1,
          "connected_clients %r" % info["connected_clients"])
    check(isinstance(info["used_memory"], int) and info["used_memory"] > 0,
          "used_memory %r" % info["used_memory"])
    eq(PORT, R.info("server")["tcp_port"])
    check("connected_clients" not in R.info("server"), "INFO server has client fields")
    R.set("ks1", "a")
    R.set("ks2", "b", ex=100)
    R.set("ks3", "c")
    ks = R.info("keyspace")
    check("db%d" % DB in ks, "no db%d in INFO keyspace: %r" % (DB, ks))
    db = ks["db%d" % DB]
    eq(3, db["keys"])
    eq(1, db["expires"])
    check("avg_ttl" in db, "no avg_ttl in %r" % db)
    eq(ks, RB.info("keyspace"))
    stats = R.info("stats")
    check(stats["total_connections_received"] >= 1, "total_connections_received")
    check("keyspace_hits" in stats, "no keyspace_hits in INFO stats")


@test
def client_setname_getname_list_id():
    c = redis.Redis(host=HOST, port=PORT, db=DB, decode_responses=True,
                    single_connection_client=True, socket_timeout=10)
    try:
        cid = c.client_id()
        check(isinstance(cid, int) and cid > 0, "client_id %r" % cid)
        eq(cid, c.client_id())
        eq(None, c.client_getname())
        eq(True, c.client_setname("py-client"))
        eq("py-client", c.client_getname())
        entries = c.client_list()
        check(isinstance(entries, list) and len(entries) >= 1, "client_list %r" % entries)
        mine = [e for e in entries if e.get("id") == str(cid)]
        eq(1, len(mine), "entries with my id")
        eq("py-client", mine[0]["name"])
        eq(str(DB), mine[0]["db"])
        eq("client|list", mine[0]["cmd"])
        check(any(e.get("id") == str(cid) for e in c.client_list(_type="normal")),
              "not in CLIENT LIST TYPE normal")
        eq(1, len(c.client_list(client_id=[str(cid)])))
        info = c.client_info()
        eq(str(cid), str(info["id"]))
        eq("py-client", info["name"])
        raises(redis.ResponseError, c.client_setname, "has space")
        eq(True, c.client_setname(""))
        eq(None, c.client_getname())
    finally:
        c.close()


@test
def config_get_set():
    eq({"maxmemory": "0"}, R.config_get("maxmemory"))
    mm = R.config_get("maxmemory*")
    for k in ("maxmemory", "maxmemory-policy", "maxmemory-samples"):
        check(k in mm, "CONFIG GET maxmemory* has no %s: %r" % (k, mm))
    old = R.config_get("maxmemory-policy")["maxmemory-policy"]
    try:
        eq(True, R.config_set("maxmemory-policy", "allkeys-lru"))
        eq({"maxmemory-policy": "allkeys-lru"}, R.config_get("maxmemory-policy"))
        eq(True, R.config_set("slowlog-max-len", 77))
        eq({"slowlog-max-len": "77"}, R.config_get("slowlog-max-len"))
    finally:
        R.config_set("maxmemory-policy", old)
        R.config_set("slowlog-max-len", 128)
    eq({"maxmemory-policy": old}, R.config_get("maxmemory-policy"))
    eq({}, R.config_get("no-such-param-*"))
    raises(redis.ResponseError, R.config_set, "no-such-param", "1")
    raises(redis.ResponseError, R.config_set, "maxmemory-policy", "bogus")


@test
def resp3():
    raise Skip("redis-py %s has no RESP3 support (HELLO 3 needs redis-py >= 5)"
               % redis.__version__)


@test
def error_handling():
    R.set("str", "not a number")
    msg = raises(redis.ResponseError, R.incr, "str")
    eq("value is not an integer or out of range", msg)
    msg = raises(redis.ResponseError, R.incrbyfloat, "str", 1)
    eq("value is not a valid float", msg)
    msg = raises(redis.ResponseError, R.execute_command, "GET")
    eq("wrong number of arguments for 'get' command", msg)
    msg = raises(redis.ResponseError, R.execute_command, "SET", "only-key")
    eq("wrong number of arguments for 'set' command", msg)
    msg = raises(redis.ResponseError, R.execute_command, "NOSUCHCMD", "a")
    check(msg.startswith("unknown command 'NOSUCHCMD'"), "unknown command: %r" % msg)
    msg = raises(redis.ResponseError, R.execute_command, "SELECT", 1000)
    eq("DB index is out of range", msg)
    # The connection is still usable after the errors.
    eq("not a number", R.get("str"))
    eq(True, R.ping())


@test
def connection_pool_reuse():
    pool = redis.ConnectionPool(host=HOST, port=PORT, db=DB, max_connections=4,
                                decode_responses=True, socket_timeout=10)
    a = redis.Redis(connection_pool=pool)
    b = redis.Redis(connection_pool=pool)
    try:
        ids = set(a.client_id() for _ in range(20)) | set(b.client_id() for _ in range(20))
        eq(1, len(ids), "distinct connections for sequential commands")
        eq(1, len(pool._available_connections) + len(pool._in_use_connections))
        # Concurrent use: at most max_connections connections, no lost updates.
        errors = []

        def worker():
            try:
                for _ in range(100):
                    a.incr("pool:counter")
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        eq([], errors)
        eq("400", a.get("pool:counter"))
        total = len(pool._available_connections) + len(pool._in_use_connections)
        check(1 <= total <= 4, "pool has %d connections" % total)
        # After a disconnect the pool reconnects transparently.
        pool.disconnect()
        eq(True, a.ping())
    finally:
        pool.disconnect()
    bp = redis.BlockingConnectionPool(host=HOST, port=PORT, db=DB, max_connections=1,
                                      timeout=5, socket_timeout=10)
    try:
        c = redis.Redis(connection_pool=bp)
        eq(1, len(set(c.client_id() for _ in range(10))))
    finally:
        bp.disconnect()


@test
def unix_socket():
    if SOCK is None:
        raise Skip("no unix socket path given (argv[3])")
    u = redis.Redis(unix_socket_path=SOCK, db=DB, decode_responses=True,
                    socket_timeout=10)
    try:
        eq(True, u.ping())
        eq(True, u.set("unix:k", "via socket"))
        eq("via socket", R.get("unix:k"))
        eq("via socket", u.get("unix:k"))
        info = u.client_info()
        check("U" in info["flags"], "flags of a unix socket client: %r" % info["flags"])
        with u.pipeline(transaction=False) as p:
            for i in range(100):
                p.incr("unix:n")
            res = p.execute()
        eq(list(range(1, 101)), res)
    finally:
        u.close()


def main():
    return pyharness.main(R.flushdb, at_end=R.flushdb,
                          brief=(AssertionError, redis.ResponseError))


if __name__ == "__main__":
    sys.exit(main())
