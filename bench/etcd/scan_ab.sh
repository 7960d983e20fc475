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
# Env: BENCH_TMP (default /tmp); AB_SQL: the query instead of the full scan
# (e.g. "SELECT k, v FROM t LIMIT 10": short scans, each its own source);
# AB_WALKED=1: servers at --log-level debug, and the etcd keys their scans'
# pages walked (the ranges' counts, "etcd scan page:" lines) per query.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin_a=$1 bin_b=$2
rows=${3:-100000} rounds=${4:-2} nq=${5:-2}
sql=${AB_SQL:-SELECT count(*), sum(v) FROM t}
dbg=()
[[ ${AB_WALKED:-0} == 1 ]] && dbg=(--log-level debug)
. "$root/bench/etcd/lib.sh"
hz=$(getconf CLK_TCK)
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres "${@:2}"; }

etcd_bench_init
for s in A B; do
	bin=$bin_a
	[[ $s == B ]] && bin=$bin_b
	etcd_bench_server "$s" "$bin" --store "etcd://$ETCD_ENDPOINTS/$s" "${dbg[@]}"
	eval "PORT_$s=$PORT PID_$s=$SPID"
	q "$PORT" -c "CREATE TABLE t (k bigint PRIMARY KEY, v bigint, pad text)" >/dev/null
	for ((i = 0; i < rows; i += 5000)); do
		q "$PORT" -c "INSERT INTO t SELECT g, g % 1000, 'row' || g FROM generate_series($i + 1, least($i + 5000, $rows)) g" >/dev/null
	done
	q "$PORT" -c "ANALYZE t" >/dev/null # not the automatic one during the scans
done
echo "# $rows rows, 3-member etcd 3.4 on loopback, $(nproc) cores; A=$bin_a B=$bin_b"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); query: $sql"
# The etcd keys walked by the pages logged after line $2 of log $1.
walked() { awk -v from="$2" 'NR > from && /etcd scan page:/ { for (i = 1; i < NF; i++) if ($i == "of") w += $(i + 1) } END { print w + 0 }' "$1"; }
declare -A wk rs re
# The median of the rounds' CPU ticks ($1), in ms per query.
median_ms() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk -v hz="$hz" -v n="$nq" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 / hz / n }'; }
declare -A ms cs ce cnt res
for r in $(seq 1 "$rounds"); do
	for s in A B; do
		p=$(eval echo "\$PORT_$s") sp=$(eval echo "\$PID_$s")
		c0=$(etcd_bench_cpu "$sp") e0=$(etcd_bench_cpu "${ETCD_PID[@]}")
		l0=$(wc -l <"$work/srv-$s.log")
		t0=$(date +%s%N)
		for ((j = 0; j < nq; j++)); do res[$s]=$(q "$p" -c "$sql"); done
		t1=$(date +%s%N)
		wk[$s]=$(( ${wk[$s]:-0} + $(walked "$work/srv-$s.log" "$l0") ))
		c1=$(etcd_bench_cpu "$sp") e1=$(etcd_bench_cpu "${ETCD_PID[@]}")
		ms[$s]=$(( ${ms[$s]:-0} + (t1 - t0) / 1000000 ))
		cs[$s]=$(( ${cs[$s]:-0} + c1 - c0 ))
		ce[$s]=$(( ${ce[$s]:-0} + e1 - e0 ))
		rs[$s]+=" $((c1 - c0))" re[$s]+=" $((e1 - e0))"
		cnt[$s]=$(( ${cnt[$s]:-0} + nq ))
	done
done
[[ ${res[A]} == "${res[B]}" ]] || echo "# MISMATCH: A ${res[A]}, B ${res[B]}" >&2
[[ -n ${AB_SQL:-} ]] || echo "# result: ${res[B]} (want $rows|$(( (rows / 1000) * 499500 + (rows % 1000) * (rows % 1000 + 1) / 2 )))"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| binary | scans | ms per scan | server CPU ms per scan (median of rounds) | etcd CPU ms per scan (median of rounds) | etcd keys walked per scan |"
echo "|---|---|---|---|---|---|"
for s in A B; do
	awk -v s="$s" -v n="${cnt[$s]}" -v t="${ms[$s]}" -v c="${cs[$s]}" -v e="${ce[$s]}" -v hz="$hz" -v w="${wk[$s]}" \
		-v mc="$(median_ms "${rs[$s]}")" -v me="$(median_ms "${re[$s]}")" \
		'BEGIN {printf "| %s | %d | %.1f | %.1f (%s) | %.1f (%s) | %s |\n", s, n, t / n, c * 1000 / hz / n, mc, e * 1000 / hz / n, me, w ? sprintf("%.0f", w / n) : "-"}'
done
