#!/usr/bin/python3
"""limits.py — resource limits (issue 12), each with PostgreSQL's SQLSTATE:
statement_timeout (57014), lock_timeout and NOWAIT (55P03),
idle_in_transaction_session_timeout (FATAL 25P03, row locks released),
idle_session_timeout (FATAL 57P05), work_mem (sorts, hash aggregates and
hash joins spill to disk as in PostgreSQL; what cannot spill, such as a sort
of row values, fails with 53200 past 256 x work_mem and the session goes on,
where PostgreSQL spills and succeeds; so do a transaction's uncommitted
writes and a recursive query's work tables), max_connections (FATAL 53300, a slot
freed is usable again), the maximum message size (an announced 1 GiB
message is refused at once; announcing a big one allocates nothing until
its bytes arrive) and query cancel (57014; a CancelRequest with the wrong
key cancels nothing), and the default block cache size (an eighth of
memory, at least 256 MB). After each case the session that hit the limit, or a
new one, must work, and a bystander session must not notice anything.

usage: limits.py [CASE...]    (STRATA_BIN=tests/lib/pg_as_strata.sh checks the
test itself against PostgreSQL 15; max_connections and the memory cases are
Strata-only there)
Prints ok/FAIL per check and "N passed, N failed".
"""
import os
import socket
import struct
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from strata_fixture import FixtureError, NoServerInTree, StrataServer  # noqa: E402

MAX_CONN = 12


def log(msg):
    print(msg, flush=True)


class T:
    def __init__(self, srv, pg):
        self.srv = srv
        self.pg = pg
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
            log(f"ok {what}")
        else:
            self.failed += 1
            log(f"FAIL {what}")

    def conn(self, **kw):
        c = psycopg2.connect(self.srv.dsn, connect_timeout=20, **kw)
        c.autocommit = True
        return c

    def state(self, cur, sql, args=None):
        """SQLSTATE of running sql ("" if it succeeded, "conn" if the connection died)."""
        try:
            cur.execute(sql, args)
            return ""
        except psycopg2.Error as e:
            return e.pgcode or "conn"

    def wait_active(self, pid):
        """Until backend pid's query runs (pg_stat_activity, from another
        session; up to 60 s): a cancel sent before it starts cancels nothing."""
        w = self.conn()
        try:
            cur = w.cursor()
            for _ in range(600):
                cur.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND state = 'active'", (pid,))
                if cur.fetchone()[0]:
                    return
                time.sleep(0.1)
        finally:
            w.close()

    def alive(self, c, what):
        try:
            cur = c.cursor()
            cur.execute("SELECT 1")
            ok = cur.fetchone()[0] == 1
        except psycopg2.Error:
            ok = False
        self.check(ok, f"{what}: the session still works")


