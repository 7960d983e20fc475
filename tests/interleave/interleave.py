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
(2BP01), wide groups (many children per parent) stay correct, TRUNCATE
answers as on plain tables whose children have foreign keys to their
parents, EXPLAIN shows child-key slices (Group Slice), and schema changes
on one table of a hierarchy rewrite no cell of the group (no cell of the
other tables for a volatile DEFAULT).

Prints one line per check and "N passed, N failed" (tests/suites.list).
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import psycopg2  # noqa: E402
import twin_schemas  # noqa: E402
from twin_schemas import fetch, sqlstate  # noqa: E402

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
    # Child key bounds without the root's key: a slice of every group.
    "SELECT * FROM {s}.lines WHERE line_no BETWEEN 3 AND 6 ORDER BY 1, 2",
    "SELECT * FROM {s}.lines WHERE line_no = 4 ORDER BY 1",
    "SELECT * FROM {s}.lines WHERE line_no > 10 ORDER BY 1, 2",
    "SELECT * FROM {s}.lines WHERE line_no <= 2 AND order_id > 20 ORDER BY 1, 2",
    "SELECT * FROM {s}.notes WHERE line_no = 3 AND n >= 2 ORDER BY 1, 2, 3",
    "SELECT * FROM {s}.notes WHERE line_no < 3 ORDER BY 1, 2, 3",
    "SELECT o.id, l.line_no, l.item FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "WHERE l.line_no BETWEEN 2 AND 4 ORDER BY 1, 2",
    "SELECT o.id, l.line_no FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "WHERE l.line_no > 8 AND o.id < 30 ORDER BY 1, 2",
    "SELECT o.id, count(*) FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "WHERE l.line_no = 5 GROUP BY o.id ORDER BY 1",
    "SELECT o.id, l.line_no, l.qty FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "WHERE l.line_no BETWEEN 2 AND 5 AND o.id IN (3, 7, 11, 19) ORDER BY 1, 2",
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


def both(cur, sql, args=()):
    """The interleave rules refuse orphans, which the plain schema has no
    foreign keys to refuse: a statement runs on the plain schema only if it
    succeeded on the interleaved one."""
    return twin_schemas.both(cur, sql, args, ("ilv", "plain"), stop_on_error=True)


def compare(chk, cur, label):
    twin_schemas.compare(chk, cur, label, QUERIES, ("ilv", "plain"), ("interleaved", "plain"))


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


TRUNC_SCHEMA = """
CREATE SCHEMA {s};
CREATE TABLE {s}.p (a int PRIMARY KEY, b text);
CREATE TABLE {s}.c (a int {r_c}, k int, v text, PRIMARY KEY (a, k)) {w_c};
CREATE TABLE {s}.g (a int, k int, n int, PRIMARY KEY (a, k, n){f_g}) {w_g};
CREATE TABLE {s}.s (a int {r_c}, j int, PRIMARY KEY (a, j)) {w_c};
CREATE INDEX ON {s}.p (b);
"""


