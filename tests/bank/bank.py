#!/usr/bin/python3
"""bank.py — the bank-transfer invariant test (issue 9).

N accounts start with the same balance. Worker threads move money between
them: one transaction per transfer, the two UPDATEs in random order (so
deadlocks happen), a row in the ledger table xfer, at a random isolation
level; 40P01 and 40001 are rolled back and retried. Checker threads keep
reading meanwhile: SUM(bal) in one statement (READ COMMITTED), and in
REPEATABLE READ transactions every balance and the whole ledger, which must
agree with each other (bal = start + incoming - outgoing for every account)
and give the same SUM twice. The total must never change.

Then the server is SIGKILLed while transfers are in flight and restarted on
the same data directory. Every transfer whose COMMIT a client saw succeed must
be there; every transfer that failed before its COMMIT was sent must not; a
transfer cut off during its COMMIT may be either, but never half (balances
and ledger agree). Work then goes on after the restart and is checked again,
and the server must stop cleanly (no sanitizer report).

usage: bank.py [--long] [--accounts N] [--workers N] [--checkers N]
               [--seconds S] [--cycles N] [--seed N]
Prints "ok/FAIL" per check and a last line "N passed, N failed". Server from
the fixture (tests/lib/strata_fixture.py; STRATA_BIN, STRATA_BUILD).
"""
import argparse
import os
import random
import sys
import threading
import time

import psycopg2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from strata_fixture import FixtureError, NoServerInTree, StrataServer  # noqa: E402

START_BAL = 1000
RETRY_CODES = ("40P01", "40001")
LEVELS = ("READ COMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")


def log(msg):
    print(msg, flush=True)


class Ledger:
    """What the clients know about each transfer they attempted."""

    def __init__(self):
        self.mu = threading.Lock()
        self.committed = {}   # xid -> (src, dst, amt): COMMIT returned success
        self.absent = set()   # failed before COMMIT was sent: must not be there
        self.unknown = {}     # connection lost during COMMIT: either, but whole
        self.retries = {code: 0 for code in RETRY_CODES}
        self.next_xid = 1

    def new_xid(self):
        with self.mu:
            x = self.next_xid
            self.next_xid += 1
            return x


class Run:
    """Shared state of one phase of workers and checkers."""

    def __init__(self, dsn, total, naccounts, deadline):
        self.dsn = dsn
        self.total = total
        self.naccounts = naccounts
        self.deadline = deadline
        self.stop = threading.Event()     # end the phase now
        self.crashing = threading.Event()  # the server is being killed: errors expected
        self.errors = []                  # invariant violations and unexpected errors
        self.mu = threading.Lock()
        self.stats = {"sum_reads": 0, "snapshots": 0, "transfers": 0}

    def running(self):
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def error(self, msg):
        with self.mu:
            if len(self.errors) < 50:
                self.errors.append(msg)

    def count(self, key, n=1):
        with self.mu:
            self.stats[key] += n


def connect(dsn):
    conn = psycopg2.connect(dsn, connect_timeout=10)
    conn.autocommit = True  # transactions are explicit BEGIN ... COMMIT
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = '60s'")
    return conn


def sqlstate(exc):
    return getattr(exc, "pgcode", None)


def worker(run, ledger, seed):
    rnd = random.Random(seed)
    conn = None
    try:
        conn = connect(run.dsn)
    except psycopg2.Error as e:
        if not run.crashing.is_set():
            run.error(f"worker could not connect: {e}")
        return
    cur = conn.cursor()
    while run.running():
        src, dst = rnd.sample(range(1, run.naccounts + 1), 2)
        amt = rnd.randint(1, 50)
        level = rnd.choice(LEVELS)
        for attempt in range(100):
            xid = ledger.new_xid()
            stage = "body"
            try:
                cur.execute(f"BEGIN ISOLATION LEVEL {level}")
                ups = [(-amt, src), (amt, dst)]
                rnd.shuffle(ups)  # random lock order: deadlocks happen
                for delta, acct in ups:
                    cur.execute("UPDATE acct SET bal = bal + %s WHERE id = %s", (delta, acct))
                    if cur.rowcount != 1:
                        run.error(f"transfer {xid}: UPDATE of account {acct} hit {cur.rowcount} rows")
                cur.execute("INSERT INTO xfer VALUES (%s, %s, %s, %s)", (xid, src, dst, amt))
                stage = "commit"
                cur.execute("COMMIT")
                with ledger.mu:
                    ledger.committed[xid] = (src, dst, amt)
                run.count("transfers")
                break
            except psycopg2.Error as e:
                code = sqlstate(e)
                lost = conn.closed or code is None
                with ledger.mu:
                    if lost and stage == "commit":
                        ledger.unknown[xid] = (src, dst, amt)
                    else:
                        ledger.absent.add(xid)
                    if code in RETRY_CODES:
                        ledger.retries[code] += 1
                if lost:
                    if not run.crashing.is_set():
                        run.error(f"transfer {xid}: connection lost: {e}".strip())
                    return
                try:
                    cur.execute("ROLLBACK")
                except psycopg2.Error as e2:
                    if not run.crashing.is_set():
                        run.error(f"transfer {xid}: ROLLBACK failed: {e2}".strip())
                    return
                if code not in RETRY_CODES:
                    run.error(f"transfer {xid}: unexpected error {code}: {e}".strip())
                    break
                if not run.running():
                    break
        else:
            run.error(f"transfer {src}->{dst} still failing after 100 retries")
    conn.close()


