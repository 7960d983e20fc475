#!/usr/bin/env bash
# run.sh — COPY FROM through the parse pipeline (sql/copy_par.c: chunks of lines parsed
# on worker threads, loaded in line order) against the serial loop (strata.copy_workers
# = 0): 300k rows in csv and in text format, with quoted fields holding newlines,
# delimiters and quotes (csv) or escapes (text) everywhere, so chunk ends fall next to
# them; into a table with a primary key (rows in scrambled key order: the sorted path),
# one without (the bulk batch) and one created in the same transaction (the direct
# path, as pgbench -i). Every load with 0, 1 and 3 workers gives the same table.
# Then a cancel (pg_cancel_backend) and a client killed in the middle of a big COPY:
# the statement fails with nothing loaded, the session (or server) lives on, and the
# workers are gone (the server's thread count is back to where it was). First, the
# memory of loads stays bounded: short lines into a wide table (chunks count their row
# arrays) and lines of 12 MB (few such chunks in flight).
#
# usage: tests/copypar/run.sh        Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/fixture.sh"
# A small ASan quarantine: the memory checks below read the server's peak RSS, which
# freed memory held in a 256 MB quarantine would blur (no effect on a release build).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}:quarantine_size_mb=16
fixture_start copypar || exit 1
work=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
trap 'fixture_stop; rm -rf "$work"' EXIT
pass=0 fail=0
q() { psql -X -q -A -t -h "$FIX_HOST" -p "$FIX_PORT" -U postgres postgres "$@" 2>&1; }
check() { # NAME CONDITION-RESULT DETAIL
	if [[ $2 = 0 ]]; then
		pass=$((pass + 1)); echo "ok     $1"
	else
		fail=$((fail + 1)); echo "FAIL   $1: $3"
	fi
}
# Memory: a chunk's row array counts toward its size. One column of a 100-column
# table from 300k short lines: chunks by text alone held 64k lines each, their row
# arrays (a datum per table column) ~100 MB apiece, read ahead and parsed at once
# (the serial loop holds one row). The CHECK fails on line 1, so nothing is loaded:
# the server's peak RSS grows by what the pipeline read ahead and parsed. First in
# the suite, while the peak is still the idle server's.
if [[ -n $FIX_PID ]]; then
	hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$FIX_PID/status"; }
	cols=$(seq -f 'c%g int' 1 100 | paste -sd,)
	q -c "CREATE TABLE wide ($cols, CHECK (c1 > 1))" >/dev/null
	awk 'BEGIN { for (i = 0; i < 300000; i++) print 1 }' >"$work/ones.txt"
	h0=$(hwm)
	out=$(q -c "SET strata.copy_workers = 2" -c "\\copy wide (c1) FROM '$work/ones.txt'")
	h1=$(hwm)
	[[ $out = *'violates check constraint'*'line 1:'* ]]
	check short-lines-first-error $? "$out"
	((h1 - h0 < 48 * 1024))
	check short-lines-bounded-memory $? "peak RSS grew by $(((h1 - h0) / 1024)) MB (from $((h0 / 1024)) MB)"
	q -c "ALTER TABLE wide DROP CONSTRAINT wide_c1_check" >/dev/null
	q -c "SET strata.copy_workers = 2" -c "\\copy wide (c1) FROM '$work/ones.txt'" >/dev/null
	[[ $(q -c "SELECT count(*), sum(c1), count(c2) FROM wide") = "300000|300000|0" ]]
	check short-lines-loaded $? "$(q -c 'SELECT count(*), sum(c1), count(c2) FROM wide')"
	q -c "DROP TABLE wide" >/dev/null
	# (A fresh server: the peak above would hide the one below.)
	fixture_stop
	check first-server-clean-exit $? "see the kept log above"
	fixture_start copypar || exit 1
	# Long lines: a chunk holds at least one, so each slot held a 12 MB line and its
	# values, kept until the slot came round again (+620 MB over the serial load's peak
	# here before rev9; now two chunks in flight once their text is over its bound, and a
	# consumed chunk's values freed at once). The serial load first: its peak is the
	# baseline.
	python3 -c "import sys
for i in range(12): sys.stdout.write(f'{i}\t' + chr(97 + i) * (12 << 20) + '\n')" >"$work/long.txt"
	q -c "CREATE TABLE long (id int, v text)" >/dev/null
	for w in 0 2; do
		h0=$(hwm)
		q -c "SET strata.copy_workers = $w" -c "\\copy long FROM '$work/long.txt'" >/dev/null
		grow[w]=$((($(hwm) - h0) / 1024))
	done
	[[ $(q -c "SELECT count(*), sum(length(v)), count(DISTINCT md5(v)) FROM long") = "24|301989888|12" ]]
	check long-lines-loaded $? "$(q -c 'SELECT count(*), sum(length(v)), count(DISTINCT md5(v)) FROM long')"
	((grow[2] < 128))
	check long-lines-bounded-memory $? "peak RSS: serial load +${grow[0]} MB, then 2 workers +${grow[2]} MB more"
	q -c "DROP TABLE long" >/dev/null
	rm -f "$work/long.txt"
fi

