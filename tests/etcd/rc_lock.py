#!/usr/bin/python3
"""rc_lock.py — row locks and upserts across two servers sharing one etcd
store (tests/etcd/run.sh). Each server's lock manager sees only its own
sessions; the commit of a transaction that locked rows checks each locked
row unchanged since the version the lock read, and FOR UPDATE counts as a
change of the row for other servers' commits (docs/scale-out.md).

usage: rc_lock.py PORT_A PORT_B [SESSIONS_PER_SERVER [ROUNDS]]

1. Deterministic: A locks a row FOR UPDATE, B changes it and commits, A
   writes a value computed from what it read: A's COMMIT fails with 40001,
   B's change stands.
2. Deterministic: B has an uncommitted UPDATE based on the old version, A
   locks the row FOR UPDATE, writes another row and commits: B's COMMIT
   fails with 40001 (the lock counts as a change).
3. Deterministic: B's INSERT ... ON CONFLICT DO UPDATE (in a transaction
   block) takes its snapshot and sleeps; meanwhile A updates the key and
   commits; B's upsert updates the newest version and commits
   (PostgreSQL's READ COMMITTED), n = 3.
4. Hammer, read-modify-write in the client: sessions on both servers run
   BEGIN; SELECT v ... FOR UPDATE; UPDATE ... SET v = <v read + 1>; COMMIT,
   retrying a transaction that fails with 40001: final v = commits.
5. Hammer, a lock as a mutex: BEGIN; SELECT ... FROM lp FOR UPDATE;
   count children; insert one if fewer than LIMIT; COMMIT: never more than
   LIMIT children, and as many as acknowledged inserts.
6. Hammer, upserts: autocommit INSERT ... ON CONFLICT DO UPDATE SET n = n + 1
   of a few keys from both servers (plus two-upsert explicit transactions,
   retried on 40001): sum(n) = acknowledged upserts, no autocommit upsert
   fails.
Prints a summary or what went wrong; exit status 0/1.
"""
import random
import sys
import threading
import time

import psycopg2
from twoserver import commit_code, connect, hammer, one

pa, pb = int(sys.argv[1]), int(sys.argv[2])
nsess = int(sys.argv[3]) if len(sys.argv) > 3 else 3
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
LIMIT = 2 * nsess * rounds // 3
KEYS = 4


fail = []
adm = connect(pa, True)
for sql in ("CREATE TABLE lk (id int PRIMARY KEY, v int)", "INSERT INTO lk VALUES (1, 0), (2, 0)",
            "CREATE TABLE lp (id int PRIMARY KEY)", "INSERT INTO lp VALUES (1)",
            "CREATE TABLE lc (id int PRIMARY KEY, p int)",
            "CREATE TABLE up (k int PRIMARY KEY, n int)"):
    adm.cursor().execute(sql)

# 1. A's read under FOR UPDATE went stale: A's commit fails.
a, b = connect(pa, False), connect(pb, True)
v = one(a, "SELECT v FROM lk WHERE id = 1 FOR UPDATE")
b.cursor().execute("UPDATE lk SET v = v + 10 WHERE id = 1")
a.cursor().execute("UPDATE lk SET v = %s WHERE id = 1", (v + 1,))
got = commit_code(a)
v = one(adm, "SELECT v FROM lk WHERE id = 1")
if got != "40001" or v != 10:
    fail.append("stale lock: A's commit %s, v = %d (want 40001, 10)" % (got, v))

# 2. A's exclusive lock beats B's earlier, uncommitted update.
b.autocommit = False
b.cursor().execute("UPDATE lk SET v = v + 10 WHERE id = 1")
one(a, "SELECT v FROM lk WHERE id = 1 FOR UPDATE")
a.cursor().execute("UPDATE lk SET v = v + 1 WHERE id = 2")
got_a = commit_code(a)
got_b = commit_code(b)
v = one(adm, "SELECT v FROM lk WHERE id = 1")
if got_a != "committed" or got_b != "40001" or v != 10:
    fail.append("lock as a change: A %s, B %s, v = %d (want committed, 40001, 10)" % (got_a, got_b, v))

# 3. An upsert updates the newest version when another server changed the
#    row after the statement's snapshot (the statement sleeps in between).
cb = b.cursor()
a.cursor().execute("INSERT INTO up VALUES (100, 1) ON CONFLICT (k) DO UPDATE SET n = up.n + 1")
a.commit()
slow = ("INSERT INTO up SELECT 100, 1 FROM (SELECT pg_sleep(1.5)) s "
        "ON CONFLICT (k) DO UPDATE SET n = up.n + 1 RETURNING n")
