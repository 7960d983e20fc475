#!/usr/bin/python3
"""crash_test.py — secondary indexes across crashes.

1. Fault points: a server started with STRATA_TEST_FAULTS=1 exits (as if
   killed) between the index write and the data write of a split-protocol
   commit (strata.index_fault = after_index), or between the data write and
   the verification step (after_data), in an update that moves every
   indexed column and in one that changes only k_part's INCLUDE column.
   After a restart every index query
   equals the full-scan answer and strata_verify_index() finds no missing
   and no mismatched entry; later writes keep it so.
2. SIGKILL during a write workload with several indexes (both write
   modes, several client threads), repeated: the same checks after each
   restart.
3. SIGKILL during CREATE INDEX CONCURRENTLY (resumed at restart) and during
   a transactional CREATE INDEX (the bulk build: nothing of it survives,
   the table is unchanged and building again gives an exact index).

usage: tests/index/crash_test.py [--cycles N] [--seed N]. Last line:
"N passed, N failed".
"""
import argparse
import itertools
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import psycopg2  # noqa: E402
from strata_fixture import strata_bin, free_port, accepts, SANITIZER_RE  # noqa: E402

INDEXES = {
    "k_a": "CREATE INDEX k_a ON k (a)",
    "k_bc": "CREATE INDEX k_bc ON k (b DESC, c)",
    "k_c": "CREATE UNIQUE INDEX k_c ON k (c)",
    "k_lower": "CREATE INDEX k_lower ON k (lower(b))",
    "k_part": "CREATE INDEX k_part ON k (a) INCLUDE (b) WHERE a > 10",
}
WORDS = ["x", "xy", "y", "Y", "yz", "z"]


class Server:
    def __init__(self, datadir, logdir):
        self.datadir = datadir
        self.logdir = logdir
        self.proc = None
        self.port = None
        self.logs = []

    def start(self, faults=False):
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
        if faults:
            env["STRATA_TEST_FAULTS"] = "1"
        self.port = free_port()
        log = os.path.join(self.logdir, f"server-{len(self.logs)}.log")
        self.logs.append(log)
        with open(log, "wb") as f:
            self.proc = subprocess.Popen([strata_bin(), "--listen", "127.0.0.1", "--port", str(self.port),
                                          "--data-dir", self.datadir], stdout=f, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited at start (log {log})")
            if accepts("127.0.0.1", self.port):
                return
            time.sleep(0.05)
        raise RuntimeError("server did not start")

    def dsn(self):
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait()
        self.proc = None

    def wait_exit(self, timeout=30):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return False
        self.proc = None
        return True

    def stop(self):
        if not self.proc:
            return True
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return False
        self.proc = None
        return rc == 0

    def sanitizer_clean(self):
        for log in self.logs:
            with open(log, errors="replace") as f:
                if SANITIZER_RE.search(f.read()):
                    return False
        return True


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"# FAIL {name}: {detail}")


QUERIES = [
    ("SELECT id FROM k WHERE a = %s", lambda r: (r.randrange(0, 20),)),
    ("SELECT id, a FROM k WHERE a > %s AND a < %s", lambda r: (r.randrange(0, 10), r.randrange(10, 20))),
    ("SELECT id FROM k WHERE b = %s AND c > %s", lambda r: (r.choice(WORDS), r.randrange(0, 5000))),
    ("SELECT id, c FROM k WHERE c BETWEEN %s AND %s", lambda r: (r.randrange(0, 5000), r.randrange(5000, 10000))),
    ("SELECT id FROM k WHERE lower(b) = %s", lambda r: (r.choice(WORDS).lower(),)),
    ("SELECT id, b FROM k WHERE a = %s AND a > 10", lambda r: (r.randrange(10, 20),)),
    ("SELECT min(c), max(c) FROM k", lambda r: ()),
    ("SELECT id FROM k WHERE a IS NULL", lambda r: ()),
]


