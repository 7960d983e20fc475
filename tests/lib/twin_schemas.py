"""twin_schemas.py — helpers of the tests that apply one seeded random workload
to two schemas holding the same tables, one using a feature (salted tables:
tests/salt, entity groups: tests/interleave) and one plain, and require the
same answers from both.

Checker counts the checks and prints each failure; fetch and sqlstate run one
statement; both runs a statement on the two schemas (each in a savepoint);
compare runs a list of queries on both and checks they agree; run is a main()
that seeds, starts the server and prints the "N passed, N failed" line of
tests/suites.list.
"""
import os
import random

import psycopg2
from strata_fixture import StrataServer


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}")


def fetch(cur, sql, args=None):
    cur.execute(sql, args)
    return cur.fetchall()


def sqlstate(cur, sql):
    """The SQLSTATE sql fails with (None if it succeeds); a transaction block
    it leaves aborted is rolled back."""
    try:
        cur.execute(sql)
        return None
    except psycopg2.Error as e:
        cur.execute("ROLLBACK")
        return e.pgcode


def both(cur, sql, args=(), schemas=("a", "b"), rows=False, stop_on_error=False):
    """Runs sql (with {s} for the schema) on each schema, each in a savepoint
    of the open transaction; returns the outcomes: ("ok", rowcount) (plus the
    returned rows with rows=True) or ("err", sqlstate). With stop_on_error the
    second schema is skipped when the first fails."""
    out = []
    for s in schemas:
        cur.execute("SAVEPOINT both_sp")
        try:
            cur.execute(sql.format(s=s), args)
            if rows:
                out.append(("ok", cur.rowcount, cur.fetchall() if cur.description else None))
            else:
                out.append(("ok", cur.rowcount))
            cur.execute("RELEASE SAVEPOINT both_sp")
        except psycopg2.Error as e:
            out.append(("err", e.pgcode))
            cur.execute("ROLLBACK TO SAVEPOINT both_sp")
            if stop_on_error:
                break
    return out


def compare(chk, cur, label, queries, schemas, names):
    """Each query (with {s} for the schema) must return the same rows from
    both schemas; names say what the two schemas are in a failure."""
    for q in queries:
        a = fetch(cur, q.format(s=schemas[0]))
        b = fetch(cur, q.format(s=schemas[1]))
        chk.check(a == b, f"{label}: {q.format(s='*')}: {names[0]} {a[:6]}... != {names[1]} {b[:6]}...")


def run(name, env, default_rounds, body):
    """A test's main(): the seed and the number of rounds from ${env}_SEED and
    ${env}_ROUNDS, a server named name, then body(chk, srv, seed, rounds); the
    server's log is kept when a check fails or body raises. Returns the exit
    code."""
    seed = int(os.environ.get(f"{env}_SEED", random.randrange(1 << 30)))
    rounds = int(os.environ.get(f"{env}_ROUNDS", str(default_rounds)))
    print(f"# {name}: seed {seed}, {rounds} rounds")
    chk = Checker()
    with StrataServer(name) as srv:
        try:
            body(chk, srv, seed, rounds)
        except Exception:
            srv.mark_failed()
            raise
        if chk.failed:
            srv.mark_failed()
    print(f"{chk.passed} passed, {chk.failed} failed")
    return 1 if chk.failed else 0
