#!/usr/bin/python3
"""salt.py — salted tables give the same answers as plain tables.

Two schemas hold the same tables: `salt` with every table salted
(WITH (salt_buckets = N), several N, a composite key, a descending key, a
table without a primary key, a foreign key to a salted parent, secondary
indexes), `plain` with ordinary tables. A seeded random workload (inserts
with sequential keys, upserts, updates that move primary keys, deletes,
COPY, transactions with savepoints and rollbacks) is applied to both, and
inside every transaction and after it a suite of queries (point reads, key
ranges, IN lists, ORDER BY/LIMIT forwards and backwards, MIN/MAX, joins,
aggregates, queries without ORDER BY: the bucket scans are merged in key
order, so even those must agree; parallel full scans read the table as
stored) must return identical results. Then the
salting rules (CREATE only, 1..256, no interleaving; 0A000 / 22023), the
rewrites (TRUNCATE, ADD PRIMARY KEY), EXPLAIN's "Salt Buckets" line, index
verification and a restart are checked.

Prints one line per failed check and "N passed, N failed" (tests/suites.list).
SALT_SEED replays a run; SALT_ROUNDS sets its length (default 8).
"""
import io
import os
import random
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import psycopg2  # noqa: E402
import twin_schemas  # noqa: E402
from twin_schemas import fetch, sqlstate  # noqa: E402

SCHEMA = """
CREATE SCHEMA {s};
CREATE TABLE {s}.orders (id int PRIMARY KEY, customer text NOT NULL, total numeric(10,2), placed date) {w8};
CREATE TABLE {s}.lines (order_id int REFERENCES {s}.orders (id) ON DELETE CASCADE, line_no int, item text,
                        qty int, price numeric(8,2), PRIMARY KEY (order_id, line_no)) {w16};
CREATE INDEX ON {s}.lines (item);
CREATE TABLE {s}.tags (tag text PRIMARY KEY, n bigint) {w3desc};
CREATE TABLE {s}.log (seq int, msg text) {w4};
"""

SALTED = {"w8": "WITH (salt_buckets = 8)", "w16": "WITH (salt_buckets = 16)",
          "w3desc": "WITH (salt_buckets = 3, key_order = desc)", "w4": "WITH (salt_buckets = 4)"}
PLAIN = {"w8": "", "w16": "", "w3desc": "WITH (key_order = desc)", "w4": ""}

QUERIES = [
    "SELECT * FROM {s}.orders ORDER BY id",
    "SELECT * FROM {s}.orders",  # no ORDER BY: key order from the merge
    "SELECT * FROM {s}.lines",
    "SELECT * FROM {s}.tags",
    "SELECT * FROM {s}.log ORDER BY seq, msg",
    "SELECT * FROM {s}.orders WHERE id = 7",
    "SELECT * FROM {s}.orders WHERE id IN (3, 17, 5, 40, 99)",
    "SELECT * FROM {s}.orders WHERE id IN (3, 17, 5, 40, 99) ORDER BY id DESC",
    "SELECT * FROM {s}.orders WHERE id BETWEEN 10 AND 30",
    "SELECT * FROM {s}.orders WHERE id > 35 OR id < 4",
    "SELECT * FROM {s}.orders ORDER BY id DESC LIMIT 4",
    "SELECT * FROM {s}.orders ORDER BY id LIMIT 3 OFFSET 2",
    "SELECT * FROM {s}.orders WHERE id >= 20 ORDER BY id LIMIT 5",
    "SELECT min(id), max(id), count(*), sum(total) FROM {s}.orders",
    "SELECT max(id) FROM {s}.orders WHERE id < 25",
    "SELECT * FROM {s}.lines WHERE order_id = 7",
    "SELECT * FROM {s}.lines WHERE order_id = 7 AND line_no = 3",
    "SELECT * FROM {s}.lines WHERE order_id = 7 AND line_no BETWEEN 3 AND 6 ORDER BY line_no DESC",
    "SELECT * FROM {s}.lines WHERE order_id IN (3, 7, 11) AND line_no < 4",
    "SELECT * FROM {s}.lines WHERE order_id BETWEEN 10 AND 20 AND qty > 3",
    "SELECT * FROM {s}.lines ORDER BY order_id DESC, line_no DESC LIMIT 7",
    "SELECT max(line_no), min(line_no) FROM {s}.lines WHERE order_id = 9",
    "SELECT * FROM {s}.lines WHERE item = 'fig' ORDER BY order_id, line_no",
    "SELECT item, count(*), sum(qty) FROM {s}.lines GROUP BY item ORDER BY item",
    "SELECT order_id, count(*), sum(qty * price) FROM {s}.lines GROUP BY order_id ORDER BY 1",
    "SELECT o.id, o.customer, l.line_no, l.item FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id "
    "ORDER BY 1, 3",
    "SELECT o.id, l.line_no FROM {s}.orders o JOIN {s}.lines l ON l.order_id = o.id",
    "SELECT o.id, count(l.line_no) FROM {s}.orders o LEFT JOIN {s}.lines l ON l.order_id = o.id "
    "GROUP BY o.id ORDER BY 1",
    "SELECT id FROM {s}.orders o WHERE NOT EXISTS (SELECT 1 FROM {s}.lines l WHERE l.order_id = o.id) ORDER BY 1",
    "SELECT id, (SELECT max(line_no) FROM {s}.lines l WHERE l.order_id = o.id) FROM {s}.orders o ORDER BY 1",
    "SELECT * FROM {s}.tags WHERE tag LIKE 't1%'",
    "SELECT * FROM {s}.tags ORDER BY tag DESC LIMIT 3",
    "SELECT * FROM {s}.tags ORDER BY tag LIMIT 3",
    "SELECT min(tag), max(tag) FROM {s}.tags",
    "SELECT * FROM {s}.tags WHERE tag = 't7'",
    "SELECT count(*), min(seq), max(seq) FROM {s}.log",
    "SELECT msg FROM {s}.log WHERE seq > 50 ORDER BY 1",
    # Row values kept past their input batch (sort keys, min/max, ordered aggregates).
    "SELECT min(ROW(customer, id)), max(ROW(customer, id)) FROM {s}.orders",
    "SELECT string_agg(item, ',' ORDER BY ROW(qty, order_id, line_no)) FROM {s}.lines",
    "SELECT ROW(order_id, item) FROM {s}.lines ORDER BY ROW(item, order_id), line_no",
    "SELECT order_id, max(ROW(item, line_no)) FROM {s}.lines GROUP BY order_id ORDER BY 1",
]

