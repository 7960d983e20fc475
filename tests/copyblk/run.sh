#!/usr/bin/env bash
# run.sh — COPY inside a transaction block against concurrent writers of the same
# keys (the key sets of sql/txn_lock.c, which lock a COPY's keys without a row lock
# each): an INSERT of a key a COPY in an open block loaded waits for that block and
# then fails with 23505 (or succeeds after a ROLLBACK); a COPY of a key another open
# transaction inserted waits, then fails; two COPYs of overlapping keys; a deadlock
# between a COPY's keys and a row lock is detected (40P01). The isolation tester
# cannot send COPY data, so psql sessions run side by side, one held in its
# transaction (psql_suite.sh's hold) until pg_locks shows the other waiting for it:
# no fixed pause, so a loaded machine changes nothing.
# The same with a unique secondary index (the COPY's claims on its values, locked
# as key sets too): an INSERT or a COPY of a claimed value waits; ROLLBACK TO
# SAVEPOINT gives the values claimed after the savepoint back at once; pg_locks
# while a COPY's block is open and a writer waits for it.
# PostgreSQL 15 gives the same results (STRATA_BIN=tests/lib/pg_as_strata.sh).
#
# usage: tests/copyblk/run.sh        Last line: "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/lib/psql_suite.sh"
suite_start copyblk || exit 1
seq_rows() { for ((i = $1; i <= $2; i++)); do printf '%d\tcopy\n' "$(((i * 7919) % ($2 - $1 + 1) + $1))"; done; }
seq_rows 1 3000 >"$work/a.tsv"     # 1..3000, not in key order
seq_rows 2001 4000 >"$work/b.tsv"  # overlaps a.tsv on 2001..3000
seq_rows 6001 7000 >"$work/c.tsv"
reset() { q -c "DROP TABLE IF EXISTS cb" -c "CREATE TABLE cb (id int PRIMARY KEY, v text)" >/dev/null; }
# tq ARGS...: q for a statement that must not wait for a held session (the
# timeout only ends a wrong wait).
tq() { timeout 120 psql -X -q -A -t -h "$FIX_HOST" -p "$FIX_PORT" -U postgres postgres "$@" 2>&1; }

# contend SQL END ARGS...: session s1 runs SQL in an open transaction, then q ARGS
# (session w) runs; waited = 0 once pg_locks shows w waiting for a lock; then s1
# ENDs (COMMIT or ROLLBACK) and w finishes: out = w's output.
contend() {
	local sql=$1 end=$2
	shift 2
	hold s1 "$sql"
	run_bg w "$@"
	blocked w
	waited=$?
	finish s1 "$end"
	finish w
}

# 1. INSERT of a loaded key waits for the COPY's block, then 23505.
reset
contend "\\copy cb FROM '$work/a.tsv'" COMMIT -c "INSERT INTO cb VALUES (1500, 'insert')"
[[ $out = *"duplicate key value violates unique constraint \"cb_pkey\""* && $waited = 0 ]]
check insert-waits-then-23505 $? "waited: $waited, got: $out"
[[ $(q -c "SELECT count(*), min(v), max(v) FROM cb") = "3000|copy|copy" ]]
check copy-committed $? "$(q -c 'SELECT count(*), min(v), max(v) FROM cb')"

# 2. After the COPY's ROLLBACK the waiting INSERT succeeds.
reset
contend "\\copy cb FROM '$work/a.tsv'" ROLLBACK -c "INSERT INTO cb VALUES (1500, 'insert')"
[[ -z $out && $waited = 0 && $(q -c "SELECT count(*), max(v) FROM cb") = "1|insert" ]]
check insert-after-rollback $? "waited: $waited, got: $out / $(q -c 'SELECT count(*), max(v) FROM cb')"

# 3. A COPY of a key another open transaction inserted waits, then 23505 at its line.
reset
contend "INSERT INTO cb VALUES (2500, 'insert')" COMMIT -c "BEGIN" -c "\\copy cb FROM '$work/b.tsv'" -c "COMMIT"
line=$(grep -n '^2500	' "$work/b.tsv" | cut -d: -f1)
[[ $out = *"Key (id)=(2500) already exists."* && $out = *"COPY cb, line $line"* && $waited = 0 &&
	$(q -c "SELECT count(*) FROM cb") = 1 ]]
check copy-waits-for-insert $? "waited: $waited, got: $out"

