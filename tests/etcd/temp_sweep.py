"""temp_sweep.py — temporary schemas on a store shared by several servers
(docs/scale-out.md, "Several servers").

Names: servers A and B are started so that their sessions get the same
session ids (STRATA_TEST_FIRST_PID); a session on each creates TEMP TABLE t
with different rows: their schemas differ (pg_temp_<server no>_<id>), each
sees only its own t (also as pg_temp.t, pg_my_temp_schema()), psql's
\\dt pg_temp*.* lists both, and another session's disconnect on either
server (dropping its own temporary schema) leaves both intact; then A's
session disconnects: its schema goes, B's session keeps its t.

Sweep: A is killed with SIGKILL; B drops A's temporary schema and its kv
table once A's lease is gone (STRATA_ETCD_HORIZON_TTL_S=3, a sweep every
second), and B's own temporary table stays usable, also after a third
server C starts (its start-up sweep) and after more sweeps.

usage: temp_sweep.py BIN STORE_URI ENDPOINT TMPDIR
  ENDPOINT   host:port of one member (raw kv table counts over the gateway)
prints a one-line summary; exit status 0/1."""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.request

from twoserver import connect, one, start_server

ENV = {"STRATA_ETCD_HORIZON_TTL_S": "3", "STRATA_TEMP_SWEEP_S": "1", "STRATA_TEST_FAULTS": "1",
       "STRATA_TEST_FIRST_PID": "4242"}
TTL = 3


def start(binary, uri, tmp, name):
    return start_server(binary, uri, os.path.join(tmp, name), ENV)


def kv_tables(endpoint, prefix):
    """Number of kv tables under the prefix (keys P/t/...)."""
    lo = prefix.encode() + b"/t/"
    hi = prefix.encode() + b"/t0"
    body = json.dumps({"key": base64.b64encode(lo).decode(), "range_end": base64.b64encode(hi).decode(),
                       "count_only": True}).encode()
    r = json.load(urllib.request.urlopen("http://%s/v3/kv/range" % endpoint, body, timeout=10))
    return int(r.get("count", 0))


def temp_schemas(conn):
    cur = conn.cursor()
    cur.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pg\\_temp\\_%' ORDER BY 1")
    return [r[0] for r in cur.fetchall()]


def want(what, got, expect):
    if got != expect:
        raise SystemExit("%s: want %s, got %s" % (what, expect, got))


def same_pid(port_a, port_b):
    """A session on each server with one session id (the servers start
    counting at the same id; a few extra sessions align them)."""
    a, b = connect(port_a, True), connect(port_b, True)
    spare = []
    for _ in range(50):
        pa, pb = one(a, "SELECT pg_backend_pid()"), one(b, "SELECT pg_backend_pid()")
        if pa == pb:
            for c in spare:
                c.close()
            return a, b, pa
        spare.append(a if pa < pb else b)
        if pa < pb:
            a = connect(port_a, True)
        else:
            b = connect(port_b, True)
    raise SystemExit("could not get sessions with one id on both servers")


def dt_temp(port):
    """psql's \\dt pg_temp*.*: (schema, table) pairs listed."""
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-At", "-F", " ",
                          "-c", "\\dt pg_temp*.*"], capture_output=True, text=True, timeout=30)
    if out.returncode:
        raise SystemExit("psql \\dt failed: %s" % out.stderr)
    return sorted(tuple(l.split()[:2]) for l in out.stdout.splitlines() if l.strip())


def names(binary, uri, tmp, port_a, port_b):
    """Same session ids on two servers: distinct schemas, each session sees
    its own t only; other sessions' ends touch neither."""
    a, b, pid = same_pid(port_a, port_b)
    ca, cb = a.cursor(), b.cursor()
    ca.execute("CREATE TEMP TABLE t (id int, v text)")
    ca.execute("INSERT INTO t SELECT g, 'a' FROM generate_series(1, 50) g")
    cb.execute("CREATE TEMP TABLE t (id int, v text)")
    cb.execute("INSERT INTO t VALUES (1, 'b')")
    sa, sb = schema_of_own(a), schema_of_own(b)
    if sa == sb or not sa.startswith("pg_temp_") or not sb.startswith("pg_temp_"):
        raise SystemExit("sessions with id %d on two servers: schemas %s and %s" % (pid, sa, sb))
    for c, n, v in ((a, 50, "a"), (b, 1, "b")):
        want("rows of t", one(c, "SELECT count(*) FROM t"), n)
        want("rows of pg_temp.t", one(c, "SELECT string_agg(DISTINCT v, ',') FROM pg_temp.t"), v)
    want("A's pg_my_temp_schema()", one(a, "SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()"), sa)
    want("B's pg_my_temp_schema()", one(b, "SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()"), sb)
    want("\\dt pg_temp*.* on B", dt_temp(port_b), sorted([(sa, "t"), (sb, "t")]))
    # Other sessions with temporary tables of their own end on each server.
    for port in (port_a, port_b):
        o = connect(port, True)
        o.cursor().execute("CREATE TEMP TABLE t (id int, v text)")
        o.cursor().execute("INSERT INTO t VALUES (9, 'o')")
        want("a third session's t", one(o, "SELECT count(*) FROM t"), 1)
        o.close()
    time.sleep(0.5)
    want("A's t after other sessions ended", one(a, "SELECT count(*) FROM t WHERE v = 'a'"), 50)
    want("B's t after other sessions ended", one(b, "SELECT count(*) FROM t WHERE v = 'b'"), 1)
    want("temporary schemas after other sessions ended", temp_schemas(b), sorted([sa, sb]))
    return a, b, sa, sb