def truncate(chk, conn):
    """TRUNCATE on interleaved tables answers as on plain tables whose
    children reference their parents with foreign keys: a parent alone is
    refused (0A000), CASCADE takes its children along, a child alone loses
    its rows in every group while the other tables keep theirs; inside a
    transaction it rolls back; the group takes new rows afterwards."""
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute(TRUNC_SCHEMA.format(s="ti", r_c="", f_g="", w_c="WITH (interleave_in_parent = 'ti.p')",
                                    w_g="WITH (interleave_in_parent = 'ti.c')"))
    cur.execute(TRUNC_SCHEMA.format(s="tp", r_c="REFERENCES tp.p", w_c="", w_g="",
                                    f_g=", FOREIGN KEY (a, k) REFERENCES tp.c"))

    def fill():
        for sch in ("ti", "tp"):
            cur.execute(f"INSERT INTO {sch}.p SELECT i, 'p' || i FROM generate_series(1, 50) i "
                        "ON CONFLICT DO NOTHING")
            cur.execute(f"INSERT INTO {sch}.c SELECT i % 50 + 1, i, 'c' || i FROM generate_series(1, 400) i "
                        "ON CONFLICT DO NOTHING")
            cur.execute(f"INSERT INTO {sch}.g SELECT a, k, n FROM {sch}.c, generate_series(1, 2) n "
                        "ON CONFLICT DO NOTHING")
            cur.execute(f"INSERT INTO {sch}.s SELECT i % 50 + 1, i FROM generate_series(1, 100) i "
                        "ON CONFLICT DO NOTHING")

    def state(sch):
        return [fetch(cur, f"SELECT * FROM {sch}.{t} ORDER BY 1, 2" + (", 3" if t == "g" else ""))
                for t in ("p", "c", "g", "s")]

    def same(sql, what):
        out = []
        for sch in ("ti", "tp"):
            del conn.notices[:]
            try:
                cur.execute(sql.format(s=sch))
                out.append(("ok", [n.replace(f'"{sch}.', '"') for n in conn.notices]))
            except psycopg2.Error as e:
                out.append(("err", e.pgcode))
        chk.check(out[0] == out[1], f"truncate: {what}: outcomes differ: {out}")
        a, b = state("ti"), state("tp")
        chk.check(a == b, f"truncate: {what}: interleaved {[len(x) for x in a]} != plain {[len(x) for x in b]}")
        return out[0]

    fill()
    chk.check(same("TRUNCATE {s}.p", "parent alone")[1] == "0A000", "truncate: parent alone: 0A000")
    chk.check(same("TRUNCATE {s}.c", "child with children alone")[1] == "0A000",
              "truncate: child with grandchildren alone: 0A000")
    same("TRUNCATE {s}.g", "a leaf child")
    chk.check(len(state("ti")[2]) == 0 and len(state("ti")[1]) == 400, "truncate: leaf child emptied, others kept")
    fill()
    same("TRUNCATE {s}.c CASCADE", "a mid-level child, CASCADE")
    chk.check([len(x) for x in state("ti")] == [50, 0, 0, 100], "truncate: mid-level child and grandchild emptied")
    fill()
    # Inside a transaction, with the transaction's own rows, then rolled back.
    cur.execute("BEGIN")
    same("INSERT INTO {s}.c VALUES (3, 1000, 'mine')", "an insert before TRUNCATE")
    same("TRUNCATE {s}.s, {s}.c, {s}.g", "children in a transaction")
    same("INSERT INTO {s}.c VALUES (3, 1001, 'after')", "an insert after TRUNCATE")
    cur.execute("ROLLBACK")
    a = state("ti")
    chk.check(a == state("tp") and [len(x) for x in a] == [50, 400, 800, 100], "truncate: rolled back")
    before = fetch(cur, "SELECT * FROM strata_checksum('ti.p', true)")
    same("TRUNCATE {s}.s", "a sibling child")
    chk.check(fetch(cur, "SELECT * FROM strata_checksum('ti.p', true)") == before,
              "truncate: a child's truncation leaves the parent's cells as they were")
    chk.check(same("TRUNCATE {s}.p CASCADE", "the parent, CASCADE")[0] == "ok", "truncate: parent CASCADE")
    chk.check([len(x) for x in state("ti")] == [0, 0, 0, 0], "truncate: whole hierarchy emptied")
    fill()
    chk.check([len(x) for x in state("ti")] == [50, 400, 800, 100], "truncate: the group takes new rows")
    chk.check(fetch(cur, "SELECT a FROM ti.p WHERE b = 'p7'") == [(7,)], "truncate: the parent's index answers")
    v = fetch(cur, "SELECT missing, stale, mismatched FROM strata_verify_index('ti.p_b_idx')")
    chk.check(v == [(0, 0, 0)], f"truncate: the parent's index verifies: {v}")
    cur.execute("BEGIN")
    same("TRUNCATE {s}.p, {s}.c, {s}.g, {s}.s RESTART IDENTITY", "everything in a transaction")
    same("INSERT INTO {s}.p VALUES (1, 'x')", "a parent after TRUNCATE")
    same("INSERT INTO {s}.c VALUES (1, 1, 'y')", "a child after TRUNCATE")
    cur.execute("COMMIT")
    chk.check([len(x) for x in state("ti")] == [1, 1, 0, 0], "truncate: committed with new rows")
    cur.execute("DROP SCHEMA ti CASCADE")
    cur.execute("DROP SCHEMA tp CASCADE")


