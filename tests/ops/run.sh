#!/usr/bin/env bash
# run.sh — the operations suite (tests/ops/ops_test.py): backups while writing,
# incremental and point-in-time restores, late cells in incrementals (COPY, read
# repairs), time travel, table policies, monitoring views, cancel/terminate, the
# slow-statement log (~80 s with the ASan build).
#
# usage: tests/ops/run.sh [backup|backupddl|backuplate|backuprepair|timetravel|policies|monitor|verify ...]
# Server: the fixture's (STRATA_BIN, STRATA_BUILD); it starts several servers
# (restores) so STRATA_TEST_PORT is not supported.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,8p' "$0"; exit 0 ;; esac
if [[ -n ${STRATA_TEST_PORT:-} ]]; then
	echo "# ops: needs servers it starts itself (unset STRATA_TEST_PORT)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
	echo "# ops: python3-psycopg2 is missing (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec /usr/bin/python3 "$root/tests/ops/ops_test.py" "$@"