def verify(dsn, ck, label, rng):
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    for name in INDEXES:
        del conn.notices[:]
        cur.execute("SELECT missing, stale, mismatched FROM strata_verify_index(%s)", (name,))
        m, s, x = cur.fetchone()
        # The server's notices name each problem's key, row, reason and timestamps.
        ck.check(f"{label}: {name} has no missing or mismatched entry", m == 0 and x == 0,
                 f"missing {m}, stale {s}, mismatched {x}; " + " | ".join(n.strip() for n in conn.notices[:6]))
    for _ in range(3):
        for sql, args in QUERIES:
            a = args(rng)
            cur.execute("SET enable_indexscan = on")
            cur.execute(sql, a)
            got = sorted(cur.fetchall(), key=repr)
            cur.execute("SET enable_indexscan = off")
            cur.execute(sql, a)
            want = sorted(cur.fetchall(), key=repr)
            ck.check(f"{label}: {cur.mogrify(sql, a).decode()}", got == want, f"{got[:6]} vs {want[:6]}")
    conn.close()


def setup(dsn, rng, nrows):
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE TABLE k (id int PRIMARY KEY, a int, b text, c int)")
    for ddl in INDEXES.values():
        cur.execute(ddl)
    for i in range(nrows):
        cur.execute("INSERT INTO k VALUES (%s, %s, %s, %s)",
                    (i, rng.choice([None] + list(range(20))), rng.choice(WORDS), i * 3))
    conn.close()


# The statements the fault points interrupt: one moves every indexed column
# (old entries, new entries); one keeps k_part's key (a) and changes only its
# INCLUDE column b, so the interrupted commit leaves the row's one entry key
# with a payload the row never got.
FAULT_UPDATES = [
    ("moves", "UPDATE k SET a = a + 1, b = upper(b), c = c + 1 WHERE id < 50"),
    ("payload", "UPDATE k SET b = b || 'q' WHERE id < 50"),
]


def fault_points(tmp, ck, rng):
    for point, (what, update) in itertools.product(("after_index", "after_data"), FAULT_UPDATES):
        fault = f"{point}/{what}"
        data = os.path.join(tmp, f"fault-{point}-{what}")
        srv = Server(data, tmp)
        srv.start(faults=True)
        setup(srv.dsn(), rng, 200)
        conn = psycopg2.connect(srv.dsn())
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("SET strata.index_write_mode = 'split'")
        cur.execute(f"SET strata.index_fault = '{point}'")
        crashed = False
        try:
            cur.execute(update)
        except psycopg2.OperationalError:
            crashed = True
        conn.close()
        srv.wait_exit()
        ck.check(f"{fault}: the server stopped at the fault point", crashed)
        srv.start()
        verify(srv.dsn(), ck, f"{fault}, after restart", rng)
        # The rows are writable again and the indexes stay exact.
        conn = psycopg2.connect(srv.dsn())
        conn.autocommit = True
        cur = conn.cursor()
        for mode in ("split", "atomic"):
            cur.execute(f"SET strata.index_write_mode = '{mode}'")
            cur.execute("UPDATE k SET a = a + 2, c = c + 100000 WHERE id < 60")
            cur.execute("DELETE FROM k WHERE id % 7 = 0 AND id < 60")
        conn.close()
        verify(srv.dsn(), ck, f"{fault}, after more writes", rng)
        ck.check(f"{fault}: clean shutdown", srv.stop())
        ck.check(f"{fault}: no sanitizer report", srv.sanitizer_clean())


