#!/usr/bin/env bash
# run.sh — the server after more connection threads than the process has
# pthread keys (tests/threads/threads.py says why that matters).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# threads: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/threads/threads.py" "$@"
