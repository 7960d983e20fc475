#!/usr/bin/python3
"""psycopg3_test.py — psycopg 3 (Debian python3-psycopg) against strata: the
extended protocol for every query, binary parameters and results, server-side
prepared statements after prepare_threshold, executemany, pipeline mode, COPY
(text and binary, row by row), server-side cursors, transactions and errors."""
import datetime
import decimal
import uuid

import psycopg
from psycopg import errors, sql
from psycopg.types.json import Jsonb

import drvtest
from drvtest import check, eq, raises, test


def connect(ctx, **kw):
    return psycopg.connect(ctx.dsn, **kw)


VALUES = (42, 2**40, 1.5, decimal.Decimal("-12.345"), "héllo", True, None, datetime.date(2024, 2, 29),
          datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
          datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), datetime.time(12, 30),
          datetime.timedelta(days=1, seconds=5), b"\x00\x01\xff", [1, 2, 3], ["a", None, "c"],
          uuid.UUID("12345678-1234-5678-1234-567812345678"))


@test
def extended_protocol_text(ctx):
    with connect(ctx) as conn:
        cur = conn.execute("SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s", VALUES)
        row = cur.fetchone()
        eq(row[:12], VALUES[:12], "text round trip")
        eq(bytes(row[12]), VALUES[12], "bytea")
        # A list of str goes out untyped in text mode: PostgreSQL returns it as text.
        eq(row[13:], (VALUES[13], "{a,NULL,c}", VALUES[15]), "arrays and uuid")


@test
def binary_parameters_and_results(ctx):
    with connect(ctx) as conn:
        cur = conn.cursor(binary=True)
        cur.execute("SELECT %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b", VALUES)
        row = cur.fetchone()
        eq(row[:12], VALUES[:12], "binary round trip")
        eq(bytes(row[12]), VALUES[12], "bytea")
        eq(row[13:], VALUES[13:], "arrays and uuid")
        eq([c.type_code for c in cur.description][:4], [21, 20, 701, 1700], "binary result types (small ints as int2)")
        cur.execute("SELECT %b::jsonb, %b::int2, %b::float4, %b::numeric(10,2), %b::text[]",
                    (Jsonb({"k": [1, None]}), 7, 2.5, decimal.Decimal("1.234"), ["x", "y"]))
        eq(cur.fetchone(), ({"k": [1, None]}, 7, 2.5, decimal.Decimal("1.23"), ["x", "y"]), "binary casts")
        cur.execute("SELECT 'NaN'::numeric, '-Infinity'::float8, '1e20'::numeric, 0.000001::numeric, '{}'::int[]")
        r = cur.fetchone()
        check(r[0].is_nan() and r[1] == float("-inf") and r[2] == decimal.Decimal("1e20")
              and r[3] == decimal.Decimal("0.000001") and r[4] == [], f"binary special values {r}")


@test
def prepared_statements(ctx):
    t = ctx.table("prep")
    with connect(ctx, prepare_threshold=2) as conn:
        conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, v text)")
        for i in range(6):
            conn.execute(f"INSERT INTO {t} VALUES (%s, %s)", (i, f"v{i}"))
        for i in range(6):
            eq(conn.execute(f"SELECT v FROM {t} WHERE id = %s", (i,)).fetchone(), (f"v{i}",), "prepared select")
        names = conn.execute("SELECT name, statement FROM pg_prepared_statements ORDER BY name").fetchall()
        check(any(t in s for _, s in names), f"statements prepared server-side: {names}")
        conn.execute(f"DROP TABLE {t}")
    with connect(ctx, prepare_threshold=0) as conn:
        eq(conn.execute("SELECT %s::int + 1", (41,)).fetchone(), (42,), "prepare at first use")
        eq(conn.execute("SELECT %s::int + 1", (1,)).fetchone(), (2,), "prepared statement reused")


@test
def executemany(ctx):
    t = ctx.table("em")
    with connect(ctx) as conn:
        conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, name text, amount numeric)")
        cur = conn.cursor()
        cur.executemany(f"INSERT INTO {t} VALUES (%s, %s, %s)",
                        [(i, f"n{i}", decimal.Decimal(i) / 4) for i in range(200)])
        eq(conn.execute(f"SELECT count(*), sum(amount) FROM {t}").fetchone(), (200, decimal.Decimal("4975.00")),
           "executemany rows")
        cur.executemany(f"UPDATE {t} SET name = %s WHERE id = %s RETURNING id", [("a", 1), ("b", 2)],
                        returning=True)
        got = []
        while True:
            got.append(cur.fetchone())
            if not cur.nextset():
                break
        eq(got, [(1,), (2,)], "executemany RETURNING")
        conn.execute(f"DROP TABLE {t}")


