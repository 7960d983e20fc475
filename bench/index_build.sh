#!/usr/bin/env bash
# index_build.sh — server CPU and wall time of the reporting suite's two CREATE INDEX
# statements (reporting/indexes.sql) on the 1M events, for one or more strata binaries,
# A/B interleaved: each measurement starts the binary on a fresh copy of one loaded data
# directory (no index yet). CPU from /proc/PID/stat (user + system of the whole server).
#
# usage: bench/index_build.sh [--rounds R] [--data DIR] BINARY [BINARY...]
#   --rounds R   A/B rounds (default 3)
#   --data DIR   the loaded data directory (kept; made with the first binary when missing)
# Example (numbers in docs/benchmarks.md):
#   bench/index_build.sh /tmp/strata_main build/release/server/strata
set -uo pipefail
rep=/work/shared/bench/reporting
rounds=3
data=/tmp/index_build.data
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--data) data=$2; shift 2 ;;
	-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 ]] || { sed -n '2,12p' "$0"; exit 2; }
work=$(mktemp -d)
BENCH_LOG=$work/server.log
. "$(dirname "$0")/lib.sh"
bench_trap "$work"
start() { bench_start "$2" "$1"; } # BINARY DIR
stop() { bench_stop; }
q() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres "$@"; }

if [[ ! -d $data ]]; then
	mkdir -p "$data.csv"
	/usr/bin/python3 "$rep/gen_events.py" "$data.csv" 1000000 50000 42
	start "${bins[0]}" "$data"
	q -f "$rep/schema.sql" >/dev/null 2>&1
	q -c "\\copy users FROM '$data.csv/users.csv' WITH (FORMAT csv)"
	q -c "\\copy events FROM '$data.csv/events.csv' WITH (FORMAT csv)"
	q -c 'ANALYZE'
	stop
fi

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores"
for r in $(seq "$rounds"); do
	for b in "${bins[@]}"; do
		rm -rf "$work/d"
		cp -a "$data" "$work/d"
		start "$b" "$work/d"
		q -c 'SELECT count(*) FROM events' >/dev/null
		line="$b:"
		while read -r stmt; do
			[[ -n $stmt ]] || continue
			t0=$(bench_cpu_ticks)
			w0=$(date +%s.%N)
			q -c "$stmt"
			t1=$(bench_cpu_ticks)
			w1=$(date +%s.%N)
			line="$line $(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v w="$(echo "$w1 - $w0" | bc)" \
				'BEGIN { printf "cpu %.2f s wall %.2f s |", t / hz, w }')"
		done <"$rep/indexes.sql"
		echo "$line load $(bench_load)"
		stop
	done
done
