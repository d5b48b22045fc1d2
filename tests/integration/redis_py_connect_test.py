#!/usr/bin/python3
"""redis_py_connect_test.py HOST PORT AUTH_PORT PASSWORD

What redis-py (Debian 12's python3-redis 4.3.x) sends when it connects and
when it learns the server's command table, run by
tests/integration/clients.tcl against a scratch server (PORT, no password)
and a second one started with requirepass PASSWORD (AUTH_PORT):

  * Connection.on_connect: AUTH [user] pass, CLIENT SETNAME, SELECT;
  * HELLO 2 (with AUTH and SETNAME); HELLO 3 is out of reach: this
    redis-py has no RESP3 parser (see the resp3 test);
  * a bare COMMAND through r.command(), and redis-py's own CommandsParser,
    which RedisCluster builds from it to find the keys of every command
    (COMMAND GETKEYS for movable keys);
  * COMMAND COUNT/LIST/DOCS/GETKEYS/GETKEYSANDFLAGS, INFO;
  * CLIENT SETINFO (redis-py 5 sends it on connect; Redis 7.0 does not know
    it), CLUSTER INFO/SLOTS, READONLY, READWRITE, ASKING (errors without
    cluster mode), and RedisCluster itself against a standalone server;
  * pipelines and a MULTI/EXEC transaction holding all of these.

Expected values are those of redis-server 7.0.15. Uses DB 11 (flushed).
Prints "[ok] NAME", "[err] NAME: MESSAGE" or "[skip] NAME: REASON" per test
and, as the last line, "N passed, N failed"; exits 1 if anything failed.
"""

import os
import sys

# The shared harness: tests/helpers/pyharness.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "helpers"))
import pyharness  # noqa: E402
from pyharness import Skip, check, eq, test  # noqa: E402

try:
    import redis
    from redis.commands.parser import CommandsParser
except ImportError as exc:  # pragma: no cover
    pyharness.skip_script("redis-py", "cannot import redis: %s" % exc)

if len(sys.argv) != 5:
    sys.stderr.write("usage: %s HOST PORT AUTH_PORT PASSWORD\n" % sys.argv[0])
    sys.exit(2)

HOST = sys.argv[1]
PORT = int(sys.argv[2])
AUTH_PORT = int(sys.argv[3])
PASSWORD = sys.argv[4]
DB = 11
DISABLED = "This instance has cluster support disabled"
SETINFO = "unknown subcommand 'SETINFO'. Try CLIENT HELP."

R = redis.Redis(host=HOST, port=PORT, db=DB, decode_responses=True, socket_timeout=10)

# raises(exc_class, fn, *args) wants exactly exc_class (not a subclass, so
# that an error mapped to a special class shows); returns the message.
raises = pyharness.raiser(exact=True)


def single(port=PORT, **kwargs):
    """A client on one connection of its own, so per-connection state
    (name, protocol, authentication) is what the test set."""
    kwargs.setdefault("decode_responses", True)
    return redis.Redis(host=HOST, port=port, single_connection_client=True,
                       socket_timeout=10, **kwargs)


def flat_dict(reply):
    """A RESP2 flat key/value array (HELLO, COMMAND DOCS maps) as a dict."""
    return dict(zip(reply[0::2], reply[1::2]))


def cmdstat(name):
    """INFO commandstats of one command as a dict ({} before its first call)."""
    return R.info("commandstats").get("cmdstat_" + name, {})


