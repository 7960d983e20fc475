#!/usr/bin/python3
"""psycopg3_test.py — psycopg 3 (Debian python3-psycopg) against strata: the
extended protocol for every query, binary parameters and results, server-side
prepared statements after prepare_threshold, executemany, pipeline mode, COPY
(text and binary, row by row), server-side cursors, transactions and errors."""
import datetime
import decimal
import os
import struct
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


# Every common type, with edge values, for the binary COPY tests. k orders the rows.
COPY_TYPES_COLS = """k int PRIMARY KEY, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric,
    n2 numeric(10,3), t text, vc varchar(5), bc char(4), by bytea, b bool, d date, ts timestamp,
    tstz timestamptz, tm time, iv interval, u uuid, j json, jb jsonb, ai int4[], at text[], an numeric[],
    a2 int8[], nm name, o oid"""
COPY_TYPES_ROWS = r"""
 (1, 1, 2, 3, 1.5, 2.25, 12.345, 1.5, 'héllo', 'abc', 'ab', '\x00ff10', true, '2024-02-29',
  '2024-01-02 03:04:05.678', '2024-01-02 03:04:05+02', '12:30:01.5', '1 year 2 mons 3 days 04:05:06.789',
  '12345678-1234-5678-1234-567812345678', '{"b": 1, "a": [1, 2]}', '{"b": 1, "a": [1, 2.50], "c": null}',
  '{1,2,3}', '{a,NULL,"c d"}', '{1.5,NaN,-2}', '{{1,2},{3,4}}', 'nm', 42),
 (2, -32768, -2147483648, -9223372036854775808, 'NaN', '-Infinity', 'NaN', -0.001, '', '', '', '', false,
  'infinity', '-infinity', 'infinity', '00:00', '-1 days -00:00:01', '00000000-0000-0000-0000-000000000000',
  '[]', '[]', '{}', '{}', '{}', '{}', '', 0),
 (3, 32767, 2147483647, 9223372036854775807, '-0', '1e-300', -123456789012345678901234567890.123456789, 0,
  'a\tb\nc', 'x', 'y', '\x', true, '0001-01-01', '1999-12-31 23:59:59.999999', '2000-01-01 00:00:00+00',
  '23:59:59.999999', '0', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '"s"', '12.0', '{NULL}', '{""}', '{0.00}',
  '{{NULL,1}}', 'x', 4294967295),
 (4, null, null, null, null, null, 100000, 99999.999, null, null, null, null, null, '2000-01-01 BC', null, null,
  null, null, null, null, null, null, null, null, null, null, null),
 (5, 0, 0, 0, 'Infinity', 'NaN', 1e20, -1e-3, null, null, null, null, null, null, null, null, null, null, null,
  'null', 'null', null, null, '{1e20,-0.5}', null, null, null)"""
COPY_TYPES_EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected", "copy_binary_types.hex")


def copy_out_messages(cur, sql):
    with cur.copy(sql) as cp:
        return [bytes(m) for m in cp]


def copy_in_bytes(cur, sql, data):
    with cur.copy(sql) as cp:
        cp.write(data)