def workload(dsn, seed, stop, errors):
    rng = random.Random(seed)
    try:
        conn = psycopg2.connect(dsn)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("SET strata.index_write_mode = %s", ("split" if seed % 2 else "atomic",))
        while not stop.is_set():
            i = rng.randrange(0, 400)
            op = rng.random()
            try:
                if op < 0.3:
                    cur.execute("INSERT INTO k VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                                (i, rng.randrange(0, 20), rng.choice(WORDS), rng.randrange(0, 1000000)))
                elif op < 0.5:
                    cur.execute("UPDATE k SET a = %s, b = %s WHERE id = %s",
                                (rng.choice([None, rng.randrange(0, 20)]), rng.choice(WORDS), i))
                elif op < 0.7:
                    cur.execute("UPDATE k SET c = %s WHERE id = %s", (rng.randrange(0, 1000000), i))
                elif op < 0.8:
                    cur.execute("DELETE FROM k WHERE id = %s", (i,))
                else:
                    cur.execute("BEGIN")
                    for _ in range(5):
                        j = rng.randrange(0, 400)
                        cur.execute("UPDATE k SET a = %s, c = %s WHERE id = %s",
                                    (rng.randrange(0, 20), rng.randrange(0, 1000000), j))
                    cur.execute("COMMIT")
            except (psycopg2.errors.UniqueViolation, psycopg2.errors.SerializationFailure,
                    psycopg2.errors.DeadlockDetected):
                cur.execute("ROLLBACK")
    except psycopg2.OperationalError:
        pass  # the server was killed
    except Exception as e:  # noqa: BLE001
        errors.append(repr(e))


def sigkill_cycles(tmp, ck, rng, cycles):
    data = os.path.join(tmp, "kill")
    srv = Server(data, tmp)
    srv.start()
    setup(srv.dsn(), rng, 300)
    for cyc in range(cycles):
        stop = threading.Event()
        errors = []
        threads = [threading.Thread(target=workload, args=(srv.dsn(), rng.randrange(1 << 30), stop, errors))
                   for _ in range(3)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.5, 2.5))
        srv.kill()
        stop.set()
        for t in threads:
            t.join()
        ck.check(f"cycle {cyc}: workload errors", not errors, "; ".join(errors[:3]))
        srv.start()
        verify(srv.dsn(), ck, f"cycle {cyc}", rng)
    ck.check("kill cycles: clean shutdown", srv.stop())
    ck.check("kill cycles: no sanitizer report", srv.sanitizer_clean())


def interrupted_build(tmp, ck):
    """SIGKILL during CREATE INDEX CONCURRENTLY: at restart the build resumes
    in the background from its saved position and the index becomes public
    and exact."""
    srv = Server(os.path.join(tmp, "build"), tmp)
    srv.start()
    conn = psycopg2.connect(srv.dsn())
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE TABLE bb (id int PRIMARY KEY, a int, b text)")
    cur.execute("INSERT INTO bb SELECT i, i % 500, 'v' || i FROM generate_series(1, 150000) i")
    conn.close()
    done = threading.Event()

    def build():
        try:
            c = psycopg2.connect(srv.dsn())
            c.autocommit = True
            c.cursor().execute("CREATE INDEX CONCURRENTLY bb_ab ON bb (a, b)")
        except psycopg2.Error:
            pass
        done.set()
    t = threading.Thread(target=build)
    t.start()
    # Kill once the build has made progress.
    watch = psycopg2.connect(srv.dsn())
    watch.autocommit = True
    wc = watch.cursor()
    deadline = time.monotonic() + 60
    progressed = False
    while time.monotonic() < deadline and not done.is_set():
        wc.execute("SELECT tuples_done FROM pg_stat_progress_create_index")
        r = wc.fetchall()
        if r and r[0][0] > 0:
            progressed = True
            break
        time.sleep(0.005)
    srv.kill()
    t.join()
    ck.check("the build was killed in the middle", progressed, "it finished first")
    srv.start()
    conn = psycopg2.connect(srv.dsn())
    conn.autocommit = True
    cur = conn.cursor()
    used = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        cur.execute("EXPLAIN SELECT id FROM bb WHERE a = 7 AND b = 'v7'")
        if any("bb_ab" in r[0] for r in cur.fetchall()):
            used = True
            break
        time.sleep(0.2)
    ck.check("the interrupted build was resumed at start and made public", used)
    cur.execute("SELECT rows, entries, missing, stale, mismatched FROM strata_verify_index('bb_ab')")
    rows, entries, m, s, x = cur.fetchone()
    ck.check("the resumed index is exact", (m, s, x) == (0, 0, 0) and rows == entries == 150000,
             f"rows {rows} entries {entries} missing {m} stale {s} mismatched {x}")
    conn.close()
    ck.check("resumed build: clean shutdown", srv.stop())
    ck.check("resumed build: no sanitizer report", srv.sanitizer_clean())


