"""twoserver.py — small helpers shared by the etcd tests (rc_lock.py,
fk_lock.py, bigcrash.py, boot_race.py, temp_sweep.py, ...): connect to a
server by port, fetch one value, commit reporting the SQLSTATE instead of
raising, run a hammer of sessions on two servers, pick a free port, start a
server and wait for its port."""
import os
import socket
import subprocess
import threading
import time

import psycopg2


def connect(port, autocommit):
    c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    c.autocommit = autocommit
    return c


def one(conn, sql, args=None):
    cur = conn.cursor()
    cur.execute(sql, args)
    return cur.fetchone()[0]


def commit_code(conn):
    """'committed', or the SQLSTATE the commit failed with (rolled back)."""
    try:
        conn.commit()
        return "committed"
    except psycopg2.Error as e:
        conn.rollback()
        return e.pgcode


def hammer(worker, nsess, pa, pb):
    """Runs worker(i, port) in 2 * nsess threads, even i on port pa, odd i
    on pb, and waits for them all."""
    ts = [threading.Thread(target=worker, args=(i, pa if i % 2 == 0 else pb)) for i in range(2 * nsess)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start_server(binary, uri, datadir, env=None, wait=True):
    """Starts BIN on a free port with --store uri, its log in datadir.log;
    with wait, returns once the port accepts (SystemExit if the server
    exits or takes over 90 s). Returns (process, port)."""
    port = free_port()
    os.makedirs(datadir, exist_ok=True)
    log = open(datadir + ".log", "ab")
    p = subprocess.Popen([binary, "--port", str(port), "--data-dir", datadir, "--store", uri],
                         stdout=log, stderr=log, env=dict(os.environ, **(env or {})))
    log.close()
    if wait:
        wait_server(p, port, datadir + ".log")
    return p, port


def wait_server(p, port, log):
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            if p.poll() is not None:
                break
            time.sleep(0.1)
    raise SystemExit("a server did not start (log: %s)" % log)
