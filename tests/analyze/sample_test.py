#!/usr/bin/env python3
"""sample_test.py — ANALYZE of a big table reads a sample of its blocks
(sql/stats.c, docs/performance.md "ANALYZE by sampled blocks"): the
statistics it keeps are checked against the table's true figures, computed
by queries over the whole table. Small tables, tables with the
transaction's own writes, and most of a table still in the memstore are read
in full, with an exact row count. Prints "N passed, N failed".

usage: sample_test.py --port P [--host H]
"""
import argparse
import re
import sys
import time

import psycopg2

ROWS = 60000
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


def q(cur, sql, args=None):
    cur.execute(sql, args)
    return cur.fetchall() if cur.description else None


def analyze_verbose(conn, cur, table):
    """Runs ANALYZE VERBOSE and returns its report: (blocks read, blocks,
    rows read, rows in sample, estimated rows); blocks are None when the
    whole table was read."""
    del conn.notices[:]
    q(cur, f"ANALYZE VERBOSE {table}")
    rep = [n for n in conn.notices if f'"{table}":' in n]
    if len(rep) != 1:
        return None
    m = re.search(r"scanned (\d+) of (\d+) blocks, containing (\d+) live rows and 0 dead rows; "
                  r"(\d+) rows in sample, (\d+) estimated total rows", rep[0])
    if m:
        return tuple(int(x) for x in m.groups())
    m = re.search(r"scanned the whole table, containing (\d+) live rows and 0 dead rows; "
                  r"(\d+) rows in sample, (\d+) estimated total rows", rep[0])
    if m:
        return (None, None) + tuple(int(x) for x in m.groups())
    return None


def wait_autoanalyze(cur, table, done):
    """A commit of many rows queues the table for the background ANALYZE
    (sql/autoanalyze.c), which would overwrite the statistics under test if
    it ran after ours: waits until done(reltuples) says it has run."""
    for _ in range(600):
        rt = q(cur, "SELECT reltuples FROM pg_class WHERE relname = %s", (table,))[0][0]
        if done(rt):
            return True
        time.sleep(0.1)
    return False


def stats(cur, table, col):
    r = q(cur, "SELECT null_frac, n_distinct, avg_width, most_common_vals::text, most_common_freqs, "
          "histogram_bounds::text FROM pg_stats WHERE tablename = %s AND attname = %s", (table, col))
    return r[0] if r else None


