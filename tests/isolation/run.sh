#!/usr/bin/env bash
# run.sh — the isolation suite: runs tests/isolation/specs/*.spec through
# isolation_tester (several sessions, steps interleaved in a fixed order) and
# diffs each transcript with expected/NAME.out, generated from PostgreSQL 15
# by gen_expected.sh.
#
# usage: tests/isolation/run.sh [--bin PATH] [--host H --port P] [--logs DIR]
#                               [--wait-ms MS] [--pending] [NAME|FILE...]
#   NAME|FILE     specs to run (lost-update, specs/lost-update.spec, ...); default all
#   --bin PATH    server binary (default: the fixture's choice, build/asan first)
#   --host/--port use an already running server (e.g. PostgreSQL on 55432)
#   --logs DIR    where transcripts and diffs of failing specs go
#                 (default $STRATA_LOGS/isolation, else build/test-logs/isolation)
#   --wait-ms MS  a step still running after MS ms whose session waits for a lock
#                 (pg_locks) counts as waiting (default 500)
#   --pending     also run pending/*.spec (known engine bugs, KNOWN_ISSUES.md):
#                 reported, never counted as failures; one that now passes says so
# expected/NAME_strata.out, where it exists, replaces expected/NAME.out: a
# deliberate difference from PostgreSQL (docs/compatibility.md), checked by hand;
# only when the server is Strata (its version() says so).
# Each spec gets a fresh server. A spec whose transcript differs is run once
# more with twice the wait threshold (a loaded machine); a step past the
# threshold that waits for no lock is waited for; "passed on retry" is printed.
# Specs in pending/ count as skipped. Last line: "N passed, N failed, N skipped".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/common.sh"
. "$root/tests/lib/fixture.sh"

logs=${STRATA_LOGS:+$STRATA_LOGS/isolation}
wait_ms=${ISOLATION_WAIT_MS:-500}
pending=0
args=()
while (($#)); do
	case $1 in
	--bin) export STRATA_BIN=$2; shift 2 ;;
	--host) export STRATA_TEST_HOST=$2; shift 2 ;;
	--port) export STRATA_TEST_PORT=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	--wait-ms) wait_ms=$2; shift 2 ;;
	--pending) pending=1; shift ;;
	-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
	-*) echo "isolation: unknown option $1" >&2; exit 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
logs=${logs:-$root/build/test-logs/isolation}
export STRATA_LOGS=${STRATA_LOGS:-$(dirname "$logs")}
mkdir -p "$logs"
tester=$(iso_tester) || { echo "0 passed, 1 failed"; exit 1; }

if ((${#args[@]})); then
	names=$(iso_names specs "${args[@]}") || exit 2
	pending_names=
else
	names=$(iso_names specs)
	pending_names=$(iso_names pending)
fi
npending=$(wc -w <<<"$pending_names")

passed=0
failed=0
skipped=0

# run_spec NAME: 0 if the transcript matches; sets why.
run_spec() {
	local name=$1 spec out diff rc w
	spec=$(iso_spec_path "$name")
	exp=$(iso_compare_to "$name")
	out=$logs/$name.out
	diff=$logs/$name.diff
	why=
	retried=0
	fixture_start "isolation-$name" 2>"$logs/fixture.err"
	rc=$?
	cat "$logs/fixture.err" >&2
	if ((rc == 3)); then
		why=noserver
		return 1
	elif ((rc != 0)); then
		why="server did not start: $(grep -v 'log kept' "$logs/fixture.err" | head -1)"
		return 1
	fi
	# A deliberate difference is Strata's: against PostgreSQL compare with its own output.
	if ! psql -X -A -t -h "$FIX_HOST" -p "$FIX_PORT" -U postgres -d postgres -c 'SELECT version()' 2>/dev/null |
		grep -q Strata; then
		exp=$(iso_expected "$name")
	fi
	for w in "$wait_ms" $((wait_ms * 2)); do
		iso_run "$tester" "$FIX_HOST" "$FIX_PORT" "$spec" "$out" "$w"
		rc=$?
		why=
		if ((rc == 124 || rc == 137)); then
			why="timed out after ${ISOLATION_SPEC_TIMEOUT:-180} s"
		elif ((rc != 0)); then
			why="isolation_tester exited with status $rc"
		fi
		if [[ ! -f $exp ]]; then
			why="${why:+$why; }no expected output: run tests/isolation/gen_expected.sh $name"
		elif ! diff -u "$exp" "$out" >"$diff"; then
			why="${why:+$why; }transcript differs"
		fi
		# Retry only a differing transcript from a server that is still up.
		[[ -z $why || $why != "transcript differs" ]] && break
		[[ -n ${FIX_PID:-} ]] && ! kill -0 "$FIX_PID" 2>/dev/null && break
		retried=1
	done
	if ! fixture_stop ${why:+--keep}; then
		why="${why:+$why; }server did not exit cleanly${FIX_KEPT_LOG:+ (log: $FIX_KEPT_LOG)}"
	fi
	[[ -z $why ]]
}

for name in $names; do
	t0=$(date +%s.%N)
	run_spec "$name"
	ok=$?
	if [[ $why == noserver ]]; then
		n=$(($(wc -w <<<"$names") + npending))
		echo "# isolation: skipped, this tree has no server yet"
		echo "0 passed, 0 failed, $n skipped"
		exit 0
	fi
	secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
	if ((ok == 0)); then
		passed=$((passed + 1))
		if ((retried)); then
			echo "# ok $name passed on retry with --wait-ms $((wait_ms * 2)) (machine loaded?)"
		else
			alt=
			[[ $exp == *_strata.out ]] && alt=" (deliberate difference: ${name}_strata.out)"
			echo "ok     $name$alt ($secs s)"
		fi
		rm -f "$logs/$name.out" "$logs/$name.diff"
	else
		failed=$((failed + 1))
		echo "# FAIL $name: $why ($secs s)"
		if [[ -s $logs/$name.diff ]]; then
			echo "#      diff: $logs/$name.diff"
			head -40 "$logs/$name.diff" | sed 's/^/       /'
		else
			rm -f "$logs/$name.diff"
		fi
	fi
done

for name in $pending_names; do
	if ((!pending)); then
		skipped=$((skipped + 1))
		continue
	fi
	run_spec "$name"
	if (($? == 0)); then
		echo "# pending $name now passes: move it to specs/ (and its .out to expected/), update KNOWN_ISSUES.md"
	else
		echo "# pending $name still differs ($why): $logs/$name.diff"
	fi
	skipped=$((skipped + 1))
done
((npending > 0 && !pending)) && echo "# $npending pending spec(s) not run (known engine bugs, tests/isolation/KNOWN_ISSUES.md)"
sk=
((skipped > 0)) && sk=", $skipped skipped"
echo "$passed passed, $failed failed$sk"
((failed == 0))
