#!/usr/bin/env bash
# seek_cpu.sh — server CPU per transaction of the index-scan reporting queries (r4_index_point,
# r5_index_range: a sorted-file seek per fetched row) and of pgbench -S -M prepared (one point
# read per transaction), for one or more strata binaries. Every binary gets its own server on
# its own copy of the same data, all running at once and warmed up first; then the binaries take
# turns, query by query, round by round, so that the machine's load changes hit them alike.
# CPU is user + system of the whole server from /proc/PID/stat (wall time is noisy on this
# shared machine); the summary gives each binary's median per query.
#
# usage: bench/seek_cpu.sh [--rounds R] [--secs S] [--data DIR] [--no-select] BINARY [BINARY...]
#   --rounds R    rounds (default 5)
#   --secs S      pgbench seconds per measurement (default 4)
#   --data DIR    where the reporting data (1M events) and a pgbench scale-1 database are
#                 loaded with the first binary (kept; reused when present; default
#                 /tmp/seek_cpu.data); each binary's server runs on a copy
#   --no-select   skip pgbench -S -M prepared
# Example (numbers in docs/benchmarks.md):
#   bench/seek_cpu.sh /tmp/main-release/server/strata build/release/server/strata
set -uo pipefail
rep=/work/shared/bench/reporting
rounds=5
secs=4
data=/tmp/seek_cpu.data
sel=1
bins=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--data) data=$2; shift 2 ;;
	--no-select) sel=0; shift ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	*) bins+=("$1"); shift ;;
	esac
done
[[ ${#bins[@]} -gt 0 ]] || { sed -n '2,17p' "$0"; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start BINARY DIR: a server on a free port over DIR; sets pid and port
start() {
	port=$(free_port)
	"$1" --port "$port" --data-dir "$2" >"$2.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 240); do
		psql -X -h 127.0.0.1 -p "$port" -U postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	echo "seek_cpu: $1 did not start (log: $2.log)" >&2
	exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null; }
q() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres "$@"; }

if [[ ! -d $data/rep ]]; then
	mkdir -p "$data/csv"
	/usr/bin/python3 "$rep/gen_events.py" "$data/csv" 1000000 50000 42
	start "${bins[0]}" "$data/rep"
	q -f "$rep/schema.sql" >/dev/null 2>&1
	q -c "\\copy users FROM '$data/csv/users.csv' WITH (FORMAT csv)"
	q -c "\\copy events FROM '$data/csv/events.csv' WITH (FORMAT csv)"
	q -f "$rep/indexes.sql" >/dev/null
	q -c 'ANALYZE'
	stop
fi
if [[ $sel = 1 && ! -d $data/pgb ]]; then
	start "${bins[0]}" "$data/pgb"
	pgbench -i -q -s 1 -h 127.0.0.1 -p "$port" -U postgres postgres >/dev/null 2>&1
	stop
fi
[[ $rounds -gt 0 ]] || exit 0

# workloads: name, database copy, pgbench arguments
names=(r4_index_point r5_index_range)
dbs=(rep rep)
args=("-M extended -f $rep/queries/r4_index_point.sql" "-M extended -f $rep/queries/r5_index_range.sql")
if [[ $sel = 1 ]]; then
	names+=(select_prep)
	dbs+=(pgb)
	args+=("-S -M prepared")
fi
declare -A bpid bport
for i in "${!bins[@]}"; do
	for d in rep pgb; do
		[[ $d = pgb && $sel = 0 ]] && continue
		cp -a "$data/$d" "$work/$d.$i"
		rm -f "$work/$d.$i/strata.pid"
		start "${bins[$i]}" "$work/$d.$i"
		bpid[$i.$d]=$pid
		bport[$i.$d]=$port
	done
done
# run I W SECS: pgbench of workload W against binary I; prints "transactions cpu-ticks"
run() {
	local p=${bpid[$1.${dbs[$2]}]} t0 t1 tx
	t0=$(awk '{print $14 + $15}' "/proc/$p/stat")
	# shellcheck disable=SC2086
	tx=$(pgbench -n -c 2 -T "$3" -h 127.0.0.1 -p "${bport[$1.${dbs[$2]}]}" -U postgres ${args[$2]} \
		postgres 2>&1 | awk '/number of transactions actually processed/ {print $NF}' | cut -d/ -f1)
	t1=$(awk '{print $14 + $15}' "/proc/$p/stat")
	echo "${tx:-0} $((t1 - t0))"
}
echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, $secs s per measurement, 2 clients, $rounds rounds"
for i in "${!bins[@]}"; do
	for w in "${!names[@]}"; do run "$i" "$w" 3 >/dev/null; done
done
for r in $(seq "$rounds"); do
	for w in "${!names[@]}"; do
		for i in "${!bins[@]}"; do
			read -r tx t < <(run "$i" "$w" "$secs")
			awk -v b="${bins[$i]}" -v q="${names[$w]}" -v n="$tx" -v t="$t" -v hz="$hz" \
				-v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
				'BEGIN { printf "%-14s %s: %d tx, server CPU %.1f us/tx, load %s\n", q, b, n,
				n ? t * 1e6 / hz / n : 0, load }' | tee -a "$work/results"
		done
	done
done
echo "# medians (us/tx)"
for w in "${names[@]}"; do
	for b in "${bins[@]}"; do
		awk -v q="$w" -v b="$b:" '$1 == q && $2 == b' "$work/results" |
			sed 's/.*server CPU \([0-9.]*\) us.*/\1/' | sort -n |
			awk -v q="$w" -v b="$b" '{v[NR] = $1} END { printf "%-14s %s: median %.1f (min %.1f, max %.1f, n %d)\n",
				q, b, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR], NR }'
	done
done
