#!/usr/bin/python3
"""threads.py — the server after more connection threads than the process
has pthread keys (PTHREAD_KEYS_MAX, 1024).

libpg_query creates a pthread key in every thread that parses and never
deletes it, so a server that has served ~1,000 connections has no keys left.
Anything that created its key lazily after that failed and aliased key 0:
the first sorted-file block read then used another module's per-thread
object as its zstd context (SEGV or XX001 "zstd failed" in the long load
run). The checks:
  - 1,100 connections come and go, each parsing a statement;
  - only then does the store write and read its first sorted files (block
    reads decompress with the per-thread context) and commit from new
    threads, in sessions that mix commits and block reads;
  - libcrypto, first used only then (md5(), sha256()), works;
  - every result is right, and the server stops cleanly (no sanitizer
    report).
Prints "N passed, N failed".
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import psycopg2  # noqa: E402
from strata_fixture import StrataServer  # noqa: E402

CONNECTIONS = 1100
ROWS = 20000

passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def main():
    srv = StrataServer("threads", args=["--memstore-flush-kb", "256", "--block-cache-mb", "1"])
    srv.start()
    try:
        bad = 0
        for i in range(CONNECTIONS):
            c = psycopg2.connect(srv.dsn)
            cur = c.cursor()
            cur.execute("SELECT %s + 1", (i,))
            if cur.fetchone()[0] != i + 1:
                bad += 1
            c.close()
        check(bad == 0, f"{CONNECTIONS} connections, each on a new thread, each parsed a statement")

        errors = []
        try:
            c = psycopg2.connect(srv.dsn)
            c.autocommit = True
            cur = c.cursor()
            cur.execute("CREATE TABLE t (a int PRIMARY KEY, b text)")
            cur.execute("INSERT INTO t SELECT g, repeat(chr(65 + g %% 26), 128) FROM generate_series(1, %s) g",
                        (ROWS,))
            cur.execute("CHECKPOINT")  # the rows go to sorted files: later reads are block reads
            c.close()
        except psycopg2.Error as e:
            errors.append(f"setup: {e.pgcode} {str(e).strip()[:200]}")

        expect = (ROWS, ROWS * 128, ROWS * (ROWS + 1) // 2)
        for i in range(20):
            if errors:
                break
            try:
                c = psycopg2.connect(srv.dsn)
                c.autocommit = True
                cur = c.cursor()
                # a commit first (per-thread commit scratch), then block reads
                cur.execute("UPDATE t SET b = b WHERE a = %s", (i + 1,))
                cur.execute("SELECT count(*), sum(length(b)), sum(a) FROM t")
                got = cur.fetchone()
                if tuple(got) != expect:
                    errors.append(f"session {i}: {got} != {expect}")
                cur.execute("SELECT b FROM t WHERE a = %s", (ROWS - i,))
                if cur.fetchone()[0] != chr(65 + (ROWS - i) % 26) * 128:
                    errors.append(f"session {i}: point read returned a wrong row")
                c.close()
            except psycopg2.Error as e:
                errors.append(f"session {i}: {e.pgcode} {str(e).strip()[:200]}")
        check(not errors, "commits and sorted-file reads from new threads after the keys ran out"
              + ("" if not errors else ": " + "; ".join(errors[:3])))

        # libcrypto, first used only now (md5(), sha256(): digests of the
        # empty string and of "abc" are published test vectors)
        try:
            c = psycopg2.connect(srv.dsn)
            cur = c.cursor()
            cur.execute("SELECT md5(''), md5('abc'), encode(sha256('abc'::bytea), 'hex')")
            got = cur.fetchone()
            c.close()
            want = ("d41d8cd98f00b204e9800998ecf8427e", "900150983cd24fb0d6963f7d28e17f72",
                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            check(tuple(got) == want, f"md5() and sha256() after the keys ran out ({got[0]})")
        except psycopg2.Error as e:
            check(False, f"md5() and sha256() after the keys ran out: {e.pgcode} {str(e).strip()[:200]}")
    finally:
        clean = srv.stop()
    check(clean is not False, "the server stopped cleanly (no sanitizer report)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
