#!/usr/bin/python3
"""interleave.py — entity groups give the same answers as plain tables.

Two schemas hold the same three-level hierarchy (orders > lines > notes):
`ilv` with the children interleaved in their parents, `plain` with ordinary
tables. A seeded random workload (inserts, updates, deletes, transactions
with savepoints and rollbacks) is applied to both, and after every round a
suite of queries (scans, key ranges, joins, aggregates, ORDER BY/LIMIT,
subqueries) must return identical results from both schemas. Then the
interleave-specific rules are checked: a child needs its parent (23503),
a parent with restrict children cannot be deleted (23503), cascade
children go with their parent, DROP of a parent with children fails
(2BP01), wide groups (many children per parent) stay correct, and
schema changes on one table of a hierarchy rewrite no cell of the group.

Prints one line per check and "N passed, N failed" (tests/suites.list).
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import psycopg2  # noqa: E402
from strata_fixture import StrataServer  # noqa: E402

SCHEMA = """
CREATE SCHEMA {s};
CREATE TABLE {s}.orders (id int PRIMARY KEY, customer text NOT NULL, total numeric(10,2), placed date);
CREATE TABLE {s}.lines (order_id int, line_no int, item text, qty int, price numeric(8,2),
                        PRIMARY KEY (order_id, line_no)) {w_lines};
CREATE TABLE {s}.notes (order_id int, line_no int, n int, body text,
                        PRIMARY KEY (order_id, line_no, n)) {w_notes};
