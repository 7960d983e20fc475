#!/usr/bin/env bash
# entity_groups.sh — the entity-group benchmark of issue 10, side by side:
# fetching an order with its lines (parent + children) and the order alone,
# on N orders with L lines each:
#   Strata, lines interleaved in orders     (the entity-group layout)
#   Strata, plain tables                    (same schema, no interleaving)
#   PostgreSQL 15, plain tables, lines keyed (order_id, line_no) = an index on the foreign key
# Each line is pgbench -M prepared, C clients, S seconds; the three servers
# take turns for R rounds and the median tps is reported, so machine drift
# hits all alike. Appends the table to docs/benchmarks.md with BENCH_WRITE=1.
#
# Usage: bench/entity_groups.sh [ORDERS [LINES [SECONDS [ROUNDS]]]]   (default 100000 50 10 3)
set -euo pipefail
cd "$(dirname "$0")/.."
ORDERS=${1:-100000}
LINES=${2:-50}
SECS=${3:-10}
ROUNDS=${4:-3}
CLIENTS=${CLIENTS:-2}
PGBIN=/usr/lib/postgresql/15/bin

scripts/deps.sh bench >/dev/null
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j2 --target strata >/dev/null

work=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
chmod 755 "$work"
BENCH_LOG=$work/strata.log
. bench/lib.sh
pport=$(bench_free_port)
mkdir -p "$work/pg"
chown postgres "$work/pg"
runuser -u postgres -- "$PGBIN/initdb" -D "$work/pg/data" -A trust -U postgres >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
	-o "-p $pport -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
cleanup() {
	bench_stop
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
bench_start "$work/strata" build/release/server/strata
sport=$port
q() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres; }
schema() { # $1 prefix, $2 WITH clause of the lines table
	cat <<-EOF
		CREATE TABLE ${1}orders (id int PRIMARY KEY, customer text, placed date, total numeric(10,2));
		CREATE TABLE ${1}lines (order_id int, line_no int, item text, qty int, price numeric(8,2),
		                        PRIMARY KEY (order_id, line_no)) $2;
		INSERT INTO ${1}orders SELECT i, 'cust' || (i % 1000), date '2026-01-01' + i % 300, i % 997
		  FROM generate_series(1, $ORDERS) i;
		INSERT INTO ${1}lines SELECT o, l, 'item' || (o * l % 100), l, (o + l) % 100
		  FROM generate_series(1, $ORDERS) o, generate_series(1, $LINES) l;
	EOF
}
echo "entity_groups: loading $ORDERS orders x $LINES lines into Strata (interleaved and plain) and PostgreSQL"
schema i "WITH (interleave_in_parent = 'iorders')" | q "$sport"
schema p "" | q "$sport"
{ schema p ""; echo "ANALYZE;"; } | q "$pport"

mk() { # $1 name, $2 SQL with :id
	printf '\\set id random(1, %d)\n%s\n' "$ORDERS" "$2" >"$work/$1.sql"
}
mk fetch_i "SELECT o.id, o.customer, o.total, l.line_no, l.item, l.qty, l.price FROM iorders o JOIN ilines l ON l.order_id = o.id WHERE o.id = :id;"
mk fetch_p "SELECT o.id, o.customer, o.total, l.line_no, l.item, l.qty, l.price FROM porders o JOIN plines l ON l.order_id = o.id WHERE o.id = :id;"
mk parent_i "SELECT * FROM iorders WHERE id = :id;"
mk parent_p "SELECT * FROM porders WHERE id = :id;"
psql -X -h 127.0.0.1 -p "$sport" -U postgres -c "EXPLAIN SELECT o.*, l.* FROM iorders o JOIN ilines l ON l.order_id = o.id WHERE o.id = 1"

tps() { # $1 port, $2 script
	pgbench -n -h 127.0.0.1 -p "$1" -U postgres -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -f "$work/$2.sql" postgres \
		2>/dev/null | awk '/^tps/ {print $3}'
}
declare -A res
for r in $(seq "$ROUNDS"); do
	for w in fetch parent; do
		res[$w,ilv]+="$(tps "$sport" ${w}_i) "
		res[$w,plain]+="$(tps "$sport" ${w}_p) "
		res[$w,pg]+="$(tps "$pport" ${w}_p) "
	done
	echo "entity_groups: round $r done"
done
out=$work/table.md
{
	echo
	echo "## Entity groups, $(date -u '+%Y-%m-%d %H:%M UTC') (commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
	echo
	echo "\`bench/entity_groups.sh $ORDERS $LINES $SECS $ROUNDS\`: $ORDERS orders x $LINES lines, pgbench -M prepared,"
	echo "$CLIENTS clients, $SECS s per line, median of $ROUNDS interleaved rounds; $(nproc) cores, load at end $(bench_load)."
	echo
	echo "| workload | Strata interleaved | Strata plain | PostgreSQL 15 | interleaved / PostgreSQL | interleaved / plain |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	# shellcheck disable=SC2086 # the rounds' numbers, one word each
	for w in fetch parent; do
		a=$(bench_median ${res[$w,ilv]})
		b=$(bench_median ${res[$w,plain]})
		c=$(bench_median ${res[$w,pg]})
		label=$([[ $w == fetch ]] && echo "order + $LINES lines (tps)" || echo "order alone (tps)")
		printf '| %s | %.0f | %.0f | %.0f | %.2f | %.2f |\n' "$label" "$a" "$b" "$c" \
			"$(echo "$a / $c" | awk '{printf "%.4f", $1 / $3}')" "$(echo "$a / $b" | awk '{printf "%.4f", $1 / $3}')"
	done
} >"$out"
cat "$out"
if [[ ${BENCH_WRITE:-0} == 1 ]]; then
	cat "$out" >>docs/benchmarks.md
	echo "entity_groups: appended to docs/benchmarks.md"
fi
