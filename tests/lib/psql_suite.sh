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

# Sessions a test holds open while others run (fixed pauses such as pg_sleep
# are outrun by a loaded machine): session NAME is a psql (application_name
# NAME, output in $work/NAME) reading statements from a pipe.
#   hold NAME SQL...     starts NAME, sends BEGIN and SQL and returns once they
#                        are done (NAME idle in its transaction after them)
#   send NAME SQL...     sends more (";" appended unless a backslash command)
#   run_bg NAME ARGS...  runs q ARGS (application_name NAME) in the background
#   blocked NAME         true once pg_locks shows NAME waiting for a lock; false
#                        if NAME ends first (or after 120 s)
#   finish NAME [SQL...] sends SQL, ends NAME and waits for it; out = its output
declare -A sess_pid sess_fd
sess_seq=0
send() {
	local n=$1 l
	shift
	for l in "$@"; do
		if [[ $l = \\* ]]; then printf '%s\n' "$l"; else printf '%s;\n' "$l"; fi
	done >&"${sess_fd[$n]}"
}
# (in a child: the other sessions' pipes, whose end is their only writer closing)
sess_close_fds() {
	local fd
	for fd in "${sess_fd[@]}"; do exec {fd}>&-; done
}
hold() {
	local n=$1 fd
	shift
	rm -f "$work/$n.in"
	mkfifo "$work/$n.in" || return 1
	(
		sess_close_fds
		PGAPPNAME=$n q <"$work/$n.in" >"$work/$n"
	) &
	sess_pid[$n]=$!
	exec {fd}>"$work/$n.in"
	sess_fd[$n]=$fd
	sess_seq=$((sess_seq + 1))
	local mark="$n ready $sess_seq"
	send "$n" BEGIN "$@" "SELECT '$mark'"
	# The marker is the session's last statement once the others are done.
	until_seen "$n" "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$n'
		AND state LIKE 'idle in transaction%' AND query LIKE '%$mark%'"
}
run_bg() {
	local n=$1
	shift
	(
		sess_close_fds
		PGAPPNAME=$n q "$@" >"$work/$n"
	) &
	sess_pid[$n]=$!
}
blocked() {
	until_seen "$1" "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE a.application_name = '$1' AND NOT l.granted"
}
# until_seen NAME SQL: until SQL (a count) is above 0; false if session NAME
# ends first or 120 s pass.
until_seen() {
	local i c
	for ((i = 0; i < 600; i++)); do
		c=$(q -c "$2")
		[[ $c =~ ^[0-9]+$ && $c -gt 0 ]] && return 0
		kill -0 "${sess_pid[$1]}" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
finish() {
	local n=$1
	shift
	if [[ -n ${sess_fd[$n]:-} ]]; then
		send "$n" "$@"
		local fd=${sess_fd[$n]}
		exec {fd}>&-
		unset "sess_fd[$n]"
	fi
	wait "${sess_pid[$n]}"
	out=$(<"$work/$n")
}

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
