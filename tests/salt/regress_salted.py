#!/usr/bin/python3
"""regress_salted.py — the SQL regression files again, every table salted.

Runs tests/regress/sql/NAME.sql (expected output from PostgreSQL 15, made
by tests/regress/gen_expected.sh on plain tables) on a Strata server with
`SET strata.default_salt_buckets = N` in front, so every table the file
creates is salted, and compares with the same expected output. The only
lines allowed to differ are EXPLAIN's "Salt Buckets: N" lines (removed
here, the row count under the plan corrected) and the echoed SET line.
psql runs exactly as tests/regress/common.sh runs it (the same function).

usage: regress_salted.py [--buckets N] [NAME ...]   (default: FILES below)
Prints "ok NAME" / "# FAIL NAME" and "N passed, N failed".
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
REGRESS = os.path.join(ROOT, "tests", "regress")
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from strata_fixture import StrataServer  # noqa: E402

# Files about tables and their reads and writes. Left out: files that print
# reloptions or \d+ "Options:" (they show salt_buckets) and those about
# interleaved tables (a salted table cannot be a parent).
FILES = [
    "range_scans", "record_order", "dml", "copy_header", "fk_basic", "fk_actions", "fk_deferred",
    "index_scans", "index_unique", "index_ddl", "ddl_truncate", "ddl_alter_rekey", "ddl_alter_rekey_indexes",
    "ddl_alter_column", "ddl_drop", "aggregates", "joins", "select_basic", "select_group", "subqueries",
    "window", "cte_setops", "cursors_prepare", "views_dml", "explain", "spill",
]

SALT_LINE = re.compile(r"^ +(->  )?Salt Buckets: \d+( \((one per key|read as stored)\))?$")
# The same property in EXPLAIN (FORMAT JSON): a cell line ending in "+".
SALT_JSON = re.compile(r'^ +"Salt Buckets": "\d+( \((one per key|read as stored)\))?" *\+$')
ROWS = re.compile(r"^\((\d+) rows?\)$")


def strip_salt(lines):
    """Drops "Salt Buckets" lines of EXPLAIN output and lowers the row
    count that ends each result by the number dropped from it."""
    out, dropped = [], 0
    for line in lines:
        if SALT_LINE.match(line.rstrip("\n")):
            dropped += 1
            continue
        if SALT_JSON.match(line.rstrip("\n")):
            # The property before it loses its comma.
            out[-1] = re.sub(r',( *\+)$', r' \1', out[-1].rstrip("\n")) + "\n"
            continue
        m = ROWS.match(line.rstrip("\n"))
        if m and dropped:
            n = int(m.group(1)) - dropped
            line = f"({n} row{'' if n == 1 else 's'})\n"
            dropped = 0
        out.append(line)
    return out


def fix_plan_widths(lines):
    """psql sizes a one-column result to its longest line: with the salt
    lines gone, a QUERY PLAN result may be too wide. Rebuilds header, rule
    and the padding of multi-line cells (lines ending in "+") of every
    QUERY PLAN result from its remaining lines."""
    out = list(lines)
    i = 0
    while i + 1 < len(out):
        if out[i].strip() == "QUERY PLAN" and set(out[i + 1].strip()) == {"-"}:
            j = i + 2
            while j < len(out) and not ROWS.match(out[j].rstrip("\n")):
                j += 1
            body = []
            for x in out[i + 2:j]:
                x = x.rstrip("\n")
                cont = x.endswith("+")
                body.append((x[1:-1].rstrip() if cont else x[1:], cont))
            width = max([10] + [len(c) for c, _ in body])
            left = (width - 10) // 2
            out[i] = " " + " " * left + "QUERY PLAN" + " " * (width - 10 - left) + " \n"
            out[i + 1] = "-" * (width + 2) + "\n"
            out[i + 2:j] = [" " + (c.ljust(width) + "+" if cont else c) + "\n" for c, cont in body]
            i = j
        i += 1
    return out


def expected_file(name):
    alt = os.path.join(REGRESS, "expected", f"{name}_strata.out")
    return alt if os.path.exists(alt) else os.path.join(REGRESS, "expected", f"{name}.out")


def run_file(srv, name, buckets, logs):
    setline = f"SET strata.default_salt_buckets = {buckets};\n"
    with open(os.path.join(REGRESS, "sql", f"{name}.sql")) as f:
        text = f.read()
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as tf:
        tf.write(setline + text)
        src = tf.name
    out = os.path.join(logs, f"{name}.out")
    cmd = f'. "{REGRESS}/common.sh"; regress_psql 127.0.0.1 {srv.port} "{src}" "{out}"'
    rc = subprocess.run(["bash", "-c", cmd]).returncode
    os.unlink(src)
    with open(out) as f:
        got = f.readlines()
    if got and got[0] == setline:
        got = got[1:]
    got = fix_plan_widths(strip_salt(got))
    with open(expected_file(name)) as f:
        exp = f.readlines()
    if rc not in (0, 3):
        return f"psql exited with status {rc}"
    if got != exp:
        with open(out, "w") as f:
            f.writelines(got)
        d = subprocess.run(["diff", "-u", expected_file(name), out], capture_output=True, text=True).stdout
        with open(os.path.join(logs, f"{name}.diff"), "w") as f:
            f.write(d)
        return "output differs:\n" + "\n".join("       " + x for x in d.splitlines()[:30])
    os.unlink(out)
    return None


def main(argv):
    buckets = 8
    if len(argv) >= 2 and argv[0] == "--buckets":
        buckets = int(argv[1])
        argv = argv[2:]
    names = argv or FILES
    logs = os.path.join(os.environ.get("STRATA_LOGS", os.path.join(ROOT, "build", "test-logs")), "salt-regress")
    os.makedirs(logs, exist_ok=True)
    passed = failed = 0
    print(f"# salt-regress: {len(names)} regression files, salt_buckets = {buckets}")
    for name in names:
        # A fresh server per file, as tests/regress/run.sh does.
        with StrataServer(f"salt-{name}") as srv:
            why = run_file(srv, name, buckets, logs)
            if why:
                srv.mark_failed()
        if why:
            failed += 1
            print(f"# FAIL {name}: {why}")
        else:
            passed += 1
            print(f"ok     {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
