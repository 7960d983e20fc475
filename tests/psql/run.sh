#!/usr/bin/env bash
# run.sh — the psql compatibility suite: runs each case in tests/psql/cases/*.sql
# (schema statements and psql meta-commands: \d, \d+, \dt, \di, \dv, \ds, \dn, \l,
# \du, \df, \dT, \x, \timing, \copy, \conninfo, \watch ...) through psql 15 against
# a fresh strata server and diffs the output with expected/NAME.out, which
# gen_expected.sh made by running the same case against PostgreSQL 15. CI needs no
# PostgreSQL: the expected files are checked in.
#
# usage: tests/psql/run.sh [--bin PATH] [--host H --port P] [--logs DIR] [NAME|FILE...]
#   --host/--port  use an already running server (e.g. PostgreSQL 15) for every case
#   --logs DIR     outputs and diffs of failing cases (default $STRATA_LOGS/psql)
# Cases listed in xfail.list ("NAME  reason") are known to differ because of engine
# features other areas are still building; they report "xfail" (counted as skipped)
# and fail as XPASS once they match, so the entry gets removed.
# Last line: "N passed, N failed[, N skipped]".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/common.sh"
. "$root/tests/lib/fixture.sh"

logs=${STRATA_LOGS:+$STRATA_LOGS/psql}
args=()
while (($#)); do
	case $1 in
	--bin) export STRATA_BIN=$2; shift 2 ;;
	--host) export STRATA_TEST_HOST=$2; shift 2 ;;
	--port) export STRATA_TEST_PORT=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	-*) echo "psql: unknown option $1" >&2; exit 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
logs=${logs:-$root/build/test-logs/psql}
export STRATA_LOGS=${STRATA_LOGS:-$(dirname "$logs")}
mkdir -p "$logs"
names=$(psqlcase_names "${args[@]}") || exit 2
command -v psql >/dev/null || { echo "# psql: no psql client (scripts/deps.sh installs postgresql-client-15)"; exit 1; }

passed=0 failed=0 skipped=0
for name in $names; do
	t0=$(date +%s.%N)
	fixture_start "psql-$name" 2>"$logs/fixture.err"
	rc=$?
	if ((rc == 3)); then
		echo "# psql: skipped, this tree has no server yet"
		echo "0 passed, 0 failed, $(wc -w <<<"$names") skipped"
		exit 0
	fi
	out=$logs/$name.out
	diff=$logs/$name.diff
	exp=$here/expected/$name.out
	why=
	if ((rc != 0)); then
		why="server did not start: $(grep -v 'log kept' "$logs/fixture.err" | head -1)"
	else
		psqlcase_run "$FIX_HOST" "$FIX_PORT" "$here/cases/$name.sql" "$out"
		rc=$?
		if ((rc == 124 || rc == 137)); then
			why="timed out"
		elif ((rc != 0 && rc != 3)); then
			why="psql exited with status $rc"
		fi
		if [[ ! -f $exp ]]; then
			why="${why:+$why; }no expected output: run tests/psql/gen_expected.sh $name"
		elif ! diff -u "$exp" "$out" >"$diff"; then
			why="${why:+$why; }output differs"
		fi
		if ! fixture_stop ${why:+--keep}; then
			why="${why:+$why; }server did not exit cleanly${FIX_KEPT_LOG:+ (log: $FIX_KEPT_LOG)}"
		fi
	fi
	secs=$(printf '%.2f' "$(echo "$(date +%s.%N) - $t0" | bc)")
	xf=$(psqlcase_xfail "$name")
	if [[ -z $why && -n $xf ]]; then
		failed=$((failed + 1))
		echo "# XPASS $name: listed in xfail.list ($xf) but now matches PostgreSQL: remove the entry"
	elif [[ -z $why ]]; then
		passed=$((passed + 1))
		echo "ok     $name ($secs s)"
		rm -f "$out" "$diff"
	elif [[ -n $xf && $why == "output differs" ]]; then
		skipped=$((skipped + 1))
		echo "# xfail $name: $xf (diff: $diff)"
	else
		failed=$((failed + 1))
		echo "# FAIL $name: $why"
		[[ -s $diff ]] && echo "#      diff: $diff" && head -40 "$diff" | sed 's/^/       /'
		[[ -s $diff ]] || rm -f "$diff"
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
