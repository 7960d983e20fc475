# lib.sh — sourced by the etcd benchmarks (pgvs.sh, reverse_ab.sh) after `root`
# (the repository) is set: a throwaway 3-member etcd cluster on loopback
# (tests/etcd/cluster.sh) and a work directory, both removed at exit with every
# server started here.
#   etcd_bench_init                 sets `work` (under BENCH_TMP, default /tmp),
#                                   installs the EXIT trap, starts the cluster
#   etcd_bench_server NAME BIN ARGS...
#                                   BIN --port P --data-dir $work/srv-NAME ARGS...
#                                   (log $work/srv-NAME.log); waits for the port;
#                                   sets PORT and SPID
#   etcd_bench_cpu PID...           their user+sys CPU ticks, summed
. "$root/tests/etcd/cluster.sh"
pids=()

etcd_bench_cleanup() {
	set +e
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	etcd_cluster_stop
	rm -rf "$work"
}

etcd_bench_init() {
	work=$(TMPDIR=${BENCH_TMP:-/tmp} mktemp -d)
	trap etcd_bench_cleanup EXIT
	etcd_cluster_start "$work/etcd"
}

etcd_bench_server() {
	local name=$1 bin=$2
	shift 2
	PORT=$(etcd_free_port)
	mkdir -p "$work/srv-$name"
	"$bin" --port "$PORT" --data-dir "$work/srv-$name" "$@" >"$work/srv-$name.log" 2>&1 &
	SPID=$!
	pids+=("$SPID")
	for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0; sleep 0.1; done
	echo "server $name did not start (log: $work/srv-$name.log)" >&2
	exit 1
}

etcd_bench_cpu() {
	local t=0 p
	for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
	echo "$t"
}
