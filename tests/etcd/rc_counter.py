#!/usr/bin/python3
"""rc_counter.py — READ COMMITTED read-modify-write across two servers
(tests/etcd/run.sh). Row locks are per server, so without the commit's
check of each written row against the version it was based on, two servers
can both add to the value they read and one increment is lost.

usage: rc_counter.py PORT_A PORT_B [SESSIONS_PER_SERVER [UPDATES_PER_SESSION [v]]]
(v: print each failed autocommit update to stderr)

1. Explicit transactions, interleaved by hand: A and B both UPDATE the row
   before either commits; A commits, then B's COMMIT must fail with 40001
   (the client sees it), final v = 1.
2. A commits first, then B's UPDATE re-reads the newest version
   (EvalPlanQual) and commits: final v = 11.
3. Many sessions on both servers run autocommit
   `UPDATE rc SET v = v + 1 WHERE k = 1` at once (plus explicit two-statement
   transactions); the final value must equal the number of acknowledged
   updates (a failure must be a 40001 the client saw).
Prints a summary or what went wrong; exit status 0/1.
"""
import sys

import psycopg2
from twoserver import connect, hammer

pa, pb = int(sys.argv[1]), int(sys.argv[2])
nsess = int(sys.argv[3]) if len(sys.argv) > 3 else 4
nupd = int(sys.argv[4]) if len(sys.argv) > 4 else 40


def value(conn):
    cur = conn.cursor()
    cur.execute("SELECT v FROM rc WHERE k = 1")
    return cur.fetchone()[0]


fail = []
adm = connect(pa, True)
adm.cursor().execute("CREATE TABLE rc (k int PRIMARY KEY, v int)")
adm.cursor().execute("INSERT INTO rc VALUES (1, 0), (2, 0)")

# 1. Both update before either commits.
a, b = connect(pa, False), connect(pb, False)
a.cursor().execute("UPDATE rc SET v = v + 1 WHERE k = 1")
b.cursor().execute("UPDATE rc SET v = v + 10 WHERE k = 1")
a.commit()
try:
    b.commit()
    got = "committed"
except psycopg2.Error as e:
    got = e.pgcode
    b.rollback()
v = value(adm)
if got != "40001" or v != 1:
    fail.append("interleaved: B's commit %s, v = %d (want 40001, 1)" % (got, v))

# 2. A commits before B's UPDATE: B builds on A's value.
adm.cursor().execute("UPDATE rc SET v = 0 WHERE k = 1")
cb = b.cursor()
cb.execute("SELECT 1")  # B's transaction is open; its next statement takes a new snapshot
a.cursor().execute("UPDATE rc SET v = v + 1 WHERE k = 1")
a.commit()
cb.execute("UPDATE rc SET v = v + 10 WHERE k = 1")
try:
    b.commit()
    got = "committed"
except psycopg2.Error as e:
    got = e.pgcode
    b.rollback()
v = value(adm)
if got != "committed" or v != 11:
    fail.append("sequential: B's commit %s, v = %d (want committed, 11)" % (got, v))
a.close()
b.close()

# 3. The hammer.
adm.cursor().execute("UPDATE rc SET v = 0")
acked = [0] * (2 * nsess)
acked2 = [0] * (2 * nsess)
failed = {"autocommit": 0, "explicit": 0}
errors = []


def worker(i, port):
    try:
        conn = connect(port, True)
        cur = conn.cursor()
        for j in range(nupd):
            try:
                if j % 4 == 3:  # an explicit transaction writing both rows
                    conn.autocommit = False
                    cur.execute("UPDATE rc SET v = v + 1 WHERE k = 1")
                    cur.execute("UPDATE rc SET v = v + 1 WHERE k = 2")
                    conn.commit()
                    conn.autocommit = True
                    acked[i] += 1
                    acked2[i] += 1
                else:
                    cur.execute("UPDATE rc SET v = v + 1 WHERE k = 1")
                    if cur.rowcount == 1:
                        acked[i] += 1
                    else:
                        errors.append("UPDATE reported %d rows" % cur.rowcount)
            except psycopg2.Error as e:
                failed["explicit" if not conn.autocommit else "autocommit"] += 1
                if conn.autocommit and len(sys.argv) > 5:
                    print("autocommit j=%d: %s" % (j, str(e).strip()), file=sys.stderr)
                if not conn.autocommit:
                    conn.rollback()
                    conn.autocommit = True
                if e.pgcode != "40001":
                    errors.append("%s: %s" % (e.pgcode, str(e).strip()))
        conn.close()
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


hammer(worker, nsess, pa, pb)
cur = adm.cursor()
cur.execute("SELECT k, v FROM rc ORDER BY k")
rows = dict(cur.fetchall())
cur.execute("DROP TABLE rc")
total, total2 = sum(acked), sum(acked2)
tried = 2 * nsess * nupd
if errors:
    fail.append("hammer: unexpected errors: %s" % "; ".join(sorted(set(errors))[:5]))
if rows.get(1) != total or rows.get(2) != total2:
    fail.append("hammer: v = %s / %s, acknowledged %d / %d (lost updates)" % (rows.get(1), rows.get(2), total, total2))
if fail:
    print("\n".join(fail))
    sys.exit(1)
print("%d of %d updates acknowledged, final value %d; failed with 40001: %d autocommit, %d in explicit transactions"
      % (total, tried, rows[1], failed["autocommit"], failed["explicit"]))
sys.exit(0)
