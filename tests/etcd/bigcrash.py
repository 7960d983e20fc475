"""bigcrash.py — a large transaction's committer killed at each step of its
commit (docs/scale-out.md, "Large transactions"): after the table lock, after
the checks, after the first chunk of intents, after all intents, after the
flip. The rows must end committed (after the flip) or absent (before it),
never in part; another server writes a row the transaction does not
touch at once and one of its rows once the dead committer's lease (and
with it the row locks) expired: that row is new before the flip, a
duplicate key (23505) after it. A committer that stalls 5 s after its
checks, with a 2 s lease, still commits (the lease is renewed by a thread
of its own, not between the steps). A committer whose lease ends under
it (revoked after the grant, the row locks, the checks or the intents)
runs the commit again on a new lease: every row once. The intents of an aborted transaction are deleted by the
next reader that meets them and by VACUUM FULL (version GC).

usage: bigcrash.py BIN STORE_URI ENDPOINT TMPDIR
  BIN        the strata server binary
  STORE_URI  etcd://host:port,...  (the test uses the prefix /bigcrash)
  ENDPOINT   host:port of one member (raw key counts over the JSON gateway)
prints a one-line summary; exit status 0/1."""
import base64
import io
import json
import os
import subprocess
import sys
import time
import urllib.request

import psycopg2

from twoserver import connect, one, start_server

ROWS = 1000
STEPS = ["locked", "checked", "staged_part", "staged", "flipped"]
EXPIRE_STEPS = ["granted", "locked", "checked", "staged"]
PREFIX = b"/bigcrash"


def start(binary, uri, tmp, name, env):
    return start_server(binary, uri + "/bigcrash", os.path.join(tmp, name), env)


def intents(endpoint):
    """Intent keys under the test's prefix (a cell key ending in an even
    byte: docs/scale-out.md, "Key layout")."""
    lo = PREFIX + b"/d/"
    hi = PREFIX + b"/d0"
    body = json.dumps({"key": base64.b64encode(lo).decode(), "range_end": base64.b64encode(hi).decode(),
                       "keys_only": True}).encode()
    r = json.load(urllib.request.urlopen("http://%s/v3/kv/range" % endpoint, body, timeout=10))
    return sum(1 for kv in r.get("kvs", []) if not base64.b64decode(kv["key"])[-1] & 1)


