#!/usr/bin/env bash
# query_cpu.sh — server cost per execution of one pgbench script (default r2_last_n), for one
# or more strata binaries, A/B interleaved over the same data directory: server CPU (user +
# system of the whole server from /proc/PID/stat) per transaction, or with --callgrind the
# instructions per transaction counted only while the measured transactions run (start-up
# and warm-up excluded). Made for short queries, where scan_cpu.sh's ms resolution is too coarse.
#
# usage: bench/query_cpu.sh [--script FILE] [--mode extended|prepared|simple] [--tx N]
#                           [--rounds R] [--clients C] [--callgrind] [--fresh-seed]
#                           --data DIR BINARY [BINARY...]
#   --script FILE  pgbench script (default /work/shared/bench/reporting/queries/r2_last_n.sql)
#   --mode M       pgbench -M (default extended)
#   --tx N         transactions per client per measurement (default 20000; 1000 with --callgrind),
#                  after N/10 warm-up ones (at least 500 with --callgrind)
#   --rounds R     A/B rounds (default 3; 1 with --callgrind)
#   --clients C    pgbench clients (default 1); pgbench runs with --random-seed=1
#   --fresh-seed   a new seed for every pgbench run (2, 3, ...): for scripts that insert
#                  (w1_insert), whose repeated rows would otherwise all be conflicts
#   --data DIR     a data directory holding the reporting tables (bench/scan_cpu.sh --data DIR
#                  loads one)
#   --pg PORT      also run the script against a PostgreSQL on PORT holding the same tables,
#                  once per round before the binaries (tps only: its CPU is not measured)
# Example (numbers in docs/benchmarks.md):
#   bench/query_cpu.sh --data /tmp/x/data /tmp/x/main/strata build/release/server/strata
set -uo pipefail
script=/work/shared/bench/reporting/queries/r2_last_n.sql
mode=extended
tx=
rounds=
clients=1
cg=0
fresh=0
seed=1
data=
pg=
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--script) script=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--tx) tx=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--callgrind) cg=1; shift ;;
	--fresh-seed) fresh=1; shift ;;
	--data) data=$2; shift 2 ;;
	--pg) pg=$2; shift 2 ;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 && -d $data ]] || { sed -n '2,24p' "$0"; exit 2; }
[[ -n $tx ]] || { [[ $cg = 1 ]] && tx=1000 || tx=20000; }
[[ -n $rounds ]] || { [[ $cg = 1 ]] && rounds=1 || rounds=3; }
work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

start() {
	port=$(free_port)
	if [[ $cg = 1 ]]; then
		valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/cg.out" \
			"$1" --port "$port" --data-dir "$data" >"$work/server.log" 2>&1 &
	else
		"$1" --port "$port" --data-dir "$data" >"$work/server.log" 2>&1 &
	fi
	pid=$!
	for _ in $(seq 480); do
		psql -X -h 127.0.0.1 -p "$port" -U postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	echo "query_cpu: $1 did not start (log: $work/server.log)" >&2
	exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null; pid=; }
bench() {
	[[ $fresh = 1 ]] && seed=$((seed + 1))
	pgbench -n -h 127.0.0.1 -p "$port" -U postgres -M "$mode" -c "$clients" -j "$clients" \
	-t "$1" --random-seed="$seed" -f "$script" postgres >"$work/pgbench.log" 2>&1 || { cat "$work/pgbench.log" >&2; exit 1; }; }

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, script: $script, -M $mode, $clients client(s), $tx tx each"
for r in $(seq "$rounds"); do
	if [[ -n $pg && $cg = 0 ]]; then
		port=$pg
		bench $((tx / 10 + 1))
		bench "$tx"
		echo "postgresql:$pg: $(awk '/^tps/ {printf "%.0f", $3}' "$work/pgbench.log") tps, load $(cut -d' ' -f1-3 /proc/loadavg)"
	fi
	for b in "${bins[@]}"; do
		start "$b"
		warm=$((tx / 10 + 1))
		[[ $cg = 1 && $warm -lt 500 ]] && warm=500 # every tenant's blocks cached
		bench "$warm"
		n=$((tx * clients))
		if [[ $cg = 1 ]]; then
			callgrind_control -i on "$pid" >/dev/null
			bench "$tx"
			callgrind_control -d "$pid" >/dev/null
			callgrind_control -i off "$pid" >/dev/null
			stop
			tot=$(cat "$work"/cg.out* | awk '/^totals:/ {s += $2} END {print s}')
			awk -v b="$b" -v t="$tot" -v n="$n" \
				'BEGIN { printf "%s: %.1fK instructions/tx (%d tx)\n", b, t / n / 1000, n }'
			cp "$work"/cg.out.* "${CG_KEEP:-/dev/null}" 2>/dev/null
			rm -f "$work"/cg.out*
			continue
		fi
		t0=$(cpu_ticks)
		bench "$tx"
		t1=$(cpu_ticks)
		tps=$(awk '/^tps/ {print $3}' "$work/pgbench.log")
		awk -v b="$b" -v n="$n" -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v tps="$tps" \
			-v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
			'BEGIN { printf "%s: server CPU %.1f us/tx, %.0f tps, load %s\n", b, t * 1e6 / hz / n, tps, load }'
		stop
	done
done