def schema_of_own(conn):
    return one(conn, "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE c.relname = 't' AND n.oid = pg_my_temp_schema()")


def main():
    binary, uri, endpoint, tmp = sys.argv[1:5]
    prefix = "/tempsweep%d" % (os.getpid())
    uri += prefix
    procs = []
    try:
        pa, port_a = start(binary, uri, tmp, "ts-a")
        procs.append(pa)
        pb, port_b = start(binary, uri, tmp, "ts-b")
        procs.append(pb)
        a, b, first, mine = names(binary, uri, tmp, port_a, port_b)
        cb = b.cursor()
        # A's session with B's session id ends: its schema goes, B's stays.
        a2 = connect(port_a, True)
        a2.cursor().execute("CREATE TEMP TABLE t (id int, v text)")
        a2.cursor().execute("INSERT INTO t SELECT g, 'a2' FROM generate_series(1, 50) g")
        theirs = schema_of_own(a2)
        a.close()
        deadline = time.time() + 10
        while first in temp_schemas(b) and time.time() < deadline:
            time.sleep(0.1)
        want("temporary schemas after A's session %s ended" % first, temp_schemas(b), sorted([mine, theirs]))
        want("B's t after A's session with its id ended", one(b, "SELECT count(*) FROM t WHERE v = 'b'"), 1)
        a = a2
        before = kv_tables(endpoint, prefix)
        # B sees both schemas, and a live A is never swept.
        time.sleep(TTL + 2)
        got = temp_schemas(b)
        if got != sorted([mine, theirs]):
            raise SystemExit("before the kill B sees %s, want %s and %s" % (got, mine, theirs))
        if one(a, "SELECT count(*) FROM t") != 50:
            raise SystemExit("A's temporary table changed while A was alive")
        pa.kill()
        pa.wait()
        killed = time.time()
        while time.time() < killed + TTL + 15:
            if temp_schemas(b) == [mine]:
                break
            time.sleep(0.2)
        took = time.time() - killed
        got = temp_schemas(b)
        if got != [mine]:
            raise SystemExit("%.1f s after A's kill B still sees %s" % (took, got))
        after = kv_tables(endpoint, prefix)
        if after != before - 1:
            raise SystemExit("kv tables: %d before the kill, %d after the sweep (want one fewer)" % (before, after))
        pc, port_c = start(binary, uri, tmp, "ts-c")
        procs.append(pc)
        time.sleep(TTL)
        cb.execute("INSERT INTO t VALUES (2, 'b')")
        if one(b, "SELECT count(*) FROM t") != 2 or temp_schemas(b) != [mine]:
            raise SystemExit("B's live temporary table was touched")
        c = connect(port_c, True)
        if temp_schemas(c) != [mine]:
            raise SystemExit("C sees %s, want %s" % (temp_schemas(c), [mine]))
        c.close()
        b.close()
        print("sessions with one id on two servers: schemas %s and %s, each sees its own TEMP TABLE t, "
              "\\dt pg_temp*.* lists both, other sessions' ends touch neither, the end of A's drops only its own; "
              "a killed server's temporary schema (50 rows) dropped %.1f s after SIGKILL (lease %d s, "
              "sweep 1 s, confirmed 3 s later), its kv table too; a live server's temporary table untouched"
              % (first, mine, took, TTL))
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            p.wait()
    for name in ("ts-a", "ts-b", "ts-c"):
        t = open(os.path.join(tmp, name + ".log"), "rb").read()
        if b"Sanitizer" in t or b"runtime error" in t:
            raise SystemExit("sanitizer report in %s.log" % os.path.join(tmp, name))


if __name__ == "__main__":
    main()
