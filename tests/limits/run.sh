#!/usr/bin/env bash
# run.sh — resource limits (tests/limits/limits.py): statement_timeout, lock_timeout,
# idle timeouts, work_mem (53200), max_connections (53300), the maximum message
# size and query cancel, each with PostgreSQL's SQLSTATE (~20 s).
# usage: tests/limits/run.sh [CASE...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,5p' "$0"; exit 0 ;; esac
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# limits: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/limits/limits.py" "$@"
