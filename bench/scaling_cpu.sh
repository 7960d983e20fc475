#!/usr/bin/env bash
# scaling_cpu.sh — where a transaction's CPU goes at N clients: pgbench -S -M
# prepared against a release Strata, and per transaction the server's CPU
# (/proc/PID/stat), pgbench's (its user + system time) and the machine's
# context switches (/proc/stat). docs/performance.md ("The worker pool") used it
# to compare 2 and 64 clients.
#
# Usage: bench/scaling_cpu.sh CLIENTS...   (e.g. 2 64 2 64)
#   Env: BIN (default build/release/server/strata, built if missing), SECS (10),
#   SCALE (10), EXTRA (more server flags, e.g. "--worker-threads -1").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh bench >/dev/null
bin=${BIN:-build/release/server/strata}
if [[ ! -x $bin ]]; then
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build/release -j 2 --target strata >/dev/null
fi
secs=${SECS:-10}
scale=${SCALE:-10}
work=$(mktemp -d) # a fresh directory under $TMPDIR (default /tmp)
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# shellcheck disable=SC2086
"$bin" --listen 127.0.0.1 --port "$port" --data-dir "$work/d" ${EXTRA:-} >"$work/log" 2>&1 &
srv=$!
trap 'kill $srv; wait $srv; rm -rf "$work"' EXIT
for _ in $(seq 100); do
	psql -X -h 127.0.0.1 -p "$port" -U postgres -c 'select 1' postgres >/dev/null 2>&1 && break
	sleep 0.2
done
pgbench -i -q -s "$scale" -h 127.0.0.1 -p "$port" -U postgres postgres >/dev/null 2>&1
for c in "$@"; do
	t0=$(awk '{print $14+$15}' "/proc/$srv/stat")
	cs0=$(awk '/^ctxt/ {print $2}' /proc/stat)
	out=$({ /usr/bin/time -f "PGB %U %S" pgbench -n -S -M prepared -T "$secs" -c "$c" -j "$c" \
		-h 127.0.0.1 -p "$port" -U postgres postgres; } 2>&1)
	t1=$(awk '{print $14+$15}' "/proc/$srv/stat")
	cs1=$(awk '/^ctxt/ {print $2}' /proc/stat)
	tps=$(echo "$out" | awk '/^tps =/ {print $3}')
	pg=$(echo "$out" | awk '/^PGB/ {print $2+$3}')
	awk -v c="$c" -v tps="$tps" -v st=$((t1 - t0)) -v pg="$pg" -v cs=$((cs1 - cs0)) -v secs="$secs" \
		'BEGIN { n = tps * secs; printf "clients %d: %.0f tps, server %.2f us/tx, pgbench %.2f us/tx, %.2f context switches/tx\n", c, tps, st * 10000 / n, pg * 1e6 / n, cs / n }'
done