@test
def command_table():
    table = R.command()
    check(isinstance(table, dict), "command() is not a dict: %r" % type(table))
    count = R.command_count()
    eq(count, len(table), "entries of COMMAND vs COMMAND COUNT")
    names = R.command_list()
    eq(sorted(n for n in names if "|" not in n), sorted(table))
    for name in ("get", "set", "hello", "command", "info", "client", "config",
                 "cluster", "readonly", "readwrite", "asking"):
        check(name in table, "%s not in COMMAND" % name)
    get = table["get"]
    eq("get", get["name"])
    eq(2, get["arity"])
    eq(["readonly", "fast"], get["flags"])
    eq((1, 1, 1), (get["first_key_pos"], get["last_key_pos"], get["step_count"]))
    eq([], get["tips"])
    eq(1, len(get["key_specifications"]))
    eq([], get["subcommands"])
    mset = table["mset"]
    eq((-3, 1, -1, 2), (mset["arity"], mset["first_key_pos"], mset["last_key_pos"],
                        mset["step_count"]))
    check("movablekeys" in table["zunionstore"]["flags"], "zunionstore has movablekeys")
    subs = sorted(s[0] for s in table["config"]["subcommands"])
    eq(["config|get", "config|help", "config|resetstat", "config|rewrite", "config|set"], subs)
    cluster = sorted(s[0] for s in table["cluster"]["subcommands"])
    eq(27, len(cluster), "CLUSTER subcommands: %r" % cluster)
    for name in ("cluster|info", "cluster|slots", "cluster|shards", "cluster|nodes"):
        check(name in cluster, "%s not a CLUSTER subcommand" % name)
    eq((1, ["loading", "stale", "fast"]), (table["readonly"]["arity"], table["readonly"]["flags"]))
    # The same request spelled out, and with bytes replies.
    eq(table, R.execute_command("COMMAND"))
    rb = redis.Redis(host=HOST, port=PORT, socket_timeout=10)
    try:
        eq(sorted(table), sorted(rb.command()))
    finally:
        rb.close()


@test
def commands_parser_of_cluster_clients():
    # RedisCluster's key finder: COMMAND once, then key positions, COMMAND
    # GETKEYS for movable keys, hardcoded rules for Pub/Sub.
    p = CommandsParser(R)
    eq(R.command_count(), len(p.commands))
    eq(["k"], p.get_keys(R, "GET", "k"))
    eq(["a", "b"], p.get_keys(R, "MSET", "a", "1", "b", "2"))
    eq(["a", "b", "c"], p.get_keys(R, "DEL", "a", "b", "c"))
    eq(["src", "dst"], p.get_keys(R, "LMOVE", "src", "dst", "LEFT", "RIGHT"))
    eq(["dst", "a", "b"], p.get_keys(R, "ZUNIONSTORE", "dst", "2", "a", "b", "WEIGHTS", "1", "2"))
    eq(["k", "d"], p.get_keys(R, "SORT", "k", "BY", "w_*", "STORE", "d"))
    eq(["a", "b"], p.get_keys(R, "LMPOP", "2", "a", "b", "LEFT"))
    eq(None, p.get_keys(R, "ZUNION", "0", "a"))
    eq(["k"], p.get_keys(R, "OBJECT", "ENCODING", "k"))
    eq(["k"], p.get_keys(R, "MEMORY USAGE", "k"))
    eq(["ch"], p.get_keys(R, "PUBLISH", "ch", "msg"))
    eq(["a", "b"], p.get_keys(R, "SUBSCRIBE", "a", "b"))
    eq(None, p.get_keys(R, "PING"))
    msg = raises(redis.RedisError, p.get_keys, R, "NOSUCHCMD", "a")
    eq("NOSUCHCMD command doesn't exist in Redis commands", msg)


