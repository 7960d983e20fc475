#!/usr/bin/env bash
# bulk_phases.sh — wall time and server CPU (user+sys of the process listening
# on PORT, all threads, plus its reaped children: PostgreSQL's backends end up
# there when they exit; from /proc/PID/stat) of each phase of `pgbench -i` and of two
# CREATE INDEX statements on pgbench_accounts, against a running server.
# Server CPU is the steadier figure on the shared machine (wall time moves
# with the load of other work); run it against two builds back to back to
# compare them. The server must listen on 127.0.0.1:PORT and be the only
# process listening there.
#
# usage: bench/bulk_phases.sh PORT [SCALE] [ROUNDS]   (default scale 10, 2 rounds)
set -euo pipefail
port=$1
scale=${2:-10}
rounds=${3:-2}
pid=$(ss -ltnp | grep "127.0.0.1:$port " | sed -E 's/.*pid=([0-9]+).*/\1/' | head -1)
[[ -n $pid ]] || { echo "bulk_phases: nothing listens on 127.0.0.1:$port" >&2; exit 1; }
cpu() { awk '{printf "%.2f", ($14 + $15 + $16 + $17) / 100}' "/proc/$pid/stat"; }
now() { date +%s.%N; }
step() { # LABEL COMMAND...
	local label=$1 c0 t0
	shift
	c0=$(cpu)
	t0=$(now)
	"$@" >/dev/null 2>&1 || { echo "bulk_phases: $label failed" >&2; exit 1; }
	printf '%-44s wall %6.2f s   server cpu %5.2f s\n' "$label" "$(echo "$(now) - $t0" | bc)" \
		"$(echo "$(cpu) - $c0" | bc)"
}
pgi() { pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q -I "$1" postgres; }
sql() { psql -X -q -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -c "$1" postgres; }
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
	step "round $r: drop + create tables" pgi dt
	step "round $r: client-side generate (COPY)" pgi g
	step "round $r: vacuum (analyze)" pgi v
	step "round $r: primary keys" pgi p
	step "round $r: CREATE INDEX (bid)" sql "CREATE INDEX bulk_ia ON pgbench_accounts (bid)"
	step "round $r: CREATE INDEX (abalance, filler)" sql "CREATE INDEX bulk_ib ON pgbench_accounts (abalance, filler)"
	sql "DROP INDEX bulk_ia; DROP INDEX bulk_ib" >/dev/null
done
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
