#!/usr/bin/env bash
# run.sh — sessions on the worker pool (tests/pool/pool.py says what is checked).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# pool: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/pool/pool.py" "$@"