ITEMS = ["apple", "pear", "fig", "kiwi", "lime", "plum", "date", "nut"]


def both(cur, sql, args=()):
    return twin_schemas.both(cur, sql, args, ("salt", "plain"), rows=True)


def compare(chk, cur, label):
    twin_schemas.compare(chk, cur, label, QUERIES, ("salt", "plain"), ("salted", "plain"))


def copy_both(cur, rows):
    for s in ("salt", "plain"):
        buf = io.StringIO("".join(f"{seq}\t{msg}\n" for seq, msg in rows))
        cur.copy_expert(f"COPY {s}.log (seq, msg) FROM STDIN", buf)


def workload(chk, conn, rng, rounds):
    cur = conn.cursor()
    seq = 0
    for r in range(rounds):
        cur.execute("BEGIN")
        for _ in range(rng.randint(10, 50)):
            op = rng.random()
            oid = rng.randint(1, 45)
            if op < 0.2:
                res = both(cur, "INSERT INTO {s}.orders VALUES (%s, %s, %s, date '2026-01-01' + %s)",
                           (oid, f"c{oid % 7}", rng.randint(0, 9999) / 100, rng.randint(0, 300)))
            elif op < 0.45:
                res = both(cur, "INSERT INTO {s}.lines VALUES (%s, %s, %s, %s, %s) RETURNING line_no",
                           (oid, rng.randint(1, 12), rng.choice(ITEMS), rng.randint(1, 9),
                            rng.randint(1, 5000) / 100))
            elif op < 0.52:
                res = both(cur, "INSERT INTO {s}.orders VALUES (%s, 'up', 1) ON CONFLICT (id) DO UPDATE "
                           "SET total = {s}.orders.total + 1, customer = 'upd' RETURNING *", (oid,))
            elif op < 0.6:
                res = both(cur, "INSERT INTO {s}.tags VALUES (%s, 1) ON CONFLICT (tag) DO UPDATE "
                           "SET n = {s}.tags.n + 1", (f"t{rng.randint(0, 30)}",))
            elif op < 0.68:
                res = both(cur, "UPDATE {s}.lines SET qty = qty + 1, item = %s WHERE order_id = %s AND line_no > %s",
                           (rng.choice(ITEMS), oid, rng.randint(0, 10)))
            elif op < 0.73:
                # Primary-key changes move rows between buckets.
                res = both(cur, "UPDATE {s}.lines SET line_no = line_no + 100 WHERE order_id = %s AND line_no < %s",
                           (oid, rng.randint(1, 6)))
            elif op < 0.77:
                res = both(cur, "UPDATE {s}.orders SET id = id + 1000 WHERE id = %s", (oid,))
            elif op < 0.83:
                res = both(cur, "DELETE FROM {s}.lines WHERE order_id = %s AND line_no = %s",
                           (oid, rng.randint(1, 12)))
            elif op < 0.86:
                res = both(cur, "DELETE FROM {s}.orders WHERE id = %s", (oid,))
            elif op < 0.93:
                n = rng.randint(1, 30)  # sequential keys: the hot spot salting spreads
                res = both(cur, "INSERT INTO {s}.log SELECT %s + i, 'm' || (%s + i) FROM generate_series(1, %s) i",
                           (seq, seq, n))
                seq += n
            elif op < 0.96:
                rows = [(seq + i, f"copy {seq + i}") for i in range(rng.randint(1, 40))]
                seq += len(rows)
                copy_both(cur, rows)
                res = [("ok", 0, None), ("ok", 0, None)]
            else:
                res = both(cur, "DELETE FROM {s}.log WHERE seq %% 7 = %s", (rng.randint(0, 6),))
            chk.check(len(res) == 2 and res[0] == res[1], f"round {r}: outcomes differ: {res}")
        if rng.random() < 0.5:
            compare(chk, cur, f"round {r} (in the transaction)")
        if rng.random() < 0.2:
            cur.execute("ROLLBACK")
        else:
            cur.execute("COMMIT")
        compare(chk, cur, f"round {r}")


