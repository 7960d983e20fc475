"""temp_sweep.py — temporary schemas of a crashed server on a shared store
(docs/scale-out.md, "Several servers"): server A's session creates a
temporary table and A is killed with SIGKILL; server B, which has a
temporary table of its own in a live session, drops A's temporary schema
and its kv table once A's lease is gone (STRATA_ETCD_HORIZON_TTL_S=3, a
sweep every second), and B's own temporary table stays usable, also after a
third server C starts (its start-up sweep) and after more sweeps.

usage: temp_sweep.py BIN STORE_URI ENDPOINT TMPDIR
  ENDPOINT   host:port of one member (raw kv table counts over the gateway)
prints a one-line summary; exit status 0/1."""
import base64
import json
import os
import sys
import time
import urllib.request

from twoserver import connect, one, start_server

ENV = {"STRATA_ETCD_HORIZON_TTL_S": "3", "STRATA_TEMP_SWEEP_S": "1"}
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


def schema_of(conn, table):
    return one(conn, "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE c.relname = %s", (table,))


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
        b = connect(port_b, True)
        cb = b.cursor()
        cb.execute("CREATE TEMP TABLE mine (id int, v text)")
        cb.execute("INSERT INTO mine VALUES (1, 'b')")
        mine = schema_of(b, "mine")
        a = connect(port_a, True)
        ca = a.cursor()
        ca.execute("CREATE TEMP TABLE left_behind (id int, v text)")
        ca.execute("INSERT INTO left_behind SELECT g, 'a' FROM generate_series(1, 50) g")
        theirs = schema_of(a, "left_behind")
        if theirs == mine:
            raise SystemExit("both sessions got %s (session ids collided; run again)" % mine)
        before = kv_tables(endpoint, prefix)
        # B sees both schemas, and a live A is never swept.
        time.sleep(TTL + 2)
        got = temp_schemas(b)
        if got != sorted([mine, theirs]):
            raise SystemExit("before the kill B sees %s, want %s and %s" % (got, mine, theirs))
        if one(a, "SELECT count(*) FROM left_behind") != 50:
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
        cb.execute("INSERT INTO mine VALUES (2, 'b')")
        if one(b, "SELECT count(*) FROM mine") != 2 or temp_schemas(b) != [mine]:
            raise SystemExit("B's live temporary table was touched")
        c = connect(port_c, True)
        if temp_schemas(c) != [mine]:
            raise SystemExit("C sees %s, want %s" % (temp_schemas(c), [mine]))
        c.close()
        b.close()
        print("a killed server's temporary schema (50 rows) dropped %.1f s after SIGKILL (lease %d s, "
              "sweep 1 s, confirmed 3 s later), its kv table too; a live server's temporary table untouched" % (took, TTL))
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