# 4. Two COPYs in blocks, overlapping keys: the second waits, then 23505.
reset
contend "\\copy cb FROM '$work/a.tsv'" COMMIT -c "BEGIN" -c "\\copy cb FROM '$work/b.tsv'" -c "COMMIT"
[[ $out = *"duplicate key value violates unique constraint"* && $waited = 0 &&
	$(q -c "SELECT count(*) FROM cb") = 3000 ]]
check copy-waits-for-copy $? "waited: $waited, got: $out / $(q -c 'SELECT count(*) FROM cb')"

# 5. Deadlock: s1 loaded 1..3000, s2 inserted 5000; s1 inserts 5000 (waits for
# s2), then s2 inserts 10 (s1's). One of them fails with 40P01, the other commits.
reset
hold s1 "\\copy cb FROM '$work/a.tsv'"
hold s2 "INSERT INTO cb VALUES (5000, 's2')"
send s1 "INSERT INTO cb VALUES (5000, 's1')"
blocked s1
waited=$?
send s2 "INSERT INTO cb VALUES (10, 's2')"
send s1 COMMIT
send s2 COMMIT
finish s1
out1=$out
finish s2
out2=$out
n=$(q -c "SELECT count(*) FROM cb")
if [[ $out1 = *"deadlock detected"* ]]; then
	[[ $n = 2 && $out2 != *ERROR* ]]
else
	[[ $out2 = *"deadlock detected"* && $n = 3001 ]]
fi
[[ $? = 0 && $waited = 0 ]]
check deadlock-detected $? "s1 waited: $waited, s1: $out1 / s2: $out2 / rows $n"

# 6. A COPY of other keys does not wait for an open COPY of the same table: it
# completes while that block stays open.
reset
hold s1 "\\copy cb FROM '$work/a.tsv'"
out2=$(tq -c "BEGIN" -c "\\copy cb FROM '$work/c.tsv'" -c "COMMIT")
rc=$?
finish s1 COMMIT
[[ -z $out2 && $rc = 0 && $(q -c "SELECT count(*) FROM cb") = 4000 ]]
check disjoint-copies-run-together $? "status $rc, got: $out2"

# Unique secondary indexes (a UNIQUE constraint on u): the COPY's blocks claim
# their values, so concurrent writers of a value wait as for a single-row insert.
reset_u() { q -c "DROP TABLE IF EXISTS cu" -c "CREATE TABLE cu (id int PRIMARY KEY, u int UNIQUE, v text)" >/dev/null; }
awk -F'\t' '{ printf "%d\t%d\tcopy\n", $1, $1 * 10 }' "$work/a.tsv" >"$work/ua.tsv" # u = id * 10

# 7. INSERT of a unique value an open COPY loaded (another key) waits, then 23505.
reset_u
contend "\\copy cu FROM '$work/ua.tsv'" COMMIT -c "INSERT INTO cu VALUES (9999, 15000, 'insert')"
[[ $out = *"duplicate key value violates unique constraint \"cu_u_key\""* && $out = *"Key (u)=(15000) already exists."* &&
	$waited = 0 && $(q -c "SELECT count(*) FROM cu") = 3000 ]]
check unique-insert-waits-then-23505 $? "waited: $waited, got: $out"

# 8. After the COPY's ROLLBACK the waiting INSERT of the value succeeds.
reset_u
contend "\\copy cu FROM '$work/ua.tsv'" ROLLBACK -c "INSERT INTO cu VALUES (9999, 15000, 'insert')"
[[ -z $out && $waited = 0 && $(q -c "SELECT count(*), max(v) FROM cu") = "1|insert" ]]
check unique-insert-after-rollback $? "waited: $waited, got: $out / $(q -c 'SELECT count(*), max(v) FROM cu')"

# 9. A COPY of a value another open transaction inserted waits, then 23505 at its line.
reset_u
contend "INSERT INTO cu VALUES (9999, 25000, 'insert')" COMMIT -c "BEGIN" -c "\\copy cu FROM '$work/ua.tsv'" -c "COMMIT"
line=$(grep -n '^2500	' "$work/ua.tsv" | cut -d: -f1)
[[ $out = *"Key (u)=(25000) already exists."* && $out = *"COPY cu, line $line"* && $waited = 0 &&
	$(q -c "SELECT count(*) FROM cu") = 1 ]]
check unique-copy-waits-for-insert $? "waited: $waited, got: $out"