def explain(cur, sql):
    return "\n".join(r[0] for r in fetch(cur, "EXPLAIN " + sql))


def rules(chk, conn):
    conn.autocommit = True
    cur = conn.cursor()
    chk.check(sqlstate(cur, "ALTER TABLE salt.orders SET (salt_buckets = 4)") == "0A000", "ALTER SET salt_buckets: 0A000")
    chk.check(sqlstate(cur, "ALTER TABLE plain.orders SET (salt_buckets = 4)") == "0A000",
              "ALTER SET salt_buckets on a plain table: 0A000")
    chk.check(sqlstate(cur, "CREATE TABLE bad (a int PRIMARY KEY) WITH (salt_buckets = 257)") == "22023",
              "salt_buckets = 257: 22023")
    chk.check(sqlstate(cur, "CREATE TABLE bad (a int PRIMARY KEY) WITH (salt_buckets = -1)") == "22023",
              "salt_buckets = -1: 22023")
    chk.check(sqlstate(cur, "CREATE TABLE bad (a int PRIMARY KEY) WITH (salt_buckets = 'x')") == "22023",
              "salt_buckets = 'x': 22023")
    chk.check(sqlstate(cur, "CREATE TABLE ch (id int, k int, PRIMARY KEY (id, k)) "
                   "WITH (interleave_in_parent = 'salt.orders')") == "0A000", "child of a salted parent: 0A000")
    chk.check(sqlstate(cur, "CREATE TABLE pp (id int PRIMARY KEY)") is None, "plain parent")
    chk.check(sqlstate(cur, "CREATE TABLE ch (id int, k int, PRIMARY KEY (id, k)) "
                   "WITH (interleave_in_parent = 'pp', salt_buckets = 4)") == "0A000", "salted child: 0A000")
    cur.execute("DROP TABLE pp")
    chk.check(fetch(cur, "SELECT reloptions FROM pg_class WHERE oid = 'salt.orders'::regclass")
              == [(["salt_buckets=8"],)], "reloptions show salt_buckets")
    # EXPLAIN: fan-out, and point reads in one bucket.
    e = explain(cur, "SELECT * FROM salt.orders WHERE id BETWEEN 1 AND 9")
    chk.check("Salt Buckets: 8" in e and "one per key" not in e, f"EXPLAIN of a range: {e}")
    e = explain(cur, "SELECT * FROM salt.orders WHERE id = 3")
    chk.check("Salt Buckets: 8 (one per key)" in e, f"EXPLAIN of a point read: {e}")
    e = explain(cur, "SELECT * FROM plain.orders WHERE id = 3")
    chk.check("Salt" not in e, f"EXPLAIN of a plain table: {e}")
    e = explain(cur, "SELECT * FROM salt.orders ORDER BY id LIMIT 3")
    chk.check("Sort" not in e and "Salt Buckets: 8" in e, f"EXPLAIN ORDER BY key LIMIT: no sort: {e}")
    e = explain(cur, "SELECT * FROM salt.orders ORDER BY id DESC LIMIT 3")
    chk.check("Backward" in e and "Sort" not in e, f"EXPLAIN ORDER BY key DESC: backward, no sort: {e}")
    # The index of a salted table points at its salted row keys.
    cur.execute("SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = 'salt.lines'::regclass "
                "AND NOT indisprimary")
    ix = cur.fetchone()[0]
    chk.check(sqlstate(cur, f"SELECT strata_verify_index('{ix}')") is None, "index of a salted table verifies")
    # A big sequential load: every bucket gets rows; reads agree.
    for s in ("salt", "plain"):
        cur.execute(f"CREATE TABLE {s}.big (id bigint PRIMARY KEY, v int) "
                    + ("WITH (salt_buckets = 32)" if s == "salt" else ""))
        cur.execute(f"INSERT INTO {s}.big SELECT i, i % 97 FROM generate_series(1, 20000) i")
    for q in ["SELECT count(*), sum(v) FROM {s}.big", "SELECT * FROM {s}.big WHERE id BETWEEN 777 AND 801",
              "SELECT * FROM {s}.big ORDER BY id DESC LIMIT 5", "SELECT * FROM {s}.big LIMIT 5",
              "SELECT min(id), max(id) FROM {s}.big WHERE v = 3",
              "SELECT a.id, b.v FROM {s}.big a JOIN {s}.big b ON a.id = b.id WHERE a.id < 40"]:
        chk.check(fetch(cur, q.format(s="salt")) == fetch(cur, q.format(s="plain")), f"big: {q}")
    # A big full scan runs on parallel workers, reading the table as stored.
    for s in ("salt", "plain"):
        cur.execute(f"CREATE TABLE {s}.par (id int PRIMARY KEY, v int) "
                    + ("WITH (salt_buckets = 8)" if s == "salt" else ""))
        cur.execute(f"INSERT INTO {s}.par SELECT i, i % 13 FROM generate_series(1, 60000) i")
        cur.execute(f"ANALYZE {s}.par")
    e = explain(cur, "SELECT sum(v), sum(id), count(*) FROM salt.par")
    chk.check("Parallel Seq Scan" in e and "Salt Buckets: 8 (read as stored)" in e, f"parallel salted scan: {e}")
    for q in ["SELECT sum(v), sum(id), count(*) FROM {s}.par", "SELECT v, count(*) FROM {s}.par GROUP BY v ORDER BY v"]:
        chk.check(fetch(cur, q.format(s="salt")) == fetch(cur, q.format(s="plain")), f"parallel: {q}")
    # Prepared statements: the generic plan's bounds are parameters.
    cur.execute("PREPARE pr (int, int) AS SELECT * FROM salt.big WHERE id >= $1 AND id < $2 ORDER BY id")
    cur.execute("PREPARE pq (int, int) AS SELECT * FROM plain.big WHERE id >= $1 AND id < $2 ORDER BY id")
    for lo in (1, 500, 19990):
        chk.check(fetch(cur, f"EXECUTE pr ({lo}, {lo + 20})") == fetch(cur, f"EXECUTE pq ({lo}, {lo + 20})"),
                  f"prepared range from {lo}")
    # Rewrites: ADD PRIMARY KEY re-keys a salted table without one; TRUNCATE.
    for s in ("salt", "plain"):
        cur.execute(f"CREATE TABLE {s}.nk (a int NOT NULL, b text) " + ("WITH (salt_buckets = 5)" if s == "salt" else ""))
        cur.execute(f"INSERT INTO {s}.nk SELECT i, 'b' || i FROM generate_series(1, 500) i")
        cur.execute(f"ALTER TABLE {s}.nk ADD PRIMARY KEY (a)")
    for q in ["SELECT * FROM {s}.nk", "SELECT * FROM {s}.nk WHERE a = 250", "SELECT * FROM {s}.nk WHERE a > 490"]:
        chk.check(fetch(cur, q.format(s="salt")) == fetch(cur, q.format(s="plain")), f"after ADD PRIMARY KEY: {q}")
    chk.check(sqlstate(cur, "INSERT INTO salt.nk VALUES (7, 'dup')") == "23505", "after ADD PRIMARY KEY: 23505")
    cur.execute("TRUNCATE salt.big")
    chk.check(fetch(cur, "SELECT count(*) FROM salt.big") == [(0,)], "TRUNCATE empties a salted table")
    cur.execute("INSERT INTO salt.big VALUES (5, 1), (3, 2), (9, 3)")
    chk.check(fetch(cur, "SELECT id FROM salt.big") == [(3,), (5,), (9,)], "after TRUNCATE: key order")
    # Foreign keys to a salted parent.
    chk.check(sqlstate(cur, "INSERT INTO salt.lines VALUES (987654, 1, 'x', 1, 1)") == "23503",
              "FK to a salted parent: 23503")


