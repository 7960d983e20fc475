#!/usr/bin/env bash
# run.sh — the SQL crash loop (tests/crash/crash.py): concurrent transactions
# against an oracle of acknowledged commits, SIGKILL at random moments, restart,
# store verification (strata-kv verify) and a full check after every restart.
#
# usage: tests/crash/run.sh [--long] [crash.py options...]
#   default  ~35 s: the self-check, then 30 s of cycles (about 15), 4 workers (make test)
#   --long   1000 cycles, 6 workers (make soak; ~40 min with the ASan build)
# Set CRASH_SEED to replay a run's random choices (the seed is printed first).
# Server: the fixture's (STRATA_BIN, STRATA_BUILD; not STRATA_TEST_PORT).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,10p' "$0"; exit 0 ;; esac
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# crash: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/crash/crash.py" "$@"
