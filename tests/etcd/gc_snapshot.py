#!/usr/bin/python3
"""gc_snapshot.py — version GC does not take a snapshot's versions from a
long transaction on another server (tests/etcd/run.sh).

usage: gc_snapshot.py PORT_A PORT_B [READ_POINTS]

A REPEATABLE READ transaction on server A reads a row; server B then updates
it five times and runs VACUUM FULL (version GC; the servers run with
STRATA_ETCD_GC_WINDOW_S=0, so only the snapshots themselves protect old
versions). Server A then hands out READ_POINTS more read points to other
sessions (default 5000, more than a server remembers unpinned), and the
long transaction must still read the values of its snapshot. Prints "ok" or
what it read instead; exit status 0/1.
"""
import sys

import psycopg2

pa, pb = int(sys.argv[1]), int(sys.argv[2])
npoints = int(sys.argv[3]) if len(sys.argv) > 3 else 5000


def connect(port):
    c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    c.autocommit = True
    return c


b = connect(pb)
b.cursor().execute("CREATE TABLE gs (k int PRIMARY KEY, v int)")
b.cursor().execute("INSERT INTO gs SELECT g, 0 FROM generate_series(1, 20) g")
a = connect(pa)
a.autocommit = False
ca = a.cursor()
ca.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
ca.execute("SELECT sum(v), count(*) FROM gs")
before = ca.fetchone()
cb = b.cursor()
for i in range(5):
    cb.execute("UPDATE gs SET v = v + 1")
cb.execute("VACUUM FULL gs")
# Many read points on A from other statements (each takes at least one).
other = connect(pa).cursor()
n = 0
while n < npoints:
    other.execute(";".join(["SELECT 1"] * 50))
    n += 50 * 2
ca.execute("SELECT sum(v), count(*) FROM gs")
after = ca.fetchone()
ca.execute("SELECT v FROM gs WHERE k = 7")
point = ca.fetchone()
a.commit()
cb.execute("SELECT sum(v), count(*) FROM gs")
now = cb.fetchone()
cb.execute("DROP TABLE gs")
if before == (0, 20) and after == before and point == (0,) and now == (100, 20):
    print("ok")
    sys.exit(0)
print("snapshot read %s before GC, %s and k=7 %s after (want (0, 20) twice, (0,)); now %s (want (100, 20))"
      % (before, after, point, now))
sys.exit(1)
