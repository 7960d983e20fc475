#!/usr/bin/env bash
# ops.sh — what backup, restore, verify and a background version-GC pass cost
# on the etcd backend (docs/scale-out.md, "Operations"): a throwaway 3-member
# cluster (tests/etcd/cluster.sh), one server, a table of ROWS rows (one
# index) updated once; then `strata backup` (the server's CPU seconds for
# it), `strata restore --store` into a new prefix, `strata-kv verify`, and
# a second server with STRATA_ETCD_GC_S=2 and no GC window collecting the
# old versions (its CPU seconds until the keys are back to one version).
# Wall times are noisy on a shared machine; the load average is printed.
# usage: bench/etcd/ops.sh [ROWS]   (STRATA_BUILD: build dir, default build/asan)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${STRATA_BUILD:-$root/build/asan}
rows=${1:-20000}
tmp=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
BENCH_LOG=$tmp/server.log
. "$root/bench/lib.sh"
. "$root/tests/etcd/cluster.sh"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	etcd_cluster_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
etcd_cluster_start "$tmp/etcd" || exit 1
uri="etcd://$ETCD_ENDPOINTS"
start() { # NAME PREFIX [ENV...]: sets sport, spid
	sport=$(bench_free_port)
	mkdir -p "$tmp/$1"
	env "${@:3}" "$build/server/strata" --port "$sport" --data-dir "$tmp/$1" --store "$uri/$2" \
		--history_retention 0 >"$tmp/$1.log" 2>&1 &
	spid=$!
	pids+=("$spid")
	for _ in $(seq 600); do
		psql -X -h 127.0.0.1 -p "$sport" -U postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "ops.sh: server $1 did not start" >&2
	exit 1
}
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -c "$2"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"; }

start a src STRATA_ETCD_GC_S=0
pa=$sport
pida=$spid
q "$pa" "CREATE TABLE t (k int PRIMARY KEY, v int, s text)"
q "$pa" "CREATE INDEX t_v ON t (v)"
q "$pa" "INSERT INTO t SELECT g, g % 1000, repeat('x', 50) FROM generate_series(1, $rows) g"
q "$pa" "UPDATE t SET v = v + 1"
echo "# $rows rows (one index), updated once; load $(bench_load)"

c0=$(cpu "$pida")
t0=$(now)
"$build/server/strata" backup "$tmp/bk" --host 127.0.0.1 --port "$pa" --user postgres >"$tmp/bk.out" 2>&1 ||
	{ cat "$tmp/bk.out"; exit 1; }
t1=$(now)
cells=$(q "$pa" "SELECT cells FROM strata_backup_info('$tmp/bk')")
echo "backup:  $(secs "$t0" "$t1") s wall, server CPU $(awk -v a="$c0" -v b="$(cpu "$pida")" 'BEGIN {printf "%.2f", b - a}') s, $cells cells, $(du -sk "$tmp/bk" | cut -f1) KiB; load $(bench_load)"

t0=$(now)
"$build/server/strata" restore "$tmp/bk" --store "$uri/restored" --quiet || exit 1
t1=$(now)
echo "restore: $(secs "$t0" "$t1") s wall into a new etcd prefix; load $(bench_load)"

t0=$(now)
"$build/kvstore/strata-kv" verify "$uri/src" | tail -1
t1=$(now)
echo "verify:  $(secs "$t0" "$t1") s wall; load $(bench_load)"

# Background GC: a second server holds the GC key and collects the old versions.
kvt=$(q "$pa" "SELECT kv_table FROM strata_compactions WHERE relation = 'public.t'")
keys() { "$build/kvstore/strata-kv" tables "$uri/src" | awk -v t="$kvt" '$1 == t {print $5}'; }
before=$(keys)
start b src STRATA_ETCD_GC_S=2 STRATA_ETCD_GC_WINDOW_S=0
pidb=$spid
c0=$(cpu "$pidb")
t0=$(now)
for _ in $(seq 600); do
	k=$(keys)
	((k < before)) && break
	sleep 0.5
done
sleep 3 # the pass goes on with the index and the other tables
t1=$(now)
echo "bg GC:   $before -> $k keys of t within $(secs "$t0" "$t1") s, GC server CPU $(awk -v a="$c0" -v b="$(cpu "$pidb")" 'BEGIN {printf "%.2f", b - a}') s; load $(bench_load)"
