# common.sh — what tests/regress/run.sh and gen_expected.sh share: the one psql
# command that turns a .sql file into output, so expected output (made on
# PostgreSQL 15) and actual output (made on strata) come from identical
# invocations. Sourced, not run.
#
# Settings, and why:
#   -X                       no ~/.psqlrc
#   -a                       echo every input line, so the output reads like the file
#   -q                       no command tags ("INSERT 0 1") and other chatter
#   stdin, not -f            errors print without a "psql:file:line:" prefix
#   VERBOSITY=verbose        errors and notices carry their SQLSTATE ("ERROR:  42703: ...");
#                            the LOCATION: lines it adds (PostgreSQL source file:line)
#                            are filtered out, they are not behaviour
#   SHOW_CONTEXT=errors      CONTEXT lines only for errors
#   ON_ERROR_STOP=0          keep going after an error, like pg_regress
#   HIDE_TABLEAM, HIDE_TOAST_COMPRESSION   \d+ output without storage details
#   pager=off, LC_ALL=C      deterministic, untranslated client messages
#   PGCLIENTENCODING=UTF8    not derived from the locale
#   PG* variables that would change the session (PGOPTIONS, PGTZ, PGDATESTYLE, ...)
#   are removed: every setting a file depends on is set in the file itself.
# REGRESS_DIR (the folder holding sql/ and expected/) may be set by the caller;
# tests/lib/selftest.sh points it at a scratch copy. Timing (\timing) stays off. Each psql run is bounded by REGRESS_FILE_TIMEOUT
# seconds (default 300) so a hung server cannot hang the suite.

REGRESS_DIR=${REGRESS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
. "$(dirname "${BASH_SOURCE[0]}")/../lib/case_names.sh"

# regress_psql HOST PORT INFILE OUTFILE: runs INFILE, writes filtered output.
# Returns psql's exit status (124 on timeout).
regress_psql() {
	local host=$1 port=$2 in=$3 out=$4 rc
	env -u PGOPTIONS -u PGTZ -u PGDATESTYLE -u PGSERVICE -u PGSERVICEFILE -u PGSYSCONFDIR \
		-u PGPASSWORD -u PGPASSFILE -u PGDATABASE -u PGUSER -u PGHOST -u PGPORT -u PGSSLMODE \
		-u PGCLIENTENCODING -u PSQLRC -u PSQL_PAGER -u PAGER \
		LC_ALL=C PGCLIENTENCODING=UTF8 PGAPPNAME=strata_regress PGCONNECT_TIMEOUT=10 \
		timeout --kill-after=5 "${REGRESS_FILE_TIMEOUT:-300}" \
		psql -X -a -q -h "$host" -p "$port" -U postgres -d postgres \
		-v ON_ERROR_STOP=0 -v VERBOSITY=verbose -v SHOW_CONTEXT=errors \
		-v HIDE_TABLEAM=on -v HIDE_TOAST_COMPRESSION=on -P pager=off \
		<"$in" >"$out.raw" 2>&1
	rc=$?
	grep -v '^LOCATION:  ' "$out.raw" >"$out"
	rm -f "$out.raw"
	return $rc
}

# regress_expected NAME: prints the expected file a run compares against:
# expected/NAME_strata.out (a documented deliberate difference) when it
# exists, else expected/NAME.out.
regress_expected() {
	if [[ -f $REGRESS_DIR/expected/${1}_strata.out ]]; then
		echo "$REGRESS_DIR/expected/${1}_strata.out"
	else
		echo "$REGRESS_DIR/expected/$1.out"
	fi
}

# regress_names [NAME|PATH ...]: prints test names (no directory, no .sql);
# all of sql/*.sql when no argument is given.
regress_names() {
	case_names "$REGRESS_DIR"/sql regress "$@"
}
