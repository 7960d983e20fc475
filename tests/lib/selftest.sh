#!/usr/bin/env bash
# selftest.sh — the "harness" suite: checks the test harness itself against a real
# PostgreSQL 15 (through tests/lib/pg_as_strata.sh) and small fake servers, so a
# broken runner cannot make every other suite look green:
#   - the fixture starts and stops a server, removes its data, and flags a server
#     that dies early, must be killed, or leaves a sanitizer report;
#   - slt_runner gives the known counts on tests/slt/test/selftest.test and drops the
#     tables the script created;
#   - the regression runner passes a matching file and reports a diff for a
#     mismatching one;
#   - run_all.sh adds up suites' counts (plain, pytest-style, exit status only).
# usage: tests/lib/selftest.sh        Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
build=${STRATA_BUILD:-$root/build/asan}
logs=${STRATA_LOGS:-$build/test-logs}/harness
mkdir -p "$logs"
export STRATA_LOGS=$logs
tmp=$(mktemp -d "${STRATA_TMP:-/tmp}/strata-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. tests/lib/fixture.sh

passed=0
failed=0
check() { # NAME COMMAND...: one counted check
	local name=$1
	shift
	if "$@" >>"$logs/selftest.log" 2>&1; then
		passed=$((passed + 1))
		echo "ok     $name"
	else
		failed=$((failed + 1))
		echo "# FAIL harness: $name (log: $logs/selftest.log)"
	fi
}

if [[ ! -x /usr/lib/postgresql/15/bin/postgres ]]; then
	echo "# harness: PostgreSQL 15 is not installed (scripts/deps.sh test installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
pgshim=$root/tests/lib/pg_as_strata.sh

# A fake server: listens on --port; on SIGTERM prints $FAKE_LOG_LINE and exits
# with $FAKE_EXIT; ignores SIGTERM when FAKE_IGNORE_TERM=1; exits at once with
# status 3 when FAKE_DIE=1.
cat >"$tmp/fake_server" <<'EOF'
#!/usr/bin/python3
import os, signal, socket, sys
port = int(sys.argv[sys.argv.index("--port") + 1])
if os.environ.get("FAKE_DIE") == "1":
    print("fake: dying at startup"); sys.exit(3)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(8)
def term(*_):
    print(os.environ.get("FAKE_LOG_LINE", "fake: bye"), flush=True)
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
signal.signal(signal.SIGTERM, signal.SIG_IGN if os.environ.get("FAKE_IGNORE_TERM") == "1" else term)
while True:
    c, _ = s.accept(); c.close()
EOF
chmod +x "$tmp/fake_server"

# ---------------------------------------------------------------- fixture
fixture_clean_cycle() {
	STRATA_BIN=$pgshim fixture_start selftest-pg || return 1
	local dir=$FIX_DIR
	psql -X -At -h "$FIX_HOST" -p "$FIX_PORT" -U postgres -c 'select 1' | grep -qx 1 || return 1
	fixture_stop || return 1
	[[ ! -e $dir ]]
}
check "fixture: start PostgreSQL, query it, stop cleanly, remove the data dir" fixture_clean_cycle

fixture_early_death() {
	FAKE_DIE=1 STRATA_BIN=$tmp/fake_server fixture_start selftest-die && return 1
	[[ -f ${FIX_KEPT_LOG:-} ]] && grep -q 'dying at startup' "$FIX_KEPT_LOG"
}
check "fixture: a server that dies during startup fails and keeps its log" fixture_early_death

fixture_sanitizer() {
	FAKE_LOG_LINE='x.c:12:5: runtime error: signed integer overflow' STRATA_BIN=$tmp/fake_server \
		fixture_start selftest-asan || return 1
	FAKE_LOG_LINE='' fixture_stop && return 1
	grep -q "runtime error" "$FIX_KEPT_LOG"
}
check "fixture: a sanitizer report in the server log fails the stop" fixture_sanitizer

fixture_exit_status() {
	FAKE_EXIT=1 STRATA_BIN=$tmp/fake_server fixture_start selftest-exit || return 1
	! fixture_stop
}
check "fixture: a non-zero exit status fails the stop" fixture_exit_status

fixture_kill() {
	FAKE_IGNORE_TERM=1 STRATA_BIN=$tmp/fake_server fixture_start selftest-hang || return 1
	local pid=$FIX_PID
	FIX_STOP_TIMEOUT=1 fixture_stop && return 1
	! kill -0 "$pid" 2>/dev/null
}
check "fixture: a server ignoring SIGTERM is killed and fails the stop" fixture_kill

python_fixture() {
	STRATA_BIN=$pgshim /usr/bin/python3 tests/lib/strata_fixture.py run selftest-py -- \
		sh -c 'psql -X -At -c "select 40 + 2" | grep -qx 42' || return 1
	FAKE_EXIT=2 STRATA_BIN=$tmp/fake_server /usr/bin/python3 tests/lib/strata_fixture.py run selftest-py2 -- true &&
		return 1
	! FAKE_LOG_LINE='==7==ERROR: AddressSanitizer: heap-use-after-free' STRATA_BIN=$tmp/fake_server \
		/usr/bin/python3 tests/lib/strata_fixture.py run selftest-py3 -- true
}
check "fixture (python): runs a client with PG* set; flags an exit status or sanitizer report" python_fixture

# ---------------------------------------------------------------- slt_runner
STRATA_BIN=$pgshim fixture_start selftest-runners || {
	echo "# FAIL harness: could not start PostgreSQL"
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
}
slt_counts() {
	"$build/tests/slt/slt_runner" -h "$FIX_HOST" -p "$FIX_PORT" --known tests/slt/test/selftest.known \
		--json "$tmp/slt.json" tests/slt/test/selftest.test || return 1
	/usr/bin/python3 - "$tmp/slt.json" <<'EOF' || return 1
import json, sys
t = json.load(open(sys.argv[1]))["total"]
got = (t["passed"], t["failed"], t["known"], t["skipped"], t["not_run"])
assert got == (10, 3, 1, 2, 0), got
EOF
	local left
	left=$(psql -X -At -h "$FIX_HOST" -p "$FIX_PORT" -U postgres \
		-c "select count(*) from pg_class where relnamespace = 'public'::regnamespace")
	[[ $left == 0 ]]
}
check "slt_runner: formatting, sorting, hashing, labels, conditions, halt, known; cleanup" slt_counts

slt_threshold() {
	printf '* 90\n' >"$tmp/thr.conf"
	"$build/tests/slt/slt_runner" -h "$FIX_HOST" -p "$FIX_PORT" --thresholds "$tmp/thr.conf" \
		tests/slt/test/selftest.test >"$tmp/thr.out"
	local rc=$?
	((rc == 1)) && tail -1 "$tmp/thr.out" | grep -qx 'directories: 0 passed, 1 failed'
}
check "slt_runner: a directory below its threshold fails the run" slt_threshold

slt_sample() {
	"$build/tests/slt/slt_runner" -h "$FIX_HOST" -p "$FIX_PORT" --max-queries 2 \
		--json "$tmp/s.json" tests/slt/test/selftest.test >/dev/null
	/usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["total"]
assert t["passed"] + t["failed"] == 4 + 2 and t["not_run"] == 8, t' "$tmp/s.json"
}
check "slt_runner: --max-queries runs every statement and a sample of queries" slt_sample

# ---------------------------------------------------------------- regress
regress_cases() {
	local d=$tmp/regress
	mkdir -p "$d/sql" "$d/expected"
	printf 'SELECT 1 AS one;\nselect nope;\n' >"$d/sql/good.sql"
	printf 'SELECT 2 AS two;\n' >"$d/sql/bad.sql"
	REGRESS_DIR=$d tests/regress/gen_expected.sh >/dev/null 2>&1
	# gen_expected starts its own PostgreSQL; the expected output must carry SQLSTATEs.
	grep -q '^ERROR:  42703: column "nope" does not exist' "$d/expected/good.out" || return 1
	sed -i 's/ 2$/ 3/' "$d/expected/bad.out"
	REGRESS_DIR=$d tests/regress/run.sh --port "$FIX_PORT" --logs "$tmp/rlogs" >"$tmp/r.out" 2>&1
	local rc=$?
	((rc == 1)) || return 1
	tail -1 "$tmp/r.out" | grep -qx '1 passed, 1 failed' || return 1
	grep -q '^# FAIL bad: output differs' "$tmp/r.out" && [[ -s $tmp/rlogs/bad.diff && ! -e $tmp/rlogs/good.diff ]]
}
check "regress: gen_expected writes PostgreSQL's output; run.sh passes a match, diffs a mismatch" regress_cases

fixture_stop || { echo "# FAIL harness: PostgreSQL did not stop cleanly"; failed=$((failed + 1)); }

# ---------------------------------------------------------------- run_all
run_all_counts() {
	mkdir -p "$tmp/b"
	cat >"$tmp/suites.list" <<'EOF'
# comment
plain    echo "3 passed, 0 failed"
pytest   echo "===== 2 passed, 1 failed in 0.1s ====="; exit 1
bare     exit 4
longonly @long echo "9 passed, 0 failed"
EOF
	STRATA_SUITES_FILE=$tmp/suites.list STRATA_LOGS='' tests/run_all.sh "$tmp/b" >"$tmp/all.out" 2>&1
	local rc=$?
	((rc != 0)) || return 1
	tail -1 "$tmp/all.out" | grep -qx '5 passed, 2 failed' || return 1
	grep -q '^bare: 0 passed, 1 failed .*exited with status 4' "$tmp/all.out" || return 1
	! grep -q '^longonly' "$tmp/all.out" || return 1
	[[ -f $tmp/b/test-logs/plain.log ]]
}
check "run_all: per-suite lines, totals, exit status, @long suites" run_all_counts

echo "$passed passed, $failed failed"
((failed == 0))
