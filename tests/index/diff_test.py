#!/usr/bin/python3
"""diff_test.py — differential test of secondary indexes: every query answered
through an index must equal the same query forced to a full scan
(SET enable_indexscan = off), on random data under random inserts, updates
and deletes (NULLs included), in autocommit and inside transactions with
pending writes, in both write modes (atomic, split). After each round
strata_verify_index() must find no missing, stale or mismatched entry.

usage: tests/index/diff_test.py [--seed N] [--rounds N] [--rows N]
Runs against a fresh server (tests/lib/strata_fixture.py). Last line:
"N passed, N failed".
"""
import argparse
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import psycopg2  # noqa: E402
from strata_fixture import StrataServer, NoServerInTree  # noqa: E402

INDEXES = [
    "CREATE INDEX d_a ON d (a)",
    "CREATE INDEX d_ab ON d (a DESC, b)",
    "CREATE INDEX d_b ON d (b) INCLUDE (c)",
    "CREATE UNIQUE INDEX d_c ON d (c)",
    "CREATE INDEX d_lower ON d (lower(b))",
    "CREATE INDEX d_part ON d (a) WHERE c > 500",
    "CREATE INDEX d_cnf ON d (c NULLS FIRST)",
    "CREATE INDEX d_f ON d (f DESC NULLS LAST, a)",
]
INDEX_NAMES = ["d_a", "d_ab", "d_b", "d_c", "d_lower", "d_part", "d_cnf", "d_f"]
WORDS = ["ab", "abc", "b", "ba", "c", "ca", "cab", "d", "Ab", "AB", "x", ""]


class Gen:
    def __init__(self, rng, nrows):
        self.rng = rng
        self.nrows = nrows
        self.next_id = 1
        self.used_c = set()

    def a(self):
        return None if self.rng.random() < 0.1 else self.rng.randrange(0, 40)

    def b(self):
        return None if self.rng.random() < 0.1 else self.rng.choice(WORDS)

    def c(self):
        if self.rng.random() < 0.2:
            return None
        for _ in range(20):
            v = self.rng.randrange(0, 1000)
            if v not in self.used_c:
                self.used_c.add(v)
                return v
        return None

    def f(self):
        r = self.rng.random()
        if r < 0.1:
            return None
        return self.rng.choice([-1.5, 0.0, 2.25, 3.5, 1e10, -7.0])

    def row(self):
        i = self.next_id
        self.next_id += 1
        return (i, self.a(), self.b(), self.c(), self.f())


