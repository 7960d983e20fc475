#!/usr/bin/env bash
# run.sh — the "etcd" suite: Strata's kvstore on its etcd v3 backend
# (docs/scale-out.md). Starts a throwaway 3-member etcd cluster on free
# loopback ports (temp dirs), then:
#   model       kvstore/test/model_test (randomised operations checked against
#               a reference model, version GC included) with
#               KV_MODEL_STORE=etcd://..., then again with every batch of
#               more than one mutation as a large transaction
#   regress     a Strata server on the cluster runs tests/regress; files listed
#               in TOO_LARGE must instead fail with 54000 (none since large
#               transactions commit in chunks), every other file must pass
#   isolation   tests/isolation on one server on the cluster
#   shared      two servers on one cluster: DDL and rows written on one are
#               seen by the other, also after the writer is killed (SIGKILL); a
#               sequence used by both; REPEATABLE READ write conflicts (40001);
#               a READ COMMITTED counter hammered from both loses no update;
#               FOR UPDATE and upserts across the two servers (rc_lock.py);
#               foreign keys across the two servers (fk_lock.py, plain
#               and interleaved parents; fk_unique.py); catalog commits conflicting per object,
#               automatic ANALYZE beside DDL (cat_conflict.py); DDL
#               replacing one relation's storage, or building an index on
#               it, on both servers (storage_race.py); random
#               concurrent DDL, then three servers agree (cat_stress.py)
#   bigtxn      transactions beyond one etcd txn on two servers (bigtxn.py):
#               all-or-nothing for readers, other rows writable, 23505 leaves
#               nothing, older snapshots conflict, a killed committer's
#               locks expire
#   bigrows     a large transaction's row locks: another server's writes of
#               other rows of its table commit during it, of its rows wait
#               (bigrows.py)
#   bigcrash    a large transaction's committer killed after each step of
#               its commit: all rows or none, the table writable after the
#               lease, aborted intents deleted by a reader and VACUUM FULL;
#               one whose lease ends under it commits on a new lease
#               (bigcrash.py)
#   horizon     Strata drives etcd's revision compaction: a REPEATABLE READ
#               snapshot holds it, a SIGKILLed server stops holding it after
#               its lease (horizon.py; at the end, alone on the cluster)
#   boot        three servers started at once on a new prefix, several
#               rounds: one bootstrap of the catalog, the others load it
#               (boot_race.py)
#   temp        a SIGKILLed server's temporary schema dropped by another
#               server after its lease; a live one's kept (temp_sweep.py)
#   longscan    full forward scans of tables of several key distributions
#               (with versions, deletions, a large transaction's intents,
#               filters, row limits, 0x00/0xff keys, reverse) read every row
#               once, and etcd walks its index linearly; repeated LIMIT 10
#               scans walk a small part of the table each (longscan.py)
#   gc          version GC with no window and no history retention under a
#               long REPEATABLE READ transaction on another server
#   bggc        background version GC (STRATA_ETCD_GC_S=4, no window, no
#               retention): old versions go without VACUUM FULL while a
#               REPEATABLE READ snapshot on the other server reads them; a
#               larger table collected in paced steps, queries answered
#               meanwhile (bggc.py)
#   ops         backup while writers run on two servers, restore into a fresh
#               prefix and into an embedded data dir (rows as of the backup,
#               indexes valid, sequences continue), strata-kv verify clean
#               and with corrupted keys, strata-kv tables/scan/intents/stats
#               (ops.py)
#   failover    the etcd leader is killed during a write workload, restarted,
#               then the new leader is killed; every acknowledged commit is
#               still there afterwards
#   endpoints   each member killed in turn (restarted before the next): the
#               client fails over past the last endpoint back to the first
#   tls         a TLS-only member with client certificates and etcd
#               authentication (tls.py): statements run, a wrong CA, a wrong
#               password and a missing user are refused clearly
# Skips (0 passed, 0 failed, 1 skipped) when etcd is not installed.
# usage: tests/etcd/run.sh [--keep]   (STRATA_BUILD: build dir, default build/asan)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${STRATA_BUILD:-$root/build/asan}
logs=${STRATA_LOGS:-$build/test-logs}/etcd
keep=0
[[ ${1:-} == --keep ]] && keep=1
mkdir -p "$logs"
if ! command -v etcd >/dev/null 2>&1; then
	echo "# etcd: skipped, etcd is not installed (scripts/deps.sh test installs etcd-server)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