@test
def copy_binary_types(ctx):
    """COPY TO binary produces PostgreSQL 15's bytes (and CopyData messages) for every common type;
    the bytes loaded back with COPY FROM binary give the same table. The expected bytes come from a
    real PostgreSQL 15: DRV_GEN_EXPECTED=1 STRATA_BIN=tests/lib/pg_as_strata.sh
    tests/drivers/run_python.sh psycopg3 copy_binary_types rewrites them."""
    src, back = ctx.table("cbt"), ctx.table("cbt_back")
    with connect(ctx, autocommit=True) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        for t in (src, back):
            conn.execute(f"CREATE TABLE {t} ({COPY_TYPES_COLS})")
        conn.execute(f"INSERT INTO {src} VALUES {COPY_TYPES_ROWS}")
        cur = conn.cursor()
        msgs = copy_out_messages(cur, f"COPY (SELECT * FROM {src} ORDER BY k) TO STDOUT (FORMAT BINARY)")
        if os.environ.get("DRV_GEN_EXPECTED"):
            with open(COPY_TYPES_EXPECTED, "w") as f:
                f.write("# CopyData messages (hex, one per line) of psycopg3_test.copy_binary_types from "
                        "PostgreSQL 15\n")
                for m in msgs:
                    f.write(m.hex() + "\n")
        with open(COPY_TYPES_EXPECTED) as f:
            expected = [bytes.fromhex(line.strip()) for line in f if line.strip() and not line.startswith("#")]
        got, want = b"".join(msgs), b"".join(expected)
        if got != want:
            at = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
            raise drvtest.Failure(f"binary COPY bytes differ from PostgreSQL's at offset {at} (lengths {len(got)}, "
                                  f"{len(want)}): got {got[at:at + 16].hex()}, expected {want[at:at + 16].hex()}")
        eq([len(m) for m in msgs], [len(m) for m in expected], "CopyData message sizes")
        # Back in, through both load paths (autocommit bulk load and a transaction block).
        copy_in_bytes(cur, f"COPY {back} FROM STDIN (FORMAT BINARY)", got)
        eq(cur.rowcount, 5, "COPY FROM binary row count")
        eq(copy_out_messages(cur, f"COPY (SELECT * FROM {back} ORDER BY k) TO STDOUT (FORMAT BINARY)"), msgs,
           "binary COPY of the reloaded table")
        text = [copy_out_messages(cur, f"COPY (SELECT * FROM {t} ORDER BY k) TO STDOUT") for t in (src, back)]
        eq(text[1], text[0], "text COPY of the reloaded table")
        conn.execute(f"TRUNCATE {back}")
        with conn.transaction():
            copy_in_bytes(cur, f"COPY {back} FROM STDIN BINARY", got)
        eq(copy_out_messages(cur, f"COPY (SELECT * FROM {back} ORDER BY k) TO STDOUT BINARY"), msgs,
           "binary COPY after a load in a transaction block")
        # Python values, as psycopg's own binary loaders read them (no infinities: Python has none).
        with cur.copy(f"COPY (SELECT k, i8, n, t, by, tstz, iv, u, ai, at FROM {back} WHERE k IN (1, 4) ORDER BY k) "
                      "TO STDOUT (FORMAT BINARY)") as cp:
            cp.set_types(["int4", "int8", "numeric", "text", "bytea", "timestamptz", "interval", "uuid", "int4[]",
                          "text[]"])
            rows = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in cp.rows()]
        eq(rows[0][:8], (1, 3, decimal.Decimal("12.345"), "héllo", b"\x00\xff\x10",
                         datetime.datetime(2024, 1, 2, 1, 4, 5, tzinfo=datetime.timezone.utc),
                         datetime.timedelta(days=365 + 2 * 30 + 3, seconds=4 * 3600 + 5 * 60 + 6, microseconds=789000),
                         uuid.UUID("12345678-1234-5678-1234-567812345678")), "binary values of row 1")
        eq(rows[0][8:], ([1, 2, 3], ["a", None, "c d"]), "binary arrays of row 1")
        eq(rows[1][1:], (None, decimal.Decimal("100000"), None, None, None, None, None, None, None), "NULLs")
        for t in (src, back):
            conn.execute(f"DROP TABLE {t}")


