#!/usr/bin/env bash
# run.sh — the "wire" suite: every tests/wire program (wire_*_test, built in
# $STRATA_BUILD/tests/wire), each against its own strata from the fixture.
# Counts are test cases; one "# wire/<program>: ..." line per program with failures.
# usage: tests/wire/run.sh [PROGRAM...]     (e.g. wire_auth_test; default all)
# Against PostgreSQL 15 instead: STRATA_BIN=$PWD/tests/lib/pg_as_strata.sh tests/wire/run.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${STRATA_BUILD:-$root/build/asan}
logs=${STRATA_LOGS:-$build/test-logs}/wire
mkdir -p "$logs"
dir=$build/tests/wire
progs=("$@")
if ((${#progs[@]} == 0)); then
	for p in "$dir"/wire_*_test; do
		[[ -x $p ]] && progs+=("$(basename "$p")")
	done
fi
if ((${#progs[@]} == 0)); then
	echo "# wire: no test programs in $dir (build first: make asan)"
	echo "0 passed, 1 failed"
	exit 1
fi
passed=0 failed=0 skipped=0
for name in "${progs[@]}"; do
	log=$logs/$name.log
	timeout --kill-after=30 "${WIRE_TEST_TIMEOUT:-600}" "$dir/$name" >"$log" 2>&1
	rc=$?
	line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	if [[ -z $line ]]; then
		echo "# wire/$name: no result (exit $rc); log: $log"
		failed=$((failed + 1))
		continue
	fi
	p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=0
	[[ $line == *skipped* ]] && s=$(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")
	if ((rc != 0 && f == 0)); then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if ((f > 0)); then
		echo "# wire/$name: $f failed; log: $log"
		grep -E '^# FAIL' "$log" | head -5
	fi
done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
