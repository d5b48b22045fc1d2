#!/usr/bin/python3
"""redis_py_pubsub_test.py HOST PORT

Pub/Sub, transactions, keyspace notifications and client-side caching
through redis-py's own (unmodified) features: PubSub (get_message, listen,
handlers, run_in_thread), Pipeline with MULTI/EXEC, WATCH retry loops,
Redis.transaction(), keyspace notifications and RESP2 CLIENT TRACKING with
REDIRECT to a PubSub connection. Written for Debian 12's python3-redis 4.3.x
and run by tests/integration/clients.tcl with /usr/bin/python3.

DB 12 (and DB 13) are flushed as the tests go: run this against a scratch
server. notify-keyspace-events is restored after the tests that change it.

Prints "[ok] NAME", "[err] NAME: MESSAGE" or "[skip] NAME: REASON" per test
and, as the last line, "N passed, N failed"; exits 1 if anything failed.
"""

import os
import sys
import threading
import time

# The shared harness: tests/helpers/pyharness.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "helpers"))
import pyharness  # noqa: E402
from pyharness import check, eq, test  # noqa: E402

try:
    import redis
except ImportError as exc:  # pragma: no cover
    pyharness.skip_script("redis-py pubsub", "cannot import redis: %s" % exc)

HOST, PORT = pyharness.host_port()
DB = 12
OTHER_DB = 13
TIMEOUT = 5.0          # seconds to wait for a message that must come
QUIET = 0.3            # seconds to wait to be sure nothing comes


def new_client(db=DB, **kwargs):
    kwargs.setdefault("decode_responses", True)
    return redis.Redis(host=HOST, port=PORT, db=db, socket_timeout=10, **kwargs)


R = new_client()                  # the main connection pool
W = new_client()                  # "another client": writes behind R's back
R2 = new_client(db=OTHER_DB)

to_close = []                     # pubsubs / clients a test opened
# raises(exc_class, fn, *args) returns the exception.
raises = pyharness.raiser(returns="exception", no_raise="expected %s but got %r")


def pubsub(client=None, **kwargs):
    p = (client or R).pubsub(**kwargs)
    to_close.append(p)
    return p


def msg(p, timeout=TIMEOUT, ignore_subscribe_messages=False):
    """The next message of p, which must arrive within timeout."""
    deadline = time.time() + timeout
    while True:
        left = deadline - time.time()
        if left <= 0:
            raise AssertionError("no message within %.1fs" % timeout)
        m = p.get_message(ignore_subscribe_messages=ignore_subscribe_messages,
                          timeout=left)
        if m is not None:
            return m


def no_msg(p, timeout=QUIET):
    m = p.get_message(timeout=timeout)
    eq(None, m, "unexpected message")


def M(type_, channel, data, pattern=None):
    """A message dict as PubSub.get_message returns it."""
    return {"type": type_, "pattern": pattern, "channel": channel, "data": data}


def wait_until(cond, timeout=TIMEOUT, what="condition"):
    deadline = time.time() + timeout
    while not cond():
        if time.time() > deadline:
            raise AssertionError("%s still false after %.1fs" % (what, timeout))
        time.sleep(0.01)


# ---------------------------------------------------------------------------
# Pub/Sub
# ---------------------------------------------------------------------------

@test
def subscribe_get_message_with_timeouts():
    p = pubsub()
    p.subscribe("ps:a", "ps:b")
    eq(M("subscribe", "ps:a", 1), msg(p))
    eq(M("subscribe", "ps:b", 2), msg(p))
    eq(True, p.subscribed)
    # Nothing pending: get_message waits about `timeout` and returns None.
    t0 = time.time()
    eq(None, p.get_message(timeout=0.2))
    check(time.time() - t0 >= 0.15, "get_message(timeout=0.2) returned too early")
    eq(None, p.get_message())              # timeout 0: does not wait
    eq(1, W.publish("ps:a", "hello"))
    eq(1, W.publish("ps:b", "h\u00e9llo \u2713"))
    eq(0, W.publish("ps:c", "nobody"))
    eq(M("message", "ps:a", "hello"), msg(p))
    eq(M("message", "ps:b", "h\u00e9llo \u2713"), msg(p))
    no_msg(p)
    # A message published while get_message is waiting wakes it up.
    threading.Timer(0.2, W.publish, ("ps:a", "later")).start()
    t0 = time.time()
    eq(M("message", "ps:a", "later"), p.get_message(timeout=TIMEOUT))
    check(time.time() - t0 < TIMEOUT - 1, "get_message did not wake up")


