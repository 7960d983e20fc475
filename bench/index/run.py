#!/usr/bin/python3
"""Secondary-index benchmark: Strata against PostgreSQL 15 on the reporting
data of ../shared/bench (1M events, 50k users).

  1. COPY the data into both, then time CREATE INDEX events_user_idx (user_id)
     and events_kind_time_idx (kind, event_time) on 1M rows.
  2. pgbench -f r4_index_point, r5_index_range, w1_insert (2 indexes), -M
     extended, interleaved A/B (the workloads of pgvs.py's reporting suite).
  3. Write amplification: bytes written per inserted row into a table with
     0, 1 and 3 secondary indexes (Strata: write-ahead log bytes and all bytes
     the server wrote; PostgreSQL: WAL bytes from pg_stat_wal).

usage: bench/index/run.py [--events N] [--seconds S] [--clients C] [--rows N]
                          [--bin build/release/server/strata] [--pgvs PATH]
Needs psql, pgbench and PostgreSQL 15 (as pgvs.py; started on a free port).
"""
import argparse
import glob
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_pgvs(path):
    spec = importlib.util.spec_from_file_location("pgvs", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


class Strata:
    def __init__(self, binary, pgvs):
        self.binary = binary
        self.pgvs = pgvs

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="bench-idx-strata-", dir=os.environ.get("BENCH_DIR", "/tmp"))
        self.port = self.pgvs.free_port()
        self.log = open(os.path.join(self.dir, "server.log"), "wb")
        self.proc = subprocess.Popen([self.binary, "--listen", "127.0.0.1", "--port", str(self.port), "--data-dir",
                                      os.path.join(self.dir, "data")], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(600):
            try:
                self.pgvs.psql(self.conn, "SELECT 1")
                break
            except RuntimeError:
                time.sleep(0.1)
        return self

    @property
    def conn(self):
        return dict(host="127.0.0.1", port=self.port, user="postgres", db="postgres")

    def wal_bytes(self):
        return sum(os.path.getsize(f) for f in glob.glob(os.path.join(self.dir, "data", "store", "*.wal")))

    def written(self):
        with open(f"/proc/{self.proc.pid}/io") as f:
            for line in f:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
        return 0

    def __exit__(self, *a):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def scalar(pgvs, c, sql):
    r = subprocess.run(["psql", "-X", "-A", "-t", "-q", "-c", sql], env=pgvs.env_for(c), text=True,
                       capture_output=True, check=True)
    return r.stdout.strip()


def timed(pgvs, c, sql):
    dt, _ = pgvs.psql(c, sql)
    return dt


def write_amplification(pgvs, targets, rows):
    out = []
    index_sets = {
        0: [],
        1: ["CREATE INDEX wa_a ON wa (a)"],
        3: ["CREATE INDEX wa_a ON wa (a)", "CREATE INDEX wa_bc ON wa (b, c)", "CREATE INDEX wa_d ON wa (d)"],
    }
    for n, ddl in index_sets.items():
        for name, c, srv in targets:
            pgvs.psql(c, "DROP TABLE IF EXISTS wa")
            pgvs.psql(c, "CREATE TABLE wa (id int PRIMARY KEY, a int, b text, c int, d text)")
            for d in ddl:
                pgvs.psql(c, d)
            if srv:
                w0, b0 = srv.wal_bytes(), srv.written()
            else:
                w0 = int(scalar(pgvs, c, "SELECT wal_bytes FROM pg_stat_wal"))
            # 100-row statements: per-row index work, statement overhead amortised.
            stmt = ("INSERT INTO wa SELECT i, i % 1000, 'b' || (i % 97), i * 7, md5(i::text) "
                    "FROM generate_series(:lo, :hi) i;")
            script = "".join(stmt.replace(":lo", str(lo)).replace(":hi", str(lo + 99)) + "\n"
                             for lo in range(1, rows + 1, 100))
            with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
                f.write(script)
                path = f.name
            t, _ = pgvs.psql(c, file=path)
            os.unlink(path)
            if srv:
                wal = (srv.wal_bytes() - w0) / rows
                allw = (srv.written() - b0) / rows
                out.append((n, name, wal, allw, t))
            else:
                w1 = int(scalar(pgvs, c, "SELECT wal_bytes FROM pg_stat_wal"))
                out.append((n, name, (w1 - w0) / rows, None, t))
            pgvs.psql(c, "DROP TABLE wa")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--clients", type=int, default=2)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "release", "server", "strata"))
    ap.add_argument("--pgvs", default=os.path.join(ROOT, "..", "shared", "bench", "pgvs.py"))
    ap.add_argument("--skip", default="", help="comma list of: load,queries,wa")
    a = ap.parse_args()
    pgvs_path = a.pgvs if os.path.exists(a.pgvs) else "/work/shared/bench/pgvs.py"
    pgvs = load_pgvs(pgvs_path)
    here = os.path.dirname(os.path.abspath(pgvs_path))
    skip = set(a.skip.split(",")) if a.skip else set()
    rows = []
    with Strata(a.bin, pgvs) as st, pgvs.Postgres() as pg:
        targets = [("strata", st.conn, st), ("postgres", pg.conn, None)]
        data = tempfile.mkdtemp(prefix="bench-idx-data-")
        subprocess.run([sys.executable, f"{here}/reporting/gen_events.py", data, str(a.events), "50000", "42"],
                       check=True)
        for name, c, _ in targets:
            pgvs.psql(c, file=f"{here}/reporting/schema.sql")
            t1, _ = pgvs.psql(c, f"\\copy users FROM '{data}/users.csv' WITH (FORMAT csv)")
            t2, _ = pgvs.psql(c, f"\\copy events FROM '{data}/events.csv' WITH (FORMAT csv)")
            rows.append((f"load {a.events} events via COPY (s)", name, t1 + t2))
            rows.append(("CREATE INDEX events (user_id) (s)", name,
                         timed(pgvs, c, "CREATE INDEX events_user_idx ON events (user_id)")))
            rows.append(("CREATE INDEX events (kind, event_time) (s)", name,
                         timed(pgvs, c, "CREATE INDEX events_kind_time_idx ON events (kind, event_time)")))
            pgvs.psql(c, "ANALYZE")
        shutil.rmtree(data, ignore_errors=True)
        if "queries" not in skip:
            for q in ("r4_index_point", "r5_index_range", "w1_insert"):
                for name, c, _ in targets:
                    tps, err = pgvs.pgbench(c, ["-f", f"{here}/reporting/queries/{q}.sql", "-M", "extended", "-c",
                                                str(a.clients), "-j", str(a.clients)], a.seconds)
                    rows.append((f"{q} (tps)", name, tps))
                    if err and tps is None:
                        print(f"{name} {q}: {err}", file=sys.stderr)
        wa = write_amplification(pgvs, targets, a.rows) if "wa" not in skip else []
    by = {}
    for label, who, v in rows:
        by.setdefault(label, {})[who] = v
    print(f"{'workload':44} {'strata':>12} {'postgres':>12} {'ratio':>8}")
    for label, d in by.items():
        sv, pv = d.get("strata"), d.get("postgres")
        lower = label.endswith("(s)")
        ratio = (pv / sv if lower else sv / pv) if sv and pv else None
        f = lambda v: "FAILED" if v is None else f"{v:12.2f}"
        print(f"{label:44} {f(sv):>12} {f(pv):>12} {'-' if ratio is None else f'{ratio:8.2f}':>8}")
    print("ratio > 1 means Strata is faster.")
    if wa:
        print()
        print(f"{'indexes':>8} {'server':>10} {'WAL B/row':>10} {'all B/row':>10} {'insert s':>9}")
        for n, name, wal, allw, t in wa:
            print(f"{n:8d} {name:>10} {wal:10.0f} {'-' if allw is None else f'{allw:10.0f}':>10} {t:9.2f}")


if __name__ == "__main__":
    main()