. "$here/cluster.sh"
. "$root/tests/lib/fixture.sh"

# Regression files whose single transactions must fail with 54000. None:
# transactions beyond --max-txn-ops commit as large transactions
# (docs/scale-out.md); ddl_alter_rekey, spill and copy_txn exercise them.
TOO_LARGE=""
# Regression files that meet an open bug of the etcd backend (docs/scale-out.md,
# "Not done yet"); not run here, named in the summary line. None at present.
ETCD_OPEN=""

tmp=$(mktemp -d "${STRATA_TMP:-/tmp}/strata-etcd.XXXXXX")
SERVER_PIDS=()
cleanup() {
	local p
	for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${SERVER_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	etcd_cluster_stop
	((keep)) || rm -rf "$tmp"
}
trap cleanup EXIT

passed=0
failed=0
ok() { echo "# ok   $1"; passed=$((passed + 1)); }
bad() { echo "# FAIL $1"; failed=$((failed + 1)); }

if ! etcd_cluster_start "$tmp/etcd"; then
	bad "cluster: etcd did not start (logs: $tmp/etcd)"
	keep=1
	echo "$passed passed, $failed failed"
	exit 1
fi
URI="etcd://$ETCD_ENDPOINTS"
bin=$(fixture_bin) || { bad "no server binary"; echo "$passed passed, $failed failed"; exit 1; }

# server_start NAME PREFIX [ARGS...]: starts a server on the cluster; sets SPORT, SPID.
server_start() {
	SPORT=$(fixture_free_port)
	mkdir -p "$tmp/$1"
	"$bin" --port "$SPORT" --data-dir "$tmp/$1" --store "$URI/$2" "${@:3}" >"$logs/$1.log" 2>&1 &
	SPID=$!
	SERVER_PIDS+=("$SPID")
	fixture_wait_port 127.0.0.1 "$SPORT" "$SPID" 60
}
# servers NAME PREFIX N [ARGS...]: starts N servers on PREFIX, logs NAME (N = 1)
# or NAME-a, NAME-b, ...; their ports in SP[], pids in SPIDS[]. If one does
# not start: bad "NAME: ..." and false.
servers() {
	local name=$1 prefix=$2 n=$3 i log letters=abcdefgh
	SP=() SPIDS=()
	for ((i = 0; i < n; i++)); do
		log=$name
		((n > 1)) && log=$name-${letters:i:1}
		if ! server_start "$log" "$prefix" "${@:4}"; then
			bad "$name: a server did not start (logs: $logs/$name*.log)"
			return 1
		fi
		SP+=("$SPORT") SPIDS+=("$SPID")
	done
}
# step NAME OK CMD...: runs CMD, its output in $got; ok "NAME: OK" (OK empty:
# the output), else bad "NAME: " and the output's lines other than "ok ..."
# (ops.py and bggc.py print one per check), naming and keeping STEP_LOGS
# if set. The status is CMD's.
step() {
	local name=$1 msg=$2
	shift 2
	if got=$("$@" 2>&1); then
		ok "$name: ${msg:-$got}"
		return 0
	fi
	bad "$name: $(grep -v '^ok' <<<"$got")${STEP_LOGS:+ (logs: $STEP_LOGS)}"
	[[ -z ${STEP_LOGS:-} ]] || keep=1
	return 1
}
py() { /usr/bin/python3 "$here/$1" "${@:2}"; }
q() { # PORT SQL...
	local p=$1
	shift
	psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$p" -U postgres "$@"
}

# ---------------------------------------------------------------- model
model=$build/kvstore/model_test
if [[ -x $model ]]; then
	# No revision compaction: the model reads at past, unpinned read points.
	if STRATA_ETCD_COMPACT_S=0 STRATA_ETCD_GC_WINDOW_S=0 KV_MODEL_STORE="$URI" KV_MODEL_SEEDS=${ETCD_MODEL_SEEDS:-2} KV_MODEL_OPS=${ETCD_MODEL_OPS:-800} \
		"$model" >"$logs/model.log" 2>&1; then
		ok "model: $(grep -c '^seed' "$logs/model.log") seeds of randomised kv operations match the model"
	else
		bad "model: see $logs/model.log"
	fi
	# Every batch of more than one mutation as a large transaction.
	if STRATA_ETCD_BIG_OPS=3 STRATA_ETCD_COMPACT_S=0 STRATA_ETCD_GC_WINDOW_S=0 KV_MODEL_STORE="$URI" \
		KV_MODEL_SEEDS=${ETCD_MODEL_SEEDS:-2} KV_MODEL_OPS=${ETCD_MODEL_OPS:-800} \
		"$model" >"$logs/model-big.log" 2>&1; then
		ok "model: the same with every multi-mutation batch committed as a large transaction"
	else
		bad "model with large transactions: see $logs/model-big.log"
	fi
else
	bad "model: $model not built"
fi

# ---------------------------------------------------------------- regress
# Files about paths the etcd store never takes: ddl_alter_rekey_halves loads
# a table of 64+ sorted-file blocks for the embedded engine's two-thread
# re-key (208 s on etcd under ASan, for the serial path regress covers).
EMBEDDED_ONLY="ddl_alter_rekey_halves"
if servers regress regress 1; then
	names=()
	for f in "$root"/tests/regress/sql/*.sql; do
		n=$(basename "$f" .sql)
		[[ " $ETCD_OPEN $EMBEDDED_ONLY " == *" $n "* ]] || names+=("$n")
	done
	# Slower than the embedded engine (spill: about 170 s under ASan on a
	# quiet machine): a longer per-file timeout.
	REGRESS_FILE_TIMEOUT=${REGRESS_FILE_TIMEOUT:-900} STRATA_LOGS=$logs "$root/tests/regress/run.sh" --host 127.0.0.1 --port "$SPORT" --logs "$logs/regress" \
		"${names[@]}" >"$logs/regress.txt" 2>&1
	rp=0 rf=0 bad_files=""
	for n in "${names[@]}"; do
		if [[ " $TOO_LARGE " == *" $n "* ]]; then
			if grep -q "54000: .*etcd cluster's limits" "$logs/regress/$n.out" 2>/dev/null; then
				rp=$((rp + 1))
			else
				rf=$((rf + 1)) bad_files+=" $n(no 54000)"
			fi
		elif grep -q "^ok  *$n " "$logs/regress.txt"; then
			rp=$((rp + 1))
		else
			rf=$((rf + 1)) bad_files+=" $n"
		fi
	done
	if ((rf == 0)); then
		ok "regress: $rp files${TOO_LARGE:+ ($(wc -w <<<"$TOO_LARGE") of them fail as designed with 54000: $TOO_LARGE)}${ETCD_OPEN:+ (not run, open etcd bug: $ETCD_OPEN)}"
	else
		bad "regress: $rf of $((rp + rf)) files failed:$bad_files (see $logs/regress.txt)"
	fi
fi

# ---------------------------------------------------------------- isolation
# The isolation suite (concurrent sessions, one server) on the etcd store.
if servers isolation isolation 1; then
	"$root/tests/isolation/run.sh" --host 127.0.0.1 --port "$SPORT" --logs "$logs/isolation" \
		>"$logs/isolation.txt" 2>&1
	line=$(tail -n 1 "$logs/isolation.txt")
	if [[ $line =~ ^([0-9]+)\ passed,\ 0\ failed ]] && ((BASH_REMATCH[1] > 0)); then
		ok "isolation: $line"
	else
		bad "isolation: $line (see $logs/isolation.txt)"
	fi
fi

# ---------------------------------------------------------------- shared
# Two servers on one key prefix: DDL and rows of one are seen by the other.
if servers shared shared 2; then
	PA=${SP[0]} SPA=${SPIDS[0]} PB=${SP[1]}
	want=$'100|5050\n101|5151|t\nERROR'
	got=$({
		q "$PA" -c "CREATE TABLE sh (id int PRIMARY KEY, v text)" \
			-c "INSERT INTO sh SELECT g, 'a' || g FROM generate_series(1, 100) g"
		q "$PB" -c "SELECT count(*), sum(id) FROM sh" -c "INSERT INTO sh VALUES (101, 'b')" \
			-c "ALTER TABLE sh ADD COLUMN note text"
		q "$PA" -c "UPDATE sh SET note = 'n' WHERE id = 101" \
			-c "SELECT count(*), sum(id), bool_and(note IS NOT DISTINCT FROM 'n' OR id < 101) FROM sh"
		q "$PB" -c "DROP TABLE sh"
		q "$PA" -c "SELECT * FROM sh" 2>&1 | grep -o '^ERROR' | head -1
	} 2>&1)
	if [[ $got == "$want" ]]; then
		ok "shared: a table created and filled on one server is read, altered and dropped on another"
	else
		bad "shared: want $(printf %q "$want"), got $(printf %q "$got")"
	fi
	# One sequence used by both servers: no value handed out twice.
	q "$PA" -c "CREATE TABLE sq (id serial PRIMARY KEY, who text)" >/dev/null
	for i in 1 2 3; do
		q "$PA" -c "INSERT INTO sq (who) SELECT 'a' FROM generate_series(1, 40)" >/dev/null
		q "$PB" -c "INSERT INTO sq (who) SELECT 'b' FROM generate_series(1, 40)" >/dev/null
	done
	got=$(q "$PB" -c "SELECT count(*), count(DISTINCT id), count(DISTINCT who) FROM sq; DROP TABLE sq" 2>&1)
	if [[ $got == "240|240|2" ]]; then
		ok "shared: a serial column filled from both servers hands out 240 distinct values"
	else
		bad "shared: sequence used by two servers: want 240|240|2, got $got"
	fi
	# REPEATABLE READ on two servers: first committer wins, the other gets 40001.
	step "shared: REPEATABLE READ updates of one row on two servers" "the second commit fails with 40001" \
		py rr_conflict.py "$PA" "$PB"
	# READ COMMITTED read-modify-write of one row from both servers: no lost update.
	step "shared: READ COMMITTED counter updated from 8 sessions on two servers" "" py rc_counter.py "$PA" "$PB" 4 30
	# Row locks and upserts across the two servers: FOR UPDATE serializes
	# read-modify-write cycles (the loser retries on 40001), ON CONFLICT DO
	# UPDATE updates the newest version.
	step "shared: FOR UPDATE and upserts from 6 sessions on two servers" "" py rc_lock.py "$PA" "$PB" 3 12
	# Foreign keys across the two servers: a child's insert and its parent's
	# delete on different servers never both commit (no orphan).
	step "shared: foreign keys from 4 sessions on two servers" "" py fk_lock.py "$PA" "$PB" 2 20
	# A foreign key to a unique non-key column: changing the referenced
	# value loses (40001) to another server's newer child.
	step "shared: foreign key to a unique non-key column on two servers" "" py fk_unique.py "$PA" "$PB"
	# A foreign key whose parent is an interleaved row: the parent's delete
	# and a new child on different servers never both commit.
	step "shared: foreign keys to interleaved parents from 4 sessions on two servers" "" \
		py fk_lock.py --interleaved "$PA" "$PB" 2 15
	# Catalog commits conflict per object: DDL and ANALYZE on different
	# tables on the two servers both commit, on one object the second
	# fails with 40001; automatic ANALYZE runs beside the other's DDL.
	step "shared: catalog conflicts per object" "" py cat_conflict.py "$PA" "$PB"
	# DDL replacing a relation's storage on one server while a transaction on
	# the other builds an index on it or replaces it too: 40001, the
	# winner's storage and rows kept (storage_race.py). The builder reads kv
	# table metadata afresh, so its commit opens the storage by name.
	if STRATA_ETCD_META_CACHE_MS=0 server_start shared-d shared; then
		step "shared: DDL replacing one relation's storage on two servers" "" py storage_race.py "$PA" "$SPORT"
		kill "$SPID"
		wait "$SPID" 2>/dev/null
	else
		bad "shared: storage races: the fourth server did not start (log: $logs/shared-d.log)"
	fi
	# Random concurrent DDL from both servers: then both and a third server
	# reading the stored catalog agree (cat_stress.py).
	if server_start shared-c shared; then
		step "shared: random DDL from 4 sessions on two servers" "" py cat_stress.py "$PA" "$PB" "$SPORT" 20
	else
		bad "shared: random DDL: the third server did not start (log: $logs/shared-c.log)"
	fi
	# The same over the extended query protocol (pgbench -M prepared): a
	# conflict at the commit at Sync reruns the statement; no client aborts.
	if command -v pgbench >/dev/null 2>&1; then
		q "$PA" -c "CREATE TABLE pc (k int PRIMARY KEY, v int)" -c "INSERT INTO pc VALUES (1, 0)" >/dev/null
		echo 'UPDATE pc SET v = v + 1 WHERE k = 1;' >"$tmp/pc.sql"
		# pgbench 15 counts a 40001 as a failed transaction and says why
		# only with --verbose-errors.
		pv=()
		pgbench --help 2>&1 | grep -q -- --verbose-errors && pv=(--verbose-errors)
		pp=()
		for p in "$PA" "$PB"; do
			pgbench -n -M prepared "${pv[@]}" -h 127.0.0.1 -p "$p" -U postgres -c 3 -t 40 -f "$tmp/pc.sql" postgres \
				>"$logs/pgbench-$p.txt" 2>&1 &
			pp+=($!)
		done
		wait "${pp[@]}"
		done_n=$(cat "$logs"/pgbench-"$PA".txt "$logs"/pgbench-"$PB".txt |
			sed -n 's|^number of transactions actually processed: \([0-9]*\)/.*|\1|p' | awk '{n += $1} END {print n + 0}')
		got=$(q "$PB" -c "SELECT v FROM pc" -c "DROP TABLE pc" 2>&1)
		if [[ $done_n == 240 && $got == 240 ]]; then
			ok "shared: pgbench -M prepared UPDATEs of one row from 6 clients on two servers: 240 of 240 committed, v = 240"
		else
			why=$(grep -h -E 'ERROR|FATAL|aborted|got an error' "$logs"/pgbench-"$PA".txt "$logs"/pgbench-"$PB".txt |
				sed 's/client [0-9]*/client N/' | sort | uniq -c | head -n 5)
			bad "shared: pgbench -M prepared on two servers: $done_n of 240 committed, v = $got (logs: $logs/pgbench-*.txt)${why:+; client errors:
$why}"
		fi
	fi
	# Kill -9 the server that wrote: every acknowledged row is read on the other.
	q "$PA" -c "CREATE TABLE kf (id int PRIMARY KEY)" >/dev/null
	for i in $(seq 1 50); do echo "INSERT INTO kf VALUES ($i);"; done | q "$PA" >/dev/null
	kill -9 "$SPA" 2>/dev/null
	wait "$SPA" 2>/dev/null
	got=$(q "$PB" -c "SELECT count(*), sum(id) FROM kf" 2>&1)
	if [[ $got == "50|1275" ]]; then
		ok "shared: 50 commits acknowledged by a server killed with SIGKILL are read on the other"
	else
		bad "shared: after killing the writer, want 50|1275, got $got"
	fi