def server_rss_kb(srv):
    try:
        with open(f"/proc/{srv.proc.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    except (OSError, StopIteration, AttributeError):
        return None


def raw_login(srv, attempts=50):
    s = socket.create_connection((srv.host, srv.port), timeout=20)
    body = struct.pack("!I", 196608) + b"user\0postgres\0database\0postgres\0\0"
    s.sendall(struct.pack("!I", len(body) + 4) + body)
    buf = b""
    while b"Z\0\0\0\x05" not in buf:
        d = s.recv(4096)
        if not d:
            # Sessions a previous check closed give their slots back a moment
            # after their clients hung up (as PostgreSQL's exiting backends):
            # 53300 then, retried shortly.
            if b"53300" in buf and attempts > 0:
                s.close()
                time.sleep(0.1)
                return raw_login(srv, attempts - 1)
            raise OSError(f"closed during login: {buf[:200]!r}")
        buf += d
    i = buf.index(b"K\0\0\0\x0c")
    pid, key = struct.unpack("!ii", buf[i + 5:i + 13])
    return s, pid, key


def read_until_closed(s, timeout):
    """Bytes the server sends until it closes the connection (None on timeout)."""
    s.settimeout(timeout)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return out
            out += d
    except socket.timeout:
        return None
    except OSError:
        return out


# ---------------------------------------------------------------- cases

def statement_timeout(t):
    c = t.conn()
    cur = c.cursor()
    cur.execute("SET statement_timeout = 300")
    t0 = time.monotonic()
    st = t.state(cur, "SELECT pg_sleep(20)")
    t.check(st == "57014" and time.monotonic() - t0 < 10, f"statement_timeout ends pg_sleep: {st!r} after "
            f"{time.monotonic() - t0:.1f} s")
    t0 = time.monotonic()
    st = t.state(cur, "SELECT count(*) FROM generate_series(1, 100000000000)")
    t.check(st == "57014" and time.monotonic() - t0 < 10, f"statement_timeout ends a long scan: {st!r} after "
            f"{time.monotonic() - t0:.1f} s")
    st = t.state(cur, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r")
    t.check(st == "57014", f"statement_timeout ends an endless recursive query: {st!r}")
    t.alive(c, "after statement_timeout")
    cur.execute("BEGIN")
    st = t.state(cur, "SELECT pg_sleep(20)")
    st2 = t.state(cur, "SELECT 1")
    cur.execute("ROLLBACK")
    t.check(st == "57014" and st2 == "25P02", f"inside a transaction: {st!r}, then {st2!r} until ROLLBACK")
    cur.execute("SET statement_timeout = 0")
    st = t.state(cur, "SELECT pg_sleep(0.5)")
    t.check(st == "", "statement_timeout = 0 means no limit")
    c.close()


def lock_timeout(t):
    a, b = t.conn(), t.conn()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("CREATE TABLE lt (id int PRIMARY KEY, v int)")
    ca.execute("INSERT INTO lt VALUES (1, 0), (2, 0)")
    ca.execute("BEGIN")
    ca.execute("UPDATE lt SET v = v + 1 WHERE id = 1")
    cb.execute("SET lock_timeout = 300")
    t0 = time.monotonic()
    st = t.state(cb, "UPDATE lt SET v = v + 10 WHERE id = 1")
    t.check(st == "55P03" and time.monotonic() - t0 < 10, f"lock_timeout: {st!r} after {time.monotonic() - t0:.1f} s")
    st = t.state(cb, "SELECT * FROM lt WHERE id = 1 FOR UPDATE NOWAIT")
    t.check(st == "55P03", f"FOR UPDATE NOWAIT: {st!r}")
    st = t.state(cb, "UPDATE lt SET v = v + 10 WHERE id = 2")
    t.check(st == "", "a row nobody holds is not affected")
    ca.execute("COMMIT")
    st = t.state(cb, "UPDATE lt SET v = v + 10 WHERE id = 1")
    cb.execute("SELECT v FROM lt WHERE id = 1")
    t.check(st == "" and cb.fetchone()[0] == 11, "after the holder commits, the update goes through")
    a.close()
    b.close()


def idle_in_transaction(t):
    a, b = t.conn(), t.conn()
    ca, cb = a.cursor(), b.cursor()
    ca.execute("CREATE TABLE it (id int PRIMARY KEY, v int)")
    ca.execute("INSERT INTO it VALUES (1, 0)")
    ca.execute("SET idle_in_transaction_session_timeout = 300")
    ca.execute("BEGIN")
    ca.execute("UPDATE it SET v = 1 WHERE id = 1")
    time.sleep(1.5)
    try:
        ca.execute("SELECT 1")
        st, msg = "", ""
    except psycopg2.Error as e:
        st, msg = e.pgcode, str(e)
    t.check(a.closed or "idle-in-transaction" in msg or st == "25P03",
            f"idle_in_transaction_session_timeout ends the session ({st!r}: {msg.strip()[:80]})")
    cb.execute("SET lock_timeout = 2000")
    st = t.state(cb, "UPDATE it SET v = 2 WHERE id = 1")
    cb.execute("SELECT v FROM it WHERE id = 1")
    t.check(st == "" and cb.fetchone()[0] == 2, f"its row lock is released, its update rolled back ({st!r})")
    b.close()


def idle_fatal(t, setting, state):
    """Over a raw connection: the server sends FATAL with the SQLSTATE and closes."""
    s, _, _ = raw_login(t.srv)
    q = f"SET {setting} = 300{'; BEGIN' if 'transaction' in setting else ''}".encode() + b"\0"
    s.sendall(b"Q" + struct.pack("!I", 4 + len(q)) + q)
    t0 = time.monotonic()
    got = read_until_closed(s, 10)
    s.close()
    t.check(got is not None and b"SFATAL" in got and b"C" + state.encode() in got and time.monotonic() - t0 < 5,
            f"{setting}: FATAL {state} and the connection closes")


def idle_session(t):
    a = t.conn()
    ca = a.cursor()
    ca.execute("SET idle_session_timeout = 300")
    time.sleep(1.5)
    try:
        ca.execute("SELECT 1")
        st, msg = "", ""
    except psycopg2.Error as e:
        st, msg = e.pgcode, str(e)
    t.check(a.closed or "idle-session" in msg or st == "57P05",
            f"idle_session_timeout ends the session ({st!r}: {msg.strip()[:80]})")
    b = t.conn()
    t.alive(b, "after an idle session ended")
    b.close()
    idle_fatal(t, "idle_session_timeout", "57P05")
    idle_fatal(t, "idle_in_transaction_session_timeout", "25P03")


def work_mem(t):
    if t.pg:
        log("# limits: work_mem: PostgreSQL spills to disk; only the session checks apply")
    a, by = t.conn(), t.conn()
    ca, cby = a.cursor(), by.cursor()
    stop = threading.Event()
    errs = []

    def bystander():
        try:
            while not stop.is_set():
                cby.execute("SELECT count(*) FROM (SELECT g FROM generate_series(1, 2000) g ORDER BY g DESC) s")
                if cby.fetchone()[0] != 2000:
                    errs.append("wrong count")
        except psycopg2.Error as e:
            errs.append(f"{e.pgcode} {e}")

    th = threading.Thread(target=bystander)
    th.start()
    ca.execute("SET work_mem = '64kB'")
    queries = {
        "sort": "SELECT count(*) FROM (SELECT g, md5(g::text) FROM generate_series(1, 600000) g ORDER BY 2) s",
        "hash aggregate": "SELECT count(*) FROM (SELECT DISTINCT md5(g::text) FROM generate_series(1, 600000) g) s",
        "hash join": "SELECT count(*) FROM generate_series(1, 400000) a JOIN generate_series(1, 400000) b ON a = b",
    }
    for what, q in queries.items():
        st = t.state(ca, q)
        t.check(st == "", f"work_mem 64kB, {what} of a few hundred thousand rows spills and succeeds: {st!r}")
        t.alive(a, f"after the {what} past work_mem")
    # Row values cannot spill: past 256 x work_mem the statement fails.
    q = "SELECT count(*) FROM (SELECT ROW(g, md5(g::text)) r, g FROM generate_series(1, 600000) g ORDER BY g) s"
    st = t.state(ca, q)
    want = "" if t.pg else "53200"
    t.check(st == want, f"work_mem 64kB, sort of a few hundred thousand row values: {st!r} (want {want!r})")
    t.alive(a, "after the sort over budget")
    ca.execute("RESET work_mem")
    st = t.state(ca, queries["sort"])
    t.check(st == "", "the same sort with the default work_mem succeeds")
    stop.set()
    th.join()
    t.check(not errs, f"a session sorting meanwhile was not affected ({errs[:1]})")
    a.close()
    by.close()


def memory_budget(t):
    """What cannot spill counts against the same budget: a transaction's
    uncommitted writes and a recursive query's work tables. Past 256 x work_mem
    (16 MB at 64kB) the statement fails with 53200, the transaction can be
    rolled back, the session goes on; smaller transactions and the default
    work_mem succeed. Strata-only (PostgreSQL writes both to disk)."""
    if t.pg:
        log("# limits: memory_budget: PostgreSQL keeps both on disk; Strata-only")
        return
    a = t.conn()
    ca = a.cursor()
    ca.execute("DROP TABLE IF EXISTS wb")
    ca.execute("CREATE TABLE wb (id int PRIMARY KEY, pad text)")
    ca.execute("SET work_mem = '64kB'")
    # 20,000 rows of 2 kB: 40 MB uncommitted.
    big = "INSERT INTO wb SELECT g, repeat('x', 2000) FROM generate_series(%s, %s) g"
    # In a block: the INSERT past the budget fails, the block with it.
    ca.execute("BEGIN")
    st = t.state(ca, big, (1, 20000))
    t.check(st == "53200", f"work_mem 64kB, 40 MB of uncommitted rows in a block: {st!r} (want '53200')")
    st = t.state(ca, "SELECT 1")
    t.check(st == "25P02", f"the block is failed after it: {st!r}")
    ca.execute("ROLLBACK")
    t.alive(a, "after the transaction over budget")
    # Alone (an implicit transaction): fails, leaves nothing behind.
    st = t.state(ca, big, (1, 20000))
    t.check(st == "53200", f"the same INSERT alone: {st!r} (want '53200')")
    ca.execute("SELECT count(*) FROM wb")
    n = ca.fetchone()[0]
    t.check(n == 0, f"nothing of it was written ({n} rows)")
    # The same rows in smaller transactions commit.
    for lo in range(1, 20001, 2000):
        st = t.state(ca, big, (lo, lo + 1999))
        if st:
            break
    t.check(st == "", f"the rows in transactions of 2,000 commit: {st!r}")
    # An UPDATE of all of them at once buffers each new row.
    st = t.state(ca, "UPDATE wb SET pad = pad || 'y'")
    t.check(st == "53200", f"UPDATE of the 20,000 rows at once: {st!r} (want '53200')")
    # A recursive query whose work table doubles each iteration.
    runaway = ("WITH RECURSIVE r(n, s) AS (SELECT 1, repeat('x', 100) UNION ALL "
               "SELECT n + 1, s FROM r, (VALUES (1), (2)) v(x) WHERE n < %s) SELECT count(*) FROM r")
    st = t.state(ca, runaway, (40,))
    t.check(st == "53200", f"work_mem 64kB, a recursive query doubling its work table: {st!r} (want '53200')")
    t.alive(a, "after the recursive query over budget")
    # One iteration of 300,000 rows (the work table, before the CTE's result
    # holds any of them).
    st = t.state(ca, "WITH RECURSIVE r(n, s) AS (SELECT 1, repeat('x', 100) UNION ALL "
                     "SELECT n + 1, s FROM r, generate_series(1, 300000) WHERE n < 2) SELECT count(*) FROM r")
    t.check(st == "53200", f"work_mem 64kB, a recursive query's iteration of 300,000 rows: {st!r} (want '53200')")
    st = t.state(ca, runaway, (10,))
    got = ca.fetchone()[0] if st == "" else None
    t.check(got == 1023, f"the same query of 10 iterations: {st!r} {got}")
    ca.execute("RESET work_mem")
    st = t.state(ca, "UPDATE wb SET pad = pad || 'y'")
    t.check(st == "", f"the UPDATE with the default work_mem: {st!r}")
    st = t.state(ca, big, (20001, 40000))
    t.check(st == "", f"the big INSERT with the default work_mem: {st!r}")
    ca.execute("SELECT count(*), count(*) FILTER (WHERE pad LIKE '%y') FROM wb")
    n = ca.fetchone()
    t.check(n == (40000, 20000), f"and its rows are there ({n})")
    ca.execute("DROP TABLE wb")
    a.close()


def savepoint_budget(t):
    """ROLLBACK TO SAVEPOINT gives back the memory of the writes it undoes: a
    block that loops SAVEPOINT, an INSERT of 1,000 rows, ROLLBACK TO (about
    0.4 MB each, 30 MB over 80 rounds, new keys or the same) stays within the
    16 MB of work_mem 64kB, and what it keeps (RELEASE, nested savepoints)
    commits intact."""
    a = t.conn()
    ca = a.cursor()
    ca.execute("DROP TABLE IF EXISTS spb")
    ca.execute("CREATE TABLE spb (id int PRIMARY KEY, pad text)")
    ca.execute("CREATE INDEX spb_pad ON spb (pad)")
    ca.execute("SET work_mem = '64kB'")
    ins = "INSERT INTO spb SELECT g, repeat('x', 200) || g FROM generate_series(%s, %s) g"
    ca.execute("BEGIN")
    ca.execute(ins, (1, 100))  # kept: written before any savepoint

    def rounds(stmts):
        """80 rounds of SAVEPOINT, stmts(i), ROLLBACK TO: the first failure."""
        for i in range(80):
            for sql, args in [("SAVEPOINT s", None)] + stmts(i) + [("ROLLBACK TO SAVEPOINT s", None)]:
                st = t.state(ca, sql, args)
                if st:
                    t.state(ca, "ROLLBACK TO SAVEPOINT s")
                    return f"{st} at round {i}"
        return ""

    st = rounds(lambda i: [(ins, (1000 + 1000 * i, 1999 + 1000 * i)),
                           ("UPDATE spb SET pad = pad || 'u' WHERE id <= 100", None)])
    t.check(st == "", f"work_mem 64kB, 80 rounds of SAVEPOINT, 1,000 new rows, ROLLBACK TO: {st!r}")
    st = rounds(lambda i: [(ins, (101, 1100))])
    t.check(st == "", f"the same with the same 1,000 keys each round: {st!r}")
    # Nested: released inner writes go with the outer savepoint's rollback,
    # and a RELEASE keeps them.
    ca.execute("SAVEPOINT a")
    ca.execute(ins, (5001, 5100))
    ca.execute("SAVEPOINT b")
    ca.execute(ins, (5101, 5200))
    ca.execute("RELEASE SAVEPOINT b")
    ca.execute("ROLLBACK TO SAVEPOINT a")
    ca.execute("SAVEPOINT c")
    ca.execute(ins, (6001, 6050))
    ca.execute("UPDATE spb SET pad = 'kept' WHERE id = 7")
    ca.execute("SAVEPOINT d")
    ca.execute(ins, (7001, 7050))
    ca.execute("RELEASE SAVEPOINT c")
    st = t.state(ca, "COMMIT")
    t.check(st == "", f"the block commits: {st!r}")
    ca.execute("SELECT count(*), min(id), max(id), count(*) FILTER (WHERE pad = 'kept'), "
                "count(*) FILTER (WHERE pad LIKE '%u') FROM spb")
    got = ca.fetchone()
    t.check(got == (200, 1, 7050, 1, 0), f"it kept rows 1-100, 6001-6050, 7001-7050 and the update of 7: {got}")
    ca.execute("SELECT count(*) FROM spb WHERE pad > 'x'")
    got = ca.fetchone()[0]
    t.check(got == 199, f"the index agrees: {got}")
    # Cursors reading rows of a savepoint then rolled back to (PostgreSQL
    # drops such a cursor, 34000; Strata keeps it and the memory it reads).
    ca.execute("BEGIN")
    ca.execute("SAVEPOINT s")
    ca.execute(ins, (9001, 9300))
    ca.execute("UPDATE spb SET pad = pad || 'u' WHERE id <= 100")
    ca.execute("DECLARE c1 CURSOR FOR SELECT id, pad FROM spb WHERE id > 9000 ORDER BY pad")
    ca.execute("DECLARE c2 CURSOR FOR SELECT id, pad FROM spb")
    ca.execute("FETCH 10 FROM c1")
    ca.execute("FETCH 10 FROM c2")
    ca.execute("ROLLBACK TO SAVEPOINT s")
    for cur in ("c1", "c2"):
        st = t.state(ca, f"FETCH ALL FROM {cur}")
        rows = ca.fetchall() if st == "" else []
        t.check(st == "34000" or (st == "" and all(r[1].startswith("x") or r[1] == "kept" for r in rows)),
                f"cursor {cur} after ROLLBACK TO: {st!r}, {len(rows)} rows")
        if st:
            ca.execute("ROLLBACK TO SAVEPOINT s")
    ca.execute("ROLLBACK")
    ca.execute("RESET work_mem")
    ca.execute("DROP TABLE spb")
    a.close()


def max_connections(t):
    if t.pg:
        log("# limits: max_connections: Strata-only (pg_as_strata.sh takes no --max-connections)")
        return
    conns = []
    st = ""
    try:
        for _ in range(MAX_CONN + 2):
            conns.append(t.conn())
    except psycopg2.OperationalError as e:
        st = str(e)
    t.check(len(conns) == MAX_CONN and "too many clients" in st,
            f"max_connections {MAX_CONN}: {len(conns)} sessions, then {st.strip()[:70]!r}")
    try:
        raw = socket.create_connection((t.srv.host, t.srv.port), timeout=10)
        body = struct.pack("!I", 196608) + b"user\0postgres\0\0"
        raw.sendall(struct.pack("!I", len(body) + 4) + body)
        got = read_until_closed(raw, 10) or b""
        raw.close()
        t.check(b"53300" in got, "the refusal is FATAL 53300")
    except OSError as e:
        t.check(False, f"raw connection: {e}")
    conns.pop().close()
    # The slot is free once the server has seen the close (up to 60 s).
    err = None
    for _ in range(300):
        try:
            conns.append(t.conn())
            err = None
            break
        except psycopg2.OperationalError as e:
            err = e
            if "too many clients" not in str(e):
                break
            time.sleep(0.2)
    t.check(err is None, f"a freed slot can be used again: {err}")
    for c in conns:
        c.close()


def message_size(t):
    s, _, _ = raw_login(t.srv)
    t0 = time.monotonic()
    s.sendall(b"Q" + struct.pack("!I", 0x40000000 + 4) + b"SELECT 1")
    got = read_until_closed(s, 10)
    t.check(got is not None and time.monotonic() - t0 < 5,
            f"a message announced past the maximum (1 GiB) ends the connection at once "
            f"({'timeout' if got is None else repr(got[:1])})")
    s.close()
    rss0 = server_rss_kb(t.srv)
    socks = []
    for _ in range(4):
        s, _, _ = raw_login(t.srv)
        s.sendall(b"Q" + struct.pack("!I", 0x3FFFFFFF) + b"SELECT '" + b"x" * 65536)
        socks.append(s)
    time.sleep(1.0)
    rss1 = server_rss_kb(t.srv)
    if rss0 and rss1:
        t.check(rss1 - rss0 < 128 * 1024, f"four sessions announcing 1 GiB messages: RSS {rss0 // 1024} -> "
                f"{rss1 // 1024} MB (buffers grow only as bytes arrive)")
    for s in socks:
        s.close()
    c = t.conn()
    t.alive(c, "after the big announcements")
    c.close()


def expected_block_cache():
    """What block_cache_mb = 0 should give: an eighth of the memory the server
    may use (physical memory, or a lower cgroup limit), at least 256 MB."""
    mem = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                v = f.read().strip()
        except OSError:
            continue
        if v.isdigit() and 0 < int(v) < mem:
            mem = int(v)
    return max(mem // 8, 256 << 20)


def block_cache(t):
    if t.pg:
        return log("# limits: block_cache: Strata only")
    c = t.conn()
    try:
        with c.cursor() as cur:
            cur.execute("SELECT capacity_bytes FROM strata_cache")
            got, want = cur.fetchone()[0], expected_block_cache()
        t.check(got == want, f"the default block cache is an eighth of memory, at least 256 MB: {got} (want {want})")
    finally:
        c.close()


def cancel(t):
    c = t.conn()
    cur = c.cursor()
    res = {}

    def run():
        t0 = time.monotonic()
        res["st"] = t.state(cur, "SELECT pg_sleep(30)")
        res["secs"] = time.monotonic() - t0

    pid = c.get_backend_pid()
    th = threading.Thread(target=run)
    th.start()
    t.wait_active(pid)
    c.cancel()
    th.join(timeout=40)
    t.check(res.get("st") == "57014" and res.get("secs", 99) < 10,
            f"query cancel: {res.get('st')!r} after {res.get('secs', 0):.1f} s")
    t.alive(c, "after a cancel")

    def run2():
        t0 = time.monotonic()
        res["st2"] = t.state(cur, "SELECT count(*) FROM generate_series(1, 100000000000)")
        res["secs2"] = time.monotonic() - t0

    th = threading.Thread(target=run2)
    th.start()
    t.wait_active(pid)
    c.cancel()
    th.join(timeout=40)
    t.check(res.get("st2") == "57014", f"cancel of a CPU-bound query: {res.get('st2')!r}")
    # a CancelRequest with the wrong key cancels nothing
    s, pid, key = raw_login(t.srv)
    q = b"SELECT pg_sleep(1.5)\0"
    s.sendall(b"Q" + struct.pack("!I", 4 + len(q)) + q)
    time.sleep(0.3)
    k = socket.create_connection((t.srv.host, t.srv.port), timeout=10)
    k.sendall(struct.pack("!IIii", 16, (1234 << 16) | 5678, pid, key ^ 0x5A5A5A5A))
    k.close()
    got = read_until_closed_or(s, b"Z\0\0\0\x05", 10)
    t.check(got is not None and b"57014" not in got and b"C\0\0\0" in got,
            "a CancelRequest with the wrong key cancels nothing")
    s.close()
    c.close()


def read_until_closed_or(s, marker, timeout):
    s.settimeout(timeout)
    out = b""
    try:
        while marker not in out:
            d = s.recv(65536)
            if not d:
                return out
            out += d
        return out
    except socket.timeout:
        return None


CASES = [statement_timeout, lock_timeout, idle_in_transaction, idle_session, work_mem, memory_budget,
         savepoint_budget, max_connections, message_size, cancel, block_cache]


def main(argv):
    only = [a for a in argv if not a.startswith("-")]
    srv = StrataServer("limits", args=["--max-connections", str(MAX_CONN)])
    pg = "pg_as_strata" in os.environ.get("STRATA_BIN", "")
    if pg:
        srv.args = []
    try:
        srv.start()
    except NoServerInTree as e:
        log(f"# limits: {e}")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    except FixtureError as e:
        log(f"FAIL {e}")
        print("0 passed, 1 failed")
        return 1
    t = T(srv, pg)
    for _ in range(100):  # PostgreSQL accepts TCP before sessions
        try:
            t.conn().close()
            break
        except psycopg2.OperationalError:
            time.sleep(0.1)
    t0 = time.monotonic()
    for case in CASES:
        if only and case.__name__ not in only:
            continue
        try:
            case(t)
        except (psycopg2.Error, OSError) as e:
            t.check(False, f"{case.__name__}: {type(e).__name__} {str(e).strip()[:200]}")
    log(f"# limits: {t.passed + t.failed} checks in {time.monotonic() - t0:.0f} s")
    if t.failed:
        srv.mark_failed()
    if not srv.stop():
        t.check(False, "the server stopped cleanly")
    print(f"{t.passed} passed, {t.failed} failed")
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
