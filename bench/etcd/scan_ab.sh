#!/usr/bin/env bash
# scan_ab.sh — full forward scans (SELECT count(*), sum(v) over a whole
# table) on the etcd backend, two server binaries A/B in one interleaved run
# (docs/benchmarks.md, issue 15: pages read to the scan's end made a full
# scan quadratic in etcd). One throwaway 3-member etcd cluster on loopback
# (tests/etcd/cluster.sh); each binary's server on its own key prefix with
# the same table of ROWS rows (bigint key, two columns). Then ROUNDS rounds
# of Q full scans by each binary, A then B. Reported per scan: mean latency
# (ms, timed in the client), the Strata server's CPU and the etcd members'
# CPU (user+sys from /proc/PID/stat).
# usage: bench/etcd/scan_ab.sh BIN_A BIN_B [ROWS [ROUNDS [Q]]]
#        (defaults 100000 rows, 2 rounds, 2 scans per round)
# Env: BENCH_TMP (default /tmp).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin_a=$1 bin_b=$2
rows=${3:-100000} rounds=${4:-2} nq=${5:-2}
. "$root/bench/etcd/lib.sh"
hz=$(getconf CLK_TCK)
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres "${@:2}"; }

etcd_bench_init
for s in A B; do
	bin=$bin_a
	[[ $s == B ]] && bin=$bin_b
	etcd_bench_server "$s" "$bin" --store "etcd://$ETCD_ENDPOINTS/$s"
	eval "PORT_$s=$PORT PID_$s=$SPID"
	q "$PORT" -c "CREATE TABLE t (k bigint PRIMARY KEY, v bigint, pad text)" >/dev/null
	for ((i = 0; i < rows; i += 5000)); do
		q "$PORT" -c "INSERT INTO t SELECT g, g % 1000, 'row' || g FROM generate_series($i + 1, least($i + 5000, $rows)) g" >/dev/null
	done
	q "$PORT" -c "ANALYZE t" >/dev/null # not the automatic one during the scans
done
echo "# $rows rows, 3-member etcd 3.4 on loopback, $(nproc) cores; A=$bin_a B=$bin_b"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A ms cs ce cnt res
for r in $(seq 1 "$rounds"); do
	for s in A B; do
		p=$(eval echo "\$PORT_$s") sp=$(eval echo "\$PID_$s")
		c0=$(etcd_bench_cpu "$sp") e0=$(etcd_bench_cpu "${ETCD_PID[@]}")
		t0=$(date +%s%N)
		for ((j = 0; j < nq; j++)); do res[$s]=$(q "$p" -c "SELECT count(*), sum(v) FROM t"); done
		t1=$(date +%s%N)
		c1=$(etcd_bench_cpu "$sp") e1=$(etcd_bench_cpu "${ETCD_PID[@]}")
		ms[$s]=$(( ${ms[$s]:-0} + (t1 - t0) / 1000000 ))
		cs[$s]=$(( ${cs[$s]:-0} + c1 - c0 ))
		ce[$s]=$(( ${ce[$s]:-0} + e1 - e0 ))
		cnt[$s]=$(( ${cnt[$s]:-0} + nq ))
	done
done
[[ ${res[A]} == "${res[B]}" ]] || echo "# MISMATCH: A ${res[A]}, B ${res[B]}" >&2
echo "# result: ${res[B]} (want $rows|$(( (rows / 1000) * 499500 + (rows % 1000) * (rows % 1000 + 1) / 2 )))"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| binary | scans | ms per scan | server CPU ms per scan | etcd CPU ms per scan |"
echo "|---|---|---|---|---|"
for s in A B; do
	awk -v s="$s" -v n="${cnt[$s]}" -v t="${ms[$s]}" -v c="${cs[$s]}" -v e="${ce[$s]}" -v hz="$hz" \
		'BEGIN {printf "| %s | %d | %.0f | %.0f | %.0f |\n", s, n, t / n, c * 1000 / hz / n, e * 1000 / hz / n}'
done
