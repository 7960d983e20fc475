#!/usr/bin/env bash
# run.sh — parallel scans and partial aggregation per worker
# (tests/parallel/parallel_test.py): plans, results with and without workers,
# errors raised in workers, a transaction's own writes.
#
# usage: tests/parallel/run.sh [plans|results|errors|writes|salted ...]
# Server: the fixture's (STRATA_BIN, STRATA_BUILD, or STRATA_TEST_PORT).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,7p' "$0"; exit 0 ;; esac
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# parallel: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/parallel/parallel_test.py" "$@"
