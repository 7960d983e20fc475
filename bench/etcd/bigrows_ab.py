"""bigrows_ab.py — how long another server's single-row INSERTs of other
rows wait while a large transaction (an autocommit COPY of N rows) commits
into the same table, for two strata binaries, interleaved
(docs/benchmarks.md; docs/scale-out.md, "Large transactions").

For each round and binary: two servers on a fresh key prefix of one etcd
cluster; server 1 copies rows 1..N into a table with a primary key, first
alone, then again into another such table while server 2 inserts rows
above N into it one at a time from the COPY's start until it returns.
Printed per binary: the COPYs' median times (alone, with the INSERTs),
and over all rounds the INSERTs' count and their median, 90th percentile
and largest latency.

usage: bigrows_ab.py ETCD_URI BIN_A BIN_B [ROUNDS] [N]
  ETCD_URI  etcd://host:port,...  (a running cluster; prefixes /bigrowsab<pid>-...)"""
import io
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "etcd"))
from twoserver import connect, start_server  # noqa: E402


def one_round(binary, uri, tmp, tag, n):
    procs = []
    try:
        p1, port1 = start_server(binary, uri + "/" + tag, os.path.join(tmp, tag + "-1"))
        procs.append(p1)
        p2, port2 = start_server(binary, uri + "/" + tag, os.path.join(tmp, tag + "-2"))
        procs.append(p2)
        a, b = connect(port1, True), connect(port2, True)
        a.cursor().execute("CREATE TABLE ab (id int PRIMARY KEY, v int)")
        a.cursor().execute("CREATE TABLE ab0 (id int PRIMARY KEY, v int)")
        b.cursor().execute("INSERT INTO ab VALUES (0, 0)")  # B has the table open
        t0 = time.time()
        a.cursor().copy_expert("COPY ab0 (id, v) FROM STDIN",
                               io.StringIO("".join("%d\t0\n" % i for i in range(1, n + 1))))
        alone = time.time() - t0
        done = threading.Event()
        took = []

        def copy():
            t0 = time.time()
            a.cursor().copy_expert("COPY ab (id, v) FROM STDIN",
                                   io.StringIO("".join("%d\t0\n" % i for i in range(1, n + 1))))
            took.append(time.time() - t0)
            done.set()
        th = threading.Thread(target=copy)
        th.start()
        lat, i = [], n + 1
        while not done.is_set():
            t0 = time.time()
            b.cursor().execute("INSERT INTO ab VALUES (%d, 0)" % i)
            lat.append(time.time() - t0)
            i += 1
        th.join()
        a.close()
        b.close()
        return alone, took[0], lat
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()


def main():
    uri, bins = sys.argv[1], sys.argv[2:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 6000
    tmp = tempfile.mkdtemp(dir=os.environ.get("STRATA_TMP", "/tmp"))
    res = {b: ([], [], []) for b in bins}
    try:
        for r in range(rounds):
            for k, b in enumerate(bins):
                alone, copy_s, lat = one_round(b, uri, tmp, "bigrowsab%d-%d-%d" % (os.getpid(), r, k), n)
                res[b][0].append(alone)
                res[b][1].append(copy_s)
                res[b][2].extend(lat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for b in bins:
        alone, copies, lat = res[b]
        lat.sort()
        print("%s: COPY of %d rows median %.2f s alone, %.2f s with the INSERTs; other-row INSERTs during "
              "it: %d, median %.0f ms, p90 %.0f ms, max %.0f ms"
              % (b, n, statistics.median(alone), statistics.median(copies), len(lat),
                                            1000 * statistics.median(lat), 1000 * lat[int(0.9 * (len(lat) - 1))],
                                            1000 * lat[-1]))
    print("load average: %s" % open("/proc/loadavg").read().split()[:3])


main()
