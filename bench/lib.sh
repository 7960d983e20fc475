# lib.sh — helpers shared by the benchmark scripts (index_build.sh, copy_load.sh,
# scan_cpu.sh, salt.sh, entity_groups.sh, write_cpu.sh): a free port, starting and
# stopping a strata server, its CPU time from /proc, the median of some numbers and the
# load average.
# Source it after setting BENCH_LOG:  . "$(dirname "$0")/lib.sh"
# It sets `pid` and `port` (empty): source it before using those names yourself.
#
# State: bench_start sets `port` and `pid` (the server being measured); bench_stop clears
# `pid`. Set `BENCH_LOG` to where the server's output goes (default /dev/null) and
# `BENCH_NAME` to the script's name for messages. bench_trap installs an EXIT trap that
# stops the server if one is running and removes the directory given.

BENCH_NAME=${BENCH_NAME:-$(basename "$0" .sh)}
BENCH_LOG=${BENCH_LOG:-/dev/null}
pid=
port=

# A TCP port free on 127.0.0.1 now (bind to port 0 and read back what the kernel chose).
bench_free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# bench_start DATA_DIR COMMAND...: runs COMMAND --port PORT --data-dir DATA_DIR in the
# background on a free port (COMMAND is the binary, or e.g. valgrind ... BINARY) and waits
# until it answers a query (up to 2 minutes; exits the script when it never does).
bench_start() {
	local dir=$1
	shift
	port=$(bench_free_port)
	"$@" --port "$port" --data-dir "$dir" >"$BENCH_LOG" 2>&1 &
	pid=$!
	for _ in $(seq 1200); do
		psql -X -h 127.0.0.1 -p "$port" -U postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$BENCH_NAME: $* did not start (log: $BENCH_LOG)" >&2
	exit 1
}

# Stops the server bench_start started and waits for it to exit (never fails, so that scripts
# under set -e go on with their cleanup).
bench_stop() {
	[[ -n $pid ]] || return 0
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
}

# bench_ab_init BINARY_A BINARY_B [ROUNDS] [SCALE]: the arguments of an A/B script
# (bin_a, bin_b, rounds default 5, scale default 10) and a scratch directory `tmp` (under
# $STRATA_TMP or /tmp) removed on exit with the server stopped.
bench_ab_init() {
	bin_a=$1
	bin_b=$2
	rounds=${3:-5}
	scale=${4:-10}
	tmp=$(mktemp -d -p "${STRATA_TMP:-/tmp}")
	bench_trap "$tmp"
}

# bench_ab_rounds FN: ROUNDS rounds of one run per binary, interleaved (A then B in odd
# rounds, B then A in even ones), each on a fresh server (bench_start) over a fresh
# "$tmp/data": FN runs with `r` (the round), `k` (a or b) and `bin` set and the server up;
# the server is stopped after it (FN may stop it earlier). After bench_ab_init.
bench_ab_rounds() {
	local order
	for ((r = 1; r <= rounds; r++)); do
		order="a b"
		((r % 2)) || order="b a"
		for k in $order; do
			bin=$bin_a
			[[ $k == b ]] && bin=$bin_b
			rm -rf "$tmp/data"
			mkdir "$tmp/data"
			bench_start "$tmp/data" "$bin" --listen 127.0.0.1
			"$1"
			bench_stop
		done
	done
}

# bench_ab_servers [FN]: after bench_ab_init, one server per binary kept up for the
# whole run, each on its own data directory ("$tmp/a", "$tmp/b"): spid[k] and sport[k]
# for k in a b; FN (optional) runs once per server with `k` and `port` set, e.g. to
# load its data. Both are stopped and $tmp removed on exit.
bench_ab_servers() {
	declare -gA spid sport
	local k bin
	trap bench_ab_stop EXIT
	for k in a b; do
		bin=$bin_a
		[[ $k == b ]] && bin=$bin_b
		mkdir -p "$tmp/$k"
		BENCH_LOG=$tmp/$k.log bench_start "$tmp/$k" "$bin" --listen 127.0.0.1
		spid[$k]=$pid
		sport[$k]=$port
		pid=
		[[ -z ${1:-} ]] || "$1"
	done
}

bench_ab_stop() {
	local k
	for k in a b; do
		[[ -n ${spid[$k]:-} ]] || continue
		kill "${spid[$k]}" 2>/dev/null || true
		wait "${spid[$k]}" 2>/dev/null || true
	done
	rm -rf "$tmp"
}

# bench_trap DIR: on exit, stop the server (if running) and remove DIR.
bench_trap() {
	# shellcheck disable=SC2064 # DIR is expanded now, on purpose
	trap "bench_stop; rm -rf '$1'" EXIT
}

# User + system CPU of the server so far, in clock ticks (bench_cpu_ticks) or seconds with
# two decimals (bench_cpu_secs); of process $1 when given, else of $pid.
bench_cpu_ticks() { awk '{print $14 + $15}' "/proc/${1:-$pid}/stat"; }
bench_cpu_secs() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/${1:-$pid}/stat"; }

# bench_median N...: the median of the numbers (the lower middle one of an even count).
bench_median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# The 1, 5 and 15 minute load averages.
bench_load() { cut -d' ' -f1-3 /proc/loadavg; }
