#!/usr/bin/env bash
# pgi_threads.sh — one phase of `pgbench -i` (the primary keys, p, or the
# client-side generate, g) against two strata binaries, interleaved (A then B
# in odd rounds, B then A in even ones): per run a fresh server and data
# directory, the phases before it (`-I dtgv` or `-I dt`), then the phase
# under `perf record -e task-clock` (one sample per ms of CPU) of the server:
# the phase's wall time, the server's CPU in ms and the CPU of its busiest
# threads, largest first. The busiest thread bounds the phase's wall time on
# an idle machine; on the shared one the thread split is steadier than wall
# time. Threads that exit during the phase (a re-key's helper) are counted,
# which /proc/PID/task would miss.
#
# usage: bench/pgi_threads.sh BINARY_A BINARY_B [ROUNDS] [SCALE] [PHASE]
#   (default 5 rounds, scale 10, phase p)
set -euo pipefail
BENCH_NAME=pgi_threads
. "$(dirname "$0")/lib.sh"
phase=${5:-p}
before=dtgv
[[ $phase == g ]] && before=dt
[[ $phase == p || $phase == g ]] || { echo "pgi_threads: phase p or g" >&2; exit 2; }
bench_ab_init "$@"
pgi() { pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q -I "$1" postgres 2>&1; }
echo "# load average: $(bench_load)"
# one_run: the phase under perf on the server bench_ab_rounds started
one_run() {
	local perf_pid out ms
	rm -f "$tmp/perf.data"
	pgi "$before" >/dev/null
	perf record -q -e task-clock -c 1000000 -o "$tmp/perf.data" -p "$pid" >/dev/null 2>&1 &
	perf_pid=$!
	sleep 1 # perf attached (it took longer than 0.5 s once at load 13)
	out=$(pgi "$phase" | grep 'done in')
	kill -INT "$perf_pid"
	wait "$perf_pid" || true
	# Samples per thread (perf's "pid" key is the thread), largest first.
	ms=$(perf report -i "$tmp/perf.data" --stdio -s pid -F sample 2>/dev/null |
		awk '/^ +[0-9]/ {print $1}' | sort -rn)
	printf 'round %s %s: phase %s wall %s s, server cpu %s ms, busiest threads %s (load %s)\n' "$r" "$k" \
		"$phase" "$(sed -E 's/done in ([0-9.]+) s.*/\1/' <<<"$out")" \
		"$(awk '{s += $1} END {print s}' <<<"$ms")" "$(head -4 <<<"$ms" | tr '\n' ' ')" \
		"$(cut -d' ' -f1 /proc/loadavg)"
}
bench_ab_rounds one_run
echo "# load average: $(bench_load)"
