#!/usr/bin/env bash
# run.sh — an autocommit COPY big enough for several sorted flushes (sql/copy.c
# flushes every ~40 MB of rows; flushes of 16 MB and more stream straight into
# run files of their own, kv_batch_sorted_runs): rows in random key order are all
# there and in key order after the load and after a restart; a duplicate of a key
# of the first flush near the end of the load fails with 23505 at its line and
# leaves nothing behind; another big load into the filled table then checks its
# keys against the stored rows; the server killed after the acknowledgement has
# everything after its restart.
# PostgreSQL 15 gives the same results (STRATA_TEST_PORT=55432 with pgref).
#
# usage: tests/copybig/run.sh        Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/psql_suite.sh"
suite_start copybig || exit 1
N=240000
pad=$(printf 'x%.0s' $(seq 400))
# rows(FIRST, COUNT): keys FIRST..FIRST+COUNT-1 in a scrambled order, 400-byte values.
rows() { awk -v f="$1" -v n="$2" -v pad="$pad" 'BEGIN { for (i = 0; i < n; i++) { k = f + (i * 7919) % n; printf "%d\t%d\t%s\n", k, k % 97, pad } }'; }
rows 1 $N >"$work/a.tsv"
# The same with line N-100 replaced by a key of the first lines (a later flush).
awk -v n=$N 'NR == n - 100 { $1 = 7920; print; next } { print }' OFS='\t' "$work/a.tsv" >"$work/dup.tsv"
rows $((N + 1)) $((N / 2)) >"$work/b.tsv"
sums() { q -c "SELECT count(*), sum(id), sum(g), min(id), max(id), count(DISTINCT length(v)) FROM cb"; }

q -c "CREATE TABLE cb (id int PRIMARY KEY, g int NOT NULL, v text)" >/dev/null
out=$(q -c "\\copy cb FROM '$work/dup.tsv'")
[[ $out = *"duplicate key value violates unique constraint \"cb_pkey\""* && $out = *"Key (id)=(7920) already exists."* &&
	$out = *"COPY cb, line $((N - 100))"* ]]
check duplicate-in-late-flush $? "got: $out"
[[ $(q -c "SELECT count(*) FROM cb") = 0 ]]
check duplicate-leaves-nothing $? "$(q -c 'SELECT count(*) FROM cb')"

want="$N|$((N * (N + 1) / 2))|$(awk -v n=$N 'BEGIN { s = 0; for (k = 1; k <= n; k++) s += k % 97; print s }')|1|$N|1"
out=$(q -c "\\copy cb FROM '$work/a.tsv'")
[[ -z $out && $(sums) = "$want" ]]
check big-load $? "got: $out / $(sums), want $want"
# Key order: every id follows the one before it.
[[ $(q -c "SELECT count(*) FROM (SELECT id - lag(id) OVER (ORDER BY id) AS d FROM cb) x WHERE d <> 1") = 0 ]]
check big-load-key-order $? "$(q -c 'SELECT count(*) FROM cb')"
[[ $(q -c "SELECT g, length(v) FROM cb WHERE id = 123457") = "$((123457 % 97))|400" ]]
check big-load-point-read $? "$(q -c 'SELECT g, length(v) FROM cb WHERE id = 123457')"

# A second big load into the filled table: a stored key is a duplicate.
out=$(q -c "\\copy cb FROM '$work/dup.tsv'")
[[ $out = *"duplicate key value violates unique constraint \"cb_pkey\""* && $out = *"COPY cb, line 1"* ]]
check duplicate-of-stored-row $? "got: $out"
out=$(q -c "\\copy cb FROM '$work/b.tsv'")
M=$((N + N / 2))
[[ -z $out && $(q -c "SELECT count(*), sum(id), max(id) FROM cb") = "$M|$((M * (M + 1) / 2))|$M" ]]
check second-big-load $? "got: $out / $(q -c 'SELECT count(*), sum(id), max(id) FROM cb')"

# Killed after the acknowledgement, restarted on the same data: all there.
if [[ -z ${STRATA_TEST_PORT:-} ]]; then
	bin=$(fixture_bin)
	kill -9 "$FIX_PID"
	wait "$FIX_PID" 2>/dev/null
	FIX_PORT=$(fixture_free_port)
	"$bin" --listen 127.0.0.1 --port "$FIX_PORT" --data-dir "$FIX_DIR/data" >>"$FIX_LOG" 2>&1 &
	FIX_PID=$!
	fixture_wait_port "$FIX_HOST" "$FIX_PORT" "$FIX_PID" 120
	[[ $(q -c "SELECT count(*), sum(id), max(id) FROM cb") = "$M|$((M * (M + 1) / 2))|$M" ]]
	check after-kill-restart $? "$(q -c 'SELECT count(*), sum(id), max(id) FROM cb')"
fi
suite_end
