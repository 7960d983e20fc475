#!/usr/bin/env bash
# commit_ab.sh — commit-fsync-bound throughput of two strata binaries, A/B interleaved: the
# reporting suite's w1_insert (one autocommit INSERT per transaction into `events` with two
# secondary indexes) and pgbench's tpcb-like, 2 clients each, -T seconds per run. Every run
# gets a fresh server and data directory (schema.sql + indexes.sql, or pgbench -i -s 1), so
# A and B start from the same state. Prints per run: tps, server CPU ms per 1,000
# transactions and, with --strace, log fsyncs (fdatasync + fsync) per transaction counted by
# strace -c in one extra run per binary and workload (strace slows the server; its tps is not
# reported).
#
# usage: bench/commit_ab.sh [--rounds R] [--secs T] [--strace] BINARY_A BINARY_B
# Example (numbers in docs/benchmarks.md):
#   bench/commit_ab.sh --rounds 5 --strace /tmp/old/strata build/release/server/strata
set -uo pipefail
rounds=5
secs=10
trace=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--strace) trace=1; shift ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
[[ $# -eq 2 ]] || { sed -n '2,13p' "$0"; exit 2; }
bins=("$1" "$2")
rep=${REPORTING:-/work/shared/bench/reporting}
tmp=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_trap "$tmp"
hz=$(getconf CLK_TCK)
export PGOPTIONS="-c client_min_messages=warning"

# setup WORKLOAD: the schema of w1 or tpcb on the running server.
setup() {
	if [[ $1 == w1 ]]; then
		psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres \
			-f "$rep/schema.sql" -f "$rep/indexes.sql" 2>&1 >/dev/null | grep -v NOTICE >&2
	else
		pgbench -q -i -s 1 -h 127.0.0.1 -p "$port" -U postgres postgres >/dev/null 2>&1
	fi
}

# bench WORKLOAD: runs pgbench for $secs seconds; prints its tps and transaction count.
bench() {
	local out
	if [[ $1 == w1 ]]; then
		out=$(pgbench -n -f "$rep/queries/w1_insert.sql" -M extended -c 2 -j 2 -T "$secs" \
			-h 127.0.0.1 -p "$port" -U postgres postgres 2>&1)
	else
		out=$(pgbench -n -b tpcb-like -M extended -c 2 -j 2 -T "$secs" \
			-h 127.0.0.1 -p "$port" -U postgres postgres 2>&1)
	fi
	local tps n
	tps=$(awk '/^tps = / {printf "%.0f", $3; exit}' <<<"$out")
	n=$(awk '/number of transactions actually processed/ {split($NF, a, "/"); print a[1]; exit}' <<<"$out")
	echo "${tps:-0} ${n:-0}"
}

# run BINARY_INDEX WORKLOAD: one fresh server, one measured pgbench run.
run() {
	local i=$1 w=$2 t0 t1 r
	rm -rf "$tmp/d"
	BENCH_LOG=$tmp/log bench_start "$tmp/d" "${bins[$i]}"
	setup "$w"
	t0=$(bench_cpu_ticks)
	r=$(bench "$w")
	t1=$(bench_cpu_ticks)
	bench_stop
	local tps=${r% *} n=${r#* }
	local cpu=$(((t1 - t0) * 1000 * 1000 / hz / (n > 0 ? n : 1)))
	printf '%s %s tps %s cpu_ms_per_1000tx %s\n' "$w" "$([[ $i == 0 ]] && echo A || echo B)" "$tps" "$cpu"
	echo "$tps" >>"$tmp/$w.$i.tps"
	echo "$cpu" >>"$tmp/$w.$i.cpu"
}

# traced BINARY_INDEX WORKLOAD: fsyncs per transaction under strace -c.
traced() {
	local i=$1 w=$2 r
	rm -rf "$tmp/d"
	BENCH_LOG=$tmp/log bench_start "$tmp/d" "${bins[$i]}"
	setup "$w"
	strace -c -f -q -e trace=fdatasync,fsync,write,pwrite64,ftruncate -o "$tmp/strace" -p "$pid" &
	local sp=$!
	sleep 1
	r=$(bench "$w")
	kill -INT "$sp"
	wait "$sp" 2>/dev/null
	bench_stop
	local n=${r#* }
	awk -v n="$n" -v w="$w" -v b="$([[ $i == 0 ]] && echo A || echo B)" '
		$NF ~ /^(fdatasync|fsync|write|pwrite64|ftruncate)$/ { c[$NF] = ($4 ~ /^[0-9]+$/) ? $4 : $(NF-1) }
		END { printf "%s %s strace: %d transactions, fsyncs/tx %.3f (fdatasync %d, fsync %d), write %d, pwrite64 %d, ftruncate %d\n",
			w, b, n, (c["fdatasync"] + c["fsync"]) / (n > 0 ? n : 1), c["fdatasync"], c["fsync"], c["write"], c["pwrite64"], c["ftruncate"] }' "$tmp/strace"
}

echo "# load at start: $(bench_load)"
for r in $(seq "$rounds"); do
	for w in w1 tpcb; do
		# Alternate which binary goes first, so neither always runs on a warmer disk.
		if ((r % 2)); then order="0 1"; else order="1 0"; fi
		for i in $order; do run "$i" "$w"; done
	done
done
echo "# load at end: $(bench_load)"
for w in w1 tpcb; do
	for i in 0 1; do
		# shellcheck disable=SC2046 # one number per line
		printf '%s %s median tps %s, median cpu_ms_per_1000tx %s (%s runs)\n' "$w" \
			"$([[ $i == 0 ]] && echo A || echo B)" "$(bench_median $(cat "$tmp/$w.$i.tps"))" \
			"$(bench_median $(cat "$tmp/$w.$i.cpu"))" "$(wc -l <"$tmp/$w.$i.tps")"
	done
done
if ((trace)); then
	for w in w1 tpcb; do
		for i in 0 1; do traced "$i" "$w"; done
	done
fi
