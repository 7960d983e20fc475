#!/usr/bin/python3
"""drvtest.py — the small test runner the Python driver suites share.

A suite module defines test functions with @test and ends with
`drvtest.main("psycopg2")`. main() starts one strata server (tests/lib/
strata_fixture.py, or STRATA_TEST_PORT for an already running server such as
a reference PostgreSQL 15), runs every test in definition order with a fresh
connection factory, prints "ok NAME" or "# FAIL NAME: error" per test and the
summary line "N passed, N failed, N skipped" that tests/run_all.sh reads.

Tests that cannot pass because of engine features other areas are still
building are listed in tests/drivers/xfail.list as "SUITE.TEST  reason". They
still run: a failure is reported as "# xfail" (skipped), a pass as "# XPASS"
(a failure, so the entry gets removed). Nothing else is skipped.

Each test gets `ctx`: ctx.dsn (libpq keyword string), ctx.host, ctx.port,
ctx.table(name) returns a unique table name, and ctx.server (the fixture).
Assertions use check(cond, message) / eq(actual, expected) helpers below.
"""
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from strata_fixture import FixtureError, NoServerInTree, StrataServer  # noqa: E402

_tests = []


def test(fn):
    _tests.append(fn)
    return fn


class Failure(AssertionError):
    pass


def check(cond, msg="check failed"):
    if not cond:
        raise Failure(msg)


def eq(actual, expected, what="value"):
    if actual != expected:
        raise Failure(f"{what}: expected {expected!r}, got {actual!r}")


def raises(exc_type, fn, *args, sqlstate=None, **kw):
    """Calls fn and checks it raises exc_type (with SQLSTATE sqlstate when given,
    read from the exception's pgcode / sqlstate attribute)."""
    try:
        fn(*args, **kw)
    except exc_type as e:
        if sqlstate is not None:
            code = getattr(e, "pgcode", None) or getattr(e, "sqlstate", None)
            eq(code, sqlstate, f"SQLSTATE of {type(e).__name__}: {e}")
        return e
    raise Failure(f"expected {exc_type.__name__}")


class Ctx:
    def __init__(self, server, suite):
        self.server = server
        self.suite = suite
        self.host = server.host
        self.port = server.port
        self.dsn = server.dsn
        self._n = 0

    def table(self, base):
        self._n += 1
        return f"{base}_{self._n}"


def _xfails(suite):
    out = {}
    path = os.path.join(HERE, "xfail.list")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                name, _, reason = line.partition(" ")
                if name.startswith(suite + "."):
                    out[name[len(suite) + 1:]] = reason.strip()
    return out


def main(suite, only=None):
    only = only or [a for a in sys.argv[1:] if not a.startswith("-")]
    xf = _xfails(suite)
    srv = StrataServer(f"drivers-{suite}")
    try:
        srv.start()
    except NoServerInTree as e:
        print(f"# {suite}: skipped: {e}")
        print(f"0 passed, 0 failed, {len(_tests)} skipped")
        return 0
    except FixtureError as e:
        print(f"# {suite}: {e}")
        print(f"0 passed, {len(_tests)} failed")
        return 1
    passed = failed = skipped = 0
    ctx = Ctx(srv, suite)
    try:
        for fn in _tests:
            name = fn.__name__
            if only and name not in only:
                continue
            t0 = time.monotonic()
            err = None
            try:
                fn(ctx)
            except Exception as e:  # noqa: BLE001 - every failure is reported
                err = e
                tb = traceback.format_exc()
            secs = time.monotonic() - t0
            if name in xf:
                if err is None:
                    failed += 1
                    print(f"# XPASS {name}: listed in xfail.list ({xf[name]}) but passes: remove the entry")
                else:
                    skipped += 1
                    print(f"# xfail {name}: {xf[name]} ({type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''})")
            elif err is None:
                passed += 1
                print(f"ok     {name} ({secs:.2f} s)")
            else:
                failed += 1
                first = str(err).strip().splitlines()[0] if str(err).strip() else ""
                print(f"# FAIL {name}: {type(err).__name__}: {first}")
                for line in tb.rstrip().splitlines()[-6:]:
                    print(f"       {line}")
            if not srv.external and srv.proc is not None and srv.proc.poll() is not None:
                print(f"# FAIL {suite}: the server exited during {name}")
                failed += 1
                break
    finally:
        if failed:
            srv.mark_failed()
        clean = srv.stop()
    if not clean:
        print(f"# FAIL {suite}: the server did not exit cleanly (log: {srv.kept_log})")
        failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1
