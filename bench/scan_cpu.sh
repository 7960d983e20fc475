#!/usr/bin/env bash
# scan_cpu.sh — server CPU per query of a reporting query (default r8_full_scan) on the
# reporting data (1M events), for one or more strata binaries, A/B interleaved on the same
# data directory. CPU from /proc/PID/stat (user + system of the whole server), since wall
# time is noisy on this shared machine. Optionally callgrind instruction totals instead.
#
# usage: bench/scan_cpu.sh [--runs N] [--rounds R] [--query SQL] [--callgrind] [--data DIR]
#                          BINARY [BINARY...]
#   --runs N       queries per measurement (default 20; 3 with --callgrind), after 3 warm-up
#   --rounds R     A/B rounds (default 3; 1 with --callgrind)
#   --query SQL    the query (default /work/shared/bench/reporting/queries/r8_full_scan.sql)
#   --callgrind    run each binary under valgrind --tool=callgrind, serial plan, and print
#                  the total instructions of the whole server run (start-up included)
#   --data DIR     data directory to load into (kept; reused when it holds the tables)
# Each measurement runs with workers (the default plan) and with
# max_parallel_workers_per_gather = 0. Example (numbers in docs/benchmarks.md):
#   bench/scan_cpu.sh /tmp/strata_main build/release/server/strata
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rep=/work/shared/bench/reporting
runs=
rounds=
cg=0
data=/tmp/scan_cpu.data
query=$(cat "$rep/queries/r8_full_scan.sql")
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--query) query=$2; shift 2 ;;
	--callgrind) cg=1; shift ;;
	--data) data=$2; shift 2 ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 ]] || { sed -n '2,17p' "$0"; exit 2; }
[[ -n $runs ]] || { [[ $cg = 1 ]] && runs=3 || runs=20; }
[[ -n $rounds ]] || { [[ $cg = 1 ]] && rounds=1 || rounds=3; }
work=$(mktemp -d)
BENCH_LOG=$work/server.log
. "$here/lib.sh"
bench_trap "$work"

# start BINARY: a server on a free port over $data (under callgrind with --callgrind)
start() {
	if [[ $cg = 1 ]]; then
		bench_start "$data" valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$1"
	else
		bench_start "$data" "$1"
	fi
}
stop() { bench_stop; }
q() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres "$@"; }

if [[ ! -d $data ]]; then
	mkdir -p "$data.csv"
	/usr/bin/python3 "$rep/gen_events.py" "$data.csv" 1000000 50000 42
	start "${bins[0]}"
	q -f "$rep/schema.sql" >/dev/null 2>&1
	q -c "\\copy users FROM '$data.csv/users.csv' WITH (FORMAT csv)"
	q -c "\\copy events FROM '$data.csv/events.csv' WITH (FORMAT csv)"
	q -f "$rep/indexes.sql" >/dev/null
	q -c 'ANALYZE'
	stop
fi

# script FILE WORKERS N: the query N times (WORKERS = default or 0)
script() {
	: >"$1"
	[[ $2 = 0 ]] && echo 'SET max_parallel_workers_per_gather = 0;' >>"$1"
	for _ in $(seq "$3"); do echo "$query" >>"$1"; done
}

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, query: $query"
for r in $(seq "$rounds"); do
	for b in "${bins[@]}"; do
		start "$b"
		if [[ $cg = 1 ]]; then
			script "$work/q.sql" 0 "$runs"
			q -f "$work/q.sql" >/dev/null
			stop
			echo "$b: serial, $runs queries: $(grep -E '^totals:' "$work/cg.out" | awk '{print $2}') instructions (whole server run)"
			continue
		fi
		for w in default 0; do
			script "$work/q.sql" "$w" 3
			q -f "$work/q.sql" >/dev/null
			script "$work/q.sql" "$w" "$runs"
			t0=$(bench_cpu_ticks)
			w0=$(date +%s.%N)
			q -f "$work/q.sql" >/dev/null
			t1=$(bench_cpu_ticks)
			w1=$(date +%s.%N)
			awk -v b="$b" -v w="$w" -v n="$runs" -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" \
				-v wall="$(echo "$w1 - $w0" | bc)" -v load="$(bench_load)" \
				'BEGIN { printf "%s workers=%s: server CPU %.2f ms/query, wall %.1f ms/query, load %s\n",
				b, w, t * 1000 / hz / n, wall * 1000 / n, load }'
		done
		stop
	done
done
