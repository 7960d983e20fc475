#!/usr/bin/env bash
# make_seeds.sh — regenerates the seed corpora in fuzz/corpus/ (committed; rerun
# only when a format changes): sorted files and log segments from a real store,
# encoded keys of every keyable type, SQL statements over fuzz_sql's tables.
# Regression inputs (fuzz/corpus/*/regress-*) are kept.
# usage: fuzz/make_seeds.sh [BUILD_DIR (default build/asan)] [FUZZ_BUILD (default build/fuzz)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build/asan}
fbuild=${2:-build/fuzz}
corpus=fuzz/corpus
for d in sst wal keys sql; do
	mkdir -p "$corpus/$d"
	find "$corpus/$d" -type f ! -name 'regress-*' -delete
done
tmp=$(mktemp -d /tmp/strata-seeds.XXXXXX)
trap 'kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# A store with sorted files (small memstores) and one whose data stays in the log.
port=$((20000 + RANDOM % 20000))
"$build/server/strata" --port $port --data-dir "$tmp/d" --memstore-flush-kb 16 --wal-segment-kb 64 >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p $port && break; sleep 0.1; done
psql -q -X -h 127.0.0.1 -p $port -U postgres <<'SQL'
CREATE TABLE k (a int PRIMARY KEY, b text, c numeric, d timestamptz, e jsonb, f int[], g bytea, h date, i uuid);
INSERT INTO k SELECT g, repeat(chr(65 + g % 26), g % 50), g / 7.0, '2024-01-01'::timestamptz + g * interval '1 hour',
  jsonb_build_object('k', g, 'a', array[g, -g]), array[g, g * 2], decode(md5(g::text), 'hex'),
  '2000-01-01'::date + g, md5(g::text)::uuid FROM generate_series(1, 400) g;
UPDATE k SET b = NULL WHERE a % 5 = 0;
DELETE FROM k WHERE a % 7 = 0;
CREATE TABLE m (x text, y float8, PRIMARY KEY (x, y));
INSERT INTO m SELECT 'x' || g, g * 0.5 FROM generate_series(1, 300) g;
CHECKPOINT;
SQL
kill $pid; wait $pid || true
n=0
for f in "$tmp"/d/store/*.sst; do
	n=$((n + 1))
	{ printf '\001'; cat "$f"; } >"$corpus/sst/seed-$n"
	((n <= 3)) && { printf '\003'; cat "$f"; } >"$corpus/sst/seed-$n-cache"
done

"$build/server/strata" --port $port --data-dir "$tmp/w" --wal-segment-kb 16 >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p $port && break; sleep 0.1; done
psql -q -X -h 127.0.0.1 -p $port -U postgres <<'SQL'
CREATE TABLE w (a int PRIMARY KEY, b text);
INSERT INTO w SELECT g, 'v' || g FROM generate_series(1, 50) g;
UPDATE w SET b = 'u' WHERE a < 10;
DELETE FROM w WHERE a > 40;
BEGIN; INSERT INTO w VALUES (100, 'x'); UPDATE w SET b = NULL WHERE a = 1; COMMIT;
CREATE TABLE w2 (a text PRIMARY KEY);
INSERT INTO w2 VALUES ('a'), ('b');
DROP TABLE w2;
SQL
kill $pid; wait $pid || true
n=0
for f in "$tmp"/w/store/*.wal; do
	n=$((n + 1))
	{ printf '\001'; head -c 16384 "$f"; } >"$corpus/wal/seed-$n"
done

FUZZ_KEYS_SEEDS=$corpus/keys "$fbuild/fuzz/fuzz_keys"

# SQL over the tables fuzz_sql creates: t(a int pk, b text, c numeric, d timestamptz,
# e jsonb, f int[]), u(x int, y text, z bool, pk (x, y)), e(id bigint pk, v float8,
# w bytea, day date), view tv, sequence s1. After a NUL byte: COPY data.
i=0
while IFS= read -r line; do
	[[ -z $line || $line == \#* ]] && continue
	i=$((i + 1))
	printf '%b' "$line" >"$corpus/sql/seed-$(printf %03d $i)"
done <fuzz/sql_seeds.txt
echo "seeds: $(find $corpus -type f | wc -l) files, $(du -sh $corpus | cut -f1)"
