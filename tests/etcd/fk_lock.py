#!/usr/bin/python3
"""fk_lock.py — foreign keys across two servers sharing one etcd store
(tests/etcd/run.sh). A child row's insert locks its parent row FOR KEY
SHARE; each server's lock manager sees only its own sessions, so the
commit carries the lock: the parent must be unchanged since the version
the check read, and the commit leaves a share mark on the parent that a
later delete of the parent based on an older version loses against
(docs/scale-out.md, "Row locks across servers").

usage: fk_lock.py [--interleaved] PORT_A PORT_B [SESSIONS_PER_SERVER [ROUNDS]]

Two schemas, the same cases: a plain parent table (fp <- fc), or with
--interleaved a parent that is an interleaved row (ip in entity groups of
ig, <- ic): not a kv row of its own, so the share mark is on its group's kv
row and a delete of an interleaved row compares that mark as the delete of
a whole kv row does (docs/scale-out.md, "Guarantees").

1. Deterministic: A inserts a child of parent 1 (uncommitted), B deletes
   parent 1 and commits: A's COMMIT fails with 40001, no orphan.
2. Deterministic: A inserts a child of parent 2 (uncommitted), B deletes
   parent 2 (uncommitted), A commits, then B's COMMIT fails with 40001:
   parent and child both stay.
3. Deterministic: A and B each insert a child of parent 3 in open
   transactions: both commit (share locks do not conflict). Plain parent
   only: then A inserts another child, B changes a non-key column of
   parent 3, A commits (FOR KEY SHARE does not conflict with that, as in
   PostgreSQL; an interleaved parent's mark is its group's, which any
   change of the group conflicts with).
4. Hammer: sessions on both servers insert children of random parents and
   delete random parents (retrying 40001; 23503 when a child is visible):
   no child without its parent at the end (interleaved: parents in two
   groups).
Prints a summary or what went wrong; exit status 0/1.
"""
import random
import sys
import threading

import psycopg2
from twoserver import commit_code, connect, hammer, one

args = sys.argv[1:]
interleaved = bool(args) and args[0] == "--interleaved"
if interleaved:
    args = args[1:]
pa, pb = int(args[0]), int(args[1])
nsess = int(args[2]) if len(args) > 2 else 2
rounds = int(args[3]) if len(args) > 3 else 20
NPARENTS = 6


class Plain:
    """fp (id) <- fc (p): the parent is a kv row."""
    label = "foreign keys"
    parent, child, tables = "fp", "fc", ("fc", "fp")
    pcols, ccols = ("id",), ("p",)
    seed = 13
    setup = ("CREATE TABLE fp (id int PRIMARY KEY, note text)", "INSERT INTO fp VALUES (1), (2), (3)",
             "CREATE TABLE fc (id serial PRIMARY KEY, p int REFERENCES fp)")
    hammer_parents = ("INSERT INTO fp SELECT g FROM generate_series(1, %d) g" % NPARENTS,)
    orphans = "SELECT count(*) FROM fc WHERE NOT EXISTS (SELECT 1 FROM fp WHERE fp.id = fc.p)"
    non_key_update = "UPDATE fp SET note = 'changed' WHERE id = %s"

    @staticmethod
    def key(k, hammer=False):
        return (k,)


class Interleaved:
    """ip (g, n) interleaved in ig (g) <- ic (g, n): the parent is cells of
    its group's kv row."""
    label = "interleaved parents"
    parent, child, tables = "ip", "ic", ("ic", "ip", "ig")
    pcols, ccols = ("g", "n"), ("g", "n")
    seed = 17
    setup = ("CREATE TABLE ig (g int PRIMARY KEY)",
             "CREATE TABLE ip (g int, n int, note text, PRIMARY KEY (g, n)) "
             "WITH (interleave_in_parent = 'ig')",
             "INSERT INTO ig VALUES (1)",
             "INSERT INTO ip VALUES (1, 1), (1, 2), (1, 3)",
             "CREATE TABLE ic (id serial PRIMARY KEY, g int, n int, FOREIGN KEY (g, n) REFERENCES ip)")
    hammer_parents = ("INSERT INTO ig VALUES (2)",
                      "INSERT INTO ip SELECT 1 + g %% 2, g, NULL FROM generate_series(1, %d) g" % NPARENTS)
    orphans = ("SELECT count(*) FROM ic WHERE NOT EXISTS "
               "(SELECT 1 FROM ip WHERE ip.g = ic.g AND ip.n = ic.n)")
    non_key_update = None

    @staticmethod
    def key(k, hammer=False):
        """Deterministic cases use group 1; the hammer spreads parents over two groups."""
        return (1 + k % 2 if hammer else 1, k)


S = Interleaved if interleaved else Plain


def where(cols):
    return " AND ".join("%s = %%s" % c for c in cols)


