#!/usr/bin/python3
"""load.py — load and soak (issue 12): many concurrent sessions run a mixed
read / write / DDL workload against one server while a monitor samples the
server's memory (VmRSS) and open file descriptors.

Each client thread picks at random: point and range reads, joins and
aggregates, inserts / updates / deletes of its own rows, transfers between
shared counters (lock waits, deadlocks and serialization failures are
retried), transactions with savepoints, prepared statements, creating,
altering and dropping its own tables, temporary tables, and reconnecting.
Checks:
  - no unexpected error (only 40001, 40P01 and 55P03 are retried);
  - the shared counters' total never changes, every client's rows are what
    it wrote (checked at the end);
  - RSS flat after warm-up: growth over the second half of the run stays
    under --rss-slack (a leak grows steadily, allocator caches do not);
  - no descriptor leak: once every client has disconnected the server has
    as many open descriptors as before the run;
  - the server stops cleanly (no sanitizer or LeakSanitizer report).

usage: load.py [--long] [--clients N] [--seconds S] [--valgrind]
  default  200 clients for 35 s (make test)
  --long   200 clients for 600 s (make soak)
  --valgrind  run the server under valgrind (memcheck; release build
              recommended: STRATA_BIN=build/release/server/strata), fewer
              clients and seconds unless given
Prints "N passed, N failed" (one per check).
"""
import argparse
import os
import random
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from strata_fixture import FixtureError, NoServerInTree, StrataServer, strata_bin  # noqa: E402

RETRY = ("40001", "40P01", "55P03")
NCOUNTERS = 20
START = 1000


def log(msg):
    print(msg, flush=True)


class Stats:
    def __init__(self):
        self.mu = threading.Lock()
        self.ops = {}
        self.retries = 0
        self.errors = []

    def op(self, name):
        with self.mu:
            self.ops[name] = self.ops.get(name, 0) + 1


