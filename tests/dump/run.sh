#!/usr/bin/env bash
# run.sh — the pg_dump suite (tests/dump/dump_test.py): pg_dump 15 of a Strata
# database restored into Strata and into PostgreSQL 15, and of a PostgreSQL 15
# database restored into Strata, in plain and custom format, each restore
# compared with its source (rows, catalog, sequences, constraint behaviour).
#
# usage: tests/dump/run.sh [-v]
# Server: the fixture's (STRATA_BIN, STRATA_BUILD) plus a throwaway PostgreSQL 15
# (tests/lib/pg_as_strata.sh); STRATA_TEST_PORT is not supported.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,9p' "$0"; exit 0 ;; esac
if [[ -n ${STRATA_TEST_PORT:-} ]]; then
	echo "# dump: needs servers it starts itself (unset STRATA_TEST_PORT)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
missing=
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || missing+=" python3-psycopg2"
[[ -x /usr/lib/postgresql/15/bin/pg_dump ]] || missing+=" postgresql-client-15"
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || missing+=" postgresql-15"
if [[ -n $missing ]]; then
	echo "# dump: missing$missing (scripts/deps.sh test installs them)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/dump/dump_test.py" "$@"