IX_QUERIES = [
    "SELECT order_id, line_no, item FROM {s}.lines WHERE item = 'fig' ORDER BY 1, 2",
    "SELECT order_id, line_no, qty, price FROM {s}.lines WHERE qty BETWEEN 3 AND 5 ORDER BY 1, 2",
    "SELECT qty, price FROM {s}.lines WHERE qty = 4 ORDER BY 1, 2",
    "SELECT count(*) FROM {s}.lines WHERE item IN ('kiwi', 'lime')",
    "SELECT min(qty), max(qty) FROM {s}.lines",
    "SELECT item, line_no FROM {s}.lines WHERE item > 'lime' ORDER BY item, order_id, line_no LIMIT 9",
    "SELECT * FROM {s}.notes WHERE body = 'note 7' ORDER BY 1, 2, 3",
    "SELECT o.id, l.line_no FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id WHERE l.item = 'pear' "
    "ORDER BY 1, 2",
]


def compare_ix(chk, cur, label):
    cur.execute("SET enable_seqscan = off")
    twin_schemas.compare(chk, cur, label, IX_QUERIES, ("ilv", "plain"), ("interleaved", "plain"))
    cur.execute("RESET enable_seqscan")


def verify_ix(chk, cur, names, label):
    for n in names:
        v = fetch(cur, f"SELECT rows, missing, mismatched FROM strata_verify_index('{n}')")
        chk.check(v[0][1:] == (0, 0), f"{label}: strata_verify_index('{n}'): {v}")


