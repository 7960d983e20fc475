"""fk_unique.py — a foreign key to a unique non-key column across two
servers (docs/scale-out.md, "Guarantees"): server A changes the referenced
value of a parent row in a transaction whose snapshot predates a child that
server B inserts (and commits) pointing at the old value; A's COMMIT must
fail with 40001 instead of orphaning the child. Also the autocommit form
(A's UPDATE reruns at a new snapshot and sees the child: 23503) and the
other order (child first: A's UPDATE fails at once with 23503).
usage: fk_unique.py PORT_A PORT_B   prints a one-line summary."""
import sys

import psycopg2

from twoserver import commit_code, connect, one


def orphans(c):
    return one(c, "SELECT count(*) FROM fu_c c WHERE NOT EXISTS "
                  "(SELECT 1 FROM fu_p p WHERE p.u = c.pu)")


def main():
    pa, pb = int(sys.argv[1]), int(sys.argv[2])
    a, b = connect(pa, True), connect(pb, True)
    ca = a.cursor()
    ca.execute("CREATE TABLE fu_p (id int PRIMARY KEY, u int UNIQUE, note text)")
    ca.execute("CREATE TABLE fu_c (id int PRIMARY KEY, pu int REFERENCES fu_p (u))")
    ca.execute("INSERT INTO fu_p VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'z')")
    out = []

    # 1: A's change of u is based on a snapshot without B's child.
    ta = connect(pa, False)
    ta.cursor().execute("UPDATE fu_p SET u = 11 WHERE id = 1")
    b.cursor().execute("INSERT INTO fu_c VALUES (1, 10)")
    code = commit_code(ta)
    if code != "40001":
        raise SystemExit("A's UPDATE of the referenced value after B's child: want 40001, got %s" % code)
    if orphans(b):
        raise SystemExit("orphaned child rows")
    out.append("a transaction changing a referenced unique value before another server's child "
               "commits: 40001 at COMMIT")

    # 2: a change of a non-referenced column of the parent does not conflict.
    ta.cursor().execute("UPDATE fu_p SET note = 'changed' WHERE id = 2")
    b.cursor().execute("INSERT INTO fu_c VALUES (2, 20)")
    code = commit_code(ta)
    if code != "committed":
        raise SystemExit("A's UPDATE of another column after B's child: want a commit, got %s" % code)
    out.append("a non-referenced column changes freely")

    # 3: the child first: A's UPDATE sees it and fails with 23503.
    try:
        ca.execute("UPDATE fu_p SET u = 21 WHERE id = 2")
        raise SystemExit("an UPDATE orphaning a committed child succeeded")
    except psycopg2.Error as e:
        if e.pgcode != "23503":
            raise SystemExit("want 23503, got %s %s" % (e.pgcode, e))
    # 4: a referenced value nobody points at changes.
    ca.execute("UPDATE fu_p SET u = 31 WHERE id = 3")
    if orphans(a) or one(a, "SELECT u FROM fu_p WHERE id = 3") != 31:
        raise SystemExit("unexpected state after the last UPDATE")
    out.append("23503 when the child came first; unreferenced values change")
    print("; ".join(out))


main()
