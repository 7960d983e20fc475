#!/usr/bin/python3
"""dump_test.py — pg_dump 15 round trips between Strata and PostgreSQL 15.

Starts one Strata server (tests/lib/strata_fixture.py) and one throwaway
PostgreSQL 15 (the same fixture running tests/lib/pg_as_strata.sh), builds
tests/dump/schema.sql in a database "src" on each, dumps each source with
Debian's pg_dump 15 in plain format (restored by psql -v ON_ERROR_STOP=1) and
in custom format (restored by pg_restore --exit-on-error), and restores:
  Strata -> Strata, Strata -> PostgreSQL, PostgreSQL -> Strata
(and PostgreSQL -> PostgreSQL, which checks the test itself). Every restore
goes into a fresh database and is then compared with its source:
  - every table's and the view's rows (all columns as text, sorted),
  - columns (types, nullability, defaults, identity), constraints
    (pg_get_constraintdef), indexes (pg_indexes.indexdef), sequences
    (parameters and next value), comments, ACLs of relations and schemas,
  - behaviour: each constraint is violated once (expecting 23505, 23503,
    23514, 23502, 428C9), ON DELETE CASCADE, defaults, serial and identity,
  - and pg_dump of the restored database equals pg_dump of the source.
Custom-format dumps are restored with pg_restore -j 2 (parallel sessions);
directory-format dumps are taken with pg_dump -j 2 (parallel workers sharing
the leader's exported snapshot) and restored the same way.
Then pg_dumpall: Strata's globals equal PostgreSQL's, and a whole-cluster dump
of Strata restores into a fresh Strata and a fresh PostgreSQL 15.
Prints "ok NAME" / "# FAIL NAME: ..." per check and "N passed, N failed".
usage: dump_test.py [-v]
"""
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from strata_fixture import NoServerInTree, StrataServer  # noqa: E402

import psycopg2  # noqa: E402

PG_BIN = "/usr/lib/postgresql/15/bin"
# A PostgreSQL 15 server started by the fixture in place of strata.
PG15_ENV = {"STRATA_BIN": os.path.join(ROOT, "tests", "lib", "pg_as_strata.sh")}
VERBOSE = "-v" in sys.argv[1:]
SCHEMAS = ("public", "other")
passed = 0
failed = 0


def report(name, err=None):
    global passed, failed
    if err is None:
        passed += 1
        print(f"ok {name}", flush=True)
    else:
        failed += 1
        text = str(err).rstrip()
        if not VERBOSE and text.count("\n") > 40:
            text = "\n".join(text.split("\n")[:40]) + "\n..."
        print(f"# FAIL {name}: " + text.replace("\n", "\n#   "), flush=True)


def tool(name):
    """Debian's pg_dump/pg_restore/psql 15 (the wrapper picks the newest
    installed version, so the 15 binaries are called directly)."""
    p = os.path.join(PG_BIN, name)
    return p if os.access(p, os.X_OK) else name


