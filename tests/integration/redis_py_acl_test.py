#!/usr/bin/python3
"""redis_py_acl_test.py HOST PORT

The Redis ACL examples through redis-py's acl_* methods (Debian 12's
python3-redis 4.3.x), run by tests/integration/clients.tcl. Creates users
whose names start with "py-" and deletes them at the end; run it against a
scratch server.

Prints "[ok] NAME", "[err] NAME: MESSAGE" or "[skip] NAME: REASON" per test
and, as the last line, "N passed, N failed"; exits 1 if anything failed.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "helpers"))
import pyharness  # noqa: E402
from pyharness import check, eq, test  # noqa: E402

try:
    import redis
except ImportError as exc:  # pragma: no cover
    pyharness.skip_script("redis-py", "cannot import redis: %s" % exc)

HOST, PORT = pyharness.host_port()
R = redis.Redis(host=HOST, port=PORT, decode_responses=True, socket_timeout=10)
raises = pyharness.raiser()


def as_user(name, password):
    return redis.Redis(host=HOST, port=PORT, username=name, password=password,
                       decode_responses=True, socket_timeout=10)


def cleanup():
    for u in R.acl_users():
        if u.startswith("py-"):
            R.acl_deluser(u)


@test
def setuser_getuser_and_list():
    eq(True, R.acl_setuser("py-alice", enabled=True, passwords=["+p1"],
                           keys=["cache:*"], commands=["+get", "+set"]))
    u = R.acl_getuser("py-alice")
    eq(["on"], u["flags"])
    eq(["~cache:*"], u["keys"])
    check("+get" in u["commands"] and "+set" in u["commands"], repr(u["commands"]))
    check("py-alice" in R.acl_users(), "listed")
    check(any(l.startswith("user py-alice on #") for l in R.acl_list()), repr(R.acl_list()))
    eq(None, R.acl_getuser("py-nobody"))


@test
def a_user_is_held_to_its_keys_and_commands():
    R.acl_setuser("py-bob", enabled=True, passwords=["+pw"],
                  keys=["cache:*"], commands=["+@read", "+@write", "+acl|whoami"])
    b = as_user("py-bob", "pw")
    try:
        eq("py-bob", b.acl_whoami())
        eq(True, b.set("cache:1", "v"))
        eq("v", b.get("cache:1"))
        msg = raises(redis.exceptions.NoPermissionError, b.get, "other")
        check("no permissions to access one of the keys" in msg, msg)
        msg = raises(redis.exceptions.NoPermissionError, b.info)
        check("no permissions to run the 'info' command" in msg, msg)
        msg = raises(redis.exceptions.NoPermissionError, b.mget, "cache:1", "other")
        check("keys" in msg, msg)
    finally:
        b.close()


@test
def wrong_password_and_disabled_user():
    R.acl_setuser("py-carol", enabled=False, passwords=["+pw"], keys=["*"],
                  commands=["+@all"])
    # redis-py 4.3 raises WRONGPASS as a plain ResponseError
    msg = raises(redis.exceptions.ResponseError, as_user("py-carol", "pw").ping)
    check(msg.startswith("WRONGPASS"), msg)
    R.acl_setuser("py-carol", enabled=True)
    eq(True, as_user("py-carol", "pw").ping())
    msg = raises(redis.exceptions.ResponseError, as_user("py-carol", "bad").ping)
    check(msg.startswith("WRONGPASS"), msg)


@test
def acl_log_records_denials():
    R.acl_log_reset()
    R.acl_setuser("py-dave", enabled=True, nopass=True, keys=["a*"], commands=["+get"])
    d = as_user("py-dave", "x")
    raises(redis.exceptions.NoPermissionError, d.get, "b")
    raises(redis.exceptions.NoPermissionError, d.set, "a", "1")
    log = R.acl_log()
    eq(2, len(log))
    eq("command", log[0]["reason"])
    eq("set", log[0]["object"])
    eq("key", log[1]["reason"])
    eq("b", log[1]["object"])
    eq("py-dave", log[1]["username"])
    eq(1, len(R.acl_log(count=1)))
    eq(True, R.acl_log_reset())
    eq([], R.acl_log())


@test
def cat_genpass_dryrun_deluser():
    cats = R.acl_cat()
    check("read" in cats and "dangerous" in cats, repr(cats))
    check("get" in R.acl_cat("read"), "get is @read")
    eq(64, len(R.acl_genpass()))
    # (redis-py 4.3's acl_genpass drops its bits argument)
    eq(32, len(R.execute_command("ACL GENPASS", 128)))
    R.acl_setuser("py-erin", enabled=True, nopass=True, keys=["k*"], commands=["+get"])
    eq("OK", R.acl_dryrun("py-erin", "get", "k1"))
    eq("This user has no permissions to access the 'x' key",
       R.acl_dryrun("py-erin", "get", "x"))
    eq(1, R.acl_deluser("py-erin", "py-nobody"))


def main():
    return pyharness.main(cleanup, at_end=cleanup,
                          brief=(AssertionError, redis.ResponseError))


if __name__ == "__main__":
    sys.exit(main())