class Client(threading.Thread):
    alter_ok = True

    def __init__(self, cid, dsn, deadline, stats, seed):
        super().__init__(daemon=True)
        self.cid = cid
        self.dsn = dsn
        self.deadline = deadline
        self.stats = stats
        self.rng = random.Random(seed * 1000 + cid)
        self.rows = {}     # k -> v this client wrote and committed
        self.tables = 0
        self.conn = None

    def connect(self):
        if self.conn:
            try:
                self.conn.close()
            except psycopg2.Error:
                pass
        # A session's slot is given back once the server has closed it, a
        # moment after the client hung up (as in PostgreSQL, where the
        # exiting backend holds its slot): an immediate reconnect can meet
        # 53300 while many sessions are ending, and retries shortly.
        # Ending a session can take seconds when the machine is loaded (its
        # temporary tables are dropped, which commits to the catalog): give
        # the slots 30 s to come back.
        give_up = time.monotonic() + 30
        while True:
            try:
                self.conn = psycopg2.connect(self.dsn, connect_timeout=60, application_name=f"load{self.cid}")
                break
            except psycopg2.OperationalError as e:
                if "too many clients" not in str(e) or time.monotonic() > give_up:
                    raise
                time.sleep(0.1)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.prepared = False

    def key(self):
        return self.cid * 100000 + self.rng.randrange(200)

    def run(self):
        try:
            self.connect()
        except psycopg2.Error as e:
            self.stats.errors.append(f"client {self.cid}: connect: {e}")
            return
        ops = [(self.read_point, 20), (self.read_range, 10), (self.read_agg, 8), (self.read_join, 5),
               (self.write_own, 20), (self.transfer, 10), (self.savepoints, 5), (self.prepared_stmt, 8),
               (self.ddl, 3), (self.temp_table, 3), (self.reconnect, 2), (self.catalog, 3)]
        names = [o for o, _ in ops]
        weights = [w for _, w in ops]
        while time.monotonic() < self.deadline:
            fn = self.rng.choices(names, weights)[0]
            for attempt in range(20):
                try:
                    fn()
                    self.stats.op(fn.__name__)
                    break
                except psycopg2.Error as e:
                    try:
                        self.cur.execute("ROLLBACK")
                    except psycopg2.Error:
                        pass
                    if e.pgcode in RETRY:
                        with self.stats.mu:
                            self.stats.retries += 1
                        time.sleep(self.rng.uniform(0, 0.02))
                        continue
                    self.stats.errors.append(f"client {self.cid} {fn.__name__}: {e.pgcode} {str(e).strip()[:300]}")
                    try:
                        self.connect()
                    except psycopg2.Error:
                        return
                    break
            time.sleep(self.rng.uniform(0, 0.01))
        self.check_own()
        self.conn.close()

    # -- reads
    def read_point(self):
        self.cur.execute("SELECT v FROM items WHERE k = %s", (self.key(),))
        self.cur.fetchall()

    def read_range(self):
        lo = self.rng.randrange(200) * 100000
        self.cur.execute("SELECT k, v FROM items WHERE k >= %s AND k < %s ORDER BY k DESC LIMIT 50", (lo, lo + 500))
        self.cur.fetchall()

    def read_agg(self):
        self.cur.execute("SELECT count(*), sum(v), max(pad) FROM items WHERE k %% 7 = %s", (self.rng.randrange(7),))
        self.cur.fetchall()
        self.cur.execute("SELECT sum(bal) FROM counters")
        (s,) = self.cur.fetchone()
        if s != NCOUNTERS * START:
            self.stats.errors.append(f"client {self.cid}: SUM(bal) = {s}, expected {NCOUNTERS * START}")

    def read_join(self):
        self.cur.execute("SELECT c.id, count(i.k) FROM counters c LEFT JOIN items i ON i.k % 20 = c.id "
                         "WHERE c.id < 5 GROUP BY c.id ORDER BY c.id")
        self.cur.fetchall()

    def catalog(self):
        self.cur.execute("SELECT count(*) FROM pg_class WHERE relname LIKE %s", ("load%",))
        self.cur.fetchall()
        self.cur.execute("SELECT count(*) FROM pg_tables")
        self.cur.fetchall()

    # -- writes
    def write_own(self):
        k = self.key()
        r = self.rng.random()
        v = self.rng.randrange(10**6)
        if k not in self.rows or r < 0.4:
            self.cur.execute("INSERT INTO items VALUES (%s, %s, %s) ON CONFLICT (k) DO UPDATE SET v = excluded.v, "
                             "pad = excluded.pad", (k, v, "p" * self.rng.randrange(500)))
            self.rows[k] = v
        elif r < 0.8:
            self.cur.execute("UPDATE items SET v = %s WHERE k = %s", (v, k))
            self.rows[k] = v
        else:
            self.cur.execute("DELETE FROM items WHERE k = %s", (k,))
            del self.rows[k]

    def transfer(self):
        a, b = self.rng.sample(range(NCOUNTERS), 2)
        amt = self.rng.randint(1, 10)
        level = self.rng.choice(("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"))
        self.cur.execute(f"BEGIN ISOLATION LEVEL {level}")
        self.cur.execute("SET LOCAL lock_timeout = '2s'")
        self.cur.execute("UPDATE counters SET bal = bal - %s WHERE id = %s", (amt, a))
        self.cur.execute("UPDATE counters SET bal = bal + %s WHERE id = %s", (amt, b))
        self.cur.execute("COMMIT")

    def savepoints(self):
        k = self.key()
        self.cur.execute("BEGIN")
        self.cur.execute("SAVEPOINT a")
        self.cur.execute("INSERT INTO items VALUES (%s, -1, 'sp') ON CONFLICT (k) DO NOTHING", (k,))
        self.cur.execute("ROLLBACK TO SAVEPOINT a")
        self.cur.execute("SELECT count(*) FROM items WHERE k = %s AND v = -1", (k,))
        (n,) = self.cur.fetchone()
        self.cur.execute("COMMIT")
        if n:
            self.stats.errors.append(f"client {self.cid}: a row rolled back to a savepoint is visible")

    def prepared_stmt(self):
        if not self.prepared:
            self.cur.execute("PREPARE getv(bigint) AS SELECT v FROM items WHERE k = $1")
            self.prepared = True
        self.cur.execute("EXECUTE getv(%s)", (self.key(),))
        self.cur.fetchall()
        if self.rng.random() < 0.1:
            self.cur.execute("DEALLOCATE getv")
            self.prepared = False

    def ddl(self):
        self.tables += 1
        t = f"load_{self.cid}_{self.tables}"
        self.cur.execute(f"CREATE TABLE {t} (a int PRIMARY KEY, b text)")
        self.cur.execute(f"INSERT INTO {t} SELECT g, 'x' || g FROM generate_series(1, 50) g")
        if self.rng.random() < 0.5 and Client.alter_ok:
            try:
                self.cur.execute(f"ALTER TABLE {t} ADD COLUMN c int DEFAULT 7")
            except psycopg2.Error as e:
                if e.pgcode != "0A000":
                    raise
                Client.alter_ok = False  # not implemented yet: leave it out from now on
                log(f"# load: ALTER TABLE left out of the workload: {str(e).strip()}")
        self.cur.execute(f"SELECT count(*) FROM {t}")
        (n,) = self.cur.fetchone()
        if n != 50:
            self.stats.errors.append(f"client {self.cid}: {t} has {n} rows, expected 50")
        self.cur.execute(f"DROP TABLE {t}")

    def temp_table(self):
        # temporary tables are private to their session, so every client can
        # use the same name
        t = "tmp_load"
        self.cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {t} (a int)")
        self.cur.execute(f"INSERT INTO {t} SELECT generate_series(1, 20)")
        self.cur.execute(f"SELECT sum(a) FROM {t}")
        self.cur.fetchall()
        self.cur.execute(f"TRUNCATE {t}")

    def reconnect(self):
        self.connect()

    def check_own(self):
        try:
            lo = self.cid * 100000
            self.cur.execute("SELECT k, v FROM items WHERE k >= %s AND k < %s", (lo, lo + 100000))
            got = dict(self.cur.fetchall())
            if got != self.rows:
                diff = [k for k in set(got) | set(self.rows) if got.get(k) != self.rows.get(k)][:5]
                self.stats.errors.append(f"client {self.cid}: its rows differ from what it wrote, e.g. "
                                         + ", ".join(f"{k}: {got.get(k)} vs {self.rows.get(k)}" for k in diff))
        except psycopg2.Error as e:
            self.stats.errors.append(f"client {self.cid}: final check: {e.pgcode} {e}")


