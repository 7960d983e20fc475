#!/usr/bin/env bash
# requests.sh — etcd requests per SQL statement (docs/scale-out.md): one
# Strata server (STRATA_BIN, default build/release) on a throwaway 3-member
# etcd cluster; after a small load, runs N autocommit point SELECTs (pgbench
# -S style, -M simple, one client) and reads etcd's own request counters
# (grpc_server_handled_total by method, summed over the members) before and
# after: Range and Txn requests per SELECT, and the SELECTs per second.
# With STRATA_BIN_BASE set, the same on a server of that binary (its own
# prefix of the same cluster), interleaved.
# usage: bench/etcd/requests.sh [N] [ROWS]   (defaults 2000 1000)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
n=${1:-2000} rows=${2:-1000}
bin=${STRATA_BIN:-$root/build/release/server/strata}
. "$root/tests/etcd/cluster.sh"
work=$(mktemp -d)
pids=()
cleanup() {
	set +e
	for f in "$work"/*.pid; do [[ -f $f ]] && pids+=("$(cat "$f")"); done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do for _ in $(seq 1 50); do [[ -e /proc/$p ]] || break; sleep 0.1; done; done
	etcd_cluster_stop
	rm -rf "$work"
}
trap cleanup EXIT
etcd_cluster_start "$work/etcd"
start() { # NAME BIN PREFIX
	local port
	port=$(etcd_free_port)
	mkdir -p "$work/$1"
	"$2" --port "$port" --data-dir "$work/$1" --store "etcd://$ETCD_ENDPOINTS/$3" >"$work/$1.log" 2>&1 &
	echo $! >"$work/$1.pid"
	for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
	echo "$port"
}
count() { # METHOD: requests handled by all members so far
	local p t=0 v
	for p in "${ETCD_CPORT[@]}"; do
		v=$(curl -s "http://127.0.0.1:$p/metrics" |
			awk -v m="grpc_method=\"$1\"" 'index($0, "grpc_server_handled_total{") == 1 && index($0, m) {s += $NF} END {print s + 0}')
		t=$((t + v))
	done
	echo "$t"
}
cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$(cat "$work/$1.pid")/stat"; }
names=(new) bins=("$bin")
[[ -n ${STRATA_BIN_BASE:-} ]] && names+=(base) bins+=("$STRATA_BIN_BASE")
declare -A port
for i in "${!names[@]}"; do
	port[${names[$i]}]=$(start "${names[$i]}" "${bins[$i]}" "${names[$i]}")
	psql -X -q -h 127.0.0.1 -p "${port[${names[$i]}]}" -U postgres \
		-c "CREATE TABLE acc (aid int PRIMARY KEY, abalance int)" \
		-c "INSERT INTO acc SELECT g, 0 FROM generate_series(1, $rows) g"
done
printf '\\set id random(1, %d)\nSELECT abalance FROM acc WHERE aid = :id;\n' "$rows" >"$work/select.sql"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $n SELECTs, 1 client, -M simple"
printf '%-6s %10s %10s %10s %12s\n' server range/stmt txn/stmt stmts/s cpu-ms/stmt
for round in 1 2; do
	for nm in "${names[@]}"; do
		r0=$(count Range) t0=$(count Txn) c0=$(cpu "$nm")
		tps=$(pgbench -n -h 127.0.0.1 -p "${port[$nm]}" -U postgres -c 1 -t "$n" -f "$work/select.sql" postgres 2>&1 |
			sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1)
		r1=$(count Range) t1=$(count Txn) c1=$(cpu "$nm")
		/usr/bin/python3 -c "print('%-6s %10.2f %10.2f %10.1f %12.3f' % ('$nm', ($r1-$r0)/$n, ($t1-$t0)/$n, $tps, 1000*($c1-$c0)/$n))"
	done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
