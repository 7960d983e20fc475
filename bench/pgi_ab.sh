#!/usr/bin/env bash
# pgi_ab.sh — whole `pgbench -i` runs against two strata binaries, interleaved
# (A then B in odd rounds, B then A in even ones), each on its own server and fresh data directory:
# per run pgbench's wall time per phase and the server's CPU (user+sys of all
# its threads, /proc/PID/stat), then the medians. For A/B of load-path changes
# on the shared machine, where only interleaved runs compare.
#
# usage: bench/pgi_ab.sh BINARY_A BINARY_B [ROUNDS] [SCALE]   (default 5 rounds, scale 10)
set -euo pipefail
BENCH_NAME=pgi_ab
. "$(dirname "$0")/lib.sh"
bench_ab_init "$1" "$2" "${3:-5}" "${4:-10}"
bench_ab_servers
echo "# load average: $(bench_load)"
printf '%-5s %-2s %8s %8s %8s %8s %8s %9s\n' round ab wall gen vacuum pkeys other server_cpu
declare -A walls cpus
for ((r = 1; r <= rounds; r++)); do
	order="a b"
	((r % 2)) || order="b a"
	for k in $order; do
		c0=$(bench_cpu_ticks "${spid[$k]}")
		out=$(pgbench -h 127.0.0.1 -p "${sport[$k]}" -U postgres -i -s "$scale" -q postgres 2>&1 | grep 'done in')
		c1=$(bench_cpu_ticks "${spid[$k]}")
		cpu=$(echo "scale=2; ($c1 - $c0) / $(getconf CLK_TCK)" | bc)
		# done in 1.63 s (drop tables 0.00 s, create tables 0.01 s, client-side generate 0.9 s, vacuum ..., primary keys ...).
		wall=$(sed -E 's/done in ([0-9.]+) s.*/\1/' <<<"$out")
		gen=$(sed -E 's/.*generate ([0-9.]+) s.*/\1/' <<<"$out")
		vac=$(sed -E 's/.*vacuum ([0-9.]+) s.*/\1/' <<<"$out")
		pk=$(sed -E 's/.*primary keys ([0-9.]+) s.*/\1/' <<<"$out")
		other=$(echo "$wall - $gen - $vac - $pk" | bc)
		printf '%-5s %-2s %8s %8s %8s %8s %8s %9s\n' "$r" "$k" "$wall" "$gen" "$vac" "$pk" "$other" "$cpu"
		walls[$k]+="$wall "
		cpus[$k]+="$cpu "
	done
done
echo "# load average: $(bench_load)"
for k in a b; do
	# shellcheck disable=SC2086 # word splitting of the lists is meant
	echo "median $k: wall $(bench_median ${walls[$k]}) s, server cpu $(bench_median ${cpus[$k]}) s"
done