@test
def pipeline_mode(ctx):
    t = ctx.table("pipe")
    with connect(ctx) as conn:
        conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, v int)")
        conn.commit()
        with conn.pipeline():
            cur = conn.cursor()
            for i in range(50):
                cur.execute(f"INSERT INTO {t} VALUES (%s, %s)", (i, i * i))
            c2 = conn.execute(f"SELECT sum(v) FROM {t}")
        eq(c2.fetchone(), (sum(i * i for i in range(50)),), "results of a pipelined batch")
        # An error in a pipeline aborts the rest of it.
        try:
            with conn.pipeline():
                conn.execute(f"INSERT INTO {t} VALUES (1000, 1)")
                conn.execute(f"INSERT INTO {t} VALUES (0, 0)")
                conn.execute(f"INSERT INTO {t} VALUES (1001, 1)")
        except errors.UniqueViolation:
            pass
        else:
            raise drvtest.Failure("duplicate key in a pipeline did not raise")
        conn.rollback()
        eq(conn.execute(f"SELECT count(*) FROM {t} WHERE id >= 1000").fetchone(), (0,), "aborted pipeline")
        conn.execute(f"DROP TABLE {t}")


@test
def copy(ctx):
    t = ctx.table("cp")
    with connect(ctx) as conn:
        conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, name text, day date, amount numeric(8,2))")
        cur = conn.cursor()
        with cur.copy(f"COPY {t} FROM STDIN") as cp:
            for i in range(1, 301):
                cp.write_row((i, f"n{i}" if i % 10 else None, datetime.date(2024, 1, 1 + i % 28),
                              decimal.Decimal(i) / 8))
        eq(conn.execute(f"SELECT count(*), count(name) FROM {t}").fetchone(), (300, 270), "COPY FROM rows")
        with cur.copy(f"COPY (SELECT id, name, day, amount FROM {t} WHERE id <= 3 ORDER BY id) TO STDOUT") as cp:
            rows = list(cp.rows())
        eq(rows, [("1", "n1", "2024-01-02", "0.13"), ("2", "n2", "2024-01-03", "0.25"), ("3", "n3", "2024-01-04", "0.38")],
           "COPY TO rows (text)")
        conn.execute(f"DROP TABLE {t}")


@test
def copy_binary(ctx):
    t = ctx.table("cpb")
    with connect(ctx) as conn:
        conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, name text, day date, amount numeric(8,2))")
        conn.commit()
        cur = conn.cursor()
        with cur.copy(f"COPY {t} (id, name, day, amount) FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(["int4", "text", "date", "numeric"])
            cp.write_row((1000, "bin", datetime.date(2020, 5, 6), decimal.Decimal("9.99")))
            cp.write_row((1001, None, None, None))
        with cur.copy(f"COPY (SELECT id, name, day, amount FROM {t} ORDER BY id) TO STDOUT WITH (FORMAT BINARY)") as cp:
            cp.set_types(["int4", "text", "date", "numeric"])
            eq(list(cp.rows()), [(1000, "bin", datetime.date(2020, 5, 6), decimal.Decimal("9.99")),
                                 (1001, None, None, None)], "binary COPY round trip")
        conn.rollback()
        conn.execute(f"DROP TABLE {t}")
        conn.commit()


@test
def server_side_cursor(ctx):
    with connect(ctx) as conn:
        with conn.cursor(name="ssc") as cur:
            cur.itersize = 50
            cur.execute("SELECT g, g * 2 FROM generate_series(1, 500) g")
            total = 0
            n = 0
            for a, b in cur:
                total += b
                n += 1
            eq((n, total), (500, 2 * sum(range(1, 501))), "server-side cursor")
        with conn.cursor(name="ssc2", scrollable=True) as cur:
            cur.execute("SELECT g FROM generate_series(1, 10) g")
            cur.scroll(5, mode="absolute")
            eq(cur.fetchone(), (6,), "scroll")
            cur.scroll(-3)
            eq(cur.fetchone(), (4,), "scroll backwards")


@test
def transactions_and_errors(ctx):
    t = ctx.table("tx")
    with connect(ctx) as conn:
        conn.execute(f"CREATE TABLE {t} (id int PRIMARY KEY)")
        conn.commit()
        with conn.transaction():
            conn.execute(f"INSERT INTO {t} VALUES (1)")
            try:
                with conn.transaction():  # a savepoint
                    conn.execute(f"INSERT INTO {t} VALUES (1)")
            except errors.UniqueViolation as e:
                eq(e.sqlstate, "23505", "sqlstate")
            conn.execute(f"INSERT INTO {t} VALUES (2)")
        eq(conn.execute(f"SELECT array_agg(id ORDER BY id) FROM {t}").fetchone(), ([1, 2],), "savepoint rollback")
        raises(errors.UndefinedColumn, conn.execute, f"SELECT nope FROM {t}", sqlstate="42703")
        conn.rollback()
        raises(errors.NumericValueOutOfRange, conn.execute, "SELECT 2147483647::int + 1", sqlstate="22003")
        conn.rollback()
        conn.execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(t)))
        conn.commit()


@test
def type_info_from_catalog(ctx):
    # psycopg looks types up in pg_type (TypeInfo.fetch) to adapt arrays and composites.
    with connect(ctx) as conn:
        from psycopg.types import TypeInfo
        ti = TypeInfo.fetch(conn, "int4")
        eq((ti.oid, ti.array_oid), (23, 1007), "int4 type info")
        ti = TypeInfo.fetch(conn, "text[]")
        check(ti is not None, "text[] type info")
        eq(conn.execute("SELECT %s::regtype::oid", ("uuid",)).fetchone(), (2950,), "regtype")


if __name__ == "__main__":
    raise SystemExit(drvtest.main("psycopg3"))
