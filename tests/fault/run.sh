#!/usr/bin/env bash
# run.sh — disk faults seen through SQL (tests/fault/sql_fault_test.c): ENOSPC,
# EIO, fsync failure, power loss with torn writes, bit flips, against the engine
# and wire server running in-process on kvstore's fault-injecting file system.
#
# usage: tests/fault/run.sh [--long] [sql_fault_test options...]
#   default  30 power-loss rounds (~10 s)      --long  1000 rounds (make soak)
# Replay: the seed is printed first; pass --seed N.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,8p' "$0"; exit 0 ;; esac
build=${STRATA_BUILD:-$root/build/asan}
bin=$build/tests/fault/sql_fault_test
if [[ ! -x $bin ]]; then
	echo "# fault: $bin is not built (cmake --build $build --target sql_fault_test)"
	echo "0 passed, 1 failed"
	exit 1
fi
rounds=30
if [[ ${1:-} == --long ]]; then rounds=1000; shift; fi
logs=${STRATA_LOGS:-$build/test-logs}/fault
mkdir -p "$logs"
"$bin" --rounds "$rounds" "$@" 2>"$logs/stderr.log"
rc=$?
if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$logs/stderr.log"; then
	echo "# fault: sanitizer report: $logs/stderr.log"
	echo "0 passed, 1 failed"
	exit 1
fi
exit $rc