def queries(rng):
    a = rng.randrange(0, 40)
    a2 = a + rng.randrange(0, 10)
    w = rng.choice(WORDS)
    c = rng.randrange(0, 1000)
    lim = rng.randrange(1, 15)
    return [
        ("SELECT id FROM d WHERE a = %s", (a,), False),
        ("SELECT id FROM d WHERE a IN (%s, %s, %s)", (a, a2, a + 1), False),
        ("SELECT id, a FROM d WHERE a BETWEEN %s AND %s", (a, a2), False),
        ("SELECT id FROM d WHERE a > %s AND b < %s", (a, w), False),
        ("SELECT id FROM d WHERE a >= %s AND a < %s AND b IS NOT NULL", (a, a2), False),
        ("SELECT id, b, c FROM d WHERE b = %s", (w,), False),
        ("SELECT b, c FROM d WHERE b IN (%s, %s)", (w, rng.choice(WORDS)), False),
        ("SELECT * FROM d WHERE c = %s", (c,), False),
        ("SELECT id FROM d WHERE c > %s AND c <= %s", (c, c + 50), False),
        ("SELECT id FROM d WHERE a IS NULL", (), False),
        ("SELECT id FROM d WHERE c IS NULL", (), False),
        ("SELECT id FROM d WHERE lower(b) = %s", (w.lower(),), False),
        ("SELECT id FROM d WHERE a = %s AND c > 500", (a,), False),
        ("SELECT id FROM d WHERE a = %s AND c > 700", (a,), False),
        # several bounds on one key column (those the range does not use are filters)
        ("SELECT id FROM d WHERE a = %s AND a > %s", (a, a2 - 10), False),
        ("SELECT id FROM d WHERE a < %s AND a IN (%s, %s) AND a >= %s", (a2, a, a2, a - 3), False),
        ("SELECT id FROM d WHERE c IS NULL AND c > %s", (c,), False),
        ("SELECT id FROM d WHERE f > %s", (rng.choice([-2.0, 0.0, 3.0]),), False),
        ("SELECT id, a, b FROM d WHERE a >= %s ORDER BY a DESC, b, id LIMIT %s", (a, lim), True),
        ("SELECT id, a FROM d WHERE a <= %s ORDER BY a, id LIMIT %s", (a2, lim), True),
        ("SELECT id, a FROM d ORDER BY a DESC NULLS FIRST, id DESC LIMIT %s", (lim,), True),
        ("SELECT c FROM d WHERE c IS NOT NULL ORDER BY c LIMIT %s", (lim,), True),
        ("SELECT c FROM d ORDER BY c DESC NULLS LAST LIMIT %s", (lim,), True),
        ("SELECT c FROM d ORDER BY c NULLS FIRST LIMIT %s", (lim,), True),
        ("SELECT min(a), max(a) FROM d", (), True),
        ("SELECT min(c), max(c) FROM d WHERE c > %s", (c,), True),
        ("SELECT max(a) FROM d WHERE a < %s", (a,), True),
        ("SELECT min(b), max(b) FROM d", (), True),
        ("SELECT count(*) FROM d WHERE a = %s", (a,), True),
        ("SELECT id FROM d WHERE b = %s ORDER BY id", (w,), True),
        ("SELECT j.k, d.id FROM j JOIN d ON d.a = j.a WHERE j.k < %s", (rng.randrange(1, 6),), False),
        ("SELECT j.k, d.id, d.c FROM j LEFT JOIN d ON d.c = j.c WHERE j.k IN (%s, %s)",
         (rng.randrange(0, 12), rng.randrange(0, 12)), False),
        ("SELECT d.id, j.k FROM d JOIN j ON j.k = d.a WHERE d.id < %s", (rng.randrange(1, 40),), False),
    ]


def fetch(cur, sql, args, ordered):
    cur.execute(sql, args)
    rows = cur.fetchall()
    return rows if ordered else sorted(rows, key=repr)


def uses_index(cur, sql, args):
    cur.execute("EXPLAIN " + sql, args)
    # A secondary index, not the primary key's order ("Index Scan using t_pkey").
    names = [m.group(1) for r in cur.fetchall() for m in [re.search(r"Index.* using (\S+)", r[0])] if m]
    return any(not n.endswith("_pkey") for n in names)


