#!/usr/bin/python3
"""rr_conflict.py — first-committer-wins across two servers (tests/etcd/run.sh).

usage: rr_conflict.py PORT_A PORT_B
Two REPEATABLE READ transactions, one on each server, read the same row and
update it; the first COMMIT must succeed and the second fail with 40001
(row locks are per server; the etcd transaction's compare on the row marker
catches the conflict). Prints "ok" or what happened instead; exit status 0/1.
"""
import sys

import psycopg2

pa, pb = int(sys.argv[1]), int(sys.argv[2])
a = psycopg2.connect(host="127.0.0.1", port=pa, user="postgres", dbname="postgres")
b = psycopg2.connect(host="127.0.0.1", port=pb, user="postgres", dbname="postgres")
a.autocommit = True
a.cursor().execute("CREATE TABLE rr (id int PRIMARY KEY, v int)")
a.cursor().execute("INSERT INTO rr VALUES (1, 0)")
a.autocommit = False
ca, cb = a.cursor(), b.cursor()
for c in (ca, cb):
    c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    c.execute("SELECT v FROM rr WHERE id = 1")
    c.fetchone()
ca.execute("UPDATE rr SET v = v + 1 WHERE id = 1")
cb.execute("UPDATE rr SET v = v + 10 WHERE id = 1")
res = []
for name, conn in (("A", a), ("B", b)):
    try:
        conn.commit()
        res.append("committed")
    except psycopg2.Error as e:
        res.append(e.pgcode)
        conn.rollback()
a.autocommit = True
cur = a.cursor()
cur.execute("SELECT v FROM rr WHERE id = 1")
v = cur.fetchone()[0]
cur.execute("DROP TABLE rr")
if res == ["committed", "40001"] and v == 1:
    print("ok")
    sys.exit(0)
print("A: %s, B: %s, final v = %d (want committed, 40001, 1)" % (res[0], res[1], v))
sys.exit(1)
