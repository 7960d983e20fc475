#!/usr/bin/python3
"""psycopg2_test.py — psycopg2 (Debian python3-psycopg2) against strata: queries
with parameters, type round trips, transactions and autocommit, named
(server-side) cursors, COPY through copy_expert / copy_from / copy_to, query
cancel, errors with SQLSTATEs, notices, executemany and RETURNING."""
import datetime
import decimal
import io
import threading
import time
import uuid

import psycopg2
import psycopg2.extensions
import psycopg2.extras

import drvtest
from drvtest import check, eq, raises, test


def connect(ctx, **kw):
    return psycopg2.connect(ctx.dsn, **kw)


@test
def connect_and_server_info(ctx):
    with connect(ctx) as conn:
        eq(conn.server_version // 10000, 15, "server_version major")
        eq(conn.get_parameter_status("server_encoding"), "UTF8", "server_encoding")
        eq(conn.get_parameter_status("integer_datetimes"), "on", "integer_datetimes")
        cur = conn.cursor()
        cur.execute("SELECT current_database(), current_user, version() LIKE 'PostgreSQL 15%'")
        eq(cur.fetchone(), ("postgres", "postgres", True), "session info")
        eq(conn.info.backend_pid > 0, True, "backend pid")
        cur.execute("SELECT pg_backend_pid()")
        eq(cur.fetchone()[0], conn.info.backend_pid, "pg_backend_pid() = BackendKeyData pid")
    conn.close()


@test
def parameters_and_types(ctx):
    conn = connect(ctx)
    cur = conn.cursor()
    vals = (42, 2**40, 1.5, decimal.Decimal("12.345"), "héllo 'quoted'", True, None,
            datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
            datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
            datetime.time(12, 30), datetime.timedelta(days=1, seconds=5), b"\x00\x01\xff",
            [1, 2, 3], ["a", None, "c"], "12345678-1234-5678-1234-567812345678")
    cur.execute("SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::uuid", vals)
    row = cur.fetchone()
    # A Python float is sent as a numeric literal, so it comes back as numeric.
    eq(row[:2] + row[3:12], vals[:2] + vals[3:12], "scalar round trip")
    eq(row[2], decimal.Decimal("1.5"), "float parameter")
    eq(bytes(row[12]), b"\x00\x01\xff", "bytea")
    eq(row[13], [1, 2, 3], "int array")
    eq(row[14], ["a", None, "c"], "text array with NULL")
    eq(row[15], vals[15], "uuid as text")
    psycopg2.extras.register_uuid(conn_or_curs=cur)
    u = uuid.UUID(vals[15])
    cur.execute("SELECT %s", (u,))
    eq(cur.fetchone()[0], u, "uuid adapter")
    cur.execute("SELECT %(a)s + %(b)s AS s, %(a)s * 2 AS d", {"a": 20, "b": 22})
    eq(cur.fetchone(), (42, 40), "named parameters")
    eq([d.name for d in cur.description], ["s", "d"], "column names")
    cur.execute("SELECT '{\"a\": [1, 2]}'::jsonb, '[1, \"x\"]'::json, 1.5::float4, 'abc'::varchar(5), 'x'::char(3)")
    eq(cur.fetchone(), ({"a": [1, 2]}, [1, "x"], 1.5, "abc", "x  "), "json, float4, varchar, char")
    cur.execute("SELECT NULL::int, NULL::text, 'NaN'::numeric, 'Infinity'::float8")
    r = cur.fetchone()
    check(r[0] is None and r[1] is None and r[2].is_nan() and r[3] == float("inf"), f"special values {r}")
    conn.close()


@test
def description_type_oids(ctx):
    conn = connect(ctx)
    cur = conn.cursor()
    cur.execute("SELECT 1::int2, 1::int4, 1::int8, 1::numeric, 'x'::text, 'x'::varchar, true, now(), "
                "current_date, '1 day'::interval, 'x'::bytea, '{1}'::int[], 'x'::name, 1::oid")
    eq([d.type_code for d in cur.description],
       [21, 23, 20, 1700, 25, 1043, 16, 1184, 1082, 1186, 17, 1007, 19, 26], "RowDescription type oids")
    conn.close()


@test
def transactions(ctx):
    t = ctx.table("tx")
    conn = connect(ctx)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, v text)")
    conn.commit()
    cur.execute(f"INSERT INTO {t} VALUES (1, 'a')")
    eq(conn.get_transaction_status(), psycopg2.extensions.TRANSACTION_STATUS_INTRANS, "in transaction")
    conn.rollback()
    cur.execute(f"SELECT count(*) FROM {t}")
    eq(cur.fetchone()[0], 0, "rolled back")
    cur.execute(f"INSERT INTO {t} VALUES (1, 'a')")
    conn.commit()
    other = connect(ctx)
    oc = other.cursor()
    oc.execute(f"SELECT v FROM {t} WHERE id = 1")
    eq(oc.fetchone(), ("a",), "committed row visible to another connection")
    other.close()
    # An error aborts the transaction until rollback (25P02).
    raises(psycopg2.errors.UniqueViolation, cur.execute, f"INSERT INTO {t} VALUES (1, 'dup')", sqlstate="23505")
    raises(psycopg2.errors.InFailedSqlTransaction, cur.execute, "SELECT 1", sqlstate="25P02")
    conn.rollback()
    # Isolation level and read-only settings are sent as SET / BEGIN options.
    conn.set_session(isolation_level="REPEATABLE READ", readonly=True)
    cur.execute("SHOW transaction_isolation")
    eq(cur.fetchone()[0], "repeatable read", "isolation level")
    raises(psycopg2.errors.ReadOnlySqlTransaction, cur.execute, f"INSERT INTO {t} VALUES (2, 'x')",
           sqlstate="25006")
    conn.rollback()
    conn.set_session(isolation_level="READ COMMITTED", readonly=False)
    cur.execute(f"DROP TABLE {t}")
    conn.commit()
    conn.close()


