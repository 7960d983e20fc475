#!/usr/bin/env bash
# backup_bench.sh — throughput of strata_backup() and `strata restore` on a
# table of N rows (default 1,000,000 rows of ~120 bytes), with a release build:
#   full backup of the loaded store, an incremental backup after updating 10%
#   of the rows, a restore of the chain, and a backup taken while pgbench-style
#   updates run (the writers' throughput during it is printed too).
# usage: bench/ops/backup_bench.sh [ROWS]   (results: docs/benchmarks.md)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${STRATA_BIN:-$root/build/release/server/strata}
rows=${1:-1000000}
port=${PORT:-55901}
work=$(mktemp -d /tmp/strata-backup-bench.XXXXXX)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
"$bin" --port "$port" --data-dir "$work/data" --log-file "$work/server.log" &
pid=$!
for _ in $(seq 100); do psql -X -q -h 127.0.0.1 -p "$port" -U postgres -c 'select 1' >/dev/null 2>&1 && break; sleep 0.1; done
P=(psql -X -q -At -h 127.0.0.1 -p "$port" -U postgres)
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }
"${P[@]}" -c "CREATE TABLE acc (aid int PRIMARY KEY, bal int, filler text)"
t0=$(now)
"${P[@]}" -c "INSERT INTO acc SELECT g, 0, repeat('x', 100) FROM generate_series(1, $rows) g"
t1=$(now)
echo "load: $rows rows in $(secs "$t0" "$t1") s"
"${P[@]}" -c "CHECKPOINT"
t0=$(now)
full=$("${P[@]}" -F' ' -c "SELECT cells, bytes FROM strata_backup('$work/b0')")
t1=$(now)
echo "full backup: cells bytes = $full in $(secs "$t0" "$t1") s"
"${P[@]}" -c "UPDATE acc SET bal = bal + 1 WHERE aid % 10 = 0"
t0=$(now)
incr=$("${P[@]}" -F' ' -c "SELECT cells, bytes FROM strata_backup('$work/b1', '$work/b0')")
t1=$(now)
echo "incremental backup (10% of rows updated): cells bytes = $incr in $(secs "$t0" "$t1") s"
t0=$(now)
"$bin" restore "$work/b1" --data-dir "$work/restored" --quiet
t1=$(now)
echo "restore of the chain: $(secs "$t0" "$t1") s"
printf '\\set aid random(1, %d)\nUPDATE acc SET bal = bal + 1 WHERE aid = :aid;\n' "$rows" > "$work/upd.sql"
quiet=$(pgbench -n -h 127.0.0.1 -p "$port" -U postgres -f "$work/upd.sql" -c 4 -j 2 -T 10 postgres 2>&1 | grep -o 'tps = [0-9.]*')
echo "updates alone: $quiet"
pgbench -n -h 127.0.0.1 -p "$port" -U postgres -f "$work/upd.sql" -c 4 -j 2 -T 20 postgres > "$work/pgb.out" 2>&1 &
pg=$!
sleep 3
t0=$(now)
"${P[@]}" -c "SELECT 1 FROM strata_backup('$work/b2')" >/dev/null
t1=$(now)
wait $pg
echo "full backup during updates: $(secs "$t0" "$t1") s; updates over the 20 s: $(grep -o 'tps = [0-9.]*' "$work/pgb.out")"
du -sh "$work/data" "$work/b0" "$work/b1" | sed 's/^/size: /'