@test
def command_subcommands():
    eq(28, len(R.command_list(pattern="cluster*")))
    eq(["command|getkeys", "command|getkeysandflags"],
       sorted(R.command_list(pattern="command|getkeys*")))
    conn = R.command_list(category="connection")
    for name in ("hello", "auth", "client|setname", "readonly", "readwrite", "asking"):
        check(name in conn, "%s not in COMMAND LIST FILTERBY ACLCAT connection" % name)
    eq([], R.command_list(module="nosuchmodule"))
    eq(["a", "b"], R.command_getkeys("MSET", "a", "1", "b", "2"))
    eq([["a", ["RW", "access", "delete"]], ["b", ["RW", "insert"]]],
       R.command_getkeysandflags("LMOVE", "a", "b", "LEFT", "RIGHT"))
    # SET's key spec has variable_flags; with GET the real flags are given.
    eq([["k", ["RW", "access", "update"]]], R.command_getkeysandflags("SET", "k", "v", "GET"))
    eq([["k", ["OW", "update"]]], R.command_getkeysandflags("SET", "k", "v"))
    msg = raises(redis.ResponseError, R.command_getkeys, "ECHO", "x")
    eq("The command has no key arguments", msg)
    msg = raises(redis.ResponseError, R.command_getkeys, "NOSUCHCMD", "x")
    eq("Invalid command specified", msg)
    msg = raises(redis.ResponseError, R.command_getkeys, "GET", "a", "b")
    eq("Invalid number of arguments specified for command", msg)
    # This redis-py refuses command_docs()/command_info() itself, so the
    # requests are spelled out. cairn has no argument docs: only the fields
    # both servers return are compared.
    docs = R.execute_command("COMMAND DOCS", "get", "nosuchcommand", "cluster|info")
    eq(["get", "cluster|info"], docs[0::2])
    get = flat_dict(docs[1])
    eq(("Get the value of a key", "1.0.0", "string"), (get["summary"], get["since"], get["group"]))
    info = flat_dict(docs[3])
    eq(("Provides info about Redis Cluster node state", "3.0.0", "cluster"),
       (info["summary"], info["since"], info["group"]))
    entry = R.execute_command("COMMAND INFO", "get", "nosuchcommand")
    eq(2, len(entry))
    eq(["get", 2, ["readonly", "fast"], 1, 1, 1, ["@read", "@string", "@fast"], []],
       entry[0][:8])
    eq(None, entry[1])


@test
def hello_2():
    c = single()
    try:
        hello = flat_dict(c.execute_command("HELLO", "2"))
        eq({"server", "version", "proto", "id", "mode", "role", "modules"}, set(hello))
        eq(("redis", "7.0.15", 2, "standalone", "master", []),
           (hello["server"], hello["version"], hello["proto"], hello["mode"],
            hello["role"], hello["modules"]))
        eq(c.client_id(), hello["id"])
        hello = flat_dict(c.execute_command("HELLO", "2", "SETNAME", "py-hello"))
        eq(2, hello["proto"])
        eq("py-hello", c.client_getname())
        msg = raises(redis.ResponseError, c.execute_command, "HELLO", "4")
        eq("NOPROTO unsupported protocol version", msg)
        msg = raises(redis.ResponseError, c.execute_command, "HELLO", "2", "SETNAME", "a b")
        eq("Client names cannot contain spaces, newlines or special characters.", msg)
        eq("py-hello", c.client_getname())
    finally:
        c.close()


@test
def hello_2_auth_setname():
    # No password given to redis-py: the HELLO itself authenticates.
    c = single(AUTH_PORT)
    try:
        msg = raises(redis.AuthenticationError, c.get, "k")
        eq("Authentication required.", msg)
        msg = raises(redis.ResponseError, c.execute_command, "HELLO", "2", "AUTH", "default", "wrong")
        eq("WRONGPASS invalid username-password pair or user is disabled.", msg)
        hello = flat_dict(c.execute_command("HELLO", "2", "AUTH", "default", PASSWORD,
                                            "SETNAME", "py-auth"))
        eq((2, "master"), (hello["proto"], hello["role"]))
        eq("py-auth", c.client_getname())
        eq("default", c.client_info()["user"])
        eq(None, c.get("k"))
    finally:
        c.close()


@test
def resp3():
    # redis-py 4.3 has no RESP3 parser (protocol=3 came in redis-py 5.0):
    # a HELLO 3 map reply is a protocol error to it. Shown here so the skip
    # is a fact about the client, not an assumption.
    c = single()
    try:
        msg = raises(redis.exceptions.InvalidResponse, c.execute_command, "HELLO", "3")
        check(msg.startswith("Protocol Error: b'%7'"), "HELLO 3 reply seen as %r" % msg)
    finally:
        c.close()
    raise Skip("redis-py %s has no RESP3 support (HELLO 3 replies a map it cannot parse; "
               "needs redis-py >= 5)" % redis.__version__)


