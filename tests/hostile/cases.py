"""cases.py — the hostile-input cases (tests/hostile/hostile.py runs them).

Each case is a function of a Case builder: SQL text sent with the simple query
protocol (`q`), SQL with parameters through the extended protocol (`x`), raw
protocol messages after login (`raw`) or a raw startup packet (`startup`), COPY
FROM STDIN with client data (`copy`). What a case does on the server is
summarised as a string ("ok: <first value>", "error 22003", "E(08P01) EOF",
...); the expected summary comes from PostgreSQL 15 (expected.txt, written by
gen_expected.sh), so every case must behave deterministically there.
"""
import struct


def _msg(t, body=b""):
    return t.encode() + struct.pack("!I", len(body) + 4) + body


def _cstr(s):
    return (s.encode() if isinstance(s, str) else s) + b"\0"


def parse(name, sql, types=()):
    return _msg("P", _cstr(name) + _cstr(sql) + struct.pack("!H", len(types)) +
                b"".join(struct.pack("!I", t) for t in types))


def bind(portal, stmt, params=(), fmts=(), rfmts=(), nparams=None):
    b = _cstr(portal) + _cstr(stmt) + struct.pack("!H", len(fmts)) + b"".join(struct.pack("!h", f) for f in fmts)
    b += struct.pack("!H", len(params) if nparams is None else nparams)
    for p in params:
        if p is None:
            b += struct.pack("!i", -1)
        elif isinstance(p, tuple):  # (declared length, bytes)
            b += struct.pack("!i", p[0]) + p[1]
        else:
            p = p.encode() if isinstance(p, str) else p
            b += struct.pack("!i", len(p)) + p
    b += struct.pack("!H", len(rfmts)) + b"".join(struct.pack("!h", f) for f in rfmts)
    return _msg("B", b)


def execute(portal="", rows=0):
    return _msg("E", _cstr(portal) + struct.pack("!i", rows))


def describe(kind, name=""):
    return _msg("D", kind.encode() + _cstr(name))


def close(kind, name=""):
    return _msg("C", kind.encode() + _cstr(name))


SYNC = _msg("S")
FLUSH = _msg("H")


def query(sql):
    return _msg("Q", _cstr(sql))


def startup_packet(params, version=196608):
    body = struct.pack("!I", version) + b"".join(_cstr(k) + _cstr(v) for k, v in params) + b"\0"
    return struct.pack("!I", len(body) + 4) + body


def nest(depth, open_, close_, inner="1"):
    return open_ * depth + inner + close_ * depth


