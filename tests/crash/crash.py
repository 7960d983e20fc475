#!/usr/bin/python3
"""crash.py — the SQL crash loop (issue 12): concurrent transactions against
an oracle of acknowledged commits, the server SIGKILLed at random moments and
restarted on the same data directory, many times.

Each worker session owns a disjoint range of keys in table `own` and a
sliding window of rows in `txlog`; its transactions insert, update (single
rows and ranges), delete, write values of random size, sometimes move money
between shared accounts in `acct` (so sessions wait for each other's row
locks and deadlock) and sometimes create and drop tables of their own with
rows in them, and load tables of their own with COPY (autocommit into a filled
table, or inside the transaction block into a table it created or a filled one; up to
4000 rows of up to 1 KB each). Because a worker is the only writer of its rows and tables, it
knows exactly what the database must hold for it after the last COMMIT it saw
succeed ("the model"), and if the server died while its COMMIT was on the
way, what it holds if that commit made it ("the pending model"). Transactions
are sent three ways: statement by statement, as one "BEGIN; ...; COMMIT"
query string, and as one multi-statement string without BEGIN (an implicit
transaction).

After every kill, before the restart: `strata-kv verify` on the store (every
checksum of every sorted file and log segment). After the restart, for every
worker: its rows, its txlog rows and its tables (and their row counts) equal
the model or the pending model, never anything else (no acknowledged commit
lost, no transaction partly visible, nothing that was rolled back); SUM(bal)
over the shared accounts is unchanged; with secondary indexes (once CREATE
INDEX exists) lookups through them agree with the table. Each worker also
owns a few entity groups (an order in `eg_order` with its lines in
`eg_line`, interleaved in the order's kv row): a transaction adds, changes
or removes lines and keeps the order's total equal to the sum of its lines,
so a group partly written shows as a total that does not add up. Some cycles kill the
server again while it recovers, some stop it cleanly (SIGTERM) instead.

The server runs with small memstores and log segments (--memstore-flush-kb,
--wal-segment-kb) so that kills land in flushes, compactions and segment
switches too.

Before the loop the checker checks itself (--selftest alone): after a clean
cycle it must pass, and after each of a lost update, a stray row, half a
transfer, a lost table and a torn value it must fail.

usage: crash.py [--long] [--cycles N] [--seconds S] [--workers N] [--max-run S]
                [--seed N] [--selftest]
Prints one line per failing check and a last line "N passed, N failed" (one
per cycle, plus the selftest's). Server from the fixture
(tests/lib/strata_fixture.py); STRATA_BIN=tests/lib/pg_as_strata.sh runs the
test itself against PostgreSQL 15.
"""
import argparse
import io
import os
import random
import signal
import subprocess
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from strata_fixture import SANITIZER_RE, FixtureError, NoServerInTree, StrataServer, free_port, strata_bin  # noqa: E402

KEYS = 48            # keys per worker in `own`
KEYSPACE = 1000      # worker w owns keys [w*KEYSPACE, w*KEYSPACE + KEYS)
TXLOG_WINDOW = 12    # txlog rows a worker keeps (older ones are deleted by later commits)
NACCT = 8
EG_ORDERS = 8        # entity groups (orders) per worker
EG_LINES = 6         # line numbers an order can have
START_BAL = 1000
RETRY = ("40P01", "40001", "55P03")
LEVELS = ("READ COMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")


def log(msg):
    print(msg, flush=True)