@test
def psubscribe_pmessage():
    p = pubsub()
    p.psubscribe("news.*", "h?llo")
    eq(M("psubscribe", "news.*", 1), msg(p))
    eq(M("psubscribe", "h?llo", 2), msg(p))
    eq(1, W.publish("news.tech", "t"))
    eq(1, W.publish("hello", "x"))
    eq(0, W.publish("news", "no match"))
    eq(M("pmessage", "news.tech", "t", pattern="news.*"), msg(p))
    eq(M("pmessage", "hello", "x", pattern="h?llo"), msg(p))
    # A channel matched by a subscription and a pattern is delivered twice.
    p.subscribe("news.sport")
    eq(M("subscribe", "news.sport", 3), msg(p))
    eq(2, W.publish("news.sport", "goal"))
    got = [msg(p), msg(p)]
    eq(M("message", "news.sport", "goal"), got[0])
    eq(M("pmessage", "news.sport", "goal", pattern="news.*"), got[1])
    no_msg(p)


@test
def binary_messages_without_decoding():
    rb = new_client(decode_responses=False)
    to_close.append(rb)
    p = pubsub(rb)
    p.subscribe(b"ps:bin\x00\xff")
    eq(M("subscribe", b"ps:bin\x00\xff", 1), msg(p))
    data = b"\x00\r\n\xff\xfe binary"
    eq(1, rb.publish(b"ps:bin\x00\xff", data))
    eq(M("message", b"ps:bin\x00\xff", data), msg(p))


@test
def listen_generator():
    p = pubsub()
    p.subscribe("ps:listen")
    for i in range(5):
        W.publish("ps:listen", "m%d" % i)
    W.publish("ps:listen", "stop")
    got = []
    for m in p.listen():
        got.append((m["type"], m["data"]))
        if m["data"] == "stop":
            break
    eq([("subscribe", 1)] + [("message", "m%d" % i) for i in range(5)]
       + [("message", "stop")], got)


@test
def message_handlers():
    seen = []
    p = pubsub()
    p.subscribe(**{"ps:h": lambda m: seen.append(("h", m["channel"], m["data"]))})
    p.psubscribe(**{"ps:p*": lambda m: seen.append(("p", m["pattern"], m["channel"], m["data"]))})
    p.subscribe("ps:plain")                 # no handler: returned as usual
    # Subscribe confirmations are returned (handlers are for messages only).
    eq(M("subscribe", "ps:h", 1), msg(p))
    eq(M("psubscribe", "ps:p*", 2), msg(p))
    eq(M("subscribe", "ps:plain", 3), msg(p))
    W.publish("ps:h", "one")
    W.publish("ps:px", "two")
    W.publish("ps:plain", "three")
    # Handled messages make get_message return None.
    eq(None, p.get_message(timeout=TIMEOUT))
    eq(None, p.get_message(timeout=TIMEOUT))
    eq(M("message", "ps:plain", "three"), msg(p))
    eq([("h", "ps:h", "one"), ("p", "ps:p*", "ps:px", "two")], seen)


@test
def run_in_thread_with_handlers():
    seen = []
    lock = threading.Lock()

    def handler(m):
        with lock:
            seen.append((m["channel"], m["data"]))

    p = pubsub()
    p.subscribe(**{"ps:t1": handler})
    p.psubscribe(**{"ps:tp.*": handler})
    # run_in_thread needs a handler for every subscription.
    p2 = pubsub()
    p2.subscribe("ps:nohandler")
    raises(redis.PubSubError, p2.run_in_thread, sleep_time=0.01)
    thread = p.run_in_thread(sleep_time=0.01, daemon=True)
    try:
        wait_until(lambda: W.pubsub_numsub("ps:t1")[0][1] == 1, what="subscribed")
        wait_until(lambda: W.pubsub_numpat() >= 1, what="psubscribed")
        for i in range(10):
            W.publish("ps:t1", "a%d" % i)
            W.publish("ps:tp.x", "b%d" % i)
        wait_until(lambda: len(seen) == 20, what="20 messages handled")
        time.sleep(0.05)
    finally:
        thread.stop()
        thread.join(5)
    check(not thread.is_alive(), "worker thread still running")
    want = []
    for i in range(10):
        want += [("ps:t1", "a%d" % i), ("ps:tp.x", "b%d" % i)]
    eq(want, seen)