def interrupted_bulk_build(tmp, ck):
    """SIGKILL during a transactional CREATE INDEX (the bulk build's two
    reader threads, in-memory sort and ingest): after restart the index
    does not exist, the table is intact, and building it again gives an
    exact index whose answers equal full scans."""
    srv = Server(os.path.join(tmp, "bulk"), tmp)
    srv.start()
    conn = psycopg2.connect(srv.dsn())
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE TABLE bk (id int PRIMARY KEY, a int, b text)")
    cur.execute("INSERT INTO bk SELECT i, i % 701, 'w' || (i % 37) FROM generate_series(1, 200000) i")
    cur.execute("CHECKPOINT")  # rows in sorted files: the build splits them between two threads
    conn.close()
    done = threading.Event()
    outcome = []

    def build():
        try:
            c = psycopg2.connect(srv.dsn())
            c.autocommit = True
            c.cursor().execute("CREATE INDEX bk_ab ON bk (a, b)")
            outcome.append("finished")
        except psycopg2.Error:
            outcome.append("killed")
        done.set()
    t = threading.Thread(target=build)
    t.start()
    watch = psycopg2.connect(srv.dsn())
    watch.autocommit = True
    wc = watch.cursor()
    deadline = time.monotonic() + 60
    progressed = False
    while time.monotonic() < deadline and not done.is_set():
        wc.execute("SELECT tuples_done FROM pg_stat_progress_create_index")
        r = wc.fetchall()
        if r and r[0][0] > 0:
            progressed = True
            break
        time.sleep(0.002)
    srv.kill()
    t.join()
    ck.check("the bulk build was killed in the middle", progressed and outcome == ["killed"],
             f"progress seen {progressed}, build {outcome}")
    srv.start()
    conn = psycopg2.connect(srv.dsn())
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT count(*) FROM pg_indexes WHERE indexname = 'bk_ab'")
    ck.check("the killed transactional build left no index", cur.fetchone()[0] == 0)
    cur.execute("SELECT count(*), sum(a), count(DISTINCT b) FROM bk")
    ck.check("the table is intact", cur.fetchone() == (200000, sum(i % 701 for i in range(1, 200001)), 37))
    cur.execute("CREATE INDEX bk_ab ON bk (a, b)")
    cur.execute("SELECT rows, entries, missing, stale, mismatched FROM strata_verify_index('bk_ab')")
    rows, entries, m, s, x = cur.fetchone()
    ck.check("the rebuilt index is exact", (m, s, x) == (0, 0, 0) and rows == entries == 200000,
             f"rows {rows} entries {entries} missing {m} stale {s} mismatched {x}")
    for sql in ["SELECT id FROM bk WHERE a = 17", "SELECT id, b FROM bk WHERE a = 700 AND b = 'w3'",
                "SELECT count(*) FROM bk WHERE a BETWEEN 100 AND 140",
                "SELECT id FROM bk WHERE a = 5 ORDER BY b DESC, id LIMIT 30"]:
        cur.execute("SET enable_indexscan = on")
        cur.execute("EXPLAIN " + sql)
        used = any("bk_ab" in r[0] for r in cur.fetchall())
        cur.execute(sql)
        got = cur.fetchall()
        cur.execute("SET enable_indexscan = off")
        cur.execute(sql)
        want = cur.fetchall()
        if "ORDER BY" not in sql:
            got, want = sorted(got), sorted(want)
        ck.check(f"rebuilt index: {sql}", used and got == want, f"index used {used}, {got[:5]} vs {want[:5]}")
    conn.close()
    ck.check("bulk build: clean shutdown", srv.stop())
    ck.check("bulk build: no sanitizer report", srv.sanitizer_clean())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=int(os.environ.get("IDX_CRASH_CYCLES", "3")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("IDX_SEED", "1")))
    a = ap.parse_args()
    if not strata_bin():
        print("0 passed, 0 failed, 1 skipped")
        return 0
    tmp = tempfile.mkdtemp(prefix="strata-idx-crash.", dir=os.environ.get("STRATA_TMP", "/tmp"))
    ck = Checks()
    rng = random.Random(a.seed)
    try:
        fault_points(tmp, ck, rng)
        sigkill_cycles(tmp, ck, rng, a.cycles)
        interrupted_build(tmp, ck)
        interrupted_bulk_build(tmp, ck)
    except Exception as e:  # noqa: BLE001
        ck.check("no unexpected error", False, repr(e))
    if ck.failed:
        keep = os.path.join(os.environ.get("STRATA_LOGS", "build/test-logs"), "index-crash")
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(tmp, keep, ignore=shutil.ignore_patterns("store"))
        print(f"# logs kept in {keep}")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
