#!/usr/bin/env bash
# salt.sh — what salting (WITH (salt_buckets = N)) buys and costs, on one
# Strata server (release build): a table keyed by a bigserial (sequential
# keys: the hot spot salting is for), unsalted and with N buckets.
#   load:   INSERT ... SELECT of ROWS rows in one statement
#   insert: pgbench, C clients each inserting one row per transaction (nextval keys)
#   point:  pgbench, a random whole-key lookup
#   range:  pgbench, count(*) of 100 consecutive keys
#   last10: pgbench, ORDER BY id DESC LIMIT 10
#   count:  count(*) of the whole table
# Each pgbench line is -M prepared, C clients, S seconds; the layouts take
# turns for R rounds and the median is reported. Appends the table to
# docs/benchmarks.md with BENCH_WRITE=1.
#
# Usage: bench/salt.sh [ROWS [SECONDS [ROUNDS [BUCKETS...]]]]   (default 1000000 10 3 8 32)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
SECS=${2:-10}
ROUNDS=${3:-3}
shift $(($# < 3 ? $# : 3))
BUCKETS=("$@")
((${#BUCKETS[@]})) || BUCKETS=(8 32)
CLIENTS=${CLIENTS:-2}

cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j2 --target strata >/dev/null

work=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
BENCH_LOG=$work/strata.log
. bench/lib.sh
bench_trap "$work"
bench_start "$work/data" build/release/server/strata
q() { psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"; }
ms() { date +%s%3N; }

layouts=(0 "${BUCKETS[@]}")
declare -A load_ms count_ms res
for n in "${layouts[@]}"; do
	w=""
	((n)) && w="WITH (salt_buckets = $n)"
	q -c "CREATE TABLE s$n (id bigserial PRIMARY KEY, at timestamptz DEFAULT now(), body text) $w"
	t0=$(ms)
	q -c "INSERT INTO s$n (body) SELECT 'body ' || i FROM generate_series(1, $ROWS) i"
	load_ms[$n]=$(($(ms) - t0))
done

script() { # test layout -> a pgbench script
	case $1 in
	insert) echo "INSERT INTO s$2 (body) VALUES ('new row');" ;;
	point) printf '\\set r random(1, %d)\nSELECT body FROM s%s WHERE id = :r;\n' "$ROWS" "$2" ;;
	range) printf '\\set r random(1, %d)\nSELECT count(*) FROM s%s WHERE id BETWEEN :r AND :r + 99;\n' "$((ROWS - 100))" "$2" ;;
	last10) echo "SELECT id FROM s$2 ORDER BY id DESC LIMIT 10;" ;;
	esac
}
tps() { # test layout
	script "$1" "$2" >"$work/run.sql"
	pgbench -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -h 127.0.0.1 -p "$port" -U postgres \
		-f "$work/run.sql" postgres 2>/dev/null | awk '/^tps/ {printf "%.0f", $3}'
}
tests=(insert point range last10)
for t in "${tests[@]}"; do
	declare -A runs=()
	for _ in $(seq "$ROUNDS"); do
		for n in "${layouts[@]}"; do
			runs[$n]="${runs[$n]:-} $(tps "$t" "$n")"
		done
	done
	for n in "${layouts[@]}"; do
		# shellcheck disable=SC2086
		res[$t,$n]=$(bench_median ${runs[$n]})
	done
	unset runs
done
for n in "${layouts[@]}"; do
	t0=$(ms)
	q -c "SELECT count(*) FROM s$n" >/dev/null
	count_ms[$n]=$(($(ms) - t0))
done
load=$(bench_load)
commit=$(git rev-parse --short HEAD)

row() { # label unit values...
	local label=$1 unit=$2
	shift 2
	printf '| %s | %s |' "$label" "$unit"
	printf ' %s |' "$@"
	echo
}
{
	echo
	echo "## Salted tables: sequential keys, $(date -u '+%Y-%m-%d %H:%M') UTC (commit $commit)"
	echo
	echo "\`bench/salt.sh $ROWS $SECS $ROUNDS ${BUCKETS[*]}\`: release build, one Strata server, table" \
		"\`(id bigserial PRIMARY KEY, at timestamptz, body text)\` with $ROWS rows, unsalted and salted;" \
		"pgbench -M prepared, $CLIENTS clients, $SECS s per line, median of $ROUNDS rounds (layouts take turns);" \
		"2 cores shared with other engineers, load average at the end $load."
	echo
	hdr=()
	for n in "${layouts[@]}"; do if ((n)); then hdr+=("$n buckets"); else hdr+=("unsalted"); fi; done
	row measurement unit "${hdr[@]}"
	printf '| --- | --- |'
	for _ in "${layouts[@]}"; do printf ' ---: |'; done
	echo
	v=()
	for n in "${layouts[@]}"; do v+=("${load_ms[$n]}"); done
	row "load $ROWS rows (INSERT ... SELECT)" ms "${v[@]}"
	for t in "${tests[@]}"; do
		case $t in
		insert) label="insert one row, sequential key" ;;
		point) label="point lookup of a whole key" ;;
		range) label="count(*) of 100 consecutive keys" ;;
		last10) label="ORDER BY id DESC LIMIT 10" ;;
		esac
		v=()
		for n in "${layouts[@]}"; do v+=("${res[$t,$n]}"); done
		row "$label" tps "${v[@]}"
	done
	v=()
	for n in "${layouts[@]}"; do v+=("${count_ms[$n]}"); done
	row "count(*) of the table" ms "${v[@]}"
} >"$work/table.md"
cat "$work/table.md"
if [[ ${BENCH_WRITE:-0} == 1 ]]; then
	cat "$work/table.md" >>docs/benchmarks.md
fi
