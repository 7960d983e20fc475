#!/usr/bin/env bash
# gen_expected.sh — regenerates tests/psql/expected/*.out from a real PostgreSQL 15
# (tests/lib/pg_as_strata.sh: initdb --locale=C --encoding=UTF8, TimeZone=UTC), with
# the same psql invocation and filter as run.sh (common.sh), one fresh server per case.
#
# usage: tests/psql/gen_expected.sh [NAME|FILE...]     (default: every case)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/common.sh"
. "$root/tests/lib/fixture.sh"
case ${1:-} in -h | --help) sed -n '2,6p' "$0"; exit 0 ;; esac

names=$(psqlcase_names "$@") || exit 2
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || "$root/scripts/deps.sh" test || exit 1
unset STRATA_TEST_PORT STRATA_TEST_HOST
export STRATA_BIN=$root/tests/lib/pg_as_strata.sh
export STRATA_LOGS=${STRATA_LOGS:-$root/build/test-logs}
export FIX_START_TIMEOUT=120
status=0
for name in $names; do
	fixture_start "psql-gen-$name" || { echo "gen_expected: could not start PostgreSQL 15" >&2; exit 1; }
	out=$here/expected/$name.out
	old=$(mktemp)
	[[ -f $out ]] && cp "$out" "$old"
	psqlcase_run "$FIX_HOST" "$FIX_PORT" "$here/cases/$name.sql" "$out"
	rc=$?
	((rc == 0)) || { echo "gen_expected: $name: psql exited with status $rc" >&2; status=1; }
	fixture_stop || status=1
	if cmp -s "$old" "$out"; then echo "unchanged $name"; else echo "wrote     expected/$name.out"; fi
	rm -f "$old"
done
exit $status
