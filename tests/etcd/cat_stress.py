"""cat_stress.py — random concurrent DDL on two servers over a few shared
table names (docs/scale-out.md, "Several servers"): CREATE/DROP TABLE,
ADD COLUMN, CREATE/DROP INDEX, ANALYZE, TRUNCATE and inserts from two
sessions per server for a while, each statement in autocommit and failing
only with the errors concurrent DDL may give (40001, or a name that another
server created or dropped first). Afterwards both servers and a third one
that loads the catalog afresh from the store must show the same catalog,
every index's table must exist and every table must be readable.
usage: cat_stress.py PORT_A PORT_B PORT_C SECONDS   prints a one-line summary."""
import random
import sys
import threading
import time

import psycopg2

from twoserver import connect

TABLES = ["st%d" % i for i in range(4)]
# 40001 conflict; 42P07 exists; 42P01 no such table; 42701 column exists;
# 42704 no such index.
ALLOWED = {"40001", "42P07", "42P01", "42701", "42704"}


def statement(rnd):
    t = rnd.choice(TABLES)
    k = rnd.randrange(6)
    return rnd.choice([
        "CREATE TABLE %s (id int PRIMARY KEY, v int)" % t,
        "DROP TABLE %s" % t,
        "ALTER TABLE %s ADD COLUMN c%d int" % (t, k),
        "CREATE INDEX %s_i%d ON %s (v)" % (t, k, t),
        "DROP INDEX %s_i%d" % (t, k),
        "ANALYZE %s" % t,
        "TRUNCATE %s" % t,
        "INSERT INTO %s (id, v) SELECT g, g FROM generate_series(1, 20) g ON CONFLICT DO NOTHING" % t,
    ])


def worker(port, seed, until, counts, errors):
    rnd = random.Random(seed)
    c = connect(port, True)
    cur = c.cursor()
    while time.time() < until:
        sql = statement(rnd)
        try:
            cur.execute(sql)
            counts["ok"] += 1
        except psycopg2.Error as e:
            if e.pgcode in ALLOWED:
                counts[e.pgcode] = counts.get(e.pgcode, 0) + 1
            else:
                errors.append("%s: %s %s" % (sql, e.pgcode, str(e).strip()))
    c.close()


def catalog(conn):
    cur = conn.cursor()
    cur.execute("SELECT c.relname, c.relkind, coalesce(string_agg(a.attname, ',' ORDER BY a.attnum), '') "
                "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
                "WHERE n.nspname = 'public' GROUP BY c.relname, c.relkind ORDER BY 1")
    rels = cur.fetchall()
    cur.execute("SELECT count(*) FROM pg_index i LEFT JOIN pg_class t ON t.oid = i.indrelid "
                "WHERE t.oid IS NULL")
    return rels, cur.fetchone()[0]


def main():
    pa, pb, pc, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    until = time.time() + secs
    counts, errors, threads = {"ok": 0}, [], []
    for i, port in enumerate((pa, pa, pb, pb)):
        th = threading.Thread(target=worker, args=(port, 1000 + i, until, counts, errors))
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    if errors:
        raise SystemExit("unexpected errors: " + " | ".join(errors[:5]))
    cats = [catalog(connect(p, True)) for p in (pa, pb, pc)]
    if not cats[0] == cats[1] == cats[2]:
        raise SystemExit("catalogs differ: A %s, B %s, C (fresh) %s" % cats)
    rels, orphans = cats[0]
    if orphans:
        raise SystemExit("%d indexes of tables that do not exist" % orphans)
    c = connect(pc, True)
    for name, kind, _ in rels:
        if kind == "r":
            c.cursor().execute("SELECT * FROM %s" % name)
    print("%d statements committed, %d failed with 40001, %d found their name taken or missing; "
          "three servers show the same %d relations" % (
              counts["ok"], counts.get("40001", 0),
              sum(v for k, v in counts.items() if k not in ("ok", "40001")), len(rels)))


main()