def dump_roundtrip(chk, srv, cur):
    """pg_dump 15 of the salted schema restores into a fresh database with
    its tables still salted (reloptions) and the same rows, re-keyed by
    the restore's ADD PRIMARY KEY."""
    cur.execute("CREATE DATABASE restored")
    dump = subprocess.run(["pg_dump", "-n", "salt", srv.dbname], env=srv.env(), capture_output=True, text=True)
    chk.check(dump.returncode == 0 and "salt_buckets='8'" in dump.stdout, f"pg_dump of salted tables: {dump.stderr}")
    env = dict(srv.env(), PGDATABASE="restored")
    rest = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"], env=env, input=dump.stdout,
                          capture_output=True, text=True)
    chk.check(rest.returncode == 0, f"restore of the dump: {rest.stderr[-500:]}")
    c2 = psycopg2.connect(srv.dsn.replace(f"dbname={srv.dbname}", "dbname=restored"))
    c2.autocommit = True
    cur2 = c2.cursor()
    q = "SELECT relname, reloptions FROM pg_class WHERE relnamespace = 'salt'::regnamespace AND relkind = 'r' ORDER BY 1"
    chk.check(fetch(cur, q) == fetch(cur2, q), "restored tables keep salt_buckets")
    for qq in QUERIES:
        sql = qq.format(s="salt")
        chk.check(fetch(cur, sql) == fetch(cur2, sql), f"restored database: {sql}")
    c2.close()


