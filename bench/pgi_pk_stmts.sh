#!/usr/bin/env bash
# pgi_pk_stmts.sh — the primary-key phase of `pgbench -i` statement by statement,
# against two strata binaries, interleaved (A then B in odd rounds, B then A in
# even ones): per run a fresh server and data directory, `pgbench -i -I dtgv`,
# then pgbench's three ALTER TABLE ... ADD PRIMARY KEY through one psql session
# with \timing: each statement's wall time (ms), their sum and the server's CPU
# over the three (user+sys of all its threads, bench_cpu_ticks), then the medians
# per binary. Shows the fixed costs of the small tables' statements (fsyncs,
# manifest edits) beside the 1M-row re-key.
#
# usage: bench/pgi_pk_stmts.sh BINARY_A BINARY_B [ROUNDS] [SCALE]   (default 5 rounds, scale 10)
set -euo pipefail
BENCH_NAME=pgi_pk_stmts
. "$(dirname "$0")/lib.sh"
bench_ab_init "$@"
hz=$(getconf CLK_TCK)
declare -A res
echo "# load average: $(bench_load)"
# one_run: the three statements on the server bench_ab_rounds started
one_run() {
	local c0 ms cpu b t a sum
	pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q -I dtgv postgres >/dev/null 2>&1
	c0=$(bench_cpu_ticks)
	ms=$(psql -X -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 postgres <<-'EOF' |
		\timing on
		alter table pgbench_branches add primary key (bid);
		alter table pgbench_tellers add primary key (tid);
		alter table pgbench_accounts add primary key (aid);
	EOF
		sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tr '\n' ' ')
	cpu=$(($(bench_cpu_ticks) - c0))
	bench_stop
	read -r b t a <<<"$ms"
	sum=$(echo "$b + $t + $a" | bc)
	printf 'round %s %s: branches %s tellers %s accounts %s ms, sum %s ms, server cpu %s ms (load %s)\n' \
		"$r" "$k" "$b" "$t" "$a" "$sum" "$((cpu * 1000 / hz))" "$(cut -d' ' -f1 /proc/loadavg)"
	res[$k.small]+="$(echo "$b + $t" | bc) "
	res[$k.sum]+="$sum "
	res[$k.cpu]+="$((cpu * 1000 / hz)) "
}
bench_ab_rounds one_run
for k in a b; do
	printf '%s: median small tables %s ms, all three %s ms, server cpu %s ms\n' "$k" \
		"$(bench_median ${res[$k.small]})" "$(bench_median ${res[$k.sum]})" "$(bench_median ${res[$k.cpu]})"
done
echo "# load average: $(bench_load)"