fi

# ---------------------------------------------------------------- bigtxn
# Large transactions (more cells than --max-txn-ops) on two servers.
servers bigtxn big 2 && step bigtxn "" py bigtxn.py "${SP[0]}" "${SP[1]}" 6000 "${SPIDS[0]}"
# A large transaction locks its rows, not its tables: another server's
# writes of other rows commit during it, of its rows wait (bigrows.py).
servers bigrows bigrows 2 && step bigrows "" py bigrows.py "${SP[0]}" "${SP[1]}" 6000 "${ETCD_ENDPOINTS%%,*}" /bigrows
# A large transaction's committer killed at each step of its commit: rows
# committed or absent, never in part; aborted intents swept (bigcrash.py).
mkdir -p "$tmp/bigcrash"
STEP_LOGS=$tmp/bigcrash step bigcrash "" py bigcrash.py "$bin" "$URI" "${ETCD_ENDPOINTS%%,*}" "$tmp/bigcrash"

# ---------------------------------------------------------------- boot
# Three servers started at once on a new prefix, several times: exactly one
# writes the first catalog, the others load it (boot_race.py).
mkdir -p "$tmp/boot"
STEP_LOGS=$tmp/boot step boot "" py boot_race.py "$bin" "$URI" "$tmp/boot" "${ETCD_BOOT_ROUNDS:-5}"
# A SIGKILLed server's temporary schema is dropped by another server once
# its lease is gone; a live server's is not (temp_sweep.py).
mkdir -p "$tmp/temp"
STEP_LOGS=$tmp/temp step temp "" py temp_sweep.py "$bin" "$URI" "${ETCD_ENDPOINTS%%,*}" "$tmp/temp"

