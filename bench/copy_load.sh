#!/usr/bin/env bash
# copy_load.sh — wall time and server CPU of the reporting load (pgvs.py's 50k users +
# 1M events, psql \copy in csv) for one or more strata binaries, A/B interleaved, each
# load on a fresh data directory. Modes: autocommit (as pgvs.py), block (inside
# BEGIN ... COMMIT), unique (autocommit into a table with a unique secondary index),
# block-unique (that, inside BEGIN ... COMMIT), block-fk (inside BEGIN ... COMMIT,
# events.user_id a foreign key to users), and filled / filled-block: N/4 more events
# (other keys) into the table holding the N events, autocommit or inside
# BEGIN ... COMMIT (only the second load is timed).
# CPU is user+sys of the server from /proc/PID/stat (the steadier figure on the
# shared machine).
#
# usage: bench/copy_load.sh [--rounds R] [--events N] [--modes LIST] BINARY [BINARY...]
#   --rounds R     A/B rounds (default 2)
#   --events N     events to load (default 1000000)
#   --modes LIST   comma list of autocommit,block,unique,block-unique,block-fk,filled,
#                  filled-block (default autocommit,block,unique)
# Example (numbers in docs/benchmarks.md):
#   bench/copy_load.sh /tmp/strata_main build/release/server/strata
set -uo pipefail
rep=/work/shared/bench/reporting
rounds=2
events=1000000
modes=autocommit,block,unique
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--modes) modes=$2; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 ]] || { sed -n '2,19p' "$0"; exit 2; }
work=$(mktemp -d)
BENCH_LOG=$work/log
. "$(dirname "$0")/lib.sh"
bench_trap "$work"
/usr/bin/python3 "$rep/gen_events.py" "$work/data" "$events" 50000 42 >/dev/null || exit 1
[[ $modes = *filled* ]] && { /usr/bin/python3 "$rep/gen_events.py" "$work/more" $((events / 4)) 50000 43 >/dev/null || exit 1; }

now() { date +%s.%N; }
q() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 "$@" postgres >/dev/null; }

echo "# load average: $(bench_load)"
IFS=, read -ra mlist <<<"$modes"
for ((r = 1; r <= rounds; r++)); do
	for mode in "${mlist[@]}"; do
		for b in "${bins[@]}"; do
			rm -rf "$work/db"
			bench_start "$work/db" "$b"
			q -f "$rep/schema.sql" 2>/dev/null
			[[ $mode = *unique ]] && q -c "CREATE UNIQUE INDEX events_note_uq ON events (note, event_id)"
			[[ $mode = block-fk ]] && q -c "ALTER TABLE events ADD FOREIGN KEY (user_id) REFERENCES users (id)"
			if [[ $mode = filled* ]]; then
				q -c "\\copy users FROM '$work/data/users.csv' WITH (FORMAT csv)"
				q -c "\\copy events FROM '$work/data/events.csv' WITH (FORMAT csv)"
			fi
			c0=$(bench_cpu_secs)
			t0=$(now)
			case $mode in
			block | block-unique | block-fk)
				q -c "BEGIN" -c "\\copy users FROM '$work/data/users.csv' WITH (FORMAT csv)" \
					-c "\\copy events FROM '$work/data/events.csv' WITH (FORMAT csv)" -c "COMMIT" ;;
			filled)
				q -c "\\copy events FROM '$work/more/events.csv' WITH (FORMAT csv)" ;;
			filled-block)
				q -c "BEGIN" -c "\\copy events FROM '$work/more/events.csv' WITH (FORMAT csv)" -c "COMMIT" ;;
			*)
				q -c "\\copy users FROM '$work/data/users.csv' WITH (FORMAT csv)"
				q -c "\\copy events FROM '$work/data/events.csv' WITH (FORMAT csv)" ;;
			esac
			rc=$?
			t1=$(now)
			c1=$(bench_cpu_secs)
			n=$(psql -X -A -t -h 127.0.0.1 -p "$port" -U postgres -c "SELECT count(*) FROM events" postgres)
			printf '%-10s %-44s wall %6.2f s   server cpu %5.2f s   rows %s rc %s\n' "$mode" "$b" \
				"$(echo "$t1 - $t0" | bc)" "$(echo "$c1 - $c0" | bc)" "$n" "$rc"
			bench_stop
		done
	done
done
echo "# load average: $(bench_load)"