def child_indexes(chk, conn, rng):
    """Secondary indexes on interleaved children answer as on plain tables:
    index scans through a random workload (inserts, updates moving index
    keys, deletes, cascades from the parent), unique indexes (23505 at
    CREATE and on writes, values freed by updates, deletes and cascades),
    EXPLAIN, strata_verify_index, DROP INDEX."""
    cur = conn.cursor()
    conn.autocommit = True
    for sch in ("ilv", "plain"):
        cur.execute(f"CREATE INDEX lines_item ON {sch}.lines (item)")
        cur.execute(f"CREATE INDEX lines_qty ON {sch}.lines (qty) INCLUDE (price)")
        cur.execute(f"CREATE INDEX notes_body ON {sch}.notes (body)")
    ixs = ("ilv.lines_item", "ilv.lines_qty", "ilv.notes_body")
    verify_ix(chk, cur, ixs, "child indexes built")
    compare_ix(chk, cur, "child indexes built")
    cur.execute("SET enable_seqscan = off")
    p = "\n".join(r[0] for r in fetch(cur, "EXPLAIN SELECT * FROM ilv.lines WHERE item = 'fig'"))
    chk.check("Index Scan using lines_item on lines" in p, f"child indexes: EXPLAIN uses the index: {p}")
    p = "\n".join(r[0] for r in fetch(cur, "EXPLAIN SELECT qty, price FROM ilv.lines WHERE qty = 4"))
    chk.check("Index Scan using lines_qty on lines" in p, f"child indexes: covering index read with its rows: {p}")
    cur.execute("RESET enable_seqscan")
    conn.autocommit = False
    workload(chk, conn, rng, 4)
    conn.rollback()
    conn.autocommit = True
    compare_ix(chk, cur, "child indexes after writes")
    verify_ix(chk, cur, ixs, "child indexes after writes")
    # Cascades: deleting parents takes their lines and notes (and, read
    # through the index, their entries) along.
    for sch in ("ilv", "plain"):
        cur.execute(f"DELETE FROM {sch}.notes WHERE order_id < 10")
        cur.execute(f"DELETE FROM {sch}.lines WHERE order_id < 10")
        cur.execute(f"DELETE FROM {sch}.orders WHERE id < 10")
    compare_ix(chk, cur, "child indexes after parent deletes")
    # Unique indexes on a child.
    for sch, w, ref in (("ilv", "WITH (interleave_in_parent = 'ilv.up', interleave_on_delete = 'cascade')", ""),
                        ("plain", "", "REFERENCES plain.up ON DELETE CASCADE")):
        cur.execute(f"CREATE TABLE {sch}.up (a int PRIMARY KEY)")
        cur.execute(f"CREATE TABLE {sch}.uc (a int {ref}, k int, code text, PRIMARY KEY (a, k)) {w}")
        cur.execute(f"INSERT INTO {sch}.up SELECT generate_series(1, 5)")
        cur.execute(f"INSERT INTO {sch}.uc VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 1, 'x')")

    def same(sql, what):
        out = []
        for sch in ("ilv", "plain"):
            try:
                cur.execute(sql.format(s=sch))
                out.append(("ok", cur.rowcount))
            except psycopg2.Error as e:
                out.append(("err", e.pgcode, e.diag.message_detail))
        chk.check(out[0] == out[1], f"child unique: {what}: {out}")
        a = fetch(cur, "SELECT * FROM ilv.uc ORDER BY 1, 2")
        chk.check(a == fetch(cur, "SELECT * FROM plain.uc ORDER BY 1, 2"), f"child unique: {what}: rows differ")
        return out[0]

    chk.check(same("CREATE UNIQUE INDEX uc_code ON {s}.uc (code)", "build over a duplicate")[1] == "23505",
              "child unique: build over a duplicate: 23505")
    same("DELETE FROM {s}.uc WHERE a = 3", "the duplicate deleted")
    chk.check(same("CREATE UNIQUE INDEX uc_code ON {s}.uc (code)", "build")[0] == "ok", "child unique: built")
    chk.check(same("INSERT INTO {s}.uc VALUES (3, 1, 'x')", "insert of a taken value")[1] == "23505",
              "child unique: insert of a taken value: 23505")
    chk.check(same("UPDATE {s}.uc SET code = 'x' WHERE a = 2", "update to a taken value")[1] == "23505",
              "child unique: update to a taken value: 23505")
    same("UPDATE {s}.uc SET code = 'z' WHERE a = 2", "update freeing a value")
    same("INSERT INTO {s}.uc VALUES (3, 1, 'y')", "insert of the freed value")
    same("INSERT INTO {s}.uc VALUES (4, 1, NULL), (4, 2, NULL)", "NULLs are distinct")
    same("DELETE FROM {s}.up WHERE a = 1", "cascade from the parent")
    same("INSERT INTO {s}.uc VALUES (5, 1, 'x')", "a value freed by the cascade")
    chk.check(same("INSERT INTO {s}.uc VALUES (5, 2, 'z')", "taken again")[1] == "23505",
              "child unique: value moved by update still taken: 23505")
    cur.execute("BEGIN")
    same("DELETE FROM {s}.uc WHERE a = 5", "a delete in a transaction")
    same("INSERT INTO {s}.uc VALUES (2, 7, 'x')", "the value it freed, in the same transaction")
    cur.execute("COMMIT")
    verify_ix(chk, cur, ("ilv.uc_code",), "child unique")
    cur.execute("SET enable_seqscan = off")
    chk.check(fetch(cur, "SELECT a, k FROM ilv.uc WHERE code = 'x'") == fetch(cur, "SELECT a, k FROM plain.uc WHERE code = 'x'"),
              "child unique: lookup by the unique index")
    cur.execute("RESET enable_seqscan")
    # CONCURRENTLY on a child: the same index, built the blocking way.
    chk.check(same("CREATE INDEX CONCURRENTLY uc_c2 ON {s}.uc (code)", "CREATE INDEX CONCURRENTLY")[0] == "ok",
              "child indexes: CREATE INDEX CONCURRENTLY builds")
    verify_ix(chk, cur, ("ilv.uc_c2",), "child index built CONCURRENTLY")
    for sch in ("ilv", "plain"):
        cur.execute(f"DROP INDEX {sch}.uc_code")
        cur.execute(f"DROP TABLE {sch}.uc")
        cur.execute(f"DROP TABLE {sch}.up")
    for sch in ("ilv", "plain"):
        cur.execute(f"DROP INDEX {sch}.lines_item, {sch}.lines_qty, {sch}.notes_body")
    compare(chk, cur, "after DROP INDEX")