# ---------------------------------------------------------------- longscan
# Full forward scans with pages ending at guessed keys read every row once,
# walking etcd's index linearly (the per-page lines of --log-level debug).
servers longscan longscan 1 --log-level debug && step longscan "" py longscan.py "${SP[0]}" 8000 "$logs/longscan.log"

# ---------------------------------------------------------------- gc
# Version GC keeps what a long transaction on another server reads: no GC
# window, no history retention, and more read points after it than a server
# remembers unpinned.
STRATA_ETCD_GC_WINDOW_S=0 servers gc gc 2 --history_retention 0 &&
	step gc "a REPEATABLE READ snapshot on one server reads its rows after the other updated them and ran VACUUM FULL (no GC window)" \
		py gc_snapshot.py "${SP[0]}" "${SP[1]}" 5000

# ---------------------------------------------------------------- bggc
# Background version GC (kvstore/etcd_bggc.c): old versions disappear without
# VACUUM FULL; a long snapshot on the other server still reads them.
STRATA_ETCD_GC_S=4 STRATA_ETCD_GC_WINDOW_S=0 servers bggc bggc 2 --history_retention 0 &&
	step bggc "old versions collected in the background without VACUUM FULL, a large table's in paced steps; a REPEATABLE READ snapshot on the other server still reads them" \
		py bggc.py "${SP[0]}" "${SP[1]}" "$build/kvstore/strata-kv" "$URI/bggc" "$logs/bggc-a.log" "$logs/bggc-b.log"

