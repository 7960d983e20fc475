#!/usr/bin/env bash
# copy_threads.sh — where the reporting load's events \copy (1M rows, csv, autocommit,
# random key order) spends its server CPU, by thread: the connection's thread (the
# load's critical path: reading, ordering, the sorted flushes) against the whole
# server (that plus the COPY's parse workers, sql/copy_par.c, and the store's
# threads), for one or more binaries, interleaved, each round on a fresh data
# directory. The connection thread's CPU is read from /proc/PID/task while the
# session is still open after its COPY; wall is the COPY statement's.
#
# usage: bench/copy_threads.sh [--rounds R] BINARY [BINARY...]     (default 3 rounds)
set -uo pipefail
rep=/work/shared/bench/reporting
rounds=3
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	-h | --help) sed -n '2,10p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 ]] || { sed -n '2,10p' "$0"; exit 2; }
BENCH_NAME=copy_threads
work=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
BENCH_LOG=$work/log
. "$(dirname "$0")/lib.sh"
bench_trap "$work"
/usr/bin/python3 "$rep/gen_events.py" "$work/data" 1000000 50000 42 >/dev/null || exit 1
hz=$(getconf CLK_TCK)
# The busiest thread's CPU seconds (the connection's, right after its COPY).
top_thread() { for t in /proc/$pid/task/*/stat; do awk '{print $14 + $15}' "$t"; done | sort -n | tail -1 | awk -v hz="$hz" '{printf "%.2f", $1 / hz}'; }
echo "# load average: $(bench_load)"
for ((r = 1; r <= rounds; r++)); do
	for b in "${bins[@]}"; do
		rm -rf "$work/db"
		bench_start "$work/db" "$b"
		psql -X -q -h 127.0.0.1 -p "$port" -U postgres -f "$rep/schema.sql" postgres >/dev/null 2>&1
		c0=$(bench_cpu_secs)
		# \copy, then a pause in the same session to read its thread's CPU.
		{ echo "\\timing on"; echo "\\copy events FROM '$work/data/events.csv' WITH (FORMAT csv)"; echo "SELECT pg_sleep(1.5)"; } |
			psql -X -q -h 127.0.0.1 -p "$port" -U postgres postgres >"$work/out" 2>&1 &
		cp=$!
		for _ in $(seq 600); do grep -q 'Time:' "$work/out" 2>/dev/null && break; sleep 0.1; done
		sleep 0.5
		conn=$(top_thread)
		wait $cp
		c1=$(bench_cpu_secs)
		wall=$(grep -m1 'Time:' "$work/out" | awk '{printf "%.2f", $2 / 1000}')
		printf '%-40s copy wall %6.2f s   server cpu %5.2f s   connection thread %5.2f s\n' "$b" "$wall" \
			"$(echo "$c1 - $c0" | bc)" "$conn"
		bench_stop
	done
done
echo "# load average: $(bench_load)"
