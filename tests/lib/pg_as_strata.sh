#!/usr/bin/env bash
# pg_as_strata.sh — a stand-in for the strata binary that runs a real PostgreSQL 15
# with strata's command line (--listen ADDR --port N --data-dir DIR, and the wire
# options --hba-file F --tls-cert F --tls-key F --max-connections N
# --unix-socket-dir D), so the
# fixture and every suite can be checked against PostgreSQL itself:
#   STRATA_BIN=tests/lib/pg_as_strata.sh tests/run_all.sh build/asan
# First start initialises DIR like tests/regress/gen_expected.sh does (C locale,
# UTF8, TimeZone UTC). Runs in the foreground; SIGTERM stops it.
set -euo pipefail
listen=127.0.0.1 port=5433 data=./strata-data hba= cert= key= maxconn= sockdir=
while (($#)); do
	case $1 in
	--listen) listen=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--data-dir) data=$2; shift 2 ;;
	--hba-file) hba=$2; shift 2 ;;
	--tls-cert) cert=$2; shift 2 ;;
	--tls-key) key=$2; shift 2 ;;
	--max-connections) maxconn=$2; shift 2 ;;
	--unix-socket-dir) sockdir=$2; shift 2 ;;
	--log-level | --config) shift 2 ;;
	--memstore-flush-kb | --wal-segment-kb) shift 2 ;; # strata store test knobs
	*) echo "pg_as_strata: unknown option $1" >&2; exit 2 ;;
	esac
done
bin=/usr/lib/postgresql/15/bin
[[ -x $bin/postgres ]] || { echo "pg_as_strata: PostgreSQL 15 is not installed (apt-get install postgresql-15)" >&2; exit 1; }
mkdir -p "$data"
data=$(cd "$data" && pwd)
as=()
if [[ $(id -u) == 0 ]]; then
	chown postgres "$data"
	chmod o+x "$(dirname "$data")"
	as=(setpriv --reuid=postgres --regid=postgres --init-groups --)
fi
if [[ ! -f $data/PG_VERSION ]]; then
	"${as[@]}" "$bin/initdb" -D "$data" -A trust -U postgres --locale=C --encoding=UTF8 >"$data.initdb.log" 2>&1 ||
		{ cat "$data.initdb.log" >&2; exit 1; }
fi
extra=()
# The server runs as postgres: give it copies of the files it must read.
if [[ -n $hba ]]; then
	# used in place (it must be readable by postgres) so that edits + SIGHUP apply
	extra+=(-c hba_file="$(cd "$(dirname "$hba")" && pwd)/$(basename "$hba")")
fi
if [[ -n $cert && -n $key ]]; then
	cp "$cert" "$data/strata_server.crt"
	cp "$key" "$data/strata_server.key"
	chmod 600 "$data/strata_server.key"
	extra+=(-c ssl=on -c ssl_cert_file="$data/strata_server.crt" -c ssl_key_file="$data/strata_server.key")
fi
if [[ -n $maxconn ]]; then
	extra+=(-c max_connections="$maxconn" -c superuser_reserved_connections=0)
fi
if [[ $(id -u) == 0 ]]; then
	chown -R postgres "$data"
fi
exec "${as[@]}" "$bin/postgres" -D "$data" -p "$port" -k "${sockdir:-$data}" -c listen_addresses="$listen" \
	-c TimeZone=UTC -c fsync=off -c log_min_messages=warning "${extra[@]}"
