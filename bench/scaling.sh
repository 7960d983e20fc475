#!/usr/bin/env bash
# scaling.sh — concurrency scaling side by side: pgbench -S at 1..64 clients
# against a release Strata and a throwaway PostgreSQL 15 (same scale, same
# pgbench, each client count run A/B back to back). Prints a markdown table
# (clients, Strata tps, PostgreSQL tps, ratio, load average) for
# docs/benchmarks.md; issue 14 asks for no collapse: tps at 64 >= tps at 2.
#
# Usage: bench/scaling.sh [SECONDS] [MODE] [CLIENTS...]
#   SECONDS per run (default 10), MODE simple|extended|prepared (default
#   prepared), CLIENTS (default 1 2 4 8 16 32 64). Env: SCALE (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
mode=${2:-prepared}
shift $(($# > 2 ? 2 : $#))
clients=("$@")
[[ ${#clients[@]} -gt 0 ]] || clients=(1 2 4 8 16 32 64)
scale=${SCALE:-10}
pgbin=/usr/lib/postgresql/15/bin

scripts/deps.sh bench >/dev/null
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j 2 --target strata >/dev/null

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
work=$(mktemp -d /tmp/strata-scaling.XXXXXX)
chmod 755 "$work"
sport=$(free_port)
pport=$(free_port)
build/release/server/strata --listen 127.0.0.1 --port "$sport" --data-dir "$work/strata" >"$work/strata.log" 2>&1 &
server=$!
run_as=()
[[ $(id -u) -eq 0 ]] && run_as=(runuser -u postgres --)
mkdir -p "$work/pg" && [[ $(id -u) -eq 0 ]] && chown postgres "$work/pg"
"${run_as[@]}" "$pgbin/initdb" -D "$work/pg/data" -A trust -U postgres >/dev/null
"${run_as[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
	-o "-p $pport -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
cleanup() {
	kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	"${run_as[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do
	psql -X -h 127.0.0.1 -p "$sport" -U postgres -c 'select 1' postgres >/dev/null 2>&1 && break
	sleep 0.2
done
for p in "$sport" "$pport"; do
	pgbench -i -q -s "$scale" -h 127.0.0.1 -p "$p" -U postgres postgres >/dev/null 2>&1
done

tps() { # port clients
	pgbench -n -S -M "$mode" -T "$secs" -c "$2" -j "$2" -h 127.0.0.1 -p "$1" -U postgres postgres 2>/dev/null |
		awk '/^tps =/ {print $3}'
}
echo "pgbench -S -M $mode, scale $scale, $secs s per run, $(nproc) cores, commit $(git rev-parse --short HEAD)"
echo
echo "| clients | Strata (tps) | PostgreSQL 15 (tps) | ratio | load average |"
echo "| ---: | ---: | ---: | ---: | --- |"
for c in "${clients[@]}"; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	s=$(tps "$sport" "$c")
	p=$(tps "$pport" "$c")
	ratio=$(awk -v s="${s:-0}" -v p="${p:-0}" 'BEGIN { if (p > 0) printf "%.2f", s / p; else print "-" }')
	printf '| %s | %.0f | %.0f | %s | %s |\n' "$c" "${s:-0}" "${p:-0}" "$ratio" "$load"
done
