# cluster.sh — sourced helpers: a throwaway 3-member etcd cluster on free
# loopback ports with its data in a temp dir (tests/etcd/run.sh).
#   etcd_cluster_start DIR   starts members m1..m3; sets ETCD_ENDPOINTS
#                            (host:port,host:port,host:port) and ETCD_PIDS
#   etcd_member_kill N       SIGKILLs member N (1..3)
#   etcd_member_start N      restarts member N on its data dir
#   etcd_member_wait N       waits until member N serves a linearizable read
#   etcd_cluster_stop        stops every member still running
# Limits are raised above etcd's defaults (128 ops, 1.5 MiB per request) so
# SQL transactions of a few hundred rows fit; docs/scale-out.md.

etcd_free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

etcd_member_start() { # N
	local n=$1
	etcd --name "m$n" --data-dir "$ETCD_DIR/m$n" \
		--listen-client-urls "http://127.0.0.1:${ETCD_CPORT[$n]}" \
		--advertise-client-urls "http://127.0.0.1:${ETCD_CPORT[$n]}" \
		--listen-peer-urls "http://127.0.0.1:${ETCD_PPORT[$n]}" \
		--initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PPORT[$n]}" \
		--initial-cluster "$ETCD_INITIAL" --initial-cluster-state new \
		--initial-cluster-token "strata-$$" \
		--max-txn-ops 10000 --max-request-bytes 33554432 \
		--log-level error --logger zap >"$ETCD_DIR/m$n.log" 2>&1 &
	ETCD_PID[$n]=$!
}

etcd_cluster_start() { # DIR
	ETCD_DIR=$1
	mkdir -p "$ETCD_DIR"
	ETCD_CPORT=() ETCD_PPORT=() ETCD_PID=()
	local n init="" eps=""
	for n in 1 2 3; do
		ETCD_CPORT[$n]=$(etcd_free_port)
		ETCD_PPORT[$n]=$(etcd_free_port)
		init+="${init:+,}m$n=http://127.0.0.1:${ETCD_PPORT[$n]}"
		eps+="${eps:+,}127.0.0.1:${ETCD_CPORT[$n]}"
	done
	ETCD_INITIAL=$init
	ETCD_ENDPOINTS=$eps
	for n in 1 2 3; do etcd_member_start $n; done
	etcd_member_wait 1 && return 0
	echo "etcd cluster did not start; logs in $ETCD_DIR" >&2
	return 1
}

# A linearizable read needs a leader and the member caught up with it: a
# restarted member that serves one has rejoined the cluster. False after 30 s.
etcd_member_wait() { # N
	local i
	for i in $(seq 1 150); do
		if curl -s -m 2 -X POST -d '{"key":"AA=="}' "http://127.0.0.1:${ETCD_CPORT[$1]}/v3/kv/range" |
			grep -q '"header"'; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

etcd_member_kill() { # N
	kill -9 "${ETCD_PID[$1]}" 2>/dev/null
	wait "${ETCD_PID[$1]}" 2>/dev/null
}

etcd_cluster_stop() {
	local n
	for n in 1 2 3; do
		[[ -n ${ETCD_PID[$n]:-} ]] && kill "${ETCD_PID[$n]}" 2>/dev/null
	done
	for n in 1 2 3; do
		[[ -n ${ETCD_PID[$n]:-} ]] && wait "${ETCD_PID[$n]}" 2>/dev/null
	done
	ETCD_PID=()
}