@test
def unsubscribe_and_punsubscribe():
    p = pubsub()
    p.subscribe("ps:u1", "ps:u2", "ps:u3")
    p.psubscribe("ps:up*")
    for _ in range(4):
        msg(p)
    p.unsubscribe("ps:u2")
    eq(M("unsubscribe", "ps:u2", 3), msg(p))
    eq(0, W.publish("ps:u2", "gone"))
    eq(1, W.publish("ps:u1", "still"))
    eq(M("message", "ps:u1", "still"), msg(p))
    p.punsubscribe()
    eq(M("punsubscribe", "ps:up*", 2), msg(p))
    p.unsubscribe()                       # all remaining channels
    got = sorted([msg(p), msg(p)], key=lambda m: m["channel"])
    eq(["ps:u1", "ps:u3"], [m["channel"] for m in got])
    eq({"unsubscribe"}, {m["type"] for m in got})
    eq([0, 1], sorted(m["data"] for m in got))
    eq(False, p.subscribed)
    eq(0, W.publish("ps:u1", "x"))
    # Subscribing again on the same PubSub works.
    p.subscribe("ps:u4")
    eq(M("subscribe", "ps:u4", 1), msg(p))
    eq(1, W.publish("ps:u4", "back"))
    eq(M("message", "ps:u4", "back"), msg(p))


@test
def pubsub_channels_numsub_numpat():
    base_pat = W.pubsub_numpat()
    p1 = pubsub()
    p2 = pubsub()
    p1.subscribe("ps:n:a", "ps:n:b")
    p2.subscribe("ps:n:a")
    p1.psubscribe("ps:n:*")
    p2.psubscribe("ps:n:*", "other:*")
    for _ in range(3):
        msg(p1)
        msg(p2)
    eq(["ps:n:a", "ps:n:b"], sorted(W.pubsub_channels("ps:n:*")))
    eq(["ps:n:a"], W.pubsub_channels("ps:n:a"))
    check({"ps:n:a", "ps:n:b"} <= set(W.pubsub_channels()), "PUBSUB CHANNELS")
    eq([("ps:n:a", 2), ("ps:n:b", 1), ("ps:n:c", 0)],
       W.pubsub_numsub("ps:n:a", "ps:n:b", "ps:n:c"))
    eq([], W.pubsub_numsub())
    # NUMPAT counts distinct patterns.
    eq(base_pat + 2, W.pubsub_numpat())
    p1.unsubscribe("ps:n:b")
    msg(p1)
    eq([("ps:n:b", 0)], W.pubsub_numsub("ps:n:b"))
    eq(["ps:n:a"], W.pubsub_channels("ps:n:*"))
    p2.punsubscribe("other:*")
    msg(p2)
    eq(base_pat + 1, W.pubsub_numpat())
    p1.close()
    p2.close()
    wait_until(lambda: W.pubsub_numsub("ps:n:a") == [("ps:n:a", 0)],
               what="closed subscribers removed")
    eq(base_pat, W.pubsub_numpat())


@test
def ignore_subscribe_messages():
    p = pubsub(ignore_subscribe_messages=True)
    p.subscribe("ps:i")
    p.psubscribe("ps:i*")
    # The confirmations are read and dropped: get_message returns None.
    eq(None, p.get_message(timeout=0.2))
    eq(None, p.get_message(timeout=0.2))
    W.publish("ps:i", "x")
    eq(M("message", "ps:i", "x"), msg(p))
    eq(M("pmessage", "ps:i", "x", pattern="ps:i*"), msg(p))
    p.unsubscribe("ps:i")
    eq(None, p.get_message(timeout=0.2))
    no_msg(p)
    # Per call, on a pubsub created without the flag.
    q = pubsub()
    q.subscribe("ps:j")
    eq(None, q.get_message(ignore_subscribe_messages=True, timeout=1))
    W.publish("ps:j", "y")
    eq(M("message", "ps:j", "y"), msg(q, ignore_subscribe_messages=True))


