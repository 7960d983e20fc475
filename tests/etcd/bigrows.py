"""bigrows.py — a large transaction locks only the rows it writes
(docs/scale-out.md, "Large transactions"), on two servers A and B sharing
one prefix, while A's large commit is in flight (its row locks P/k/ are in
etcd):
  1. A copies rows 1..N into table br (autocommit COPY, a large
     transaction); B's single-row INSERTs of rows above N commit, each
     one while A's row locks are still there (not delayed); B's INSERT of
     row k (one of A's) waits for A's commit and then fails with 23505;
  2. A updates rows 1..N (v = v + 1, a large transaction); B's UPDATE of a
     row above N commits while A's locks are there; B's UPDATE of row k
     (v = v + 100) waits and then applies on top of A's (READ COMMITTED:
     the statement reruns), so row k ends at 101: no lost update.
usage: bigrows.py PORT_A PORT_B N ENDPOINT PREFIX   prints a one-line summary.
  ENDPOINT  host:port of one etcd member, PREFIX the servers' key prefix"""
import base64
import io
import json
import sys
import threading
import time
import urllib.request

import psycopg2

from twoserver import connect, one


def want(what, got, expect):
    if got != expect:
        raise SystemExit("%s: want %s, got %s" % (what, expect, got))


class Locks:
    """Counts the row locks under the prefix (a count-only range read)."""

    def __init__(self, endpoint, prefix):
        self.url = "http://%s/v3/kv/range" % endpoint
        lo = prefix.encode() + b"/k/"
        hi = prefix.encode() + b"/k0"
        self.body = json.dumps({"key": base64.b64encode(lo).decode(), "range_end": base64.b64encode(hi).decode(),
                                "count_only": True}).encode()

    def count(self):
        r = json.load(urllib.request.urlopen(self.url, self.body, timeout=10))
        return int(r.get("count", 0))

    def wait_held(self, done, timeout=120):
        """Until row locks appear (False if the large statement ended first)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.count() > 0:
                return True
            if done.is_set():
                return False
            time.sleep(0.01)
        raise SystemExit("no row locks appeared within %d s" % timeout)


def in_background(fn):
    """Runs fn in a thread: (done event, errors list, thread)."""
    done, errors = threading.Event(), []

    def run():
        try:
            fn()
        except Exception as e:  # reported by the caller
            errors.append(e)
        done.set()
    t = threading.Thread(target=run)
    t.start()
    return done, errors, t


def timed(conn, sql):
    """(seconds, SQLSTATE or None) of one autocommit statement."""
    t0 = time.time()
    try:
        conn.cursor().execute(sql)
        code = None
    except psycopg2.Error as e:
        code = e.pgcode
    return time.time() - t0, code


def main():
    pa, pb, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    locks = Locks(sys.argv[4], sys.argv[5])
    a, b = connect(pa, True), connect(pb, True)
    a.cursor().execute("DROP TABLE IF EXISTS br")
    a.cursor().execute("CREATE TABLE br (id int PRIMARY KEY, v int)")
    k = n // 2
    out = []

    # 1: a large COPY of rows 1..N on A.
    def copy():
        buf = io.StringIO("".join("%d\t0\n" % i for i in range(1, n + 1)))
        a.cursor().copy_expert("COPY br (id, v) FROM STDIN", buf)
    done, errors, th = in_background(copy)
    if not locks.wait_held(done):
        raise SystemExit("the COPY ended before its row locks were seen; use a larger N")
    during, inserted, lat = 0, 0, []
    for i in range(n + 1, n + 21):
        secs, code = timed(b, "INSERT INTO br VALUES (%d, 0)" % i)
        want("B's INSERT of row %d during the COPY" % i, code, None)
        inserted += 1
        if locks.count() == 0:
            break
        during += 1
        lat.append(secs)
    if during == 0:
        raise SystemExit("no INSERT of B committed while the COPY held its row locks; use a larger N")
    held = locks.count() > 0
    secs_k, code_k = timed(b, "INSERT INTO br VALUES (%d, 7)" % k)
    th.join()
    if errors:
        raise SystemExit("A's COPY: %s" % errors[0])
    want("B's INSERT of row k (one of the COPY's)", code_k, "23505")
    want("rows after the COPY", one(b, "SELECT count(*) FROM br"), n + inserted)
    want("row k", one(b, "SELECT v FROM br WHERE id = %d" % k), 0)
    want("COPY's rows", one(b, "SELECT count(*) FROM br WHERE id BETWEEN 1 AND %d" % n), n)
    out.append("COPY of %d rows on A: %d INSERTs of other rows on B committed while its row locks were held "
               "(%.0f-%.0f ms each), B's INSERT of one of its rows %s and failed with 23505 after %.1f s"
               % (n, during, 1000 * min(lat), 1000 * max(lat), "waited" if held else "ran late", secs_k))

    # 2: a large UPDATE of rows 1..N on A.
    def update():
        a.cursor().execute("UPDATE br SET v = v + 1 WHERE id BETWEEN 1 AND %d" % n)
    done, errors, th = in_background(update)
    if not locks.wait_held(done):
        raise SystemExit("the UPDATE ended before its row locks were seen; use a larger N")
    secs_o, code_o = timed(b, "UPDATE br SET v = v + 100 WHERE id = %d" % (n + 1))
    other_during = locks.count() > 0
    want("B's UPDATE of a row above N", code_o, None)
    secs_k, code_k = timed(b, "UPDATE br SET v = v + 100 WHERE id = %d" % k)
    retried = 0
    while code_k == "40001" and retried < 5:  # (the server reruns it; a client would too)
        retried += 1
        secs, code_k = timed(b, "UPDATE br SET v = v + 100 WHERE id = %d" % k)
        secs_k += secs
    th.join()
    if errors:
        raise SystemExit("A's UPDATE: %s" % errors[0])
    want("B's UPDATE of row k", code_k, None)
    if not other_during:
        raise SystemExit("B's UPDATE of another row did not commit while A's UPDATE held its locks "
                         "(%.1f s); use a larger N" % secs_o)
    want("row k after both UPDATEs (no lost update)", one(b, "SELECT v FROM br WHERE id = %d" % k), 101)
    want("A's other rows", one(b, "SELECT count(*) FROM br WHERE id BETWEEN 1 AND %d AND v = 1" % n), n - 1)
    want("B's other row", one(b, "SELECT v FROM br WHERE id = %d" % (n + 1)), 100)
    out.append("UPDATE of %d rows on A: B's UPDATE of another row committed during it (%.0f ms), of one of "
               "its rows waited %.1f s and applied on top (v = 101%s)"
               % (n, 1000 * secs_o, secs_k, ", %d client retries" % retried if retried else ""))
    print("; ".join(out))


main()