def run(cmd, srv, db, stdin=None):
    env = srv.env()
    env["PGDATABASE"] = db
    env["PGOPTIONS"] = ""
    r = subprocess.run(cmd, env=env, input=stdin, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {r.returncode}:\n{r.stderr}{r.stdout[-2000:]}")
    return r.stdout


def psql_file(srv, db, path):
    return run([tool("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path], srv, db)


@contextlib.contextmanager
def connect(srv, db):
    c = psycopg2.connect(host=srv.host, port=srv.port, user="postgres", dbname=db)
    c.autocommit = True
    try:
        yield c
    finally:
        c.close()


def wait_ready(srv, timeout=60):
    """PostgreSQL accepts TCP connections before it accepts sessions (57P03,
    "the database system is starting up"); the fixture only waits for the
    former."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg2.connect(host=srv.host, port=srv.port, user="postgres", dbname="postgres").close()
            return
        except psycopg2.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def rows(cur, sql, args=None):
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


def sort_key(row):
    return tuple((0, "") if v is None else (1, v) for v in row)


def qname(schema, name):
    return f'"{schema}"."{name}"'


# ---------------------------------------------------------------- what is compared

REL_SQL = """SELECT n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname IN ('public', 'other') AND c.relkind IN ('r', 'v', 'S', 'i')
  ORDER BY 1, 2"""


def snapshot(srv, db):
    """Everything compared between a source and a restore, as a dict of
    sections (each a list of tuples). Sequences' next values are taken, so
    it is called once per database, after its dumps."""
    snap = {}
    with connect(srv, db) as conn:
        cur = conn.cursor()
        rels = rows(cur, REL_SQL)
        snap["relations"] = rels
        for nsp, rel, kind in rels:
            if kind not in ("r", "v"):
                continue
            cols = [r[0] for r in rows(cur, """SELECT column_name::text FROM information_schema.columns
                WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position""", (nsp, rel))]
            sel = ", ".join(f'"{c}"::text' for c in cols)
            snap[f"rows {nsp}.{rel}"] = [tuple(cols)] + sorted(
                rows(cur, f"SELECT {sel} FROM {qname(nsp, rel)}"), key=sort_key)
        snap["columns"] = rows(cur, """SELECT table_schema::text, table_name::text, column_name::text,
              data_type::text, character_maximum_length::int, numeric_precision::int, numeric_scale::int,
              is_nullable::text, column_default::text, is_identity::text, identity_generation::text
            FROM information_schema.columns WHERE table_schema IN ('public', 'other')
            ORDER BY 1, 2, ordinal_position""")
        snap["constraints"] = rows(cur, """SELECT n.nspname::text, c.relname::text, k.conname::text,
              k.contype::text, pg_catalog.pg_get_constraintdef(k.oid, true)
            FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname IN ('public', 'other') ORDER BY 1, 2, 3""")
        snap["indexes"] = rows(cur, """SELECT schemaname::text, tablename::text, indexname::text, indexdef
            FROM pg_catalog.pg_indexes WHERE schemaname IN ('public', 'other') ORDER BY 1, 2, 3""")
        snap["sequences"] = rows(cur, """SELECT schemaname::text, sequencename::text, data_type::text,
              start_value, min_value, max_value, increment_by, cycle, cache_size, last_value
            FROM pg_catalog.pg_sequences WHERE schemaname IN ('public', 'other') ORDER BY 1, 2""")
        snap["comments"] = rows(cur, """SELECT n.nspname::text, c.relname::text, d.objsubid, d.description
            FROM pg_catalog.pg_description d JOIN pg_catalog.pg_class c ON c.oid = d.objoid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE d.classoid = 'pg_catalog.pg_class'::regclass AND n.nspname IN ('public', 'other')
            ORDER BY 1, 2, 3""") + rows(cur, """SELECT nspname::text,
              pg_catalog.obj_description(oid, 'pg_namespace') FROM pg_catalog.pg_namespace
            WHERE nspname IN ('public', 'other') ORDER BY 1""")
        snap["acls"] = rows(cur, """SELECT n.nspname::text, c.relname::text, c.relacl::text
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname IN ('public', 'other') AND c.relkind IN ('r', 'v', 'S')
            ORDER BY 1, 2""") + rows(cur, """SELECT nspname::text, nspacl::text
            FROM pg_catalog.pg_namespace WHERE nspname = 'other'""")
        snap["privileges"] = rows(cur, """SELECT n.nspname::text, c.relname::text,
              pg_catalog.has_table_privilege('dump_reader', c.oid, 'SELECT'),
              pg_catalog.has_table_privilege('dump_reader', c.oid, 'INSERT')
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname IN ('public', 'other') AND c.relkind IN ('r', 'v')
            ORDER BY 1, 2""")
        snap["nextval"] = [(nsp, rel, rows(cur, "SELECT nextval(%s)", (f"{nsp}.{rel}",))[0][0])
                           for nsp, rel, kind in rels if kind == "S"]
        snap["violations"] = violations(conn)
        snap["behaviour"] = behaviour(conn)
    return snap


# Each statement must fail with the SQLSTATE PostgreSQL gives.
VIOLATIONS = [
    ("INSERT INTO parent VALUES ('eu', 1, 'dup')", "23505"),
    ("INSERT INTO parent VALUES ('zz', 9, 'alpha')", "23505"),
    ("INSERT INTO types_t (id) VALUES (3)", "23505"),
    ("INSERT INTO ident (label) VALUES ('One')", "23505"),
    ("INSERT INTO ident (label, lower_label) VALUES ('x', 'two')", "23505"),
    ("INSERT INTO other.items (code, price) VALUES ('A1', 1)", "23505"),
    ("UPDATE child SET cid = 1 WHERE cid = 2", "23505"),
    ("INSERT INTO child (region, pid) VALUES ('zz', 1)", "23503"),
    ("INSERT INTO other.items VALUES ('C3', 1, '{}', 'nobody')", "23503"),
    ("DELETE FROM parent WHERE name = 'alpha'", "23503"),
    ("UPDATE child SET pid = 99 WHERE cid = 1", "23503"),
    ("INSERT INTO child (region, pid, qty) VALUES ('eu', 1, 0)", "23514"),
    ("INSERT INTO parent (region, pid, name, score) VALUES ('zz', 9, 'neg', -1)", "23514"),
    ("INSERT INTO other.items (code, price) VALUES ('C3', 0)", "23514"),
    ("UPDATE child SET qty = -1", "23514"),
    ("INSERT INTO parent (region, pid, name) VALUES ('zz', NULL, 'n')", "23502"),
    ("INSERT INTO child (region, pid, qty) VALUES ('eu', 1, NULL)", "23502"),
    ("UPDATE other.items SET price = NULL", "23502"),
    ("INSERT INTO parent (region, pid, name) VALUES (NULL, 5, 'n')", "23502"),
    ("INSERT INTO ident (id, label) VALUES (1, 'q')", "428C9"),
]


def violations(conn):
    out = []
    cur = conn.cursor()
    for sql, want in VIOLATIONS:
        got = "no error"
        try:
            cur.execute("BEGIN")
            cur.execute(sql)
        except psycopg2.Error as e:
            got = e.pgcode
        finally:
            cur.execute("ROLLBACK")
        out.append((sql, want, got))
    return out


def behaviour(conn):
    """Results of statements that use defaults, sequences and cascades (in
    a transaction that is rolled back; sequences advance)."""
    cur = conn.cursor()
    out = []
    cur.execute("BEGIN")
    try:
        for sql in ["INSERT INTO parent (region, pid) VALUES ('dd', 1) RETURNING name, score::text, created::text",
                    "INSERT INTO child (region, pid) VALUES ('dd', 1) RETURNING cid, qty",
                    "INSERT INTO ident (label) VALUES ('new') RETURNING id, id2",
                    "INSERT INTO other.items (code, price) VALUES ('N1', 2) RETURNING tags::text",
                    "DELETE FROM parent WHERE region = 'eu' AND pid = 2",
                    "SELECT count(*) FROM child",
                    "DELETE FROM parent WHERE region = 'dd'",
                    "SELECT cid, region, pid FROM child ORDER BY cid",
                    "SELECT id FROM types_t WHERE ts > '2000-01-01' ORDER BY ts DESC NULLS LAST",
                    "SELECT label FROM ident WHERE lower(label) = 'two'",
                    "SELECT cid FROM child WHERE qty > 1 AND note IS NOT NULL ORDER BY cid"]:
            cur.execute(sql)
            out.append((sql, cur.rowcount, [tuple(r) for r in cur.fetchall()] if cur.description else None))
    except psycopg2.Error as e:
        out.append(("error", e.pgcode, str(e).strip()))
    cur.execute("ROLLBACK")
    return out


def compare(src, dst):
    """Differences between two snapshots, as text ('' when equal)."""
    lines = []
    for sec in sorted(set(src) | set(dst)):
        a, b = src.get(sec), dst.get(sec)
        if a == b:
            continue
        if a is None or b is None:
            lines.append(f"{sec}: only in {'restore' if a is None else 'source'}")
            continue
        sa, sb = set(map(repr, a)), set(map(repr, b))
        for r in a:
            if repr(r) not in sb:
                lines.append(f"{sec}: source   {r!r}")
        for r in b:
            if repr(r) not in sa:
                lines.append(f"{sec}: restored {r!r}")
        if sa == sb:
            lines.append(f"{sec}: same rows, different order")
    return "\n".join(lines)


def check_violations(snap):
    bad = [f"{sql}: expected {want}, got {got}" for sql, want, got in snap["violations"] if want != got]
    return "\n".join(bad)


# ---------------------------------------------------------------- dumps

MASK = re.compile(r"^(-- Dumped from database version|-- Dumped by pg_dump version|\\restrict |\\unrestrict )")


def dump_text(srv, db):
    """pg_dump's plain output with version lines and restrict keys masked and
    the rows of each COPY block sorted: a table scan returns rows in heap
    order in PostgreSQL and in primary key order in Strata."""
    out = run([tool("pg_dump"), "-d", db], srv, db)
    lines, block = [], None
    for line in out.split("\n"):
        if MASK.match(line):
            continue
        if block is not None:
            if line == "\\.":
                lines += sorted(block)
                block = None
            else:
                block.append(line)
                continue
        elif line.startswith("COPY "):
            block = []
        lines.append(line)
    return "\n".join(lines)


def diff(a, b):
    import difflib
    return "\n".join(difflib.unified_diff(a.split("\n"), b.split("\n"), "source", "restored", lineterm="", n=1))


def dumpall(servers, tmp):
    """pg_dumpall: the globals (roles) of Strata read as PostgreSQL's, and a
    whole-cluster dump of Strata restores into a fresh Strata server and a
    fresh PostgreSQL 15, where each database dumps as in the source. The only
    error allowed is the one every pg_dumpall restore gives: the bootstrap
    role exists already."""
    strata, pg = servers["strata"], servers["pg15"]
    try:
        g = [run([tool("pg_dumpall"), "-g"], srv, "postgres") for srv in (strata, pg)]
        g = ["\n".join(l for l in t.split("\n") if not MASK.match(l)) for t in g]
        report("pg_dumpall -g of strata equals pg15's", diff(g[1], g[0]) or None)
    except Exception as e:  # noqa: BLE001
        report("pg_dumpall -g of strata equals pg15's", e)
    path = os.path.join(tmp, "all.sql")
    try:
        with open(path, "w") as f:
            f.write(run([tool("pg_dumpall")], strata, "postgres"))
        with connect(strata, "postgres") as c:
            dbs = [r[0] for r in rows(c.cursor(), "SELECT datname::text FROM pg_catalog.pg_database "
                                      "WHERE datallowconn AND datname NOT LIKE 'template%' ORDER BY 1")]
        texts = {db: dump_text(strata, db) for db in dbs}
        report("pg_dumpall of strata")
    except Exception as e:  # noqa: BLE001
        report("pg_dumpall of strata", e)
        return
    for tname in ("strata", "pg15"):
        fresh = StrataServer(f"dumpall-{tname}", env=PG15_ENV if tname == "pg15" else None)
        label = f"pg_dumpall strata -> fresh {tname}"
        try:
            fresh.start()
            wait_ready(fresh)
            env = fresh.env()
            r = subprocess.run([tool("psql"), "-X", "-q", "-d", "postgres", "-f", path], env=env,
                               capture_output=True, text=True, timeout=600)
            errs = [l for l in r.stderr.split("\n") if "ERROR" in l and
                    'role "postgres" already exists' not in l]
            report(f"restore {label}", "\n".join(errs) or (f"psql exited with {r.returncode}"
                                                        if r.returncode else None))
            bad = [f"{db}:\n{diff(texts[db], dump_text(fresh, db))}" for db in dbs
                   if texts[db] != dump_text(fresh, db)]
            report(f"re-dump {label}", "\n".join(bad) or None)
        except Exception as e:  # noqa: BLE001
            report(label, e)
        finally:
            fresh.stop()
            if fresh.clean is False:
                report(f"{fresh.name} exited cleanly", "see the kept server log")


def main():
    tmp = tempfile.mkdtemp(prefix="strata-dump.")
    strata = StrataServer("dump")
    pg = StrataServer("dump-pg15", env=PG15_ENV)
    try:
        strata.start()
    except NoServerInTree as e:
        print(f"# dump: {e}")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    servers = {"strata": strata, "pg15": pg}
    try:
        pg.start()
        wait_ready(pg)
        # roles are per cluster: the grants in the dumps name dump_reader
        for name, srv in servers.items():
            with connect(srv, "postgres") as c:
                c.cursor().execute("CREATE ROLE dump_reader")
                c.cursor().execute("CREATE DATABASE src")
        sources = {}
        for name, srv in servers.items():
            try:
                psql_file(srv, "src", os.path.join(HERE, "schema.sql"))
                report(f"build on {name}")
            except Exception as e:  # noqa: BLE001
                report(f"build on {name}", e)
                continue
            dumps = {}
            for fmt in ("plain", "custom", "directory"):
                path = os.path.join(tmp, f"{name}.{fmt}")
                # Directory format with 2 jobs: the workers import the leader's
                # exported snapshot (pg_export_snapshot / SET TRANSACTION SNAPSHOT).
                jobs = ["-j", "2"] if fmt == "directory" else []
                try:
                    run([tool("pg_dump"), "-F", fmt[0], *jobs, "-f", path, "-d", "src"], srv, "src")
                    dumps[fmt] = path
                    report(f"pg_dump -F{fmt[0]} of {name}")
                except Exception as e:  # noqa: BLE001
                    report(f"pg_dump -F{fmt[0]} of {name}", e)
            try:
                text = dump_text(srv, "src")
                snap = snapshot(srv, "src")
                report(f"snapshot of {name}", check_violations(snap) or None)
            except Exception as e:  # noqa: BLE001
                report(f"snapshot of {name}", e)
                continue
            sources[name] = (dumps, text, snap)
        for sname, (dumps, text, ssnap) in sources.items():
            for tname, tsrv in servers.items():
                for fmt, path in dumps.items():
                    db = f"r_{sname}_{fmt}"
                    label = f"{sname} -> {tname} ({fmt})"
                    try:
                        with connect(tsrv, "postgres") as c:
                            c.cursor().execute(f"CREATE DATABASE {db}")
                        if fmt == "plain":
                            psql_file(tsrv, db, path)
                        else:
                            run([tool("pg_restore"), "--exit-on-error", "-j", "2", "-d", db, path], tsrv, db)
                        report(f"restore {label}")
                    except Exception as e:  # noqa: BLE001
                        report(f"restore {label}", e)
                        continue
                    if fmt == "plain":
                        try:
                            d = diff(text, dump_text(tsrv, db))
                            report(f"re-dump {label}", d or None)
                        except Exception as e:  # noqa: BLE001
                            report(f"re-dump {label}", e)
                    try:
                        tsnap = snapshot(tsrv, db)
                    except Exception as e:  # noqa: BLE001
                        report(f"compare {label}", e)
                        continue
                    for sec in ("rows", "catalog", "sequences", "behaviour"):
                        keys = {"rows": [k for k in ssnap if k.startswith("rows ")] + ["relations"],
                                "catalog": ["columns", "constraints", "indexes", "comments", "acls",
                                            "privileges"],
                                "sequences": ["sequences", "nextval"],
                                "behaviour": ["violations", "behaviour"]}[sec]
                        d = compare({k: ssnap.get(k) for k in keys}, {k: tsnap.get(k) for k in keys})
                        report(f"{sec} {label}", d or None)
        dumpall(servers, tmp)
    except Exception as e:  # noqa: BLE001 (a server that did not start, a lost connection)
        report("servers", e)
    finally:
        for srv in servers.values():
            srv.stop()
            if srv.clean is False:
                report(f"{srv.name} exited cleanly", "see the kept server log")
        subprocess.run(["rm", "-rf", tmp])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