def concurrent_analyze(chk, srv, cur):
    """ANALYZE of a salted table while other ANALYZEs (another session's,
    the automatic one after a big load) sort their samples at the same
    time: each must sort by its own column's type (a shared comparison
    type once gave tenant_id n_distinct -0.105 instead of 100)."""
    cur.execute("CREATE TABLE salt.st_a (id int PRIMARY KEY, tenant_id int) WITH (salt_buckets = 8)")
    cur.execute("CREATE TABLE salt.st_b (id int PRIMARY KEY, s text)")
    cur.execute("INSERT INTO salt.st_a SELECT g, g % 100 FROM generate_series(1, 40000) g")
    cur.execute("INSERT INTO salt.st_b SELECT g, md5(g::text) FROM generate_series(1, 40000) g")
    rounds = 12
    errors = []

    def other():
        try:
            c2 = psycopg2.connect(srv.dsn)
            c2.autocommit = True
            for _ in range(rounds):
                c2.cursor().execute("ANALYZE salt.st_b")
            c2.close()
        except psycopg2.Error as e:
            errors.append(str(e))

    t = threading.Thread(target=other)
    t.start()
    seen = []
    for _ in range(rounds):
        cur.execute("ANALYZE salt.st_a")
        seen += fetch(cur, "SELECT n_distinct FROM pg_stats WHERE schemaname = 'salt' AND tablename = 'st_a' "
                      "AND attname = 'tenant_id'")
    t.join()
    chk.check(not errors, f"concurrent ANALYZE: {errors}")
    chk.check(len(seen) == rounds and all(r[0] == 100 for r in seen),
              f"tenant_id n_distinct under concurrent ANALYZEs: {sorted(set(r[0] for r in seen))}")


def body(chk, srv, seed, rounds):
    conn = psycopg2.connect(srv.dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute(SCHEMA.format(s="salt", **SALTED))
    cur.execute(SCHEMA.format(s="plain", **PLAIN))
    conn.autocommit = False
    workload(chk, conn, random.Random(seed), rounds)
    conn.rollback()
    rules(chk, conn)
    dump_roundtrip(chk, srv, conn.cursor())
    concurrent_analyze(chk, srv, conn.cursor())
    conn.close()
    # After a restart the catalog still knows the tables are salted.
    srv.kill(signal.SIGTERM)
    srv.start()
    conn = psycopg2.connect(srv.dsn)
    conn.autocommit = True
    cur = conn.cursor()
    compare(chk, cur, "after restart")
    chk.check("Salt Buckets: 8" in explain(cur, "SELECT * FROM salt.orders"), "after restart: still salted")
    conn.close()


if __name__ == "__main__":
    sys.exit(twin_schemas.run("salt", "SALT", 8, body))