@test
def pubsub_ping_and_reset():
    p = pubsub()
    p.subscribe("ps:ping")
    msg(p)
    p.ping()
    eq("pong", msg(p)["type"])
    p.ping("hi")
    m = msg(p)
    eq(("pong", "hi"), (m["type"], m["data"]))
    p.reset()
    eq(False, p.subscribed)
    eq(None, p.connection)
    wait_until(lambda: W.pubsub_numsub("ps:ping") == [("ps:ping", 0)],
               what="reset unsubscribed")


# ---------------------------------------------------------------------------
# Transactions
# ---------------------------------------------------------------------------

@test
def pipeline_transaction_multi_exec():
    with R.pipeline(transaction=True) as p:
        p.set("tx:a", "1").incr("tx:a").incrby("tx:a", 5).get("tx:a")
        p.mset({"tx:b": "x", "tx:c": "y"}).mget("tx:a", "tx:b", "tx:c", "tx:nope")
        p.expire("tx:a", 100).ttl("tx:a").delete("tx:b").exists("tx:b")
        eq(10, len(p))
        res = p.execute()
    eq([True, 2, 7, "7", True, ["7", "x", "y", None], True, 100, 1, 0], res)
    eq("7", R.get("tx:a"))
    # An empty transaction does nothing and returns [].
    with R.pipeline() as p:
        eq([], p.execute())
    # Other clients see all or nothing: a watcher of the MULTI sees the
    # whole batch applied at EXEC.
    with R.pipeline(transaction=True) as p:
        for i in range(100):
            p.incr("tx:n")
        res = p.execute()
    eq(list(range(1, 101)), res)
    eq("100", W.get("tx:n"))


@test
def watch_retry_loop_with_concurrent_modification():
    R.set("tx:balance", 100)
    attempts = 0
    watch_errors = 0
    with R.pipeline() as pipe:
        while True:
            try:
                pipe.watch("tx:balance")
                # After WATCH the pipeline runs commands immediately.
                cur = int(pipe.get("tx:balance"))
                attempts += 1
                if attempts == 1:
                    # Another connection changes the key between WATCH and EXEC.
                    eq(200, W.incrby("tx:balance", 100))
                pipe.multi()
                pipe.set("tx:balance", cur + 10)
                pipe.get("tx:balance")
                res = pipe.execute()
                break
            except redis.WatchError:
                watch_errors += 1
                if attempts > 5:
                    raise
    eq(2, attempts)
    eq(1, watch_errors)
    eq([True, "210"], res)
    eq("210", R.get("tx:balance"))
    # WATCH of a key that is not modified: EXEC succeeds at once.
    with R.pipeline() as pipe:
        pipe.watch("tx:balance", "tx:other")
        eq("210", pipe.get("tx:balance"))
        pipe.multi()
        pipe.incr("tx:balance")
        eq([211], pipe.execute())
    # An expiring watched key, a deleted one and a FLUSHDB abort EXEC too.
    for breaker in (lambda: W.delete("tx:balance"),
                    lambda: W.set("tx:balance", "same"),
                    lambda: W.flushdb()):
        R.set("tx:balance", 1)
        with R.pipeline() as pipe:
            pipe.watch("tx:balance")
            breaker()
            pipe.multi()
            pipe.set("tx:balance", 2)
            raises(redis.WatchError, pipe.execute)
        check(R.get("tx:balance") != "2", "EXEC ran after a watched change")
    # UNWATCH (pipe.reset) forgets the watched keys.
    R.set("tx:balance", 1)
    with R.pipeline() as pipe:
        pipe.watch("tx:balance")
        pipe.unwatch()
        W.set("tx:balance", 5)
        pipe.multi()
        pipe.incr("tx:balance")
        eq([6], pipe.execute())


