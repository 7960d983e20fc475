#!/usr/bin/env bash
# gen_expected.sh — regenerates tests/regress/expected/*.out from a real PostgreSQL 15,
# so expected output is PostgreSQL's, not ours.
#
# usage: tests/regress/gen_expected.sh [NAME|FILE...]     (default: every sql/*.sql)
#
# Starts a throwaway PostgreSQL 15 under /tmp as user postgres (initdb --locale=C
# --encoding=UTF8, TimeZone=UTC: text sorts in byte order, as in Strata), runs each
# file through the same psql command as run.sh (common.sh), writes expected/NAME.out,
# then stops the server and deletes it. The server is the fixture's, with
# tests/lib/pg_as_strata.sh standing in for strata.
# After each file it checks that the file dropped everything it created (tables,
# views, sequences, types, schemas, roles, databases) and fails if not: files must
# clean up so they can share a server.
# expected/NAME_strata.out files (deliberate differences) are never written here; the
# script reminds you to re-check them when NAME.out changes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/common.sh"
. "$root/tests/lib/fixture.sh"
case ${1:-} in -h | --help) sed -n '2,17p' "$0"; exit 0 ;; esac

names=$(regress_names "$@") || exit 2
[[ -n $names ]] || { echo "gen_expected: no tests in $REGRESS_DIR/sql"; exit 0; }
pgbin=/usr/lib/postgresql/15/bin
if [[ ! -x $pgbin/postgres ]]; then
	"$root/scripts/deps.sh" test || exit 1
fi

unset STRATA_TEST_PORT STRATA_TEST_HOST
export STRATA_BIN=$root/tests/lib/pg_as_strata.sh
export STRATA_LOGS=${STRATA_LOGS:-$root/build/test-logs}
export FIX_START_TIMEOUT=120
fixture_start gen-expected || { echo "gen_expected: could not start PostgreSQL 15" >&2; exit 1; }
trap 'fixture_stop >/dev/null 2>&1' EXIT

q() { psql -X -A -t -q -h "$FIX_HOST" -p "$FIX_PORT" -U postgres -d postgres -c "$1"; }
ver=$(q 'SHOW server_version_num')
if [[ $ver != 15* ]]; then
	echo "gen_expected: expected PostgreSQL 15, got server_version_num $ver" >&2
	exit 1
fi

leftovers_sql="
SELECT 'relation ' || n.nspname || '.' || c.relname FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_to%'
    AND n.nspname NOT LIKE 'pg\_temp%'
UNION ALL SELECT 'schema ' || nspname FROM pg_namespace
  WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'public') AND nspname NOT LIKE 'pg\_%'
UNION ALL SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname = 'public' AND t.typrelid = 0 AND t.typelem = 0
UNION ALL SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'public'
UNION ALL SELECT 'role ' || rolname FROM pg_roles WHERE rolname <> 'postgres' AND rolname NOT LIKE 'pg\_%'
UNION ALL SELECT 'database ' || datname FROM pg_database
  WHERE datname NOT IN ('postgres', 'template0', 'template1')"

status=0
for name in $names; do
	out=$REGRESS_DIR/expected/$name.out
	old=
	[[ -f $out ]] && old=$(mktemp) && cp "$out" "$old"
	regress_psql "$FIX_HOST" "$FIX_PORT" "$REGRESS_DIR/sql/$name.sql" "$out"
	rc=$?
	if ((rc != 0)); then
		echo "gen_expected: $name: psql exited with status $rc" >&2
		status=1
	fi
	left=$(q "$leftovers_sql")
	if [[ -n $left ]]; then
		echo "gen_expected: $name leaves objects behind; drop them at the end of the file:" >&2
		echo "$left" | sed 's/^/    /' >&2
		status=1
		# Clean up so the next file starts clean.
		q "DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null 2>&1
	fi
	if [[ -n $old ]] && cmp -s "$old" "$out"; then
		echo "unchanged $name"
	else
		echo "wrote     expected/$name.out"
		if [[ -f $REGRESS_DIR/expected/${name}_strata.out ]]; then
			echo "    note: expected/${name}_strata.out (a deliberate difference) is what run.sh uses;" \
				"re-check it against the new $name.out"
		fi
	fi
	[[ -n $old ]] && rm -f "$old"
done
trap - EXIT
fixture_stop || status=1
exit $status