@test
def autocommit(ctx):
    t = ctx.table("ac")
    conn = connect(ctx)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id int)")
    cur.execute(f"INSERT INTO {t} VALUES (1), (2)")
    eq(conn.get_transaction_status(), psycopg2.extensions.TRANSACTION_STATUS_IDLE, "idle in autocommit")
    other = connect(ctx)
    oc = other.cursor()
    oc.execute(f"SELECT count(*) FROM {t}")
    eq(oc.fetchone()[0], 2, "autocommitted rows visible")
    other.close()
    cur.execute("BEGIN")
    cur.execute(f"DELETE FROM {t}")
    cur.execute("ROLLBACK")
    cur.execute(f"SELECT count(*) FROM {t}")
    eq(cur.fetchone()[0], 2, "explicit block rolled back")
    cur.execute(f"DROP TABLE {t}")
    conn.close()


@test
def named_cursor(ctx):
    t = ctx.table("nc")
    conn = connect(ctx)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, v text)")
    cur.execute(f"INSERT INTO {t} SELECT g, 'row' || g FROM generate_series(1, 1000) g")
    conn.commit()
    nc = conn.cursor("big_cursor")
    nc.itersize = 100
    nc.execute(f"SELECT id, v FROM {t} ORDER BY id")
    eq(nc.fetchone(), (1, "row1"), "first row")
    eq(len(nc.fetchmany(10)), 10, "fetchmany")
    rest = nc.fetchall()
    eq(len(rest), 989, "fetchall the rest")
    eq(rest[-1], (1000, "row1000"), "last row")
    nc.close()
    # Iteration fetches itersize rows at a time.
    nc = conn.cursor("iter_cursor")
    nc.itersize = 64
    nc.execute(f"SELECT id FROM {t} WHERE id % 7 = 0 ORDER BY id")
    eq(sum(r[0] for r in nc), sum(range(7, 1001, 7)), "iterate")
    nc.close()
    # A scrollable cursor.
    nc = conn.cursor("scroll_cursor", scrollable=True)
    nc.execute(f"SELECT id FROM {t} ORDER BY id")
    nc.scroll(500, mode="absolute")
    eq(nc.fetchone(), (501,), "scroll absolute")
    nc.close()
    conn.commit()
    # WITH HOLD cursors survive the commit.
    hc = conn.cursor("held", withhold=True)
    hc.execute(f"SELECT id FROM {t} ORDER BY id LIMIT 3")
    conn.commit()
    eq(hc.fetchall(), [(1,), (2,), (3,)], "with hold after commit")
    hc.close()
    cur.execute(f"DROP TABLE {t}")
    conn.commit()
    conn.close()


