#!/usr/bin/env bash
# write_cpu.sh — server CPU of the transaction write path, for one or more strata binaries, A/B
# interleaved: one transaction inserting N rows (the write buffer holds them until COMMIT), the
# same rows updated in one transaction, and pgbench's TPC-B for a fixed number of transactions.
# CPU is user + system of the whole server from /proc/PID/stat (wall time is noisy on this
# shared machine). Each binary gets its own server and data directory, started once.
#
# usage: bench/write_cpu.sh [--rows N] [--tpcb N] [--rounds R] BINARY [BINARY...]
#   --rows N     rows of the big transactions (default 200000)
#   --tpcb N     TPC-B transactions per client, 2 clients (default 3000; 0 = skip)
#   --rounds R   A/B rounds (default 3)
# Example (numbers in docs/benchmarks.md):
#   bench/write_cpu.sh /work/main/build/release/server/strata build/release/server/strata
set -uo pipefail
rows=200000
tpcb=3000
rounds=3
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rows) rows=$2; shift 2 ;;
	--tpcb) tpcb=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 ]] || { sed -n '2,13p' "$0"; exit 2; }
tmp=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
pids=()
ports=()
cleanup() {
	bench_stop # one that failed to start
	for pid in "${pids[@]}"; do bench_stop; done
	rm -rf "$tmp"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)
export PGOPTIONS="-c client_min_messages=warning"

# One server per binary, all running at once (lib.sh's pid and port name the last started).
for i in "${!bins[@]}"; do
	BENCH_LOG=$tmp/log$i bench_start "$tmp/d$i" "${bins[$i]}"
	pids+=("$pid")
	ports+=("$port")
	if [[ $tpcb -gt 0 ]]; then
		pgbench -q -i -s 1 -h 127.0.0.1 -p "$port" -U postgres postgres >/dev/null 2>&1 ||
			echo "pgbench -i failed on ${bins[$i]}"
	fi
done
pid=

q() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -c "$2" >/dev/null; }
measure() { # binary index, label, command...
	local i=$1 label=$2
	shift 2
	local t0 t1
	t0=$(bench_cpu_ticks "${pids[$i]}")
	"$@" || echo "  ($label failed on ${bins[$i]})"
	t1=$(bench_cpu_ticks "${pids[$i]}")
	printf '  %-40s %-22s %8.2f s\n' "${bins[$i]}" "$label" "$(echo "($t1 - $t0) / $hz" | bc -l)"
}
insert_txn() {
	q "$1" "DROP TABLE IF EXISTS wcpu; CREATE TABLE wcpu (id int PRIMARY KEY, pad text)" &&
		q "$1" "BEGIN; INSERT INTO wcpu SELECT g, md5(g::text) FROM generate_series(1, $rows) g; COMMIT"
}
update_txn() { q "$1" "BEGIN; UPDATE wcpu SET pad = pad || 'x'; COMMIT"; }
tpcb_run() { pgbench -n -c 2 -j 2 -t "$tpcb" -h 127.0.0.1 -p "$1" -U postgres postgres >/dev/null 2>&1; }

echo "load: $(bench_load)"
for r in $(seq "$rounds"); do
	echo "round $r"
	for i in "${!bins[@]}"; do
		measure "$i" "insert $rows (1 txn)" insert_txn "${ports[$i]}"
		measure "$i" "update $rows (1 txn)" update_txn "${ports[$i]}"
		[[ $tpcb -gt 0 ]] && measure "$i" "tpc-b 2x$tpcb" tpcb_run "${ports[$i]}"
	done
done
echo "load: $(bench_load)"
