#!/usr/bin/env bash
# run.sh — the "slt" suite: the sqllogictest corpus (../shared/slt, never copied into
# the repository) run by slt_runner against a fresh server, with pass rates per
# directory checked against tests/slt/thresholds.conf.
#
# usage: tests/slt/run.sh [--long] [--bin PATH] [--host H --port P] [--corpus DIR]
#                         [-- slt_runner options / paths]
#   (default)     a sample: every statement, at most $SLT_MAX_QUERIES (2000) queries per
#                 file, within $SLT_TIME_BUDGET (300) seconds; what `make test` runs
#   --long        the whole corpus (what `make soak` / run_all.sh --long run)
#   --bin PATH    server binary; --host/--port: an already running server instead
#   --corpus DIR  corpus root (default $STRATA_SLT_DIR, else ../shared/slt beside the repo)
#   after --       passed to slt_runner (e.g. --show-failures 20, or paths to run
#                 instead of the whole corpus)
# Writes $STRATA_LOGS/slt/failures.txt (every failing record with SQL, expected, got)
# and summary.json. Fails when a directory is below its threshold or the server does
# not exit cleanly (a crash is never acceptable). Last line: "N passed, N failed"
# counting directories against their thresholds.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/lib/fixture.sh"

long=${STRATA_LONG:-0}
corpus=${STRATA_SLT_DIR:-}
extra=()
while (($#)); do
	case $1 in
	--long) long=1; shift ;;
	--bin) export STRATA_BIN=$2; shift 2 ;;
	--host) export STRATA_TEST_HOST=$2; shift 2 ;;
	--port) export STRATA_TEST_PORT=$2; shift 2 ;;
	--corpus) corpus=$2; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "slt: unknown option $1" >&2; exit 2 ;;
	esac
done
if [[ -z $corpus ]]; then
	for c in "$root/../shared/slt" /work/shared/slt; do
		[[ -d $c ]] && corpus=$c && break
	done
fi
build=${STRATA_BUILD:-$root/build/asan}
runner=$build/tests/slt/slt_runner
logs=${STRATA_LOGS:-$root/build/test-logs}/slt
mkdir -p "$logs"
if [[ ! -x $runner ]]; then
	echo "slt: $runner is not built (make asan)"
	echo "0 passed, 1 failed"
	exit 1
fi
if [[ -z $corpus || ! -d $corpus ]]; then
	echo "# slt: no corpus (../shared/slt beside the repository); set STRATA_SLT_DIR. Skipped."
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

if ((long)); then
	budget=(--time-budget "${SLT_TIME_BUDGET:-0}" --query-timeout 30)
	mode="full corpus"
else
	budget=(--max-queries "${SLT_MAX_QUERIES:-2000}" --time-budget "${SLT_TIME_BUDGET:-300}" --query-timeout 10)
	mode="sample: <= ${SLT_MAX_QUERIES:-2000} queries per file, ${SLT_TIME_BUDGET:-300} s budget; full run: make soak"
fi
paths=("$corpus")
opts=()
for a in "${extra[@]}"; do
	if [[ $a != -* && -e $a && ($a == */* || $a == *.test) ]]; then
		[[ ${paths[0]} == "$corpus" ]] && paths=()
		paths+=("$a")
	else
		opts+=("$a")
	fi
done

fixture_start slt 2>"$logs/fixture.err"
frc=$?
cat "$logs/fixture.err" >&2
if ((frc == 3)); then
	echo "# slt: skipped, this tree has no server yet"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
elif ((frc != 0)); then
	echo "# slt: server did not start: $(grep -v 'log kept' "$logs/fixture.err" | head -1)"
	grep 'log kept' "$logs/fixture.err" | sed 's/^/#   /'
	echo "0 passed, 1 failed"
	exit 1
fi
echo "# slt ($mode) against $FIX_HOST:$FIX_PORT"
"$runner" -h "$FIX_HOST" -p "$FIX_PORT" --root "$corpus" "${budget[@]}" \
	--thresholds "$here/thresholds.conf" --known "$here/known_failures.txt" --failures "$logs/failures.txt" --json "$logs/summary.json" \
	"${opts[@]}" "${paths[@]}" | tee "$logs/report.txt"
rc=${PIPESTATUS[0]}
server_ok=1
keep=()
((rc != 0)) && keep=(--keep)
if ! fixture_stop "${keep[@]}"; then
	server_ok=0
	echo "# slt: the server did not exit cleanly${FIX_KEPT_LOG:+; log: $FIX_KEPT_LOG}"
fi
echo "# slt: failing records with SQL, expected and got: $logs/failures.txt"
line=$(grep -E '^directories: [0-9]+ passed, [0-9]+ failed' "$logs/report.txt" | tail -1)
if [[ -z $line ]]; then
	echo "# slt: slt_runner exited with status $rc without a report"
	echo "0 passed, 1 failed"
	exit 1
fi
p=$(sed -E 's/^directories: ([0-9]+) passed.*/\1/' <<<"$line")
f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
((server_ok)) || f=$((f + 1))
((rc > 1)) && f=$((f + 1))
echo "$p passed, $f failed"
((f == 0))
