#!/usr/bin/python3
"""failover.py — the write workload of tests/etcd/run.sh's failover test.

usage: failover.py PORT SECONDS ACKED_FILE
Inserts one row per transaction into ft(id) for SECONDS, reconnecting after
errors, and writes the ids whose COMMIT was acknowledged to ACKED_FILE (one a
line). The caller kills an etcd member meanwhile and then checks that every
acknowledged id is in the table.
"""
import sys
import time

import psycopg2

port, secs, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
acked, errors = [], 0
conn = None
end = time.time() + secs
i = 0
while time.time() < end:
    i += 1
    try:
        if conn is None:
            conn = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres",
                                    connect_timeout=5)
        cur = conn.cursor()
        cur.execute("INSERT INTO ft VALUES (%s, now())", (i,))
        conn.commit()
        acked.append(i)
    except psycopg2.Error:
        errors += 1
        try:
            conn.close()
        except Exception:
            pass
        conn = None
        time.sleep(0.05)
with open(out, "w") as f:
    f.write("".join("%d\n" % a for a in acked))
print("acked %d, errors %d" % (len(acked), errors))
