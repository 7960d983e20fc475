#!/usr/bin/python3
"""ops.py — operations on the etcd backend (tests/etcd/run.sh, "ops";
docs/scale-out.md, docs/operations.md): backup while writers run, restore
into a fresh etcd prefix and into an embedded data directory, kv_store_verify
(strata-kv verify) clean and with corrupted keys, the inspection commands of
strata-kv on an etcd prefix, strata verify (SQL-level checks) clean and
after a catalog row, an index entry and a kv table damaged over etcd's
gateway, a backup paused (STRATA_BACKUP_PAUSE) while
another server drops, creates and truncates tables, the row locks of a
stalled large transaction in `strata-kv intents`.

usage: ops.py URI STRATA STRATA_KV TMPDIR LOGDIR

URI is the cluster (etcd://host:port,...), without a prefix. Prints one line
per check ("ok ..." / "FAIL ..."); exit status 0 when all passed.
"""
import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import psycopg2

from twoserver import free_port

uri, strata, strata_kv, tmp, logs = sys.argv[1:6]
emb = os.path.join(tmp, "ops-emb")
endpoint = uri.split("://", 1)[1].split(",")[0]
failures = 0
procs = []


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures += 1


def start(name, store, env=None):
    port = free_port()
    d = os.path.join(tmp, name) if store is not None else emb
    os.makedirs(d, exist_ok=True)
    args = [strata, "--port", str(port), "--data-dir", d]
    if store:
        args += ["--store", store]
    e = dict(os.environ)
    e.update(env or {})
    log = open(os.path.join(logs, name + ".log"), "w")
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=e)
    procs.append(p)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return port, p
        except OSError:
            if p.poll() is not None:
                raise RuntimeError("server %s exited (log %s/%s.log)" % (name, logs, name))
            time.sleep(0.1)
    raise RuntimeError("server %s did not start" % name)


def connect(port):
    c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    c.autocommit = True
    return c


def q(port, sql):
    c = connect(port)
    cur = c.cursor()
    cur.execute(sql)
    r = cur.fetchall() if cur.description else None
    c.close()
    return r