def check_snapshot(run, cur, where):
    """In the current transaction: balances and ledger agree, SUM is the total."""
    cur.execute("SELECT id, bal FROM acct")
    bal = dict(cur.fetchall())
    cur.execute("SELECT src, dst, amt FROM xfer")
    expect = {i: START_BAL for i in range(1, run.naccounts + 1)}
    for src, dst, amt in cur.fetchall():
        expect[src] -= amt
        expect[dst] += amt
    if len(bal) != run.naccounts:
        run.error(f"{where}: {len(bal)} accounts, expected {run.naccounts}")
    bad = [i for i in expect if bal.get(i) != expect[i]]
    if bad:
        i = bad[0]
        run.error(f"{where}: {len(bad)} balances disagree with the ledger, e.g. account {i}: "
                  f"bal {bal.get(i)}, ledger says {expect[i]}")
    s = sum(bal.values())
    if s != run.total:
        run.error(f"{where}: sum of balances {s}, expected {run.total}")


def checker(run, seed):
    rnd = random.Random(seed)
    try:
        conn = connect(run.dsn)
    except psycopg2.Error as e:
        if not run.crashing.is_set():
            run.error(f"checker could not connect: {e}")
        return
    cur = conn.cursor()
    while run.running():
        try:
            if rnd.random() < 0.7:
                cur.execute("SELECT sum(bal), count(*) FROM acct")
                s, n = cur.fetchone()
                if s != run.total or n != run.naccounts:
                    run.error(f"SELECT sum(bal): {s} over {n} accounts, expected {run.total} over "
                              f"{run.naccounts}")
                run.count("sum_reads")
            else:
                cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                cur.execute("SELECT sum(bal) FROM acct")
                first = cur.fetchone()[0]
                check_snapshot(run, cur, "REPEATABLE READ snapshot")
                time.sleep(rnd.random() * 0.05)  # let writers commit meanwhile
                cur.execute("SELECT sum(bal) FROM acct")
                second = cur.fetchone()[0]
                if first != run.total or second != first:
                    run.error(f"REPEATABLE READ: sums {first} then {second}, expected {run.total}")
                cur.execute("COMMIT")
                run.count("snapshots")
        except psycopg2.Error as e:
            if conn.closed or sqlstate(e) is None:
                if not run.crashing.is_set():
                    run.error(f"checker: connection lost: {e}".strip())
                return
            run.error(f"checker: unexpected error {sqlstate(e)}: {e}".strip())
            try:
                cur.execute("ROLLBACK")
            except psycopg2.Error:
                return
    conn.close()


def run_phase(srv, args, ledger, seconds, kill_at=None):
    """Runs workers and checkers for SECONDS (or until kill_at seconds, when
    the server is SIGKILLed under them). Returns the Run."""
    total = args.accounts * START_BAL
    run = Run(srv.dsn, total, args.accounts, time.monotonic() + seconds + 5)
    threads = [threading.Thread(target=worker, args=(run, ledger, args.seed * 1000 + i), daemon=True)
               for i in range(args.workers)]
    threads += [threading.Thread(target=checker, args=(run, args.seed * 1000 + 500 + i), daemon=True)
                for i in range(args.checkers)]
    for t in threads:
        t.start()
    t0 = time.monotonic()
    if kill_at is not None:
        time.sleep(kill_at)
        run.crashing.set()
        srv.kill()
        log(f"# killed the server (SIGKILL) after {time.monotonic() - t0:.1f} s of transfers")
    else:
        time.sleep(seconds)
    run.stop.set()
    for t in threads:
        t.join(timeout=90)
    if any(t.is_alive() for t in threads):
        run.error("a client thread did not finish within 90 s of the end of the phase (hung server?)")
    return run


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, name, details=()):
        if ok:
            self.passed += 1
            log(f"ok     {name}")
        else:
            self.failed += 1
            log(f"# FAIL {name}")
            for d in list(details)[:10]:
                log(f"#      {d}")


