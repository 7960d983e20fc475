#!/usr/bin/env bash
# valgrind_strata.sh — the strata server under valgrind's memcheck, as a stand-in
# for the binary (STRATA_BIN) in tests/load/load.py --valgrind. A memcheck error
# or a definite leak makes the server exit with 99, which fails the fixture.
# Use a build without ASan (build/release): VALGRIND_STRATA_BIN says which.
set -euo pipefail
bin=${VALGRIND_STRATA_BIN:-build/release/server/strata}
exec valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --track-origins=no --num-callers=30 "$bin" "$@"
