#!/usr/bin/env bash
# run.sh — crash in the middle of DDL: ALTER TABLE ADD/DROP PRIMARY KEY (re-keying
# every row into new storage), ADD COLUMN with a default (a value for every row),
# ALTER COLUMN TYPE, CREATE TABLE AS + ADD PRIMARY KEY in one transaction,
# CREATE/DROP INDEX (a backfill ingested as sorted files), a COPY into a table
# created in the same transaction (rows written straight into its storage) and
# RENAME run against a table of known contents while the server is SIGKILLed at a
# random moment; after each restart the table must hold the old schema or the new
# one, never a mix: all rows exactly once, a new column filled in every row or
# absent, an acknowledged DDL always present.
#
# usage: tests/ddl_crash/run.sh [--cycles N] [--rows N] [--bin PATH] [--seed N]
#   default 6 cycles (STRATA_LONG=1: 100) over 20000 rows.
# Last line: "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/fixture.sh"

cycles=6
[[ ${STRATA_LONG:-0} == 1 ]] && cycles=100
rows=20000
seed=$RANDOM
while (($#)); do
	case $1 in
	--cycles) cycles=$2; shift 2 ;;
	--rows) rows=$2; shift 2 ;;
	--bin) export STRATA_BIN=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "ddl_crash: unknown argument $1" >&2; exit 2 ;;
	esac
done
RANDOM=$seed
logs=${STRATA_LOGS:-$root/build/test-logs}/ddl_crash
mkdir -p "$logs"
bin=$(fixture_bin) || { echo "# ddl_crash: no server binary"; echo "0 passed, 1 failed"; exit 1; }
dir=$(mktemp -d "${STRATA_TMP:-/tmp}/strata-ddl-crash.XXXXXX")
log=$logs/server.log
: >"$log"
port=
pid=

start() {
	port=$(fixture_free_port)
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$bin" --listen 127.0.0.1 --port "$port" --data-dir "$dir/data" >>"$log" 2>&1 </dev/null &
	pid=$!
	fixture_wait_port 127.0.0.1 "$port" "$pid" 60
}

q() { psql -X -q -A -t -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "$1" 2>&1; }

fail=0
note() { echo "# $*"; }
bad() {
	note "FAIL (seed $seed, cycle $cycle): $*"
	note "  DDL: $sql (client status $acked): $(tr '\n' ' ' <"$dir/ddl.out" 2>/dev/null)"
	fail=$((fail + 1))
}

if ! start; then
	echo "# ddl_crash: server did not start"; echo "0 passed, 1 failed"; exit 1
fi
q "CREATE TABLE crash_t (id int NOT NULL, v int, pad text)" >/dev/null
q "INSERT INTO crash_t SELECT g, g % 97, repeat('x', 20) FROM generate_series(1, $rows) g" >/dev/null
# Into sorted files, as pgbench -i's VACUUM does: ADD PRIMARY KEY of a table of
# 64 blocks or more (20000 rows are ~150) re-keys two halves on two threads.
q "VACUUM crash_t" >/dev/null
expect_sum=$(q "SELECT sum(v) FROM crash_t")