class Run:
    def __init__(self, dsn, seed, nrows):
        self.rng = random.Random(seed)
        self.gen = Gen(self.rng, nrows)
        self.conn = psycopg2.connect(dsn)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.passed = 0
        self.failed = 0
        self.index_used = 0
        self.queries = 0
        self.nonempty = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"# FAIL {name}: {detail}")

    def setup(self, nrows):
        cur = self.cur
        cur.execute("DROP TABLE IF EXISTS d")
        cur.execute("DROP TABLE IF EXISTS j")
        cur.execute("CREATE TABLE d (id int PRIMARY KEY, a int, b text, c int, f float8)")
        cur.execute("CREATE TABLE j (k int PRIMARY KEY, a int, c int)")
        cur.execute("INSERT INTO j SELECT i, i % 40, i * 83 % 1000 FROM generate_series(0, 11) i")
        half = [self.gen.row() for _ in range(nrows // 2)]
        self.insert(half)
        for ddl in INDEXES:
            cur.execute(ddl)
        self.insert([self.gen.row() for _ in range(nrows - nrows // 2)])

    def insert(self, rows):
        for r in rows:
            try:
                self.cur.execute("INSERT INTO d VALUES (%s, %s, %s, %s, %s)", r)
                if r[3] is not None:
                    self.gen.used_c.add(r[3])
            except psycopg2.errors.UniqueViolation:
                pass

    def mutate(self, n, cur=None):
        cur = cur or self.cur
        g = self.gen
        for _ in range(n):
            op = self.rng.random()
            i = self.rng.randrange(1, g.next_id)
            try:
                if op < 0.3:
                    r = g.row()
                    cur.execute("INSERT INTO d VALUES (%s, %s, %s, %s, %s)", r)
                elif op < 0.45:
                    cur.execute("DELETE FROM d WHERE id = %s", (i,))
                elif op < 0.6:
                    cur.execute("UPDATE d SET a = %s WHERE id = %s", (g.a(), i))
                elif op < 0.7:
                    cur.execute("UPDATE d SET b = %s, f = %s WHERE id = %s", (g.b(), g.f(), i))
                elif op < 0.8:
                    cur.execute("UPDATE d SET c = %s WHERE id = %s", (g.c(), i))
                elif op < 0.85:
                    cur.execute("UPDATE d SET a = a WHERE id = %s", (i,))  # same value: rewrites entries
                elif op < 0.9:
                    cur.execute("UPDATE d SET id = %s WHERE id = %s", (g.next_id, i))
                    g.next_id += 1
                elif op < 0.95:
                    cur.execute("UPDATE d SET a = a + 1 WHERE a BETWEEN %s AND %s", (i % 40, i % 40 + 1))
                else:
                    cur.execute("DELETE FROM d WHERE a = %s AND b = %s", (g.a(), g.b()))
            except psycopg2.errors.UniqueViolation:
                if not cur.connection.autocommit:
                    raise

    def compare(self, label, cur=None):
        cur = cur or self.cur
        for sql, args, ordered in queries(self.rng):
            cur.execute("SET enable_indexscan = on")
            got = fetch(cur, sql, args, ordered)
            self.queries += 1
            if uses_index(cur, sql, args):
                self.index_used += 1
            cur.execute("SET enable_indexscan = off")
            cur.execute("SET enable_nestloop = off")
            want = fetch(cur, sql, args, ordered)
            cur.execute("SET enable_indexscan = on")
            cur.execute("SET enable_nestloop = on")
            if want and want != [(None, None)] and want != [(None,)] and want != [(0,)]:
                self.nonempty += 1
            self.check(f"{label}: {cur.mogrify(sql, args).decode()}", got == want,
                       f"index {got[:8]} vs full scan {want[:8]}")

    def verify(self, label):
        for name in INDEX_NAMES:
            self.cur.execute("SELECT missing, stale, mismatched FROM strata_verify_index(%s)", (name,))
            m, s, x = self.cur.fetchone()
            self.check(f"{label}: verify {name}", (m, s, x) == (0, 0, 0),
                       f"missing {m}, stale {s}, mismatched {x}")

    def in_transaction(self, label):
        conn = self.conn
        conn.autocommit = False
        cur = conn.cursor()
        try:
            self.mutate(20, cur)
            self.compare(label + " (pending writes)", cur)
            if self.rng.random() < 0.5:
                conn.rollback()
            else:
                conn.commit()
        except psycopg2.errors.UniqueViolation:
            conn.rollback()
        finally:
            conn.autocommit = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=int(os.environ.get("IDX_SEED", "1")))
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("IDX_ROUNDS", "6")))
    ap.add_argument("--rows", type=int, default=int(os.environ.get("IDX_ROWS", "600")))
    a = ap.parse_args()
    try:
        srv = StrataServer("idx-diff").start()
    except NoServerInTree:
        print("0 passed, 0 failed, 1 skipped")
        return 0
    run = None
    try:
        run = Run(srv.dsn, a.seed, a.rows)
        run.setup(a.rows)
        run.verify("after build")
        for rnd in range(a.rounds):
            mode = "split" if rnd % 2 else "atomic"
            run.cur.execute(f"SET strata.index_write_mode = '{mode}'")
            run.mutate(120)
            run.compare(f"round {rnd} ({mode})")
            run.in_transaction(f"round {rnd} ({mode})")
            run.verify(f"round {rnd} ({mode})")
        share = run.index_used / max(1, run.queries)
        rows = run.nonempty / max(1, run.queries)
        run.check("queries answered through an index", share > 0.6, f"only {share:.0%}")
        run.check("queries with rows to compare", rows > 0.5, f"only {rows:.0%}")
        print(f"# {run.queries} queries, {share:.0%} through an index, {rows:.0%} with rows, seed {a.seed}")
    except Exception as e:  # a crash or an unexpected error fails the suite
        print(f"# FAIL exception: {e!r}")
        if run:
            run.failed += 1
        else:
            print("0 passed, 1 failed")
            srv.mark_failed()
            srv.stop()
            return 1
    finally:
        if run:
            run.conn.close()
    if run.failed:
        srv.mark_failed()
    if not srv.stop():
        print("# FAIL server did not exit cleanly")
        run.failed += 1
    print(f"{run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
