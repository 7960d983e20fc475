#!/usr/bin/env bash
# scan_lin.sh — is a full forward scan on the etcd backend linear in the
# table's size? (docs/scale-out.md, "Long scans"; docs/benchmarks.md). One
# throwaway 3-member etcd cluster on loopback, one server (BIN) at
# --log-level debug on it, one table (bigint key, two columns) grown to each
# size in turn; at each size Q full scans (SELECT count(*), sum(v)).
# Reported per size: ms per scan (timed in the client), the server's and the
# etcd members' CPU per scan (user+sys from /proc/PID/stat), microseconds
# per row of each, and from the server's per-page log lines ("etcd scan
# page:") the pages per scan, the keys etcd walked per scan (the sum of the
# ranges' counts), and the slowest and median page's request time.
# (A binary without that log, main before the change: those columns 0.)
# usage: bench/etcd/scan_lin.sh BIN [SIZES [Q]]   (defaults "20000 100000
#        200000", 2 scans per size)
# Env: BENCH_TMP (default /tmp).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin=$1
sizes=${2:-20000 100000 200000} nq=${3:-2}
. "$root/bench/etcd/lib.sh"
hz=$(getconf CLK_TCK)
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }

etcd_bench_init
etcd_bench_server S "$bin" --store "etcd://$ETCD_ENDPOINTS/S" --log-level debug
log=$work/srv-S.log
q -c "CREATE TABLE t (k bigint PRIMARY KEY, v bigint, pad text)" >/dev/null
echo "# 3-member etcd 3.4 on loopback, $(nproc) cores; BIN=$bin"
echo "| rows | scans | ms per scan | server CPU ms per scan | etcd CPU ms per scan | etcd CPU us per row | pages per scan | keys walked per scan | median page ms | slowest page ms | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
have=0
for n in $sizes; do
	for ((i = have; i < n; i += 5000)); do
		q -c "INSERT INTO t SELECT g, g % 1000, 'row' || g FROM generate_series($i + 1, least($i + 5000, $n)) g" >/dev/null
	done
	have=$n
	q -c "ANALYZE t" >/dev/null # not the automatic one during the scans
	want="$n|$(((n / 1000) * 499500 + (n % 1000) * (n % 1000 + 1) / 2))"
	from=$(wc -l <"$log")
	c0=$(etcd_bench_cpu "$SPID") e0=$(etcd_bench_cpu "${ETCD_PID[@]}")
	t0=$(date +%s%N)
	for ((j = 0; j < nq; j++)); do
		got=$(q -c "SELECT count(*), sum(v) FROM t")
		[[ $got == "$want" ]] || echo "# WRONG RESULT at $n rows: $got, want $want" >&2
	done
	t1=$(date +%s%N)
	c1=$(etcd_bench_cpu "$SPID") e1=$(etcd_bench_cpu "${ETCD_PID[@]}")
	tail -n +"$((from + 1))" "$log" | grep -o 'etcd scan page: .*' |
		/usr/bin/python3 -c '
import re, sys
n, q, t, c, e, hz, ld = sys.argv[1:]
n, q, t, c, e, hz = int(n), int(q), int(t), int(c), int(e), int(hz)
pages = [tuple(map(int, m.groups())) for m in
         (re.search(r"(\d+) keys of (\d+) in range, (\d+) us", l) for l in sys.stdin) if m]
us = sorted(p[2] for p in pages) or [0]  # none: a binary without the page log
print("| %d | %d | %.0f | %.0f | %.0f | %.2f | %.0f | %.0f | %.1f | %.1f | %s |" % (
    n, q, t / q, c * 1000 / hz / q, e * 1000 / hz / q, e * 1e6 / hz / q / n, len(pages) / q,
    sum(p[1] for p in pages) / q, us[(len(us) - 1) // 2] / 1000, us[-1] / 1000, ld))
' "$n" "$nq" "$(((t1 - t0) / 1000000))" "$((c1 - c0))" "$((e1 - e0))" "$hz" "$(cut -d' ' -f1 /proc/loadavg)"
done
