#!/usr/bin/python3
"""fk_ilv.py — a foreign key whose parent is an interleaved row (a child
row of an entity group, not a kv row of its own) across two servers
sharing one etcd store (tests/etcd/run.sh; docs/scale-out.md,
"Guarantees"). The child's commit leaves a share mark on the parent's
group; a delete of an interleaved row compares that mark unchanged since
the version it was based on, as the delete of a whole kv row does.

usage: fk_ilv.py PORT_A PORT_B [SESSIONS_PER_SERVER [ROUNDS]]

1. A inserts a child of parent (1, 1) (uncommitted), B deletes the parent
   and commits: A's COMMIT fails with 40001, no orphan.
2. A inserts a child of parent (1, 2) (uncommitted), B deletes the parent
   (uncommitted), A commits, then B's COMMIT fails with 40001: parent and
   child both stay. (Before the fix B's delete committed: an orphan.)
3. Children of one interleaved parent inserted on both servers both
   commit (share marks do not conflict with each other).
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

ORPHANS = ("SELECT count(*) FROM ic WHERE NOT EXISTS "
           "(SELECT 1 FROM ip WHERE ip.g = ic.g AND ip.n = ic.n)")
fail = []
adm = connect(pa, True)
for sql in ("CREATE TABLE ig (g int PRIMARY KEY)",
            "CREATE TABLE ip (g int, n int, note text, PRIMARY KEY (g, n)) "
            "WITH (interleave_in_parent = 'ig')",
            "INSERT INTO ig VALUES (1)",
            "INSERT INTO ip VALUES (1, 1), (1, 2), (1, 3)",
            "CREATE TABLE ic (id serial PRIMARY KEY, g int, n int, FOREIGN KEY (g, n) REFERENCES ip)"):
    adm.cursor().execute(sql)

# 1. The parent deleted on B after A's check: A's commit fails.
a, b = connect(pa, False), connect(pb, True)
a.cursor().execute("INSERT INTO ic (g, n) VALUES (1, 1)")
b.cursor().execute("DELETE FROM ip WHERE g = 1 AND n = 1")
got = commit_code(a)
orph = one(adm, ORPHANS)
if got != "40001" or orph:
    fail.append("parent deleted first: A's commit %s, %d orphans (want 40001, 0)" % (got, orph))

# 2. A's child commits first: B's delete of the parent, based on a version
#    before A's share mark, fails at commit.
b.autocommit = False
a.cursor().execute("INSERT INTO ic (g, n) VALUES (1, 2)")
b.cursor().execute("DELETE FROM ip WHERE g = 1 AND n = 2")
got_a = commit_code(a)
got_b = commit_code(b)
orph = one(adm, ORPHANS)
np = one(adm, "SELECT count(*) FROM ip WHERE g = 1 AND n = 2")
if got_a != "committed" or got_b != "40001" or orph or np != 1:
    fail.append("child committed first: A %s, B %s, %d orphans, parent rows %d (want committed, 40001, 0, 1)"
                % (got_a, got_b, orph, np))

# 3. Two servers' children of one parent: share locks do not conflict.
a.cursor().execute("INSERT INTO ic (g, n) VALUES (1, 3)")
b.cursor().execute("INSERT INTO ic (g, n) VALUES (1, 3)")
got_a = commit_code(a)
got_b = commit_code(b)
n3 = one(adm, "SELECT count(*) FROM ic WHERE n = 3")
if got_a != "committed" or got_b != "committed" or n3 != 2:
    fail.append("two children of one parent: A %s, B %s, %d children (want committed, committed, 2)"
                % (got_a, got_b, n3))
a.close()
b.close()

# 4. Hammer: parents in two groups.
adm.cursor().execute("DELETE FROM ic")
adm.cursor().execute("DELETE FROM ip")
adm.cursor().execute("INSERT INTO ig VALUES (2)")
adm.cursor().execute("INSERT INTO ip SELECT 1 + g %% 2, g, NULL FROM generate_series(1, %d) g" % NPARENTS)
errors = []
stats = {"ins": 0, "del": 0, "retry": 0, "fk": 0}
mu = threading.Lock()


def bump(k):
    with mu:
        stats[k] += 1


def worker(i, port):
    rnd = random.Random(i * 7919 + 17)
    try:
        conn = connect(port, False)
        for _ in range(rounds):
            k = rnd.randrange(1, NPARENTS + 1)
            g = 1 + k % 2
            delete = rnd.random() < 0.35
            for _ in range(200):
                try:
                    cur = conn.cursor()
                    if delete:
                        cur.execute("DELETE FROM ic WHERE n = %s AND id %% 3 = 0", (k,))
                        cur.execute("DELETE FROM ip WHERE g = %s AND n = %s", (g, k))
                    else:
                        cur.execute("INSERT INTO ip VALUES (%s, %s) ON CONFLICT DO NOTHING", (g, k))
                        conn.commit()
                        cur.execute("INSERT INTO ic (g, n) VALUES (%s, %s)", (g, k))
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
nc = one(adm, "SELECT count(*) FROM ic")
for tbl in ("ic", "ip", "ig"):
    adm.cursor().execute("DROP TABLE " + tbl)
if errors:
    fail.append("hammer: unexpected errors: %s" % "; ".join(sorted(set(errors))[:5]))
if orph:
    fail.append("hammer: %d of %d children have no parent" % (orph, nc))
if fail:
    print("\n".join(fail))
    sys.exit(1)
print("interleaved parents: stale child and stale delete lose with 40001, children of one parent share; "
      "hammer: %d child inserts, %d parent deletes, %d retries, %d 23503, no orphan"
      % (stats["ins"], stats["del"], stats["retry"], stats["fk"]))