# 10. pg_locks while a COPY's block is open: its relation lock, transaction id and
# virtual transaction id, as PostgreSQL shows them (row locks are not listed); a
# writer waiting for one of its values shows a ShareLock on the COPY's transaction
# id, not granted.
reset_u
hold copier "\\copy cu FROM '$work/ua.tsv'"
locks=$(q -c "SELECT l.locktype, l.relation::regclass, l.mode, l.granted FROM pg_locks l
	JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name = 'copier' ORDER BY 1, 2, 3" | tr '\n' ' ')
[[ $locks = "relation|cu|RowExclusiveLock|t transactionid||ExclusiveLock|t virtualxid||ExclusiveLock|t " ]]
check pg-locks-open-copy $? "got: $locks"
run_bg waiter -c "INSERT INTO cu VALUES (9999, 15000, 'insert')"
blocked waiter
wait_lock=$(q -c "SELECT w.locktype, w.mode, w.granted FROM pg_locks w
	JOIN pg_stat_activity wa ON wa.pid = w.pid AND wa.application_name = 'waiter'
	JOIN pg_locks h ON h.locktype = 'transactionid' AND h.transactionid = w.transactionid AND h.granted
	JOIN pg_stat_activity ha ON ha.pid = h.pid AND ha.application_name = 'copier'
	WHERE NOT w.granted")
finish copier COMMIT
finish waiter
[[ $wait_lock = "transactionid|ShareLock|f" && $out = *"Key (u)=(15000) already exists."* ]]
check pg-locks-waiter $? "got: $wait_lock / $out"

# 11. Two COPYs in blocks whose unique values overlap (other primary keys): the
# second waits for the first's key set of values, then 23505 at its first line;
# after the first's ROLLBACK it loads everything.
awk 'BEGIN { for (i = 1; i <= 1000; i++) printf "%d\t%d\tcopy2\n", 10000 + i, 20000 + ((i * 7919) % 1000 + 1) * 10 }' \
	>"$work/ub.tsv" # u: 20010..30000 scrambled, all loaded by ua.tsv too
first_u=$(head -1 "$work/ub.tsv" | cut -f2)
reset_u
contend "\\copy cu FROM '$work/ua.tsv'" COMMIT -c "BEGIN" -c "\\copy cu FROM '$work/ub.tsv'" -c "COMMIT"
[[ $out = *"Key (u)=($first_u) already exists."* && $out = *"COPY cu, line 1"* && $waited = 0 &&
	$(q -c "SELECT count(*) FROM cu") = 3000 ]]
check unique-copy-waits-for-copy $? "waited: $waited, got: $out"
reset_u
contend "\\copy cu FROM '$work/ua.tsv'" ROLLBACK -c "BEGIN" -c "\\copy cu FROM '$work/ub.tsv'" -c "COMMIT"
[[ -z $out && $waited = 0 && $(q -c "SELECT count(*), min(v), max(v) FROM cu") = "1000|copy2|copy2" ]]
check unique-copy-after-copy-rollback $? "waited: $waited, got: $out / $(q -c 'SELECT count(*) FROM cu')"

# 12. ROLLBACK TO SAVEPOINT gives back the keys and values a COPY locked after the
# savepoint (all its blocks): an INSERT of one of them then goes ahead at once,
# while the transaction stays open; a value
# inserted before the savepoint stays locked.
reset_u
hold sp1 "INSERT INTO cu VALUES (8888, 77770, 'before')" "SAVEPOINT s" \
	"\\copy cu FROM '$work/ua.tsv'" "ROLLBACK TO SAVEPOINT s"
out_free=$(tq -c "INSERT INTO cu VALUES (9999, 15000, 'insert')")
rc_free=$?
out_key=$(tq -c "INSERT INTO cu VALUES (1500, 5, 'insert')") # a primary key of the COPY
rc_key=$?
run_bg w -c "INSERT INTO cu VALUES (9998, 77770, 'insert')"
blocked w
waited=$?
finish sp1 COMMIT
sp1_out=$out
finish w
[[ -z $out_free && $rc_free = 0 && -z $out_key && $rc_key = 0 &&
	$out = *"Key (u)=(77770) already exists."* && $waited = 0 &&
	$(q -c "SELECT count(*), min(id), max(id) FROM cu") = "3|1500|9999" ]]
check savepoint-rollback-frees-keys-and-values $? "value: $rc_free $out_free / key: $rc_key $out_key / locked value waited: $waited, $out / $sp1_out"

q -c "DROP TABLE cu" >/dev/null
q -c "DROP TABLE cb" >/dev/null
suite_end
