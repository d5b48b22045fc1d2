#!/usr/bin/python3
"""redis_py_script_test.py HOST PORT

Server-side Lua through redis-py (Debian 12's python3-redis 4.3.x), run by
tests/integration/clients.tcl: its Lock (acquire, extend, reacquire and
release are EVALSHA of its own scripts), register_script (EVALSHA, then EVAL
again after SCRIPT FLUSH answers NOSCRIPT), eval replies as Python
values, and functions (function_load, fcall, fcall_ro, function_dump and
function_restore). Uses keys starting with "pylua:" and deletes them.

Prints "[ok] NAME", "[err] NAME: MESSAGE" or "[skip] NAME: REASON" per test
and, as the last line, "N passed, N failed"; exits 1 if anything failed.
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
    from redis.exceptions import LockError, LockNotOwnedError
except ImportError as exc:  # pragma: no cover
    pyharness.skip_script("redis-py", "cannot import redis: %s" % exc)

HOST, PORT = pyharness.host_port()
R = redis.Redis(host=HOST, port=PORT, decode_responses=True,
                socket_timeout=10)
raises = pyharness.raiser()


def cleanup():
    keys = R.keys("pylua:*")
    if keys:
        R.delete(*keys)


@test
def lock_acquire_extend_release():
    lock = R.lock("pylua:lock", timeout=10)
    eq(True, lock.acquire(blocking=False))
    eq(True, lock.owned())
    other = R.lock("pylua:lock", timeout=10)
    eq(False, other.acquire(blocking=False))
    eq(True, lock.extend(20))
    check(R.pttl("pylua:lock") > 10000, "extended ttl %d" % R.pttl("pylua:lock"))
    eq(True, lock.reacquire())
    check(R.pttl("pylua:lock") <= 10000, "reacquired ttl %d" % R.pttl("pylua:lock"))
    lock.release()
    eq(0, R.exists("pylua:lock"))
    eq(True, other.acquire(blocking=False))
    other.release()


@test
def lock_owned_by_another_cannot_be_released_or_extended():
    lock = R.lock("pylua:lock2", timeout=10)
    eq(True, lock.acquire(blocking=False))
    R.set("pylua:lock2", "someone-else")
    raises(LockNotOwnedError, lock.extend, 5)
    raises(LockNotOwnedError, lock.release)
    eq("someone-else", R.get("pylua:lock2"))
    R.delete("pylua:lock2")
    raises(LockError, lock.release)  # the token went with the failed release


@test
def lock_times_out_and_blocks_until_free():
    lock = R.lock("pylua:lock3", timeout=0.2)
    eq(True, lock.acquire(blocking=False))
    start = time.time()
    second = R.lock("pylua:lock3", timeout=5, blocking_timeout=3)
    eq(True, second.acquire())
    check(time.time() - start < 2.5, "waited %.2f s" % (time.time() - start))
    second.release()


@test
def register_script_survives_script_flush():
    incr = R.register_script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
    eq(5, incr(keys=["pylua:n"], args=[5]))
    eq([True], R.script_exists(incr.sha))
    R.script_flush()
    eq([False], R.script_exists(incr.sha))
    eq(7, incr(keys=["pylua:n"], args=[2]))   # NOSCRIPT, then EVAL
    eq([True], R.script_exists(incr.sha))


@test
def eval_replies_and_errors_as_python_values():
    eq([1, 2, "three", None], R.eval("return {1, 2, 'three', false}", 0))
    eq(3, R.eval("return 3.7", 0))
    eq("OK", R.eval("return redis.call('SET', KEYS[1], ARGV[1])", 1, "pylua:s", "v"))
    msg = raises(redis.ResponseError, R.eval, "return redis.call('INCR', KEYS[1])", 1, "pylua:s")
    check("value is not an integer" in msg and "script:" in msg, msg)
    msg = raises(redis.ResponseError, R.evalsha, "f" * 40, 0)
    check("No matching script" in msg, msg)
    eq(R.script_load("return 1"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")


@test
def fcall_runs_functions_loaded_through_redis_py():
    code = ("#!lua name=pylualib\n"
            "redis.register_function('pylua_incr', function(keys, args) "
            "return redis.call('INCRBY', keys[1], args[1]) end)\n"
            "redis.register_function{function_name='pylua_get', flags={'no-writes'}, "
            "callback=function(keys) return redis.call('GET', keys[1]) end}")
    eq("pylualib", R.function_load(code, replace=True))
    eq(4, R.fcall("pylua_incr", 1, "pylua:f", 4))
    eq("4", R.fcall_ro("pylua_get", 1, "pylua:f"))
    msg = raises(redis.ResponseError, R.fcall_ro, "pylua_incr", 1, "pylua:f", 1)
    check("write flag" in msg, msg)
    msg = raises(redis.ResponseError, R.function_load, code)
    check("already exists" in msg, msg)
    payload = R.function_dump()
    eq(True, R.function_delete("pylualib"))
    raises(redis.ResponseError, R.fcall, "pylua_incr", 1, "pylua:f", 1)
    eq(True, R.function_restore(payload))
    eq(5, R.fcall("pylua_incr", 1, "pylua:f", 1))
    eq(True, R.function_delete("pylualib"))


def main():
    return pyharness.main(cleanup, at_end=cleanup,
                          brief=(AssertionError, redis.ResponseError))


if __name__ == "__main__":
    sys.exit(main())
