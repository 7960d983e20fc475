#!/usr/bin/env bash
# run.sh — the SQL regression suite (pg_regress style): runs tests/regress/sql/*.sql
# through psql against a server and diffs the output with expected/*.out
# (generated from PostgreSQL 15 by gen_expected.sh).
#
# usage: tests/regress/run.sh [--bin PATH] [--shared] [--host H --port P] [--logs DIR] [NAME|FILE...]
#   NAME|FILE     tests to run (select_constants, sql/select_constants.sql, ...); default all
#   --bin PATH    server binary (default: the fixture's choice, build/asan/server/strata first)
#   --shared      one server for all files instead of a fresh server per file
#   --host/--port use an already running server (e.g. PostgreSQL on 55432) for every file
#   --logs DIR    where outputs and diffs of failing tests go
#                 (default $STRATA_LOGS/regress, else build/test-logs/regress)
# Each file gets a fresh server by default, so one crash or leftover cannot spill into
# the next file. Files must still drop what they create (gen_expected.sh checks it),
# so --shared and --port work too.
# A test fails when its output differs, psql fails to run it, or the server does not
# exit cleanly (crash, killed, sanitizer report). Last line: "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/common.sh"
. "$root/tests/lib/fixture.sh"

shared=0
logs=${STRATA_LOGS:+$STRATA_LOGS/regress}
args=()
while (($#)); do
	case $1 in
	--bin) export STRATA_BIN=$2; shift 2 ;;
	--shared) shared=1; shift ;;
	--host) export STRATA_TEST_HOST=$2; shift 2 ;;
	--port) export STRATA_TEST_PORT=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "regress: unknown option $1" >&2; exit 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
logs=${logs:-$root/build/test-logs/regress}
export STRATA_LOGS=${STRATA_LOGS:-$(dirname "$logs")}
mkdir -p "$logs"
names=$(regress_names "${args[@]}") || exit 2
if [[ -z $names ]]; then
	echo "regress: no tests in $REGRESS_DIR/sql"
	echo "0 passed, 0 failed"
	exit 0
fi

passed=0
failed=0
server_up=0

start_server() { # NAME
	fixture_start "regress-$1" 2>"$logs/fixture.err"
	local rc=$?
	cat "$logs/fixture.err" >&2
	if ((rc == 3)); then
		n=$(wc -w <<<"$names")
		echo "# regress: skipped, this tree has no server yet"
		echo "0 passed, 0 failed, $n skipped"
		exit 0
	fi
	((rc == 0)) && server_up=1
	return $rc
}

for name in $names; do
	t0=$(date +%s.%N)
	if ((!server_up)) && ! start_server "$name"; then
		echo "# FAIL $name: server did not start: $(grep -v 'log kept' "$logs/fixture.err" | head -1)"
		grep 'log kept' "$logs/fixture.err" | sed 's/^/#      /'
		failed=$((failed + 1))
		continue
	fi
	out=$logs/$name.out
	diff=$logs/$name.diff
	exp=$(regress_expected "$name")
	regress_psql "$FIX_HOST" "$FIX_PORT" "$REGRESS_DIR/sql/$name.sql" "$out"
	rc=$?
	why=
	if ((rc == 124 || rc == 137)); then
		why="timed out after ${REGRESS_FILE_TIMEOUT:-300} s"
	elif ((rc != 0 && rc != 3)); then
		# psql: 1 = fatal error of its own, 2 = connection lost
		why="psql exited with status $rc"
	fi
	if [[ ! -f $exp ]]; then
		why="${why:+$why; }no expected output: run tests/regress/gen_expected.sh $name"
	elif ! diff -u "$exp" "$out" >"$diff"; then
		why="${why:+$why; }output differs"
	fi
	if ((!shared)) || [[ -n $why && $rc == 2 ]]; then
		# A fresh server per file; a lost connection also ends a shared server.
		if ! fixture_stop ${why:+--keep}; then
			why="${why:+$why; }server did not exit cleanly${FIX_KEPT_LOG:+ (log: $FIX_KEPT_LOG)}"
		fi
		server_up=0
	fi
	t1=$(date +%s.%N)
	secs=$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")
	alt=
	[[ $exp == *_strata.out ]] && alt=" (deliberate difference: ${exp##*/})"
	if [[ -z $why ]]; then
		passed=$((passed + 1))
		echo "ok     $name$alt ($secs s)"
		rm -f "$out" "$diff"
	else
		failed=$((failed + 1))
		echo "# FAIL $name$alt: $why"
		[[ -s $diff ]] && echo "#      diff: $diff" && head -40 "$diff" | sed 's/^/       /'
		[[ -s $diff ]] || rm -f "$diff"
	fi
done
if ((server_up)); then
	keep=()
	((failed)) && keep=(--keep)
	if ! fixture_stop "${keep[@]}"; then
		echo "# FAIL shared server did not exit cleanly${FIX_KEPT_LOG:+ (log: $FIX_KEPT_LOG)}"
		failed=$((failed + 1))
	fi
fi
echo "$passed passed, $failed failed"
((failed == 0))