@test
def copy_binary_errors(ctx):
    """Malformed binary COPY data: PostgreSQL 15's SQLSTATEs, messages and context lines (checked
    against it with STRATA_BIN=tests/lib/pg_as_strata.sh), and nothing of a failed COPY is loaded."""
    t, p = ctx.table("cbe"), ctx.table("cbe_parent")
    sig = b"PGCOPY\n\xff\r\n\x00"
    hdr = sig + struct.pack("!ii", 0, 0)
    end = struct.pack("!h", -1)

    def row(*fields):
        out = struct.pack("!h", len(fields))
        for f in fields:
            out += struct.pack("!i", -1) if f is None else struct.pack("!i", len(f)) + f
        return out

    def i4(v):
        return struct.pack("!i", v)

    good = row(i4(1), b"x", b"ab")
    cases = [
        ("good", hdr + good + end, None),
        ("no trailer", hdr + good, None),
        ("flags, header extension", sig + struct.pack("!ii", 1, 3) + b"abc" + good + end, None),
        ("half a field count at the end", hdr + good + b"\x00", None),
        ("bad signature", b"PGCOPY\n\xff\r\n\x01" + struct.pack("!ii", 0, 0) + good + end,
         ("22P04", "COPY file signature not recognized", None)),
        ("empty", b"", ("22P04", "COPY file signature not recognized", None)),
        ("missing flags", sig + b"\x00\x00", ("22P04", "invalid COPY file header (missing flags)", None)),
        ("oids", sig + struct.pack("!ii", 1 << 16, 0) + good + end,
         ("22P04", "invalid COPY file header (WITH OIDS)", None)),
        ("critical flag", sig + struct.pack("!ii", 1 << 17, 0) + good + end,
         ("22P04", "unrecognized critical flags in COPY file header", None)),
        ("negative extension", sig + struct.pack("!ii", 0, -1) + good + end,
         ("22P04", "invalid COPY file header (missing length)", None)),
        ("short extension", sig + struct.pack("!ii", 0, 30) + b"abc",
         ("22P04", "invalid COPY file header (wrong length)", None)),
        ("field count", hdr + good + row(i4(1), b"x") + end,
         ("22P04", "row field count is 2, expected 3", f"COPY {t}, line 2")),
        ("truncated field", hdr + good + struct.pack("!hi", 3, 4) + b"\x00\x00",
         ("22P04", "unexpected EOF in COPY data", f"COPY {t}, line 2, column a")),
        ("truncated length", hdr + good + struct.pack("!hi", 3, 4) + b"\x00\x00\x00\x01\x00",
         ("22P04", "unexpected EOF in COPY data", f"COPY {t}, line 2, column b")),
        ("field size", hdr + struct.pack("!hi", 3, -2) + end,
         ("22P04", "invalid field size", f"COPY {t}, line 1, column a")),
        ("int4 too long", hdr + row(b"\x00\x00\x00\x00\x01", b"x", b"y") + end,
         ("22P03", "incorrect binary data format", f"COPY {t}, line 1, column a")),
        ("int4 too short", hdr + good + row(b"\x00\x01", b"x", b"y") + end,
         ("08P01", "insufficient data left in message", f"COPY {t}, line 2, column a")),
        ("not null", hdr + row(i4(1), None, b"y") + end,
         ("23502", f'null value in column "b" of relation "{t}" violates not-null constraint', f"COPY {t}, line 1")),
        ("typmod", hdr + row(i4(1), b"x", b"abcd") + end,
         ("22001", "value too long for type character varying(3)", f"COPY {t}, line 1, column c")),
        ("utf8", hdr + row(i4(1), b"\xff", b"y") + end,
         ("22021", 'invalid byte sequence for encoding "UTF8": 0xff', f"COPY {t}, line 1, column b")),
        ("data after the trailer", hdr + good + end + b"x",
         ("22P04", "received copy data after EOF marker", f"COPY {t}, line 2")),
        ("duplicate key", hdr + good + good + end,
         ("23505", f'duplicate key value violates unique constraint "{t}_pkey"', f"COPY {t}, line 2")),
    ]
    with connect(ctx, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {t} (a int PRIMARY KEY, b text NOT NULL, c varchar(3))")
        cur = conn.cursor()
        for name, data, want in cases:
            conn.execute(f"TRUNCATE {t}")
            try:
                copy_in_bytes(cur, f"COPY {t} FROM STDIN (FORMAT BINARY)", data)
                got = None
            except psycopg.Error as e:
                got = (e.diag.sqlstate, e.diag.message_primary, e.diag.context)
            eq(got, want, name)
            eq(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0], 0 if want else 1, f"rows after {name}")
        # options binary mode refuses
        for opts, state in (("DELIMITER ','", "42601"), ("NULL 'x'", "42601"), ("HEADER", "0A000"),
                            ("QUOTE 'x'", "0A000"), ("FORCE_QUOTE *", "0A000")):
            raises(psycopg.Error, conn.execute, f"COPY {t} TO STDOUT (FORMAT BINARY, {opts})", sqlstate=state)
        # a foreign key violation fails the whole COPY, in a transaction block too
        conn.execute(f"CREATE TABLE {p} (id int PRIMARY KEY)")
        conn.execute(f"INSERT INTO {p} VALUES (1)")
        conn.execute(f"ALTER TABLE {t} ADD COLUMN r int REFERENCES {p}")
        data = hdr + row(i4(1), b"x", None, i4(1)) + row(i4(2), b"x", None, i4(9)) + end
        for block in (False, True):
            conn.execute(f"TRUNCATE {t}")
            try:
                if block:
                    with conn.transaction():
                        copy_in_bytes(cur, f"COPY {t} FROM STDIN (FORMAT BINARY)", data)
                else:
                    copy_in_bytes(cur, f"COPY {t} FROM STDIN (FORMAT BINARY)", data)
                state = None
            except psycopg.Error as e:
                state = e.diag.sqlstate
            eq(state, "23503", f"foreign key violation (transaction block: {block})")
            eq(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0], 0, "rows after a foreign key violation")
        conn.execute(f"DROP TABLE {t}")
        conn.execute(f"DROP TABLE {p}")


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


