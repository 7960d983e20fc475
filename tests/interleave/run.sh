#!/usr/bin/env bash
# run.sh — entity groups (tests/interleave/interleave.py): an interleaved and
# a plain schema under the same random workload must answer every query
# alike, and the interleave rules hold. ILV_SEED replays a run; ILV_ROUNDS
# sets its length (default 10).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# interleave: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/interleave/interleave.py" "$@"
