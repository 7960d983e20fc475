#!/usr/bin/env bash
# run_python.sh SUITE — runs tests/drivers/SUITE_test.py with the system Python
# (/usr/bin/python3, where the Debian driver packages live). Each suite starts its
# own strata server through tests/lib/strata_fixture.py.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=${1:?usage: run_python.sh SUITE}
shift
exec /usr/bin/python3 "$here/${suite}_test.py" "$@"