@test
def unnamed_statement_reuse(ctx):
    # The same text Parsed again into the unnamed statement (prepare_threshold=None:
    # never a named one) must see what changed in between, as a fresh parse does:
    # search_path, the table's shape, another session's DDL, the role.
    with connect(ctx, autocommit=True, prepare_threshold=None) as conn, connect(ctx, autocommit=True) as other:
        conn.execute("CREATE SCHEMA IF NOT EXISTS reuse_a")
        conn.execute("CREATE SCHEMA IF NOT EXISTS reuse_b")
        conn.execute("CREATE TABLE reuse_a.t (v int)")
        conn.execute("CREATE TABLE reuse_b.t (v int)")
        conn.execute("INSERT INTO reuse_a.t VALUES (1)")
        conn.execute("INSERT INTO reuse_b.t VALUES (2)")
        q = "SELECT * FROM t WHERE v > %s"
        conn.execute("SET search_path = reuse_a")
        eq(conn.execute(q, (0,)).fetchall(), [(1,)], "schema a")
        eq(conn.execute(q, (0,)).fetchall(), [(1,)], "schema a again")
        conn.execute("SET search_path = reuse_b")
        eq(conn.execute(q, (0,)).fetchall(), [(2,)], "schema b after SET search_path")
        other.execute("ALTER TABLE reuse_b.t ADD COLUMN w text DEFAULT 'x'")
        eq(conn.execute(q, (0,)).fetchall(), [(2, "x")], "a column added by another session")
        other.execute("ALTER TABLE reuse_b.t RENAME TO gone")
        raises(errors.UndefinedTable, conn.execute, q, (0,), sqlstate="42P01")
        conn.execute("CREATE ROLE reuse_r")
        conn.execute("GRANT USAGE ON SCHEMA reuse_a TO reuse_r")
        conn.execute("SET search_path = reuse_a")
        eq(conn.execute(q, (0,)).fetchall(), [(1,)], "as the superuser")
        conn.execute("SET ROLE reuse_r")
        raises(errors.InsufficientPrivilege, conn.execute, q, (0,), sqlstate="42501")
        conn.execute("RESET ROLE")
        eq(conn.execute(q, (0,)).fetchall(), [(1,)], "back as the superuser")
        # Planned inside a transaction that created the table and rolled back,
        # then another session's DDL: the table is gone, whatever the catalog's
        # version number says.
        conn.execute("SET search_path = public")
        q2 = "SELECT count(*) FROM reuse_gone WHERE 1 = %s"
        with conn.transaction(force_rollback=True):
            conn.execute("CREATE TABLE reuse_gone (v int)")
            eq(conn.execute(q2, (1,)).fetchall(), [(0,)], "inside the creating transaction")
        other.execute("CREATE TABLE reuse_other (v int)")
        raises(errors.UndefinedTable, conn.execute, q2, (1,), sqlstate="42P01")
        other.execute("DROP TABLE reuse_other")
        # The same table created again by another session (the same catalog
        # changes, so the same version step): a new table, its own rows.
        with conn.transaction(force_rollback=True):
            conn.execute("CREATE TABLE reuse_gone (v int)")
            eq(conn.execute(q2, (1,)).fetchall(), [(0,)], "inside the creating transaction, again")
        other.execute("CREATE TABLE reuse_gone (v int)")
        other.execute("INSERT INTO reuse_gone VALUES (1), (2)")
        eq(conn.execute(q2, (1,)).fetchall(), [(2,)], "the table another session created")
        other.execute("DROP TABLE reuse_gone")
        conn.execute("DROP SCHEMA reuse_a CASCADE")
        conn.execute("DROP SCHEMA reuse_b CASCADE")
        conn.execute("DROP ROLE reuse_r")


if __name__ == "__main__":
    raise SystemExit(drvtest.main("psycopg3"))