def pad_for(k, txid, n):
    """A value whose content depends on the key and the transaction that wrote it."""
    unit = f"{k}:{txid};"
    return (unit * (n // len(unit) + 1))[:n]


def connect(dsn, wait=30):
    """Connects, waiting while the server says it is starting up (57P03)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            conn = psycopg2.connect(dsn, connect_timeout=10)
            conn.autocommit = True
            return conn
        except psycopg2.OperationalError as e:
            if not ("starting up" in str(e) or "not yet accepting" in str(e)) or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class Model:
    """What one worker's part of the database holds."""

    def __init__(self):
        self.rows = {}       # k -> (v, txid, grp, padtx, len(pad)); padtx wrote the pad
        self.txlog = []      # txids in commit order (the window)
        self.tables = {}     # name -> row count
        self.eg = {}         # order -> (total, {line: amount})

    def copy(self):
        m = Model()
        m.rows = dict(self.rows)
        m.txlog = list(self.txlog)
        m.tables = dict(self.tables)
        m.eg = {o: (t, dict(lines)) for o, (t, lines) in self.eg.items()}
        return m

    def same(self, rows, txlog, tables, eg):
        return (self.rows == rows and sorted(self.txlog) == sorted(txlog) and self.tables == tables
                and self.eg == eg)


class Worker:
    def __init__(self, wid, seed):
        self.wid = wid
        self.rng = random.Random(seed * 1000 + wid)
        self.model = Model()
        self.pending = None  # (Model, txid) whose COMMIT had no answer
        self.seq = 0
        self.ntables = 0
        self.acked = 0
        self.copies = 0      # acknowledged transactions with a COPY
        self.indoubt = 0
        self.indoubt_present = 0
        self.retried = 0
        self.errors = []

    def base(self):
        return self.wid * KEYSPACE

    def plan_group(self, m, stmts):
        """One entity-group change: a line added, changed or removed, the
        order's total moved by the same amount (or the whole group removed)."""
        rng = self.rng
        o = self.base() + rng.randrange(EG_ORDERS)
        if o not in m.eg:
            amt = rng.randint(1, 100)
            stmts.append(f"INSERT INTO eg_order VALUES ({o}, {amt})")
            stmts.append(f"INSERT INTO eg_line VALUES ({o}, 1, {amt})")
            m.eg[o] = (amt, {1: amt})
            return
        total, lines = m.eg[o]
        if rng.random() < 0.1:
            stmts.append(f"DELETE FROM eg_line WHERE o = {o}")
            stmts.append(f"DELETE FROM eg_order WHERE o = {o}")
            del m.eg[o]
            return
        ln = rng.randint(1, EG_LINES)
        old = lines.get(ln, 0)
        r = rng.random()
        if ln in lines and r < 0.3:
            stmts.append(f"DELETE FROM eg_line WHERE o = {o} AND l = {ln}")
            del lines[ln]
            new = 0
        else:
            new = rng.randint(1, 100)
            if ln in lines:
                stmts.append(f"UPDATE eg_line SET amt = {new} WHERE o = {o} AND l = {ln}")
            else:
                stmts.append(f"INSERT INTO eg_line VALUES ({o}, {ln}, {new})")
            lines[ln] = new
        stmts.append(f"UPDATE eg_order SET total = total + ({new - old}) WHERE o = {o}")
        m.eg[o] = (total + new - old, lines)

    def copy_rows(self, m, name):
        """A COPY statement (a (sql, data) tuple) adding rows count+1 .. count+n
        to table name of the model, whose keys are always 1 .. count."""
        rng = self.rng
        n = rng.randint(1, 4000)
        pad = "x" * rng.choice((0, 100, 1000))
        first = m.tables[name] + 1
        data = "".join(f"{a}\tc{a}-{pad}\n" for a in range(first, first + n))
        m.tables[name] += n
        return (f"COPY {name} FROM STDIN", data)

    def plan(self, txid, with_index, with_group=False):
        """Returns (statements, new model) for one transaction."""
        rng = self.rng
        m = self.model.copy()
        stmts = []
        if m.tables and rng.random() < 0.04:
            # an autocommit COPY into a filled table (sorted, in one commit batch)
            return [self.copy_rows(m, rng.choice(sorted(m.tables)))], m
        for _ in range(rng.randint(1, 6)):
            k = self.base() + rng.randrange(KEYS)
            r = rng.random()
            padlen = rng.choice((0, 10, 100, 1000, 3000)) if rng.random() < 0.7 else rng.randint(0, 8000)
            grp = rng.randrange(10)
            if k not in m.rows and r < 0.8:
                v = rng.randrange(1000000)
                stmts.append(f"INSERT INTO own VALUES ({k}, {v}, {txid}, {grp}, {txid}, "
                             f"'{pad_for(k, txid, padlen)}')")
                m.rows[k] = (v, txid, grp, txid, padlen)
            elif k in m.rows and r < 0.55:
                v = rng.randrange(1000000)
                stmts.append(f"UPDATE own SET v = {v}, txid = {txid}, grp = {grp}, padtx = {txid}, "
                             f"pad = '{pad_for(k, txid, padlen)}' WHERE k = {k}")
                m.rows[k] = (v, txid, grp, txid, padlen)
            elif k in m.rows and r < 0.75:
                stmts.append(f"DELETE FROM own WHERE k = {k}")
                del m.rows[k]
            else:
                hi = min(k + rng.randint(0, 8), self.base() + KEYS - 1)
                stmts.append(f"UPDATE own SET v = v + 1, txid = {txid} WHERE k BETWEEN {k} AND {hi}")
                for kk in range(k, hi + 1):
                    if kk in m.rows:
                        v, _, g, ptx, pl = m.rows[kk]
                        m.rows[kk] = (v + 1, txid, g, ptx, pl)
        if with_group and rng.random() < 0.4:
            for _ in range(rng.randint(1, 3)):
                self.plan_group(m, stmts)
        if rng.random() < 0.3:
            a, b = rng.sample(range(NACCT), 2)
            amt = rng.randint(1, 50)
            stmts.append(f"UPDATE acct SET bal = bal - {amt} WHERE id = {a}")
            stmts.append(f"UPDATE acct SET bal = bal + {amt} WHERE id = {b}")
        if rng.random() < 0.06:
            self.ntables += 1
            name = f"ddl_{self.wid}_{self.ntables}"
            n = rng.randint(0, 300)
            stmts.append(f"CREATE TABLE {name} (a int PRIMARY KEY, b text)")
            if with_index and rng.random() < 0.5:
                stmts.append(f"CREATE INDEX {name}_b ON {name} (b)")
            if n:
                stmts.append(f"INSERT INTO {name} SELECT g, 'r' || g FROM generate_series(1, {n}) g")
            m.tables[name] = n
            if rng.random() < 0.3:
                # COPY in the transaction block into the table it created
                stmts.append(self.copy_rows(m, name))
            if len(m.tables) > 3:
                old = sorted(m.tables, key=lambda t: int(t.rsplit("_", 1)[1]))[0]
                stmts.append(f"DROP TABLE {old}")
                del m.tables[old]
        elif m.tables and rng.random() < 0.06:
            # COPY in a transaction block into a filled table (keys locked, write set)
            stmts.append(self.copy_rows(m, rng.choice(sorted(m.tables))))
        stmts.append(f"INSERT INTO txlog VALUES ({txid}, {self.wid}, {len(stmts)})")
        m.txlog.append(txid)
        if len(m.txlog) > TXLOG_WINDOW:
            old = m.txlog.pop(0)
            stmts.append(f"DELETE FROM txlog WHERE txid = {old}")
        return stmts, m

    def run(self, dsn, stop, with_index, with_group=False):
        """One cycle's work until the server dies or stop is set."""
        try:
            conn = psycopg2.connect(dsn, connect_timeout=10)
            conn.autocommit = True
            cur = conn.cursor()
        except psycopg2.Error:
            return
        try:
            while not stop.is_set():
                self.seq += 1
                txid = self.wid * 10**9 + self.seq
                stmts, newm = self.plan(txid, with_index, with_group)
                mode = self.rng.random()
                committing = False
                has_copy = any(isinstance(s, tuple) for s in stmts)
                try:
                    if has_copy and len(stmts) == 1:
                        committing = True
                        self.pending = (newm, txid)
                        cur.copy_expert(stmts[0][0], io.StringIO(stmts[0][1]))
                    elif mode < 0.5 or has_copy:
                        cur.execute("BEGIN ISOLATION LEVEL " + self.rng.choice(LEVELS))
                        for s in stmts:
                            if isinstance(s, tuple):
                                cur.copy_expert(s[0], io.StringIO(s[1]))
                            else:
                                cur.execute(s)
                        committing = True
                        self.pending = (newm, txid)
                        cur.execute("COMMIT")
                        if cur.statusmessage != "COMMIT":
                            raise RuntimeError(f"COMMIT answered {cur.statusmessage}")
                    else:
                        body = "; ".join(stmts)
                        q = body if mode < 0.75 else f"BEGIN; {body}; COMMIT"
                        committing = True
                        self.pending = (newm, txid)
                        cur.execute(q)
                    self.model = newm
                    self.pending = None
                    self.acked += 1
                    self.copies += has_copy
                except psycopg2.Error as e:
                    if e.pgcode is None or conn.closed:
                        # the server died; pending stays in doubt if COMMIT was sent
                        if not committing:
                            self.pending = None
                        return
                    self.pending = None
                    try:
                        cur.execute("ROLLBACK")
                    except (psycopg2.OperationalError, psycopg2.InterfaceError):
                        return
                    except psycopg2.Error:
                        pass
                    if e.pgcode in RETRY:
                        self.retried += 1
                        continue
                    if stop.is_set():
                        return
                    self.errors.append(f"worker {self.wid}: {e.pgcode} {str(e).strip()}")
                    return
        finally:
            try:
                conn.close()
            except psycopg2.Error:
                pass

    def check(self, rows, txlog, tables, eg):
        """Compares what the database holds for this worker with the models."""
        if self.model.same(rows, txlog, tables, eg):
            if self.pending:
                self.indoubt += 1
            self.pending = None
            return None
        if self.pending and self.pending[0].same(rows, txlog, tables, eg):
            self.model = self.pending[0]
            self.pending = None
            self.indoubt += 1
            self.indoubt_present += 1
            return None
        return self.describe(rows, txlog, tables, eg)

    def describe(self, rows, txlog, tables, eg):
        m = self.model
        out = [f"worker {self.wid}: database differs from the acknowledged state"
               + (f" (and from the in-doubt commit {self.pending[1]})" if self.pending else "")]
        for k in sorted(set(m.rows) | set(rows)):
            if m.rows.get(k) != rows.get(k):
                out.append(f"  own k={k}: expected {m.rows.get(k)}, found {rows.get(k)}")
        if sorted(m.txlog) != sorted(txlog):
            out.append(f"  txlog: expected {sorted(m.txlog)}, found {sorted(txlog)}")
        if m.tables != tables:
            out.append(f"  tables: expected {m.tables}, found {tables}")
        for o in sorted(set(m.eg) | set(eg)):
            if m.eg.get(o) != eg.get(o):
                out.append(f"  entity group o={o}: expected {m.eg.get(o)}, found {eg.get(o)}")
        return "\n".join(out[:20])


class Loop:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.workers = [Worker(w, args.seed) for w in range(args.workers)]
        self.srv = StrataServer("crash", args=["--memstore-flush-kb", "256", "--wal-segment-kb", "512"])
        self.with_index = False
        self.with_group = False
        self.kv_tool = None
        self.failures = []
        self.stats = {"verify": 0, "recovery_kills": 0, "clean_stops": 0, "sum_reads": 0}

    # -- server control -------------------------------------------------------------
    def data_dir(self):
        return os.path.join(self.srv.dir, "data")

    def verify_store(self, cycle):
        if not self.kv_tool:
            return True
        p = subprocess.run([self.kv_tool, "verify", os.path.join(self.data_dir(), "store")],
                           capture_output=True, text=True, timeout=600)
        self.stats["verify"] += 1
        if p.returncode != 0:
            self.failures.append(f"cycle {cycle}: strata-kv verify failed ({p.returncode}): "
                                 f"{(p.stdout + p.stderr).strip()[-2000:]}")
            return False
        return True

    def server_failed(self, cycle):
        """A sanitizer report since the last look, or a server that exited on
        its own, is a failure. A report is waited for to its end (a SIGKILL
        in the middle would cut the stack trace off)."""
        with open(self.srv.log_path, "rb") as f:
            f.seek(self.log_pos)
            new = f.read().decode(errors="replace")
        report = SANITIZER_RE.search(new)
        died = self.srv.proc.poll() is not None
        if not report and not died:
            self.log_pos += len(new.encode())
            return False
        try:
            self.srv.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.srv.proc.kill()
            self.srv.proc.wait()
        self.srv.proc = None
        with open(self.srv.log_path, "rb") as f:
            f.seek(self.log_pos)
            new = f.read().decode(errors="replace")
        m = SANITIZER_RE.search(new)
        excerpt = new[max(0, m.start() - 200):m.start() + 3000] if m else new[-2000:]
        self.failures.append(f"cycle {cycle}: the server {'reported' if m else 'died'} while running:\n{excerpt}")
        self.srv.mark_failed()
        return True

    def kill_during_recovery(self):
        """Starts the server on the data directory and SIGKILLs it while it recovers."""
        binary = strata_bin()
        with open(self.srv.log_path, "ab") as logf:
            p = subprocess.Popen([binary, "--listen", "127.0.0.1", "--port", str(free_port()),
                                  "--data-dir", self.data_dir()] + self.srv.args,
                                 stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        time.sleep(self.rng.uniform(0.0, 0.25))
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.stats["recovery_kills"] += 1

    # -- checks ---------------------------------------------------------------------------
    def read_state(self, cur):
        cur.execute("SELECT k, v, txid, grp, padtx, pad FROM own")
        rows = {}
        for k, v, txid, grp, padtx, pad in cur.fetchall():
            rows.setdefault(k // KEYSPACE, {})[k] = (v, txid, grp, padtx, pad)
        cur.execute("SELECT txid, worker FROM txlog")
        txlog = {}
        for txid, w in cur.fetchall():
            txlog.setdefault(w, []).append(txid)
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'ddl\\_%'")
        tables = {}
        for (name,) in cur.fetchall():
            cur.execute(f"SELECT count(*), count(DISTINCT b) FROM {name}")
            n, nd = cur.fetchone()
            if n != nd:
                self.failures.append(f"table {name}: {n} rows but {nd} distinct values")
            tables.setdefault(int(name.split("_")[1]), {})[name] = n
        eg = {}
        if self.with_group:
            cur.execute("SELECT o, total FROM eg_order")
            orders = dict(cur.fetchall())
            cur.execute("SELECT o, l, amt FROM eg_line")
            lines = {}
            for o, ln, amt in cur.fetchall():
                lines.setdefault(o, {})[ln] = amt
            for o in sorted(set(orders) | set(lines)):
                got = lines.get(o, {})
                if o not in orders:
                    self.failures.append(f"entity group o={o}: lines {got} without their order")
                    continue
                if orders[o] != sum(got.values()):
                    self.failures.append(f"entity group o={o}: total {orders[o]} but lines {got} "
                                         f"(a group partly written)")
                eg.setdefault(o // KEYSPACE, {})[o] = (orders[o], got)
        return rows, txlog, tables, eg

    def check(self, cycle):
        ok = True
        conn = connect(self.srv.dsn)
        cur = conn.cursor()
        try:
            rows, txlog, tables, eg = self.read_state(cur)
            for w in self.workers:
                got = {}
                for k, (v, txid, grp, padtx, pad) in rows.get(w.wid, {}).items():
                    got[k] = self.decode_row(cycle, k, v, txid, grp, padtx, pad)
                msg = w.check(got, txlog.get(w.wid, []), tables.get(w.wid, {}), eg.get(w.wid, {}))
                if msg:
                    self.failures.append(f"cycle {cycle}: {msg}")
                    ok = False
            cur.execute("SELECT sum(bal), count(*) FROM acct")
            s, n = cur.fetchone()
            if s != NACCT * START_BAL or n != NACCT:
                self.failures.append(f"cycle {cycle}: acct has {n} rows summing to {s}, "
                                     f"expected {NACCT} summing to {NACCT * START_BAL}")
                ok = False
            if self.with_index:
                ok = self.check_index(cur, cycle) and ok
        finally:
            conn.close()
        return ok

    def decode_row(self, cycle, k, v, txid, grp, padtx, pad):
        """The model's tuple for a row read back; the pad's content must be the
        one the transaction padtx wrote."""
        if pad != pad_for(k, padtx, len(pad)):
            self.failures.append(f"cycle {cycle}: own k={k}: pad of {len(pad)} bytes is not the one "
                                 f"transaction {padtx} wrote: {pad[:60]!r}")
        return (v, txid, grp, padtx, len(pad))

    def check_index(self, cur, cycle):
        ok = True
        cur.execute("SELECT grp, count(*) FROM own GROUP BY grp")
        by_scan = dict(cur.fetchall())
        for g in range(10):
            cur.execute(f"SELECT count(*) FROM own WHERE grp = {g}")
            n = cur.fetchone()[0]
            if n != by_scan.get(g, 0):
                self.failures.append(f"cycle {cycle}: index own_grp finds {n} rows with grp={g}, "
                                     f"the table has {by_scan.get(g, 0)}")
                ok = False
        # And every entry of every index against its table (the checker).
        for name in ("own_grp", "txlog_worker"):
            cur.execute("SELECT rows, entries, missing, stale, mismatched FROM strata_verify_index(%s)", (name,))
            rows, entries, missing, stale, mismatched = cur.fetchone()
            if missing or stale or mismatched or rows != entries:
                self.failures.append(f"cycle {cycle}: strata_verify_index({name}): {rows} rows, {entries} entries, "
                                     f"{missing} missing, {stale} stale, {mismatched} mismatched")
                ok = False
        return ok

    def setup(self):
        conn = connect(self.srv.dsn)
        cur = conn.cursor()
        cur.execute("CREATE TABLE own (k bigint PRIMARY KEY, v bigint NOT NULL, txid bigint NOT NULL, "
                    "grp int NOT NULL, padtx bigint NOT NULL, pad text NOT NULL)")
        cur.execute("CREATE TABLE txlog (txid bigint PRIMARY KEY, worker int NOT NULL, nstmts int)")
        cur.execute("CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL)")
        cur.execute(f"INSERT INTO acct SELECT g, {START_BAL} FROM generate_series(0, {NACCT - 1}) g")
        try:
            cur.execute("CREATE INDEX own_grp ON own (grp)")
            cur.execute("CREATE INDEX txlog_worker ON txlog (worker)")
            self.with_index = True
        except psycopg2.Error as e:
            if e.pgcode != "0A000":
                raise
            log(f"# crash: secondary indexes not in the workload: CREATE INDEX gives {e.pgcode} "
                f"({str(e).strip()})")
        cur.execute("CREATE TABLE eg_order (o bigint PRIMARY KEY, total bigint NOT NULL)")
        try:
            cur.execute("CREATE TABLE eg_line (o bigint, l int, amt bigint NOT NULL, PRIMARY KEY (o, l)) "
                        "WITH (interleave_in_parent = 'eg_order')")
            self.with_group = True
        except psycopg2.Error as e:
            if e.pgcode not in ("22023", "0A000"):  # PostgreSQL: unrecognized parameter
                raise
            log(f"# crash: no entity group in the workload: {e.pgcode} ({str(e).strip()})")
        conn.close()

    def sum_reader(self, stop):
        try:
            conn = psycopg2.connect(self.srv.dsn, connect_timeout=10)
            conn.autocommit = True
            cur = conn.cursor()
            while not stop.is_set():
                cur.execute("SELECT sum(bal) FROM acct")
                s = cur.fetchone()[0]
                self.stats["sum_reads"] += 1
                if s != NACCT * START_BAL:
                    self.failures.append(f"SUM(bal) read {s} while running, expected {NACCT * START_BAL}")
                    return
                time.sleep(0.02)
        except psycopg2.Error:
            return

    # -- the loop -------------------------------------------------------------------------
    def run(self):
        a = self.args
        self.srv.start()
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        builds = [os.environ.get("STRATA_BUILD"), os.path.join(root, "build", "asan"),
                  os.path.join(root, "build", "release")]
        tools = [os.path.join(b, "kvstore", "strata-kv") for b in builds if b]
        self.kv_tool = next((t for t in tools if os.access(t, os.X_OK)), None)
        self.pg = "pg_as_strata" in (strata_bin() or "")
        if self.pg:
            self.kv_tool = None  # PostgreSQL: nothing of ours to verify, no kills during recovery
            log("# crash: the server is PostgreSQL (pg_as_strata.sh): checking the test itself")
        elif not self.kv_tool:
            log("# crash: no strata-kv built: store verification skipped")
        self.setup()
        self.log_pos = 0
        t0 = time.monotonic()
        passed = failed = 0
        cycle = 0
        while cycle < a.cycles and time.monotonic() - t0 < a.seconds:
            cycle += 1
            stop = threading.Event()
            threads = [threading.Thread(target=w.run, args=(self.srv.dsn, stop, self.with_index, self.with_group))
                       for w in self.workers]
            threads.append(threading.Thread(target=self.sum_reader, args=(stop,)))
            for t in threads:
                t.start()
            time.sleep(self.rng.uniform(0.05, a.max_run))
            if self.server_failed(cycle):
                how = None  # it died by itself; the report is in the log
            else:
                how = self.rng.random()
            if how is None:
                pass
            elif how < 0.05:
                # clean stop: must exit 0 with everything acknowledged on disk
                self.srv.proc.send_signal(signal.SIGTERM)
                status = self.srv.proc.wait()
                self.srv.proc = None
                self.stats["clean_stops"] += 1
                if status != 0:
                    self.failures.append(f"cycle {cycle}: SIGTERM stop exited with status {status}")
            else:
                self.srv.kill()
            stop.set()
            for t in threads:
                t.join(timeout=60)
            errs = [e for w in self.workers for e in w.errors]
            for w in self.workers:
                w.errors.clear()
            nfail_before = len(self.failures)
            self.failures.extend(f"cycle {cycle}: unexpected error: {e}" for e in errs)
            self.verify_store(cycle)
            if self.rng.random() < 0.1 and not self.pg:
                self.kill_during_recovery()
            self.srv.start()
            try:
                self.check(cycle)
            except psycopg2.Error as e:
                self.failures.append(f"cycle {cycle}: check failed: {e.pgcode} {str(e).strip()}")
            if len(self.failures) > nfail_before:
                failed += 1
                for f in self.failures[nfail_before:]:
                    log(f"FAIL {f}")
                self.srv.mark_failed()
                if failed >= 3:
                    log("# crash: stopping after 3 failing cycles")
                    break
            else:
                passed += 1
            if cycle % 50 == 0:
                self.progress(cycle, t0)
        if not self.srv.stop():
            log("FAIL the server did not stop cleanly at the end (see its log)")
            failed += 1
        self.progress(cycle, t0)
        return passed, failed

    def selftest(self):
        """The checker must notice a lost update, a stray row, a partial
        transfer and a dropped table: one clean cycle, then each tampering in
        turn must fail the check. Returns (passed, failed)."""
        self.srv.start()
        self.kv_tool = None
        self.pg = False
        self.setup()
        stop = threading.Event()
        threads = [threading.Thread(target=w.run, args=(self.srv.dsn, stop, self.with_index, self.with_group))
                   for w in self.workers]
        for t in threads:
            t.start()
        time.sleep(1.0)
        self.srv.kill()
        stop.set()
        for t in threads:
            t.join(timeout=60)
        self.srv.start()
        passed = failed = 0
        if self.check(1):
            passed += 1
        else:
            log("FAIL selftest: the check failed on an untampered database: " + "; ".join(self.failures))
            failed += 1
        # make sure there is a table to drop
        w0 = self.workers[0]
        conn = connect(self.srv.dsn)
        cur = conn.cursor()
        cur.execute("CREATE TABLE ddl_0_999 (a int PRIMARY KEY, b text)")
        w0.model.tables["ddl_0_999"] = 0
        if self.with_group:  # and a group of worker 0 that no transaction touches
            cur.execute("INSERT INTO eg_order VALUES (999, 5); INSERT INTO eg_line VALUES (999, 1, 5)")
            w0.model.eg[999] = (5, {1: 5})
        tamper = [("lost update", "UPDATE own SET v = v + 1 WHERE k = (SELECT min(k) FROM own)"),
                  ("stray txlog row", "INSERT INTO txlog VALUES (-1, 0, 0)"),
                  ("half a transfer", "UPDATE acct SET bal = bal + 1 WHERE id = 0"),
                  ("lost table", "DROP TABLE ddl_0_999"),
                  ("torn value", "UPDATE own SET pad = 'x' || pad WHERE k = (SELECT max(k) FROM own)")]
        if self.with_group:
            tamper.append(("half an entity group", "UPDATE eg_line SET amt = amt + 1 WHERE o = 999"))
        for what, sql in tamper:
            cur.execute("SELECT * FROM own")  # fresh snapshot of the untampered state for the undo
            cur.execute(sql)
            before = len(self.failures)
            self.check(2)
            if len(self.failures) > before:
                passed += 1
            else:
                log(f"FAIL selftest: the check did not notice a {what} ({sql})")
                failed += 1
            # later cases must fail on their own: reset the models to what is there now
            rows, txlog, tables, eg = self.read_state(cur)
            if what == "half an entity group":  # a broken group stays broken: take it out
                cur.execute("DELETE FROM eg_line WHERE o = 999; DELETE FROM eg_order WHERE o = 999")
                eg.get(0, {}).pop(999, None)
            for w in self.workers:
                w.model.rows = {k: self.decode_row(0, k, *r) for k, r in rows.get(w.wid, {}).items()}
                w.model.txlog = list(txlog.get(w.wid, []))
                w.model.tables = dict(tables.get(w.wid, {}))
                w.model.eg = {o: (t, dict(ls)) for o, (t, ls) in eg.get(w.wid, {}).items()}
                w.pending = None
            cur.execute("SELECT sum(bal) FROM acct")
            cur.execute(f"UPDATE acct SET bal = bal - ({cur.fetchone()[0]} - {NACCT * START_BAL}) WHERE id = 0")
        conn.close()
        self.failures.clear()
        if not self.srv.stop():
            failed += 1
        log(f"# crash: selftest: {passed} of {len(tamper) + 1} checks behaved")
        return passed, failed

    def progress(self, cycle, t0):
        acked = sum(w.acked for w in self.workers)
        indoubt = sum(w.indoubt for w in self.workers)
        present = sum(w.indoubt_present for w in self.workers)
        retried = sum(w.retried for w in self.workers)
        copies = sum(w.copies for w in self.workers)
        log(f"# crash: {cycle} cycles in {time.monotonic() - t0:.0f} s: {acked} commits acknowledged "
            f"({copies} with a COPY), "
            f"{indoubt} in doubt ({present} present), {retried} retried (40P01/40001/55P03), "
            f"{self.stats['verify']} store verifications, {self.stats['recovery_kills']} kills during "
            f"recovery, {self.stats['clean_stops']} clean stops, {self.stats['sum_reads']} SUM reads"
            f"{', with secondary indexes' if self.with_index else ''}"
            f"{', with entity groups' if self.with_group else ''}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--long", action="store_true", help="1000 cycles (make soak)")
    ap.add_argument("--cycles", type=int)
    ap.add_argument("--seconds", type=float, help="stop starting cycles after this long")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--max-run", type=float, help="longest run between restart and kill (s)")
    ap.add_argument("--selftest", action="store_true",
                    help="only check that the checker notices damage (always done first)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("CRASH_SEED", 0)) or None)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1, 10**9)
    a.cycles = a.cycles or (1000 if a.long else 1000000)
    a.seconds = a.seconds or (6 * 3600 if a.long else 30)
    a.workers = a.workers or (6 if a.long else 4)
    a.max_run = a.max_run or 1.5
    log(f"# crash: seed {a.seed} (CRASH_SEED={a.seed} replays the random choices)")
    loop = Loop(a)
    try:
        if a.selftest:
            passed, failed = loop.selftest()
        else:
            # first the checker checks itself (a few seconds), then the loop
            sp, sf = Loop(a).selftest()
            passed, failed = loop.run()
            passed, failed = passed + sp, failed + sf
    except NoServerInTree as e:
        log(f"# crash: {e}")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    except (FixtureError, psycopg2.Error) as e:
        log(f"FAIL {e}")
        loop.srv.mark_failed()
        loop.srv.stop()
        print(f"0 passed, 1 failed")
        return 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