@test
def transaction_helper():
    R.set("tx:h", 10)
    calls = []

    def double(pipe):
        v = int(pipe.get("tx:h"))
        calls.append(v)
        if len(calls) == 1:
            W.set("tx:h", 50)            # forces one retry
        pipe.multi()
        pipe.set("tx:h", v * 2)
        pipe.get("tx:h")

    res = R.transaction(double, "tx:h", watch_delay=0.01)
    eq([True, "100"], res)
    eq([10, 50], calls)
    eq("100", R.get("tx:h"))
    # value_from_callable returns what the function returned.
    res = R.transaction(lambda pipe: int(pipe.get("tx:h")) + 1, "tx:h",
                        value_from_callable=True)
    eq(101, res)
    # Several watched keys.
    R.mset({"tx:x": 1, "tx:y": 2})

    def swap(pipe):
        x, y = pipe.mget("tx:x", "tx:y")
        pipe.multi()
        pipe.mset({"tx:x": y, "tx:y": x})

    eq([True], R.transaction(swap, "tx:x", "tx:y"))
    eq(["2", "1"], R.mget("tx:x", "tx:y"))


@test
def transaction_errors():
    R.set("tx:s", "abc")
    with R.pipeline(transaction=True) as p:
        p.set("tx:before", 1)
        p.incr("tx:s")
        p.set("tx:after", 2)
        e = raises(redis.ResponseError, p.execute)
    msg_ = str(e)
    check("value is not an integer or out of range" in msg_, msg_)
    check("Command # 2 (INCRBY tx:s 1) of pipeline caused error" in msg_, msg_)
    # EXEC ran every command: the ones around the error took effect.
    eq(["1", "2", "abc"], R.mget("tx:before", "tx:after", "tx:s"))
    with R.pipeline(transaction=True) as p:
        p.set("tx:before", 3)
        p.incr("tx:s")
        p.incrbyfloat("tx:s", 1)
        p.get("tx:before")
        res = p.execute(raise_on_error=False)
    eq(4, len(res))
    eq(True, res[0])
    check(isinstance(res[1], redis.ResponseError), "result 1: %r" % (res[1],))
    check("value is not an integer or out of range" in str(res[1]), str(res[1]))
    check(isinstance(res[2], redis.ResponseError), "result 2: %r" % (res[2],))
    check("value is not a valid float" in str(res[2]), str(res[2]))
    eq("3", res[3])
    # A queueing error (wrong arity) aborts the whole transaction: EXECABORT.
    with R.pipeline(transaction=True) as p:
        p.set("tx:q", 1)
        p.execute_command("SET", "tx:q")
        e = raises(redis.ResponseError, p.execute)
    check("wrong number of arguments for 'set' command" in str(e), str(e))
    eq(None, R.get("tx:q"))
    # Non-transactional pipelines report errors the same way.
    with R.pipeline(transaction=False) as p:
        p.incr("tx:s").set("tx:np", 1).get("tx:np")
        res = p.execute(raise_on_error=False)
    check(isinstance(res[0], redis.ResponseError), repr(res))
    eq([True, "1"], res[1:])
    # The connection is usable afterwards.
    eq(True, R.ping())


# ---------------------------------------------------------------------------
# Keyspace notifications
# ---------------------------------------------------------------------------

class notify_config:
    """Sets notify-keyspace-events for a block and restores it after."""

    def __init__(self, flags):
        self.flags = flags

    def __enter__(self):
        self.old = W.config_get("notify-keyspace-events")["notify-keyspace-events"]
        W.config_set("notify-keyspace-events", self.flags)

    def __exit__(self, *exc):
        W.config_set("notify-keyspace-events", self.old)
        return False


