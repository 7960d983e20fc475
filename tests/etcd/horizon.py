"""horizon.py — Strata drives etcd's revision compaction (docs/scale-out.md,
"Version GC"): servers publish their oldest pinned revision on a lease and
the elected one compacts below the minimum. Servers A, B, C on one prefix,
started with STRATA_ETCD_COMPACT_S=1, STRATA_ETCD_COMPACT_MARGIN=0,
STRATA_ETCD_HORIZON_TTL_S=3 and no other Strata server on the cluster:
  1. a REPEATABLE READ transaction on A holds its snapshot while B updates
     rows: etcd is compacted (old revisions go) but never past A's
     snapshot, and A still reads its snapshot; after A commits, compaction
     passes it;
  2. C holds a REPEATABLE READ snapshot and is killed with SIGKILL:
     compaction stays below C's snapshot until C's lease expires, then
     passes it.
usage: horizon.py PORT_A PORT_B PORT_C PID_C ETCD_ENDPOINT   prints a summary."""
import base64
import json
import os
import signal
import sys
import time
import urllib.request

from twoserver import connect, one

EP = None


def post(path, body):
    req = urllib.request.Request("http://%s%s" % (EP, path), data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)


def current_rev():
    r = post("/v3/kv/range", {"key": base64.b64encode(b"\0").decode()})
    return int(r["header"]["revision"])


def readable(rev):
    r = post("/v3/kv/range", {"key": base64.b64encode(b"\0").decode(), "revision": str(rev)})
    return "error" not in r


def compacted_below():
    """The smallest revision still readable (etcd's compact revision)."""
    lo, hi = 1, current_rev()
    while lo < hi:
        mid = (lo + hi) // 2
        if readable(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def wait_for(cond, secs):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.3)
    return cond()


def main():
    global EP
    pa, pb, pc, pid_c = (int(x) for x in sys.argv[1:5])
    EP = sys.argv[5]
    a, b = connect(pa, True), connect(pb, True)
    a.cursor().execute("CREATE TABLE hz (k int PRIMARY KEY, v int)")
    a.cursor().execute("INSERT INTO hz SELECT g, 0 FROM generate_series(1, 10) g")
    out = []

    # 1: A's snapshot holds the horizon.
    rr = connect(pa, False)
    rr.set_session(isolation_level="REPEATABLE READ")
    if one(rr, "SELECT sum(v) FROM hz") != 0:
        raise SystemExit("unexpected start state")
    rev_a = current_rev()  # at or past A's snapshot
    bc = b.cursor()
    for i in range(200):
        bc.execute("UPDATE hz SET v = v + 1 WHERE k = %s", (i % 10 + 1,))
    rev_mid = current_rev()
    time.sleep(4)  # several publish / compaction rounds
    # (a loaded machine may not have compacted yet: up to a minute more)
    wait_for(lambda: compacted_below() > 1, 60)
    c1 = compacted_below()
    if c1 <= 1:
        raise SystemExit("no compaction happened while A held a snapshot")
    if c1 > rev_a:
        raise SystemExit("compacted to %d, past A's snapshot (<= %d)" % (c1, rev_a))
    if one(rr, "SELECT sum(v) FROM hz") != 0 or one(rr, "SELECT count(*) FROM hz") != 10:
        raise SystemExit("A's snapshot changed or failed")
    rr.commit()
    if not wait_for(lambda: compacted_below() > rev_mid, 60):
        raise SystemExit("compaction did not pass A's snapshot after its commit (at %d, want > %d)"
                         % (compacted_below(), rev_mid))
    out.append("A's REPEATABLE READ snapshot held compaction at %d (<= %d, %d revisions later) and "
               "read its snapshot; after its commit compaction passed %d"
               % (c1, rev_a, rev_mid - rev_a, rev_mid))

    # 2: a killed server stops holding the horizon after its lease.
    crr = connect(pc, False)
    crr.set_session(isolation_level="REPEATABLE READ")
    one(crr, "SELECT sum(v) FROM hz")
    rev_c = current_rev()
    for i in range(100):
        bc.execute("UPDATE hz SET v = v + 1 WHERE k = %s", (i % 10 + 1,))
    time.sleep(3)
    c3 = compacted_below()
    if c3 > rev_c:
        raise SystemExit("compacted to %d, past C's snapshot (<= %d)" % (c3, rev_c))
    os.kill(pid_c, signal.SIGKILL)
    t0 = time.time()
    if not wait_for(lambda: compacted_below() > rev_c, 20):
        raise SystemExit("compaction stayed below the killed server's snapshot")
    out.append("a SIGKILLed server's snapshot held compaction at %d (<= %d) until its lease "
               "expired, then compaction passed it after %.1fs" % (c3, rev_c, time.time() - t0))
    print("; ".join(out))


main()