def proc_stats(pid):
    """(VmRSS in kB, open descriptors) of a process, or (None, None)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        nfd = len(os.listdir(f"/proc/{pid}/fd"))
        return rss, nfd
    except (OSError, StopIteration):
        return None, None


def server_pid(srv):
    """The pid whose memory to watch: the server, or valgrind running it."""
    return srv.proc.pid


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--long", action="store_true")
    ap.add_argument("--clients", type=int)
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--valgrind", action="store_true")
    ap.add_argument("--rss-slack", type=float, help="allowed RSS growth after warm-up (fraction; default 0.15 "
                    "for runs of 5 minutes or more, 0.25 for shorter ones, which end soon after the warm-up)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("LOAD_SEED", 0)) or random.randrange(1, 10**9))
    a = ap.parse_args()
    a.clients = a.clients or (20 if a.valgrind else 200)
    a.seconds = a.seconds or (600 if a.long else 60 if a.valgrind else 35)
    if a.rss_slack is None:
        a.rss_slack = 0.15 if a.seconds >= 300 else 0.25
    log(f"# load: seed {a.seed}, {a.clients} clients, {a.seconds:.0f} s{' under valgrind' if a.valgrind else ''}")
    # a small quarantine: ASan's default (256 MB) would look like growth
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:quarantine_size_mb=16")
    # Bounded caches, so that memory reaches its steady state early: the
    # memstores flush at 8 MB, the block cache holds 32 MB.
    args = ["--max-connections", str(a.clients + 20), "--memstore-flush-kb", "8192", "--block-cache-mb", "32"]
    srv = StrataServer("load", args=args, start_timeout=120 if a.valgrind else None,
                       stop_timeout=120 if a.valgrind else None)
    if a.valgrind:
        wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind_strata.sh")
        os.environ["VALGRIND_STRATA_BIN"] = strata_bin() or ""
        os.environ["STRATA_BIN"] = wrapper
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
            log(f"ok {what}")
        else:
            failed += 1
            log(f"FAIL {what}")
            srv.mark_failed()

    try:
        srv.start()
    except NoServerInTree as e:
        log(f"# load: {e}")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    except FixtureError as e:
        log(f"FAIL {e}")
        print("0 passed, 1 failed")
        return 1
    try:
        conn = psycopg2.connect(srv.dsn)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("CREATE TABLE items (k bigint PRIMARY KEY, v bigint, pad text)")
        cur.execute("CREATE TABLE counters (id int PRIMARY KEY, bal bigint)")
        cur.execute(f"INSERT INTO counters SELECT g, {START} FROM generate_series(0, {NCOUNTERS - 1}) g")
        conn.close()
        time.sleep(0.5)
        pid = server_pid(srv)
        rss0, fd0 = proc_stats(pid)
        stats = Stats()
        t0 = time.monotonic()
        deadline = t0 + a.seconds
        clients = [Client(i, srv.dsn, deadline, stats, a.seed) for i in range(a.clients)]
        for c in clients:
            c.start()
        samples = []  # (t, rss kB, fds)
        while any(c.is_alive() for c in clients):
            rss, nfd = proc_stats(pid)
            if rss:
                samples.append((time.monotonic() - t0, rss, nfd))
            time.sleep(1.0)
            if time.monotonic() > deadline + 300:
                break
        for c in clients:
            c.join(timeout=60)
        stuck = [c.cid for c in clients if c.is_alive()]
        check(not stuck, f"every client finished ({len(stuck)} stuck)")
        total_ops = sum(stats.ops.values())
        log(f"# load: {total_ops} operations in {time.monotonic() - t0:.0f} s ({total_ops / a.seconds:.0f}/s), "
            f"{stats.retries} retried; " + ", ".join(f"{k} {v}" for k, v in sorted(stats.ops.items())))
        for e in stats.errors[:20]:
            log(f"  {e}")
        check(not stats.errors, f"no unexpected errors ({len(stats.errors)})")
        # memory: compare the second half of the run after warm-up with its first half
        step = max(1, len(samples) // 12)
        log("# load: RSS MB over time: " + " ".join(f"{s[0]:.0f}s:{s[1] // 1024}" for s in samples[::step]))
        run = [s for s in samples if s[0] <= a.seconds]
        # Warm-up: 30% of the run, and at least 20 s of a run of 30 s or
        # more; the ASan build's allocator and the block cache take ~30 s
        # to reach their steady size with 200 sessions.
        warm_from = max(a.seconds * 0.3, 20.0) if a.seconds >= 30 else a.seconds * 0.3
        warm = [s for s in run if s[0] >= warm_from]
        if len(warm) >= 4:
            half = len(warm) // 2
            first = max(s[1] for s in warm[:half])
            last = max(s[1] for s in warm[half:])
            growth = (last - first) / first
            log(f"# load: RSS {rss0 // 1024} MB before, {warm[0][1] // 1024} MB after warm-up, peak "
                f"{max(s[1] for s in run) // 1024} MB, second half {last // 1024} MB vs first {first // 1024} MB "
                f"({growth * 100:+.1f}%)")
            check(growth <= a.rss_slack or last - first < 16 * 1024,
                  f"RSS flat after warm-up ({growth * 100:+.1f}%, slack {a.rss_slack * 100:.0f}%)")
        else:
            log("# load: too few memory samples to judge RSS")
        # descriptors: every client is gone now
        time.sleep(2.0)
        rss1, fd1 = proc_stats(pid)
        log(f"# load: descriptors {fd0} before, {fd1} after, peak {max((s[2] for s in samples), default=0)}")
        check(fd1 is not None and fd1 <= fd0 + 2, f"no descriptor leak ({fd0} -> {fd1})")
        conn = psycopg2.connect(srv.dsn)
        cur = conn.cursor()
        cur.execute("SELECT sum(bal), count(*) FROM counters")
        s, n = cur.fetchone()
        check(s == NCOUNTERS * START and n == NCOUNTERS, f"counters total {s} over {n} rows")
        conn.close()
    except (psycopg2.Error, FixtureError, OSError) as e:
        log(f"FAIL harness: {e}")
        failed += 1
        srv.mark_failed()
    clean = srv.stop()
    check(clean, "the server stopped cleanly (no sanitizer, LeakSanitizer or valgrind report)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
