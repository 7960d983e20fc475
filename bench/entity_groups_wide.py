#!/usr/bin/python3
"""entity_groups_wide.py — one entity group of a million child rows (issue 10).

On a release build: orders with lines interleaved in them; N lines (default
1,000,000) go into ONE order, in transactions of B rows (default 10,000, as
one INSERT ... SELECT each). The time of every 100k rows is recorded: if a
write to the group cost anything proportional to the group's size, these
would grow linearly; they must stay flat. Then, on the wide group:

  parent alone     SELECT * FROM orders WHERE id = 1 (median of R reads),
                   compared with the same read before any child existed
                   and with a neighbouring order that has no children
  parent scan      SELECT count(*), sum(total) FROM orders (all orders;
                   each row's children are skipped with a seek)
  slice            50 children by key range (line_no BETWEEN x AND x+49)
  point            one child by its full key
  count            count(*) of the group's children
  join             the order joined with its lines (count over the join)
  flush / compact  strata_flush and a major strata_compact of the table
  delete           DELETE of the order, its lines going with it (cascade)

Prints a Markdown table; BENCH_WRITE=1 appends it to docs/benchmarks.md.

Usage: bench/entity_groups_wide.py [LINES [BATCH [READS]]]   (default 1000000 10000 200)
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

LINES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
READS = int(sys.argv[3]) if len(sys.argv) > 3 else 200
ORDERS = 1000  # other orders around the wide one, no children
STEP = 100000 if LINES >= 200000 else max(BATCH, LINES // 10)


def build():
    subprocess.run(["cmake", "-S", ".", "-B", "build/release", "-DCMAKE_BUILD_TYPE=Release"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", "build/release", "-j2"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, "build", "release", "server", "strata")


def timed(cur, sql, args=()):
    t = time.perf_counter()
    cur.execute(sql, args)
    rows = cur.fetchall() if cur.description else None
    return time.perf_counter() - t, rows


def median_ms(cur, sql, args_of, n=READS):
    """Median latency in ms of n runs of sql (args_of(i) gives the args)."""
    ts = []
    rows = None
    for i in range(n):
        t, rows = timed(cur, sql, args_of(i))
        ts.append(t)
    return statistics.median(ts) * 1000, rows


def main():
    os.environ["STRATA_BIN"] = build()
    res = []  # (what, value, unit, note)
    with StrataServer("eg_wide") as srv:
        conn = psycopg2.connect(srv.dsn)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("CREATE TABLE orders (id int PRIMARY KEY, customer text, total numeric(10,2))")
        cur.execute("CREATE TABLE lines (order_id int, line_no int, item text, qty int, price numeric(8,2), "
                    "PRIMARY KEY (order_id, line_no)) "
                    "WITH (interleave_in_parent = 'orders', interleave_on_delete = 'cascade')")
        cur.execute("INSERT INTO orders SELECT i, 'cust' || i, mod(i, 997) FROM generate_series(1, %s) i", (ORDERS,))
        cur.execute("SELECT strata_flush('orders')")
        parent = "SELECT * FROM orders WHERE id = %s"
        p0, r0 = median_ms(cur, parent, lambda i: (1,))
        p0n, _ = median_ms(cur, parent, lambda i: (2,))
        scan0, _ = median_ms(cur, "SELECT count(*), sum(total) FROM orders", lambda i: (), n=max(READS // 10, 5))

        # The load: one order, LINES lines, BATCH per transaction.
        print(f"entity_groups_wide: {LINES} lines into order 1, {BATCH} per transaction", flush=True)
        conn.autocommit = False
        per_step = []
        t_all = t_step = time.perf_counter()
        done = 0
        while done < LINES:
            n = min(BATCH, LINES - done)
            cur.execute("INSERT INTO lines SELECT 1, i, 'item' || mod(i, 100), mod(i, 10), mod(i, 1000) / 10.0 "
                        "FROM generate_series(%s, %s) i", (done + 1, done + n))
            conn.commit()
            done += n
            if done % STEP == 0 or done == LINES:
                now = time.perf_counter()
                per_step.append(now - t_step)
                print(f"  {done:>8} rows: {now - t_step:6.2f} s for the last {STEP}", flush=True)
                t_step = now
        load = time.perf_counter() - t_all
        conn.autocommit = True

        # Reads, first with the new rows partly in the memstore (as written), then flushed.
        t_flush, _ = timed(cur, "SELECT strata_flush('orders')")
        p1, r1 = median_ms(cur, parent, lambda i: (1,))
        p1n, _ = median_ms(cur, parent, lambda i: (2,))
        scan1, _ = median_ms(cur, "SELECT count(*), sum(total) FROM orders", lambda i: (), n=max(READS // 10, 5))
        assert r1 == r0, (r0, r1)
        mid = LINES // 2
        sl, rows = median_ms(cur, "SELECT * FROM lines WHERE order_id = 1 AND line_no BETWEEN %s AND %s",
                             lambda i: (mid + i, mid + i + 49))
        assert len(rows) == 50, rows
        pt, rows = median_ms(cur, "SELECT * FROM lines WHERE order_id = 1 AND line_no = %s",
                             lambda i: (1 + (i * 7919) % LINES,))
        assert len(rows) == 1, rows
        cnt_t, rows = timed(cur, "SELECT count(*) FROM lines WHERE order_id = 1")
        assert rows == [(LINES,)], rows
        join_t, rows = timed(cur, "SELECT o.customer, count(*), sum(l.qty) FROM orders o JOIN lines l "
                             "ON l.order_id = o.id WHERE o.id = 1 GROUP BY o.customer")
        assert rows[0][1] == LINES, rows
        cur.execute("EXPLAIN SELECT o.*, l.* FROM orders o JOIN lines l ON l.order_id = o.id WHERE o.id = 1")
        plan = " / ".join(r[0].strip() for r in cur.fetchall())
        t_compact, _ = timed(cur, "SELECT strata_compact('orders', true)")
        p2, _ = median_ms(cur, parent, lambda i: (1,))
        cur.execute("SELECT count(*), coalesce(sum(size), 0) FROM strata_files WHERE relation LIKE 'public.%'")
        files, fbytes = cur.fetchone()
        del_t, rows = timed(cur, "DELETE FROM orders WHERE id = 1")
        _, rows = timed(cur, "SELECT count(*) FROM lines")
        assert rows == [(0,)], rows
        p3, r3 = median_ms(cur, parent, lambda i: (2,))
        conn.close()

    first, last = per_step[0], per_step[-1]
    res += [
        (f"load {LINES} lines into one order", f"{load:.1f}", "s",
         f"{LINES / load:,.0f} rows/s; {BATCH} rows per transaction"),
        (f"time per {STEP} rows (first / median / last)",
         f"{first:.2f} / {statistics.median(per_step):.2f} / {last:.2f}", "s",
         f"last/first = {last / first:.2f}"),
        ("parent alone, 0 children", f"{p0:.3f}", "ms", f"neighbour order: {p0n:.3f} ms"),
        (f"parent alone, {LINES} children", f"{p1:.3f}", "ms",
         f"neighbour order: {p1n:.3f} ms; after major compaction: {p2:.3f} ms"),
        (f"scan of all {ORDERS} orders, 0 / {LINES} children in one", f"{scan0:.2f} / {scan1:.2f}", "ms", ""),
        ("slice of 50 children by key range", f"{sl:.3f}", "ms", "line_no BETWEEN x AND x+49"),
        ("point lookup of one child", f"{pt:.3f}", "ms", ""),
        ("count(*) of the group", f"{cnt_t * 1000:.0f}", "ms", f"{LINES / cnt_t:,.0f} children/s"),
        ("order joined with all its lines (aggregate)", f"{join_t * 1000:.0f}", "ms", ""),
        ("strata_flush / major strata_compact", f"{t_flush:.2f} / {t_compact:.2f}", "s",
         f"{files} file(s), {float(fbytes) / 1e6:.1f} MB after compaction"),
        ("DELETE of the order (cascade)", f"{del_t * 1000:.1f}", "ms", f"a neighbour read after: {p3:.3f} ms"),
    ]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    with open("/proc/loadavg") as f:
        load_avg = f.read().split()[0]
    out = [
        "",
        f"## Entity groups: one group of 1M children, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
        f"(commit {commit})",
        "",
        f"`bench/entity_groups_wide.py {LINES} {BATCH} {READS}`: release build, one order with {LINES} "
        f"interleaved lines among {ORDERS} orders; latencies are medians of {READS} runs over psycopg2 "
        f"(round trip included); {os.cpu_count()} cores, load at end {load_avg}.",
        f"Join plan: `{plan}`.",
        "",
        "| measurement | value | unit | note |",
        "| --- | ---: | --- | --- |",
    ] + [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in res]
    text = "\n".join(out) + "\n"
    print(text)
    if os.environ.get("BENCH_WRITE") == "1":
        with open(os.path.join(ROOT, "docs", "benchmarks.md"), "a") as f:
            f.write(text)
        print("entity_groups_wide: appended to docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