@test
def on_connect_auth_setname_select():
    # What Connection.on_connect sends: AUTH default s3cret, CLIENT SETNAME,
    # SELECT 3, before the first command.
    c = single(AUTH_PORT, username="default", password=PASSWORD, client_name="py-conn", db=3)
    try:
        info = c.client_info()
        eq(("py-conn", 3, "default"), (info["name"], info["db"], info["user"]))
        eq("py-conn", c.client_getname())
        eq(True, c.set("onconnect", "v"))
    finally:
        c.close()
    # Password only: AUTH s3cret.
    c = single(AUTH_PORT, password=PASSWORD, db=3)
    try:
        eq("v", c.get("onconnect"))
        eq(1, c.delete("onconnect"))
    finally:
        c.close()
    # A single-connection client connects in its constructor, which so
    # raises what on_connect met.
    msg = raises(redis.ResponseError, single, AUTH_PORT, username="default", password="wrong")
    eq("WRONGPASS invalid username-password pair or user is disabled.", msg)
    msg = raises(redis.ResponseError, single, AUTH_PORT, password=PASSWORD, client_name="bad name")
    eq("Client names cannot contain spaces, newlines or special characters.", msg)
    # Without a password the first command meets NOAUTH.
    pool = redis.Redis(host=HOST, port=AUTH_PORT, socket_timeout=10)
    try:
        eq("Authentication required.", raises(redis.AuthenticationError, pool.get, "k"))
    finally:
        pool.close()


@test
def client_setinfo_unknown_in_7_0():
    c = single(client_name="py-setinfo")
    try:
        eq(SETINFO, raises(redis.ResponseError, c.execute_command,
                           "CLIENT SETINFO", "lib-name", "redis-py"))
        eq(SETINFO, raises(redis.ResponseError, c.execute_command,
                           "CLIENT SETINFO", "lib-ver", redis.__version__))
        # The connection goes on, name unchanged, and no lib-name field.
        eq("py-setinfo", c.client_getname())
        check("lib-name" not in c.client_info(), "CLIENT INFO has lib-name")
    finally:
        c.close()


@test
def cluster_commands_without_cluster_mode():
    before = cmdstat("cluster|info").get("failed_calls", 0)
    for args in (("CLUSTER INFO",), ("CLUSTER SLOTS",), ("CLUSTER SHARDS",),
                 ("CLUSTER NODES",), ("CLUSTER KEYSLOT", "k"), ("ASKING",)):
        eq(DISABLED, raises(redis.ResponseError, R.execute_command, *args), " ".join(args))
    eq(DISABLED, raises(redis.ResponseError, R.cluster, "info"))
    eq(DISABLED, raises(redis.ResponseError, R.readonly))
    eq(DISABLED, raises(redis.ResponseError, R.readwrite))
    eq("unknown subcommand 'NOSUCH'. Try CLUSTER HELP.",
       raises(redis.ResponseError, R.execute_command, "CLUSTER NOSUCH"))
    eq("wrong number of arguments for 'cluster|keyslot' command",
       raises(redis.ResponseError, R.execute_command, "CLUSTER KEYSLOT"))
    eq(before + 2, cmdstat("cluster|info")["failed_calls"])
    eq({"cluster_enabled": 0}, R.info("cluster"))
    eq(True, R.ping())


@test
def redis_cluster_client_on_a_standalone_server():
    # RedisCluster asks INFO whether cluster mode is on before CLUSTER SLOTS.
    from redis.cluster import RedisCluster
    from redis.exceptions import RedisClusterException
    try:
        rc = RedisCluster(host=HOST, port=PORT, socket_timeout=10)
    except RedisClusterException as e:
        eq('ERROR sending "cluster slots" command to redis server %s:%d. '
           "error: Cluster mode is not enabled on this node" % (HOST, PORT), str(e))
    else:
        rc.close()
        raise AssertionError("RedisCluster connected to a standalone server")


