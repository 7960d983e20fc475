#!/usr/bin/python3
"""parallel_test.py — parallel range scans and partial aggregation per worker
(sql/plan_order.c plan_parallel/plan_partial, sql/exec_scan.c workers with a
sink, sql/exec_agg.c combine), against a real server:

  plans      with SET strata.partial_aggregation = on (off by default) EXPLAIN
             shows Finalize Aggregate <- Gather <- Partial Aggregate <- Parallel
             Seq Scan / Parallel Index Scan; EXPLAIN ANALYZE shows the workers
             launched; aggregates without a combine function (string_agg,
             DISTINCT) are not split
  results    every aggregate form (count, count(x), sum, avg, min, max of int,
             numeric, text, stddev, bool_and, FILTER, GROUP BY, key ranges,
             filters matching nothing) gives the same answer with workers as
             without, and the simple ones match sums computed here from the
             generated data
  errors     an error raised inside a worker's aggregation (division by zero)
             reaches the client with its SQLSTATE, and the session goes on
  writes     a transaction's own uncommitted rows are counted (the scan then
             runs serially) and a concurrent session does not see them
  salted     key ranges of salted tables (2, 5, 16 and 64 buckets, random
             data) read by the workers: unordered (Gather, partial
             aggregation) and merged in key order (Gather Merge: ORDER BY
             asc/desc, LIMIT/OFFSET, IN lists, filters) give the same rows,
             in the same order where ordered, as the serial plan and as an
             unsalted copy of the data; also with most buckets empty (rows
             deleted after ANALYZE), with the transaction's own writes (the
             merge falls back to the bucket scans) and with an error raised
             in a worker

Usage: tests/parallel/run.sh [TEST...]   (one line per test, then "N passed, N failed")
"""
import io
import os
import random
import sys
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import psycopg2  # noqa: E402
from strata_fixture import StrataServer  # noqa: E402

NROWS = 200000  # a third of it (the estimate for LIKE) is above the 50,000-row parallel threshold


def gen_rows():
    """Deterministic rows: (g, k, v, i, s, b); s NULL every 10th row."""
    rows = []
    for n in range(NROWS):
        g = n % 40
        k = n
        v_cents = (n * 7919) % 100000          # numeric(12,2) as cents
        i = (n * 31) % 1000
        s = None if n % 10 == 0 else "s%05x" % ((n * 2654435761) % 1048576)
        b = n % 3 != 0
        rows.append((g, k, v_cents, i, s, b))
    return rows


