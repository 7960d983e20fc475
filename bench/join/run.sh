#!/usr/bin/env bash
# run.sh — the join-order benchmark: a 4-table reporting join written
# big-table-first (orders, products, customers, regions), run with the
# planner's cost-based order (default) and with the written order
# (join_collapse_limit = 1) on the same server, same data, pgbench for
# SECONDS each. Prints one line per mode: tps and mean latency.
#
# usage: bench/join/run.sh [--bin PATH] [--orders N] [--seconds S] [--port P]
#   --bin      server binary (default build/release/server/strata)
#   --orders   rows of jo_ord (default 200000; customers = orders / 20)
#   --seconds  per mode (default 10)
#   --port     use a running server (PostgreSQL too) instead of starting one
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/release/server/strata
orders=200000
seconds=10
port=
while (($#)); do
	case $1 in
	--bin) bin=$2; shift 2 ;;
	--orders) orders=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	*) echo "join bench: unknown option $1" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d /tmp/strata-joinbench.XXXXXX)
server=
cleanup() {
	[[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
if [[ -z $port ]]; then
	port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$bin" --listen 127.0.0.1 --port "$port" --data-dir "$work/data" >"$work/server.log" 2>&1 &
	server=$!
	for _ in $(seq 100); do
		psql -X -h 127.0.0.1 -p "$port" -U postgres -c 'select 1' >/dev/null 2>&1 && break
		sleep 0.2
	done
fi
q() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 "$@"; }
custs=$((orders / 20))
q <<SQL
DROP TABLE IF EXISTS jb_ord, jb_prod, jb_cust, jb_region;
CREATE TABLE jb_region (id int PRIMARY KEY, name text);
CREATE TABLE jb_cust (id int PRIMARY KEY, region_id int, name text);
CREATE TABLE jb_prod (id int PRIMARY KEY, cat text, price int);
CREATE TABLE jb_ord (id int PRIMARY KEY, cust_id int, prod_id int, qty int);
INSERT INTO jb_region SELECT i, 'region' || i FROM generate_series(0, 99) i;
INSERT INTO jb_cust SELECT i, i % 100, 'c' || i FROM generate_series(1, $custs) i;
INSERT INTO jb_prod SELECT i, 'k' || (i % 20), 10 + i % 90 FROM generate_series(1, 2000) i;
INSERT INTO jb_ord SELECT i, 1 + (i * 7) % $custs, 1 + i % 2000, 1 + i % 6 FROM generate_series(1, $orders) i;
CREATE INDEX jb_ord_cust ON jb_ord (cust_id);
ANALYZE jb_region; ANALYZE jb_cust; ANALYZE jb_prod; ANALYZE jb_ord;
SQL
cat >"$work/q.sql" <<'SQL'
\set r random(0, 99)
SELECT p.cat, count(*), sum(o.qty * p.price) FROM jb_ord o JOIN jb_prod p ON p.id = o.prod_id
  JOIN jb_cust c ON c.id = o.cust_id JOIN jb_region r ON r.id = c.region_id
 WHERE r.name = 'region' || :r GROUP BY p.cat ORDER BY 3 DESC LIMIT 5;
SQL
echo "# $(date -u +%FT%TZ) orders=$orders seconds=$seconds load: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in cost written; do
	opts=
	[[ $mode == written ]] && opts='-c join_collapse_limit=1'
	out=$(PGOPTIONS="$opts" pgbench -n -h 127.0.0.1 -p "$port" -U postgres -c 1 -T "$seconds" -f "$work/q.sql" postgres 2>&1)
	tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
	lat=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out")
	echo "join4 order=$mode tps=$tps latency_ms=$lat"
done
q -c 'DROP TABLE jb_ord, jb_prod, jb_cust, jb_region;'
