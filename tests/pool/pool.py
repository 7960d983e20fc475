#!/usr/bin/python3
"""pool.py — sessions served by the worker pool (wire/pool.c, docs/wire.md "Threads").

Between messages a session waits in an epoll set and costs no thread; a few
workers run the sessions' messages. A worker that blocks or runs long must not
starve the sessions queued behind it. The server runs with --worker-threads 1
(one group, one worker: the strictest case) unless a check says otherwise.
Every check is about liveness or correctness, never speed: a session that
could starve would wait until the blocker ends, and the blocker here ends only
after the others are done (or after a generous timeout, which fails the check).
  - a lock wait (UPDATE behind an open transaction) while others query;
  - pg_sleep in 16 sessions at once: they sleep side by side;
  - a long CPU-bound query while another session runs 50 queries, then
    cancels it (57014);
  - COPY FROM STDIN from a client that sends slowly while others query;
  - 120 sessions open at once, queried in turn: right answers, and the
    server has far fewer threads than sessions;
  - idle_session_timeout and idle_in_transaction_session_timeout end pooled
    sessions (57P05, 25P03) and the others go on;
  - pg_terminate_backend of an idle pooled session (57P01 on its next use);
  - shutdown with idle pooled sessions: FATAL 57P01 or a closed connection,
    clean exit (no sanitizer report);
  - replies held to be sent in a batch (wire/pool.c send_replies) are not
    held up by a long step that follows them on the same worker;
  - replies to a client that does not read fill its socket: a held reply
    goes out in part and the rest once the client reads, others are served
    meanwhile; pipelined queries get every answer;
  - --worker-threads -1 (a thread per connection) and the default (one per
    core) serve the same workload.
Prints "N passed, N failed".
"""
import io
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import psycopg2  # noqa: E402
import psycopg2.errors  # noqa: E402
from strata_fixture import StrataServer  # noqa: E402

LIVENESS_S = 60  # far beyond any real need: only a starved session reaches it

passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def connect(srv, autocommit=True):
    c = psycopg2.connect(srv.dsn)
    c.autocommit = autocommit
    return c


def run_queries(srv, n, out, key):
    """n point queries on a fresh session; out[key] = number right."""
    try:
        c = connect(srv)
        cur = c.cursor()
        good = 0
        for i in range(n):
            cur.execute("SELECT v FROM kv WHERE k = %s", (i % 100,))
            row = cur.fetchone()
            if row and row[0] == (i % 100) * 10:
                good += 1
        c.close()
        out[key] = good
    except Exception as e:  # reported by the caller's check
        out[key] = repr(e)


def setup(srv):
    c = connect(srv)
    cur = c.cursor()
    cur.execute("DROP TABLE IF EXISTS kv")
    cur.execute("CREATE TABLE kv (k int PRIMARY KEY, v int)")
    cur.execute("INSERT INTO kv SELECT g, g * 10 FROM generate_series(0, 99) g")
    c.close()


def others_while(srv, blocker_release, nsessions=4, nqueries=50):
    """Runs nsessions x nqueries queries in threads; once all are done (or
    after LIVENESS_S) calls blocker_release(). Returns (all right, details)."""
    out = {}
    ts = [threading.Thread(target=run_queries, args=(srv, nqueries, out, i)) for i in range(nsessions)]
    for t in ts:
        t.start()
    deadline = time.monotonic() + LIVENESS_S
    for t in ts:
        t.join(max(0.0, deadline - time.monotonic()))
    done = not any(t.is_alive() for t in ts)
    blocker_release()
    for t in ts:
        t.join()
    ok = done and all(out.get(i) == nqueries for i in range(nsessions))
    return ok, out


def test_lock_wait(srv):
    holder = connect(srv, autocommit=False)
    holder.cursor().execute("UPDATE kv SET v = v WHERE k = 1")
    waiter_result = {}

    def waiter():
        try:
            c = connect(srv)
            c.cursor().execute("UPDATE kv SET v = 10 WHERE k = 1")
            waiter_result["ok"] = True
            c.close()
        except Exception as e:
            waiter_result["ok"] = repr(e)

    wt = threading.Thread(target=waiter)
    wt.start()
    time.sleep(0.3)  # let it block on the row lock
    ok, out = others_while(srv, holder.commit)
    wt.join(LIVENESS_S)
    holder.close()
    check(ok, f"lock wait: 4 other sessions ran 50 queries each meanwhile ({out})")
    check(waiter_result.get("ok") is True, f"lock wait: the waiter went on after the commit ({waiter_result})")


