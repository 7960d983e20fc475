#!/usr/bin/env bash
# run_merge.sh — the autocommit reporting load (pgvs.py's 50k users + 1M events, psql \copy
# in csv, fresh data directory each load) for several server variants, interleaved round by
# round: wall time, server CPU (user+sys from /proc) and the commit's run merge alone (the
# debug log line "merged N runs, B bytes, on one thread/two threads in M ms" of
# kvstore/stage.c), with the medians per variant at the end.
#
# usage: bench/run_merge.sh [--rounds R] [--events N] VARIANT...
#   VARIANT   LABEL:BINARY[:VAR=VALUE,...]  environment for that server, e.g.
#             split:build/release/server/strata:STRATA_STAGE_SPLIT_BYTES=16777216
#   --rounds  interleaved rounds (default 5)
#   --events  events to load (default 1000000)
# Numbers in docs/benchmarks.md ("The commit's run merge", branch cmerge3).
set -uo pipefail
rep=/work/shared/bench/reporting
rounds=5
events=1000000
variants=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	*) variants+=("$1"); shift ;;
	esac
done
[[ ${#variants[@]} -gt 0 ]] || { sed -n '2,13p' "$0"; exit 2; }
work=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
BENCH_LOG=$work/log
. "$(dirname "$0")/lib.sh"
bench_trap "$work"
[[ -n ${KEEP_LOGS:-} ]] && mkdir -p "$KEEP_LOGS"
/usr/bin/python3 "$rep/gen_events.py" "$work/data" "$events" 50000 42 >/dev/null || exit 1

now() { date +%s.%N; }
q() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 "$@" postgres >/dev/null; }
declare -A walls cpus merges

echo "# load average: $(bench_load)"
for ((r = 1; r <= rounds; r++)); do
	for v in "${variants[@]}"; do
		IFS=: read -r label bin envs <<<"$v"
		IFS=, read -ra envl <<<"$envs"
		rm -rf "$work/db"
		bench_start "$work/db" env "${envl[@]}" "$bin" --log-level debug
		q -f "$rep/schema.sql" 2>/dev/null
		c0=$(bench_cpu_secs)
		t0=$(now)
		q -c "\\copy users FROM '$work/data/users.csv' WITH (FORMAT csv)"
		q -c "\\copy events FROM '$work/data/events.csv' WITH (FORMAT csv)"
		rc=$?
		t1=$(now)
		c1=$(bench_cpu_secs)
		n=$(psql -X -A -t -h 127.0.0.1 -p "$port" -U postgres -c "SELECT count(*) FROM events" postgres)
		bench_stop
		[[ -n ${KEEP_LOGS:-} ]] && cp "$BENCH_LOG" "$KEEP_LOGS/$label.$r.log"
		ms=$(grep -o 'merged [0-9]* runs, [0-9]* bytes, on [a-z ]* in [0-9]* ms' "$BENCH_LOG" |
			sed 's/.* in \([0-9]*\) ms/\1/' | awk '{s += $1} END {print s + 0}')
		wall=$(echo "$t1 - $t0" | bc)
		cpu=$(echo "$c1 - $c0" | bc)
		walls[$label]+="$wall "
		cpus[$label]+="$cpu "
		merges[$label]+="$ms "
		printf 'round %d %-12s wall %6.2f s   server cpu %5.2f s   merge %5d ms   rows %s rc %s   load %s\n' \
			"$r" "$label" "$wall" "$cpu" "$ms" "$n" "$rc" "$(cut -d' ' -f1 /proc/loadavg)"
	done
done
echo "# load average: $(bench_load)"
for v in "${variants[@]}"; do
	label=${v%%:*}
	# shellcheck disable=SC2086 # the lists are space-separated numbers
	printf 'median %-12s wall %6.2f s   server cpu %5.2f s   merge %5d ms\n' "$label" \
		"$(bench_median ${walls[$label]})" "$(bench_median ${cpus[$label]})" "$(bench_median ${merges[$label]})"
done
