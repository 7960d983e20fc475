#!/usr/bin/env bash
# run.sh — the "index" suite: the differential test (index answers equal
# full-scan answers under random writes, both write modes), the crash
# test (fault points between the index and the data write of the split
# protocol, SIGKILL during write workloads) and the online build test
# (CREATE INDEX [CONCURRENTLY] and REINDEX under concurrent writers, unique
# key races). STRATA_LONG=1 runs longer
# variants. Last line: "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
long=${STRATA_LONG:-0}
if ((long)); then
	diff_args=(--rounds 20 --rows 3000)
	crash_args=(--cycles 15)
	build_args=(--seconds 10)
else
	diff_args=(--rounds 4 --rows 500)
	crash_args=(--cycles 3)
	build_args=(--seconds 3)
fi
passed=0
failed=0
run() { # NAME COMMAND...
	local name=$1 out
	shift
	out=$("$@" 2>&1)
	echo "$out" | grep -E '^# ' || true
	local line
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	local p=0 f=1
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
	else
		echo "# FAIL $name: no summary line"
		echo "$out" | tail -20 | sed 's/^/#   /'
	fi
	echo "# index/$name: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
}
run diff /usr/bin/python3 "$here/diff_test.py" "${diff_args[@]}"
run crash /usr/bin/python3 "$here/crash_test.py" "${crash_args[@]}"
run build /usr/bin/python3 "$here/build_test.py" "${build_args[@]}"
if ((long)); then
	# Updating one indexed column a million times: after a major compaction
	# the index holds its live entries only (index/test/build_test.c, test_gc).
	bt=${STRATA_BUILD:-$here/../../build/asan}/index/build_test
	if [[ -x $bt ]]; then
		if IDX_GC_UPDATES=1000000 CMOCKA_TEST_ABORT=1 "$bt" >/dev/null 2>&1; then
			echo "# index/gc-1M: 1 passed, 0 failed"
			passed=$((passed + 1))
		else
			echo "# FAIL index/gc-1M"
			failed=$((failed + 1))
		fi
	fi
fi
echo "$passed passed, $failed failed"
((failed == 0))