def define(c):
    """All cases, in order. c.q(name, sql, setup=[...], timeout=s), c.x(name, sql, params),
    c.raw(name, bytes), c.startup(name, bytes), c.copy(name, sql, data, setup=[...])."""
    T = ["CREATE TABLE h (id int PRIMARY KEY, t text, n numeric, d date, b bytea)"]

    # ---- invalid UTF-8 and NUL bytes (22021, 54000) ----
    c.q("utf8-lone-continuation", b"SELECT '\x80abc'")
    c.q("utf8-truncated-sequence", b"SELECT 'ab\xe2\x82'")
    c.q("utf8-overlong-slash", b"SELECT '\xc0\xaf'")
    c.q("utf8-surrogate", b"SELECT '\xed\xa0\x80'")
    c.q("utf8-beyond-10ffff", b"SELECT '\xf4\x90\x80\x80'")
    c.q("utf8-in-identifier", b"SELECT 1 AS \"\xff\xfe\"")
    c.q("utf8-in-comment", b"SELECT 1 -- \xff\n")
    c.q("utf8-escape-nul", "SELECT E'a\\000b'")
    c.q("utf8-chr-zero", "SELECT chr(0)")
    c.q("utf8-unicode-escape-nul", "SELECT U&'\\0000'")
    c.q("utf8-escape-invalid-bytes", "SELECT E'\\xff\\xfe'")
    c.q("utf8-convert-from-bad", "SELECT convert_from('\\xc328'::bytea, 'UTF8')")
    c.q("utf8-bytea-nul-ok", "SELECT length('a\\000b'::bytea)")
    c.q("utf8-valid-4byte", "SELECT length('\U0001F600x'), octet_length('\U0001F600x')")
    c.x("utf8-param-invalid", "SELECT $1::text", [b"\xc3\x28"])
    c.x("utf8-param-nul", "SELECT $1::text", [b"a\x00b"])
    c.x("utf8-param-nul-int", "SELECT $1::int", [b"1\x002"])
    c.copy("utf8-copy-invalid", "COPY h (id, t) FROM STDIN", b"1\tab\xff\n", setup=T)
    c.copy("utf8-copy-nul", "COPY h (id, t) FROM STDIN", b"1\tab\x00c\n", setup=T)
    c.q("utf8-convert-nul", "SELECT convert_from('\\x610062'::bytea, 'UTF8')")

    # ---- deeply nested expressions (54001) and big expressions ----
    c.q("nest-parens-100", "SELECT " + nest(100, "(", ")"))
    c.q("nest-parens-100000", "SELECT " + nest(100000, "(", ")"))
    c.q("nest-unary-minus-100000", "SELECT " + "-" * 100000 + "1")
    c.q("nest-not-20000", "SELECT " + "NOT " * 20000 + "true")
    c.q("nest-abs-10000", "SELECT " + nest(10000, "abs(", ")"))
    c.q("nest-case-5000", "SELECT " + "CASE WHEN true THEN " * 5000 + "1" + " END" * 5000)
    c.q("nest-subquery-1000", "SELECT " + "(SELECT " * 1000 + "1" + ")" * 1000)
    c.q("nest-subquery-10000", "SELECT " + "(SELECT " * 10000 + "1" + ")" * 10000)
    c.q("nest-array-7-dims", "SELECT ARRAY" + nest(7, "[", "]"))
    c.q("nest-array-literal-7-dims", "SELECT '" + nest(7, "{", "}") + "'::int[]")
    c.q("nest-array-literal-1000", "SELECT '" + nest(1000, "{", "}") + "'::int[]")
    c.q("nest-json-10000", "SELECT '" + nest(10000, "[", "]") + "'::json IS NOT NULL")
    c.q("nest-jsonb-10000", "SELECT '" + nest(10000, "[", "]") + "'::jsonb")
    c.q("nest-jsonb-object-6000", "SELECT '" + '{"a":' * 6000 + "1" + "}" * 6000 + "'::jsonb")
    c.q("nest-jsonb-200", "SELECT jsonb_array_length('" + nest(200, "[", "]") + "'::jsonb)")
    c.q("nest-plus-chain-20000", "SELECT " + "+".join(["1"] * 20000))
    c.q("nest-and-chain-20000", "SELECT " + " AND ".join(["true"] * 20000))
    c.q("nest-or-chain-10000", "SELECT count(*) FROM generate_series(1, 10) g WHERE " +
        " OR ".join(f"g = {i}" for i in range(10000)))
    c.q("nest-concat-5000", "SELECT length(" + " || ".join(["'ab'"] * 5000) + ")")
    c.q("nest-cte-chain-200", "WITH " + ", ".join(
        f"c{i} AS (SELECT {'1 AS x' if i == 0 else f'x + 1 AS x FROM c{i - 1}'})" for i in range(200)) +
        " SELECT x FROM c199")
    c.q("nest-union-2000", "SELECT count(*) FROM (" + " UNION ALL ".join(f"SELECT {i}" for i in range(2000)) + ") s")
    c.q("nest-case-whens-10000", "SELECT CASE 9999 " + " ".join(f"WHEN {i} THEN {i}" for i in range(10000)) + " END")
    c.q("nest-regex-parens-1000", "SELECT 'a' ~ '" + nest(1000, "(", ")", "a") + "'")

    # ---- huge IN lists, many values, many statements ----
    c.q("in-list-100000", "SELECT count(*) FROM generate_series(1, 1000) g WHERE g IN (" +
        ",".join(str(i) for i in range(0, 200000, 2)) + ")")
    c.q("in-list-strings-20000", "SELECT 'k19999' IN (" + ",".join(f"'k{i}'" for i in range(20000)) + ")")
    c.q("in-list-pk-50000", "SELECT count(*) FROM h WHERE id IN (" + ",".join(str(i) for i in range(50000)) + ")",
        setup=T + ["INSERT INTO h (id) SELECT g FROM generate_series(1, 100) g"])
    c.q("not-in-list-50000", "SELECT count(*) FROM generate_series(1, 100) g WHERE g NOT IN (" +
        ",".join(str(i) for i in range(50000, 100000)) + ")")
    c.q("values-rows-20000", "SELECT count(*), sum(a) FROM (VALUES " + ",".join(f"({i})" for i in range(20000)) + ") v(a)")
    c.q("insert-values-10000", "INSERT INTO h (id) VALUES " + ",".join(f"({i})" for i in range(10000)), setup=T)
    c.q("array-literal-100000", "SELECT cardinality(ARRAY[" + ",".join(["1"] * 100000) + "])")
    c.q("stmts-select-5000", "SELECT 1;" * 5000)
    c.q("stmts-insert-3000", "".join(f"INSERT INTO h (id) VALUES ({i});" for i in range(3000)) +
        "SELECT count(*) FROM h", setup=T)
    c.q("stmts-insert-then-error", "".join(f"INSERT INTO h (id) VALUES ({i});" for i in range(2000)) +
        "INSERT INTO h (id) VALUES (5); SELECT 1", setup=T, after="SELECT count(*) FROM h")
    c.raw("stmts-empty-10000", query(";" * 10000))
    c.raw("stmts-comments-only", query("/* a */ -- b\n /* c /* nested */ d */"))
    c.q("text-1mb-whitespace", " " * 1000000 + "SELECT 1")
    c.q("text-comment-unterminated", "SELECT 1 /* never closed")
    c.q("text-string-unterminated", "SELECT 'never closed")
    c.q("text-dollar-unterminated", "SELECT $a$ never closed")
    c.q("text-ident-unterminated", "SELECT \"never closed")
    c.q("target-list-1700", "SELECT " + ",".join(["1"] * 1700))
    c.q("func-args-101", "SELECT concat(" + ",".join(["'a'"] * 101) + ")")
    c.q("func-args-100", "SELECT length(concat(" + ",".join(["'a'"] * 100) + "))")
    c.q("table-1601-columns", "CREATE TABLE wide (" + ",".join(f"c{i} int" for i in range(1601)) + ")")
    c.q("join-40-tables", "SELECT count(*) FROM " + ", ".join(f"(VALUES (1)) t{i}(a)" for i in range(40)) +
        " WHERE " + " AND ".join(f"t{i}.a = t{i + 1}.a" for i in range(39)), timeout=60)

    # ---- oversized rows and values (54000) ----
    c.q("value-repeat-1gb", "SELECT length(repeat('x', 1073741824))")
    c.q("value-repeat-int-max", "SELECT repeat('xy', 2147483647)")
    c.q("value-lpad-1gb", "SELECT length(lpad('x', 1073741824))")
    c.q("value-array-fill-huge", "SELECT cardinality(array_fill(0, ARRAY[200000000]))")
    c.q("value-generate-series-array", "SELECT array_length(array_fill(1, ARRAY[100000, 100000]), 1)")
    c.q("value-string-agg-4mb", "SELECT length(string_agg(md5(g::text), '')) FROM generate_series(1, 131072) g")
    c.q("value-4mb-row", "INSERT INTO h (id, t) SELECT 1, repeat('abc', 1400000) RETURNING length(t)", setup=T)
    c.q("key-40kb-text", "CREATE TABLE kk (k text PRIMARY KEY); INSERT INTO kk SELECT string_agg(md5(g::text), '') "
        "FROM generate_series(1, 1250) g")
    c.q("value-bytea-hex-odd", "SELECT '\\x123'::bytea")
    c.q("value-ident-100-chars", f"SELECT 1 AS {'a' * 100}")

    # ---- numeric overflow (22003, 22012) ----
    c.q("num-int4-add", "SELECT 2147483647 + 1")
    c.q("num-int4-mul", "SELECT 65536 * 65536")
    c.q("num-int4-neg-min", "SELECT -(-2147483648)")
    c.q("num-int4-abs-min", "SELECT abs(-2147483648::int)")
    c.q("num-int4-div-min", "SELECT (-2147483648)::int / -1")
    c.q("num-int8-add", "SELECT 9223372036854775807::int8 + 1")
    c.q("num-int8-mul", "SELECT 4294967296::int8 * 4294967296::int8")
    c.q("num-int8-div-min", "SELECT (-9223372036854775808)::int8 / -1")
    c.q("num-int8-mod-min", "SELECT (-9223372036854775808)::int8 % -1")
    c.q("num-int2-overflow", "SELECT 32767::int2 + 1::int2")
    c.q("num-int4-literal", "SELECT '2147483648'::int")
    c.q("num-int8-literal", "SELECT '9223372036854775808'::int8")
    c.q("num-float8-literal", "SELECT '1e400'::float8")
    c.q("num-float4-overflow", "SELECT '1e39'::float4")
    c.q("num-float8-mul", "SELECT 1e308::float8 * 10")
    c.q("num-float8-underflow", "SELECT 1e-308::float8 * 1e-308")
    c.q("num-cast-float-int", "SELECT 1e20::float8::int")
    c.q("num-cast-numeric-int8", "SELECT 1e30::numeric::int8")
    c.q("num-div-zero-int", "SELECT 1 / 0")
    c.q("num-div-zero-numeric", "SELECT 1.0 / 0")
    c.q("num-div-zero-float", "SELECT 1.0::float8 / 0")
    c.q("num-mod-zero", "SELECT 5 % 0")
    c.q("num-power-overflow", "SELECT 10::numeric ^ 1000000")
    c.q("num-numeric-huge-exp", "SELECT '1e1000000'::numeric")
    c.q("num-numeric-typmod", "SELECT 123.456::numeric(4, 2)")
    c.q("num-factorial", "SELECT factorial(100000)")
    c.q("num-exp-overflow", "SELECT exp(1000000::float8)")
    c.q("num-sqrt-negative", "SELECT sqrt(-1)")
    c.q("num-ln-zero", "SELECT ln(0)")
    c.q("num-sum-int8-overflow", "SELECT sum(9223372036854775807::int8) FROM generate_series(1, 2)")
    c.q("num-generate-series-step-0", "SELECT generate_series(1, 10, 0)")
    c.q("num-money-overflow", "SELECT '92233720368547758.07'::money + '0.01'::money")
    c.q("num-bad-syntax", "SELECT '12abc'::int")
    c.x("num-param-overflow", "SELECT $1::int", ["2147483648"])
    c.x("num-param-binary-short", "SELECT $1::int4", [b"\x00\x01\x02"], fmts=[1])

    # ---- impossible dates and times (22008, 22007, 22015) ----
    c.q("date-feb-30", "SELECT '2024-02-30'::date")
    c.q("date-feb-29-nonleap", "SELECT '2023-02-29'::date")
    c.q("date-month-13", "SELECT '2023-13-01'::date")
    c.q("date-year-0", "SELECT '0000-01-01'::date")
    c.q("date-too-late", "SELECT '5874898-01-01'::date")
    c.q("date-plus-overflow", "SELECT '5874897-12-31'::date + 1")
    c.q("date-make-invalid", "SELECT make_date(2024, 2, 30)")
    c.q("date-garbage", "SELECT 'yesterday-ish'::date")
    c.q("time-24-00-01", "SELECT '24:00:01'::time")
    c.q("time-60-seconds", "SELECT '12:00:61'::time")
    c.q("timestamp-too-late", "SELECT '294277-01-01'::timestamp")
    c.q("timestamp-plus-interval", "SELECT '294276-12-31'::timestamp + interval '1 year'")
    c.q("timestamptz-bad-zone", "SELECT '2024-01-01 00:00 Mars/Olympus'::timestamptz")
    c.q("interval-overflow", "SELECT '2147483648 days'::interval")
    c.q("interval-mul-overflow", "SELECT interval '1000000 years' * 1000000")
    c.q("to-date-garbage", "SELECT to_date('2024-99-99', 'YYYY-MM-DD')")
    c.q("to-timestamp-huge", "SELECT to_timestamp(1e300)")
    c.q("date-infinity-ok", "SELECT 'infinity'::date > '2024-01-01'::date")
    c.q("extract-bad-field", "SELECT extract(fortnight FROM now())")
    c.x("date-param-binary-out-of-range", "SELECT $1::date", [b"\x7f\xff\xff\x00"], fmts=[1])

    # ---- COPY garbage (22P04, 22P02, 08P01) ----
    c.copy("copy-too-few-columns", "COPY h (id, t) FROM STDIN", b"1\n", setup=T)
    c.copy("copy-too-many-columns", "COPY h (id, t) FROM STDIN", b"1\ta\textra\n", setup=T)
    c.copy("copy-bad-int", "COPY h (id, t) FROM STDIN", b"x1\ta\n", setup=T)
    c.copy("copy-bad-date", "COPY h (id, d) FROM STDIN", b"1\t2024-02-30\n", setup=T)
    c.copy("copy-duplicate-key", "COPY h (id) FROM STDIN", b"1\n2\n1\n", setup=T)
    c.copy("copy-csv-unterminated", "COPY h (id, t) FROM STDIN (FORMAT csv)", b'1,"abc\n', setup=T)
    c.copy("copy-csv-quote-in-middle", "COPY h (id, t) FROM STDIN (FORMAT csv)", b'1,ab"c"d\n', setup=T)
    c.copy("copy-backslash-at-end", "COPY h (id, t) FROM STDIN", b"1\tab\\", setup=T)
    c.copy("copy-end-marker-then-junk", "COPY h (id, t) FROM STDIN", b"1\ta\n\\.\ngarbage\n", setup=T)
    c.copy("copy-binary-garbage", "COPY h (id, t) FROM STDIN", bytes(range(256)) * 4, setup=T)
    c.copy("copy-long-line-1mb", "COPY h (id, t) FROM STDIN", b"1\t" + b"x" * 1000000 + b"\n", setup=T,
           after="SELECT length(t) FROM h")
    c.copy("copy-many-rows-ok", "COPY h (id, t) FROM STDIN", b"".join(b"%d\tr%d\n" % (i, i) for i in range(20000)),
           setup=T, after="SELECT count(*) FROM h")
    c.copy("copy-not-null-violation", "COPY h (id, t) FROM STDIN", b"\\N\ta\n", setup=T)
    c.copy("copy-bad-escape-octal", "COPY h (id, t) FROM STDIN", b"1\t\\777\n", setup=T)
    c.q("copy-option-repeated", "COPY h FROM STDIN (FORMAT csv, FORMAT text)", setup=T)
    c.q("copy-delimiter-newline", "COPY h FROM STDIN (DELIMITER E'\\n')", setup=T)

    # ---- identifiers with quotes and unicode ----
    c.q("ident-quote-doubled", 'CREATE TABLE "a""b" ("c""d" int); INSERT INTO "a""b" VALUES (1); '
        'SELECT "c""d" FROM "a""b"')
    c.q("ident-unicode", 'CREATE TABLE "tä\U0001F600" ("ü" int); INSERT INTO "tä\U0001F600" VALUES (7); '
        'SELECT "ü" FROM "tä\U0001F600"')
    c.q("ident-uescape", 'SELECT 1 AS U&"\\0441\\043B\\043E\\043D"')
    c.q("ident-empty", 'SELECT 1 AS ""')
    c.q("ident-64-chars-truncated", "CREATE TABLE " + "t" * 70 + " (a int); SELECT relname FROM pg_class WHERE "
        "relname LIKE 'ttt%'")
    c.q("ident-keyword-quoted", 'CREATE TABLE "select" ("from" int); INSERT INTO "select" VALUES (3); '
        'SELECT "from" FROM "select"')
    c.q("ident-spaces-and-dots", 'CREATE TABLE "a b.c" (x int); SELECT count(*) FROM "a b.c"')
    c.q("ident-case-sensitive", 'CREATE TABLE "Mixed" (x int); SELECT * FROM mixed')
    c.q("ident-unicode-bad-escape", 'SELECT 1 AS U&"\\D800"')
    c.q("literal-quotes", "SELECT 'it''s' || $$a'b$$ || $q$$$q$ || E'\\'' || 'a'\n'b'")
    c.q("literal-unicode-escape", "SELECT U&'d\\0061t\\+000061'")
    c.q("literal-bad-escape", "SELECT E'\\u12'")
    c.q("param-in-simple-query", "SELECT $1")

    # ---- prepared statements never closed, settings ----
    c.q("prepare-2000-sql", "".join(f"PREPARE p{i} AS SELECT {i};" for i in range(2000)) + "EXECUTE p1999")
    c.q("prepare-duplicate", "PREPARE p AS SELECT 1; PREPARE p AS SELECT 2")
    c.q("execute-unknown", "EXECUTE nope")
    c.q("set-work-mem-negative", "SET work_mem = -1")
    c.q("set-timeout-garbage", "SET statement_timeout = 'soon'")
    c.q("set-datestyle-garbage", "SET DateStyle = 'Martian'")
    c.q("set-unknown", "SET no_such_setting = 1")
    c.q("set-search-path-long", "SET search_path = " + ",".join(f"s{i}" for i in range(2000)) + "; SELECT 1")
    c.q("regex-invalid", "SELECT 'a' ~ '('")
    c.q("regex-backtracking", "SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' ~ '^(a+)+$'", timeout=20)
    c.q("like-backtracking", "SELECT repeat('a', 5000) LIKE repeat('%a', 50) || 'b'", timeout=20)
    c.q("similar-backtracking", "SELECT repeat('a', 40) SIMILAR TO '(a|aa)*b'", timeout=20)
    c.q("recursive-cte-infinite", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT count(*) FROM r", timeout=2)
    c.q("series-timeout", "SELECT count(*) FROM generate_series(1, 10000000000)", timeout=2)
    c.q("sleep-timeout", "SELECT pg_sleep(60)", timeout=1)

    # ---- the extended protocol: raw messages (beyond tests/wire) ----
    c.raw("ext-bind-too-many-params", parse("", "SELECT $1::int") + bind("", "", ["1", "2", "3"]) + SYNC)
    c.raw("ext-bind-too-few-params", parse("", "SELECT $1::int + $2::int") + bind("", "", ["1"]) + SYNC)
    c.raw("ext-bind-negative-length", parse("", "SELECT $1::text") + bind("", "", [(-5, b"")]) + SYNC)
    c.raw("ext-bind-length-past-end", parse("", "SELECT $1::text") + bind("", "", [(1000, b"ab")]) + SYNC)
    c.raw("ext-bind-bad-format-code", parse("", "SELECT $1::text") + bind("", "", ["a"], fmts=[7]) + SYNC)
    c.raw("ext-bind-result-format-bad", parse("", "SELECT 1") + bind("", "", [], rfmts=[3]) + execute() + SYNC)
    c.raw("ext-bind-formats-count-mismatch", parse("", "SELECT $1::text, $2::text") +
          bind("", "", ["a", "b"], fmts=[0, 0, 0]) + SYNC)
    c.raw("ext-parse-two-commands", parse("", "SELECT 1; SELECT 2") + SYNC)
    c.raw("ext-parse-param-70000", parse("", "SELECT $70000") + SYNC)
    c.raw("ext-parse-duplicate-name", parse("s1", "SELECT 1") + parse("s1", "SELECT 2") + SYNC)
    c.raw("ext-describe-unknown-stmt", describe("S", "nope") + SYNC)
    c.raw("ext-close-unknown-ok", close("S", "nope") + close("P", "nope") + SYNC)
    c.raw("ext-execute-after-error-skipped", parse("", "SELECT 1/0") + bind("", "") + execute() +
          query("SELECT 1") + parse("", "SELECT 2") + SYNC + query("SELECT 3"))
    c.raw("ext-portal-suspend-then-sync", parse("", "SELECT generate_series(1, 10)") + bind("p1", "") +
          execute("p1", 3) + execute("p1", 3) + SYNC + execute("p1", 1) + SYNC)
    c.raw("ext-bind-null-bad-format-code", parse("", "SELECT $1::text") + bind("p9", "", [None], fmts=[7]) + SYNC)
    c.raw("ext-bind-second-format-bad", parse("", "SELECT $1::int, $2::text") +
          bind("", "", ["1", "a"], fmts=[0, 7]) + SYNC)
    c.raw("ext-bind-result-format-bad-no-rows", parse("", "SELECT 1 WHERE false") + bind("", "", [], rfmts=[3]) +
          execute() + SYNC)
    c.raw("ext-bind-result-format-count", parse("", "SELECT 1, 2") + bind("", "", [], rfmts=[0, 0, 0]) +
          execute() + SYNC)
    c.raw("ext-parse-param-gap", parse("", "SELECT $1::int + $3::int") + SYNC)
    c.raw("ext-portal-bind-then-sync", parse("", "SELECT 1") + bind("p2", "") + SYNC + execute("p2") + SYNC)
    c.raw("ext-portal-in-block-survives-sync", query("BEGIN") + parse("", "SELECT generate_series(1, 10)") +
          bind("p1", "") + execute("p1", 3) + SYNC + execute("p1", 1) + SYNC + query("COMMIT"))
    c.raw("ext-portal-commit-in-pipeline", query("BEGIN") + parse("", "SELECT generate_series(1, 5)") +
          bind("p3", "") + execute("p3", 2) + parse("", "COMMIT") + bind("", "") + execute() + SYNC +
          execute("p3", 1) + SYNC)
    c.raw("ext-5000-named-statements", b"".join(parse(f"n{i}", f"SELECT {i}") for i in range(5000)) + SYNC +
          bind("", "n4999") + execute() + SYNC)
    c.raw("ext-5000-unnamed-bind-execute", b"".join(parse("", "SELECT 1") + bind("", "") + execute()
                                                    for _ in range(5000)) + SYNC)
    c.raw("ext-flush-spam", FLUSH * 10000 + query("SELECT 1"))
    c.raw("ext-sync-spam", SYNC * 2000)
    c.raw("ext-query-5000-statements", query("SELECT 1;" * 5000))
    c.raw("msg-length-huge", b"Q" + struct.pack("!I", 0x7FFFFFF0) + b"SELECT 1")
    c.raw("msg-query-embedded-nul", _msg("Q", b"SELECT 1\0SELECT 2\0"))
    c.raw("msg-function-call", _msg("F", struct.pack("!I", 1598) + struct.pack("!H", 0) + struct.pack("!H", 0) +
                                    struct.pack("!h", 0)))
    c.raw("msg-copy-data-outside-copy", _msg("d", b"junk") + _msg("c") + query("SELECT 1"))
    c.raw("msg-copy-fail-outside-copy", _msg("f", b"why\0") + query("SELECT 1"))
    c.raw("msg-copy-then-query", query("CREATE TEMP TABLE ct (a int); COPY ct FROM STDIN") + query("SELECT 1"))
    c.raw("msg-copy-partial-then-fail", query("CREATE TEMP TABLE ct (a int); COPY ct FROM STDIN") +
          _msg("d", b"1\n2") + _msg("f", b"client gave up\0") + query("SELECT count(*) FROM ct"))
    c.raw("msg-copy-garbage-lines", query("CREATE TEMP TABLE ct (a int); COPY ct FROM STDIN") +
          _msg("d", b"1\n\xff\xfe\n") + _msg("c") + query("SELECT count(*) FROM ct"))
    c.raw("msg-terminate-mid-transaction", query("BEGIN; CREATE TEMP TABLE tt (a int)") + _msg("X"))

    # ---- startup packets (beyond tests/wire) ----
    c.startup("startup-user-100-chars", startup_packet([("user", "u" * 100), ("database", "postgres")]))
    c.startup("startup-unknown-database", startup_packet([("user", "postgres"), ("database", "nope")]))
    c.startup("startup-unknown-user", startup_packet([("user", "nobody_here"), ("database", "postgres")]))
    c.startup("startup-bad-guc", startup_packet([("user", "postgres"), ("work_mem", "lots")]))
    c.startup("startup-unknown-guc", startup_packet([("user", "postgres"), ("no_such_guc", "1")]))
    c.startup("startup-options-bad", startup_packet([("user", "postgres"), ("options", "-c")]))
    c.startup("startup-utf8-user", startup_packet([("user", b"\xff\xfe")]))
    c.startup("startup-200-params", startup_packet([("user", "postgres")] +
                                                   [("application_name", f"a{i}") for i in range(200)]))