@test
def keyspace_notifications():
    ks = "__keyspace@%d__:" % DB
    with notify_config("KEA"):
        eq("AKE", W.config_get("notify-keyspace-events")["notify-keyspace-events"])
        p = pubsub()
        p.psubscribe(ks + "*")
        eq(M("psubscribe", ks + "*", 1), msg(p))
        W.set("kn:a", "1")
        eq(M("pmessage", ks + "kn:a", "set", pattern=ks + "*"), msg(p))
        W.delete("kn:a", "kn:missing")
        eq(M("pmessage", ks + "kn:a", "del", pattern=ks + "*"), msg(p))
        W.set("kn:b", "v", ex=100)
        eq(["set", "expire"], [msg(p)["data"], msg(p)["data"]])
        W.incr("kn:c")
        W.rename("kn:c", "kn:d")
        eq([(ks + "kn:c", "incrby"), (ks + "kn:c", "rename_from"), (ks + "kn:d", "rename_to")],
           [(m["channel"], m["data"]) for m in (msg(p), msg(p), msg(p))])
        # Active expiry.
        W.set("kn:e", "v", px=50)
        eq(["set", "expire"], [msg(p)["data"], msg(p)["data"]])
        eq(M("pmessage", ks + "kn:e", "expired", pattern=ks + "*"), msg(p))
        no_msg(p)
        # Keyevent channels carry the key name.
        q = pubsub()
        q.subscribe("__keyevent@%d__:del" % DB, "__keyevent@%d__:expired" % DB)
        msg(q)
        msg(q)
        W.set("kn:f", "v")
        W.delete("kn:f")
        eq(M("message", "__keyevent@%d__:del" % DB, "kn:f"), msg(q))
        eq([(ks + "kn:f", "set"), (ks + "kn:f", "del")],
           [(m["channel"], m["data"]) for m in (msg(p), msg(p))])
        # Other databases publish on their own channels.
        R2.set("kn:g", "v")
        no_msg(p)
        no_msg(q)


@test
def keyspace_notifications_expired_lazily():
    ks = "__keyspace@%d__:" % DB
    W.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    try:
        with notify_config("Kgx"):
            p = pubsub()
            p.subscribe(ks + "kn:lazy")
            # subscribe() does not wait: the write must not overtake it.
            eq(M("subscribe", ks + "kn:lazy", 1), msg(p))
            W.set("kn:lazy", "v", px=10)
            eq(M("message", ks + "kn:lazy", "expire"), msg(p, ignore_subscribe_messages=True))
            time.sleep(0.05)
            no_msg(p)
            eq(None, W.get("kn:lazy"))
            eq(M("message", ks + "kn:lazy", "expired"), msg(p, ignore_subscribe_messages=True))
    finally:
        W.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")


# ---------------------------------------------------------------------------
# Client-side caching, RESP2 style
# ---------------------------------------------------------------------------

def invalidation_pubsub():
    """A PubSub subscribed to __redis__:invalidate, and its client id."""
    p = pubsub()
    # Before subscribing, use the PubSub's own connection for CLIENT ID.
    p.execute_command("CLIENT", "ID")
    cid = p.connection.read_response()
    check(isinstance(cid, int) and cid > 0, "CLIENT ID: %r" % (cid,))
    p.subscribe("__redis__:invalidate")
    eq(M("subscribe", "__redis__:invalidate", 1), msg(p))
    return p, cid


def tracking_client():
    t = new_client(single_connection_client=True)
    to_close.append(t)
    return t


@test
def client_tracking_redirect_to_pubsub():
    p, cid = invalidation_pubsub()
    # The id also matches CLIENT LIST's entry for a connection in pubsub mode.
    entry = [c for c in W.client_list() if int(c["id"]) == cid]
    eq(1, len(entry), "CLIENT LIST entry for id %d" % cid)
    check("P" in entry[0]["flags"], "flags %r" % entry[0]["flags"])
    t = tracking_client()
    eq("OK", t.execute_command("CLIENT", "TRACKING", "on", "REDIRECT", cid))
    eq(cid, t.execute_command("CLIENT", "GETREDIR"))
    info = t.execute_command("CLIENT", "TRACKINGINFO")
    eq(["flags", ["on"], "redirect", cid, "prefixes", []], info)
    W.set("ct:k", "v1")
    eq("v1", t.get("ct:k"))
    W.set("ct:k", "v2")                   # a third connection modifies it
    eq(M("message", "__redis__:invalidate", ["ct:k"]), msg(p))
    # Invalidated once: not tracked again until read again.
    W.set("ct:k", "v3")
    no_msg(p)
    eq(["v3", None], t.mget("ct:k", "ct:k2"))
    W.delete("ct:k2")                     # nothing deleted: no invalidation
    W.mset({"ct:k": "v4", "ct:k2": "x"})
    # One message per key, in the order the command touched them.
    eq(M("message", "__redis__:invalidate", ["ct:k"]), msg(p))
    eq(M("message", "__redis__:invalidate", ["ct:k2"]), msg(p))
    # Expiry and the tracking client's own writes invalidate too.
    eq("x", t.get("ct:k2"))
    t.set("ct:k2", "own write")
    eq(M("message", "__redis__:invalidate", ["ct:k2"]), msg(p))
    eq("v4", t.get("ct:k"))
    W.pexpire("ct:k", 20)
    eq(M("message", "__redis__:invalidate", ["ct:k"]), msg(p))
    # FLUSHDB invalidates everything: a null key list.
    t.get("ct:k2")
    W.flushdb()
    eq(M("message", "__redis__:invalidate", None), msg(p))
    # Tracking off: reads are no longer tracked.
    eq("OK", t.execute_command("CLIENT", "TRACKING", "off"))
    t.get("ct:k3")
    W.set("ct:k3", "v")
    no_msg(p)