@test
def copy_expert_in_and_out(ctx):
    t = ctx.table("cp")
    conn = connect(ctx)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id int PRIMARY KEY, name text, amount numeric(8,2))")
    conn.commit()
    data = "".join(f"{i},name {i},{i}.50\n" for i in range(1, 501)) + '501,"quoted, comma",\n'
    cur.copy_expert(f"COPY {t} FROM STDIN WITH (FORMAT csv)", io.StringIO(data))
    eq(cur.rowcount, 501, "COPY FROM rowcount")
    cur.execute(f"SELECT count(*), sum(amount) FROM {t}")
    eq(cur.fetchone(), (501, decimal.Decimal("125500.00")), "copied rows")
    out = io.StringIO()
    cur.copy_expert(f"COPY (SELECT id, name, amount FROM {t} WHERE id > 499 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", out)
    eq(out.getvalue(), 'id,name,amount\n500,name 500,500.50\n501,"quoted, comma",\n', "COPY TO csv")
    # copy_from / copy_to use the text format.
    cur.execute(f"DELETE FROM {t}")
    cur.copy_from(io.StringIO("1\tone\t1.00\n2\t\\N\t\\N\n"), t)
    buf = io.StringIO()
    cur.copy_to(buf, t)
    eq(sorted(buf.getvalue().splitlines()), ["1\tone\t1.00", "2\t\\N\t\\N"], "copy_from/copy_to")
    # A bad row fails the COPY with the line number.
    e = raises(psycopg2.errors.InvalidTextRepresentation, cur.copy_expert, f"COPY {t} FROM STDIN",
               io.StringIO("3\tthree\tnot-a-number\n"), sqlstate="22P02")
    check("COPY" in (e.diag.context or ""), f"COPY context in {e.diag.context!r}")
    conn.rollback()
    cur.execute(f"DROP TABLE {t}")
    conn.commit()
    conn.close()


@test
def cancel(ctx):
    conn = connect(ctx)
    cur = conn.cursor()
    timer = threading.Timer(0.5, conn.cancel)
    t0 = time.monotonic()
    timer.start()
    raises(psycopg2.errors.QueryCanceled, cur.execute, "SELECT pg_sleep(20)", sqlstate="57014")
    check(time.monotonic() - t0 < 10, "cancel took effect promptly")
    conn.rollback()
    cur.execute("SELECT 1")
    eq(cur.fetchone(), (1,), "connection usable after cancel")
    # statement_timeout uses the same path.
    cur.execute("SET statement_timeout = '200ms'")
    raises(psycopg2.errors.QueryCanceled, cur.execute, "SELECT pg_sleep(5)", sqlstate="57014")
    conn.rollback()
    conn.close()


@test
def errors_and_notices(ctx):
    conn = connect(ctx)
    conn.autocommit = True
    cur = conn.cursor()
    e = raises(psycopg2.errors.UndefinedTable, cur.execute, "SELECT * FROM no_such_table", sqlstate="42P01")
    eq(e.diag.message_primary, 'relation "no_such_table" does not exist', "message")
    eq(e.diag.statement_position, "15", "position")
    raises(psycopg2.errors.DivisionByZero, cur.execute, "SELECT 1/0", sqlstate="22012")
    raises(psycopg2.errors.SyntaxError, cur.execute, "SELEC 1", sqlstate="42601")
    raises(psycopg2.errors.UndefinedColumn, cur.execute, "SELECT nope FROM pg_class", sqlstate="42703")
    cur.execute("DROP TABLE IF EXISTS surely_not_there")
    check(any("does not exist, skipping" in n for n in conn.notices), f"notice received: {conn.notices}")
    conn.close()