# ---------------------------------------------------------------- ops
# Backup/restore, verify and inspection of an etcd prefix (ops.py starts its
# own servers on prefixes ops and ops_r).
kvtool=$build/kvstore/strata-kv
mkdir -p "$tmp/ops"
if got=$(py ops.py "$URI" "$bin" "$kvtool" "$tmp/ops" "$logs" 2>&1); then
	ok "ops: $(grep -c '^ok' <<<"$got") checks of backup/restore, verify and inspection on etcd"
else
	bad "ops: $(grep -v '^ok' <<<"$got" | head -5)"
fi
rm -rf "$tmp/ops"

# ---------------------------------------------------------------- failover
# Kill the etcd leader during a write workload: no acknowledged commit lost.
leader_member() {
	local n st
	for n in 1 2 3; do
		st=$(curl -s -m 2 -X POST -d '{}' "http://127.0.0.1:${ETCD_CPORT[$n]}/v3/maintenance/status") || continue
		/usr/bin/python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["leader"]==d["header"]["member_id"] else 1)' "$st" 2>/dev/null && {
			echo "$n"
			return
		}
	done
	echo 1
}
if servers failover failover 1; then
	q "$SPORT" -c "CREATE TABLE ft (id int PRIMARY KEY, at timestamptz)" >/dev/null
	py failover.py "$SPORT" 14 "$tmp/acked" >"$logs/failover.txt" 2>&1 &
	wl=$!
	# Two kills: the leader; it comes back; then the new leader.
	sleep 3
	victim=$(leader_member)
	etcd_member_kill "$victim"
	echo "killed etcd member m$victim (the leader) at $(date +%T)" >>"$logs/failover.txt"
	sleep 3
	etcd_member_start "$victim"
	# The new leader is killed once the first is back: a quorum remains.
	etcd_member_wait "$victim"
	victim2=$(leader_member)
	etcd_member_kill "$victim2"
	echo "killed etcd member m$victim2 (the leader then) at $(date +%T)" >>"$logs/failover.txt"
	victim=$victim2
	wait "$wl"
	# Two of three members were killed within seconds: on a loaded machine
	# the cluster may still be electing; the check is about acknowledged
	# commits, so read once it answers again (up to a minute).
	for _ in $(seq 30); do
		q "$SPORT" -c "SELECT id FROM ft ORDER BY id" >"$tmp/present" 2>>"$logs/failover.txt" && break
		sleep 2
	done
	nacked=$(wc -l <"$tmp/acked" 2>/dev/null || echo 0)
	lost=$(sort -n "$tmp/acked" | comm -23 - <(sort -n "$tmp/present") | wc -l)
	after=$(tail -n 1 "$tmp/acked" 2>/dev/null)
	if ((nacked > 0 && lost == 0)) && [[ -s $tmp/present ]]; then
		ok "failover: two leaders killed one after the other mid-workload (the first restarted in between); $nacked acknowledged commits, none lost ($(head -1 "$logs/failover.txt"))"
	else
		bad "failover: $lost of $nacked acknowledged commits lost (see $logs/failover.txt)"
	fi
	etcd_member_start "$victim"
