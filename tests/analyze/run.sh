#!/usr/bin/env bash
# run.sh — the ANALYZE suite (tests/analyze/sample_test.py): statistics of a
# table read in sampled blocks (row count estimate, distinct values, null
# fraction, most common values, histogram bounds, the planner's estimates)
# against the table's true figures, and when ANALYZE reads the whole table.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. "$root/tests/lib/fixture.sh"
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# analyze: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
fixture_start analyze || { echo "0 passed, 1 failed"; exit 1; }
/usr/bin/python3 "$root/tests/analyze/sample_test.py" --host "$FIX_HOST" --port "$FIX_PORT"
rc=$?
if ! fixture_stop; then
	echo "# analyze: the server did not exit cleanly"
	echo "0 passed, 1 failed"
	exit 1
fi
exit $rc