ret = []
th = threading.Thread(target=lambda: (cb.execute(slow), ret.append(cb.fetchone()[0])))
th.start()
time.sleep(0.5)
adm.cursor().execute("UPDATE up SET n = n + 1 WHERE k = 100")  # on server A, during B's statement
th.join()
got = commit_code(b)
n = one(adm, "SELECT n FROM up WHERE k = 100")
if got != "committed" or n != 3 or ret != [3]:
    fail.append("upsert of a version newer than the statement's snapshot: B's commit %s, n = %d, RETURNING %s "
                "(want committed, 3, [3])" % (got, n, ret))
a.close()
b.close()
adm.cursor().execute("UPDATE lk SET v = 0")
adm.cursor().execute("DELETE FROM up")

errors = []
stats = {"rmw": 0, "rmw_retry": 0, "mutex_ins": 0, "mutex_retry": 0, "up": 0, "up_tx": 0, "up_retry": 0,
         "up_auto_fail": 0}
mu = threading.Lock()


def bump(k, n=1):
    with mu:
        stats[k] += n


def retrying(conn, body, retry_key):
    """Runs body(cur) in a transaction until it commits; returns its result."""
    for _ in range(200):
        try:
            cur = conn.cursor()
            r = body(cur)
            conn.commit()
            return r
        except psycopg2.Error as e:
            conn.rollback()
            if e.pgcode != "40001":
                raise
            bump(retry_key)
    raise RuntimeError("no commit after 200 attempts")


def rmw(cur):
    cur.execute("SELECT v FROM lk WHERE id = 1 FOR UPDATE")
    v = cur.fetchone()[0]
    cur.execute("UPDATE lk SET v = %s WHERE id = 1", (v + 1,))


def mutex(i, j):
    def body(cur):
        cur.execute("SELECT id FROM lp WHERE id = 1 FOR UPDATE")
        cur.fetchone()
        cur.execute("SELECT count(*) FROM lc WHERE p = 1")
        if cur.fetchone()[0] >= LIMIT:
            return 0
        cur.execute("INSERT INTO lc VALUES (%s, 1)", (i * 100000 + j,))
        return 1
    return body


def upsert_two(k1, k2):
    def body(cur):
        for k in sorted((k1, k2)):  # one order: no deadlock among one server's sessions
            cur.execute("INSERT INTO up VALUES (%s, 1) ON CONFLICT (k) DO UPDATE SET n = up.n + 1", (k,))
    return body


def worker(i, port):
    rnd = random.Random(i)
    try:
        conn = connect(port, False)
        auto = connect(port, True)
        for j in range(rounds):
            retrying(conn, rmw, "rmw_retry")
            bump("rmw")
            bump("mutex_ins", retrying(conn, mutex(i, j), "mutex_retry"))
            for _ in range(3):
                try:
                    auto.cursor().execute("INSERT INTO up VALUES (%s, 1) ON CONFLICT (k) DO UPDATE SET n = up.n + 1",
                                          (rnd.randrange(KEYS),))
                    bump("up")
                except psycopg2.Error as e:
                    bump("up_auto_fail")
                    if e.pgcode != "40001":
                        raise
            retrying(conn, upsert_two(rnd.randrange(KEYS), rnd.randrange(KEYS)), "up_retry")
            bump("up_tx", 2)
        conn.close()
        auto.close()
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


hammer(worker, nsess, pa, pb)
v = one(adm, "SELECT v FROM lk WHERE id = 1")
nc = one(adm, "SELECT count(*) FROM lc")
nup = one(adm, "SELECT coalesce(sum(n), 0) FROM up")
for tbl in ("lk", "lp", "lc", "up"):
    adm.cursor().execute("DROP TABLE " + tbl)
if errors:
    fail.append("hammer: unexpected errors: %s" % "; ".join(sorted(set(errors))[:5]))
if v != stats["rmw"]:
    fail.append("FOR UPDATE read-modify-write: v = %d after %d commits (lost updates)" % (v, stats["rmw"]))
if nc != stats["mutex_ins"] or nc > LIMIT:
    fail.append("FOR UPDATE mutex: %d children, %d inserts acknowledged, limit %d" % (nc, stats["mutex_ins"], LIMIT))
if nup != stats["up"] + stats["up_tx"]:
    fail.append("upserts: sum(n) = %d, acknowledged %d" % (nup, stats["up"] + stats["up_tx"]))
if stats["up_auto_fail"]:
    fail.append("upserts: %d autocommit upserts failed with 40001" % stats["up_auto_fail"])
if fail:
    print("\n".join(fail))
    sys.exit(1)
print("FOR UPDATE read-modify-write: %d commits, v = %d (%d retries on 40001); mutex: %d of limit %d children "
      "(%d retries); upserts: %d autocommit + %d in transactions, sum(n) = %d (%d transaction retries)"
      % (stats["rmw"], v, stats["rmw_retry"], nc, LIMIT, stats["mutex_retry"], stats["up"], stats["up_tx"], nup,
         stats["up_retry"]))
sys.exit(0)
