"""bigtxn.py — transactions beyond one etcd txn (docs/scale-out.md, "Large
transactions") on two servers A and B sharing one prefix:
  1. an autocommit COPY of N rows (more cells than --max-txn-ops) into an
     existing table commits; B reads all N rows;
  2. while A's large COPY runs, B's readers only ever see all of it or none
     of it, and B's single-row INSERT of another row into the table
     commits (rows the COPY does not write are not locked: bigrows.py);
  3. a large COPY that hits a duplicate key fails with 23505 and leaves
     nothing behind; the table is writable at once afterwards;
  4. a REPEATABLE READ transaction on B whose snapshot predates A's large
     UPDATE of every row fails with 40001 when it writes the table;
  5. (with a third argument, the PID of A) A is killed with SIGKILL during
     a large COPY: nothing of it is visible on B, B writes another row at
     once and one of the COPY's rows after the lease (its row locks)
     expired.
usage: bigtxn.py PORT_A PORT_B N [PID_A]   prints a one-line summary."""
import io
import os
import signal
import sys
import threading
import time

import psycopg2

from twoserver import connect, one


def copy_rows(conn, table, lo, hi, extra=""):
    buf = io.StringIO()
    for i in range(lo, hi):
        buf.write("%d\tvalue %d padded to some length\n" % (i, i))
    buf.write(extra)
    buf.seek(0)
    conn.cursor().copy_expert("COPY %s (id, v) FROM STDIN" % table, buf)


def main():
    pa, pb, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    pid_a = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    a, b = connect(pa, True), connect(pb, True)
    ca = a.cursor()
    ca.execute("DROP TABLE IF EXISTS bt")
    ca.execute("CREATE TABLE bt (id int PRIMARY KEY, v text)")
    ca.execute("INSERT INTO bt VALUES (-1, 'first')")
    out = []

    # 1 + 2: a large COPY; B watches and writes meanwhile.
    seen = set()
    stop = threading.Event()
    errors = []

    def watch():
        w = connect(pb, True)
        while not stop.is_set():
            seen.add(one(w, "SELECT count(*) FROM bt WHERE id >= 0"))
        w.close()

    def write_b():
        w = connect(pb, True)
        time.sleep(0.5)
        try:
            w.cursor().execute("INSERT INTO bt VALUES (-2, 'from B')")
        except psycopg2.Error as e:
            errors.append("B's insert: %s %s" % (e.pgcode, e))
        w.close()

    th = [threading.Thread(target=watch), threading.Thread(target=write_b)]
    for t in th:
        t.start()
    t0 = time.time()
    copy_rows(a, "bt", 0, n)
    secs = time.time() - t0
    time.sleep(0.3)
    stop.set()
    for t in th:
        t.join()
    got = one(b, "SELECT count(*) FROM bt WHERE id >= 0")
    s = one(b, "SELECT sum(id) FROM bt WHERE id >= 0")
    if got != n or s != n * (n - 1) // 2:
        raise SystemExit("after the COPY B reads %s rows (sum %s), want %d" % (got, s, n))
    if errors:
        raise SystemExit("; ".join(errors))
    if one(b, "SELECT count(*) FROM bt WHERE id < 0") != 2:
        raise SystemExit("B's concurrent insert is missing")
    if not seen <= {0, n}:
        raise SystemExit("B saw a partial COPY: counts %s" % sorted(seen))
    out.append("COPY of %d rows in %.1fs, B saw only %s rows, B's insert of another row committed"
               % (n, secs, "/".join(str(x) for x in sorted(seen))))

    # 3: a duplicate key at the end of a large COPY: 23505, nothing stays.
    try:
        copy_rows(a, "bt", n, 2 * n, "5\tduplicate\n")
        raise SystemExit("a COPY with a duplicate key committed")
    except psycopg2.Error as e:
        if e.pgcode != "23505":
            raise SystemExit("duplicate key COPY: want 23505, got %s %s" % (e.pgcode, e))
    if one(b, "SELECT count(*) FROM bt") != n + 2:
        raise SystemExit("a failed COPY left rows behind")
    b.cursor().execute("INSERT INTO bt VALUES (-3, 'after the failed copy')")
    out.append("a failing large COPY (23505) leaves nothing")

    # 4: a snapshot older than a large UPDATE cannot write the table.
    rr = connect(pb, False)
    rr.set_session(isolation_level="REPEATABLE READ")
    one(rr, "SELECT count(*) FROM bt")
    a.cursor().execute("UPDATE bt SET v = 'updated' WHERE id >= 0")
    if one(rr, "SELECT count(*) FROM bt WHERE v = 'updated'") != 0:
        raise SystemExit("the REPEATABLE READ snapshot sees the large UPDATE")
    code = "committed"
    try:
        rr.cursor().execute("UPDATE bt SET v = 'rr' WHERE id = 7")
        rr.commit()
    except psycopg2.Error as e:
        code = e.pgcode
        rr.rollback()
    if code != "40001":
        raise SystemExit("REPEATABLE READ update after a large UPDATE: want 40001, got %s" % code)
    if one(b, "SELECT count(*) FROM bt WHERE v = 'updated'") != n:
        raise SystemExit("the large UPDATE is not complete on B")
    rr.close()
    out.append("large UPDATE of %d rows; an older REPEATABLE READ writer gets 40001" % n)

    # 5: the committer dies during a large COPY.
    if pid_a:
        def killer():
            time.sleep(1.0)
            os.kill(pid_a, signal.SIGKILL)
        k = threading.Thread(target=killer)
        k.start()
        try:
            copy_rows(a, "bt", 3 * n, 5 * n)
            raise SystemExit("the COPY finished before the kill; use a larger N")
        except psycopg2.Error:
            pass
        k.join()
        if one(b, "SELECT count(*) FROM bt WHERE id >= %d" % (3 * n)) != 0:
            raise SystemExit("rows of the killed server's COPY are visible")
        t0 = time.time()
        b.cursor().execute("INSERT INTO bt VALUES (-4, 'after the kill')")
        other = time.time() - t0
        t0 = time.time()
        b.cursor().execute("INSERT INTO bt VALUES (%d, 'one of the COPY rows')" % (3 * n))
        out.append("a committer killed mid-COPY leaves nothing; B wrote another row in %.1fs, one of the "
                   "COPY's rows after %.1fs" % (other, time.time() - t0))
    print("; ".join(out))


main()
