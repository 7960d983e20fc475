"""storage_race.py — DDL that replaces or fills a relation's storage on one
server while the other server's transaction does the same to that relation
(docs/scale-out.md, "Several servers"). Deterministic: one server's
transaction runs its statement and stays open while the other server's
statement commits, then the open transaction commits.
- a CREATE INDEX or REINDEX whose table was truncated, rewritten or dropped
  meanwhile fails at its commit with 40001 (it got 58030 "could not open
  index ... to finish its build" when the build's catch-up found the table's
  storage gone), and the table keeps the winner's rows;
- TRUNCATE, REINDEX or a rewriting ALTER of one relation on both servers:
  the second commit fails with 40001 and the first one's storage, with the
  rows written into it meanwhile, stays (both computed the same next
  storage name; the loser dropped the winner's storage at its abort).
usage: storage_race.py PORT_A PORT_B   prints a one-line summary."""
import sys

import psycopg2

from twoserver import commit_code, connect, one


def open_txn(port, stmt):
    """A transaction on a server with stmt run in it, not committed."""
    c = connect(port, False)
    c.cursor().execute(stmt)
    return c


def want(what, got, expect):
    if got != expect:
        raise SystemExit("%s: want %r, got %r" % (what, expect, got))


def fresh(cur, rows):
    cur.execute("DROP TABLE IF EXISTS sr")
    cur.execute("CREATE TABLE sr (id int PRIMARY KEY, v int)")
    cur.execute("CREATE INDEX sr_v ON sr (v)")
    cur.execute("INSERT INTO sr SELECT g, g FROM generate_series(1, %d) g" % rows)


def check(what, conns, rows):
    """Every server reads the table's rows by its storage and by its index."""
    for c in conns:
        want(what + ": rows", one(c, "SELECT count(*) FROM sr"), rows)
        cur = c.cursor()
        cur.execute("SET enable_seqscan = off")
        want(what + ": rows by the index", one(c, "SELECT count(*) FROM sr WHERE v BETWEEN 1 AND 1000000"),
             rows)
        cur.execute("RESET enable_seqscan")


def main():
    pa, pb = int(sys.argv[1]), int(sys.argv[2])
    a, b = connect(pa, True), connect(pb, True)
    ca, cb = a.cursor(), b.cursor()
    out = []

    # B's index build is pending (caught up at its commit) while A's DDL
    # drops or replaces the table's storage.
    for what, stmt, rows in (("TRUNCATE", "TRUNCATE sr", 0),
                             ("ALTER TABLE DROP CONSTRAINT of the key", "ALTER TABLE sr DROP CONSTRAINT sr_pkey", 30),
                             ("DROP TABLE", "DROP TABLE sr", None)):
        for build in ("CREATE INDEX sr_w ON sr (v, id)", "REINDEX INDEX sr_v"):
            fresh(ca, 30)
            t = open_txn(pb, build)
            ca.execute(stmt)
            case = "%s on B, %s on A" % (build, what)
            want(case, commit_code(t), "40001")
            t.close()
            if rows is not None:
                check(case, (a, b), rows)
    out.append("CREATE INDEX / REINDEX whose table was truncated, rewritten or dropped: 40001")

    # One relation's storage replaced on both servers; the winner writes
    # rows into its new storage before the loser's commit.
    for stmt in ("TRUNCATE sr", "REINDEX INDEX sr_v", "ALTER TABLE sr DROP CONSTRAINT sr_pkey"):
        for first, second, fc in ((pa, b, ca), (pb, a, cb)):
            fresh(ca, 10)
            t = open_txn(first, stmt)
            second.cursor().execute(stmt)
            second.cursor().execute("INSERT INTO sr SELECT g, g FROM generate_series(101, 120) g")
            case = "%s on both servers" % stmt
            want(case, commit_code(t), "40001")
            t.close()
            rows = 20 if stmt.startswith("TRUNCATE") else 30
            check(case, (a, b), rows)
            fc.execute("INSERT INTO sr VALUES (1000, 1000)")
            check(case + ", then an insert", (a, b), rows + 1)
    out.append("TRUNCATE, REINDEX, a rewriting ALTER of one relation on both servers: the second commit "
               "fails with 40001, the first one's rows stay")
    ca.execute("DROP TABLE sr")
    a.close()
    b.close()
    print("; ".join(out))


if __name__ == "__main__":
    main()