INSERT_CHILD = "INSERT INTO %s (%s) VALUES (%s)" % (S.child, ", ".join(S.ccols), ", ".join("%s" for _ in S.ccols))
DELETE_PARENT = "DELETE FROM %s WHERE %s" % (S.parent, where(S.pcols))
COUNT_PARENT = "SELECT count(*) FROM %s WHERE %s" % (S.parent, where(S.pcols))
COUNT_CHILDREN = "SELECT count(*) FROM %s WHERE %s" % (S.child, where(S.ccols))
DELETE_SOME_CHILDREN = "DELETE FROM %s WHERE %s AND id %%%% 3 = 0" % (S.child, where(S.ccols))
INSERT_PARENT = "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT DO NOTHING" % (
    S.parent, ", ".join(S.pcols), ", ".join("%s" for _ in S.pcols))

fail = []
adm = connect(pa, True)
for sql in S.setup:
    adm.cursor().execute(sql)

# 1. The parent deleted on B after A's check: A's commit fails.
a, b = connect(pa, False), connect(pb, True)
a.cursor().execute(INSERT_CHILD, S.key(1))
b.cursor().execute(DELETE_PARENT, S.key(1))
got = commit_code(a)
orph = one(adm, S.orphans)
if got != "40001" or orph:
    fail.append("parent deleted first: A's commit %s, %d orphans (want 40001, 0)" % (got, orph))

# 2. A's child commits first: B's delete of the parent, based on a version
#    before A's share mark, fails at commit.
b.autocommit = False
a.cursor().execute(INSERT_CHILD, S.key(2))
b.cursor().execute(DELETE_PARENT, S.key(2))
got_a = commit_code(a)
got_b = commit_code(b)
orph = one(adm, S.orphans)
np = one(adm, COUNT_PARENT, S.key(2))
if got_a != "committed" or got_b != "40001" or orph or np != 1:
    fail.append("child committed first: A %s, B %s, %d orphans, parent rows %d (want committed, 40001, 0, 1)"
                % (got_a, got_b, orph, np))

# 3. Two servers' children of one parent: share locks do not conflict.
a.cursor().execute(INSERT_CHILD, S.key(3))
b.cursor().execute(INSERT_CHILD, S.key(3))
got_a = commit_code(a)
got_b = commit_code(b)
n3 = one(adm, COUNT_CHILDREN, S.key(3))
if got_a != "committed" or got_b != "committed" or n3 != 2:
    fail.append("two children of one parent: A %s, B %s, %d children (want committed, committed, 2)"
                % (got_a, got_b, n3))
if S.non_key_update:
    b.autocommit = True
    a.cursor().execute(INSERT_CHILD, S.key(3))
    b.cursor().execute(S.non_key_update, S.key(3))
    got_a = commit_code(a)
    n3 = one(adm, COUNT_CHILDREN, S.key(3))
    if got_a != "committed" or n3 != 3:
        fail.append("parent's non-key column changed: A %s, %d children (want committed, 3)" % (got_a, n3))
a.close()
b.close()

# 4. Hammer.
adm.cursor().execute("DELETE FROM " + S.child)
adm.cursor().execute("DELETE FROM " + S.parent)
for sql in S.hammer_parents:
    adm.cursor().execute(sql)
errors = []
stats = {"ins": 0, "del": 0, "retry": 0, "fk": 0}
mu = threading.Lock()


def bump(k):
    with mu:
        stats[k] += 1


def worker(i, port):
    rnd = random.Random(i * 7919 + S.seed)
    try:
        conn = connect(port, False)
        for _ in range(rounds):
            key = S.key(rnd.randrange(1, NPARENTS + 1), hammer=True)
            delete = rnd.random() < 0.35
            for _ in range(200):
                try:
                    cur = conn.cursor()
                    if delete:
                        cur.execute(DELETE_SOME_CHILDREN, key)
                        cur.execute(DELETE_PARENT, key)
                    else:
                        cur.execute(INSERT_PARENT, key)
                        conn.commit()
                        cur.execute(INSERT_CHILD, key)
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


hammer(worker, nsess, pa, pb)
orph = one(adm, S.orphans)
nc = one(adm, "SELECT count(*) FROM " + S.child)
for tbl in S.tables:
    adm.cursor().execute("DROP TABLE " + tbl)
if errors:
    fail.append("hammer: unexpected errors: %s" % "; ".join(sorted(set(errors))[:5]))
if orph:
    fail.append("hammer: %d of %d children have no parent" % (orph, nc))
if fail:
    print("\n".join(fail))
    sys.exit(1)
print("%s: stale child and stale delete lose with 40001, children of one parent share; hammer: %d child "
      "inserts, %d parent deletes, %d 23503, %d retries on 40001, %d children, no orphan"
      % (S.label, stats["ins"], stats["del"], stats["fk"], stats["retry"], nc))
sys.exit(0)