N=100000
# gen(FORMAT): N rows (id, g, v) in scrambled id order; v of random length made of
# letters, spaces, and in about a third of the rows newlines, the delimiter and quotes
# (csv: quoted, quotes doubled; text: escaped), and NULL in every 50th row.
gen() {
	awk -v n=$N -v fmt="$1" 'BEGIN {
		srand(11); q = sprintf("%c", 34); bs = sprintf("%c", 92); tab = sprintf("%c", 9); nl = sprintf("%c", 10)
		for (i = 0; i < n; i++) {
			id = (i * 7919) % n + 1; len = int(rand() * 240); special = rand() < 0.35; v = ""
			for (k = 0; k < len; k++) {
				r = rand()
				if (special && r < 0.02) c = nl; else if (special && r < 0.03) c = ","; else if (special && r < 0.04) c = tab
				else if (special && r < 0.06) c = q; else if (special && r < 0.07) c = bs
				else if (r < 0.2) c = " "; else c = sprintf("%c", 97 + int(rand() * 26))
				# the field as the format writes it: csv doubles quotes, text escapes
				if (fmt == "csv") v = v (c == q ? q q : c)
				else v = v (c == nl ? bs "n" : c == tab ? bs "t" : c == bs ? bs bs : c)
			}
			if (fmt == "csv")
				print id "," id % 13 "," (i % 50 == 0 ? "" : q v q)
			else
				print id tab id % 13 tab (i % 50 == 0 ? bs "N" : v)
		}
	}'
}
gen csv >"$work/rows.csv"
gen text >"$work/rows.txt"
digest() { q -c "SELECT count(*), md5(string_agg(id || ':' || g || ':' || coalesce(v, '<null>'), '|' ORDER BY id)) FROM $1"; }

# load(TABLE-KIND, FORMAT, WORKERS): loads into a fresh table, prints its digest.
load() {
	local kind=$1 fmt=$2 w=$3 opts=""
	[[ $fmt = csv ]] && opts="WITH (FORMAT csv)"
	local file=$work/rows.$([[ $fmt = csv ]] && echo csv || echo txt)
	q -c "DROP TABLE IF EXISTS t" >/dev/null
	case $kind in
	pk) q -c "CREATE TABLE t (id int PRIMARY KEY, g int NOT NULL, v text)" >/dev/null
		q -c "SET strata.copy_workers = $w" -c "\\copy t FROM '$file' $opts" ;;
	nopk) q -c "CREATE TABLE t (id int NOT NULL, g int, v text)" >/dev/null
		q -c "SET strata.copy_workers = $w" -c "\\copy t FROM '$file' $opts" ;;
	direct) q -c "SET strata.copy_workers = $w" -c "BEGIN" -c "CREATE TABLE t (id int NOT NULL, g int, v text)" \
		-c "\\copy t FROM '$file' $opts" -c "COMMIT" ;;
	esac
	digest t
}
for kind in pk nopk direct; do
	for fmt in csv text; do
		want=$(load "$kind" "$fmt" 0)
		for w in 1 3; do
			got=$(load "$kind" "$fmt" "$w")
			[[ $got = "$want" && $want = "$N|"* ]]
			check "$kind-$fmt-workers-$w" $? "serial: $want, $w workers: $got"
		done
	done
done
# The csv and text files hold the same rows.
[[ $(load pk csv 1) = "$(load pk text 1)" ]]
check csv-equals-text $? "$(load pk csv 1) / $(load pk text 1)"

threads() { ls "/proc/$FIX_PID/task" | wc -l; }
# settle: waits until the server has at most $1 threads (background threads come and go).
settle() {
	local i
	for ((i = 0; i < 50; i++)); do
		(($(threads) <= $1)) && return 0
		sleep 0.2
	done
	return 1
}
# copy_running: waits (up to 60 s) until a COPY is active and the server has more
# threads than $base (its workers run); pid = its backend.
copy_running() {
	local i
	pid=
	for ((i = 0; i < 600; i++)); do
		pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY %' AND state = 'active' AND pid <> pg_backend_pid()")
		[[ -n $pid ]] && (($(threads) > base)) && return 0
		sleep 0.1
	done
	return 1
}
awk 'BEGIN { for (i = 1; i <= 4000000; i++) print (i * 7919) % 4000000 "," i % 13 ",some text " i }' >"$work/big.csv"
q -c "DROP TABLE IF EXISTS t" -c "CREATE TABLE t (id int PRIMARY KEY, g int NOT NULL, v text)" >/dev/null
if [[ -n $FIX_PID ]]; then
	base=$(threads)
	# A cancel in the middle of the load.
	q -c "SET strata.copy_workers = 2" -c "\\copy t FROM '$work/big.csv' WITH (FORMAT csv)" >"$work/cancel.out" &
	cpid=$!
	copy_running
	peak=$(threads)
	q -c "SELECT pg_cancel_backend($pid)" >/dev/null
	wait $cpid
	grep -q "canceling statement due to user request" "$work/cancel.out"
	check cancel-mid-copy $? "$(cat "$work/cancel.out") (backend $pid)"
	((peak > base))
	check cancel-workers-were-running $? "threads before $base, during $peak"
	settle "$base"
	check cancel-workers-gone $? "threads before $base, now $(threads)"
	[[ $(q -c "SELECT count(*) FROM t") = 0 ]]
	check cancel-nothing-loaded $? "$(q -c 'SELECT count(*) FROM t')"

	# The client killed in the middle of the load.
	q -c "TRUNCATE t" >/dev/null
	psql -X -q -h "$FIX_HOST" -p "$FIX_PORT" -U postgres -c "SET strata.copy_workers = 2" \
		-c "\\copy t FROM '$work/big.csv' WITH (FORMAT csv)" postgres >/dev/null 2>&1 &
	cpid=$!
	copy_running
	kill -9 $cpid
	wait $cpid 2>/dev/null
	settle "$base"
	check disconnect-workers-gone $? "threads before $base, now $(threads)"
	[[ $(q -c "SELECT count(*) FROM t") = 0 ]]
	check disconnect-nothing-loaded $? "$(q -c 'SELECT count(*) FROM t')"
fi
q -c "DROP TABLE t" >/dev/null
echo "$pass passed, $fail failed"
((fail == 0))
