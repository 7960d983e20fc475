#!/usr/bin/env bash
# run.sh — the hostile-input suite (tests/hostile/hostile.py, cases in cases.py,
# PostgreSQL 15's behaviour in expected.txt, known differences in known.txt).
# usage: tests/hostile/run.sh [-v] [CASE-NAME-SUBSTRING...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,4p' "$0"; exit 0 ;; esac
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# hostile: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/hostile/hostile.py" "$@"
