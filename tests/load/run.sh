#!/usr/bin/env bash
# run.sh — load and soak (tests/load/load.py): 200 concurrent sessions with a mixed
# read/write/DDL workload; no unexpected errors, RSS flat after warm-up, no
# descriptor leak, a clean stop (ASan/LSan in the test build).
# usage: tests/load/run.sh [--long] [--valgrind] [load.py options...]
#   default 35 s (make test), --long 10 min (make soak), --valgrind under memcheck
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,7p' "$0"; exit 0 ;; esac
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# load: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/load/load.py" "$@"
