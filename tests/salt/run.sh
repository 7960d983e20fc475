#!/usr/bin/env bash
# run.sh — salted tables (tests/salt/salt.py): a salted and a plain schema
# under the same random workload must answer every query alike, and the
# salting rules hold. SALT_SEED replays a run; SALT_ROUNDS sets its length
# (default 8). With --regress: the regression files on salted tables
# (tests/salt/regress_salted.py [--buckets N] [NAME ...]).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# salt: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
if [[ ${1:-} == --regress ]]; then
	shift
	exec /usr/bin/python3 "$root/tests/salt/regress_salted.py" "$@"
fi
exec /usr/bin/python3 "$root/tests/salt/salt.py" "$@"