def bounds(text):
    return [int(x) for x in text.strip("{}").split(",")] if text else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    conn = psycopg2.connect(host=a.host, port=a.port, user="postgres", dbname="postgres")
    conn.autocommit = True
    cur = conn.cursor()
    q(cur, "DROP TABLE IF EXISTS an_big, an_small")
    # g: 100 values; h: NULL in a tenth of the rows; k: 0 in a quarter of
    # the rows, else unique; t: text of varying width.
    q(cur, "CREATE TABLE an_big (id int PRIMARY KEY, g int, h int, k int, t text)")
    q(cur, "INSERT INTO an_big SELECT i, i % 100, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 7 END, "
        f"CASE WHEN i % 4 = 0 THEN 0 ELSE i END, repeat('x', i % 20) FROM generate_series(1, {ROWS}) i")
    check("autoanalyze", wait_autoanalyze(cur, "an_big", lambda rt: rt > 0), "not run in 60 s")
    q(cur, "VACUUM an_big")  # into sorted files, whose blocks ANALYZE samples
    rep = analyze_verbose(conn, cur, "an_big")
    check("report", rep is not None, f"notices {conn.notices}")
    if rep is None:
        print(f"{passed} passed, {failed} failed")
        return 1
    read_blocks, blocks, rows_read, in_sample, est = rep
    check("sampled", blocks is not None and blocks >= 64 and read_blocks <= min(blocks, 1000), f"report {rep}")
    check("read a part", rows_read < ROWS, f"read {rows_read} of {ROWS} rows")
    # 30000 asked for: the first rows of each block visited (a block can
    # hold fewer than its share).
    check("sample size", 0.97 * 30000 <= in_sample <= 30000, f"{in_sample} rows in sample")
    check("row estimate", abs(est - ROWS) <= 0.05 * ROWS, f"estimated {est}, true {ROWS}")
    rt = q(cur, "SELECT reltuples FROM pg_class WHERE relname = 'an_big'")[0][0]
    check("reltuples", rt == est, f"reltuples {rt}, report {est}")

    st = stats(cur, "an_big", "g")
    check("g n_distinct", st and st[1] == 100, f"g stats {st}")
    st = stats(cur, "an_big", "id")
    check("id unique", st and st[1] == -1, f"id stats {st}")
    hb = bounds(st[5] if st else "")
    check("id histogram size", len(hb) == 101, f"{len(hb)} bounds")
    # ids are 1..ROWS: bound i should sit near the i-th percentile.
    worst = max((abs(b - i * ROWS / (len(hb) - 1)) for i, b in enumerate(hb)), default=ROWS)
    check("id histogram", worst <= 0.03 * ROWS, f"worst bound {worst} rows off, bounds {hb[:12]}...")
    check("id histogram ascending", hb == sorted(hb), "")
    st = stats(cur, "an_big", "h")
    check("h null_frac", st and abs(st[0] - 0.1) <= 0.02, f"h stats {st}")
    check("h n_distinct", st and st[1] == 7, f"h stats {st}")
    st = stats(cur, "an_big", "k")
    mcv = bounds(st[3]) if st and st[3] else []
    check("k mcv", mcv[:1] == [0] and abs(st[4][0] - 0.25) <= 0.03, f"k stats {st}")
    st = stats(cur, "an_big", "t")
    true_w = float(q(cur, "SELECT avg(octet_length(t)) FROM an_big")[0][0])
    check("t avg_width", st and abs(st[2] - true_w) <= 1.5, f"t stats {st}, true width {true_w}")
    # The planner's estimate of a key range follows the histogram.
    plan = q(cur, "EXPLAIN SELECT * FROM an_big WHERE id < %s", (ROWS // 2,))[0][0]
    m = re.search(r"rows=(\d+)", plan)
    check("plan estimate", m and abs(int(m.group(1)) - ROWS / 2) <= 0.05 * ROWS, f"plan {plan}")
    # The same table gives the same sample.
    before = stats(cur, "an_big", "id")
    rep2 = analyze_verbose(conn, cur, "an_big")
    check("repeatable", rep2 == rep and stats(cur, "an_big", "id") == before, f"{rep} then {rep2}")

    # Deleted rows are not counted: delete half of the rows, flush.
    q(cur, "DELETE FROM an_big WHERE id % 2 = 0")
    check("autoanalyze after delete", wait_autoanalyze(cur, "an_big", lambda rt: rt < 0.75 * ROWS),
          "not run in 60 s")
    q(cur, "VACUUM an_big")
    rep = analyze_verbose(conn, cur, "an_big")
    check("after delete", rep and abs(rep[4] - ROWS / 2) <= 0.05 * ROWS / 2, f"report {rep}")
    st = stats(cur, "an_big", "g")
    check("after delete g", st and st[1] == 50, f"g stats {st}")

    # The transaction's own writes: the whole table, exactly.
    conn.autocommit = False
    q(cur, f"INSERT INTO an_big SELECT i, 1, 1, 1, 'y' FROM generate_series({ROWS + 1}, {ROWS + 10}) i")
    rep = analyze_verbose(conn, cur, "an_big")
    n = q(cur, "SELECT count(*) FROM an_big")[0][0]
    check("own writes", rep and rep[0] is None and rep[2] == n and rep[4] == n, f"report {rep}, count {n}")
    conn.rollback()
    conn.autocommit = True

    # A small table: read in full, exact.
    q(cur, "CREATE TABLE an_small (id int PRIMARY KEY, v int)")
    q(cur, "INSERT INTO an_small SELECT i, i % 3 FROM generate_series(1, 1000) i")
    check("autoanalyze small", wait_autoanalyze(cur, "an_small", lambda rt: rt > 0), "not run in 60 s")
    q(cur, "VACUUM an_small")
    rep = analyze_verbose(conn, cur, "an_small")
    check("small table", rep and rep[0] is None and rep[2] == 1000 and rep[4] == 1000, f"report {rep}")
    st = stats(cur, "an_small", "v")
    check("small v", st and st[1] == 3, f"v stats {st}")
    q(cur, "DROP TABLE an_big, an_small")
    conn.close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
