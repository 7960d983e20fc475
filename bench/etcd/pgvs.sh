#!/usr/bin/env bash
# pgvs.sh — pgvs.py's pgbench suite (pgbench -i, -S simple, -S prepared,
# TPC-B-like; ../shared/bench/pgvs.py) against the same Strata release binary
# twice: on a fresh embedded data directory, then on a throwaway 3-member etcd
# cluster on loopback (tests/etcd/cluster.sh: --max-txn-ops 10000,
# --max-request-bytes 32 MiB, the documented deployment; docs/scale-out.md).
# Each pgvs.py run has its own throwaway PostgreSQL 15 for the ratio column.
# pgbench -i loads pgbench_accounts with one COPY in the transaction that
# truncated it: on etcd that COPY writes the private new storage in bounded
# etcd transactions (sql/copy.c, direct_ok) and ADD PRIMARY KEY rewrites it
# the same way (sql/ddl_rewrite.c).
# The reporting suite (SUITE=reporting) loads users and events with
# autocommit COPYs into existing tables: on etcd each is one large
# transaction (docs/scale-out.md, "Large transactions").
# usage: bench/etcd/pgvs.sh [SCALE [SECONDS [CLIENTS]]]   (defaults 1 10 2)
# Env: STRATA_BIN (default build/release/server/strata), PGVS (pgvs.py path),
#      BENCH_TMP (default /tmp), SUITE (pgbench | reporting, default pgbench),
#      EVENTS (reporting: events loaded, default 100000), ONLY (embedded |
#      etcd: run one of the two). pgvs.py runs through pgvs_safe.py, which
#      reports a query that times out as a failed line instead of stopping.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
scale=${1:-1} secs=${2:-10} clients=${3:-2}
suite=${SUITE:-pgbench} events=${EVENTS:-100000}
bin=${STRATA_BIN:-$root/build/release/server/strata}
PGVS=${PGVS:-$root/../shared/bench/pgvs.py}
[[ -f $PGVS ]] || PGVS=/work/shared/bench/pgvs.py
[[ -x $bin ]] || { echo "build the release server first (cmake -B build/release -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
. "$root/bench/etcd/lib.sh"
etcd_bench_init
cpu() { # PID: user+sys seconds so far
	awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"
}
run() { # NAME STORE_ARGS...
	local name=$1
	etcd_bench_server "$name" "$bin" "${@:2}"
	local c0
	c0=$(cpu "$SPID")
	echo "## $name (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
	PGVS=$PGVS /usr/bin/python3 "$root/bench/etcd/pgvs_safe.py" --port "$PORT" --user postgres --suite "$suite" --scale "$scale" \
		--events "$events" --seconds "$secs" --clients "$clients"
	echo "# $name server CPU (user+sys s): $(/usr/bin/python3 -c "print('%.1f' % ($(cpu "$SPID") - $c0))"); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	kill "$SPID"
}
echo "# pgvs.py --suite $suite --scale $scale --events $events --seconds $secs --clients $clients; $(nproc) cores"
[[ ${ONLY:-} == etcd ]] || run embedded
[[ ${ONLY:-} == embedded ]] || run etcd --store "etcd://$ETCD_ENDPOINTS/bench"
du -sh "$work/etcd/m1" | sed 's/^/# etcd member data dir after the run: /'
