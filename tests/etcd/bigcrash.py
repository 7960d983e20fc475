"""bigcrash.py — a large transaction's committer killed at each step of its
commit (docs/scale-out.md, "Large transactions"): after the table lock, after
the checks, after the first chunk of intents, after all intents, after the
flip. The rows must end committed (after the flip) or absent (before it),
never in part; another server writes the table once the dead committer's
lease expired; the intents of an aborted transaction are deleted by the
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
            # The other server writes the table once the lease expired.
            t0 = time.time()
            cb.execute("INSERT INTO bc VALUES (%s, 'after')", (lo + ROWS + 1,))
            waited = time.time() - t0
            got = one(b, "SELECT count(*) FROM bc WHERE id >= %s AND id < %s", (lo, lo + ROWS))
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
            notes.append("%s: %d rows, %d intents -> %d -> %d, waited %.1f s"
                         % (step, got, before, after_read, after_gc, waited))
        total = one(b, "SELECT count(*) FROM bc")
        if total != 10 + ROWS + len(STEPS):
            raise SystemExit("final row count %d, want %d" % (total, 10 + ROWS + len(STEPS)))
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
