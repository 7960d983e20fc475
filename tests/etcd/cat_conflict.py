"""cat_conflict.py — catalog commits conflict per object across two servers
(docs/scale-out.md, "Several servers"): DDL and ANALYZE on different tables
on two servers both commit; on one table, the same new name, or a table and
a foreign key or a view over it (or naming it by nextval('s') or
'r'::regclass), the second commit fails with 40001 (and a DROP of a table or
sequence with another server's view gets 2BP01); an ANALYZE racing a
DROP of its table fails cleanly; automatic ANALYZE runs while the other
server does DDL; both servers end with the same catalog.
usage: cat_conflict.py PORT_A PORT_B   prints a one-line summary."""
import sys
import time

import psycopg2

from twoserver import commit_code, connect, one


def begin(port, *stmts):
    """A transaction on a server with stmts run in it, not committed."""
    c = connect(port, False)
    cur = c.cursor()
    for s in stmts:
        cur.execute(s)
    return c


def race(pa, sa, pb, sb):
    """A's and B's transactions both run their statements, then A commits
    first, then B: the two commit results."""
    ta, tb = begin(pa, *sa), begin(pb, *sb)
    ra = commit_code(ta)
    rb = commit_code(tb)
    ta.close()
    tb.close()
    return ra, rb


def races(pa, pb, cases):
    """(what, A's statement, B's statement, the two commit results) each."""
    for what, sa, sb, expect in cases:
        want(what, race(pa, [sa], pb, [sb]), expect)


def want(what, got, expect):
    if got != expect:
        raise SystemExit("%s: want %s, got %s" % (what, expect, got))


def rels(conn):
    cur = conn.cursor()
    cur.execute("SELECT c.relname, c.relkind, coalesce(string_agg(a.attname, ',' ORDER BY a.attnum), '') "
                "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
                "WHERE n.nspname = 'public' GROUP BY c.relname, c.relkind ORDER BY 1")
    return cur.fetchall()


