#!/usr/bin/env bash
# run.sh — the bank-transfer invariant suite (tests/bank/bank.py): concurrent
# transfers and invariant checkers, the server SIGKILLed mid-run and restarted
# on the same data directory, every acknowledged transfer checked afterwards.
#
# usage: tests/bank/run.sh [--long] [bank.py options...]
#   default  ~40 s: 20 accounts, 4 workers, 2 checkers, 2 kill/restart cycles of 15 s
#   --long   ~2.5 min: 50 accounts, 8 workers, 3 checkers, 3 cycles of 60 s (make soak)
# Set BANK_SEED to replay a run (the seed is printed first). Server: the
# fixture's (STRATA_BIN, STRATA_BUILD; not STRATA_TEST_PORT, it must be killable).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,11p' "$0"; exit 0 ;; esac
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# bank: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/bank/bank.py" "$@"
