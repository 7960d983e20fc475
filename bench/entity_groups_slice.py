#!/usr/bin/python3
"""entity_groups_slice.py — child-key slices of every group (issue 10).

ORDERS orders with LINES interleaved lines each. A condition on the child's
own key without the parent's key (line_no BETWEEN 10 AND 12) slices every
group: the store seeks to each group's first matching line and on to the
next group after the last (EXPLAIN: Group Slice). The same query with the
bound hidden from the planner (line_no + 0 BETWEEN ...) reads every line
and filters row by row, which is what happened before. Measured for a scan
of the lines, the interleaved join of orders and lines, and a lookup join
(the orders fixed by an IN list of 100 ids: one group read per order).

Medians of READS runs over psycopg2. The server binary is build/release
(built here) unless STRATA_BIN names another; the load average is printed.
BENCH_WRITE=1 appends the table to docs/benchmarks.md.

Usage: bench/entity_groups_slice.py [ORDERS [LINES [READS]]]   (default 20000 50 7)
"""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import psycopg2  # noqa: E402
from strata_fixture import StrataServer  # noqa: E402

ORDERS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
LINES = int(sys.argv[2]) if len(sys.argv) > 2 else 50
READS = int(sys.argv[3]) if len(sys.argv) > 3 else 7


def binary():
    if os.environ.get("STRATA_BIN"):
        return os.environ["STRATA_BIN"], "STRATA_BIN=" + os.environ["STRATA_BIN"]
    subprocess.run(["cmake", "-S", ".", "-B", "build/release", "-DCMAKE_BUILD_TYPE=Release"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", "build/release", "-j2"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, "build", "release", "server", "strata"), "release build"


def median_ms(cur, sql):
    times, rows = [], None
    for _ in range(READS):
        t = time.perf_counter()
        cur.execute(sql)
        rows = cur.fetchall()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), rows


def main():
    exe, build = binary()
    os.environ["STRATA_BIN"] = exe
    ids = ", ".join(str(i * (ORDERS // 100) + 1) for i in range(100))
    cases = [
        ("scan of the lines", "SELECT count(*), sum(qty) FROM lines WHERE {c}"),
        ("orders joined with their lines", "SELECT count(*), sum(l.qty) FROM orders o "
         "JOIN lines l ON l.order_id = o.id WHERE {c}"),
        ("lookup join, 100 orders", "SELECT count(*), sum(l.qty) FROM orders o "
         f"JOIN lines l ON l.order_id = o.id WHERE o.id IN ({ids}) AND {{c}}"),
    ]
    out = []
    with StrataServer("eg_slice") as srv:
        conn = psycopg2.connect(srv.dsn)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("CREATE TABLE orders (id int PRIMARY KEY, customer text)")
        cur.execute("CREATE TABLE lines (order_id int, line_no int, item text, qty int, "
                    "PRIMARY KEY (order_id, line_no)) WITH (interleave_in_parent = 'orders')")
        cur.execute(f"INSERT INTO orders SELECT i, 'c' || i FROM generate_series(1, {ORDERS}) i")
        step = max(1, 200000 // LINES)
        for lo in range(1, ORDERS + 1, step):
            cur.execute(f"INSERT INTO lines SELECT o, n, 'item' || n, n FROM generate_series({lo}, "
                        f"{min(ORDERS, lo + step - 1)}) o, generate_series(1, {LINES}) n")
        for label, q in cases:
            sliced, a = median_ms(cur, q.format(c="line_no BETWEEN 10 AND 12"))
            whole, b = median_ms(cur, q.format(c="line_no + 0 BETWEEN 10 AND 12"))
            if a != b:
                raise SystemExit(f"{label}: answers differ: {a} != {b}")
            cur.execute("EXPLAIN " + q.format(c="line_no BETWEEN 10 AND 12"))
            plan = [r[0].strip() for r in cur.fetchall()]
            ok = any(p.startswith("Group Slice") for p in plan)
            joins = [p.split("  (cost")[0].lstrip("-> ") for p in plan
                     if "Join" in p or "Nested Loop" in p]
            out.append((label, sliced, whole, ok, joins[0] if joins else "Seq Scan"))
        conn.close()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    head = (f"`bench/entity_groups_slice.py {ORDERS} {LINES} {READS}`: {build}, {ORDERS} orders x {LINES} "
            f"interleaved lines, `line_no BETWEEN 10 AND 12` (3 lines of each group) against `line_no + 0 "
            f"BETWEEN 10 AND 12` (no slice); medians of {READS} runs; 2 cores, load at end {load}.")
    lines = [head, "", "| query | plan | sliced (ms) | row by row (ms) | speed-up | Group Slice in EXPLAIN |",
             "| --- | --- | ---: | ---: | ---: | --- |"]
    for label, s, w, ok, top in out:
        lines.append(f"| {label} | {top} | {s:.1f} | {w:.1f} | {w / s:.1f}x | {'yes' if ok else 'NO'} |")
    text = "\n".join(lines)
    print(text)
    if os.environ.get("BENCH_WRITE") == "1":
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        with open(os.path.join(ROOT, "docs", "benchmarks.md"), "a") as f:
            f.write(f"\n## Entity groups: child-key slices, {stamp} (commit {commit})\n\n{text}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
