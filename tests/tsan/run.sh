#!/usr/bin/env bash
# run.sh — the tsan suite: data races under ThreadSanitizer (build/tsan, `make tsan`).
# The unit tests that start threads, then a real server (TSan build, small memstore so
# flushes and compactions run all along) under real clients: pgbench -i (COPY through
# the parse workers and the async writer, ADD PRIMARY KEY's two-half re-key on 100k
# rows), pgbench TPC-B and -S with -c 4 -j 2, a parallel COPY, CREATE INDEX, and
# parallel scans of a table while another session writes, flushes and compacts it.
# Every check compares with figures computed outside the server. Any TSan report fails:
# TSAN_OPTIONS halt_on_error=1 (the unit test or the server stops at once) and the
# fixture's log check. Suppressions (third-party libraries only): tests/tsan/suppressions.txt.
#
# usage: tests/tsan/run.sh [unit|server]   one part only
#        tests/tsan/run.sh --targets        the cmake targets the suite needs (make tsan)
# The build: STRATA_TSAN_BUILD (default build/tsan). Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

# Unit tests whose programs start threads (kvstore's writers, flushers and compactors,
# the per-thread caches, the WAL's prep thread, the sorted merge's second part, COPY's
# parse workers, index backfills beside writers, util's thread-local caches), as
# MODULE/PROGRAM[:CMOCKA-FILTER] (the filter keeps the single-threaded tests of a long
# program out: STRATA_UNIT_FILTER, read by its main()).
units=(kvstore/concurrency_test kvstore/point_test:test_thread_cache kvstore/sst_async_test
	kvstore/memstore_test kvstore/wal_test kvstore/backup_test kvstore/compaction_test
	kvstore/sorted_test sql/copy_par_test 'index/build_test:test_backfill*' util/arena_cache_test
	util/tls_test)
if [[ ${1:-} == --targets ]]; then
	names=("${units[@]%%:*}")
	echo strata "${names[@]#*/}"
	exit 0
fi

build=${STRATA_TSAN_BUILD:-$root/build/tsan}
logs=${STRATA_LOGS:-$build/test-logs}/tsan
mkdir -p "$logs"
if [[ ! -x $build/server/strata ]]; then
	echo "# tsan: no TSan build in $build (make tsan)"
	echo "0 passed, 1 failed"
	exit 1
