#!/usr/bin/env bash
# run.sh — the join-order suite (tests/joinorder/join_order_diff.py): random
# joins give the same results in the planner's cost-based order and in the
# written order. JO_SEED replays a run, JO_QUERIES sets its length
# (default 100; 400 with --long).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. "$root/tests/lib/fixture.sh"
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# joinorder: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
queries=${JO_QUERIES:-100}
[[ ${STRATA_LONG:-0} == 1 ]] && queries=${JO_QUERIES:-400}
fixture_start joinorder || { echo "0 passed, 1 failed"; exit 1; }
/usr/bin/python3 "$root/tests/joinorder/join_order_diff.py" --host "$FIX_HOST" --port "$FIX_PORT" \
	--seed "${JO_SEED:-$RANDOM}" --queries "$queries"
rc=$?
if ! fixture_stop; then
	echo "# joinorder: the server did not exit cleanly"
	echo "0 passed, 1 failed"
	exit 1
fi
exit $rc
