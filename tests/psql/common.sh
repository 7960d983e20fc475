# common.sh — what tests/psql/run.sh and gen_expected.sh share: the one psql
# command that runs a case file and the filter that removes what legitimately
# differs between servers, so expected output (made on PostgreSQL 15) and
# actual output (made on strata) come from identical invocations. Sourced.
#
# psql settings, and why:
#   -X -a                    no ~/.psqlrc; echo input so the output reads like the case
#   stdin, not -f            errors print without a "psql:file:line:" prefix
#   VERBOSITY=verbose        errors carry their SQLSTATE; LOCATION: lines are dropped
#   pager=off, LC_ALL=C      deterministic, untranslated output
#   cwd = tests/psql/data    \copy paths in cases are relative to it
# Unlike tests/regress, describe output is left complete (access method,
# storage, compression): it is what this suite checks.
#
# The filter (psqlcase_filter) replaces only values that cannot be equal:
#   relation sizes ("8192 bytes", "16 kB")          -> SIZE
#     (cases print sized listings with \pset format unaligned, so column
#     widths do not depend on them)
#   \timing lines ("Time: 0.412 ms")                 -> Time: T
#   the port in \conninfo                           -> PORT
#   \watch headers ("<date> (every 0.1s)")           -> WATCH (every Ns)
#   the server's pid                                -> PID (cases print it as "pid=...")
#   pg_dump's server version and \restrict key lines (\! pg_dump in cases; the
#   client inherits PGHOST/PGPORT/PGUSER/PGDATABASE)

PSQLCASE_DIR=${PSQLCASE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
. "$(dirname "${BASH_SOURCE[0]}")/../lib/case_names.sh"

psqlcase_filter() {
	sed -E \
		-e 's/[0-9]+ (bytes|kB|MB|GB|TB)/SIZE/g' \
		-e 's/^Time: [0-9.]+ ms( \([0-9:.]+\))?$/Time: T/' \
		-e 's/ at port "[0-9]+"/ at port "PORT"/' \
		-e 's/^.* \(every ([0-9.]+)s\)$/WATCH (every \1s)/' \
		-e 's/pid=[0-9]+/pid=PID/g' \
		-e 's/^-- Dumped from database version .*/-- Dumped from database version VERSION/' \
		-e 's/^\\(un)?restrict .*/\\\1restrict KEY/' |
		grep -v '^LOCATION:  '
}

# psqlcase_run HOST PORT INFILE OUTFILE: runs a case, writes filtered output.
# Returns psql's exit status (124 on timeout).
psqlcase_run() {
	local host=$1 port=$2 in=$3 out=$4 rc
	(cd "$PSQLCASE_DIR/data" &&
		env -u PGOPTIONS -u PGTZ -u PGDATESTYLE -u PGSERVICE -u PGSERVICEFILE -u PGSYSCONFDIR \
			-u PGPASSWORD -u PGPASSFILE -u PGDATABASE -u PGUSER -u PGHOST -u PGPORT -u PGSSLMODE \
			-u PGCLIENTENCODING -u PSQLRC -u PSQL_PAGER -u PAGER -u PSQL_WATCH_PAGER \
			LC_ALL=C PGCLIENTENCODING=UTF8 PGAPPNAME=strata_psql PGCONNECT_TIMEOUT=10 \
			PGHOST="$host" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres \
			timeout --kill-after=5 "${PSQLCASE_TIMEOUT:-120}" \
			psql -X -a -h "$host" -p "$port" -U postgres -d postgres \
			-v ON_ERROR_STOP=0 -v VERBOSITY=verbose -P pager=off \
			<"$in" >"$out.raw" 2>&1)
	rc=$?
	psqlcase_filter <"$out.raw" >"$out"
	rm -f "$out.raw"
	return $rc
}

# psqlcase_names [NAME|PATH ...]: case names (all of cases/*.sql by default).
psqlcase_names() {
	case_names "$PSQLCASE_DIR"/cases psql "$@"
}

# psqlcase_xfail NAME: prints the reason when the case is a known failure
# (xfail.list: "NAME  reason"), nothing otherwise.
psqlcase_xfail() {
	[[ -f $PSQLCASE_DIR/xfail.list ]] || return 0
	awk -v n="$1" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }' "$PSQLCASE_DIR/xfail.list"
}