def main():
    pa, pb = int(sys.argv[1]), int(sys.argv[2])
    a, b = connect(pa, True), connect(pb, True)
    ca, cb = a.cursor(), b.cursor()
    for t in ("cc1", "cc2", "cc3", "cc4"):
        ca.execute("CREATE TABLE %s (id int PRIMARY KEY, v int)" % t)
        ca.execute("INSERT INTO %s SELECT g, g FROM generate_series(1, 50) g" % t)
    ca.execute("CREATE TABLE ccp (id int PRIMARY KEY)")
    out = []

    both, second = ("committed", "committed"), ("committed", "40001")
    # Different tables: both commit, whichever order.
    races(pa, pb, [
        ("DROP TABLE on A, ANALYZE of another table on B", "DROP TABLE cc1", "ANALYZE cc2", both),
        ("ANALYZE on A, DROP TABLE of another table on B", "ANALYZE cc3", "DROP TABLE cc2", both),
        ("CREATE TABLE on both servers (different names)", "CREATE TABLE cn1 (a int)",
         "CREATE TABLE cn2 (b int)", both),
        ("ALTER TABLE on A, CREATE INDEX on another table on B", "ALTER TABLE cn1 ADD COLUMN a2 int",
         "CREATE INDEX cn2_b ON cn2 (b)", both)])
    want("ANALYZE on A's table is seen on B", one(b, "SELECT reltuples::int FROM pg_class WHERE relname = 'cc3'"), 50)
    out.append("DDL and ANALYZE on different tables on two servers: both commit")

    # The same object: first committer wins.
    races(pa, pb, [
        ("ALTER TABLE of one table on both servers", "ALTER TABLE cn1 ADD COLUMN x int",
         "ALTER TABLE cn1 ADD COLUMN y int", second),
        ("CREATE TABLE of one name on both servers", "CREATE TABLE same (a int)", "CREATE TABLE same (b int)",
         second),
        ("RENAME on A to a name B creates", "ALTER TABLE cn2 RENAME TO cn3", "CREATE TABLE cn3 (c int)", second)])
    # A table and a dependent object: both orders.
    want("DROP TABLE on A, a foreign key to it on B",
         race(pa, ["DROP TABLE ccp"], pb, ["CREATE TABLE ccc (p int REFERENCES ccp)"]), second)
    ca.execute("CREATE TABLE ccp (id int PRIMARY KEY)")
    want("a foreign key to a table on A, DROP TABLE of it on B",
         race(pa, ["CREATE TABLE ccc (p int REFERENCES ccp)"], pb, ["DROP TABLE ccp"]), second)
    out.append("one table, one name, a table and a foreign key to it: the second commit fails with 40001")
    # A view rests on the relations it reads (the catalog records no
    # dependency for it; CREATE VIEW names them to the commit): both
    # orders, a column the view reads, the second table of a join.
    ca.execute("CREATE TABLE cv1 (id int PRIMARY KEY, v int)")
    ca.execute("CREATE TABLE cv2 (id int PRIMARY KEY, w int, u int)")
    ca.execute("INSERT INTO cv1 VALUES (1, 10), (2, 20)")
    ca.execute("INSERT INTO cv2 VALUES (1, 100, 7)")
    want("DROP TABLE on A, a view over it on B",
         race(pa, ["DROP TABLE cv1"], pb, ["CREATE VIEW vv AS SELECT id, v FROM cv1"]), second)
    ca.execute("CREATE TABLE cv1 (id int PRIMARY KEY, v int)")
    ca.execute("INSERT INTO cv1 VALUES (1, 10), (2, 20)")
    want("a view over a table on A, DROP TABLE of it on B",
         race(pa, ["CREATE VIEW vv AS SELECT id, v FROM cv1"], pb, ["DROP TABLE cv1"]), second)
    want("a join view on A, DROP TABLE of its second table on B",
         race(pa, ["CREATE VIEW vj AS SELECT cv1.id, v, w FROM cv1 JOIN cv2 USING (id)"],
              pb, ["DROP TABLE cv2"]), second)
    want("DROP COLUMN on A, a view reading it on B",
         race(pa, ["ALTER TABLE cv2 DROP COLUMN u"], pb, ["CREATE VIEW vw AS SELECT u FROM cv2"]),
         ("committed", "40001"))
    want("a view on A, DROP TABLE of another table on B",
         race(pa, ["CREATE VIEW vo AS SELECT id FROM cv1"], pb, ["DROP TABLE cc3"]), both)
    # A's views are in B's catalog now: the embedded rule applies.
    try:
        cb.execute("DROP TABLE cv1")
        raise SystemExit("DROP TABLE cv1 on B with A's views over it succeeded")
    except psycopg2.Error as e:
        want("DROP TABLE of a table with a view (no CASCADE)", getattr(e, "pgcode", None), "2BP01")
    want("the view on B", one(b, "SELECT sum(v) FROM vv"), 30)
    want("the join view on B", one(b, "SELECT w FROM vj"), 100)
    out.append("a view over a table (both orders, a join's second table, a column it reads) and its DROP: "
               "the second commit fails with 40001; DROP without CASCADE then gets 2BP01")
    # A view also rests on what it names by a regclass literal
    # (nextval('s'), 'r'::regclass), as PostgreSQL binds those; built-in
    # functions and types, the only ones Strata has, cannot be dropped.
    ca.execute("CREATE SEQUENCE cs1")
    ca.execute("CREATE TABLE cr1 (a int)")
    want("DROP SEQUENCE on A, a view calling nextval on it on B",
         race(pa, ["DROP SEQUENCE cs1"], pb, ["CREATE VIEW vs AS SELECT nextval('cs1') AS n"]), second)
    ca.execute("CREATE SEQUENCE cs1")
    want("a view calling nextval on A, DROP SEQUENCE on B",
         race(pa, ["CREATE VIEW vs AS SELECT nextval('cs1') AS n"], pb, ["DROP SEQUENCE cs1"]), second)
    want("a view with a regclass literal on A, DROP TABLE of it on B",
         race(pa, ["CREATE VIEW vr AS SELECT 'cr1'::regclass AS r"], pb, ["DROP TABLE cr1"]), second)
    for what, stmt in (("DROP SEQUENCE", "DROP SEQUENCE cs1"), ("DROP TABLE", "DROP TABLE cr1"),
                       ("DROP FUNCTION of a built-in", "DROP FUNCTION nextval(regclass)")):
        try:
            cb.execute(stmt)
            raise SystemExit("%s on B with A's view depending on it succeeded" % stmt)
        except psycopg2.Error as e:
            want(what + " with a view on the other server (no CASCADE)", getattr(e, "pgcode", None), "2BP01")
    want("the nextval view on B", one(b, "SELECT n FROM vs") > 0, True)
    out.append("a view calling nextval or naming a regclass literal and DROP of that relation: 40001 "
               "(both orders), then 2BP01; DROP FUNCTION of a built-in: 2BP01")
    # ANALYZE's row estimate is an update in place: DDL of the table based
    # on an older snapshot still commits; an ANALYZE after a DROP fails.
    want("ANALYZE on A, ALTER TABLE of it on B",
         race(pa, ["ANALYZE cc4"], pb, ["ALTER TABLE cc4 ADD COLUMN w int"]), both)
    want("row estimate after ANALYZE and ALTER on two servers",
         [one(c, "SELECT reltuples::int FROM pg_class WHERE relname = 'cc4'") for c in (a, b)], [50, 50])
    want("ANALYZE on A, DROP TABLE of it on B",
         race(pa, ["ANALYZE cc4"], pb, ["DROP TABLE cc4"]), both)
    ca.execute("CREATE TABLE cc4 (id int PRIMARY KEY)")
    want("DROP TABLE on A, ANALYZE of it on B",
         race(pa, ["DROP TABLE cc4"], pb, ["ANALYZE cc4"]), second)
    out.append("ANALYZE and DDL of one table: a DROP or ALTER commits after an ANALYZE, an ANALYZE "
               "after a DROP fails with 40001")

    # Automatic ANALYZE on A (a load of 3000 rows) while B runs DDL on other
    # tables: no DDL fails, and the row count arrives in the catalog.
    ca.execute("CREATE TABLE auto (id int PRIMARY KEY, v int)")
    ca.execute("INSERT INTO auto SELECT g, g FROM generate_series(1, 3000) g")
    for i in range(20):
        cb.execute("CREATE TABLE ddl%d (a int)" % i)
        cb.execute("ALTER TABLE ddl%d ADD COLUMN b int" % i)
        cb.execute("DROP TABLE ddl%d" % i)
    deadline = time.time() + 60
    while one(a, "SELECT reltuples::int FROM pg_class WHERE relname = 'auto'") != 3000:
        if time.time() > deadline:
            raise SystemExit("automatic ANALYZE did not record 3000 rows of auto within 60 s")
        time.sleep(0.2)
    # A background ANALYZE racing a DROP of its table on the other server:
    # the DROP never fails (the ANALYZE fails quietly or finds no table).
    for i in range(5):
        ca.execute("CREATE TABLE gone%d (id int PRIMARY KEY)" % i)
        ca.execute("INSERT INTO gone%d SELECT generate_series(1, 2000)" % i)
        cb.execute("DROP TABLE gone%d" % i)
    out.append("automatic ANALYZE during 60 DDL statements on the other server, and racing 5 DROPs of "
               "its table: no statement failed")

    # Both servers (and a catalog read fresh on B) agree.
    time.sleep(0.5)
    ra, rb = rels(a), rels(b)
    want("the catalogs of the two servers", ra, rb)
    for t in ("cc1", "cc2", "cc3", "cc4", "cn2", "gone0", "vw"):
        if any(r[0] == t for r in ra):
            raise SystemExit("%s still in the catalog: %s" % (t, ra))
    want("columns of cn1", [r[2] for r in ra if r[0] == "cn1"], ["a,a2,x"])
    want("columns of same", [r[2] for r in ra if r[0] == "same"], ["a"])
    want("the foreign key's table", [r[2] for r in ra if r[0] in ("ccc", "ccp")], ["p", "id"])
    out.append("both servers end with the same catalog")
    print("; ".join(out))


main()
