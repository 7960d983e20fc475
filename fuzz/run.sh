#!/usr/bin/env bash
# run.sh — builds the libFuzzer targets (clang, build/fuzz) and runs each one:
# fuzz/fuzz_*.c (SQL through the engine, key decoding, sorted-file reader, log
# replay) and any other fuzz_* target the build has (wire/fuzz/fuzz_wire).
# A target passes if it runs its seed corpus (regression inputs included) and
# then fuzzes for the time given without a crash, sanitizer report, leak,
# timeout or out-of-memory. Findings are kept under $STRATA_LOGS/fuzz/.
#
# usage: fuzz/run.sh [--long] [--seconds S] [TARGET...]
#   default  FUZZ_SECONDS (6) seconds per target (make test, suite "fuzz")
#   --long   3600 s per target (make fuzz)
# New corpus entries go to a scratch copy, never into fuzz/corpus.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,13p' "$0"; exit 0 ;; esac
secs=${FUZZ_SECONDS:-6}
targets=()
while (($#)); do
	case $1 in
	--long) secs=${FUZZ_SECONDS:-3600}; shift ;;
	--seconds) secs=$2; shift 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
fbuild=${FUZZ_BUILD:-$root/build/fuzz}
logs=${STRATA_LOGS:-$root/build/test-logs}/fuzz
mkdir -p "$logs"
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	echo "# fuzz: clang or libclang-rt-14-dev is missing (scripts/deps.sh test installs them)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [[ ! -f $fbuild/CMakeCache.txt ]]; then
	CC=clang cmake -S "$root" -B "$fbuild" -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON -DSTRATA_FUZZ=ON \
		>"$logs/cmake.log" 2>&1 || { echo "# fuzz: cmake failed: $logs/cmake.log"; echo "0 passed, 1 failed"; exit 1; }
fi
if ! cmake --build "$fbuild" -j "${FUZZ_JOBS:-2}" >"$logs/build.log" 2>&1; then
	echo "# fuzz: build failed: $logs/build.log"
	echo "0 passed, 1 failed"
	exit 1
fi
if ((${#targets[@]} == 0)); then
	mapfile -t targets < <(find "$fbuild" -type f -name 'fuzz_*' -perm -u+x -printf '%f\n' | sort)
fi
passed=0 failed=0
for t in "${targets[@]}"; do
	t=${t#fuzz_}
	bin=$(find "$fbuild" -type f -name "fuzz_$t" -perm -u+x | head -1)
	if [[ -z $bin ]]; then
		echo "# fuzz: no target fuzz_$t"
		failed=$((failed + 1))
		continue
	fi
	seeds=()
	[[ -d fuzz/corpus/$t ]] && seeds+=("$root/fuzz/corpus/$t")
	[[ -d $t/fuzz/seeds ]] && seeds+=("$root/$t/fuzz/seeds") # a module's own (wire/fuzz)
	work=$(mktemp -d "${TMPDIR:-/tmp}/strata-fuzz-corpus-$t.XXXXXX")
	dict=()
	[[ -f fuzz/$t.dict ]] && dict=(-dict="$root/fuzz/$t.dict")
	start=$(date +%s)
	# 6 GB: one legal 1 GB text value (repeat('x', 10^9), as PostgreSQL
	# allows) is held a few times over (the value, its output, ASan's
	# redzones); the machine has 24 GB.
	(cd "$logs" && "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=6144 -print_final_stats=1 \
		-artifact_prefix="$logs/$t-" "${dict[@]}" "$work" "${seeds[@]}") >"$logs/$t.log" 2>&1
	rc=$?
	runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$')
	cov=$(grep -oE 'cov: [0-9]+' "$logs/$t.log" | tail -1)
	rm -rf "$work"
	if ((rc == 0)); then
		passed=$((passed + 1))
		echo "ok fuzz_$t: ${runs:-?} inputs in $(($(date +%s) - start)) s, ${cov:-cov ?}"
		echo "# fuzz_$t: ${runs:-?} inputs, ${cov:-?}"
	else
		failed=$((failed + 1))
		echo "FAIL fuzz_$t (exit $rc): $logs/$t.log"
		grep -E "ERROR:|runtime error|SUMMARY|Test unit written" "$logs/$t.log" | head -5
		echo "# fuzz: FAIL fuzz_$t: $logs/$t.log"
	fi
done
echo "$passed passed, $failed failed"
((failed == 0))