def etcd_put(key, value):
    body = json.dumps({"key": base64.b64encode(key).decode(), "value": base64.b64encode(value).decode()})
    req = urllib.request.Request("http://%s/v3/kv/put" % endpoint, body.encode(), {"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()


def etcd_call(path, body):
    req = urllib.request.Request("http://%s/v3/kv/%s" % (endpoint, path), json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=10).read())


def b64(b):
    return base64.b64encode(b).decode()


def etcd_first_key(prefix):
    """The first key under prefix (bytes), or None."""
    end = prefix[:-1] + bytes([prefix[-1] + 1])
    r = etcd_call("range", {"key": b64(prefix), "range_end": b64(end), "limit": 1})
    kvs = r.get("kvs") or []
    return base64.b64decode(kvs[0]["key"]) if kvs else None


def etcd_delete_prefix(prefix):
    end = prefix[:-1] + bytes([prefix[-1] + 1])
    etcd_call("deleterange", {"key": b64(prefix), "range_end": b64(end)})


def etcd_table_id(pfx, name):
    """A kv table's id: the create_revision of its metadata key P/t/name."""
    r = etcd_call("range", {"key": b64(pfx + b"/t/" + name.encode())})
    return int(r["kvs"][0]["create_revision"])


def strata_verify(port):
    r = subprocess.run([strata, "verify", "--port", str(port), "--host", "127.0.0.1"], capture_output=True,
                       text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def kv_tool(*args):
    r = subprocess.run([strata_kv] + list(args), capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


# What a server shows of the data (same queries on source and restores).
SNAP = [
    "SELECT count(*), coalesce(sum(v), 0), md5(coalesce(string_agg(k || ':' || v || ':' || s, ',' ORDER BY k), '')) FROM t1",
    "SELECT count(*), md5(coalesce(string_agg(id || ':' || a, ',' ORDER BY id), '')) FROM t2",
    "SELECT count(*) FROM t1 WHERE v BETWEEN 100 AND 200",
]


def snapshot(port, as_of=None):
    c = connect(port)
    cur = c.cursor()
    if as_of:
        cur.execute("SET strata.read_as_of = '%s'" % as_of)
    out = []
    for s in SNAP:
        cur.execute(s)
        out.append(cur.fetchall())
    c.close()
    return out


try:
    # Server A makes large transactions (intents) from 300 etcd operations.
    pa, _ = start("ops-a", uri + "/ops", {"STRATA_ETCD_BIG_OPS": "300"})
    pb, _ = start("ops-b", uri + "/ops")
    # t1 a cell per column (3 per row: strata-kv tables' count below), t2 packed (the default).
    q(pa, "CREATE TABLE t1 (k int PRIMARY KEY, v int, s text) WITH (row_format = cells)")
    q(pa, "CREATE INDEX t1_v ON t1 (v)")
    q(pa, "CREATE SEQUENCE sq")
    q(pa, "INSERT INTO t1 SELECT g, g % 500, 'row ' || g FROM generate_series(1, 800) g")  # a large txn
    q(pb, "CREATE TABLE t2 (id serial PRIMARY KEY, a text)")
    q(pb, "INSERT INTO t2 (a) SELECT 'b' || g FROM generate_series(1, 200) g")
    seq_before = max(q(pa, "SELECT nextval('sq')")[0][0], q(pb, "SELECT nextval('sq')")[0][0])

    # Writers on both servers while the backup runs.
    stop = threading.Event()
    written = [0]

    def writer(port, n0):
        c = connect(port)
        cur = c.cursor()
        i = n0
        while not stop.is_set():
            try:
                cur.execute("INSERT INTO t1 VALUES (%s, %s, 'w')", (i, i % 500))
                cur.execute("UPDATE t1 SET v = v + 1 WHERE k = %s", (1 + i % 800,))
                cur.execute("INSERT INTO t2 (a) VALUES ('w')")
                cur.execute("SELECT nextval('sq')")
                written[0] += 1
            except psycopg2.Error:
                pass  # 40001 between the servers: fine, the backup is what we test
            i += 1
        c.close()

    ws = [threading.Thread(target=writer, args=(pa, 100000)), threading.Thread(target=writer, args=(pb, 200000))]
    for w in ws:
        w.start()
    time.sleep(1.0)
    bdir = os.path.join(tmp, "backup1")
    r = subprocess.run([strata, "backup", bdir, "--port", str(pb), "--host", "127.0.0.1", "--user", "postgres"],
                       capture_output=True, text=True, timeout=600)
    time.sleep(1.0)
    stop.set()
    for w in ws:
        w.join()
    check(r.returncode == 0, "backup: strata backup on an etcd-backed server while writers run (%s)"
          % (r.stdout.strip().splitlines()[-1:] if r.returncode == 0 else r.stderr.strip()))
    info = q(pa, "SELECT backup_ts, tables, cells FROM strata_backup_info('%s', true)" % bdir)[0]
    bts = info[0]
    check(info[1] >= 3 and info[2] > 1000, "backup-info --verify: %d kv tables, %d cells, checksums match" % (info[1], info[2]))
    after = snapshot(pa)
    at_backup = snapshot(pa, bts)
    check(after != at_backup and written[0] > 0,
          "writers committed %d rounds; the state now differs from the backup's point" % written[0])

    # Restore into a fresh etcd prefix, and into an embedded data directory.
    r = subprocess.run([strata, "restore", bdir, "--store", uri + "/ops_r"], capture_output=True, text=True, timeout=600)
    check(r.returncode == 0, "restore into a fresh etcd prefix (%s)" % r.stderr.strip().splitlines()[-1:])
    r2 = subprocess.run([strata, "restore", bdir, "--store", uri + "/ops_r"], capture_output=True, text=True, timeout=600)
    check(r2.returncode != 0 and "already holds" in r2.stderr,
          "restore into a prefix that holds tables is refused (%s)" % r2.stderr.strip().splitlines()[-1:])
    r3 = subprocess.run([strata, "restore", bdir, "--data-dir", emb], capture_output=True, text=True, timeout=600)
    check(r3.returncode == 0, "restore of the etcd backup into an embedded data directory")
    pc, _ = start("ops-c", uri + "/ops_r")
    got = snapshot(pc)
    check(got == at_backup, "the restored prefix shows exactly the rows as of the backup's point: %s" % got[0])
    vi = q(pc, "SELECT rows, entries, missing, stale, mismatched FROM strata_verify_index('t1_v')")[0]
    check(vi[0] == at_backup[0][0][0] and vi[1] == vi[0] and vi[2:] == (0, 0, 0),
          "strata_verify_index on the restored prefix: rows, entries, missing, stale, mismatched = %s" % (vi,))
    nv = q(pc, "SELECT nextval('sq')")[0][0]
    check(nv > seq_before, "the sequence continues past its value (%d > %d)" % (nv, seq_before))
    mx = q(pc, "SELECT max(id) FROM t2")[0][0]
    q(pc, "INSERT INTO t2 (a) VALUES ('after restore')")
    nid = q(pc, "SELECT max(id) FROM t2")[0][0]
    check(nid > mx, "serial ids continue past the restored rows (%d > %d)" % (nid, mx))

    pe_port, _ = start("ops-e", None)
    got_e = snapshot(pe_port)
    check(got_e == at_backup, "the embedded restore of the etcd backup shows the same rows: %s" % got_e[0])

    # Verify: clean, then corrupted keys.
    rc, out = kv_tool("verify", uri + "/ops_r")
    check(rc == 0 and "ok (0 problems)" in out, "strata-kv verify on the restored prefix: clean (%s)" % out.strip().splitlines()[-1:])
    rc, out = kv_tool("verify", uri + "/ops")
    check(rc == 0 and "ok (0 problems)" in out, "strata-kv verify on the source prefix after writers and a large transaction: clean")
    kvt = q(pc, "SELECT kv_table FROM strata_compactions WHERE relation = 'public.t1'")[0][0]
    rc, out = kv_tool("tables", uri + "/ops_r")
    m = re.search(r"^%s\s+(\d+)" % re.escape(kvt), out, re.M)
    eid = int(m.group(1)) if m else 0
    etcd_put(b"/ops_r/q/what", b"x")                                   # a key of no known kind
    etcd_put(b"/ops_r/d/" + eid.to_bytes(8, "big") + b"\xff\xffjunk", b"x")  # a cell key that does not decode
    etcd_put(b"/ops_r/r/" + (987654321).to_bytes(8, "big") + b"a\x00\x01", b"12345678")  # marker of no table
    rc, out = kv_tool("verify", uri + "/ops_r")
    probs = [l for l in out.splitlines() if l.startswith("PROBLEM")]
    check(rc == 1 and len(probs) == 3 and "no known kind" in out and "does not decode" in out and "no metadata" in out,
          "strata-kv verify reports the 3 corrupted keys: %s" % probs)
    alive = True
    try:
        q(pc, "SELECT count(*) FROM t1")
    except psycopg2.Error as e:
        pass  # an error for the damaged table is acceptable, a crash is not
    try:
        alive = q(pc, "SELECT count(*) FROM t2")[0][0] > 0
    except psycopg2.Error:
        alive = False
    check(alive, "the server on the damaged prefix lives on")

    # Inspection of the source prefix.
    n1 = q(pa, "SELECT count(*) FROM t1")[0][0]
    kva = q(pa, "SELECT kv_table FROM strata_compactions WHERE relation = 'public.t1'")[0][0]
    kvb = q(pa, "SELECT kv_table FROM strata_compactions WHERE relation = 'public.t2'")[0][0]
    rc, out = kv_tool("tables", uri + "/ops")
    ma = re.search(r"^%s\s+\d+\s+\S+\s+(\d+)\s+(\d+)" % re.escape(kva), out, re.M)
    mb = re.search(r"^%s\s+\d+\s+\S+\s+(\d+)" % re.escape(kvb), out, re.M)
    check(rc == 0 and ma and int(ma.group(1)) == n1 and int(ma.group(2)) >= 3 * n1 and mb and "sys.catalog" in out,
          "strata-kv tables lists t1's kv table with its %d rows and cells, t2's, the catalog" % n1)
    rc, out = kv_tool("scan", uri + "/ops", kva, "--limit", "6", "--values")
    lines = [l for l in out.splitlines() if " @" in l]
    check(rc == 0 and len(lines) == 6 and "6 cells at revision" in out and "Put" in out,
          "strata-kv scan decodes cells: %s" % lines[:1])
    rc, out = kv_tool("scan", uri + "/ops", kva, "--limit", "3", "--from", "\\x02\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x05")
    first = [l for l in out.splitlines() if " @" in l][:1]
    check(rc == 0 and "3 cells at revision" in out and first and first[0].startswith("\\x02\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x05/"),
          "strata-kv scan --from a row key starts at that row (k = 5): %s" % first)
    rc, out = kv_tool("intents", uri + "/ops")
    check(rc == 0 and re.search(r"record [0-9a-f]{32} committed", out) and re.search(r"intents of [0-9a-f]{32} in %s: \d+, committed" % re.escape(kva), out),
          "strata-kv intents shows the large transaction's record and its intents in t1")
    rc, out = kv_tool("stats", uri + "/ops")
    check(rc == 0 and "cluster clock" in out and "version GC horizon" in out and re.search(r"horizon /strata-compaction/h/[0-9a-f]+: revision \d+", out),
          "strata-kv stats shows the clock, the GC horizon and the servers' compaction horizons")

    # A backup paused after it took its point (STRATA_BACKUP_PAUSE) while
    # another server drops a table, creates and drops one, truncates one
    # (new storage) and creates one: the backup has the tables as of its
    # point, the dropped one included, and none created after it.
    pause = os.path.join(tmp, "bk-pause")
    pd, _ = start("ops-d", uri + "/opsd", {"STRATA_TEST_FAULTS": "1", "STRATA_BACKUP_PAUSE": pause})
    pf, _ = start("ops-f", uri + "/opsd")
    DDL_T = ("keep", "gone", "trunc")
    for i, t in enumerate(DDL_T):
        q(pd, "CREATE TABLE %s (k int PRIMARY KEY, v text)" % t)
        q(pd, "INSERT INTO %s SELECT g, '%s' || g FROM generate_series(1, %d) g" % (t, t, 50 + 40 * i))

    def ddl_state(port):
        out = []
        for t in DDL_T:
            try:
                out.append(q(port, "SELECT count(*), md5(string_agg(k || v, ',' ORDER BY k)) FROM %s" % t)[0])
            except psycopg2.Error as e:  # e.g. a catalog row without storage
                out.append(str(e).strip())
        return out

    want = ddl_state(pd)
    bdir2 = os.path.join(tmp, "backup2")
    res = {}

    def run_backup():
        res["r"] = subprocess.run([strata, "backup", bdir2, "--port", str(pd), "--host", "127.0.0.1", "--user", "postgres"],
                                  capture_output=True, text=True, timeout=600)

    th = threading.Thread(target=run_backup)
    th.start()
    for _ in range(600):
        if os.path.exists(pause) or not th.is_alive():
            break
        time.sleep(0.1)
    paused = os.path.exists(pause)
    q(pf, "INSERT INTO gone VALUES (100000, 'after the point')")
    q(pf, "DROP TABLE gone")
    q(pf, "CREATE TABLE born (k int)")
    q(pf, "INSERT INTO born VALUES (1)")
    q(pf, "DROP TABLE born")
    q(pf, "TRUNCATE trunc")
    q(pf, "INSERT INTO trunc VALUES (1, 'after the point')")
    q(pf, "CREATE TABLE born2 (k int)")
    if paused:
        os.unlink(pause)
    th.join()
    r = res["r"]
    check(paused and r.returncode == 0, "backup paused after its point, then finished (%s)"
          % (r.stdout.strip().splitlines()[-1:] if r.returncode == 0 else r.stderr.strip()))
    info2 = q(pa, "SELECT tables FROM strata_backup_info('%s', true)" % bdir2)[0]
    check(info2[0] >= 4, "backup-info --verify of the backup with DDL meanwhile: %d kv tables" % info2[0])
    r = subprocess.run([strata, "restore", bdir2, "--store", uri + "/opsd_r"], capture_output=True, text=True, timeout=600)
    check(r.returncode == 0, "restore of the backup with DDL meanwhile (%s)" % r.stderr.strip().splitlines()[-1:])
    pr, _ = start("ops-dr", uri + "/opsd_r")
    got = ddl_state(pr)
    check(got == want, "restored: keep, gone (dropped after the point) and trunc (truncated after it) have their rows as of the point: %s" % got)
    born = q(pr, "SELECT to_regclass('born') IS NULL, to_regclass('born2') IS NULL")[0]
    check(born == (True, True), "restored: no table created after the point")
    rc, out = kv_tool("verify", uri + "/opsd_r")
    check(rc == 0 and "ok (0 problems)" in out, "strata-kv verify on the restored prefix: clean (%s)" % out.strip().splitlines()[-1:])
    now_src = q(pf, "SELECT to_regclass('gone') IS NULL, (SELECT count(*) FROM trunc)")[0]
    check(now_src == (True, 1), "the source keeps the DDL done during the backup")

    # Row locks of a large transaction, shown by strata-kv intents while it
    # stalls after staging its intents.
    pg, _ = start("ops-g", uri + "/opsd", {"STRATA_ETCD_BIG_OPS": "300", "STRATA_TEST_FAULTS": "1",
                                          "STRATA_ETCD_BIG_FAULT": "stall_staged", "STRATA_ETCD_BIG_STALL_S": "8"})
    q(pg, "CREATE TABLE big (k int PRIMARY KEY, v text)")
    kvg = q(pg, "SELECT kv_table FROM strata_compactions WHERE relation = 'public.big'")[0][0]
    bres = {}

    def big_insert():
        try:
            q(pg, "INSERT INTO big SELECT g, 'v' || g FROM generate_series(1, 800) g")
            bres["ok"] = True
        except psycopg2.Error as e:
            bres["err"] = str(e)

    bt = threading.Thread(target=big_insert)
    bt.start()
    out = ""
    for _ in range(300):
        with open(os.path.join(logs, "ops-g.log")) as f:
            if "stalls" in f.read():
                break
        time.sleep(0.1)
    rc, out = kv_tool("intents", uri + "/opsd")
    bt.join()
    ml = re.search(r"lock of %s: held by ([0-9a-f]{32})" % re.escape(kvg), out)
    mr = re.search(r"row locks of ([0-9a-f]{32}) in %s: (\d+)" % re.escape(kvg), out)
    check(rc == 0 and ml and mr and mr.group(1) == ml.group(1) and int(mr.group(2)) == 800 and bres.get("ok"),
          "strata-kv intents shows the stalled large transaction's 800 row locks in its table, next to its table lock: %s"
          % (mr.group(0) if mr else out.strip().splitlines()[-3:]))
    rc, out = kv_tool("intents", uri + "/opsd")
    check(rc == 0 and "row locks of" not in out, "after the commit no row lock is left")

    # strata verify (strata_verify(): kv layer, catalog rows, kv tables,
    # indexes) clean, then damaged behind Strata's back over etcd's
    # gateway: a catalog row that does not parse, an index entry deleted,
    # a table's kv table deleted (metadata and every key).
    pv, _ = start("ops-v", uri + "/opsv")
    q(pv, "CREATE TABLE vt (k int PRIMARY KEY, v text, n int)")
    q(pv, "CREATE INDEX vt_v ON vt (v)")
    q(pv, "CREATE UNIQUE INDEX vt_n ON vt (n)")
    q(pv, "INSERT INTO vt SELECT g, 'v' || (g % 37), g FROM generate_series(1, 300) g")
    q(pv, "UPDATE vt SET v = 'moved' WHERE k % 5 = 0")
    q(pv, "DELETE FROM vt WHERE k % 7 = 0")
    q(pv, "CREATE TABLE vgone (k int PRIMARY KEY, v text)")
    q(pv, "CREATE INDEX vgone_v ON vgone (v)")
    q(pv, "INSERT INTO vgone SELECT g, 'x' || g FROM generate_series(1, 50) g")
    rc, out = strata_verify(pv)
    check(rc == 0 and "verify: ok" in out, "strata verify on an etcd prefix: clean (%s)" % out.strip().splitlines()[-1:])
    live = q(pv, "SELECT count(*) FROM vt")[0][0]
    rows = q(pv, 'SELECT "check", object, ok, detail FROM strata_verify()')
    ix = dict((r[1], r[3]) for r in rows if r[0] == "index")
    check(ix.get("public.vt_v", "").startswith("%d rows, %d entries, 0 missing" % (live, live))
          and "public.vt_n" in ix and "public.vgone_v" in ix and all(r[2] for r in rows),
          "strata_verify() checks every index against its %d rows: %s" % (live, ix.get("public.vt_v")))
    # A server killed inside CREATE TABLE leaves a kv table no catalog
    # object names (on a shared store nobody drops it at start).
    pv2, pv2p = start("ops-v2", uri + "/opsv")
    c2 = psycopg2.connect(host="127.0.0.1", port=pv2, user="postgres", dbname="postgres")
    c2.cursor().execute("CREATE TABLE vorphan (k int PRIMARY KEY, v text)")
    pv2p.send_signal(signal.SIGKILL)
    pv2p.wait()
    pfx = b"/opsv"
    kix = q(pv, "SELECT kv_table FROM strata_compactions WHERE relation = 'public.vt_v'")[0][0]
    kgone = q(pv, "SELECT kv_table FROM strata_compactions WHERE relation = 'public.vgone'")[0][0]
    cat_id = etcd_table_id(pfx, "sys.catalog")
    ix_id = etcd_table_id(pfx, kix)
    gone_id = etcd_table_id(pfx, kgone)
    # catalog row 'o' || oid 0x7ffffff0, family d, empty qualifier, ts 1, Put
    inv = lambda v, n: (~v & ((1 << (8 * n)) - 1)).to_bytes(n, "big")
    etcd_put(pfx + b"/d/" + cat_id.to_bytes(8, "big") + b"o\x7f\xff\xff\xf0\x00\x01" + b"d\x00\x01" + b"\x00\x01"
             + inv(1, 8) + inv(4, 1), b"\xde\xad\xbe\xef")
    first = etcd_first_key(pfx + b"/d/" + ix_id.to_bytes(8, "big"))
    check(first is not None, "index vt_v has an entry in etcd")
    etcd_call("deleterange", {"key": b64(first)})
    for kind in (b"d", b"r", b"s", b"m", b"l"):
        etcd_delete_prefix(pfx + b"/" + kind + b"/" + gone_id.to_bytes(8, "big"))
    etcd_call("deleterange", {"key": b64(pfx + b"/t/" + kgone.encode())})
    rc, out = strata_verify(pv)
    probs = [l for l in out.splitlines() if l.startswith("PROBLEM")]
    check(any(re.search(r"storage +r\S+: kv table named by no catalog object", l) for l in probs),
          "strata verify reports the kv table of the killed server's CREATE TABLE: %s" % probs)
    probs = [l for l in probs if "named by no catalog object" not in l]
    check(rc == 1 and len(probs) == 3 and "verify: DAMAGED" in out
          and any(re.search(r"index +public\.vt_v: missing entry", l) for l in probs)
          and any("catalog entry for oid 2147483632 does not parse" in l for l in probs)
          and any(re.search(r"storage +public\.vgone: its kv table %s does not exist" % re.escape(kgone), l) for l in probs),
          "strata verify reports the catalog row, the index entry and the kv table: %s" % probs)
    check(q(pv, "SELECT count(*) FROM vt")[0][0] == live, "the server on the damaged prefix still answers")
finally:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
sys.exit(1 if failures else 0)
