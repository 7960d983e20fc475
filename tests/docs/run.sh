#!/usr/bin/env bash
# run.sh — runs the examples of the user documentation (tests/docs/run_docs.py):
# every sql/sh/ini block of docs/operations.md against a fresh server, and checks
# that every server setting is documented with its default.
#
# usage: tests/docs/run.sh [docs/FILE.md ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
case ${1:-} in -h | --help) sed -n '2,6p' "$0"; exit 0 ;; esac
if [[ -n ${STRATA_TEST_PORT:-} ]]; then
	echo "# docs: needs a server it starts itself (unset STRATA_TEST_PORT)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
exec /usr/bin/python3 "$root/tests/docs/run_docs.py" "$@"