"""

QUERIES = [
    "SELECT * FROM {s}.orders ORDER BY id",
    "SELECT * FROM {s}.lines ORDER BY order_id, line_no",
    "SELECT * FROM {s}.notes ORDER BY 1, 2, 3",
    "SELECT count(*), sum(qty), min(line_no), max(line_no) FROM {s}.lines",
    "SELECT * FROM {s}.lines WHERE order_id = 7 ORDER BY line_no",
    "SELECT * FROM {s}.lines WHERE order_id = 7 AND line_no = 3",
    # Key ranges past the root's key: a slice of one group.
    "SELECT * FROM {s}.lines WHERE order_id = 7 AND line_no BETWEEN 3 AND 6 ORDER BY 2",
    "SELECT * FROM {s}.lines WHERE order_id = 7 AND line_no > 5 ORDER BY 2",
    "SELECT * FROM {s}.lines WHERE order_id IN (3, 7, 11) AND line_no < 4 ORDER BY 1, 2",
    "SELECT * FROM {s}.notes WHERE order_id = 7 AND line_no = 3 AND n >= 2 ORDER BY 3",
    "SELECT * FROM {s}.notes WHERE order_id = 7 AND line_no > 3 ORDER BY 2, 3",
    "SELECT * FROM {s}.notes WHERE order_id = 7 AND line_no = 3 AND n = 1",
    "SELECT * FROM {s}.lines WHERE order_id BETWEEN 10 AND 20 AND qty > 3 ORDER BY 1, 2",
    "SELECT * FROM {s}.lines WHERE order_id IN (1, 5, 9, 33) ORDER BY 1, 2",
    "SELECT * FROM {s}.lines WHERE line_no > 5 ORDER BY order_id, line_no LIMIT 7",
    "SELECT order_id, count(*), sum(qty * price) FROM {s}.lines GROUP BY order_id ORDER BY 1",
    "SELECT o.id, o.customer, l.line_no, l.item FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "ORDER BY 1, 3",
    "SELECT o.id, count(l.line_no) FROM {s}.orders o LEFT JOIN {s}.lines l ON l.order_id = o.id "
    "GROUP BY o.id ORDER BY 1",
    "SELECT o.id, l.line_no, n.n, n.body FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "JOIN {s}.notes n ON n.order_id = l.order_id AND n.line_no = l.line_no ORDER BY 1, 2, 3",
    "SELECT o.customer, sum(l.qty) FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "WHERE o.id < 25 GROUP BY o.customer ORDER BY 1",
    "SELECT id FROM {s}.orders o WHERE NOT EXISTS (SELECT 1 FROM {s}.lines l WHERE l.order_id = o.id) ORDER BY 1",
    "SELECT id, (SELECT max(line_no) FROM {s}.lines l WHERE l.order_id = o.id) FROM {s}.orders o ORDER BY 1",
    "SELECT * FROM {s}.lines ORDER BY order_id DESC, line_no DESC LIMIT 5",
    "SELECT * FROM {s}.orders ORDER BY id DESC LIMIT 3",
    "SELECT min(id), max(id), count(*) FROM {s}.orders",
    "SELECT item, count(*) FROM {s}.lines GROUP BY item ORDER BY 2 DESC, 1 LIMIT 5",
]

ITEMS = ["apple", "pear", "fig", "kiwi", "lime", "plum", "date", "nut"]


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


def fetch(cur, sql):
    cur.execute(sql)
    return cur.fetchall()


def both(cur, sql, args=()):
    """Runs one statement on the interleaved schema, and on the plain one
    only if it succeeded there (the interleave rules refuse orphans, which
    the plain schema has no foreign keys to refuse); returns the outcomes."""
    out = []
    for s in ("ilv", "plain"):
        cur.execute("SAVEPOINT both_sp")
        try:
            cur.execute(sql.format(s=s), args)
            out.append(("ok", cur.rowcount))
            cur.execute("RELEASE SAVEPOINT both_sp")
        except psycopg2.Error as e:
            out.append(("err", e.pgcode))
            cur.execute("ROLLBACK TO SAVEPOINT both_sp")
            break
    return out


def compare(chk, cur, label):
    for q in QUERIES:
        a = fetch(cur, q.format(s="ilv"))
        b = fetch(cur, q.format(s="plain"))
        chk.check(a == b, f"{label}: {q.format(s='*')}: interleaved {a[:5]}... != plain {b[:5]}...")


def workload(chk, conn, rng, rounds):
    cur = conn.cursor()
    for r in range(rounds):
        cur.execute("BEGIN")
        for _ in range(rng.randint(5, 40)):
            op = rng.random()
            oid = rng.randint(1, 40)
            if op < 0.25:
                res = both(cur, "INSERT INTO {s}.orders VALUES (%s, %s, %s, date '2026-01-01' + %s)",
                           (oid, f"c{oid % 7}", rng.randint(0, 9999) / 100, rng.randint(0, 300)))
            elif op < 0.6:
                res = both(cur, "INSERT INTO {s}.lines VALUES (%s, %s, %s, %s, %s)",
                           (oid, rng.randint(1, 12), rng.choice(ITEMS), rng.randint(1, 9),
                            rng.randint(1, 5000) / 100))
            elif op < 0.72:
                res = both(cur, "INSERT INTO {s}.notes VALUES (%s, %s, %s, %s)",
                           (oid, rng.randint(1, 12), rng.randint(1, 3), f"note {rng.randint(0, 99)}"))
            elif op < 0.84:
                res = both(cur, "UPDATE {s}.lines SET qty = qty + 1, item = %s WHERE order_id = %s AND line_no > %s",
                           (rng.choice(ITEMS), oid, rng.randint(0, 10)))
            elif op < 0.9:
                res = both(cur, "DELETE FROM {s}.lines WHERE order_id = %s AND line_no = %s",
                           (oid, rng.randint(1, 12)))
            elif op < 0.95:
                res = both(cur, "DELETE FROM {s}.notes WHERE order_id = %s", (oid,))
            elif op < 0.97:
                res = both(cur, "DELETE FROM {s}.orders WHERE id = %s", (oid,))
            else:
                res = both(cur, "UPDATE {s}.orders SET total = coalesce(total, 0) + 1 WHERE id = %s", (oid,))
            # The plain schema's foreign keys may not be enforced: compare
            # only outcomes both schemas must agree on.
            if res[0][0] == "ok":
                chk.check(res[1] == res[0], f"round {r}: outcomes differ: {res}")
            else:
                chk.check(res[0][1] in ("23503", "23505"), f"round {r}: unexpected error: {res}")
        if rng.random() < 0.2:
            cur.execute("ROLLBACK")
        else:
            cur.execute("COMMIT")
        compare(chk, cur, f"round {r}")


def sqlstate(cur, sql):
    """The SQLSTATE sql fails with (None if it succeeds); a transaction block
    it leaves aborted is rolled back."""
    try:
        cur.execute(sql)
        return None
    except psycopg2.Error as e:
        cur.execute("ROLLBACK")
        return e.pgcode


def rules(chk, conn):
    conn.autocommit = True
    cur = conn.cursor()

    def code(sql):
        return sqlstate(cur, sql)

    cur.execute("CREATE TABLE p (a int, b text, PRIMARY KEY (a))")
    cur.execute("CREATE TABLE c (a int, k int, v text, PRIMARY KEY (a, k)) WITH (interleave_in_parent = 'p')")
    cur.execute("CREATE TABLE cc (a int, k int, PRIMARY KEY (a, k)) "
                "WITH (interleave_in_parent = 'p', interleave_on_delete = 'cascade')")
    chk.check(code("INSERT INTO c VALUES (1, 1, 'x')") == "23503", "child without its parent: 23503")
    cur.execute("INSERT INTO p VALUES (1, 'one'), (2, 'two')")
    cur.execute("INSERT INTO c VALUES (1, 1, 'x')")
    cur.execute("INSERT INTO cc VALUES (1, 1), (1, 2), (2, 1)")
    chk.check(code("DELETE FROM p WHERE a = 1") == "23503", "parent with restrict children: 23503")
    chk.check(code("UPDATE p SET a = 5 WHERE a = 1") == "23503", "parent key change with children: 23503")
    cur.execute("DELETE FROM p WHERE a = 2")
    chk.check(fetch(cur, "SELECT * FROM cc ORDER BY 1, 2") == [(1, 1), (1, 2)], "cascade children deleted")
    chk.check(code("DROP TABLE p") == "2BP01", "DROP of a parent with children: 2BP01")
    chk.check(code("CREATE TABLE bad (x text PRIMARY KEY) WITH (interleave_in_parent = 'p')") == "42P16",
              "child key must start with the parent's: 42P16")
    chk.check(code("CREATE TABLE bad (x int PRIMARY KEY) WITH (interleave_in_parent = 'nosuch')") == "42P01",
              "unknown parent: 42P01")
    chk.check(code("TRUNCATE c") == "0A000", "TRUNCATE of an interleaved table: 0A000")
    # A wide group: many children of one parent, read, updated and deleted.
    cur.execute("INSERT INTO c SELECT 1, i, 'w' || i FROM generate_series(2, 20000) i")
    chk.check(fetch(cur, "SELECT count(*), min(k), max(k) FROM c WHERE a = 1") == [(20000, 1, 20000)],
              "wide group: 20000 children of one parent")
    cur.execute("UPDATE c SET v = 'u' WHERE a = 1 AND k % 1000 = 0")
    chk.check(fetch(cur, "SELECT count(*) FROM c WHERE v = 'u'") == [(20,)], "wide group: update")
    chk.check(fetch(cur, "SELECT * FROM p") == [(1, "one")], "parent alone in a wide group")
    cur.execute("DELETE FROM c WHERE a = 1 AND k > 10")
    chk.check(fetch(cur, "SELECT count(*) FROM c") == [(10,)], "wide group: delete")
    cur.execute("DROP TABLE cc")
    cur.execute("DROP TABLE c")
    chk.check(fetch(cur, "SELECT * FROM p") == [(1, "one")], "parent intact after its children were dropped")
    cur.execute("DROP TABLE p")


def same_txn_deletes(chk, conn):
    """Children deleted earlier in the same transaction no longer block the
    parent's delete; children still there (committed or written by the
    transaction, at any depth) do."""
    conn.autocommit = True
    cur = conn.cursor()

    cur.execute("CREATE TABLE tp (o int PRIMARY KEY, total int)")
    cur.execute("CREATE TABLE tl (o int, l int, PRIMARY KEY (o, l)) WITH (interleave_in_parent = 'tp')")
    cur.execute("CREATE TABLE ts (o int, l int, s int, PRIMARY KEY (o, l, s)) WITH (interleave_in_parent = 'tl')")
    cur.execute("INSERT INTO tp VALUES (1, 0), (2, 0); INSERT INTO tl VALUES (1, 1), (1, 2), (2, 1); "
                "INSERT INTO ts VALUES (1, 1, 1)")
    chk.check(sqlstate(cur, "BEGIN; DELETE FROM tl WHERE o = 1 AND l = 2; DELETE FROM tp WHERE o = 1; COMMIT") == "23503",
              "parent delete with one child left in the transaction: 23503")
    chk.check(sqlstate(cur, "BEGIN; DELETE FROM tl WHERE o = 1 AND l = 1; COMMIT") == "23503",
              "child delete with a grandchild: 23503")
    chk.check(sqlstate(cur, "BEGIN; DELETE FROM ts; DELETE FROM tl WHERE o = 1; DELETE FROM tp WHERE o = 1; COMMIT") is None,
              "grandchildren, children, then the parent deleted in one transaction")
    chk.check(sqlstate(cur, "BEGIN; DELETE FROM tl WHERE o = 2; INSERT INTO tl VALUES (2, 5); DELETE FROM tp WHERE o = 2; "
                   "COMMIT") == "23503", "parent delete with a child the transaction wrote: 23503")
    chk.check(fetch(cur, "SELECT o FROM tp") == [(2,)] and fetch(cur, "SELECT * FROM tl") == [(2, 1)],
              "what the failed transactions did is gone")
    cur.execute("DROP TABLE ts; DROP TABLE tl; DROP TABLE tp")


def schema_changes(chk, conn):
    """ADD/DROP COLUMN on one table of a hierarchy and CREATE INDEX on the
    root rewrite no table's data: the digest of every visible cell of the
    group's kv table (row, qualifier, timestamp, value: strata_checksum)
    stays the same, and every row reads as before plus the new columns."""
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE TABLE sp (a int PRIMARY KEY, b text)")
    cur.execute("CREATE TABLE sc (a int, k int, v text, PRIMARY KEY (a, k)) WITH (interleave_in_parent = 'sp')")
    cur.execute("INSERT INTO sp SELECT i, 'p' || i FROM generate_series(1, 200) i")
    cur.execute("INSERT INTO sc SELECT i % 200 + 1, i, 'c' || i FROM generate_series(1, 3000) i")
    parent = fetch(cur, "SELECT a, b FROM sp ORDER BY a")
    child = fetch(cur, "SELECT a, k, v FROM sc ORDER BY a, k")

    def digest():
        return fetch(cur, "SELECT * FROM strata_checksum('sp')")[0]

    before = digest()
    chk.check(before[0] >= 3200, f"schema changes: the group holds both tables' cells: {before}")
    steps = [
        ("ALTER TABLE sc ADD COLUMN w int", "child ADD COLUMN"),
        ("ALTER TABLE sc DROP COLUMN w", "child DROP COLUMN"),
        ("ALTER TABLE sp ADD COLUMN x int", "parent ADD COLUMN"),
        ("ALTER TABLE sp DROP COLUMN x", "parent DROP COLUMN"),
        ("CREATE INDEX sp_b ON sp (b)", "CREATE INDEX on the parent"),
    ]
    for sql, what in steps:
        cur.execute(sql)
        chk.check(digest() == before, f"schema changes: {what} rewrote no cell of the group")
    # A default fills the table's own existing rows (a backfill of the
    # child's cells, unlike PostgreSQL's stored fast default); the parent's
    # rows read unchanged below.
    cur.execute("ALTER TABLE sc ADD COLUMN d text DEFAULT 'dflt'")
    chk.check(fetch(cur, "SELECT a, b FROM sp ORDER BY a") == parent, "schema changes: parent rows intact")
    chk.check(fetch(cur, "SELECT a, k, v FROM sc ORDER BY a, k") == child, "schema changes: child rows intact")
    chk.check(fetch(cur, "SELECT count(*) FROM sc WHERE d = 'dflt'") == [(3000,)],
              "schema changes: the new column's default reads on old rows")
    chk.check(fetch(cur, "SELECT a FROM sp WHERE b = 'p77'") == [(77,)], "schema changes: the new index answers")
    cur.execute("SELECT strata_verify_index('sp_b')")
    # New writes after the changes, including a slice of a group that has
    # uncommitted rows of this transaction.
    cur.execute("BEGIN")
    cur.execute("INSERT INTO sc (a, k, v) VALUES (5, 100000, 'new'), (5, 100001, 'new')")
    chk.check(fetch(cur, "SELECT k, v, d FROM sc WHERE a = 5 AND k >= 100000 ORDER BY k")
              == [(100000, "new", "dflt"), (100001, "new", "dflt")], "schema changes: uncommitted rows in a slice")
    cur.execute("ROLLBACK")
    chk.check(fetch(cur, "SELECT count(*) FROM sc WHERE a = 5 AND k >= 100000") == [(0,)],
              "schema changes: rolled back rows gone")
    cur.execute("DROP TABLE sc")
    cur.execute("DROP TABLE sp")


def main():
    seed = int(os.environ.get("ILV_SEED", random.randrange(1 << 30)))
    rounds = int(os.environ.get("ILV_ROUNDS", "10"))
    print(f"# interleave: seed {seed}, {rounds} rounds")
    chk = Checker()
    with StrataServer("interleave") as srv:
        conn = psycopg2.connect(srv.dsn)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute(SCHEMA.format(s="ilv", w_lines="WITH (interleave_in_parent = 'ilv.orders')",
                                  w_notes="WITH (interleave_in_parent = 'ilv.lines')"))
        cur.execute(SCHEMA.format(s="plain", w_lines="", w_notes=""))
        conn.autocommit = False
        try:
            workload(chk, conn, random.Random(seed), rounds)
            conn.rollback()
            rules(chk, conn)
            same_txn_deletes(chk, conn)
            schema_changes(chk, conn)
        except Exception:
            srv.mark_failed()
            raise
        conn.close()
        if chk.failed:
            srv.mark_failed()
    print(f"{chk.passed} passed, {chk.failed} failed")
    return 1 if chk.failed else 0


if __name__ == "__main__":
    sys.exit(main())
