#!/usr/bin/env bash
# run.sh — `make bench` / `make bench-quick`: Strata side by side with a
# throwaway PostgreSQL 15 (../shared/bench/pgvs.py: pgbench and the reporting
# workload), then the KV core against RocksDB (bench/kv/run.sh). Appends a
# dated section with every line (Strata, PostgreSQL, ratio) and the exact
# commands to docs/benchmarks.md.
#
# Usage: bench/run.sh [full|quick]
#   full:  pgbench scale 10, 1M events, 10 s per line, 2 clients; KV 1M entries
#   quick: pgbench scale 2, 100k events, 5 s per line; KV quick mode
# Env: PGVS=path to pgvs.py (default ../shared/bench/pgvs.py), BENCH_SUITES=pgbench,reporting,kv
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=${1:-full}
PGVS=${PGVS:-$root/../shared/bench/pgvs.py}
SUITES=${BENCH_SUITES:-pgbench,reporting,kv}
if [[ $mode == quick ]]; then
	pgvs_args=(--scale 2 --events 100000 --seconds 5 --clients 2)
else
	pgvs_args=(--scale 10 --events 1000000 --seconds 10 --clients 2)
fi
[[ -f $PGVS ]] || { echo "bench: pgvs.py not found at $PGVS (set PGVS=)" >&2; exit 1; }

scripts/deps.sh bench
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" >/dev/null

work=$(mktemp -d /tmp/strata-bench.XXXXXX)
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
build/release/server/strata --listen 127.0.0.1 --port "$port" --data-dir "$work/data" >"$work/server.log" 2>&1 &
server=$!
cleanup() {
	kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do
	psql -X -h 127.0.0.1 -p "$port" -U postgres -c 'select 1' >/dev/null 2>&1 && break
	sleep 0.2
done

stamp=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
load=$(cut -d' ' -f1-3 /proc/loadavg)
out=$work/results.md
{
	echo
	echo "## Run of $stamp ($mode, commit $commit)"
	echo
	echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), load average at start $load."
	echo
} >"$out"

pg_suites=$(echo "$SUITES" | tr ',' '\n' | grep -E '^(pgbench|reporting)$' | paste -sd, || true)
if [[ -n $pg_suites ]]; then
	cmd="pgvs.py --port $port --user postgres --suite $pg_suites ${pgvs_args[*]}"
	echo "bench: $cmd"
	/usr/bin/python3 "$PGVS" --port "$port" --user postgres --suite "$pg_suites" "${pgvs_args[@]}" \
		--json "$work/pgvs.json" | tee "$work/pgvs.txt"
	{
		echo "Command: \`bench/run.sh $mode\` = \`$cmd\` (Strata release build on a fresh data directory)."
		echo
		echo "| workload | Strata | PostgreSQL 15 | ratio |"
		echo "| --- | ---: | ---: | ---: |"
		/usr/bin/python3 - "$work/pgvs.json" <<-'EOF'
			import json, sys
			for r in json.load(open(sys.argv[1])):
			    f = lambda v: "failed" if v is None else f"{v:.2f}"
			    ratio = "-" if r["speed_ratio"] is None else f"{r['speed_ratio']:.2f}"
			    note = f" ({r['target_error'][:80]})" if r.get("target_error") else ""
			    print(f"| {r['workload']} | {f(r['target'])}{note} | {f(r['postgres'])} | {ratio} |")
		EOF
		echo
		echo "Ratio > 1: Strata is faster (throughput: Strata/PostgreSQL; times: PostgreSQL/Strata)."
		echo
	} >>"$out"
fi

if [[ ,$SUITES, == *,kv,* ]]; then
	echo "bench: bench/kv/run.sh $mode"
	{
		echo "KV core: \`bench/kv/run.sh $mode\` (kv_bench next to RocksDB db_bench, matched options):"
		echo
		echo '```'
		bench/kv/run.sh "$mode" 2>&1
		echo '```'
	} >>"$out"
fi

cat "$out" >>docs/benchmarks.md
echo "bench: results appended to docs/benchmarks.md"
