#!/usr/bin/python3
"""pgbench_test.py — pgbench 15 against strata: initialisation steps (drop,
create, client- and server-side generate, vacuum, primary keys, foreign keys)
and the built-in scripts (select-only -S, simple-update -N, tpcb-like) in each
query mode (-M simple, extended, prepared), checking every transaction
succeeds and the balances add up. Functional only: throughput belongs in bench/.
"""
import re
import subprocess

import drvtest
from drvtest import check, eq, test

import psycopg2


def pgbench(ctx, *args, timeout=300):
    cmd = ["pgbench", "-h", ctx.host, "-p", str(ctx.port), "-U", "postgres", *args, "postgres"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def query(ctx, sql):
    with psycopg2.connect(ctx.dsn) as conn:
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall() if cur.description else None


# pgbench's own tables, created with their primary keys up front, so the runs
# below do not depend on ALTER TABLE ... ADD PRIMARY KEY (tested separately).
TABLES = """
DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers;
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84));
CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84));
CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88));
"""


@test
def init_client_side(ctx):
    rc, out = pgbench(ctx, "-i", "-I", "dtgv", "-s", "1")
    eq(rc, 0, f"pgbench -i -I dtgv: {out}")
    eq(query(ctx, "SELECT count(*) FROM pgbench_accounts"), [(100000,)], "accounts")
    eq(query(ctx, "SELECT count(*), sum(bbalance) FROM pgbench_branches"), [(1, 0)], "branches")
    eq(query(ctx, "SELECT count(*) FROM pgbench_tellers"), [(10,)], "tellers")


@test
def init_server_side(ctx):
    rc, out = pgbench(ctx, "-i", "-I", "dtGv", "-s", "1")
    eq(rc, 0, f"pgbench -i -I dtGv (generate_series): {out}")
    eq(query(ctx, "SELECT count(*), min(aid), max(aid) FROM pgbench_accounts"), [(100000, 1, 100000)], "accounts")


@test
def init_primary_keys(ctx):
    rc, out = pgbench(ctx, "-i", "-I", "dtgvp", "-s", "1")
    eq(rc, 0, f"pgbench -i (with primary keys): {out}")
    rows = query(ctx, "SELECT conname FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text LIKE 'pgbench%' ORDER BY 1")
    eq(rows, [("pgbench_accounts_pkey",), ("pgbench_branches_pkey",), ("pgbench_tellers_pkey",)], "primary keys")


@test
def init_foreign_keys(ctx):
    rc, out = pgbench(ctx, "-i", "--foreign-keys", "-s", "1")
    eq(rc, 0, f"pgbench -i --foreign-keys: {out}")


def load_with_keys(ctx):
    with psycopg2.connect(ctx.dsn) as conn:
        conn.autocommit = True
        conn.cursor().execute(TABLES)
    rc, out = pgbench(ctx, "-i", "-I", "gv", "-s", "1")
    eq(rc, 0, f"pgbench -i -I gv: {out}")


def run_script(ctx, mode, script_args):
    # -n: no VACUUM and no TRUNCATE of pgbench_history before the run (the checks use it).
    rc, out = pgbench(ctx, "-n", "-M", mode, *script_args, "-c", "2", "-j", "2", "-t", "25")
    eq(rc, 0, f"pgbench -M {mode} {' '.join(script_args)}: {out}")
    m = re.search(r"number of transactions actually processed: (\d+)/(\d+)", out)
    check(m and m.group(1) == m.group(2) == "50", f"all transactions processed: {out}")
    m = re.search(r"number of failed transactions: (\d+)", out)
    check(m and m.group(1) == "0", f"no failed transactions: {out}")


def make_run_test(mode, label, script_args):
    def fn(ctx):
        if not query(ctx, "SELECT 1 FROM pg_class WHERE relname = 'pgbench_accounts' AND relhasindex"):
            load_with_keys(ctx)
        before = query(ctx, "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches), "
                            "(SELECT sum(tbalance) FROM pgbench_tellers), (SELECT coalesce(sum(delta), 0) FROM pgbench_history)")[0]
        run_script(ctx, mode, script_args)
        a, b, t, h = query(ctx, "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches), "
                                "(SELECT sum(tbalance) FROM pgbench_tellers), (SELECT coalesce(sum(delta), 0) FROM pgbench_history)")[0]
        delta = h - before[3]
        eq(a - before[0], delta, "accounts changed by the history's deltas")
        if label == "tpcb":
            eq((b - before[1], t - before[2]), (delta, delta), "branches and tellers follow")
    fn.__name__ = f"run_{label}_{mode}"
    return fn


for _mode in ("simple", "extended", "prepared"):
    for _label, _args in (("select_only", ["-S"]), ("simple_update", ["-N"]), ("tpcb", [])):
        test(make_run_test(_mode, _label, _args))


if __name__ == "__main__":
    raise SystemExit(drvtest.main("pgbench"))