def test_sleep(srv):
    n = 16
    res = {}

    def sleeper(i):
        try:
            c = connect(srv)
            cur = c.cursor()
            cur.execute("SELECT pg_sleep(2), %s", (i,))
            res[i] = cur.fetchone()[1] == i
            c.close()
        except Exception as e:
            res[i] = repr(e)

    t0 = time.monotonic()
    ts = [threading.Thread(target=sleeper, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(LIVENESS_S)
    took = time.monotonic() - t0
    check(all(res.get(i) is True for i in range(n)), f"pg_sleep: {n} sessions slept and answered")
    # One after another would take 32 s; side by side ~2 s (+ asan, load).
    check(took < n * 2 / 2, f"pg_sleep: the {n} sleeps overlapped ({took:.1f} s for {n} x 2 s)")


def test_long_query(srv):
    long_c = connect(srv)
    pid_cur = long_c.cursor()
    pid_cur.execute("SELECT pg_backend_pid()")
    pid = pid_cur.fetchone()[0]
    res = {}

    def long_query():
        try:
            long_c.cursor().execute("SELECT count(*) FROM generate_series(1, 10000000000)")
            res["r"] = "finished"
        except psycopg2.errors.QueryCanceled:
            res["r"] = "57014"
        except Exception as e:
            res["r"] = repr(e)

    lt = threading.Thread(target=long_query)
    lt.start()
    time.sleep(0.5)

    def cancel():
        c = connect(srv)
        c.cursor().execute("SELECT pg_cancel_backend(%s)", (pid,))
        c.close()

    ok, out = others_while(srv, cancel, nsessions=2)
    lt.join(LIVENESS_S)
    check(ok, f"long query: 2 other sessions ran 50 queries each meanwhile ({out})")
    check(res.get("r") == "57014", f"long query: cancelled afterwards with 57014 ({res})")
    long_c.close()


class SlowReader(io.RawIOBase):
    """A COPY source that hands out one line per read, with a pause."""

    def __init__(self, rows, pause, stop_event):
        self.lines = [f"{1000 + i}\t{i}\n".encode() for i in range(rows)]
        self.pause = pause
        self.stop_event = stop_event

    def readable(self):
        return True

    def read(self, size=-1):
        if not self.lines:
            return b""
        if not self.stop_event.is_set():
            time.sleep(self.pause)
        return self.lines.pop(0)

    def readinto(self, b):
        d = self.read(len(b))
        b[: len(d)] = d
        return len(d)


def test_slow_copy(srv):
    stop = threading.Event()
    res = {}

    def copier():
        try:
            c = connect(srv)
            cur = c.cursor()
            cur.copy_expert("COPY kv FROM STDIN", SlowReader(200, 0.05, stop), size=16)
            cur.execute("SELECT count(*) FROM kv WHERE k >= 1000")
            res["n"] = cur.fetchone()[0]
            c.close()
        except Exception as e:
            res["n"] = repr(e)

    ct = threading.Thread(target=copier)
    ct.start()
    time.sleep(0.3)
    ok, out = others_while(srv, stop.set)
    ct.join(LIVENESS_S)
    check(ok, f"slow COPY FROM STDIN: 4 other sessions ran 50 queries each meanwhile ({out})")
    check(res.get("n") == 200, f"slow COPY FROM STDIN: all 200 rows in ({res})")
    c = connect(srv)
    c.cursor().execute("DELETE FROM kv WHERE k >= 1000")
    c.close()


def thread_count(srv):
    return len(os.listdir(f"/proc/{srv.proc.pid}/task"))


def test_many_sessions(srv, n=120):
    conns = [connect(srv) for _ in range(n)]
    bad = 0
    for rnd in range(3):
        for i, c in enumerate(conns):
            cur = c.cursor()
            cur.execute("SELECT v FROM kv WHERE k = %s", ((i + rnd) % 100,))
            if cur.fetchone()[0] != ((i + rnd) % 100) * 10:
                bad += 1
    threads = thread_count(srv)
    for c in conns:
        c.close()
    check(bad == 0, f"{n} open sessions queried in turn: every answer right")
    # A thread per session would be > n; the pool needs its workers, the
    # store's background threads and a few more.
    check(threads < n // 2, f"{n} open sessions: the server has {threads} threads")


def test_idle_timeouts(srv):
    a = connect(srv)
    a.cursor().execute("SET idle_session_timeout = '300ms'")
    b = connect(srv, autocommit=False)
    b.cursor().execute("SET idle_in_transaction_session_timeout = '300ms'")
    b.cursor().execute("SELECT 1")  # now idle in a transaction
    ok, out = others_while(srv, lambda: None, nsessions=2, nqueries=20)
    time.sleep(1.0)
    codes = []
    for c in (a, b):
        try:
            c.cursor().execute("SELECT 1")
            codes.append("none")
        except psycopg2.Error as e:
            codes.append(e.pgcode or "closed")
    check(ok, f"idle timeouts: others ran meanwhile ({out})")
    # The client reads the FATAL only on its next use; libpq may just see
    # the closed connection.
    check(codes[0] in ("57P05", "closed"), f"idle_session_timeout ended the idle session ({codes[0]})")
    check(codes[1] in ("25P03", "closed"),
          f"idle_in_transaction_session_timeout ended the session ({codes[1]})")


def test_terminate(srv):
    victim = connect(srv)
    cur = victim.cursor()
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    c = connect(srv)
    cur2 = c.cursor()
    cur2.execute("SELECT pg_terminate_backend(%s)", (pid,))
    ok = cur2.fetchone()[0] is True
    time.sleep(0.3)
    try:
        victim.cursor().execute("SELECT 1")
        code = "none"
    except psycopg2.Error as e:
        code = e.pgcode or "closed"
    cur2.execute("SELECT count(*) FROM kv")
    check(ok and code in ("57P01", "closed") and cur2.fetchone()[0] == 100,
          f"pg_terminate_backend of an idle pooled session ({code}); the others go on")
    c.close()


def test_shutdown(srv):
    idle = [connect(srv) for _ in range(8)]
    in_txn = connect(srv, autocommit=False)
    in_txn.cursor().execute("SELECT 1")
    clean = srv.stop()
    codes = []
    for c in idle + [in_txn]:
        try:
            c.cursor().execute("SELECT 1")
            codes.append("none")
        except psycopg2.Error as e:
            codes.append(e.pgcode or "closed")
    check(clean, "shutdown with 9 idle pooled sessions: clean exit, no sanitizer report")
    check(all(x in ("57P01", "closed") for x in codes), f"shutdown: every session ended ({set(codes)})")


class Raw:
    """A protocol-level session: sends and reads exactly when told."""

    def __init__(self, srv, rcvbuf=None):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(LIVENESS_S)
        self.s.connect((srv.host, srv.port))
        self.buf = b""
        body = struct.pack("!I", 196608) + b"user\0postgres\0database\0postgres\0\0"
        self.s.sendall(struct.pack("!I", len(body) + 4) + body)
        self.until_ready()

    def msg(self):
        while len(self.buf) < 5 or len(self.buf) < 1 + struct.unpack("!I", self.buf[1:5])[0]:
            d = self.s.recv(65536)
            if not d:
                raise OSError("connection closed")
            self.buf += d
        n = 1 + struct.unpack("!I", self.buf[1:5])[0]
        m, self.buf = self.buf[:n], self.buf[n:]
        return m[:1], m[5:]

    def until_ready(self):
        """The messages up to and including ReadyForQuery."""
        out = []
        while True:
            t, body = self.msg()
            out.append((t, body))
            if t == b"Z":
                return out

    @staticmethod
    def query_bytes(sql):
        b = sql.encode() + b"\0"
        return b"Q" + struct.pack("!I", len(b) + 4) + b

    def send(self, *sqls):
        self.s.sendall(b"".join(self.query_bytes(q) for q in sqls))

    def close(self):
        self.s.close()


def rows(msgs):
    return [body for t, body in msgs if t == b"D"]


def test_held_reply_long_step(srv):
    """With one worker, three short queries and a CPU-bound one arrive
    together: the short ones' replies are held for a batch (4 sessions
    ready) when the worker takes the long one; they must still arrive within
    milliseconds, not after the long query (the monitor sends the replies
    of a worker stuck in a step)."""
    worst = 0.0
    bad = []
    for rnd in range(5):
        shorts = [Raw(srv) for _ in range(3)]
        b = Raw(srv)
        b.send("SET statement_timeout = '1500ms'")
        b.until_ready()
        t0 = time.monotonic()
        for i, a in enumerate(shorts):
            a.send(f"SELECT {rnd * 10 + i}")
        b.send("SELECT count(*) FROM generate_series(1, 10000000000)")
        for i, a in enumerate(shorts):
            got = [r[6:] for r in rows(a.until_ready())]
            worst = max(worst, time.monotonic() - t0)
            if got != [str(rnd * 10 + i).encode()]:
                bad.append(got)
        codes = [body for t, body in b.until_ready() if t == b"E"]
        if not codes or b"C57014" not in codes[0]:
            bad.append(codes)
        for a in shorts + [b]:
            a.close()
    check(not bad and worst < 0.5,
          f"replies held for a batch are not held up by the long query after them (worst {worst:.3f} s, {bad})")


def test_unread_reply(srv):
    """4 clients with 4 kB receive buffers send 100 rounds of queries with
    ~55 kB results, together, and read nothing until the end: the replies
    (held for a batch: 4 sessions ready) fill the server's socket buffers, a
    send goes out in part, the rest waits for writability and then a
    blocking flush; no worker may block meanwhile, and every row must
    arrive in order."""
    q = "SELECT repeat('x', 100) || g FROM generate_series(1, 500) g"
    want = [f"{'x' * 100}{g}".encode() for g in range(1, 501)]
    clients = [Raw(srv, rcvbuf=4096) for _ in range(4)]
    for _ in range(100):
        for a in clients:
            a.send(q)
        time.sleep(0.01)
    ok, out = others_while(srv, lambda: None, nsessions=2, nqueries=30)
    time.sleep(0.5)
    good = sum([r[6:] for r in rows(a.until_ready())] == want for a in clients for _ in range(100))
    check(ok, f"unread replies: 2 other sessions ran 30 queries each meanwhile ({out})")
    check(good == 400, f"unread replies: all 4 x 100 x 500 rows arrived in order ({good} of 400 right)")
    a = clients[0]
    a.send("SELECT 'a'", "SELECT 'b'", "SELECT 'c'")
    got = [[r[6:] for r in rows(a.until_ready())] for _ in range(3)]
    check(got == [[b"a"], [b"b"], [b"c"]], f"pipelined queries after them: every answer ({got})")
    for a in clients:
        a.close()


def test_client_gone(srv):
    """Rounds of 6 clients that send pg_sleep(0.1) together and reset their
    connections at once (SO_LINGER 0): the replies, held for a batch, fail
    to send; the sessions must end and the server go on."""
    c = connect(srv)
    cur = c.cursor()
    cur.execute("SELECT count(*) FROM pg_stat_activity")
    base = cur.fetchone()[0]
    for rnd in range(4):
        gone = [Raw(srv) for _ in range(6)]
        for i, a in enumerate(gone):
            a.send(f"SELECT pg_sleep(0.1), {rnd * 10 + i}")
        for a in gone:
            a.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            a.close()
        time.sleep(0.3)
    n = None
    for _ in range(100):
        cur.execute("SELECT count(*) FROM pg_stat_activity")
        n = cur.fetchone()[0]
        if n == base:
            break
        time.sleep(0.1)
    cur.execute("SELECT count(*) FROM kv")
    check(n == base and cur.fetchone()[0] == 100,
          f"24 clients gone before their replies: sessions ended ({n} left, {base} before), server goes on")
    c.close()


def workload(srv, label):
    setup(srv)
    out = {}
    ts = [threading.Thread(target=run_queries, args=(srv, 100, out, i)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(LIVENESS_S)
    check(all(out.get(i) == 100 for i in range(8)), f"{label}: 8 sessions x 100 queries right ({out})")


def main():
    srv = StrataServer("pool", args=["--worker-threads", "1"])
    srv.start()
    try:
        setup(srv)
        test_lock_wait(srv)
        test_sleep(srv)
        test_long_query(srv)
        test_slow_copy(srv)
        test_many_sessions(srv)
        test_held_reply_long_step(srv)
        test_unread_reply(srv)
        test_client_gone(srv)
        test_idle_timeouts(srv)
        test_terminate(srv)
        test_shutdown(srv)
    except Exception as e:
        srv.mark_failed()
        check(False, f"unexpected {e!r}")
    finally:
        if srv.proc is not None:
            srv.stop()

    for args, label in ((["--worker-threads", "-1"], "a thread per connection"),
                        ([], "default pool (one worker per core)")):
        s = StrataServer("pool", args=args)
        s.start()
        try:
            workload(s, label)
        except Exception as e:
            s.mark_failed()
            check(False, f"{label}: unexpected {e!r}")
        finally:
            check(s.stop(), f"{label}: clean exit")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
