#!/usr/bin/env bash
# run.sh — the KV core benchmark (kv_bench) next to RocksDB's db_bench with
# matched options: same key/value sizes and counts, zstd level 3, 16 KiB
# blocks, 10-bit bloom filters, 256 MiB block cache, 64 MiB memtable, one
# thread, no fsync per write (WAL written). Prints both result lines per
# benchmark, then the 20M-row filtered scan.
#
# Usage: bench/kv/run.sh [quick|full]     (quick: 200k entries, 2M-row scan)
# Env:   BUILD=build/release  DIR=/tmp/kvbench  NUM=1000000  ROWS=20000000
#        SCAN_THREADS=2 (threads for the filtered scan)
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-full}
BUILD=${BUILD:-build/release}
DIR=${DIR:-/tmp/kvbench}
if [[ $mode == quick ]]; then
  NUM=${NUM:-200000}
  ROWS=${ROWS:-2000000}
else
  NUM=${NUM:-1000000}
  ROWS=${ROWS:-20000000}
fi
SCAN_THREADS=${SCAN_THREADS:-2}
BENCH=fillseq,fillrandom,overwrite,readrandom,readseq,readreverse,seekrandom

if [[ ! -x $BUILD/bench/kv/kv_bench ]]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" -j2 --target kv_bench >/dev/null
fi
mkdir -p "$DIR"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"

common=(--num="$NUM" --key_size=16 --value_size=100 --cache_size=268435456 --compression_level=3
        --block_size=16384 --write_buffer_size=67108864 --threads=1 --sync=0)

if command -v db_bench >/dev/null; then
  rm -rf "$DIR/rocksdb"
  echo "## rocksdb db_bench $(db_bench --version 2>&1 | head -1 | awk '{print $3}')"
  (set -x; /usr/bin/time -f "cpu: user %U s, system %S s (whole run)" db_bench --db="$DIR/rocksdb" \
     "${common[@]}" --bloom_bits=10 --compression_type=zstd --seek_nexts=0 --benchmarks="$BENCH" 2>&1) |
    grep -E "^(fill|over|read|seek|cpu)"
else
  echo "## db_bench not installed (apt-get install rocksdb-tools)"
fi

rm -rf "$DIR/strata"
echo "## strata kv_bench"
(set -x; /usr/bin/time -f "cpu: user %U s, system %S s (whole run)" "$BUILD/bench/kv/kv_bench" \
   --db="$DIR/strata" "${common[@]}" --bloom=1 --seek_nexts=0 --benchmarks="$BENCH" 2>&1) |
  grep -E "^(fill|over|read|seek|cpu)"
echo "## strata: full scan with a filter matching nothing (same data)"
(set -x; "$BUILD/bench/kv/kv_bench" --db="$DIR/strata" "${common[@]}" --bloom=1 --use_existing_db=1 \
   --benchmarks=filterscan,filterscan 2>&1) | grep -E "^filter"

echo "## strata filtered scan, $ROWS rows"
(set -x; "$BUILD/bench/kv/kv_bench" --db="$DIR/strata-scan" --rows="$ROWS" --scan_threads="$SCAN_THREADS" \
   --cache_size=4294967296 --benchmarks=scan20m 2>&1) | grep -E "^scan"
(set -x; "$BUILD/bench/kv/kv_bench" --db="$DIR/strata-scan" --rows="$ROWS" --scan_threads=1 \
   --cache_size=4294967296 --benchmarks=scan20m 2>&1) | grep -E "^scan.*seconds"
