#!/usr/bin/env bash
# reverse_ab.sh — r2_last_n (ORDER BY ... DESC LIMIT 20) and r3_first_last
# (min/max) of the reporting suite on the etcd backend, two server binaries
# A/B in one interleaved run (docs/benchmarks.md). One throwaway 3-member
# etcd cluster on loopback (tests/etcd/cluster.sh); each binary's server on
# its own key prefix with the same data (pgvs.py's gen_events.py, the
# reporting schema, users and events loaded with \copy). Then ROUNDS rounds
# of: each query Q times from one client with random tenants, A then B.
# Reported per query: mean latency (ms, timed in the client), the Strata server's CPU and the etcd
# members' CPU (user+sys from /proc/PID/stat) per query — etcd 3.4 does the
# sorting of descending reads, so its CPU is where the old path spent.
# usage: bench/etcd/reverse_ab.sh BIN_A BIN_B [EVENTS [ROUNDS [Q_A [Q_B]]]]
#        (defaults 5000 events, 2 rounds, 2 and 40 queries per round)
# Env: BENCH_TMP (default /tmp), GEN (gen_events.py path).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bin_a=$1 bin_b=$2
events=${3:-5000} rounds=${4:-2} qa=${5:-2} qb=${6:-40}
GEN=${GEN:-/work/shared/bench/reporting/gen_events.py}
schema=$(dirname "$GEN")/schema.sql
. "$root/bench/etcd/lib.sh"
hz=$(getconf CLK_TCK)
start() { # NAME BIN: sets PORT_<NAME>, PID_<NAME>
	etcd_bench_server "$1" "$2" --store "etcd://$ETCD_ENDPOINTS/$1"
	eval "PORT_$1=$PORT PID_$1=$SPID"
}
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres "${@:2}"; }

etcd_bench_init
start A "$bin_a"
start B "$bin_b"
/usr/bin/python3 "$GEN" "$work/data" "$events" 50000 42 >/dev/null
for s in A B; do
	p=$(eval echo "\$PORT_$s")
	q "$p" -f "$schema" >/dev/null
	q "$p" -c "\\copy users FROM '$work/data/users.csv' WITH (FORMAT csv)" \
		-c "\\copy events FROM '$work/data/events.csv' WITH (FORMAT csv)" -c "ANALYZE" >/dev/null
done
echo "# $events events, 3-member etcd 3.4 on loopback, $(nproc) cores; A=$bin_a B=$bin_b"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# QUERIES (default "r2 r3"): r1 (a tenant's 30 days, forward range), r4
# (by user_id through events_user_idx, created when asked for) and r8 (the
# full scan with a LIKE filter) also exist.
queries=${QUERIES:-r2 r3}
r1="SELECT count(*), sum(amount) FROM events WHERE tenant_id = %(t)s AND event_time >= timestamp '2026-01-01' + %(d)s * interval '1 day' AND event_time < timestamp '2026-01-01' + (%(d)s + 30) * interval '1 day'"
r2="SELECT event_time, event_id, kind, amount FROM events WHERE tenant_id = %(t)s ORDER BY event_time DESC LIMIT 20"
r3="SELECT min(event_time), max(event_time) FROM events WHERE tenant_id = %(t)s"
r4="SELECT count(*), sum(amount) FROM events WHERE user_id = %(u)s"
r8="SELECT count(*), max(amount) FROM events WHERE note LIKE '%%ab%%'"
if [[ " $queries " == *" r4 "* ]]; then
	for s in A B; do q "$(eval echo "\$PORT_$s")" -c "CREATE INDEX events_user_idx ON events (user_id)" -c "ANALYZE" >/dev/null; done
fi
declare -A ms cs ce nq
for r in $(seq 1 "$rounds"); do
	for name in $queries; do
		for s in A B; do
			p=$(eval echo "\$PORT_$s") sp=$(eval echo "\$PID_$s")
			n=$qa
			[[ $s == B ]] && n=$qb
			sql=${!name}
			c0=$(etcd_bench_cpu "$sp") e0=$(etcd_bench_cpu "${ETCD_PID[@]}")
			el=$(/usr/bin/python3 - "$p" "$n" "$sql" "$r" <<'EOF'
import random, sys, time
import psycopg2
port, n, sql, seed = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
c = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
c.autocommit = True
cur = c.cursor()
rnd = random.Random(seed)
t0 = time.time()
for _ in range(n):
    cur.execute(sql, {"t": rnd.randint(1, 100), "d": rnd.randint(0, 330), "u": rnd.randint(1, 50000)})
    cur.fetchall()
print(int((time.time() - t0) * 1000))
EOF
			)
			c1=$(etcd_bench_cpu "$sp") e1=$(etcd_bench_cpu "${ETCD_PID[@]}")
			k="$name,$s"
			ms[$k]=$(( ${ms[$k]:-0} + el ))
			cs[$k]=$(( ${cs[$k]:-0} + c1 - c0 ))
			ce[$k]=$(( ${ce[$k]:-0} + e1 - e0 ))
			nq[$k]=$(( ${nq[$k]:-0} + n ))
		done
	done
done
# Both binaries must return the same rows.
for name in $queries; do
	sql=${!name}
	sql=${sql//%(t)s/7} sql=${sql//%(d)s/100} sql=${sql//%(u)s/77}
	a=$(q "$PORT_A" -c "$sql") b=$(q "$PORT_B" -c "$sql")
	[[ $a == "$b" ]] || echo "# MISMATCH on $name: A and B differ" >&2
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| query | binary | queries | ms per query | server CPU ms per query | etcd CPU ms per query |"
echo "|---|---|---|---|---|---|"
for name in $queries; do
	for s in A B; do
		k="$name,$s"
		awk -v q="$name" -v s="$s" -v n="${nq[$k]}" -v t="${ms[$k]}" -v c="${cs[$k]}" -v e="${ce[$k]}" -v hz="$hz" \
			'BEGIN {printf "| %s | %s | %d | %.1f | %.1f | %.1f |\n", q, s, n, t / n, c * 1000 / hz / n, e * 1000 / hz / n}'
	done
done