fi
# detect_deadlocks=0: TSan's lock-order detector holds at most 64 mutexes per thread and
# aborts (CHECK failed) beyond; a commit locks every table of its batch (kvstore/commit.c).
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:detect_deadlocks=0:suppressions=$root/tests/tsan/suppressions.txt${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export STRATA_BIN=$build/server/strata
. "$root/tests/lib/fixture.sh"

pass=0 fail=0
check() { # NAME CONDITION-RESULT DETAIL
	if [[ $2 = 0 ]]; then
		pass=$((pass + 1)); echo "ok     $1 (at $((SECONDS - t0)) s)"
	else
		fail=$((fail + 1)); echo "FAIL   $1: $3"; echo "# tsan: $1 failed: ${3:0:200}"
	fi
}

part=${1:-all}
# 1. Unit tests, two at a time (each under TSan's 5-15x slowdown).
run_unit() { # MODULE/PROGRAM[:FILTER]: its output in $logs/PROGRAM.log, status in .rc
	local prog=${1%%:*} filter= name
	[[ $1 == *:* ]] && filter=${1#*:}
	name=${prog#*/}
	(cd "$build/${prog%/*}" && env ${filter:+STRATA_UNIT_FILTER="$filter"} timeout 300 "./$name") \
		>"$logs/$name.log" 2>&1
	echo $? >"$logs/$name.rc"
}
t0=$SECONDS
[[ $part = server ]] && units=()
for u in "${units[@]}"; do
	while (($(jobs -rp | wc -l) >= 2)); do wait -n; done
	run_unit "$u" &
done
wait
for u in "${units[@]}"; do
	name=${u%%:*} name=${name#*/}
	[[ $(cat "$logs/$name.rc" 2>/dev/null) = 0 ]]
	check "unit/$name" $? "exit status $(cat "$logs/$name.rc" 2>/dev/null); log: $logs/$name.log"
done
echo "# tsan: unit tests $((SECONDS - t0)) s"
if [[ $part = unit ]]; then
	echo "$pass passed, $fail failed"
	((fail == 0))
	exit
fi

# 2. The server under real clients.
t0=$SECONDS
fixture_start tsan --memstore-flush-kb 256 --wal-segment-kb 512 || {
	check server-start 1 "fixture_start failed"
	echo "$pass passed, $fail failed"
	exit 1
}
work=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
trap 'fixture_stop; rm -rf "$work"' EXIT
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$FIX_HOST" -p "$FIX_PORT" -U postgres postgres "$@" 2>&1; }
pgb() { pgbench -h "$FIX_HOST" -p "$FIX_PORT" -U postgres "$@" postgres 2>&1; }

# pgbench -i: client-side COPY of 100k rows, then ADD PRIMARY KEY (the re-key's halves).
out=$(pgb -i -I dtgvp -s 1 -q)
check pgbench-init $? "$out"
got=$(q -c "SELECT count(*), count(DISTINCT aid), sum(aid) FROM pgbench_accounts")
[[ $got = "100000|100000|5000050000" ]]
check pgbench-init-rows $? "$got"

# TPC-B and select-only, 4 clients on 2 threads; balances must still add up.
for mode in tpcb select; do
	args=(-n -c 4 -j 2 -T 4)
	[[ $mode = select ]] && args+=(-S)
	out=$(pgb "${args[@]}")
	rc=$?
	[[ $rc = 0 && $out =~ number\ of\ transactions\ actually\ processed:\ ([0-9]+) ]] &&
		((BASH_REMATCH[1] > 0))
	check "pgbench-$mode" $? "rc $rc: $(tail -n 5 <<<"$out")"
done
got=$(q -c "SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches),
	(SELECT sum(tbalance) FROM pgbench_tellers), (SELECT coalesce(sum(delta), 0) FROM pgbench_history)")
IFS='|' read -r ab bb tb hd <<<"$got"
[[ -n $ab && $ab = "$bb" && $ab = "$tb" && $ab = "$hd" ]]
check pgbench-balances $? "$got"

# A parallel COPY (2 parse workers; 60k rows are 10 chunks) of 60k rows into a table with a primary key in
# scrambled key order (the sorted path) and into one without (the bulk batch).
awk 'BEGIN { for (i = 0; i < 60000; i++) { k = (i * 7919) % 60000; print k "," (k % 1000) ",\"t " k ", x\"" } }' \
	>"$work/rows.csv"
want=$(awk -F, '{ n++; s += $1; a += $2 } END { printf "%.0f|%.0f|%.0f\n", n, s, a }' "$work/rows.csv")
q -c "CREATE TABLE pk (id int PRIMARY KEY, a int, t text)" -c "CREATE TABLE nopk (id int, a int, t text)" >/dev/null
for t in pk nopk; do
	out=$(q -c "SET strata.copy_workers = 2" -c "\\copy $t FROM '$work/rows.csv' WITH (FORMAT csv)")
	check "copy-parallel-$t" $? "$out"
	got=$(q -c "SELECT count(*), sum(id), sum(a) FROM $t")
	[[ $got = "$want" ]]
	check "copy-parallel-$t-rows" $? "got $got, want $want"
done

# CREATE INDEX over the loaded table; the index answers as the table does.
out=$(q -c "CREATE INDEX pk_a ON pk (a)")
check create-index $? "$out"
want=$(awk -F, '$2 == 417 { n++; s += $1 } END { printf "%.0f|%.0f\n", n, s }' "$work/rows.csv")
got=$(q -c "SET enable_seqscan = off" -c "SELECT count(*), sum(id) FROM pk WHERE a = 417")
[[ $got = "$want" ]]
check create-index-lookup $? "got $got, want $want"

# Parallel scans of nopk (2 workers each) from two sessions while a third appends rows
# in batches and flushes and compacts the table: every scan sees whole batches only.
scanner() {
	local i out
	for ((i = 0; i < 6; i++)); do
		out=$(q -c "SET max_parallel_workers_per_gather = 2" \
			-c "SELECT count(*) % 5000, sum(a) - (count(*) - 60000) / 5000 * 2500000 FROM nopk") ||
			{ echo "scan $i: $out"; return 1; }
		[[ $out = "0|$(cut -d'|' -f3 <<<"$want0")" ]] || { echo "scan $i: $out"; return 1; }
	done
}
want0=$(q -c "SELECT count(*), sum(id), sum(a) FROM nopk")
plan=$(q -c "SET max_parallel_workers_per_gather = 2" -c "EXPLAIN SELECT count(*), sum(a) FROM nopk")
[[ $plan = *Gather* ]]
check scans-parallel-plan $? "$plan"
scanner >"$work/scan1" 2>&1 &
s1=$!
scanner >"$work/scan2" 2>&1 &
s2=$!
wout=
for ((b = 0; b < 6; b++)); do
	# 5000 rows with a = 500 each: a batch adds 2500000 to sum(a).
	wout+=$(q -c "INSERT INTO nopk SELECT g, 500, 'w' FROM generate_series(1, 5000) g")
	wout+=$(q -c "SELECT strata_flush('nopk')")
	# A minor compaction midway, a major one at the end (each is slow under TSan).
	((b == 2)) && wout+=$(q -c "SELECT strata_compact('nopk', false)")
	((b == 5)) && wout+=$(q -c "SELECT strata_compact('nopk')")
done
wait "$s1"
r1=$?
wait "$s2"
r2=$?
((r1 == 0 && r2 == 0))
check scans-during-flush-compact $? "$(cat "$work/scan1" "$work/scan2") $wout"
got=$(q -c "SELECT count(*) FROM nopk")
[[ $got = 90000 ]]
check writes-during-scans $? "$got; writer: $wout"

fixture_stop
check server-clean-exit $? "no clean exit or a TSan report; log: ${FIX_KEPT_LOG:-none}"
trap 'rm -rf "$work"' EXIT
echo "# tsan: server workload $((SECONDS - t0)) s"
echo "$pass passed, $fail failed"
((fail == 0))