fi

# ---------------------------------------------------------------- endpoints
# The client walks its endpoint list round and round: each member in turn
# is killed (and restarted before the next), so failover passes the last
# endpoint back to the first; every statement must still commit.
if servers endpoints endpoints 1; then
	q "$SPORT" -c "CREATE TABLE ep (id int PRIMARY KEY)" >/dev/null
	ep_ok=0
	for n in 1 2 3 1 2; do
		etcd_member_kill "$n"
		q "$SPORT" -c "INSERT INTO ep VALUES ($((ep_ok + 1)))" >>"$logs/endpoints.txt" 2>&1 && ep_ok=$((ep_ok + 1))
		etcd_member_start "$n"
		# Back in the cluster before the next one goes (else no quorum).
		etcd_member_wait "$n" || echo "member m$n did not rejoin within 30 s" >>"$logs/endpoints.txt"
	done
	got=$(q "$SPORT" -c "SELECT count(*) FROM ep" 2>>"$logs/endpoints.txt")
	if [[ $ep_ok == 5 && $got == 5 ]]; then
		ok "endpoints: members 1 2 3 1 2 killed in turn (each restarted before the next): 5 of 5 INSERTs committed"
	else
		bad "endpoints: $ep_ok of 5 INSERTs committed, $got rows (see $logs/endpoints.txt)"
	fi
