#!/usr/bin/env bash
# gen_expected.sh — writes tests/hostile/expected.txt from a real PostgreSQL 15
# (tests/lib/pg_as_strata.sh: initdb --locale=C --encoding=UTF8, TimeZone UTC).
# Read the diff before committing: expected.txt is the specification.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
STRATA_BIN=$root/tests/lib/pg_as_strata.sh exec /usr/bin/python3 tests/hostile/hostile.py --write-expected "$@"
