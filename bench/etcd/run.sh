#!/usr/bin/env bash
# run.sh — the etcd backend next to the embedded engine (docs/scale-out.md):
# the same Strata release binary on a fresh embedded data directory and on a
# throwaway 3-member etcd cluster (loopback, tests/etcd/cluster.sh), the same
# pgbench-style workloads (pgvs.py's own pgbench suite: bench/etcd/pgvs.sh).
# This script loads ACCOUNTS rows in 1000-row transactions and runs custom
# pgbench scripts:
#   select   SELECT by random primary key (pgbench -S style)
#   update   UPDATE of a random row by primary key, autocommit
#   insert   single-row INSERT, autocommit
# Prints one line per workload: tps embedded, tps etcd, ratio; and the load.
# With STRATA_BIN_BASE set (another build, e.g. main's), a server of that
# binary on its own prefix of the same cluster runs the etcd workloads too,
# interleaved: two more columns, its tps and etcd/base (before/after a change
# measured side by side in one run), plus each etcd server's CPU seconds.
# usage: bench/etcd/run.sh [SECONDS] [CLIENTS] [ACCOUNTS]   (defaults 10 2 20000)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
secs=${1:-10} clients=${2:-2} accounts=${3:-20000}
bin=${STRATA_BIN:-$root/build/release/server/strata}
[[ -x $bin ]] || { echo "build the release server first (cmake -B build/release -DCMAKE_BUILD_TYPE=Release)" >&2; exit 1; }
. "$root/tests/etcd/cluster.sh"
work=$(mktemp -d /tmp/strata-etcd-bench.XXXXXX)
pids=()
cleanup() {
	set +e # (a wait on a killed process fails: finish the clean-up anyway)
	# (start runs in a command substitution: its pids come back in files)
	for f in "$work"/*.pid; do [[ -f $f ]] && pids+=("$(cat "$f")"); done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do # not children of this shell: poll (servers exit before etcd stops)
		for _ in $(seq 1 50); do [[ -e /proc/$p ]] || break; sleep 0.1; done
	done
	etcd_cluster_stop
	rm -rf "$work"
}
trap cleanup EXIT
etcd_cluster_start "$work/etcd"
start() { # NAME STORE_ARGS...
	local name=$1 port
	shift
	port=$(etcd_free_port)
	mkdir -p "$work/$name"
	"${sbin:-$bin}" --port "$port" --data-dir "$work/$name" "$@" >"$work/$name.log" 2>&1 &
	pids+=($!)
	echo $! >"$work/$name.pid"
	for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
	echo "$port"
}
pe=$(start embedded)
pt=$(start etcd --store "etcd://$ETCD_ENDPOINTS/bench")
pb=
if [[ -n ${STRATA_BIN_BASE:-} ]]; then
	pb=$(sbin=$STRATA_BIN_BASE start base --store "etcd://$ETCD_ENDPOINTS/base")
fi
cat >"$work/select.sql" <<SQL
\set id random(1, $accounts)
SELECT abalance FROM acc WHERE aid = :id;
SQL
cat >"$work/update.sql" <<SQL
\set id random(1, $accounts)
\set d random(-5000, 5000)
UPDATE acc SET abalance = abalance + :d WHERE aid = :id;
SQL
cat >"$work/insert.sql" <<SQL
INSERT INTO hist (aid, delta) VALUES (1, 1);
SQL
for p in $pe $pt $pb; do
	psql -X -q -h 127.0.0.1 -p "$p" -U postgres -c "CREATE TABLE acc (aid int PRIMARY KEY, bid int, abalance int, filler char(84))" \
		-c "CREATE TABLE hist (id bigserial PRIMARY KEY, aid int, delta int)"
	for ((lo = 1; lo <= accounts; lo += 1000)); do
		psql -X -q -h 127.0.0.1 -p "$p" -U postgres -c \
			"INSERT INTO acc SELECT g, 1, 0, '' FROM generate_series($lo, $((lo + 999 < accounts ? lo + 999 : accounts))) g"
	done
done
tps() { # PORT SCRIPT
	pgbench -n -h 127.0.0.1 -p "$1" -U postgres -c "$clients" -j "$clients" -T "$secs" -f "$work/$2.sql" postgres 2>&1 |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1
}
cpu() { # NAME: user+sys seconds of that server so far
	awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$(cat "$work/$1.pid")/stat"
}
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $clients clients, $secs s, $accounts accounts"
if [[ -z $pb ]]; then
	printf '%-8s %12s %12s %8s\n' workload embedded etcd ratio
else
	printf '%-8s %12s %12s %8s %12s %8s\n' workload embedded etcd ratio etcd-base etcd/base
fi
c0=$(cpu etcd) b0=$([[ -n $pb ]] && cpu base || echo 0)
for w in select update insert; do
	a=$(tps "$pe" $w)
	b=$(tps "$pt" $w)
	if [[ -z $pb ]]; then
		printf '%-8s %12s %12s %8s\n' "$w" "$a" "$b" "$(/usr/bin/python3 -c "print('%.3f' % ($b/$a))")"
	else
		c=$(tps "$pb" $w)
		printf '%-8s %12s %12s %8s %12s %8s\n' "$w" "$a" "$b" "$(/usr/bin/python3 -c "print('%.3f' % ($b/$a))")" \
			"$c" "$(/usr/bin/python3 -c "print('%.3f' % ($b/$c))")"
	fi
done
if [[ -n $pb ]]; then
	echo "# server CPU (user+sys s) over the workloads: etcd $(/usr/bin/python3 -c "print('%.1f' % ($(cpu etcd) - $c0))"), base $(/usr/bin/python3 -c "print('%.1f' % ($(cpu base) - $b0))")"
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