def verify_recovered(srv, args, ledger, rep, label):
    """After a restart: the database agrees with what the clients saw."""
    conn = connect(srv.dsn)
    cur = conn.cursor()
    run = Run(srv.dsn, args.accounts * START_BAL, args.accounts, 0)
    cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    check_snapshot(run, cur, label)
    cur.execute("SELECT id FROM xfer")
    present = {r[0] for r in cur.fetchall()}
    cur.execute("COMMIT")
    conn.close()
    rep.check(not run.errors, f"{label}: total unchanged, balances agree with the ledger "
              f"(no transfer half applied)", run.errors)
    with ledger.mu:
        missing = sorted(x for x in ledger.committed if x not in present)
        ghosts = sorted(x for x in ledger.absent if x in present)
        unknown_in = sum(1 for x in ledger.unknown if x in present)
        ncommitted, nunknown = len(ledger.committed), len(ledger.unknown)
    rep.check(not missing, f"{label}: all {ncommitted} acknowledged transfers are there",
              [f"{len(missing)} missing, e.g. transfer ids {missing[:10]}"])
    rep.check(not ghosts, f"{label}: no transfer that failed before COMMIT is there",
              [f"{len(ghosts)} present, e.g. transfer ids {ghosts[:10]}"])
    log(f"# {label}: {nunknown} transfers cut off during COMMIT, {unknown_in} of them committed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--long", action="store_true", help="more accounts, clients, time and crash cycles")
    ap.add_argument("--accounts", type=int)
    ap.add_argument("--workers", type=int)
    ap.add_argument("--checkers", type=int)
    ap.add_argument("--seconds", type=float, help="length of each phase")
    ap.add_argument("--cycles", type=int, help="kill/restart cycles")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("BANK_SEED", time.time())) % 100000)
    args = ap.parse_args()
    long_mode = args.long
    defaults = (dict(accounts=50, workers=8, checkers=3, seconds=60, cycles=3) if long_mode
                else dict(accounts=20, workers=4, checkers=2, seconds=15, cycles=2))
    for k, v in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    log(f"# bank: {args.accounts} accounts, {args.workers} workers, {args.checkers} checkers, "
        f"{args.cycles} crash cycle(s) of {args.seconds:.0f} s, seed {args.seed}")

    rep = Report()
    srv = StrataServer("bank")
    try:
        srv.start()
    except NoServerInTree as e:
        log(f"# bank: {e}; skipped")
        log("0 passed, 0 failed, 1 skipped")
        return 0
    except FixtureError as e:
        log(f"# FAIL fixture: {e}")
        log("0 passed, 1 failed")
        return 1
    if srv.external:
        log("# FAIL bank: needs a server it can SIGKILL; unset STRATA_TEST_PORT (use STRATA_BIN)")
        log("0 passed, 1 failed")
        return 1

    ledger = Ledger()
    t_start = time.monotonic()
    try:
        conn = connect(srv.dsn)
        cur = conn.cursor()
        cur.execute("CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL)")
        cur.execute("CREATE TABLE xfer (id bigint PRIMARY KEY, src int NOT NULL, dst int NOT NULL, "
                    "amt int NOT NULL)")
        cur.execute("INSERT INTO acct SELECT g, %s FROM generate_series(1, %s) g",
                    (START_BAL, args.accounts))
        conn.close()

        for cycle in range(1, args.cycles + 1):
            kill_at = args.seconds * random.Random(args.seed + cycle).uniform(0.6, 0.9)
            run = run_phase(srv, args, ledger, args.seconds, kill_at=kill_at)
            rep.check(not run.errors,
                      f"cycle {cycle}: {run.stats['transfers']} transfers, {run.stats['sum_reads']} "
                      f"SUM reads, {run.stats['snapshots']} REPEATABLE READ snapshots: total never "
                      f"changed", run.errors)
            t = time.monotonic()
            srv.start()
            log(f"# restarted on the same data directory in {time.monotonic() - t:.1f} s")
            verify_recovered(srv, args, ledger, rep, f"cycle {cycle} after restart")

        run = run_phase(srv, args, ledger, args.seconds / 2)
        rep.check(not run.errors and run.stats["transfers"] > 0,
                  f"after the last restart: {run.stats['transfers']} transfers, "
                  f"{run.stats['sum_reads']} SUM reads, {run.stats['snapshots']} snapshots: total "
                  f"never changed", run.errors or ["no transfer committed"])
        verify_recovered(srv, args, ledger, rep, "final")
        with ledger.mu:
            log(f"# {len(ledger.committed)} transfers committed, retried {ledger.retries['40P01']} "
                f"deadlocks (40P01) and {ledger.retries['40001']} serialization failures (40001), "
                f"{time.monotonic() - t_start:.0f} s")
    except (psycopg2.Error, FixtureError) as e:
        rep.check(False, "bank: unexpected failure", [str(e).strip()])
    if rep.failed:
        srv.mark_failed()
    clean = srv.stop()
    rep.check(clean, "server stopped cleanly (exit status 0, no sanitizer report)",
              [f"log: {srv.kept_log}"])
    log(f"{rep.passed} passed, {rep.failed} failed")
    return 0 if rep.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
