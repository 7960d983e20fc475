"""boot_race.py — servers started at the same moment on a new etcd prefix
(docs/scale-out.md, "Several servers"): exactly one of them writes the first
catalog, the others load it. For each round, three servers are started at
once on a fresh prefix; every one must come up, exactly one log may say it
initialised the catalog, each server creates a table, and every server then
sees the three tables with one oid each (no oid handed out twice, which an
overwritten oid counter would do).

usage: boot_race.py BIN STORE_URI TMPDIR ROUNDS
  BIN        the strata server binary
  STORE_URI  etcd://host:port,...  (prefixes /bootrace<N>-<round>)
prints a one-line summary; exit status 0/1."""
import os
import sys
import time

from twoserver import connect, start_server, wait_server

SERVERS = 3
BOOTED = b"initialised a new catalog"
LOST = b"loaded the catalog another server initialised"


def tables(port):
    c = connect(port, True)
    cur = c.cursor()
    cur.execute("SELECT c.relname, c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1")
    rows = cur.fetchall()
    c.close()
    return rows


def one_round(binary, uri, tmp, prefix):
    procs, ports, logs = [], [], []
    try:
        # All started before any is waited for: they race to bootstrap.
        for i in range(SERVERS):
            d = os.path.join(tmp, "%s-%d" % (prefix.strip("/"), i))
            p, port = start_server(binary, uri + prefix, d, wait=False)
            procs.append(p)
            ports.append(port)
            logs.append(d + ".log")
        for i in range(SERVERS):
            wait_server(procs[i], ports[i], logs[i])
        for i in range(SERVERS):
            c = connect(ports[i], True)
            c.cursor().execute("CREATE TABLE t%d (id int PRIMARY KEY, v text)" % i)
            c.cursor().execute("INSERT INTO t%d VALUES (%d, 'from %d')" % (i, i, i))
            c.close()
        seen = [tables(p) for p in ports]
        want = ["t%d" % i for i in range(SERVERS)]
        for i, s in enumerate(seen):
            if [r[0] for r in s] != want:
                raise SystemExit("%s: server %d sees %s, want %s" % (prefix, i, s, want))
            if s != seen[0]:
                raise SystemExit("%s: servers disagree: %s vs %s" % (prefix, seen[0], s))
        oids = [r[1] for r in seen[0]]
        if len(set(oids)) != len(oids):
            raise SystemExit("%s: one oid for two tables: %s" % (prefix, seen[0]))
        for i in range(SERVERS):  # rows written on one server are read on another
            c = connect(ports[(i + 1) % SERVERS], True)
            cur = c.cursor()
            cur.execute("SELECT v FROM t%d" % i)
            got = cur.fetchall()
            c.close()
            if got != [("from %d" % i,)]:
                raise SystemExit("%s: t%d read on another server: %s" % (prefix, i, got))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
    text = [open(l, "rb").read() for l in logs]
    booted = sum(t.count(BOOTED) for t in text)
    lost = sum(t.count(LOST) for t in text)
    if booted != 1:
        raise SystemExit("%s: %d servers initialised the catalog (logs: %s)" % (prefix, booted, logs))
    for l, t in zip(logs, text):
        if b"Sanitizer" in t or b"runtime error" in t:
            raise SystemExit("%s: sanitizer report in %s" % (prefix, l))
    return lost


def main():
    binary, uri, tmp, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    os.makedirs(tmp, exist_ok=True)
    tag = "%d%d" % (os.getpid(), int(time.time()) % 100000)
    lost = 0
    for r in range(rounds):
        lost += one_round(binary, uri, tmp, "/bootrace%s-%d" % (tag, r))
    print("%d rounds of %d servers started at once on a new prefix: one bootstrap each, "
          "%d losing bootstraps loaded the winner's catalog, tables and oids agree" % (rounds, SERVERS, lost))


if __name__ == "__main__":
    main()