@test
def client_tracking_bcast_prefix():
    p, cid = invalidation_pubsub()
    t = tracking_client()
    eq("OK", t.execute_command("CLIENT", "TRACKING", "on", "REDIRECT", cid,
                               "BCAST", "PREFIX", "bc:user:", "PREFIX", "bc:cfg"))
    info = t.execute_command("CLIENT", "TRACKINGINFO")
    eq(["flags", ["on", "bcast"], "redirect", cid], info[:4])
    eq(["bc:cfg", "bc:user:"], sorted(info[5]))
    # No read needed in BCAST mode; keys outside the prefixes are ignored.
    W.set("bc:user:1", "a")
    eq(M("message", "__redis__:invalidate", ["bc:user:1"]), msg(p))
    W.set("bc:other", "b")
    W.set("other", "c")
    no_msg(p)
    W.set("bc:cfg", "d")
    eq(M("message", "__redis__:invalidate", ["bc:cfg"]), msg(p))
    # Keys changed by one command arrive in one message per prefix, sorted
    # (Redis keeps them in a radix tree), the prefixes in sorted order too.
    W.mset({"bc:user:3": "y", "bc:user:10": "x", "nope": "z", "bc:user:2": "x"})
    eq(M("message", "__redis__:invalidate", ["bc:user:10", "bc:user:2", "bc:user:3"]), msg(p))
    W.mset({"bc:user:9": "y", "bc:cfg": "x", "bc:user:0": "x"})
    eq(M("message", "__redis__:invalidate", ["bc:cfg"]), msg(p))
    eq(M("message", "__redis__:invalidate", ["bc:user:0", "bc:user:9"]), msg(p))
    W.delete("bc:user:2")
    eq(M("message", "__redis__:invalidate", ["bc:user:2"]), msg(p))
    # Keys changed in one transaction are delivered together after EXEC.
    with W.pipeline(transaction=True) as pipe:
        pipe.set("bc:user:4", 1).incr("bc:user:5").set("unrelated", 1)
        pipe.execute()
    eq(M("message", "__redis__:invalidate", ["bc:user:4", "bc:user:5"]), msg(p))
    no_msg(p)
    # Overlapping prefixes are rejected.
    t2 = tracking_client()
    e = raises(redis.ResponseError, t2.execute_command, "CLIENT", "TRACKING", "on",
               "REDIRECT", cid, "BCAST", "PREFIX", "bc:", "PREFIX", "bc:user:")
    check("overlaps with another provided prefix" in str(e), str(e))
    # Redirecting to a client that does not exist is an error.
    e = raises(redis.ResponseError, t2.execute_command, "CLIENT", "TRACKING", "on",
               "REDIRECT", 999999999)
    check("does not exist" in str(e), str(e))


def close_opened():
    """Closes what the test just run opened (errors ignored)."""
    global to_close
    for obj in to_close:
        try:
            obj.close()
        except Exception:  # noqa: BLE001
            pass
    to_close = []


def flush_all():
    R.flushdb()
    R2.flushdb()


def main():
    return pyharness.main(R.flushdb, after_each=close_opened, at_end=flush_all,
                          brief=(AssertionError, redis.ResponseError))


if __name__ == "__main__":
    sys.exit(main())
