#!/usr/bin/env bash
# pgbench_ab.sh — pgbench's built-in select-only (-S) and TPC-B-like transactions
# against two strata binaries, each on its own server and data directory loaded by
# `pgbench -i` through that binary (so each has the tables the binary creates: run
# B as a wrapper that sets STRATA_ROW_FORMAT=packed to compare row formats),
# interleaved (A then B in odd rounds, B then A in even ones): per run the server's
# CPU (user+sys, /proc/PID/stat) per transaction in microseconds and pgbench's tps,
# then the medians.
#
# usage: bench/pgbench_ab.sh BINARY_A BINARY_B [ROUNDS] [SCALE] [TX]
#   (default 5 rounds, scale 10, 20000 transactions per run, one client, -M prepared)
set -euo pipefail
BENCH_NAME=pgbench_ab
. "$(dirname "$0")/lib.sh"
tx=${5:-20000}
bench_ab_init "$1" "$2" "${3:-5}" "${4:-10}"
load() { pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q postgres >/dev/null 2>&1; }
bench_ab_servers load
echo "# load average: $(bench_load)"
printf '%-5s %-2s %-6s %10s %10s\n' round ab test cpu_us_tx tps
declare -A cpus tpss
for ((r = 1; r <= rounds; r++)); do
	order="a b"
	((r % 2)) || order="b a"
	for t in S tpcb; do
		for k in $order; do
			opt=(-S)
			[[ $t == tpcb ]] && opt=(-b tpcb-like)
			c0=$(bench_cpu_ticks "${spid[$k]}")
			out=$(pgbench -h 127.0.0.1 -p "${sport[$k]}" -U postgres -M prepared -n -t "$tx" \
				"${opt[@]}" postgres 2>&1)
			c1=$(bench_cpu_ticks "${spid[$k]}")
			us=$(echo "scale=1; ($c1 - $c0) * 1000000 / $(getconf CLK_TCK) / $tx" | bc)
			tps=$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' <<<"$out" | head -1)
			printf '%-5s %-2s %-6s %10s %10s\n' "$r" "$k" "$t" "$us" "$tps"
			cpus[$k$t]+="$us "
			tpss[$k$t]+="$tps "
		done
	done
done
for t in S tpcb; do
	for k in a b; do
		# shellcheck disable=SC2086
		printf 'median %-2s %-6s %10s %10s\n' "$k" "$t" "$(bench_median ${cpus[$k$t]})" \
			"$(bench_median ${tpss[$k$t]})"
	done
done
