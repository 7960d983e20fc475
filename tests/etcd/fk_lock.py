#!/usr/bin/python3
"""fk_lock.py — foreign keys across two servers sharing one etcd store
(tests/etcd/run.sh). A child row's insert locks its parent row FOR KEY
SHARE; each server's lock manager sees only its own sessions, so the
commit carries the lock: the parent must be unchanged since the version
the check read, and the commit leaves a share mark on the parent that a
later delete of the parent based on an older version loses against
(docs/scale-out.md, "Row locks across servers").

usage: fk_lock.py PORT_A PORT_B [SESSIONS_PER_SERVER [ROUNDS]]

1. Deterministic: A inserts a child of parent 1 (uncommitted), B deletes
   parent 1 and commits: A's COMMIT fails with 40001, no orphan.
2. Deterministic: A inserts a child of parent 2 (uncommitted), B deletes
   parent 2 (uncommitted), A commits, then B's COMMIT fails with 40001:
   parent and child both stay.
3. Deterministic: A and B each insert a child of parent 3 in open
   transactions: both commit (share locks do not conflict); then A inserts
   another child, B changes a non-key column of parent 3, A commits
   (FOR KEY SHARE does not conflict with that, as in PostgreSQL).
4. Hammer: sessions on both servers insert children of random parents and
   delete random parents (retrying 40001; 23503 when a child is visible):
   no child without its parent at the end.
Prints a summary or what went wrong; exit status 0/1.
"""
import random
import sys
import threading

import psycopg2
from twoserver import commit_code, connect, one

pa, pb = int(sys.argv[1]), int(sys.argv[2])
nsess = int(sys.argv[3]) if len(sys.argv) > 3 else 2
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 20
NPARENTS = 6


ORPHANS = "SELECT count(*) FROM fc WHERE NOT EXISTS (SELECT 1 FROM fp WHERE fp.id = fc.p)"
fail = []
adm = connect(pa, True)
for sql in ("CREATE TABLE fp (id int PRIMARY KEY, note text)", "INSERT INTO fp VALUES (1), (2), (3)",
            "CREATE TABLE fc (id serial PRIMARY KEY, p int REFERENCES fp)"):
    adm.cursor().execute(sql)

# 1. The parent deleted on B after A's check: A's commit fails.
a, b = connect(pa, False), connect(pb, True)
a.cursor().execute("INSERT INTO fc (p) VALUES (1)")
b.cursor().execute("DELETE FROM fp WHERE id = 1")
got = commit_code(a)
orph = one(adm, ORPHANS)
if got != "40001" or orph:
    fail.append("parent deleted first: A's commit %s, %d orphans (want 40001, 0)" % (got, orph))

# 2. A's child commits first: B's delete of the parent, based on a version
#    before A's share mark, fails at commit.
b.autocommit = False
a.cursor().execute("INSERT INTO fc (p) VALUES (2)")
b.cursor().execute("DELETE FROM fp WHERE id = 2")
got_a = commit_code(a)
got_b = commit_code(b)
orph = one(adm, ORPHANS)
np = one(adm, "SELECT count(*) FROM fp WHERE id = 2")
if got_a != "committed" or got_b != "40001" or orph or np != 1:
    fail.append("child committed first: A %s, B %s, %d orphans, parent rows %d (want committed, 40001, 0, 1)"
                % (got_a, got_b, orph, np))

# 3. Two servers' children of one parent: share locks do not conflict.
a.cursor().execute("INSERT INTO fc (p) VALUES (3)")
b.cursor().execute("INSERT INTO fc (p) VALUES (3)")
got_a = commit_code(a)
got_b = commit_code(b)
n3 = one(adm, "SELECT count(*) FROM fc WHERE p = 3")
if got_a != "committed" or got_b != "committed" or n3 != 2:
    fail.append("two children of one parent: A %s, B %s, %d children (want committed, committed, 2)"
                % (got_a, got_b, n3))
b.autocommit = True
a.cursor().execute("INSERT INTO fc (p) VALUES (3)")
b.cursor().execute("UPDATE fp SET note = 'changed' WHERE id = 3")
got_a = commit_code(a)
n3 = one(adm, "SELECT count(*) FROM fc WHERE p = 3")
if got_a != "committed" or n3 != 3:
    fail.append("parent's non-key column changed: A %s, %d children (want committed, 3)" % (got_a, n3))
a.close()
b.close()

# 4. Hammer.
adm.cursor().execute("DELETE FROM fc")
adm.cursor().execute("DELETE FROM fp")
adm.cursor().execute("INSERT INTO fp SELECT g FROM generate_series(1, %d) g" % NPARENTS)
errors = []
stats = {"ins": 0, "del": 0, "retry": 0, "fk": 0}
mu = threading.Lock()


def bump(k):
    with mu:
        stats[k] += 1


def worker(i, port):
    rnd = random.Random(i * 7919 + 13)
    try:
        conn = connect(port, False)
        for _ in range(rounds):
            k = rnd.randrange(1, NPARENTS + 1)
            delete = rnd.random() < 0.35
            for _ in range(200):
                try:
                    cur = conn.cursor()
                    if delete:
                        cur.execute("DELETE FROM fc WHERE p = %s AND id %% 3 = 0", (k,))
                        cur.execute("DELETE FROM fp WHERE id = %s", (k,))
                    else:
                        cur.execute("INSERT INTO fp VALUES (%s) ON CONFLICT DO NOTHING", (k,))
                        conn.commit()
                        cur.execute("INSERT INTO fc (p) VALUES (%s)", (k,))
                    conn.commit()
                    bump("del" if delete else "ins")
                    break
                except psycopg2.Error as e:
                    conn.rollback()
                    if e.pgcode == "23503":  # a visible child (delete) or parent gone (insert)
                        bump("fk")
                        break
                    if e.pgcode != "40001":
                        raise
                    bump("retry")
        conn.close()
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


ts = [threading.Thread(target=worker, args=(i, pa if i % 2 == 0 else pb)) for i in range(2 * nsess)]
for t in ts:
    t.start()
for t in ts:
    t.join()
orph = one(adm, ORPHANS)
nc = one(adm, "SELECT count(*) FROM fc")
for tbl in ("fc", "fp"):
    adm.cursor().execute("DROP TABLE " + tbl)
if errors:
    fail.append("hammer: unexpected errors: %s" % "; ".join(sorted(set(errors))[:5]))
if orph:
    fail.append("hammer: %d of %d children have no parent" % (orph, nc))
if fail:
    print("\n".join(fail))
    sys.exit(1)
print("foreign keys: stale child and stale delete lose with 40001, children of one parent share; hammer: %d child "
      "inserts, %d parent deletes, %d 23503, %d retries on 40001, %d children, no orphan"
      % (stats["ins"], stats["del"], stats["fk"], stats["retry"], nc))
sys.exit(0)
