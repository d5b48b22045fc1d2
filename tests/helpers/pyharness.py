# pyharness.py -- the test harness shared by the Python client-library test
# scripts of tests/integration (redis_py_test.py, redis_py_pubsub_test.py,
# redis_py_connect_test.py), which clients.tcl runs. It owns the test
# registry (the `test` decorator), Skip, the assertions (eq, check and the
# `raises` variants made by raiser()) and the main loop, whose output lines
# clients.tcl parses: "[ok] NAME", "[err] NAME: MESSAGE" (continuation lines
# indented by four spaces), "[skip] NAME: REASON" and, last,
# "N passed, N failed". Standard library only: what a script connects to
# (and so what it flushes) is passed in by the script.

import sys
import traceback

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Skip(Exception):
    pass


def eq(expected, actual, what=""):
    if expected != actual:
        raise AssertionError("%sexpected %r but got %r"
                             % (what + ": " if what else "", expected, actual))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def raiser(exact=False, returns="message",
           no_raise="expected %s but got the reply %r"):
    """A raises(exc_class, fn, *args, **kwargs) assertion: fn(*args,
    **kwargs) must raise exc_class (with exact, that very class, not a
    subclass, so that an error mapped to a special class shows; another
    exception then fails the assertion instead of passing through). It
    returns the exception's message (returns="message") or the exception
    itself (returns="exception"); if fn returns, it fails with the message
    no_raise % (exc_class.__name__, reply)."""
    if returns not in ("message", "exception"):
        raise ValueError("returns must be 'message' or 'exception'")

    def raises(exc_class, fn, *args, **kwargs):
        try:
            res = fn(*args, **kwargs)
        except (Exception if exact else exc_class) as e:  # noqa: BLE001
            if exact and type(e) is not exc_class:
                raise AssertionError("expected %s but got %s: %s"
                                     % (exc_class.__name__, type(e).__name__, e))
            return str(e) if returns == "message" else e
        raise AssertionError(no_raise % (exc_class.__name__, res))

    return raises


def skip_script(name, reason):
    """Skips the whole script (its client library is missing, say): prints
    the skip line and an empty summary and exits with status 0."""
    print("[skip] %s: %s" % (name, reason))
    print("0 passed, 0 failed")
    sys.exit(0)


def host_port(extra=""):
    """HOST and PORT from the command line (what clients.tcl passes first);
    exits with a usage line (EXTRA names any further arguments) if absent."""
    if len(sys.argv) < 3:
        sys.stderr.write("usage: %s HOST PORT%s\n" % (sys.argv[0], extra))
        sys.exit(2)
    return sys.argv[1], int(sys.argv[2])


def main(before_each, after_each=None, at_end=None, brief=(AssertionError,)):
    """Runs every registered test in order and prints one line per test and
    the summary line; returns the exit status (1 if anything failed).

    before_each() runs before each test, inside it (an exception there fails
    the test); after_each(), if given, after each test whatever its outcome.
    at_end() runs once after the last test, its exceptions ignored. An
    exception of a class in brief is reported as its message and the line of
    the test function it came from; any other one with the last six lines of
    its traceback."""
    passed = 0
    failed = 0
    for fn in TESTS:
        name = fn.__name__
        try:
            before_each()
            fn()
        except Skip as e:
            print("[skip] %s: %s" % (name, e))
        except Exception as e:  # noqa: BLE001
            failed += 1
            lines = ["%s: %s" % (type(e).__name__, e)]
            if not isinstance(e, brief):
                lines += traceback.format_exc().rstrip().split("\n")[-6:]
            else:
                tb = traceback.extract_tb(e.__traceback__)
                mine = [f for f in tb if f.name == name] or tb[-1:]
                if mine:
                    lines.append("at line %d: %s" % (mine[-1].lineno, mine[-1].line))
            print("[err] %s: %s" % (name, "\n    ".join(lines)))
        else:
            passed += 1
            print("[ok] %s" % name)
        if after_each is not None:
            after_each()
        sys.stdout.flush()
    if at_end is not None:
        try:
            at_end()
        except Exception:  # noqa: BLE001
            pass
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