# The model of what committed: pk (0/1), col_c (0/1), vtype (integer/bigint).
pk=0
idx=0
col_c=0
vtype=integer
table=crash_t
passed=0
for ((cycle = 1; cycle <= cycles; cycle++)); do
	op=$((RANDOM % 7))
	case $op in
	0) if ((pk)); then sql="ALTER TABLE $table DROP CONSTRAINT ${table}_pkey"; else sql="ALTER TABLE $table ADD PRIMARY KEY (id)"; fi ;;
	1) if ((col_c)); then sql="ALTER TABLE $table DROP COLUMN c"; else sql="ALTER TABLE $table ADD COLUMN c int DEFAULT 7"; fi ;;
	2) if [[ $vtype == integer ]]; then sql="ALTER TABLE $table ALTER COLUMN v TYPE bigint"; else sql="ALTER TABLE $table ALTER COLUMN v TYPE integer"; fi ;;
	3) sql="BEGIN; CREATE TABLE crash_u AS SELECT * FROM $table; ALTER TABLE crash_u ADD PRIMARY KEY (id); COMMIT" ;;
	4) if [[ $table == crash_t ]]; then sql="ALTER TABLE crash_t RENAME TO crash_r"; else sql="ALTER TABLE crash_r RENAME TO crash_t"; fi ;;
	5) if ((idx)); then sql="DROP INDEX crash_i"; else sql="CREATE INDEX crash_i ON $table (v, pad)"; fi ;;
	6) sql="BEGIN; CREATE TABLE crash_c (id int, v int); COPY crash_c FROM STDIN; COMMIT" ;;
	esac
	out=$dir/ddl.out
	if ((op == 6)); then
		{
			echo "BEGIN;"
			echo "CREATE TABLE crash_c (id int, v int);"
			echo "COPY crash_c FROM STDIN;"
			seq 1 "$rows" | awk '{print $1 "\t" $1 % 97}'
			echo '\.'
			echo "COMMIT;"
		} >"$dir/copy.sql"
		psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -f "$dir/copy.sql" >"$out" 2>&1 &
	else
		psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "$sql" >"$out" 2>&1 &
	fi
	client=$!
	# Kill somewhere in the DDL (or just after it, sometimes).
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	wait "$client"
	acked=$?
	if ! start; then
		bad "server did not restart after SIGKILL (log: $log)"
		break
	fi
	# Which table name exists now (RENAME is all or nothing too).
	t=$(q "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relname IN ('crash_t', 'crash_r')")
	if [[ $t != crash_t && $t != crash_r ]]; then
		bad "expected exactly one of crash_t/crash_r, found: $t"
		break
	fi
	if ((op == 4 && acked == 0)) && [[ $t == "$table" ]]; then
		bad "acknowledged RENAME is missing"
	fi
	table=$t
	n=$(q "SELECT count(*) FROM $table")
	nd=$(q "SELECT count(DISTINCT id) FROM $table")
	sum=$(q "SELECT sum(v) FROM $table")
	[[ $n == "$rows" && $nd == "$rows" ]] || bad "$table has $n rows ($nd distinct ids), expected $rows"
	[[ $sum == "$expect_sum" ]] || bad "sum(v) is $sum, expected $expect_sum"
	# Primary key present? A duplicate id is refused exactly when it is.
	dup=$(q "BEGIN; INSERT INTO $table (id, v) VALUES (1, 0); ROLLBACK")
	if [[ $dup == *"duplicate key"* ]]; then newpk=1; else newpk=0; fi
	if ((op == 0 && acked == 0 && newpk == pk)); then bad "acknowledged primary key change is missing"; fi
	if ((op != 0 && newpk != pk)); then bad "primary key changed by another operation"; fi
	pk=$newpk
	# Column c: absent, or 7 in every row.
	filled=$(q "SELECT count(*) FROM $table WHERE c = 7")
	if [[ $filled == *'column "c" does not exist'* ]]; then
		newc=0
	elif [[ $filled =~ ^[0-9]+$ ]]; then
		[[ $filled == "$rows" ]] || bad "column c is in only $filled of $rows rows"
		newc=1
	else
		bad "probing column c: $filled"
		newc=$col_c
	fi
	if ((op == 1 && acked == 0 && newc == col_c)); then bad "acknowledged ADD/DROP COLUMN is missing"; fi
	col_c=$newc
	newtype=$(q "SELECT pg_typeof(v) FROM $table LIMIT 1")
	if ((op == 2 && acked == 0)) && [[ $newtype == "$vtype" ]]; then bad "acknowledged ALTER TYPE is missing"; fi
	vtype=$newtype
	# CREATE TABLE AS + ADD PRIMARY KEY in one transaction: all or nothing.
	u=$(q "SELECT count(*) FROM pg_class WHERE relname = 'crash_u'")
	if [[ $u == 1 ]]; then
		un=$(q "SELECT count(*) FROM crash_u")
		udup=$(q "BEGIN; INSERT INTO crash_u (id, v) VALUES (1, 0); ROLLBACK")
		[[ $un == "$rows" ]] || bad "crash_u has $un rows, expected $rows"
		[[ $udup == *"duplicate key"* ]] || bad "crash_u exists without its primary key"
		q "DROP TABLE crash_u" >/dev/null
	elif ((op == 3 && acked == 0)); then
		bad "acknowledged CREATE TABLE AS transaction is missing"
	fi
	# The index: absent, or complete (no missing, stale or mismatched entry).
	iv=$(q "SELECT rows, entries, missing, stale, mismatched FROM strata_verify_index('crash_i')")
	if [[ $iv == *"does not exist"* ]]; then
		newidx=0
	elif [[ $iv == "$rows|$rows|0|0|0" ]]; then
		newidx=1
	else
		bad "index crash_i after restart: $iv (rows|entries|missing|stale|mismatched)"
		newidx=$idx
	fi
	if ((op == 5 && acked == 0 && newidx == idx)); then bad "acknowledged CREATE/DROP INDEX is missing"; fi
	if ((op != 5 && newidx != idx)); then bad "index changed by another operation"; fi
	idx=$newidx
	# COPY into a table created in the same transaction: all or nothing.
	cc=$(q "SELECT count(*), count(DISTINCT id), sum(v) FROM crash_c")
	if [[ $cc == *"does not exist"* ]]; then
		((op == 6 && acked == 0)) && bad "acknowledged CREATE TABLE + COPY transaction is missing"
	else
		[[ $cc == "$rows|$rows|$expect_sum" ]] || bad "crash_c after restart: $cc, expected $rows|$rows|$expect_sum"
		q "DROP TABLE crash_c" >/dev/null
	fi
	note "cycle $cycle: ${sql:0:60} -> $([[ $acked == 0 ]] && echo acknowledged || echo killed); pk=$pk idx=$idx c=$col_c v=$vtype table=$table"
	passed=$((passed + 1))
done
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if fixture_sanitizer_report "$log"; then
	bad "sanitizer report in $log"
fi
rm -rf "$dir"
echo "$((passed - fail < 0 ? 0 : passed - fail)) passed, $fail failed"
((fail == 0))
