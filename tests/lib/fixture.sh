# fixture.sh — the server fixture for shell test suites: start `strata` on a free
# loopback port with a temporary data directory, wait until it accepts
# connections, stop it (SIGTERM, then SIGKILL after a timeout) and keep its log
# when something went wrong. Source it:
#
#   . tests/lib/fixture.sh
#   fixture_start mysuite || exit 1       # sets FIX_HOST FIX_PORT FIX_PID FIX_DIR FIX_LOG
#   psql -h "$FIX_HOST" -p "$FIX_PORT" -U postgres ...
#   fixture_stop [--keep]                 # non-zero if the server did not exit cleanly
#
# Which server:
#   STRATA_TEST_PORT (and STRATA_TEST_HOST, default 127.0.0.1) set: use that
#     already running server (e.g. a reference PostgreSQL 15 from
#     /work/shared/tools/pgref start -> 55432); nothing is started or stopped.
#   else STRATA_BIN if set, else $STRATA_BUILD/server/strata, else
#     build/asan/server/strata, else build/release/server/strata.
# Other knobs: STRATA_LOGS (where kept logs go; default build/test-logs),
#   FIX_START_TIMEOUT (s, default 60), FIX_STOP_TIMEOUT (s, default 15),
#   FIX_KEEP=always (keep logs even on success), STRATA_TMP (default /tmp).
# A server "did not exit cleanly" when it had to be killed, exited non-zero, or
# its log holds a sanitizer report; the log is then kept and its path printed.

FIX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# fixture_bin: prints the server binary that fixture_start would use.
fixture_bin() {
	local b
	for b in "${STRATA_BIN:-}" "${STRATA_BUILD:+$STRATA_BUILD/server/strata}" \
		"$FIX_ROOT/build/asan/server/strata" "$FIX_ROOT/build/release/server/strata"; do
		if [[ -n $b && -x $b ]]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

# fixture_free_port: prints a loopback TCP port nobody listens on right now.
fixture_free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# fixture_wait_port HOST PORT PID TIMEOUT: 0 once HOST:PORT accepts a TCP
# connection; 1 if PID exits first or TIMEOUT seconds pass.
fixture_wait_port() {
	local host=$1 port=$2 pid=$3 timeout=$4 i
	local tries=$((timeout * 20))
	for ((i = 0; i < tries; i++)); do
		if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# fixture_sanitizer_report LOG: 0 if LOG holds an ASan/UBSan/LSan/TSan report.
fixture_sanitizer_report() {
	grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|[0-9]+:[0-9]+: runtime error: |SUMMARY: (Address|Undefined|Leak|Thread)Sanitizer' \
		"$1" 2>/dev/null
}

# fixture_start NAME [server args...]: starts a server for test NAME. Returns 0
# when it accepts connections, 3 when the source tree has no server/ at all (suites
# then report themselves skipped), 1 on any other failure.
fixture_start() {
	local name=${1:-test}
	shift || true
	FIX_NAME=$name
	FIX_EXTERNAL=0
	FIX_PID=
	FIX_DIR=
	FIX_LOG=
	FIX_HOST=${STRATA_TEST_HOST:-127.0.0.1}
	if [[ -n ${STRATA_TEST_PORT:-} ]]; then
		FIX_EXTERNAL=1
		FIX_PORT=$STRATA_TEST_PORT
		if ! fixture_wait_port "$FIX_HOST" "$FIX_PORT" "" 5; then
			echo "fixture: no server accepts connections on $FIX_HOST:$FIX_PORT" >&2
			return 1
		fi
		return 0
	fi
	FIX_HOST=127.0.0.1
	local bin
	if ! bin=$(fixture_bin); then
		if [[ ! -e $FIX_ROOT/server ]]; then
			echo "fixture: this tree has no server/ yet; nothing to start" >&2
			return 3
		fi
		echo "fixture: no strata binary (set STRATA_BIN or build first: make asan)" >&2
		return 1
	fi
	FIX_DIR=$(mktemp -d "${STRATA_TMP:-/tmp}/strata-$name.XXXXXX") || return 1
	FIX_LOG=$FIX_DIR/server.log
	for _ in 1 2 3 4 5; do
		FIX_PORT=$(fixture_free_port) || return 1
		: >"$FIX_LOG"
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
			UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
			"$bin" --listen 127.0.0.1 --port "$FIX_PORT" --data-dir "$FIX_DIR/data" "$@" \
			>>"$FIX_LOG" 2>&1 </dev/null &
		FIX_PID=$!
		if fixture_wait_port 127.0.0.1 "$FIX_PORT" "$FIX_PID" "${FIX_START_TIMEOUT:-60}"; then
			return 0
		fi
		if kill -0 "$FIX_PID" 2>/dev/null; then
			echo "fixture: $bin did not accept connections on port $FIX_PORT within ${FIX_START_TIMEOUT:-60} s" >&2
			fixture_stop --keep
			return 1
		fi
		wait "$FIX_PID" 2>/dev/null
		FIX_PID=
		# Lost a race for the port: try another one.
		if grep -qiE 'in use|EADDRINUSE' "$FIX_LOG"; then
			continue
		fi
		break
	done
	echo "fixture: $bin exited during startup" >&2
	_fixture_keep_log
	rm -rf "$FIX_DIR"
	FIX_DIR=
	return 1
}

_fixture_keep_log() {
	[[ -n $FIX_LOG && -f $FIX_LOG ]] || return 0
	local dest=${STRATA_LOGS:-$FIX_ROOT/build/test-logs}/servers
	mkdir -p "$dest"
	local out="$dest/$FIX_NAME-${FIX_PORT:-x}.log"
	cp "$FIX_LOG" "$out"
	echo "fixture: server log kept: $out" >&2
	FIX_KEPT_LOG=$out
}

# fixture_stop [--keep]: stops the server started by fixture_start. Keeps the
# log with --keep (the caller's test failed) or when the server did not exit
# cleanly. Returns 0 on a clean exit.
fixture_stop() {
	local keep=0 rc=0 status=0 i
	[[ ${1:-} == --keep || ${FIX_KEEP:-} == always ]] && keep=1
	if [[ ${FIX_EXTERNAL:-0} == 1 ]]; then
		return 0
	fi
	if [[ -n ${FIX_PID:-} ]]; then
		kill -TERM "$FIX_PID" 2>/dev/null
		local tries=$((${FIX_STOP_TIMEOUT:-15} * 20))
		for ((i = 0; i < tries; i++)); do
			kill -0 "$FIX_PID" 2>/dev/null || break
			sleep 0.05
		done
		if kill -0 "$FIX_PID" 2>/dev/null; then
			echo "fixture: server $FIX_PID ignored SIGTERM for ${FIX_STOP_TIMEOUT:-15} s; killing it" >&2
			kill -KILL "$FIX_PID" 2>/dev/null
			rc=1
		fi
		wait "$FIX_PID" 2>/dev/null
		status=$?
		if ((rc == 0 && status != 0)); then
			echo "fixture: server exited with status $status" >&2
			rc=1
		fi
		FIX_PID=
	fi
	if fixture_sanitizer_report "$FIX_LOG"; then
		echo "fixture: sanitizer report in the server log" >&2
		rc=1
	fi
	if ((rc != 0 || keep)); then
		_fixture_keep_log
	fi
	[[ -n ${FIX_DIR:-} ]] && rm -rf "$FIX_DIR"
	FIX_DIR=
	return $rc
}