@test
def info_sections():
    info = R.info()
    eq("7.0.15", info["redis_version"])
    eq(PORT, info["tcp_port"])
    eq("standalone", info["redis_mode"])
    eq(0, info["cluster_enabled"])
    for section in ("server", "clients", "memory", "stats", "replication", "cpu"):
        check(len(R.info(section)) > 0, "INFO %s is empty" % section)
    R.command_count()
    stats = R.info("commandstats")
    check(stats["cmdstat_command|count"]["calls"] >= 1, "command|count calls")
    every = R.info("everything")
    check("cmdstat_command|count" in every and "redis_version" in every,
          "INFO everything lacks sections")


@test
def pipeline_of_handshake_commands():
    p = R.pipeline(transaction=False)
    p.execute_command("HELLO", "2")
    p.command_count()
    p.command()
    p.execute_command("COMMAND DOCS", "get")
    p.info("server")
    p.client_setname("py-pipe")
    p.execute_command("CLIENT SETINFO", "lib-name", "redis-py")
    p.execute_command("CLUSTER INFO")
    p.readonly()
    p.readwrite()
    p.client_getname()
    p.set("pipe:k", "v")
    p.get("pipe:k")
    p.ping()
    res = p.execute(raise_on_error=False)
    eq(14, len(res))
    eq(2, flat_dict(res[0])["proto"])
    eq(res[1], len(res[2]), "COMMAND COUNT vs COMMAND in one pipeline")
    eq("Get the value of a key", flat_dict(res[3][1])["summary"])
    eq("7.0.15", res[4]["redis_version"])
    eq(True, res[5])
    errs = [str(e) if isinstance(e, redis.ResponseError) else repr(e) for e in res[6:10]]
    eq([SETINFO, DISABLED, DISABLED, DISABLED], errs)
    eq(["py-pipe", True, "v", True], res[10:])
    # raise_on_error (the default) raises the first error, after running all.
    p = R.pipeline(transaction=False)
    p.set("pipe:k2", "v2")
    p.execute_command("CLUSTER SLOTS")
    p.get("pipe:k2")
    msg = raises(redis.ResponseError, p.execute)
    check(DISABLED in msg, "pipeline error: %r" % msg)
    eq("v2", R.get("pipe:k2"))
    R.client_setname("")


@test
def transaction_with_handshake_commands():
    # An error at EXEC time stays in its slot; the rest runs.
    p = R.pipeline(transaction=True)
    p.command_count()
    p.execute_command("CLUSTER INFO")
    p.set("tx:k", "v")
    p.get("tx:k")
    p.execute_command("COMMAND GETKEYS", "MSET", "a", "1", "b", "2")
    res = p.execute(raise_on_error=False)
    eq(R.command_count(), res[0])
    check(isinstance(res[1], redis.ResponseError), "CLUSTER INFO in MULTI: %r" % (res[1],))
    eq(DISABLED, str(res[1]))
    eq([True, "v", ["a", "b"]], res[2:])
    # CLIENT SETINFO is unknown, so it is refused while queuing and EXEC
    # aborts the whole transaction; redis-py raises that queuing error.
    p = R.pipeline(transaction=True)
    p.set("tx:k2", "v")
    p.execute_command("CLIENT SETINFO", "lib-name", "redis-py")
    p.get("tx:k2")
    msg = raises(redis.ResponseError, p.execute)
    check(msg.startswith("Command # 2 (CLIENT SETINFO lib-name redis-py) of pipeline caused error: "
                         + SETINFO), "transaction error: %r" % msg)
    eq(0, R.exists("tx:k2"))


def main():
    return pyharness.main(R.flushdb, at_end=R.flushdb,
                          brief=(AssertionError, redis.ResponseError))


if __name__ == "__main__":
    sys.exit(main())
