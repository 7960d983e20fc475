#!/usr/bin/env bash
# pgi_phase_cpu.sh — server CPU per phase of `pgbench -i` (generate = drop, create and
# COPY; vacuum; primary keys), against two strata binaries, interleaved (A then B in odd
# rounds, B then A in even ones), each run on a fresh server and data directory. CPU is
# `perf stat -e task-clock` attached to the server for the phase (every thread, those
# started during the phase too; nanoseconds, finer than /proc's 10 ms ticks), the /proc
# ticks alongside as a check. After the run: the size of the store's sorted files. Then
# the medians per binary. For A/B of load-path changes on the shared machine.
#
# usage: bench/pgi_phase_cpu.sh BINARY_A BINARY_B [ROUNDS] [SCALE]   (default 5 rounds, scale 10)
set -euo pipefail
BENCH_NAME=pgi_phase_cpu
. "$(dirname "$0")/lib.sh"
bench_ab_init "$@"
hz=$(getconf CLK_TCK)
declare -A res

# phase STEPS: pgbench -i -I STEPS under perf stat on the server; prints "task_ms tick_ms wall_ms"
phase() {
	local c0 t0 ms
	c0=$(bench_cpu_ticks)
	t0=$(date +%s%N)
	perf stat -x, -e task-clock -p "$pid" -o "$tmp/perf.txt" &
	local pp=$!
	sleep 0.2 # perf attached
	pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q -I "$1" postgres >/dev/null 2>&1
	local t1
	t1=$(date +%s%N)
	kill -INT "$pp"
	wait "$pp" || true
	ms=$(awk -F, '/task-clock/ {printf "%.0f", $1}' "$tmp/perf.txt")
	echo "$ms $((($(bench_cpu_ticks) - c0) * 1000 / hz)) $(((t1 - t0) / 1000000))"
}

echo "# $(date -u '+%F %H:%M UTC'), load average: $(bench_load)"
# one_run: the three phases on the server bench_ab_rounds started
one_run() {
	local g gt gw v vt vw p pt pw sst
	read -r g gt gw <<<"$(phase dtg)"
	read -r v vt vw <<<"$(phase v)"
	read -r p pt pw <<<"$(phase p)"
	bench_stop
	sst=$(du -cb "$tmp"/data/store/*.sst | tail -1 | cut -f1)
	printf 'round %s %s: cpu ms (ticks, wall ms) generate %s (%s, %s) vacuum %s (%s, %s) pkeys %s (%s, %s); sst bytes %s (load %s)\n' \
		"$r" "$k" "$g" "$gt" "$gw" "$v" "$vt" "$vw" "$p" "$pt" "$pw" "$sst" "$(cut -d' ' -f1 /proc/loadavg)"
	res[$k.g]+="$g "
	res[$k.v]+="$v "
	res[$k.p]+="$p "
	res[$k.gw]+="$gw "
	res[$k.pw]+="$pw "
	res[$k.sst]+="$sst "
}
bench_ab_rounds one_run
for k in a b; do
	# shellcheck disable=SC2086 # word splitting of the lists is meant
	printf '%s: median server cpu ms: generate %s, vacuum %s, pkeys %s; wall ms: generate %s, pkeys %s; sst bytes %s\n' \
		"$k" "$(bench_median ${res[$k.g]})" "$(bench_median ${res[$k.v]})" "$(bench_median ${res[$k.p]})" \
		"$(bench_median ${res[$k.gw]})" "$(bench_median ${res[$k.pw]})" "$(bench_median ${res[$k.sst]})"
done
echo "# load average: $(bench_load)"