def main():
    binary, uri, endpoint, tmp = sys.argv[1:5]
    b_proc, pb = start(binary, uri, tmp, "bc-b", {})
    procs = [b_proc]
    try:
        b = connect(pb, True)
        cb = b.cursor()
        cb.execute("CREATE TABLE bc (id int PRIMARY KEY, v text)")
        cb.execute("CREATE INDEX bc_v ON bc (v)")
        cb.execute("INSERT INTO bc SELECT g, 'old' || g FROM generate_series(1, 10) g")
        notes = []
        for i, step in enumerate(STEPS):
            lo = (i + 1) * 10000
            # Large past 300 operations: 1000 rows of two tables are a
            # large transaction of several chunks.
            a_proc, pa = start(binary, uri, tmp, "bc-a-" + step,
                               {"STRATA_TEST_FAULTS": "1", "STRATA_ETCD_BIG_FAULT": step,
                                "STRATA_ETCD_BIG_OPS": "300", "STRATA_ETCD_BIG_TTL_S": "2"})
            procs.append(a_proc)
            a = connect(pa, True)
            data = "".join("%d\tnew%d\n" % (lo + k, k) for k in range(ROWS))
            try:

                a.cursor().copy_from(io.StringIO(data), "bc", columns=("id", "v"))
                raise SystemExit("%s: the COPY returned; the server should have exited" % step)
            except psycopg2.Error:
                pass
            rc = a_proc.wait(30)
            if rc != 137:
                raise SystemExit("%s: the server exited with %s, want 137 (its fault point)" % (step, rc))
            before = intents(endpoint)
            # The other server writes another row of the table at once, and
            # one of the COPY's rows once the lease (its row locks) expired.
            t0 = time.time()
            cb.execute("INSERT INTO bc VALUES (%s, 'after')", (lo + ROWS + 1,))
            other = time.time() - t0
            t0 = time.time()
            try:
                cb.execute("INSERT INTO bc VALUES (%s, 'mine')", (lo,))
                code = "committed"
            except psycopg2.Error as e:
                code = e.pgcode
            waited = time.time() - t0
            if code != ("23505" if step == "flipped" else "committed"):
                raise SystemExit("%s: B's INSERT of one of the COPY's rows after the kill: %s" % (step, code))
            got = one(b, "SELECT count(*) FROM bc WHERE id >= %s AND id < %s AND v LIKE 'new%%'",
                      (lo, lo + ROWS))
            after_read = intents(endpoint)
            cb.execute("VACUUM FULL bc")
            after_gc = intents(endpoint)
            want = ROWS if step == "flipped" else 0
            if got != want:
                raise SystemExit("%s: %d of the %d rows visible, want %d" % (step, got, ROWS, want))
            if step != "flipped":
                if after_gc != 0:
                    raise SystemExit("%s: %d intents left after a read and VACUUM FULL (%d before, "
                                     "%d after the read)" % (step, after_gc, before, after_read))
                if step.startswith("staged") and not (before > 0 and after_read < before):
                    raise SystemExit("%s: intents before the read %d, after %d: want some, fewer"
                                     % (step, before, after_read))
            elif after_gc == 0:
                raise SystemExit("flipped: the committed intents are gone")
            notes.append("%s: %d rows, %d intents -> %d -> %d, another row written in %.1f s, one of "
                         "its rows after %.1f s (%s)" % (step, got, before, after_read, after_gc, other, waited,
                                                         code))
        # A committer slower than its lease: the renewal thread keeps it.
        lo = 90000
        a_proc, pa = start(binary, uri, tmp, "bc-a-stall",
                           {"STRATA_TEST_FAULTS": "1", "STRATA_ETCD_BIG_FAULT": "stall_checked",
                            "STRATA_ETCD_BIG_STALL_S": "5", "STRATA_ETCD_BIG_OPS": "300",
                            "STRATA_ETCD_BIG_TTL_S": "2"})
        procs.append(a_proc)
        a = connect(pa, True)
        t0 = time.time()
        a.cursor().copy_from(io.StringIO("".join("%d\tnew%d\n" % (lo + k, k) for k in range(ROWS))), "bc",
                             columns=("id", "v"))
        stalled = time.time() - t0
        if stalled < 5:
            raise SystemExit("the stalled COPY returned after %.1f s: no stall (fault point not reached?)" % stalled)
        got = one(b, "SELECT count(*) FROM bc WHERE id >= %s", (lo,))
        if got != ROWS:
            raise SystemExit("a COPY whose committer stalled past its lease's TTL: %d of %d rows" % (got, ROWS))
        a.close()
        notes.append("stalled 5 s with a 2 s lease: committed in %.1f s" % stalled)
        # The lease ended under a live committer (etcd dropped it: a renewal
        # starved at load ~50 once failed a COPY with "requested lease not
        # found"): the server revokes it itself after each step; the commit
        # runs again on a new lease and every row is there once.
        for i, step in enumerate(EXPIRE_STEPS):
            lo = 200000 + i * 10000
            name = "bc-a-expire-" + step
            a_proc, pa = start(binary, uri, tmp, name,
                               {"STRATA_TEST_FAULTS": "1", "STRATA_ETCD_BIG_FAULT": "expire_" + step,
                                "STRATA_ETCD_BIG_OPS": "300", "STRATA_ETCD_BIG_TTL_S": "2"})
            procs.append(a_proc)
            a = connect(pa, True)
            a.cursor().copy_from(io.StringIO("".join("%d\tnew%d\n" % (lo + k, k) for k in range(ROWS))), "bc",
                                 columns=("id", "v"))
            a.close()
            with open(os.path.join(tmp, name + ".log"), errors="replace") as f:
                log = f.read()
            if "lease revoked after " + step not in log or "running it again on a new lease" not in log:
                raise SystemExit("expire_%s: the lease was not revoked or the commit not run again (log %s)"
                                 % (step, os.path.join(tmp, name + ".log")))
            got = one(b, "SELECT count(*) FROM bc WHERE id >= %s AND id < %s AND v LIKE 'new%%'", (lo, lo + ROWS))
            byv = one(b, "SELECT count(*) FROM bc WHERE v >= 'new' AND v < 'nex' AND id >= %s AND id < %s",
                      (lo, lo + ROWS))
            if got != ROWS or byv != ROWS:
                raise SystemExit("expire_%s: %s rows by key, %s by the index, want %d" % (step, got, byv, ROWS))
        notes.append("lease revoked under the committer after %s: run again, all rows once"
                     % ", ".join(EXPIRE_STEPS))
        total = one(b, "SELECT count(*) FROM bc")
        want = 10 + (2 + len(EXPIRE_STEPS)) * ROWS + 2 * len(STEPS) - 1
        if total != want:
            raise SystemExit("final row count %d, want %d" % (total, want))
        print("killed at each step: " + "; ".join(notes))
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()


main()
