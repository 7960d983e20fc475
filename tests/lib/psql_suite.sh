# psql_suite.sh — the common frame of a shell suite that drives one server with
# psql and counts named checks (tests/copyblk, tests/copybig): the server fixture
# (fixture.sh), a scratch directory removed at exit, `q` and `check`. Source it:
#
#   . tests/lib/psql_suite.sh
#   suite_start mysuite || exit 1     # fixture_start + $work (removed at exit)
#   q -c "SELECT 1"                   # psql -At as postgres, stderr folded in
#   [[ $(q -c "SELECT 1") = 1 ]]
#   check one-is-one $? "detail shown when it fails"
#   suite_end                         # stops the server, prints "N passed, N failed"
#
# suite_end returns non-zero when a check failed or the server did not exit
# cleanly (fixture_stop), so it can end the script: `suite_end; exit`.

. "$(dirname "${BASH_SOURCE[0]}")/fixture.sh"

pass=0 fail=0
work=

# suite_start NAME [server args...]: starts the server (fixture_start's return
# codes) and makes $work.
suite_start() {
	fixture_start "$@" || return
	work=$(mktemp -d -p "${STRATA_TMP:-/tmp}") || return 1
	# (fixture_stop is idempotent: a no-op after suite_end's.)
	trap 'fixture_stop; rm -rf "$work"' EXIT
}

# q ARGS...: psql on the suite's server, unaligned tuples only, errors on stdout.
q() { psql -X -q -A -t -h "$FIX_HOST" -p "$FIX_PORT" -U postgres postgres "$@" 2>&1; }

# check NAME STATUS DETAIL: counts a check passed when STATUS is 0, else failed
# with DETAIL printed.
check() {
	if [[ $2 = 0 ]]; then
		pass=$((pass + 1)); echo "ok     $1"
	else
		fail=$((fail + 1)); echo "FAIL   $1: $3"
	fi
}

# suite_end: stops the server (an unclean exit counts as a failure) and prints
# the suite's last line; non-zero when anything failed.
suite_end() {
	fixture_stop || fail=$((fail + 1))
	echo "$pass passed, $fail failed"
	[[ $fail = 0 ]]
}