fi

# ---------------------------------------------------------------- clean exits
# Every server still running stops on SIGTERM without a sanitizer report.
for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null; done
for p in "${SERVER_PIDS[@]}"; do wait "$p" 2>/dev/null; done
SERVER_PIDS=()
reports=$(grep -l 'Sanitizer\|runtime error' "$logs"/*.log 2>/dev/null | tr '\n' ' ')
if [[ -z $reports ]]; then
	ok "clean exits: no sanitizer report in any server log"
else
	bad "clean exits: sanitizer reports in $reports"
fi

# ---------------------------------------------------------------- horizon
# Strata drives etcd's compaction (horizon.py): alone on the cluster now,
# three servers compacting every second with no margin and 3 s leases.
STRATA_ETCD_COMPACT_S=1 STRATA_ETCD_COMPACT_MARGIN=0 STRATA_ETCD_HORIZON_TTL_S=3 servers horizon horizon 3 &&
	step horizon "" py horizon.py "${SP[@]}" "${SPIDS[2]}" "${ETCD_ENDPOINTS%%,*}"
for p in "${SERVER_PIDS[@]}"; do kill "$p" 2>/dev/null; done
for p in "${SERVER_PIDS[@]}"; do wait "$p" 2>/dev/null; done
SERVER_PIDS=()
if grep -q 'Sanitizer\|runtime error' "$logs"/horizon-a.log "$logs"/horizon-b.log 2>/dev/null; then
	bad "horizon: sanitizer reports in $logs/horizon-a.log or horizon-b.log"
fi

# ---------------------------------------------------------------- tls
# A member of its own speaking TLS only, with client certificates and etcd
# authentication (tls.py: certificates made with openssl here).
if ! command -v openssl >/dev/null 2>&1; then
	bad "tls: openssl is not installed (scripts/deps.sh)"
elif got=$(py tls.py "$bin" "$tmp/tls" 2>&1); then
	ok "tls: $got"
	if grep -q 'Sanitizer\|runtime error' "$tmp"/tls/*.log 2>/dev/null; then
		bad "tls: sanitizer reports in $tmp/tls/*.log"
	fi
else
	bad "tls: $got"
	cp "$tmp"/tls/*.log "$logs/" 2>/dev/null
fi

echo "$passed passed, $failed failed"
((failed == 0))