def q(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall() if cur.description else None


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def setup(conn, rows):
    q(conn, "DROP TABLE IF EXISTS pt")
    q(conn, "CREATE TABLE pt (g int, k int, v numeric(12,2), i int, s text, b bool, PRIMARY KEY (g, k))")
    buf = io.StringIO()
    for g, k, v, i, s, b in rows:
        buf.write(f"{g}\t{k}\t{v // 100}.{v % 100:02d}\t{i}\t{s if s is not None else chr(92) + 'N'}\t{'t' if b else 'f'}\n")
    buf.seek(0)
    with conn.cursor() as cur:
        cur.copy_expert("COPY pt FROM STDIN", buf)
    # Split points come from the sorted files' block indexes.
    q(conn, "SELECT strata_flush('pt')")
    q(conn, "ANALYZE pt")


def both(conn, sql):
    """The query's rows with workers and without (sorted for comparison)."""
    q(conn, "SET max_parallel_workers_per_gather = 2")
    par = q(conn, sql)
    q(conn, "SET max_parallel_workers_per_gather = 0")
    ser = q(conn, sql)
    q(conn, "RESET max_parallel_workers_per_gather")
    return sorted(par, key=repr), sorted(ser, key=repr)


def explain(conn, sql, analyze=False):
    return "\n".join(r[0] for r in q(conn, ("EXPLAIN ANALYZE " if analyze else "EXPLAIN ") + sql))


def test_plans(conn, rows):
    r8 = "SELECT count(*), max(v) FROM pt WHERE s LIKE '%ab%'"
    p = explain(conn, r8)
    order = ["Finalize Aggregate", "Gather", "Workers Planned: 2", "Partial Aggregate", "Parallel Seq Scan on pt"]
    pos = [p.find(x) for x in order]
    check(all(x >= 0 for x in pos) and pos == sorted(pos), f"partial aggregation plan:\n{p}")
    a = explain(conn, r8, analyze=True)
    launched = [ln for ln in a.splitlines() if "Workers Launched:" in ln]
    check(launched and int(launched[0].split(":")[1]) >= 2, f"workers launched:\n{a}")
    grp = "SELECT i % 5, count(*), sum(v) FROM pt WHERE g BETWEEN 3 AND 30 GROUP BY 1"
    p = explain(conn, grp)
    for x in ["Finalize HashAggregate", "Partial HashAggregate", "Parallel Index Scan using pt_pkey on pt"]:
        check(x in p, f"{x} missing:\n{p}")
    # Off by default: the operator aggregates the rows the workers send up.
    q(conn, "RESET strata.partial_aggregation")
    p = explain(conn, r8)
    q(conn, "SET strata.partial_aggregation = on")
    check("Partial" not in p and "Finalize" not in p and "Parallel Seq Scan" in p, f"default plan:\n{p}")
    # No combine function: the operator aggregates the workers' rows itself.
    for sql in ["SELECT string_agg(s, ',') FROM pt WHERE i = 7", "SELECT count(DISTINCT i) FROM pt"]:
        p = explain(conn, sql)
        check("Partial" not in p and "Gather" in p, f"{sql} must not be split:\n{p}")


def test_results(conn, rows):
    queries = [
        "SELECT count(*), max(v) FROM pt WHERE s LIKE '%ab%'",
        "SELECT count(*), count(s), sum(v), avg(v), min(v), max(v), sum(i), avg(i), min(s), max(s) FROM pt",
        "SELECT min(k), max(k), stddev(v), variance(i), bool_and(b), bool_or(b), every(i < 999) FROM pt",
        "SELECT count(*) FILTER (WHERE b), sum(v) FILTER (WHERE i > 500), max(s) FILTER (WHERE g = 3) FROM pt",
        "SELECT i % 5, count(*), sum(v), avg(v), max(s) FROM pt GROUP BY 1",
        "SELECT b, g % 3, count(*), min(i), sum(k) FROM pt WHERE g BETWEEN 3 AND 30 GROUP BY 1, 2",
        "SELECT count(*), max(v), min(s) FROM pt WHERE s LIKE '%zzzz%'",
        "SELECT i, count(*) FROM pt WHERE s LIKE '%ab%' GROUP BY i HAVING count(*) > 1",
        "SELECT count(*), sum(v) FROM pt WHERE g > 10 AND i < 100",
        "SELECT string_agg(s, ',' ORDER BY k) IS NOT NULL, count(DISTINCT i) FROM pt WHERE g < 20",
    ]
    for sql in queries:
        par, ser = both(conn, sql)
        check(par == ser, f"{sql}: with workers {par[:5]} != without {ser[:5]}")
    # Filtered scans build the rest of a row only for rows the filter keeps
    # (sql/exec_scan.c): whole rows out, NULLs in and out of the filter.
    want = sorted((g, k, v, i, s, b) for g, k, v, i, s, b in rows if i == 7 and s is not None)
    for par in (2, 0):
        q(conn, f"SET max_parallel_workers_per_gather = {par}")
        got = q(conn, "SELECT g, k, (v * 100)::int, i, s, b FROM pt WHERE i = 7 AND s IS NOT NULL ORDER BY g, k")
        check([tuple(r) for r in got] == want, f"filtered whole rows (workers {par}): {got[:3]} != {want[:3]}")
        got = q(conn, "SELECT count(*), sum(k), max(v) FROM pt WHERE s IS NULL")[0]
        nul = [r for r in rows if r[4] is None]
        check(got[0] == len(nul) and got[1] == sum(r[1] for r in nul) and int(got[2] * 100) == max(r[2] for r in nul),
              f"s IS NULL (workers {par}): {got}")
    q(conn, "RESET max_parallel_workers_per_gather")
    # Independent answers from the generated data.
    n = sum(1 for r in rows if r[4] is not None and "ab" in r[4])
    mx = max(r[2] for r in rows if r[4] is not None and "ab" in r[4])
    got = q(conn, "SELECT count(*), max(v) FROM pt WHERE s LIKE '%ab%'")[0]
    check(got[0] == n and int(got[1] * 100) == mx, f"r8 form: {got} != {n}, {mx / 100}")
    tot = sum(r[2] for r in rows if 3 <= r[0] <= 30)
    got = q(conn, "SELECT count(*), sum(v), sum(i) FROM pt WHERE g BETWEEN 3 AND 30")[0]
    want = (sum(1 for r in rows if 3 <= r[0] <= 30), tot, sum(r[3] for r in rows if 3 <= r[0] <= 30))
    check(got[0] == want[0] and int(got[1] * 100) == want[1] and got[2] == want[2], f"range sums {got} != {want}")
    groups = {}
    for r in rows:
        groups[r[3] % 5] = groups.get(r[3] % 5, 0) + 1
    got = dict(q(conn, "SELECT i % 5, count(*) FROM pt GROUP BY 1"))
    check(got == groups, f"group counts {got} != {groups}")


def test_errors(conn, rows):
    for _ in range(3):
        try:
            q(conn, "SELECT sum(1 / (i - 500)) FROM pt")
            raise AssertionError("division by zero in a worker's aggregate did not fail")
        except psycopg2.Error as e:
            check(e.pgcode == "22012", f"expected 22012, got {e.pgcode}: {e}")
        check(q(conn, "SELECT count(*) FROM pt")[0][0] == len(rows), "session unusable after the error")
    # The same error raised by a worker's scan filter (decoded before the rest of the row).
    try:
        q(conn, "SELECT count(*), max(s) FROM pt WHERE 1 / (i - 500) > 0")
        raise AssertionError("division by zero in a worker's scan filter did not fail")
    except psycopg2.Error as e:
        check(e.pgcode == "22012", f"expected 22012, got {e.pgcode}: {e}")


def test_writes(conn, rows, dsn):
    other = psycopg2.connect(dsn)
    other.autocommit = True
    conn.autocommit = False
    try:
        q(conn, "INSERT INTO pt VALUES (5, -1, 1000.00, 1, 'ab', true), (6, -2, 2.00, 2, 'xab', false)")
        q(conn, "DELETE FROM pt WHERE g = 7 AND k < 1000")
        deleted = sum(1 for r in rows if r[0] == 7 and r[1] < 1000)
        got = q(conn, "SELECT count(*), max(v) FROM pt")[0]
        check(got[0] == len(rows) + 2 - deleted and got[1] == 1000, f"own writes: {got}")
        got = q(other, "SELECT count(*) FROM pt")[0][0]
        check(got == len(rows), f"another session sees uncommitted rows: {got}")
        conn.rollback()
    finally:
        conn.autocommit = True
        other.close()


SALT_ROWS = 160000  # a third of it (the estimate of a filter) above the parallel threshold
SALT_BUCKETS = (3, 16, 64)


def salted_setup(conn):
    """The same random rows in st{N} (salted) and sp (plain)."""
    rnd = random.Random(int(os.environ.get("PARALLEL_SEED", "7")))
    keys = set()
    while len(keys) < SALT_ROWS:
        keys.add((rnd.randrange(40), rnd.randrange(1000000)))
    buf = io.StringIO()
    for g, k in sorted(keys, key=lambda x: rnd.random()):
        s = chr(92) + "N" if rnd.random() < 0.1 else "s%05x" % rnd.randrange(1 << 20)
        buf.write(f"{g}\t{k}\t{rnd.randrange(100000) / 100:.2f}\t{rnd.randrange(1000)}\t{s}\n")
    for name, w in [("sp", "")] + [(f"st{n}", f"WITH (salt_buckets = {n})") for n in SALT_BUCKETS]:
        q(conn, f"DROP TABLE IF EXISTS {name}")
        q(conn, f"CREATE TABLE {name} (g int, k int, v numeric(12,2), i int, s text, PRIMARY KEY (g, k)) {w}")
        buf.seek(0)
        with conn.cursor() as cur:
            cur.copy_expert(f"COPY {name} FROM STDIN", buf)
        q(conn, f"SELECT strata_flush('{name}')")
        q(conn, f"ANALYZE {name}")


# (query, plan it must have with workers on a salted table; None: no check).
# Long ordered results are compared as a digest of the rows in the order the
# subquery's scan returns them (string_agg keeps its input order).
def digest(sql):
    return f"SELECT count(*), md5(string_agg(x::text, ',')) FROM ({sql}) x"


SALT_QUERIES = [
    (digest("SELECT g, k, v, i, s FROM {t} WHERE g >= 2 ORDER BY g, k"), "Gather Merge"),
    (digest("SELECT g, k, i FROM {t} WHERE g >= 1 ORDER BY g DESC, k DESC"), "Gather Merge"),
    (digest("SELECT g, k, s FROM {t} WHERE g BETWEEN 1 AND 38 ORDER BY g, k LIMIT 90000"), "Gather Merge"),
    (digest("SELECT g, k FROM {t} WHERE g < 39 ORDER BY g DESC, k DESC LIMIT 70000 OFFSET 7"), "Gather Merge"),
    (digest("SELECT g, k, i FROM {t} WHERE g >= 2 AND s IS NOT NULL ORDER BY g, k LIMIT 35000"), "Gather Merge"),
    ("SELECT g, k, i, v FROM {t} WHERE g > 0 AND i = 77 ORDER BY g DESC, k DESC LIMIT 200000", "Gather Merge"),
    (digest("SELECT g, k FROM {t} WHERE g IN (1, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, "
            "21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39) ORDER BY g, k"),
     None),  # IN lists are estimated low: no workers
    ("SELECT count(*), sum(v), min(k), max(k), count(s), max(s) FROM {t} WHERE g >= 2", "Gather"),
    ("SELECT i % 7, count(*), sum(v), min(s) FROM {t} WHERE g BETWEEN 1 AND 38 GROUP BY 1", "Gather"),
    ("SELECT g, k, v FROM {t} WHERE g >= 2 AND s LIKE '%ab%'", "Gather"),
    ("SELECT count(*), sum(k) FROM {t} WHERE g IN (1, 2, 3, 5, 8, 13, 21, 34) OR g > 4", None),
]


def salted_check(conn, label, require_plan=True, queries=None, buckets=SALT_BUCKETS):
    for sql, shape in queries or SALT_QUERIES:
        ordered = "ORDER BY" in sql and "md5" not in sql
        q(conn, "SET max_parallel_workers_per_gather = 0")
        ref = q(conn, sql.format(t="sp"))
        for n in buckets:
            t = f"st{n}"
            q(conn, "SET max_parallel_workers_per_gather = 2")
            if shape and require_plan:
                p = explain(conn, sql.format(t=t))
                check(shape in p and "Salt Buckets" in p, f"{label} {t}: {sql}: no {shape}:\n{p}")
            par = q(conn, sql.format(t=t))
            q(conn, "SET max_parallel_workers_per_gather = 0")
            ser = q(conn, sql.format(t=t))
            if not ordered:
                par, ser = sorted(par, key=repr), sorted(ser, key=repr)
                want = sorted(ref, key=repr)
            else:
                want = ref
            check(par == ser, f"{label} {t}: {sql}: workers {par[:3]} != serial {ser[:3]}")
            check(par == want, f"{label} {t}: {sql}: salted {par[:3]} != plain {want[:3]} ({len(par)}, {len(want)})")
    q(conn, "RESET max_parallel_workers_per_gather")


def test_salted(conn, rows, dsn):
    salted_setup(conn)
    salted_check(conn, "salted")
    a = explain(conn, SALT_QUERIES[0][0].format(t="st16"), analyze=True)
    launched = [ln for ln in a.splitlines() if "Workers Launched:" in ln]
    check(launched and int(launched[0].split(":")[1]) >= 2, f"salted merge: workers launched:\n{a}")
    a = explain(conn, SALT_QUERIES[7][0].format(t="st16"))
    check("Partial Aggregate" in a and "Parallel Index Scan" in a, f"salted partial aggregation:\n{a}")
    # An error in a worker of an ordered merge.
    try:
        q(conn, "SELECT g, k FROM st16 WHERE g >= 1 AND 1 / (i - 500) > 0 ORDER BY g, k LIMIT 150000")
        raise AssertionError("division by zero in a merge worker did not fail")
    except psycopg2.Error as e:
        check(e.pgcode == "22012", f"expected 22012, got {e.pgcode}: {e}")
    # The transaction's own writes: the merge reads the buckets itself.
    conn.autocommit = False
    try:
        for t in ("sp", "st16"):
            q(conn, f"INSERT INTO {t} VALUES (3, -5, 1.00, 1, 'own'), (20, 2000000, 2.00, 2, 'own2')")
            q(conn, f"DELETE FROM {t} WHERE g = 4 AND k < 500000")
        salted_check(conn, "own writes", require_plan=False, queries=[SALT_QUERIES[i] for i in (1, 3, 7)],
                     buckets=(16,))
    finally:
        conn.rollback()
        conn.autocommit = True
    # Most buckets empty: rows deleted after ANALYZE (the estimate still
    # asks for workers; a statement per g writes too few rows for the
    # automatic ANALYZE, sql/autoanalyze.c).
    for t in ["sp"] + [f"st{n}" for n in SALT_BUCKETS]:
        for g in range(1, 40):
            q(conn, f"DELETE FROM {t} WHERE g = {g} AND k % 50000 <> 0")
    salted_check(conn, "sparse")
    for t in ["sp"] + [f"st{n}" for n in SALT_BUCKETS]:
        q(conn, f"DROP TABLE {t}")


def main():
    only = sys.argv[1:]
    tests = [("plans", test_plans), ("results", test_results), ("errors", test_errors), ("writes", None),
             ("salted", None)]
    passed = failed = 0
    with StrataServer("parallel") as srv:
        conn = psycopg2.connect(srv.dsn)
        conn.autocommit = True
        # Partial aggregation is opt-in (sql/plan_order.c).
        q(conn, "SET strata.partial_aggregation = on")
        rows = gen_rows()
        setup(conn, rows)
        for name, fn in tests:
            if only and name not in only:
                continue
            t0 = time.monotonic()
            try:
                if fn:
                    fn(conn, rows)
                elif name == "writes":
                    test_writes(conn, rows, srv.dsn)
                else:
                    test_salted(conn, rows, srv.dsn)
                passed += 1
                print(f"ok   {name} ({time.monotonic() - t0:.1f} s)", flush=True)
            except Exception as e:
                failed += 1
                print(f"FAIL {name}: {e}", flush=True)
                traceback.print_exc()
                srv.mark_failed()
                print(f"# parallel {name}: {str(e).splitlines()[0][:200]}")
        q(conn, "DROP TABLE pt")
        conn.close()
    if not srv.clean:
        failed += 1
        print("FAIL server did not exit cleanly (see its log)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
