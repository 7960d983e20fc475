#!/usr/bin/env bash
# run_all.sh — runs every test suite listed in tests/suites.list against one build
# and prints one summary line per suite and a final "N passed, N failed" line.
# `make test` runs it on build/asan; `make soak` adds --long.
#
# usage: tests/run_all.sh [BUILD_DIR] [--long] [--only NAME[,NAME...]] [-v]
#   BUILD_DIR   default build/asan
#   --long      long variants (full slt corpus, @long suites)
#   --only      run just these suites
#   -v          show each suite's full output as it runs
# Each suite's output goes to BUILD_DIR/test-logs/<suite>.log; suites keep their own
# failure artefacts (diffs, server logs) under BUILD_DIR/test-logs/. The directory
# is emptied at the start of every run. Exit status: 0 only if every suite passed.
# A suite is bounded by STRATA_SUITE_TIMEOUT seconds (default 1800, 7200 with --long).
# STRATA_SUITES_FILE replaces tests/suites.list (tests/lib/selftest.sh uses it).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2

build=
long=0
only=
verbose=0
while (($#)); do
	case $1 in
	--long) long=1; shift ;;
	--only) only=$2; shift 2 ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) sed -n '2,14p' "$0"; exit 0 ;;
	-*) echo "run_all: unknown option $1" >&2; exit 2 ;;
	*) build=$1; shift ;;
	esac
done
build=${build:-build/asan}
[[ -d $build ]] || { echo "run_all: no build directory $build (run make asan)" >&2; exit 2; }
build=$(cd "$build" && pwd)
logs=$build/test-logs
rm -rf "$logs"
mkdir -p "$logs"
export STRATA_BUILD=$build STRATA_LOGS=$logs STRATA_LONG=$long
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
suite_timeout=${STRATA_SUITE_TIMEOUT:-$((long ? 7200 : 1800))}

total_p=0
total_f=0
total_s=0
failed_suites=()
t_all=$SECONDS

# run_suite NAME COMMAND...
run_suite() {
	local name=$1
	shift
	local log=$logs/$name.log t0 rc
	t0=$(date +%s.%N)
	if ((verbose)); then
		STRATA_SUITE=$name timeout --kill-after=30 "$suite_timeout" bash -c "$*" </dev/null 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	else
		STRATA_SUITE=$name timeout --kill-after=30 "$suite_timeout" bash -c "$*" </dev/null >"$log" 2>&1
		rc=$?
	fi
	local secs line p=0 f=0 s=0
	secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
	line=$(grep -E '(^|[^0-9])[0-9]+ passed' "$log" | tail -1)
	if [[ -n $line ]]; then
		[[ $line =~ ([0-9]+)\ passed ]] && p=${BASH_REMATCH[1]}
		[[ $line =~ ([0-9]+)\ failed ]] && f=${BASH_REMATCH[1]}
		[[ $line =~ ([0-9]+)\ skipped ]] && s=${BASH_REMATCH[1]}
	elif ((rc == 0)); then
		p=1
	fi
	local note=
	if ((rc == 124 || rc == 137)); then
		note=" — timed out after $suite_timeout s"
		((f == 0)) && f=1
	elif ((rc != 0 && f == 0)); then
		note=" — exited with status $rc"
		f=1
	elif ((rc == 0 && f > 0)); then
		note=" — reported failures"
	fi
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	total_s=$((total_s + s))
	local skipped=
	((s > 0)) && skipped=", $s skipped"
	echo "$name: $p passed, $f failed$skipped ($secs s)$note"
	grep -E '^# ' "$log" | sed 's/^# /    /'
	if ((rc != 0 || f > 0)); then
		failed_suites+=("$name")
		echo "    log: $log"
		if ! grep -qE '^# ' "$log"; then
			tail -n 20 "$log" | sed 's/^/    | /'
		fi
	fi
}

ran=0
while read -r name rest; do
	[[ -z $name || $name == \#* ]] && continue
	if [[ $rest == @long* ]]; then
		((long)) || continue
		rest=${rest#@long}
	fi
	if [[ -n $only && ",$only," != *",$name,"* ]]; then
		continue
	fi
	ran=$((ran + 1))
	run_suite "$name" "$rest"
done <"${STRATA_SUITES_FILE:-$root/tests/suites.list}"
if ((ran == 0)); then
	echo "run_all: no suite matched${only:+ --only $only}" >&2
	exit 2
fi

echo "all suites: $((SECONDS - t_all)) s"
if ((${#failed_suites[@]})); then
	echo "failed: ${failed_suites[*]}; logs, diffs and server logs under $logs/"
fi
skipped=
((total_s > 0)) && skipped=", $total_s skipped"
echo "$total_p passed, $total_f failed$skipped"
((total_f == 0 && ${#failed_suites[@]} == 0))
