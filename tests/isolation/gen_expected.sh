#!/usr/bin/env bash
# gen_expected.sh — regenerates the expected transcripts of the isolation
# specs from a real PostgreSQL 15, so expected output is PostgreSQL's, not ours:
# expected/NAME.out for specs/NAME.spec, pending/NAME.out for pending/NAME.spec.
#
# usage: tests/isolation/gen_expected.sh [--port P] [NAME|FILE...]   (default: every spec)
#   --port P   use an already running PostgreSQL 15 on 127.0.0.1:P (e.g. pgref's 55432)
#              instead of starting a throwaway one
#
# The throwaway server is the fixture's, with tests/lib/pg_as_strata.sh standing
# in for strata (initdb --locale=C --encoding=UTF8, TimeZone=UTC). Each spec runs
# twice; the two transcripts must be identical (a spec whose output depends on
# timing is rejected), and the spec must drop every table it creates.
# expected/NAME_strata.out files (deliberate differences) are never written here.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/common.sh"
. "$root/tests/lib/fixture.sh"

port=
while (($#)); do
	case $1 in
	--port) port=$2; shift 2 ;;
	-h | --help) sed -n '2,14p' "$0"; exit 0 ;;
	-*) echo "gen_expected: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if (($#)); then
	names=$(iso_names specs "$@") || exit 2
else
	names="$(iso_names specs) $(iso_names pending)"
fi
tester=$(iso_tester) || exit 1

unset STRATA_TEST_HOST
if [[ -n $port ]]; then
	export STRATA_TEST_PORT=$port
else
	unset STRATA_TEST_PORT
	if [[ ! -x /usr/lib/postgresql/15/bin/postgres ]]; then
		"$root/scripts/deps.sh" test || exit 1
	fi
	export STRATA_BIN=$root/tests/lib/pg_as_strata.sh
	export FIX_START_TIMEOUT=120
fi
export STRATA_LOGS=${STRATA_LOGS:-$root/build/test-logs}
fixture_start gen-isolation || { echo "gen_expected: could not start PostgreSQL 15" >&2; exit 1; }
trap 'fixture_stop >/dev/null 2>&1' EXIT

q() { psql -X -A -t -q -h "$FIX_HOST" -p "$FIX_PORT" -U postgres -d postgres -c "$1"; }
ver=$(q 'SHOW server_version_num')
if [[ $ver != 15* ]]; then
	echo "gen_expected: expected PostgreSQL 15, got server_version_num $ver" >&2
	exit 1
fi
leftovers_sql="SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public'"

status=0
tmp=$(mktemp -d)
for name in $names; do
	spec=$(iso_spec_path "$name")
	out=$(iso_expected "$name")
	before=$(q "$leftovers_sql" | sort)
	rc=0
	iso_run "$tester" "$FIX_HOST" "$FIX_PORT" "$spec" "$tmp/a" || rc=$?
	iso_run "$tester" "$FIX_HOST" "$FIX_PORT" "$spec" "$tmp/b" || rc=$?
	if ((rc != 0)); then
		echo "gen_expected: $name: isolation_tester exited with status $rc:" >&2
		tail -5 "$tmp/a" | sed 's/^/    /' >&2
		status=1
		continue
	fi
	if ! cmp -s "$tmp/a" "$tmp/b"; then
		echo "gen_expected: $name: two runs gave different transcripts (timing-dependent spec):" >&2
		diff -u "$tmp/a" "$tmp/b" | head -30 | sed 's/^/    /' >&2
		status=1
		continue
	fi
	left=$(comm -13 <(echo "$before") <(q "$leftovers_sql" | sort))
	if [[ -n $left ]]; then
		echo "gen_expected: $name leaves tables behind; drop them in its teardown:" >&2
		echo "$left" | sed 's/^/    /' >&2
		status=1
	fi
	if [[ -f $out ]] && cmp -s "$out" "$tmp/a"; then
		echo "unchanged $name"
	else
		cp "$tmp/a" "$out"
		echo "wrote     ${out#"$ISO_DIR"/}"
		if [[ -f $ISO_DIR/expected/${name}_strata.out ]]; then
			echo "    note: expected/${name}_strata.out (a deliberate difference) is what run.sh uses;" \
				"re-check it against the new $name.out"
		fi
	fi
done
rm -rf "$tmp"
trap - EXIT
fixture_stop || status=1
exit $status