def explain(chk, conn):
    """EXPLAIN names how a child is read: bounds on its key past the root's
    key slice every group (Group Slice), also inside an interleaved join; with
    the root's key fixed they bound the one group read (Index Cond)."""
    conn.autocommit = True
    cur = conn.cursor()

    def plan(sql):
        return "\n".join(r[0] for r in fetch(cur, "EXPLAIN " + sql))

    p = plan("SELECT * FROM ilv.lines WHERE line_no BETWEEN 3 AND 6")
    chk.check("Group Slice: ((line_no >= 3) AND (line_no <= 6))" in p, f"explain: child slice: {p}")
    p = plan("SELECT * FROM ilv.notes WHERE line_no = 3 AND n > 1")
    chk.check("Group Slice: ((line_no = 3) AND (n > 1))" in p, f"explain: two-level slice: {p}")
    p = plan("SELECT o.id, l.line_no FROM ilv.orders o JOIN ilv.lines l ON l.order_id = o.id "
             "WHERE l.line_no BETWEEN 2 AND 4")
    chk.check("Interleaved Join" in p and "Group Slice: ((line_no >= 2) AND (line_no <= 4))" in p,
              f"explain: slice inside an interleaved join: {p}")
    p = plan("SELECT o.id, l.line_no FROM ilv.orders o JOIN ilv.lines l ON l.order_id = o.id "
             "WHERE l.line_no BETWEEN 2 AND 5 AND o.id IN (3, 7, 11)")
    chk.check("Index Cond: (order_id = o.id)" in p and "Group Slice: ((line_no >= 2) AND (line_no <= 5))" in p,
              f"explain: slice of each group a lookup join reads: {p}")
    p = plan("SELECT * FROM ilv.lines WHERE order_id = 7 AND line_no BETWEEN 3 AND 6")
    chk.check("Index Cond: ((order_id = 7) AND (line_no >= 3) AND (line_no <= 6))" in p
              and "Group Slice" not in p, f"explain: root key fixed, one group's slice: {p}")
    p = plan("SELECT * FROM plain.lines WHERE line_no BETWEEN 3 AND 6")
    chk.check("Group Slice" not in p, f"explain: no slice on a plain table: {p}")
    # Prepared: the bounds are parameters evaluated at each execution.
    cur.execute("PREPARE sl(int, int) AS SELECT order_id, line_no FROM ilv.lines "
                "WHERE line_no BETWEEN $1 AND $2 ORDER BY 1, 2")
    cur.execute("PREPARE sp(int, int) AS SELECT order_id, line_no FROM plain.lines "
                "WHERE line_no BETWEEN $1 AND $2 ORDER BY 1, 2")
    for lo, hi in ((1, 1), (3, 7), (7, 3), (11, 40)):
        chk.check(fetch(cur, f"EXECUTE sl({lo}, {hi})") == fetch(cur, f"EXECUTE sp({lo}, {hi})"),
                  f"explain: prepared slice ({lo}, {hi}) answers as the plain table")
    cur.execute("DEALLOCATE sl")
    cur.execute("DEALLOCATE sp")


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
    cur.execute("CREATE TABLE sc2 (a int, j int, w text, PRIMARY KEY (a, j)) WITH (interleave_in_parent = 'sp')")
    cur.execute("INSERT INTO sc2 SELECT i % 200 + 1, i, 'x' || i FROM generate_series(1, 500) i")
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
        ("CREATE INDEX sc_v ON sc (v)", "CREATE INDEX on a child"),
        ("CREATE UNIQUE INDEX sc_kv ON sc (k, v)", "CREATE UNIQUE INDEX on a child"),
        ("DROP INDEX sc_kv", "DROP INDEX on a child"),
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
    # A non-constant default rewrites that table's rows only: each table's
    # own cells (strata_checksum(t, true)) are digested apart.
    def own(t):
        return fetch(cur, f"SELECT * FROM strata_checksum('{t}', true)")[0]

    # Cells per row: the sentinel and one per non-NULL column, or the
    # sentinel alone in the packed row format (docs/row-format.md).
    packed = os.environ.get("STRATA_ROW_FORMAT") != "cells"
    p0, c0, s0 = own("sp"), own("sc"), own("sc2")
    chk.check((p0[0], c0[0], s0[0]) == ((200, 3000, 500) if packed else (400, 9000, 1000)),
              f"schema changes: each table's own cells counted apart: {p0} {c0} {s0}")
    chk.check(p0[0] + c0[0] + s0[0] == digest()[0], "schema changes: own cells add up to the group's")
    cur.execute("CREATE SEQUENCE sq")
    cur.execute("ALTER TABLE sc ADD COLUMN q bigint DEFAULT nextval('sq')")
    c1 = own("sc")
    grown = 0 if packed else 3000  # packed: the same cells, rewritten
    chk.check(own("sp") == p0 and own("sc2") == s0 and c1[0] == c0[0] + grown and c1 != c0,
              f"schema changes: a volatile default on a child rewrote that child only: {c0} -> {c1}")
    chk.check(fetch(cur, "SELECT count(DISTINCT q), min(q), max(q) FROM sc") == [(3000, 1, 3000)],
              "schema changes: the volatile default evaluated per row")
    cur.execute("ALTER TABLE sp ADD COLUMN t timestamptz DEFAULT clock_timestamp()")
    p1 = own("sp")
    grown = 0 if packed else 200
    chk.check(own("sc") == c1 and own("sc2") == s0 and p1[0] == p0[0] + grown and p1 != p0,
              "schema changes: a volatile default on the parent rewrote the parent only")
    chk.check(fetch(cur, "SELECT count(*) FROM sp WHERE t IS NOT NULL") == [(200,)],
              "schema changes: the parent's new column filled")
    cur.execute("SELECT strata_verify_index('sp_b')")
    v = fetch(cur, "SELECT rows, missing, stale, mismatched FROM strata_verify_index('sc_v')")
    chk.check(v == [(3000, 0, 0, 0)], f"schema changes: the child's index verifies: {v}")
    chk.check(fetch(cur, "SELECT a, k FROM sc WHERE v = 'c77'") == [(78, 77)], "schema changes: the child's index answers")
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
    cur.execute("DROP TABLE sc2")
    cur.execute("DROP TABLE sp")
    cur.execute("DROP SEQUENCE sq")


def body(chk, srv, seed, rounds):
    conn = psycopg2.connect(srv.dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute(SCHEMA.format(s="ilv", w_lines="WITH (interleave_in_parent = 'ilv.orders')",
                              w_notes="WITH (interleave_in_parent = 'ilv.lines')"))
    cur.execute(SCHEMA.format(s="plain", w_lines="", w_notes=""))
    conn.autocommit = False
    workload(chk, conn, random.Random(seed), rounds)
    conn.rollback()
    child_indexes(chk, conn, random.Random(seed + 1))
    rules(chk, conn)
    truncate(chk, conn)
    explain(chk, conn)
    same_txn_deletes(chk, conn)
    schema_changes(chk, conn)
    conn.close()


if __name__ == "__main__":
    sys.exit(twin_schemas.run("interleave", "ILV", 10, body))
