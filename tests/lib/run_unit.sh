#!/usr/bin/env bash
# run_unit.sh — the "unit" suite: every cmocka test registered with ctest in the
# build directory, run per label (one label per module, see strata_unit_tests in
# the top CMakeLists.txt), with one "# unit/<label>: ..." line each.
# usage: tests/lib/run_unit.sh [BUILD_DIR]   (default $STRATA_BUILD, else build/asan)
# ctest output per label goes to $STRATA_LOGS/unit/<label>.log. Last line:
# "N passed, N failed" counting test executables.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${STRATA_BUILD:-$root/build/asan}}
logs=${STRATA_LOGS:-$build/test-logs}/unit
mkdir -p "$logs"
if [[ ! -f $build/CTestTestfile.cmake ]]; then
	echo "unit: $build is not a configured build directory (run make asan)"
	echo "0 passed, 1 failed"
	exit 1
fi
jobs=${STRATA_JOBS:-$(nproc)}

passed=0
failed=0
# run_label NAME CTEST_FILTER_ARGS...
run_label() {
	local name=$1 log=$logs/$1.log
	shift
	local t0=$SECONDS
	(cd "$build" && ctest "$@" -j "$jobs" --output-on-failure --timeout 600) >"$log" 2>&1
	local line p f total
	line=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
	if [[ -z $line ]]; then
		if grep -q 'No tests were found' "$log"; then
			return 0
		fi
		echo "# unit/$name: ctest did not report a result; log: $log"
		failed=$((failed + 1))
		return 0
	fi
	f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
	total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
	p=$((total - f))
	passed=$((passed + p))
	failed=$((failed + f))
	echo "# unit/$name: $p passed, $f failed ($((SECONDS - t0)) s)"
	if ((f > 0)); then
		sed -n '/The following tests FAILED/,$p' "$log" | grep -E '^\s+[0-9]+ - ' | sed -E 's/^[[:space:]]+/#     FAILED /'
		echo "#     log: $log"
	fi
}

labels=$(cd "$build" && ctest --print-labels 2>/dev/null | sed -n '/All Labels:/,$p' | tail -n +2 | sed 's/^ *//')
for l in $labels; do
	run_label "$l" -L "^${l}\$"
done
run_label unlabeled -LE '.'
echo "$passed passed, $failed failed"
((failed == 0))