@test
def executemany_and_returning(ctx):
    t = ctx.table("em")
    conn = connect(ctx)
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {t} (id serial PRIMARY KEY, name text, n int)")
    cur.executemany(f"INSERT INTO {t} (name, n) VALUES (%s, %s)", [(f"n{i}", i) for i in range(100)])
    cur.execute(f"SELECT count(*), sum(n) FROM {t}")
    eq(cur.fetchone(), (100, 4950), "executemany inserted")
    psycopg2.extras.execute_values(cur, f"INSERT INTO {t} (name, n) VALUES %s RETURNING id",
                                   [(f"v{i}", i) for i in range(5)])
    ids = cur.fetchall()
    eq(len(ids), 5, "execute_values returning")
    cur.execute(f"UPDATE {t} SET n = n + 1 WHERE n < 3 RETURNING name, n")
    eq(sorted(cur.fetchall()), [("n0", 1), ("n1", 2), ("n2", 3), ("v0", 1), ("v1", 2), ("v2", 3)], "UPDATE RETURNING")
    eq(cur.rowcount, 6, "rowcount")
    cur.execute(f"DELETE FROM {t} WHERE n > 50")
    eq(cur.rowcount, 49, "DELETE rowcount")
    cur.execute(f"DROP TABLE {t}")
    conn.commit()
    conn.close()


@test
def dict_and_named_tuple_cursors(ctx):
    conn = connect(ctx)
    cur = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
    cur.execute("SELECT 1 AS a, 'x' AS b")
    eq(cur.fetchone(), {"a": 1, "b": "x"}, "RealDictCursor")
    cur = conn.cursor(cursor_factory=psycopg2.extras.NamedTupleCursor)
    cur.execute("SELECT 2 AS a")
    eq(cur.fetchone().a, 2, "NamedTupleCursor")
    conn.close()


@test
def exported_snapshots(ctx):
    # pg_export_snapshot() / SET TRANSACTION SNAPSHOT, as pg_dump -j uses them:
    # an importing transaction reads exactly what the exporter reads.
    admin = connect(ctx)
    admin.autocommit = True
    a = admin.cursor()
    a.execute("CREATE TABLE snap_t (id int PRIMARY KEY)")
    a.execute("INSERT INTO snap_t SELECT generate_series(1, 10)")
    exp = connect(ctx)
    exp.set_session(isolation_level="REPEATABLE READ", readonly=True)
    e = exp.cursor()
    e.execute("SELECT pg_export_snapshot()")
    sid = e.fetchone()[0]
    a.execute("INSERT INTO snap_t VALUES (11)")
    a.execute("DELETE FROM snap_t WHERE id = 1")
    imp = connect(ctx)
    imp.set_session(isolation_level="REPEATABLE READ", readonly=True)
    i = imp.cursor()
    i.execute("SET TRANSACTION SNAPSHOT %s", (sid,))
    i.execute("SELECT count(*), min(id), max(id) FROM snap_t")
    eq(i.fetchone(), (10, 1, 10), "the importer reads the exporter's snapshot")
    e.execute("SELECT count(*), min(id), max(id) FROM snap_t")
    eq(e.fetchone(), (10, 1, 10), "the exporter reads it too")
    imp.rollback()
    # After any query, under READ COMMITTED, with an unknown identifier.
    i.execute("SELECT 1")
    raises(psycopg2.Error, i.execute, "SET TRANSACTION SNAPSHOT %s", (sid,), sqlstate="25001")
    imp.rollback()
    imp.set_session(isolation_level="READ COMMITTED")
    raises(psycopg2.Error, i.execute, "SET TRANSACTION SNAPSHOT %s", (sid,), sqlstate="0A000")
    imp.rollback()
    imp.set_session(isolation_level="REPEATABLE READ")
    raises(psycopg2.Error, i.execute, "SET TRANSACTION SNAPSHOT 'nope'", sqlstate="22023")
    imp.rollback()
    # The identifier ends with the exporting transaction.
    exp.commit()
    raises(psycopg2.Error, i.execute, "SET TRANSACTION SNAPSHOT %s", (sid,), sqlstate="22023")
    imp.rollback()
    for c in (exp, imp):
        c.close()
    a.execute("DROP TABLE snap_t")
    admin.close()


if __name__ == "__main__":
    raise SystemExit(drvtest.main("psycopg2"))
