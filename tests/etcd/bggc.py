#!/usr/bin/python3
"""bggc.py — background version GC on the etcd backend (tests/etcd/run.sh,
"bggc"; kvstore/etcd_bggc.c): old versions disappear without VACUUM FULL
while a long REPEATABLE READ snapshot on another server keeps reading them.

usage: bggc.py PORT_A PORT_B STRATA_KV STORE_URI [LOG_A LOG_B]

Both servers run with STRATA_ETCD_GC_S=4, STRATA_ETCD_GC_WINDOW_S=0 and
history_retention 0 (only snapshots protect old versions). Server B creates
and fills a table; a REPEATABLE READ transaction on A reads it; B updates
every row five times; then, with no VACUUM, the table's etcd keys
(strata-kv tables) must fall back to what one version per cell needs
within 60 s, and A's snapshot must still read the old values.
Then a larger table (12000 rows, three versions each): a snapshot on A
again, its old versions collected in the background in paced steps (with
the servers' logs: the GC server's line for it names more than one step of
EKV_GC_STEP_KEYS keys), while both servers keep answering point queries —
each within a sanity bound of seconds, not a benchmark — and the snapshot
still reads its versions. Prints one line per check; exit status 0 when
all passed.
"""
import re
import subprocess
import sys
import time

import psycopg2

pa, pb, kvtool, store = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
failures = 0


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures += 1


def connect(port):
    c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    c.autocommit = True
    return c


def cells(kvt):
    out = subprocess.run([kvtool, "tables", store], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"^%s\s+\d+\s+\S+\s+(\d+)\s+(\d+)" % re.escape(kvt), out, re.M)
    return int(m.group(2)) if m else -1


b = connect(pb)
cb = b.cursor()
cb.execute("CREATE TABLE bg (k int PRIMARY KEY, v int)")
cb.execute("INSERT INTO bg SELECT g, 0 FROM generate_series(1, 20) g")
cb.execute("SELECT kv_table FROM strata_compactions WHERE relation = 'public.bg'")
kvt = cb.fetchone()[0]
c0 = cells(kvt)
a = connect(pa)
a.autocommit = False
ca = a.cursor()
ca.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
ca.execute("SELECT sum(v), count(*) FROM bg")
before = ca.fetchone()
# A GC pass may fall between the updates and the count: then try again.
rounds = 0
for attempt in range(5):
    for i in range(5):
        cb.execute("UPDATE bg SET v = v + 1")
    rounds += 1
    c1 = cells(kvt)
    if c1 >= c0 + 100:
        break
check(c0 > 0 and c1 >= c0 + 100, "five updates of 20 rows added old versions (%d etcd keys, then %d)" % (c0, c1))
deadline = time.time() + 60
c2 = c1
while time.time() < deadline:
    c2 = cells(kvt)
    if c2 == c0:
        break
    time.sleep(0.5)
check(c2 == c0, "without VACUUM FULL the old versions were collected in the background (%d keys, want %d)" % (c2, c0))
ca.execute("SELECT sum(v), count(*) FROM bg")
after = ca.fetchone()
ca.execute("SELECT v FROM bg WHERE k = 7")
point = ca.fetchone()
a.commit()
check(before == (0, 20) and after == before and point == (0,),
      "a REPEATABLE READ snapshot on the other server still reads its versions (%s, k=7 %s)" % (after, point))
cb.execute("SELECT sum(v), count(*) FROM bg")
now = cb.fetchone()
check(now == (100 * rounds, 20), "the newest versions stay (%s)" % (now,))
out = subprocess.run([kvtool, "stats", store], capture_output=True, text=True, timeout=60).stdout
check("background version GC: run by node" in out, "strata-kv stats names the server running the background GC")
cb.execute("DROP TABLE bg")

# A larger table: collected in paced steps, the servers answering meanwhile.
logs = sys.argv[5:7]
ROWS, CHUNK = 12000, 1000  # chunks within the test cluster's --max-txn-ops
cb.execute("CREATE TABLE bgbig (k int PRIMARY KEY, v int, pad text)")
for lo in range(1, ROWS + 1, CHUNK):
    cb.execute("INSERT INTO bgbig SELECT g, 0, repeat('x', 40) FROM generate_series(%s, %s) g", (lo, lo + CHUNK - 1))
cb.execute("SELECT kv_table FROM strata_compactions WHERE relation = 'public.bgbig'")
kvb = cb.fetchone()[0]
b0 = cells(kvb)
ca.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
ca.execute("SELECT sum(v), count(*) FROM bgbig")
snap = ca.fetchone()
for rep in range(2):
    for lo in range(1, ROWS + 1, CHUNK):
        cb.execute("UPDATE bgbig SET v = v + 1 WHERE k BETWEEN %s AND %s", (lo, lo + CHUNK - 1))
probe_a = connect(pa)  # A's own session stays in its snapshot
slowest, probes, b2 = 0.0, 0, -1
deadline = time.time() + 180
while time.time() < deadline:
    for c in (probe_a, b):
        cur = c.cursor()
        t0 = time.time()
        cur.execute("SELECT v FROM bgbig WHERE k = %s", (1 + probes * 37 % ROWS,))
        cur.fetchone()
        slowest = max(slowest, time.time() - t0)
        probes += 1
    b2 = cells(kvb)
    if b2 == b0:
        break
    time.sleep(0.2)
check(b0 >= ROWS and b2 == b0, "%d rows updated twice: old versions collected in the background (%d keys, want %d)" %
      (ROWS, b2, b0))
ca.execute("SELECT sum(v), count(*) FROM bgbig")
snap2 = ca.fetchone()
a.commit()
check(snap == (0, ROWS) and snap2 == snap, "the snapshot on the other server still reads its versions (%s)" % (snap2,))
# A sanity bound, not a benchmark: a paced pass leaves the servers answering.
check(probes > 0 and slowest < 5.0, "%d point queries while GC ran, the slowest %.2f s" % (probes, slowest))
if logs:
    pat = re.compile(r"background version GC of %s: (\d+) keys read in (\d+) steps, (\d+) deleted" % re.escape(kvb))
    seen = []
    for path in logs:
        with open(path, errors="replace") as f:
            seen += [tuple(int(x) for x in m.groups()) for m in pat.finditer(f.read())]
    check(any(st > 1 and d > 0 for _, st, d in seen),
          "the GC server collected the table in paced steps (%s)" % seen[:3])
cb.execute("DROP TABLE bgbig")
sys.exit(1 if failures else 0)
